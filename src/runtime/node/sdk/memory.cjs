// `@cursor/bdk/memory` (and the two other packages' `/memory`): a ready-made hook that
// journals every turn, so later sessions of the agent can read what happened.
// CommonJS, so `require` (in `.cjs` hooks) and `import` (through `memory.mjs`) share it.

'use strict';

const { defineHook } = require('./hooks.cjs');

const DEPLOYMENT = { scope: 'deployment' };

/**
 * A hook appending one JSON line per message and turn outcome to
 * `<folder>/<sessionId>.jsonl` in the agent-wide files (`ctx.host.files`, deployment scope):
 * `{ at, turnId, type, text?, status? }`.
 *
 * @param {{ folder?: string }} [options] `folder` defaults to `memory`.
 */
function memoryHook(options = {}) {
  const folder = options.folder ?? 'memory';

  async function journal(event, ctx, fields) {
    const file = `${folder}/${event.sessionId}.jsonl`;
    const entry = { at: event.at, turnId: event.turnId, type: event.type, ...fields };
    // Files are whole-content writes; events of a session reach a hook one at a time, so
    // this read-then-write never races itself.
    const existing = (await ctx.host.files.read(file, DEPLOYMENT)) ?? '';
    await ctx.host.files.write(file, `${existing}${JSON.stringify(entry)}\n`, DEPLOYMENT);
  }

  return defineHook({
    events: {
      'message.received': (event, ctx) => journal(event, ctx, { text: event.data.text }),
      'message.completed': (event, ctx) => journal(event, ctx, { text: event.data.text }),
      'turn.completed': (event, ctx) => journal(event, ctx, { status: 'completed' }),
      'turn.failed': (event, ctx) =>
        journal(event, ctx, { text: event.data.message, status: event.data.status ?? 'error' }),
    },
  });
}

module.exports = { memoryHook };
