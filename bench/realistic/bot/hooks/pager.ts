import { defineHook } from "@cursor/bdk/hooks";
import { slack } from "../lib/slack.js";
import { stamp } from "../lib/format.js";

const webhook = slack(process.env.PAGER_WEBHOOK_URL);

export default defineHook({
  events: {
    async "turn.failed"(event, ctx) {
      if (event.data.status === "cancelled" || ctx.session.purpose === "eval") return;
      await webhook?.send({ text: `${stamp(event.at)} ${ctx.agent.name}: ${event.data.message}` });
    },
  },
});
