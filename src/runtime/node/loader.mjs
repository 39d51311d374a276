// Module resolution for hooks running in the agent-sdk host (registered by host.mjs).
//
// The Rust binary compiles every module of the project into a compiled tree that
// mirrors it (`<project>/bot/lib/fmt.ts` → `<compiled>/bot/lib/fmt.js`) but leaves
// import specifiers as written. This hook makes those imports behave as they would
// in the source tree:
//
// - the SDK's module names answer with the runtime's own SDK files (no npm install);
// - a relative specifier from a compiled file is resolved against the SOURCE tree,
//   the way TypeScript would ("../lib/fmt", "../lib/fmt.js" meaning fmt.ts, "../lib"
//   meaning lib/index.ts), and answered with the matching compiled file;
// - any other specifier from a compiled file is resolved as if imported from its
//   source file, so the project's own node_modules is found.

import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The SDK's packages and the runtime file answering each of their modules. */
const SDK_PACKAGES = ['@cursor/bdk', '@grok/agent-sdk', '@cursor/july'];
const SDK_MODULES = new Map(
  SDK_PACKAGES.flatMap((name) => [
    [name, new URL('./sdk/index.mjs', import.meta.url).href],
    [`${name}/hooks`, new URL('./sdk/hooks.mjs', import.meta.url).href],
    [`${name}/memory`, new URL('./sdk/memory.mjs', import.meta.url).href],
  ]),
);

/** The extension each module extension is compiled to. */
const COMPILED_EXTENSION = {
  '.ts': '.js',
  '.mts': '.mjs',
  '.cts': '.cjs',
  '.js': '.js',
  '.mjs': '.mjs',
  '.cjs': '.cjs',
};

/** What an extensionless specifier may mean, in the order tried. */
const PROBED_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.cts', '.cjs'];

/** The TypeScript source a JavaScript extension in a specifier may stand for (`./x.js` for `x.ts`). */
const TYPESCRIPT_FOR = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts' };

/** The source extensions a compiled file may come from, preferring TypeScript. */
const SOURCE_EXTENSIONS_OF = { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'], '.cjs': ['.cts', '.cjs'] };

let projectRoot;
let compiledRoot;

/** Receives `{ projectRoot, compiledRoot }` from `module.register(…, { data })`. */
export function initialize(data) {
  // Node hands modules their real path (symlinks resolved), so compare against real roots.
  projectRoot = realpathSync(data.projectRoot);
  compiledRoot = realpathSync(data.compiledRoot);
}

export async function resolve(specifier, context, nextResolve) {
  const sdkModule = SDK_MODULES.get(specifier);
  if (sdkModule) return { url: sdkModule, shortCircuit: true };

  const importer = compiledImporter(context.parentURL);
  if (!importer) return nextResolve(specifier, context);

  if (isRelative(specifier)) {
    const url = resolveRelative(specifier, importer.source);
    if (url) return { url, shortCircuit: true };
    const error = new Error(
      `Cannot find module "${specifier}" imported from ${toProjectPath(importer.source)}`,
    );
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, { ...context, parentURL: pathToFileURL(importer.source).href });
}

/** The source file behind a compiled importer, or undefined when the importer is not compiled. */
function compiledImporter(parentURL) {
  if (!parentURL?.startsWith('file:')) return undefined;
  const compiled = fileURLToPath(parentURL);
  const relative = insideOf(compiledRoot, compiled);
  if (relative === undefined) return undefined;
  return { source: sourceOf(path.join(projectRoot, relative)) };
}

/** The source file compiled to `mirrored` (the compiled path placed under the project root). */
function sourceOf(mirrored) {
  const extension = path.extname(mirrored);
  const stem = mirrored.slice(0, mirrored.length - extension.length);
  const candidates = (SOURCE_EXTENSIONS_OF[extension] ?? []).map((source) => stem + source);
  // Without a match the mirrored path still names the right folder, which is all resolution needs.
  return candidates.find(isFile) ?? mirrored;
}

/** The URL answering a relative `specifier` from the source file `importer`, if it exists. */
function resolveRelative(specifier, importer) {
  const target = fileURLToPath(new URL(specifier, pathToFileURL(importer)));
  const source = sourceCandidates(target).find(isFile);
  if (!source) return undefined;
  const relative = insideOf(projectRoot, source);
  const compiledExtension = COMPILED_EXTENSION[path.extname(source)];
  if (relative !== undefined && compiledExtension) {
    const stem = relative.slice(0, relative.length - path.extname(relative).length);
    const compiled = path.join(compiledRoot, stem + compiledExtension);
    // Not every module is compiled (node_modules, dot-folders); those load from the source.
    if (isFile(compiled)) return pathToFileURL(compiled).href;
  }
  // Not a module the binary compiles (a .json file, a file outside the project): load it as is.
  return pathToFileURL(source).href;
}

/** The files a specifier resolved to `target` may mean, in the order tried: as written first. */
function sourceCandidates(target) {
  const typescript = TYPESCRIPT_FOR[path.extname(target)];
  return [
    target,
    ...(typescript ? [target.slice(0, -path.extname(target).length) + typescript] : []),
    ...PROBED_EXTENSIONS.map((extension) => target + extension),
    ...PROBED_EXTENSIONS.map((extension) => path.join(target, `index${extension}`)),
  ];
}

function isRelative(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..';
}

function isFile(file) {
  return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** `file` relative to `root`, or undefined when it is not inside it. */
function insideOf(root, file) {
  const relative = path.relative(root, file);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return relative === '' || outside ? undefined : relative;
}

/** How the user knows `file`: relative to the project root with `/`, else absolute. */
function toProjectPath(file) {
  const relative = insideOf(projectRoot, file);
  return relative === undefined ? file : relative.split(path.sep).join('/');
}
