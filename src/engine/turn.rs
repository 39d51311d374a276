//! What one turn records: the events of SPEC §5 in order, ending with exactly one of
//! `turn.completed` / `turn.failed`, from what the model outputs, as it outputs it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::model::{ModelOutput, ToolCall};
use crate::state::log_record::Level;

/// An event about to be recorded: its type and `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEvent {
    pub event_type: &'static str,
    pub data: Value,
}

/// What one model output asks of the turn: events to record, time to let pass, a line to log.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnStep {
    Record(TurnEvent),
    Wait(Duration),
    Log(Level, String),
    /// The model that answered (see [`ModelOutput::Responded`]).
    Responded(String),
}

fn record(event_type: &'static str, data: Value) -> TurnStep {
    TurnStep::Record(TurnEvent { event_type, data })
}

/// A turn in progress: turns the model's outputs, as they come, into the turn's events.
#[derive(Debug, Default)]
pub struct Turn {
    /// The reply so far (every text delta of every model step).
    reply: String,
    calls_made: usize,
    ended: bool,
}

impl Turn {
    /// The event that opens a turn answering `message`.
    pub fn start(message: &str) -> (Self, TurnEvent) {
        (Self::default(), TurnEvent { event_type: "message.received", data: json!({ "text": message }) })
    }

    /// Whether the turn has recorded its terminal event.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The steps one model output makes.
    pub fn steps(&mut self, output: ModelOutput) -> Vec<TurnStep> {
        match output {
            ModelOutput::Text(delta) => {
                self.reply.push_str(&delta);
                vec![record("message.appended", json!({ "delta": delta }))]
            }
            ModelOutput::Reasoning(delta) => vec![record("reasoning.appended", json!({ "delta": delta }))],
            ModelOutput::Tools(calls) => self.tool_steps(calls),
            ModelOutput::Pause(duration) => vec![TurnStep::Wait(duration)],
            ModelOutput::Log(level, line) => vec![TurnStep::Log(level, line)],
            ModelOutput::Responded(model) => vec![TurnStep::Responded(model)],
            ModelOutput::Failed(message) => {
                self.ended = true;
                vec![record("turn.failed", json!({ "message": message, "status": "error" }))]
            }
            ModelOutput::Completed { usage, cost } => {
                self.ended = true;
                let mut completed = json!({ "result": self.reply });
                if let Some(usage) = usage {
                    completed["usage"] = usage;
                }
                if let Some(cost) = cost {
                    completed["cost"] = cost;
                }
                vec![record("message.completed", json!({ "text": self.reply })), record("turn.completed", completed)]
            }
        }
    }

    /// One model step's tool calls: requested, each answered (after its retries), completed.
    fn tool_steps(&mut self, calls: Vec<ToolCall>) -> Vec<TurnStep> {
        let ids: Vec<String> = calls
            .iter()
            .enumerate()
            .map(|(i, call)| call.call_id.clone().unwrap_or_else(|| format!("call_{}", self.calls_made + i + 1)))
            .collect();
        self.calls_made += calls.len();
        let requested: Vec<Value> = calls
            .iter()
            .zip(&ids)
            .map(|(call, id)| {
                let mut requested = json!({ "callId": id, "toolName": call.tool_name });
                if let Some(args) = &call.args {
                    requested["args"] = args.clone();
                }
                requested
            })
            .collect();
        let mut steps = vec![record("actions.requested", json!({ "calls": requested }))];
        let mut results = Vec::new();
        for (call, id) in calls.iter().zip(&ids) {
            for (attempt, reason) in call.retries.iter().enumerate() {
                steps.push(record(
                    "action.tool_retry",
                    json!({ "callId": id, "toolName": call.tool_name, "attempt": attempt + 2, "reason": reason }),
                ));
            }
            let output = call
                .output
                .clone()
                .unwrap_or_else(|| json!({ "dryRun": true, "note": "stubbed by the local model; no tool ran" }));
            let result = json!({
                "callId": id,
                "toolName": call.tool_name,
                "output": output,
                "isError": call.is_error,
                "stubbed": true,
            });
            steps.push(record("action.result", result.clone()));
            results.push(result);
        }
        steps.push(record("actions.completed", json!({ "results": results })));
        steps
    }
}

/// The event that ends a turn whose model stopped without finishing it.
pub fn model_stopped() -> TurnEvent {
    TurnEvent {
        event_type: "turn.failed",
        data: json!({ "message": "the model stopped answering without finishing the turn", "status": "error" }),
    }
}

/// The event that ends a turn interrupted by the user (`by`: `Ctrl-C`, …).
pub fn cancelled(by: &str) -> TurnEvent {
    TurnEvent {
        event_type: "turn.failed",
        data: json!({ "message": format!("the turn was cancelled ({by})"), "status": "cancelled" }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::local::{Script, local_reply, play};

    /// Every step of a turn answering `message` with `outputs`.
    fn turn_steps(message: &str, outputs: Vec<ModelOutput>) -> Vec<TurnStep> {
        let (mut turn, received) = Turn::start(message);
        let mut steps = vec![TurnStep::Record(received)];
        for output in outputs {
            steps.extend(turn.steps(output));
        }
        steps
    }

    fn types(steps: &[TurnStep]) -> Vec<&'static str> {
        steps
            .iter()
            .filter_map(|step| match step {
                TurnStep::Record(event) => Some(event.event_type),
                TurnStep::Wait(_) | TurnStep::Log(..) | TurnStep::Responded(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_turn_ends_with_exactly_one_terminal_event() {
        let steps = turn_steps("hi", local_reply(None, "hi"));
        let types = types(&steps);
        assert_eq!(types.iter().filter(|t| t.starts_with("turn.")).count(), 1);
        assert_eq!(types.first(), Some(&"message.received"));
        assert_eq!(types.last(), Some(&"turn.completed"));
    }

    #[test]
    fn every_event_a_turn_records_is_in_the_vocabulary() {
        let script: Script = serde_json::from_str(
            r#"{ "steps": [ { "reasoning": "r" }, { "tools": [ { "toolName": "a", "retries": ["transport"] } ] },
                            { "text": "t" } ] }"#,
        )
        .unwrap();
        let mut recorded = types(&turn_steps("q", play(None, "q", &script)));
        recorded.extend(types(&turn_steps(
            "q",
            play(None, "q", &serde_json::from_str(r#"{ "steps": [ { "fail": "x" } ] }"#).unwrap()),
        )));
        recorded.push(cancelled("Ctrl-C").event_type);
        recorded.push(model_stopped().event_type);
        for event_type in recorded {
            assert!(crate::vocabulary::event_type(event_type).is_some(), "{event_type} is not in the vocabulary");
        }
    }

    #[test]
    fn tool_calls_are_paired_and_retries_come_before_their_result() {
        let script: Script = serde_json::from_str(
            r#"{ "steps": [ { "tools": [ { "toolName": "a", "retries": ["transport", "http_503"] }, { "toolName": "b" } ] } ] }"#,
        )
        .unwrap();
        let steps = turn_steps("q", play(None, "q", &script));
        assert_eq!(
            types(&steps),
            [
                "message.received",
                "actions.requested",
                "action.tool_retry",
                "action.tool_retry",
                "action.result",
                "action.result",
                "actions.completed",
                "message.completed",
                "turn.completed"
            ]
        );
    }
}
