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
// Traces and logs are not provided yet: `trace.getTracer` and the logs API stay the API's
// own no-ops.

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

module.exports = { installMeterProvider };
