// @ts-check
// The ES module face of `memory.cjs`: one implementation for `import` and `require`.

import memory from './memory.cjs';

export const { memoryHook } = memory;
