// @ts-check
// How the project's modules are loaded, for the hook host (host.mjs) and the test runner's
// processes (test-setup.mjs) alike, so a test loads a hook exactly as `run` does.
//
// The binary compiles every TypeScript module the entries reach and resolves every import
// (see loader.mjs for the MANIFEST). ES modules are served by the module hooks of
// module-hooks.mjs: registered in this thread with module.registerHooks() where Node has it
// (≥ 22.15, ≥ 23.5), else on Node's loader thread with module.register() (loader.mjs);
// AGENT_SDK_MODULE_HOOKS=worker asks for the loader thread on any Node. CommonJS goes through
// Node's own CommonJS loader either way, with ModuleLoader._extensions serving compiled
// `.ts`/`.cts` and ModuleLoader._resolveFilename answering the specifiers the binary resolved
// (tsconfig paths, the SDK); in-thread module hooks leave require() to them. Every module
// keeps its source path: import.meta.url, __dirname and the nearest package.json are the
// source's.

import { builtin } from './builtin.mjs';

/** @type {typeof import('node:module')} */
const Module = builtin('node:module');

/**
 * Node's module loader with what this file hooks and @types/node does not declare: the
 * CommonJS loader's `_extensions` and `_resolveFilename`, and `registerHooks` (Node ≥ 22.15).
 * @type {typeof Module & { _extensions: Record<string, Function>, _resolveFilename: Function, registerHooks?: Function }}
 */
const ModuleLoader = /** @type {any} */ (Module);

import { compiledCode, currentManifest, load, resolve, useManifest } from './module-hooks.mjs';
import { answeredBefore, askBinary, askThrough } from './on-demand.mjs';

/**
 * Registers the module hooks and the CommonJS hooks, once per process, asking the binary
 * for modules no string literal imports over `moduleChannel` (`{ requests, answers }`, the
 * fds of the hook host's module channel), or, without one, with `agent-sdk __load-module`
 * (see on-demand.mjs). Returns `installManifest(next)`, which hands the module hooks the
 * manifest and resolves once they have it (at once in this thread; after a round trip to
 * the loader thread).
 */
/**
 * @param {{ requests: number, answers: number } | null} [moduleChannel]
 * @returns {(next: import('./protocol.js').Manifest) => Promise<void>}
 */
export function serveProjectModules(moduleChannel = null) {
  // One lock for every thread that asks (this one and the loader thread): one request at
  // a time on the channel.
  const channel = moduleChannel && { ...moduleChannel, lock: new Int32Array(new SharedArrayBuffer(4)) };
  askThrough(channel);
  const postToLoaderThread = registerModuleHooks(channel);
  for (const extension of ['.ts', '.cts', '.mts']) ModuleLoader._extensions[extension] = compileCommonJs;
  const resolveFilename = ModuleLoader._resolveFilename;
  ModuleLoader._resolveFilename = function resolveWithManifest(request, parent, isMain, options) {
    const manifest = currentManifest();
    const sdk = manifest.sdk[request];
    if (sdk) return sdk.require;
    const target = parent?.filename ? manifest.resolutions[parent.filename]?.[request] : undefined;
    if (target !== undefined) return target;
    const known = parent?.filename ? answeredBefore(manifest, parent.filename, request, true) : undefined;
    if (known !== undefined) return known;
    try {
      return resolveFilename.call(this, request, parent, isMain, options);
    } catch (error) {
      // A computed `require(name)` in one of the project's modules: resolve it as `run`
      // does (tsconfig paths, `.js` written for `.ts`) before giving up.
      if (!parent?.filename || !manifest.modules[parent.filename]) throw error;
      const found = askBinary(manifest, parent.filename, request, true);
      if (found === null) throw error;
      return found;
    }
  };
  return function installManifest(next) {
    if (next) useManifest(next);
    return postToLoaderThread === null ? Promise.resolve() : postToLoaderThread(currentManifest());
  };
}

/** Where the module hooks run, for a hook (or a test) to read: "in-thread" or "worker". */
const WHERE_MODULE_HOOKS_RUN = Symbol.for('agent-sdk.module-hooks');

/** Whether serveProjectModules registered the module hooks in this thread (not on the loader thread). */
export function moduleHooksInThread() {
  return globalThis[WHERE_MODULE_HOOKS_RUN] === 'in-thread';
}

/**
 * Registers module-hooks.mjs: in this thread where Node can (returns null), else on the
 * loader thread, whose boot goes on while the caller does (returns how to post it a
 * manifest and wait until it has it). The loader thread asks the binary through `channel`.
 */
function registerModuleHooks(channel) {
  const { registerHooks } = ModuleLoader;
  const inThread = typeof registerHooks === 'function' && process.env.AGENT_SDK_MODULE_HOOKS !== 'worker';
  Object.defineProperty(globalThis, WHERE_MODULE_HOOKS_RUN, { value: inThread ? 'in-thread' : 'worker' });
  if (inThread) {
    // require() reaches these hooks too (with the "require" condition): it is left to the
    // CommonJS hooks below, as on the loader thread, which never sees it.
    const forImports = (hook) => (first, context, next) =>
      context.conditions?.includes('require') ? next(first, context) : hook(first, context, next);
    registerHooks.call(Module, { resolve: forImports(resolve), load: forImports(load) });
    return null;
  }
  // The global MessageChannel: importing node:worker_threads for it costs start-up time.
  const loaderPort = new MessageChannel();
  withoutRegisterDeprecation(() =>
    Module.register('./loader.mjs', import.meta.url, {
      data: { port: loaderPort.port2, channel },
      transferList: [loaderPort.port2],
    }),
  );
  loaderPort.port1.unref();
  return (manifest) =>
    new Promise((done) => {
      loaderPort.port1.once('message', done);
      loaderPort.port1.postMessage(manifest);
    });
}

/**
 * Runs `register` with Node 26's `[DEP0205] module.register() is deprecated` kept from the
 * user: the loader thread is chosen only where in-thread hooks are missing or unwanted.
 * Every other warning goes out as it would.
 */
function withoutRegisterDeprecation(register) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function emitAllButRegisterDeprecation(warning, ...rest) {
    const code = typeof rest[0] === 'object' && rest[0] !== null ? rest[0].code : rest[1];
    if (code === 'DEP0205') return undefined;
    return emitWarning.call(this, warning, ...rest);
  };
  try {
    register();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Runs a compiled CommonJS module (`.ts`, `.cts`) from its source path. */
function compileCommonJs(module, filename) {
  const manifest = currentManifest();
  if (!manifest.modules[filename]) askBinary(manifest, null, filename, true);
  const entry = manifest.modules[filename];
  if (entry?.format === 'module') {
    const error = new Error(`require() of ES Module ${filename} not supported (it is an ES module: import it)`);
    /** @type {NodeJS.ErrnoException} */ (error).code = 'ERR_REQUIRE_ESM';
    throw error;
  }
  if (!entry?.code) throw new Error(`agent-sdk could not compile ${filename}`);
  module._compile(compiledCode(filename), filename);
}
