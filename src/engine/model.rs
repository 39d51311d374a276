//! The embedded default model, `local`: no network, no key, deterministic. It answers
//! from the prompt (the agent's instructions and the message), streaming its reply in
//! pieces and reporting usage counted from the text, at zero cost.

use serde_json::{Value, json};

/// The model id `local` reports in `turn.completed`'s `cost`.
pub const LOCAL_MODEL: &str = "local";

/// One thing a model produces while it answers, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelOutput {
    /// A piece of the reply.
    Text(String),
    /// The turn's end, with its usage and cost.
    Completed { usage: Value, cost: Value },
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

    let mut outputs: Vec<ModelOutput> = split_into_pieces(&reply).into_iter().map(ModelOutput::Text).collect();
    let prompt_tokens = count_tokens(instructions.unwrap_or_default()) + count_tokens(message);
    outputs.push(ModelOutput::Completed {
        usage: json!({
            "inputTokens": prompt_tokens,
            "outputTokens": count_tokens(&reply),
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
        }),
        cost: json!({ "totalUsd": 0, "model": LOCAL_MODEL }),
    });
    outputs
}

/// Splits a reply into streamed pieces of a few words each, keeping every character.
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
                ModelOutput::Completed { .. } => None,
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
}
