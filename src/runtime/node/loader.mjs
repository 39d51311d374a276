// agent-sdk's loader for ES modules, registered by host.mjs with module.register(): it
// runs on Node's loader thread and serves the modules the binary compiled, from their own
// source URLs, so import.meta.url, relative files and the project's package.json all
// behave as they do for the source.
//
// The binary decides everything ahead of time and host.mjs posts it here as the
// MANIFEST (one object, the same one host.mjs uses for require()):
//   { "modules":     { "<abs path>": { "format": "module"|"commonjs"|"json"|"other", "code": "<abs path>"|null,
//                                       "exports": ["<named export of TypeScript compiled to CommonJS>", …] } },
//     "resolutions": { "<abs importer path>": { "<specifier>": "<abs path>" } },
//     "sdk":         { "<SDK specifier>": { "import": "<abs path>", "require": "<abs path>" } } }
// and this thread answers {"t":"manifest-ready"} on the same port once it has it.
//
// resolve: a specifier the binary resolved for its importer (tsconfig paths, `.js` written
//   for `.ts`, `#imports`, extensionless TypeScript imports) → that file; an SDK module →
//   the runtime's copy; anything else → Node's own resolution.
// load: a compiled module (format "module") → its compiled code; TypeScript compiled to
//   CommonJS → a small ES module that require()s it, so Node's own CommonJS loader runs it
//   (host.mjs compiles `.ts`/`.cts` there through Module._extensions, keeping __dirname,
//   require and one module instance whether it is imported or required), exporting
//   module.exports as default and the names its `export`s define, as Node's CommonJS export
//   detection finds them in tsc's output;
//   a `.json` file imported without `with { type: "json" }` (TypeScript's
//   resolveJsonModule) → a module whose default export is the JSON; anything else → Node.
//
// A module no string literal imports (`import(name)` of a computed name) is not in the
// manifest: the binary is asked for it (`agent-sdk __load-module`, which compiles what
// it reaches into the same cache and answers its manifest, or what validate would say).

import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { applyAnswer, loadModuleArgs } from './on-demand.mjs';

let manifest = { modules: {}, resolutions: {}, sdk: {} };

export async function initialize({ port }) {
  port.on('message', (message) => {
    manifest = message;
    port.postMessage({ t: 'manifest-ready' });
  });
  port.unref();
}

function pathOf(url) {
  return typeof url === 'string' && url.startsWith('file:') ? fileURLToPath(url) : null;
}

/**
 * Asks the binary for a module no string literal imports (see loadOnDemand in host.mjs):
 * merges its manifest into ours and returns the target path (null: nothing to add).
 */
async function loadOnDemand(from, specifier) {
  // Loaded here, not at start-up: most runs never need it, and every start-up pays for it.
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const args = loadModuleArgs(from, specifier, false);
  const { stdout } = await promisify(execFile)(process.env.AGENT_SDK_EXE, args, { encoding: 'utf8' });
  return applyAnswer(manifest, stdout);
}

export async function resolve(specifier, context, nextResolve) {
  const sdk = manifest.sdk[specifier];
  if (sdk) return { url: pathToFileURL(sdk.import).href, format: 'module', shortCircuit: true };
  const parent = pathOf(context.parentURL);
  let target = parent === null ? undefined : manifest.resolutions[parent]?.[specifier];
  if (target === undefined) {
    try {
      return await nextResolve(specifier, context);
    } catch (error) {
      // `import(name)` of a computed name in one of the project's modules: resolve it as
      // `run` does (tsconfig paths, `.js` written for `.ts`) before giving up.
      if (parent === null || !manifest.modules[parent]) throw error;
      target = (await loadOnDemand(parent, specifier)) ?? undefined;
      if (target === undefined) throw error;
    }
  }
  const format = manifest.modules[target]?.format;
  return {
    url: pathToFileURL(target).href,
    format: format === 'module' || format === 'commonjs' ? format : undefined,
    shortCircuit: true,
  };
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

export async function load(url, context, nextLoad) {
  const path = pathOf(url);
  if (path === null) return nextLoad(url, context);
  const module = manifest.modules[path];
  if (module?.format === 'commonjs' && module.code) {
    return { format: 'module', source: commonJsFacade(path, module.exports ?? []), shortCircuit: true };
  }
  if (module?.code) {
    return { format: 'module', source: await readFile(module.code, 'utf8'), shortCircuit: true };
  }
  if (!module && TYPESCRIPT.test(path)) {
    await loadOnDemand(null, path);
    if (!manifest.modules[path]) throw new Error(`agent-sdk could not compile ${path}`);
    return load(url, context, nextLoad);
  }
  if (path.endsWith('.json') && context.importAttributes?.type !== 'json') {
    const text = await readFile(path, 'utf8');
    JSON.parse(text.replace(/^\uFEFF/, '')); // a broken file fails here, with the parser's message (a BOM is not JSON, Node drops it)
    return { format: 'module', source: `export default ${text};\n`, shortCircuit: true };
  }
  return nextLoad(url, context);
}
