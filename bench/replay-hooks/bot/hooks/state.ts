// Keeps derived state: the last completed turn, in the durable key-value store (an awaited host call per turn).
import { defineHook } from "@cursor/bdk/hooks";

export default defineHook({
  events: {
    async "message.completed"(event, ctx) {
      await ctx.host.kv.set("last-reply", { turnId: event.turnId, length: event.data.text.length });
    },
  },
});
