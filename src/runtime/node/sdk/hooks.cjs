// @ts-check
// `@cursor/bdk/hooks` (and `@grok/agent-sdk/hooks`, `@cursor/july/hooks`): what a hook
// module's default export is made with. Provided by the agent-sdk runtime itself.
// CommonJS, so `require` (in `.cjs` hooks) and `import` (through `hooks.mjs`) share it.

'use strict';

const { disableHook } = require('./extensions.cjs');

// A registry symbol, so a definition is recognised even if this module were loaded twice.
const HOOK = Symbol.for('agent-sdk.hook');

/**
 * Defines a hook: `export default defineHook({ events: { "turn.completed"(event, ctx) { … } } })`.
 * `events` maps an event type, or `"*"` for every event, to its handler.
 */
function defineHook(definition) {
  const events = definition?.events;
  if (typeof events !== 'object' || events === null) {
    throw new TypeError('defineHook() expects { events: { "<event type>": handler } }');
  }
  for (const [key, handler] of Object.entries(events)) {
    if (typeof handler !== 'function') {
      throw new TypeError(`defineHook(): the handler for "${key}" is not a function`);
    }
  }
  // A null prototype, so only the keys the hook wrote are handlers (never "constructor").
  return Object.freeze({
    ...definition,
    events: Object.freeze(Object.assign(Object.create(null), events)),
    [HOOK]: true,
  });
}

/** Whether `value` was made by `defineHook` (used by the host to accept a default export). */
function isHookDefinition(value) {
  return value?.[HOOK] === true;
}

// `disableHook` is `@cursor/bdk/extensions`' own, exported here too: a mount file may take it
// from either.
module.exports = { defineHook, isHookDefinition, disableHook };
