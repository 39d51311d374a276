//! The runtime protocol's messages, typed on the Rust side: what agent-sdk sends Node
//! ([`ToNode`]) and what Node says ([`FromNode`]). One JSON object a line, tagged by `t`;
//! the wire format and its meaning are documented at the top of `node/host.mjs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::envelope::Envelope;

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
    },
    /// Import each mount file (after an init whose manifest serves them) and say what it
    /// mounts; nothing is dispatched.
    Mount { mounts: Vec<MountToImport<'a>> },
    /// Dispatch `event` to the hooks with index `from` and after.
    Event { seq: u64, from: usize, event: &'a Envelope },
    /// The answer to a [`Call`].
    Reply(Reply),
    /// Finish what is queued, then exit.
    Shutdown,
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
    /// Before each handler.
    Start {
        seq: u64,
        hook: usize,
        handler: String,
    },
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
    /// After the event's last handler.
    Done {
        seq: u64,
    },
    Call(Call),
    Otel(Otel),
    Console {
        level: ConsoleLevel,
        #[serde(default)]
        hook: Option<String>,
        #[serde(default)]
        text: String,
    },
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

/// A `ctx.host.otel` call (fire and forget).
#[derive(Debug, Clone, Deserialize)]
pub struct Otel {
    pub kind: OtelKind,
    pub name: String,
    #[serde(default)]
    pub value: Value,
    #[serde(default)]
    pub attrs: Value,
    #[serde(default)]
    pub hook: Option<String>,
    /// For a span whose status is ERROR: why.
    #[serde(default)]
    pub error: Option<String>,
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
        assert!(matches!(
            read(r#"{"t":"start","seq":7,"hook":2,"handler":"turn.completed"}"#),
            FromNode::Start { seq: 7, hook: 2, .. }
        ));
        assert!(matches!(
            read(r#"{"t":"call","id":12,"method":"kv.get","args":["k"],"hook":null}"#),
            FromNode::Call(Call { method, .. }) if method == "kv.get"
        ));
        assert!(matches!(
            read(r#"{"t":"otel","kind":"counter","name":"n","value":1,"attrs":{},"hook":"h"}"#),
            FromNode::Otel(Otel { kind: OtelKind::Counter, .. })
        ));
        assert!(matches!(read(r#"{"t":"exit","hook":null,"code":4,"stack":""}"#), FromNode::Exit { hook: None, .. }));
        assert!(serde_json::from_str::<FromNode>(r#"{"t":"nonsense"}"#).is_err());
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
