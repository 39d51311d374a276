// The agent-sdk extension: starts `agent-sdk lsp` for the workspace and lets
// vscode-languageclient speak to it. Which binary: the `agentSdk.path` setting, else the
// workspace folders' `node_modules/.bin/agent-sdk` (the npm package's), else `agent-sdk` on PATH.
// The server runs no code of the workspace unless `agentSdk.runExtensions` is set and the
// workspace is trusted (package.json declares both settings restricted in untrusted ones).
//
// What lives as long as the extension (the listeners that restart the server, the commands,
// the output channel, the file watcher) is made once in `activate` and handed to VS Code to
// dispose; a restart replaces only the client. Made again on every restart, each listener
// would restart the server once more per earlier restart, and VS Code would list one more
// "agent-sdk" output channel each time.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;
/** Restarts run one after the other: two at once would start two servers. */
let restarts: Promise<void> = Promise.resolve();

/** The binary to start: the setting, the workspace's npm install, or PATH's. */
function binary(): string {
  const configured = vscode.workspace.getConfiguration("agentSdk").get<string>("path")?.trim();
  if (configured) {
    return configured;
  }
  const name = process.platform === "win32" ? "agent-sdk.cmd" : "agent-sdk";
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const installed = path.join(folder.uri.fsPath, "node_modules", ".bin", name);
    if (fs.existsSync(installed)) {
      return installed;
    }
  }
  return "agent-sdk";
}

/** Whether the server may run the workspace's extension mounts: asked, and trusted. */
function runExtensions(): boolean {
  const asked = vscode.workspace.getConfiguration("agentSdk").get<boolean>("runExtensions") === true;
  return asked && vscode.workspace.isTrusted;
}

/** Starts a client (and its server) with the settings as they are now. */
async function start(outputChannel: vscode.LogOutputChannel, watcher: vscode.FileSystemWatcher): Promise<void> {
  const command = binary();
  const serverOptions: ServerOptions = { command, args: ["lsp", "--stdio"] };
  const clientOptions: LanguageClientOptions = {
    initializationOptions: { runExtensions: runExtensions() },
    documentSelector: [
      { scheme: "file", language: "typescript" },
      { scheme: "file", language: "javascript" },
      { scheme: "file", pattern: "**/{package.json,tsconfig.json,agent-sdk.json,agent-sdk.jsonc}" },
    ],
    outputChannel,
    // The server re-checks a project when its configuration or a module changes on disk.
    synchronize: { fileEvents: watcher },
  };
  try {
    client = new LanguageClient("agentSdk", "agent-sdk", serverOptions, clientOptions);
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(
      `agent-sdk: could not start \`${command} lsp\` (${String(error)}). Install agent-sdk or set agentSdk.path.`,
    );
  }
}

/** Stops the running client, if any, and its server. */
async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  try {
    await running?.stop();
  } catch {
    // A client whose server never started has nothing to stop, and it must not keep the next
    // one from starting (restarts wait for each other).
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // A log channel: the client writes to it with `info`, `warn` and `error`.
  const outputChannel = vscode.window.createOutputChannel("agent-sdk", { log: true });
  const watcher = vscode.workspace.createFileSystemWatcher(
    "**/{package.json,tsconfig.json,agent-sdk.json,agent-sdk.jsonc,*.ts,*.mts,*.cts,*.js,*.mjs,*.cjs}",
  );
  const restart = (): Promise<void> => {
    restarts = restarts.then(async () => {
      await stop();
      await start(outputChannel, watcher);
    });
    return restarts;
  };
  context.subscriptions.push(
    outputChannel,
    watcher,
    vscode.commands.registerCommand("agentSdk.restartServer", restart),
    vscode.commands.registerCommand("agentSdk.showOutput", () => outputChannel.show()),
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (change.affectsConfiguration("agentSdk.path") || change.affectsConfiguration("agentSdk.runExtensions")) {
        await restart();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(restart),
  );
  await restart();
}

export async function deactivate(): Promise<void> {
  await restarts;
  await stop();
}
