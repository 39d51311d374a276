import { defineHook } from "@cursor/bdk/hooks";
import { Usage } from "../lib/schema.js";

export default defineHook({
  events: {
    "turn.completed"(event) {
      const parsed = Usage.safeParse(event.data.usage);
      if (!parsed.success) console.warn("usage has an unexpected shape", parsed.error.issues.length);
    },
  },
});
