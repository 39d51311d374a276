//! The rules docs/ARCHITECTURE.md says the code keeps ("Invariants"), checked on the
//! sources, with each exception the document names named here too.

use crate::common::sources::{code, named_paths, src_files};

/// Every line of `src/` (comments left out) that matches `pattern`, as `path:line: text`,
/// outside the files `allowed` names (paths under `src/`).
fn lines_matching(pattern: &str, allowed: &[&str]) -> Vec<String> {
    let pattern = regex::Regex::new(pattern).unwrap();
    let mut found = Vec::new();
    for (relative, text) in src_files() {
        if allowed.contains(&relative.as_str()) {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            if !line.trim_start().starts_with("//") && pattern.is_match(line) {
                found.push(format!("src/{relative}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    found
}

/// A print macro, or a handle on stdout or stderr that is written to (asking whether one is
/// a terminal is no output).
const WRITES: &str = r"\b(e?println!|e?print!|dbg!)|io::(stdout|stderr)\(\)(\.lock\(\))?(\.write|;|,)";

/// "Output reaches the terminal through `printer` only", but for the exceptions the
/// document lists: the serve log, the language server's channel, `bdk`'s own error, and
/// the big-module compiler's answer to its parent.
#[test]
fn output_reaches_the_terminal_through_printer_only() {
    let writes = WRITES;
    let found = lines_matching(
        writes,
        &["printer.rs", "state/serve_log.rs", "lsp/transport.rs", "bin/bdk.rs", "loader/big_modules.rs"],
    );
    assert!(
        found.is_empty(),
        "terminal output outside printer (or a new exception for ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

/// The pattern finds what it is meant to find: a write to stderr, a print macro.
#[test]
fn the_output_rule_sees_a_write() {
    let writes = regex::Regex::new(WRITES).unwrap();
    assert!(writes.is_match("    eprintln!(\"x\");"));
    assert!(writes.is_match("let _ = std::io::stderr().lock().write_all(line);"));
    assert!(writes.is_match("let _ = writeln!(std::io::stderr(), \"{line}\");"));
    assert!(writes.is_match("let stdout = std::io::stdout();"));
    assert!(!writes.is_match("let tty = std::io::stderr().is_terminal();"));
}

/// "The exit status of every command in `exit_status`": a process exit code is made from an
/// `ExitStatus` there only, but for the two exceptions the document names: `bdk` passes on
/// the code of the `agent-sdk` it started, and a second signal left unanswered for 3 s ends
/// the process from the signal's thread with that signal's status (`signals`).
#[test]
fn exit_codes_are_made_in_exit_status_only() {
    let found = lines_matching(
        r"ExitCode::(from|SUCCESS|FAILURE)|process::exit\(",
        &["exit_status.rs", "bin/bdk.rs", "signals.rs"],
    );
    assert!(found.is_empty(), "an exit code made outside exit_status:\n{}", found.join("\n"));
}

/// "The session owns the turn": the commands and the server take turns through
/// `session::Session` (and a `dev` session's hooks through `session::LaneHooks`), never
/// through the dispatcher, the feed or redelivery themselves; named by a path or in a
/// `use crate::engine::{…}` group alike.
#[test]
fn commands_and_the_server_take_turns_through_the_session() {
    let mut found = Vec::new();
    for (relative, text) in src_files() {
        if !(relative.starts_with("commands/") || relative.starts_with("server/")) {
            continue;
        }
        let past = named_paths(&code(&text)).into_iter().filter_map(|(root, path)| {
            let [engine, part, ..] = path.as_slice() else { return None };
            (root == "crate" && engine == "engine" && ["dispatcher", "feed", "undelivered"].contains(&part.as_str()))
                .then(|| format!("src/{relative}: crate::{}", path.join("::")))
        });
        found.extend(past);
    }
    assert!(found.is_empty(), "reaching past the session into the engine:\n{}", found.join("\n"));
}

/// The rule reads a group as it reads a path.
#[test]
fn the_engine_rule_sees_a_group() {
    let paths = named_paths("use crate::engine::{feed::Feed, turn::TurnEvent};");
    assert!(paths.contains(&("crate", vec!["engine".to_owned(), "feed".to_owned(), "Feed".to_owned()])), "{paths:?}");
}
