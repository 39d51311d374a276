//! The runtime protocol's messages, one schema for both sides of the Node boundary: what
//! agent-sdk sends Node ([`ToNode`]) and what Node says ([`FromNode`]), one JSON object a
//! line tagged by `t`; the host calls a hook's `ctx` makes ([`HostCall`]) and what they
//! answer; the `ctx` facts ([`HookCtx`]); the loader's [`Manifest`]; and the module
//! channel's lines ([`ModuleRequest`], [`ModuleAnswer`]). These types and their doc
//! comments are the protocol's one statement; what types cannot say (which fd carries
//! what, the handler slot's layout, the order of lines, restarts) is at the top of
//! `node/host.mjs`.
//!
//! The runtime's JavaScript is checked against these types (`tsc --checkJs`, see
//! `node/tsconfig.json`): `node/protocol.d.ts` is generated from them by ts-rs, in tests
//! only, and a test fails when the checked-in file differs (`UPDATE_PROTOCOL=1 cargo test
//! --lib protocol_d_ts` rewrites it).

use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::envelope::Envelope;
use crate::state::log_record::Level;

/// agent-sdk → Node.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ToNode<'a> {
    /// Import every hook, in order (a hook's index is its position here).
    Init {
        hooks: Vec<HookToImport<'a>>,
        /// The default lane's `ctx`.
        #[cfg_attr(test, ts(type = "HookCtx | Record<string, never> | null"))]
        ctx: &'a InitCtx,
        #[serde(rename = "timeoutMs")]
        timeout_ms: u64,
        /// The timeout as people write it (`30s`), for the runtime's own messages.
        #[serde(rename = "timeoutText")]
        timeout_text: String,
        manifest: &'a Manifest,
        /// The version the OpenTelemetry providers register as, at the first init; `None`:
        /// they register nothing (the project sets up its own).
        #[serde(rename = "otelApiVersion")]
        otel_api_version: Option<&'a str>,
        /// Traces are being exported: a `fetch` made while a span is active carries its
        /// `traceparent` (with no exporter, fetch is left as it is).
        tracing: bool,
    },
    /// Import each mount file (after an init whose manifest serves them) and say what it
    /// mounts; nothing is dispatched.
    Mount { mounts: Vec<MountToImport<'a>> },
    /// Dispatch `event` to the hooks with index `from` and after. With `trace` (the span of
    /// the turn the event belongs to), each handler that runs is a span under it, and ends
    /// with a [`FromNode::Handler`]; with `timeline` (a `dev` session's: the playground's
    /// hooks timeline), each ends with one too, spans or not.
    Event {
        seq: u64,
        from: usize,
        event: &'a Envelope,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        trace: Option<TraceParent<'a>>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        timeline: bool,
        /// The session lane it belongs to (a runtime serving many sessions); `None`: the
        /// default lane.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        session: Option<u64>,
    },
    /// Opens session lane `session` (or gives it a new `ctx`): its events run with `ctx`,
    /// independently of other lanes'; `slot` is its record in the handler slot.
    Open { session: u64, slot: u32, ctx: &'a HookCtx },
    /// Forgets session lane `session` once its queue is empty.
    Close { session: u64 },
    /// The answer to a [`Call`].
    Reply(Reply),
    /// Finish what is queued, then exit.
    Shutdown,
}

/// The `ctx` of an init's default lane.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InitCtx {
    /// `run`'s and `test`'s: the session's events run in the default lane.
    Session(Box<HookCtx>),
    /// `{}`: a mount probe's, whose init runs no handler.
    Empty {},
    /// `null`: a runtime `dev`'s sessions share, each of which opens a lane of its own.
    Shared,
}

/// The facts of the `ctx` every handler of a session receives (SPEC §7), without its
/// functions (the runtime adds `host` and `artifacts`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HookCtx {
    pub session: CtxSession,
    pub agent: CtxAgent,
    pub channel: CtxChannel,
    /// The state root, absolute.
    pub state_root: PathBuf,
}

/// `ctx.session`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CtxSession {
    pub id: String,
    pub channel_id: String,
    pub mode: String,
    pub purpose: String,
    /// Always null in a local run.
    #[cfg_attr(test, ts(type = "null"))]
    pub auth: (),
    /// Present only when set, as the vendor documents `title`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub title: Option<String>,
}

/// `ctx.agent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CtxAgent {
    pub name: String,
}

/// `ctx.channel`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CtxChannel {
    pub id: String,
    /// `None` when the session cannot take follow-ups (`run` is one-shot).
    pub continuation_token: Option<String>,
}

/// What the runtime's loader needs (see `node/loader.mjs`): for each module, its format and
/// compiled code; for each importer, where its specifiers lead; the SDK's files for every
/// SDK specifier. Paths are absolute; built-ins are left to Node. In the order they were
/// found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Manifest {
    /// By the module's source path.
    pub modules: IndexMap<String, ManifestModule>,
    /// By importer path, then specifier: the path it leads to.
    pub resolutions: IndexMap<String, IndexMap<String, String>>,
    /// By SDK specifier (`@cursor/bdk/hooks`).
    pub sdk: IndexMap<String, SdkFiles>,
}

/// One module of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ManifestModule {
    pub format: ManifestFormat,
    /// Its compiled code; `None`: Node loads the source as it is.
    pub code: Option<String>,
    /// The named exports of TypeScript compiled to CommonJS.
    pub exports: Vec<String>,
}

/// How Node loads a module of a [`Manifest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ManifestFormat {
    Module,
    Commonjs,
    Json,
    Other,
}

/// An SDK module's two files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SdkFiles {
    pub import: String,
    pub require: String,
}

/// What the runtime asks for: one line of the module channel, or the arguments of
/// `agent-sdk __load-module`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModuleRequest {
    /// The module importing `specifier` (absolute); `None`: `specifier` is the path of a
    /// module to compile (one the manifest lacks, or whose compiled code is gone).
    pub from: Option<PathBuf>,
    pub specifier: String,
    /// Asked by `require()` (CommonJS resolution), not `import()`.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub require: bool,
}

/// The answer to a [`ModuleRequest`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(untagged)]
pub enum ModuleAnswer {
    /// Where the import leads (`None`: a built-in, which Node resolves), and the manifest
    /// of what it reaches (`None`: Node loads it as it is, a JSON file or a package's
    /// JavaScript).
    Found {
        target: Option<PathBuf>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        manifest: Option<Box<Manifest>>,
    },
    /// Why it would not load, as `validate` would have said it.
    Refused { error: String },
}

/// The span an event's handler spans are children of: W3C trace context ids, lowercase hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TraceParent<'a> {
    /// 32 hex digits.
    #[serde(rename = "traceId")]
    pub trace_id: &'a str,
    /// 16 hex digits.
    #[serde(rename = "spanId")]
    pub span_id: &'a str,
}

/// One hook of an [`ToNode::Init`].
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HookToImport<'a> {
    pub name: &'a str,
    /// `file://` URL of its source module.
    pub url: &'a str,
    /// Its source path relative to `--dir`.
    pub source: &'a str,
    /// For a hook an extension mounts: its name inside the extension (`url` is then the
    /// mount file's).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub key: Option<&'a str>,
    /// Why it is not imported (it failed to load before): reported as a load failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub skip: Option<&'a str>,
}

/// One mount file of a [`ToNode::Mount`].
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MountToImport<'a> {
    pub namespace: &'a str,
    /// `file://` URL of the mount file.
    pub url: &'a str,
}

/// What a mount file's default export mounts, as Node found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Mounted {
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<MountedHook>>", optional))]
    pub hooks: Vec<MountedHook>,
    /// The names given to `disableHook`, in order.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub disabled: Vec<String>,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub secret_names: Vec<String>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub egress_domains: Vec<String>,
    /// Why it mounts nothing: the import threw (the factory rejected its options), or the
    /// default export is not a mount.
    #[serde(default)]
    pub problem: Option<MountProblem>,
}

/// One hook of a mount, by its key inside the extension.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MountedHook {
    pub key: String,
    /// Its event keys; `None` when the value is not a `defineHook` result.
    #[serde(default)]
    pub events: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct MountProblem {
    pub kind: MountProblemKind,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub message: String,
    #[serde(default)]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MountProblemKind {
    Threw,
    NotAMount,
    /// Said on the Rust side: the import ended the runtime or never yielded.
    #[serde(skip)]
    Ended,
}

/// The reply to a `ctx` call: its value, or the message its promise rejects with.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Reply {
    /// The call's id, as it came (the runtime numbers its calls).
    #[cfg_attr(test, ts(type = "number"))]
    pub id: Value,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
}

impl Reply {
    pub fn new(id: Value, result: Result<Value, String>) -> Self {
        match result {
            Ok(value) => Self { id, ok: true, value: Some(value), error: None },
            Err(error) => Self { id, ok: false, value: None, error: Some(error) },
        }
    }
}

/// The session lane a message from Node is about, when it names one (`"session":2`): any
/// of [`FromNode`] may carry it.
#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct LaneOf {
    #[serde(default)]
    pub session: Option<u64>,
}

/// Node → agent-sdk.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum FromNode {
    /// First, as soon as the process starts: which Node this is.
    Hello { node: String },
    /// Before each hook's import (its time starts).
    Loading { hook: String },
    /// The hook imported: the event keys of its `defineHook` (a mounted hook's, of its key).
    Loaded {
        hook: String,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
        events: Vec<String>,
    },
    /// The hook did not load: its import threw or did not settle within the timeout, its
    /// default export is not a `defineHook` result (nor its mount's hook of its key), or it
    /// was sent with `skip`, so not imported.
    LoadFailed {
        hook: String,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<String>", optional))]
        message: String,
        #[serde(default)]
        stack: Option<String>,
    },
    /// After the last hook of an init.
    Ready,
    /// One mount of a [`ToNode::Mount`], in order.
    Mounted {
        namespace: String,
        #[serde(flatten)]
        mounted: Mounted,
    },
    /// After the last mount of a [`ToNode::Mount`].
    MountsDone,
    /// Hook `hook`'s handler `handler` (its index in the init, the event key) of event
    /// `seq` threw, or its promise rejected.
    Threw {
        seq: u64,
        hook: usize,
        handler: String,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<String>", optional))]
        message: String,
        #[serde(default)]
        stack: Option<String>,
    },
    /// That handler did not settle within the init's `timeoutMs`: its promise is left
    /// running and its outcome ignored.
    TimedOut { seq: u64, hook: usize, handler: String },
    /// After a handler of an event sent with a `trace` or `timeline` settled (after its
    /// `threw` or `timed_out`, if any): its span, its outcome and how long it ran.
    Handler(HandlerEnded),
    /// Every event through `seq` went through its hooks (they finish in order: one line
    /// says it of all that finished with nothing said between).
    Done { seq: u64 },
    /// A host call of a hook's `ctx`: answered with a [`ToNode::Reply`] on the replies'
    /// channel, but for one sent `resolved`.
    Call(Call),
    /// Boxed: a span's record is many times the size of every other message.
    Otel(Box<Otel>),
    /// What a hook's code printed (`console.*`, `process.stdout`/`stderr` writes), or the
    /// runtime's own complaint (`agent-sdk host: …`, `hook` null).
    Console {
        level: ConsoleLevel,
        #[serde(default)]
        hook: Option<String>,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<String>", optional))]
        text: String,
    },
    /// A rejection nobody handled, or an exception nobody caught, in that hook's code
    /// (`None`: in no hook's): a promise it did not await, a throw in a timer. The process
    /// goes on; the run counts it as a failure of the hook.
    Unhandled(Unhandled),
    /// After a `shutdown`, as the process exits (after the hooks' `exit` listeners): its
    /// last line. What is left is Node's teardown, which nobody needs to wait for.
    Bye,
    /// `process.exit` was called, by that hook's code (`None`: by no hook's): the last
    /// message before the process ends.
    Exit {
        #[serde(default)]
        hook: Option<String>,
        #[serde(default)]
        #[cfg_attr(test, ts(as = "Option<Value>", optional))]
        code: Value,
        #[serde(default)]
        stack: Option<String>,
    },
}

/// A `ctx.host` (or `ctx.artifacts`) call a handler awaits. Read as it comes (a method or
/// arguments agent-sdk does not know are answered with an error, see [`HostCall::of`]);
/// what the runtime sends is a [`HostCall`].
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(type = "{ id: number, hook?: string | null, resolved?: boolean } & HostCall"))]
pub struct Call {
    pub id: Value,
    pub method: String,
    #[serde(default)]
    pub args: Vec<Value>,
    #[serde(default)]
    pub hook: Option<String>,
    /// Its promise resolved as it was sent (`kv.set`, `reminders.set`): no reply is
    /// awaited, and a failure is its hook's error (`FromRuntime::CallFailed`).
    #[serde(default)]
    pub resolved: bool,
}

/// A host call by its method, with its arguments (`args`, an array): what `ctx.host` and
/// `ctx.artifacts` ask of agent-sdk.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(test, derive(Serialize, ts_rs::TS), serde(tag = "method", content = "args"))]
pub enum HostCall {
    /// `[key]`
    #[cfg_attr(test, serde(rename = "kv.get"))]
    KvGet((String,)),
    /// `[key, value]`
    #[cfg_attr(test, serde(rename = "kv.set"))]
    KvSet(String, Value),
    /// `[key]`
    #[cfg_attr(test, serde(rename = "kv.delete"))]
    KvDelete((String,)),
    /// `[prefix]`, null for every key.
    #[cfg_attr(test, serde(rename = "kv.list"))]
    KvList((Option<String>,)),
    /// `[path, data, scope]`
    #[cfg_attr(test, serde(rename = "files.write"))]
    FilesWrite(String, String, FileScope),
    /// `[path, data, scope]`
    #[cfg_attr(test, serde(rename = "files.append"))]
    FilesAppend(String, String, FileScope),
    /// `[path, scope]`
    #[cfg_attr(test, serde(rename = "files.read"))]
    FilesRead(String, FileScope),
    /// `[scope]`
    #[cfg_attr(test, serde(rename = "files.list"))]
    FilesList((FileScope,)),
    /// `[at, note]`: `at` as the hook gave it (a string, or a value written as JSON).
    #[cfg_attr(test, serde(rename = "reminders.set"))]
    RemindersSet(#[cfg_attr(test, ts(type = "JsonValue"))] String, String),
    /// `[]`
    #[cfg_attr(test, serde(rename = "reminders.list"))]
    RemindersList(#[cfg_attr(test, ts(type = "[]"))] ()),
    /// `[name, value, turnId]`
    #[cfg_attr(test, serde(rename = "artifacts.tag"))]
    ArtifactsTag(String, Value, Option<String>),
}

impl HostCall {
    /// The call `method` with `args` names, read as leniently as ever: a missing or
    /// non-string text argument is empty, a scope other than `deployment` is the session's.
    pub fn of(method: &str, args: &[Value]) -> Result<Self, String> {
        let text = |i: usize| args.get(i).and_then(Value::as_str).unwrap_or_default().to_owned();
        let value = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
        Ok(match method {
            "kv.get" => Self::KvGet((text(0),)),
            "kv.set" => Self::KvSet(text(0), value(1)),
            "kv.delete" => Self::KvDelete((text(0),)),
            "kv.list" => Self::KvList((Some(text(0)),)),
            "files.write" => Self::FilesWrite(text(0), text(1), FileScope::of(&text(2))),
            "files.append" => Self::FilesAppend(text(0), text(1), FileScope::of(&text(2))),
            "files.read" => Self::FilesRead(text(0), FileScope::of(&text(1))),
            "files.list" => Self::FilesList((FileScope::of(&text(0)),)),
            "reminders.set" => {
                let at = match args.first() {
                    Some(Value::String(at)) => at.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                Self::RemindersSet(at, text(1))
            }
            "reminders.list" => Self::RemindersList(()),
            "artifacts.tag" => {
                Self::ArtifactsTag(text(0), value(1), args.get(2).and_then(Value::as_str).map(str::to_owned))
            }
            other => return Err(format!("unknown host call `{other}`")),
        })
    }
}

/// Whose files a `ctx.host.files` call reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(test, derive(Serialize, ts_rs::TS), serde(rename_all = "lowercase"))]
pub enum FileScope {
    Session,
    Deployment,
}

impl FileScope {
    /// `deployment`, and anything else is the session's.
    pub fn of(scope: &str) -> Self {
        if scope == "deployment" { Self::Deployment } else { Self::Session }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Deployment => "deployment",
        }
    }
}

/// One reminder of a `reminders.list` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Reminder {
    pub at: String,
    pub note: String,
}

/// The answer to `artifacts.tag`: where the artifact was tagged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ArtifactTagged {
    pub session_id: String,
    pub turn_id: Option<String>,
}

/// An error in a hook's code that nothing handled: see [`FromNode::Unhandled`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Unhandled {
    pub kind: UnhandledKind,
    #[serde(default)]
    pub hook: Option<String>,
    /// Whether the code that failed ran after the handler that started it had returned (its
    /// promise was not awaited): then awaiting it fixes it.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<bool>", optional))]
    pub after_return: bool,
    /// What was thrown, with its causes: its stack when it has one.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<String>", optional))]
    pub text: String,
}

/// Node's names for the two kinds: an `unhandledRejection`, an `uncaughtException`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum UnhandledKind {
    Rejection,
    Exception,
}

/// How one handler of a traced event ran: the span of a hook handler.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct HandlerEnded {
    pub seq: u64,
    pub hook: usize,
    /// The event key it handled (`turn.completed`, `*`).
    pub handler: String,
    /// 16 hex digits, made by the runtime: the parent of the spans the handler starts;
    /// `null` for an event sent without a `trace`.
    #[serde(default)]
    pub span_id: Option<String>,
    /// When it started, in milliseconds since the Unix epoch (with a fraction).
    pub start: f64,
    /// How long it ran, in milliseconds.
    pub ms: f64,
    pub outcome: HandlerOutcome,
    /// Why, when it threw (the `threw` line's message) or timed out.
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "snake_case")]
pub enum HandlerOutcome {
    Ok,
    Threw,
    TimedOut,
}

/// A record of `ctx.host.otel` or of `@opentelemetry/api` (a measurement, an ended span, a
/// log record): fire and forget. The keys past `error` come with the API's records only.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct Otel {
    pub kind: OtelKind,
    /// The instrument's, span's or (for a log record) logger's name.
    pub name: String,
    /// A measurement; a span's milliseconds; a log record's body, as text.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub value: Value,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub attrs: Value,
    #[serde(default)]
    pub hook: Option<String>,
    /// For a span whose status is ERROR: why.
    #[serde(default)]
    pub error: Option<String>,
    /// The name of the meter or tracer (`getMeter("acme")`) it came from.
    #[serde(default)]
    pub scope: Option<String>,
    /// A span's ids (a log record's: the active span's, when there was one).
    #[serde(default)]
    pub trace_id: Option<String>,
    #[serde(default)]
    pub span_id: Option<String>,
    /// `None` for a root span.
    #[serde(default)]
    pub parent_span_id: Option<String>,
    /// A span's start (a log record's time), in milliseconds since the Unix epoch.
    #[serde(default)]
    pub start: Option<f64>,
    /// `SpanKind` of `@opentelemetry/api`: INTERNAL 0, SERVER 1, CLIENT 2, PRODUCER 3, CONSUMER 4.
    #[serde(default)]
    pub span_kind: Option<u8>,
    #[serde(default)]
    pub status: Option<SpanStatus>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<SpanEvent>>", optional))]
    pub events: Vec<SpanEvent>,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Vec<SpanLink>>", optional))]
    pub links: Vec<SpanLink>,
    /// Events and links past the 128 a span keeps of each.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<u32>", optional))]
    pub dropped_events: u32,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<u32>", optional))]
    pub dropped_links: u32,
    /// An instrument's unit, when it was made with one (`{ unit: "ms" }`).
    #[serde(default)]
    pub unit: Option<String>,
    /// A log record's `SeverityNumber` (1–24).
    #[serde(default)]
    pub severity: Option<u8>,
    #[serde(default)]
    pub severity_text: Option<String>,
}

impl Otel {
    /// A record with nothing but what `ctx.host.otel` sends.
    pub fn new(kind: OtelKind, name: &str, value: Value, attrs: Value) -> Self {
        Self {
            kind,
            name: name.to_owned(),
            value,
            attrs,
            hook: None,
            error: None,
            scope: None,
            trace_id: None,
            span_id: None,
            parent_span_id: None,
            start: None,
            span_kind: None,
            status: None,
            events: Vec::new(),
            links: Vec::new(),
            dropped_events: 0,
            dropped_links: 0,
            unit: None,
            severity: None,
            severity_text: None,
        }
    }

    /// The serve-log level of a log record: by its severity, INFO when it has none (TRACE and
    /// DEBUG too: a hook's own records are what it wants seen), WARN for 13–16, ERROR above.
    pub fn log_level(&self) -> Level {
        match self.severity {
            Some(13..=16) => Level::Warn,
            Some(17..) => Level::Error,
            _ => Level::Info,
        }
    }
}

/// A span's status: `SpanStatusCode` UNSET 0, OK 1, ERROR 2; a message with ERROR only.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct SpanStatus {
    pub code: u8,
    #[serde(default)]
    pub message: Option<String>,
}

/// `span.addEvent(name, attributes, time)`, or `recordException` (named `exception`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct SpanEvent {
    pub name: String,
    /// Milliseconds since the Unix epoch.
    pub time: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub attrs: Value,
}

/// A link to another span (`startSpan`'s `links`, `addLink`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "camelCase")]
pub struct SpanLink {
    pub trace_id: String,
    pub span_id: String,
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<Value>", optional))]
    pub attrs: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "lowercase")]
pub enum OtelKind {
    Counter,
    /// An up-down counter of `@opentelemetry/api`: summed, and may go down.
    #[serde(rename = "updown")]
    UpDown,
    Histogram,
    /// A gauge, or what an observable instrument observed: its last value.
    Gauge,
    Tag,
    /// A span of `@opentelemetry/api`'s tracer ended: `value` is its milliseconds.
    Span,
    /// A log record of `@opentelemetry/api-logs`' logger: `value` is its body, as text.
    Log,
}

/// How loud a hook's output is: `console.log`/`info`/`debug` and stdout are `info`, `warn`
/// and stderr `warn`, `error`/`trace` `error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    Info,
    Warn,
    Error,
}

/// `node/protocol.d.ts`: the TypeScript declarations of every type above, which the
/// runtime's JavaScript is checked against.
#[cfg(test)]
pub(crate) mod declarations {
    use std::collections::BTreeMap;

    use ts_rs::{Config, TS, TypeVisitor};

    use super::*;

    /// Where the declarations are checked in, from the crate's root.
    pub const PATH: &str = "src/runtime/node/protocol.d.ts";

    /// Each declaration once, with its doc comment, by name: the order ts-rs visits them in
    /// changes from one build to the next (its derive keeps them in a hash set), and
    /// TypeScript needs none.
    struct Declarations {
        config: Config,
        text: BTreeMap<String, String>,
    }

    impl TypeVisitor for Declarations {
        fn visit<T: TS + 'static + ?Sized>(&mut self) {
            // Only named types have a declaration (strings, arrays and maps are inlined).
            // (By name: `serde_json::Value` and the type ts-rs declares it as are both `JsonValue`.)
            if T::output_path().is_none() {
                return;
            }
            let name = T::ident(&self.config);
            if self.text.contains_key(&name) {
                return;
            }
            let docs = T::docs().map(|docs| format!("{docs}\n")).unwrap_or_default();
            self.text.insert(name, format!("{docs}export {}", T::decl(&self.config)));
            T::visit_dependencies(self);
        }
    }

    /// The whole file.
    pub fn generate() -> String {
        // Node sees every integer of the protocol as a number.
        let config = Config::new().with_large_int("number");
        let mut declarations = Declarations { config, text: BTreeMap::new() };
        declarations.visit::<ToNode<'static>>();
        declarations.visit::<HookCtx>();
        declarations.visit::<FromNode>();
        declarations.visit::<LaneOf>();
        declarations.visit::<HostCall>();
        declarations.visit::<Reminder>();
        declarations.visit::<ArtifactTagged>();
        declarations.visit::<ModuleRequest>();
        declarations.visit::<ModuleAnswer>();
        format!(
            "// The messages across the Node boundary, generated from src/protocol.rs (and the\n\
             // types it names) by ts-rs: do not edit. `UPDATE_PROTOCOL=1 cargo test --lib protocol_d_ts`\n\
             // writes it again after a change there.\n\n{}\n",
            declarations.text.into_values().collect::<Vec<_>>().join("\n\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in `node/protocol.d.ts` is what the types above generate (the drift test;
    /// `UPDATE_PROTOCOL=1` writes it instead).
    #[test]
    fn protocol_d_ts_is_generated_from_these_types() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(declarations::PATH);
        let generated = declarations::generate();
        if std::env::var_os("UPDATE_PROTOCOL").is_some() {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "{} is not what src/protocol.rs generates: run `UPDATE_PROTOCOL=1 cargo test --lib protocol_d_ts` and commit it",
            declarations::PATH
        );
    }

    #[test]
    fn node_s_messages_read_as_their_variants() {
        let read = |line: &str| serde_json::from_str::<FromNode>(line).unwrap();
        assert!(matches!(read(r#"{"t":"hello","node":"20.20.2"}"#), FromNode::Hello { node } if node == "20.20.2"));
        // Whose handler runs is said in the handler slot, not in a line.
        assert!(
            serde_json::from_str::<FromNode>(r#"{"t":"start","seq":7,"hook":2,"handler":"turn.completed"}"#).is_err()
        );
        assert!(matches!(
            read(r#"{"t":"call","id":12,"method":"kv.get","args":["k"],"hook":null}"#),
            FromNode::Call(Call { method, .. }) if method == "kv.get"
        ));
        assert!(matches!(
            read(r#"{"t":"otel","kind":"counter","name":"n","value":1,"attrs":{},"hook":"h"}"#),
            FromNode::Otel(otel) if otel.kind == OtelKind::Counter
        ));
        assert!(matches!(read(r#"{"t":"exit","hook":null,"code":4,"stack":""}"#), FromNode::Exit { hook: None, .. }));
        assert!(matches!(read(r#"{"t":"bye"}"#), FromNode::Bye));
        assert!(serde_json::from_str::<FromNode>(r#"{"t":"nonsense"}"#).is_err());
    }

    #[test]
    fn a_traced_handler_s_end_reads_as_its_span() {
        let line = r#"{"t":"handler","seq":7,"hook":2,"handler":"turn.completed","spanId":"00f067aa0ba902b7","start":1764484800123.25,"ms":4.5,"outcome":"threw","error":"boom"}"#;
        let FromNode::Handler(ended) = serde_json::from_str::<FromNode>(line).unwrap() else { panic!("{line}") };
        assert_eq!(
            ended,
            HandlerEnded {
                seq: 7,
                hook: 2,
                handler: "turn.completed".to_owned(),
                span_id: Some("00f067aa0ba902b7".to_owned()),
                start: 1_764_484_800_123.25,
                ms: 4.5,
                outcome: HandlerOutcome::Threw,
                error: Some("boom".to_owned()),
            }
        );
        let ok = r#"{"t":"handler","seq":1,"hook":0,"handler":"*","spanId":"a","start":1,"ms":0,"outcome":"ok"}"#;
        assert!(matches!(
            serde_json::from_str::<FromNode>(ok).unwrap(),
            FromNode::Handler(HandlerEnded { outcome: HandlerOutcome::Ok, error: None, .. })
        ));
        let timed_out = ok.replace(r#""ok""#, r#""timed_out""#);
        assert!(matches!(
            serde_json::from_str::<FromNode>(&timed_out).unwrap(),
            FromNode::Handler(HandlerEnded { outcome: HandlerOutcome::TimedOut, .. })
        ));
    }

    #[test]
    fn a_span_line_reads_with_all_that_export_needs() {
        let line = r#"{"t":"otel","kind":"span","name":"acme.lookup","value":2.5,"attrs":{"q":"x"},"error":null,"hook":"traced","scope":"acme","traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","parentSpanId":"53995c3f42cd8ad8","start":1764484800000.5,"spanKind":2,"status":{"code":2,"message":"down"},"events":[{"name":"exception","time":1764484800001,"attrs":{"exception.message":"down"}}],"links":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4737","spanId":"00f067aa0ba902b8","attrs":{}}],"droppedEvents":3}"#;
        let FromNode::Otel(span) = serde_json::from_str::<FromNode>(line).unwrap() else { panic!("{line}") };
        assert_eq!(span.kind, OtelKind::Span);
        assert_eq!(span.scope.as_deref(), Some("acme"));
        assert_eq!(span.trace_id.as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(span.span_id.as_deref(), Some("00f067aa0ba902b7"));
        assert_eq!(span.parent_span_id.as_deref(), Some("53995c3f42cd8ad8"));
        assert_eq!((span.start, span.span_kind), (Some(1_764_484_800_000.5), Some(2)));
        assert_eq!(span.status, Some(SpanStatus { code: 2, message: Some("down".to_owned()) }));
        assert_eq!(
            span.events,
            [SpanEvent {
                name: "exception".to_owned(),
                time: 1_764_484_800_001.0,
                attrs: serde_json::json!({ "exception.message": "down" })
            }]
        );
        assert_eq!(span.links[0].trace_id, "4bf92f3577b34da6a3ce929d0e0e4737");
        assert_eq!((span.dropped_events, span.dropped_links), (3, 0));
        // A root span's parent is null.
        let root = line.replace(r#""53995c3f42cd8ad8""#, "null");
        let FromNode::Otel(root) = serde_json::from_str::<FromNode>(&root).unwrap() else { panic!("{root}") };
        assert_eq!(root.parent_span_id, None);
    }

    #[test]
    fn an_old_span_line_and_a_ctx_host_otel_line_still_read() {
        let line =
            r#"{"t":"otel","kind":"span","name":"acme.page","value":1.5,"attrs":{},"error":"down","hook":"traced"}"#;
        let FromNode::Otel(span) = serde_json::from_str::<FromNode>(line).unwrap() else { panic!("{line}") };
        assert_eq!((span.error.as_deref(), span.scope, span.start), (Some("down"), None, None));
        assert!(span.events.is_empty() && span.links.is_empty() && span.status.is_none());
        let line =
            r#"{"t":"otel","kind":"histogram","name":"ms","value":3,"attrs":{},"hook":"h","scope":"acme","unit":"ms"}"#;
        let FromNode::Otel(metric) = serde_json::from_str::<FromNode>(line).unwrap() else { panic!("{line}") };
        assert_eq!((metric.scope.as_deref(), metric.unit.as_deref()), (Some("acme"), Some("ms")));
    }

    #[test]
    fn a_log_line_reads_and_its_severity_gives_its_level() {
        let line = r#"{"t":"otel","kind":"log","name":"acme","value":"slow turn","attrs":{"ms":900},"severity":13,"severityText":"WARN","hook":"logs","start":1764484800000}"#;
        let FromNode::Otel(log) = serde_json::from_str::<FromNode>(line).unwrap() else { panic!("{line}") };
        assert_eq!((log.kind, log.value.as_str()), (OtelKind::Log, Some("slow turn")));
        assert_eq!((log.severity, log.severity_text.as_deref()), (Some(13), Some("WARN")));
        let level = |severity: Option<u8>| {
            Otel { severity, ..Otel::new(OtelKind::Log, "l", Value::Null, Value::Null) }.log_level()
        };
        assert_eq!([None, Some(1), Some(9), Some(12)].map(level), [Level::Info; 4]);
        assert_eq!([Some(13), Some(16)].map(level), [Level::Warn; 2]);
        assert_eq!([Some(17), Some(21), Some(24)].map(level), [Level::Error; 3]);
        let no_severity = r#"{"t":"otel","kind":"log","name":"acme","value":"{\"a\":1}","attrs":{},"severity":null,"severityText":null,"hook":null}"#;
        assert!(matches!(
            serde_json::from_str::<FromNode>(no_severity).unwrap(),
            FromNode::Otel(log) if log.severity.is_none()
        ));
    }

    #[test]
    fn an_event_carries_its_turn_s_span_only_when_traced_and_init_says_whether_traces_are_exported() {
        let envelope = Envelope {
            event_type: "turn.completed".to_owned(),
            index: 7,
            session_id: "s".to_owned(),
            turn_id: None,
            at: "2026-11-30T06:00:00.000Z".to_owned(),
            data: Value::Null,
        };
        let line = |message: &ToNode| serde_json::to_string(message).unwrap();
        let event = r#"{"t":"event","seq":7,"from":1,"event":{"type":"turn.completed","index":7,"sessionId":"s","at":"2026-11-30T06:00:00.000Z","data":null}"#;
        assert_eq!(
            line(&ToNode::Event { seq: 7, from: 1, event: &envelope, trace: None, timeline: false, session: None }),
            format!("{event}}}")
        );
        let trace = TraceParent { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" };
        assert_eq!(
            line(&ToNode::Event {
                seq: 7,
                from: 1,
                event: &envelope,
                trace: Some(trace),
                timeline: false,
                session: None
            }),
            format!(
                r#"{event},"trace":{{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7"}}}}"#
            )
        );
        let init = ToNode::Init {
            hooks: Vec::new(),
            ctx: &InitCtx::Shared,
            timeout_ms: 1,
            timeout_text: "1ms".to_owned(),
            manifest: &Manifest::default(),
            otel_api_version: None,
            tracing: true,
        };
        assert!(line(&init).ends_with(r#""otelApiVersion":null,"tracing":true}"#), "{}", line(&init));
    }

    /// `ctx` and the manifest were built with `json!` before they were types: the same bytes.
    #[test]
    fn ctx_and_manifest_serialize_as_their_json_did() {
        use serde_json::json;
        fn line(value: &impl Serialize) -> String {
            serde_json::to_string(value).unwrap()
        }
        let mut ctx = HookCtx {
            session: CtxSession {
                id: "s1".to_owned(),
                channel_id: "local".to_owned(),
                mode: "default".to_owned(),
                purpose: "chat".to_owned(),
                auth: (),
                title: None,
            },
            agent: CtxAgent { name: "bot".to_owned() },
            channel: CtxChannel { id: "local".to_owned(), continuation_token: None },
            state_root: PathBuf::from("/p/.agent-sdk"),
        };
        let mut session =
            json!({ "id": "s1", "channelId": "local", "mode": "default", "purpose": "chat", "auth": null });
        let old = |session: &Value| {
            json!({
                "session": session,
                "agent": { "name": "bot" },
                "channel": { "id": "local", "continuationToken": null },
                "stateRoot": std::path::Path::new("/p/.agent-sdk"),
            })
            .to_string()
        };
        assert_eq!(line(&ctx), old(&session));
        ctx.session.title = Some("Triage".to_owned());
        session["title"] = json!("Triage");
        assert_eq!(line(&ctx), old(&session));
        assert_eq!(line(&InitCtx::Session(Box::new(ctx.clone()))), old(&session));
        assert_eq!(line(&InitCtx::Empty {}), json!({}).to_string());
        assert_eq!(line(&InitCtx::Shared), Value::Null.to_string());

        let mut manifest = Manifest::default();
        manifest.modules.insert(
            "/p/b.ts".to_owned(),
            ManifestModule {
                format: ManifestFormat::Commonjs,
                code: Some("/c/b.cjs".to_owned()),
                exports: vec!["x".to_owned()],
            },
        );
        manifest.modules.insert(
            "/p/a.json".to_owned(),
            ManifestModule { format: ManifestFormat::Json, code: None, exports: Vec::new() },
        );
        manifest.resolutions.insert(
            "/p/b.ts".to_owned(),
            [("./z".to_owned(), "/p/z.ts".to_owned()), ("./a.json".to_owned(), "/p/a.json".to_owned())].into(),
        );
        manifest.sdk.insert(
            "@cursor/bdk".to_owned(),
            SdkFiles { import: "/r/i.mjs".to_owned(), require: "/r/i.cjs".to_owned() },
        );
        let old = json!({
            "modules": {
                "/p/b.ts": { "format": "commonjs", "code": "/c/b.cjs", "exports": ["x"] },
                "/p/a.json": { "format": "json", "code": null, "exports": [] },
            },
            "resolutions": { "/p/b.ts": { "./z": "/p/z.ts", "./a.json": "/p/a.json" } },
            "sdk": { "@cursor/bdk": { "import": "/r/i.mjs", "require": "/r/i.cjs" } },
        });
        // In insertion order, as `preserve_order` kept the `json!` maps.
        assert_eq!(line(&manifest), old.to_string());
    }

    #[test]
    fn agent_sdk_s_messages_are_the_documented_lines() {
        let line = |message: &ToNode| serde_json::to_string(message).unwrap();
        assert_eq!(line(&ToNode::Shutdown), r#"{"t":"shutdown"}"#);
        assert_eq!(
            line(&ToNode::Reply(Reply::new(Value::from(3), Ok(Value::Null)))),
            r#"{"t":"reply","id":3,"ok":true,"value":null}"#
        );
        assert_eq!(
            line(&ToNode::Reply(Reply::new(Value::from(3), Err("no".to_owned())))),
            r#"{"t":"reply","id":3,"ok":false,"error":"no"}"#
        );
    }
}
