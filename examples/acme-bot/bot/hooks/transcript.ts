// Mirrors the final reply of every turn into the session's files.
import { defineHook } from "@cursor/bdk/hooks";

export default defineHook({
  events: {
    "message.completed": async (event, ctx) => {
      await ctx.host.files.write(`transcript/${event.turnId}.md`, event.data.text);
    },
    "*"(event) {
      if (event.type === "action.tool_retry") console.warn("retrying", event.data.toolName);
    },
  },
});
