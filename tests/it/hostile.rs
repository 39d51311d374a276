//! Hooks written to hurt: `run` through the real binary and Node on the projects under
//! `fixtures/hostile/`. A hook's child process, its stray `process.exit`, an import that
//! never finishes, a hook that replaces the language's built-ins, output meant to forge the
//! log: each is contained, blamed on the right hook, and reported.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Ran, copy_fixture, exit_code, run_recorded};

/// The exit code when the turn completed but a hook misbehaved.
const HOOKS_MISBEHAVED: i32 = 3;

fn run(dir: &Path, args: &[&str]) -> Ran {
    let args: Vec<&str> = ["run", "--message", "hi"].into_iter().chain(args.iter().copied()).collect();
    run_recorded(dir, &args, &[])
}

/// The serve log's line that contains `needle` (the test fails naming the whole log if none does).
fn line_with<'a>(log: &'a str, needle: &str) -> &'a str {
    log.lines().find(|line| line.contains(needle)).unwrap_or_else(|| panic!("no line has `{needle}`:\n{log}"))
}

#[test]
fn a_child_process_sharing_the_runtime_s_output_cannot_touch_the_protocol_and_dies_with_the_run() {
    let dir = copy_fixture("hostile", "children");
    let dir = dir.path();
    let started = Instant::now();
    let ran = run(dir, &[]);
    // The child sleeps 60 s holding the runtime's stdout and stderr: the run does not wait for it.
    assert!(started.elapsed() < Duration::from_secs(30), "run waited on the hook's child process");
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    // Every one of 200 ctx calls was answered while the child printed lines that look like
    // protocol messages.
    assert!(ran.record.contains(&"wrote 200".to_owned()), "{:?}\n{}", ran.record, ran.log());
    assert!(ran.record.contains(&"survivor turn.completed".to_owned()), "{:?}", ran.record);
    let notes = walkdir::WalkDir::new(dir.join(".agent-sdk/files/sessions"))
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .count();
    assert_eq!(notes, 200);
    // What the child printed is the hook's output, in the log, not protocol.
    let log = ran.log();
    line_with(&log, r#"INFO  hook "1-spawner": {"t":"done","seq":0} child noise 0"#);
    line_with(&log, r#"WARN  hook "1-spawner": child err 0"#);
    assert!(log.contains("0 runtime restarts, 0 unconfirmed deliveries"), "{log}");
    // And it did not outlive the run.
    let started = Instant::now();
    while Command::new("pgrep").args(["-f", "hostile-children-sleeper"]).output().unwrap().status.success() {
        assert!(started.elapsed() < Duration::from_secs(5), "the hook's child process outlived the run");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_timer_s_process_exit_is_blamed_on_its_hook_and_the_handler_it_cut_off_is_named() {
    let dir = copy_fixture("hostile", "exits");
    let dir = dir.path();
    let ran = run(dir, &[]);
    assert_eq!(exit_code(&ran.output), HOOKS_MISBEHAVED, "{}", ran.both());
    let log = ran.log();
    let exited = line_with(&log, "the hook runtime exited");
    assert!(
        exited.ends_with(
            r#"ERROR the hook runtime exited (exit status: 4): hook "1-timer" called process.exit(4) while hook "2-waiter" handler for message.completed ran (at bot/hooks/1-timer.ts:10:32)"#
        ),
        "{exited}"
    );
    let unconfirmed = line_with(&log, "unconfirmed delivery");
    assert!(
        unconfirmed.ends_with(
            r#"WARN  unconfirmed delivery: event #5 (message.completed) to hook "2-waiter": its message.completed handler was cut off and may not have finished"#
        ),
        "{unconfirmed}"
    );
    assert!(log.contains("1 runtime restart, 1 unconfirmed delivery"), "{log}");
    // The innocent hook is not skipped: it sees the rest of the turn, as does the hook after it.
    assert!(ran.record.contains(&"waiter turn.completed".to_owned()), "{:?}", ran.record);
    assert!(!ran.record.contains(&"waiter ends".to_owned()), "{:?}", ran.record);
    let survivor: Vec<&str> = ran
        .record
        .iter()
        .filter_map(|line| line.strip_prefix("survivor "))
        .filter(|t| !t.contains("appended"))
        .collect();
    assert_eq!(survivor, ["message.received", "message.completed", "turn.completed"]);
}

#[test]
fn a_runtime_killed_from_outside_names_the_delivery_it_cut_off() {
    let dir = copy_fixture("hostile", "killed");
    let dir = dir.path();
    let record = dir.join("record.txt");
    let child = common::agent_sdk()
        .args(["run", "--message", "hi"])
        .current_dir(dir)
        .env("AGENT_SDK_TEST_RECORD", &record)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let pid = loop {
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        if let Some(pid) = text.lines().find_map(|line| line.strip_prefix("victim pid ")) {
            break pid.to_owned();
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the hook never ran");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(Command::new("kill").args(["-9", &pid]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), HOOKS_MISBEHAVED, "{log}");
    let exited = line_with(&log, "the hook runtime exited");
    assert!(
        exited.ends_with(
            r#"ERROR the hook runtime exited (signal: 9 (SIGKILL)) while hook "1-victim" handler for message.completed ran"#
        ),
        "{exited}"
    );
    line_with(&log, r#"unconfirmed delivery: event #5 (message.completed) to hook "1-victim""#);
    assert!(log.contains("1 runtime restart, 1 unconfirmed delivery"), "{log}");
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.contains("victim turn.completed"), "{recorded}");
    assert!(recorded.contains("survivor message.completed"), "{recorded}");
}

/// A crash no handler can see (the runtime's own SIGKILL), while a burst of replayed events
/// runs back to back: the events that finished before it are not sent again, though the
/// runtime died before saying so (it says so with its next write), and the handler it cut
/// off is named.
#[test]
fn a_crash_in_a_burst_of_events_names_the_handler_and_sends_no_finished_event_again() {
    let dir = copy_fixture("hostile", "crash-mid-burst");
    let dir = dir.path();
    let mut events = vec![r#"{"type":"message.received","data":{"text":"hi"}}"#.to_owned()];
    events.extend((0..40).map(|i| format!(r#"{{"type":"message.appended","data":{{"delta":"{i} "}}}}"#)));
    events.push(r#"{"type":"message.completed","data":{"text":"done"}}"#.to_owned());
    events.push(r#"{"type":"turn.completed","data":{"result":"done"}}"#.to_owned());
    std::fs::write(dir.join("events.jsonl"), events.join("\n") + "\n").unwrap();
    let ran = run_recorded(dir, &["run", "--replay", "events.jsonl"], &[]);
    let log = ran.log();
    assert_eq!(exit_code(&ran.output), HOOKS_MISBEHAVED, "{log}");
    line_with(
        &log,
        r#"the hook runtime exited (signal: 9 (SIGKILL)) while hook "2-crasher" handler for message.completed ran"#,
    );
    line_with(&log, r#"unconfirmed delivery: event #41 (message.completed) to hook "2-crasher""#);
    assert!(log.contains("43 events dispatched"), "{log}");
    assert!(log.contains("1 runtime restart, 1 unconfirmed delivery"), "{log}");
    let survivor: Vec<&str> = ran.record.iter().filter_map(|line| line.strip_prefix("survivor ")).collect();
    let expected: Vec<String> = (0..43)
        .map(|index| {
            let kind = match index {
                0 => "message.received",
                41 => "message.completed",
                42 => "turn.completed",
                _ => "message.appended",
            };
            format!("{index} {kind}")
        })
        .collect();
    assert_eq!(survivor, expected, "every event reached the survivor once, in order");
    assert!(ran.record.contains(&"crasher kills its runtime".to_owned()), "{:?}", ran.record);
}

#[test]
fn an_import_that_never_finishes_is_named_and_skipped_and_the_others_run() {
    let dir = copy_fixture("hostile", "imports");
    let dir = dir.path();
    let started = Instant::now();
    let ran = run(dir, &["--hook-timeout", "1s"]);
    assert!(started.elapsed() < Duration::from_secs(30), "the run waited on an import for too long");
    assert_eq!(exit_code(&ran.output), HOOKS_MISBEHAVED, "{}", ran.both());
    let log = ran.log();
    assert!(
        line_with(&log, r#"hook "1-never-settles""#)
            .ends_with(r#"ERROR hook "1-never-settles" failed to load: its import did not finish within 1s"#),
        "{log}"
    );
    assert!(
        line_with(&log, r#"hook "2-spins""#).ends_with(
            r#"ERROR hook "2-spins" failed to load: its import did not finish within 1s (it never yielded)"#
        ),
        "{log}"
    );
    assert!(log.contains("summary: 7 events dispatched to 1 hook; 2 hooks failed to load"), "{log}");
    // The spinner was imported once: the runtime that replaced the killed one skipped it.
    assert_eq!(ran.record.iter().filter(|line| *line == "spinner imported").count(), 1, "{:?}", ran.record);
    assert!(ran.record.contains(&"survivor turn.completed".to_owned()), "{:?}", ran.record);
}

#[test]
fn a_hook_that_replaces_built_ins_cannot_unfreeze_events_or_forge_the_protocol() {
    let dir = copy_fixture("hostile", "primordials");
    let dir = dir.path();
    let ran = run(dir, &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(
        ran.record,
        [
            "sabotaged",
            "event write refused",
            r#"reader sees You said: "hi". I am the local model, answering without a network."#
        ]
    );
    assert!(ran.log().contains("summary: 7 events dispatched to 3 hooks; 0 hooks failed to load"), "{}", ran.log());
}

#[test]
fn what_a_hook_prints_cannot_forge_log_lines_or_reach_the_terminal() {
    let dir = copy_fixture("hostile", "output");
    let dir = dir.path();
    let ran = run(dir, &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    let log = ran.log();
    assert!(!log.contains('\u{1b}') && !log.contains('\u{7}') && !log.contains('\r'), "{log:?}");
    let printed: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("first line") || line.contains("forged") || line.contains("raw write"))
        .collect();
    let without_time: Vec<&str> = printed.iter().map(|line| line.split_once(' ').unwrap().1).collect();
    assert_eq!(
        without_time,
        [
            r#"INFO  hook "noisy": first line"#,
            r#"INFO  | 2026-01-01T00:00:00.000Z INFO  summary: forged\u{1b}[2J"#,
            r#"INFO  hook "noisy": \u{1b}]0;owned\u{7}raw write\r"#,
        ]
    );
    // JSON output keeps what the hook printed as data.
    let ran = run(dir, &["--log-format", "json"]);
    let records: Vec<serde_json::Value> =
        ran.log().lines().map(|line| serde_json::from_str(line).expect("a JSON record")).collect();
    let messages: Vec<&str> = records.iter().filter_map(|record| record["message"].as_str()).collect();
    assert!(messages.contains(&"hook \"noisy\": first line\n2026-01-01T00:00:00.000Z INFO  summary: forged\u{1b}[2J"));
}

/// A reply meant to take over the terminal: a window title (OSC 0), a cleared screen, a
/// clipboard write (OSC 52) and a carriage return that writes a forged log line over it.
const HOSTILE_REPLY: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}]52;c;b3duZWQ=\u{7}ok\rINFO  forged\tline";

/// `run` with the local model playing [`HOSTILE_REPLY`], from the project at `dir`: the
/// arguments, after writing the script they name.
fn hostile_reply_run(dir: &Path) -> [&'static str; 5] {
    let script = serde_json::json!({ "steps": [{ "text": HOSTILE_REPLY }] });
    std::fs::write(dir.join("reply.json"), script.to_string()).unwrap();
    ["run", "--message", "hi", "--script", "reply.json"]
}

#[test]
fn a_reply_reaches_a_pipe_as_its_bytes() {
    let dir = copy_fixture("run", "state");
    let args = hostile_reply_run(dir.path());
    let ran = run_recorded(dir.path(), &args, &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(
        ran.stdout(),
        format!("{HOSTILE_REPLY}\n"),
        "as `cat` shows a file: the bytes, for the program reading them"
    );
}

#[test]
fn a_reply_reaches_a_terminal_with_its_escape_sequences_shown_not_run() {
    let dir = copy_fixture("run", "state");
    let args = hostile_reply_run(dir.path());
    // script(1) runs the binary with a pseudo-terminal for its stdin, stdout and stderr, and
    // copies what it writes there to its own stdout.
    let command = format!("'{}' {}", env!("CARGO_BIN_EXE_agent-sdk"), args.join(" "));
    let mut terminal = Command::new("script");
    terminal.args(["-qec", &command, "/dev/null"]).env("SHELL", "/bin/sh").env("NO_COLOR", "1");
    // As `common::agent_sdk` runs it: no model or collector of the developer's.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("OTEL_") || key == "AGENT_SDK_MODEL" {
            terminal.env_remove(key);
        }
    }
    let terminal =
        terminal.current_dir(dir.path()).stdin(Stdio::null()).output().expect("script(1), from util-linux, runs");
    let seen = String::from_utf8_lossy(&terminal.stdout);
    assert!(terminal.status.success(), "{seen}");
    assert!(!seen.contains(['\u{1b}', '\u{7}']), "an escape sequence reached the terminal:\n{seen:?}");
    let reply = "\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{1b}]52;c;b3duZWQ=\\u{7}ok\\rINFO  forged\tline";
    assert!(seen.contains(reply), "the reply is not shown escaped:\n{seen:?}");
}
