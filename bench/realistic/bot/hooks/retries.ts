import { defineHook } from "@cursor/bdk/hooks";
import { metrics } from "@opentelemetry/api";

const retries = metrics.getMeter("acme").createCounter("acme.tool.retries");

export default defineHook({
  events: {
    "action.tool_retry"(event) {
      retries.add(1, { tool: event.data.toolName, reason: event.data.reason });
    },
  },
});
