// The request the module hooks (module-hooks.mjs, for `import(name)` of a computed name) and
// the CommonJS hooks (project-modules.mjs, for `require(name)`) make for a module no string
// literal imports: the binary's `agent-sdk __load-module` compiles what it reaches into the
// same cache and answers one JSON line, `{ "target", "manifest" }` or `{ "error" }` (what
// validate would have said).

import { createRequire } from 'node:module';

/**
 * Asks the binary for `specifier` as `from` imports it (with `require` when `viaRequire`;
 * `from` null: `specifier` is a file path), merges its answer into `manifest` and returns
 * the target path, or null when it has nothing to add; throws its error.
 */
export function askBinary(manifest, from, specifier, viaRequire) {
  // Loaded here, not at start-up: most runs never need it, and every start-up pays for it.
  const { execFileSync } = createRequire(import.meta.url)('node:child_process');
  const args = ['__load-module', '--dir', process.env.AGENT_SDK_PROJECT_ROOT];
  if (from) args.push('--from', from);
  if (from && viaRequire) args.push('--require');
  args.push('--', specifier);
  const answer = JSON.parse(execFileSync(process.env.AGENT_SDK_EXE, args, { encoding: 'utf8' }));
  if (answer.error) throw new Error(answer.error);
  if (answer.manifest) {
    Object.assign(manifest.modules, answer.manifest.modules);
    Object.assign(manifest.resolutions, answer.manifest.resolutions);
  }
  return answer.target ?? null;
}
