// Meters the tokens of every completed turn and pages when a turn fails, with OpenTelemetry
// (`agent-sdk run` and `dev` export what it records to OTEL_EXPORTER_OTLP_ENDPOINT). Eval
// sessions are skipped (they would skew the numbers and wake someone for nothing), and so are
// cancelled turns: they record interrupted work, not a failure.
import { metrics } from "@opentelemetry/api";
import { defineHook } from "{sdk}/hooks";

const meter = metrics.getMeter("usage");
const outputTokens = meter.createCounter("tokens.output", { unit: "{token}" });
const pages = meter.createCounter("pages");

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      if (ctx.session.purpose === "eval") return;
      outputTokens.add(event.data.usage?.outputTokens ?? 0);
    },
    async "turn.failed"(event, ctx) {
      if (ctx.session.purpose === "eval" || event.data.status === "cancelled") return;
      pages.add(1, { channel: ctx.channel.id });
      await ctx.host.kv.set(`last-page/${ctx.session.id}`, { at: event.at, message: event.data.message });
    },
  },
});
