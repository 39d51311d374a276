// @ts-check
// The runtime side of `ctx` (src/runtime/calls.rs answers it): the context each handler
// receives, its host calls sent to agent-sdk, and their replies, on a channel of their own
// (fd 5), matched to the calls that wait for them.

import { send } from './channel.mjs';
import { sendOtel } from './otel.mjs';
import { readLines, parseLine } from './reader.mjs';
import { callScopes, hookScope, inLane } from './scope.mjs';
import { builtin } from './builtin.mjs';
import context from './sdk/context.cjs';

/** @typedef {import('./protocol.js').ToNode} ToNode */
/** @typedef {import('./protocol.js').HostCall} HostCall */
/** @typedef {import('./protocol.js').Reply} Reply */

// Primordials, taken before any hook can replace them.
const resolved = Promise.resolve.bind(Promise);

const { buildContext: contextOf, otelMeter } = context;

/**
 * The `ctx` every handler of lane `lane` receives (SPEC §7), deep-frozen; its host calls go
 * to Rust, for that lane's session.
 */
export function buildContext(facts, lane) {
  return contextOf(facts, {
    call: (method, args) => call(method, args, lane),
    otel: otelMeter(sendOtel),
    turnId: () => hookScope.getStore()?.turnId ?? null,
  });
}

/**
 * The calls whose result is nothing and that no argument makes fail (the binary reads
 * their arguments leniently): their promise resolves once the call is out, with no reply
 * to wait for (the round trip was most of a replay's time). The binary answers calls in
 * order, so a later `kv.get` reads the write; a write the state store then refuses is
 * said by the binary as that hook's error, counted as a failure. `files.write` and
 * `files.append` wait: their path is checked against the file system.
 */
const RESOLVED_WHEN_SENT = new Set(['kv.set', 'reminders.set']);

/** Calls waiting for their reply, by id. */
const pending = new Map();
let nextCallId = 1;
let connectionClosed = false;
/** Once told to shut down: the replies channel then keeps Node up only while calls wait. */
let shuttingDown = false;
/** The replies' fd, read once a call waits for a reply. @type {number | undefined} */
let repliesFd;
/** The replies' channel, once a call waited for a reply. @type {import('node:net').Socket | undefined} */
let replies;

/**
 * Sends a "call" for the session of lane `lane` (its ctx's: null, the default lane's) and
 * resolves with the reply's value, or rejects with its error.
 * @param {HostCall['method']} method
 * @param {HostCall['args']} args
 * @param {number | null} lane
 */
function call(method, args, lane) {
  const scope = hookScope.getStore();
  if (connectionClosed) return Promise.reject(scoped(connectionClosedError(method, scope), scope));
  const id = nextCallId++;
  const hostCall = /** @type {HostCall} */ ({ method, args });
  const hook = scope?.hook ?? null;
  if (RESOLVED_WHEN_SENT.has(method)) {
    try {
      send(inLane({ t: 'call', id, ...hostCall, hook, resolved: true }, lane));
    } catch (error) {
      return Promise.reject(error);
    }
    return resolved(undefined);
  }
  readReplies();
  return new Promise((resolve, reject) => {
    // Sent first: a value JSON cannot carry rejects here, and nothing is left pending.
    send(inLane({ t: 'call', id, ...hostCall, hook }, lane));
    pending.set(id, { method, resolve, reject, scope });
    // A call made as the runtime ends keeps it up until it is answered.
    if (shuttingDown && pending.size === 1) replies?.ref();
  });
}

/** `error`, known to come from a call of `scope`'s hook. */
function scoped(error, scope) {
  if (scope !== undefined) callScopes.set(error, scope);
  return error;
}

function connectionClosedError(method, scope) {
  const late =
    scope?.returned === true
      ? `; it was made after its handler returned, once the run was over: await it in the handler (hosting, whose process stays up, would take it)`
      : '';
  return new Error(`ctx.host call ${method} failed: the connection to agent-sdk is closed${late}`);
}

/** @param {Reply} reply */
function onReply({ id, ok, value, error }) {
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  if (shuttingDown && pending.size === 0) replies?.unref();
  if (ok) waiting.resolve(value);
  else waiting.reject(scoped(new Error(String(error)), waiting.scope));
}

/** Rust is gone: no reply can come any more; the calls waiting for one fail now. */
export function rejectPendingCalls() {
  connectionClosed = true;
  for (const waiting of pending.values()) waiting.reject(scoped(connectionClosedError(waiting.method, waiting.scope), waiting.scope));
  pending.clear();
}

/**
 * The replies to calls come on `fd`, a channel of their own: none waits behind queued
 * events. It is read from the first call that waits for its reply (node:net's modules and
 * a socket are a cost of the runtime's start that a run making no such call never pays).
 */
export function listenForReplies(fd) {
  repliesFd = fd;
}

function readReplies() {
  if (replies !== undefined || repliesFd === undefined) return;
  /** @type {typeof import('node:net')} */
  const { Socket } = builtin('node:net');
  replies = new Socket({ fd: repliesFd, readable: true, writable: false });
  readLines(replies, onReplyLine, rejectPendingCalls);
}

/** @param {string} line */
function onReplyLine(line) {
  /** @type {Extract<ToNode, { t: 'reply' }> | undefined} */
  const message = parseLine(line, 'a reply');
  if (message?.t === 'reply') onReply(message);
}

/**
 * The runtime ends: replies still come, for what the hooks left running (a call they did
 * not await, made now or in the time left), but the replies' channel keeps Node up only
 * while a call waits for one.
 */
export function answerOnlyWhileWaiting() {
  shuttingDown = true;
  if (pending.size === 0) replies?.unref();
}
