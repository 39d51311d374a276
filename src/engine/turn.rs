//! What one turn records: the events of SPEC §5 in order, ending with exactly one of
//! `turn.completed` / `turn.failed`.

use serde_json::{Value, json};

use crate::engine::model::{self, ModelOutput};

/// An event about to be recorded: its type and `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEvent {
    pub event_type: &'static str,
    pub data: Value,
}

fn event(event_type: &'static str, data: Value) -> TurnEvent {
    TurnEvent { event_type, data }
}

/// The events of a turn that answers `message` with the local model, in order.
pub fn local_turn(instructions: Option<&str>, message: &str) -> Vec<TurnEvent> {
    let mut events = vec![event("message.received", json!({ "text": message }))];
    let mut reply = String::new();
    for output in model::local_reply(instructions, message) {
        match output {
            ModelOutput::Text(delta) => {
                reply.push_str(&delta);
                events.push(event("message.appended", json!({ "delta": delta })));
            }
            ModelOutput::Completed { usage, cost } => {
                events.push(event("message.completed", json!({ "text": reply })));
                events.push(event("turn.completed", json!({ "result": reply, "usage": usage, "cost": cost })));
            }
        }
    }
    events
}

/// The event that ends a turn interrupted by the user.
pub fn cancelled() -> TurnEvent {
    event("turn.failed", json!({ "message": "the turn was cancelled (Ctrl-C)", "status": "cancelled" }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_ends_with_exactly_one_terminal_event() {
        let events = local_turn(None, "hi");
        let terminal = events.iter().filter(|e| e.event_type.starts_with("turn.")).count();
        assert_eq!(terminal, 1);
        assert_eq!(events.first().unwrap().event_type, "message.received");
        assert_eq!(events.last().unwrap().event_type, "turn.completed");
    }
}
