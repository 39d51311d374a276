// @ts-check
// The request the module hooks (module-hooks.mjs, for `import(name)` of a computed name) and
// the CommonJS hooks (project-modules.mjs, for `require(name)`) make for a module no string
// literal imports, or whose compiled code is gone from the cache: the binary compiles what
// it reaches into the same cache and answers one JSON line, `{ "target", "manifest" }` or
// `{ "error" }` (what validate would have said). Requests and answers are typed on the Rust
// side (src/loader/on_demand.rs: ModuleRequest, ModuleAnswer).
//
// Two ways to ask, chosen once per thread with askThrough():
//   - the module channel (the hook host of run and dev): fd 7 carries one request a line to
//     the binary that started this process, fd 8 its answer; a lock shared by this process's
//     threads (the main thread's CommonJS hooks, the loader thread's module hooks) keeps
//     one request at a time on it. Nothing is started, so nothing depends on the binary's
//     file (an upgrade may replace it while dev runs);
//   - `agent-sdk __load-module` in a process of its own (the test runner's processes, which
//     have no channel): AGENT_SDK_EXE names the binary.
// Either way an answer is asked for once: the next import of the same specifier from the
// same module is answered from memory, as Node answers a second import of a file.

import { builtin } from './builtin.mjs';

/** @type {typeof import('node:fs')} */
const { readSync, writeSync } = builtin('node:fs');

// Taken before any hook loads: a hook replacing them cannot change what the binary is asked.
const { parse, stringify } = JSON;
const { compareExchange, notify, store, wait } = Atomics;
const bufferFrom = Buffer.from.bind(Buffer);
const bufferConcat = Buffer.concat.bind(Buffer);
const allocate = Buffer.allocUnsafe.bind(Buffer);

/** @typedef {import('./protocol.js').Manifest} Manifest */
/** @typedef {import('./protocol.js').ModuleRequest} ModuleRequest */
/** @typedef {import('./protocol.js').ModuleAnswer} ModuleAnswer */
/** @typedef {{ requests: number, answers: number, lock: Int32Array }} ModuleChannel */

/**
 * How this thread asks: `{ requests, answers, lock }` (the channel's fds and lock), or null.
 * @type {ModuleChannel | null}
 */
let channel = null;

/**
 * Makes this thread ask over the module channel `next` (`{ requests, answers, lock }`, where
 * lock is an Int32Array over a SharedArrayBuffer every thread asking shares), or, with null,
 * in a process of its own.
 */
/** @param {ModuleChannel | null} next */
export function askThrough(next) {
  channel = next;
}

/**
 * The answers given, by manifest (an init replaces it): specifier → target.
 * @type {WeakMap<Manifest, Map<string, string | null>>}
 */
const answered = new WeakMap();

/**
 * Asks the binary for `specifier` as `from` imports it (with `require` when `viaRequire`;
 * `from` null: `specifier` is a file path), merges its answer into `manifest` and returns
 * the target path, or null when it has nothing to add; throws its error. A question
 * answered before is answered from memory.
 * @param {Manifest} manifest
 * @param {string | null} from
 * @param {string} specifier
 * @param {boolean} viaRequire
 * @returns {string | null}
 */
export function askBinary(manifest, from, specifier, viaRequire) {
  let answers = answered.get(manifest);
  if (answers === undefined) {
    answers = new Map();
    answered.set(manifest, answers);
  }
  const key = questionKey(from, specifier, viaRequire);
  if (answers.has(key)) return answers.get(key) ?? null;
  const target = ask(manifest, { from, specifier, require: viaRequire });
  answers.set(key, target);
  return target;
}

/**
 * The file an earlier answer resolved `specifier` to as `from` imports it, or undefined:
 * the hooks look here first, since Node, which could not resolve it then, cannot now.
 */
export function answeredBefore(manifest, from, specifier, viaRequire) {
  return answered.get(manifest)?.get(questionKey(from, specifier, viaRequire)) ?? undefined;
}

function questionKey(from, specifier, viaRequire) {
  return `${viaRequire ? 'require' : 'import'}\n${from ?? ''}\n${specifier}`;
}

/**
 * Asks the binary to compile the module at `path` again (its compiled code is gone from the
 * cache: another agent-sdk sharing it pruned it, or it was deleted) and merges the answer.
 */
export function compileAgain(manifest, path) {
  ask(manifest, { from: null, specifier: path, require: false });
}

/**
 * @param {Manifest} manifest
 * @param {ModuleRequest} request
 * @returns {string | null}
 */
function ask(manifest, request) {
  /** @type {ModuleAnswer} */
  const answer = channel === null ? inAProcessOfItsOwn(request) : overTheChannel(channel, request);
  if ('error' in answer) {
    if (answer.error) throw new Error(answer.error);
    return null;
  }
  if (answer.manifest) {
    Object.assign(manifest.modules, answer.manifest.modules);
    Object.assign(manifest.resolutions, answer.manifest.resolutions);
  }
  return answer.target ?? null;
}

/**
 * @param {ModuleChannel} channel
 * @param {ModuleRequest} request
 * @returns {ModuleAnswer}
 */
function overTheChannel({ requests, answers, lock }, request) {
  while (compareExchange(lock, 0, 0, 1) !== 0) wait(lock, 0, 1);
  try {
    writeAll(requests, bufferFrom(`${stringify(request)}\n`));
    return parse(readLine(answers));
  } finally {
    store(lock, 0, 0);
    notify(lock, 0, 1);
  }
}

function writeAll(fd, bytes) {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
}

/** One line from `fd` (blocking): the whole answer, however long. */
function readLine(fd) {
  const chunks = [];
  for (;;) {
    const chunk = allocate(64 * 1024);
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) throw new Error('agent-sdk stopped answering module requests');
    chunks.push(chunk.subarray(0, read));
    // An answer is one line: it ends the read it ends in.
    if (chunk[read - 1] === 0x0a) return bufferConcat(chunks).toString('utf8');
  }
}

/**
 * @param {ModuleRequest} request
 * @returns {ModuleAnswer}
 */
function inAProcessOfItsOwn({ from, specifier, require: viaRequire }) {
  // Loaded here, not at start-up: most runs never need it, and every start-up pays for it.
  /** @type {typeof import('node:child_process')} */
  const { execFileSync } = builtin('node:child_process');
  const args = ['__load-module', '--dir', String(process.env.AGENT_SDK_PROJECT_ROOT)];
  if (from) args.push('--from', from);
  if (from && viaRequire) args.push('--require');
  args.push('--', specifier);
  // No limit on the answer: the manifest of thousands of modules is megabytes.
  return parse(execFileSync(String(process.env.AGENT_SDK_EXE), args, { encoding: 'utf8', maxBuffer: Infinity }));
}
