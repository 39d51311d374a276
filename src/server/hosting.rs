//! The hosting API, as the vendor's hosts serve it (VENDOR-DOCS §1.6, §1.7), so that a
//! client written against hosting talks to `dev` unchanged:
//!
//! - `POST /v1/session` `{ "message" }` starts a session, `{ "message", "continuationToken" }`
//!   follows one up; answered once the turn is recorded with `{ ok, sessionId,
//!   continuationToken, playgroundUrl, traceUrl }`. The token rotates after each accepted follow-up (a
//!   stale one is 409), a task session takes none (409), another caller's session is 403.
//! - `GET /v1/session/{id}/events` (the `traceUrl`): the session's events as NDJSON;
//!   `?follow=true` goes on with each new one as it is recorded.
//! - `GET /v1/info`: what `info --json` says of the project, as of the last change.
//! - The host's own routes, open to anyone: `GET /` (an HTML index), `GET /v1/agents`.
//!
//! Every route also answers under the agent's slug (`/<slug>/v1/…`, the multi-agent
//! layout); errors here are `{ "ok": false, "error": "<code>", "message" }`.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::json;

use super::auth::Principal;
use super::{Server, follow, is_json, message_script, start_turn};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::session_info::{Mode, Purpose, SessionInfo};

/// The agent's slug in the multi-agent layout: its name, lowercase, with what a URL path
/// segment should not hold (`@`, `/`, spaces) as `-` (`@acme/support-bot` → `acme-support-bot`).
pub fn slug(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c.to_ascii_lowercase() } else { '-' })
        .collect();
    let trimmed = mapped.trim_matches(['-', '.']);
    if trimmed.is_empty() { "agent".to_owned() } else { trimmed.to_owned() }
}

/// Where a request came in under the agent's slug, the prefix it used (kept in the URLs
/// the answer gives).
#[derive(Debug, Clone)]
struct Prefix(String);

/// Takes `/<slug>` off the path of a request made under it, so the routes answer there too.
pub async fn strip_slug(slug: String, mut request: Request, next: Next) -> Response {
    let prefix = format!("/{slug}");
    let path = request.uri().path();
    if let Some(rest) = path.strip_prefix(&prefix).filter(|rest| rest.is_empty() || rest.starts_with('/')) {
        let rest = if rest.is_empty() { "/" } else { rest };
        let rewritten = match request.uri().query() {
            Some(query) => format!("{rest}?{query}"),
            None => rest.to_owned(),
        };
        if let Ok(uri) = rewritten.parse() {
            *request.uri_mut() = uri;
            request.extensions_mut().insert(Prefix(prefix));
        }
    }
    next.run(request).await
}

/// The host's own routes, which need no caller let in: the index pages and the
/// playground's files (which hold no secret: its calls bring the token).
pub fn is_host_route(path: &str) -> bool {
    matches!(path, "/" | "/v1/agents" | "/playground") || path.starts_with("/playground/")
}

/// Whether `path` is the hosting API's, whose errors have its shape.
pub fn is_hosting_route(path: &str) -> bool {
    is_host_route(path) || path == "/v1/info" || path == "/v1/session" || path.starts_with("/v1/session/")
}

/// An error of the hosting API: `{ "ok": false, "error": "<code>", "message": "…" }`.
pub fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    (status, Json(json!({ "ok": false, "error": code, "message": message.into() }))).into_response()
}

/// The code of an error nothing else named (the router's 404 and 405, an extractor's).
pub fn code_of(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => "invalid_request",
        StatusCode::UNAUTHORIZED => "unauthorized",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::CONFLICT => "conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "invalid_request",
        StatusCode::TOO_MANY_REQUESTS => "too_many_sessions",
        StatusCode::SERVICE_UNAVAILABLE => "unavailable",
        _ => "internal_error",
    }
}

/// The server's base URL as the caller reached it: the request's `Host` when it is a plain
/// host and port, else where the server listens; with the slug prefix the request used.
fn base_url(server: &Server, headers: &HeaderMap, prefix: Option<&Prefix>) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c)));
    let base = match host {
        Some(host) => format!("http://{host}"),
        None => server.url.to_string(),
    };
    format!("{base}{}", prefix.map_or("", |prefix| prefix.0.as_str()))
}

/// `POST /v1/session`'s body: the message, and for a follow-up the token the last answer
/// gave; a new session may be described as `POST /v1/sessions` describes one, and with the
/// `local` model a turn may be scripted.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SessionMessage {
    message: String,
    #[serde(default)]
    continuation_token: Option<String>,
    #[serde(default)]
    purpose: Option<Purpose>,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    script: Option<serde_json::Value>,
}

const SESSION_MESSAGE_SHAPE: &str = "POST /v1/session takes { \"message\": \"…\" } to start a session, { \"message\": \"…\", \"continuationToken\": \"…\" } to follow one up (and, for a new one, \"purpose\", \"mode\", \"title\"; with the local model, \"script\")";

/// A refusal of the hosting API: status, code, message.
pub(super) type Refusal = (StatusCode, &'static str, String);

fn refusal(status: StatusCode, code: &'static str, message: impl Into<String>) -> Refusal {
    (status, code, message.into())
}

fn parse_message(headers: &HeaderMap, body: &[u8]) -> Result<SessionMessage, Refusal> {
    if !is_json(headers) {
        return Err(refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the message as JSON, with `content-type: application/json`",
        ));
    }
    let message: SessionMessage = serde_json::from_slice(body).map_err(|problem| {
        let problem = crate::text::untrusted::escape(&problem.to_string()).into_owned();
        refusal(StatusCode::BAD_REQUEST, "invalid_request", format!("{problem}; {SESSION_MESSAGE_SHAPE}"))
    })?;
    if message.message.trim().is_empty() {
        return Err(refusal(StatusCode::BAD_REQUEST, "invalid_request", "`message` is empty"));
    }
    Ok(message)
}

/// `POST /v1/session`: a new session's first turn, or a follow-up of one.
pub async fn send(State(server): State<Server>, request: Request) -> Response {
    let principal = request.extensions().get::<Principal>().copied().unwrap_or(Principal::Anonymous);
    let prefix = request.extensions().get::<Prefix>().cloned();
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(_) => {
            return error(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", "a message's body may be at most 2 MiB");
        }
    };
    match answer(&server, principal, &parts.headers, &body).await {
        Ok((session_id, token)) => {
            let base = base_url(&server, &parts.headers, prefix.as_ref());
            Json(json!({
                "ok": true,
                "sessionId": session_id,
                "continuationToken": token,
                "playgroundUrl": format!("{base}/playground?session={session_id}"),
                "traceUrl": format!("{base}/v1/session/{session_id}/events"),
            }))
            .into_response()
        }
        Err((status, code, message)) => error(status, code, message),
    }
}

/// The most a message's body may hold, as the rest of the API takes.
const MAX_BODY_BYTES: usize = 2 << 20;

/// [`send`]'s work: the session's id and its continuation token once the turn is recorded.
async fn answer(
    server: &Server,
    principal: Principal,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(String, String), Refusal> {
    let message = parse_message(headers, body)?;
    let script = message_script(server, message.script.clone())
        .map_err(|(status, problem)| refusal(status, "invalid_request", problem))?;
    let next_token = new_continuation_token()?;
    let (session_id, taken_from) = match &message.continuation_token {
        None => (new_session(server, principal, &message, &next_token).await?, None),
        Some(token) => (follow_up(server, principal, &message, token, &next_token).await?, Some(token.clone())),
    };
    let started = start_turn(server, &session_id, message.message, script, headers).await;
    let envelopes = match started {
        Ok(envelopes) => envelopes,
        Err((status, problem)) => {
            // Not accepted: the token the caller holds stays the session's.
            if let Some(old) = taken_from {
                let (id, new) = (session_id.clone(), next_token.clone());
                let _ = blocking(server, move |store| store.rotate_continuation_token(&id, &new, &old)).await;
            }
            return Err(refusal(status, code_of(status), problem));
        }
    };
    // Answered once the whole turn is recorded, as hosting answers.
    let ended: Vec<Result<Envelope, std::io::Error>> = envelopes.collect().await;
    if let Some(Err(problem)) = ended.into_iter().find(Result::is_err) {
        return Err(refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable", format!("the turn broke off: {problem}")));
    }
    Ok((session_id, next_token))
}

/// Starts a session for `principal`, with its first continuation token.
async fn new_session(
    server: &Server,
    principal: Principal,
    message: &SessionMessage,
    token: &str,
) -> Result<String, Refusal> {
    let info = SessionInfo {
        purpose: message.purpose.unwrap_or_default(),
        mode: message.mode.unwrap_or_default(),
        title: message.title.clone(),
    };
    if let Some(problem) = info.problem() {
        return Err(refusal(StatusCode::BAD_REQUEST, "invalid_request", problem));
    }
    let sessions = Arc::clone(&server.sessions);
    let created = tokio::task::spawn_blocking(move || sessions.create(&info)).await;
    let session_id = match created {
        Ok(Ok(id)) => id,
        Ok(Err(refused)) => {
            let status = super::refusal_status(&refused);
            return Err(refusal(status, code_of(status), refused.to_string()));
        }
        Err(problem) => return Err(refusal(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", problem.to_string())),
    };
    let (id, token) = (session_id.clone(), token.to_owned());
    blocking(server, move |store| store.record_http_session(&id, principal.as_str(), &token)).await?;
    Ok(session_id)
}

/// The session `token` continues, if `principal` may follow it up now; its token is then
/// `next_token`.
async fn follow_up(
    server: &Server,
    principal: Principal,
    message: &SessionMessage,
    token: &str,
    next_token: &str,
) -> Result<String, Refusal> {
    if message.purpose.is_some() || message.mode.is_some() || message.title.is_some() {
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "`purpose`, `mode` and `title` describe a new session; a follow-up brings only `message` and `continuationToken`",
        ));
    }
    let presented = token.to_owned();
    let Some((session_id, owner)) = blocking(server, move |store| store.http_session_of_token(&presented)).await?
    else {
        return Err(refusal(
            StatusCode::CONFLICT,
            "stale_continuation_token",
            "this continuation token is not the session's current one: it rotates after each accepted follow-up, so send the one the last answer gave",
        ));
    };
    if owner != principal.as_str() {
        return Err(refusal(
            StatusCode::FORBIDDEN,
            "forbidden",
            format!("session {session_id} belongs to another caller"),
        ));
    }
    let id = session_id.clone();
    let info = blocking(server, move |store| store.session_info(&id)).await?.unwrap_or_default();
    if info.mode == Mode::Task {
        return Err(refusal(
            StatusCode::CONFLICT,
            "task_session",
            format!("session {session_id} is a task session, which ends with its task: start a new session instead"),
        ));
    }
    let (id, old, new) = (session_id.clone(), token.to_owned(), next_token.to_owned());
    if !blocking(server, move |store| store.rotate_continuation_token(&id, &old, &new)).await? {
        return Err(refusal(
            StatusCode::CONFLICT,
            "stale_continuation_token",
            "another follow-up took this continuation token first: send the one its answer gave",
        ));
    }
    Ok(session_id)
}

/// `http:` and 24 random bytes as hex, as opaque as the vendor's.
fn new_continuation_token() -> Result<String, Refusal> {
    let mut bytes = [0u8; 24];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").map_err(unavailable)?, &mut bytes)
        .map_err(unavailable)?;
    Ok(format!("http:{}", bytes.iter().map(|byte| format!("{byte:02x}")).collect::<String>()))
}

fn unavailable(problem: impl std::fmt::Display) -> Refusal {
    refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable", problem.to_string())
}

/// Runs `work` on a store connection of its own, off the async threads.
async fn blocking<T: Send + 'static>(
    server: &Server,
    work: impl FnOnce(&StateStore) -> anyhow::Result<T> + Send + 'static,
) -> Result<T, Refusal> {
    let dir = server.agent.project().dir.clone();
    match tokio::task::spawn_blocking(move || work(&StateStore::open(&dir)?)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(problem)) => Err(refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable", format!("{problem:#}"))),
        Err(problem) => Err(refusal(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", problem.to_string())),
    }
}

/// A store to read session `id` from, when `principal` may read it: it exists and was
/// not started over this API by another caller.
pub(super) async fn readable_session(server: &Server, principal: Principal, id: &str) -> Result<StateStore, Refusal> {
    crate::state::session_id::check_session_id(id)
        .map_err(|problem| refusal(StatusCode::BAD_REQUEST, "invalid_request", problem))?;
    let (sessions, dir, session) = (Arc::clone(&server.sessions), server.agent.project().dir.clone(), id.to_owned());
    let opened = tokio::task::spawn_blocking(move || {
        let store = StateStore::open(&dir)?;
        let known = sessions.exists(&session)?;
        let owner = store.http_session_principal(&session)?;
        anyhow::Ok((store, known, owner))
    })
    .await;
    match opened {
        Ok(Ok((_, false, _))) => Err(refusal(StatusCode::NOT_FOUND, "session_not_found", format!("no session `{id}`"))),
        Ok(Ok((_, true, Some(owner)))) if owner != principal.as_str() => {
            Err(refusal(StatusCode::FORBIDDEN, "forbidden", format!("session {id} belongs to another caller")))
        }
        Ok(Ok((store, true, _))) => Ok(store),
        Ok(Err(problem)) => Err(refusal(StatusCode::SERVICE_UNAVAILABLE, "unavailable", format!("{problem:#}"))),
        Err(problem) => Err(refusal(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", problem.to_string())),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    #[serde(default)]
    follow: Option<String>,
}

/// `GET /v1/session/{id}/events`: the session's events as NDJSON, one envelope a line;
/// with `?follow=true` the response goes on with each new event until the client leaves or
/// the server stops.
pub async fn events(
    State(server): State<Server>,
    Path(id): Path<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
    request: Request,
) -> Response {
    let principal = request.extensions().get::<Principal>().copied().unwrap_or(Principal::Anonymous);
    let follow = match query.map(|Query(query)| follow::parse_follow(query.follow.as_deref())) {
        Ok(Ok(follow)) => follow,
        Ok(Err(problem)) => return error(StatusCode::BAD_REQUEST, "invalid_request", problem),
        Err(rejection) => return error(StatusCode::BAD_REQUEST, "invalid_request", rejection.body_text()),
    };
    let store = match readable_session(&server, principal, &id).await {
        Ok(store) => store,
        Err((status, code, message)) => return error(status, code, message),
    };
    let events = follow::Events { session_id: id, next: 0 };
    follow::ndjson(store, events, follow, server.agent.events_recorded.subscribe(), server.stopping.clone())
}

/// `GET /v1/info`: the project as `info --json` describes it, as of the last change the
/// server saw.
pub async fn info(State(server): State<Server>) -> Response {
    let text = server.agent.described().info.clone();
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// `GET /v1/agents`: the agents this host serves (this one), for any caller.
pub async fn agents(State(server): State<Server>, headers: HeaderMap) -> Response {
    let name = &server.agent.project().name;
    let slug = slug(name);
    let base = base_url(&server, &headers, None);
    Json(json!({
        "ok": true,
        "agents": [{
            "slug": slug,
            "name": name,
            "url": format!("{base}/{slug}"),
            "sessionUrl": format!("{base}/{slug}/v1/session"),
            "infoUrl": format!("{base}/{slug}/v1/info"),
        }],
    }))
    .into_response()
}

/// `GET /`: the host's index page, for any caller: the agent, its hooks, and how to talk to it.
pub async fn index(State(server): State<Server>, headers: HeaderMap) -> Response {
    let agent = &server.agent;
    let name = agent.project().name.clone();
    let slug = slug(&name);
    let base = base_url(&server, &headers, None);
    let hooks: Vec<String> = agent.hook_set().plan.hooks.iter().map(|hook| html(&hook.name)).collect();
    let hook_list = if hooks.is_empty() {
        "<p>No hooks load.</p>".to_owned()
    } else {
        format!("<ul>{}</ul>", hooks.iter().map(|hook| format!("<li><code>{hook}</code></li>")).collect::<String>())
    };
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} · agent-sdk dev</title>\
         <meta name=\"color-scheme\" content=\"light dark\"></head><body>\n\
         <h1>{title}</h1>\n<p>Served by <code>agent-sdk dev</code> at <code>{base}</code> (also under <code>/{slug}</code>).</p>\n\
         <h2>Hooks</h2>\n{hook_list}\n\
         <h2>Talk to it</h2>\n<pre>agent-sdk chat --message \"hello\"\n\n\
         curl -s {base}/v1/session -H \"authorization: Bearer $TOKEN\" \\\n  -H 'content-type: application/json' -d '{{\"message\":\"hello\"}}'</pre>\n\
         <p>The token is in <code>.agent-sdk/dev.json</code>. The API: <code>POST /v1/session</code>, \
         <code>GET /v1/session/{{id}}/events</code>, <code>GET /v1/info</code>, <code>GET /v1/logs</code>.</p>\n\
         </body></html>\n",
        title = html(&name),
        base = html(&base),
        slug = html(&slug),
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// `text` safe in HTML text and attribute values.
fn html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_path_segments() {
        assert_eq!(slug("acme-bot"), "acme-bot");
        assert_eq!(slug("@acme/Support Bot"), "acme-support-bot");
        assert_eq!(slug("@@"), "agent");
    }

    #[test]
    fn only_the_hosting_api_s_routes_have_its_errors() {
        for path in ["/", "/v1/agents", "/v1/info", "/v1/session", "/v1/session/ses_a/events"] {
            assert!(is_hosting_route(path), "{path}");
        }
        for path in ["/v1/sessions", "/v1/sessions/ses_a/messages", "/v1/logs", "/v1/sessionx"] {
            assert!(!is_hosting_route(path), "{path}");
        }
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(html("<b>\"x\" & 'y'</b>"), "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;");
    }
}
