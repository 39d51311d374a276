// Generated from host.mjs and its imports by esbuild: do not edit. UPDATE_RUNTIME_BUNDLE=1 cargo test --test it -- types::the_runtime_bundle writes it.
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJS = (cb, mod) => function __require() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// sdk/context.cjs
var require_context = __commonJS({
  "sdk/context.cjs"(exports, module) {
    "use strict";
    var { freeze: freeze2, isFrozen, getOwnPropertyDescriptor } = Object;
    var { ownKeys } = Reflect;
    var { stringify: stringify3 } = JSON;
    var captureStack2 = Error.captureStackTrace;
    function buildContext2({ session, agent, channel: channel2, stateRoot }, { call: call2, otel, turnId, artifacts = {} }) {
      return deepFreeze({
        session,
        agent,
        channel: channel2,
        stateRoot,
        artifacts: Object.assign(artifacts, {
          tag: (name, value) => call2("artifacts.tag", [name, value, turnId()])
        }),
        host: {
          kv: {
            get: (key) => call2("kv.get", [key]),
            set: (key, value) => call2("kv.set", [key, value]),
            delete: (key) => call2("kv.delete", [key]),
            list: (prefix) => call2("kv.list", [prefix ?? null])
          },
          files: {
            write: (path, data, opts) => call2("files.write", [path, fileText(data), scopeOf(opts)]),
            append: (path, data, opts) => call2("files.append", [path, fileText(data), scopeOf(opts)]),
            read: (path, opts) => call2("files.read", [path, scopeOf(opts)]),
            list: (opts) => call2("files.list", [scopeOf(opts)])
          },
          reminders: {
            set: (at, note) => call2("reminders.set", [at, note]),
            list: () => call2("reminders.list", [])
          },
          otel,
          mcp: unavailable("mcp"),
          github: unavailable("github"),
          slack: unavailable("slack")
        }
      });
    }
    function otelMeter2(record) {
      return {
        increment(name, valueOrAttrs, attrs) {
          if (typeof valueOrAttrs === "number") record("counter", name, valueOrAttrs, attrs ?? {});
          else record("counter", name, 1, valueOrAttrs ?? attrs ?? {});
        },
        histogram(name, value, attrs) {
          record("histogram", name, value, attrs ?? {});
        },
        tag(key, value) {
          record("tag", key, value, {});
        }
      };
    }
    function scopeOf(opts) {
      return opts?.scope ?? "session";
    }
    function fileText(data) {
      if (typeof data === "string") return data;
      if (data instanceof Uint8Array) return new TextDecoder().decode(data);
      return stringify3(data);
    }
    var PROBED_KEYS = /* @__PURE__ */ new Set(["then", "toJSON"]);
    function unavailable(member) {
      const fail = (trap) => {
        const error = new Error(`ctx.host.${member} is not available in a local run`);
        captureStack2(error, trap);
        throw error;
      };
      const traps = {
        get(_target, key) {
          return typeof key === "symbol" || PROBED_KEYS.has(key) ? void 0 : fail(traps.get);
        },
        apply() {
          fail(traps.apply);
        },
        construct() {
          return fail(traps.construct);
        }
      };
      return new Proxy(freeze2(function unavailableMember() {
      }), traps);
    }
    function deepFreeze(value) {
      const isObject = typeof value === "object" && value !== null || typeof value === "function";
      if (!isObject || isFrozen(value)) return value;
      freeze2(value);
      const own = ownKeys(value);
      for (let index = 0; index < own.length; index++) {
        deepFreeze(
          /** @type {PropertyDescriptor} */
          getOwnPropertyDescriptor(value, own[index]).value
        );
      }
      return value;
    }
    module.exports = { buildContext: buildContext2, otelMeter: otelMeter2, deepFreeze };
  }
});

// sdk/extensions.cjs
var require_extensions = __commonJS({
  "sdk/extensions.cjs"(exports, module) {
    "use strict";
    var MOUNT = /* @__PURE__ */ Symbol.for("agent-sdk.mount");
    var { freeze: freeze2, create, assign } = Object;
    function defineExtension(factory) {
      if (typeof factory !== "function") {
        throw new TypeError("defineExtension() expects a function of the options that returns { hooks: { \u2026 } }");
      }
      return function mountExtension(options) {
        const spec = factory(options);
        if (typeof spec !== "object" || spec === null) {
          throw new TypeError(`the extension's factory returned ${describe2(spec)}, not { hooks: { \u2026 } }`);
        }
        return mountOf(spec, []);
      };
    }
    function mountOf(spec, disabled) {
      const hooks2 = spec.hooks;
      if (typeof hooks2 !== "object" || hooks2 === null) {
        throw new TypeError(`the extension's \`hooks\` is ${describe2(hooks2)}, not an object of defineHook() results`);
      }
      const mount = {
        hooks: freeze2(assign(create(null), hooks2)),
        instructions: typeof spec.instructions === "string" ? spec.instructions : void 0,
        secretNames: freeze2(strings(spec.secretNames)),
        egressDomains: freeze2(strings(spec.egressDomains)),
        disabled: freeze2([...disabled]),
        /** The same mount without the hooks named (their keys inside the extension). */
        disableHook(...names) {
          return mountOf(spec, [...disabled, ...names.map(String)]);
        },
        [MOUNT]: true
      };
      return freeze2(mount);
    }
    function disableHook(mount, ...names) {
      if (!isMount2(mount)) {
        throw new TypeError(`disableHook() expects a mount (an extension's call) first, not ${describe2(mount)}`);
      }
      return mount.disableHook(...names);
    }
    function isMount2(value) {
      return value?.[MOUNT] === true;
    }
    function strings(value) {
      return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
    }
    function describe2(value) {
      if (value === null) return "null";
      if (Array.isArray(value)) return "an array";
      return typeof value === "object" || typeof value === "function" ? `a ${typeof value}` : `${typeof value} ${String(value)}`;
    }
    module.exports = { defineExtension, disableHook, isMount: isMount2 };
  }
});

// sdk/hooks.cjs
var require_hooks = __commonJS({
  "sdk/hooks.cjs"(exports, module) {
    "use strict";
    var { disableHook } = require_extensions();
    var HOOK = /* @__PURE__ */ Symbol.for("agent-sdk.hook");
    function defineHook(definition) {
      const events = definition?.events;
      if (typeof events !== "object" || events === null) {
        throw new TypeError('defineHook() expects { events: { "<event type>": handler } }');
      }
      for (const [key, handler] of Object.entries(events)) {
        if (typeof handler !== "function") {
          throw new TypeError(`defineHook(): the handler for "${key}" is not a function`);
        }
      }
      return Object.freeze({
        ...definition,
        events: Object.freeze(Object.assign(/* @__PURE__ */ Object.create(null), events)),
        [HOOK]: true
      });
    }
    function isHookDefinition2(value) {
      return value?.[HOOK] === true;
    }
    module.exports = { defineHook, isHookDefinition: isHookDefinition2, disableHook };
  }
});

// builtin.mjs
var builtin = typeof process.getBuiltinModule === "function" ? process.getBuiltinModule.bind(process) : (await import("node:module")).createRequire(import.meta.url);

// on-demand.mjs
var { readSync, writeSync } = builtin("node:fs");
var { parse, stringify } = JSON;
var { compareExchange, notify, store, wait } = Atomics;
var bufferFrom = Buffer.from.bind(Buffer);
var bufferConcat = Buffer.concat.bind(Buffer);
var allocate = Buffer.allocUnsafe.bind(Buffer);
var channel = null;
function askThrough(next) {
  channel = next;
}
var answered = /* @__PURE__ */ new WeakMap();
function askBinary(manifest2, from, specifier, viaRequire) {
  let answers = answered.get(manifest2);
  if (answers === void 0) {
    answers = /* @__PURE__ */ new Map();
    answered.set(manifest2, answers);
  }
  const key = questionKey(from, specifier, viaRequire);
  if (answers.has(key)) return answers.get(key) ?? null;
  const target = ask(manifest2, { from, specifier, require: viaRequire });
  answers.set(key, target);
  return target;
}
function answeredBefore(manifest2, from, specifier, viaRequire) {
  return answered.get(manifest2)?.get(questionKey(from, specifier, viaRequire)) ?? void 0;
}
function questionKey(from, specifier, viaRequire) {
  return `${viaRequire ? "require" : "import"}
${from ?? ""}
${specifier}`;
}
function compileAgain(manifest2, path) {
  ask(manifest2, { from: null, specifier: path, require: false });
}
function ask(manifest2, request) {
  const answer = channel === null ? inAProcessOfItsOwn(request) : overTheChannel(channel, request);
  if ("error" in answer) {
    if (answer.error) throw new Error(answer.error);
    return null;
  }
  if (answer.manifest) {
    Object.assign(manifest2.modules, answer.manifest.modules);
    Object.assign(manifest2.resolutions, answer.manifest.resolutions);
  }
  return answer.target ?? null;
}
function overTheChannel({ requests, answers, lock }, request) {
  while (compareExchange(lock, 0, 0, 1) !== 0) wait(lock, 0, 1);
  try {
    writeAll(requests, bufferFrom(`${stringify(request)}
`));
    return parse(readLine(answers));
  } finally {
    store(lock, 0, 0);
    notify(lock, 0, 1);
  }
}
function writeAll(fd, bytes) {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
}
function readLine(fd) {
  const chunks = [];
  for (; ; ) {
    const chunk = allocate(64 * 1024);
    const read2 = readSync(fd, chunk, 0, chunk.length, null);
    if (read2 === 0) throw new Error("agent-sdk stopped answering module requests");
    chunks.push(chunk.subarray(0, read2));
    if (chunk[read2 - 1] === 10) return bufferConcat(chunks).toString("utf8");
  }
}
function inAProcessOfItsOwn({ from, specifier, require: viaRequire }) {
  const { execFileSync } = builtin("node:child_process");
  const args = ["__load-module", "--dir", String(process.env.AGENT_SDK_PROJECT_ROOT)];
  if (from) args.push("--from", from);
  if (from && viaRequire) args.push("--require");
  args.push("--", specifier);
  return parse(execFileSync(String(process.env.AGENT_SDK_EXE), args, { encoding: "utf8", maxBuffer: Infinity }));
}

// stack-maps.mjs
var errorToString = Error.prototype.toString;
var { parse: parse2 } = JSON;
var bufferFrom2 = Buffer.from.bind(Buffer);
var codes = null;
var maps = /* @__PURE__ */ new Map();
function remember(path, code) {
  if (codes === null) return;
  codes.set(path, code);
  maps.delete(path);
}
function mapStacks() {
  codes ??= /* @__PURE__ */ new Map();
  Error.prepareStackTrace = prepareStackTrace;
}
var INLINE_MAP = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,";
function mapOf(fileName) {
  const path = fileName.startsWith("file://") ? builtin("node:url").fileURLToPath(fileName) : fileName;
  if (maps.has(path)) return maps.get(path);
  let map = null;
  const code = codes?.get(path);
  const at = code === void 0 ? -1 : code.lastIndexOf(INLINE_MAP);
  if (code !== void 0 && at !== -1) {
    try {
      const end = code.indexOf("\n", at);
      const base64 = code.slice(at + INLINE_MAP.length, end === -1 ? void 0 : end).trim();
      const { SourceMap } = builtin("node:module");
      map = new SourceMap(parse2(bufferFrom2(base64, "base64").toString("utf8")));
    } catch {
      map = null;
    }
  }
  maps.set(path, map);
  return map;
}
function printable(source) {
  return source.startsWith("file://") ? builtin("node:url").fileURLToPath(source) : source;
}
function frame(callSite) {
  const text = `${callSite}`;
  const fileName = callSite.getFileName();
  const line = callSite.getLineNumber();
  const column = callSite.getColumnNumber();
  if (typeof fileName !== "string" || line === null || column === null) return text;
  const map = mapOf(fileName);
  if (map === null) return text;
  const { originalSource, originalLine, originalColumn } = map.findEntry(line - 1, column - 1);
  if (typeof originalSource !== "string" || originalLine === void 0 || originalColumn === void 0) return text;
  const position = `${fileName}:${line}:${column}`;
  const at = text.lastIndexOf(position);
  if (at === -1) return text;
  const mapped = `${printable(originalSource)}:${originalLine + 1}:${originalColumn + 1}`;
  return `${text.slice(0, at)}${mapped}${text.slice(at + position.length)}`;
}
function heading(error) {
  try {
    const own = error?.toString;
    const nodes = typeof error?.code === "string" && error.code.startsWith("ERR_") && typeof own === "function" && own !== errorToString;
    return nodes ? String(own.call(error)) : errorToString.call(error);
  } catch {
    return "<error>";
  }
}
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
  return `${first}
    at ${frames.join("\n    at ")}`;
}

// module-hooks.mjs
var { readFileSync } = builtin("node:fs");
var { fileURLToPath, pathToFileURL } = builtin("node:url");
var manifest = { modules: {}, resolutions: {}, sdk: {} };
function currentManifest() {
  return manifest;
}
function useManifest(next) {
  manifest = next;
}
function compiledCode(path) {
  const code = readCompiled(path);
  remember(path, code);
  return code;
}
function readCompiled(path) {
  try {
    return readFileSync(
      /** @type {string} */
      manifest.modules[path].code,
      "utf8"
    );
  } catch (error) {
    if (
      /** @type {NodeJS.ErrnoException} */
      error?.code !== "ENOENT"
    ) throw error;
    compileAgain(manifest, path);
    return readFileSync(
      /** @type {string} */
      manifest.modules[path].code,
      "utf8"
    );
  }
}
function pathOf(url) {
  return typeof url === "string" && url.startsWith("file:") ? fileURLToPath(url) : null;
}
function served(target, format2 = manifest.modules[target]?.format) {
  return {
    url: pathToFileURL(target).href,
    format: format2 === "module" || format2 === "commonjs" ? format2 : void 0,
    shortCircuit: true
  };
}
function orElse(attempt, fallback) {
  let result;
  try {
    result = attempt();
  } catch (error) {
    return fallback(error);
  }
  return typeof result?.then === "function" ? result.then(void 0, fallback) : result;
}
var OWN_URL = /^file:[^?#]*$/;
function resolve(specifier, context3, nextResolve) {
  const sdk = manifest.sdk[specifier];
  if (sdk) return served(sdk.import, "module");
  const own = OWN_URL.test(specifier) ? pathOf(specifier) : null;
  if (own !== null && manifest.modules[own]?.code) return served(own);
  const parent = pathOf(context3.parentURL);
  const target = parent === null ? void 0 : manifest.resolutions[parent]?.[specifier];
  if (target !== void 0) return served(target);
  if (parent === null || !manifest.modules[parent]) return nextResolve(specifier, context3);
  const known = answeredBefore(manifest, parent, specifier, false);
  if (known !== void 0) return served(known);
  return orElse(
    () => nextResolve(specifier, context3),
    (error) => {
      const found = askBinary(manifest, parent, specifier, false);
      if (found === null) throw error;
      return served(found);
    }
  );
}
var TYPESCRIPT = /\.[cm]?ts$/;
function commonJsFacade(path, names) {
  const lines = [
    "import { createRequire } from 'node:module';",
    `const exported = createRequire(${JSON.stringify(pathToFileURL(path).href)})(${JSON.stringify(path)});`,
    "export default exported;"
  ];
  names.forEach((name, index) => {
    lines.push(`const named${index} = exported[${JSON.stringify(name)}];`);
    lines.push(`export { named${index} as ${JSON.stringify(name)} };`);
  });
  return `${lines.join("\n")}
`;
}
function load(url, context3, nextLoad) {
  const path = pathOf(url);
  if (path === null) return nextLoad(url, context3);
  let module = manifest.modules[path];
  if (!module && TYPESCRIPT.test(path)) {
    askBinary(manifest, null, path, false);
    module = manifest.modules[path];
    if (!module) throw new Error(`agent-sdk could not compile ${path}`);
  }
  if (module?.format === "commonjs" && module.code) {
    return { format: "module", source: commonJsFacade(path, module.exports ?? []), shortCircuit: true };
  }
  if (module?.code) {
    return { format: "module", source: compiledCode(path), shortCircuit: true };
  }
  if (path.endsWith(".json") && context3.importAttributes?.type !== "json") {
    const text = readFileSync(path, "utf8");
    JSON.parse(text.replace(/^\uFEFF/, ""));
    return { format: "module", source: `export default ${text};
`, shortCircuit: true };
  }
  return nextLoad(url, context3);
}

// project-modules.mjs
var Module = builtin("node:module");
var ModuleLoader = (
  /** @type {any} */
  Module
);
function serveProjectModules(moduleChannel = null) {
  const channel2 = moduleChannel && { ...moduleChannel, lock: new Int32Array(new SharedArrayBuffer(4)) };
  askThrough(channel2);
  const postToLoaderThread = registerModuleHooks(channel2);
  for (const extension of [".ts", ".cts", ".mts"]) ModuleLoader._extensions[extension] = compileCommonJs;
  const resolveFilename = ModuleLoader._resolveFilename;
  ModuleLoader._resolveFilename = function resolveWithManifest(request, parent, isMain, options) {
    const manifest2 = currentManifest();
    const sdk = manifest2.sdk[request];
    if (sdk) return sdk.require;
    const target = parent?.filename ? manifest2.resolutions[parent.filename]?.[request] : void 0;
    if (target !== void 0) return target;
    const known = parent?.filename ? answeredBefore(manifest2, parent.filename, request, true) : void 0;
    if (known !== void 0) return known;
    try {
      return resolveFilename.call(this, request, parent, isMain, options);
    } catch (error) {
      if (!parent?.filename || !manifest2.modules[parent.filename]) throw error;
      const found = askBinary(manifest2, parent.filename, request, true);
      if (found === null) throw error;
      return found;
    }
  };
  return function installManifest2(next) {
    if (next) useManifest(next);
    return postToLoaderThread === null ? Promise.resolve() : postToLoaderThread(currentManifest());
  };
}
var WHERE_MODULE_HOOKS_RUN = /* @__PURE__ */ Symbol.for("agent-sdk.module-hooks");
function moduleHooksInThread() {
  return globalThis[WHERE_MODULE_HOOKS_RUN] === "in-thread";
}
function registerModuleHooks(channel2) {
  const { registerHooks } = ModuleLoader;
  const inThread = typeof registerHooks === "function" && process.env.AGENT_SDK_MODULE_HOOKS !== "worker";
  Object.defineProperty(globalThis, WHERE_MODULE_HOOKS_RUN, { value: inThread ? "in-thread" : "worker" });
  if (inThread) {
    const forImports = (hook) => (first, context3, next) => context3.conditions?.includes("require") ? next(first, context3) : hook(first, context3, next);
    registerHooks.call(Module, { resolve: forImports(resolve), load: forImports(load) });
    return null;
  }
  const loaderPort = new MessageChannel();
  withoutRegisterDeprecation(
    () => Module.register("./loader.mjs", import.meta.url, {
      data: { port: loaderPort.port2, channel: channel2 },
      transferList: [loaderPort.port2]
    })
  );
  loaderPort.port1.unref();
  return (manifest2) => new Promise((done) => {
    loaderPort.port1.once("message", done);
    loaderPort.port1.postMessage(manifest2);
  });
}
function withoutRegisterDeprecation(register) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function emitAllButRegisterDeprecation(warning, ...rest) {
    const code = typeof rest[0] === "object" && rest[0] !== null ? rest[0].code : rest[1];
    if (code === "DEP0205") return void 0;
    return emitWarning.call(this, warning, ...rest);
  };
  try {
    register();
  } finally {
    process.emitWarning = emitWarning;
  }
}
function compileCommonJs(module, filename) {
  const manifest2 = currentManifest();
  if (!manifest2.modules[filename]) askBinary(manifest2, null, filename, true);
  const entry = manifest2.modules[filename];
  if (entry?.format === "module") {
    const error = new Error(`require() of ES Module ${filename} not supported (it is an ES module: import it)`);
    error.code = "ERR_REQUIRE_ESM";
    throw error;
  }
  if (!entry?.code) throw new Error(`agent-sdk could not compile ${filename}`);
  module._compile(compiledCode(filename), filename);
}

// exit.mjs
var realExit = process.exit.bind(process);
var beforeExit = [];
function beforeExiting(callback) {
  beforeExit.push(callback);
}
function exitProcess(code) {
  for (const callback of beforeExit) {
    try {
      callback();
    } catch {
    }
  }
  realExit(code);
}

// channel.mjs
var { writeSync: writeSync2 } = builtin("node:fs");
var { stringify: stringify2 } = JSON;
var bufferFrom3 = Buffer.from.bind(Buffer);
var FROM_NODE_FD = 4;
function send(message) {
  takeDone();
  const text = `${deferred}${stringify2(message)}
`;
  deferred = "";
  writeText(text);
}
var deferred = "";
var DEFERRED_MAX = 16 * 1024;
var DONE_MAX = 512;
var unsaidLanes = [];
var doneSinceWrite = 0;
function takeDone() {
  if (unsaidLanes.length === 0) return;
  for (const lane of unsaidLanes) {
    deferred += lane.id === null ? `{"t":"done","seq":${lane.unsaid}}
` : `{"t":"done","seq":${lane.unsaid},"session":${lane.id}}
`;
    lane.unsaid = -1;
  }
  unsaidLanes.length = 0;
}
function sendSoon(message) {
  takeDone();
  deferred += `${stringify2(message)}
`;
  if (deferred.length >= DEFERRED_MAX) flush();
}
function flush() {
  takeDone();
  doneSinceWrite = 0;
  if (deferred === "") return;
  const text = deferred;
  deferred = "";
  writeText(text);
}
function finished(lane, seq) {
  lane.lastFinished = seq;
  if (lane.unsaid === -1) unsaidLanes.push(lane);
  lane.unsaid = seq;
  if (++doneSinceWrite >= DONE_MAX) flush();
}
function writeText(text) {
  const bytes = bufferFrom3(text);
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync2(FROM_NODE_FD, bytes, written);
    } catch (error) {
      if (
        /** @type {NodeJS.ErrnoException} */
        error?.code === "EAGAIN"
      ) continue;
      exitProcess(0);
    }
  }
}

// scope.mjs
var { AsyncLocalStorage } = builtin("node:async_hooks");
var hookScope = new AsyncLocalStorage();
var callScopes = /* @__PURE__ */ new WeakMap();
function currentHook() {
  return hookScope.getStore()?.hook ?? null;
}
function inLane(message, lane = hookScope.getStore()?.lane ?? null) {
  const inItsLane = message;
  if (lane !== null) inItsLane.session = lane;
  return inItsLane;
}

// otel.mjs
var require2 = builtin("node:module").createRequire(import.meta.url);
var { hasOwn, keys } = Object;
var otelApi = null;
function sendOtel(kind, name, value, attrs) {
  sendSoon(inLane({ t: "otel", kind, name, value, attrs, hook: currentHook() }));
}
function sendMeasurement(kind, name, value, attrs, scope, unit) {
  sendSoon(inLane({ t: "otel", kind, name, value, attrs, hook: currentHook(), scope, unit }));
}
function sendSpan(span) {
  sendSoon(inLane({
    t: "otel",
    kind: "span",
    name: span.name,
    value: span.ms,
    attrs: span.attrs,
    error: span.error,
    hook: currentHook(),
    scope: span.scope,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    start: span.start,
    spanKind: span.spanKind,
    status: span.status,
    events: span.events,
    links: span.links,
    droppedEvents: span.droppedEvents || void 0,
    droppedLinks: span.droppedLinks || void 0
  }));
}
function sendLog(record) {
  send(inLane({
    t: "otel",
    kind: "log",
    name: record.name,
    value: record.body,
    attrs: record.attrs,
    severity: record.severity,
    severityText: record.severityText,
    hook: currentHook(),
    start: record.time,
    traceId: record.traceId,
    spanId: record.spanId
  }));
}
var collectObservables = async () => {
};
var providersInstalled = false;
var activeContext = null;
function setUpOtel(message) {
  const version = message.otelApiVersion;
  if (!providersInstalled && typeof version === "string") {
    providersInstalled = true;
    if (message.tracing === true) installProviders(version);
    else installWhenFirstUsed(version);
  }
  if (message.tracing === true && activeContext !== null) otelApi.addTraceparentToFetch(activeContext.activeSpanContext);
}
function installProviders(version) {
  otelApi ??= require2("./sdk/otel-api.cjs");
  collectObservables = otelApi.installMeterProvider(sendMeasurement, version);
  activeContext = otelApi.installTracerProvider(sendSpan, version);
  otelApi.installLoggerProvider(sendLog, activeContext?.activeSpanContext);
}
var API_KEY = /* @__PURE__ */ Symbol.for("opentelemetry.js.api.1");
var LOGS_API_KEY = /* @__PURE__ */ Symbol.for("io.opentelemetry.js.api.logs");
var PROVIDED = ["metrics", "trace", "context", "logs"];
function installWhenFirstUsed(version) {
  const standIn = { version };
  const logsStandIn = (compatibility) => {
    installNow();
    return globalThis[LOGS_API_KEY]?.(compatibility);
  };
  let installed = false;
  function installNow() {
    if (installed) return;
    installed = true;
    if (globalThis[API_KEY] === standIn) delete globalThis[API_KEY];
    if (globalThis[LOGS_API_KEY] === logsStandIn) delete globalThis[LOGS_API_KEY];
    installProviders(version);
    const registry = globalThis[API_KEY];
    for (const key of keys(standIn)) {
      if (!PROVIDED.includes(key) && key !== "version" && registry && !hasOwn(registry, key)) registry[key] = standIn[key];
    }
  }
  for (const type of PROVIDED) {
    Object.defineProperty(standIn, type, {
      configurable: true,
      enumerable: true,
      get() {
        installNow();
        return globalThis[API_KEY]?.[type];
      }
    });
  }
  globalThis[API_KEY] = standIn;
  globalThis[LOGS_API_KEY] = logsStandIn;
}
var TIMELINE_ONLY = Object.freeze({ timelineOnly: true });
function tracedBy(trace) {
  if (activeContext === null || !otelApi.isValidSpanContext(trace)) return {};
  return { traceId: trace.traceId };
}
function beginHandlerSpan(trace) {
  const began = performance.now();
  if (trace.timelineOnly) return { spanId: null, start: performance.timeOrigin + began, began };
  otelApi ??= require2("./sdk/otel-api.cjs");
  return { spanId: otelApi.newSpanId(), start: performance.timeOrigin + began, began };
}
function inHandlerSpan(trace, span, runHandler) {
  if (trace.traceId === void 0) return runHandler();
  return activeContext.runInSpan({ traceId: trace.traceId, spanId: span.spanId }, runHandler);
}
function endHandlerSpan(lane, seq, index, key, span, outcome, error) {
  const ended = outcome.timedOut ? "timed_out" : outcome.threw ? "threw" : "ok";
  sendSoon(inLane({
    t: "handler",
    seq,
    hook: index,
    handler: key,
    spanId: span.spanId,
    start: span.start,
    ms: performance.now() - span.began,
    outcome: ended,
    error
  }, lane.id));
}

// output.mjs
var { format } = builtin("node:util");
var captureStack = Error.captureStackTrace;
var bufferFrom4 = Buffer.from.bind(Buffer);
var HOST_MODULES = [
  "host.mjs",
  "channel.mjs",
  "reader.mjs",
  "slot.mjs",
  "scope.mjs",
  "output.mjs",
  "calls.mjs",
  "otel.mjs",
  "loading.mjs",
  "lanes.mjs",
  "dispatch.mjs"
].map((name) => new URL(name, import.meta.url).href);
function sendConsole(level, text) {
  send(inLane({ t: "console", level, hook: currentHook(), text }));
}
function attributeOutput() {
  for (const [method, level] of [
    ["log", "info"],
    ["info", "info"],
    ["debug", "info"],
    ["warn", "warn"],
    ["error", "error"]
  ]) {
    console[method] = (...args) => sendConsole(level, format(...args));
  }
  console.trace = (...args) => {
    const trace = { name: "Trace", message: format(...args) };
    captureStack(trace, console.trace);
    sendConsole("error", withoutHostFrames(trace.stack));
  };
  attributeWritesWhenRead("stdout", "info");
  attributeWritesWhenRead("stderr", "warn");
  process.exit = /** @type {typeof process.exit} */
  (function exit(code) {
    const site = { stack: "" };
    captureStack(site, exit);
    send(inLane({ t: "exit", hook: currentHook(), code: code ?? process.exitCode ?? 0, stack: site.stack }));
    exitProcess(code);
  });
  process.on("uncaughtException", (error) => sendUnhandled("exception", error));
  process.on("unhandledRejection", (reason) => sendUnhandled("rejection", reason));
}
function attributeWrites(stream, level) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, encoding, callback) => {
    if (currentHook() === null) return write(chunk, encoding, callback);
    const text = typeof chunk === "string" ? chunk : bufferFrom4(chunk).toString("utf8");
    sendConsole(level, text.endsWith("\n") ? text.slice(0, -1) : text);
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") process.nextTick(done);
    return true;
  };
}
function attributeWritesWhenRead(name, level) {
  const made = Object.getOwnPropertyDescriptor(process, name);
  const make = made?.get;
  if (make === void 0 || made?.configurable !== true) return attributeWrites(process[name], level);
  let stream = null;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: made?.enumerable,
    get() {
      if (stream === null) {
        stream = make.call(process);
        attributeWrites(stream, level);
      }
      return stream;
    }
  });
}
function sendUnhandled(kind, thrown) {
  const scope = (typeof thrown === "object" && thrown !== null ? callScopes.get(thrown) : void 0) ?? hookScope.getStore();
  const afterReturn = scope?.returned === true;
  send(inLane({ t: "unhandled", kind, hook: scope?.hook ?? null, afterReturn, text: errorText(thrown) }, scope?.lane ?? null));
}
function describe(thrown) {
  try {
    const message = String(thrown?.message ?? thrown) + causes(thrown);
    const stack = thrown?.stack;
    return { message, stack: typeof stack === "string" ? withoutHostFrames(stack) : null };
  } catch {
    return { message: "a value that cannot be printed was thrown", stack: null };
  }
}
var MAX_CAUSES = 4;
var MAX_CAUSE_CHARS = 300;
function causes(thrown) {
  const told = [];
  const seen = /* @__PURE__ */ new Set([thrown]);
  let cause = thrown?.cause;
  while (cause !== void 0 && cause !== null && told.length < MAX_CAUSES && !seen.has(cause)) {
    seen.add(cause);
    const text = String(cause?.message ?? cause);
    told.push(text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}\u2026` : text);
    cause = cause?.cause;
  }
  return told.length === 0 ? "" : ` (cause: ${told.join("; cause: ")})`;
}
function withoutHostFrames(stack) {
  const lines = stack.split("\n");
  const host = lines.findIndex((line) => HOST_MODULES.some((url) => line.includes(url)));
  return host === -1 ? stack : lines.slice(0, host).join("\n");
}
function errorText(thrown) {
  const { message, stack } = describe(thrown);
  return stack ?? message;
}

// reader.mjs
var { closeSync, openSync, read, readSync: readSync2, writeSync: writeSync3 } = builtin("node:fs");
var { parse: parse3 } = JSON;
var { queueMicrotask: runSoon, setImmediate: runNext } = globalThis;
function parseLine(line, what) {
  try {
    return parse3(line);
  } catch {
    sendConsole("error", `agent-sdk host: ignored ${what} that is not JSON: ${line.slice(0, 200)}`);
    return void 0;
  }
}
function lineReader(onLine2, onClose) {
  const decoder = new TextDecoder();
  let rest = "";
  let closed = false;
  const say = (line) => {
    try {
      onLine2(line);
    } catch (error) {
      sendConsole("error", `agent-sdk host: ${errorText(error)}`);
    }
  };
  return {
    /** @param {Uint8Array} bytes */
    push(bytes) {
      const chunk = decoder.decode(bytes, { stream: true });
      const text = rest === "" ? chunk : rest + chunk;
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        say(text.slice(start, end));
        start = end + 1;
      }
      rest = start === 0 ? text : text.slice(start);
    },
    close() {
      if (closed) return;
      closed = true;
      const last = rest + decoder.decode();
      if (last !== "") say(last);
      onClose();
    }
  };
}
function listen(socket, lines) {
  socket.on("data", (bytes) => lines.push(bytes));
  socket.on("close", () => lines.close());
}
function readLines(socket, onLine2, onClose) {
  listen(socket, lineReader(onLine2, onClose));
}
var FIRST_READS = 8;
function readFdLines(fd, onLine2, onClose) {
  const lines = lineReader(onLine2, onClose);
  let stopped = false;
  let socket;
  const overSocket = () => {
    const { Socket } = builtin("node:net");
    socket = new Socket({ fd, readable: true, writable: false });
    listen(socket, lines);
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let reads = 0;
  let waiting = false;
  const got = (error, count) => {
    waiting = false;
    if (error?.code === "EAGAIN") return overSocket();
    if (error || count === 0) return lines.close();
    lines.push(buffer.subarray(0, count));
    if (stopped) return;
    if (++reads >= FIRST_READS) return overSocket();
    if (reads === 1) runNext(next);
    else next();
  };
  const next = () => {
    waiting = true;
    read(fd, buffer, 0, buffer.length, null, got);
  };
  const first = () => {
    let failed = null;
    let count = 0;
    try {
      count = readSync2(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      failed = /** @type {NodeJS.ErrnoException} */
      error;
    }
    runSoon(() => got(failed, count));
  };
  if (process.platform === "linux") {
    beforeExiting(() => {
      if (!waiting) return;
      const writer = openSync(`/proc/self/fd/${fd}`, "w");
      try {
        writeSync3(writer, "\n");
      } finally {
        closeSync(writer);
      }
    });
    first();
  } else {
    overSocket();
  }
  return () => {
    stopped = true;
    socket?.pause();
    socket?.unref();
  };
}

// calls.mjs
var import_context = __toESM(require_context(), 1);
var resolved = Promise.resolve.bind(Promise);
var { buildContext: contextOf, otelMeter } = import_context.default;
function buildContext(facts, lane) {
  return contextOf(facts, {
    call: (method, args) => call(method, args, lane),
    otel: otelMeter(sendOtel),
    turnId: () => hookScope.getStore()?.turnId ?? null
  });
}
var RESOLVED_WHEN_SENT = /* @__PURE__ */ new Set(["kv.set", "reminders.set"]);
var pending = /* @__PURE__ */ new Map();
var nextCallId = 1;
var connectionClosed = false;
var shuttingDown = false;
var repliesFd;
var replies;
function call(method, args, lane) {
  const scope = hookScope.getStore();
  if (connectionClosed) return Promise.reject(scoped(connectionClosedError(method, scope), scope));
  const id = nextCallId++;
  const hostCall = (
    /** @type {HostCall} */
    { method, args }
  );
  const hook = scope?.hook ?? null;
  if (RESOLVED_WHEN_SENT.has(method)) {
    try {
      send(inLane({ t: "call", id, ...hostCall, hook, resolved: true }, lane));
    } catch (error) {
      return Promise.reject(error);
    }
    return resolved(void 0);
  }
  readReplies();
  return new Promise((resolve2, reject) => {
    send(inLane({ t: "call", id, ...hostCall, hook }, lane));
    pending.set(id, { method, resolve: resolve2, reject, scope });
    if (shuttingDown && pending.size === 1) replies?.ref();
  });
}
function scoped(error, scope) {
  if (scope !== void 0) callScopes.set(error, scope);
  return error;
}
function connectionClosedError(method, scope) {
  const late = scope?.returned === true ? `; it was made after its handler returned, once the run was over: await it in the handler (hosting, whose process stays up, would take it)` : "";
  return new Error(`ctx.host call ${method} failed: the connection to agent-sdk is closed${late}`);
}
function onReply({ id, ok, value, error }) {
  const waiting = pending.get(id);
  if (!waiting) return;
  pending.delete(id);
  if (shuttingDown && pending.size === 0) replies?.unref();
  if (ok) waiting.resolve(value);
  else waiting.reject(scoped(new Error(String(error)), waiting.scope));
}
function rejectPendingCalls() {
  connectionClosed = true;
  for (const waiting of pending.values()) waiting.reject(scoped(connectionClosedError(waiting.method, waiting.scope), waiting.scope));
  pending.clear();
}
function listenForReplies(fd) {
  repliesFd = fd;
}
function readReplies() {
  if (replies !== void 0 || repliesFd === void 0) return;
  const { Socket } = builtin("node:net");
  replies = new Socket({ fd: repliesFd, readable: true, writable: false });
  readLines(replies, onReplyLine, rejectPendingCalls);
}
function onReplyLine(line) {
  const message = parseLine(line, "a reply");
  if (message?.t === "reply") onReply(message);
}
function answerOnlyWhileWaiting() {
  shuttingDown = true;
  if (pending.size === 0) replies?.unref();
}

// slot.mjs
var { writeSync: writeSync4 } = builtin("node:fs");
var SLOT_FD = 6;
var SLOT_BYTES = 24;
var slotBytes = Buffer.alloc(SLOT_BYTES);
var slotView = new DataView(slotBytes.buffer, slotBytes.byteOffset, slotBytes.length);
var slotGeneration = 0;
function writeSlot(lane, kind, seq, hook) {
  slotGeneration = slotGeneration + 1 >>> 0 || 1;
  slotView.setUint32(0, slotGeneration, true);
  slotView.setUint32(4, kind, true);
  slotView.setFloat64(8, seq, true);
  slotView.setUint32(16, hook, true);
  slotView.setUint32(20, slotGeneration, true);
  try {
    writeSync4(SLOT_FD, slotBytes, 0, SLOT_BYTES, lane.slot * SLOT_BYTES);
  } catch {
  }
}
function slotRunning(lane, seq, hook, which) {
  writeSlot(lane, which + 1, seq, hook);
}
function slotIdle(lane) {
  writeSlot(lane, 0, lane.lastFinished, 0);
}

// lanes.mjs
var import_context2 = __toESM(require_context(), 1);
var runSoon2 = queueMicrotask;
function newLane(id, slot, ctx) {
  return { id, slot, ctx, lastFinished: -1, unsaid: -1, queue: [], draining: false, closing: false };
}
var defaultLane = newLane(null, 0, import_context2.default.deepFreeze({}));
var lanes = /* @__PURE__ */ new Map();
function laneOf(session) {
  return lanes.get(session);
}
function anyLaneDraining() {
  return [...lanes.values()].some((lane) => lane.draining);
}
function enqueue(task) {
  enqueueOn(defaultLane, task);
}
function enqueueOn(lane, task) {
  lane.queue.push(task);
  if (!lane.draining) {
    lane.draining = true;
    runSoon2(() => drain(lane));
  }
}
async function drain(lane) {
  const { queue } = lane;
  while (queue.length > 0) {
    const task = queue.shift();
    try {
      const pending2 = task();
      if (pending2 !== void 0) await pending2;
    } catch (error) {
      sendConsole("error", `agent-sdk host: ${errorText(error)}`);
    }
  }
  slotIdle(lane);
  flush();
  lane.draining = false;
  if (lane.closing && lanes.get(lane.id) === lane) lanes.delete(lane.id);
}
function openLane({ session, slot, ctx }) {
  if (typeof session !== "number") return;
  const facts = ctx ?? {};
  const lane = lanes.get(session);
  if (lane === void 0) {
    lanes.set(session, newLane(session, Number(slot) || 0, buildContext(facts, session)));
  } else {
    lane.slot = Number(slot) || 0;
    lane.ctx = buildContext(facts, session);
    lane.closing = false;
  }
}
function closeLane({ session }) {
  const lane = lanes.get(session);
  if (lane === void 0) return;
  if (lane.draining) lane.closing = true;
  else lanes.delete(session);
}

// loading.mjs
var import_extensions = __toESM(require_extensions(), 1);
var import_hooks = __toESM(require_hooks(), 1);
var { hasOwn: hasOwn2, keys: keys2 } = Object;
var { setTimeout: startTimer, clearTimeout: stopTimer } = globalThis;
var race = Promise.race.bind(Promise);
var { isMount } = import_extensions.default;
var { isHookDefinition } = import_hooks.default;
var hooks = [];
var timeoutMs = 3e4;
var timeoutText = "30s";
var MAX_TIMER_MS = 2 ** 31 - 1;
async function init(message, installManifest2) {
  setUpOtel(message);
  defaultLane.ctx = buildContext(message.ctx ?? {}, null);
  timeoutMs = Math.min(Number(message.timeoutMs ?? 3e4), MAX_TIMER_MS);
  timeoutText = String(message.timeoutText ?? `${timeoutMs}ms`);
  hooks = [];
  try {
    await installManifest2(message.manifest);
    for (const { name, url, key, skip } of message.hooks ?? []) {
      if (skip) {
        send({ t: "load_failed", hook: name, message: String(skip), stack: null });
        hooks.push({ name, events: null });
        continue;
      }
      send({ t: "loading", hook: name });
      hooks.push({ name, events: await loadHook(name, url, key) });
    }
  } finally {
    send({ t: "ready" });
  }
}
async function loadHook(name, url, key) {
  const imported = await importAs(name, url);
  if (imported.failed) {
    send({ t: "load_failed", hook: name, ...imported.failed });
    return null;
  }
  let definition = defaultExport(imported.module);
  if (typeof key === "string") {
    if (!isMount(definition)) return loadFailed(name, "the mount file no longer exports a mount");
    if (definition.disabled.includes(key)) return loadFailed(name, "the mount disables it");
    definition = hasOwn2(definition.hooks, key) ? definition.hooks[key] : void 0;
    if (definition === void 0) return loadFailed(name, `the extension has no hook "${key}"`);
  }
  if (!isHookDefinition(definition)) {
    return loadFailed(name, "the default export is not a defineHook(...) result");
  }
  const { events } = definition;
  send({ t: "loaded", hook: name, events: keys2(events) });
  return events;
}
function loadFailed(name, message) {
  send({ t: "load_failed", hook: name, message, stack: null });
  return null;
}
async function importAs(name, url) {
  try {
    const importing = hookScope.run({ hook: name, turnId: null }, () => import(url));
    let timer;
    const gaveUp = new Promise((resolve2) => {
      timer = startTimer(() => resolve2(GAVE_UP), timeoutMs);
    });
    const module = await race([importing, gaveUp]);
    stopTimer(timer);
    if (module === GAVE_UP) return { failed: { message: `its import did not finish within ${timeoutText}`, stack: null } };
    return { module };
  } catch (error) {
    return { failed: describe(error) };
  }
}
function defaultExport(module) {
  const value = module.default;
  if (!isHookDefinition(value) && !isMount(value) && value?.__esModule) return value.default;
  return value;
}
async function inspectMounts(message) {
  try {
    for (const { namespace, url } of message.mounts ?? []) {
      send({ t: "loading", hook: namespace });
      send(await inspectMount(namespace, url));
    }
  } finally {
    send({ t: "mounts_done" });
  }
}
async function inspectMount(namespace, url) {
  const imported = await importAs(namespace, url);
  if (imported.failed) return { t: "mounted", namespace, problem: { kind: "threw", ...imported.failed } };
  const mount = defaultExport(imported.module);
  if (!isMount(mount)) {
    const message = `the default export is ${kindOf(mount)}, not a mount (the call of a factory made with defineExtension)`;
    return { t: "mounted", namespace, problem: { kind: "not_a_mount", message, stack: null } };
  }
  const hooks2 = keys2(mount.hooks).map((key) => {
    const hook = mount.hooks[key];
    return { key, events: isHookDefinition(hook) ? keys2(hook.events) : null };
  });
  return {
    t: "mounted",
    namespace,
    hooks: hooks2,
    disabled: [...mount.disabled],
    instructions: typeof mount.instructions === "string" ? mount.instructions : null,
    secretNames: [...mount.secretNames],
    egressDomains: [...mount.egressDomains]
  };
}
function kindOf(value) {
  if (value === null) return "null";
  if (value === void 0) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function (the factory itself? call it with the options)";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
var GAVE_UP = /* @__PURE__ */ Symbol("gave up");

// dispatch.mjs
var { hasOwn: hasOwn3, keys: keys3, freeze } = Object;
var { isArray } = Array;
var { setTimeout: startTimer2, clearTimeout: stopTimer2 } = globalThis;
var race2 = Promise.race.bind(Promise);
var resolved2 = Promise.resolve.bind(Promise);
function dispatch(lane, { seq, from = 0, event, trace, timeline = false }) {
  let frozenEvent;
  try {
    frozenEvent = freezeParsed(event ?? {});
  } catch (error) {
    finished(lane, seq);
    throw error;
  }
  const handlers = trace !== void 0 ? tracedBy(trace) : timeline ? TIMELINE_ONLY : void 0;
  return runHandlers(lane, seq, frozenEvent, Math.max(0, from), 0, handlers);
}
function freezeParsed(value) {
  if (typeof value !== "object" || value === null) return value;
  freeze(value);
  if (isArray(value)) {
    for (let index = 0; index < value.length; index++) freezeParsed(value[index]);
  } else {
    const own = keys3(value);
    for (let index = 0; index < own.length; index++) freezeParsed(value[own[index]]);
  }
  return value;
}
function runHandlers(lane, seq, frozenEvent, index, which, trace) {
  let handedOn = false;
  try {
    for (; index < hooks.length; index++, which = 0) {
      const { name, events } = hooks[index];
      if (!events) continue;
      for (; which < 2; which++) {
        const key = which === 0 ? frozenEvent.type : "*";
        if (!hasOwn3(events, key)) continue;
        slotRunning(lane, seq, index, which);
        const scope = { hook: name, turnId: frozenEvent.turnId ?? null, lane: lane.id, returned: false };
        const { ctx } = lane;
        const span = trace === void 0 ? void 0 : beginHandlerSpan(trace);
        const outcome = settle(scope, events, key, frozenEvent, ctx, trace, span);
        if (outcome.pending) {
          handedOn = true;
          flush();
          return finishLater(lane, seq, frozenEvent, outcome.pending, index, which, trace, span, scope);
        }
        scope.returned = true;
        const error = report(lane, seq, index, key, outcome);
        if (span !== void 0) endHandlerSpan(lane, seq, index, key, span, outcome, error);
      }
    }
  } finally {
    if (!handedOn) finished(lane, seq);
  }
  return void 0;
}
async function finishLater(lane, seq, frozenEvent, pending2, index, which, trace, span, scope) {
  let handedOn = false;
  try {
    const key = which === 0 ? frozenEvent.type : "*";
    const outcome = await pending2;
    scope.returned = true;
    const error = report(lane, seq, index, key, outcome);
    if (span !== void 0) endHandlerSpan(lane, seq, index, key, span, outcome, error);
    const nextHook = which === 0 ? index : index + 1;
    handedOn = true;
    const rest = runHandlers(lane, seq, frozenEvent, nextHook, which === 0 ? 1 : 0, trace);
    if (rest !== void 0) await rest;
  } finally {
    if (!handedOn) finished(lane, seq);
  }
}
function report(lane, seq, index, key, outcome) {
  if (outcome.timedOut) {
    send(inLane({ t: "timed_out", seq, hook: index, handler: key }, lane.id));
    return `timed out after ${timeoutText}`;
  }
  if (outcome.threw) {
    const described = describe(outcome.error);
    send(inLane({ t: "threw", seq, hook: index, handler: key, ...described }, lane.id));
    return described.message;
  }
  return void 0;
}
var RETURNED = (
  /** @type {Outcome} */
  freeze({})
);
function settle(scope, events, key, event, ctx, trace, span) {
  let handlerPromise;
  try {
    const result = span === void 0 ? hookScope.run(scope, callHandler, events, key, event, ctx) : hookScope.run(scope, callHandlerInSpan, events, key, event, ctx, trace, span);
    if (typeof result?.then !== "function") return RETURNED;
    handlerPromise = resolved2(result);
  } catch (error) {
    return { threw: true, error };
  }
  return { pending: settleLater(handlerPromise) };
}
function callHandler(events, key, event, ctx) {
  return events[key](event, ctx);
}
function callHandlerInSpan(events, key, event, ctx, trace, span) {
  return inHandlerSpan(trace, span, () => events[key](event, ctx));
}
async function settleLater(handlerPromise) {
  let timer;
  const timeout = new Promise((resolve2) => {
    timer = startTimer2(() => resolve2({ timedOut: true }), timeoutMs);
  });
  const finished2 = handlerPromise.then(
    () => RETURNED,
    (error) => ({ threw: true, error })
  );
  const outcome = await race2([finished2, timeout]);
  stopTimer2(timer);
  return outcome;
}

// host.mjs
var { setTimeout: startTimer3 } = globalThis;
var TO_NODE_FD = 3;
var REPLIES_FD = 5;
var installManifest = serveProjectModules({ requests: 7, answers: 8 });
if (moduleHooksInThread()) mapStacks();
else process.setSourceMapsEnabled(true);
send({ t: "hello", node: process.versions.node });
var givenCompileCache = process.env.NODE_COMPILE_CACHE;
if (givenCompileCache !== void 0 && givenCompileCache === compileCacheFolder()) {
  delete process.env.NODE_COMPILE_CACHE;
}
attributeOutput();
function compileCacheFolder() {
  return decodeURIComponent(new URL("compile-cache", import.meta.url).pathname);
}
var SHUTDOWN_MS = 2e3;
async function exitWhenFlushed() {
  const deadline = startTimer3(() => {
    sendConsole(
      "warn",
      `agent-sdk host: Node.js was still busy ${SHUTDOWN_MS / 1e3}s after the hooks were told to stop (a timer, a socket or a child process of a hook's); it was ended`
    );
    flush();
    exitProcess(0);
  }, SHUTDOWN_MS);
  deadline.unref();
  while (anyLaneDraining()) await new Promise((resolve2) => startTimer3(resolve2, 5));
  await collectObservables();
  flush();
  builtin("node:module").flushCompileCache?.();
  process.exitCode = 0;
  process.on("exit", () => send({ t: "bye" }));
  answerOnlyWhileWaiting();
  return new Promise(() => {
  });
}
function onLine(line) {
  if (line.trim() === "") return;
  const message = parseLine(line, "a line");
  switch (message?.t) {
    case "init":
      enqueue(() => init(message, installManifest));
      break;
    case "mount":
      enqueue(() => inspectMounts(message));
      break;
    case "event": {
      const lane = message.session === void 0 ? defaultLane : laneOf(message.session);
      if (lane === void 0) {
        sendConsole("error", `agent-sdk host: an event for session lane ${message.session}, which is not open, was ignored`);
      } else {
        enqueueOn(lane, () => dispatch(lane, message));
      }
      break;
    }
    case "open":
      openLane(message);
      break;
    case "close":
      closeLane(message);
      break;
    case "shutdown":
      stopReading();
      enqueue(exitWhenFlushed);
      break;
    default:
      break;
  }
}
var stopReading = readFdLines(TO_NODE_FD, onLine, () => {
  rejectPendingCalls();
  enqueue(exitWhenFlushed);
});
listenForReplies(REPLIES_FD);
