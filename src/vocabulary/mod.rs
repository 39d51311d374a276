//! The event vocabulary: every session event type and the shape of its `data`, in one table.
//!
//! The analyser reads it to flag unknown handler keys (and suggest the near miss), and
//! `run --event` for a realistic payload. Each entry also carries the TypeScript type of
//! its `data`, from which the SDK's type declarations are generated
//! (`crate::sdk::declarations`). The turn engine emits these types by name in
//! `engine::turn`; a test there keeps the two in step.

pub mod data_shape;

/// One event type of the session stream (SPEC §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventType {
    /// The `type` of the envelope, e.g. `turn.completed`.
    pub name: &'static str,
    /// The TypeScript type of the envelope's `data`.
    pub data: &'static str,
    /// One line on when the event is recorded.
    pub summary: &'static str,
    /// A realistic `data`, as JSON: what `run --event <type>` dispatches by default.
    pub example: &'static str,
}

/// The key that subscribes a handler to every event type.
pub const WILDCARD: &str = "*";

/// Every event type, in the order a turn usually records them.
pub const EVENTS: &[EventType] = &[
    EventType {
        name: "message.received",
        data: "{ text: string }",
        summary: "the user's message arrived",
        example: r#"{"text":"What is our refund policy?"}"#,
    },
    EventType {
        name: "message.appended",
        data: "{ delta: string }",
        summary: "a streamed piece of the reply",
        example: r#"{"delta":"Refunds are "}"#,
    },
    EventType {
        name: "reasoning.appended",
        data: "{ delta: string }",
        summary: "a streamed piece of model reasoning, when the model gives one",
        example: r#"{"delta":"The user asks about refunds; check the policy page."}"#,
    },
    EventType {
        name: "message.completed",
        data: "{ text: string }",
        summary: "the whole reply",
        example: r#"{"text":"Refunds are available within 30 days of purchase."}"#,
    },
    EventType {
        name: "actions.requested",
        data: "{ calls: Array<{ callId: string; toolName: string; args?: unknown; parentCallId?: string }>; parentCallId?: string }",
        summary: "one per model step that lists tools",
        example: r#"{"calls":[{"callId":"call_1","toolName":"search_docs","args":{"query":"refund policy"}}]}"#,
    },
    EventType {
        name: "action.result",
        data: "{ callId: string; toolName: string; output?: unknown; isError: boolean; stubbed?: boolean; parentCallId?: string }",
        summary: "one per tool call, as soon as it has a result",
        example: r#"{"callId":"call_1","toolName":"search_docs","output":"Refunds: 30 days.","isError":false}"#,
    },
    EventType {
        name: "action.tool_retry",
        data: "{ callId: string; toolName: string; attempt: number; reason: string; connection?: string }",
        summary: "a read runs again after a transient failure",
        example: r#"{"callId":"call_1","toolName":"search_docs","attempt":2,"reason":"http_503"}"#,
    },
    EventType {
        name: "actions.completed",
        data: "{ results: Array<{ callId: string; toolName: string; output?: unknown; isError: boolean; stubbed?: boolean; parentCallId?: string }>; parentCallId?: string }",
        summary: "every call of a batch has a result",
        example: r#"{"results":[{"callId":"call_1","toolName":"search_docs","output":"Refunds: 30 days.","isError":false}]}"#,
    },
    EventType {
        name: "turn.completed",
        data: "{ result?: string; usage?: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; reasoningTokens?: number }; cost?: { totalUsd: number; model: string } }",
        summary: "the turn ended well",
        example: r#"{"result":"Refunds are available within 30 days of purchase.","usage":{"inputTokens":412,"outputTokens":38,"cacheReadTokens":0,"cacheWriteTokens":0},"cost":{"totalUsd":0,"model":"local"}}"#,
    },
    EventType {
        name: "turn.failed",
        data: "{ message: string; status?: \"error\" | \"cancelled\" }",
        summary: "the turn ended in failure or was cancelled",
        example: r#"{"message":"the model provider returned HTTP 500","status":"error"}"#,
    },
];

/// The event type with this exact name, if there is one.
pub fn event_type(name: &str) -> Option<&'static EventType> {
    EVENTS.iter().find(|event| event.name == name)
}

/// Whether `key` subscribes a handler to something real: an event type or `"*"`.
pub fn is_known_key(key: &str) -> bool {
    key == WILDCARD || event_type(key).is_some()
}

/// The event type a mistyped `key` most likely meant, if one is close enough.
pub fn suggest(key: &str) -> Option<&'static str> {
    crate::diagnostics::suggest::nearest(key, EVENTS.iter().map(|event| event.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_near_miss() {
        assert_eq!(suggest("turn.complete"), Some("turn.completed"));
        assert_eq!(suggest("turn.fail"), Some("turn.failed"));
        assert_eq!(suggest("message.recieved"), Some("message.received"));
        assert_eq!(suggest("actions.request"), Some("actions.requested"));
        assert_eq!(suggest("zzz"), None);
    }

    #[test]
    fn examples_are_json_objects() {
        for event in EVENTS {
            let example: serde_json::Value = serde_json::from_str(event.example).unwrap();
            assert!(example.is_object(), "{}", event.name);
        }
    }

    /// docs/events.md is this table; `UPDATE_DOCS=1 cargo test --lib vocabulary::` writes it.
    #[test]
    fn the_events_page_lists_the_vocabulary() {
        let mut page = String::from(
            "# Event types\n\nEvery event a session records, in the order a turn usually records them (SPEC §5).\n\
             A handler's key in `events` is one of these, or `\"*\"` for every event; `agent-sdk validate`\n\
             reports any other key (`hooks::unknown-event`, with the nearest as \"did you mean\").\n\
             This page is generated from `src/vocabulary/mod.rs`, as are the SDK's types.\n\n\
             | event type | recorded when | `data` |\n|---|---|---|\n",
        );
        for event in EVENTS {
            page.push_str(&format!(
                "| `{}` | {} | `{}` |\n",
                event.name,
                event.summary,
                event.data.replace('|', "\\|")
            ));
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/events.md");
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &page).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(committed == page, "docs/events.md is out of date: UPDATE_DOCS=1 cargo test --lib vocabulary::");
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in EVENTS.iter().enumerate() {
            assert!(EVENTS[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
        }
    }
}
