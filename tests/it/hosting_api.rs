//! `dev` speaks the vendor's hosting API (`src/server/hosting.rs`): a client written from
//! the vendor's docs alone (`tests/hosting/client.mjs`, run in Node) works against it
//! unchanged; follow-ups, stale tokens, task sessions and other callers are answered as
//! hosting answers them; `/v1/info` follows a hot reload; the host's routes need no token;
//! every route answers under the agent's slug; errors have the vendor's shape.

use crate::common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::copy_fixture;
use crate::common::dev_server::DevServer;

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(60)).build().unwrap()
}

/// `POST <path>` with `body`, as `principal` (a bearer token, or none): status and JSON.
fn post(server: &DevServer, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut request = client().post(format!("{}{path}", server.url)).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().unwrap();
    (response.status().as_u16(), response.json().unwrap())
}

fn get(server: &DevServer, path: &str, token: Option<&str>) -> reqwest::blocking::Response {
    let mut request = client().get(format!("{}{path}", server.url));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().unwrap()
}

#[test]
fn a_client_written_from_the_vendor_s_docs_works_unchanged() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let output = std::process::Command::new(common::node())
        .arg(common::root().join("tests/hosting/client.mjs"))
        .args([&server.url, &server.token])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["first"]["status"], 200, "{seen}");
    assert_eq!(seen["first"]["ok"], true);
    assert_eq!(seen["first"]["tokenRotated"], true, "{seen}");
    let session = seen["first"]["sessionId"].as_str().unwrap();
    assert!(session.starts_with("ses_"), "{seen}");
    assert_eq!(seen["traceUrl"], format!("{}/v1/session/{session}/events", server.url));
    assert_eq!(seen["contentType"], "application/x-ndjson");
    assert_eq!(seen["followUp"], json!({ "status": 200, "ok": true, "sameSession": true }));
    // Both turns, in order, the second seen live as it was recorded.
    let types: Vec<&str> = seen["seen"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"message.received"));
    assert_eq!(types.iter().filter(|t| **t == "message.received").count(), 2, "{types:?}");
    assert_eq!(types.last(), Some(&"turn.completed"));
    assert_eq!(seen["stale"]["status"], 409);
    assert_eq!(seen["stale"]["body"]["ok"], false);
    assert_eq!(seen["stale"]["body"]["error"], "stale_continuation_token");
    // The old API sees the same session.
    let recorded: Vec<Value> = server.get(&format!("/v1/sessions/{session}/events")).unwrap().json().unwrap();
    assert_eq!(recorded.len(), types.len());
}

#[test]
fn callers_task_sessions_and_bad_bodies_are_answered_as_hosting_answers_them() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start_with(
        dir.path(),
        0,
        &["--hook-timeout", "5s", "--bearer-token", "a-secret-of-the-user-s", "--allow-anonymous"],
    );
    let dev_token = server.token.clone();
    // Anonymous callers are let in, and own what they start.
    let (status, started) = post(&server, "/v1/session", None, &json!({ "message": "hi" }));
    assert_eq!(status, 200, "{started}");
    let session = started["sessionId"].as_str().unwrap();
    let token = started["continuationToken"].as_str().unwrap();
    let (status, refused) =
        post(&server, "/v1/session", Some(&dev_token), &json!({ "message": "mine now", "continuationToken": token }));
    assert_eq!((status, refused["ok"].clone(), refused["error"].clone()), (403, json!(false), json!("forbidden")));
    let events = get(&server, &format!("/v1/session/{session}/events"), Some("a-secret-of-the-user-s"));
    assert_eq!(events.status(), 403);
    assert_eq!(events.json::<Value>().unwrap()["error"], "forbidden");
    // The token was not spent by the refused caller.
    let (status, _) = post(&server, "/v1/session", None, &json!({ "message": "again", "continuationToken": token }));
    assert_eq!(status, 200);

    // --bearer-token's secret is a caller of its own; a wrong token is no anonymous caller.
    let (status, task) = post(
        &server,
        "/v1/session",
        Some("a-secret-of-the-user-s"),
        &json!({ "message": "run the nightly eval", "mode": "task", "purpose": "eval" }),
    );
    assert_eq!(status, 200, "{task}");
    let (status, refused) = post(
        &server,
        "/v1/session",
        Some("a-secret-of-the-user-s"),
        &json!({ "message": "and then?", "continuationToken": task["continuationToken"] }),
    );
    assert_eq!((status, refused["error"].clone()), (409, json!("task_session")), "{refused}");
    let (status, refused) = post(&server, "/v1/session", Some("wrong"), &json!({ "message": "hi" }));
    assert_eq!((status, refused["ok"].clone(), refused["error"].clone()), (401, json!(false), json!("unauthorized")));

    // Bodies that are not a message, each named.
    for (body, wanted) in [
        (json!({ "text": "hi" }), "unknown field `text`"),
        (json!({ "message": "" }), "`message` is empty"),
        (json!({ "message": "hi", "continuationToken": token, "mode": "task" }), "describe a new session"),
    ] {
        let (status, refused) = post(&server, "/v1/session", Some(&dev_token), &body);
        assert_eq!((status, refused["error"].clone()), (400, json!("invalid_request")), "{body}: {refused}");
        assert!(refused["message"].as_str().unwrap().contains(wanted), "{body}: {refused}");
    }
    let response = get(&server, "/v1/session/ses_nope/events", Some(&dev_token));
    assert_eq!(response.status(), 404);
    assert_eq!(response.json::<Value>().unwrap()["error"], "session_not_found");
    // The router's own errors on the hosting routes have its shape too.
    let response = get(&server, "/v1/session", Some(&dev_token));
    assert_eq!(response.status(), 405);
    assert_eq!(response.json::<Value>().unwrap()["error"], "method_not_allowed");
}

#[test]
fn the_host_s_routes_need_no_token_and_every_route_answers_under_the_slug() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let index = get(&server, "/", None);
    assert_eq!(index.status(), 200);
    assert!(index.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let page = index.text().unwrap();
    assert!(page.contains("<h1>dev-basic</h1>") && page.contains("<code>recorder</code>"), "{page}");
    let agents: Value = get(&server, "/v1/agents", None).json().unwrap();
    assert_eq!(agents["agents"][0]["slug"], "dev-basic", "{agents}");
    assert_eq!(agents["agents"][0]["sessionUrl"], format!("{}/dev-basic/v1/session", server.url));
    // The rest needs a caller let in.
    let response = get(&server, "/v1/info", None);
    assert_eq!(response.status(), 401);
    assert_eq!(response.json::<Value>().unwrap()["error"], "unauthorized");

    let (status, started) = post(&server, "/dev-basic/v1/session", Some(&server.token), &json!({ "message": "hi" }));
    assert_eq!(status, 200, "{started}");
    let session = started["sessionId"].as_str().unwrap();
    assert_eq!(started["traceUrl"], format!("{}/dev-basic/v1/session/{session}/events", server.url));
    let trace = get(&server, &format!("/dev-basic/v1/session/{session}/events"), Some(&server.token)).text().unwrap();
    assert!(trace.lines().count() >= 3 && trace.ends_with('\n'), "{trace}");
    assert!(trace.lines().all(|line| serde_json::from_str::<Value>(line).is_ok()), "{trace}");
    let logs = get(&server, "/dev-basic/v1/logs?tail=1", Some(&server.token));
    assert_eq!(logs.status(), 200);
    assert_eq!(get(&server, "/another-agent/v1/info", Some(&server.token)).status(), 404);
}

#[test]
fn info_says_what_info_json_says_and_follows_a_hot_reload() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let info: Value = get(&server, "/v1/info", Some(&server.token)).json().unwrap();
    let cli = common::run_in(dir.path(), &["info", "--json"]);
    assert_eq!(info, serde_json::from_slice::<Value>(&cli.stdout).unwrap());
    let hooks = |info: &Value| -> Vec<String> {
        info["agents"][0]["hooks"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(hooks(&info), ["recorder", "slow"]);
    std::fs::write(
        dir.path().join("bot/hooks/audit.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.completed\"() {} } });\n",
    )
    .unwrap();
    let started = Instant::now();
    loop {
        let info: Value = get(&server, "/v1/info", Some(&server.token)).json().unwrap();
        if hooks(&info) == ["audit", "recorder", "slow"] {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "info did not follow the change: {info}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A page of another site (by its `Origin`, or by a `Host` it rebound to 127.0.0.1) cannot
/// drive the agent, even where `--allow-anonymous` needs no token: 403.
#[test]
fn requests_of_another_site_are_refused_even_without_a_token_needed() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start_with(dir.path(), 0, &["--hook-timeout", "5s", "--allow-anonymous"]);
    let send = |header: &str, value: &str| {
        let response = client()
            .post(format!("{}/v1/session", server.url))
            .header(header, value)
            .json(&json!({ "message": "hi" }))
            .send()
            .unwrap();
        (response.status().as_u16(), response.json::<Value>().unwrap())
    };
    let (status, refused) = send("origin", "http://evil.example");
    assert_eq!((status, refused["error"].clone()), (403, json!("forbidden")), "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("the Origin `http://evil.example` is not this machine"));
    let (status, refused) = send("host", "evil.example:7311");
    assert_eq!(status, 403, "{refused}");
    let (status, _) = send("origin", "http://localhost:3000");
    assert_eq!(status, 200, "a page of this machine may");
    let response = client()
        .get(format!("{}/v1/logs?tail=0", server.url))
        .header("origin", "http://evil.example")
        .bearer_auth(&server.token)
        .send()
        .unwrap();
    assert_eq!(response.status(), 403, "the token does not make another site's page welcome");
}
