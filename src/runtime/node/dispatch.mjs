// @ts-check
// One event through the hooks' handlers (src/engine/dispatcher.rs sends it): each handler
// in order, in its hook's scope, its slot record written first, its end (a throw, the
// timeout) said; `done` last. A handler that returns no promise costs no turn of the event
// loop.

import { finished, flush, send } from './channel.mjs';
import { hooks, timeoutMs, timeoutText } from './loading.mjs';
import { beginHandlerSpan, endHandlerSpan, inHandlerSpan, TIMELINE_ONLY, tracedBy } from './otel.mjs';
import { describe } from './output.mjs';
import { hookScope, inLane } from './scope.mjs';
import { slotRunning } from './slot.mjs';

/** @typedef {import('./protocol.js').ToNode} ToNode */

// Primordials, taken before any hook can replace them: a hook cannot unfreeze the event.
const { hasOwn, keys, freeze } = Object;
const { isArray } = Array;
const { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;
const race = Promise.race.bind(Promise);
const resolved = Promise.resolve.bind(Promise);

/**
 * Runs one event through the hooks, from hook `from` on. Returns nothing when every handler
 * finished without a promise (most do: then no turn of the event loop is spent), else a
 * promise of the rest. `done` is sent either way, last.
 * @param {{ id: number | null }} lane
 * @param {Extract<ToNode, { t: 'event' }>} message
 */
export function dispatch(lane, { seq, from = 0, event, trace, timeline = false }) {
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

/** A handler's promise settled, or the timeout: a timed-out handler is left running, its outcome ignored. */
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
