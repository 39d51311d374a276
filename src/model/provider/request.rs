//! What one model request sends: the conversation, and after a step that called tools, the
//! assistant's calls and the stubbed answer to each.

use serde_json::{Value, json};

/// One message of the conversation a turn starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatMessage {
    pub role: Role,
    pub text: String,
}

/// Who said a [`ChatMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// What every tool call is answered with: agent-sdk records tool calls but runs no tools.
pub fn stubbed_tool_output() -> Value {
    json!({ "dryRun": true, "note": "stubbed: agent-sdk does not run tools; no tool ran" })
}

/// A tool call as the model made it, kept to be sent back in the next request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallMade {
    pub id: String,
    pub name: String,
    /// The arguments exactly as the model streamed them.
    pub arguments: String,
}

/// The `messages` of a turn's requests, growing by one tool step at a time.
#[derive(Debug, Clone)]
pub struct Messages(Vec<Value>);

impl Messages {
    pub fn new(conversation: &[ChatMessage]) -> Self {
        Self(
            conversation
                .iter()
                .map(|message| json!({ "role": message.role.as_str(), "content": message.text }))
                .collect(),
        )
    }

    /// Adds a step that called tools: the assistant's message with its calls (and its text,
    /// or null), then the stubbed answer to each call.
    pub fn push_tool_step(&mut self, text: &str, calls: &[CallMade]) {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|call| {
                // An empty argument string is sent as `{}`: servers reject "" as arguments.
                let arguments = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
                json!({ "id": call.id, "type": "function", "function": { "name": call.name, "arguments": arguments } })
            })
            .collect();
        let content = if text.is_empty() { Value::Null } else { Value::String(text.to_owned()) };
        self.0.push(json!({ "role": "assistant", "content": content, "tool_calls": tool_calls }));
        let stub = stubbed_tool_output().to_string();
        for call in calls {
            self.0.push(json!({ "role": "tool", "tool_call_id": call.id, "content": stub }));
        }
    }

    /// The body of one streamed chat-completions request.
    pub fn request_body(&self, model: &str, tools: &[Value]) -> Value {
        let mut body = json!({
            "model": model,
            "messages": self.0,
            "stream": true,
            "stream_options": { "include_usage": true },
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_step_adds_the_calls_and_their_stubbed_answers() {
        let mut messages = Messages::new(&[
            ChatMessage { role: Role::System, text: "Be brief.".to_owned() },
            ChatMessage { role: Role::User, text: "hi".to_owned() },
        ]);
        messages.push_tool_step(
            "",
            &[CallMade { id: "call_a".to_owned(), name: "search".to_owned(), arguments: String::new() }],
        );
        let body = messages.request_body("m", &[]);
        assert!(body.get("tools").is_none());
        assert_eq!(body["stream_options"]["include_usage"], true);
        let sent = body["messages"].as_array().unwrap();
        assert_eq!(sent[0], json!({ "role": "system", "content": "Be brief." }));
        assert_eq!(sent[2]["content"], Value::Null);
        assert_eq!(sent[2]["tool_calls"][0]["function"], json!({ "name": "search", "arguments": "{}" }));
        assert_eq!(sent[3]["role"], "tool");
        assert_eq!(sent[3]["tool_call_id"], "call_a");
        let answer: Value = serde_json::from_str(sent[3]["content"].as_str().unwrap()).unwrap();
        assert_eq!(answer, stubbed_tool_output());
        let with_tools = messages.request_body("m", &[json!({ "type": "function" })]);
        assert_eq!(with_tools["tools"].as_array().unwrap().len(), 1);
    }
}
