// The agent-sdk extension: starts `agent-sdk lsp` for the workspace and lets
// vscode-languageclient speak to it. Which binary: the `agentSdk.path` setting, else the
// workspace folders' `node_modules/.bin/agent-sdk` (the npm package's), else `agent-sdk` on PATH.
// The server runs no code of the workspace unless `agentSdk.runExtensions` is set and the
// workspace is trusted (package.json declares both settings restricted in untrusted ones).

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = binary();
  const serverOptions: ServerOptions = { command, args: ["lsp", "--stdio"] };
  const clientOptions: LanguageClientOptions = {
    initializationOptions: { runExtensions: runExtensions() },
    documentSelector: [
      { scheme: "file", language: "typescript" },
      { scheme: "file", language: "javascript" },
      { scheme: "file", pattern: "**/{package,tsconfig,agent-sdk}.json" },
    ],
    synchronize: {
      // The server re-checks a project when its configuration or a module changes on disk.
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{package.json,tsconfig.json,agent-sdk.json,*.ts,*.mts,*.cts,*.js,*.mjs,*.cjs}",
      ),
    },
  };
  client = new LanguageClient("agentSdk", "agent-sdk", serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (change.affectsConfiguration("agentSdk.path") || change.affectsConfiguration("agentSdk.runExtensions")) {
        await deactivate();
        await activate(context);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await deactivate();
      await activate(context);
    }),
  );
  try {
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(
      `agent-sdk: could not start \`${command} lsp\` (${String(error)}). Install agent-sdk or set agentSdk.path.`,
    );
  }
}

export async function deactivate(): Promise<void> {
  const running = client;
  client = undefined;
  await running?.stop();
}
