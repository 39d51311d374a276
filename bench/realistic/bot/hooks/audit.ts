import { defineHook } from "@cursor/bdk/hooks";
import { IncomingWebhook } from "@slack/webhook";
import { z } from "zod";

const url = z.string().url().optional().parse(process.env.AUDIT_WEBHOOK_URL);
const audit = url ? new IncomingWebhook(url) : null;

export default defineHook({
  events: {
    async "*"(event) {
      if (event.type === "turn.completed" || event.type === "turn.failed") await audit?.send({ text: event.type });
    },
  },
});
