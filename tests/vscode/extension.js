// Loads the bundled extension (out/extension.js of a packaged .vsix, the path in argv[2])
// against a fake of the `vscode` module, the way VS Code would: activates it, restarts the
// server through each of its triggers (a changed agentSdk.path, the Restart Server command,
// a granted workspace trust), deactivates it, and prints as JSON what was registered and
// what is still alive at each step. tests/it/lsp/vscode.rs asserts on that JSON.
//
// Only what the extension itself uses is faked with care; the rest of the API (what
// vscode-languageclient touches while it starts) answers anything with a harmless stand-in.
// `agentSdk.path` names a binary that does not exist, so every start fails at once, as it
// does for a user without agent-sdk installed, and is counted as one attempt to spawn.

"use strict";

const Module = require("node:module");
const childProcess = require("node:child_process");

/** Anything at all: callable, constructible, with every property another stand-in. */
function anything() {
  return new Proxy(function () {}, {
    get(_target, key) {
      if (key === "then") return undefined; // not a promise
      if (key === Symbol.toPrimitive) return () => 0;
      if (key === Symbol.iterator) return function* () {};
      return anything();
    },
    apply: () => anything(),
    construct: () => anything(),
  });
}

class Disposable {
  constructor(dispose) {
    this.dispose = dispose;
  }
  static from(...disposables) {
    return new Disposable(() => disposables.forEach((disposable) => disposable?.dispose?.()));
  }
}

/** An event source that counts its listeners still subscribed. */
class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const entry = { listener: listener.bind(thisArg) };
      this.listeners.add(entry);
      const subscription = new Disposable(() => this.listeners.delete(entry));
      if (Array.isArray(disposables)) disposables.push(subscription);
      return subscription;
    };
  }
  /** Calls every listener and waits for what they return. */
  async fire(value) {
    await Promise.all([...this.listeners].map((entry) => entry.listener(value)));
  }
  dispose() {
    this.listeners.clear();
  }
}

const settings = { "agentSdk.path": "/nonexistent/agent-sdk", "agentSdk.runExtensions": false };
const configurationChanged = new EventEmitter();
const trustGranted = new EventEmitter();
const commands = new Map();
const outputChannels = [];
const watchers = [];
const errors = [];
let spawns = 0;

const originalSpawn = childProcess.spawn;
childProcess.spawn = (...args) => {
  spawns += 1;
  return originalSpawn(...args);
};

function outputChannel(name) {
  const channel = { name, shown: 0, disposed: false, logLevel: 2 };
  for (const method of ["append", "appendLine", "replace", "clear", "trace", "debug", "info", "warn", "error"]) {
    channel[method] = () => {};
  }
  channel.show = () => (channel.shown += 1);
  channel.hide = () => {};
  channel.dispose = () => (channel.disposed = true);
  channel.onDidChangeLogLevel = new EventEmitter().event;
  outputChannels.push(channel);
  return channel;
}

function fileSystemWatcher(pattern) {
  const watcher = { pattern, disposed: false };
  for (const event of ["onDidCreate", "onDidChange", "onDidDelete"]) {
    watcher[event] = new EventEmitter().event;
  }
  watcher.dispose = () => (watcher.disposed = true);
  watchers.push(watcher);
  return watcher;
}

const fake = new Proxy(
  {
    version: "1.91.0", // the oldest package.json's engines allow
    Disposable,
    EventEmitter,
    workspace: new Proxy(
      {
        workspaceFolders: [],
        isTrusted: true,
        textDocuments: [],
        getConfiguration: (section) => ({
          get: (key, fallback) => settings[section ? `${section}.${key}` : key] ?? fallback,
          has: () => false,
          inspect: () => undefined,
          update: async () => {},
        }),
        onDidChangeConfiguration: configurationChanged.event,
        onDidGrantWorkspaceTrust: trustGranted.event,
        createFileSystemWatcher: fileSystemWatcher,
      },
      { get: (target, key) => (key in target ? target[key] : anything()) },
    ),
    window: new Proxy(
      {
        createOutputChannel: outputChannel,
        showErrorMessage: async (message) => {
          errors.push(message);
          return undefined;
        },
      },
      { get: (target, key) => (key in target ? target[key] : anything()) },
    ),
    commands: new Proxy(
      {
        registerCommand: (id, callback) => {
          commands.set(id, callback);
          return new Disposable(() => commands.delete(id));
        },
        executeCommand: async (id, ...args) => commands.get(id)?.(...args),
      },
      { get: (target, key) => (key in target ? target[key] : anything()) },
    ),
  },
  { get: (target, key) => (key in target ? target[key] : anything()) },
);

const originalLoad = Module._load;
Module._load = function (request, ...rest) {
  return request === "vscode" ? fake : originalLoad.call(this, request, ...rest);
};

function alive() {
  return {
    configurationListeners: configurationChanged.listeners.size,
    trustListeners: trustGranted.listeners.size,
    watchers: watchers.filter((watcher) => !watcher.disposed).length,
    outputChannels: outputChannels.filter((channel) => !channel.disposed).map((channel) => channel.name),
    commands: [...commands.keys()].sort(),
    spawns,
  };
}

async function main() {
  const extension = require(process.argv[2]);
  const context = { subscriptions: [] };
  const steps = {};
  await extension.activate(context);
  steps.activated = alive();
  const pathChanged = { affectsConfiguration: (section) => section === "agentSdk.path" };
  for (let i = 0; i < 3; i += 1) {
    await configurationChanged.fire(pathChanged);
  }
  steps.afterThreeSettingChanges = alive();
  await configurationChanged.fire({ affectsConfiguration: (section) => section === "editor.fontSize" });
  steps.afterAnUnrelatedSettingChange = alive();
  await commands.get("agentSdk.restartServer")?.();
  await commands.get("agentSdk.restartServer")?.();
  steps.afterTwoRestartCommands = alive();
  await trustGranted.fire();
  steps.afterTrustGranted = alive();
  await commands.get("agentSdk.showOutput")?.();
  steps.shown = outputChannels.map((channel) => channel.shown);
  await extension.deactivate();
  for (const subscription of context.subscriptions) {
    subscription.dispose();
  }
  steps.disposed = alive();
  steps.watched = watchers.map((watcher) => watcher.pattern);
  steps.errors = errors;
  console.log(JSON.stringify(steps, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
