#!/usr/bin/env bash
# Builds editors/vscode/agent-sdk.vsix: type-checks the extension with the pinned TypeScript,
# bundles it and the language client into the one file out/extension.js with the pinned
# esbuild, copies the settings schema beside it (package.json's jsonValidation points there),
# and packages that with the pinned @vscode/vsce, without node_modules (everything it needs is
# in the bundle). Needs `npm ci --prefix editors/vscode` first (scripts/test-setup runs it);
# works offline after that.
set -euo pipefail
cd "$(dirname "$0")"
npx --no-install tsc -p .
rm -rf out
npm run --silent bundle
cp ../../agent-sdk.schema.json out/agent-sdk.schema.json
npx --no-install vsce package --no-dependencies --out agent-sdk.vsix --skip-license
