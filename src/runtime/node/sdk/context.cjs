// @ts-check
// The handler context `ctx` (SPEC §7), built one way for the hook runtime (host.mjs, whose
// host calls the binary answers) and the test kit (testing.cjs, which answers them in
// memory): the same members, the same argument handling, the same freezing, whoever answers.
// CommonJS, so `require` (the test kit in `.cjs` tests) and `import` (host.mjs) share it.

'use strict';

// Taken when this module loads (before any hook in the runtime): a hook replacing them
// cannot unfreeze ctx.
const { freeze, isFrozen, getOwnPropertyDescriptor } = Object;
const { ownKeys } = Reflect;
const { stringify } = JSON;
const captureStack = Error.captureStackTrace;

/**
 * The `ctx` a handler receives, deep-frozen.
 *
 * - `facts`: `{ session, agent, channel, stateRoot }`, as the binary sends them.
 * - `call(method, args)`: answers a host call with a promise (methods and args as in the
 *   protocol's `HostCall`, protocol.d.ts: `kv.get [key]`, `files.write [path, data, scope]`, …).
 * - `otel`: made with {@link otelMeter}, so a test kit can add what it records before it is frozen.
 * - `turnId()`: the turn of the handler running, or null.
 */
function buildContext({ session, agent, channel, stateRoot }, { call, otel, turnId, artifacts = {} }) {
  return deepFreeze({
    session,
    agent,
    channel,
    stateRoot,
    artifacts: Object.assign(artifacts, {
      tag: (name, value) => call('artifacts.tag', [name, value, turnId()]),
    }),
    host: {
      kv: {
        get: (key) => call('kv.get', [key]),
        set: (key, value) => call('kv.set', [key, value]),
        delete: (key) => call('kv.delete', [key]),
        list: (prefix) => call('kv.list', [prefix ?? null]),
      },
      files: {
        write: (path, data, opts) => call('files.write', [path, fileText(data), scopeOf(opts)]),
        append: (path, data, opts) => call('files.append', [path, fileText(data), scopeOf(opts)]),
        read: (path, opts) => call('files.read', [path, scopeOf(opts)]),
        list: (opts) => call('files.list', [scopeOf(opts)]),
      },
      reminders: {
        set: (at, note) => call('reminders.set', [at, note]),
        list: () => call('reminders.list', []),
      },
      otel,
      mcp: unavailable('mcp'),
      github: unavailable('github'),
      slack: unavailable('slack'),
    },
  });
}

/**
 * `ctx.host.otel`: `increment(name, value?|attrs?)`, `histogram(name, value, attrs?)`,
 * `tag(key, value)`, each handed to `record(kind, name, value, attrs)` with `kind`
 * "counter", "histogram" or "tag" (an increment without a value counts 1).
 */
function otelMeter(record) {
  return {
    increment(name, valueOrAttrs, attrs) {
      if (typeof valueOrAttrs === 'number') record('counter', name, valueOrAttrs, attrs ?? {});
      else record('counter', name, 1, valueOrAttrs ?? attrs ?? {});
    },
    histogram(name, value, attrs) {
      record('histogram', name, value, attrs ?? {});
    },
    tag(key, value) {
      record('tag', key, value, {});
    },
  };
}

function scopeOf(opts) {
  return opts?.scope ?? 'session';
}

/** Files hold text: bytes are decoded as UTF-8, other values written as JSON. */
function fileText(data) {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return new TextDecoder().decode(data);
  return stringify(data);
}

// Keys read by the language and by tools that only probe an object (await, JSON.stringify),
// so that merely passing ctx around never throws.
const PROBED_KEYS = new Set(['then', 'toJSON']);

/** A member of `ctx.host` that exists only when hosted: using it in any way throws. */
function unavailable(member) {
  // The stack starts at the hook's line, not in the trap.
  const fail = (trap) => {
    const error = new Error(`ctx.host.${member} is not available in a local run`);
    captureStack(error, trap);
    throw error;
  };
  const traps = {
    get(_target, key) {
      return typeof key === 'symbol' || PROBED_KEYS.has(key) ? undefined : fail(traps.get);
    },
    apply() {
      fail(traps.apply);
    },
    construct() {
      return fail(traps.construct);
    },
  };
  // A function target, so that calling the member reaches `apply`; a frozen one, so that
  // freezing ctx never reaches a trap.
  return new Proxy(freeze(function unavailableMember() {}), traps);
}

/** Freezes `value` and everything reachable from it (accessors are left as they are). */
function deepFreeze(value) {
  const isObject = (typeof value === 'object' && value !== null) || typeof value === 'function';
  if (!isObject || isFrozen(value)) return value;
  freeze(value);
  const own = ownKeys(value);
  for (let index = 0; index < own.length; index++) {
    deepFreeze(/** @type {PropertyDescriptor} */ (getOwnPropertyDescriptor(value, own[index])).value);
  }
  return value;
}

module.exports = { buildContext, otelMeter, deepFreeze };
