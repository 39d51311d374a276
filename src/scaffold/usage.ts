// Meters the tokens of every completed turn and pages when a turn fails. Eval sessions are
// skipped (they would skew the numbers and wake someone for nothing), and so are cancelled
// turns: they record interrupted work, not a failure.
import { defineHook } from "{sdk}/hooks";

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      if (ctx.session.purpose === "eval") return;
      ctx.host.otel.increment("tokens.output", event.data.usage?.outputTokens ?? 0);
    },
    async "turn.failed"(event, ctx) {
      if (ctx.session.purpose === "eval" || event.data.status === "cancelled") return;
      ctx.host.otel.increment("pages", { channel: ctx.channel.id });
      await ctx.host.kv.set(`last-page/${ctx.session.id}`, { at: event.at, message: event.data.message });
    },
  },
});
