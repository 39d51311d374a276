// @ts-check
// `@cursor/bdk/extensions` (and `@grok/agent-sdk/extensions`, `@cursor/july/extensions`):
// what an extension package is made with, and how a project adjusts its mount. Provided by
// the agent-sdk runtime itself. CommonJS, so `require` and `import` (through
// `extensions.mjs`) share one implementation.
//
//   export default defineExtension((options) => ({ hooks: { triage: defineHook({ … }) } }));
//   // bot/extensions/ci.ts: the file name is the namespace, hooks mount as `ci__<key>`
//   export default ci({ org: "acme" }).disableHook("triage");
//
// A mount is plain data the host reads when it loads the project: nothing here checks a
// hook's key or value (the host does, and says which mount and key is wrong).

'use strict';

// A registry symbol, so a mount is recognised even if this module were loaded twice.
const MOUNT = Symbol.for('agent-sdk.mount');

const { freeze, create, assign } = Object;

/**
 * Defines an extension: `factory(options)` returns `{ hooks, instructions?, secretNames?,
 * egressDomains? }`; the result, the package's default export, is a function of the options
 * that returns a mount. A throw from the factory is the extension rejecting its options.
 */
function defineExtension(factory) {
  if (typeof factory !== 'function') {
    throw new TypeError('defineExtension() expects a function of the options that returns { hooks: { … } }');
  }
  return function mountExtension(options) {
    const spec = factory(options);
    if (typeof spec !== 'object' || spec === null) {
      throw new TypeError(`the extension's factory returned ${describe(spec)}, not { hooks: { … } }`);
    }
    return mountOf(spec, []);
  };
}

function mountOf(spec, disabled) {
  const hooks = spec.hooks;
  if (typeof hooks !== 'object' || hooks === null) {
    throw new TypeError(`the extension's \`hooks\` is ${describe(hooks)}, not an object of defineHook() results`);
  }
  const mount = {
    hooks: freeze(assign(create(null), hooks)),
    instructions: typeof spec.instructions === 'string' ? spec.instructions : undefined,
    secretNames: freeze(strings(spec.secretNames)),
    egressDomains: freeze(strings(spec.egressDomains)),
    disabled: freeze([...disabled]),
    /** The same mount without the hooks named (their keys inside the extension). */
    disableHook(...names) {
      return mountOf(spec, [...disabled, ...names.map(String)]);
    },
    [MOUNT]: true,
  };
  return freeze(mount);
}

/** `disableHook(mount, "triage", …)`: the same as `mount.disableHook("triage", …)`. */
function disableHook(mount, ...names) {
  if (!isMount(mount)) {
    throw new TypeError(`disableHook() expects a mount (an extension's call) first, not ${describe(mount)}`);
  }
  return mount.disableHook(...names);
}

/** Whether `value` is a mount (used by the host to accept a mount file's default export). */
function isMount(value) {
  return value?.[MOUNT] === true;
}

function strings(value) {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' || typeof value === 'function' ? `a ${typeof value}` : `${typeof value} ${String(value)}`;
}

module.exports = { defineExtension, disableHook, isMount };
