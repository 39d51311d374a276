import { defineHook } from "@cursor/bdk/hooks";
import { z } from "zod";

const Call = z.object({ callId: z.string(), toolName: z.string() });

export default defineHook({
  events: {
    async "actions.requested"(event, ctx) {
      for (const call of event.data.calls) {
        const { toolName } = Call.parse(call);
        const seen = ((await ctx.host.kv.get(`tools:${toolName}`)) as number | null) ?? 0;
        await ctx.host.kv.set(`tools:${toolName}`, seen + 1);
      }
    },
  },
});
