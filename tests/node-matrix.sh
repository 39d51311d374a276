#!/usr/bin/env bash
# The suites that start Node.js, on each Node major users run (22 and 24, LTS; 26, current):
# installs each version from the npm registry (the node@<version> packages carry the
# official binaries) under target/node/, puts it first on PATH and in AGENT_SDK_NODE, and
# runs those suites with the module hooks where that Node puts them (in-thread: every
# version here has module.registerHooks), then the module-loading suites again on Node's
# loader thread (AGENT_SDK_MODULE_HOOKS=worker, the path of Node 20.6–22.14).
# AGENT_SDK_NODE_MATRIX="22.23.3 …" picks other versions.
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -a versions <<<"${AGENT_SDK_NODE_MATRIX:-22.23.3 24.21.0 26.10.0}"
# As libtest takes them: a module's path, `<suite>::`, filters the one test crate to it.
node_suites=()
for suite in runtime agreement run dev hosting_api playground chat test_command hostile init types extensions what_runs otel config lsp node_eol; do
  node_suites+=("$suite::")
done
both_paths=()
for suite in runtime agreement hostile extensions what_runs test_command; do both_paths+=("$suite::"); done

for version in "${versions[@]}"; do
  dir="target/node/$version"
  if [ ! -x "$dir/node_modules/.bin/node" ]; then
    npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$version"
  fi
  bin="$(cd "$dir/node_modules/.bin" && pwd)"
  echo "== Node $("$bin/node" --version): module hooks in-thread"
  PATH="$bin:$PATH" AGENT_SDK_NODE="$bin/node" cargo test --locked --test it -- "${node_suites[@]}"
  echo "== Node $("$bin/node" --version): module hooks on the loader thread"
  PATH="$bin:$PATH" AGENT_SDK_NODE="$bin/node" AGENT_SDK_MODULE_HOOKS=worker cargo test --locked --test it -- "${both_paths[@]}"
done
