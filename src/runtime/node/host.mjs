// @ts-check
// The hook runtime's start: one long-lived Node.js process that imports the project's
// hooks from their source files and runs their handlers for the events agent-sdk sends it.
// This file starts it and wires its parts together, and ends it; each part is a module
// beside it, named after its Rust counterpart under src/runtime/ where it has one:
//
//   channel.mjs   the lines to agent-sdk (fd 4), and when the deferred ones go out
//   reader.mjs    the lines from agent-sdk, read, split and parsed
//   exit.mjs      the runtime's own exits, once nothing holds them up
//   slot.mjs      the handler slot (fd 6)
//   scope.mjs     which hook's code is running
//   output.mjs    the hooks' console, stdout, stderr, process.exit and stray errors
//   calls.mjs     `ctx`: its host calls and their replies (fd 5)
//   otel.mjs      the OpenTelemetry providers, records and handler spans
//   lanes.mjs     the session lanes and their queues
//   loading.mjs   "init" and "mount": the hooks and the mount files imported
//   dispatch.mjs  an event through the hooks' handlers
//
// Started as `node <runtimeDir>/host.mjs` in the project folder. That file is the esbuild
// bundle of this one and its imports (`generated/host.mjs`, see tests/it/types.rs): one
// file, no import to resolve at start, the SDK's CommonJS files in it; the hooks' own
// imports of the SDK load its files as usual (what the two copies share is keyed by
// `Symbol.for`). Node's built-ins are required, not imported (see builtin.mjs).
//
// THE MESSAGES are the types of protocol.d.ts, generated from src/protocol.rs, whose doc
// comments say what each one means; this file and its parts are checked against them
// (`tsc --checkJs`, tsconfig.json). One JSON object a line (NDJSON) on every channel. What
// the types cannot say follows.
//
// FDS. 3: agent-sdk → Node, every ToNode but "reply". 4: Node → agent-sdk, every FromNode,
// written synchronously (a blocking pipe that Rust always reads). 5: agent-sdk → Node, the
// replies to calls, which so never queue behind events (read from the first call that waits
// for one; fd 3's first reads are fs.reads, then a socket's: reader.mjs says why). 6: the
// handler slot (below). 7 and 8: the module channel (a ModuleRequest from Node, a
// ModuleAnswer back, one line each way at a time, read and written synchronously by the
// module hooks: on-demand.mjs). No process a
// hook starts inherits them (libuv closes every descriptor but the standard streams in the
// processes it starts), so nothing but the runtime writes to them. stdout and stderr carry
// only what other code prints (a child process with stdio "inherit", Node itself): a hook's
// console.* calls and process.stdout/stderr writes become "console" messages naming it.
//
// HOW CODE IS LOADED. The binary compiles every TypeScript module the hooks reach and
// resolves every import; project-modules.mjs serves them (ES modules through loader.mjs,
// CommonJS through Node's own loader), and "init" hands it the manifest (see loader.mjs).
// A module no string literal imports is asked for on the module channel.
//
// ORDER.
// - "hello" first, as soon as the process starts.
// - "init", "mount", "shutdown" and the events without "session" run one at a time, in
//   arrival order. A lane's events ("open" made it) run one at a time, in order, in a queue
//   of their own: a handler awaiting holds only its own lane. "open" and "close" act at
//   once, "reply" (fd 5) too; "shutdown" is the last line read (closing fd 3 is one too);
//   any other "t" is ignored.
// - "init": "loading" before each hook's import, then "loaded" or "load_failed"; "ready"
//   after the last, whatever happened. A hook's index is its position in the init, hooks
//   that failed to load counted. At the first init, before any hook loads, the
//   OpenTelemetry providers take their place (otel.mjs). "mount": "loading" and "mounted"
//   for each mount file, in order; "mounts_done" after the last.
// - An event: for each loaded hook with index >= "from", in order, its handler for the
//   event's type, then its "*". After a handler: its "threw" or "timed_out", if any, then its
//   "handler" line (an event sent with "trace" or "timeline"); after the last, "done".
// - "done", "handler" and the OpenTelemetry records but logs may wait: they go out with the
//   next line sent at once (a call, console output, "exit"), before a handler is awaited,
//   when a lane goes idle, or once 16 KiB of them (or 512 events) wait; always in order.
//   One "done" says it of every event of its lane through its seq.
// - A call sent "resolved" (kv.set, reminders.set) has its promise resolved as it is sent,
//   no reply awaited: agent-sdk answers calls in order, so a later read sees the write.
// - "exit" is the last line before the process ends; after a "shutdown", "bye" is, from
//   the last "exit" listener (the hooks' own run first; Rust does not wait for the rest).
//
// THE HANDLER SLOT (fd 6, a file in memory that Rust made, 24 bytes a lane): before each
// handler of a lane, and before the lane goes idle, one pwrite at offset 24 × the lane's
// slot (the default lane's is 0) of, little-endian: u32 generation (1, 2, …, one counter
// for every lane: the highest one running started last), u32 kind (0 idle, 1 the handler
// for the event's type, 2 its "*" handler), f64 seq (idle: the last event whose handlers all
// ran, -1 none), u32 hook index, u32 the generation again (a read that finds the two
// different caught a write half done). Rust reads it only when it needs to: which handler
// has run past timeoutMs without yielding, which one a crash cut off (events before its seq
// are done, their "done" sent or not), and whose handler ran when a child's output line was
// read. No protocol line precedes a handler.
//
// RESTARTS. A handler that loops forever without yielding cannot be timed out from here:
// Rust kills this process, starts a new one, sends "init" again and re-sends the event with
// "from" set to the next hook. An import that never yields is handled the same way (Rust
// sends that hook with "skip"); one that never settles is given up here after timeoutMs. A
// handler that does not settle within timeoutMs is "timed_out" and left running.
//
// The primordials the runtime relies on (Object.freeze, JSON, timers, …) are taken by each
// module as it is evaluated, before any hook loads: a hook replacing them cannot unfreeze
// the event or forge the protocol.

// An import's place here is when its top-level code runs: the module hooks' files and the
// stack maps first, then the SDK's CommonJS files (sdk/*.cjs) that the parts import.
import { moduleHooksInThread, serveProjectModules } from './project-modules.mjs';
import { mapStacks } from './stack-maps.mjs';
import { answerOnlyWhileWaiting, listenForReplies, rejectPendingCalls } from './calls.mjs';
import { flush, send } from './channel.mjs';
import { dispatch } from './dispatch.mjs';
import { anyLaneDraining, closeLane, defaultLane, enqueue, enqueueOn, laneOf, openLane } from './lanes.mjs';
import { init, inspectMounts } from './loading.mjs';
import { exitProcess } from './exit.mjs';
import { collectObservables } from './otel.mjs';
import { attributeOutput, sendConsole } from './output.mjs';
import { builtin } from './builtin.mjs';
import { parseLine, readFdLines } from './reader.mjs';

/** @typedef {import('./protocol.js').ToNode} ToNode */

// Primordials, kept before any hook can replace them.
const { setTimeout: startTimer } = globalThis;

const TO_NODE_FD = 3;
const REPLIES_FD = 5;

/** Hands the manifest of an "init" to the loader thread and waits until it has it. The
 * module hooks ask the binary for modules no string literal imports on fds 7 and 8. */
const installManifest = serveProjectModules({ requests: 7, answers: 8 });

// A hook's stack trace names its TypeScript lines: mapped when a stack is formatted, from
// the code the in-thread module hooks served; else by Node's own source maps (turned on
// before any hook loads), which the loader thread's compiled modules reach.
if (moduleHooksInThread()) mapStacks();
else process.setSourceMapsEnabled(true);

// First message: which Node this is, so Rust can refuse one that is too old without
// starting Node twice.
send({ t: 'hello', node: process.versions.node });

// Node keeps the code it compiles in the runtime's own folder (NODE_COMPILE_CACHE, which
// agent-sdk sets unless the user did: src/runtime/compile_cache.rs), read at its start; the
// hooks and the processes they start see the environment they were given.
const givenCompileCache = process.env.NODE_COMPILE_CACHE;
if (givenCompileCache !== undefined && givenCompileCache === compileCacheFolder()) {
  delete process.env.NODE_COMPILE_CACHE;
}

attributeOutput();

/**
 * The folder NODE_COMPILE_CACHE names when agent-sdk set it: `compile-cache` beside this
 * file, whose URL Node made from the real path (as agent-sdk names the folder).
 */
function compileCacheFolder() {
  return decodeURIComponent(new URL('compile-cache', import.meta.url).pathname);
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
    exitProcess(0);
  }, SHUTDOWN_MS);
  // The deadline itself must not keep Node running.
  deadline.unref();
  // Rust shuts down once every session lane's work is dispatched; should one still run,
  // it finishes first (within the deadline).
  while (anyLaneDraining()) await new Promise((resolve) => startTimer(resolve, 5));
  await collectObservables();
  // Protocol writes are synchronous: once the deferred lines are written, every line is out.
  flush();
  // What Node compiled this run is kept for the next before "bye": Rust ends the process
  // once it reads it (Node ≥ 22.10 can be asked; before, Node keeps it as it exits).
  builtin('node:module').flushCompileCache?.();
  process.exitCode = 0;
  // The last line, after the hooks' own exit listeners (registered before this one): Rust
  // stops waiting there, not for Node's teardown to end the process.
  process.on('exit', () => send({ t: 'bye' }));
  answerOnlyWhileWaiting();
  return new Promise(() => {});
}

/** @param {string} line */
function onLine(line) {
  if (line.trim() === '') return;
  /** @type {ToNode | undefined} */
  const message = parseLine(line, 'a line');
  switch (message?.t) {
    case 'init':
      enqueue(() => init(message, installManifest));
      break;
    case 'mount':
      enqueue(() => inspectMounts(message));
      break;
    case 'event': {
      const lane = message.session === undefined ? defaultLane : laneOf(message.session);
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
      // Its last line: nothing more is read, and the channel no longer keeps Node up.
      stopReading();
      enqueue(exitWhenFlushed);
      break;
    default:
      break;
  }
}

const stopReading = readFdLines(TO_NODE_FD, onLine, () => {
  // Rust is gone: no reply can come any more; let handlers waiting on one fail now rather
  // than time out.
  rejectPendingCalls();
  enqueue(exitWhenFlushed);
});

// The replies to calls, on a channel of their own: none waits behind queued events.
listenForReplies(REPLIES_FD);
