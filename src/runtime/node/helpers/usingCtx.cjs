// @ts-check
// `using` / `await using`, lowered by agent-sdk's compiler for Node 20 (which cannot parse
// them): `ctx.u(value)` and `ctx.a(value)` register a resource for a block, `ctx.e` holds
// what the block threw, and `ctx.d()` disposes the resources in reverse order (returning a
// promise when one was registered with `a`), rethrowing the block's error, with errors of
// disposal chained as SuppressedError as the proposal specifies.

'use strict';

const NOTHING = Symbol('nothing thrown');

function suppress(error, suppressed) {
  if (suppressed === NOTHING) return error;
  const message = 'An error was suppressed during disposal';
  if (typeof globalThis.SuppressedError === 'function') {
    return new globalThis.SuppressedError(error, suppressed, message);
  }
  /** @type {Error & { error?: unknown, suppressed?: unknown }} */
  const chained = new Error(message);
  chained.name = 'SuppressedError';
  chained.error = error;
  chained.suppressed = suppressed;
  return chained;
}

function disposerOf(value, isAsync) {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' && typeof value !== 'function') {
    throw new TypeError('using declarations can only hold objects, functions, null or undefined');
  }
  const asyncDispose = isAsync ? value[Symbol.asyncDispose] : undefined;
  const dispose = asyncDispose ?? value[Symbol.dispose];
  if (typeof dispose !== 'function') {
    const method = isAsync ? '[Symbol.asyncDispose]() or [Symbol.dispose]()' : '[Symbol.dispose]()';
    throw new TypeError(`the value of a using declaration has no ${method} method`);
  }
  return dispose;
}

module.exports = function usingCtx() {
  const resources = [];
  const add = (value, isAsync) => {
    const dispose = disposerOf(value, isAsync);
    if (dispose !== undefined || isAsync) resources.push({ value, dispose, isAsync });
    return value;
  };
  const ctx = {
    e: NOTHING,
    u: (value) => add(value, false),
    a: (value) => add(value, true),
    d() {
      let error = ctx.e;
      const fail = (thrown) => {
        error = suppress(thrown, error);
      };
      const next = () => {
        while (resources.length > 0) {
          const { value, dispose, isAsync } = resources.pop();
          try {
            const result = dispose === undefined ? undefined : dispose.call(value);
            if (isAsync) {
              return Promise.resolve(result).then(next, (thrown) => {
                fail(thrown);
                return next();
              });
            }
          } catch (thrown) {
            fail(thrown);
          }
        }
        if (error !== NOTHING) throw error;
        return undefined;
      };
      return next();
    },
  };
  return ctx;
};
