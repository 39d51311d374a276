// @ts-check
// The ES module face of `testing.cjs`: one implementation for `import` and `require`.

import testing from './testing.cjs';

export const { createTestContext, events, dispatch, telemetry } = testing;
