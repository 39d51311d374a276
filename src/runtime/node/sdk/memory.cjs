// @ts-check
// `@cursor/bdk/memory` (and the two other packages' `/memory`): a ready-made hook that
// appends one record per turn to a journal shared by every session of the agent, so later
// sessions (and the model, with its file tools) can read what happened.
// CommonJS, so `require` (in `.cjs` hooks) and `import` (through `memory.mjs`) share it.

'use strict';

const { defineHook } = require('./hooks.cjs');

const DEPLOYMENT = { scope: 'deployment' };

/**
 * A hook appending one JSON line to `<folder>/journal.jsonl` in the agent-wide files
 * (`ctx.host.files`, deployment scope) after each turn completes or fails:
 * `{ at, sessionId, channelId, status, title, userMessage, result, usage }`.
 *
 * - `at`: the `turn.completed` / `turn.failed` event's time;
 * - `status`: `"completed"` or `"failed"` (a cancelled turn is a failed one);
 * - `title`: `ctx.session.title`, `null` when the session has none;
 * - `userMessage`: the turn's `message.received` text (`null` if the hook saw none);
 * - `result`: the reply (`turn.completed`'s `result`, else the turn's `message.completed`
 *   text), or `turn.failed`'s `message`;
 * - `usage`: `turn.completed`'s `usage`, or `null`.
 *
 * Each record is one `files.append`: its cost does not grow with the journal, and the hook
 * keeps only what the turns under way need (their message and reply), forgotten at their end.
 *
 * @param {{ folder?: string }} [options] `folder` defaults to `memory`.
 */
function memoryHook(options = {}) {
  const journal = `${options.folder ?? 'memory'}/journal.jsonl`;
  /** The turns under way, by session and turn: `{ userMessage, reply }`. */
  const turns = new Map();
  const keyOf = (event) => `${event.sessionId}\u0000${event.turnId ?? ''}`;
  const turnOf = (event) => {
    const key = keyOf(event);
    let turn = turns.get(key);
    if (turn === undefined) {
      turn = { userMessage: null, reply: null };
      turns.set(key, turn);
    }
    return turn;
  };

  function record(event, ctx, status, result, usage) {
    const key = keyOf(event);
    const turn = turns.get(key);
    turns.delete(key);
    const line = {
      at: event.at,
      sessionId: event.sessionId,
      channelId: ctx.session.channelId,
      status,
      title: ctx.session.title ?? null,
      userMessage: turn?.userMessage ?? null,
      result: result ?? (status === 'completed' ? turn?.reply : null) ?? null,
      usage: usage ?? null,
    };
    return ctx.host.files.append(journal, `${JSON.stringify(line)}\n`, DEPLOYMENT);
  }

  return defineHook({
    events: {
      'message.received': (event) => {
        turnOf(event).userMessage = event.data.text ?? null;
      },
      'message.completed': (event) => {
        turnOf(event).reply = event.data.text ?? null;
      },
      'turn.completed': (event, ctx) => record(event, ctx, 'completed', event.data.result, event.data.usage),
      'turn.failed': (event, ctx) => record(event, ctx, 'failed', event.data.message, null),
    },
  });
}

module.exports = { memoryHook };
