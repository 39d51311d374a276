import { IncomingWebhook } from "@slack/webhook";

export const slack = (url: string | undefined) => (url ? new IncomingWebhook(url) : null);
