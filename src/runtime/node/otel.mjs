// @ts-check
// The hooks' OpenTelemetry: the records of `ctx.host.otel`, the providers the runtime
// registers for `@opentelemetry/api` (sdk/otel-api.cjs, whose version src/runtime/otel_api.rs
// chooses) and what they record, and the span of each handler of a traced event.

import { sendSoon, send } from './channel.mjs';
import { currentHook, inLane } from './scope.mjs';
import { builtin } from './builtin.mjs';

/** @typedef {import('./protocol.js').ToNode} ToNode */

const require = builtin('node:module').createRequire(import.meta.url);

// Primordials, taken before any hook can replace them.
const { hasOwn, keys } = Object;

/** otel-api.cjs, required when the OpenTelemetry providers register (see
 * installWhenFirstUsed) or a traced handler needs a span id; else never: most runs need none of it. */
let otelApi = null;

/** Fire and forget, as are measurements and spans: sent with the next write. */
export function sendOtel(kind, name, value, attrs) {
  sendSoon(inLane({ t: 'otel', kind, name, value, attrs, hook: currentHook() }));
}

/** A measurement of an instrument of @opentelemetry/api: with its meter's name, and its unit. */
function sendMeasurement(kind, name, value, attrs, scope, unit) {
  sendSoon(inLane({ t: 'otel', kind, name, value, attrs, hook: currentHook(), scope, unit }));
}

/** A span a hook made with @opentelemetry/api ended: all that export needs of it. */
function sendSpan(span) {
  sendSoon(inLane({
    t: 'otel',
    kind: 'span',
    name: span.name,
    value: span.ms,
    attrs: span.attrs,
    error: span.error,
    hook: currentHook(),
    scope: span.scope,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    start: span.start,
    spanKind: span.spanKind,
    status: span.status,
    events: span.events,
    links: span.links,
    droppedEvents: span.droppedEvents || undefined,
    droppedLinks: span.droppedLinks || undefined,
  }));
}

/** A hook's logger of @opentelemetry/api-logs emitted a record. */
function sendLog(record) {
  send(inLane({
    t: 'otel',
    kind: 'log',
    name: record.name,
    value: record.body,
    attrs: record.attrs,
    severity: record.severity,
    severityText: record.severityText,
    hook: currentHook(),
    start: record.time,
    traceId: record.traceId,
    spanId: record.spanId,
  }));
}

/** Takes the observable instruments' measurements; set at the first init. */
export let collectObservables = async () => {};
let providersInstalled = false;
/** The runtime's context manager's `{ runInSpan, activeSpanContext }`, once registered. */
let activeContext = null;

/**
 * What an init says of OpenTelemetry, done before any of its hooks loads: at the first,
 * the providers take their place as `otelApiVersion` (none when it is null: the project
 * installs the SDK to set up its own); while traces are exported, fetch sends a
 * `traceparent`.
 * @param {Extract<ToNode, { t: 'init' }>} message
 */
export function setUpOtel(message) {
  // Null when the project installs the OpenTelemetry SDK to set up its own providers.
  const version = message.otelApiVersion;
  if (!providersInstalled && typeof version === 'string') {
    providersInstalled = true;
    // Traced handlers run in the runtime's context from their first event: registered now.
    // Otherwise at the first look a copy of the API takes at them.
    if (message.tracing === true) installProviders(version);
    else installWhenFirstUsed(version);
  }
  // Only while traces are exported ("with no endpoint, fetch has no traceparent").
  if (message.tracing === true && activeContext !== null) otelApi.addTraceparentToFetch(activeContext.activeSpanContext);
}

/** Registers the runtime's OpenTelemetry providers as `version` (otel-api.cjs). */
function installProviders(version) {
  otelApi ??= require('./sdk/otel-api.cjs');
  collectObservables = otelApi.installMeterProvider(sendMeasurement, version);
  activeContext = otelApi.installTracerProvider(sendSpan, version);
  otelApi.installLoggerProvider(sendLog, activeContext?.activeSpanContext);
}

/** Where every copy of `@opentelemetry/api` 1.x, and of api-logs, looks for the providers. */
const API_KEY = Symbol.for('opentelemetry.js.api.1');
const LOGS_API_KEY = Symbol.for('io.opentelemetry.js.api.logs');
/** What the runtime registers (otel-api.cjs): the stand-in's getters. */
const PROVIDED = ['metrics', 'trace', 'context', 'logs'];

/**
 * Registers the providers as `version` when a copy of the API first looks for one: until
 * then a stand-in holds their place, so otel-api.cjs is read only by the runs whose hooks
 * use the API (most use ctx.host.otel, or nothing). A copy of the API reads the registry
 * from the global each time it needs a provider, so the one that looks first through the
 * stand-in gets the provider registered at that moment, and every later look the registry
 * itself. What a copy registered on the stand-in meanwhile (its `diag` logger) moves over.
 */
function installWhenFirstUsed(version) {
  const standIn = { version };
  const logsStandIn = (compatibility) => {
    installNow();
    return globalThis[LOGS_API_KEY]?.(compatibility);
  };
  let installed = false;
  function installNow() {
    if (installed) return;
    installed = true;
    if (globalThis[API_KEY] === standIn) delete globalThis[API_KEY];
    if (globalThis[LOGS_API_KEY] === logsStandIn) delete globalThis[LOGS_API_KEY];
    installProviders(version);
    const registry = globalThis[API_KEY];
    for (const key of keys(standIn)) {
      if (!PROVIDED.includes(key) && key !== 'version' && registry && !hasOwn(registry, key)) registry[key] = standIn[key];
    }
  }
  for (const type of PROVIDED) {
    Object.defineProperty(standIn, type, {
      configurable: true,
      enumerable: true,
      get() {
        installNow();
        return globalThis[API_KEY]?.[type];
      },
    });
  }
  globalThis[API_KEY] = standIn;
  globalThis[LOGS_API_KEY] = logsStandIn;
}

/** What an event sent with "timeline" and no "trace" runs under: "handler" lines, no spans. */
export const TIMELINE_ONLY = Object.freeze({ timelineOnly: true });

/**
 * What a traced event's handlers run under: `{ traceId }` of the turn's span, or `{}`
 * (handler lines, no context) when the runtime's context manager is not the one in charge
 * or the ids are not valid.
 */
export function tracedBy(trace) {
  if (activeContext === null || !otelApi.isValidSpanContext(trace)) return {};
  return { traceId: trace.traceId };
}

/** A handler span, begun: its id, its start in epoch milliseconds, and `performance.now()` then. */
export function beginHandlerSpan(trace) {
  const began = performance.now();
  if (trace.timelineOnly) return { spanId: null, start: performance.timeOrigin + began, began };
  // (An event sent with a trace comes only after an init that said traces are exported.)
  otelApi ??= require('./sdk/otel-api.cjs');
  return { spanId: otelApi.newSpanId(), start: performance.timeOrigin + began, began };
}

/** Runs a traced event's handler with its span as the active one. */
export function inHandlerSpan(trace, span, runHandler) {
  if (trace.traceId === undefined) return runHandler();
  return activeContext.runInSpan({ traceId: trace.traceId, spanId: span.spanId }, runHandler);
}

/** The "handler" line of a traced (or timelined) event's handler, after its threw/timed_out line if any. */
export function endHandlerSpan(lane, seq, index, key, span, outcome, error) {
  const ended = outcome.timedOut ? 'timed_out' : outcome.threw ? 'threw' : 'ok';
  // Deferred like "done": it goes out with the next line, in order.
  sendSoon(inLane({
    t: 'handler',
    seq,
    hook: index,
    handler: key,
    spanId: span.spanId,
    start: span.start,
    ms: performance.now() - span.began,
    outcome: ended,
    error,
  }, lane.id));
}
