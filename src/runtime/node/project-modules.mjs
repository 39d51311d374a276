// How the project's modules are loaded, for the hook host (host.mjs) and the test runner's
// processes (test-setup.mjs) alike, so a test loads a hook exactly as `run` does.
//
// The binary compiles every TypeScript module the entries reach and resolves every import
// (see loader.mjs for the MANIFEST). ES modules are served by loader.mjs, registered with
// module.register(); CommonJS goes through Node's own CommonJS loader, with
// Module._extensions serving compiled `.ts`/`.cts` and Module._resolveFilename answering
// the specifiers the binary resolved (tsconfig paths, the SDK). Every module keeps its
// source path: import.meta.url, __dirname and the nearest package.json are the source's.

import { readFileSync } from 'node:fs';
import Module, { createRequire, register } from 'node:module';

import { applyAnswer, loadModuleArgs } from './on-demand.mjs';

/** What the binary compiled and resolved (see loader.mjs); replaced by installManifest. */
let manifest = { modules: {}, resolutions: {}, sdk: {} };

/**
 * Registers loader.mjs (its thread boots while the caller goes on) and the CommonJS hooks,
 * once per process. Returns `installManifest(next)`, which hands the loader thread the
 * manifest and resolves once it has it.
 */
export function serveProjectModules() {
  // The global MessageChannel: importing node:worker_threads for it costs start-up time.
  const loaderPort = new MessageChannel();
  register('./loader.mjs', import.meta.url, {
    data: { port: loaderPort.port2 },
    transferList: [loaderPort.port2],
  });
  loaderPort.port1.unref();
  for (const extension of ['.ts', '.cts', '.mts']) Module._extensions[extension] = compileCommonJs;
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function resolveWithManifest(request, parent, isMain, options) {
    const sdk = manifest.sdk[request];
    if (sdk) return sdk.require;
    const target = parent?.filename ? manifest.resolutions[parent.filename]?.[request] : undefined;
    if (target !== undefined) return target;
    try {
      return resolveFilename.call(this, request, parent, isMain, options);
    } catch (error) {
      // A computed `require(name)` in one of the project's modules: resolve it as `run`
      // does (tsconfig paths, `.js` written for `.ts`) before giving up.
      if (!parent?.filename || !manifest.modules[parent.filename]) throw error;
      const found = loadOnDemand(parent.filename, request);
      if (found === null) throw error;
      return found;
    }
  };
  return function installManifest(next) {
    manifest = next ?? manifest;
    return new Promise((resolve) => {
      loaderPort.port1.once('message', resolve);
      loaderPort.port1.postMessage(manifest);
    });
  };
}

/**
 * Asks the binary for a module no string literal imports (`import(name)` of a computed
 * name): it compiles what that reaches and answers its manifest, merged into ours.
 * `from` is the file that `require`s it, or null when `specifier` is a file path. Returns the
 * target path, or null when the binary has nothing to add; throws what `validate` would say.
 */
function loadOnDemand(from, specifier) {
  // Loaded here, not at start-up: most runs never need it, and every start-up pays for it.
  const { execFileSync } = createRequire(import.meta.url)('node:child_process');
  const args = loadModuleArgs(from, specifier, true);
  return applyAnswer(manifest, execFileSync(process.env.AGENT_SDK_EXE, args, { encoding: 'utf8' }));
}

/** Runs a compiled CommonJS module (`.ts`, `.cts`) from its source path. */
function compileCommonJs(module, filename) {
  if (!manifest.modules[filename]) loadOnDemand(null, filename);
  const entry = manifest.modules[filename];
  if (entry?.format === 'module') {
    const error = new Error(`require() of ES Module ${filename} not supported (it is an ES module: import it)`);
    error.code = 'ERR_REQUIRE_ESM';
    throw error;
  }
  if (!entry?.code) throw new Error(`agent-sdk could not compile ${filename}`);
  module._compile(readFileSync(entry.code, 'utf8'), filename);
}
