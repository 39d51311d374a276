//! The runtime protocol's messages, typed on the Rust side: what agent-sdk sends Node
//! ([`ToNode`]) and what Node says ([`FromNode`]). One JSON object a line, tagged by `t`;
//! the wire format and its meaning are documented at the top of `node/host.mjs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::envelope::Envelope;
use crate::state::log_record::Level;

/// agent-sdk → Node.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ToNode<'a> {
    /// Import every hook, in order (a hook's index is its position here).
    Init {
        hooks: Vec<HookToImport<'a>>,
        ctx: &'a Value,
        #[serde(rename = "timeoutMs")]
        timeout_ms: u64,
        /// The timeout as people write it (`30s`), for the runtime's own messages.
        #[serde(rename = "timeoutText")]
        timeout_text: String,
        manifest: &'a Value,
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
    /// with a [`FromNode::Handler`].
    Event {
        seq: u64,
        from: usize,
        event: &'a Envelope,
        #[serde(skip_serializing_if = "Option::is_none")]
        trace: Option<TraceParent<'a>>,
        /// The session lane it belongs to (a runtime serving many sessions); `None`: the
        /// default lane.
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<u64>,
    },
    /// Opens session lane `session` (or gives it a new `ctx`): its events run with `ctx`,
    /// independently of other lanes'; `slot` is its record in the handler slot.
    Open { session: u64, slot: u32, ctx: &'a Value },
    /// Forgets session lane `session` once its queue is empty.
    Close { session: u64 },
    /// The answer to a [`Call`].
    Reply(Reply),
    /// Finish what is queued, then exit.
    Shutdown,
}

/// The span an event's handler spans are children of: W3C trace context ids, lowercase hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
pub struct HookToImport<'a> {
    pub name: &'a str,
    /// `file://` URL of its source module.
    pub url: &'a str,
    /// Its source path relative to `--dir`.
    pub source: &'a str,
    /// For a hook an extension mounts: its name inside the extension (`url` is then the
    /// mount file's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<&'a str>,
    /// Why it is not imported (it failed to load before): reported as a load failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<&'a str>,
}

/// One mount file of a [`ToNode::Mount`].
#[derive(Debug, Serialize)]
pub struct MountToImport<'a> {
    pub namespace: &'a str,
    /// `file://` URL of the mount file.
    pub url: &'a str,
}

/// What a mount file's default export mounts, as Node found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mounted {
    #[serde(default)]
    pub hooks: Vec<MountedHook>,
    /// The names given to `disableHook`, in order.
    #[serde(default)]
    pub disabled: Vec<String>,
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default)]
    pub secret_names: Vec<String>,
    #[serde(default)]
    pub egress_domains: Vec<String>,
    /// Why it mounts nothing: the import threw (the factory rejected its options), or the
    /// default export is not a mount.
    #[serde(default)]
    pub problem: Option<MountProblem>,
}

/// One hook of a mount, by its key inside the extension.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MountedHook {
    pub key: String,
    /// Its event keys; `None` when the value is not a `defineHook` result.
    #[serde(default)]
    pub events: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MountProblem {
    pub kind: MountProblemKind,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub stack: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
pub struct Reply {
    pub id: Value,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
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

/// The session lane a message from Node is about, when it names one (`"session":2`).
#[derive(Debug, Deserialize)]
pub struct LaneOf {
    #[serde(default)]
    pub session: Option<u64>,
}

/// Node → agent-sdk.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum FromNode {
    /// First, as soon as the process starts: which Node this is.
    Hello {
        node: String,
    },
    /// Before each hook's import (its time starts).
    Loading {
        hook: String,
    },
    Loaded {
        hook: String,
        #[serde(default)]
        events: Vec<String>,
    },
    LoadFailed {
        hook: String,
        #[serde(default)]
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
    Threw {
        seq: u64,
        hook: usize,
        handler: String,
        #[serde(default)]
        message: String,
        #[serde(default)]
        stack: Option<String>,
    },
    TimedOut {
        seq: u64,
        hook: usize,
        handler: String,
    },
    /// After a handler of an event sent with a `trace` settled (after its `threw` or
    /// `timed_out`, if any): its span.
    Handler(HandlerEnded),
    /// Every event through `seq` went through its hooks (they finish in order: one line
    /// says it of all that finished with nothing said between).
    Done {
        seq: u64,
    },
    Call(Call),
    /// Boxed: a span's record is many times the size of every other message.
    Otel(Box<Otel>),
    Console {
        level: ConsoleLevel,
        #[serde(default)]
        hook: Option<String>,
        #[serde(default)]
        text: String,
    },
    /// After a `shutdown`, as the process exits (after the hooks' `exit` listeners): its
    /// last line. What is left is Node's teardown, which nobody needs to wait for.
    Bye,
    /// `process.exit` was called, by that hook's code (`None`: by no hook's): the last
    /// message before the process ends.
    Exit {
        #[serde(default)]
        hook: Option<String>,
        #[serde(default)]
        code: Value,
        #[serde(default)]
        stack: Option<String>,
    },
}

/// A `ctx.host` (or `ctx.artifacts`) call a handler awaits.
#[derive(Debug, Clone, Deserialize)]
pub struct Call {
    pub id: Value,
    pub method: String,
    #[serde(default)]
    pub args: Vec<Value>,
    #[serde(default)]
    pub hook: Option<String>,
}

/// How one handler of a traced event ran: the span of a hook handler.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandlerEnded {
    pub seq: u64,
    pub hook: usize,
    /// The event key it handled (`turn.completed`, `*`).
    pub handler: String,
    /// 16 hex digits, made by the runtime: the parent of the spans the handler starts.
    pub span_id: String,
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
#[serde(rename_all = "snake_case")]
pub enum HandlerOutcome {
    Ok,
    Threw,
    TimedOut,
}

/// A record of `ctx.host.otel` or of `@opentelemetry/api` (a measurement, an ended span, a
/// log record): fire and forget. The keys past `error` come with the API's records only.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Otel {
    pub kind: OtelKind,
    /// The instrument's, span's or (for a log record) logger's name.
    pub name: String,
    /// A measurement; a span's milliseconds; a log record's body, as text.
    #[serde(default)]
    pub value: Value,
    #[serde(default)]
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
    pub events: Vec<SpanEvent>,
    #[serde(default)]
    pub links: Vec<SpanLink>,
    /// Events and links past the 128 a span keeps of each.
    #[serde(default)]
    pub dropped_events: u32,
    #[serde(default)]
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
pub struct SpanStatus {
    pub code: u8,
    #[serde(default)]
    pub message: Option<String>,
}

/// `span.addEvent(name, attributes, time)`, or `recordException` (named `exception`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SpanEvent {
    pub name: String,
    /// Milliseconds since the Unix epoch.
    pub time: f64,
    #[serde(default)]
    pub attrs: Value,
}

/// A link to another span (`startSpan`'s `links`, `addLink`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanLink {
    pub trace_id: String,
    pub span_id: String,
    #[serde(default)]
    pub attrs: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
#[serde(rename_all = "lowercase")]
pub enum ConsoleLevel {
    Info,
    Warn,
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

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
                span_id: "00f067aa0ba902b7".to_owned(),
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
            line(&ToNode::Event { seq: 7, from: 1, event: &envelope, trace: None, session: None }),
            format!("{event}}}")
        );
        let trace = TraceParent { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" };
        assert_eq!(
            line(&ToNode::Event { seq: 7, from: 1, event: &envelope, trace: Some(trace), session: None }),
            format!(
                r#"{event},"trace":{{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7"}}}}"#
            )
        );
        let init = ToNode::Init {
            hooks: Vec::new(),
            ctx: &Value::Null,
            timeout_ms: 1,
            timeout_text: "1ms".to_owned(),
            manifest: &Value::Null,
            otel_api_version: None,
            tracing: true,
        };
        assert!(line(&init).ends_with(r#""otelApiVersion":null,"tracing":true}"#), "{}", line(&init));
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
