// `@cursor/bdk` (and `@grok/agent-sdk`, `@cursor/july`): the package root. Its types come
// from the declarations the binary generates; at run time it re-exports the SDK's functions.

export { defineHook } from './hooks.mjs';
export { memoryHook } from './memory.mjs';
