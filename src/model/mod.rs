//! What answers a turn: a model's outputs as a stream, pulled one at a time as they arrive
//! ([`ModelStream`]), so each is recorded, shown and dispatched at once. The embedded
//! `local` model, the real providers (OpenAI, xAI, any OpenAI-compatible server), and the
//! choice between them (`--model`) live here; the engine knows only this interface.
//!
//! ```text
//!   --model ─▶ choice ─┬─▶ local (embedded; --script)  ─┐
//!                      └─▶ provider (HTTP, streaming)  ─┴─▶ ModelStream of ModelOutputs ─▶ engine
//! ```

pub mod choice;
pub mod local;
pub mod provider;

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::state::log_record::Level;

/// One thing a model produces while it answers, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelOutput {
    /// A piece of the reply.
    Text(String),
    /// A piece of the model's reasoning.
    Reasoning(String),
    /// One model step that calls tools.
    Tools(Vec<ToolCall>),
    /// Time passing before the next output (a slow model, for tests of streaming and Ctrl-C).
    Pause(Duration),
    /// The model the server says answered (its response's `model`, which may name a
    /// version the request did not): what the turn's trace calls `gen_ai.response.model`;
    /// not an event.
    Responded(String),
    /// A line for the serve log (a retry, a model without a price); not an event.
    Log(Level, String),
    /// The turn failed: why, in words for the user.
    Failed(String),
    /// The turn's end, with its usage and cost where they are known.
    Completed { usage: Option<Value>, cost: Option<Value> },
}

/// A stream of a model's outputs for one turn. It ends after a [`ModelOutput::Failed`] or
/// a [`ModelOutput::Completed`]; dropping it early (Ctrl-C) stops the model.
pub trait ModelStream {
    /// The next output, waiting at most `wait` for it.
    fn next(&mut self, wait: Duration) -> Next;
}

/// What a model stream has now.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    Output(ModelOutput),
    /// Nothing yet: the model is still working.
    Waiting,
    /// Nothing more will come.
    Ended,
}

/// A tool call the model made, and the stubbed (dry-run) result it is answered with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCall {
    /// The model's id for the call; the local model leaves it to the turn (`call_1`, …).
    #[serde(default)]
    pub call_id: Option<String>,
    pub tool_name: String,
    #[serde(default)]
    pub args: Option<Value>,
    /// The result; a dry-run note when the script gives none.
    #[serde(default)]
    pub output: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
    /// One transient failure reason (`transport`, `http_503`, …) per retry before the result.
    #[serde(default)]
    pub retries: Vec<String>,
}
