// Meters tokens per turn through ctx.host.otel (fire and forget).
import { defineHook } from "@cursor/bdk/hooks";

export default defineHook({
  events: {
    "turn.completed"(event, ctx) {
      ctx.host.otel.increment("bench.tokens", event.data.usage?.outputTokens ?? 0);
    },
  },
});
