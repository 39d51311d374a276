//! `agent-sdk dev` through the real binary: a real HTTP server on loopback, real Node
//! runtimes, hooks that write down what they saw (`fixtures/dev/`).

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::dev_server::{DevServer, dev_command, in_project, sse_data};
use crate::common::{copy_fixture, store};
use serde_json::Value;

fn record(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("record.txt")).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// Waits until the hooks have written `count` lines matching `filter`.
fn wait_for_record(dir: &Path, what: impl Fn(&[String]) -> bool) -> Vec<String> {
    let started = Instant::now();
    loop {
        let lines = record(dir);
        if what(&lines) {
            return lines;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the hooks never got there: {lines:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_turn_streams_its_events_and_fires_the_hooks() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let events = server.send(&session, "hello");
    assert_eq!(events.first().unwrap()["type"], "message.received");
    assert_eq!(events.last().unwrap()["type"], "turn.completed");
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["index"], i as u64);
        assert_eq!(event["sessionId"], session.as_str());
    }
    let recorded: Vec<Value> = server.get(&format!("/v1/sessions/{session}/events")).unwrap().json().unwrap();
    assert_eq!(recorded, events, "GET events returns what was streamed");
    let lines = wait_for_record(dir.path(), |lines| lines.len() >= events.len());
    let expected: Vec<String> = events
        .iter()
        .map(|event| format!("{session} {} {} v1", event["index"], event["type"].as_str().unwrap()))
        .collect();
    assert_eq!(lines, expected);
    // A second turn continues the session's indexes.
    let second = server.send(&session, "again");
    assert_eq!(second[0]["index"], events.len() as u64);
}

#[test]
fn every_endpoint_needs_the_token_and_unknown_sessions_are_404() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    for path in ["/v1/logs", "/v1/sessions/x/events"] {
        let response =
            reqwest::blocking::Client::new().get(format!("{}{path}", server.url)).bearer_auth("wrong").send().unwrap();
        assert_eq!(response.status(), 401, "{path}");
        let response = reqwest::blocking::Client::new().get(format!("{}{path}", server.url)).send().unwrap();
        assert_eq!(response.status(), 401, "{path} without a token");
    }
    let response = reqwest::blocking::Client::new()
        .post(format!("{}/v1/sessions/ses_nope/messages", server.url))
        .bearer_auth(&server.token)
        .json(&serde_json::json!({ "text": "hi" }))
        .send()
        .unwrap();
    assert_eq!(response.status(), 404);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join(".agent-sdk/dev.json")).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_session_id_that_is_not_one_is_a_400_with_a_reason() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let long = "s".repeat(129);
    for id in ["..%2F..%2Fx", "%2Fetc", "a%20b", "ses%1B%5B31m", long.as_str()] {
        let response = reqwest::blocking::Client::new()
            .post(format!("{}/v1/sessions/{id}/messages", server.url))
            .bearer_auth(&server.token)
            .json(&serde_json::json!({ "text": "hi" }))
            .send()
            .unwrap();
        assert_eq!(response.status(), 400, "POST messages of {id}");
        let reason = response.json::<Value>().unwrap()["error"].as_str().unwrap_or_default().to_owned();
        assert!(reason.contains("is not a session id"), "{reason}");
        assert!(!reason.contains('\u{1b}'), "{reason}");
        assert_eq!(server.get(&format!("/v1/sessions/{id}/events")).unwrap().status(), 400, "GET events of {id}");
        assert_eq!(server.get(&format!("/v1/logs?session={id}")).unwrap().status(), 400, "GET logs of {id}");
    }
    assert!(!dir.path().join(".agent-sdk/files/sessions").exists(), "no session folder was made");
    assert!(record(dir.path()).is_empty(), "no hook ran");
}

#[test]
fn the_serve_log_has_history_filters_tail_and_resume() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let first = server.create_session();
    let second = server.create_session();
    server.send_settled(&first, "one");
    server.send_settled(&second, "two");
    let all = server.logs("");
    let cursors: Vec<u64> = all.iter().map(|record| record["cursor"].as_u64().unwrap()).collect();
    assert!(cursors.windows(2).all(|pair| pair[0] < pair[1]), "{cursors:?}");
    assert!(all.iter().any(|record| record["message"] == "loaded hook \"recorder\""));
    let only_second = server.logs(&format!("?session={second}"));
    assert!(!only_second.is_empty() && only_second.iter().all(|record| record["sessionId"] == second.as_str()));
    assert!(server.logs("?level=error").is_empty());
    let tail = server.logs("?tail=2");
    assert_eq!(tail, all[all.len() - 2..]);
    let resumed = sse_data(
        &reqwest::blocking::Client::new()
            .get(format!("{}/v1/logs", server.url))
            .bearer_auth(&server.token)
            .header("Last-Event-ID", cursors[1].to_string())
            .send()
            .unwrap()
            .text()
            .unwrap(),
    );
    assert_eq!(resumed, all[2..], "resumes right after the given cursor");
    let bad = server.get("/v1/logs?level=loud").unwrap();
    assert_eq!(bad.status(), 400);
}

/// A `GET /v1/logs` with a `Last-Event-ID`: the status and the body.
fn logs_after(server: &DevServer, last_event_id: &str) -> (u16, String) {
    let response = reqwest::blocking::Client::new()
        .get(format!("{}/v1/logs", server.url))
        .bearer_auth(&server.token)
        .header("Last-Event-ID", last_event_id)
        .send()
        .unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

#[test]
fn the_serve_log_edge_values_give_exact_answers_or_a_json_400() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send_settled(&session, "hello");
    let all = server.logs("");
    assert!(all.len() >= 2, "{all:?}");
    assert!(server.logs("?tail=0").is_empty(), "tail=0 is zero lines, like `tail -n 0`");
    assert_eq!(server.logs(&format!("?tail={}", u64::MAX)), all, "a tail longer than the log is all of it");
    assert_eq!(server.logs("?since=7304484d"), all, "an age older than the clock is all of it");
    assert_eq!(server.logs("?since=1h%2030m"), all, "a friendly age");
    let newest = all.last().unwrap()["cursor"].as_u64().unwrap();
    assert_eq!(logs_after(&server, &newest.to_string()), (200, String::new()), "nothing after the newest");
    assert_eq!(sse_data(&logs_after(&server, "0").1), all);
    for bad in ["9223372036854775808", "18446744073709551615", "99999999999999999999999", "-1", "abc"] {
        let (status, body) = logs_after(&server, bad);
        assert_eq!(status, 400, "Last-Event-ID {bad}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].as_str().unwrap().contains("Last-Event-ID"), "{body}");
    }
    for bad in ["tail=-1", "tail=99999999999999999999999", "follow=maybe", "since=soon", "since=999999999999d"] {
        let response = server.get(&format!("/v1/logs?{bad}")).unwrap();
        assert_eq!(response.status(), 400, "{bad}");
        let error: Value = response.json().unwrap();
        assert!(error["error"].is_string(), "{bad}: {error}");
    }
}

#[test]
fn logs_with_tail_0_follows_only_new_lines() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "before");
    wait_for_log(&server, "turn completed");
    let newest = server.logs("").last().unwrap()["cursor"].as_u64().unwrap();
    let mut follower = logs_command(dir.path(), &["-f", "--json", "--tail", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = follower.stdout.take().unwrap();
    let first_line = std::thread::spawn(move || {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).unwrap();
        line
    });
    make_lines_until_printed(&server, || first_line.is_finished());
    let _ = follower.kill();
    let _ = follower.wait();
    let record: Value = serde_json::from_str(&first_line.join().unwrap()).unwrap();
    assert!(record["id"].as_u64().unwrap() > newest, "the first line printed is new: {record}");
}

/// Makes new serve-log lines (a turn of a new session each round) until `printed` says the
/// follower printed one. A follower started with `--tail 0` shows nothing of its connection,
/// so lines made before it connected are never printed: each round makes more, and the first
/// the follower prints is the sign it follows. (The rounds' pause is how long a made line may
/// take to reach a follower that follows, not a guess of when it will: a round too short
/// only makes another.)
fn make_lines_until_printed(server: &DevServer, printed: impl Fn() -> bool) {
    let started = Instant::now();
    loop {
        let session = server.create_session();
        server.send(&session, "are you following?");
        let round = Instant::now();
        while round.elapsed() < Duration::from_secs(1) {
            if printed() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the follower printed none of the lines made for it");
    }
}

/// How many files the process `pid` has open.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

/// A raw `GET /v1/logs?follow=true` connection: the answer's status, what was read of it
/// (up to the first record of a stream, or the whole of a refusal), and the connection.
fn follower(server: &DevServer) -> (u16, String, std::net::TcpStream) {
    use std::io::{Read, Write};
    let address = server.address();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    let request = format!(
        "GET /v1/logs?follow=true HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        server.token
    );
    stream.write_all(request.as_bytes()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        let text = String::from_utf8_lossy(&seen).into_owned();
        if text.starts_with("HTTP/1.1 200") && text.contains("data: ") {
            return (200, text, stream);
        }
        let read = match stream.read(&mut buffer) {
            // A signal the test process got (a child's end) is no answer: read on.
            Err(problem) if problem.kind() == std::io::ErrorKind::Interrupted => continue,
            read => read.unwrap_or_else(|problem| panic!("{problem}: {text}")),
        };
        if read == 0 {
            let status = text.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
            return (status, text, stream);
        }
        seen.extend_from_slice(&buffer[..read]);
    }
}

/// `count` followers, each read until its history arrived (it then waits for new lines).
fn followers(server: &DevServer, count: usize) -> Vec<std::net::TcpStream> {
    (0..count)
        .map(|_| {
            let (status, said, stream) = follower(server);
            assert_eq!(status, 200, "{said}");
            stream
        })
        .collect()
}

/// Waits until `pid` has at most `limit` open files.
#[cfg(target_os = "linux")]
/// Whether process `pid` holds a TCP connection, established, to `port`.
fn connected_to(pid: u32, port: u16) -> bool {
    use agent_sdk::server::port_owner::{ESTABLISHED, holds_socket, tcp_sockets};
    let sockets = tcp_sockets(Path::new("/proc/net"));
    let to_port = sockets.into_iter().filter(|socket| socket.state == ESTABLISHED && socket.remote_port == port);
    holds_socket(pid, &to_port.map(|socket| socket.inode).collect::<Vec<_>>())
}

#[cfg(target_os = "linux")]
fn wait_for_connection(pid: u32, port: u16) {
    let started = Instant::now();
    while !connected_to(pid, port) {
        assert!(started.elapsed() < Duration::from_secs(10), "process {pid} never connected to port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_fds_at_most(pid: u32, limit: usize) {
    let started = Instant::now();
    while open_fds(pid) > limit {
        assert!(started.elapsed() < Duration::from_secs(10), "{} files open, expected {limit} at most", open_fds(pid));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Followers share one store connection, so a burst of them leaves nothing behind once
/// they leave (each had its own before, and SQLite kept the burst's peak of database
/// handles open for as long as the server ran) (issue 21, item 10).
#[cfg(target_os = "linux")]
#[test]
fn followers_that_leave_give_back_their_connection_and_store() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let pid = server.child.id();
    let before = open_fds(pid);
    for _round in 0..2 {
        let burst = followers(&server, 20);
        let during = open_fds(pid);
        drop(burst);
        wait_for_fds_at_most(pid, before + 1);
        // (Measured after: a connection the test made before may still have been closing;
        // the fewest of a few looks, since the watcher opens folders for a moment as it looks.)
        let after = (0..10)
            .map(|_| {
                std::thread::sleep(Duration::from_millis(30));
                open_fds(pid)
            })
            .min()
            .unwrap_or_default();
        assert!(during >= after + 20, "each follower held its connection: {during} files open, {after} after");
    }
    assert_eq!(server.logs("?tail=1").len(), 1, "the server still answers");
}

/// 64 followers at most, as sessions have a limit: the next is answered 429 with a JSON
/// `error` until one leaves (issue 21, item 10).
#[test]
fn log_followers_past_the_limit_are_answered_429_until_one_leaves() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let mut held = followers(&server, 64);
    let (status, said, _) = follower(&server);
    assert_eq!(status, 429, "{said}");
    let body: Value = serde_json::from_str(said.split("\r\n\r\n").nth(1).unwrap_or_default()).expect(&said);
    assert_eq!(
        body["error"],
        "64 log followers are connected, the most this server takes; try again when one has left"
    );
    held.pop();
    let started = Instant::now();
    while follower(&server).0 != 200 {
        assert!(started.elapsed() < Duration::from_secs(10), "the follower that left made no room");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Followers that take every descriptor the server has are refused 503 (never 500), the
/// watcher does not take files it could not look at for a change of the hooks, and every
/// descriptor comes back when they leave (issue 21, item 10).
#[cfg(target_os = "linux")]
#[test]
fn followers_that_use_up_the_descriptors_get_503_and_no_hook_change_is_announced() {
    let dir = copy_fixture("dev", "basic");
    let mut command = Command::new("sh");
    command.args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_agent-sdk")]);
    command.args(["dev", "--port", "0"]);
    let server = DevServer::adopt(in_project(command, dir.path()).spawn().unwrap(), dir.path(), "");
    let pid = server.child.id();
    assert!(server.logs("?tail=0").is_empty());
    let before = open_fds(pid);
    // A refused client hangs up, as `logs` does; the others keep following.
    let mut burst = Vec::new();
    let mut statuses = Vec::new();
    for _ in 0..60 {
        let (status, said, stream) = follower(&server);
        assert!([200, 503].contains(&status), "{statuses:?}, then {said}");
        statuses.push(status);
        if status == 200 {
            burst.push(stream);
        }
    }
    assert!(statuses.contains(&503), "64 descriptors were enough for 60 followers? {statuses:?}");
    // The watcher looks at the code four times a second: let it look while nothing is spare.
    // A deliberate wait (its looks leave no sign to wait on): what is checked below is that
    // nothing is announced in this second.
    std::thread::sleep(Duration::from_secs(1));
    drop(burst);
    wait_for_fds_at_most(pid, before + 1);
    assert_eq!(follower(&server).0, 200, "followers are served again");
    let said: Vec<String> =
        server.logs("").iter().map(|record| record["message"].as_str().unwrap_or_default().to_owned()).collect();
    let announced = said.iter().find(|message| message.contains("hooks") && message.contains("chang"));
    assert!(announced.is_none(), "a change that never happened was announced: {said:#?}");
}

#[test]
fn a_slow_session_does_not_delay_another() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let slow = server.create_session();
    let fast = server.create_session();
    server.send(&slow, "slow");
    let events = server.send(&fast, "fast");
    let last = events.last().unwrap()["index"].clone();
    let fast_done = format!("{fast} {last} ");
    let slow_done = format!("slow done {slow}");
    // The slow session's hooks are busy for two seconds with a turn sent before the fast one:
    // the fast session's hooks saw the end of its turn before they were done (the hooks
    // append their lines in the order things happen), so it never waited for them.
    let lines = wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line.starts_with(&fast_done)) && lines.iter().any(|line| line == &slow_done)
    });
    let fast_ended = lines.iter().position(|line| line.starts_with(&fast_done));
    let slow_ended = lines.iter().position(|line| line == &slow_done);
    assert!(fast_ended < slow_ended, "the fast session waited for the slow one: {lines:#?}");
}

/// The serve log says what happens to a session: that it started (with its purpose and
/// mode), each turn once its hooks are done (how it ended, how long it took, what the hooks
/// did), and the session's summary when it rests, as `run` ends with one.
#[test]
fn the_serve_log_says_each_session_s_start_turns_and_summary() {
    let dir = copy_fixture("dev", "basic");
    let serve_log = dir.path().join("dev.log");
    let child = in_project(common::agent_sdk(), dir.path())
        .args(["dev", "--port", "0", "--session-idle", "1s"])
        .env("AGENT_SDK_TEST_RECORD", dir.path().join("record.txt"))
        .stderr(std::fs::File::create(&serve_log).unwrap())
        .spawn()
        .unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let session = server.create_session();
    let events = server.send(&session, "one");
    let turn_id = events[0]["turnId"].as_str().unwrap().to_owned();
    wait_for_log(&server, "summary: ");
    let lines: Vec<Value> =
        server.logs("").into_iter().filter(|record| record["sessionId"] == session.as_str()).collect();
    let messages: Vec<&str> = lines.iter().map(|record| record["message"].as_str().unwrap()).collect();
    assert_eq!(messages[0], format!("session {session} started (purpose live, mode chat)"), "{messages:?}");
    let turn = lines.iter().find(|record| record["message"].as_str().unwrap().starts_with("turn ")).unwrap();
    let text = turn["message"].as_str().unwrap();
    assert!(text.starts_with("turn completed in "), "{text}");
    assert!(
        text.ends_with(&format!(
            " (its hooks done): {} events dispatched to 2 hooks; 0 handlers threw, 0 timed out",
            events.len()
        )),
        "{text}"
    );
    assert_eq!((&turn["level"], &turn["turnId"]), (&Value::from("info"), &Value::from(turn_id)));
    let summary = format!(
        "summary: {} events dispatched to 2 hooks; 0 hooks failed to load, 0 handlers threw, 0 timed out; \
         0 runtime restarts, 0 unconfirmed deliveries",
        events.len()
    );
    assert!(messages.contains(&summary.as_str()), "{messages:?}");
    // The whole serve log as the terminal showed it, from `serving` to `stopped`; the session
    // is at rest first (its line follows the summary), so the stop's lines come after it.
    wait_for_log(&server, "session idle: put to rest");
    let (url, token) = (server.url.clone(), server.token.clone());
    assert_eq!(server.stop(), Some(0));
    let said = std::fs::read_to_string(&serve_log).unwrap();
    insta::assert_snapshot!(serve_log_seen(dir.path(), &url, &token, &said));
}

/// A dev server's serve log as a user sees it on its stderr, filtered as `run.rs` filters
/// `run`'s (times, ids, the project's folder), and what differs from one dev server or turn
/// to the next: its URL, its token (in the playground's link), a session's tag and how long
/// a turn took.
fn serve_log_seen(dir: &Path, url: &str, token: &str, said: &str) -> String {
    common::snapshot::Filters::new()
        .log_times()
        .ids()
        .project(dir)
        .literal(url, "http://127.0.0.1:[PORT]")
        .literal(token, "[TOKEN]")
        .pattern(r"(?m)^(\[TIME\] \w+ +)\[[0-9a-f]{8}\] ", "$1[TAG] ")
        .pattern(r"turn completed in \d+(\.\d+)?m?s ", "turn completed in [DURATION] ")
        .apply(said)
}

/// A second server on a port one holds is refused before it writes anything to the
/// serve log, naming the other server (ours: its pid, where and how it was started) and
/// suggesting `--port 0`.
#[test]
fn a_port_another_server_holds_is_refused_naming_it_and_nothing_is_logged() {
    let dir = copy_fixture("dev", "basic");
    std::fs::write(dir.path().join(".env"), "GREETING=hello\n").unwrap();
    // `--port 0`: the system picks a port free now, not one free a moment ago.
    let server = DevServer::start(dir.path(), 0);
    let port = port_of(&server);
    let logged = |server: &DevServer| {
        server.logs("").iter().filter(|record| record["message"] == "loaded 1 variable from .env").count()
    };
    assert_eq!(logged(&server), 1);
    let output = in_project(common::agent_sdk(), dir.path())
        .args(["dev", "--port", &port.to_string()])
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let pid = server.child.id();
    // Whole, as docs/commands/dev.md quotes it (tests/it/docs.rs checks the quote against this).
    let said = stderr
        .replace(&format!(":{port}:"), ":[PORT]:")
        .replace(&format!("(pid {pid},"), "(pid [PID],")
        .replace(&dir.path().canonicalize().unwrap().to_string_lossy().into_owned(), "[DIR]");
    let said = regex::Regex::new(r"as `[^`]*`").unwrap().replace(&said, "as `[COMMAND]`");
    assert_eq!(
        said,
        "error: could not listen on 127.0.0.1:[PORT]: another agent-sdk server holds it (pid [PID], started in [DIR] as `[COMMAND]`); pass --port 0 for a free port (the URL goes to .agent-sdk/dev.json), or stop that server\n"
    );
    assert_eq!(logged(&server), 1, "the refused start wrote nothing to the serve log");
}

/// The pids of the hook runtimes a server runs (by command line: Node 24 names its
/// process after its main thread, "MainThread").
fn runtime_pids(server: &DevServer) -> Vec<String> {
    let output = Command::new("pgrep").args(["-P", &server.child.id().to_string(), "-f", "host.mjs"]).output().unwrap();
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect()
}

/// "Hooks run in the serving process for every session of the agent": one runtime serves
/// every session, so a hook's module-scope state is the agent's, while each handler gets
/// its own session's `ctx`, and its calls are answered for that session.
#[test]
fn every_session_shares_one_runtime_and_its_module_scope_state() {
    let dir = copy_fixture("dev", "shared");
    let server = DevServer::start(dir.path(), 0);
    let first = server.create_session();
    let second = server.create_session();
    server.send(&first, "one");
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line.starts_with(&format!("count {first} "))));
    server.send(&second, "two");
    let lines =
        wait_for_record(dir.path(), |lines| lines.iter().any(|line| line.starts_with(&format!("count {second} "))));
    let counts: Vec<&String> = lines.iter().filter(|line| line.starts_with("count ")).collect();
    assert_eq!(
        counts,
        [
            &format!("count {first} turn 1 sessions 1 ctx {first}"),
            &format!("count {second} turn 2 sessions 2 ctx {second}")
        ]
    );
    for session in [&first, &second] {
        let who = dir.path().join(format!(".agent-sdk/files/sessions/{session}/who.txt"));
        assert_eq!(std::fs::read_to_string(&who).unwrap(), *session, "its call was answered for its session");
    }
    assert_eq!(runtime_pids(&server).len(), 1, "one runtime for both sessions");
    let loaded = server.logs("").into_iter().filter(|record| record["message"] == "loaded hook \"count\"").count();
    assert_eq!(loaded, 1, "each hook is loaded once");
}

/// A handler that never yields holds every session of the one runtime until it is killed:
/// the session whose handler it is has it named timed out; another session's handler that
/// was awaiting then is named an unconfirmed delivery; both sessions' later events are
/// dispatched by the new runtime.
#[test]
fn a_handler_that_never_yields_is_blamed_and_the_other_session_s_cut_off_delivery_named() {
    let dir = copy_fixture("dev", "shared");
    let server = DevServer::start(dir.path(), 0);
    let waiting = server.create_session();
    let spinning = server.create_session();
    let waiting_events = server.send(&waiting, "wait");
    let spinning_events = server.send(&spinning, "spin");
    let last = |events: &[Value]| events.last().unwrap()["index"].as_u64().unwrap();
    let (waited_last, spun_last) = (last(&waiting_events), last(&spinning_events));
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{waiting} {waited_last} turn.completed"))
            && lines.iter().any(|line| line == &format!("{spinning} {spun_last} turn.completed"))
    });
    let logs = server.logs("");
    let of = |session: &str| -> Vec<String> {
        let lines = logs.iter().filter(|record| record["sessionId"] == session);
        lines.map(|record| record["message"].as_str().unwrap().to_owned()).collect()
    };
    let spun = of(&spinning);
    assert!(spun.contains(&"hook \"stall\" handler for message.received timed out after 5s".to_owned()), "{spun:?}");
    assert!(!spun.iter().any(|line| line.starts_with("unconfirmed")), "{spun:?}");
    let waited = of(&waiting);
    assert!(
        waited
            .iter()
            .any(|line| line.starts_with("unconfirmed delivery: event #") && line.contains("to hook \"stall\"")),
        "{waited:?}"
    );
    assert!(!waited.iter().any(|line| line.contains("timed out after")), "{waited:?}");
    let stopped = logs.iter().filter(|record| record["sessionId"].is_null());
    let stopped: Vec<&str> = stopped.filter_map(|record| record["message"].as_str()).collect();
    assert!(
        stopped.iter().any(|line| line.starts_with("the hook runtime was stopped: hook \"stall\" handler for event #")
            && line.contains(&format!("of session {spinning} did not yield"))),
        "{stopped:?}"
    );
    assert!(!record(dir.path()).contains(&format!("waited {waiting}")), "the cut-off handler is not run again");
    insta::assert_snapshot!(sessions_seen(&logs, &[(&spinning, "SPINNING"), (&waiting, "WAITING")]));
    // Both go on in the new runtime.
    let events = server.send(&waiting, "again");
    let again = last(&events);
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line == &format!("{waiting} {again} turn.completed")));
    assert_eq!(runtime_pids(&server).len(), 1);
}

/// The serve-log lines of each of `sessions` (its id, and what to call it), then the
/// server's own, in the order each was written, as a user reads them: what the dispatcher of
/// each session's lane said, and what the keeper of the runtime they share said.
fn sessions_seen(logs: &[Value], sessions: &[(&str, &str)]) -> String {
    let lines_of = |session: Option<&str>| -> Vec<String> {
        let of = logs.iter().filter(|record| record["sessionId"].as_str() == session);
        of.map(|record| {
            format!("{:5} {}", record["level"].as_str().unwrap().to_uppercase(), record["message"].as_str().unwrap())
        })
        .collect()
    };
    let mut text = String::new();
    for (id, name) in sessions {
        text += &format!("session {name}:\n{}\n", lines_of(Some(id)).join("\n"));
    }
    text += &format!("the server:\n{}\n", lines_of(None).join("\n"));
    let filters = sessions
        .iter()
        .fold(common::snapshot::Filters::new(), |filters, (id, name)| filters.literal(id, &format!("[{name}]")));
    filters
        .pattern(r"turn completed in \d+(\.\d+)?m?s ", "turn completed in [DURATION] ")
        .pattern(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:[PORT]")
        .pattern(r"\(pid \d+\)", "(pid [PID])")
        .apply(&text)
}

/// A hook that ends the runtime (process.exit) is blamed in its session's log; the other
/// session's handler that ran is named unconfirmed; a runtime is started again for both.
#[test]
fn a_hook_that_exits_the_shared_runtime_is_blamed_and_both_sessions_go_on() {
    let dir = copy_fixture("dev", "shared");
    let server = DevServer::start(dir.path(), 0);
    let waiting = server.create_session();
    let exiting = server.create_session();
    server.send(&waiting, "wait");
    let first_pid = runtime_pids(&server);
    let events = server.send(&exiting, "exit");
    let exited_last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{exiting} {exited_last} turn.completed"))
    });
    wait_for_log(&server, "unconfirmed delivery");
    let logs = server.logs("");
    let of = |session: &str| -> Vec<String> {
        let lines = logs.iter().filter(|record| record["sessionId"] == session);
        lines.map(|record| record["message"].as_str().unwrap().to_owned()).collect()
    };
    let exited = of(&exiting);
    assert!(
        exited.iter().any(|line| line.starts_with(
            "the hook runtime exited: hook \"stall\" called process.exit(3) in its handler for message.received"
        )),
        "{exited:?}"
    );
    let waited = of(&waiting);
    assert!(
        waited
            .iter()
            .any(|line| line
                .starts_with("the hook runtime exited while hook \"stall\" handler for message.received ran")),
        "{waited:?}"
    );
    assert!(waited.iter().any(|line| line.starts_with("unconfirmed delivery: event #")), "{waited:?}");
    insta::assert_snapshot!(sessions_seen(&logs, &[(&exiting, "EXITING"), (&waiting, "WAITING")]));
    let events = server.send(&waiting, "again");
    let again = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line == &format!("{waiting} {again} turn.completed")));
    let now = runtime_pids(&server);
    assert_eq!(now.len(), 1);
    assert_ne!(now, first_pid, "a new runtime");
}

#[test]
fn fifty_sessions_of_five_turns_dispatch_every_event_exactly_once() {
    let dir = copy_fixture("dev", "basic");
    let server = std::sync::Arc::new(DevServer::start(dir.path(), 0));
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let server = std::sync::Arc::clone(&server);
            std::thread::spawn(move || {
                let session = server.create_session();
                let mut count = 0;
                for turn in 0..5 {
                    count += server.send(&session, &format!("turn {turn}")).len();
                }
                (session, count)
            })
        })
        .collect();
    let sessions: Vec<(String, usize)> = threads.into_iter().map(|thread| thread.join().unwrap()).collect();
    let total: usize = sessions.iter().map(|(_, count)| count).sum();
    let lines = wait_for_record(dir.path(), |lines| lines.iter().filter(|line| line.ends_with(" v1")).count() >= total);
    for (session, count) in &sessions {
        let mut seen: Vec<u64> = lines
            .iter()
            .filter_map(|line| line.strip_prefix(&format!("{session} ")))
            .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
            .collect();
        let in_order = seen.windows(2).all(|pair| pair[0] < pair[1]);
        seen.sort_unstable();
        assert_eq!(seen, (0..*count as u64).collect::<Vec<_>>(), "{session}: every event exactly once");
        assert!(in_order, "{session}: in index order");
    }
}

#[test]
fn concurrent_sessions_journal_every_turn_exactly_once_in_the_shared_memory() {
    let dir = copy_fixture("memory", "journal");
    let server = std::sync::Arc::new(DevServer::start(dir.path(), 0));
    const SESSIONS: usize = 20;
    const TURNS: usize = 5;
    let threads: Vec<_> = (0..SESSIONS)
        .map(|_| {
            let server = std::sync::Arc::clone(&server);
            std::thread::spawn(move || {
                let session = server.create_session();
                for turn in 0..TURNS {
                    server.send(&session, &format!("turn {turn}"));
                }
                session
            })
        })
        .collect();
    let sessions: Vec<String> = threads.into_iter().map(|thread| thread.join().unwrap()).collect();
    let journal = dir.path().join(".agent-sdk/files/deployment/memory/journal.jsonl");
    // The hooks run after the turn's stream ends: wait for the last records.
    let started = Instant::now();
    let lines = loop {
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        if text.lines().count() >= SESSIONS * TURNS || started.elapsed() > Duration::from_secs(60) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(lines.ends_with('\n'), "whole lines only");
    let records: Vec<Value> = lines.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(records.len(), SESSIONS * TURNS, "{lines}");
    for session in &sessions {
        let asked: Vec<&str> = records
            .iter()
            .filter(|record| record["sessionId"] == session.as_str())
            .map(|record| record["userMessage"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (0..TURNS).map(|turn| format!("turn {turn}")).collect();
        assert_eq!(asked, expected, "{session}: every turn exactly once, in order");
    }
    assert!(records.iter().all(|record| record["channelId"] == "dev" && record["status"] == "completed"));
}

#[test]
fn ctrl_c_stops_cleanly_and_a_restart_replays_nothing() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let events = server.send(&session, "hello");
    wait_for_record(dir.path(), |lines| lines.len() >= events.len());
    server.signal("-INT");
    assert_eq!(server.wait(), Some(0));
    let before = record(dir.path());
    let again = DevServer::start(dir.path(), 0);
    // The session survives the restart and goes on from its last index.
    let more = again.send(&session, "still here");
    assert_eq!(more[0]["index"], events.len() as u64);
    // A session's events reach its hooks in order, so an event replayed after the restart
    // would be written down before the end of this turn: once that is, the hooks have seen
    // this turn's events and nothing else since the restart.
    let last = more.last().unwrap()["index"].as_u64().unwrap();
    let after =
        wait_for_record(dir.path(), |lines| lines.iter().any(|line| line.starts_with(&format!("{session} {last} "))));
    assert_eq!(after[..before.len()], before[..], "the hooks' record before the restart is kept");
    let seen_since: Vec<u64> =
        after[before.len()..].iter().map(|line| line.split(' ').nth(1).unwrap().parse().unwrap()).collect();
    let this_turn: Vec<u64> = more.iter().map(|event| event["index"].as_u64().unwrap()).collect();
    assert_eq!(seen_since, this_turn, "no recorded event reached a hook twice");
    assert_eq!(again.stop(), Some(0));
}

#[test]
fn changed_hooks_reload_and_broken_ones_keep_the_last_good() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "one");
    let hook = dir.path().join("bot/hooks/recorder.ts");
    let source = std::fs::read_to_string(&hook).unwrap();
    std::fs::write(&hook, source.replace(" v1`", " v2`")).unwrap();
    wait_for_log(&server, "hooks changed");
    let events = server.send(&session, "two");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{session} {last} turn.completed v2"))
    });
    std::fs::write(&hook, "export default 42;\n").unwrap();
    std::fs::write(dir.path().join("bot/hooks/broken.ts"), "export default {\n  events: {\n    \"x\"( },\n};\n")
        .unwrap();
    // The watcher may catch the edit half made: its last report is of both files.
    wait_for_log(&server, "the changed hooks have 2 errors; still serving the last good ones");
    // One line per error, where an editor can follow it; no diagnostic drawings.
    let stderr = std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    let summary = lines.iter().rposition(|line| line.contains("have 2 errors")).unwrap();
    assert!(lines[summary].ends_with(" WARN  the changed hooks have 2 errors; still serving the last good ones"));
    let errors = &lines[summary - 2..summary];
    assert!(
        errors[0].ends_with(" ERROR bot/hooks/broken.ts:3:10: error hooks::parse-error Unexpected token"),
        "{stderr}"
    );
    assert!(
        errors[1].ends_with(" ERROR bot/hooks/recorder.ts:1:16: error hooks::not-define-hook the default export is not a call of `defineHook(...)`"),
        "{stderr}"
    );
    assert!(!lines[summary - 3].contains(" ERROR "), "nothing else: {stderr}");
    assert!(!stderr.contains(" ERROR | "), "no multi-line report: {stderr}");
    let events = server.send(&session, "three");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{session} {last} turn.completed v2"))
    });
}

#[test]
fn a_change_to_a_module_outside_the_source_folder_reloads_the_hooks() {
    let dir = copy_fixture("dev", "outside");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let events = server.send(&session, "one");
    let first = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line == &format!("{first} release 1")));
    let helper = dir.path().join("shared/label.ts");
    std::fs::write(&helper, "export const label = \"release 2\";\n").unwrap();
    wait_for_log(&server, "hooks changed");
    let events = server.send(&session, "two");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line == &format!("{last} release 2")));
}

#[test]
fn dev_hands_the_env_file_to_every_session_s_hooks_and_logs_no_value() {
    let dir = copy_fixture("run", "env");
    std::fs::write(dir.path().join(".env"), "ACME_REGION=eu-west\nACME_TOKEN=secret-token\nACME_TIER=pro\n").unwrap();
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "hi");
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == "env region=eu-west token=secret-token tier=pro")
    });
    wait_for_log(&server, "loaded 3 variables from .env");
    let logged: Vec<String> = server.logs("").iter().map(|record| record["message"].to_string()).collect();
    assert!(logged.iter().all(|message| !message.contains("secret-token")), "a value reached the log: {logged:?}");
}

fn wait_for_log(server: &DevServer, text: &str) {
    let started = Instant::now();
    while !server.logs("").iter().any(|record| record["message"].as_str().unwrap_or_default().contains(text)) {
        assert!(started.elapsed() < Duration::from_secs(20), "no log line with `{text}`");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `agent-sdk logs <args>` in `dir`, without any host or token from the environment.
fn logs_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-sdk"));
    command.arg("logs").args(args).current_dir(dir).env_remove("AGENT_SDK_HOST").env_remove("AGENT_SDK_TOKEN");
    command
}

/// A port free a moment ago, for what must not be a server's own (another may take it meanwhile:
/// a server of the test's own starts on `--port 0`, and [`port_of`] tells where it is).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The port a server started on `--port 0` listens on (its URL's).
fn port_of(server: &DevServer) -> u16 {
    server.url.rsplit_once(':').and_then(|(_, port)| port.parse().ok()).expect("a server URL ends in its port")
}

#[test]
fn logs_prints_the_history_as_json_and_as_lines() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "hello");
    let history = server.logs("");
    let output = logs_command(dir.path(), &["--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert!(printed.len() >= history.len());
    for (line, record) in printed.iter().zip(&history) {
        assert_eq!(line["id"], record["cursor"]);
        assert_eq!(line["message"], record["message"]);
    }
    let output = logs_command(dir.path(), &["--utc", "--level", "info", "--session", &session]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find(|line| line.contains(&format!("session {session}: 2 hooks"))).expect(&text);
    assert!(line.contains("Z INFO  ["), "UTC time, level, session: {line}");
    assert!(!text.contains(&server.token), "the token is never printed");
}

/// A follower that has printed nothing yet (`--tail 0`) resumes, after the server restarts,
/// from the cursor the server had when it connected: the restart's own lines (`stopping`,
/// `stopped`, `serving`) are printed, not skipped.
#[cfg(target_os = "linux")]
#[test]
fn logs_with_tail_0_across_a_restart_prints_the_lines_logged_meanwhile() {
    let dir = copy_fixture("dev", "basic");
    // `--port 0`: the system picks a port free now, not one free a moment ago.
    let server = DevServer::start(dir.path(), 0);
    let port = port_of(&server);
    let mut follower = logs_command(dir.path(), &["-f", "--json", "--tail", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let reader = {
        let printed = std::sync::Arc::clone(&printed);
        let stdout = follower.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
                let record: Value = serde_json::from_str(&line.unwrap()).unwrap();
                printed.lock().unwrap().push(record["message"].as_str().unwrap_or_default().to_owned());
            }
        })
    };
    // The follower must be connected before the server stops. It has printed nothing (that
    // is what this test is about: making it print a line first would test the resume after a
    // printed line instead, which the next test covers) and the server says nothing of a
    // follower's arrival, but the system shows its connection to the server.
    wait_for_connection(follower.id(), port);
    assert_eq!(server.stop(), Some(0));
    let restarted = DevServer::start(dir.path(), port);
    let started = Instant::now();
    loop {
        let lines = printed.lock().unwrap().clone();
        let has = |text: &str| lines.iter().any(|line| line.starts_with(text));
        if has("stopping: finishing what was recorded") && has("stopped") && has("serving dev-basic on ") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "printed {lines:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill").args(["-INT", &follower.id().to_string()]).status().unwrap();
    let _ = follower.wait();
    reader.join().unwrap();
    drop(restarted);
}

/// `logs -f --json` in `dir`, and the `id` of every line it prints, as it prints them (the
/// reader ends when the follower does).
fn follow_json(
    dir: &std::path::Path,
) -> (std::process::Child, std::sync::Arc<std::sync::Mutex<Vec<u64>>>, std::thread::JoinHandle<()>) {
    let mut follower =
        logs_command(dir, &["-f", "--json"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u64>::new()));
    let reader = {
        let printed = std::sync::Arc::clone(&printed);
        let stdout = follower.stdout.take().unwrap();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let record: Value = serde_json::from_str(&line.unwrap()).unwrap();
                printed.lock().unwrap().push(record["id"].as_u64().unwrap());
            }
        })
    };
    (follower, printed, reader)
}

#[test]
fn logs_follows_across_a_killed_and_restarted_server_without_a_gap_or_a_repeat() {
    let dir = copy_fixture("dev", "basic");
    // `--port 0`: the system picks a port free now, not one free a moment ago.
    let server = DevServer::start(dir.path(), 0);
    let port = port_of(&server);
    let session = server.create_session();
    server.send(&session, "before");
    let (mut follower, printed, reader) = follow_json(dir.path());
    let wait_for = |count: usize| {
        let started = Instant::now();
        while printed.lock().unwrap().len() < count {
            assert!(started.elapsed() < Duration::from_secs(30), "logs stopped at {:?}", printed.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for(server.logs("").len());
    server.signal("-KILL");
    let _ = server.wait();
    let restarted = DevServer::start(dir.path(), port);
    restarted.send(&session, "after");
    // The turn's line comes once its hooks are done, after its stream ended; the first
    // server's turn has one too.
    let started = Instant::now();
    while restarted.logs("").iter().filter(|record| record["message"].as_str().unwrap().starts_with("turn ")).count()
        < 2
    {
        assert!(started.elapsed() < Duration::from_secs(20), "the second turn's line never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    // One more turn, whose lines the follower prints after any line it would repeat: once it
    // has printed as many lines as the log holds, they are the log's, or one came twice.
    restarted.send_settled(&session, "last");
    let all: Vec<u64> = restarted.logs("").iter().map(|record| record["cursor"].as_u64().unwrap()).collect();
    wait_for(all.len());
    assert_eq!(*printed.lock().unwrap(), all, "every line once, in order, across the restart");
    Command::new("kill").args(["-INT", &follower.id().to_string()]).status().unwrap();
    let status = follower.wait().unwrap();
    reader.join().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut follower.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "Ctrl-C ends logs with 0: {stderr}");
    assert!(stderr.contains("reconnecting") && stderr.contains("reconnected"), "{stderr}");
}

#[test]
fn logs_follows_a_server_whose_log_was_reset_from_the_new_start_and_says_so() {
    let dir = copy_fixture("dev", "basic");
    // `--port 0`: the system picks a port free now, not one free a moment ago.
    let server = DevServer::start(dir.path(), 0);
    let port = port_of(&server);
    let session = server.create_session();
    server.send(&session, "before");
    wait_for_log(&server, "turn completed");
    let old: Vec<u64> = server.logs("").iter().map(|record| record["cursor"].as_u64().unwrap()).collect();
    let (mut follower, printed, reader) = follow_json(dir.path());
    let wait_for = |expected: &[u64]| {
        let started = Instant::now();
        while printed.lock().unwrap().as_slice() != expected {
            assert!(started.elapsed() < Duration::from_secs(30), "printed {:?}", printed.lock().unwrap());
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for(&old);
    server.signal("-KILL");
    let _ = server.wait();
    // A fresh store (the token in dev.json is kept): the new log's cursors start at 1 again.
    for file in ["state.db", "state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(dir.path().join(".agent-sdk").join(file));
    }
    let restarted = DevServer::start(dir.path(), port);
    let other = restarted.create_session();
    restarted.send(&other, "after");
    wait_for_log(&restarted, "turn completed");
    let new: Vec<u64> = restarted.logs("").iter().map(|record| record["cursor"].as_u64().unwrap()).collect();
    assert_eq!(new[0], 1, "the new log starts again: {new:?}");
    wait_for(&[old.clone(), new].concat());
    Command::new("kill").args(["-INT", &follower.id().to_string()]).status().unwrap();
    let status = follower.wait().unwrap();
    reader.join().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut follower.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("the server's log was reset").count(), 1, "{stderr}");
}

#[test]
fn logs_explains_a_wrong_token_a_missing_server_and_gives_up_in_time() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let output = logs_command(dir.path(), &["--token", "wrong"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the token was refused"), "{stderr}");
    assert!(!stderr.contains("wrong"), "the token is never printed: {stderr}");

    let nowhere = tempfile::tempdir().unwrap();
    let output = logs_command(nowhere.path(), &[]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no dev server found; start one with `agent-sdk dev`"));
    let closed = format!("http://127.0.0.1:{}", free_port());
    let output = logs_command(nowhere.path(), &["--host", &closed, "--token", "t"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no dev server found at"), "{:?}", output);
    let output = logs_command(nowhere.path(), &["--host", "http://example.com", "--token", "t"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "no token over plain HTTP to another host");

    let mut follower = logs_command(dir.path(), &["-f", "--retry-for", "1s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It follows once it has printed the history (the server's `serving` line at least).
    let (line_printed, printed) = std::sync::mpsc::channel();
    let stdout = follower.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let _ = line_printed.send(line.unwrap());
        }
    });
    printed.recv_timeout(Duration::from_secs(30)).expect("the follower printed no line of the history");
    server.signal("-KILL");
    // Well before the 60 s it would keep trying without --retry-for.
    let (code, stderr) = finished_within(follower, Duration::from_secs(30));
    reader.join().unwrap();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("for 1s; giving up"), "{stderr}");
}

#[test]
fn the_token_survives_a_restart_until_rotated_and_remote_binding_needs_a_flag() {
    let dir = copy_fixture("dev", "basic");
    let first = DevServer::start(dir.path(), 0);
    let token = first.token.clone();
    assert_eq!(first.stop(), Some(0));
    let second = DevServer::start(dir.path(), 0);
    assert_eq!(second.token, token, "kept across a restart, so a `logs -f` survives one");
    assert_eq!(second.stop(), Some(0));
    let rotated = common::agent_sdk()
        .args(["dev", "--port", "0", "--rotate-token"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rotated = DevServer::adopt(rotated, dir.path(), &token);
    assert_ne!(rotated.token, token);

    let output =
        common::agent_sdk().args(["dev", "--host", "0.0.0.0", "--port", "0"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("pass --allow-remote"));
}

#[test]
fn an_idle_session_gives_back_its_runtime_and_the_next_turn_starts_one() {
    let dir = copy_fixture("dev", "basic");
    let child = common::agent_sdk()
        .args(["dev", "--port", "0", "--session-idle", "1s"])
        .current_dir(dir.path())
        .env("AGENT_SDK_TEST_RECORD", dir.path().join("record.txt"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let proc = format!("/proc/{}", server.child.id());
    // SQLite keeps a closed connection's descriptor of the database file while another
    // connection holds a lock on it, and reuses it for the next one: those are not counted.
    let descriptors = || {
        std::fs::read_dir(format!("{proc}/fd"))
            .unwrap()
            .flatten()
            .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| !target.ends_with(".agent-sdk/state.db")))
            .count()
    };
    let session_threads = || {
        std::fs::read_dir(format!("{proc}/task"))
            .unwrap()
            .flatten()
            .filter(|task| {
                std::fs::read_to_string(task.path().join("comm")).is_ok_and(|name| name.starts_with("session "))
            })
            .count()
    };
    let before = descriptors();
    let session = server.create_session();
    server.send(&session, "one");
    let runtimes = || {
        // By command line: Node 24 names its process after its main thread ("MainThread").
        let output =
            Command::new("pgrep").args(["-P", &server.child.id().to_string(), "-f", "host.mjs"]).output().unwrap();
        String::from_utf8_lossy(&output.stdout).lines().count()
    };
    assert_eq!(runtimes(), 1, "a session with a turn has a runtime");
    // Its worker, and the threads it started (they inherit its name).
    assert!(session_threads() >= 1, "and a thread");
    wait_for_log(&server, "session idle");
    assert_eq!(runtimes(), 0, "an idle session has none");
    let started = Instant::now();
    // One descriptor more than before was seen twice in about a dozen runs of this suite
    // (15 > 14, for the whole 20 s), since one runtime serves every session; what it is
    // is not known yet (the message lists them all): allowed, and said in the README.
    while session_threads() > 0 || descriptors() > before + 1 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "an idle session kept its thread ({}) or descriptors ({} > {before}): {:?}",
            session_threads(),
            descriptors(),
            std::fs::read_dir(format!("{proc}/fd"))
                .unwrap()
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let events = server.send(&session, "two");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{session} {last} turn.completed v1"))
    });
}

#[test]
fn a_session_a_run_holds_is_refused_by_dev_with_409_until_the_run_ends() {
    let dir = copy_fixture("dev", "basic");
    let script = r#"{ "steps": [ { "text": "Holding the session" }, { "pauseMs": 60000 } ] }"#;
    std::fs::write(dir.path().join("held.json"), script).unwrap();
    let run = common::agent_sdk()
        .args(["run", "--message", "one", "--script", "held.json", "--session", "ses_shared"])
        .current_dir(dir.path())
        .env("AGENT_SDK_TEST_RECORD", dir.path().join("record.txt"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line.contains("message.appended")));
    let server = DevServer::start(dir.path(), 0);
    let before: Vec<Value> = server.get("/v1/sessions/ses_shared/events").unwrap().json().unwrap();
    let refused = reqwest::blocking::Client::new()
        .post(format!("{}/v1/sessions/ses_shared/messages", server.url))
        .bearer_auth(&server.token)
        .json(&serde_json::json!({ "text": "two" }))
        .send()
        .unwrap();
    assert_eq!(refused.status(), 409);
    let body: Value = refused.json().unwrap();
    let expected = format!("session ses_shared is in use by another agent-sdk (pid {})", run.id());
    assert!(body["error"].as_str().unwrap().contains(&expected), "{body}");
    wait_for_log(&server, &format!("session ses_shared is in use by another agent-sdk (pid {})", run.id()));
    let after: Vec<Value> = server.get("/v1/sessions/ses_shared/events").unwrap().json().unwrap();
    assert_eq!(after, before, "nothing was recorded beside the run's turn");

    Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap();
    let mut run = run;
    run.wait().unwrap();
    let answered = server.send("ses_shared", "three");
    let recorded: Vec<Value> = server.get("/v1/sessions/ses_shared/events").unwrap().json().unwrap();
    assert_eq!(answered.first().unwrap()["index"], recorded.len() - answered.len(), "{answered:?}");
    assert_eq!(answered.last().unwrap()["type"], "turn.completed");
}

#[test]
fn a_session_opened_with_events_its_hooks_never_saw_says_how_many_once() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let first = server.send(&session, "one");
    // What a crashed writer leaves: recorded past the dispatched cursor, never dispatched.
    let lost = first.len() as u64;
    store::insert_undispatched(
        dir.path(),
        &session,
        "turn_lost",
        &[(lost, "message.appended", "{}"), (lost + 1, "message.appended", "{}")],
    );
    let warning = format!("session {session} has 2 recorded events its hooks never saw");
    let second = server.send(&session, "two");
    assert_eq!(second[0]["index"], first.len() + 2, "the new turn goes on after them");
    wait_for_log(&server, &warning);
    server.send(&session, "three");
    let said = server.logs("").iter().filter(|record| record["message"].as_str().unwrap().contains(&warning)).count();
    assert_eq!(said, 1, "said when found, not at every turn");
    let seen = record(dir.path());
    assert!(!seen.iter().any(|line| line.contains(&format!(" {} ", first.len()))), "never dispatched: {seen:?}");
}

/// The JSON error body of a refused request, checked to be one.
fn error_body(response: reqwest::blocking::Response) -> String {
    let body: Value = response.json().expect("an error answered with a JSON body");
    body["error"].as_str().expect("an `error` message").to_owned()
}

#[test]
fn max_sessions_answers_429_until_an_idle_session_rests_and_a_resting_session_comes_back() {
    let dir = copy_fixture("dev", "basic");
    let child = dev_command(dir.path(), &["--max-sessions", "2", "--session-idle", "2s"]).spawn().unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let first = server.create_session();
    let events = server.send(&first, "one");
    let second = server.create_session();
    let refused = server.post("/v1/sessions", &Value::Null).unwrap();
    assert_eq!(refused.status(), 429);
    assert!(error_body(refused).contains("--max-sessions"));

    // Both go idle and rest: there is room again.
    let started = Instant::now();
    let third = loop {
        let response = server.post("/v1/sessions", &Value::Null).unwrap();
        if response.status() == 201 {
            break response.json::<Value>().unwrap()["id"].as_str().unwrap().to_owned();
        }
        assert_eq!(response.status(), 429);
        assert!(started.elapsed() < Duration::from_secs(30), "no session was ever put to rest");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_ne!(third, first);

    // The resting session comes back with its history.
    let more = server.send(&first, "two");
    assert_eq!(more[0]["index"], events.len() as u64);
    let recorded: Vec<Value> = server.get(&format!("/v1/sessions/{first}/events")).unwrap().json().unwrap();
    assert_eq!(recorded.len(), events.len() + more.len());
    assert_eq!(recorded[..events.len()], events[..]);

    // A resting session that never had a turn is still known: a 429 while the others are
    // live, never a 404; once they rest, it comes back.
    let started = Instant::now();
    loop {
        let response = server.post(&format!("/v1/sessions/{second}/messages"), &serde_json::json!({ "text": "hi" }));
        let response = response.unwrap();
        if response.status() == 200 {
            assert_eq!(sse_data(&response.text().unwrap())[0]["index"], 0);
            break;
        }
        assert_eq!(response.status(), 429, "{}", error_body(response));
        assert!(started.elapsed() < Duration::from_secs(30), "the resting session never came back");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One turn in a new session: `Ok(events)` when answered, `Err(message)` for a refusal,
/// which must be a 503 with a JSON error body.
fn try_a_turn(server: &DevServer, text: &str) -> Result<Vec<Value>, String> {
    let created = server.post("/v1/sessions", &Value::Null).expect("an answer, even when out of descriptors");
    if created.status() != 201 {
        assert_eq!(created.status(), 503);
        return Err(error_body(created));
    }
    let session = created.json::<Value>().unwrap()["id"].as_str().unwrap().to_owned();
    let answered = server
        .post(&format!("/v1/sessions/{session}/messages"), &serde_json::json!({ "text": text }))
        .expect("an answer, even when out of descriptors");
    if answered.status() != 200 {
        assert_eq!(answered.status(), 503);
        return Err(error_body(answered));
    }
    let events = sse_data(&answered.text().expect("a turn that started streams to its end"));
    assert_eq!(events.last().unwrap()["type"], "turn.completed");
    Ok(events)
}

#[test]
fn running_out_of_file_descriptors_fails_requests_never_the_server() {
    let dir = copy_fixture("dev", "basic");
    let mut command = Command::new("sh");
    command.args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_agent-sdk")]);
    command.args(["dev", "--port", "0", "--session-idle", "2s"]);
    let mut server = DevServer::adopt(in_project(command, dir.path()).spawn().unwrap(), dir.path(), "");
    let mut refusals = Vec::new();
    for turn in 0..30 {
        if let Err(refusal) = try_a_turn(&server, &format!("turn {turn}")) {
            refusals.push(refusal);
        }
    }
    assert!(!refusals.is_empty(), "64 descriptors were enough for 30 live sessions?");
    assert!(server.child.try_wait().unwrap().is_none(), "the server died");
    // Once the sessions rest, their descriptors are back and turns are answered again.
    let started = Instant::now();
    while try_a_turn(&server, "again").is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "the server never recovered: {refusals:?}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A raw HTTP/1.1 request whose answer is never read.
fn send_and_never_read(server: &DevServer, path: &str, body: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect(server.address()).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.address(),
        server.token,
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    stream
}

#[test]
fn a_client_that_never_reads_its_stream_holds_up_neither_the_turn_nor_the_shutdown() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    // About 50,000 events: far more than the sockets between us hold.
    let text = "a ".repeat(200_000);
    let body = serde_json::json!({ "text": text }).to_string();
    let _never_read = send_and_never_read(&server, &format!("/v1/sessions/{session}/messages"), &body);
    let started = Instant::now();
    while server.get(&format!("/v1/sessions/{session}/events")).unwrap().status() != 200 {
        assert!(started.elapsed() < Duration::from_secs(30), "the long turn never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The session goes on: its next turn comes after the whole first one, recorded.
    let next = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .unwrap()
        .post(format!("{}/v1/sessions/{session}/messages", server.url))
        .bearer_auth(&server.token)
        .json(&serde_json::json!({ "text": "after" }))
        .send()
        .unwrap();
    let next = sse_data(&next.text().unwrap());
    let first_turn = next[0]["index"].as_u64().unwrap();
    assert!(first_turn > 40_000, "the long turn has {first_turn} events");
    let recorded: Vec<Value> = server.get(&format!("/v1/sessions/{session}/events")).unwrap().json().unwrap();
    assert_eq!(recorded[first_turn as usize - 1]["type"], "turn.completed");
    // And dispatched: the hooks saw the end of both turns.
    let last = next.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{session} {} turn.completed v1", first_turn - 1))
            && lines.iter().any(|line| line == &format!("{session} {last} turn.completed v1"))
    });
    wait_for_log(&server, "a client fell behind the turn's events and was cut off");
    // The client still holds its connection, unread: SIGTERM ends the server all the same.
    server.signal("-TERM");
    assert_eq!(server.exits_within(Duration::from_secs(20)), Some(0));
}

#[test]
fn a_client_that_sends_half_a_header_is_dropped_and_does_not_hold_up_the_shutdown() {
    use std::io::{Read, Write};
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let half_a_header = format!("GET /v1/logs HTTP/1.1\r\nHost: {}\r\n", server.address());
    let mut slow = std::net::TcpStream::connect(server.address()).unwrap();
    slow.write_all(half_a_header.as_bytes()).unwrap();
    // The header timeout closes it (well before this read gives up).
    slow.set_read_timeout(Some(Duration::from_secs(40))).unwrap();
    let mut answer = Vec::new();
    let read = slow.read_to_end(&mut answer);
    assert!(
        !read.as_ref().is_err_and(|problem| problem.kind() == std::io::ErrorKind::WouldBlock),
        "the server never closed a connection that sent half a header"
    );
    // Another one, still waiting on its header timeout, does not hold up SIGTERM.
    let mut held = std::net::TcpStream::connect(server.address()).unwrap();
    held.write_all(half_a_header.as_bytes()).unwrap();
    // The server takes connections in the order they came: once a later one is answered, it
    // has taken this one, which then waits on its header timeout as SIGTERM comes.
    assert_eq!(server.get("/v1/logs?tail=0").unwrap().status(), 200);
    server.signal("-TERM");
    assert_eq!(server.exits_within(Duration::from_secs(20)), Some(0));
}

#[test]
fn a_hook_whose_import_never_finishes_is_skipped_and_the_session_recovers_once_it_is_fixed() {
    let dir = copy_fixture("dev", "hanging");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    // The import is given up after the hook timeout (5 s here); the turn is answered and
    // dispatched to the other hook.
    let events = server.send(&session, "one");
    assert_eq!(events.last().unwrap()["type"], "turn.completed", "{events:?}");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| {
        lines.iter().any(|line| line == &format!("{session} {last} turn.completed v1"))
    });
    wait_for_log(&server, "hook \"hangs\" failed to load: its import did not finish within 5s");
    let fixed = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { record } from \"../lib/record.js\";\n\
                 export default defineHook({ events: { \"turn.completed\"(event) { record(`fixed ${event.index}`); } } });\n";
    std::fs::write(dir.path().join("bot/hooks/hangs.ts"), fixed).unwrap();
    wait_for_log(&server, "hooks changed");
    let events = server.send(&session, "two");
    let last = events.last().unwrap()["index"].as_u64().unwrap();
    wait_for_record(dir.path(), |lines| lines.iter().any(|line| line == &format!("fixed {last}")));
}

#[test]
fn logs_after_the_server_stopped_prints_the_local_history_and_says_so() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "hello");
    let served: Vec<Value> = server.logs("");
    assert_eq!(server.stop(), Some(0));
    let output = logs_command(dir.path(), &["--json"]).env("NO_COLOR", "1").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("no server answered, so this is the local history from .agent-sdk/state.db"), "{stderr}");
    let printed: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    // What the server served, then what it logged as it stopped.
    assert!(printed.len() > served.len(), "{printed:?}");
    for (line, record) in printed.iter().zip(&served) {
        assert_eq!((&line["id"], &line["message"]), (&record["cursor"], &record["message"]));
    }
    assert_eq!(printed.last().unwrap()["message"], "stopped");
}

/// The status, the content type and the `error` of a response that must be JSON.
fn json_error(response: reqwest::blocking::Response) -> (u16, String, String) {
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").unwrap().to_str().unwrap().to_owned();
    let body: Value = serde_json::from_str(&response.text().unwrap()).unwrap_or_else(|_| panic!("{status}: not JSON"));
    (status, content_type, body["error"].as_str().unwrap_or_else(|| panic!("{status}: no error: {body}")).to_owned())
}

#[test]
fn every_error_of_the_api_is_json() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let client = reqwest::blocking::Client::new();
    let url = |path: &str| format!("{}{path}", server.url);
    let messages = url(&format!("/v1/sessions/{session}/messages"));
    let cases: Vec<(&str, u16, reqwest::blocking::RequestBuilder, &str)> = vec![
        ("no token", 401, client.get(url("/v1/logs")), "bearer token"),
        ("unknown route", 404, client.get(url("/v1/nope")).bearer_auth(&server.token), "no endpoint /v1/nope"),
        (
            "wrong method",
            405,
            client.delete(url("/v1/logs")).bearer_auth(&server.token),
            "/v1/logs does not take DELETE",
        ),
        (
            "not JSON",
            415,
            client.post(&messages).bearer_auth(&server.token).header("content-type", "text/plain").body("hi"),
            "application/json",
        ),
        (
            "broken JSON",
            400,
            client.post(&messages).bearer_auth(&server.token).header("content-type", "application/json").body("{"),
            "",
        ),
        (
            "JSON of the wrong shape",
            422,
            client.post(&messages).bearer_auth(&server.token).json(&serde_json::json!({ "txt": "hi" })),
            "text",
        ),
        (
            "unknown session",
            404,
            client.get(url("/v1/sessions/ses_nope/events")).bearer_auth(&server.token),
            "no such session",
        ),
        // Last: the server answers before reading the whole body, and closes the connection.
        (
            "too large",
            413,
            client
                .post(&messages)
                .bearer_auth(&server.token)
                .header("content-type", "application/json")
                .body(format!("{{\"text\":\"{}\"}}", "x".repeat(3 * 1024 * 1024))),
            "",
        ),
    ];
    for (case, status, request, says) in cases {
        let (got, content_type, error) = json_error(request.send().unwrap());
        assert_eq!(got, status, "{case}: {error}");
        assert_eq!(content_type, "application/json", "{case}");
        assert!(!error.is_empty() && error.contains(says), "{case}: {error}");
    }
    let response = reqwest::blocking::Client::new().delete(url("/v1/logs")).bearer_auth(&server.token).send().unwrap();
    assert_eq!(
        response.headers().get("allow").map(|value| value.to_str().unwrap()),
        Some("GET,HEAD"),
        "405 keeps allow"
    );
}

#[test]
fn the_bearer_scheme_is_case_insensitive_and_spaces_are_tolerated() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let token = &server.token;
    for header in [format!("bearer {token}"), format!("BEARER {token}"), format!("Bearer   {token}")] {
        let response = reqwest::blocking::Client::new()
            .get(format!("{}/v1/logs?tail=0", server.url))
            .header("authorization", &header)
            .send()
            .unwrap();
        assert_eq!(response.status(), 200, "{}", header.replace(token.as_str(), "<token>"));
    }
    for header in [format!("Basic {token}"), format!("Bearer{token}"), "Bearer ".to_owned()] {
        let response = reqwest::blocking::Client::new()
            .get(format!("{}/v1/logs?tail=0", server.url))
            .header("authorization", &header)
            .send()
            .unwrap();
        assert_eq!(response.status(), 401, "{}", header.replace(token.as_str(), "<token>"));
    }
}

#[test]
fn quiet_dev_writes_only_warnings_and_errors_but_records_every_line() {
    let dir = copy_fixture("dev", "basic");
    let child = dev_command(dir.path(), &["--quiet"]).spawn().unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let session = server.create_session();
    server.send(&session, "one");
    wait_for_log(&server, "loaded hook \"recorder\"");
    let printed = std::fs::read_to_string(dir.path().join("dev.log")).unwrap();
    assert!(!printed.lines().any(|line| line.contains(" INFO ")), "{printed}");
    assert!(!printed.contains("loaded hook"), "{printed}");
}

/// A mounted extension's hooks run in dev's sessions, and a change to the mount file or to
/// the extension's own source (a workspace package's TypeScript) reloads them.
#[test]
fn mounted_extensions_run_and_reload_when_the_mount_or_the_extension_changes() {
    let workspace = common::copy_project(&common::fixture("extensions", "workspace"));
    common::link_workspace_packages(workspace.path());
    let agent = workspace.path().join("packages/agent");
    let server = DevServer::start(&agent, 0);
    let session = server.create_session();
    server.send(&session, "one");
    wait_for_log(&server, "hook \"ci__jobs/summary\": [ci acme] summary: ");
    let label = workspace.path().join("packages/ci-ext/src/label.ts");
    std::fs::write(&label, "export function label(org: string): string {\n  return `[ci ${org} v2]`;\n}\n").unwrap();
    wait_for_log(&server, "hooks changed: 3 hooks will load");
    server.send(&session, "two");
    wait_for_log(&server, "hook \"ci__jobs/summary\": [ci acme v2] summary: ");
    // The mount itself: `flaky` is disabled no more.
    let mount = agent.join("bot/extensions/ci.ts");
    std::fs::write(&mount, "import ci from \"@acme/ci-ext\";\n\nexport default ci({ org: \"acme\" });\n").unwrap();
    wait_for_log(&server, "hooks changed: 4 hooks will load");
    server.send(&session, "three");
    wait_for_log(&server, "hook \"ci__flaky\": flaky: mounted");
}

/// What a session's hooks record (through `@opentelemetry/api` and `ctx.host.otel`) is
/// summarised in the serve log when the session leaves the runtime: here, when it rests.
/// The observable instruments are the runtime's: measured once, when it stops (here, as its
/// last session rests), in the server's own lines.
#[test]
fn a_session_s_metrics_are_summarised_when_it_rests() {
    let installed = common::fixture("otel", "api-metrics").join("node_modules/@opentelemetry/api");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/api-metrics`");
    let dir = copy_fixture("otel", "api-metrics");
    let child = in_project(common::agent_sdk(), dir.path())
        .args(["dev", "--port", "0", "--session-idle", "1s"])
        .spawn()
        .unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let session = server.create_session();
    server.send(&session, "hello");
    wait_for_log(&server, "session idle: put to rest until its next message");
    wait_for_log(&server, "otel gauge acme.sessions.open = 3 (region=eu: 3)");
    let lines: Vec<Value> = server
        .logs("")
        .into_iter()
        .filter(|record| record["message"].as_str().unwrap_or_default().starts_with("otel "))
        .collect();
    let of = |session: &Value| -> Vec<&str> {
        let lines = lines.iter().filter(|record| &record["sessionId"] == session);
        lines.map(|record| record["message"].as_str().unwrap()).collect()
    };
    let session_lines = of(&Value::from(session.as_str()));
    assert!(session_lines.contains(&"otel counter acme.tokens.output = 18"), "{session_lines:?}");
    assert!(session_lines.contains(&"otel counter acme.ctx.turns = 1 (source=ctx: 1)"), "{session_lines:?}");
    let runtime_lines = of(&Value::Null);
    assert!(runtime_lines.contains(&"otel gauge acme.sessions.open = 3 (region=eu: 3)"), "{lines:?}");
    assert!(runtime_lines.iter().all(|line| line.starts_with("otel gauge ")), "{runtime_lines:?}");
    assert!(!session_lines.iter().any(|line| line.starts_with("otel gauge acme.sessions.open")), "{session_lines:?}");
    // The session's own lines come first: the runtime stops once its last session has left.
    let first_of_runtime = lines.iter().position(|record| record["sessionId"].is_null()).unwrap();
    assert!(lines[..first_of_runtime].iter().all(|record| record["sessionId"] == session.as_str()), "{lines:?}");
}

/// A project with OpenTelemetry's own SDK is told, in `dev` as in `run`, that its own
/// providers are left in charge.
#[test]
fn dev_says_a_project_s_own_opentelemetry_sdk_is_left_in_charge() {
    let installed = common::fixture("otel", "own-sdk").join("node_modules/@opentelemetry/sdk-metrics");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/own-sdk`");
    let dir = copy_fixture("otel", "own-sdk");
    let server = DevServer::start(dir.path(), 0);
    wait_for_log(
        &server,
        "OpenTelemetry: the project installs @opentelemetry/sdk-metrics, so its own providers are left in charge",
    );
}

/// `dev` exports what its sessions do when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: each
/// message's `agent_sdk.http` server span is the parent of the turn it ran (a client's
/// `traceparent` makes it the client's child), two sessions' turns are told apart by
/// `session.id`, and what is pending is flushed when the server stops.
#[test]
fn dev_exports_each_message_s_trace_under_its_request_span() {
    let dir = copy_fixture("dev", "basic");
    let collector = common::otlp::Receiver::start();
    let child = common::agent_sdk()
        .args(["dev", "--dir", ".", "--port", "0"])
        .current_dir(dir.path())
        .env("AGENT_SDK_TEST_RECORD", dir.path().join("record.txt"))
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint())
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(dir.path().join("dev.log")).unwrap()))
        .spawn()
        .unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let (first, second) = (server.create_session(), server.create_session());
    server.send(&first, "hello");
    let response = reqwest::blocking::Client::new()
        .post(format!("{}/v1/sessions/{second}/messages", server.url))
        .bearer_auth(&server.token)
        .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        .json(&serde_json::json!({ "text": "hi" }))
        .send()
        .unwrap();
    assert_eq!(response.status(), 200);
    let _ = response.text();
    assert_eq!(server.stop(), Some(0));
    let log = std::fs::read_to_string(dir.path().join("dev.log")).unwrap();
    let spans = common::otlp::spans(&collector.wait_for(
        |requests| common::otlp::spans(requests).iter().filter(|span| span.name == "agent_sdk.turn").count() == 2,
        Duration::from_secs(5),
    ));
    let turns: Vec<&common::otlp::Span> = spans.iter().filter(|span| span.name == "agent_sdk.turn").collect();
    assert_eq!(turns.len(), 2, "{log}\n{spans:#?}");
    for (session, turn) in [&first, &second].into_iter().zip(&turns) {
        let request = spans
            .iter()
            .find(|span| Some(&span.span_id) == turn.parent_span_id.as_ref())
            .unwrap_or_else(|| panic!("the turn's parent: {spans:#?}"));
        assert_eq!((request.name.as_str(), request.kind.as_str()), ("agent_sdk.http", "SPAN_KIND_SERVER"));
        assert_eq!(request.attributes["http.route"], "/v1/sessions/{id}/messages");
        assert_eq!(request.attributes["http.response.status_code"], 200);
        assert_eq!(turn.attributes["session.id"].as_str(), Some(session.as_str()));
        assert_eq!(request.attributes["session.id"].as_str(), Some(session.as_str()));
        assert_eq!(turn.trace_id, request.trace_id);
    }
    let remote = spans
        .iter()
        .find(|span| span.name == "agent_sdk.http" && span.attributes["session.id"] == second.as_str())
        .unwrap();
    assert_eq!(
        (remote.trace_id.as_str(), remote.parent_span_id.as_deref()),
        ("4bf92f3577b34da6a3ce929d0e0e4736", Some("00f067aa0ba902b7"))
    );
}

/// `POST /v1/sessions` takes the purpose, mode and title the docs describe: the hooks see
/// them in `ctx.session`, the serve log says them, and they outlive a rest and a restart.
#[test]
fn a_session_s_purpose_mode_and_title_reach_its_hooks_and_outlive_a_rest_and_a_restart() {
    let dir = copy_fixture("dev", "described");
    let child = dev_command(dir.path(), &["--session-idle", "1s"]).spawn().unwrap();
    let server = DevServer::adopt(child, dir.path(), "");
    let eval =
        server.create_described(serde_json::json!({ "purpose": "eval", "mode": "task", "title": "Nightly eval" }));
    let plain = server.create_session();
    server.send(&eval, "one");
    server.send(&plain, "two");
    wait_for_record(dir.path(), |lines| lines.len() >= 2);
    assert_eq!(
        record(dir.path()).into_iter().collect::<std::collections::BTreeSet<_>>(),
        [format!("{eval} eval task Nightly eval: one"), format!("{plain} live chat (untitled): two")].into(),
    );
    let started: Vec<String> = server
        .logs("")
        .iter()
        .filter_map(|record| record["message"].as_str().filter(|message| message.contains(" started (")))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        started,
        [
            format!("session {eval} started (purpose eval, mode task, title \"Nightly eval\")"),
            format!("session {plain} started (purpose live, mode chat)")
        ]
    );

    // Put to rest, then brought back by its next message: the same session.
    wait_for_log(&server, "session idle");
    server.send(&eval, "three");
    wait_for_record(dir.path(), |lines| lines.len() >= 3);
    assert_eq!(record(dir.path())[2], format!("{eval} eval task Nightly eval: three"));

    // A new server on the same state.
    server.signal("-INT");
    assert_eq!(server.wait(), Some(0));
    let again = DevServer::start(dir.path(), 0);
    again.send(&eval, "four");
    wait_for_record(dir.path(), |lines| lines.len() >= 4);
    assert_eq!(record(dir.path())[3], format!("{eval} eval task Nightly eval: four"));
}

/// A message can carry the local model's script, as `run --script` takes it: a turn that
/// fails pages from a live session and not from an eval one, in `dev` as in production.
#[test]
fn a_message_s_script_plays_its_turn_so_a_failure_pages_except_in_an_eval_session() {
    let dir = copy_fixture("dev", "described");
    let server = DevServer::start(dir.path(), 0);
    let live = server.create_session();
    let eval = server.create_described(serde_json::json!({ "purpose": "eval" }));
    let failing =
        serde_json::json!({ "steps": [ { "text": "Deploying now." }, { "fail": "the deploy tool is down" } ] });
    for session in [&live, &eval] {
        let events = server.send_body(session, serde_json::json!({ "text": "deploy", "script": failing }));
        let types: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
        assert_eq!(types.first(), Some(&"message.received"), "{types:?}");
        assert!(types.contains(&"message.appended"), "the script's text streams: {types:?}");
        let last = events.last().unwrap();
        assert_eq!(
            (&last["type"], &last["data"]["message"]),
            (&"turn.failed".into(), &"the deploy tool is down".into())
        );
    }
    // A message without a script gets the local model's own answer again.
    let after = server.send(&live, "status?");
    assert_eq!(after.last().unwrap()["type"], "turn.completed");
    wait_for_record(dir.path(), |lines| lines.len() >= 4);
    let pages: Vec<String> = record(dir.path()).into_iter().filter(|line| line.starts_with("page ")).collect();
    assert_eq!(pages, [format!("page {live}: the deploy tool is down")]);
}

/// What a session or a message cannot be is answered 400 (415 for a body that is not
/// JSON), with the reason, and records nothing.
#[test]
fn a_session_or_a_script_that_cannot_be_is_a_400_with_the_reason() {
    let dir = copy_fixture("dev", "described");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let client = reqwest::blocking::Client::new();
    let sessions = format!("{}/v1/sessions", server.url);
    let messages = format!("{}/v1/sessions/{session}/messages", server.url);
    let long_title = "x".repeat(1_001);
    let cases = vec![
        ("unknown purpose", client.post(&sessions).json(&serde_json::json!({ "purpose": "evaluation" }))),
        ("unknown field", client.post(&sessions).json(&serde_json::json!({ "titel": "Nightly" }))),
        ("title not a string", client.post(&sessions).json(&serde_json::json!({ "title": 3 }))),
        ("title too long", client.post(&sessions).json(&serde_json::json!({ "title": long_title }))),
        ("not an object", client.post(&sessions).json(&serde_json::json!(["eval"]))),
        (
            "a form, not JSON",
            client.post(&sessions).header("content-type", "application/x-www-form-urlencoded").body("purpose=eval"),
        ),
        (
            "script step unknown",
            client.post(&messages).json(&serde_json::json!({ "text": "hi", "script": { "steps": [ { "jump": 1 } ] } })),
        ),
        ("script not an object", client.post(&messages).json(&serde_json::json!({ "text": "hi", "script": "fail" }))),
    ];
    let mut said = String::new();
    for (case, request) in cases {
        let response = request.bearer_auth(&server.token).send().unwrap();
        let status = response.status().as_u16();
        said.push_str(&format!("{case}: {status} {}\n", error_body(response)));
    }
    insta::assert_snapshot!(said);
    assert_eq!(server.get(&format!("/v1/sessions/{session}/events")).unwrap().status(), 404, "nothing was recorded");

    // A server whose model is not the local one plays no script.
    let other = copy_fixture("dev", "described");
    let remote =
        dev_command(other.path(), &["--model", "openai-compatible:echo", "--base-url", "http://127.0.0.1:9/v1"])
            .spawn()
            .unwrap();
    let remote = DevServer::adopt(remote, other.path(), "");
    let session = remote.create_session();
    let response = remote
        .post(
            &format!("/v1/sessions/{session}/messages"),
            &serde_json::json!({ "text": "hi", "script": { "steps": [] } }),
        )
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(
        error_body(response),
        "`script` plays the local model's turn, and this server's model is `openai-compatible:echo` \
         (start dev with --model local to script turns)"
    );
}

/// SIGHUP (a closed terminal) stops `dev` as Ctrl-C and SIGTERM do: gracefully, exit 0,
/// the recorded turn dispatched.
#[test]
fn sighup_stops_dev_gracefully_as_ctrl_c_does() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    let events = server.send(&session, "hello");
    server.signal("-HUP");
    assert_eq!(server.wait(), Some(0));
    assert_eq!(record(dir.path()).len(), events.len(), "every recorded event was dispatched before it stopped");
    let log = std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap();
    assert!(log.contains("stopped"), "{log}");
}

#[test]
fn a_session_started_after_an_upgrade_replaced_the_binary_still_loads_computed_imports() {
    // Its hook imports a plugin by a computed name: the runtime asks agent-sdk for it.
    let dir = copy_fixture("runtime", "binary-replaced");
    let binary = dir.path().join("agent-sdk");
    std::fs::hard_link(env!("CARGO_BIN_EXE_agent-sdk"), &binary).unwrap();
    let mut command = common::agent_sdk_at(&binary);
    command.args(["dev", "--port", "0"]);
    let server = DevServer::adopt(in_project(command, dir.path()).spawn().unwrap(), dir.path(), "");
    // What `npm install -g agent-sdk@next` does: another file at the binary's path.
    std::fs::remove_file(&binary).unwrap();
    std::fs::write(&binary, "#!/bin/sh\nexit 99\n").unwrap();
    std::fs::set_permissions(&binary, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let session = server.create_session();
    server.send_settled(&session, "hi");
    let log = || std::fs::read_to_string(dir.path().join("dev.log")).unwrap_or_default();
    assert_eq!(record(dir.path()), ["upgrade HELLO ADA!"], "{}", log());
}

/// What a process printed on stderr and its exit code; fails the test (killing it) if it
/// is still running after `limit`.
fn finished_within(mut child: std::process::Child, limit: Duration) -> (Option<i32>, String) {
    use std::io::Read;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    (status.code(), stderr)
}

/// A second `dev` of a project one already serves is refused, naming the running one;
/// one on a port of its own may run beside it, but `dev.json` keeps naming the first,
/// so `logs` still finds it once the second stops (issue 21, item 12).
#[test]
fn a_second_dev_on_the_same_project_is_refused_and_never_takes_over_dev_json() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let dev_json = dir.path().join(".agent-sdk/dev.json");
    let written = std::fs::read_to_string(&dev_json).unwrap();
    let pid = server.child.id();
    let port = free_port().to_string();
    let command = regex::Regex::new(r"as `[^`]*`\)").unwrap();
    for (args, expected) in [
        (
            &["--port", "0"][..],
            "error: agent-sdk dev already serves this project at http://127.0.0.1:[PORT] (pid [PID], started in [DIR] as `[COMMAND]`); use it (`agent-sdk logs` follows it), stop it, or pass a --port other than its own to run another beside it\n",
        ),
        (
            &["--port", &port, "--rotate-token"],
            "error: agent-sdk dev already serves this project at http://127.0.0.1:[PORT] (pid [PID], started in [DIR] as `[COMMAND]`); --rotate-token would change the token it uses: stop it first\n",
        ),
    ] {
        let mut second = in_project(common::agent_sdk(), dir.path());
        second.arg("dev").args(args).stderr(Stdio::piped());
        let (code, stderr) = finished_within(second.spawn().unwrap(), Duration::from_secs(30));
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        // Whole, as docs/commands/dev.md quotes it (tests/it/docs.rs checks the quote against this).
        let said = stderr
            .replace(&server.url, "http://127.0.0.1:[PORT]")
            .replace(&format!("(pid {pid},"), "(pid [PID],")
            .replace(&dir.path().canonicalize().unwrap().to_string_lossy().into_owned(), "[DIR]");
        let said = command.replace(&said, "as `[COMMAND]`)");
        assert_eq!(said, expected, "{args:?}");
    }
    let beside = in_project(common::agent_sdk(), dir.path()).args(["dev", "--port", &port]).spawn().unwrap();
    let beside = DevServer { child: beside, url: format!("http://127.0.0.1:{port}"), token: server.token.clone() };
    let started = Instant::now();
    while !beside.get("/v1/logs?tail=0").is_ok_and(|response| response.status() == 200) {
        assert!(started.elapsed() < Duration::from_secs(30), "the server beside it never answered");
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for_log(
        &server,
        &format!(
            "{} serves this project too (pid {pid}) and keeps .agent-sdk/dev.json: `logs` finds this one with --host http://127.0.0.1:{port}",
            server.url
        ),
    );
    beside.signal("-TERM");
    assert_eq!(beside.exits_within(Duration::from_secs(30)), Some(0));
    assert_eq!(std::fs::read_to_string(&dev_json).unwrap(), written, "dev.json was taken over");
    let output = logs_command(dir.path(), &["--tail", "1"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("no server answered"), "logs lost the running server: {stderr}");
}

/// A settings file written while `dev` serves re-checks the hooks: a warning raised to an
/// error is reported, and the last good hooks keep serving.
#[test]
fn a_settings_file_written_while_serving_re_checks_the_hooks() {
    let dir = copy_fixture("dev", "basic");
    let hook = dir.path().join("bot/hooks/recorder.ts");
    let source = std::fs::read_to_string(&hook).unwrap();
    let failed = "events: {\n    \"turn.failed\"() { return fetch(\"http://127.0.0.1:9/page\"); },";
    std::fs::write(&hook, source.replacen("events: {", failed, 1)).unwrap();
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "one");
    std::fs::write(dir.path().join("agent-sdk.json"), "{ \"rules\": { \"fetch-without-timeout\": \"error\" } }\n")
        .unwrap();
    wait_for_log(&server, "the changed hooks have 1 error; still serving the last good ones");
    let stderr = std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap();
    assert!(stderr.contains("error hooks::fetch-without-timeout"), "{stderr}");
}

/// A misspelt event key saved while `dev` runs is said as start-up says it, once: the edit
/// loop is where the typo is made (the hook still loads, as hosting loads it).
#[test]
fn a_changed_hook_s_findings_are_said_as_at_start_up() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    std::fs::write(
        dir.path().join("bot/hooks/typo.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.complete\"() {} } });\n",
    )
    .unwrap();
    wait_for_log(&server, "hooks changed: 3 hooks will load");
    let stderr = std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap();
    let said: Vec<&str> = stderr.lines().filter(|line| line.contains("hooks::unknown-event")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains("bot/hooks/typo.ts:2:") && said[0].contains("`turn.complete`"), "{stderr}");
}

/// dev's stderr tags each session's lines as `logs` does (`[43c2d23a]`, the id's end), so
/// the lines of parallel sessions can be told apart and matched with `logs --session`.
#[test]
fn dev_s_stderr_names_each_line_s_session_as_logs_does() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "one");
    let tag = &session[session.len() - 8..];
    wait_for_log(&server, "turn completed in ");
    let stderr = std::fs::read_to_string(dir.path().join("dev-0.log")).unwrap();
    let started = format!(" INFO  [{tag}] session {session} started (purpose live, mode chat)");
    assert!(stderr.lines().any(|line| line.ends_with(&started)), "{stderr}");
    assert!(stderr.lines().any(|line| line.contains(&format!(" INFO  [{tag}] turn completed in "))), "{stderr}");
    let serving = stderr.lines().find(|line| line.contains(" serving dev-basic on ")).unwrap();
    assert!(!serving.contains('['), "the server's own lines have no tag: {serving}");
    let logged = common::agent_sdk()
        .args(["logs", "--session", &session])
        .current_dir(dir.path())
        .env_remove("AGENT_SDK_HOST")
        .output()
        .unwrap();
    let logged = String::from_utf8_lossy(&logged.stdout).into_owned();
    assert!(logged.contains(&format!("[{tag}] session {session} started")), "{logged}");
    // The tag the line shows is enough for `logs --session` (the server finds the id).
    let by_tag = common::agent_sdk()
        .args(["logs", "--session", tag])
        .current_dir(dir.path())
        .env_remove("AGENT_SDK_HOST")
        .output()
        .unwrap();
    assert_eq!(by_tag.status.code(), Some(0), "{}", String::from_utf8_lossy(&by_tag.stderr));
    assert_eq!(String::from_utf8_lossy(&by_tag.stdout), logged);
}

/// `hook=` (repeated) in `GET /v1/logs` keeps those hooks' lines, and `logs --hook` asks
/// for it; a hook that logged nothing gets none.
#[test]
fn logs_of_named_hooks_only() {
    let dir = copy_fixture("dev", "playground");
    let server = DevServer::start(dir.path(), 0);
    let session = server.create_session();
    server.send(&session, "hello");
    wait_for_log(&server, "message.completed: ");
    let history = server.logs("");
    let of_transcript: Vec<&Value> = history.iter().filter(|record| record["hook"] == "transcript").collect();
    assert!(of_transcript.len() >= 2, "{history:?}");
    assert_eq!(server.logs("?hook=transcript&hook=no-such-hook").iter().collect::<Vec<_>>(), of_transcript);
    assert!(server.logs("?hook=no-such-hook").is_empty());
    let output = logs_command(dir.path(), &["--json", "--hook", "transcript"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: Vec<Value> =
        String::from_utf8_lossy(&output.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(printed.len(), of_transcript.len());
    assert!(printed.iter().all(|line| line["hook"] == "transcript"), "{printed:?}");
}

/// `GET /v1/logs?session=<tag>` resolves a tag that ends one session's id, and refuses one
/// that ends several (400, listing them), which `logs` reports as a usage error (exit 2).
#[test]
fn the_server_resolves_a_session_tag_and_refuses_one_several_ids_end_with() {
    let dir = copy_fixture("dev", "basic");
    for session in ["ses_first0a1b2c3d", "ses_second0a1b2c3d", "ses_third09f8e7d6"] {
        let ran = common::run_recorded(dir.path(), &["run", "--event", "turn.completed", "--session", session], &[]);
        assert_eq!(common::exit_code(&ran.output), 0, "{}", ran.log());
    }
    let server = DevServer::start(dir.path(), 0);
    let third = server.logs("?session=09f8e7d6");
    assert!(!third.is_empty() && third.iter().all(|record| record["sessionId"] == "ses_third09f8e7d6"), "{third:?}");
    let refused = server.get("/v1/logs?session=0a1b2c3d").unwrap();
    assert_eq!(refused.status().as_u16(), 400);
    let said = refused.text().unwrap();
    assert!(
        said.contains("`0a1b2c3d` ends the ids of 2 sessions (`ses_first0a1b2c3d`, `ses_second0a1b2c3d`)"),
        "{said}"
    );
    let output = logs_command(dir.path(), &["--session", "0a1b2c3d"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("error: the server refused the request: `0a1b2c3d` ends the ids of 2 sessions (`ses_first0a1b2c3d`, `ses_second0a1b2c3d`); give more of the one you mean\n"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
