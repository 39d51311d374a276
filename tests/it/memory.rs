//! `memoryHook()` through the real binary: one journal line per turn in
//! `memory/journal.jsonl` of the deployment files, with the turn's fields; whole lines from
//! processes sharing a state root; appends that never read the journal; the `## Memory`
//! section `init` writes; and the test kit's `files.append` (`fixtures/memory/journal/`).

use crate::common;

use std::path::Path;
use std::process::Stdio;

use crate::common::{copy_fixture, exit_code, run_in, run_recorded};
use serde_json::Value;

/// Where the journal of the project at `dir` is, locally.
fn journal_path(dir: &Path) -> std::path::PathBuf {
    dir.join(".agent-sdk/files/deployment/memory/journal.jsonl")
}

/// The journal's lines, each parsed (a line that is not JSON fails the test).
fn journal(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(journal_path(dir)).unwrap();
    assert!(text.ends_with('\n'), "every record is a whole line: {text:?}");
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))).collect()
}

/// The envelopes `run --json` printed.
fn envelopes(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn last_of<'a>(events: &'a [Value], event_type: &str) -> &'a Value {
    events.iter().rev().find(|event| event["type"] == event_type).unwrap()
}

#[test]
fn each_run_appends_one_record_holding_the_turn() {
    let dir = copy_fixture("memory", "journal");
    let mut turns = Vec::new();
    for message in ["What is the refund policy?", "And for gift cards?"] {
        let ran = run_recorded(dir.path(), &["run", "--message", message, "--json"], &[]);
        assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
        turns.push(envelopes(&ran.stdout()));
    }
    let records = journal(dir.path());
    assert_eq!(records.len(), 2, "one line per turn: {records:?}");
    for ((record, events), message) in
        records.iter().zip(&turns).zip(["What is the refund policy?", "And for gift cards?"])
    {
        let completed = last_of(events, "turn.completed");
        let keys: Vec<&str> = record.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["at", "sessionId", "channelId", "status", "title", "userMessage", "result", "usage"]);
        assert_eq!(record["at"], completed["at"], "the time of the turn's end");
        assert_eq!(record["sessionId"], completed["sessionId"]);
        assert_eq!(record["channelId"], "local");
        assert_eq!(record["status"], "completed");
        assert_eq!(record["title"], Value::Null, "a local session has no title");
        assert_eq!(record["userMessage"], message);
        assert_eq!(record["result"], last_of(events, "message.completed")["data"]["text"]);
        assert_eq!(record["usage"], completed["data"]["usage"]);
        assert!(record["usage"]["outputTokens"].as_u64().unwrap() > 0, "{record}");
    }
    assert_ne!(records[0]["sessionId"], records[1]["sessionId"], "two runs, two sessions, one journal");
}

#[test]
fn a_failed_turn_is_a_failed_record_with_its_message() {
    let dir = copy_fixture("memory", "journal");
    let ran = run_recorded(dir.path(), &["run", "--message", "hi", "--script", "scripts/fail.json", "--json"], &[]);
    assert_eq!(exit_code(&ran.output), 1, "the turn failed: {}", ran.log());
    let failed = last_of(&envelopes(&ran.stdout()), "turn.failed").clone();
    let records = journal(dir.path());
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["status"], "failed");
    assert_eq!(records[0]["at"], failed["at"]);
    assert_eq!(records[0]["userMessage"], "hi");
    assert_eq!(records[0]["result"], "the model is unavailable");
    assert_eq!(records[0]["usage"], Value::Null);
}

/// Writes a `--replay` file of `turns` whole turns (message.received, message.completed,
/// turn.completed), each asking `<label> <n>`.
fn replay_file(path: &Path, label: &str, turns: usize) {
    let mut text = String::new();
    for turn in 0..turns {
        let turn_id = format!("turn_{label}{turn}");
        let at = |event: usize| format!("2026-01-01T00:{:02}:{:02}.{:03}Z", turn / 600 % 60, turn / 10 % 60, event);
        let events = [
            ("message.received", serde_json::json!({ "text": format!("{label} {turn}") })),
            ("message.completed", serde_json::json!({ "text": format!("answer {turn}") })),
            ("turn.completed", serde_json::json!({ "result": format!("answer {turn}") })),
        ];
        for (event, (event_type, data)) in events.into_iter().enumerate() {
            let envelope = serde_json::json!({ "type": event_type, "turnId": turn_id, "at": at(event), "data": data });
            text.push_str(&format!("{envelope}\n"));
        }
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn processes_sharing_a_state_root_never_split_or_lose_a_record() {
    let dir = copy_fixture("memory", "journal");
    const PROCESSES: usize = 4;
    const TURNS: usize = 400;
    let labels: Vec<String> = (0..PROCESSES).map(|process| format!("p{process}")).collect();
    for label in &labels {
        replay_file(&dir.path().join(format!("{label}.jsonl")), label, TURNS);
    }
    let children: Vec<_> = labels
        .iter()
        .map(|label| {
            common::agent_sdk()
                .args(["run", "--replay", &format!("{label}.jsonl")])
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    }
    let records = journal(dir.path());
    assert_eq!(records.len(), PROCESSES * TURNS, "every record, none twice");
    for label in &labels {
        let asked: Vec<&str> = records
            .iter()
            .filter_map(|record| record["userMessage"].as_str())
            .filter(|message| message.split(' ').next() == Some(label.as_str()))
            .collect();
        let expected: Vec<String> = (0..TURNS).map(|turn| format!("{label} {turn}")).collect();
        assert_eq!(asked, expected, "{label}: each turn once, in its order");
    }
}

#[test]
fn a_long_replay_appends_to_the_journal_without_reading_it() {
    let dir = copy_fixture("memory", "journal");
    // A journal the hook could not read back (bytes that are not UTF-8 make `files.read`
    // fail): each record must cost an append, never a read or a rewrite of what is there.
    let before = b"\xff\xfe written by another tool\n".to_vec();
    std::fs::create_dir_all(journal_path(dir.path()).parent().unwrap()).unwrap();
    std::fs::write(journal_path(dir.path()), &before).unwrap();
    const TURNS: usize = 3_000;
    replay_file(&dir.path().join("long.jsonl"), "q", TURNS);
    let ran = run_recorded(dir.path(), &["run", "--replay", "long.jsonl"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let text = std::fs::read(journal_path(dir.path())).unwrap();
    assert_eq!(&text[..before.len()], &before[..], "what was there is untouched");
    let lines: Vec<Value> = String::from_utf8(text[before.len()..].to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), TURNS);
    for (turn, record) in lines.iter().enumerate() {
        assert_eq!(record["userMessage"], format!("q {turn}"));
        assert_eq!(record["result"], format!("answer {turn}"));
    }
}

#[test]
fn init_s_instructions_point_the_model_to_the_journal_its_first_turn_writes() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&run_in(dir.path(), &["init", "demo"])), 0);
    let demo = dir.path().join("demo");
    let instructions = std::fs::read_to_string(demo.join("bot/instructions.md")).unwrap();
    let section = instructions.split("\n## Memory\n").nth(1).expect("a `## Memory` section");
    assert!(section.contains("`memory/journal.jsonl`"), "{section}");
    assert!(section.contains("`.agent-sdk/files/deployment/memory/journal.jsonl`"), "{section}");
    for field in ["at", "sessionId", "channelId", "status", "title", "userMessage", "result", "usage"] {
        assert!(section.contains(&format!("`{field}`")), "{field}: {section}");
    }
    let ran = run_in(&demo, &["run", "--message", "hi"]);
    assert_eq!(exit_code(&ran), 0, "{}", String::from_utf8_lossy(&ran.stderr));
    assert_eq!(journal(&demo).len(), 1, "the file the section names");
}

#[test]
fn the_test_kit_answers_files_append_so_a_memory_hook_can_be_tested() {
    let dir = copy_fixture("memory", "journal");
    let output = run_in(dir.path(), &["test"]);
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(exit_code(&output), 0, "{text}");
    assert!(text.contains("ℹ pass 3") && text.contains("ℹ fail 0"), "{text}");
}
