import { defineHook } from "@cursor/bdk/hooks";
import { metrics, trace } from "@opentelemetry/api";
import { differenceInMilliseconds } from "date-fns";

const histogram = metrics.getMeter("acme").createHistogram("acme.turn.ms");
const tracer = trace.getTracer("acme");
let started: Date | undefined;

export default defineHook({
  events: {
    "message.received"(event) {
      started = new Date(event.at);
    },
    "turn.completed"(event) {
      if (started) histogram.record(differenceInMilliseconds(new Date(event.at), started));
      tracer.startSpan("acme.turn").end();
    },
  },
});
