// The usage hook's tests: `agent-sdk test` runs them with Node's test runner, through the
// same loader as `agent-sdk run`. A hook is a plain object: the test dispatches a made-up
// event to it with a stub context and looks at what the hook did; `telemetry` holds what
// it recorded with @opentelemetry/api.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createTestContext, dispatch, events, telemetry } from "{sdk}/testing";

import usage from "./usage.js";

beforeEach(() => telemetry.reset());

test("a completed turn meters its output tokens", async () => {
  await dispatch(usage, events["turn.completed"]());
  const [metered] = telemetry.metrics;
  assert.equal(metered?.name, "tokens.output");
  assert.ok(typeof metered?.value === "number" && metered.value > 0);
});

test("a failed turn pages, a cancelled one does not", async () => {
  const failed = await dispatch(usage, events["turn.failed"]({ data: { message: "boom", status: "error" } }));
  assert.deepEqual(await failed.host.kv.get("last-page/ses_test"), { at: "2026-01-01T00:00:00.000Z", message: "boom" });
  assert.deepEqual(
    telemetry.metrics.map(({ name, attrs }) => ({ name, attrs })),
    [{ name: "pages", attrs: { channel: "local" } }],
  );

  const cancelled = await dispatch(usage, events["turn.failed"]({ data: { message: "stop", status: "cancelled" } }));
  assert.equal(await cancelled.host.kv.get("last-page/ses_test"), null);
  assert.equal(telemetry.metrics.length, 1);
});

test("eval sessions are neither metered nor paged", async () => {
  const ctx = createTestContext({ session: { purpose: "eval" } });
  await dispatch(usage, events["turn.completed"](), ctx);
  await dispatch(usage, events["turn.failed"](), ctx);
  assert.deepEqual(telemetry.metrics, []);
});
