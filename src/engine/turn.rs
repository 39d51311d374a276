//! What one turn records: the events of SPEC §5 in order, ending with exactly one of
//! `turn.completed` / `turn.failed`, from what the model outputs.

use std::time::Duration;

use serde_json::{Value, json};

use crate::engine::model::ModelOutput;

/// An event about to be recorded: its type and `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEvent {
    pub event_type: &'static str,
    pub data: Value,
}

/// One step of a turn: record an event, or wait for the model.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnStep {
    Record(TurnEvent),
    Wait(Duration),
}

fn record(event_type: &'static str, data: Value) -> TurnStep {
    TurnStep::Record(TurnEvent { event_type, data })
}

/// The steps of a turn that answers `message` with `outputs`.
pub fn turn_steps(message: &str, outputs: Vec<ModelOutput>) -> Vec<TurnStep> {
    let mut steps = vec![record("message.received", json!({ "text": message }))];
    let mut reply = String::new();
    let mut calls_made = 0;
    for output in outputs {
        match output {
            ModelOutput::Text(delta) => {
                reply.push_str(&delta);
                steps.push(record("message.appended", json!({ "delta": delta })));
            }
            ModelOutput::Reasoning(delta) => steps.push(record("reasoning.appended", json!({ "delta": delta }))),
            ModelOutput::Tools(calls) => {
                let ids: Vec<String> = (0..calls.len()).map(|i| format!("call_{}", calls_made + i + 1)).collect();
                calls_made += calls.len();
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
                steps.push(record("actions.requested", json!({ "calls": requested })));
                let mut results = Vec::new();
                for (call, id) in calls.iter().zip(&ids) {
                    for (attempt, reason) in call.retries.iter().enumerate() {
                        steps.push(record(
                            "action.tool_retry",
                            json!({ "callId": id, "toolName": call.tool_name, "attempt": attempt + 2, "reason": reason }),
                        ));
                    }
                    let output = call.output.clone().unwrap_or_else(
                        || json!({ "dryRun": true, "note": "stubbed by the local model; no tool ran" }),
                    );
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
            }
            ModelOutput::Pause(duration) => steps.push(TurnStep::Wait(duration)),
            ModelOutput::Failed(message) => {
                steps.push(record("turn.failed", json!({ "message": message, "status": "error" })));
            }
            ModelOutput::Completed { usage, cost } => {
                steps.push(record("message.completed", json!({ "text": reply })));
                steps.push(record("turn.completed", json!({ "result": reply, "usage": usage, "cost": cost })));
            }
        }
    }
    steps
}

/// The event that ends a turn interrupted by the user.
pub fn cancelled() -> TurnEvent {
    TurnEvent {
        event_type: "turn.failed",
        data: json!({ "message": "the turn was cancelled (Ctrl-C)", "status": "cancelled" }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Script, local_reply, play};

    fn types(steps: &[TurnStep]) -> Vec<&'static str> {
        steps
            .iter()
            .filter_map(|step| match step {
                TurnStep::Record(event) => Some(event.event_type),
                TurnStep::Wait(_) => None,
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
        recorded.push(cancelled().event_type);
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
