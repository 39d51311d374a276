// Meters tokens and failures for every turn of every session.
import { defineHook } from "@cursor/bdk/hooks";

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      ctx.host.otel.increment("acme.tokens", event.data.usage?.outputTokens ?? 0);
    },
    "turn.failed"(event, ctx) {
      ctx.host.otel.increment("acme.turn.failed", { channel: ctx.channel.id });
    },
  },
});
