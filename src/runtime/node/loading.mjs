// @ts-check
// An "init" and a "mount": the project's hooks imported in order (each attributed its
// top-level code's output, given up after the hook timeout), and the mount files'
// default exports inspected for what they mount.

import { send } from './channel.mjs';
import { buildContext } from './calls.mjs';
import { defaultLane } from './lanes.mjs';
import { setUpOtel } from './otel.mjs';
import { describe } from './output.mjs';
import { hookScope } from './scope.mjs';
import extensions from './sdk/extensions.cjs';
import hookDefinitions from './sdk/hooks.cjs';

/** @typedef {import('./protocol.js').ToNode} ToNode */
/** @typedef {import('./protocol.js').FromNode} FromNode */
/** @typedef {import('./protocol.js').Manifest} Manifest */

// Primordials, taken before any hook can replace them.
const { hasOwn, keys } = Object;
const { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;
const race = Promise.race.bind(Promise);

const { isMount } = extensions;
const { isHookDefinition } = hookDefinitions;

/** The hooks of the last init, in Rust's order: `{ name, events }`, `events` null when not loaded. */
export let hooks = [];
/** How long a handler, or an import, may take (the last init's). */
export let timeoutMs = 30_000;
/** The same, as people write it (`30s`), from Rust. */
export let timeoutText = '30s';

// setTimeout fires at once for delays past this (and warns).
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * @param {Extract<ToNode, { t: 'init' }>} message
 * @param {(manifest: Manifest) => Promise<unknown>} installManifest hands the manifest to
 * the module hooks (project-modules.mjs's serveProjectModules)
 */
export async function init(message, installManifest) {
  setUpOtel(message);
  defaultLane.ctx = buildContext(message.ctx ?? {}, null);
  timeoutMs = Math.min(Number(message.timeoutMs ?? 30_000), MAX_TIMER_MS);
  timeoutText = String(message.timeoutText ?? `${timeoutMs}ms`);
  hooks = [];
  try {
    await installManifest(message.manifest);
    for (const { name, url, key, skip } of message.hooks ?? []) {
      if (skip) {
        // Rust saw this hook end the process while it loaded: it is not imported again.
        send({ t: 'load_failed', hook: name, message: String(skip), stack: null });
        hooks.push({ name, events: null });
        continue;
      }
      send({ t: 'loading', hook: name });
      hooks.push({ name, events: await loadHook(name, url, key) });
    }
  } finally {
    send({ t: 'ready' });
  }
}

/**
 * Imports one hook and reports it; returns its events, or null when it did not load. A hook
 * an extension mounts (`key` set) is the hook of that key in the mount file's default export.
 */
async function loadHook(name, url, key) {
  const imported = await importAs(name, url);
  if (imported.failed) {
    send({ t: 'load_failed', hook: name, ...imported.failed });
    return null;
  }
  let definition = defaultExport(imported.module);
  if (typeof key === 'string') {
    if (!isMount(definition)) return loadFailed(name, 'the mount file no longer exports a mount');
    if (definition.disabled.includes(key)) return loadFailed(name, 'the mount disables it');
    definition = hasOwn(definition.hooks, key) ? definition.hooks[key] : undefined;
    if (definition === undefined) return loadFailed(name, `the extension has no hook "${key}"`);
  }
  if (!isHookDefinition(definition)) {
    return loadFailed(name, 'the default export is not a defineHook(...) result');
  }
  const { events } = definition;
  send({ t: 'loaded', hook: name, events: keys(events) });
  return events;
}

function loadFailed(name, message) {
  send({ t: 'load_failed', hook: name, message, stack: null });
  return null;
}

/**
 * Imports `url` as `name` (what its top-level code logs is attributed to it): `{ module }`,
 * or `{ failed: { message, stack } }` when the import threw or did not settle in time.
 */
async function importAs(name, url) {
  try {
    // An import that never settles (a top-level await of a promise nothing resolves) is
    // given up after the hook timeout; its module stays pending, unused.
    const importing = hookScope.run({ hook: name, turnId: null }, () => import(url));
    let timer;
    const gaveUp = new Promise((resolve) => {
      timer = startTimer(() => resolve(GAVE_UP), timeoutMs);
    });
    const module = await race([importing, gaveUp]);
    stopTimer(timer);
    if (module === GAVE_UP) return { failed: { message: `its import did not finish within ${timeoutText}`, stack: null } };
    return { module };
  } catch (error) {
    return { failed: describe(error) };
  }
}

/** A module's default export; for CommonJS compiled from `export default`, the value it names. */
function defaultExport(module) {
  const value = module.default;
  // tsc's `exports.default` with `__esModule`.
  if (!isHookDefinition(value) && !isMount(value) && value?.__esModule) return value.default;
  return value;
}

/**
 * Imports each mount file of a "mount" message and says what it mounts (SPEC §3a).
 * @param {Extract<ToNode, { t: 'mount' }>} message
 */
export async function inspectMounts(message) {
  try {
    for (const { namespace, url } of message.mounts ?? []) {
      send({ t: 'loading', hook: namespace });
      send(await inspectMount(namespace, url));
    }
  } finally {
    send({ t: 'mounts_done' });
  }
}

/**
 * @param {string} namespace
 * @param {string} url
 * @returns {Promise<Extract<FromNode, { t: 'mounted' }>>}
 */
async function inspectMount(namespace, url) {
  const imported = await importAs(namespace, url);
  if (imported.failed) return { t: 'mounted', namespace, problem: { kind: 'threw', ...imported.failed } };
  const mount = defaultExport(imported.module);
  if (!isMount(mount)) {
    const message = `the default export is ${kindOf(mount)}, not a mount (the call of a factory made with defineExtension)`;
    return { t: 'mounted', namespace, problem: { kind: 'not_a_mount', message, stack: null } };
  }
  const hooks = keys(mount.hooks).map((key) => {
    const hook = mount.hooks[key];
    return { key, events: isHookDefinition(hook) ? keys(hook.events) : null };
  });
  return {
    t: 'mounted',
    namespace,
    hooks,
    disabled: [...mount.disabled],
    instructions: typeof mount.instructions === 'string' ? mount.instructions : null,
    secretNames: [...mount.secretNames],
    egressDomains: [...mount.egressDomains],
  };
}

function kindOf(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function (the factory itself? call it with the options)';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What an import that never settled resolves to. */
const GAVE_UP = Symbol('gave up');

