// Sees every event. With AGENT_SDK_BENCH_ECHO=1 it writes a serve-log line per event
// ("bench <index>"); with AGENT_SDK_TEST_RECORD set it appends
// "<sessionId> <index> <type> <Date.now()>" to that file, so bench/dev.py knows when each ran.
import { appendFileSync } from "node:fs";
import { defineHook } from "@cursor/bdk/hooks";

const echo = process.env.AGENT_SDK_BENCH_ECHO === "1";
const record = process.env.AGENT_SDK_TEST_RECORD;

export default defineHook({
  events: {
    "*"(event) {
      if (echo) console.log("bench " + event.index);
      if (record) appendFileSync(record, `${event.sessionId} ${event.index} ${event.type} ${Date.now()}\n`);
    },
  },
});
