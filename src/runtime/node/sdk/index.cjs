// `@cursor/bdk` (and `@grok/agent-sdk`, `@cursor/july`) for `require`: the package root.

'use strict';

const { defineHook } = require('./hooks.cjs');
const { memoryHook } = require('./memory.cjs');

module.exports = { defineHook, memoryHook };
