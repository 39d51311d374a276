//! Exit codes and the command line itself: usage errors, `--deny-warnings`, `bdk`.

mod common;

use common::{exit_code, fixture, root, run_in, transcript};

#[test]
fn a_clean_project_exits_0() {
    assert_eq!(exit_code(&run_in(&fixture("validate", "accepted-forms"), &["validate"])), 0);
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    let dir = fixture("validate", "unknown-event");
    assert_eq!(exit_code(&run_in(&dir, &["validate"])), 0);
    assert_eq!(exit_code(&run_in(&dir, &["validate", "--deny-warnings"])), 1);
}

#[test]
fn advice_never_fails() {
    let dir = fixture("validate", "dynamic-events");
    assert_eq!(exit_code(&run_in(&dir, &["validate", "--deny-warnings"])), 0);
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    insta::assert_snapshot!(transcript(&root(), &["validate", "--format", "xml"]));
}

#[test]
fn help_exits_0() {
    let output = run_in(&root(), &["validate", "--help"]);
    assert_eq!(exit_code(&output), 0);
    assert!(String::from_utf8_lossy(&output.stdout).contains("--deny-warnings"));
}

#[test]
fn info_prints_a_tree_and_says_when_hooks_have_errors() {
    insta::assert_snapshot!(transcript(&fixture("validate", "parse-error"), &["info"]));
}

#[test]
fn info_tree_of_every_accepted_form() {
    insta::assert_snapshot!(transcript(&fixture("validate", "accepted-forms"), &["info"]));
}

#[test]
fn sarif_is_a_sarif_2_1_0_log() {
    let output = run_in(&fixture("validate", "unknown-event"), &["validate", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    insta::assert_json_snapshot!(log, { ".runs[0].tool.driver.version" => "[version]" });
}

#[test]
fn bdk_is_the_same_program() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bdk"))
        .args(["validate", "--format", "json"])
        .current_dir(fixture("validate", "accepted-forms"))
        .output()
        .unwrap();
    let expected = run_in(&fixture("validate", "accepted-forms"), &["validate", "--format", "json"]);
    assert_eq!(output.stdout, expected.stdout);
    assert_eq!(exit_code(&output), 0);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let dir = fixture("validate", "unknown-event");
    let plain = run_in(&dir, &["validate"]);
    assert!(!plain.stdout.contains(&0x1b), "no escape codes in a pipe");
    let forced = run_in(&dir, &["validate", "--color", "always"]);
    assert!(forced.stdout.contains(&0x1b), "--color always colours even in a pipe");
}

#[test]
fn the_example_project_is_clean() {
    let dir = root().join("examples/acme-bot");
    insta::assert_snapshot!(common::transcripts(&dir, &[&["validate"], &["info"]]));
}

#[test]
fn the_project_is_found_from_a_folder_inside_it() {
    let nested = fixture("validate", "unknown-event").join("bot/hooks");
    let info = run_in(&nested, &["info", "--json"]);
    assert_eq!(exit_code(&info), 0, "{}", String::from_utf8_lossy(&info.stderr));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["dir"], "../..", "the root, spelt from where the user is");
    let validate = run_in(&nested, &["validate", "--deny-warnings"]);
    assert_eq!(exit_code(&validate), 1, "the project's warnings were found");
    assert!(String::from_utf8_lossy(&validate.stdout).contains("typos.ts"));
}

#[test]
fn with_no_project_above_the_folder_says_there_is_no_agent_source() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("some/folder");
    std::fs::create_dir_all(&nested).unwrap();
    let above = |folder: &std::path::Path| folder.join("bot").is_dir() || folder.join("agent").is_dir();
    assert!(!nested.ancestors().any(above), "a folder above the temporary one holds a project");
    let output = run_in(&nested, &["validate"]);
    assert_eq!(exit_code(&output), 1);
    assert!(String::from_utf8_lossy(&output.stdout).contains("no agent source folder"));
}

#[test]
fn the_project_can_be_given_as_a_path() {
    let positional = run_in(&root(), &["validate", "examples/acme-bot", "--format", "json"]);
    let flag = run_in(&root(), &["validate", "--dir", "examples/acme-bot", "--format", "json"]);
    assert_eq!(exit_code(&positional), 0, "{}", String::from_utf8_lossy(&positional.stderr));
    assert_eq!(positional.stdout, flag.stdout);
    let info = run_in(&root(), &["info", "examples/acme-bot", "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["dir"], "examples/acme-bot");
    assert_eq!(info["agents"][0]["name"], "acme-bot");
}

#[test]
fn a_path_and_dir_together_are_a_usage_error() {
    insta::assert_snapshot!(transcript(&root(), &["info", "examples/acme-bot", "--dir", "examples/acme-bot"]));
}
