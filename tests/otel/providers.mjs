// What only an exporter can see of the runtime's OpenTelemetry providers
// (src/runtime/node/sdk/otel-api.cjs), checked through the real @opentelemetry/api and
// @opentelemetry/api-logs of fixtures/otel/api-metrics: the parent a handler's span gives
// the spans started inside it, what a span records, the traceparent fetch sends, and the
// log records; and, through the hook host itself (handler-spans.mjs), the span of each
// handler of a traced event. Prints one JSON object of what it saw; tests/it/otel.rs asserts
// on it.

import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

import { handlerSpans } from './handler-spans.mjs';

const runtime = createRequire(import.meta.url)('../../src/runtime/node/sdk/otel-api.cjs');
const project = createRequire(new URL('../../fixtures/otel/api-metrics/package.json', import.meta.url));

const spans = [];
const measurements = [];
const logRecords = [];
runtime.installMeterProvider((kind, name, value, attrs, scope, unit) => measurements.push({ kind, name, value, scope, unit }), '1.10.0');
const context = runtime.installTracerProvider((span) => spans.push(span), '1.10.0');
runtime.installLoggerProvider((record) => logRecords.push(record), context.activeSpanContext);

const { metrics, trace, SpanKind, SpanStatusCode } = project('@opentelemetry/api');
const { logs, SeverityNumber } = project('@opentelemetry/api-logs');

const turn = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
const sinceStart = performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const tracer = trace.getTracer('acme.tracer');
const seen = {};

// A handler's span parents the spans its code starts, across awaits.
await context.runInSpan(turn, async () => {
  await sleep(2);
  seen.activeInHandler = trace.getActiveSpan()?.spanContext().spanId ?? null;
  await tracer.startActiveSpan('acme.outer', async (outer) => {
    await sleep(2);
    tracer.startSpan('acme.inner').end();
    outer.end();
  });
  tracer.startSpan('acme.root', { root: true }).end();
  // A startTime smaller than the process's start is a performance.now(), as the SDK reads it.
  tracer.startSpan('acme.since-start', { startTime: sinceStart }).end();
});
seen.activeAfterHandler = trace.getActiveSpan()?.spanContext().spanId ?? null;

// What a span records: kind, links, events (exception included), status, its times.
const linked = { traceId: '5bf92f3577b34da6a3ce929d0e0e4736', spanId: '10f067aa0ba902b7', traceFlags: 1 };
const detailed = tracer.startSpan('acme.detailed', {
  kind: SpanKind.CLIENT,
  startTime: new Date(1_764_484_800_000),
  links: [{ context: linked, attributes: { why: 'batch' } }],
  attributes: { 'http.method': 'GET', nested: { no: 1 } },
});
detailed.addEvent('acme.plain', { step: 1 });
detailed.addEvent('acme.hrtime', [1_764_484_800, 500_000_000]);
detailed.addEvent('acme.dated', { step: 3 }, new Date(1_764_484_800_750));
detailed.addLink({ context: { ...linked, spanId: '20f067aa0ba902b7' } });
detailed.recordException(new TypeError('bad input'));
detailed.setStatus({ code: SpanStatusCode.ERROR, message: 'bad input' });
detailed.end([1_764_484_801, 0]);
const crowded = tracer.startSpan('acme.crowded');
for (let i = 0; i < 130; i++) crowded.addEvent(`e${i}`);
crowded.setStatus({ code: SpanStatusCode.OK });
crowded.setStatus({ code: SpanStatusCode.ERROR, message: 'too late: OK is final' });
crowded.end();

// Meters: each name its own, with its instruments' units.
const latency = metrics.getMeter('acme.meter').createHistogram('acme.latency', { unit: 'ms' });
latency.record(5);
metrics.getMeter('acme.other').createCounter('acme.count').add(1);
seen.sameMeterForSameName = metrics.getMeter('acme.meter') === metrics.getMeter('acme.meter');
seen.otherMeterForOtherName = metrics.getMeter('acme.meter') !== metrics.getMeter('acme.other');

// fetch: a traceparent inside a span, once traces are exported, and never over the caller's.
const received = [];
const server = createServer((request, response) => {
  received.push({ path: request.url, traceparent: request.headers.traceparent ?? null, kept: request.headers['x-kept'] ?? null });
  response.end('ok');
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${server.address().port}`;
const get = async (...args) => (await fetch(...args)).text();

await context.runInSpan(turn, () => get(`${base}/not-exported`));
runtime.addTraceparentToFetch(context.activeSpanContext);
runtime.addTraceparentToFetch(context.activeSpanContext);
const wrapped = globalThis.fetch;
await get(`${base}/outside`);
await context.runInSpan(turn, async () => {
  await get(`${base}/plain`, { headers: { 'x-kept': 'object' } });
  await get(`${base}/headers`, { headers: new Headers({ 'x-kept': 'headers' }) });
  await get(`${base}/pairs`, { headers: [['x-kept', 'pairs']] });
  await get(new Request(`${base}/request`, { headers: { 'x-kept': 'request' } }));
  await get(`${base}/callers`, { headers: { TraceParent: '00-11111111111111111111111111111111-2222222222222222-00' } });
  await get(new Request(`${base}/callers-request`, { headers: { traceparent: '00-33333333333333333333333333333333-4444444444444444-01' } }));
  await tracer.startActiveSpan('acme.call', async (span) => {
    seen.callSpanId = span.spanContext().spanId;
    await get(`${base}/in-child`);
    span.end();
  });
});
server.close();
seen.fetchWrappedOnce = wrapped === globalThis.fetch;

// Logs.
const logger = logs.getLogger('acme.logger');
logger.emit({ severityNumber: SeverityNumber.WARN, severityText: 'WARN', body: { reason: 'quota' }, attributes: { k: 'v', deep: { no: 1 } }, timestamp: new Date(1_764_484_800_000) });
context.runInSpan(turn, () => logger.emit({ body: 'x'.repeat(20_000) }));
logger.emit({ severityNumber: 99, body: 'é'.repeat(10_000) });
seen.loggerEnabled = logger.enabled?.() ?? null;

const hosts = await handlerSpans();

console.log(JSON.stringify({ seen, spans, measurements, received, logRecords, hosts }));
