//! `agent-sdk dev`: the local stand-in for hosting. An HTTP server (SPEC §9) whose
//! sessions run turns and fire hooks as `run` does, and whose serve log `logs` follows.
//!
//! ```text
//!   connections (accept, header timeout, bounded shutdown) ─▶ router (bearer token)
//!   POST /v1/sessions/{id}/messages ─▶ sessions (a worker and a runtime per live session)
//!                                     ─▶ turn stream (bounded, never waited on) ─▶ SSE of the turn's events
//!   GET  /v1/logs ◀─ serve_log table (cursor) ◀─ every session's serve log
//!   watch (source folder) ─▶ re-validate ─▶ recompile ─▶ hooks reloaded between turns
//! ```

pub mod agent;
pub mod connections;
pub mod logs;
pub mod sessions;
pub mod token;
pub mod turn_stream;
pub mod watch;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use tokio_stream::StreamExt;

use agent::Agent;
use sessions::{Refusal, Sessions, Turn};
use turn_stream::Cut;

/// What every request handler shares.
#[derive(Clone)]
pub struct Server {
    pub agent: Arc<Agent>,
    pub sessions: Arc<Sessions>,
    pub token: Arc<String>,
    /// Set when the server stops, so followers end their streams.
    pub stopping: tokio::sync::watch::Receiver<bool>,
}

/// Every route; all of them need the bearer token.
pub fn router(server: Server) -> axum::Router {
    axum::Router::new()
        .route("/v1/sessions", post(create_session))
        .route("/v1/sessions/{id}/messages", post(send_message))
        .route("/v1/sessions/{id}/events", get(session_events))
        .route("/v1/logs", get(serve_logs))
        .layer(axum::middleware::from_fn_with_state(server.clone(), require_token))
        .with_state(server)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

async fn require_token(State(server): State<Server>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !token::tokens_match(presented, &server.token) {
        return error(StatusCode::UNAUTHORIZED, "missing or wrong bearer token (see .agent-sdk/dev.json)");
    }
    next.run(request).await
}

async fn create_session(State(server): State<Server>) -> Response {
    match server.sessions.create() {
        Ok(id) => (StatusCode::CREATED, Json(json!({ "id": id }))).into_response(),
        Err(refusal) => refused(&refusal),
    }
}

fn refused(refusal: &Refusal) -> Response {
    let status = match refusal {
        Refusal::Full { .. } => StatusCode::TOO_MANY_REQUESTS,
        Refusal::NoThread(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    error(status, refusal.to_string())
}

#[derive(Deserialize)]
struct Message {
    text: String,
}

async fn send_message(State(server): State<Server>, Path(id): Path<String>, Json(message): Json<Message>) -> Response {
    if let Err(problem) = crate::state::check_session_id(&id) {
        return error(StatusCode::BAD_REQUEST, problem);
    }
    let sessions = Arc::clone(&server.sessions);
    let known = {
        let id = id.clone();
        tokio::task::spawn_blocking(move || sessions.exists(&id)).await
    };
    match known {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => {
            return error(StatusCode::NOT_FOUND, format!("no session `{id}`; create one with POST /v1/sessions"));
        }
        Ok(Err(problem)) => {
            return error(StatusCode::SERVICE_UNAVAILABLE, format!("could not look the session up: {problem:#}"));
        }
        Err(problem) => return error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
    let (stream, events) = turn_stream::channel();
    if let Err(refusal) = server.sessions.send(&id, Turn { text: message.text, stream }) {
        return refused(&refusal);
    }
    // Waiting for the first event lets a turn that could not start be answered with a status.
    let envelopes = match events.started().await {
        Ok(envelopes) => envelopes,
        Err(Cut::SessionInUse(problem)) => return error(StatusCode::CONFLICT, problem),
        Err(Cut::Failed(problem)) => return error(StatusCode::SERVICE_UNAVAILABLE, problem),
    };
    let stream = envelopes.map(|envelope| {
        envelope.map(|envelope| {
            let data = serde_json::to_string(&envelope).unwrap_or_default();
            Event::default().id(envelope.index.to_string()).event(envelope.event_type.clone()).data(data)
        })
    });
    Sse::new(stream).into_response()
}

async fn session_events(State(server): State<Server>, Path(id): Path<String>) -> Response {
    if let Err(problem) = crate::state::check_session_id(&id) {
        return error(StatusCode::BAD_REQUEST, problem);
    }
    let dir = server.agent.project().dir.clone();
    let events = tokio::task::spawn_blocking(move || crate::state::StateStore::open(&dir)?.events(&id)).await;
    match events {
        Ok(Ok(events)) if !events.is_empty() => Json(events).into_response(),
        Ok(Ok(_)) => error(StatusCode::NOT_FOUND, "no such session, or it has no events yet"),
        Ok(Err(problem)) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
        Err(problem) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
}

async fn serve_logs(
    State(server): State<Server>,
    headers: HeaderMap,
    query: Result<Query<logs::LogQuery>, QueryRejection>,
) -> Response {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let last_event_id = headers.get("last-event-id").map(|value| value.as_bytes());
    let request = match logs::LogRequest::parse(&query, last_event_id) {
        Ok(request) => request,
        Err(problem) => return error(StatusCode::BAD_REQUEST, problem),
    };
    let dir = server.agent.project().dir.clone();
    match logs::respond(dir, request, server.agent.log_cursor.subscribe(), server.stopping.clone()).await {
        Ok(response) => response,
        Err(problem) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
}

/// Whether binding `address` keeps the server on this machine.
pub fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}
