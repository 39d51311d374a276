// @ts-check
// The module hooks (module-hooks.mjs) on Node's loader thread, registered by
// project-modules.mjs with module.register() where Node has no module.registerHooks()
// (20.6–22.14, 23.0–23.4), or when AGENT_SDK_MODULE_HOOKS=worker asks for it.
//
// The binary decides everything ahead of time and the main thread posts it here as the
// MANIFEST (one object, the same one the main thread uses for require()):
//   { "modules":     { "<abs path>": { "format": "module"|"commonjs"|"json"|"other", "code": "<abs path>"|null,
//                                       "exports": ["<named export of TypeScript compiled to CommonJS>", …] } },
//     "resolutions": { "<abs importer path>": { "<specifier>": "<abs path>" } },
//     "sdk":         { "<SDK specifier>": { "import": "<abs path>", "require": "<abs path>" } } }
// and this thread answers {"t":"manifest-ready"} on the same port once it has it. It asks
// the binary for modules the manifest lacks through the main thread's `channel` (the module
// channel's fds and the lock they share; null: in a process of its own, see on-demand.mjs).

import { useManifest } from './module-hooks.mjs';
import { askThrough } from './on-demand.mjs';

export { load, resolve } from './module-hooks.mjs';

export async function initialize({ port, channel }) {
  askThrough(channel ?? null);
  port.on('message', (message) => {
    useManifest(message);
    port.postMessage({ t: 'manifest-ready' });
  });
  port.unref();
}
