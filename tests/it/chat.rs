//! `agent-sdk chat`: a client of `dev`'s hosting API (`src/commands/chat.rs`). One turn with
//! `--message` (the reply on stdout, the turn's serve-log lines on stderr, the outcome as the
//! exit status), a session continued with `--session`, `--json`'s events, a turn per line of
//! stdin (and, at a terminal, a line editor with the chat's history), and what it says when there
//! is no server.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::copy_fixture;
use crate::common::dev_server::DevServer;

fn chat(dir: &std::path::Path, args: &[&str]) -> Command {
    let mut command = common::agent_sdk();
    command.arg("chat").args(args).current_dir(dir).env("NO_COLOR", "1").env_remove("AGENT_SDK_HOST");
    command
}

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn one_turn_prints_the_reply_and_the_turn_s_hooks_and_a_session_continues() {
    let dir = copy_fixture("dev", "basic");
    let _server = DevServer::start(dir.path(), 0);
    let output = chat(dir.path(), &["--message", "What is the refund policy?"]).output().unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(common::exit_code(&output), 0, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "You said: \"What is the refund policy?\". I am the local model, answering without a network.\n"
    );
    assert!(stderr.contains(" INFO  [") && stderr.contains("] turn completed in "), "{stderr}");
    assert!(stderr.contains("events dispatched to 2 hooks; 0 handlers threw, 0 timed out"), "{stderr}");

    // The continuation token is kept, privately, and --session continues the session.
    let kept = dir.path().join(".agent-sdk/chat.json");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&kept).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let servers: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let sessions = servers.as_object().unwrap().values().next().unwrap().as_object().unwrap();
    let session = sessions.keys().next().unwrap().clone();
    let output = chat(dir.path(), &["--session", &session, "--message", "Thanks", "--json"]).output().unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(common::exit_code(&output), 0, "{stderr}");
    let events: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(events.first().unwrap()["type"], "message.received");
    assert_eq!(events.first().unwrap()["data"]["text"], "Thanks");
    assert_eq!(events.last().unwrap()["type"], "turn.completed");
    assert!(events.iter().all(|event| event["sessionId"] == session.as_str()), "{stdout}");
    assert!(events[0]["index"].as_u64().unwrap() > 0, "the session went on: {stdout}");

    let output = chat(dir.path(), &["--session", "ses_never", "--message", "hi"]).output().unwrap();
    assert_eq!(common::exit_code(&output), 2);
    assert!(text(&output).1.contains("no continuation token for session ses_never"), "{}", text(&output).1);
}

/// The turn `chat --json` prints replays through the hooks of the working copy, piped into
/// `run --replay -` as docs/commands/chat.md shows: each event, in order, once.
#[test]
fn a_turn_chat_printed_replays_through_run_from_a_pipe() {
    let dir = copy_fixture("dev", "basic");
    let _server = DevServer::start(dir.path(), 0);
    let mut printed = chat(dir.path(), &["--message", "What is the refund policy?", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let replayed = common::agent_sdk()
        .args(["run", "--replay", "-"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("AGENT_SDK_TEST_RECORD", dir.path().join("replayed.txt"))
        .stdin(Stdio::from(printed.stdout.take().unwrap()))
        .output()
        .unwrap();
    assert!(printed.wait().unwrap().success());
    let (_, stderr) = text(&replayed);
    assert_eq!(common::exit_code(&replayed), 0, "{stderr}");
    // What the hooks saw: "<session> <index> <type> v1" a line, the server's and the replay's.
    let types_in = |record: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.path().join(record)).unwrap();
        text.lines().map(|line| line.split(' ').nth(2).unwrap().to_owned()).collect()
    };
    let (served, seen) = (types_in("record.txt"), types_in("replayed.txt"));
    assert_eq!(seen, served, "the replay's hooks saw the served turn's events, in order");
    assert_eq!(seen.first().map(String::as_str), Some("message.received"));
    assert_eq!(seen.last().map(String::as_str), Some("turn.completed"));
    assert!(
        stderr.contains(&format!("summary: {} events dispatched to 2 hooks; 0 hooks failed to load", seen.len())),
        "{stderr}"
    );
}

#[test]
fn a_hook_that_throws_is_exit_3_and_said_in_the_serve_log_s_words() {
    let dir = copy_fixture("dev", "basic");
    std::fs::write(
        dir.path().join("bot/hooks/pager.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.completed\"() { throw new Error(\"the pager is down\"); } } });\n",
    )
    .unwrap();
    let _server = DevServer::start(dir.path(), 0);
    let output = chat(dir.path(), &["--message", "hello"]).output().unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(common::exit_code(&output), 3, "{stdout}{stderr}");
    assert!(stdout.starts_with("You said: \"hello\""), "{stdout}");
    assert!(stderr.contains("hook \"pager\"") && stderr.contains("the pager is down"), "{stderr}");
    assert!(stderr.contains(" WARN  [") && stderr.contains("1 handler threw"), "{stderr}");
}

#[test]
fn each_line_of_stdin_is_a_turn_of_one_session() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let mut child =
        chat(dir.path(), &[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"one\n\ntwo\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&output);
    assert_eq!(common::exit_code(&output), 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(stdout.contains("\"one\"") && stdout.contains("\"two\""), "{stdout}");
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(".agent-sdk/chat.json")).unwrap()).unwrap();
    let session = kept[server.url.as_str()].as_object().unwrap().keys().next().unwrap().clone();
    let events: Vec<Value> = server.get(&format!("/v1/sessions/{session}/events")).unwrap().json().unwrap();
    assert_eq!(events.iter().filter(|event| event["type"] == "message.received").count(), 2, "one session");
}

#[test]
fn without_a_server_it_says_how_to_start_one() {
    let dir = copy_fixture("dev", "basic");
    let output = chat(dir.path(), &["--message", "hi"]).output().unwrap();
    assert_eq!(common::exit_code(&output), 2);
    assert!(text(&output).1.contains("no dev server found; start one with `agent-sdk dev`"), "{}", text(&output).1);
    let output = chat(dir.path(), &["--url", "http://127.0.0.1:9", "--message", "hi"]).output().unwrap();
    assert_eq!(common::exit_code(&output), 2);
    let (_, stderr) = text(&output);
    assert!(
        stderr.contains("could not reach http://127.0.0.1:9") && stderr.contains("is the server running?"),
        "{stderr}"
    );
}

/// Ctrl-C at the prompt ends the chat (130), as at any prompt; during a turn it gives up
/// waiting for it (the server finishes it).
#[test]
fn ctrl_c_at_the_prompt_ends_the_chat() {
    let dir = copy_fixture("dev", "basic");
    let _server = DevServer::start(dir.path(), 0);
    let mut child =
        chat(dir.path(), &[]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"one\n").unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut reply = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
    assert!(reply.contains("\"one\""), "{reply}");
    // At the prompt, or still waiting for the turn's hooks: 130 either way (then the end of
    // input ends the chat).
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(common::exit_code(&output), 130, "{}", String::from_utf8_lossy(&output.stderr));
}

/// At a terminal (a pty made by script(1)), the prompt edits its line and keeps the chat's
/// history: "helo", ←, "l", Enter sends "hello"; ↑, Enter sends it again; Ctrl-D at the
/// next prompt ends the chat, 0.
#[test]
fn at_a_terminal_the_prompt_edits_lines_and_keeps_the_chat_s_history() {
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let command = format!("'{}' chat", env!("CARGO_BIN_EXE_agent-sdk"));
    let mut terminal = Command::new("script");
    terminal
        .args(["-qefc", &command, "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env("NO_COLOR", "1")
        .env_remove("AGENT_SDK_HOST")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = terminal.spawn().expect("script(1), from util-linux, runs");
    let mut keys = child.stdin.take().unwrap();
    // What the terminal shows, as it comes.
    let shown = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut screen = child.stdout.take().unwrap();
    let filling = std::sync::Arc::clone(&shown);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = std::io::Read::read(&mut screen, &mut buffer) {
            if read == 0 {
                return;
            }
            filling.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    });
    // Waits until the prompt shows after the `replies`-th reply.
    let prompt_after = |replies: usize| {
        let started = std::time::Instant::now();
        loop {
            let text = shown.lock().unwrap().clone();
            let after = text.match_indices("You said:").nth(replies.wrapping_sub(1)).map(|(at, _)| at);
            let ready = match (replies, after) {
                (0, _) => text.contains("> "),
                (_, Some(at)) => text[at..].contains("> "),
                _ => false,
            };
            if ready {
                return;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "no prompt after {replies} replies:\n{text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    prompt_after(0);
    keys.write_all(b"helo\x1b[Dl\r").unwrap();
    prompt_after(1);
    keys.write_all(b"\x1b[A\r").unwrap();
    prompt_after(2);
    keys.write_all(b"\x04").unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "chat did not end at Ctrl-D");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(keys);
    let seen = shown.lock().unwrap().clone();
    assert!(status.success(), "{seen}");
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(".agent-sdk/chat.json")).unwrap()).unwrap();
    let session = kept[server.url.as_str()].as_object().unwrap().keys().next().unwrap().clone();
    let events: Vec<Value> = server.get(&format!("/v1/sessions/{session}/events")).unwrap().json().unwrap();
    let sent: Vec<&str> = events
        .iter()
        .filter(|event| event["type"] == "message.received")
        .map(|event| event["data"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(sent, ["hello", "hello"], "{seen}");
}
