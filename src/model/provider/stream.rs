//! One model step read from its chunks: text and reasoning as they arrive, tool calls put
//! together from their pieces, the usage the server reports, and the errors it sends; the
//! key scrubbed from all of it once decoded (see [`super::scrub`]).

use serde_json::{Value, json};

use crate::model::provider::request::{CallMade, stubbed_tool_output};
use crate::model::provider::scrub::{KeyScrub, Pieces};
use crate::model::{ModelOutput, ToolCall};
use crate::text::untrusted::escape;

/// At most this much of a server's text goes into a message.
const SHOWN_CHARS: usize = 200;

/// The first `limit` characters of `text`, escaped, marked when cut.
pub fn shown(text: &str, limit: usize) -> String {
    let mut cut: String = text.chars().take(limit).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    escape(&cut).into_owned()
}

/// Tokens one step used, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepUsage {
    pub prompt: u64,
    pub completion: u64,
    pub cached: u64,
    pub reasoning: Option<u64>,
}

impl StepUsage {
    /// `usage` of a chunk or a completion (`prompt_tokens`, `completion_tokens`, details).
    fn read(usage: &Value) -> Option<StepUsage> {
        let count = |value: &Value| value.as_u64();
        let prompt = count(&usage["prompt_tokens"]);
        let completion = count(&usage["completion_tokens"]);
        if prompt.is_none() && completion.is_none() {
            return None;
        }
        Some(StepUsage {
            prompt: prompt.unwrap_or(0),
            completion: completion.unwrap_or(0),
            cached: count(&usage["prompt_tokens_details"]["cached_tokens"]).unwrap_or(0),
            reasoning: count(&usage["completion_tokens_details"]["reasoning_tokens"]),
        })
    }
}

/// The usage of a whole turn: every step's, added up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnUsage {
    total: Option<StepUsage>,
}

impl TurnUsage {
    pub fn add(&mut self, step: StepUsage) {
        let total = self.total.get_or_insert_with(StepUsage::default);
        total.prompt += step.prompt;
        total.completion += step.completion;
        total.cached += step.cached;
        total.reasoning = match (total.reasoning, step.reasoning) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
    }

    /// The tokens read fresh, read from the cache, and written.
    pub fn tokens(self) -> Option<(u64, u64, u64)> {
        self.total.map(|total| (total.prompt.saturating_sub(total.cached), total.cached, total.completion))
    }

    /// `turn.completed`'s `usage`, if any step reported one.
    pub fn to_json(self) -> Option<Value> {
        let total = self.total?;
        let mut usage = json!({
            "inputTokens": total.prompt.saturating_sub(total.cached),
            "outputTokens": total.completion,
            "cacheReadTokens": total.cached,
            "cacheWriteTokens": 0,
        });
        if let Some(reasoning) = total.reasoning {
            usage["reasoningTokens"] = json!(reasoning);
        }
        Some(usage)
    }
}

/// A tool call being streamed in pieces.
#[derive(Debug, Clone, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// One model step as its chunks arrive.
#[derive(Debug, Default)]
pub struct Step {
    calls: Vec<PartialCall>,
    text: String,
    finish_reason: Option<String>,
    usage: Option<StepUsage>,
    /// Whether the model that answered was said (its first chunk's `model`).
    responded: bool,
    chunks: usize,
    /// The key, kept out of every output.
    scrub: KeyScrub,
    /// The reply's text and reasoning as shown so far, each scrubbed as a whole.
    shown_text: Pieces,
    shown_reasoning: Pieces,
}

impl Step {
    /// A step whose outputs never hold the key `scrub` keeps out.
    pub fn new(scrub: KeyScrub) -> Self {
        Self { scrub, ..Self::default() }
    }

    /// Reads one `data:` of the stream (not `[DONE]`): the outputs it gives at once, or why
    /// the turn fails.
    pub fn read_chunk(&mut self, data: &str) -> Result<Vec<ModelOutput>, String> {
        self.chunks += 1;
        let malformed = |said: &str| format!("the model server sent a malformed chunk: {}", shown(said, SHOWN_CHARS));
        let Ok(mut chunk) = serde_json::from_str::<Value>(data) else {
            return Err(malformed(&self.scrub.text(data)));
        };
        self.scrub.json(&mut chunk);
        if let Some(error) = chunk.get("error").filter(|error| !error.is_null()) {
            return Err(server_error(error));
        }
        let usage = chunk.get("usage").filter(|usage| !usage.is_null());
        if let Some(usage) = usage.and_then(StepUsage::read) {
            self.usage = Some(usage);
        }
        let mut outputs: Vec<ModelOutput> = self.responded_by(&chunk).into_iter().collect();
        match chunk.get("choices") {
            Some(Value::Array(choices)) => {
                outputs.extend(choices.first().map(|choice| self.read_choice(choice)).unwrap_or_default());
                Ok(outputs)
            }
            None if usage.is_some() => Ok(outputs),
            // Decoded and scrubbed: its JSON may spell the key with escapes.
            _ => Err(malformed(&chunk.to_string())),
        }
    }

    /// The model an answer names, the first time one does (at most [`SHOWN_CHARS`] of it).
    fn responded_by(&mut self, answer: &Value) -> Option<ModelOutput> {
        let model = answer["model"].as_str().map(str::trim).filter(|model| !model.is_empty() && !self.responded)?;
        self.responded = true;
        Some(ModelOutput::Responded(model.chars().take(SHOWN_CHARS).collect()))
    }

    fn read_choice(&mut self, choice: &Value) -> Vec<ModelOutput> {
        let mut outputs = Vec::new();
        let delta = &choice["delta"];
        if let Some(reasoning) = reasoning_of(delta) {
            let reasoning = self.shown_reasoning.push(&self.scrub, reasoning);
            if !reasoning.is_empty() {
                outputs.push(ModelOutput::Reasoning(reasoning));
            }
        }
        if let Some(text) = delta["content"].as_str().filter(|text| !text.is_empty()) {
            self.text.push_str(text);
            let text = self.shown_text.push(&self.scrub, text);
            if !text.is_empty() {
                outputs.push(ModelOutput::Text(text));
            }
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                self.add_call_piece(call);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_owned());
        }
        outputs
    }

    /// Adds one streamed piece of a tool call to the call with its `index`.
    fn add_call_piece(&mut self, piece: &Value) {
        let id = piece["id"].as_str().filter(|id| !id.is_empty());
        let index = piece["index"].as_u64().unwrap_or_else(|| {
            // Without an index, a new id starts a new call; anything else continues the last.
            let last = self.calls.last();
            match (last, id) {
                (Some(last), Some(id)) if last.id.as_deref() != Some(id) => last.index + 1,
                (Some(last), _) => last.index,
                (None, _) => 0,
            }
        });
        let position = match self.calls.iter().position(|call| call.index == index) {
            Some(position) => position,
            None => {
                self.calls.push(PartialCall { index, ..PartialCall::default() });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = id {
            call.id = Some(id.to_owned());
        }
        let function = &piece["function"];
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        if let Some(arguments) = function["arguments"].as_str() {
            call.arguments.push_str(arguments);
        }
    }

    /// Reads a whole `chat.completion` (a server that ignored `stream: true`): its outputs.
    pub fn read_completion(&mut self, body: &str) -> Result<Vec<ModelOutput>, String> {
        let not_a_completion = |said: &str| {
            format!("the model server answered with JSON that is not a chat completion: {}", shown(said, SHOWN_CHARS))
        };
        let Ok(mut completion) = serde_json::from_str::<Value>(body) else {
            return Err(not_a_completion(&self.scrub.text(body)));
        };
        self.scrub.json(&mut completion);
        if let Some(error) = completion.get("error").filter(|error| !error.is_null()) {
            return Err(server_error(error));
        }
        let Some(choice) = completion["choices"].as_array().and_then(|choices| choices.first()) else {
            return Err(not_a_completion(&completion.to_string()));
        };
        self.chunks = 1;
        self.usage = completion.get("usage").and_then(StepUsage::read);
        // A whole message reads like one chunk whose delta is the message.
        let as_chunk = json!({ "delta": choice["message"], "finish_reason": choice["finish_reason"] });
        let mut outputs: Vec<ModelOutput> = self.responded_by(&completion).into_iter().collect();
        outputs.extend(self.read_choice(&as_chunk));
        outputs.extend(self.held_back());
        self.finish_reason.get_or_insert_with(|| "stop".to_owned());
        Ok(outputs)
    }

    /// Once the step's answer has ended: the text and reasoning held back in case they were
    /// the start of the key (they were not: it never came).
    pub fn held_back(&mut self) -> Vec<ModelOutput> {
        let reasoning = Some(self.shown_reasoning.finish()).filter(|text| !text.is_empty());
        let text = Some(self.shown_text.finish()).filter(|text| !text.is_empty());
        reasoning.map(ModelOutput::Reasoning).into_iter().chain(text.map(ModelOutput::Text)).collect()
    }

    pub fn chunks(&self) -> usize {
        self.chunks
    }

    pub fn finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    pub fn usage(&self) -> Option<StepUsage> {
        self.usage
    }

    /// The step's text, to send back with its tool calls.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn called_tools(&self) -> bool {
        !self.calls.is_empty()
    }

    /// The step's tool calls, for the next request and for the turn's events. A call the
    /// model gave no id is `call_<n>`, counting from `calls_before + 1`.
    pub fn tool_calls(&self, calls_before: usize) -> (Vec<CallMade>, Vec<ToolCall>) {
        self.calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let id = call.id.clone().unwrap_or_else(|| format!("call_{}", calls_before + i + 1));
                let made = CallMade { id: id.clone(), name: call.name.clone(), arguments: call.arguments.clone() };
                // Put together from pieces, so scrubbed only now, each string once decoded.
                let mut args = (!call.arguments.trim().is_empty()).then(|| {
                    serde_json::from_str(&call.arguments).unwrap_or_else(|_| Value::String(call.arguments.clone()))
                });
                if let Some(args) = &mut args {
                    self.scrub.json(args);
                }
                let event = ToolCall {
                    call_id: Some(self.scrub.text(&id)),
                    tool_name: self.scrub.text(&call.name),
                    args,
                    output: Some(stubbed_tool_output()),
                    is_error: false,
                    retries: vec![],
                };
                (made, event)
            })
            .unzip()
    }
}

/// `delta.reasoning_content` (DeepSeek, vLLM) or `delta.reasoning` (OpenRouter, Ollama).
fn reasoning_of(delta: &Value) -> Option<&str> {
    ["reasoning_content", "reasoning"].iter().find_map(|field| delta[*field].as_str().filter(|text| !text.is_empty()))
}

/// The failure an `error` object from the server makes.
fn server_error(error: &Value) -> String {
    let message = match error {
        Value::String(message) => message.clone(),
        _ => error["message"].as_str().map_or_else(|| error.to_string(), str::to_owned),
    };
    format!("the model server sent an error: {}", shown(&message, 300))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(step: &mut Step, chunks: &[&str]) -> Vec<ModelOutput> {
        chunks.iter().flat_map(|chunk| step.read_chunk(chunk).unwrap()).collect()
    }

    #[test]
    fn content_and_reasoning_become_outputs_at_once() {
        let mut step = Step::default();
        let outputs = read(
            &mut step,
            &[
                r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
                r#"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#,
                r#"{"choices":[{"delta":{"reasoning":"more","content":"Hel"}}]}"#,
                r#"{"choices":[{"delta":{"content":"lo"},"finish_reason":null}]}"#,
                r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            ],
        );
        assert_eq!(
            outputs,
            [
                ModelOutput::Reasoning("think".to_owned()),
                ModelOutput::Reasoning("more".to_owned()),
                ModelOutput::Text("Hel".to_owned()),
                ModelOutput::Text("lo".to_owned()),
            ]
        );
        assert!(step.finished() && !step.called_tools());
        assert_eq!(step.chunks(), 5);
    }

    #[test]
    fn tool_call_arguments_add_up_across_chunks() {
        let mut step = Step::default();
        let outputs = read(
            &mut step,
            &[
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"search","arguments":""}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"clock","arguments":"not json"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"rust\"}"}}]}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":2,"function":{"name":"noargs"}}]}}]}"#,
                r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            ],
        );
        assert!(outputs.is_empty());
        let (made, calls) = step.tool_calls(3);
        assert_eq!(
            made[0],
            CallMade { id: "call_x".into(), name: "search".into(), arguments: "{\"q\":\"rust\"}".into() }
        );
        assert_eq!(calls[0].args, Some(json!({ "q": "rust" })));
        assert_eq!(calls[1].call_id.as_deref(), Some("call_5"), "generated ids count the turn's calls");
        assert_eq!(calls[1].args, Some(json!("not json")));
        assert_eq!(calls[2].args, None);
        assert_eq!(calls[0].output, Some(stubbed_tool_output()));
    }

    #[test]
    fn the_model_that_answered_is_said_once_per_step() {
        let mut step = Step::default();
        let outputs = read(
            &mut step,
            &[
                r#"{"model":"gpt-4o-2024-08-06","choices":[{"delta":{"content":"Hi"}}]}"#,
                r#"{"model":"gpt-4o-2024-08-06","choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            ],
        );
        assert_eq!(
            outputs,
            [ModelOutput::Responded("gpt-4o-2024-08-06".to_owned()), ModelOutput::Text("Hi".to_owned())]
        );
        let whole = Step::default()
            .read_completion(r#"{"model":" m-1 ","choices":[{"message":{"content":""},"finish_reason":"stop"}]}"#)
            .unwrap();
        assert_eq!(whole, [ModelOutput::Responded("m-1".to_owned())]);
    }

    #[test]
    fn usage_is_mapped_and_summed() {
        let mut step = Step::default();
        read(
            &mut step,
            &[
                r#"{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":30},"completion_tokens_details":{"reasoning_tokens":5}}}"#,
            ],
        );
        let mut turn = TurnUsage::default();
        assert_eq!(turn.to_json(), None);
        turn.add(step.usage().unwrap());
        turn.add(StepUsage { prompt: 10, completion: 1, cached: 0, reasoning: None });
        assert_eq!(
            turn.to_json().unwrap(),
            json!({ "inputTokens": 80, "outputTokens": 21, "cacheReadTokens": 30, "cacheWriteTokens": 0, "reasoningTokens": 5 })
        );
        let mut plain = TurnUsage::default();
        plain.add(StepUsage { prompt: 3, completion: 2, cached: 0, reasoning: None });
        assert!(plain.to_json().unwrap().get("reasoningTokens").is_none());
        // A usage-only chunk without `choices` is fine.
        assert!(Step::default().read_chunk(r#"{"usage":{"prompt_tokens":1,"completion_tokens":1}}"#).is_ok());
    }

    #[test]
    fn error_chunks_and_malformed_chunks_fail() {
        let mut step = Step::default();
        assert_eq!(
            step.read_chunk(r#"{"error":{"message":"overloaded\nretry later","type":"server_error"}}"#).unwrap_err(),
            "the model server sent an error: overloaded\\nretry later"
        );
        assert_eq!(step.read_chunk("not json").unwrap_err(), "the model server sent a malformed chunk: not json");
        assert!(step.read_chunk(r#"{"object":"chat.completion.chunk"}"#).unwrap_err().contains("malformed"));
        let long = "x".repeat(500);
        assert_eq!(step.read_chunk(&long).unwrap_err().chars().filter(|c| *c == 'x').count(), 200);
    }

    #[test]
    fn a_whole_completion_is_one_step() {
        let mut step = Step::default();
        let outputs = step
            .read_completion(
                r#"{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"Hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
            )
            .unwrap();
        assert_eq!(outputs, [ModelOutput::Text("Hi".to_owned())]);
        assert!(step.called_tools() && step.finished());
        assert_eq!(step.usage().unwrap().prompt, 5);
        assert!(Step::default().read_completion(r#"{"choices":[]}"#).is_err());
    }
}
