// Sees every event: counts them by type in memory.
import { defineHook } from "@cursor/bdk/hooks";

const counts = new Map<string, number>();

export default defineHook({
  events: {
    "*"(event) {
      counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    },
  },
});
