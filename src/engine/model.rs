//! What a model gives a turn: a stream of [`ModelOutput`]s, pulled one at a time as they
//! arrive ([`ModelStream`]), so each is recorded, shown and dispatched at once.
//!
//! The embedded default model, `local`, is here too: no network, no key, deterministic.
//! Unscripted, it answers from the prompt (the agent's instructions and the message); with
//! `--script` it plays a scripted turn (reasoning, tool calls and retries, pauses, a
//! failure) so tests can drive every kind of event. Replies stream in pieces; usage is
//! counted from the text. The real providers are in [`crate::provider`].

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::state::log_record::Level;

/// The model id `local` reports in `turn.completed`'s `cost`.
pub const LOCAL_MODEL: &str = "local";

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

/// A `--script` file: the steps of one turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub steps: Vec<ScriptStep>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum ScriptStep {
    Text(String),
    Reasoning(String),
    Tools(Vec<ToolCall>),
    PauseMs(u64),
    Fail(String),
}

/// Rough tokens of a text: one per four characters, as providers' rules of thumb count.
pub fn count_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The local model's whole answer to `message`, given the agent's `instructions`.
pub fn local_reply(instructions: Option<&str>, message: &str) -> Vec<ModelOutput> {
    let mut reply = format!("You said: \"{}\". I am the local model, answering without a network", message.trim());
    if let Some(first_line) = instructions.and_then(|text| text.lines().map(str::trim).find(|line| !line.is_empty())) {
        let brief: String = first_line.chars().take(80).collect();
        reply.push_str(&format!(" and following my instructions (\"{brief}\")"));
    }
    reply.push('.');
    play(instructions, message, &Script { steps: vec![ScriptStep::Text(reply)] })
}

/// What the local model outputs for a scripted turn.
pub fn play(instructions: Option<&str>, message: &str, script: &Script) -> Vec<ModelOutput> {
    let mut outputs = Vec::new();
    let (mut text_tokens, mut reasoning_tokens) = (0, 0);
    for step in &script.steps {
        match step {
            ScriptStep::Text(text) => {
                text_tokens += count_tokens(text);
                outputs.extend(split_into_pieces(text).into_iter().map(ModelOutput::Text));
            }
            ScriptStep::Reasoning(text) => {
                reasoning_tokens += count_tokens(text);
                outputs.extend(split_into_pieces(text).into_iter().map(ModelOutput::Reasoning));
            }
            ScriptStep::Tools(calls) => outputs.push(ModelOutput::Tools(calls.clone())),
            ScriptStep::PauseMs(millis) => outputs.push(ModelOutput::Pause(Duration::from_millis(*millis))),
            ScriptStep::Fail(message) => {
                outputs.push(ModelOutput::Failed(message.clone()));
                return outputs;
            }
        }
    }
    let mut usage = json!({
        "inputTokens": count_tokens(instructions.unwrap_or_default()) + count_tokens(message),
        "outputTokens": text_tokens,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
    });
    if reasoning_tokens > 0 {
        usage["reasoningTokens"] = json!(reasoning_tokens);
    }
    outputs.push(ModelOutput::Completed {
        usage: Some(usage),
        cost: Some(json!({ "totalUsd": 0, "model": LOCAL_MODEL })),
    });
    outputs
}

/// The local model's outputs, all known before the turn starts.
pub struct LocalModel {
    outputs: VecDeque<ModelOutput>,
}

impl LocalModel {
    pub fn new(outputs: Vec<ModelOutput>) -> Self {
        Self { outputs: outputs.into() }
    }
}

impl ModelStream for LocalModel {
    fn next(&mut self, _wait: Duration) -> Next {
        self.outputs.pop_front().map_or(Next::Ended, Next::Output)
    }
}

/// Splits text into streamed pieces of a few words each, keeping every character.
fn split_into_pieces(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut words = 0;
    for (i, part) in text.split_inclusive(' ').enumerate() {
        piece.push_str(part);
        words += 1;
        if words == 4 || i == 0 {
            pieces.push(std::mem::take(&mut piece));
            words = 0;
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_add_up_to_the_reply() {
        let outputs = local_reply(Some("Be brief.\nAlways cite."), "hello there");
        let text: String = outputs
            .iter()
            .filter_map(|output| match output {
                ModelOutput::Text(piece) => Some(piece.as_str()),
                _ => None,
            })
            .collect();
        assert!(outputs.len() > 3, "streams in several pieces");
        assert_eq!(
            text,
            "You said: \"hello there\". I am the local model, answering without a network and following my instructions (\"Be brief.\")."
        );
        assert!(matches!(outputs.last(), Some(ModelOutput::Completed { .. })));
    }

    #[test]
    fn is_deterministic() {
        assert_eq!(local_reply(None, "x"), local_reply(None, "x"));
    }

    #[test]
    fn scripts_parse_and_stop_at_a_failure() {
        let script: Script = serde_json::from_str(
            r#"{ "steps": [ { "reasoning": "hmm" }, { "tools": [ { "toolName": "search", "retries": ["http_503"] } ] },
                            { "pauseMs": 5 }, { "fail": "provider down" }, { "text": "never" } ] }"#,
        )
        .unwrap();
        let outputs = play(None, "q", &script);
        assert!(matches!(outputs.last(), Some(ModelOutput::Failed(message)) if message == "provider down"));
        assert!(!outputs.iter().any(|output| matches!(output, ModelOutput::Text(_))));
    }
}
