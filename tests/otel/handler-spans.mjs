// The hook host (src/runtime/node/host.mjs) driven over its protocol, as agent-sdk drives
// it, for what only an exporter sees: the "handler" line after each handler of an event
// sent with a "trace", the handler's span as the parent of what its code starts, and the
// traceparent its fetches carry only when "init" says traces are exported. Used by
// providers.mjs.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const host = fileURLToPath(new URL('../../src/runtime/node/host.mjs', import.meta.url));
const sdkHooks = new URL('../../src/runtime/node/sdk/hooks.mjs', import.meta.url).href;
const fixture = new URL('../../fixtures/otel/api-metrics/package.json', import.meta.url).href;

export const TURN = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };

const HOOK = `
import { createRequire } from 'node:module';
import { defineHook } from ${JSON.stringify(sdkHooks)};
const { trace } = createRequire(${JSON.stringify(fixture)})('@opentelemetry/api');
const tracer = trace.getTracer('acme.host');
const url = process.env.RECEIVER_URL;
export default defineHook({
  events: {
    async 'turn.completed'(event) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const active = trace.getActiveSpan()?.spanContext().spanId ?? null;
      await tracer.startActiveSpan('acme.in-handler', async (span) => {
        await fetch(url + '/in-span/' + event.index);
        span.end();
      });
      await fetch(url + '/in-handler/' + event.index);
      console.log(JSON.stringify({ index: event.index, active }));
    },
    'turn.failed'() {
      throw new Error('boom');
    },
    'message.received'() {
      return new Promise(() => {});
    },
    '*'() {},
  },
});
`;

/**
 * Runs one host with `init.tracing` = `tracing` (and the providers registering as
 * `otelApiVersion`) through `events`: its lines, and what the receiver saw.
 */
async function runHost(tracing, events, otelApiVersion = '1.10.0') {
  const dir = mkdtempSync(join(tmpdir(), 'agent-sdk-otel-'));
  const hookPath = join(dir, 'traced.mjs');
  writeFileSync(hookPath, HOOK);
  const received = [];
  const server = createServer((request, response) => {
    received.push({ path: request.url, traceparent: request.headers.traceparent ?? null });
    response.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const child = spawn(process.execPath, [host], {
    cwd: dir,
    // fds 3 and 4: the protocol; 5: replies to calls (none here); no handler slot (fd 6).
    stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, RECEIVER_URL: `http://127.0.0.1:${server.address().port}` },
  });
  const lines = [];
  createInterface({ input: child.stdio[4] }).on('line', (line) => lines.push(JSON.parse(line)));
  const send = (message) => child.stdio[3].write(`${JSON.stringify(message)}\n`);
  send({
    t: 'init',
    hooks: [{ name: 'traced', url: pathToFileURL(hookPath).href, source: 'traced.mjs' }],
    ctx: {},
    // The message.received handler never ends; the others' first fetch loads Node's fetch
    // (undici), some 200 ms on a busy 2-core machine: they have 2 s.
    timeoutMs: 2000,
    timeoutText: '2s',
    manifest: { modules: {}, resolutions: {}, sdk: {} },
    otelApiVersion,
    tracing,
  });
  for (const event of events) send(event);
  send({ t: 'shutdown' });
  await once(child, 'exit');
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return { lines, received };
}

const event = (seq, type, trace) => ({
  t: 'event',
  seq,
  from: 0,
  event: { type, index: seq, sessionId: 's', turnId: 't', at: '2026-11-30T06:00:00.000Z', data: {} },
  ...(trace && { trace }),
});

/**
 * What the hosts said and received: exporting (four events, three traced), not exporting
 * (one, traced), and exporting with the project's own providers in charge (one, traced).
 */
export async function handlerSpans() {
  const exporting = await runHost(true, [
    event(1, 'turn.completed', TURN),
    event(2, 'turn.failed', TURN),
    event(3, 'message.received', TURN),
    event(4, 'turn.completed'),
  ]);
  const notExporting = await runHost(false, [event(1, 'turn.completed', TURN)]);
  const ownProviders = await runHost(true, [event(1, 'turn.completed', TURN)], null);
  return { exporting, notExporting, ownProviders, now: Date.now() };
}
