// @ts-check
// The hooks' output as protocol messages naming the hook: their console.* calls and
// process.stdout/stderr writes ("console"), process.exit ("exit"), the errors nothing
// handled ("unhandled"); and what is told of anything thrown.

import { send } from './channel.mjs';
import { callScopes, currentHook, hookScope, inLane } from './scope.mjs';
import { builtin } from './builtin.mjs';
import { exitProcess } from './exit.mjs';

/** @type {typeof import('node:util')} */
const { format } = builtin('node:util');

// Primordials, taken before any hook can replace them.
const captureStack = Error.captureStackTrace;
const bufferFrom = Buffer.from.bind(Buffer);

/**
 * The runtime's own modules (the bundle Node starts is `host.mjs`; its sources are these
 * files): a stack is cut at the first frame in one of them.
 */
const HOST_MODULES = [
  'host.mjs',
  'channel.mjs',
  'reader.mjs',
  'slot.mjs',
  'scope.mjs',
  'output.mjs',
  'calls.mjs',
  'otel.mjs',
  'loading.mjs',
  'lanes.mjs',
  'dispatch.mjs',
].map((name) => new URL(name, import.meta.url).href);

export function sendConsole(level, text) {
  send(inLane({ t: 'console', level, hook: currentHook(), text }));
}

/**
 * Makes the hooks' console, stdout and stderr, process.exit and the errors nothing handled
 * say so on the protocol channel: called once, before any hook loads.
 */
export function attributeOutput() {
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
  attributeWritesWhenRead('stdout', 'info');
  attributeWritesWhenRead('stderr', 'warn');

  // Whoever ends the process says so first, so that Rust blames the right hook: the one whose
  // code (a timer it set included) called process.exit, not whichever handler happened to run.
  process.exit = /** @type {typeof process.exit} */ (function exit(code) {
    const site = { stack: '' };
    captureStack(site, exit);
    send(inLane({ t: 'exit', hook: currentHook(), code: code ?? process.exitCode ?? 0, stack: site.stack }));
    exitProcess(code);
  });

  // A hook's stray code (a timer, a promise nobody awaits) must not bring the host down; Rust
  // counts each such error as a failure of the hook whose code it was.
  process.on('uncaughtException', (error) => sendUnhandled('exception', error));
  process.on('unhandledRejection', (reason) => sendUnhandled('rejection', reason));
}

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
export function describe(thrown) {
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

/** A stack cut where it enters the runtime: the frames below a hook's own are the host's plumbing. */
function withoutHostFrames(stack) {
  const lines = stack.split('\n');
  const host = lines.findIndex((line) => HOST_MODULES.some((url) => line.includes(url)));
  return host === -1 ? stack : lines.slice(0, host).join('\n');
}

/** The stack of anything thrown, else its message. */
export function errorText(thrown) {
  const { message, stack } = describe(thrown);
  return stack ?? message;
}
