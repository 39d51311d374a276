//! What the server has yet to write to the client, in order, bounded where it can be: a
//! file's diagnostics replace those of the same file still waiting (each publication is the
//! file's whole list, so the older one says nothing the client still needs). A client that
//! stops reading while edits go on holds the server to one list per file, not one per edit.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, PoisonError};

use lsp_server::Message;
use lsp_types::notification::{Notification as _, PublishDiagnostics};

/// The messages waiting for the writer.
#[derive(Default)]
pub struct Outbox {
    waiting: Mutex<Waiting>,
    arrived: Condvar,
}

#[derive(Default)]
struct Waiting {
    messages: VecDeque<Message>,
    /// No message will be put any more: the writer ends once the rest is written.
    closed: bool,
}

impl Outbox {
    /// Queues `message` last; diagnostics of a file drop that file's diagnostics still waiting.
    /// Says how many were dropped. Once closed, nothing is queued: the client is gone.
    pub fn put(&self, message: Message) -> usize {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if waiting.closed {
            return 0;
        }
        let mut dropped = 0;
        if let Some(file) = diagnostics_file(&message).map(str::to_owned) {
            let before = waiting.messages.len();
            waiting.messages.retain(|queued| diagnostics_file(queued) != Some(file.as_str()));
            dropped = before - waiting.messages.len();
        }
        waiting.messages.push_back(message);
        self.arrived.notify_one();
        dropped
    }

    /// No more messages: [`Outbox::take`] returns `None` once the waiting ones are taken.
    pub fn close(&self) {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner).closed = true;
        self.arrived.notify_all();
    }

    /// The first waiting message, waiting for one; `None` when closed and empty.
    pub fn take(&self) -> Option<Message> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(message) = waiting.messages.pop_front() {
                return Some(message);
            }
            if waiting.closed {
                return None;
            }
            waiting = self.arrived.wait(waiting).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The URI a `textDocument/publishDiagnostics` notification is about.
fn diagnostics_file(message: &Message) -> Option<&str> {
    match message {
        Message::Notification(notification) if notification.method == PublishDiagnostics::METHOD => {
            notification.params.get("uri")?.as_str()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_server::{Notification, RequestId, Response};

    fn diagnostics(uri: &str, version: i32) -> Message {
        let params = serde_json::json!({ "uri": uri, "diagnostics": [], "version": version });
        Message::Notification(Notification::new(PublishDiagnostics::METHOD.to_owned(), params))
    }

    fn version_of(message: &Message) -> Option<(String, i64)> {
        let Message::Notification(notification) = message else { return None };
        Some((notification.params["uri"].as_str()?.to_owned(), notification.params["version"].as_i64()?))
    }

    #[test]
    fn newer_diagnostics_of_a_file_replace_the_waiting_ones_and_the_rest_keeps_its_order() {
        let outbox = Outbox::default();
        assert_eq!(outbox.put(diagnostics("file:///a.ts", 1)), 0);
        outbox.put(Message::Response(Response::new_ok(RequestId::from(7), serde_json::Value::Null)));
        assert_eq!(outbox.put(diagnostics("file:///b.ts", 1)), 0);
        assert_eq!(outbox.put(diagnostics("file:///a.ts", 2)), 1);
        assert_eq!(outbox.put(diagnostics("file:///a.ts", 3)), 1);
        outbox.close();
        assert!(matches!(outbox.take(), Some(Message::Response(response)) if response.id == RequestId::from(7)));
        assert_eq!(outbox.take().as_ref().and_then(version_of), Some(("file:///b.ts".to_owned(), 1)));
        assert_eq!(outbox.take().as_ref().and_then(version_of), Some(("file:///a.ts".to_owned(), 3)));
        assert!(outbox.take().is_none());
    }

    #[test]
    fn other_messages_are_never_dropped_and_nothing_is_queued_once_closed() {
        let outbox = Outbox::default();
        for method in ["window/logMessage", "window/logMessage"] {
            outbox.put(Message::Notification(Notification::new(method.to_owned(), serde_json::json!({}))));
        }
        outbox.close();
        outbox.put(diagnostics("file:///a.ts", 1));
        assert!(outbox.take().is_some());
        assert!(outbox.take().is_some());
        assert!(outbox.take().is_none(), "nothing is queued once closed");
    }
}
