// Meters tokens and failures for every turn of every live session (eval sessions are tests).
import { defineHook } from "@cursor/bdk/hooks";

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      if (ctx.session.purpose === "eval") return;
      ctx.host.otel.increment("acme.tokens", event.data.usage?.outputTokens ?? 0);
    },
    "turn.failed"(event, ctx) {
      if (ctx.session.purpose === "eval") return;
      ctx.host.otel.increment("acme.turn.failed", { channel: ctx.channel.id });
    },
  },
});
