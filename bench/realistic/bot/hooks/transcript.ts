import { defineHook } from "@cursor/bdk/hooks";
import { ago } from "../lib/format.js";

export default defineHook({
  events: {
    async "message.completed"(event, ctx) {
      await ctx.host.files.write(`transcripts/${event.turnId}.md`, `${ago(event.at)}\n\n${event.data.text}\n`);
    },
  },
});
