#!/usr/bin/env bash
# Builds editors/vscode/agent-sdk.vsix: compiles the extension with the pinned TypeScript and
# packages it with the pinned @vscode/vsce. Needs `npm ci --prefix editors/vscode` first
# (scripts/test-setup runs it); works offline after that.
set -euo pipefail
cd "$(dirname "$0")"
npx --no-install tsc -p .
npx --no-install vsce package --out agent-sdk.vsix --skip-license
