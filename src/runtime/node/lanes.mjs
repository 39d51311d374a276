// @ts-check
// The session lanes (src/runtime/lanes.rs opens them): the default lane of `run` and
// `test`, and one for each session a `dev` runtime serves, each with its `ctx`, its record
// in the handler slot and its own queue, whose work runs one task at a time, in order.

import { flush } from './channel.mjs';
import { buildContext } from './calls.mjs';
import { errorText, sendConsole } from './output.mjs';
import { slotIdle } from './slot.mjs';
import context from './sdk/context.cjs';

// A primordial, taken before any hook can replace it.
const runSoon = queueMicrotask;

/**
 * A session lane: `id` (null: the default lane), its `ctx`, its record in the handler slot,
 * the last event whose handlers all finished (-1: none yet) and the one whose `done` is
 * not yet said (-1: none); a named lane also has its own queue.
 */
function newLane(id, slot, ctx) {
  return { id, slot, ctx, lastFinished: -1, unsaid: -1, queue: [], draining: false, closing: false };
}

/** The lane of events without "session" (`run`, `test`): its ctx is init's. */
export const defaultLane = newLane(null, 0, context.deepFreeze({}));
/** The named lanes, by id. */
const lanes = new Map();

/** The named lane `session`, if it is open. */
export function laneOf(session) {
  return lanes.get(session);
}

/** Whether a named lane still has work running. */
export function anyLaneDraining() {
  return [...lanes.values()].some((lane) => lane.draining);
}

/**
 * Work that must run in arrival order, one at a time: init, mount, the default lane's
 * events, the final exit. (A named lane's events have a queue of their own.)
 */
export function enqueue(task) {
  enqueueOn(defaultLane, task);
}

export function enqueueOn(lane, task) {
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
 * @param {Extract<import('./protocol.js').ToNode, { t: 'open' }>} message
 */
export function openLane({ session, slot, ctx }) {
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
 * @param {Extract<import('./protocol.js').ToNode, { t: 'close' }>} message
 */
export function closeLane({ session }) {
  const lane = lanes.get(session);
  if (lane === undefined) return;
  if (lane.draining) lane.closing = true;
  else lanes.delete(session);
}
