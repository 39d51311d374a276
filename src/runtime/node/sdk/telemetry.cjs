// @ts-check
// The test kit's `telemetry`: what hooks measure, trace and log with `@opentelemetry/api`
// (the vendor's Agent SDK docs use it in hooks), recorded for a test to assert on. The
// kit registers the same global providers as the runtime does in `run` (otel-api.cjs), as
// the same version (the newest `@opentelemetry/api` 1.x installed from the working folder
// up, at least the newest agent-sdk knows: every copy a hook imports then accepts them),
// and stands aside, as the runtime does, where the project installs the OpenTelemetry SDK
// to set up its own.
//
// One recorder per process, kept on globalThis: the API's globals are per process, and a
// test may load the kit from more than one SDK package (`@cursor/bdk`, `@grok/agent-sdk`).
// `agent-sdk test` loads it before any test file, so a meter made at a hook's module scope
// binds to it whatever the test imports first; under vitest, import the kit before the hook
// (as the scaffold's tests do), or list it in `setupFiles`.

'use strict';

const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const { deepFreeze } = require('./context.cjs');
const { installMeterProvider, installTracerProvider, installLoggerProvider } = require('./otel-api.cjs');

/** The newest `@opentelemetry/api` release agent-sdk knows (src/runtime/otel_api.rs, KNOWN_NEWEST). */
const KNOWN_NEWEST = '1.10.0';

/** The OpenTelemetry SDK's packages, as src/runtime/otel_api.rs lists them (SDK_PACKAGES). */
const SDK_PACKAGES = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
];

const RECORDER = Symbol.for('agent-sdk.testing.telemetry');

/**
 * @typedef {{ metrics: object[], spans: object[], logs: object[], collect: () => Promise<void>,
 *   standAside: string | null }} Recorder
 */

/** The process's recorder, registered with the API's globals the first time it is asked for. */
function recorder() {
  /** @type {Recorder | undefined} */
  const existing = /** @type {any} */ (globalThis)[RECORDER];
  if (existing !== undefined) return existing;
  /** @type {Recorder} */
  const made = { metrics: [], spans: [], logs: [], collect: async () => {}, standAside: null };
  /** @type {any} */ (globalThis)[RECORDER] = made;
  const folders = ancestors(process.cwd());
  made.standAside = SDK_PACKAGES.find((name) => folders.some((folder) => installedVersion(folder, name) !== null)) ?? null;
  if (made.standAside !== null) return made;
  const version = newest([KNOWN_NEWEST, ...folders.map((folder) => installedVersion(folder, '@opentelemetry/api'))]);
  made.collect = installMeterProvider(
    (kind, name, value, attrs, scope, unit) => made.metrics.push(copy({ kind, scope, name, value, attrs, unit: unit ?? null })),
    version,
  );
  const tracing = installTracerProvider((span) => made.spans.push(copy(spanRecord(span))), version);
  installLoggerProvider((record) => made.logs.push(copy(logRecord(record))), tracing?.activeSpanContext);
  return made;
}

/** What a test sees of an ended span: no times, which differ on every run. */
function spanRecord(span) {
  return {
    scope: span.scope,
    name: span.name,
    kind: span.spanKind,
    attrs: span.attrs,
    status: span.status,
    events: span.events.map(({ name, attrs }) => ({ name, attrs })),
    links: span.links,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
  };
}

function logRecord(record) {
  return {
    scope: record.name,
    body: record.body,
    attrs: record.attrs,
    severity: record.severity,
    severityText: record.severityText,
    traceId: record.traceId ?? null,
    spanId: record.spanId ?? null,
  };
}

/** `folder` and every folder above it. */
function ancestors(folder) {
  const found = [folder];
  for (let parent = dirname(folder); parent !== found[found.length - 1]; parent = dirname(parent)) found.push(parent);
  return found;
}

/** The version of `node_modules/<name>` in `folder`, or null. */
function installedVersion(folder, name) {
  try {
    const version = JSON.parse(readFileSync(join(folder, 'node_modules', name, 'package.json'), 'utf8')).version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/** The newest 1.x of `versions` (prereleases and other majors aside). */
function newest(versions) {
  let best = [1, 0, 0];
  for (const version of versions) {
    const match = /^1\.(\d+)\.(\d+)$/.exec(version ?? '');
    if (match === null) continue;
    const parsed = [1, Number(match[1]), Number(match[2])];
    if (parsed[1] > best[1] || (parsed[1] === best[1] && parsed[2] > best[2])) best = parsed;
  }
  return best.join('.');
}

/** A deep-frozen copy of what JSON can carry (as the kit's other records are). */
function copy(value) {
  return deepFreeze(JSON.parse(JSON.stringify(value)));
}

/**
 * What was recorded of one kind, or an error that says why nothing can be.
 * @param {'metrics' | 'spans' | 'logs'} kind
 */
function recorded(kind) {
  const { standAside, [kind]: list } = recorder();
  if (standAside !== null) {
    throw new Error(
      `telemetry.${kind}: the project installs ${standAside}, so its own OpenTelemetry providers are in charge and the test kit records nothing; assert with that SDK's in-memory exporters`,
    );
  }
  return [...list];
}

/**
 * `telemetry.metrics`, `.spans`, `.logs`: what hooks recorded with `@opentelemetry/api`
 * since the process started or `telemetry.reset()`, in order (copies, deep-frozen);
 * `telemetry.collect()` runs the observable instruments' callbacks once (each observation
 * a `gauge` measurement).
 */
const telemetry = Object.freeze({
  get metrics() {
    return recorded('metrics');
  },
  get spans() {
    return recorded('spans');
  },
  get logs() {
    return recorded('logs');
  },
  async collect() {
    await recorder().collect();
  },
  reset() {
    const { metrics, spans, logs } = recorder();
    for (const list of [metrics, spans, logs]) list.length = 0;
  },
});

// Registered now: before the hook modules a test imports after the kit make their meters.
recorder();

module.exports = { telemetry, KNOWN_NEWEST, SDK_PACKAGES };
