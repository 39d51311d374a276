// @ts-check
// The ES module face of `extensions.cjs`: one implementation for `import` and `require`.

import extensions from './extensions.cjs';

export const { defineExtension, disableHook, isMount } = extensions;
