// @ts-check
// `@cursor/bdk` (and `@grok/agent-sdk`, `@cursor/july`) for `require`: the package root,
// which holds the types and nothing that runs (`defineHook` is in `/hooks`, `memoryHook`
// in `/memory`, as `validate` checks).

'use strict';

module.exports = {};
