//! `agent-sdk dev`: the local stand-in for hosting. An HTTP server (SPEC §9) whose
//! sessions run turns and fire hooks as `run` does, and whose serve log `logs` follows.
//!
//! ```text
//!   connections (accept, header timeout, bounded shutdown) ─▶ /<slug> stripped ─▶ router (auth)
//!   POST /v1/session (the hosting API) ─┐
//!   POST /v1/sessions/{id}/messages ────┴▶ sessions (a worker and a runtime per live session)
//!                                     ─▶ turn stream (bounded, never waited on) ─▶ SSE of the turn's events
//!   GET  /v1/logs ◀─ serve_log table (cursor) ◀─ every session's serve log
//!   watch (source folder) ─▶ re-validate ─▶ recompile ─▶ hooks reloaded between turns
//! ```

pub mod agent;
pub mod auth;
pub mod connections;
pub mod follow;
pub mod hosting;
pub mod logs;
pub mod playground;
pub mod port_owner;
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

use crate::model::local::Script;
use crate::state::log_query::{LogQuery, LogRequest};
use crate::state::session_info::SessionInfo;
use crate::telemetry::request_span::RequestSpan;

/// What every request handler shares.
#[derive(Clone)]
pub struct Server {
    pub agent: Arc<Agent>,
    pub sessions: Arc<Sessions>,
    /// The `/v1/logs` streams.
    pub followers: Arc<logs::Followers>,
    pub auth: Arc<auth::Auth>,
    /// `http://127.0.0.1:7311`: where the server listens, for the URLs its answers give.
    pub url: Arc<String>,
    /// `--allow-remote`: requests may name any host and come from any origin.
    pub allow_remote: bool,
    /// Set when the server stops, so followers end their streams.
    pub stopping: tokio::sync::watch::Receiver<bool>,
}

/// Every route. The hosting API's (the vendor's: `/v1/session`, `/v1/info`, the host's `/`
/// and `/v1/agents`) answer at `/v1/*` and under the agent's slug, `/<slug>/v1/*`, as the
/// vendor's multi-agent layout has them; their errors are `{ "ok": false, "error": "<code>",
/// "message" }`. Every other route's error, whoever makes it (a handler, an extractor, the
/// router), is `{ "error": "…" }`. All but the host's routes need a caller let in ([`auth`]).
pub fn router(server: Server) -> axum::Router {
    let slug = hosting::slug(&server.agent.project().name);
    let routes = axum::Router::new()
        .route("/", get(hosting::index))
        .route("/v1/agents", get(hosting::agents))
        .route("/v1/info", get(hosting::info))
        .route("/v1/session", post(hosting::send))
        .route("/v1/session/{id}/events", get(hosting::events))
        .route("/v1/sessions", post(create_session).get(playground::sessions))
        .route("/v1/sessions/{id}/messages", post(send_message))
        .route("/v1/sessions/{id}/events", get(session_events))
        .route("/v1/sessions/{id}/timeline", get(playground::timeline))
        .route("/v1/logs", get(serve_logs))
        .route("/v1/check", get(playground::check))
        .route("/v1/source", get(playground::source))
        .route("/playground", get(playground::page))
        .route("/playground/{file}", get(playground::file))
        .layer(axum::middleware::from_fn_with_state(server.clone(), authenticate))
        .layer(axum::middleware::from_fn_with_state(server.clone(), same_machine))
        .layer(axum::middleware::from_fn(errors_as_json))
        .with_state(server);
    // Routed after the slug is taken off (a layer of the router itself would run after routing).
    axum::Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn(move |request, next| hosting::strip_slug(slug.clone(), request, next)))
}

/// A request refused: its status and why (the body of its JSON `error`).
type Refused = (StatusCode, String);

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

/// How much of an error body in another format is kept as the message.
const ERROR_TEXT_BYTES: usize = 16 * 1024;

/// Makes every error response JSON: the router's own 404 and 405 (empty bodies) and the
/// extractors' plain-text rejections (415 without `content-type: application/json`, 400
/// and 422 for a body that is not the JSON asked for, 413 for one too large) become
/// `{ "error": "…" }` with their status and headers (a 405's `allow` stays).
async fn errors_as_json(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let hosting = hosting::is_hosting_route(request.uri().path());
    let path = crate::text::untrusted::escape(request.uri().path()).into_owned();
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(response.headers()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let said = axum::body::to_bytes(body, ERROR_TEXT_BYTES).await.unwrap_or_default();
    let said = crate::text::untrusted::escape(String::from_utf8_lossy(&said).trim()).into_owned();
    let message = match status {
        _ if !said.is_empty() => said,
        StatusCode::NOT_FOUND => format!(
            "no endpoint {path}; the API is the hosting API's POST /v1/session, GET /v1/session/{{id}}/events and GET /v1/info, and POST /v1/sessions, POST /v1/sessions/{{id}}/messages, GET /v1/sessions/{{id}}/events and GET /v1/logs"
        ),
        StatusCode::METHOD_NOT_ALLOWED => format!("{path} does not take {method}"),
        _ => status.canonical_reason().unwrap_or("error").to_owned(),
    };
    let json = if hosting { hosting::error(status, hosting::code_of(status), message) } else { error(status, message) };
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.extend(json.headers().clone());
    let (_, body) = json.into_parts();
    Response::from_parts(parts, body)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().to_ascii_lowercase().starts_with("application/json"))
}

/// Requests of this machine only, unless the server listens for the network
/// (`--allow-remote`): one whose `Host` is not a loopback name or address (what a page of
/// another site sends after rebinding its name to 127.0.0.1) or whose `Origin` is another
/// site (a page open in the user's browser) is refused 403, token or not.
async fn same_machine(State(server): State<Server>, request: Request, next: Next) -> Response {
    if !server.allow_remote {
        let header = |name| request.headers().get(name).map(|value| value.to_str().unwrap_or("\u{fffd}"));
        let path = request.uri().path();
        let refuse = |what: &str, value: &str| {
            let message = format!(
                "{what} `{}` is not this machine: dev answers requests of this machine only (pass --allow-remote to serve others)",
                crate::text::untrusted::escape(value)
            );
            if hosting::is_hosting_route(path) {
                hosting::error(StatusCode::FORBIDDEN, "forbidden", message)
            } else {
                error(StatusCode::FORBIDDEN, message)
            }
        };
        if let Some(host) = header(axum::http::header::HOST).filter(|host| !is_loopback_authority(host)) {
            return refuse("the Host", host);
        }
        if let Some(origin) = header(axum::http::header::ORIGIN).filter(|origin| !is_loopback_origin(origin)) {
            return refuse("the Origin", origin);
        }
    }
    next.run(request).await
}

/// Whether `authority` (`127.0.0.1:7311`, `localhost`, `[::1]:7311`) names this machine.
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => match authority.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
            _ => authority,
        },
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Whether an `Origin` (`http://localhost:3000`) is a page of this machine.
fn is_loopback_origin(origin: &str) -> bool {
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|authority| !authority.contains('/') && is_loopback_authority(authority))
}

/// Lets a caller in ([`auth::Auth`]), who the handlers then find in the request's
/// extensions; the host's own routes (`/`, `/v1/agents`) need no one, as the vendor's hosts'.
async fn authenticate(State(server): State<Server>, mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let authorization = request.headers().get("authorization").map(|value| value.to_str().unwrap_or(""));
    let principal = match server.auth.principal(authorization) {
        Some(principal) => principal,
        None if hosting::is_host_route(path) => auth::Principal::Anonymous,
        None if hosting::is_hosting_route(path) => {
            return hosting::error(StatusCode::UNAUTHORIZED, "unauthorized", server.auth.refusal());
        }
        None => return error(StatusCode::UNAUTHORIZED, server.auth.refusal()),
    };
    request.extensions_mut().insert(principal);
    next.run(request).await
}

/// `POST /v1/sessions`, with no body or `{ "purpose"?, "mode"?, "title"? }`.
async fn create_session(State(server): State<Server>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let info = match session_info(&headers, &body) {
        Ok(info) => info,
        Err((status, problem)) => return error(status, problem),
    };
    let sessions = Arc::clone(&server.sessions);
    match tokio::task::spawn_blocking(move || sessions.create(&info)).await {
        Ok(Ok(id)) => (StatusCode::CREATED, Json(json!({ "id": id }))).into_response(),
        Ok(Err(refusal)) => refused(&refusal),
        Err(problem) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
}

/// The new session's description: none (an empty body) is a `live` `chat` session; a body
/// must be a JSON object of the known fields, each of its type (400 with the reason).
fn session_info(headers: &HeaderMap, body: &[u8]) -> Result<SessionInfo, Refused> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(SessionInfo::default());
    }
    if !is_json(headers) {
        return Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a session's description is JSON: send it with `content-type: application/json`".to_owned(),
        ));
    }
    let shape = "a session takes { \"purpose\": \"live\" | \"eval\", \"mode\": \"chat\" | \"task\", \"title\": \"…\" }, each optional";
    let bad = |problem: &dyn std::fmt::Display| {
        (StatusCode::BAD_REQUEST, format!("{}; {shape}", crate::text::untrusted::escape(&problem.to_string())))
    };
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|problem| bad(&problem))?;
    // `null` describes nothing, as no body does.
    let info: SessionInfo = match value {
        serde_json::Value::Null => SessionInfo::default(),
        serde_json::Value::Object(_) => serde_json::from_value(value).map_err(|problem| bad(&problem))?,
        _ => return Err(bad(&"a session's description is a JSON object")),
    };
    match info.problem() {
        Some(problem) => Err((StatusCode::BAD_REQUEST, problem)),
        None => Ok(info),
    }
}

fn refused(refusal: &Refusal) -> Response {
    error(refusal_status(refusal), refusal.to_string())
}

fn refusal_status(refusal: &Refusal) -> StatusCode {
    match refusal {
        Refusal::Full { .. } => StatusCode::TOO_MANY_REQUESTS,
        Refusal::NoThread(_) | Refusal::Unrecorded(_) => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// A message's body: its text and, for the local model, the script of the turn it starts
/// (what a `run --script` file holds).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    text: String,
    #[serde(default)]
    script: Option<serde_json::Value>,
}

/// The message's script, checked: 400 with the reason when it is not a model script or the
/// server's model does not play scripts.
fn message_script(server: &Server, script: Option<serde_json::Value>) -> Result<Option<Script>, Refused> {
    let Some(script) = script.filter(|script| !script.is_null()) else {
        return Ok(None);
    };
    if let Some(problem) = server.agent.model.refuses_scripts() {
        return Err((StatusCode::BAD_REQUEST, problem));
    }
    Script::from_json(script).map(Some).map_err(|problem| {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "`script` is not a model script ({}); it takes what a `run --script` file holds: \
                 {{ \"steps\": [ {{ \"text\": \"…\" }}, {{ \"fail\": \"…\" }}, … ] }}",
                crate::text::untrusted::escape(&problem)
            ),
        )
    })
}

async fn send_message(
    State(server): State<Server>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(message): Json<Message>,
) -> Response {
    if let Err(problem) = crate::state::session_id::check_session_id(&id) {
        return error(StatusCode::BAD_REQUEST, problem);
    }
    let script = match message_script(&server, message.script) {
        Ok(script) => script,
        Err((status, problem)) => return error(status, problem),
    };
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
    let envelopes = match start_turn(&server, &id, message.text, script, &headers).await {
        Ok(envelopes) => envelopes,
        Err((status, problem)) => return error(status, problem),
    };
    let stream = envelopes.map(|envelope| {
        envelope.map(|envelope| {
            let data = serde_json::to_string(&envelope).unwrap_or_default();
            Event::default().id(envelope.index.to_string()).event(envelope.event_type.clone()).data(data)
        })
    });
    Sse::new(stream).into_response()
}

/// Queues a turn of session `id` (known to exist) and waits until it has started: its
/// events as they come, or the status and reason of a turn that could not start.
async fn start_turn(
    server: &Server,
    id: &str,
    text: String,
    script: Option<Script>,
    headers: &HeaderMap,
) -> Result<turn_stream::Envelopes, Refused> {
    let (stream, events) = turn_stream::channel();
    let traceparent = headers.get("traceparent").and_then(|value| value.to_str().ok());
    let request =
        server.agent.setup.telemetry.as_ref().and_then(|telemetry| RequestSpan::start(telemetry, id, traceparent));
    if let Err(refusal) = server.sessions.send(id, Turn { text, script, stream, request }) {
        return Err((refusal_status(&refusal), refusal.to_string()));
    }
    // Waiting for the first event lets a turn that could not start be answered with a status.
    events.started().await.map_err(|cut| match cut {
        Cut::SessionInUse(problem) => (StatusCode::CONFLICT, problem),
        Cut::Failed(problem) => (StatusCode::SERVICE_UNAVAILABLE, problem),
    })
}

async fn session_events(State(server): State<Server>, Path(id): Path<String>) -> Response {
    if let Err(problem) = crate::state::session_id::check_session_id(&id) {
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
    raw_query: axum::extract::RawQuery,
    query: Result<Query<LogQuery>, QueryRejection>,
) -> Response {
    let query = match query {
        Ok(Query(query)) => LogQuery { hooks: LogQuery::hooks_of(raw_query.0.as_deref()), ..query },
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let last_event_id = headers.get("last-event-id").map(|value| value.as_bytes());
    let request = match LogRequest::parse(&query, last_event_id) {
        Ok(request) => request,
        Err(problem) => return error(StatusCode::BAD_REQUEST, problem),
    };
    match server.followers.respond(request, server.agent.log_cursor.subscribe(), server.stopping.clone()).await {
        Ok(response) => response,
        Err(refusal @ logs::Refusal::Full) => error(StatusCode::TOO_MANY_REQUESTS, refusal.to_string()),
        Err(refusal @ logs::Refusal::BadRequest(_)) => error(StatusCode::BAD_REQUEST, refusal.to_string()),
        Err(refusal @ logs::Refusal::Unavailable(_)) => error(StatusCode::SERVICE_UNAVAILABLE, refusal.to_string()),
    }
}

/// Whether binding `address` keeps the server on this machine.
pub fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machine_s_names_and_pages() {
        for authority in ["127.0.0.1:7311", "localhost", "LOCALHOST:80", "[::1]:7311", "127.1.2.3"] {
            assert!(is_loopback_authority(authority), "{authority}");
        }
        for authority in ["evil.example", "evil.example:7311", "10.0.0.2:7311", "localhost.evil.example", "[::2]"] {
            assert!(!is_loopback_authority(authority), "{authority}");
        }
        assert!(is_loopback_origin("http://localhost:3000") && is_loopback_origin("https://127.0.0.1"));
        for origin in ["http://evil.example", "null", "file://", "http://127.0.0.1.evil.example"] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }
}
