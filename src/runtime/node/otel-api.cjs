// The OpenTelemetry API's global meter provider, registered by the hook host before any
// hook (or extension mount) module is evaluated, so that `metrics.getMeter("acme")` at a
// hook's module scope, from any copy of `@opentelemetry/api` 1.x in the project, binds to
// it. What its instruments record goes the way `ctx.host.otel` does: one "otel" message
// each, summarised in the serve log.
//
// How a copy of the API finds it: every 1.x copy reads the object at
// `globalThis[Symbol.for("opentelemetry.js.api.1")]` and takes its `metrics` when the
// object's `version` is compatible with its own (the same major, a minor at least its own).
// The binary passes the newest version installed in the project (at least the newest it
// knows), so every installed copy accepts it.
//
// Its tracer provider and context manager are registered the same way: `trace.getTracer`
// gives a tracer whose spans nest (`startActiveSpan`, `context.with`, across awaits, by
// AsyncLocalStorage), and each ended span is one "span" message (its name, duration,
// attributes and, when it failed, why). The logs API is not provided yet.

'use strict';

const API_KEY = Symbol.for('opentelemetry.js.api.1');

const { freeze, entries } = Object;
const { isArray } = Array;

/**
 * Registers the meter provider, once per process. `record(kind, name, value, attrs)` sends
 * a measurement (`kind`: "counter", "updown", "histogram" or "gauge"). Returns `collect()`,
 * which runs the observable instruments' callbacks once (each measurement they observe is
 * recorded as a "gauge": its last value) and resolves when they are done.
 */
function installMeterProvider(record, version) {
  const registry = globalThis[API_KEY] ?? (globalThis[API_KEY] = { version });
  if (registry.metrics) return async () => {};
  const observables = [];
  const batchCallbacks = [];
  const measure = (kind, name) => (value, attributes) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    record(kind, name, value, plainAttributes(attributes));
  };
  const observable = (name) => {
    const callbacks = new Set();
    const instrument = freeze({
      addCallback: (callback) => typeof callback === 'function' && callbacks.add(callback),
      removeCallback: (callback) => callbacks.delete(callback),
    });
    observables.push({ name, callbacks, instrument });
    return instrument;
  };
  const meter = freeze({
    createCounter: (name) =>
      freeze({ add: (value, attributes) => value >= 0 && measure('counter', String(name))(value, attributes) }),
    createUpDownCounter: (name) => freeze({ add: measure('updown', String(name)) }),
    createHistogram: (name) => freeze({ record: measure('histogram', String(name)) }),
    createGauge: (name) => freeze({ record: measure('gauge', String(name)) }),
    createObservableCounter: (name) => observable(String(name)),
    createObservableUpDownCounter: (name) => observable(String(name)),
    createObservableGauge: (name) => observable(String(name)),
    addBatchObservableCallback: (callback, instruments) => {
      if (typeof callback === 'function') batchCallbacks.push({ callback, instruments });
    },
    removeBatchObservableCallback: (callback) => {
      const index = batchCallbacks.findIndex((entry) => entry.callback === callback);
      if (index !== -1) batchCallbacks.splice(index, 1);
    },
  });
  registry.metrics = freeze({ getMeter: () => meter });

  return async function collect() {
    const pending = [];
    for (const { name, callbacks } of observables) {
      const result = freeze({ observe: measure('gauge', name) });
      for (const callback of callbacks) pending.push(settled(() => callback(result)));
    }
    for (const { callback } of batchCallbacks) {
      const result = freeze({
        observe: (instrument, value, attributes) => {
          const found = observables.find((entry) => entry.instrument === instrument);
          if (found) measure('gauge', found.name)(value, attributes);
        },
      });
      pending.push(settled(() => callback(result)));
    }
    await Promise.all(pending);
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
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

// ---- Traces -----------------------------------------------------------------------------

const { AsyncLocalStorage } = require('node:async_hooks');
const { randomBytes } = require('node:crypto');

/** The key the API keeps the active span under in a context (`Symbol.for`, as it makes it). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');
/** SpanStatusCode.ERROR. */
const STATUS_ERROR = 2;

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
 * `recordSpan(name, milliseconds, attributes, error)` is called as each span ends.
 */
function installTracerProvider(recordSpan, version) {
  const registry = globalThis[API_KEY] ?? (globalThis[API_KEY] = { version });
  if (registry.trace || registry.context) return;
  const storage = new AsyncLocalStorage();
  const contextManager = freeze({
    active: () => storage.getStore() ?? ROOT,
    with: (context, fn, thisArg, ...args) => storage.run(context ?? ROOT, () => fn.apply(thisArg, args)),
    bind: (context, target) => {
      if (typeof target !== 'function') return target;
      const bound = context ?? storage.getStore() ?? ROOT;
      return function boundToContext(...args) {
        return storage.run(bound, () => target.apply(this, args));
      };
    },
    enable: () => contextManager,
    disable: () => contextManager,
  });
  const tracer = freeze({
    startSpan: (name, options, context) => startSpan(recordSpan, String(name), options, context ?? contextManager.active()),
    startActiveSpan(name, ...rest) {
      const fn = rest.pop();
      if (typeof fn !== 'function') return undefined;
      const [options, context] = rest;
      const parent = context ?? contextManager.active();
      const span = startSpan(recordSpan, String(name), options, parent);
      return contextManager.with(parent.setValue(SPAN_KEY, span), fn, undefined, span);
    },
  });
  registry.trace = freeze({ getTracer: () => tracer });
  registry.context = contextManager;
}

function startSpan(recordSpan, name, options, parentContext) {
  const parent = parentContext?.getValue?.(SPAN_KEY)?.spanContext?.();
  const spanContext = freeze({
    traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: 1,
  });
  const started = performance.now();
  const attributes = { ...plainAttributes(options?.attributes) };
  let spanName = name;
  let status = { code: 0 };
  let exception = null;
  let ended = false;
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
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus(next) {
      if (!ended && typeof next?.code === 'number') status = { code: next.code, message: next.message };
      return span;
    },
    updateName(next) {
      if (!ended) spanName = String(next);
      return span;
    },
    recordException(thrown) {
      if (!ended) exception = String(thrown?.message ?? thrown);
    },
    isRecording: () => !ended,
    end() {
      if (ended) return;
      ended = true;
      const failed = status.code === STATUS_ERROR ? String(status.message ?? exception ?? 'status ERROR') : null;
      recordSpan(spanName, performance.now() - started, attributes, failed);
    },
  };
  return span;
}

module.exports = { installMeterProvider, installTracerProvider };
