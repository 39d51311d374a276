// Pages the on-call person when a turn fails for a reason other than a cancel.
import { defineHook } from "@cursor/bdk/hooks";

const FAILED = "turn.failed";

async function page(event: { data: { message: string; status?: string } }, ctx: any) {
  if (event.data.status === "cancelled") return;
  await ctx.host.kv.set("last-page", { at: new Date().toISOString(), message: event.data.message });
}

export default defineHook({ events: { [FAILED]: page } });
