// The request both threads of the runtime make for a module no string literal imports
// (`import(name)` of a computed name, in loader.mjs; `require(name)`, in host.mjs): the
// binary's `agent-sdk __load-module` compiles what it reaches into the same cache and
// answers one JSON line, `{ "target", "manifest" }` or `{ "error" }` (what validate
// would have said). Running the binary is each thread's own business (async or sync).

/** The binary's arguments: `from` imports `specifier` (with `require` when `viaRequire`). */
export function loadModuleArgs(from, specifier, viaRequire) {
  const args = ['__load-module', '--dir', process.env.AGENT_SDK_PROJECT_ROOT];
  if (from) args.push('--from', from);
  if (from && viaRequire) args.push('--require');
  args.push('--', specifier);
  return args;
}

/**
 * Reads the binary's answer into `manifest` (its modules and resolutions merged in) and
 * returns the target path, or null when it has nothing to add; throws its error.
 */
export function applyAnswer(manifest, stdout) {
  const answer = JSON.parse(stdout);
  if (answer.error) throw new Error(answer.error);
  if (answer.manifest) {
    Object.assign(manifest.modules, answer.manifest.modules);
    Object.assign(manifest.resolutions, answer.manifest.resolutions);
  }
  return answer.target ?? null;
}
