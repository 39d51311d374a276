import { defineHook } from "@cursor/bdk/hooks";
import { formatISO, startOfDay } from "date-fns";

export default defineHook({
  events: {
    async "turn.completed"(event, ctx) {
      const day = formatISO(startOfDay(new Date(event.at)), { representation: "date" });
      const turns = ((await ctx.host.kv.get(`digest:${day}`)) as number | null) ?? 0;
      await ctx.host.kv.set(`digest:${day}`, turns + 1);
    },
  },
});
