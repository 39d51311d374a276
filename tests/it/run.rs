//! `agent-sdk run` through the real binary and a real Node.js: the hooks in
//! `fixtures/run/` write down what really ran (to the file in `AGENT_SDK_TEST_RECORD`),
//! so these tests check what happened and in what order, not only what was logged.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::common::snapshot::Filters;
use crate::common::{Ran, copy_fixture, exit_code, run_recorded, store};

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let args: Vec<&str> = std::iter::once("run").chain(args.iter().copied()).collect();
    run_recorded(dir, &args, env)
}

/// `agent-sdk run <args>` started in `dir` (not waited for), its hooks recording to
/// `<dir>/record.txt`, its stderr piped.
fn spawn_run(dir: &Path, args: &[&str], stdout: Stdio) -> Child {
    spawn_run_with(dir, args, &[], stdout)
}

/// [`spawn_run`] with variables `env` set.
fn spawn_run_with(dir: &Path, args: &[&str], env: &[(&str, &str)], stdout: Stdio) -> Child {
    common::agent_sdk()
        .arg("run")
        .args(args)
        .current_dir(dir)
        .env("AGENT_SDK_TEST_RECORD", dir.join("record.txt"))
        .envs(env.iter().copied())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most 20 s) until a hook has recorded a line containing `needle`.
fn wait_until_recorded(record: &Path, needle: &str) {
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(record).unwrap_or_default().contains(needle) {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "no hook recorded `{needle}`");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// What a user sees of a run in `dir`: its exit code, the reply on stdout and the serve log
/// on stderr, with the log's times, the ids the binary made and the project's folder filtered.
fn seen(dir: &Path, ran: &Ran) -> String {
    let mut text = format!("exit: {}\n", exit_code(&ran.output));
    for (name, stream) in [("stdout", ran.stdout()), ("stderr", ran.log())] {
        if !stream.is_empty() {
            text.push_str(&format!("----- {name} -----\n{stream}"));
        }
    }
    Filters::new().log_times().ids().project(dir).apply(&text)
}

/// [`seen`] of the runs `(args, ran)` in `dir`, one after another.
fn seen_each(dir: &Path, runs: &[(&str, &Ran)]) -> String {
    runs.iter().map(|(args, ran)| format!("$ agent-sdk run {args}\n{}", seen(dir, ran))).collect::<Vec<_>>().join("\n")
}

fn envelopes(stdout: &str) -> Vec<serde_json::Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn events_dispatch_in_order_hooks_in_discovery_order_typed_then_wildcard() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi", "--json", "--purpose", "eval", "--mode", "task"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let events = envelopes(&ran.stdout());
    let last = events.len() - 1;
    let mut expected = Vec::new();
    for event in &events {
        let index = event["index"].as_u64().unwrap();
        let kind = event["type"].as_str().unwrap();
        if kind == "message.completed" {
            expected.push(format!("a message.completed {index}"));
        }
        expected.push(format!("a * {index} {kind}"));
        if kind == "turn.completed" {
            expected.push(format!("b/nested turn.completed {index} eval task run-order null"));
        }
    }
    assert_eq!(ran.record, expected);
    assert_eq!(events[last]["type"], "turn.completed");
}

#[test]
fn json_prints_every_recorded_envelope() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hello there", "--json"], &[]);
    let events = envelopes(&ran.stdout());
    let session = events[0]["sessionId"].as_str().unwrap();
    let turn = events[0]["turnId"].as_str().unwrap();
    for (i, event) in events.iter().enumerate() {
        assert_eq!(event["index"], i as u64);
        assert_eq!(event["sessionId"], session);
        assert_eq!(event["turnId"], turn);
        assert!(event["at"].as_str().unwrap().ends_with('Z'));
    }
    let types: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"message.received"));
    assert_eq!(types.iter().filter(|t| t.starts_with("turn.")).count(), 1, "exactly one terminal event");
    let deltas: String = events
        .iter()
        .filter(|event| event["type"] == "message.appended")
        .map(|event| event["data"]["delta"].as_str().unwrap())
        .collect();
    let completed = events.iter().find(|event| event["type"] == "message.completed").unwrap();
    assert!(types.iter().filter(|t| **t == "message.appended").count() > 2, "streamed in several pieces");
    assert_eq!(completed["data"]["text"], deltas.as_str());
    let done = &events[events.len() - 1]["data"];
    assert_eq!(done["cost"]["model"], "local");
    assert_eq!(done["cost"]["totalUsd"], 0);
    assert!(done["usage"]["outputTokens"].as_u64().unwrap() > 0);
}

#[test]
fn the_reply_streams_to_stdout_and_the_log_to_stderr() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "ping"], &[]);
    assert!(ran.stdout().starts_with("You said: \"ping\"."), "{}", ran.stdout());
    assert!(!ran.log().contains("loaded hook \"noop\""), "{}", ran.log());
    // The hooks loaded and the one skipped (hooks::empty-events), then the summary.
    insta::assert_snapshot!(seen(dir.path(), &ran));
}

#[test]
fn throws_rejections_frozen_writes_timeouts_and_import_failures_are_logged_and_skipped() {
    let dir = copy_fixture("run", "failures");
    let ran = run(dir.path(), &["--message", "hi", "--hook-timeout", "300ms"], &[]);
    let log = ran.log();
    assert_eq!(exit_code(&ran.output), 3, "the turn completed, but hooks misbehaved: {log}");
    // Each throw and rejection (with where), the frozen writes, the timeout, the imports that
    // failed, and the summary that counts them.
    insta::assert_snapshot!(seen(dir.path(), &ran));
    // The survivor saw every event, in order, despite all of the above.
    let events = ran.record.len();
    assert!(events > 5);
    for (i, line) in ran.record.iter().enumerate() {
        assert!(line.starts_with(&format!("survivor {i} ")), "{line}");
    }
    assert!(ran.record.last().unwrap().ends_with("turn.completed"));
}

#[test]
fn a_busy_loop_an_exit_and_out_of_memory_restart_the_runtime_and_lose_nothing() {
    let dir = copy_fixture("run", "crash");
    let ran = run(
        dir.path(),
        &["--message", "hi", "--hook-timeout", "500ms"],
        &[("NODE_OPTIONS", "--max-old-space-size=64")],
    );
    let log = ran.log();
    assert_eq!(exit_code(&ran.output), 3, "{log}");
    assert!(log.contains("hook \"1-spinner\" handler for message.received timed out after 500ms"), "{log}");
    assert!(
        log.contains(r#"the hook runtime exited (exit status: 3): hook "2-quitter" called process.exit(3) in its handler for message.completed (at bot/hooks/2-quitter.ts:8:15)"#),
        "{log}"
    );
    // Running out of memory is not a call the runtime can see: the delivery is unconfirmed.
    // (On a loaded machine the hog may still be allocating past its timeout: then the
    // watchdog kills it as never yielding, which is said as a timeout.)
    let out_of_memory = log.contains(r#"while hook "3-hog" handler for"#)
        && log.contains(r#"unconfirmed delivery: event #"#)
        && log.contains("3 runtime restarts, 1 unconfirmed delivery");
    let never_yielded = log.contains(r#"hook "3-hog" handler for message.appended timed out after 500ms"#)
        && log.contains("3 runtime restarts, 0 unconfirmed deliveries");
    assert!(out_of_memory || never_yielded, "{log}");
    assert_eq!(log.matches("restarting the hook runtime").count(), 3, "{log}");
    let survivor: Vec<&String> = ran.record.iter().filter(|line| line.starts_with("survivor")).collect();
    for (i, line) in survivor.iter().enumerate() {
        assert!(line.starts_with(&format!("survivor {i} ")), "every event reached the survivor once, in order: {line}");
    }
    assert!(survivor.last().unwrap().ends_with("turn.completed"), "{:?}", ran.record);
    assert!(ran.record.iter().any(|line| line.starts_with("spinner ") && line.ends_with("turn.completed")));
    assert!(ran.record.contains(&"quitter exits".to_owned()));
    assert!(ran.record.contains(&"hog allocates".to_owned()));
}

#[test]
fn kv_files_otel_reminders_and_memory_persist_in_the_state_root() {
    let dir = copy_fixture("run", "state");
    // A link inside the deployment scope that leads out of it.
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".agent-sdk/files/deployment")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".agent-sdk/files/deployment/link")).unwrap();
    let first = run(dir.path(), &["--message", "one"], &[]);
    assert_eq!(exit_code(&first.output), 0, "{}", first.log());
    let second = run(dir.path(), &["--message", "two"], &[]);
    assert!(first.record.contains(&"runs 1 keys runs".to_owned()), "{:?}", first.record);
    assert!(second.record.contains(&"runs 2 keys runs".to_owned()), "kv survives across runs: {:?}", second.record);
    assert!(second.record.contains(&"reminders 1".to_owned()), "reminders are per session: {:?}", second.record);
    assert!(first.record.contains(&"session files notes/reply.md".to_owned()), "{:?}", first.record);
    assert!(first.record.contains(&"deployment read for every session".to_owned()), "{:?}", first.record);
    for bad in ["../escape.txt", "/etc/passwd", "notes/../../x", "link/escape.txt"] {
        assert!(first.record.contains(&format!("refused {bad}")), "{bad}: {:?}", first.record);
        assert!(first.record.contains(&format!("refused append {bad}")), "{bad}: {:?}", first.record);
    }
    let log = first.log();
    assert!(!log.contains(" threw: "), "every ctx call (kv, files, reminders, artifacts) succeeded: {log}");
    assert!(log.contains("otel counter state.turns = 1"), "{log}");
    assert!(log.contains("otel histogram state.tokens: count 1"), "{log}");
    assert!(log.contains("otel tag region = local"), "{log}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing escaped through the link");
    let artifacts: u64 = store::open(dir.path())
        .query_row("select count(*) from artifacts where turn_id is not null", [], |row| row.get(0))
        .unwrap();
    assert_eq!(artifacts, 2, "one artifact per turn, with its turnId");
    let journal = std::fs::read_to_string(dir.path().join(".agent-sdk/files/deployment/memory/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2, "memoryHook appends each session's turn to one journal: {journal}");
}

#[test]
fn validate_errors_stop_the_run() {
    let dir = copy_fixture("run", "errors");
    let ran = run(dir.path(), &["--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 1);
    // validate's error (hooks::handler-not-function), and nothing of a run.
    insta::assert_snapshot!(seen(dir.path(), &ran));
    assert!(ran.record.is_empty(), "no hook ran");
    assert!(ran.stdout().is_empty());
}

#[test]
fn event_dispatches_one_synthetic_event() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--event", "turn.completed", "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let events = envelopes(&ran.stdout());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["data"]["cost"]["model"], "local");
    assert_eq!(ran.record, ["a * 0 turn.completed", "b/nested turn.completed 0 live chat run-order null"]);

    let ran = run(dir.path(), &["--event", "turn.failed", "--data", "{\"message\":\"x\"}"], &[]);
    assert_eq!(ran.record, ["a * 0 turn.failed"]);
    let ran = run(dir.path(), &["--event", "turn.complete"], &[]);
    assert_eq!(exit_code(&ran.output), 2);
    // A usage error from the value list `--help` shows, with clap's suggestion.
    assert!(ran.log().contains("a similar value exists: 'turn.completed'"), "{}", ran.log());
}

/// `--data` is merged over the event's example payload, as the test kit's
/// `events.<type>({ data })` is, and the result must fit the event's shape.
#[test]
fn data_is_merged_over_the_example_and_must_fit_the_event_s_shape() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--event", "action.tool_retry", "--data", r#"{"toolName":"search"}"#, "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let events = envelopes(&ran.stdout());
    assert_eq!(
        events[0]["data"],
        serde_json::json!({ "callId": "call_1", "toolName": "search", "attempt": 2, "reason": "http_503" })
    );
    let mut refused = Vec::new();
    for data in [r#"{"attempt":"2"}"#, r#"{"callId":null}"#, r#"["search"]"#] {
        let ran = run(dir.path(), &["--event", "action.tool_retry", "--data", data], &[]);
        assert_eq!(exit_code(&ran.output), 2, "{data}: {}", ran.log());
        assert!(ran.record.is_empty(), "nothing ran for {data}");
        refused.push((format!("--event action.tool_retry --data {data}"), ran));
    }
    let data = r#"{"status":"done"}"#;
    refused.push((
        format!("--event turn.failed --data {data}"),
        run(dir.path(), &["--event", "turn.failed", "--data", data], &[]),
    ));
    // Each says which field does not fit and why; the last names the event's data type.
    let refused: Vec<(&str, &Ran)> = refused.iter().map(|(args, ran)| (args.as_str(), ran)).collect();
    insta::assert_snapshot!(seen_each(dir.path(), &refused));
}

#[test]
fn replay_dispatches_a_recorded_stream() {
    let dir = copy_fixture("run", "order");
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    std::fs::write(dir.path().join("events.jsonl"), recorded.stdout()).unwrap();
    let replayed = run(dir.path(), &["--replay", "events.jsonl", "--json"], &[]);
    assert_eq!(exit_code(&replayed.output), 0, "{}", replayed.log());
    let before: Vec<_> =
        envelopes(&recorded.stdout()).into_iter().map(|e| (e["type"].clone(), e["data"].clone())).collect();
    let after: Vec<_> =
        envelopes(&replayed.stdout()).into_iter().map(|e| (e["type"].clone(), e["data"].clone())).collect();
    assert_eq!(before, after);
    assert_eq!(recorded.record, replayed.record, "the hooks saw the same stream");
}

/// The end of a run does not checkpoint the store's write-ahead log into the database
/// (closing the last connection would, and sync both to disk on the way out): the log is
/// left for the next connection, which reads every event from it.
#[test]
fn a_run_ends_without_checkpointing_and_the_next_reader_sees_every_event() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--event", "turn.completed", "--session", "ses_left_in_the_log"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let log = dir.path().join(".agent-sdk/state.db-wal");
    assert!(log.metadata().is_ok_and(|log| log.len() > 0), "the write-ahead log was checkpointed away");
    assert_eq!(recorded_events(dir.path(), "ses_left_in_the_log"), [(0, "turn.completed".to_owned())]);
}

/// Node writes `NODE_V8_COVERAGE`'s files as it tears down, after its last `exit` listener:
/// a runtime asked for them is waited for to its end, not let go at its last line.
#[test]
fn a_runtime_asked_for_coverage_is_waited_for_until_it_has_written_it() {
    let dir = copy_fixture("run", "order");
    let coverage = dir.path().join("coverage");
    let ran = run(dir.path(), &["--event", "turn.completed"], &[("NODE_V8_COVERAGE", coverage.to_str().unwrap())]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let written = std::fs::read_dir(&coverage).map_or(0, |files| files.count());
    assert!(written > 0, "no coverage was written into {}", coverage.display());
}

/// A handler that makes 20,000 calls before it awaits one: Node reads no reply until the
/// last call is out, and the replies are many times what a pipe holds. Each is answered,
/// and the run does not wait on Node reading them (which waits on the calls being read).
#[test]
fn calls_made_faster_than_their_replies_are_read_are_all_answered() {
    let dir = copy_fixture("run", "call-burst");
    let ran = run(dir.path(), &["--event", "turn.completed", "--hook-timeout", "20s"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(ran.record, ["answered 20000"]);
}

/// The runtime's channel (fds 3 to 8: events, messages, replies, the handler slot, module
/// requests and answers) is its own: a process a hook starts holds none of it, so it can
/// neither forge nor block it.
#[test]
fn a_process_a_hook_starts_holds_none_of_the_runtime_s_channel() {
    let dir = copy_fixture("run", "child-fds");
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(ran.record, ["child holds: []"], "{}", ran.log());
}

#[test]
fn too_old_a_node_is_an_environment_error() {
    let dir = copy_fixture("run", "order");
    let fake = dir.path().join("old-node");
    std::fs::write(&fake, "#!/bin/sh\necho v18.19.0\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let ran = run(dir.path(), &["--message", "hi"], &[("AGENT_SDK_NODE", fake.to_str().unwrap())]);
    assert_eq!(exit_code(&ran.output), 2);
    insta::assert_snapshot!(seen(dir.path(), &ran));
}

#[test]
fn a_node_that_cannot_start_is_reported_in_its_own_words() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi"], &[("NODE_OPTIONS", "--no-such-flag")]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    assert!(ran.log().contains("--no-such-flag is not allowed in NODE_OPTIONS"), "{}", ran.log());
    assert!(!ran.log().contains("too old"), "{}", ran.log());
}

#[test]
fn env_files_reach_the_hooks_the_shell_wins_and_values_are_never_logged() {
    let dir = copy_fixture("run", "env");
    std::fs::write(
        dir.path().join(".env"),
        "# the project's defaults\nACME_REGION=eu-west\nACME_TOKEN=from-dotenv\nACME_TIER=free\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("ci.env"), "export ACME_TIER=\"pro\"\n").unwrap();

    let ran = run(dir.path(), &["--event", "turn.completed", "--env-file", "ci.env"], &[("ACME_TOKEN", "from-shell")]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(ran.record, ["env region=eu-west token=from-shell tier=pro"]);
    // Which files were read and how many variables, never a value.
    insta::assert_snapshot!("env_files_loaded", seen(dir.path(), &ran));
    for secret in ["eu-west", "from-dotenv", "from-shell", "pro\""] {
        assert!(!ran.log().contains(secret), "a value reached the log: {}", ran.log());
    }

    let skipped = run(dir.path(), &["--event", "turn.completed", "--no-env-file"], &[]);
    assert_eq!(skipped.record, ["env region=unset token=unset tier=unset"]);
    assert!(!skipped.log().contains("variables from"), "{}", skipped.log());

    let missing = run(dir.path(), &["--event", "turn.completed", "--env-file", "nope.env"], &[]);
    assert_eq!(exit_code(&missing.output), 2, "{}", missing.log());
    insta::assert_snapshot!("env_file_missing", seen(dir.path(), &missing));
    assert!(missing.record.is_empty());

    std::fs::write(dir.path().join("broken.env"), "ACME_TIER=pro\nnot a line\n").unwrap();
    let broken = run(dir.path(), &["--event", "turn.completed", "--env-file", "broken.env"], &[]);
    assert_eq!(exit_code(&broken.output), 2, "{}", broken.log());
    insta::assert_snapshot!("env_file_broken", seen(dir.path(), &broken));
}

/// An env file holds secrets: a line that cannot be read is named by file, line and key,
/// and nothing of its value reaches the terminal (or a CI log).
#[test]
fn a_malformed_env_line_is_named_by_its_key_never_by_its_value() {
    let dir = copy_fixture("run", "env");
    let env = "ACME_REGION=eu-west\nDATABASE_URL: postgres://app:Sup3rS3cret@db.example.com/app?sslmode=require\n";
    std::fs::write(dir.path().join(".env"), env).unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    insta::assert_snapshot!("a_colon_for_an_equals_sign", seen(dir.path(), &ran));
    for secret in ["Sup3rS3cret", "postgres", "sslmode"] {
        assert!(!ran.log().contains(secret), "the value reached the terminal: {}", ran.log());
    }
    assert!(ran.record.is_empty());

    std::fs::write(dir.path().join(".env"), "ACME_REGION=eu-west\n\u{1b}]0;owned\u{7}ACME=1\n").unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    insta::assert_snapshot!("a_control_character", seen(dir.path(), &ran));
    assert!(!ran.log().contains(['\u{1b}', '\u{7}']), "{:?}", ran.log());
}

/// A value saved in another encoding (Latin-1 here) is named by its variable, never shown.
#[test]
fn an_env_value_that_is_not_utf8_is_named_by_its_variable() {
    let dir = copy_fixture("run", "env");
    std::fs::write(dir.path().join(".env"), b"ACME_REGION=eu-west\nACME_OWNER=Ren\xe9e\n").unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    insta::assert_snapshot!(seen(dir.path(), &ran));
    assert!(!ran.log().contains("Ren"), "{}", ran.log());
    assert!(ran.record.is_empty());
}

/// Linux starts no program with a variable over 128 KiB: the one that is is named, with the
/// limit, rather than Node failing with "Argument list too long".
#[test]
fn a_variable_over_128_kib_is_named_with_the_limit() {
    let dir = copy_fixture("run", "env");
    let token = "x".repeat(140_000);
    std::fs::write(dir.path().join(".env"), format!("ACME_REGION=eu-west\nACME_TOKEN={token}\n")).unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    insta::assert_snapshot!(seen(dir.path(), &ran));
    assert!(ran.record.is_empty());
}

#[test]
fn missing_node_is_an_environment_error() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi"], &[("AGENT_SDK_NODE", "/nonexistent/node")]);
    assert_eq!(exit_code(&ran.output), 2);
    insta::assert_snapshot!(seen(dir.path(), &ran));
}

#[test]
fn a_scripted_turn_pairs_tool_calls_and_retries() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "refunds?", "--script", "scripts/tools.json", "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let events = envelopes(&ran.stdout());
    let types: Vec<&str> = events.iter().map(|event| event["type"].as_str().unwrap()).collect();
    let requested = events.iter().find(|event| event["type"] == "actions.requested").unwrap();
    let calls = requested["data"]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    let results: Vec<&serde_json::Value> = events.iter().filter(|event| event["type"] == "action.result").collect();
    for (call, result) in calls.iter().zip(&results) {
        assert_eq!(call["callId"], result["data"]["callId"]);
        assert_eq!(result["data"]["stubbed"], true);
    }
    assert_eq!(results[1]["data"]["output"], "Refunds within 30 days.");
    let completed = events.iter().find(|event| event["type"] == "actions.completed").unwrap();
    assert_eq!(completed["data"]["results"].as_array().unwrap().len(), 2);
    let retries: Vec<_> = events.iter().filter(|event| event["type"] == "action.tool_retry").collect();
    assert_eq!(retries.len(), 2);
    assert_eq!(
        (retries[0]["data"]["attempt"].as_u64(), retries[1]["data"]["reason"].as_str()),
        (Some(2), Some("http_503"))
    );
    let first_result = types.iter().position(|t| *t == "action.result").unwrap();
    assert!(
        types.iter().rposition(|t| *t == "action.tool_retry").unwrap() < first_result,
        "retries come before the result"
    );
    assert!(types.contains(&"reasoning.appended"));
    let done = events.last().unwrap();
    assert_eq!(done["type"], "turn.completed");
    assert!(done["data"]["usage"]["reasoningTokens"].as_u64().unwrap() > 0);
}

#[test]
fn a_failed_turn_ends_with_turn_failed_and_exit_1() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi", "--script", "scripts/fail.json", "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 1, "{}", ran.log());
    let events = envelopes(&ran.stdout());
    let last = events.last().unwrap();
    assert_eq!(last["type"], "turn.failed");
    assert_eq!(last["data"]["status"], "error");
    assert_eq!(events.iter().filter(|e| e["type"].as_str().unwrap().starts_with("turn.")).count(), 1);
    assert_eq!(ran.record.last().unwrap(), &format!("a * {} turn.failed", last["index"]));
    // Why, on stderr, once, as an error naming the turn.
    let log = ran.log();
    let why: Vec<&str> = log.lines().filter(|line| line.contains("the model provider returned HTTP 500")).collect();
    assert_eq!(why.len(), 1, "{}", ran.log());
    assert!(why[0].ends_with(" ERROR turn failed: the model provider returned HTTP 500"), "{}", why[0]);
    let json = run(dir.path(), &["--message", "hi", "--script", "scripts/fail.json", "--log-format", "json"], &[]);
    let record: serde_json::Value = json.log().lines().rev().find_map(|line| serde_json::from_str(line).ok()).unwrap();
    assert_eq!(
        (record["level"].as_str(), record["message"].as_str(), record["event"].as_str()),
        (Some("error"), Some("turn failed: the model provider returned HTTP 500"), Some("turn.failed"))
    );
    assert!(record["turnId"].as_str().unwrap().starts_with("turn_"), "{record}");
    let clean = run(dir.path(), &["--message", "hi"], &[]);
    assert!(!clean.log().contains("turn failed"), "{}", clean.log());
}

#[test]
fn instructions_are_part_of_the_local_model_s_prompt() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi"], &[]);
    assert!(ran.stdout().contains("You are the order fixture's bot."), "{}", ran.stdout());
}

#[test]
fn ctrl_c_records_a_cancelled_turn_dispatches_it_and_exits_130() {
    let dir = copy_fixture("run", "order");
    let record = dir.path().join("record.txt");
    let child = spawn_run(dir.path(), &["--message", "hi", "--script", "scripts/slow.json", "--json"], Stdio::piped());
    // Wait until the hooks have seen the first piece of the reply: the turn is under way.
    let started = std::time::Instant::now();
    wait_until_recorded(&record, "message.appended");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    let events = envelopes(&String::from_utf8_lossy(&output.stdout));
    let last = events.last().unwrap();
    assert_eq!((last["type"].as_str(), last["data"]["status"].as_str()), (Some("turn.failed"), Some("cancelled")));
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "did not wait for the model's pause");
    let record = std::fs::read_to_string(&record).unwrap();
    assert!(record.lines().last().unwrap().ends_with("turn.failed"), "the hooks saw the cancellation: {record}");
}

/// The lines `child` writes to stderr, as they come (a thread reads them).
fn stderr_lines(child: &mut Child) -> std::sync::Arc<std::sync::Mutex<Vec<String>>> {
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let stderr = child.stderr.take().unwrap();
    let read = std::sync::Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            read.lock().unwrap().push(line.unwrap_or_default());
        }
    });
    lines
}

/// Every line of a child that has exited, once its reader met the end of stderr (it drops
/// its handle on `lines` then): cloning right after `wait()` could miss the last lines
/// while the reader thread lags. Waits at most 20 s.
fn all_lines(lines: &std::sync::Arc<std::sync::Mutex<Vec<String>>>) -> Vec<String> {
    let started = std::time::Instant::now();
    while std::sync::Arc::strong_count(lines) > 1 && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    lines.lock().unwrap().clone()
}

/// Waits (at most 20 s) until a line of `lines` contains `needle`.
fn wait_for_line(lines: &std::sync::Mutex<Vec<String>>, needle: &str) {
    let started = std::time::Instant::now();
    while !lines.lock().unwrap().iter().any(|line| line.contains(needle)) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no line `{needle}`: {:?}",
            lines.lock().unwrap()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Ctrl-C while the hooks load (a hook's import that spins for a minute) ends the run at
/// once, as a signal's default does, and its Node with it: the run handles the stopping
/// signals only once the hooks are loaded (their thread is started before, unarmed).
#[test]
fn ctrl_c_while_the_hooks_load_ends_the_run_and_its_node_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let dir = copy_fixture("run", "slow-import");
    let record = dir.path().join("record.txt");
    let mut child = spawn_run(dir.path(), &["--event", "turn.completed"], Stdio::null());
    wait_until_recorded(&record, "importing in ");
    let node = std::fs::read_to_string(&record).unwrap().trim().rsplit(' ').next().unwrap().to_owned();
    let signalled = std::time::Instant::now();
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(2), "ended by the Ctrl-C itself: {status:?}");
    assert!(signalled.elapsed() < std::time::Duration::from_secs(10), "it waited for the import");
    while common::still_runs(&node) {
        assert!(signalled.elapsed() < std::time::Duration::from_secs(10), "its Node {node} still runs");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Ctrl-C once the turn has ended, while a hook still runs: the run says what it waits for,
/// lets the handler finish, and exits 130.
#[test]
fn ctrl_c_after_the_turn_says_what_it_waits_for_and_exits_130_when_the_hooks_are_done() {
    let dir = copy_fixture("run", "slow-hook");
    let mut child = spawn_run(dir.path(), &["--message", "hi"], Stdio::null());
    let lines = stderr_lines(&mut child);
    wait_for_line(&lines, "hook \"boot\": boot started on #");
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    let lines = all_lines(&lines);
    assert_eq!(status.code(), Some(130), "{lines:#?}");
    assert!(
        lines.iter().any(|line| line
            .ends_with("WARN  waiting for hook \"boot\" (turn.completed) to finish; Ctrl-C again to stop now")),
        "{lines:#?}"
    );
    let record = std::fs::read_to_string(dir.path().join("record.txt")).unwrap();
    assert!(record.starts_with("boot done #"), "the handler was let finish: {record}");
    assert!(lines.iter().any(|line| line.contains("summary: ") && line.contains("0 timed out")), "{lines:#?}");
}

/// A second Ctrl-C stops at once and says what was not dispatched; `--redeliver` sends it.
#[test]
fn a_second_ctrl_c_stops_at_once_and_says_what_redeliver_will_send() {
    let dir = copy_fixture("run", "slow-hook");
    let mut child = spawn_run_with(dir.path(), &["--message", "hi"], &[("BOOT_MS", "60000")], Stdio::null());
    let lines = stderr_lines(&mut child);
    wait_for_line(&lines, "hook \"boot\": boot started on #");
    let started = std::time::Instant::now();
    for _ in 0..2 {
        assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
        wait_for_line(&lines, "Ctrl-C again to stop now");
    }
    let status = child.wait().unwrap();
    let lines = all_lines(&lines);
    assert_eq!(status.code(), Some(130), "{lines:#?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "it did not wait for the handler");
    let said = lines.iter().find(|line| line.contains("stopped at once: ")).expect("said what it left");
    let session = said.split("--session ").nth(1).unwrap().split(' ').next().unwrap().to_owned();
    assert!(
        said.ends_with(&format!(
            "WARN  stopped at once: 1 recorded event was not dispatched to every hook; `agent-sdk run --session {session} --redeliver` dispatches it"
        )),
        "{said}"
    );
    let again = run(dir.path(), &["--session", &session, "--redeliver"], &[("BOOT_MS", "10")]);
    assert_eq!(exit_code(&again.output), 0, "{}", again.log());
    assert!(again.log().contains("redelivering 1 recorded event its hooks never saw"), "{}", again.log());
    assert!(again.record.iter().any(|line| line.starts_with("boot done #")), "{:?}", again.record);
}

/// Errors nothing handled in a hook's code fail the run as a throw does (exit 3): a host
/// call's promise not awaited whose rejection nobody caught, a throw in a timer the handler
/// left running; each is said for its hook, with what fixes it, and counted in the summary.
/// And a call a hook left running as the run ends still lands (hosting, whose process
/// stays up, would take it).
#[test]
fn errors_nothing_handled_fail_the_run_and_a_call_left_running_still_lands() {
    let dir = copy_fixture("run", "async-errors");
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 3, "{}", ran.log());
    assert_eq!(ran.record, ["late write landed"]);
    // (Its promise resolved as it was sent: the write itself is in the store.)
    let landed: i64 =
        store::open(dir.path()).query_row("SELECT count(*) FROM kv WHERE key = 'late'", [], |row| row.get(0)).unwrap();
    assert_eq!(landed, 1);
    // (Node's own frames differ from one Node to the next.)
    let seen = Filters::new().pattern(r"(?m)^.*\|     at .*node:internal.*\n", "").apply(&seen(dir.path(), &ran));
    insta::assert_snapshot!(seen);
}

/// `kv.set` and `reminders.set` resolve as they are sent (no reply is awaited): a later
/// `kv.get` still reads the write, the writes land in the store, and a write the store then
/// refuses (here a trigger the test adds, as a full disk would) is said for its hook and
/// fails the run, rather than going unseen.
#[test]
fn writes_resolve_as_they_are_sent_and_one_the_store_refuses_fails_the_run_for_its_hook() {
    let dir = copy_fixture("run", "refused-write");
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(ran.record, ["set last-turn", "read last-turn true", "read turns 1"]);
    let kept: (String, i64) = store::open(dir.path())
        .query_row("SELECT (SELECT value FROM kv WHERE key = 'turns'), (SELECT count(*) FROM reminders)", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(kept, ("1".to_owned(), 1));

    store::open(dir.path())
        .execute_batch(
            "CREATE TRIGGER refuse_last_turn BEFORE INSERT ON kv WHEN NEW.key = 'last-turn' \
             BEGIN SELECT RAISE(ABORT, 'the disk is full (a trigger of the test)'); END;",
        )
        .unwrap();
    std::fs::remove_file(dir.path().join("record.txt")).unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 3, "{}", ran.log());
    // The handler went on past the write; the read then finds the first run's value.
    assert_eq!(ran.record, ["set last-turn", "read last-turn false", "read turns 1"]);
    insta::assert_snapshot!(seen(dir.path(), &ran));
}

/// A warning `run` logs before it runs is what `validate` says of it: where (line:col),
/// the code, and the help ("did you mean").
#[test]
fn warnings_at_run_time_say_where_and_what_to_do_as_validate_does() {
    let dir = copy_fixture("validate", "unknown-event");
    let ran = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    insta::assert_snapshot!(seen(dir.path(), &ran));
}

/// `NODE_OPTIONS=--inspect-brk`: the inspector's address is said at once, the run waits for
/// the debugger (no load deadline while one may hold the runtime), and goes on when it
/// says run.
#[test]
fn a_runtime_waiting_for_a_debugger_says_where_and_waits_for_it() {
    let dir = copy_fixture("run", "order");
    let args = ["--event", "turn.completed", "--hook-timeout", "1s"];
    let mut child = spawn_run_with(dir.path(), &args, &[("NODE_OPTIONS", "--inspect-brk=127.0.0.1:0")], Stdio::null());
    let lines = stderr_lines(&mut child);
    wait_for_line(&lines, "INFO  runtime: Debugger listening on ws://127.0.0.1:");
    let said = lines.lock().unwrap().iter().find(|line| line.contains("Debugger listening on ")).unwrap().clone();
    let url = said.split("Debugger listening on ").nth(1).unwrap().trim().to_owned();
    let mut attach = Command::new(common::node());
    if common::node_major() < 22 {
        attach.arg("--experimental-websocket");
    }
    // A person at the paused program for a moment, longer than the hook timeout.
    let attached = attach
        .arg(common::root().join("tests/inspect/attach.mjs"))
        .args([&url, "2500"])
        .env_remove("NODE_OPTIONS")
        .output()
        .unwrap();
    assert!(attached.status.success(), "{}", String::from_utf8_lossy(&attached.stderr));
    let status = child.wait().unwrap();
    let lines = all_lines(&lines);
    assert_eq!(status.code(), Some(0), "{lines:#?}");
    assert!(lines.iter().any(|line| line.contains("summary: 1 event dispatched")), "{lines:#?}");
}

#[test]
fn imports_resolve_as_node_would_from_the_project() {
    let dir = copy_fixture("run", "imports");
    let ran = run(dir.path(), &["--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert!(
        ran.record.contains(&"b.txt | commonjs package | esm package | 1 tokens | 2 tokens | index file".to_owned()),
        "{:?}\n{}",
        ran.record,
        ran.log()
    );
    assert!(ran.record.contains(&"typed 2 number".to_owned()), "{:?}", ran.record);
    assert!(ran.record.contains(&"legacy commonjs package".to_owned()), "a .cjs hook loads: {:?}", ran.record);
}

#[test]
fn every_event_is_recorded_before_a_hook_sees_it() {
    let dir = copy_fixture("run", "imports");
    let ran = run(dir.path(), &["--message", "hi", "--json"], &[]);
    let events = envelopes(&ran.stdout());
    let durable: Vec<&String> = ran.record.iter().filter(|line| line.starts_with("durable")).collect();
    assert_eq!(durable.len(), events.len());
    for (i, line) in durable.iter().enumerate() {
        assert_eq!(**line, format!("durable {i} 1"));
    }
}

#[test]
fn a_session_continues_where_it_left_off() {
    let dir = copy_fixture("run", "order");
    let first = envelopes(&run(dir.path(), &["--message", "one", "--json", "--session", "ses_test"], &[]).stdout());
    let second = envelopes(&run(dir.path(), &["--message", "two", "--json", "--session", "ses_test"], &[]).stdout());
    assert_eq!(second[0]["index"].as_u64().unwrap(), first.len() as u64);
    assert_eq!(second[0]["sessionId"], "ses_test");
    assert_ne!(first[0]["turnId"], second[0]["turnId"]);
}

#[test]
fn session_says_whether_it_starts_a_new_session_or_continues_one() {
    let dir = copy_fixture("run", "order");
    let new = run(dir.path(), &["--message", "one", "--session", "ses_named"], &[]);
    let recorded = recorded_events(dir.path(), "ses_named").len();
    let again = run(dir.path(), &["--message", "two", "--session", "ses_named"], &[]);
    assert!(again.log().contains(&format!(" continues: {recorded} events recorded\n")), "{}", again.log());
    assert!(!again.log().contains("is new"), "{}", again.log());
    // "is new: starting it", then "continues: <n> events recorded".
    insta::assert_snapshot!(seen_each(
        dir.path(),
        &[("--message one --session ses_named", &new), ("--message two --session ses_named", &again)]
    ));
    let unnamed = run(dir.path(), &["--message", "three"], &[]);
    assert!(!unnamed.log().contains(" is new") && !unnamed.log().contains("continues"), "{}", unnamed.log());
}

#[test]
fn the_state_root_ignores_itself_in_git_and_keeps_a_gitignore_of_the_user_s() {
    let dir = copy_fixture("run", "order");
    let ran = run(dir.path(), &["--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let ignore = std::fs::read_to_string(dir.path().join(".agent-sdk/.gitignore")).unwrap();
    assert_eq!(ignore.lines().filter(|line| !line.starts_with('#')).collect::<Vec<_>>(), ["*"]);
    // Git agrees: nothing under the state root would be committed (when git is installed).
    let git = |args: &[&str]| Command::new("git").args(args).current_dir(dir.path()).output();
    if git(&["init", "-q"]).is_ok_and(|output| output.status.success()) {
        let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
        let status = String::from_utf8_lossy(&status.stdout);
        assert!(!status.contains(".agent-sdk"), "{status}");
        assert!(status.contains("bot/"), "the project itself is seen: {status}");
    }
    let mine = copy_fixture("run", "order");
    std::fs::create_dir(mine.path().join(".agent-sdk")).unwrap();
    std::fs::write(mine.path().join(".agent-sdk/.gitignore"), "!keep-me\n").unwrap();
    run(mine.path(), &["--message", "hi"], &[]);
    assert_eq!(std::fs::read_to_string(mine.path().join(".agent-sdk/.gitignore")).unwrap(), "!keep-me\n");
}

#[test]
fn the_serve_log_can_be_json() {
    let dir = copy_fixture("run", "failures");
    let ran = run(dir.path(), &["--message", "hi", "--hook-timeout", "200ms", "--log-format", "json"], &[]);
    let records: Vec<serde_json::Value> = ran.log().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let threw =
        records.iter().find(|record| record["message"].as_str().unwrap().contains("threw: boom from a hook")).unwrap();
    assert_eq!(threw["level"], "error");
    assert_eq!(threw["hook"], "1-thrower");
    assert_eq!(threw["event"], "turn.completed");
    assert!(threw["turnId"].as_str().unwrap().starts_with("turn_"), "the record names the turn: {threw}");
    assert!(threw["sessionId"].as_str().unwrap().starts_with("ses_"));
    assert!(records.iter().all(|record| record["at"].as_str().unwrap().ends_with('Z')));
}

/// The file is checked whole while Node boots: a bad line stops the run before any hook is
/// imported (a hook's top-level code never runs) and before anything is recorded, and the
/// error is said alone.
#[test]
fn every_bad_line_of_a_replay_is_reported_before_any_hook_loads_and_nothing_is_recorded() {
    let dir = copy_fixture("run", "order");
    let imported = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { record } from \"../lib/record\";\n\
                    record(\"imported\");\nexport default defineHook({ events: { \"turn.failed\"() {} } });\n";
    std::fs::write(dir.path().join("bot/hooks/z-imported.ts"), imported).unwrap();
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    assert!(recorded.record.contains(&"imported".to_owned()), "{:?}", recorded.record);
    let mut lines: Vec<String> = recorded.stdout().lines().take(3).map(str::to_owned).collect();
    lines.push("{ this is not an envelope".to_owned());
    lines.push(r#"{"type":"turn.complete","data":{}}"#.to_owned());
    lines.push(String::new());
    lines.push(r#"{"type":"turn.completed"}"#.to_owned());
    lines.push(recorded.stdout().lines().last().unwrap().to_owned());
    std::fs::write(dir.path().join("broken.jsonl"), lines.join("\n")).unwrap();
    let ran = run(dir.path(), &["--replay", "broken.jsonl", "--session", "ses_replayed"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    assert_eq!(
        ran.log(),
        "error: --replay file `broken.jsonl` has 3 bad lines; nothing was recorded:\n  \
         broken.jsonl:4: not JSON (column 3: key must be a string at line 1 column 3)\n  \
         broken.jsonl:5: `turn.complete` is not an event type (did you mean `turn.completed`?)\n  \
         broken.jsonl:7: not an event (missing field `data` at line 1 column 25): each line needs at least `type` and `data`\n"
    );
    assert!(ran.record.is_empty(), "no hook ran: {:?}", ran.record);
    assert_eq!(recorded_events(dir.path(), "ses_replayed"), [], "nothing was recorded");
    let missing = run(dir.path(), &["--replay", "nope.jsonl"], &[]);
    assert_eq!(exit_code(&missing.output), 2);
    assert!(missing.log().contains("cannot read --replay file `nope.jsonl`"), "{}", missing.log());
}

/// A replayed line whose `data` does not fit its event's type is refused as `--data` would
/// be, named by its line, before anything runs: a misspelt status, a `usage` without its
/// cache fields. Lines `run --json` recorded fit.
#[test]
fn a_replayed_line_whose_data_does_not_fit_its_event_is_refused_by_its_line() {
    let dir = copy_fixture("run", "order");
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    let mut lines: Vec<String> = recorded.stdout().lines().map(str::to_owned).collect();
    std::fs::write(dir.path().join("recorded.jsonl"), lines.join("\n")).unwrap();
    let again = run(dir.path(), &["--replay", "recorded.jsonl"], &[]);
    assert_eq!(exit_code(&again.output), 0, "{}", again.log());
    lines.push(r#"{"type":"turn.failed","data":{"message":"stopped","status":"canceled"}}"#.to_owned());
    lines.push(r#"{"type":"turn.completed","data":{"usage":{"inputTokens":1200,"outputTokens":300}}}"#.to_owned());
    let count = lines.len();
    std::fs::write(dir.path().join("mistyped.jsonl"), lines.join("\n")).unwrap();
    let ran = run(dir.path(), &["--replay", "mistyped.jsonl", "--session", "ses_mistyped"], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    assert_eq!(
        ran.log(),
        format!(
            "error: --replay file `mistyped.jsonl` has 2 bad lines; nothing was recorded:\n  \
             mistyped.jsonl:{}: its data does not fit `turn.failed`: `data.status` must be one of \"error\", \"cancelled\", not the string \"canceled\"; its data is {{ message: string; status?: \"error\" | \"cancelled\" }}\n  \
             mistyped.jsonl:{count}: its data does not fit `turn.completed`: `data.usage.cacheReadTokens` is required (a number); its data is {{ result?: string; usage?: {{ inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; reasoningTokens?: number }}; cost?: {{ totalUsd: number; model: string }} }}\n",
            count - 1
        )
    );
    assert!(ran.record.is_empty(), "no hook ran: {:?}", ran.record);
    assert_eq!(recorded_events(dir.path(), "ses_mistyped"), [], "nothing was recorded");
}

/// `--data` is merged deeply: a `usage` given in part keeps the example's cache fields, and
/// each call of an array gets the example's first call's `callId`; only what is still wrong
/// is refused.
#[test]
fn data_is_merged_deeply_so_a_part_of_an_object_keeps_the_rest() {
    let dir = copy_fixture("run", "order");
    let usage = r#"{"usage":{"inputTokens":1200,"outputTokens":300}}"#;
    let ran = run(dir.path(), &["--event", "turn.completed", "--data", usage, "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(
        envelopes(&ran.stdout())[0]["data"]["usage"],
        serde_json::json!({ "inputTokens": 1200, "outputTokens": 300, "cacheReadTokens": 0, "cacheWriteTokens": 0 })
    );
    let calls = r#"{"calls":[{"toolName":"fetch_page"}]}"#;
    let ran = run(dir.path(), &["--event", "actions.requested", "--data", calls, "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(
        envelopes(&ran.stdout())[0]["data"]["calls"],
        serde_json::json!([{ "callId": "call_1", "toolName": "fetch_page", "args": { "query": "refund policy" } }])
    );
    let wrong = r#"{"usage":{"inputTokens":"1200"}}"#;
    let ran = run(dir.path(), &["--event", "turn.completed", "--data", wrong], &[]);
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    assert!(ran.log().contains("`data.usage.inputTokens` must be a number, not the string \"1200\""), "{}", ran.log());
}

/// What `dev` serves at `GET /v1/sessions/{id}/events` is a JSON array: `--replay` says how
/// to make it NDJSON, and records nothing. A replayed reply ends its line on stdout, as
/// `--message`'s does.
#[test]
fn a_replay_of_a_json_array_says_how_to_make_ndjson_and_a_replayed_reply_ends_its_line() {
    let dir = copy_fixture("run", "order");
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    let stdout = recorded.stdout();
    let events: Vec<&str> = stdout.lines().collect();
    std::fs::write(dir.path().join("events.json"), format!("[{}]", events.join(","))).unwrap();
    let array = run(dir.path(), &["--replay", "events.json", "--session", "ses_array"], &[]);
    assert_eq!(exit_code(&array.output), 2, "{}", array.log());
    assert_eq!(
        array.log(),
        "error: --replay file `events.json` is a JSON array; --replay takes NDJSON, one event a line (jq -c '.[]' events.json > events.jsonl)\n"
    );
    assert_eq!(recorded_events(dir.path(), "ses_array"), [], "nothing was recorded");
    std::fs::write(dir.path().join("events.jsonl"), recorded.stdout()).unwrap();
    let replayed = run(dir.path(), &["--replay", "events.jsonl"], &[]);
    assert_eq!(exit_code(&replayed.output), 0, "{}", replayed.log());
    let reply = replayed.stdout();
    assert!(reply.starts_with("You said: \"hi\"") && reply.ends_with(".\n"), "{reply:?}");
    assert_eq!(reply.matches('\n').count(), 1, "{reply:?}");
}

#[test]
fn a_hand_written_replay_needs_only_type_and_data() {
    let dir = copy_fixture("run", "order");
    let written = [
        r#"{"type":"message.received","data":{"text":"hi"}}"#,
        r#"{"type":"message.completed","data":{"text":"hello"}}"#,
        r#"{"type":"turn.completed","data":{"result":"hello"}}"#,
        r#"{"type":"message.received","data":{"text":"again"},"at":"2026-11-30T05:00:00.000Z"}"#,
        r#"{"type":"turn.failed","data":{"message":"gone","status":"error"},"turnId":"turn_mine"}"#,
    ];
    std::fs::write(dir.path().join("written.jsonl"), written.join("\n")).unwrap();
    let ran = run(dir.path(), &["--replay", "written.jsonl", "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 1, "the replay holds a failed turn: {}", ran.log());
    let events = envelopes(&ran.stdout());
    let indexes: Vec<u64> = events.iter().map(|event| event["index"].as_u64().unwrap()).collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
    assert!(events.iter().all(|event| event["sessionId"] == events[0]["sessionId"]));
    let turns: Vec<&str> = events.iter().map(|event| event["turnId"].as_str().unwrap()).collect();
    assert!(turns[0].starts_with("turn_") && turns[1] == turns[0] && turns[2] == turns[0], "{turns:?}");
    assert!(turns[3].starts_with("turn_") && turns[3] != turns[0], "a new turn after turn.completed: {turns:?}");
    assert_eq!(turns[4], "turn_mine");
    assert_eq!(events[3]["at"], "2026-11-30T05:00:00.000Z");
    assert!(events[0]["at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(events[1]["data"], serde_json::json!({ "text": "hello" }));
    let wildcard: Vec<&String> = ran.record.iter().filter(|line| line.starts_with("a * ")).collect();
    assert_eq!(
        wildcard,
        [
            "a * 0 message.received",
            "a * 1 message.completed",
            "a * 2 turn.completed",
            "a * 3 message.received",
            "a * 4 turn.failed"
        ],
        "the hooks saw every event"
    );
    assert!(ran.log().contains("ERROR turn failed: gone"), "{}", ran.log());
}

/// A hook for the replay tests: its `turn.completed` handler throws, so a replay that
/// reaches that event exits 3.
const THROWS_AT_THE_END: &str = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
    export default defineHook({ events: { \"turn.completed\"() { throw new Error(\"the end\"); } } });\n";

/// The `order` fixture, the events of one turn it recorded (`run --json`), and then a hook
/// `c/throws` that throws at `turn.completed`.
fn replay_project() -> (tempfile::TempDir, String) {
    let dir = copy_fixture("run", "order");
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    assert_eq!(exit_code(&recorded.output), 0, "{}", recorded.log());
    std::fs::create_dir_all(dir.path().join("bot/hooks/c")).unwrap();
    std::fs::write(dir.path().join("bot/hooks/c/throws.ts"), THROWS_AT_THE_END).unwrap();
    (dir, recorded.stdout())
}

/// What `run_fed` gives `run` on its standard input.
enum Stdin {
    Nothing,
    /// A pipe it writes this text into, then closes.
    Piped(String),
    /// This file, as the shell's `< file` gives it.
    File(PathBuf),
}

/// `agent-sdk run <args>` in `dir`, its stdin fed `stdin`, its hooks recording to
/// `<dir>/record.txt`; killed, failing the test, if it has not ended within a minute.
fn run_fed(dir: &Path, args: &[&str], stdin: Stdin) -> Ran {
    let record = dir.join("record.txt");
    let _ = std::fs::remove_file(&record);
    let mut child = common::agent_sdk()
        .arg("run")
        .args(args)
        .current_dir(dir)
        .env("AGENT_SDK_TEST_RECORD", &record)
        .env("NO_COLOR", "1")
        .stdin(match &stdin {
            Stdin::Nothing => Stdio::null(),
            Stdin::Piped(_) => Stdio::piped(),
            Stdin::File(path) => Stdio::from(std::fs::File::open(path).unwrap()),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let (Stdin::Piped(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || std::io::Write::write_all(&mut pipe, text.as_bytes()));
    }
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output().unwrap()));
    let output = receiver.recv_timeout(std::time::Duration::from_secs(60)).unwrap_or_else(|_| {
        let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        let output = receiver.recv().unwrap();
        panic!("run {args:?} did not end within a minute: {}", String::from_utf8_lossy(&output.stderr));
    });
    let record = std::fs::read_to_string(record).unwrap_or_default().lines().map(str::to_owned).collect();
    Ran { output, record }
}

/// A replay read from a pipe (`--replay -`, `--replay /dev/stdin`, `--replay <(jq …)`) or a
/// FIFO can be read only once: it is kept as it is checked, and every event it holds is
/// dispatched, as from a file: the hook that throws at the last one makes it exit 3.
/// `--replay -` of a file the shell gave as standard input is that file.
#[test]
fn a_replay_from_a_pipe_or_a_fifo_dispatches_every_event_as_a_file_does() {
    let (dir, events) = replay_project();
    let count = events.lines().count();
    let file = dir.path().join("events.jsonl");
    std::fs::write(&file, &events).unwrap();
    let from_file = run_fed(dir.path(), &["--replay", "events.jsonl"], Stdin::Nothing);
    let fifo = dir.path().join("events.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let written = events.clone();
    std::thread::spawn(move || std::fs::write(fifo, written));
    let from_fifo = run_fed(dir.path(), &["--replay", "events.fifo"], Stdin::Nothing);
    let from_dev_stdin = run_fed(dir.path(), &["--replay", "/dev/stdin"], Stdin::Piped(events.clone()));
    let from_dash = run_fed(dir.path(), &["--replay", "-"], Stdin::Piped(events));
    let from_redirect = run_fed(dir.path(), &["--replay", "-"], Stdin::File(file));
    let summary = format!("summary: {count} events dispatched to 3 hooks; 0 hooks failed to load, 1 handler threw");
    for (source, ran) in [
        ("a file", &from_file),
        ("a FIFO", &from_fifo),
        ("/dev/stdin, a pipe", &from_dev_stdin),
        ("-, a pipe", &from_dash),
        ("-, a file", &from_redirect),
    ] {
        assert_eq!(exit_code(&ran.output), 3, "{source}: {}", ran.log());
        assert!(ran.log().contains(&summary), "{source}: {}", ran.log());
        assert!(
            ran.log().contains("hook \"c/throws\" handler for turn.completed threw: the end"),
            "{source}: {}",
            ran.log()
        );
        assert_eq!(ran.record, from_file.record, "{source}: the hooks saw what they saw from a file");
    }
    assert_eq!(from_file.record.iter().filter(|line| line.starts_with("a * ")).count(), count);
}

/// What `--replay -` says of its bad lines names them `<stdin>:<line>`; a terminal, on
/// standard input or by name, is refused before anything runs (nobody types a recorded
/// stream, and reading one would wait for Ctrl-D), exit 2.
#[test]
fn a_replay_from_standard_input_names_it_and_a_terminal_there_is_refused() {
    let (dir, _) = replay_project();
    let bad = "{\"type\":\"turn.completed\"}\nnot json\n".to_owned();
    let ran = run_fed(dir.path(), &["--replay", "-"], Stdin::Piped(bad));
    assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
    assert_eq!(
        String::from_utf8_lossy(&ran.output.stderr),
        "error: --replay file `<stdin>` has 2 bad lines; nothing was recorded:\n  \
         <stdin>:1: not an event (missing field `data` at line 1 column 25): each line needs at least `type` and `data`\n  \
         <stdin>:2: not JSON (column 2: expected ident at line 1 column 2)\n"
    );
    assert!(ran.record.is_empty(), "{:?}", ran.record);

    // At a terminal (a pty made by script(1)), as `-` or by a name.
    for (given, what) in [
        ("-", "--replay - reads standard input, which is a terminal here"),
        ("/dev/stdin", "--replay file `/dev/stdin` is a terminal"),
    ] {
        let command = format!("'{}' run --replay {given}", env!("CARGO_BIN_EXE_agent-sdk"));
        let terminal = Command::new("script")
            .args(["-qefc", &command, "/dev/null"])
            .env("SHELL", "/bin/sh")
            .env("NO_COLOR", "1")
            .env("AGENT_SDK_TEST_RECORD", dir.path().join("record.txt"))
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("script(1), from util-linux, runs");
        assert_eq!(exit_code(&terminal), 2, "{given}: {}", String::from_utf8_lossy(&terminal.stdout));
        assert_eq!(
            String::from_utf8_lossy(&terminal.stdout).replace("\r\n", "\n"),
            format!(
                "error: {what}; pipe the events in (agent-sdk run --json --message \"…\" | agent-sdk run \
                 --replay -) or name a file\n"
            )
        );
        assert!(!dir.path().join("record.txt").exists(), "{given}: no hook ran");
    }
}

/// A replay that holds no events (an empty file, a pipe of blank lines: a recording that
/// failed upstream, a wrong path) is refused, exit 2, before any hook runs: it is no
/// replay that went well.
#[test]
fn a_replay_of_no_events_is_refused_before_any_hook_runs() {
    let (dir, _) = replay_project();
    std::fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    for (args, stdin, shown) in [
        (["--replay", "empty.jsonl"], Stdin::Nothing, "empty.jsonl"),
        (["--replay", "-"], Stdin::Piped("\n  \n".to_owned()), "<stdin>"),
    ] {
        let ran = run_fed(dir.path(), &args, stdin);
        assert_eq!(exit_code(&ran.output), 2, "{}", ran.log());
        assert_eq!(
            String::from_utf8_lossy(&ran.output.stderr),
            format!(
                "error: --replay file `{shown}` holds no events (it is empty, or only blank lines); nothing was \
                 recorded\n"
            )
        );
        assert!(ran.record.is_empty(), "{:?}", ran.record);
    }
}

/// A hook for the tests of a replay file changed during the replay: as it is imported
/// (after the file was checked, before anything is dispatched), it keeps only the first
/// two lines of `AGENT_SDK_TEST_SHORTEN`, or appends a copy of the file to
/// `AGENT_SDK_TEST_LENGTHEN`.
const CHANGES_THE_REPLAY: &str = "import { appendFileSync, readFileSync, writeFileSync } from \"node:fs\";\n\
    import { defineHook } from \"@cursor/bdk/hooks\";\n\
    const shorten = process.env.AGENT_SDK_TEST_SHORTEN;\n\
    if (shorten) writeFileSync(shorten, readFileSync(shorten, \"utf8\").split(\"\\n\").slice(0, 2).join(\"\\n\") + \"\\n\");\n\
    const lengthen = process.env.AGENT_SDK_TEST_LENGTHEN;\n\
    if (lengthen) appendFileSync(lengthen, readFileSync(lengthen, \"utf8\"));\n\
    export default defineHook({ events: { \"*\"() {} } });\n";

/// A replay dispatches exactly the events it checked: a file cut short during the replay
/// is an error that says how many of them were dispatched (exit 2), and lines added to it
/// are not dispatched.
#[test]
fn a_replay_dispatches_the_events_it_checked_and_a_file_cut_short_is_an_error() {
    let dir = copy_fixture("run", "order");
    let recorded = run(dir.path(), &["--message", "hi", "--json"], &[]);
    let count = recorded.stdout().lines().count();
    std::fs::write(dir.path().join("bot/hooks/changes.ts"), CHANGES_THE_REPLAY).unwrap();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, recorded.stdout()).unwrap();
    let shortened =
        run(dir.path(), &["--replay", "events.jsonl"], &[("AGENT_SDK_TEST_SHORTEN", events.to_str().unwrap())]);
    assert_eq!(exit_code(&shortened.output), 2, "{}", shortened.log());
    assert!(
        shortened.log().ends_with(&format!(
            "error: --replay file `events.jsonl` ended after 2 of the {count} events it held when it was checked \
             (it changed during the replay); those 2 were dispatched\n"
        )),
        "{}",
        shortened.log()
    );
    assert!(shortened.log().contains("summary: 2 events dispatched to 3 hooks"), "{}", shortened.log());
    assert_eq!(shortened.record, ["a * 0 message.received", "a * 1 message.appended"]);

    std::fs::write(&events, recorded.stdout()).unwrap();
    let lengthened =
        run(dir.path(), &["--replay", "events.jsonl"], &[("AGENT_SDK_TEST_LENGTHEN", events.to_str().unwrap())]);
    assert_eq!(exit_code(&lengthened.output), 0, "{}", lengthened.log());
    assert!(
        lengthened.log().contains(&format!("summary: {count} events dispatched to 3 hooks")),
        "{}",
        lengthened.log()
    );
    assert_eq!(lengthened.record.iter().filter(|line| line.starts_with("a * ")).count(), count);
}

#[test]
fn the_serve_log_is_recorded_with_cursors() {
    let dir = copy_fixture("run", "failures");
    let ran = run(dir.path(), &["--message", "hi", "--hook-timeout", "200ms"], &[]);
    assert_eq!(exit_code(&ran.output), 3, "{}", ran.log());
    let store = store::open(dir.path());
    let mut query =
        store.prepare("select cursor, level, message, session_id, hook, event from serve_log order by cursor").unwrap();
    let rows: Vec<serde_json::Value> = query
        .query_map([], |row| {
            let cursor: u64 = row.get(0)?;
            let texts: Vec<Option<String>> = (1..6).map(|column| row.get(column)).collect::<Result<_, _>>()?;
            Ok(serde_json::json!([cursor, texts[0], texts[1], texts[2], texts[3], texts[4]]))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), ran.log().lines().count(), "every line on stderr is recorded");
    let cursors: Vec<u64> = rows.iter().map(|row| row[0].as_u64().unwrap()).collect();
    assert!(cursors.windows(2).all(|pair| pair[0] < pair[1]), "cursors only grow: {cursors:?}");
    let session = rows[0][3].as_str().unwrap();
    assert!(rows.iter().all(|row| row[3] == session), "every record names the session");
    let threw = rows.iter().find(|row| row[2].as_str().unwrap().contains("threw: boom from a hook")).unwrap();
    assert_eq!(
        (threw[1].as_str(), threw[4].as_str(), threw[5].as_str()),
        (Some("error"), Some("1-thrower"), Some("turn.completed"))
    );
}

/// Every file under the compiled-module cache: name, size and modification time.
fn cache_files(dir: &Path) -> std::collections::BTreeMap<String, (u64, std::time::SystemTime)> {
    std::fs::read_dir(dir.join(".agent-sdk/cache"))
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let metadata = entry.metadata().unwrap();
            (entry.file_name().to_string_lossy().into_owned(), (metadata.len(), metadata.modified().unwrap()))
        })
        .collect()
}

#[test]
fn an_unchanged_project_compiles_nothing_again_and_an_edit_compiles_only_its_module() {
    let dir = copy_fixture("run", "imports");
    assert_eq!(exit_code(&run(dir.path(), &["--event", "turn.completed"], &[]).output), 0);
    let first = cache_files(dir.path());
    assert!(first.len() >= 10, "every module the hooks reach is compiled once: {first:?}");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&again.output), 0, "{}", again.log());
    assert_eq!(cache_files(dir.path()), first, "nothing was compiled or written again");

    let helper = dir.path().join("bot/lib/fmt.ts");
    let source = std::fs::read_to_string(&helper).unwrap();
    std::fs::write(&helper, format!("{source}\n// edited\n")).unwrap();
    let edited = run(dir.path(), &["--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&edited.output), 0, "{}", edited.log());
    let after = cache_files(dir.path());
    let added: Vec<&String> = after.keys().filter(|name| !first.contains_key(*name)).collect();
    assert_eq!(added.len(), 2, "one new entry (code and imports) for the edited module: {added:?}");
    assert!(first.iter().all(|(name, stamp)| after.get(name) == Some(stamp)), "the others were left alone");
}

#[test]
fn a_handler_that_never_yields_is_killed_even_with_far_more_queued_than_a_pipe_holds() {
    let dir = copy_fixture("run", "spin");
    // 2,000 events of ~300 bytes: several times what the pipe to Node holds while it spins.
    let text = "a long message that fills the pipe to the runtime ".repeat(6);
    let lines: Vec<String> = (0..2000)
        .map(|index| {
            serde_json::json!({ "type": "message.received", "index": index, "sessionId": "ses_spin",
                "turnId": "turn_spin", "at": "2026-11-30T00:00:00.000Z", "data": { "text": text } })
            .to_string()
        })
        .collect();
    std::fs::write(dir.path().join("events.jsonl"), lines.join("\n")).unwrap();
    let record = dir.path().join("record.txt");
    let mut child = spawn_run(dir.path(), &["--replay", "events.jsonl", "--hook-timeout", "300ms"], Stdio::null());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("run hung behind a handler that never yields");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut log = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut log).unwrap();
    assert_eq!(status.code(), Some(3), "{log}");
    assert!(log.contains("hook \"1-spinner\" handler for message.received timed out after 300ms"), "{log}");
    let recorded: Vec<String> = std::fs::read_to_string(record).unwrap().lines().map(str::to_owned).collect();
    let survivors = (0..2000).map(|index| format!("survivor {index}"));
    let expected: Vec<String> = std::iter::once("spinner spins".to_owned()).chain(survivors).collect();
    assert_eq!(recorded, expected, "every event reached the other hook, in order");
}

#[test]
fn concurrent_runs_on_a_cold_project_share_the_compiled_modules_safely() {
    let dir = copy_fixture("run", "imports");
    let runs: Vec<Child> =
        (0..6).map(|_| spawn_run(dir.path(), &["--event", "turn.completed"], Stdio::null())).collect();
    for run in runs {
        let output = run.wait_with_output().unwrap();
        let log = String::from_utf8_lossy(&output.stderr);
        assert_eq!(exit_code(&output), 0, "{log}");
        assert!(log.contains("summary: 1 event dispatched to 4 hooks; 0 hooks failed to load"), "{log}");
    }
}

#[test]
fn a_runtime_spinning_in_a_hook_dies_with_a_killed_agent_sdk() {
    let dir = copy_fixture("run", "spin");
    let record = dir.path().join("record.txt");
    let mut child = spawn_run(dir.path(), &["--event", "message.received", "--hook-timeout", "60s"], Stdio::null());
    wait_until_recorded(&record, "spinner spins");
    let runtime = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().unwrap();
    let runtime = String::from_utf8_lossy(&runtime.stdout).trim().to_owned();
    assert!(!runtime.is_empty(), "the runtime is a child of agent-sdk");
    child.kill().unwrap(); // SIGKILL: agent-sdk gets no chance to clean up
    child.wait().unwrap();
    let gone = std::time::Instant::now();
    while Path::new(&format!("/proc/{runtime}")).exists() {
        if gone.elapsed() > std::time::Duration::from_secs(10) {
            let _ = Command::new("kill").args(["-9", &runtime]).status();
            panic!("runtime {runtime} outlived agent-sdk, spinning");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(unix)]
#[test]
fn a_hook_reached_through_a_link_inside_the_project_loads_from_its_real_path() {
    let dir = copy_fixture("run", "env");
    let shared = dir.path().join("bot/shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::rename(dir.path().join("bot/hooks/env.ts"), shared.join("env-hook.ts")).unwrap();
    std::os::unix::fs::symlink("../shared/env-hook.ts", dir.path().join("bot/hooks/env.ts")).unwrap();
    let ran = run(dir.path(), &["--event", "turn.completed", "--no-env-file"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert!(ran.log().contains("loaded hook \"env\""), "{}", ran.log());
    assert_eq!(ran.record, ["env region=unset token=unset tier=unset"]);
}

/// The recorded events of `session` in the project at `dir`: `(index, type)`, in order.
fn recorded_events(dir: &Path, session: &str) -> Vec<(u64, String)> {
    store::events(dir, session)
}

/// Every recorded turn of `events` ends with exactly one terminal event, and the indexes
/// have no gap.
fn assert_whole_turns(events: &[(u64, String)]) {
    for (i, (index, _)) in events.iter().enumerate() {
        assert_eq!(*index, i as u64, "indexes are contiguous: {events:?}");
    }
    let starts = events.iter().filter(|(_, kind)| kind == "message.received").count();
    let ends = events.iter().filter(|(_, kind)| kind.starts_with("turn.")).count();
    assert_eq!(starts, ends, "every turn ended with one terminal event: {events:?}");
    assert!(events.last().is_some_and(|(_, kind)| kind.starts_with("turn.")), "{events:?}");
}

#[test]
fn a_session_in_use_is_refused_naming_its_holder_and_nothing_is_written() {
    let dir = copy_fixture("run", "order");
    let record = dir.path().join("record.txt");
    let holder = spawn_run(
        dir.path(),
        &["--message", "one", "--script", "scripts/held.json", "--session", "ses_busy"],
        Stdio::null(),
    );
    wait_until_recorded(&record, "message.appended");
    let before = recorded_events(dir.path(), "ses_busy");

    let refused = run_recorded(dir.path(), &["run", "--message", "two", "--session", "ses_busy"], &[]);
    assert_eq!(exit_code(&refused.output), 2, "{}", refused.both());
    // Whole, as docs/failures.md quotes it (tests/it/docs.rs checks the quote against this).
    let said = refused.log().replace(&format!("(pid {})", holder.id()), "(pid [PID])");
    assert!(said.contains("error: session ses_busy is in use by another agent-sdk (pid [PID])"), "{said}");
    assert_eq!(recorded_events(dir.path(), "ses_busy"), before, "the refused run wrote nothing");

    // The holder ends (Ctrl-C: its turn is recorded as cancelled); the session is free again.
    assert!(Command::new("kill").args(["-INT", &holder.id().to_string()]).status().unwrap().success());
    let output = holder.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    let third = run(dir.path(), &["--message", "three", "--session", "ses_busy"], &[]);
    assert_eq!(exit_code(&third.output), 0, "{}", third.log());
    assert_whole_turns(&recorded_events(dir.path(), "ses_busy"));
}

#[test]
fn a_session_held_by_a_killed_run_is_free_for_the_next() {
    let dir = copy_fixture("run", "order");
    let record = dir.path().join("record.txt");
    let mut holder = spawn_run(
        dir.path(),
        &["--message", "one", "--script", "scripts/held.json", "--session", "ses_killed"],
        Stdio::null(),
    );
    wait_until_recorded(&record, "message.appended");
    holder.kill().unwrap(); // SIGKILL: no chance to give the session back
    holder.wait().unwrap();
    let next = run(dir.path(), &["--message", "two", "--session", "ses_killed"], &[]);
    assert_eq!(exit_code(&next.output), 0, "{}", next.both());
    assert!(!next.log().contains("in use"), "{}", next.log());
    let events = recorded_events(dir.path(), "ses_killed");
    assert_eq!(events.last().map(|(_, kind)| kind.as_str()), Some("turn.completed"), "{events:?}");
}

#[test]
fn a_closed_stdout_still_records_and_dispatches_the_whole_turn() {
    for json in [false, true] {
        let dir = copy_fixture("run", "order");
        let record = dir.path().join("record.txt");
        let mut args = vec!["--message", "a question long enough for a reply of many pieces", "--session", "ses_head"];
        if json {
            args.push("--json");
        }
        let mut child = spawn_run(dir.path(), &args, Stdio::piped());
        drop(child.stdout.take()); // `| head -n 0`: the reader is gone before the first byte
        let output = child.wait_with_output().unwrap();
        let log = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "json: {json}\n{log}");
        assert!(log.contains("summary: "), "json: {json}\n{log}");
        let events = recorded_events(dir.path(), "ses_head");
        assert_whole_turns(&events);
        let (last, _) = events.last().unwrap();
        let seen = std::fs::read_to_string(&record).unwrap();
        assert!(seen.contains(&format!("a * {last} turn.completed\n")), "the hooks saw the end: {seen}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_stdout_still_records_and_dispatches_the_whole_turn_then_exits_2() {
    let dir = copy_fixture("run", "order");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let child = spawn_run(dir.path(), &["--message", "hi", "--session", "ses_full"], Stdio::from(full));
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{log}");
    assert!(log.contains("summary: "), "{log}");
    assert!(log.contains("error: could not write the output to stdout; the rest was discarded: "), "{log}");
    assert_whole_turns(&recorded_events(dir.path(), "ses_full"));
}

/// What a run that died before dispatching leaves behind: a whole turn of `session`
/// recorded in the store after the recorded ones, that no hook saw.
fn record_without_dispatching(dir: &Path, session: &str) -> Vec<u64> {
    let first = recorded_events(dir, session).len() as u64;
    let turn = [
        ("message.received", r#"{"text":"lost"}"#),
        ("message.appended", r#"{"delta":"never "}"#),
        ("message.appended", r#"{"delta":"seen"}"#),
        ("message.completed", r#"{"text":"never seen"}"#),
        (
            "turn.completed",
            r#"{"result":"never seen","usage":{"inputTokens":1,"outputTokens":2},"cost":{"totalUsd":0,"model":"local"}}"#,
        ),
    ];
    let rows: Vec<(u64, &str, &str)> =
        turn.iter().enumerate().map(|(i, (kind, data))| (first + i as u64, *kind, *data)).collect();
    store::insert_undispatched(dir, session, "turn_lost", &rows);
    (first..first + turn.len() as u64).collect()
}

#[test]
fn events_a_crash_left_undispatched_are_mentioned_until_redeliver_dispatches_exactly_them() {
    let dir = copy_fixture("run", "order");
    let session = ["--session", "ses_crash"];
    let first = run(dir.path(), &[&["--message", "one"][..], &session].concat(), &[]);
    assert_eq!(exit_code(&first.output), 0, "{}", first.log());
    let lost = record_without_dispatching(dir.path(), "ses_crash");
    let warning = "session ses_crash has 5 recorded events its hooks never saw (the process that recorded them \
                   ended before dispatching them); run --session ses_crash --redeliver to dispatch them";

    // At most once by default: said, not dispatched, and said again by the next run.
    for message in ["two", "three"] {
        let next = run(dir.path(), &[&["--message", message][..], &session].concat(), &[]);
        assert_eq!(exit_code(&next.output), 0, "{}", next.log());
        assert!(next.log().contains(warning), "{}", next.log());
        let seen: Vec<u64> = next.record.iter().filter_map(|line| line.split(' ').nth(2)?.parse().ok()).collect();
        assert!(!seen.is_empty() && seen.iter().all(|index| *index > lost[4]), "only the new turn: {:?}", next.record);
    }

    let redelivered = run(dir.path(), &[&["--redeliver"][..], &session].concat(), &[]);
    assert_eq!(exit_code(&redelivered.output), 0, "{}", redelivered.log());
    let expected: Vec<String> = [
        format!("a * {} message.received", lost[0]),
        format!("a * {} message.appended", lost[1]),
        format!("a * {} message.appended", lost[2]),
        format!("a message.completed {}", lost[3]),
        format!("a * {} message.completed", lost[3]),
        format!("a * {} turn.completed", lost[4]),
        format!("b/nested turn.completed {} live chat run-order null", lost[4]),
    ]
    .into();
    assert_eq!(redelivered.record, expected, "exactly the lost events, in order");
    assert!(redelivered.log().contains("redelivering 5 recorded events"), "{}", redelivered.log());
    assert!(redelivered.stdout().is_empty(), "{}", redelivered.stdout());

    let after = run(dir.path(), &[&["--message", "four"][..], &session].concat(), &[]);
    assert_eq!(exit_code(&after.output), 0, "{}", after.log());
    assert!(!after.log().contains("never saw"), "nothing left to mention: {}", after.log());
    let nothing = run(dir.path(), &[&["--redeliver"][..], &session].concat(), &[]);
    assert_eq!(exit_code(&nothing.output), 0, "{}", nothing.log());
    assert!(nothing.record.is_empty(), "{:?}", nothing.record);
    assert!(nothing.log().contains("nothing to redeliver"), "{}", nothing.log());
}

#[test]
fn redeliver_goes_before_the_new_turn_and_needs_a_session() {
    let dir = copy_fixture("run", "order");
    let first = run(dir.path(), &["--event", "turn.completed", "--session", "ses_both"], &[]);
    assert_eq!(exit_code(&first.output), 0, "{}", first.log());
    let lost = record_without_dispatching(dir.path(), "ses_both");
    let both = run(dir.path(), &["--message", "hi", "--redeliver", "--session", "ses_both", "--json"], &[]);
    assert_eq!(exit_code(&both.output), 0, "{}", both.log());
    let indexes: Vec<u64> = both
        .record
        .iter()
        .filter(|line| line.starts_with("a * "))
        .map(|line| line.split(' ').nth(2).unwrap().parse().unwrap())
        .collect();
    let last_lost = lost[4];
    assert_eq!(indexes[..5], lost[..], "the lost events first: {:?}", both.record);
    assert!(indexes[5..].iter().zip(last_lost + 1..).all(|(seen, expected)| *seen == expected), "{indexes:?}");
    let printed = envelopes(&both.stdout());
    assert_eq!(printed[0]["index"], last_lost + 1, "only the new turn is printed");

    let alone = run(dir.path(), &["--redeliver"], &[]);
    assert_eq!(exit_code(&alone.output), 2, "{}", alone.log());
    assert!(alone.log().contains("--session"), "{}", alone.log());
}

/// How far the store says the session's events reached the hooks (`None`: not at all).
fn dispatched_through(dir: &Path, session: &str) -> Option<u64> {
    store::dispatched_through(dir, session)
}

#[test]
fn a_long_run_remembers_how_far_its_hooks_got_so_a_kill_loses_track_of_little() {
    let dir = copy_fixture("run", "order");
    let record = dir.path().join("record.txt");
    let mut holder = spawn_run(
        dir.path(),
        &["--message", "one", "--script", "scripts/held.json", "--session", "ses_progress"],
        Stdio::null(),
    );
    wait_until_recorded(&record, "message.appended");
    // While the model pauses, the cursor catches up with what the hooks saw.
    let started = std::time::Instant::now();
    let caught_up = || {
        let recorded = recorded_events(dir.path(), "ses_progress").len() as u64;
        dispatched_through(dir.path(), "ses_progress") == recorded.checked_sub(1)
    };
    while !caught_up() {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the dispatched cursor was never saved");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
    let next = run(dir.path(), &["--message", "two", "--session", "ses_progress"], &[]);
    assert_eq!(exit_code(&next.output), 0, "{}", next.log());
    assert!(!next.log().contains("never saw"), "the hooks saw every recorded event: {}", next.log());
}

#[test]
fn a_run_killed_mid_dispatch_leaves_a_count_the_next_run_states_and_redeliver_hands_exactly_those() {
    let dir = copy_fixture("run", "slow");
    let lines: Vec<String> = (0..300)
        .map(|index| {
            serde_json::json!({ "type": "message.appended", "index": index, "sessionId": "ses_old",
                "turnId": "turn_old", "at": "2026-11-30T00:00:00.000Z", "data": { "delta": "x" } })
            .to_string()
        })
        .collect();
    std::fs::write(dir.path().join("events.jsonl"), lines.join("\n")).unwrap();
    let record = dir.path().join("record.txt");
    let mut child = spawn_run(dir.path(), &["--replay", "events.jsonl", "--session", "ses_kill"], Stdio::null());
    wait_until_recorded(&record, "slow 20\n");
    child.kill().unwrap();
    child.wait().unwrap();
    let recorded = recorded_events(dir.path(), "ses_kill").len() as u64;
    let from = dispatched_through(dir.path(), "ses_kill").map_or(0, |through| through + 1);
    assert!(from < recorded, "the run was killed before its hooks saw everything");
    let count = recorded - from;

    let next = run(dir.path(), &["--event", "turn.completed", "--session", "ses_kill"], &[]);
    assert_eq!(exit_code(&next.output), 0, "{}", next.log());
    assert!(
        next.log().contains(&format!("session ses_kill has {count} recorded events its hooks never saw")),
        "{}",
        next.log()
    );
    assert_eq!(next.record, [format!("slow {recorded}")], "only the new event was dispatched");

    let redelivered = run(dir.path(), &["--redeliver", "--session", "ses_kill"], &[]);
    assert_eq!(exit_code(&redelivered.output), 0, "{}", redelivered.log());
    let expected: Vec<String> = (from..recorded).map(|index| format!("slow {index}")).collect();
    assert_eq!(redelivered.record, expected);
    let after = run(dir.path(), &["--event", "turn.completed", "--session", "ses_kill"], &[]);
    assert!(!after.log().contains("never saw"), "{}", after.log());
}

/// Why a `fetch` failed is in the error's `cause` (Node's fetch says only `fetch failed`):
/// the log line carries the cause chain, in text and in `--log-format json`.
#[test]
fn a_thrown_error_s_cause_chain_is_in_the_log_line() {
    let project = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    std::fs::create_dir_all(project.path().join("bot/hooks")).unwrap();
    std::fs::write(project.path().join("package.json"), "{ \"name\": \"pager-bot\", \"type\": \"module\" }\n").unwrap();
    let hook = format!(
        "import {{ defineHook }} from \"@cursor/bdk/hooks\";\n\nexport default defineHook({{\n  events: {{\n    async \"turn.failed\"() {{\n      await fetch(\"http://127.0.0.1:{port}/page\");\n    }},\n  }},\n}});\n"
    );
    std::fs::write(project.path().join("bot/hooks/pager.ts"), hook).unwrap();
    let output = common::run_in(project.path(), &["run", "--event", "turn.failed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    // (Where it was thrown follows when the stack enters the hook: Node 20 and 22 say
    // `(at bot/hooks/pager.ts:6:7)`, Node 24's fetch error has no frame of the hook's.)
    let expected = format!(
        "ERROR hook \"pager\" handler for turn.failed threw: fetch failed (cause: connect ECONNREFUSED 127.0.0.1:{port})"
    );
    assert!(log.contains(&expected), "{log}");
    let output = common::run_in(project.path(), &["run", "--event", "turn.failed", "--log-format", "json"]);
    let line = String::from_utf8_lossy(&output.stderr).lines().find(|line| line.contains("threw")).unwrap().to_owned();
    let record: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert!(
        record["message"].as_str().unwrap().contains(&format!("(cause: connect ECONNREFUSED 127.0.0.1:{port})")),
        "{line}"
    );
}

/// The pid of the process the `child-process` fixture's hook started.
fn hook_child(dir: &Path) -> String {
    let record = std::fs::read_to_string(dir.join("record.txt")).unwrap();
    record.lines().find_map(|line| line.strip_prefix("child ")).expect("the hook started its child").to_owned()
}

/// SIGTERM and SIGHUP stop `run` as Ctrl-C does — the first lets the running handler
/// finish, a second stops at once — and exit 128 + the signal; nothing a hook started is
/// left running either way.
#[test]
fn sigterm_and_sighup_stop_run_as_ctrl_c_does_and_leave_nothing_running() {
    for (signal, times, code, boot_ms) in [("-TERM", 1, 143, "1500"), ("-HUP", 2, 129, "60000")] {
        let dir = copy_fixture("run", "child-process");
        let mut child = spawn_run_with(dir.path(), &["--message", "hi"], &[("BOOT_MS", boot_ms)], Stdio::null());
        let lines = stderr_lines(&mut child);
        wait_for_line(&lines, "started a child");
        let started = std::time::Instant::now();
        let again = format!("{} again to stop now", if signal == "-TERM" { "SIGTERM" } else { "SIGHUP" });
        for _ in 0..times {
            assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
            wait_for_line(&lines, &again);
        }
        let status = child.wait().unwrap();
        let lines = all_lines(&lines);
        assert_eq!(status.code(), Some(code), "{signal}: {lines:#?}");
        if times == 2 {
            assert!(started.elapsed() < std::time::Duration::from_secs(30), "{signal}: it waited for the handler");
            assert!(lines.iter().any(|line| line.contains("stopped at once: ")), "{lines:#?}");
        } else {
            assert!(lines.iter().any(|line| line.contains("summary: ")), "{signal}: the hooks finished: {lines:#?}");
        }
        let pid = hook_child(dir.path());
        let ended = std::time::Instant::now();
        while common::still_runs(&pid) {
            assert!(ended.elapsed() < std::time::Duration::from_secs(5), "{signal}: the hook's child {pid} still runs");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
