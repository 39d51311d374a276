//! The settings file (`agent-sdk.json` or `agent-sdk.jsonc`, or package.json's `"agentSdk"`), as `validate`, `run`
//! and `test` read it: rule levels, `denyWarnings`, ignore globs, `test`'s defaults, found
//! from the project folder up, every problem in it a located error; and its published schema.

use std::path::Path;

use crate::common::{self, copy_fixture, exit_code, fixture, run_in, transcript};

#[test]
fn rule_levels_turn_findings_off_down_and_up() {
    insta::assert_snapshot!(transcript(&fixture("config", "rules"), &["validate"]));
}

#[test]
fn package_json_s_agent_sdk_key_holds_the_same_settings() {
    // `denyWarnings`: the one warning fails the check.
    insta::assert_snapshot!(transcript(&fixture("config", "package-key"), &["validate", "--format", "concise"]));
}

/// From a monorepo's root, the agent below it takes the root's settings: its work-in-progress
/// folder (which does not parse) is ignored and a misspelt key is advice. `--verbose` says
/// which file was read.
#[test]
fn the_nearest_settings_from_the_project_up_apply() {
    let root = fixture("config", "monorepo");
    let mut out = transcript(&root, &["validate", "--verbose", "--dir", "packages/agent", "--format", "concise"]);
    out.push_str(&transcript(&root.join("packages/agent"), &["validate", "--verbose", "--format", "concise"]));
    insta::assert_snapshot!(out);
}

#[test]
fn verbose_says_when_no_settings_file_was_found() {
    let out = transcript(&fixture("validate", "accepted-forms"), &["validate", "--verbose", "--format", "concise"]);
    assert!(
        out.contains("settings: none (no agent-sdk.json, agent-sdk.jsonc or package.json with \"agentSdk\""),
        "{out}"
    );
}

/// An agent-sdk.json beside a package.json with `agentSdk` wins over it.
#[test]
fn agent_sdk_json_wins_over_package_json_in_one_folder() {
    let project = copy_fixture("config", "package-key");
    std::fs::write(project.path().join("agent-sdk.json"), "{ \"rules\": { \"unknown-event\": \"off\" } }\n").unwrap();
    let out = transcript(project.path(), &["validate", "--verbose", "--format", "concise"]);
    assert!(out.contains("settings: agent-sdk.json") && out.contains("exit: 0"), "{out}");
}

/// `agent-sdk.jsonc` is read as `agent-sdk.json` is: the rule levels of `fixtures/config/rules`
/// apply the same from it (one finding off, one lowered to a warning, one raised to an error).
#[test]
fn a_rule_level_set_in_agent_sdk_jsonc_applies() {
    let project = copy_fixture("config", "rules");
    std::fs::rename(project.path().join("agent-sdk.json"), project.path().join("agent-sdk.jsonc")).unwrap();
    let from_jsonc = transcript(project.path(), &["validate", "--format", "concise"]);
    assert_eq!(from_jsonc, transcript(&fixture("config", "rules"), &["validate", "--format", "concise"]));
    assert!(from_jsonc.contains("exit: 1") && from_jsonc.contains("error hooks::empty-events"), "{from_jsonc}");
    let verbose = transcript(project.path(), &["validate", "--verbose", "--format", "concise"]);
    assert!(verbose.contains("settings: agent-sdk.jsonc"), "{verbose}");
}

/// In one folder `agent-sdk.json` wins over `agent-sdk.jsonc`, as it wins over a package.json's
/// key: the `.jsonc`, which would fail the check, is not read.
#[test]
fn agent_sdk_json_wins_over_agent_sdk_jsonc_in_one_folder() {
    let project = copy_fixture("config", "rules");
    std::fs::write(project.path().join("agent-sdk.jsonc"), "{ \"rules\": { \"dynamic-events\": \"error\" } }\n")
        .unwrap();
    let out = transcript(project.path(), &["validate", "--verbose", "--format", "concise"]);
    assert!(out.contains("settings: agent-sdk.json\n") && out.contains("warning hooks::dynamic-events"), "{out}");
}

/// Each problem is a located `config::invalid` error with "did you mean", and the check
/// fails; `run` and `test` refuse to start on them too.
#[test]
fn every_problem_in_the_settings_is_a_located_error() {
    let dir = fixture("config", "invalid");
    insta::assert_snapshot!(transcript(&dir, &["validate"]));
    let run = common::run_recorded(&dir, &["run", "--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&run.output), 1, "{}", run.both());
    assert!(run.both().contains("config::invalid"), "{}", run.both());
    let test = run_in(&dir, &["test"]);
    let stderr = String::from_utf8_lossy(&test.stderr);
    assert_eq!(exit_code(&test), 1, "{stderr}");
    assert!(
        stderr.contains("`denyWarning` is not a setting") && stderr.contains("the settings file has errors"),
        "{stderr}"
    );
}

/// `run` reads the same rules: a rule turned off is not in its serve log.
#[test]
fn run_applies_the_rule_levels() {
    let project = copy_fixture("config", "package-key");
    let before = common::run_recorded(project.path(), &["run", "--event", "turn.completed"], &[]);
    assert!(before.both().contains("hooks::unknown-event"), "{}", before.both());
    std::fs::write(project.path().join("agent-sdk.json"), "{ \"rules\": { \"unknown-event\": \"off\" } }\n").unwrap();
    let after = common::run_recorded(project.path(), &["run", "--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&after.output), 0, "{}", after.both());
    assert!(!after.both().contains("hooks::unknown-event"), "{}", after.both());
}

/// `test` takes its env files and Node arguments from the settings when no flag gives them.
#[test]
fn test_takes_its_defaults_from_the_settings() {
    let dir = copy_fixture("run", "env");
    std::fs::write(dir.path().join("ci.env"), "ACME_REGION=eu-west\n").unwrap();
    let test_file = "import assert from \"node:assert/strict\";\nimport { test } from \"node:test\";\n\
        test(\"env\", () => {\n  assert.equal(process.env.ACME_REGION, \"eu-west\");\n});\n";
    std::fs::write(dir.path().join("bot/hooks/env.test.ts"), test_file).unwrap();
    assert_eq!(exit_code(&run_in(dir.path(), &["test"])), 1);
    let settings = "{ \"test\": { \"envFile\": [\"ci.env\"], \"nodeArgs\": [\"--test-timeout=60000\"] } }\n";
    std::fs::write(dir.path().join("agent-sdk.json"), settings).unwrap();
    let output = run_in(dir.path(), &["test"]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stdout));
}

/// The published schema accepts every settings file of the fixtures and the docs' example,
/// and rejects the invalid one (an editor with `$schema` flags what `validate` does).
#[test]
fn the_published_schema_accepts_good_settings_and_rejects_bad_ones() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.join("agent-sdk.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let read = |path: &Path| -> serde_json::Value {
        let mut plain = std::fs::read_to_string(path).unwrap();
        // Comments and trailing commas, which JSONC allows and JSON does not.
        json_strip_comments::strip(&mut plain).unwrap();
        serde_json::from_str(&plain).unwrap()
    };
    for case in ["rules", "monorepo"] {
        let settings = read(&fixture("config", case).join("agent-sdk.json"));
        assert!(
            validator.is_valid(&settings),
            "{case}: {:?}",
            validator.iter_errors(&settings).map(|e| e.to_string()).collect::<Vec<_>>()
        );
    }
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("config", "package-key").join("package.json")).unwrap())
            .unwrap();
    assert!(validator.is_valid(&package["agentSdk"]));
    // Every `$schema` the repository shows names the schema of this version, as its `$id` does.
    let docs = std::fs::read_to_string(repo.join("docs/configuration.md")).unwrap();
    let shown = docs.lines().find_map(|line| line.trim().strip_prefix("\"$schema\": ")).unwrap();
    assert_eq!(shown.trim_end_matches(','), format!("{}", schema["$id"]));
    assert_eq!(read(&fixture("config", "rules").join("agent-sdk.json"))["$schema"], schema["$id"]);
    let invalid = read(&fixture("config", "invalid").join("agent-sdk.json"));
    let errors: Vec<String> = validator.iter_errors(&invalid).map(|error| error.instance_path().to_string()).collect();
    assert!(errors.len() >= 4, "{errors:?}");
}

/// `files` (path, text) written under `root`, folders made as needed.
fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A project in `agent/` of a fresh folder, with one hook that loads.
fn agent_below(parent_files: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write_files(root.path(), parent_files);
    let hook = "import { defineHook } from \"@cursor/bdk/hooks\";\n\n\
        export default defineHook({\n  events: {\n    \"turn.completed\"(event) {},\n  },\n});\n";
    write_files(
        root.path(),
        &[("agent/package.json", "{ \"name\": \"agent\", \"type\": \"module\" }\n"), ("agent/bot/hooks/a.ts", hook)],
    );
    root
}

const IGNORE_EVERYTHING: &str = "{ \"ignore\": [\"**\"] }\n";

/// The settings are looked for up to the repository's root (the first folder with a `.git`,
/// a folder or a worktree's file) or a workspace's root, and no further: another user's
/// `agent-sdk.json` in a shared folder above it does not apply.
#[test]
fn settings_above_the_repository_or_workspace_root_do_not_apply() {
    for boundary in [".git/HEAD", ".git", "package.json"] {
        let text = if boundary == "package.json" { "{ \"workspaces\": [\"*\"] }\n" } else { "ref: x\n" };
        let root = agent_below(&[("agent-sdk.json", IGNORE_EVERYTHING), (&format!("repo/{boundary}"), text)]);
        let repo = root.path().join("repo");
        std::fs::rename(root.path().join("agent"), repo.join("agent")).unwrap();
        let out = transcript(&repo.join("agent"), &["validate", "--verbose", "--format", "concise"]);
        assert!(out.contains("Found no problems in 1 file; 1 hook would load."), "{boundary}: {out}");
        assert!(out.contains("settings: none"), "{boundary}: {out}");
    }
}

/// Without a `.git` (nor a workspace) anywhere above, only the project folder's own settings
/// apply: an `agent-sdk.json` in the temporary folder every `mktemp -d` project is made in
/// applies to none of them.
#[test]
fn without_a_repository_only_the_project_folder_s_settings_apply() {
    let root = agent_below(&[("agent-sdk.json", IGNORE_EVERYTHING)]);
    let out = transcript(&root.path().join("agent"), &["validate", "--verbose", "--format", "concise"]);
    assert!(out.contains("Found no problems in 1 file; 1 hook would load."), "{out}");
    assert!(out.contains("settings: none"), "{out}");
}

/// A parent's `test.nodeArgs` would run its code in `test`: not from outside the repository.
#[test]
fn test_takes_no_node_arguments_from_above_the_repository() {
    let root = agent_below(&[]);
    let marker = root.path().join("ran.txt");
    let script = root.path().join("evil.mjs");
    std::fs::write(&script, format!("import fs from \"node:fs\";\nfs.writeFileSync({:?}, \"ran\");\n", marker))
        .unwrap();
    let settings = format!("{{ \"test\": {{ \"nodeArgs\": [\"--import={}\"] }} }}\n", script.display());
    std::fs::write(root.path().join("agent-sdk.json"), settings).unwrap();
    let test_file = "import { test } from \"node:test\";\ntest(\"a\", () => {});\n";
    std::fs::write(root.path().join("agent/bot/hooks/a.test.ts"), test_file).unwrap();
    let output = run_in(&root.path().join("agent"), &["test"]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!marker.exists(), "the parent's nodeArgs ran");
}

/// Whether the tests run as root (who may give a file to another user).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::NamedTempFile::new().unwrap();
    probe.as_file().metadata().unwrap().uid() == 0
}

/// A settings file another user owns is not used (anyone who can write a shared folder
/// could have put it there): a warning names it and its owner, and the defaults apply.
#[test]
fn a_settings_file_another_user_owns_is_not_used() {
    if !running_as_root() {
        eprintln!("skipped: only root can give a file to another user");
        return;
    }
    let root = agent_below(&[(".git/HEAD", "ref: x\n"), ("agent-sdk.json", IGNORE_EVERYTHING)]);
    std::os::unix::fs::chown(root.path().join("agent-sdk.json"), Some(4242), Some(4242)).unwrap();
    let agent = root.path().join("agent");
    let mut out = transcript(&agent, &["validate"]);
    out.push_str(&transcript(&agent, &["validate", "--format", "concise"]));
    insta::assert_snapshot!(out);
    let run = common::run_recorded(&agent, &["run", "--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&run.output), 0, "{}", run.both());
    assert!(run.log().contains("1 hook loaded") && run.log().contains("owned by uid 4242"), "{}", run.both());
}

/// `ignore` that leaves out every hook is a warning, so `validate` does not pass silently
/// with no hook checked.
#[test]
fn ignore_that_leaves_out_every_hook_is_a_warning() {
    let root = agent_below(&[]);
    let agent = root.path().join("agent");
    std::fs::write(agent.join("agent-sdk.json"), "{\n  \"ignore\": [\"bot/**\"],\n}\n").unwrap();
    let mut out = transcript(&agent, &["validate"]);
    out.push_str(&transcript(&agent, &["validate", "--format", "concise"]));
    insta::assert_snapshot!(out);
    let run = common::run_recorded(&agent, &["run", "--event", "turn.completed"], &[]);
    assert!(run.log().contains("config::ignores-every-hook"), "{}", run.both());
}

/// Settings from a folder above the project are always named on stderr (one line), by every
/// command that reads them, and never in `--format json`'s stdout.
#[test]
fn settings_from_above_the_project_are_named_on_stderr() {
    let root = common::copy_project(&fixture("config", "monorepo"));
    let agent = root.path().join("packages/agent");
    let said = "using settings from ../../agent-sdk.json\n";
    for args in [&["validate"][..], &["validate", "--quiet"], &["run", "--event", "turn.completed"], &["test"]] {
        let output = run_in(&agent, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.matches(said).count(), 1, "{args:?}: {stderr}");
    }
    let json = run_in(&agent, &["validate", "--format", "json"]);
    let stdout = String::from_utf8_lossy(&json.stdout);
    assert!(serde_json::from_str::<serde_json::Value>(&stdout).is_ok(), "{stdout}");
    assert!(String::from_utf8_lossy(&json.stderr).contains(said));
    let out = transcript(&root.path().join("packages"), &["validate", "--dir", "agent", "--format", "concise"]);
    assert!(out.contains("using settings from ../agent-sdk.json\n"), "{out}");
    let server = common::dev_server::DevServer::start(&agent, 0);
    let log = std::fs::read_to_string(agent.join("dev-0.log")).unwrap();
    drop(server);
    assert!(log.contains("using settings from ../../agent-sdk.json"), "{log}");
}

/// `hooks::unknown-event` is an error, but the one about a handler rather than the hook: the
/// settings may lower it (or turn it off), and `validate` then passes.
#[test]
fn the_settings_may_lower_an_unknown_event_and_no_other_error() {
    let project = common::copy_fixture("validate", "unknown-event");
    let settings = project.path().join("agent-sdk.json");
    assert_eq!(exit_code(&run_in(project.path(), &["validate"])), 1);
    std::fs::write(&settings, "{ \"rules\": { \"unknown-event\": \"warning\" } }\n").unwrap();
    let lowered = run_in(project.path(), &["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&lowered.stdout);
    assert_eq!(exit_code(&lowered), 0, "{stdout}");
    assert!(stdout.contains(": warning hooks::unknown-event"), "{stdout}");
    std::fs::write(&settings, "{ \"rules\": { \"unresolved-import\": \"warning\" } }\n").unwrap();
    let refused = run_in(project.path(), &["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&refused.stdout);
    assert!(stdout.contains("error config::invalid `hooks::unresolved-import` is an error"), "{stdout}");
}
