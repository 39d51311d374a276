// @ts-check
// Which hook's code is running (its async continuations included), and whose host call an
// error came from: what the runtime's messages name the hook and the session lane by.

import { builtin } from './builtin.mjs';

/** @typedef {import('./protocol.js').FromNode} FromNode */
/** @typedef {import('./protocol.js').LaneOf} LaneOf */

/** @type {typeof import('node:async_hooks')} */
const { AsyncLocalStorage } = builtin('node:async_hooks');

/**
 * Which hook's code is running: `{ hook, turnId, lane, returned }`, `lane` the session
 * lane's id (null: the default lane, or a hook's import), `returned` set once its handler
 * has returned (what it left running then runs "after").
 */
export const hookScope = new AsyncLocalStorage();

/** The hook scope of each error a host call rejected with (see output.mjs's sendUnhandled). */
export const callScopes = new WeakMap();

export function currentHook() {
  return hookScope.getStore()?.hook ?? null;
}

/**
 * `message` with the session lane of the code running, when it runs in a named lane.
 * @template {FromNode} M
 * @param {M} message
 * @param {number | null} [lane]
 * @returns {M & LaneOf}
 */
export function inLane(message, lane = hookScope.getStore()?.lane ?? null) {
  /** @type {M & LaneOf} */
  const inItsLane = message;
  if (lane !== null) inItsLane.session = lane;
  return inItsLane;
}
