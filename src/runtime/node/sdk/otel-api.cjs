// @ts-check
// The OpenTelemetry API's global providers, registered by the hook host before any hook
// (or extension mount) module is evaluated, so that `metrics.getMeter("acme")`,
// `trace.getTracer("acme")` and `logs.getLogger("acme")` at a hook's module scope, from any
// copy of `@opentelemetry/api` 1.x (and `@opentelemetry/api-logs`) in the project, bind to
// them. What they record goes to Rust as "otel" messages: summarised in the serve log, and
// exported when OTEL_* says where.
//
// How a copy of the API finds them: every 1.x copy reads the object at
// `globalThis[Symbol.for("opentelemetry.js.api.1")]` and takes its `metrics`, `trace` and
// `context` when the object's `version` is compatible with its own (the same major, a minor
// at least its own). The binary passes the newest version installed in the project (at
// least the newest it knows), so every installed copy accepts it. Its `logs` (1.10 and
// later) is read there too; `@opentelemetry/api-logs` keeps its provider elsewhere (see
// installLoggerProvider).
//
// Metrics: each measurement is one message, with its meter's name (`scope`) and the
// instrument's unit. Traces: spans nest by the active context (`startActiveSpan`,
// `context.with`, across awaits, by AsyncLocalStorage); each ended span is one message with
// what export needs (ids, parent, times, kind, status, events, links). The host runs a
// traced event's handlers inside their handler span (runInSpan), and, while traces are
// exported, a `fetch` made inside a span carries its `traceparent`. Logs: each emitted
// record is one message.
//
// One file, though it is past the house's ~600 lines: the three providers share the
// attribute and time rules and the context, and the binary embeds the runtime's files by
// name (src/runtime/host.rs).

'use strict';

const { AsyncLocalStorage } = require('node:async_hooks');

const API_KEY = Symbol.for('opentelemetry.js.api.1');

// Primordials, taken before any hook can replace them.
const { freeze, entries } = Object;
const { isArray } = Array;
const { stringify } = JSON;
const { isFinite: finite, isInteger } = Number;
const RealDate = Date;
const byteLength = Buffer.byteLength;
const bufferFrom = Buffer.from.bind(Buffer);
const now = () => performance.timeOrigin + performance.now();

// ---- Metrics -------------------------------------------------------------------------------

/**
 * Registers the meter provider, once per process. `record(kind, name, value, attrs, scope,
 * unit)` sends a measurement (`kind`: "counter", "updown", "histogram" or "gauge"; `scope`
 * the meter's name; `unit` undefined when the instrument has none). Returns `collect()`,
 * which runs the observable instruments' callbacks once (each measurement they observe is
 * recorded as a "gauge": its last value) and resolves when they are done.
 */
function installMeterProvider(record, version) {
  const registry = globalThis[API_KEY] ?? (globalThis[API_KEY] = { version });
  if (registry.metrics) return async () => {};
  const observables = [];
  const batchCallbacks = [];
  registry.metrics = freeze({ getMeter: byName((scope) => makeMeter(record, scope, observables, batchCallbacks)) });

  return async function collect() {
    const pending = [];
    for (const { measure, callbacks } of observables) {
      const result = freeze({ observe: measure });
      for (const callback of callbacks) pending.push(settled(() => callback(result)));
    }
    for (const { callback } of batchCallbacks) {
      const result = freeze({
        observe: (instrument, value, attributes) => {
          const found = observables.find((entry) => entry.instrument === instrument);
          if (found) found.measure(value, attributes);
        },
      });
      pending.push(settled(() => callback(result)));
    }
    await Promise.all(pending);
  };
}

/** One meter: its instruments' measurements are recorded with its name as their scope. */
function makeMeter(record, scope, observables, batchCallbacks) {
  const measure = (kind, name, options) => {
    const unit = typeof options?.unit === 'string' && options.unit !== '' ? options.unit : undefined;
    const instrumentName = String(name);
    return (value, attributes) => {
      if (typeof value !== 'number' || !finite(value)) return;
      record(kind, instrumentName, value, plainAttributes(attributes), scope, unit);
    };
  };
  const observable = (name, options) => {
    const callbacks = new Set();
    const instrument = freeze({
      addCallback: (callback) => typeof callback === 'function' && callbacks.add(callback),
      removeCallback: (callback) => callbacks.delete(callback),
    });
    observables.push({ measure: measure('gauge', name, options), callbacks, instrument });
    return instrument;
  };
  return freeze({
    createCounter: (name, options) => {
      const add = measure('counter', name, options);
      return freeze({ add: (value, attributes) => value >= 0 && add(value, attributes) });
    },
    createUpDownCounter: (name, options) => freeze({ add: measure('updown', name, options) }),
    createHistogram: (name, options) => freeze({ record: measure('histogram', name, options) }),
    createGauge: (name, options) => freeze({ record: measure('gauge', name, options) }),
    createObservableCounter: observable,
    createObservableUpDownCounter: observable,
    createObservableGauge: observable,
    addBatchObservableCallback: (callback, instruments) => {
      if (typeof callback === 'function') batchCallbacks.push({ callback, instruments });
    },
    removeBatchObservableCallback: (callback) => {
      const index = batchCallbacks.findIndex((entry) => entry.callback === callback);
      if (index !== -1) batchCallbacks.splice(index, 1);
    },
  });
}

/**
 * A provider's `getMeter`/`getTracer`/`getLogger`: one object per name (its scope), made by
 * `make(scope)` when first asked for; the version and options do not tell them apart.
 */
function byName(make) {
  const made = new Map();
  return (name) => {
    const scope = String(name ?? '');
    let instance = made.get(scope);
    if (instance === undefined) made.set(scope, (instance = make(scope)));
    return instance;
  };
}

/** Runs an observable callback; a throw or rejection loses only its own measurements. */
function settled(run) {
  try {
    return Promise.resolve(run()).catch(() => {});
  } catch {
    return Promise.resolve();
  }
}

/** Attributes as the OpenTelemetry API allows them: strings, numbers, booleans and arrays of them. */
function plainAttributes(attributes) {
  const plain = {};
  if (typeof attributes !== 'object' || attributes === null) return plain;
  for (const [key, value] of entries(attributes)) {
    if (isPrimitive(value)) plain[key] = value;
    else if (isArray(value) && value.every(isPrimitive)) plain[key] = [...value];
  }
  return plain;
}

function isPrimitive(value) {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && finite(value));
}

/**
 * A TimeInput of the API in milliseconds since the Unix epoch: a Date, an HrTime
 * `[seconds, nanoseconds]`, or a number of milliseconds (one smaller than the process's
 * start is a `performance.now()`, as the OpenTelemetry SDK reads it). `undefined` for
 * anything else.
 */
function epochMilliseconds(time) {
  if (typeof time === 'number') {
    if (!finite(time)) return undefined;
    return time < performance.timeOrigin ? performance.timeOrigin + time : time;
  }
  if (time instanceof RealDate) {
    const ms = time.getTime();
    return finite(ms) ? ms : undefined;
  }
  if (isHrTime(time)) return time[0] * 1e3 + time[1] / 1e6;
  return undefined;
}

function isHrTime(value) {
  return isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number';
}

function isTimeInput(value) {
  return typeof value === 'number' || value instanceof RealDate || isHrTime(value);
}

// ---- Traces -----------------------------------------------------------------------------

/** The key the API keeps the active span under in a context (`Symbol.for`, as it makes it). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
/** SpanStatusCode. */
const STATUS_UNSET = 0;
const STATUS_OK = 1;
const STATUS_ERROR = 2;
/** SpanKind.INTERNAL … SpanKind.CONSUMER. */
const SPAN_KINDS = 5;
/** How many events and links a span keeps, as the SDK's default limits. */
const MAX_EVENTS = 128;
const MAX_LINKS = 128;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const INVALID_TRACE_ID = '0'.repeat(32);
const INVALID_SPAN_ID = '0'.repeat(16);

/** Whether `{ traceId, spanId }` are ids a span can have (lowercase hex, not all zeros). */
function isValidSpanContext(spanContext) {
  return (
    typeof spanContext?.traceId === 'string' &&
    typeof spanContext.spanId === 'string' &&
    TRACE_ID.test(spanContext.traceId) &&
    SPAN_ID.test(spanContext.spanId) &&
    spanContext.traceId !== INVALID_TRACE_ID &&
    spanContext.spanId !== INVALID_SPAN_ID
  );
}

/** The span context of the span a context holds, when its ids are valid. */
function spanContextIn(context) {
  const spanContext = context?.getValue?.(SPAN_KEY)?.spanContext?.();
  return isValidSpanContext(spanContext) ? spanContext : undefined;
}

/** An immutable context, as the API's ROOT_CONTEXT is. */
class Context {
  #values;
  constructor(values = new Map()) {
    this.#values = values;
  }
  getValue(key) {
    return this.#values.get(key);
  }
  setValue(key, value) {
    const values = new Map(this.#values);
    values.set(key, value);
    return new Context(values);
  }
  deleteValue(key) {
    const values = new Map(this.#values);
    values.delete(key);
    return new Context(values);
  }
}

const ROOT = new Context();

/**
 * Registers the tracer provider and the context manager, once per process.
 * `recordSpan(span)` is called as each span ends, with `{ name, ms, attrs, error, scope,
 * traceId, spanId, parentSpanId, start, spanKind, status, events, links, droppedEvents,
 * droppedLinks }`. Returns what the host needs of the active context:
 * `{ runInSpan, activeSpanContext }`, or null when the API's globals were taken already.
 */
function installTracerProvider(recordSpan, version) {
  const registry = globalThis[API_KEY] ?? (globalThis[API_KEY] = { version });
  if (registry.trace || registry.context) return null;
  const storage = new AsyncLocalStorage();
  const active = () => storage.getStore() ?? ROOT;
  const contextManager = freeze({
    active,
    with: (context, fn, thisArg, ...args) => storage.run(context ?? ROOT, () => fn.apply(thisArg, args)),
    bind: (context, target) => {
      if (typeof target !== 'function') return target;
      const bound = context ?? active();
      /** @this {unknown} */
      return function boundToContext(...args) {
        return storage.run(bound, () => target.apply(this, args));
      };
    },
    enable: () => contextManager,
    disable: () => contextManager,
  });
  registry.trace = freeze({ getTracer: byName((scope) => makeTracer(recordSpan, scope, contextManager)) });
  registry.context = contextManager;
  return freeze({
    /**
     * Runs `fn` with the active span being `{ traceId, spanId }`, a span recorded elsewhere
     * (a hook handler's, whose parent is its turn): the spans `fn` starts are its children,
     * across awaits.
     */
    runInSpan: (spanContext, fn) => storage.run(ROOT.setValue(SPAN_KEY, recordedElsewhere(spanContext)), fn),
    /** The active span's `{ traceId, spanId }`, when there is one. */
    activeSpanContext: () => spanContextIn(storage.getStore()),
  });
}

function makeTracer(recordSpan, scope, contextManager) {
  return freeze({
    startSpan: (name, options, context) =>
      startSpan(recordSpan, scope, String(name), options, context ?? contextManager.active()),
    startActiveSpan(name, ...rest) {
      const fn = rest.pop();
      if (typeof fn !== 'function') return undefined;
      const [options, context] = rest;
      const parent = context ?? contextManager.active();
      const span = startSpan(recordSpan, scope, String(name), options, parent);
      return contextManager.with(parent.setValue(SPAN_KEY, span), fn, undefined, span);
    },
  });
}

/** A span this process does not record (as the API's NonRecordingSpan): a parent only. */
function recordedElsewhere({ traceId, spanId }) {
  const spanContext = freeze({ traceId, spanId, traceFlags: 1 });
  const span = freeze({
    spanContext: () => spanContext,
    setAttribute: () => span,
    setAttributes: () => span,
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: () => span,
    recordException: () => {},
    isRecording: () => false,
    end: () => {},
  });
  return span;
}

function startSpan(recordSpan, scope, name, options, parentContext) {
  const parent = options?.root === true ? undefined : spanContextIn(parentContext);
  const spanContext = freeze({
    traceId: parent?.traceId ?? randomId(16),
    spanId: randomId(8),
    traceFlags: 1,
  });
  const start = epochMilliseconds(options?.startTime) ?? now();
  const spanKind = isInteger(options?.kind) && options.kind >= 0 && options.kind < SPAN_KINDS ? options.kind : 0;
  const attributes = plainAttributes(options?.attributes);
  const events = [];
  const links = [];
  let droppedEvents = 0;
  let droppedLinks = 0;
  let spanName = name;
  let status = { code: STATUS_UNSET };
  let exception = null;
  let ended = false;
  const addLink = (link) => {
    if (ended || !isValidSpanContext(link?.context)) return;
    if (links.length >= MAX_LINKS) droppedLinks++;
    else links.push({ traceId: link.context.traceId, spanId: link.context.spanId, attrs: plainAttributes(link.attributes) });
  };
  if (isArray(options?.links)) options.links.forEach(addLink);
  const addEvent = (eventName, attributesOrTime, time) => {
    if (ended) return;
    const timed = isTimeInput(attributesOrTime);
    if (events.length >= MAX_EVENTS) {
      droppedEvents++;
      return;
    }
    events.push({
      name: String(eventName),
      time: epochMilliseconds(timed ? attributesOrTime : time) ?? now(),
      attrs: plainAttributes(timed ? undefined : attributesOrTime),
    });
  };
  const span = {
    spanContext: () => spanContext,
    setAttribute(key, value) {
      if (!ended) Object.assign(attributes, plainAttributes({ [key]: value }));
      return span;
    },
    setAttributes(more) {
      if (!ended) Object.assign(attributes, plainAttributes(more));
      return span;
    },
    addEvent(eventName, attributesOrTime, time) {
      addEvent(eventName, attributesOrTime, time);
      return span;
    },
    addLink(link) {
      addLink(link);
      return span;
    },
    addLinks(more) {
      if (isArray(more)) more.forEach(addLink);
      return span;
    },
    setStatus(next) {
      // As the SDK: UNSET changes nothing, OK is final, a message goes with ERROR only.
      if (ended || status.code === STATUS_OK || !isInteger(next?.code)) return span;
      if (next.code === STATUS_OK) status = { code: STATUS_OK };
      else if (next.code === STATUS_ERROR) {
        status = typeof next.message === 'string' ? { code: STATUS_ERROR, message: next.message } : { code: STATUS_ERROR };
      }
      return span;
    },
    updateName(next) {
      if (!ended) spanName = String(next);
      return span;
    },
    recordException(thrown, time) {
      if (ended) return;
      const attrs = exceptionAttributes(thrown);
      if (attrs === undefined) return;
      exception = attrs['exception.message'] ?? attrs['exception.type'];
      addEvent('exception', attrs, time);
    },
    isRecording: () => !ended,
    end(endTime) {
      if (ended) return;
      ended = true;
      const end = epochMilliseconds(endTime) ?? now();
      const error = status.code === STATUS_ERROR ? String(status.message ?? exception ?? 'status ERROR') : null;
      recordSpan({
        name: spanName,
        ms: Math.max(0, end - start),
        attrs: attributes,
        error,
        scope,
        traceId: spanContext.traceId,
        spanId: spanContext.spanId,
        parentSpanId: parent?.spanId ?? null,
        start,
        spanKind,
        status,
        events,
        links,
        droppedEvents,
        droppedLinks,
      });
    },
  };
  return span;
}

/**
 * The attributes of an `exception` event, as the OpenTelemetry semantic conventions name
 * them and the SDK fills them (a string is the message; an error's `code` or `name` is its
 * type); `undefined` when there is neither a type nor a message.
 */
function exceptionAttributes(thrown) {
  const attrs = {};
  if (typeof thrown === 'string') attrs['exception.message'] = thrown;
  else if (thrown !== null && typeof thrown === 'object') {
    if (thrown.code) attrs['exception.type'] = String(thrown.code);
    else if (thrown.name) attrs['exception.type'] = String(thrown.name);
    if (thrown.message) attrs['exception.message'] = String(thrown.message);
    if (thrown.stack) attrs['exception.stacktrace'] = String(thrown.stack);
  }
  return attrs['exception.type'] || attrs['exception.message'] ? attrs : undefined;
}

const HEX = '0123456789abcdef';

/**
 * `bytes` random bytes in hex, never all zeros (an invalid id). Math.random, as the
 * OpenTelemetry JS SDK's RandomIdGenerator makes ids: ids need to be unique, not secret,
 * and node:crypto is some 30 modules to load on a traced turn's first handler.
 */
function randomId(bytes) {
  for (;;) {
    let id = '';
    for (let i = 0; i < bytes * 2; i++) id += HEX[(Math.random() * 16) | 0];
    if (/[^0]/.test(id)) return id;
  }
}

/** A 16-hex-digit span id, for the host's handler spans. */
function newSpanId() {
  return randomId(8);
}

let fetchWrapped = false;

/**
 * Makes `globalThis.fetch` (once) one whose requests made while a span is active carry its
 * W3C `traceparent`, unless the caller set one. Only while traces are exported: with no
 * exporter, fetch is left as it is. Undici's global dispatcher is not touched.
 *
 * Lazily: Node loads undici (some 30 ms) on the first read of `fetch`, `Headers` or
 * `Request`, so the wrapper is made when a hook first reads `fetch`, not at start-up, and
 * a run whose hooks never fetch pays nothing. A hook that assigns its own `fetch` keeps it.
 */
function addTraceparentToFetch(activeSpanContext) {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetchWrapped || descriptor === undefined || !descriptor.configurable) return;
  fetchWrapped = true;
  let wrapped;
  let assigned;
  let wasAssigned = false;
  Object.defineProperty(globalThis, 'fetch', {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() {
      if (wasAssigned) return assigned;
      if (wrapped === undefined) {
        const realFetch = descriptor.get ? descriptor.get.call(globalThis) : descriptor.value;
        if (typeof realFetch !== 'function') return realFetch;
        wrapped = withTraceparent(realFetch, activeSpanContext);
      }
      return wrapped;
    },
    set(value) {
      wasAssigned = true;
      assigned = value;
    },
  });
}

function withTraceparent(realFetch, activeSpanContext) {
  const { Headers: RealHeaders, Request: RealRequest } = globalThis;
  return function fetch(input, init) {
    const spanContext = activeSpanContext();
    if (spanContext === undefined) return realFetch(input, init);
    let headers;
    try {
      // The headers fetch would send: init's replace a Request's.
      headers = new RealHeaders(init?.headers ?? (input instanceof RealRequest ? input.headers : undefined));
    } catch {
      // Headers fetch itself refuses: let it say so.
      return realFetch(input, init);
    }
    if (headers.has('traceparent')) return realFetch(input, init);
    headers.set('traceparent', `00-${spanContext.traceId}-${spanContext.spanId}-01`);
    return realFetch(input, { ...init, headers });
  };
}

// ---- Logs -------------------------------------------------------------------------------

// `@opentelemetry/api-logs` keeps its global provider apart from the API's: at
// `globalThis[Symbol.for("io.opentelemetry.js.api.logs")]`, a function of the API's
// compatibility version (1) that returns the provider (its `makeGetter`); `logs.getLogger`
// calls it with its own version and falls back to a no-op on a nullish answer, and
// `setGlobalLoggerProvider` refuses to replace one. Read in the releases 0.35.1 (the
// first on npm), 0.41.2, 0.52.1, 0.200.0 and 0.223.1 (the newest, 2026-12): the same in all.
const LOGS_API_KEY = Symbol.for('io.opentelemetry.js.api.logs');
const LOGS_API_COMPATIBILITY = 1;
/** A log record's body is cut to this many bytes of UTF-8. */
const MAX_BODY_BYTES = 16 * 1024;
const MAX_SEVERITY = 24;

/**
 * Registers the logger provider, once per process: as `@opentelemetry/api`'s `logs` (1.10
 * and later: `registry.logs`, beside `metrics` and `trace`) and as `@opentelemetry/api-logs`'
 * global, the same provider for both.
 * `recordLog(record)` is called for each emitted record, with `{ name, body, attrs,
 * severity, severityText, time, traceId?, spanId? }` (`name`: the logger's; `body`: text;
 * `time`: the record's timestamp, or now, in epoch milliseconds; the ids: its context's
 * span, else the active one). `activeSpanContext` is the tracer provider's, when installed.
 */
function installLoggerProvider(recordLog, activeSpanContext = () => undefined) {
  const provider = freeze({ getLogger: byName((scope) => makeLogger(recordLog, scope, activeSpanContext)) });
  // The meter provider made the registry, with the version every copy accepts.
  const registry = globalThis[API_KEY];
  if (registry !== undefined && registry !== null && !registry.logs) registry.logs = provider;
  if (globalThis[LOGS_API_KEY] !== undefined) return;
  globalThis[LOGS_API_KEY] = (version) => (version === LOGS_API_COMPATIBILITY ? provider : undefined);
}

function makeLogger(recordLog, name, activeSpanContext) {
  return freeze({
    emit(logRecord) {
      const severity = logRecord?.severityNumber;
      const spanContext = spanContextIn(logRecord?.context) ?? activeSpanContext();
      recordLog({
        name,
        body: bodyText(logRecord?.body),
        attrs: plainAttributes(logRecord?.attributes),
        severity: isInteger(severity) && severity >= 1 && severity <= MAX_SEVERITY ? severity : null,
        severityText: typeof logRecord?.severityText === 'string' ? logRecord.severityText : null,
        time: epochMilliseconds(logRecord?.timestamp) ?? now(),
        traceId: spanContext?.traceId,
        spanId: spanContext?.spanId,
      });
    },
    enabled: () => true,
  });
}

/** A log body as text: a string as it is, anything else as JSON; at most MAX_BODY_BYTES. */
function bodyText(body) {
  const text = typeof body === 'string' ? body : body === undefined ? '' : asText(body);
  if (text.length * 3 <= MAX_BODY_BYTES || byteLength(text) <= MAX_BODY_BYTES) return text;
  const cut = bufferFrom(text).subarray(0, MAX_BODY_BYTES - 3).toString('utf8');
  // A character cut in two decodes as U+FFFD: drop it.
  return `${cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut}…`;
}

/** JSON, else String(), else a word that it cannot be printed: never throws. */
function asText(value) {
  try {
    return stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return '(a value that cannot be printed)';
    }
  }
}

module.exports = {
  installMeterProvider,
  installTracerProvider,
  installLoggerProvider,
  addTraceparentToFetch,
  newSpanId,
  isValidSpanContext,
};
