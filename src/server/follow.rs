//! An NDJSON response that follows the store: what was recorded past a cursor, then (when
//! following) more as sessions record it, until the client leaves or the server stops. The
//! hosting API's event stream and the playground's timeline are two of its sources.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::state::StateStore;

/// What a response reads: the lines recorded past its cursor, which it moves on.
pub trait Source: Send + 'static {
    /// Every new line, each ending in `\n`; empty when nothing is new.
    fn read(&mut self, store: &StateStore) -> anyhow::Result<String>;
}

/// `?follow=` as given: `true`/`1`, `false`/`0` or absent.
pub fn parse_follow(value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(value) => Err(format!("follow is true or false, not `{}`", crate::text::untrusted::escape(value))),
    }
}

/// The response: `application/x-ndjson`, read from `store` by `source`; with `follow`, woken
/// by `recorded` for more until `stopping`.
pub fn ndjson(
    store: StateStore,
    source: impl Source,
    follow: bool,
    recorded: tokio::sync::watch::Receiver<u64>,
    stopping: tokio::sync::watch::Receiver<bool>,
) -> Response {
    let follower = Follower { reading: Arc::new(Mutex::new((store, source))), follow, recorded, stopping, done: false };
    let lines = futures_util::stream::unfold(follower, Follower::next_lines);
    let mut response = Body::from_stream(lines).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
    response
}

struct Follower<S> {
    reading: Arc<Mutex<(StateStore, S)>>,
    follow: bool,
    recorded: tokio::sync::watch::Receiver<u64>,
    stopping: tokio::sync::watch::Receiver<bool>,
    done: bool,
}

impl<S: Source> Follower<S> {
    /// The next lines: what was recorded since, once there is some (following), else the end.
    async fn next_lines(mut self) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        loop {
            if self.done {
                return None;
            }
            // Marked seen before reading, so a record made meanwhile wakes the next wait.
            self.recorded.mark_unchanged();
            let reading = Arc::clone(&self.reading);
            let read = tokio::task::spawn_blocking(move || {
                let mut reading = reading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let (store, source) = &mut *reading;
                source.read(store)
            })
            .await;
            let lines = match read {
                Ok(Ok(lines)) => lines,
                Ok(Err(problem)) => return Some((Err(std::io::Error::other(format!("{problem:#}"))), self.ended())),
                Err(problem) => return Some((Err(std::io::Error::other(problem.to_string())), self.ended())),
            };
            if !lines.is_empty() {
                self.done = !self.follow;
                return Some((Ok(Bytes::from(lines)), self));
            }
            if !self.follow || *self.stopping.borrow() {
                return None;
            }
            tokio::select! {
                changed = self.recorded.changed() => if changed.is_err() { return None },
                _ = self.stopping.changed() => return None,
            }
        }
    }

    fn ended(mut self) -> Self {
        self.done = true;
        self
    }
}

/// A session's events from an index on, one envelope a line.
pub struct Events {
    pub session_id: String,
    pub next: u64,
}

impl Source for Events {
    fn read(&mut self, store: &StateStore) -> anyhow::Result<String> {
        let envelopes = store.events_from(&self.session_id, self.next)?;
        let mut lines = String::new();
        for envelope in &envelopes {
            self.next = envelope.index + 1;
            lines.push_str(&serde_json::to_string(envelope)?);
            lines.push('\n');
        }
        Ok(lines)
    }
}

/// A session's timeline: its events (`{"event": <envelope>}`) and its handlers' runs
/// (`{"run": <run>}`), each event before the runs of its handlers.
pub struct Timeline {
    pub events: Events,
    /// The number of the last run sent.
    pub after_run: u64,
}

impl Source for Timeline {
    fn read(&mut self, store: &StateStore) -> anyhow::Result<String> {
        // Runs read first: a run is recorded after its event, so every event of the runs
        // read is in the events read next, and is sent before them.
        let runs = store.handler_runs_after(&self.events.session_id, self.after_run)?;
        let envelopes = store.events_from(&self.events.session_id, self.events.next)?;
        let mut lines = String::new();
        for envelope in &envelopes {
            self.events.next = envelope.index + 1;
            lines.push_str(&serde_json::to_string(&serde_json::json!({ "event": envelope }))?);
            lines.push('\n');
        }
        for (number, run) in &runs {
            self.after_run = *number;
            lines.push_str(&serde_json::to_string(&serde_json::json!({ "run": run }))?);
            lines.push('\n');
        }
        Ok(lines)
    }
}
