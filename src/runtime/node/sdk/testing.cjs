// @ts-check
// `@cursor/bdk/testing` (and `@grok/agent-sdk/testing`, `@cursor/july/testing`): the test
// kit. A hook is a plain object, so a test calls its handlers with a realistic event and a
// stub ctx, or dispatches an event the way the runtime does, then asserts on what the hook
// stored, wrote and measured (with `ctx.host.otel`, or `@opentelemetry/api`: `telemetry`).
// Works under `agent-sdk test` (node --test) and vitest alike.
// CommonJS, so `require` (in `.cjs` tests) and `import` (through `testing.mjs`) share it.

'use strict';

const { AsyncLocalStorage } = require('node:async_hooks');
const { resolve } = require('node:path');

const { buildContext, otelMeter, deepFreeze } = require('./context.cjs');
// @ts-expect-error events.cjs is written beside this file by the binary (src/sdk/files.rs), from the event catalog.
const { EXAMPLES } = require('./events.cjs');
const { isHookDefinition } = require('./hooks.cjs');
const { telemetry } = require('./telemetry.cjs');

/** What a stub ctx and a made-up event say unless a test says otherwise. */
const DEFAULTS = Object.freeze({
  sessionId: 'ses_test',
  turnId: 'turn_test',
  at: '2026-01-01T00:00:00.000Z',
  agentName: 'test-agent',
});

/** The turn of the handler `dispatch` is running (what `ctx.artifacts.tag` records). */
const turnScope = new AsyncLocalStorage();

/**
 * A stub `HookContext` (SPEC §7) whose host calls are answered in memory, as the runtime
 * answers them from the state store: `kv`, `files` (session and deployment scopes),
 * `reminders` and `artifacts.tag` work and start empty; `mcp`, `github` and `slack` throw
 * as in a local run. Also records, for assertions:
 * - `ctx.host.otel.recorded`: `{ kind: "counter"|"histogram"|"tag", name, value, attrs }` per call;
 * - `ctx.artifacts.recorded`: `{ name, value, turnId }` per `ctx.artifacts.tag`.
 *
 * @param {{ session?: object, agent?: object, channel?: object, stateRoot?: string }} [overrides]
 *   `session`, `agent` and `channel` are merged over the defaults; `stateRoot` replaces it.
 */
function createTestContext(overrides = {}) {
  const session = {
    id: DEFAULTS.sessionId,
    channelId: 'local',
    mode: 'chat',
    purpose: 'live',
    auth: null,
    ...overrides.session,
  };
  const facts = {
    session,
    agent: { name: DEFAULTS.agentName, ...overrides.agent },
    channel: { id: session.channelId, continuationToken: null, ...overrides.channel },
    stateRoot: overrides.stateRoot ?? resolve('.agent-sdk'),
  };
  const host = new MemoryHost(session.id);
  const measured = [];
  const otel = otelMeter((kind, name, value, attrs) => measured.push(copy({ kind, name, value, attrs })));
  Object.defineProperty(otel, 'recorded', { enumerable: true, get: () => [...measured] });
  const artifacts = {};
  Object.defineProperty(artifacts, 'recorded', { enumerable: true, get: () => [...host.artifacts] });
  return buildContext(facts, {
    call: (method, args) => host.call(method, args),
    otel,
    turnId: () => turnScope.getStore() ?? null,
    artifacts,
  });
}

/** A deep-frozen copy of what JSON can carry, as a value crossing the runtime's channel. */
function copy(value) {
  return deepFreeze(JSON.parse(JSON.stringify(value) ?? 'null'));
}

/** The state store of one stub ctx: what `agent-sdk run` keeps under `.agent-sdk/`, in memory. */
class MemoryHost {
  constructor(sessionId) {
    this.sessionId = sessionId;
    this.kv = new Map();
    this.files = { session: new Map(), deployment: new Map() };
    this.reminders = [];
    this.artifacts = [];
  }

  /** Answers `method` as the runtime does: arguments and value travel as JSON. */
  async call(method, args) {
    const wire = JSON.parse(JSON.stringify(args));
    const text = (index) => (typeof wire[index] === 'string' ? wire[index] : '');
    switch (method) {
      case 'kv.get':
        return this.kv.has(text(0)) ? JSON.parse(this.kv.get(text(0))) : null;
      case 'kv.set':
        this.kv.set(text(0), JSON.stringify(wire[1] ?? null));
        return null;
      case 'kv.delete':
        return this.kv.delete(text(0));
      case 'kv.list':
        return [...this.kv.keys()].filter((key) => key.startsWith(text(0))).sort(byteOrder);
      case 'files.write':
        this.scope(text(2)).set(this.scopedPath(text(0), text(2)), text(1));
        return null;
      case 'files.append': {
        const files = this.scope(text(2));
        const path = this.scopedPath(text(0), text(2));
        files.set(path, (files.get(path) ?? '') + text(1));
        return null;
      }
      case 'files.read':
        return this.scope(text(1)).get(this.scopedPath(text(0), text(1))) ?? null;
      case 'files.list':
        return [...this.scope(text(0)).keys()].sort(byteOrder);
      case 'reminders.set': {
        const at = typeof wire[0] === 'string' ? wire[0] : wire.length > 0 ? JSON.stringify(wire[0]) : '';
        this.reminders.push({ at, note: text(1) });
        return null;
      }
      case 'reminders.list':
        // By time, then in the order they were set.
        return this.reminders
          .map((reminder, order) => ({ ...reminder, order }))
          .sort((a, b) => byteOrder(a.at, b.at) || a.order - b.order)
          .map(({ at, note }) => ({ at, note }));
      case 'artifacts.tag': {
        const turnId = typeof wire[2] === 'string' ? wire[2] : null;
        this.artifacts.push(copy({ name: text(0), value: wire[1] ?? null, turnId }));
        return { sessionId: this.sessionId, turnId };
      }
      default:
        throw new Error(`unknown host call \`${method}\``);
    }
  }

  scope(name) {
    return name === 'deployment' ? this.files.deployment : this.files.session;
  }

  /** `path` as the runtime stores it, refusing what would leave the scope (as the runtime does). */
  scopedPath(path, scope) {
    const parts = path.split('/');
    if (path === '' || path.startsWith('/') || parts[0] === '.' || parts.includes('..')) {
      const name = scope === 'deployment' ? 'deployment' : 'session';
      throw new Error(`ctx.host.files: \`${path}\` is not a relative path inside the ${name} scope`);
    }
    return parts.filter((part) => part !== '' && part !== '.').join('/');
  }
}

/** Strings in the byte order of their UTF-8, as the state store sorts them. */
function byteOrder(a, b) {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The envelope fields an override may set besides `data`. */
const ENVELOPE_FIELDS = new Set(['index', 'sessionId', 'turnId', 'at']);

/**
 * A realistic event of `type`: `{ type, index: 0, sessionId: "ses_test", turnId:
 * "turn_test", at: "2026-01-01T00:00:00.000Z", data }`, `data` being what
 * `agent-sdk run --event <type>` dispatches. `overrides.data` is merged deeply over that
 * `data`, as `run --data` merges it (see `mergeOver`); `index`, `sessionId`, `turnId` and
 * `at` replace theirs. The event is deep-frozen, as handlers receive it.
 */
function makeEvent(type, overrides = {}) {
  for (const key of Object.keys(overrides)) {
    if (key !== 'data' && !ENVELOPE_FIELDS.has(key)) {
      throw new TypeError(
        `events["${type}"](): \`${key}\` is not a field of the event; fields of its data go in { data: { ${key}: … } }`,
      );
    }
  }
  const { data, ...envelope } = overrides;
  return deepFreeze({
    type,
    index: 0,
    sessionId: DEFAULTS.sessionId,
    turnId: DEFAULTS.turnId,
    at: DEFAULTS.at,
    ...envelope,
    data: mergeOver(structuredClone(EXAMPLES[type]), data ?? {}),
  });
}

/**
 * `given` merged over `example` (a copy of its own), deeply: an object's fields over the
 * example's, each merged in turn, and each object of an array over the example's first
 * item, so that what is left out keeps the example's value (`usage`'s cache fields, a
 * call's `callId`); anything else given replaces the example's. As agent-sdk's
 * `data_shape::merge_over`, which `run --data` uses.
 */
function mergeOver(example, given) {
  if (isPlainObject(example) && isPlainObject(given)) {
    const merged = { ...example };
    for (const [key, value] of Object.entries(given)) {
      merged[key] = Object.hasOwn(example, key) ? mergeOver(example[key], value) : value;
    }
    return merged;
  }
  if (Array.isArray(example) && Array.isArray(given) && isPlainObject(example[0])) {
    return given.map((item) => (isPlainObject(item) ? mergeOver(structuredClone(example[0]), item) : item));
  }
  return given;
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `events["turn.completed"](overrides?)`, … : one maker per event type of the vocabulary. */
const events = Object.freeze(
  Object.fromEntries(Object.keys(EXAMPLES).map((type) => [type, (overrides) => makeEvent(type, overrides)])),
);

/**
 * Dispatches `event` to `hook` as the runtime does: the handler for `event.type`, then
 * `"*"`, one after the other, each given the same deep-frozen copy of the event. Resolves
 * with `ctx` once both finished; rejects with the first handler's error (after the other
 * handler ran, as in the runtime, where one handler's throw never skips the next).
 *
 * @param hook a `defineHook(...)` result (a module's default export).
 * @param event an event, e.g. from `events`.
 * @param ctx defaults to a fresh `createTestContext()`.
 */
async function dispatch(hook, event, ctx = createTestContext()) {
  if (!isHookDefinition(hook)) {
    throw new TypeError('dispatch() expects a hook made with defineHook(...), e.g. the default export of a hook module');
  }
  const frozenEvent = deepFreeze(structuredClone(event));
  const failures = [];
  for (const key of [frozenEvent.type, '*']) {
    if (!Object.hasOwn(hook.events, key)) continue;
    try {
      await turnScope.run(frozenEvent.turnId ?? null, () => hook.events[key](frozenEvent, ctx));
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
  return ctx;
}

module.exports = { createTestContext, events, dispatch, telemetry };
