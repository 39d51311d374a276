//! `dev`'s playground (`src/server/playground.rs`), driven in a real Chromium by
//! `tests/playground/drive.mjs` (playwright-core on Debian's `chromium`): the URL dev prints
//! opens it; a message's reply streams in; the hooks timeline shows every handler's
//! outcome, a throw with its TypeScript line; logs filter; the Agent tab follows a hot
//! reload; another site and a rebound name are refused. And the routes behind it, over HTTP.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use crate::common::copy_fixture;
use crate::common::dev_server::DevServer;

/// Where the browser test keeps its screenshots (test output, not checked in).
fn screenshots() -> std::path::PathBuf {
    common::root().join("target/playground-screenshots")
}

/// The playground line of dev's start-up, with its token.
fn printed_playground_url(dir: &std::path::Path) -> String {
    let log = std::fs::read_to_string(dir.join("dev-0.log")).unwrap();
    let line = log.lines().find(|line| line.contains("playground: ")).unwrap_or_else(|| panic!("{log}"));
    line.split("playground: ").nth(1).unwrap().split(' ').next().unwrap().to_owned()
}

#[test]
fn the_playground_works_in_a_real_browser() {
    let dir = copy_fixture("dev", "playground");
    let server = DevServer::start(dir.path(), 0);
    let url = printed_playground_url(dir.path());
    assert_eq!(url, format!("{}/playground#token={}", server.url, server.token));
    let driver = common::root().join("tests/playground/drive.mjs");
    assert!(
        common::root().join("tests/playground/node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run scripts/test-setup (npm ci --prefix tests/playground)"
    );
    let output = std::process::Command::new(common::node())
        .arg(&driver)
        .arg(&url)
        .arg(dir.path())
        .arg(screenshots())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap_or_default()
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["pageErrors"], serde_json::json!([]), "{seen:#}");
    assert_eq!(seen["addressKeepsToken"], false, "the token stays out of the address bar");
    assert_eq!(seen["tokenFormShown"], false);
    assert_eq!(seen["agentName"], "support-bot");
    assert!(seen["readyMs"].is_number(), "{seen:#}");
    // What a user sees, the times and ids taken out.
    let mut shown = seen.clone();
    for key in ["readyMs", "pageErrors", "addressKeepsToken", "tokenFormShown", "agentName", "updated"] {
        shown.as_object_mut().unwrap().remove(key);
    }
    let text = serde_json::to_string_pretty(&shown).unwrap();
    let text = regex_replace(&text, r"\[[0-9a-f]{8}\]", "[<session>]");
    insta::assert_snapshot!(text);
    assert!(seen["updated"].as_str().unwrap().contains("the hooks changed"), "{seen:#}");
    for shot in ["chat.png", "timeline.png", "logs.png", "agent.png", "timeline-dark.png"] {
        assert!(screenshots().join(shot).is_file(), "{shot}");
    }
}

fn regex_replace(text: &str, pattern: &str, with: &str) -> String {
    regex::Regex::new(pattern).unwrap().replace_all(text, with).into_owned()
}

#[test]
fn the_page_is_small_served_from_the_binary_and_holds_no_secret() {
    let dir = copy_fixture("dev", "playground");
    let server = DevServer::start(dir.path(), 0);
    let client = reqwest::blocking::Client::new();
    let mut total = 0;
    for path in ["/playground", "/playground/playground.js", "/playground/playground.css", "/support-bot/playground"] {
        // No token: the page and its files hold no secret.
        let response = client.get(format!("{}{path}", server.url)).send().unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let policy = response.headers()["content-security-policy"].to_str().unwrap().to_owned();
        assert!(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "{policy}");
        let body = response.text().unwrap();
        assert!(!body.contains(&server.token));
        if !path.starts_with("/support-bot") {
            total += body.len();
        }
    }
    assert!(total < 200 * 1024, "the playground is {total} bytes");
    let missing = client.get(format!("{}/playground/secrets.txt", server.url)).send().unwrap();
    assert_eq!(missing.status(), 404);
    // The token the start-up line prints goes to the terminal only: not into the log.
    let recorded: Vec<Value> = server.logs("");
    assert!(recorded.iter().all(|record| !record.to_string().contains(&server.token)), "{recorded:?}");
    assert!(recorded.iter().any(|record| record["message"].as_str().unwrap_or("").starts_with("serving support-bot")));
}

/// The timeline's lines for `session`, once `done` says they are all there.
fn timeline(server: &DevServer, session: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let text = server.get(&format!("/v1/sessions/{session}/timeline")).unwrap().text().unwrap();
        let lines: Vec<Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        if done(&lines) || started.elapsed() > Duration::from_secs(20) {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `(event type, hook, handler, outcome, error)` of each run, in order.
fn runs(lines: &[Value]) -> Vec<(String, String, String, String, String)> {
    lines
        .iter()
        .filter_map(|line| line.get("run"))
        .map(|run| {
            let text = |key: &str| run[key].as_str().unwrap_or("").to_owned();
            (text("type"), text("hook"), text("handler"), text("outcome"), text("error"))
        })
        .collect()
}

#[test]
fn the_timeline_records_every_handler_s_outcome_with_the_event_first() {
    let dir = copy_fixture("dev", "playground");
    let hooks = dir.path().join("bot/hooks");
    std::fs::write(
        hooks.join("waits.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({\n  events: {\n    async \"message.received\"(event) {\n      if (event.data.text === \"wait\") await new Promise(() => {});\n    },\n  },\n});\n",
    )
    .unwrap();
    std::fs::write(
        hooks.join("spins.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({\n  events: {\n    \"message.received\"(event) {\n      if (event.data.text === \"spin\") for (;;) {}\n    },\n  },\n});\n",
    )
    .unwrap();
    let server = DevServer::start_with(dir.path(), 0, &["--hook-timeout", "1s"]);
    let session = server.create_session();
    server.send(&session, "wait");
    let lines = timeline(&server, &session, |lines| {
        runs(lines).iter().any(|run| run.0 == "turn.completed" && run.1 == "usage")
    });
    // Every run comes after its event's line.
    let mut seen_events = std::collections::HashSet::new();
    for line in &lines {
        if let Some(event) = line.get("event") {
            seen_events.insert(event["index"].as_u64().unwrap());
        } else {
            assert!(seen_events.contains(&line["run"]["event"].as_u64().unwrap()), "{line}");
        }
    }
    let waited = runs(&lines);
    assert!(
        waited.contains(&(
            "message.received".into(),
            "waits".into(),
            "message.received".into(),
            "timed_out".into(),
            "timed out after 1s".into()
        )),
        "{waited:#?}"
    );
    assert!(waited.iter().any(|run| run.1 == "pager" && run.3 == "threw"), "{waited:#?}");
    let at: Vec<&str> = lines.iter().filter_map(|line| line["run"]["at"].as_str()).collect();
    assert_eq!(at, ["bot/hooks/pager.ts:8:15"]);

    // A handler that never yields: the runtime is stopped in it, and its run says so.
    let second = server.create_session();
    server.send(&second, "spin");
    let lines = timeline(&server, &second, |lines| runs(lines).iter().any(|run| run.0 == "turn.completed"));
    let spun = runs(&lines);
    let stuck: Vec<_> = spun.iter().filter(|run| run.1 == "spins").collect();
    assert_eq!(stuck.len(), 1, "{spun:#?}");
    assert_eq!(stuck[0].3, "timed_out");
    assert!(stuck[0].4.starts_with("did not yield for"), "{stuck:?}");
    // No ms is known for it; every other run has one.
    for line in lines.iter().filter_map(|line| line.get("run")) {
        assert_eq!(line["ms"].is_null(), line["hook"] == "spins", "{line}");
    }
}

#[test]
fn the_routes_behind_the_page_answer_what_it_asks() {
    let dir = copy_fixture("dev", "playground");
    let server = DevServer::start(dir.path(), 0);
    let check: Value = server.get("/v1/check").unwrap().json().unwrap();
    assert_eq!(check["schemaVersion"], 1);
    assert_eq!(check["diagnostics"], serde_json::json!([]));
    let source = server.get("/v1/source?hook=pager").unwrap();
    assert_eq!(source.status(), 200);
    assert!(source.text().unwrap().contains("PAGER_WEBHOOK_URL"));
    // Only a hook's file: no other path, whatever the name.
    for name in ["../package.json", "bot/hooks/pager.ts", "nope"] {
        let refused = server.get(&format!("/v1/source?hook={name}")).unwrap();
        assert_eq!(refused.status(), 404, "{name}");
        let body: Value = refused.json().unwrap();
        assert!(body["error"].as_str().unwrap().contains("GET /v1/info lists them"), "{body}");
    }
    let session = server.create_session();
    server.send(&session, "hi");
    let listed: Value = server.get("/v1/sessions").unwrap().json().unwrap();
    assert_eq!(listed["sessions"][0]["id"], session.as_str());
    assert_eq!(listed["sessions"][0]["purpose"], "live");
    assert!(listed["sessions"][0]["events"].as_u64().unwrap() >= 3, "{listed}");
    // The hosting API's answer points at this session's playground.
    let answer: Value = server.post("/v1/session", &serde_json::json!({ "message": "hello" })).unwrap().json().unwrap();
    let id = answer["sessionId"].as_str().unwrap();
    assert_eq!(answer["playgroundUrl"], format!("{}/playground?session={id}", server.url));
    // Without the token, the data routes refuse.
    let anonymous = reqwest::blocking::get(format!("{}/v1/sessions/{session}/timeline", server.url)).unwrap();
    assert_eq!(anonymous.status(), 401);
}
