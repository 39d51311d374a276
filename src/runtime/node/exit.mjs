// @ts-check
// The runtime ending the process itself (a hook's process.exit, the shutdown's deadline, a
// channel agent-sdk closed): what must not hold the exit up goes first, then Node's exit.

// Primordials, taken before any hook can replace them.
const realExit = process.exit.bind(process);

/** Called before the process exits. @type {(() => void)[]} */
const beforeExit = [];

/**
 * Runs `callback` before the runtime exits the process: a thread of libuv's pool blocked
 * reading a pipe would hold the exit until its read returns (libuv joins its pool's threads
 * as the process ends); the reader wakes it.
 * @param {() => void} callback
 */
export function beforeExiting(callback) {
  beforeExit.push(callback);
}

/** Exits the process with `code`, once nothing holds the exit up. @param {number | string | null | undefined} code */
export function exitProcess(code) {
  for (const callback of beforeExit) {
    try {
      callback();
    } catch {
      // The exit goes on: at worst agent-sdk's watch ends the process.
    }
  }
  realExit(code);
}
