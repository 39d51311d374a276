// The plain-Node floor of a replay (bench/replay.py): the NDJSON events on stdin piped into
// the handlers of the hook modules named on the command line (the code agent-sdk compiled
// for them, the SDK import pointed at the runtime's own copy), in order, one event at a time,
// each hook's handler for the event's type and then its "*", a promise awaited, with an
// in-memory key-value store and a counter standing in for agent-sdk's host. No protocol, no
// recording, no frozen copy: what any design that runs these handlers in Node pays.
//
//   node bench/replay-floor.mjs <hook.mjs>… < events.jsonl
//
// Prints `<events> events` on stdout at the end (the bench checks the count).

import { pathToFileURL } from 'node:url';

const hooks = [];
for (const path of process.argv.slice(2)) {
  const { default: exported } = await import(pathToFileURL(path).href);
  // TypeScript's `export default` compiled to CommonJS is `exports.default`.
  hooks.push((exported?.__esModule ? exported.default : exported).events);
}

const kv = new Map();
const counters = new Map();
const ctx = {
  session: { id: 'ses_floor', channelId: 'local', mode: 'chat', purpose: 'live', auth: null },
  agent: { name: 'replay-bench' },
  channel: { id: 'local', continuationToken: null },
  host: {
    kv: {
      // Stored as the host stores it: as JSON text.
      async get(key) {
        const text = kv.get(key);
        return text === undefined ? null : JSON.parse(text);
      },
      async set(key, value) {
        kv.set(key, JSON.stringify(value));
      },
      async delete(key) {
        return kv.delete(key);
      },
      async list(prefix = '') {
        return [...kv.keys()].filter((key) => key.startsWith(prefix)).sort();
      },
    },
    otel: {
      increment(name, value = 1) {
        counters.set(name, (counters.get(name) ?? 0) + (typeof value === 'number' ? value : 1));
      },
      histogram() {},
      tag() {},
    },
  },
};

let events = 0;
let rest = '';
// Chunk by chunk (Node's own stream, 64 KiB at a time), each whole line an event.
for await (const chunk of process.stdin.setEncoding('utf8')) {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    if (line === '') continue;
    const pending = runHandlers(JSON.parse(line), 0, 0);
    if (pending !== undefined) await pending;
  }
}
if (rest !== '') await runHandlers(JSON.parse(rest), 0, 0);
process.stdout.write(`${events} events\n`);

/**
 * Runs the event's handlers from hook `index`'s handler `which` (0: its type's, 1: "*")
 * on; returns a promise of the rest only when a handler returned one.
 */
function runHandlers(event, index, which) {
  for (; index < hooks.length; index++, which = 0) {
    for (; which < 2; which++) {
      const key = which === 0 ? event.type : '*';
      if (!Object.hasOwn(hooks[index], key)) continue;
      const result = hooks[index][key](event, ctx);
      if (typeof result?.then === 'function') {
        const [next, nextWhich] = which === 0 ? [index, 1] : [index + 1, 0];
        return result.then(() => runHandlers(event, next, nextWhich));
      }
    }
  }
  events++;
  return undefined;
}
