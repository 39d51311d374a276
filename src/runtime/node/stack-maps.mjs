// @ts-check
// Stack traces that name the TypeScript. A frame in a module the binary compiled is mapped
// to its source line through the module's inline source map, decoded the first time a
// stack through that module is formatted (an error's `stack` read), never at import. Node's
// --enable-source-maps maps the same frames but reads every module's map as it loads it,
// which cost about 4 ms of each run's start on Node 24.
//
// The frames read as Node's default prints them (what V8's CallSite says, joined under the
// error's `Error.prototype.toString`), with a mapped frame's position replaced by its
// source's path, line and column, as --enable-source-maps writes them. A hook that sets its
// own Error.prepareStackTrace takes over, as it would from Node's.
//
// Used by the hook host where the module hooks run in its own thread (module.registerHooks):
// there it sees each compiled module's code (`remember`). Where they run on Node's loader
// thread, the code never reaches this thread, and the host turns on Node's own source maps
// instead (process.setSourceMapsEnabled), before any hook loads.

import { builtin } from './builtin.mjs';

// Taken before any hook loads.
const errorToString = Error.prototype.toString;
const { parse } = JSON;
const bufferFrom = Buffer.from.bind(Buffer);

/** The compiled code of each module, by path, while remembering is on (null: off). */
let codes = null;
/** Each module's decoded map (null: it has none), once a stack went through it. */
const maps = new Map();

/** Whether this thread maps stacks (`mapStacks()` was called). */
export function mapsStacks() {
  return codes !== null;
}

/**
 * Keeps the compiled code of the module at `path` (the string Node compiles, so nothing
 * more is held), for a stack through it to be mapped later. A no-op until `mapStacks()`.
 */
export function remember(path, code) {
  if (codes === null) return;
  codes.set(path, code);
  maps.delete(path);
}

/** Formats every stack from now on, mapping the frames of the modules remembered. */
export function mapStacks() {
  codes ??= new Map();
  Error.prepareStackTrace = prepareStackTrace;
}

const INLINE_MAP = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';

/** The decoded source map of the module at `path` (a path, or a file URL), or null. */
function mapOf(fileName) {
  const path = fileName.startsWith('file://') ? builtin('node:url').fileURLToPath(fileName) : fileName;
  if (maps.has(path)) return maps.get(path);
  let map = null;
  const code = codes?.get(path);
  const at = code === undefined ? -1 : code.lastIndexOf(INLINE_MAP);
  if (code !== undefined && at !== -1) {
    try {
      const end = code.indexOf('\n', at);
      const base64 = code.slice(at + INLINE_MAP.length, end === -1 ? undefined : end).trim();
      const { SourceMap } = builtin('node:module');
      map = new SourceMap(parse(bufferFrom(base64, 'base64').toString('utf8')));
    } catch {
      map = null;
    }
  }
  maps.set(path, map);
  return map;
}

/** A source of a map as Node prints it: a file URL as its path. */
function printable(source) {
  return source.startsWith('file://') ? builtin('node:url').fileURLToPath(source) : source;
}

/** One frame as V8 writes it, its position mapped when its module has a map. */
function frame(callSite) {
  const text = `${callSite}`;
  const fileName = callSite.getFileName();
  const line = callSite.getLineNumber();
  const column = callSite.getColumnNumber();
  if (typeof fileName !== 'string' || line === null || column === null) return text;
  const map = mapOf(fileName);
  if (map === null) return text;
  const { originalSource, originalLine, originalColumn } = map.findEntry(line - 1, column - 1);
  if (typeof originalSource !== 'string' || originalLine === undefined || originalColumn === undefined) return text;
  const position = `${fileName}:${line}:${column}`;
  const at = text.lastIndexOf(position);
  if (at === -1) return text;
  const mapped = `${printable(originalSource)}:${originalLine + 1}:${originalColumn + 1}`;
  return `${text.slice(0, at)}${mapped}${text.slice(at + position.length)}`;
}

/**
 * The error's first line as Node writes it: `Error.prototype.toString`, or for one of
 * Node's own errors (`code` ERR_…, its class's own toString) `TypeError [ERR_…]: …`.
 */
function heading(error) {
  try {
    const own = error?.toString;
    const nodes = typeof error?.code === 'string' && error.code.startsWith('ERR_') && typeof own === 'function' && own !== errorToString;
    return nodes ? String(own.call(error)) : errorToString.call(error);
  } catch {
    return '<error>';
  }
}

/** @param {Error} error @param {NodeJS.CallSite[]} callSites */
function prepareStackTrace(error, callSites) {
  const first = heading(error);
  if (callSites.length === 0) return first;
  const frames = callSites.map((callSite) => {
    try {
      return frame(callSite);
    } catch {
      return `${callSite}`;
    }
  });
  return `${first}\n    at ${frames.join('\n    at ')}`;
}
