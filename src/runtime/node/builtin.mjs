// @ts-check
// Node's built-in modules, for the runtime's own files. An ES import of a built-in
// (`import { writeSync } from 'node:fs'`) builds the module's namespace, which reads every
// export and so loads what its getters defer (node:fs's `promises`, its streams): on Node 24
// the runtime's five such imports cost about 2.7 ms of every run's start. As CommonJS
// objects they cost what their own code does. process.getBuiltinModule is Node's way to
// get one from an ES module (≥ 20.16, ≥ 22.3); older Nodes take require().

/** @type {(id: string) => any} */
export const builtin =
  typeof process.getBuiltinModule === 'function'
    ? process.getBuiltinModule.bind(process)
    : (await import('node:module')).createRequire(import.meta.url);
