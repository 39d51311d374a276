// @ts-check
// The lines agent-sdk sends (the messages on fd 3, the replies on fd 5): read, split and
// parsed, a line that is not JSON said and skipped.

import { builtin } from './builtin.mjs';
import { beforeExiting } from './exit.mjs';
import { errorText, sendConsole } from './output.mjs';

/** @type {typeof import('node:fs')} */
const { closeSync, openSync, read, readSync, writeSync } = builtin('node:fs');

// Primordials, taken before any hook can replace them.
const { parse } = JSON;
const { queueMicrotask: runSoon, setImmediate: runNext } = globalThis;

/** A line from Rust as a message; undefined (and said) when it is not JSON. */
export function parseLine(line, what) {
  try {
    return parse(line);
  } catch {
    sendConsole('error', `agent-sdk host: ignored ${what} that is not JSON: ${line.slice(0, 200)}`);
    return undefined;
  }
}

/**
 * Lines from what arrives: `push` each piece as it comes, `close` once none will (said once,
 * whoever calls it first). Rust ends every line with "\n"; a line may arrive in pieces and a
 * character across two pieces (the decoder joins it). Cheaper than node:readline, which a
 * replay paid for on every event.
 * @param {(line: string) => void} onLine
 * @param {() => void} onClose
 */
function lineReader(onLine, onClose) {
  const decoder = new TextDecoder();
  let rest = '';
  let closed = false;
  /** @param {string} line */
  const say = (line) => {
    try {
      onLine(line);
    } catch (error) {
      sendConsole('error', `agent-sdk host: ${errorText(error)}`);
    }
  };
  return {
    /** @param {Uint8Array} bytes */
    push(bytes) {
      const chunk = decoder.decode(bytes, { stream: true });
      const text = rest === '' ? chunk : rest + chunk;
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        say(text.slice(start, end));
        start = end + 1;
      }
      rest = start === 0 ? text : text.slice(start);
    },
    close() {
      if (closed) return;
      closed = true;
      const last = rest + decoder.decode();
      if (last !== '') say(last);
      onClose();
    },
  };
}

/**
 * Feeds what `socket` brings to `lines`, closing them when it closes.
 * @param {import('node:net').Socket} socket
 * @param {ReturnType<typeof lineReader>} lines
 */
function listen(socket, lines) {
  socket.on('data', (bytes) => lines.push(bytes));
  socket.on('close', () => lines.close());
}

/**
 * Calls `onLine` with each line `socket` brings (without its end of line), then `onClose`
 * once.
 * @param {import('node:net').Socket} socket
 * @param {(line: string) => void} onLine
 * @param {() => void} onClose
 */
export function readLines(socket, onLine, onClose) {
  listen(socket, lineReader(onLine, onClose));
}

/** How many reads of a channel go through `fs.read` before a socket takes over. */
const FIRST_READS = 8;

/**
 * Calls `onLine` with each line read from the pipe `fd` (without its end of line), then
 * `onClose` once it ends. On Linux the first read waits in this thread (`readSync`): nothing
 * runs before the first message (an init, a mount), which agent-sdk has often written before
 * Node is up. The next reads, up to FIRST_READS, are `fs.read`s, on a thread of
 * libuv's pool: they need none of node:net's modules, whose loading and first socket were 3
 * to 4 ms of a one-event run's start (its init, event and shutdown are three reads). Then a
 * socket reads, waiting on epoll rather than holding a pool thread (which a hook's own file
 * or crypto work would queue in front of), as a replay or `dev` soon needs; so it does
 * elsewhere from the first read, and on a pipe that turns out non-blocking (EAGAIN). While
 * an `fs.read` waits, an exit first wakes it with an empty line written through
 * /proc/self/fd (see exit.mjs). Returns `stop()`: nothing more is read, and the channel no
 * longer keeps Node up (a socket's destroy would read process.stderr, which node:net
 * compares itself with, and so make a stream most runs never need).
 * @param {number} fd
 * @param {(line: string) => void} onLine
 * @param {() => void} onClose
 */
export function readFdLines(fd, onLine, onClose) {
  const lines = lineReader(onLine, onClose);
  let stopped = false;
  /** @type {import('node:net').Socket | undefined} */
  let socket;
  const overSocket = () => {
    /** @type {typeof import('node:net')} */
    const { Socket } = builtin('node:net');
    socket = new Socket({ fd, readable: true, writable: false });
    listen(socket, lines);
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let reads = 0;
  let waiting = false;
  /** @param {NodeJS.ErrnoException | null} error @param {number} count */
  const got = (error, count) => {
    waiting = false;
    if (error?.code === 'EAGAIN') return overSocket();
    if (error || count === 0) return lines.close();
    lines.push(buffer.subarray(0, count));
    if (stopped) return;
    if (++reads >= FIRST_READS) return overSocket();
    // After the first message, the next read is queued once what that message started has
    // run as far as it can without waiting (an init: every hook's import): the read starts
    // libuv's pool, whose threads then start while Node waits for the next message anyway.
    if (reads === 1) runNext(next);
    else next();
  };
  const next = () => {
    waiting = true;
    read(fd, buffer, 0, buffer.length, null, got);
  };
  // Said from a microtask, as a read's callback would be: the caller has its `stop()` by then.
  const first = () => {
    /** @type {NodeJS.ErrnoException | null} */
    let failed = null;
    let count = 0;
    try {
      count = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      failed = /** @type {NodeJS.ErrnoException} */ (error);
    }
    runSoon(() => got(failed, count));
  };
  if (process.platform === 'linux') {
    beforeExiting(() => {
      if (!waiting) return;
      const writer = openSync(`/proc/self/fd/${fd}`, 'w');
      try {
        writeSync(writer, '\n');
      } finally {
        closeSync(writer);
      }
    });
    first();
  } else {
    overSocket();
  }
  return () => {
    stopped = true;
    socket?.pause();
    socket?.unref();
  };
}
