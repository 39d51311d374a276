// @ts-check
// The ES module face of `hooks.cjs`: one implementation for `import` and `require`.

import hooks from './hooks.cjs';

export const { defineHook, isHookDefinition, disableHook } = hooks;
