//! The settings file (`agent-sdk.json`, or package.json's `"agentSdk"`), as `validate`, `run`
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
    assert!(out.contains("settings: none (no agent-sdk.json or package.json with \"agentSdk\""), "{out}");
}

/// An agent-sdk.json beside a package.json with `agentSdk` wins over it.
#[test]
fn agent_sdk_json_wins_over_package_json_in_one_folder() {
    let project = copy_fixture("config", "package-key");
    std::fs::write(project.path().join("agent-sdk.json"), "{ \"rules\": { \"unknown-event\": \"off\" } }\n").unwrap();
    let out = transcript(project.path(), &["validate", "--verbose", "--format", "concise"]);
    assert!(out.contains("settings: agent-sdk.json") && out.contains("exit: 0"), "{out}");
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
    let invalid = read(&fixture("config", "invalid").join("agent-sdk.json"));
    let errors: Vec<String> = validator.iter_errors(&invalid).map(|error| error.instance_path().to_string()).collect();
    assert!(errors.len() >= 4, "{errors:?}");
}
