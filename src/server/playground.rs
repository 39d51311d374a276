//! The playground (`GET /playground`): one page served from the binary (Chat, Agent, Raw,
//! the hooks timeline, Logs), and the routes only it needs: the recent sessions, a
//! session's timeline, the last check's findings and a hook's source.
//!
//! The page holds no secret: the token comes in the URL's fragment (`#token=…`, which the
//! browser never sends), and the page sends it as the `authorization` header of each call.

use axum::Json;
use axum::extract::{Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::auth::Principal;
use super::{Server, error, follow, hosting};

const PAGE: &str = include_str!("playground/index.html");
const SCRIPT: &str = include_str!("playground/playground.js");
const STYLE: &str = include_str!("playground/playground.css");

/// Only the page's own files and calls; no framing by another page.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET /playground` and its files.
pub async fn file(Path(name): Path<String>) -> Response {
    match name.as_str() {
        "playground.js" => served("text/javascript; charset=utf-8", SCRIPT),
        "playground.css" => served("text/css; charset=utf-8", STYLE),
        _ => error(
            StatusCode::NOT_FOUND,
            format!("the playground has no file `{}`", crate::text::untrusted::escape(&name)),
        ),
    }
}

/// `GET /playground`: the page.
pub async fn page() -> Response {
    served("text/html; charset=utf-8", PAGE)
}

fn served(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// How many sessions `GET /v1/sessions` lists.
const RECENT_SESSIONS: u32 = 50;

/// `GET /v1/sessions`: the newest sessions, for the playground to continue one.
pub async fn sessions(State(server): State<Server>) -> Response {
    let dir = server.agent.project().dir.clone();
    let listed =
        tokio::task::spawn_blocking(move || crate::state::StateStore::open(&dir)?.recent_sessions(RECENT_SESSIONS))
            .await;
    match listed {
        Ok(Ok(sessions)) => {
            let sessions: Vec<_> = sessions
                .into_iter()
                .map(|(id, info, created_at, events)| {
                    json!({
                        "id": id,
                        "purpose": info.purpose.as_str(),
                        "mode": info.mode.as_str(),
                        "title": info.title,
                        "createdAt": created_at,
                        "events": events,
                    })
                })
                .collect();
            Json(json!({ "sessions": sessions })).into_response()
        }
        Ok(Err(problem)) => error(StatusCode::SERVICE_UNAVAILABLE, format!("could not list the sessions: {problem:#}")),
        Err(problem) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowQuery {
    #[serde(default)]
    follow: Option<String>,
}

/// `GET /v1/sessions/{id}/timeline`: the session's events and its handlers' runs as NDJSON
/// (`{"event": …}` and `{"run": …}` lines, each event before its runs); `?follow=true`
/// goes on as they are recorded.
pub async fn timeline(
    State(server): State<Server>,
    Path(id): Path<String>,
    query: Result<Query<FollowQuery>, axum::extract::rejection::QueryRejection>,
    request: Request,
) -> Response {
    let principal = request.extensions().get::<Principal>().copied().unwrap_or(Principal::Anonymous);
    let follow = match query.map(|Query(query)| follow::parse_follow(query.follow.as_deref())) {
        Ok(Ok(follow)) => follow,
        Ok(Err(problem)) => return error(StatusCode::BAD_REQUEST, problem),
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let store = match hosting::readable_session(&server, principal, &id).await {
        Ok(store) => store,
        Err((status, _, message)) => return error(status, message),
    };
    let timeline = follow::Timeline { events: follow::Events { session_id: id, next: 0 }, after_run: 0 };
    follow::ndjson(store, timeline, follow, server.agent.events_recorded.subscribe(), server.stopping.clone())
}

/// `GET /v1/check`: what `validate --format json` says of the project, as of the last
/// change the server saw.
pub async fn check(State(server): State<Server>) -> Response {
    let text = server.agent.described().check.clone();
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceQuery {
    hook: String,
}

/// The most of a hook's file `GET /v1/source` sends.
const MAX_SOURCE_BYTES: u64 = 1 << 20;

/// `GET /v1/source?hook=<name>`: the file of a hook of the last check (loaded or skipped),
/// as text; no other file.
pub async fn source(
    State(server): State<Server>,
    query: Result<Query<SourceQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let hook = match query {
        Ok(Query(query)) => query.hook,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, rejection.body_text()),
    };
    let described = server.agent.described();
    let Some((_, path)) = described.sources.iter().find(|(name, _)| *name == hook) else {
        let hook = crate::text::untrusted::escape(&hook).into_owned();
        return error(StatusCode::NOT_FOUND, format!("no hook `{hook}`; GET /v1/info lists them"));
    };
    let file = server.agent.project().dir.join(path);
    let read = tokio::task::spawn_blocking(move || {
        use std::io::Read;
        let mut text = String::new();
        std::fs::File::open(&file)?.take(MAX_SOURCE_BYTES).read_to_string(&mut text)?;
        std::io::Result::Ok(text)
    })
    .await;
    match read {
        Ok(Ok(text)) => ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response(),
        Ok(Err(problem)) => error(
            StatusCode::NOT_FOUND,
            format!(
                "could not read {}: {}",
                crate::text::untrusted::escape(path),
                crate::text::io_error::describe(&problem)
            ),
        ),
        Err(problem) => error(StatusCode::INTERNAL_SERVER_ERROR, problem.to_string()),
    }
}
