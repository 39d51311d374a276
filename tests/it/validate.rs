//! `validate` and `info --json` on every fixture under `fixtures/validate/`: one case per
//! diagnostic code and one for every accepted hook form, in pretty, json and github output.

use crate::common;

use crate::common::snapshot::Filters;
use crate::common::{fixture, transcripts};

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
    agent_below => "agent-below",
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
    unresolved_import => "unresolved-import",
    missing_export => "missing-export",
    misspelt_package => "misspelt-package",
    unsupported_syntax => "unsupported-syntax",
    not_a_hook_module => "not-a-hook-module",
    suppression_silences => "suppression-silences",
    suppression_cannot_silence_error => "suppression-cannot-silence-error",
    suppression_unused => "suppression-unused",
    suppression_unknown_code => "suppression-unknown-code",
    suppression_only_in_comments => "suppression-only-in-comments",
}

/// The SDK packages `tsc` sees: missing while the project has a `tsconfig.json`, or written
/// by another agent-sdk (a package agent-sdk did not write is left alone). The binary's
/// version, which the messages name, is `[VERSION]`.
#[test]
fn sdk_packages_missing() {
    insta::assert_snapshot!(Filters::new().version().apply(&check("sdk-packages-missing")));
}

#[test]
fn sdk_packages_outdated() {
    insta::assert_snapshot!(Filters::new().version().apply(&check("sdk-packages-outdated")));
}

/// Once `agent-sdk sdk` wrote them, neither warning is left. (The outdated case also has a
/// package agent-sdk did not write, which sdk takes over only with `--force`.)
#[test]
fn sdk_packages_written_by_this_binary_are_no_finding() {
    for (case, sdk) in [("sdk-packages-missing", &["sdk"][..]), ("sdk-packages-outdated", &["sdk", "--force"])] {
        let project = common::copy_fixture("validate", case);
        assert_eq!(common::exit_code(&common::run_in(project.path(), sdk)), 0);
        let validate = common::transcript(project.path(), &["validate"]);
        assert!(validate.contains("Found no problems in 1 file"), "{case}: {validate}");
    }
}

/// Every code in the registry is produced by the real binary in some snapshot (a
/// fixture here, or a bad-input test), so no code exists that no test has seen.
#[test]
fn every_code_is_exercised() {
    let snapshots: String = std::fs::read_dir(common::root().join("tests/it/snapshots"))
        .unwrap()
        .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
        .collect();
    for code in agent_sdk::diagnostics::Code::ALL {
        assert!(
            snapshots.contains(&format!("\"code\": \"{}\"", code.as_str()))
                || snapshots.contains(&format!("\n{}\n", code.as_str())),
            "no snapshot shows {}",
            code.as_str()
        );
    }
}

/// What a user sees of the lints (`validate`'s findings and exit code): for each lint, a
/// hook it reports and the same hook written as the Hooks guide advises, which it does
/// not; the guide's own example hooks, which no lint reports; and every lint's finding
/// silenced by `// agent-sdk-ignore`.
fn lint(case: &str) -> String {
    transcripts(&fixture("validate", &format!("lints/{case}")), &[&["validate"]])
}

macro_rules! lint_cases {
    ($($name:ident => $case:literal,)*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), lint($case));
        }
    )*};
}

lint_cases! {
    lint_module_scope_secret => "module-scope-secret/reported",
    lint_module_scope_secret_correct => "module-scope-secret/correct",
    lint_fetch_without_timeout => "fetch-without-timeout/reported",
    lint_fetch_without_timeout_correct => "fetch-without-timeout/correct",
    lint_pages_cancelled_turns => "pages-cancelled-turns/reported",
    lint_pages_cancelled_turns_correct => "pages-cancelled-turns/correct",
    lint_meters_eval_sessions => "meters-eval-sessions/reported",
    lint_meters_eval_sessions_correct => "meters-eval-sessions/correct",
    lint_mutates_event => "mutates-event/reported",
    lint_mutates_event_correct => "mutates-event/correct",
    lint_state_in_state_root => "state-in-state-root/reported",
    lint_state_in_state_root_correct => "state-in-state-root/correct",
    lint_rebuilds_reply_from_deltas => "rebuilds-reply-from-deltas/reported",
    lint_rebuilds_reply_from_deltas_correct => "rebuilds-reply-from-deltas/correct",
    lint_guide_examples => "guide-examples",
    lint_suppressed => "suppressed",
}
