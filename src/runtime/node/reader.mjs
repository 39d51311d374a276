// @ts-check
// The lines agent-sdk sends (the messages on fd 3, the replies on fd 5): split from what a
// socket brings and parsed, a line that is not JSON said and skipped.

import { errorText, sendConsole } from './output.mjs';

// Primordials, taken before any hook can replace them.
const { parse } = JSON;

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
 * Calls `onLine` with each line `socket` brings (without its end of line), then `onClose`
 * once. Rust ends every line with "\n"; a line may arrive in pieces and a character
 * across two chunks (the decoder joins it). Cheaper than node:readline, which a replay
 * paid for on every event.
 * @param {(line: string) => void} onLine
 * @param {() => void} onClose
 */
export function readLines(socket, onLine, onClose) {
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
