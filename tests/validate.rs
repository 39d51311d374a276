//! `validate` and `info --json` on every fixture under `fixtures/validate/`: one case per
//! diagnostic code and one for every accepted hook form, in pretty, json and github output.

mod common;

use common::{fixture, transcripts};

/// The four views of one fixture project a user or a CI job would look at.
fn check(case: &str) -> String {
    let dir = fixture("validate", case);
    transcripts(
        &dir,
        &[&["validate"], &["validate", "--format", "json"], &["validate", "--format", "github"], &["info", "--json"]],
    )
}

macro_rules! cases {
    ($($name:ident => $case:literal,)*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), check($case));
        }
    )*};
}

cases! {
    accepted_forms => "accepted-forms",
    no_agent_source => "no-agent-source",
    ambiguous_layout => "ambiguous-layout",
    invalid_package_json => "invalid-package-json",
    unreadable => "unreadable",
    parse_error => "parse-error",
    no_default_export => "no-default-export",
    not_define_hook => "not-define-hook",
    unknown_sdk_module => "unknown-sdk-module",
    reserved_name => "reserved-name",
    duplicate_name => "duplicate-name",
    events_missing => "events-missing",
    handler_not_function => "handler-not-function",
    empty_events => "empty-events",
    unknown_event => "unknown-event",
    duplicate_event => "duplicate-event",
    dynamic_events => "dynamic-events",
}

/// Every code in the registry has a fixture here or a test in `bad_input.rs`.
#[test]
fn every_code_is_exercised() {
    let fixtures: Vec<String> = std::fs::read_dir(common::root().join("fixtures/validate"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let bad_input = std::fs::read_to_string(common::root().join("tests/bad_input.rs")).unwrap();
    for code in agent_sdk::diagnostics::Code::ALL {
        let name = code.as_str().split_once("::").unwrap().1;
        assert!(
            fixtures.iter().any(|fixture| fixture == name) || bad_input.contains(code.as_str()),
            "no fixture or bad-input test for {}",
            code.as_str()
        );
    }
}
