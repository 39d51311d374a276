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
    declared_not_installed => "declared-not-installed",
    missing_export => "missing-export",
    commonjs_exports => "commonjs-exports",
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

/// `--fix` on a project with a finding of every fixable code: it writes the safe fixes
/// (round after round: a corrected suppression code is found unused only on the next
/// check), says what it fixed, reports what remains (an unsafe fix) and leaves it; a second
/// `--fix` changes nothing; `--unsafe-fixes` applies the rest.
#[test]
fn fix_writes_the_safe_fixes_and_a_second_run_changes_nothing() {
    let project = common::copy_fixture("validate", "fixable");
    let dir = project.path();
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).unwrap();
    let mut out = common::transcript(dir, &["validate", "--format", "concise"]);
    out.push_str(&common::transcript(dir, &["validate", "--fix"]));
    out.push_str(&format!("----- bot/hooks/typos.ts -----\n{}", read("bot/hooks/typos.ts")));
    let fixed = read("bot/hooks/typos.ts");
    out.push_str(&common::transcript(dir, &["validate", "--fix", "--format", "concise"]));
    assert_eq!(read("bot/hooks/typos.ts"), fixed, "a second --fix changed the file");
    out.push_str(&common::transcript(dir, &["validate", "--unsafe-fixes"]));
    out.push_str(&format!("----- bot/hooks/wrapper.ts -----\n{}", read("bot/hooks/wrapper.ts")));
    insta::assert_snapshot!(out);
}

/// A fixed file keeps its permissions, and a hook reached through a link is fixed where the
/// link leads (the link stays a link).
#[test]
fn fix_writes_through_links_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let project = common::copy_fixture("validate", "fixable");
    let dir = project.path();
    std::fs::rename(dir.join("bot/hooks/typos.ts"), dir.join("bot/lib/typos.ts")).unwrap();
    std::os::unix::fs::symlink("../lib/typos.ts", dir.join("bot/hooks/typos.ts")).unwrap();
    std::fs::set_permissions(dir.join("bot/lib/typos.ts"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = common::transcript(dir, &["validate", "--fix", "--format", "concise"]);
    assert!(out.contains("Fixed 10 findings in 1 file"), "{out}");
    assert!(std::fs::symlink_metadata(dir.join("bot/hooks/typos.ts")).unwrap().file_type().is_symlink());
    let target = dir.join("bot/lib/typos.ts");
    assert!(std::fs::read_to_string(&target).unwrap().contains("\"turn.completed\""));
    assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640);
}

/// The machine formats carry each fix as edits: `fixes` in json (see the `unknown_event` and
/// `fixable` snapshots) and SARIF's `fixes`, checked against the schema in `cli::sarif_*`.
#[test]
fn json_reports_the_fix_of_each_fixable_finding() {
    let output = common::run_in(&fixture("validate", "fixable"), &["validate", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let fixable: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|diagnostic| {
            diagnostic["fixes"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |fix| (diagnostic["code"].as_str().unwrap(), fix["applicability"].as_str().unwrap()))
        })
        .collect();
    insta::assert_debug_snapshot!(fixable);
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
    lint_floating_host_call => "floating-host-call/reported",
    lint_floating_host_call_correct => "floating-host-call/correct",
    lint_guide_examples => "guide-examples",
    lint_suppressed => "suppressed",
}

/// `--fix` (and the editor's quick fix) never renames a misspelt key to one the object
/// already handles: JavaScript keeps the last of two equal keys, so the handler that ran
/// would be replaced by the draft that never did. A key `"*"` handles too is renamed only
/// with `--unsafe-fixes` (the draft would then run beside `"*"`); two keys that suggest the
/// same one are renamed by neither. Each finding's help says which.
#[test]
fn fix_never_renames_a_key_to_one_the_object_already_has() {
    let project = common::copy_fixture("validate", "fix-handled-keys");
    let dir = project.path();
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).unwrap();
    let before: Vec<String> = ["stale", "star", "twice"].map(|name| read(&format!("bot/hooks/{name}.ts"))).into();
    let mut out = common::transcript(dir, &["validate"]);
    out.push_str(&common::transcript(dir, &["validate", "--fix", "--format", "concise"]));
    for (name, text) in ["stale", "star", "twice"].iter().zip(&before) {
        assert_eq!(&read(&format!("bot/hooks/{name}.ts")), text, "--fix changed {name}.ts");
    }
    out.push_str(&common::transcript(dir, &["validate", "--unsafe-fixes", "--format", "concise"]));
    out.push_str(&format!("----- bot/hooks/star.ts -----\n{}", read("bot/hooks/star.ts")));
    assert_eq!(read("bot/hooks/stale.ts"), before[0]);
    insta::assert_snapshot!(out);
}

/// Codes separated by a no-break space (`,\u{a0}`): each fix takes out the bytes of its own
/// code, the comment goes once it names none, and a second `--fix` finds nothing to do.
#[test]
fn fix_takes_out_codes_separated_by_a_no_break_space() {
    let project = common::copy_fixture("validate", "fix-no-break-space");
    let dir = project.path();
    let mut out = common::transcript(dir, &["validate", "--format", "concise"]);
    out.push_str(&common::transcript(dir, &["validate", "--fix", "--format", "concise"]));
    out.push_str(&format!(
        "----- bot/hooks/a.ts -----\n{}",
        std::fs::read_to_string(dir.join("bot/hooks/a.ts")).unwrap()
    ));
    out.push_str(&common::transcript(dir, &["validate", "--fix", "--format", "concise"]));
    insta::assert_snapshot!(out);
}

/// `--fix` run by root keeps the owner and group of the file it fixes (as an editor saving
/// it would), so the developer can still write it.
#[test]
fn fix_keeps_the_owner_and_group_of_a_file() {
    use std::os::unix::fs::MetadataExt;
    let project = common::copy_fixture("validate", "fixable");
    let hook = project.path().join("bot/hooks/typos.ts");
    if std::fs::metadata(&hook).unwrap().uid() != 0 {
        eprintln!("skipped: only root can give a file to another user");
        return;
    }
    std::os::unix::fs::chown(&hook, Some(4242), Some(4343)).unwrap();
    let out = common::transcript(project.path(), &["validate", "--fix", "--format", "concise"]);
    assert!(out.contains("Fixed 10 findings in 1 file"), "{out}");
    let metadata = std::fs::metadata(&hook).unwrap();
    assert_eq!((metadata.uid(), metadata.gid()), (4242, 4343), "{out}");
}

/// A hook with a second name (a hard link) is fixed in place: both names see the fix, and
/// they stay one file.
#[test]
fn fix_writes_a_hard_linked_file_in_place() {
    use std::os::unix::fs::MetadataExt;
    let project = common::copy_fixture("validate", "fixable");
    let hook = project.path().join("bot/hooks/typos.ts");
    let other = project.path().join("typos-shared.ts");
    std::fs::hard_link(&hook, &other).unwrap();
    let out = common::transcript(project.path(), &["validate", "--fix", "--format", "concise"]);
    assert!(out.contains("Fixed 10 findings in 1 file"), "{out}");
    assert_eq!(std::fs::metadata(&hook).unwrap().nlink(), 2, "{out}");
    assert_eq!(std::fs::metadata(&hook).unwrap().ino(), std::fs::metadata(&other).unwrap().ino());
    assert!(std::fs::read_to_string(&other).unwrap().contains("\"turn.completed\""));
}

/// At a folder that holds no agent but agents below it (a monorepo's root), `validate`
/// checks each of them: one report, each finding under its agent's folder, and the exit
/// code of them all.
#[test]
fn at_a_root_of_agents_validate_checks_each_in_one_report() {
    let dir = fixture("validate", "agents");
    insta::assert_snapshot!(transcripts(
        &dir,
        &[
            &["validate"],
            &["validate", "--format", "json"],
            &["validate", "--format", "github"],
            &["validate", "--format", "concise"]
        ]
    ));
}

/// The same root named from above it: the paths are named from the current folder.
#[test]
fn a_root_of_agents_named_from_above_names_files_from_there() {
    let dir = fixture("validate", "agents");
    let output = common::run_in(dir.parent().unwrap(), &["validate", "agents", "--format", "concise"]);
    assert_eq!(common::exit_code(&output), 1);
    let said = String::from_utf8(output.stdout).unwrap();
    assert!(said.starts_with("agents/apps/billing/agent/hooks/typos.ts:5:5: error hooks::unknown-event"), "{said}");
}

/// Files, as pre-commit and lint-staged pass the staged ones: each is checked in the project
/// found from its folder up, and only its findings are reported (with those of the modules a
/// named hook imports, which keep it from loading); a file in no project is said and skipped;
/// a settings or package file has its whole project reported.
#[test]
fn validate_of_files_reports_only_their_findings() {
    let dir = fixture("validate", "agents");
    insta::assert_snapshot!(transcripts(
        &dir,
        &[
            &["validate", "apps/billing/agent/hooks/typos.ts"],
            &["validate", "apps/billing/agent/lib/total.ts"],
            &["validate", "apps/billing/agent/hooks/invoice.ts"],
            &["validate", "apps/support/bot/hooks/usage.ts"],
            &[
                "validate",
                "--format",
                "concise",
                "apps/support/bot/hooks/usage.ts",
                "apps/billing/agent/hooks/typos.ts",
                "tools/release.ts"
            ],
            &["validate", "tools/release.ts"],
            &["validate", "--format", "concise", "apps/billing/package.json"],
            &["validate", "apps/billing/agent/hooks/missing.ts"],
        ]
    ));
}

/// From inside the project, a file is named as the user typed it relative to there.
#[test]
fn a_file_given_from_inside_its_project_is_checked_there() {
    let dir = fixture("validate", "agents").join("apps/billing/agent/hooks");
    let output = common::run_in(&dir, &["validate", "--format", "json", "typos.ts"]);
    assert_eq!(common::exit_code(&output), 1);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let paths: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    let project = fixture("validate", "agents").join("apps/billing").canonicalize().unwrap();
    assert_eq!(paths, [format!("{}/agent/hooks/typos.ts", project.display())]);
}

/// `--fix` at a root of agents fixes each and says so once, naming files from the root.
#[test]
fn fix_at_a_root_of_agents_fixes_each_and_says_so_once() {
    let dir = common::copy_fixture("validate", "agents");
    let output = common::run_in(dir.path(), &["validate", "--fix"]);
    assert_eq!(common::exit_code(&output), 1, "the unresolved import is left");
    let said = String::from_utf8(output.stderr).unwrap();
    assert!(
        said.contains("Fixed 1 finding in 1 file:\n  apps/billing/agent/hooks/typos.ts: hooks::unknown-event\n"),
        "{said}"
    );
    assert!(!said.contains("No fixes applied"), "{said}");
    let fixed = std::fs::read_to_string(dir.path().join("apps/billing/agent/hooks/typos.ts")).unwrap();
    assert!(fixed.contains("\"turn.completed\"()"), "{fixed}");
}

/// A project named as a folder (however spelt) and through one of its files is checked once,
/// whole: each finding is reported once.
#[test]
fn a_project_named_whole_and_through_a_file_is_checked_once() {
    let dir = fixture("validate", "agents");
    let output = common::run_in(
        &dir,
        &["validate", "--format", "concise", "./apps/billing/", "apps/billing/agent/hooks/typos.ts"],
    );
    assert_eq!(common::exit_code(&output), 1);
    let said = String::from_utf8(output.stdout).unwrap();
    assert_eq!(said.lines().count(), 2, "{said}");
    assert!(said.starts_with("apps/billing/agent/hooks/typos.ts:5:5: error"), "{said}");
}
