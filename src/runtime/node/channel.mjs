// @ts-check
// The protocol lines to agent-sdk (fd 4): each written whole and synchronously, and those
// that may wait (`done`, a handler's line, a measurement, a span) kept back to go out with
// the next write, in order.

import { builtin } from './builtin.mjs';
import { exitProcess } from './exit.mjs';

/** @typedef {import('./protocol.js').FromNode} FromNode */
/** @typedef {import('./protocol.js').LaneOf} LaneOf */

/** @type {typeof import('node:fs')} */
const { writeSync } = builtin('node:fs');

// Primordials, taken before any hook can replace them: a hook cannot forge the protocol.
const { stringify } = JSON;
const bufferFrom = Buffer.from.bind(Buffer);

const FROM_NODE_FD = 4;

/**
 * Sends one protocol message as one line. The write is synchronous (fd 4 is a blocking
 * pipe that Rust always reads), so a message is out before the next line of code runs,
 * and the last one before process.exit is never lost.
 * @param {FromNode & LaneOf} message
 */
export function send(message) {
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
export function sendSoon(message) {
  takeDone();
  deferred += `${stringify(message)}\n`;
  if (deferred.length >= DEFERRED_MAX) flush();
}

export function flush() {
  takeDone();
  doneSinceWrite = 0;
  if (deferred === '') return;
  const text = deferred;
  deferred = '';
  writeText(text);
}

/** An event of `lane` had all its handlers run: `done`, sent with the next write. */
export function finished(lane, seq) {
  lane.lastFinished = seq;
  if (lane.unsaid === -1) unsaidLanes.push(lane);
  lane.unsaid = seq;
  if (++doneSinceWrite >= DONE_MAX) flush();
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
      exitProcess(0);
    }
  }
}
