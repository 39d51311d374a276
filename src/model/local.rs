//! The embedded default model, `local`: no network, no key, deterministic. Unscripted, it
//! answers from the prompt (the agent's instructions and the message); with `--script` it
//! plays a scripted turn (reasoning, tool calls and retries, pauses, a failure) so tests
//! can drive every kind of event. Replies stream in pieces; usage is counted from the text.

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::model::{ModelOutput, ModelStream, Next, ToolCall};

/// The model id `local` reports in `turn.completed`'s `cost`.
pub const LOCAL_MODEL: &str = "local";

/// A `--script` file: the steps of one turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub steps: Vec<ScriptStep>,
}

impl Script {
    /// A script from its JSON (a `run --script` file, a `dev` message's `script`): an object
    /// `{ "steps": [ … ] }`, never the array serde would also take for it.
    pub fn from_json(value: serde_json::Value) -> Result<Self, String> {
        match value {
            serde_json::Value::Object(_) => serde_json::from_value(value).map_err(|problem| problem.to_string()),
            _ => Err("it is not a JSON object".to_owned()),
        }
    }
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
        reply.push_str(&format!(" and following my instructions (\"{}\")", brief(first_line, 80)));
    }
    reply.push('.');
    play(instructions, message, &Script { steps: vec![ScriptStep::Text(reply)] })
}

/// `text` if it has at most `max` characters, else cut at the last word boundary within them,
/// with `…`.
fn brief(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    let at_word = match kept.rfind(char::is_whitespace) {
        Some(space) if space > 0 => &kept[..space],
        _ => &kept,
    };
    format!("{}…", at_word.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == ':'))
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
    #[test]
    fn a_script_is_an_object_of_steps_never_an_array() {
        let object = serde_json::json!({ "steps": [ { "text": "hi" } ] });
        assert_eq!(super::Script::from_json(object).unwrap().steps.len(), 1);
        let array = serde_json::json!([[{ "text": "hi" }]]);
        assert!(serde_json::from_value::<super::Script>(array.clone()).is_ok(), "serde alone takes it");
        assert_eq!(super::Script::from_json(array).unwrap_err(), "it is not a JSON object");
    }

    #[test]
    fn instructions_are_quoted_cut_at_a_word_with_an_ellipsis() {
        assert_eq!(brief("Be brief.", 80), "Be brief.");
        let long =
            "You are Acme's support bot, answering questions about orders, refunds and shipping for our customers.";
        assert_eq!(brief(long, 80), "You are Acme's support bot, answering questions about orders, refunds and…");
        assert_eq!(brief("x".repeat(90).as_str(), 80), format!("{}…", "x".repeat(80)));
    }

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
