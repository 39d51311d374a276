// @ts-check
// The agent-sdk hook host: one long-lived Node.js process that imports the project's
// hooks from their source files and runs their handlers for the events the Rust binary
// sends it.
//
// Started as `node <runtimeDir>/host.mjs` in the project folder.
//
// HOW CODE IS LOADED. The binary compiles every TypeScript module the hooks reach and
// resolves every import; project-modules.mjs serves them (ES modules through loader.mjs,
// CommonJS through Node's own loader), and "init" hands it the MANIFEST (see loader.mjs).
// A module no string literal imports is asked for on the module channel, fds 7 (Node →
// Rust: requests) and 8 (Rust → Node: answers), one line each way at a time, read and
// written synchronously by the module hooks (see on-demand.mjs).
//
// PROTOCOL. One JSON object per line (NDJSON) on fd 3 (Rust → Node), fd 4 (Node → Rust)
// and fd 5 (Rust → Node: the replies to calls, which so never queue behind events), and
// the handler slot at fd 6 (below), and the module channel at fds 7 and 8 (above): a
// channel of its own, which no process a hook starts inherits (libuv closes every
// descriptor but the standard streams in the processes it starts), so nothing but this
// file (and the module hooks) writes to it. The hooks' console.* calls and process.stdout/stderr writes become
// "console" messages naming the hook; what other code (a child process with stdio
// "inherit", Node itself) prints reaches Rust on stdout and stderr, which carry nothing else.
//
// Rust → Node
//   {"t":"init","hooks":[{"name":"audit/usage","url":"file:///…/bot/hooks/audit/usage.ts","source":"bot/hooks/audit/usage.ts"}],
//    "ctx":{"session":{…},"agent":{"name":"…"},"channel":{"id":"…","continuationToken":null},"stateRoot":"/abs/.agent-sdk"},
//    "timeoutMs":30000, "timeoutText":"30s", "manifest":{…see loader.mjs…},
//    "otelApiVersion":"1.10.0"|null, "tracing":false}
//       Import every hook, in order. A hook's index is its position in this list,
//       counting hooks that fail to load. At the first init, before any hook loads, the
//       OpenTelemetry providers take their place as otelApiVersion (otel-api.cjs registers
//       them when a copy of the API first looks for one, or at once when "tracing"); null:
//       none do (the project installs the SDK and sets up its own). "tracing": traces are
//       exported, so fetch is wrapped (once) to send a "traceparent" header
//       (00-<traceId>-<spanId>-01) when called inside a span, unless the caller set one;
//       false, or providers of the project's own: fetch is left as it is.
//   {"t":"event","seq":7,"from":0,"event":{"type":"turn.completed","index":7,"sessionId":"…","turnId":"…","at":"…","data":{…}},
//    "trace":{"traceId":"<32 hex>","spanId":"<16 hex>"}}
//       Queued; events run strictly one at a time, in arrival order. For each loaded
//       hook with index >= from, in order: the handler for event.type, then "*".
//       "trace" (optional: the span of the turn the event belongs to): each handler that
//       runs is a span, a child of it, ended by a "handler" line; the handler runs with it
//       as the active span (the spans it starts are its children, its fetches carry it).
//       "timeline": true (a dev session's, for the playground's hooks timeline): each
//       handler ends with a "handler" line, whose spanId is null without "trace".
//       Without either (replays, --event) nothing of that is done.
//   {"t":"reply","id":12,"ok":true,"value":…}                      (on fd 5)
//   {"t":"reply","id":12,"ok":false,"error":"message"}
//       The answer to a "call" (not queued: handlers are waiting on it).
//   {"t":"mount","mounts":[{"namespace":"ci","url":"file:///…/bot/extensions/ci.ts"}]}
//       Imports each mount file (after an init, whose manifest serves it) and says what its
//       default export mounts; dispatches nothing. A hook of an init may come from a mount:
//       {"name":"ci__triage","url":"<the mount file's URL>","key":"triage",…}.
//   {"t":"open","session":2,"slot":1,"ctx":{…as in init…}}
//       (dev: one runtime serves every session of the agent.) Opens session lane 2: an
//       "event" with "session":2 goes to its queue, runs with its ctx, and what it says
//       ("threw", "timed_out", "handler", "done", "call", "console", "otel", "exit") carries
//       "session":2. Lanes run independently of one another (a handler awaiting holds only
//       its own lane's next events); within a lane, events run one at a time, in order.
//       "slot": the lane's record in the handler slot (below). Opening an open lane
//       replaces its ctx. Events without "session" go to the default lane (init's ctx, slot 0).
//   {"t":"close","session":2}
//       Forgets lane 2 once its queue is empty.
//   {"t":"shutdown"}
//       Finish the queued messages, then exit 0. Closing fd 3 does the same.
//   Any other "t" is ignored.
//
// Node → Rust
//   {"t":"hello","node":"20.20.2"}                 first, as soon as the process starts
//   {"t":"loading","hook":"audit/usage"}           before each import (Rust times it)
//   {"t":"loaded","hook":"audit/usage","events":["turn.completed","turn.failed"]}
//   {"t":"load_failed","hook":"audit/usage","message":"…","stack":"…"|null}
//   (an init hook may carry "skip":"<reason>": it is reported as load_failed, not imported)
//   {"t":"ready"}                                   after the last hook of an init
//   {"t":"mounted","namespace":"ci","hooks":[{"key":"triage","events":["turn.failed"]|null}],
//    "disabled":["…"],"instructions":"…"|null,"secretNames":[…],"egressDomains":[…]}
//   {"t":"mounted","namespace":"ci","problem":{"kind":"threw"|"not_a_mount","message":"…","stack":"…"|null}}
//       one per mount of a "mount", in order ("events" null: not a defineHook result);
//   {"t":"mounts_done"}                             after the last
//   {"t":"threw","seq":7,"hook":2,"handler":"turn.completed","message":"…","stack":"…"|null}
//   {"t":"timed_out","seq":7,"hook":2,"handler":"turn.completed"}  after timeoutMs; the
//       handler's promise is left running and its outcome ignored
//   {"t":"handler","seq":7,"hook":2,"handler":"turn.completed","spanId":"<16 hex>"|null,"start":<epoch ms>,
//    "ms":<duration ms>,"outcome":"ok"|"threw"|"timed_out","error":"…"}
//       after each handler of an event sent with "trace" or "timeline" (after its
//       "threw"/"timed_out"): its span (none without "trace"); "error" (the threw line's
//       message, or "timed out after 30s") when not ok
//   {"t":"done","seq":7}                            every event through seq 7 went through
//       its hooks (one line for the events that finished with nothing said between); like
//       "handler" and "otel" measurements and spans, written with the next line that goes
//       out at once (a call, console output, exit), before a handler is awaited, when no
//       more work is queued, or once 16 KiB of such lines wait
//   {"t":"call","id":12,"method":"kv.get","args":["key"],"hook":"audit/usage","resolved":true}
//       answered on fd 5, but for a call sent "resolved" (kv.set, reminders.set: its
//       promise resolved as it was sent), of which Rust says only a failure.
//       Methods and args: kv.get [key] | kv.set [key, value] | kv.delete [key] |
//       kv.list [prefix|null] | files.write [path, data, scope] | files.append [path, data, scope] |
//       files.read [path, scope] | files.list [scope] | reminders.set [at, note] | reminders.list [] |
//       artifacts.tag [name, value, turnId]; scope is "session" or "deployment"
//   {"t":"otel","kind":"counter"|"updown"|"histogram"|"gauge"|"tag","name":"…","value":…,"attrs":{…},"hook":"audit/usage"}
//       fire and forget: ctx.host.otel's records, and the measurements of the instruments
//       made with @opentelemetry/api (its global meter provider is registered at the first
//       init, before any hook loads: otel-api.cjs), which add "scope":"<meter name>" and,
//       for an instrument made with one, "unit":"ms"; an observable instrument's are taken
//       once, at shutdown, as "gauge"s
//   {"t":"otel","kind":"span","name":"…","value":<ms>,"attrs":{…},"error":"…"|null,"hook":…,
//    "scope":"<tracer name>","traceId":"<32 hex>","spanId":"<16 hex>","parentSpanId":"<16 hex>"|null,
//    "start":<epoch ms>,"spanKind":0-4,"status":{"code":0|1|2,"message"?:"…"},
//    "events":[{"name":"…","time":<epoch ms>,"attrs":{…}}],"links":[{"traceId":"…","spanId":"…","attrs":{…}}]}
//       one ended span of @opentelemetry/api's tracer ("error": why, when its status is
//       ERROR; recordException is an "exception" event; at most 128 events and 128 links,
//       "droppedEvents"/"droppedLinks":<n> counting the rest, when there are any)
//   {"t":"otel","kind":"log","name":"<logger name>","value":"<body>","attrs":{…},"severity":1-24|null,
//    "severityText":"…"|null,"hook":…,"start":<epoch ms>,"traceId"?:"…","spanId"?:"…"}
//       a record emitted by a logger of @opentelemetry/api-logs: its body as text (JSON
//       unless a string; at most 16 KiB), "start" its timestamp (or when it was emitted),
//       the ids those of its context's span, else of the active one, when there is one
//   {"t":"console","level":"info"|"warn"|"error","hook":"audit/usage"|null,"text":"…"}
//       console.log/info/debug and process.stdout.write → info, warn and
//       process.stderr.write → warn, error/trace → error; hook is null when the output is
//       not from a hook's code (or cannot be attributed to one).
//   {"t":"unhandled","kind":"rejection"|"exception","hook":"audit/usage"|null,"afterReturn":true,"text":"…"}
//       an unhandledRejection or uncaughtException in that hook's code (the hook whose host
//       call rejected with it, else whose code ran); afterReturn: its handler had returned
//   {"t":"bye"}
//       after a "shutdown", from the last "exit" listener: nothing follows (Rust lets the
//       process finish on its own, without waiting)
//   {"t":"exit","hook":"audit/usage"|null,"code":1,"stack":"…"}
//       process.exit was called (by that hook's code, a timer it set included): the last
//       message before the process ends, so Rust blames the right hook.
//
// HANDLER SLOT (fd 6, a file in memory that Rust made, 24 bytes a lane): before each
// handler of a lane, and before the lane goes idle, one pwrite at offset 24 × the lane's
// slot (the default lane's is 0) of, little-endian: u32 generation (1, 2, …, one counter
// for every lane: the highest one running started last), u32 kind (0 idle, 1 the handler for the event's type, 2 its "*" handler), f64 seq
// (idle: the last event whose handlers all ran, -1 none), u32 hook index, u32 the
// generation again (a read that finds the two different caught a write half done). Rust
// reads it only when it needs to: which handler has run past timeoutMs without yielding,
// which one a crash cut off (events before its seq are done, their "done" sent or not), and
// whose handler ran when a child's output line was read. No protocol line precedes a handler.
//
// A handler that loops forever without yielding cannot be timed out from here: Rust
// kills this process, starts a new one, sends "init" again and re-sends the event with
// "from" set to the next hook. An import that never yields is handled the same way (Rust
// marks that hook to skip); one that never settles is given up here after timeoutMs.
//
// The primordials this file relies on (Object.freeze, JSON, timers, …)
// are taken before any hook loads: a hook replacing them cannot unfreeze the event or
// forge the protocol.

import { builtin } from './builtin.mjs';
import { moduleHooksInThread, serveProjectModules } from './project-modules.mjs';
import { mapStacks } from './stack-maps.mjs';
import context from './sdk/context.cjs';
import extensions from './sdk/extensions.cjs';
import hookDefinitions from './sdk/hooks.cjs';

// Node's built-ins are required, not imported: an ES module namespace of a built-in costs
// start-up time the hook runtime's first line waits for (see builtin.mjs). Node starts the
// bundle of this file and its imports (`generated/host.mjs`, see tests/it/types.rs): one
// file, no import to resolve, the SDK's CommonJS files in it; the hooks' own imports of the
// SDK load its files as usual (what the two copies share is keyed by `Symbol.for`).
/** @type {typeof import('node:async_hooks')} */
const { AsyncLocalStorage } = builtin('node:async_hooks');
/** @type {typeof import('node:fs')} */
const { writeSync } = builtin('node:fs');
/** @type {typeof import('node:net')} */
const { Socket } = builtin('node:net');
/** @type {typeof import('node:util')} */
const { format } = builtin('node:util');
const require = builtin('node:module').createRequire(import.meta.url);
const { isMount } = extensions;
const { isHookDefinition } = hookDefinitions;

/** otel-api.cjs, required when the OpenTelemetry providers register (see
 * installWhenFirstUsed) or a traced handler needs a span id; else never: most runs need none of it. */
let otelApi = null;

/** @typedef {import('./protocol.js').ToNode} ToNode */
/** @typedef {import('./protocol.js').FromNode} FromNode */
/** @typedef {import('./protocol.js').LaneOf} LaneOf */
/** @typedef {import('./protocol.js').HostCall} HostCall */
/** @typedef {import('./protocol.js').Reply} Reply */
/**
 * The message of `ToNode` whose `t` is `T`.
 * @template {ToNode['t']} T
 * @typedef {Extract<ToNode, { t: T }>} ToNodeOf
 */

// ---- Primordials, kept before any hook can replace them -------------------------------------

// (ctx and deepFreeze take theirs in sdk/context.cjs, which loads before any hook too.)
const { hasOwn, keys, freeze } = Object;
const { isArray } = Array;
const { stringify, parse } = JSON;
const { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;
const race = Promise.race.bind(Promise);
const resolved = Promise.resolve.bind(Promise);
const captureStack = Error.captureStackTrace;
const bufferFrom = Buffer.from.bind(Buffer);
const realExit = process.exit.bind(process);
const runSoon = queueMicrotask;

// ---- Loading the project's modules ------------------------------------------------------

/** Hands the manifest of an "init" to the loader thread and waits until it has it. The
 * module hooks ask the binary for modules no string literal imports on fds 7 and 8. */
const installManifest = serveProjectModules({ requests: 7, answers: 8 });

// A hook's stack trace names its TypeScript lines: mapped when a stack is formatted, from
// the code the in-thread module hooks served; else by Node's own source maps (turned on
// before any hook loads), which the loader thread's compiled modules reach.
if (moduleHooksInThread()) mapStacks();
else process.setSourceMapsEnabled(true);

// ---- The protocol channel ---------------------------------------------------------------

const TO_NODE_FD = 3;
const FROM_NODE_FD = 4;
const REPLIES_FD = 5;
const SLOT_FD = 6;

/**
 * Sends one protocol message as one line. The write is synchronous (fd 4 is a blocking
 * pipe that Rust always reads), so a message is out before the next line of code runs,
 * and the last one before process.exit is never lost.
 * @param {FromNode & LaneOf} message
 */
function send(message) {
  takeDone();
  const text = `${deferred}${stringify(message)}\n`;
  deferred = '';
  writeText(text);
}

/**
 * Protocol lines that may wait for the next write: `done`, a traced handler's span, a
 * measurement. They go out with the next line sent at once (a call, console output,
 * `exit`), before a handler is awaited, when Node goes idle, or once DEFERRED_MAX
 * characters or DONE_MAX events wait: in order, and a replay's events cost a write per
 * yield, not one per handler.
 */
let deferred = '';
const DEFERRED_MAX = 16 * 1024;
const DONE_MAX = 512;

/**
 * The lanes whose last finished event's `done` is not yet in `deferred` (a lane's
 * `unsaid`): events finish in order, so one `done` says it of every event of the lane
 * through its seq, and the events that finish with nothing said in between cost one line.
 */
const unsaidLanes = [];
let doneSinceWrite = 0;

function takeDone() {
  if (unsaidLanes.length === 0) return;
  for (const lane of unsaidLanes) {
    deferred += lane.id === null ? `{"t":"done","seq":${lane.unsaid}}\n` : `{"t":"done","seq":${lane.unsaid},"session":${lane.id}}\n`;
    lane.unsaid = -1;
  }
  unsaidLanes.length = 0;
}

/** @param {FromNode & LaneOf} message */
function sendSoon(message) {
  takeDone();
  deferred += `${stringify(message)}\n`;
  if (deferred.length >= DEFERRED_MAX) flush();
}

function flush() {
  takeDone();
  doneSinceWrite = 0;
  if (deferred === '') return;
  const text = deferred;
  deferred = '';
  writeText(text);
}

function writeText(text) {
  const bytes = bufferFrom(text);
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(FROM_NODE_FD, bytes, written);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error)?.code === 'EAGAIN') continue;
      // Rust has gone away: there is no one left to report to.
      realExit(0);
    }
  }
}

// First message: which Node this is, so Rust can refuse one that is too old without
// starting Node twice.
send({ t: 'hello', node: process.versions.node });

// ---- The handler slot ---------------------------------------------------------------------

/** A lane's 24 bytes of the slot (see the protocol above), written whole each time. */
const SLOT_BYTES = 24;
const slotBytes = Buffer.alloc(SLOT_BYTES);
const slotView = new DataView(slotBytes.buffer, slotBytes.byteOffset, slotBytes.length);
let slotGeneration = 0;

function writeSlot(lane, kind, seq, hook) {
  slotGeneration = (slotGeneration + 1) >>> 0 || 1;
  slotView.setUint32(0, slotGeneration, true);
  slotView.setUint32(4, kind, true);
  slotView.setFloat64(8, seq, true);
  slotView.setUint32(16, hook, true);
  slotView.setUint32(20, slotGeneration, true);
  try {
    writeSync(SLOT_FD, slotBytes, 0, SLOT_BYTES, lane.slot * SLOT_BYTES);
  } catch {
    // No slot (a runtime started by hand): Rust cannot name a handler that never yields.
  }
}

/** Before each handler: hook `hook`'s handler for event `seq` of `lane` runs (`which` 0: its type's, 1: "*"). */
function slotRunning(lane, seq, hook, which) {
  writeSlot(lane, which + 1, seq, hook);
}

/** Before a lane goes idle, ahead of the lines that say so. */
function slotIdle(lane) {
  writeSlot(lane, 0, lane.lastFinished, 0);
}

/** An event of `lane` had all its handlers run: `done`, sent with the next write. */
function finished(lane, seq) {
  lane.lastFinished = seq;
  if (lane.unsaid === -1) unsaidLanes.push(lane);
  lane.unsaid = seq;
  if (++doneSinceWrite >= DONE_MAX) flush();
}

// ---- The hooks' output --------------------------------------------------------------------

/**
 * Which hook's code is running (its async continuations included): `{ hook, turnId, lane }`,
 * `lane` the session lane's id (null: the default lane, or a hook's import).
 */
const hookScope = new AsyncLocalStorage();

function currentHook() {
  return hookScope.getStore()?.hook ?? null;
}

/**
 * `message` with the session lane of the code running, when it runs in a named lane.
 * @template {FromNode} M
 * @param {M} message
 * @param {number | null} [lane]
 * @returns {M & LaneOf}
 */
function inLane(message, lane = hookScope.getStore()?.lane ?? null) {
  /** @type {M & LaneOf} */
  const inItsLane = message;
  if (lane !== null) inItsLane.session = lane;
  return inItsLane;
}

function sendConsole(level, text) {
  send(inLane({ t: 'console', level, hook: currentHook(), text }));
}

for (const [method, level] of [
  ['log', 'info'],
  ['info', 'info'],
  ['debug', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
]) {
  console[method] = (...args) => sendConsole(level, format(...args));
}
console.trace = (...args) => {
  const trace = { name: 'Trace', message: format(...args) };
  captureStack(trace, console.trace);
  sendConsole('error', withoutHostFrames(trace.stack));
};

/** A hook's process.stdout/stderr writes become its console output; other code's pass on. */
function attributeWrites(stream, level) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, encoding, callback) => {
    if (currentHook() === null) return write(chunk, encoding, callback);
    const text = typeof chunk === 'string' ? chunk : bufferFrom(chunk).toString('utf8');
    sendConsole(level, text.endsWith('\n') ? text.slice(0, -1) : text);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
}
attributeWritesWhenRead('stdout', 'info');
attributeWritesWhenRead('stderr', 'warn');

/**
 * attributeWrites on process[name] when it is first read: Node makes the stream (a socket
 * on a pipe) then, a cost most runs never need before their first event.
 * @param {'stdout' | 'stderr'} name
 * @param {string} level
 */
function attributeWritesWhenRead(name, level) {
  const made = Object.getOwnPropertyDescriptor(process, name);
  const make = made?.get;
  if (make === undefined || made?.configurable !== true) return attributeWrites(process[name], level);
  /** @type {NodeJS.WriteStream | null} */
  let stream = null;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: made?.enumerable,
    get() {
      if (stream === null) {
        stream = make.call(process);
        attributeWrites(stream, level);
      }
      return stream;
    },
  });
}

// Whoever ends the process says so first, so that Rust blames the right hook: the one whose
// code (a timer it set included) called process.exit, not whichever handler happened to run.
process.exit = /** @type {typeof process.exit} */ (function exit(code) {
  const site = { stack: '' };
  captureStack(site, exit);
  send(inLane({ t: 'exit', hook: currentHook(), code: code ?? process.exitCode ?? 0, stack: site.stack }));
  realExit(code);
});

// A hook's stray code (a timer, a promise nobody awaits) must not bring the host down; Rust
// counts each such error as a failure of the hook whose code it was.
process.on('uncaughtException', (error) => sendUnhandled('exception', error));
process.on('unhandledRejection', (reason) => sendUnhandled('rejection', reason));

/**
 * Says an error nothing handled, for the hook whose code it was: the one whose host call
 * rejected with it, else the one whose code is running. `afterReturn`: that hook's handler
 * had returned by then (what it started was not awaited).
 * @param {'exception' | 'rejection'} kind
 */
function sendUnhandled(kind, thrown) {
  const scope = (typeof thrown === 'object' && thrown !== null ? callScopes.get(thrown) : undefined) ?? hookScope.getStore();
  const afterReturn = scope?.returned === true;
  send(inLane({ t: 'unhandled', kind, hook: scope?.hook ?? null, afterReturn, text: errorText(thrown) }, scope?.lane ?? null));
}

/** `{ message, stack }` of anything thrown, without ever throwing itself. */
function describe(thrown) {
  try {
    const message = String(thrown?.message ?? thrown) + causes(thrown);
    const stack = thrown?.stack;
    return { message, stack: typeof stack === 'string' ? withoutHostFrames(stack) : null };
  } catch {
    return { message: 'a value that cannot be printed was thrown', stack: null };
  }
}

/** How many causes of an error are told, and how long each may be. */
const MAX_CAUSES = 4;
const MAX_CAUSE_CHARS = 300;

/**
 * ` (cause: connect ECONNREFUSED 127.0.0.1:1)`: the error's `cause` chain, where the reason
 * of a `fetch failed` lives (Node's fetch puts the socket's error there); bounded, and a
 * cycle stops it.
 */
function causes(thrown) {
  const told = [];
  const seen = new Set([thrown]);
  let cause = thrown?.cause;
  while (cause !== undefined && cause !== null && told.length < MAX_CAUSES && !seen.has(cause)) {
    seen.add(cause);
    const text = String(cause?.message ?? cause);
    told.push(text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}…` : text);
    cause = cause?.cause;
  }
  return told.length === 0 ? '' : ` (cause: ${told.join('; cause: ')})`;
}

/** A stack cut where it enters this file: the frames below a hook's own are the host's plumbing. */
function withoutHostFrames(stack) {
  const lines = stack.split('\n');
  const host = lines.findIndex((line) => line.includes(import.meta.url));
  return host === -1 ? stack : lines.slice(0, host).join('\n');
}

/** The stack of anything thrown, else its message. */
function errorText(thrown) {
  const { message, stack } = describe(thrown);
  return stack ?? message;
}

// ---- Calls to Rust ----------------------------------------------------------------------

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
/** The hook scope of each error a host call rejected with, for [sendUnhandled]. */
const callScopes = new WeakMap();

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
  return new Promise((resolve, reject) => {
    // Sent first: a value JSON cannot carry rejects here, and nothing is left pending.
    send(inLane({ t: 'call', id, ...hostCall, hook }, lane));
    pending.set(id, { method, resolve, reject, scope });
    // A call made as the runtime ends keeps it up until it is answered.
    if (shuttingDown && pending.size === 1) replies.ref();
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
  if (shuttingDown && pending.size === 0) replies.unref();
  if (ok) waiting.resolve(value);
  else waiting.reject(scoped(new Error(String(error)), waiting.scope));
}

function rejectPendingCalls() {
  connectionClosed = true;
  for (const waiting of pending.values()) waiting.reject(scoped(connectionClosedError(waiting.method, waiting.scope), waiting.scope));
  pending.clear();
}

/** Fire and forget, as are measurements and spans: sent with the next write. */
function sendOtel(kind, name, value, attrs) {
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

// ---- The handler context ------------------------------------------------------------------

const { buildContext: contextOf, otelMeter, deepFreeze } = context;

/**
 * The `ctx` every handler of lane `lane` receives (SPEC §7), deep-frozen; its host calls go
 * to Rust, for that lane's session.
 */
function buildContext(facts, lane) {
  return contextOf(facts, {
    call: (method, args) => call(method, args, lane),
    otel: otelMeter(sendOtel),
    turnId: () => hookScope.getStore()?.turnId ?? null,
  });
}

// ---- Hooks and events -------------------------------------------------------------------

/** The hooks of the last init, in Rust's order: `{ name, events }`, `events` null when not loaded. */
let hooks = [];

/**
 * A session lane: `id` (null: the default lane), its `ctx`, its record in the handler slot,
 * the last event whose handlers all finished (-1: none yet) and the one whose `done` is
 * not yet said (-1: none); a named lane also has its own queue.
 */
function newLane(id, slot, ctx) {
  return { id, slot, ctx, lastFinished: -1, unsaid: -1, queue: [], draining: false, closing: false };
}

/** The lane of events without "session" (`run`, `test`): its ctx is init's. */
const defaultLane = newLane(null, 0, deepFreeze({}));
/** The named lanes, by id. */
const lanes = new Map();
let timeoutMs = 30_000;
/** The same, as people write it (`30s`), from Rust. */
let timeoutText = '30s';

// setTimeout fires at once for delays past this (and warns).
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Takes the observable instruments' measurements; set at the first init. */
let collectObservables = async () => {};
let providersInstalled = false;
/** The runtime's context manager's `{ runInSpan, activeSpanContext }`, once registered. */
let activeContext = null;

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

/** @param {ToNodeOf<'init'>} message */
async function init(message) {
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
  defaultLane.ctx = buildContext(message.ctx ?? {}, null);
  timeoutMs = Math.min(Number(message.timeoutMs ?? 30_000), MAX_TIMER_MS);
  timeoutText = String(message.timeoutText ?? `${timeoutMs}ms`);
  hooks = [];
  try {
    await installManifest(message.manifest);
    for (const { name, url, key, skip } of message.hooks ?? []) {
      if (skip) {
        // Rust saw this hook end the process while it loaded: it is not imported again.
        send({ t: 'load_failed', hook: name, message: String(skip), stack: null });
        hooks.push({ name, events: null });
        continue;
      }
      send({ t: 'loading', hook: name });
      hooks.push({ name, events: await loadHook(name, url, key) });
    }
  } finally {
    send({ t: 'ready' });
  }
}

/**
 * Imports one hook and reports it; returns its events, or null when it did not load. A hook
 * an extension mounts (`key` set) is the hook of that key in the mount file's default export.
 */
async function loadHook(name, url, key) {
  const imported = await importAs(name, url);
  if (imported.failed) {
    send({ t: 'load_failed', hook: name, ...imported.failed });
    return null;
  }
  let definition = defaultExport(imported.module);
  if (typeof key === 'string') {
    if (!isMount(definition)) return loadFailed(name, 'the mount file no longer exports a mount');
    if (definition.disabled.includes(key)) return loadFailed(name, 'the mount disables it');
    definition = hasOwn(definition.hooks, key) ? definition.hooks[key] : undefined;
    if (definition === undefined) return loadFailed(name, `the extension has no hook "${key}"`);
  }
  if (!isHookDefinition(definition)) {
    return loadFailed(name, 'the default export is not a defineHook(...) result');
  }
  const { events } = definition;
  send({ t: 'loaded', hook: name, events: keys(events) });
  return events;
}

function loadFailed(name, message) {
  send({ t: 'load_failed', hook: name, message, stack: null });
  return null;
}

/**
 * Imports `url` as `name` (what its top-level code logs is attributed to it): `{ module }`,
 * or `{ failed: { message, stack } }` when the import threw or did not settle in time.
 */
async function importAs(name, url) {
  try {
    // An import that never settles (a top-level await of a promise nothing resolves) is
    // given up after the hook timeout; its module stays pending, unused.
    const importing = hookScope.run({ hook: name, turnId: null }, () => import(url));
    let timer;
    const gaveUp = new Promise((resolve) => {
      timer = startTimer(() => resolve(GAVE_UP), timeoutMs);
    });
    const module = await race([importing, gaveUp]);
    stopTimer(timer);
    if (module === GAVE_UP) return { failed: { message: `its import did not finish within ${timeoutText}`, stack: null } };
    return { module };
  } catch (error) {
    return { failed: describe(error) };
  }
}

/** A module's default export; for CommonJS compiled from `export default`, the value it names. */
function defaultExport(module) {
  const value = module.default;
  // tsc's `exports.default` with `__esModule`.
  if (!isHookDefinition(value) && !isMount(value) && value?.__esModule) return value.default;
  return value;
}

/**
 * Imports each mount file of a "mount" message and says what it mounts (SPEC §3a).
 * @param {ToNodeOf<'mount'>} message
 */
async function inspectMounts(message) {
  try {
    for (const { namespace, url } of message.mounts ?? []) {
      send({ t: 'loading', hook: namespace });
      send(await inspectMount(namespace, url));
    }
  } finally {
    send({ t: 'mounts_done' });
  }
}

/**
 * @param {string} namespace
 * @param {string} url
 * @returns {Promise<Extract<FromNode, { t: 'mounted' }>>}
 */
async function inspectMount(namespace, url) {
  const imported = await importAs(namespace, url);
  if (imported.failed) return { t: 'mounted', namespace, problem: { kind: 'threw', ...imported.failed } };
  const mount = defaultExport(imported.module);
  if (!isMount(mount)) {
    const message = `the default export is ${kindOf(mount)}, not a mount (the call of a factory made with defineExtension)`;
    return { t: 'mounted', namespace, problem: { kind: 'not_a_mount', message, stack: null } };
  }
  const hooks = keys(mount.hooks).map((key) => {
    const hook = mount.hooks[key];
    return { key, events: isHookDefinition(hook) ? keys(hook.events) : null };
  });
  return {
    t: 'mounted',
    namespace,
    hooks,
    disabled: [...mount.disabled],
    instructions: typeof mount.instructions === 'string' ? mount.instructions : null,
    secretNames: [...mount.secretNames],
    egressDomains: [...mount.egressDomains],
  };
}

function kindOf(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function (the factory itself? call it with the options)';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What an import that never settled resolves to. */
const GAVE_UP = Symbol('gave up');

/**
 * Runs one event through the hooks, from hook `from` on. Returns nothing when every handler
 * finished without a promise (most do: then no turn of the event loop is spent), else a
 * promise of the rest. `done` is sent either way, last.
 * @param {{ id: number | null }} lane
 * @param {ToNodeOf<'event'>} message
 */
function dispatch(lane, { seq, from = 0, event, trace, timeline = false }) {
  let frozenEvent;
  try {
    // Every hook sees the same frozen event: none can change what the next one sees. It
    // was parsed from its own line just now and nothing else holds it, so it is frozen as
    // it is, with no copy.
    frozenEvent = freezeParsed(event ?? {});
  } catch (error) {
    finished(lane, seq);
    throw error;
  }
  const handlers = trace !== undefined ? tracedBy(trace) : timeline ? TIMELINE_ONLY : undefined;
  return runHandlers(lane, seq, frozenEvent, Math.max(0, from), 0, handlers);
}

/**
 * Freezes `value`, which JSON.parse made (plain objects and arrays of own data properties,
 * no accessors, no symbols), and everything in it: what deepFreeze does for any value, at
 * a third of its cost on a replay's events.
 */
function freezeParsed(value) {
  if (typeof value !== 'object' || value === null) return value;
  freeze(value);
  if (isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeParsed(value[index]);
  } else {
    const own = keys(value);
    for (let index = 0; index < own.length; index++) freezeParsed(value[own[index]]);
  }
  return value;
}

/** What an event sent with "timeline" and no "trace" runs under: "handler" lines, no spans. */
const TIMELINE_ONLY = Object.freeze({ timelineOnly: true });

/**
 * What a traced event's handlers run under: `{ traceId }` of the turn's span, or `{}`
 * (handler lines, no context) when the runtime's context manager is not the one in charge
 * or the ids are not valid.
 */
function tracedBy(trace) {
  if (activeContext === null || !otelApi.isValidSpanContext(trace)) return {};
  return { traceId: trace.traceId };
}

/** A handler span, begun: its id, its start in epoch milliseconds, and `performance.now()` then. */
function beginHandlerSpan(trace) {
  const began = performance.now();
  if (trace.timelineOnly) return { spanId: null, start: performance.timeOrigin + began, began };
  // (An event sent with a trace comes only after an init that said traces are exported.)
  otelApi ??= require('./sdk/otel-api.cjs');
  return { spanId: otelApi.newSpanId(), start: performance.timeOrigin + began, began };
}

/** Runs a traced event's handler with its span as the active one. */
function inHandlerSpan(trace, span, runHandler) {
  if (trace.traceId === undefined) return runHandler();
  return activeContext.runInSpan({ traceId: trace.traceId, spanId: span.spanId }, runHandler);
}

/** The "handler" line of a traced (or timelined) event's handler, after its threw/timed_out line if any. */
function endHandlerSpan(lane, seq, index, key, span, outcome, error) {
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

/**
 * Runs the event's handlers in order from hook `index`'s handler `which` (0: the one for the
 * event's type, 1: `"*"`) on, for as long as they finish at once; the first that returns a
 * promise hands the rest to `finishLater`, which then sends `done`. `trace` (undefined for
 * an event sent without one): each handler is a span.
 */
function runHandlers(lane, seq, frozenEvent, index, which, trace) {
  let handedOn = false;
  try {
    for (; index < hooks.length; index++, which = 0) {
      const { name, events } = hooks[index];
      if (!events) continue;
      for (; which < 2; which++) {
        const key = which === 0 ? frozenEvent.type : '*';
        if (!hasOwn(events, key)) continue;
        slotRunning(lane, seq, index, which);
        // `returned`: set once the handler has (what it left running then runs "after").
        const scope = { hook: name, turnId: frozenEvent.turnId ?? null, lane: lane.id, returned: false };
        const { ctx } = lane;
        const span = trace === undefined ? undefined : beginHandlerSpan(trace);
        const outcome = settle(scope, events, key, frozenEvent, ctx, trace, span);
        if (outcome.pending) {
          handedOn = true;
          // Node yields now: what waited for a write goes out (Rust sees the events done).
          flush();
          return finishLater(lane, seq, frozenEvent, outcome.pending, index, which, trace, span, scope);
        }
        scope.returned = true;
        const error = report(lane, seq, index, key, outcome);
        if (span !== undefined) endHandlerSpan(lane, seq, index, key, span, outcome, error);
      }
    }
  } finally {
    // Rust waits for this line whatever happened: it goes out with the next write, or when
    // the queue is empty.
    if (!handedOn) finished(lane, seq);
  }
  return undefined;
}

/** Waits for hook `index`'s handler `which` (and ends its span), then runs the handlers after it. */
async function finishLater(lane, seq, frozenEvent, pending, index, which, trace, span, scope) {
  let handedOn = false;
  try {
    const key = which === 0 ? frozenEvent.type : '*';
    const outcome = await pending;
    scope.returned = true;
    const error = report(lane, seq, index, key, outcome);
    if (span !== undefined) endHandlerSpan(lane, seq, index, key, span, outcome, error);
    const nextHook = which === 0 ? index : index + 1;
    handedOn = true;
    const rest = runHandlers(lane, seq, frozenEvent, nextHook, which === 0 ? 1 : 0, trace);
    if (rest !== undefined) await rest;
  } finally {
    if (!handedOn) finished(lane, seq);
  }
}

/** Tells Rust how a handler ended, unless it simply returned; returns why it failed, if it did. */
function report(lane, seq, index, key, outcome) {
  if (outcome.timedOut) {
    send(inLane({ t: 'timed_out', seq, hook: index, handler: key }, lane.id));
    return `timed out after ${timeoutText}`;
  }
  if (outcome.threw) {
    const described = describe(outcome.error);
    send(inLane({ t: 'threw', seq, hook: index, handler: key, ...described }, lane.id));
    return described.message;
  }
  return undefined;
}

/**
 * How a handler ended (or that it has not yet: `pending`).
 * @typedef {{ pending?: Promise<Outcome>, threw?: boolean, error?: unknown, timedOut?: boolean }} Outcome
 */

/** How a handler that returned without a promise, or whose promise fulfilled, ended. */
const RETURNED = /** @type {Outcome} */ (freeze({}));

/**
 * Runs hook `events`' handler `key` for `event` in `scope` (and in `span`, for a traced
 * event) to its end, its throw or `timeoutMs`, whichever comes first: `RETURNED` or
 * `{ threw: true, error }` at once for a handler that returned no promise, else
 * `{ pending }`, a promise of `RETURNED`, `{ threw: true, error }` or `{ timedOut: true }`.
 * (No closure is made per handler: a replay runs tens of thousands.)
 */
function settle(scope, events, key, event, ctx, trace, span) {
  /** @type {Promise<unknown>} */
  let handlerPromise;
  try {
    const result =
      span === undefined
        ? hookScope.run(scope, callHandler, events, key, event, ctx)
        : hookScope.run(scope, callHandlerInSpan, events, key, event, ctx, trace, span);
    if (typeof result?.then !== 'function') return RETURNED;
    handlerPromise = resolved(result);
  } catch (error) {
    return { threw: true, error };
  }
  return { pending: settleLater(handlerPromise) };
}

/** The handler, called on its hook's `events` (its `this`, as a method). */
function callHandler(events, key, event, ctx) {
  return events[key](event, ctx);
}

function callHandlerInSpan(events, key, event, ctx, trace, span) {
  return inHandlerSpan(trace, span, () => events[key](event, ctx));
}

async function settleLater(handlerPromise) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = startTimer(() => resolve({ timedOut: true }), timeoutMs);
  });
  // After a timeout the handler's promise is still handled, so its rejection is never "unhandled".
  const finished = handlerPromise.then(
    () => RETURNED,
    (error) => ({ threw: true, error }),
  );
  const outcome = await race([finished, timeout]);
  stopTimer(timer);
  return outcome;
}

// ---- The message loop -------------------------------------------------------------------

/**
 * Work that must run in arrival order, one at a time: init, mount, the default lane's
 * events, the final exit. (A named lane's events have a queue of their own.)
 */
function enqueue(task) {
  enqueueOn(defaultLane, task);
}

function enqueueOn(lane, task) {
  lane.queue.push(task);
  if (!lane.draining) {
    lane.draining = true;
    // Once the lines that arrived together are all queued: their events then run back to
    // back, and their `done`s share a write.
    runSoon(() => drain(lane));
  }
}

async function drain(lane) {
  const { queue } = lane;
  while (queue.length > 0) {
    const task = queue.shift();
    try {
      // An event whose handlers all finished at once returns nothing: the next one follows
      // without a turn of the event loop.
      const pending = task();
      if (pending !== undefined) await pending;
    } catch (error) {
      sendConsole('error', `agent-sdk host: ${errorText(error)}`);
    }
  }
  slotIdle(lane);
  flush();
  lane.draining = false;
  if (lane.closing && lanes.get(lane.id) === lane) lanes.delete(lane.id);
}

/**
 * An "open": lane `session` gets (or changes) its ctx and slot.
 * @param {ToNodeOf<'open'>} message
 */
function openLane({ session, slot, ctx }) {
  if (typeof session !== 'number') return;
  const facts = ctx ?? {};
  const lane = lanes.get(session);
  if (lane === undefined) {
    lanes.set(session, newLane(session, Number(slot) || 0, buildContext(facts, session)));
  } else {
    lane.slot = Number(slot) || 0;
    lane.ctx = buildContext(facts, session);
    lane.closing = false;
  }
}

/**
 * A "close": lane `session` is forgotten once its queue is empty.
 * @param {ToNodeOf<'close'>} message
 */
function closeLane({ session }) {
  const lane = lanes.get(session);
  if (lane === undefined) return;
  if (lane.draining) lane.closing = true;
  else lanes.delete(session);
}

/** How long the runtime may take to end once told to: the observable instruments'
 * callbacks, then the hooks' own `beforeExit` and `exit` listeners (a provider's flush). */
const SHUTDOWN_MS = 2_000;

/**
 * Ends the runtime as Node programs end, within SHUTDOWN_MS: the observable instruments'
 * measurements are taken, the channel from Rust is closed, and Node exits when nothing is
 * left to do, running the hooks' `beforeExit` and `exit` listeners (what they print is
 * still said). Whatever keeps Node busy past the deadline (a hook's interval, a socket) is
 * cut short by exiting then. Never resolves, so nothing queued after it runs.
 */
async function exitWhenFlushed() {
  const deadline = startTimer(() => {
    sendConsole(
      'warn',
      `agent-sdk host: Node.js was still busy ${SHUTDOWN_MS / 1000}s after the hooks were told to stop (a timer, a socket or a child process of a hook's); it was ended`,
    );
    flush();
    realExit(0);
  }, SHUTDOWN_MS);
  // The deadline itself must not keep Node running.
  deadline.unref();
  // Rust shuts down once every session lane's work is dispatched; should one still run,
  // it finishes first (within the deadline).
  while ([...lanes.values()].some((lane) => lane.draining)) await new Promise((resolve) => startTimer(resolve, 5));
  await collectObservables();
  // Protocol writes are synchronous: once the deferred lines are written, every line is out.
  flush();
  process.exitCode = 0;
  // The last line, after the hooks' own exit listeners (registered before this one): Rust
  // stops waiting there, not for Node's teardown to end the process.
  process.on('exit', () => send({ t: 'bye' }));
  // Replies still come, for what the hooks left running (a call they did not await, made
  // now or in the time left): the channel keeps Node up only while a call waits for one.
  shuttingDown = true;
  if (pending.size === 0) replies.unref();
  channel.destroy();
  return new Promise(() => {});
}

/** A line from Rust as a message; undefined (and said) when it is not JSON. */
function parseLine(line, what) {
  try {
    return parse(line);
  } catch {
    sendConsole('error', `agent-sdk host: ignored ${what} that is not JSON: ${line.slice(0, 200)}`);
    return undefined;
  }
}

/** @param {string} line */
function onLine(line) {
  if (line.trim() === '') return;
  /** @type {ToNode | undefined} */
  const message = parseLine(line, 'a line');
  switch (message?.t) {
    case 'init':
      enqueue(() => init(message));
      break;
    case 'mount':
      enqueue(() => inspectMounts(message));
      break;
    case 'event': {
      const lane = message.session === undefined ? defaultLane : lanes.get(message.session);
      if (lane === undefined) {
        sendConsole('error', `agent-sdk host: an event for session lane ${message.session}, which is not open, was ignored`);
      } else {
        enqueueOn(lane, () => dispatch(lane, message));
      }
      break;
    }
    case 'open':
      openLane(message);
      break;
    case 'close':
      closeLane(message);
      break;
    case 'shutdown':
      enqueue(exitWhenFlushed);
      break;
    default:
      break;
  }
}

/**
 * Calls `onLine` with each line `socket` brings (without its end of line), then `onClose`
 * once. Rust ends every line with "\n"; a line may arrive in pieces and a character
 * across two chunks (the decoder joins it). Cheaper than node:readline, which a replay
 * paid for on every event.
 */
function readLines(socket, onLine, onClose) {
  socket.setEncoding('utf8');
  let rest = '';
  socket.on('data', (chunk) => {
    const text = rest === '' ? chunk : rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      start = end + 1;
      try {
        onLine(line);
      } catch (error) {
        sendConsole('error', `agent-sdk host: ${errorText(error)}`);
      }
    }
    rest = start === 0 ? text : text.slice(start);
  });
  let closed = false;
  socket.on('close', () => {
    if (closed) return;
    closed = true;
    if (rest !== '') onLine(rest);
    onClose();
  });
}

const channel = new Socket({ fd: TO_NODE_FD, readable: true, writable: false });
readLines(channel, onLine, () => {
  // Closed by the shutdown itself: replies still come on their own channel.
  if (shuttingDown) return;
  // Rust is gone: no reply can come any more; let handlers waiting on one fail now rather
  // than time out.
  rejectPendingCalls();
  enqueue(exitWhenFlushed);
});

// The replies to calls, on a channel of their own: none waits behind queued events.
const replies = new Socket({ fd: REPLIES_FD, readable: true, writable: false });
readLines(replies, onReplyLine, rejectPendingCalls);

/** @param {string} line */
function onReplyLine(line) {
  /** @type {ToNodeOf<'reply'> | undefined} */
  const message = parseLine(line, 'a reply');
  if (message?.t === 'reply') onReply(message);
}
