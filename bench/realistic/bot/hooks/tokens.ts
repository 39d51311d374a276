import { defineHook } from "@cursor/bdk/hooks";
import { metrics } from "@opentelemetry/api";

const meter = metrics.getMeter("acme");
const inputTokens = meter.createCounter("acme.tokens.input");

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      if (ctx.session.purpose === "eval") return;
      inputTokens.add(event.data.usage?.inputTokens ?? 0, { channel: ctx.channel.id });
    },
  },
});
