// The messages across the Node boundary, generated from src/protocol.rs (and the
// types it names) by ts-rs: do not edit. `UPDATE_PROTOCOL=1 cargo test --lib protocol_d_ts`
// writes it again after a change there.

/**
 * The answer to `artifacts.tag`: where the artifact was tagged.
 */

export type ArtifactTagged = { sessionId: string, turnId: string | null, };

/**
 * A `ctx.host` (or `ctx.artifacts`) call a handler awaits. Read as it comes (a method or
 * arguments agent-sdk does not know are answered with an error, see [`HostCall::of`]);
 * what the runtime sends is a [`HostCall`].
 */

export type Call = { id: number, hook?: string | null, resolved?: boolean } & HostCall;

/**
 * How loud a hook's output is: `console.log`/`info`/`debug` and stdout are `info`, `warn`
 * and stderr `warn`, `error`/`trace` `error`.
 */

export type ConsoleLevel = "info" | "warn" | "error";

/**
 * `ctx.agent`.
 */

export type CtxAgent = { name: string, };

/**
 * `ctx.channel`.
 */

export type CtxChannel = { id: string, 
/**
 * `None` when the session cannot take follow-ups (`run` is one-shot).
 */
continuationToken: string | null, };

/**
 * `ctx.session`.
 */

export type CtxSession = { id: string, channelId: string, mode: string, purpose: string, 
/**
 * Always null in a local run.
 */
auth: null, 
/**
 * Present only when set, as the vendor documents `title`.
 */
title?: string, };

/**
 * One recorded event of a session.
 */

export type Envelope = { type: string, 
/**
 * Counts from 0 across the whole session.
 */
index: number, sessionId: string, turnId?: string, 
/**
 * RFC 3339 UTC with milliseconds.
 */
at: string, data: JsonValue, };

/**
 * Whose files a `ctx.host.files` call reaches.
 */

export type FileScope = "session" | "deployment";

/**
 * Node → agent-sdk.
 */

export type FromNode = { "t": "hello", node: string, } | { "t": "loading", hook: string, } | { "t": "loaded", hook: string, events?: Array<string>, } | { "t": "load_failed", hook: string, message?: string, stack?: string | null, } | { "t": "ready" } | { "t": "mounted", namespace: string, hooks?: Array<MountedHook>, 
/**
 * The names given to `disableHook`, in order.
 */
disabled?: Array<string>, instructions?: string | null, secretNames?: Array<string>, egressDomains?: Array<string>, 
/**
 * Why it mounts nothing: the import threw (the factory rejected its options), or the
 * default export is not a mount.
 */
problem?: MountProblem | null, } | { "t": "mounts_done" } | { "t": "threw", seq: number, hook: number, handler: string, message?: string, stack?: string | null, } | { "t": "timed_out", seq: number, hook: number, handler: string, } | { "t": "handler" } & HandlerEnded | { "t": "done", seq: number, } | { "t": "call" } & Call | { "t": "otel" } & Otel | { "t": "console", level: ConsoleLevel, hook?: string | null, text?: string, } | { "t": "unhandled" } & Unhandled | { "t": "bye" } | { "t": "exit", hook?: string | null, code?: JsonValue, stack?: string | null, };

/**
 * How one handler of a traced event ran: the span of a hook handler.
 */

export type HandlerEnded = { seq: number, hook: number, 
/**
 * The event key it handled (`turn.completed`, `*`).
 */
handler: string, 
/**
 * 16 hex digits, made by the runtime: the parent of the spans the handler starts;
 * `null` for an event sent without a `trace`.
 */
spanId?: string | null, 
/**
 * When it started, in milliseconds since the Unix epoch (with a fraction).
 */
start: number, 
/**
 * How long it ran, in milliseconds.
 */
ms: number, outcome: HandlerOutcome, 
/**
 * Why, when it threw (the `threw` line's message) or timed out.
 */
error?: string | null, };

export type HandlerOutcome = "ok" | "threw" | "timed_out";

/**
 * The facts of the `ctx` every handler of a session receives (SPEC §7), without its
 * functions (the runtime adds `host` and `artifacts`).
 */

export type HookCtx = { session: CtxSession, agent: CtxAgent, channel: CtxChannel, 
/**
 * The state root, absolute.
 */
stateRoot: string, };

/**
 * One hook of an [`ToNode::Init`].
 */

export type HookToImport = { name: string, 
/**
 * `file://` URL of its source module.
 */
url: string, 
/**
 * Its source path relative to `--dir`.
 */
source: string, 
/**
 * For a hook an extension mounts: its name inside the extension (`url` is then the
 * mount file's).
 */
key?: string, 
/**
 * Why it is not imported (it failed to load before): reported as a load failure.
 */
skip?: string, };

/**
 * A host call by its method, with its arguments (`args`, an array): what `ctx.host` and
 * `ctx.artifacts` ask of agent-sdk.
 */

export type HostCall = { "method": "kv.get", "args": [string] } | { "method": "kv.set", "args": [string, JsonValue] } | { "method": "kv.delete", "args": [string] } | { "method": "kv.list", "args": [string | null] } | { "method": "files.write", "args": [string, string, FileScope] } | { "method": "files.append", "args": [string, string, FileScope] } | { "method": "files.read", "args": [string, FileScope] } | { "method": "files.list", "args": [FileScope] } | { "method": "reminders.set", "args": [JsonValue, string] } | { "method": "reminders.list", "args": [] } | { "method": "artifacts.tag", "args": [string, JsonValue, string | null] };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * The session lane a message from Node is about, when it names one (`"session":2`): any
 * of [`FromNode`] may carry it.
 */

export type LaneOf = { session?: number | null, };

/**
 * What the runtime's loader needs (see `node/loader.mjs`): for each module, its format and
 * compiled code; for each importer, where its specifiers lead; the SDK's files for every
 * SDK specifier. Paths are absolute; built-ins are left to Node. In the order they were
 * found.
 */

export type Manifest = { 
/**
 * By the module's source path.
 */
modules: { [key in string]: ManifestModule }, 
/**
 * By importer path, then specifier: the path it leads to.
 */
resolutions: { [key in string]: { [key in string]: string } }, 
/**
 * By SDK specifier (`@cursor/bdk/hooks`).
 */
sdk: { [key in string]: SdkFiles }, };

/**
 * How Node loads a module of a [`Manifest`].
 */

export type ManifestFormat = "module" | "commonjs" | "json" | "other";

/**
 * One module of a [`Manifest`].
 */

export type ManifestModule = { format: ManifestFormat, 
/**
 * Its compiled code; `None`: Node loads the source as it is.
 */
code: string | null, 
/**
 * The named exports of TypeScript compiled to CommonJS.
 */
exports: Array<string>, };

/**
 * The answer to a [`ModuleRequest`].
 */

export type ModuleAnswer = { target: string | null, manifest?: Manifest, } | { error: string, };

/**
 * What the runtime asks for: one line of the module channel, or the arguments of
 * `agent-sdk __load-module`.
 */

export type ModuleRequest = { 
/**
 * The module importing `specifier` (absolute); `None`: `specifier` is the path of a
 * module to compile (one the manifest lacks, or whose compiled code is gone).
 */
from: string | null, specifier: string, 
/**
 * Asked by `require()` (CommonJS resolution), not `import()`.
 */
require?: boolean, };

export type MountProblem = { kind: MountProblemKind, message?: string, stack?: string | null, };

export type MountProblemKind = "threw" | "not_a_mount";

/**
 * One mount file of a [`ToNode::Mount`].
 */

export type MountToImport = { namespace: string, 
/**
 * `file://` URL of the mount file.
 */
url: string, };

/**
 * One hook of a mount, by its key inside the extension.
 */

export type MountedHook = { key: string, 
/**
 * Its event keys; `None` when the value is not a `defineHook` result.
 */
events: Array<string> | null, };

/**
 * A record of `ctx.host.otel` or of `@opentelemetry/api` (a measurement, an ended span, a
 * log record): fire and forget. The keys past `error` come with the API's records only.
 */

export type Otel = { kind: OtelKind, 
/**
 * The instrument's, span's or (for a log record) logger's name.
 */
name: string, 
/**
 * A measurement; a span's milliseconds; a log record's body, as text.
 */
value?: JsonValue, attrs?: JsonValue, hook?: string | null, 
/**
 * For a span whose status is ERROR: why.
 */
error?: string | null, 
/**
 * The name of the meter or tracer (`getMeter("acme")`) it came from.
 */
scope?: string | null, 
/**
 * A span's ids (a log record's: the active span's, when there was one).
 */
traceId?: string | null, spanId?: string | null, 
/**
 * `None` for a root span.
 */
parentSpanId?: string | null, 
/**
 * A span's start (a log record's time), in milliseconds since the Unix epoch.
 */
start?: number | null, 
/**
 * `SpanKind` of `@opentelemetry/api`: INTERNAL 0, SERVER 1, CLIENT 2, PRODUCER 3, CONSUMER 4.
 */
spanKind?: number | null, status?: SpanStatus | null, events?: Array<SpanEvent>, links?: Array<SpanLink>, 
/**
 * Events and links past the 128 a span keeps of each.
 */
droppedEvents?: number, droppedLinks?: number, 
/**
 * An instrument's unit, when it was made with one (`{ unit: "ms" }`).
 */
unit?: string | null, 
/**
 * A log record's `SeverityNumber` (1–24).
 */
severity?: number | null, severityText?: string | null, };

export type OtelKind = "counter" | "updown" | "histogram" | "gauge" | "tag" | "span" | "log";

/**
 * One reminder of a `reminders.list` answer.
 */

export type Reminder = { at: string, note: string, };

/**
 * The reply to a `ctx` call: its value, or the message its promise rejects with.
 */

export type Reply = { 
/**
 * The call's id, as it came (the runtime numbers its calls).
 */
id: number, ok: boolean, value?: JsonValue, error?: string, };

/**
 * An SDK module's two files.
 */

export type SdkFiles = { import: string, require: string, };

/**
 * `span.addEvent(name, attributes, time)`, or `recordException` (named `exception`).
 */

export type SpanEvent = { name: string, 
/**
 * Milliseconds since the Unix epoch.
 */
time: number, attrs?: JsonValue, };

/**
 * A link to another span (`startSpan`'s `links`, `addLink`).
 */

export type SpanLink = { traceId: string, spanId: string, attrs?: JsonValue, };

/**
 * A span's status: `SpanStatusCode` UNSET 0, OK 1, ERROR 2; a message with ERROR only.
 */

export type SpanStatus = { code: number, message?: string | null, };

/**
 * agent-sdk → Node.
 */

export type ToNode = { "t": "init", hooks: Array<HookToImport>, 
/**
 * The default lane's `ctx`.
 */
ctx: HookCtx | Record<string, never> | null, timeoutMs: number, 
/**
 * The timeout as people write it (`30s`), for the runtime's own messages.
 */
timeoutText: string, manifest: Manifest, 
/**
 * The version the OpenTelemetry providers register as, at the first init; `None`:
 * they register nothing (the project sets up its own).
 */
otelApiVersion: string | null, 
/**
 * Traces are being exported: a `fetch` made while a span is active carries its
 * `traceparent` (with no exporter, fetch is left as it is).
 */
tracing: boolean, } | { "t": "mount", mounts: Array<MountToImport>, } | { "t": "event", seq: number, from: number, event: Envelope, trace?: TraceParent, timeline?: boolean, 
/**
 * The session lane it belongs to (a runtime serving many sessions); `None`: the
 * default lane.
 */
session?: number, } | { "t": "open", session: number, slot: number, ctx: HookCtx, } | { "t": "close", session: number, } | { "t": "reply" } & Reply | { "t": "shutdown" };

/**
 * The span an event's handler spans are children of: W3C trace context ids, lowercase hex.
 */

export type TraceParent = { 
/**
 * 32 hex digits.
 */
traceId: string, 
/**
 * 16 hex digits.
 */
spanId: string, };

/**
 * An error in a hook's code that nothing handled: see [`FromNode::Unhandled`].
 */

export type Unhandled = { kind: UnhandledKind, hook?: string | null, 
/**
 * Whether the code that failed ran after the handler that started it had returned (its
 * promise was not awaited): then awaiting it fixes it.
 */
afterReturn?: boolean, 
/**
 * What was thrown, with its causes: its stack when it has one.
 */
text?: string, };

/**
 * Node's names for the two kinds: an `unhandledRejection`, an `uncaughtException`.
 */

export type UnhandledKind = "rejection" | "exception";
