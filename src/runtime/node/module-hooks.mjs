// @ts-check
// The module hooks: how the project's ES modules are resolved and loaded, from the
// MANIFEST of what the binary compiled and resolved (the shape is described in loader.mjs).
// One implementation, registered one of two ways by project-modules.mjs:
//   - in the main thread with module.registerHooks() where Node has it (≥ 22.15, ≥ 23.5):
//     the hooks then run synchronously, as part of each import;
//   - on Node's loader thread with module.register() elsewhere (loader.mjs imports this
//     module there), or when AGENT_SDK_MODULE_HOOKS=worker asks for it.
// Both hooks are synchronous apart from the `next…` step they may defer to (a promise on the
// loader thread), so they behave the same either way.
//
// resolve: a specifier the binary resolved for its importer (tsconfig paths, `.js` written
//   for `.ts`, `#imports`, extensionless TypeScript imports) → that file; the file URL of a
//   module the binary compiled (a TypeScript hook, as the host imports it) → that file; an SDK module →
//   the runtime's copy; anything else → Node's own resolution.
// load: a compiled module (format "module") → its compiled code; TypeScript compiled to
//   CommonJS → a small ES module that require()s it, so Node's own CommonJS loader runs it
//   (project-modules.mjs compiles `.ts`/`.cts` there through Module._extensions, keeping
//   __dirname, require and one module instance whether it is imported or required),
//   exporting module.exports as default and the names its `export`s define, as Node's
//   CommonJS export detection finds them in tsc's output;
//   a `.json` file imported without `with { type: "json" }` (TypeScript's
//   resolveJsonModule) → a module whose default export is the JSON; anything else → Node.
//
// A module no string literal imports (`import(name)` of a computed name) is not in the
// manifest: the binary is asked for it (on-demand.mjs). So is a module whose compiled code
// is gone from the cache (another agent-sdk sharing it pruned it): a missing entry is a miss.

import { builtin } from './builtin.mjs';
import { answeredBefore, askBinary, compileAgain } from './on-demand.mjs';
import { remember } from './stack-maps.mjs';

/** @type {typeof import('node:fs')} */
const { readFileSync } = builtin('node:fs');
/** @type {typeof import('node:url')} */
const { fileURLToPath, pathToFileURL } = builtin('node:url');

/** @type {import('./protocol.js').Manifest} */
let manifest = { modules: {}, resolutions: {}, sdk: {} };

/** The manifest the hooks decide from (the answers of on-demand requests merge into it). */
export function currentManifest() {
  return manifest;
}

/**
 * Replaces the manifest (an "init"'s, or the test runner's).
 * @param {import('./protocol.js').Manifest} next
 */
export function useManifest(next) {
  manifest = next;
}

/**
 * The compiled code of the module at `path` (which the manifest has compiled), compiled
 * again when it is gone from the cache.
 */
export function compiledCode(path) {
  const code = readCompiled(path);
  remember(path, code);
  return code;
}

function readCompiled(path) {
  try {
    return readFileSync(/** @type {string} */ (manifest.modules[path].code), 'utf8');
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error)?.code !== 'ENOENT') throw error;
    compileAgain(manifest, path);
    return readFileSync(/** @type {string} */ (manifest.modules[path].code), 'utf8');
  }
}

function pathOf(url) {
  return typeof url === 'string' && url.startsWith('file:') ? fileURLToPath(url) : null;
}

/** The resolve result for a file the manifest serves, with its format when it knows it. */
function served(target, format = manifest.modules[target]?.format) {
  return {
    url: pathToFileURL(target).href,
    format: format === 'module' || format === 'commonjs' ? format : undefined,
    shortCircuit: true,
  };
}

/** `attempt()`, or `fallback(error)` when it throws or its promise rejects. */
function orElse(attempt, fallback) {
  let result;
  try {
    result = attempt();
  } catch (error) {
    return fallback(error);
  }
  return typeof result?.then === 'function' ? result.then(undefined, fallback) : result;
}

/** A file URL without a query or a fragment. */
const OWN_URL = /^file:[^?#]*$/;

export function resolve(specifier, context, nextResolve) {
  const sdk = manifest.sdk[specifier];
  if (sdk) return served(sdk.import, 'module');
  // A hook's own URL, as the host imports it: the binary compiled that file, so it is there
  // (Node's own resolution would look again, and take longer than the import of the hook).
  // One the binary did not compile (plain JavaScript) is Node's to resolve, and to tell
  // its format; one with a query or a fragment is another module instance.
  const own = OWN_URL.test(specifier) ? pathOf(specifier) : null;
  if (own !== null && manifest.modules[own]?.code) return served(own);
  const parent = pathOf(context.parentURL);
  const target = parent === null ? undefined : manifest.resolutions[parent]?.[specifier];
  if (target !== undefined) return served(target);
  if (parent === null || !manifest.modules[parent]) return nextResolve(specifier, context);
  // `import(name)` of a computed name in one of the project's modules: resolved as `run`
  // does (tsconfig paths, `.js` written for `.ts`) when Node cannot.
  const known = answeredBefore(manifest, parent, specifier, false);
  if (known !== undefined) return served(known);
  return orElse(
    () => nextResolve(specifier, context),
    (error) => {
      const found = askBinary(manifest, parent, specifier, false);
      if (found === null) throw error;
      return served(found);
    },
  );
}

const TYPESCRIPT = /\.[cm]?ts$/;

/** An ES module standing for the CommonJS module at `path`: what `import` of it gives. */
function commonJsFacade(path, names) {
  const lines = [
    "import { createRequire } from 'node:module';",
    `const exported = createRequire(${JSON.stringify(pathToFileURL(path).href)})(${JSON.stringify(path)});`,
    'export default exported;',
  ];
  names.forEach((name, index) => {
    lines.push(`const named${index} = exported[${JSON.stringify(name)}];`);
    lines.push(`export { named${index} as ${JSON.stringify(name)} };`);
  });
  return `${lines.join('\n')}\n`;
}

export function load(url, context, nextLoad) {
  const path = pathOf(url);
  if (path === null) return nextLoad(url, context);
  let module = manifest.modules[path];
  if (!module && TYPESCRIPT.test(path)) {
    askBinary(manifest, null, path, false);
    module = manifest.modules[path];
    if (!module) throw new Error(`agent-sdk could not compile ${path}`);
  }
  if (module?.format === 'commonjs' && module.code) {
    return { format: 'module', source: commonJsFacade(path, module.exports ?? []), shortCircuit: true };
  }
  if (module?.code) {
    return { format: 'module', source: compiledCode(path), shortCircuit: true };
  }
  if (path.endsWith('.json') && context.importAttributes?.type !== 'json') {
    const text = readFileSync(path, 'utf8');
    JSON.parse(text.replace(/^\uFEFF/, '')); // a broken file fails here, with the parser's message (a BOM is not JSON, Node drops it)
    return { format: 'module', source: `export default ${text};\n`, shortCircuit: true };
  }
  return nextLoad(url, context);
}
