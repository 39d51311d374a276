//! What CI and editors read from `validate`: `github`, `sarif` and `concise` name files from
//! the current directory, so a monorepo checked with `--dir packages/agent` gets annotations
//! on `packages/agent/bot/hooks/…`; every SARIF log meets the official SARIF 2.1.0 schema
//! (tests/data/) and what GitHub code scanning asks beyond it.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{exit_code, fixture, root, run_in, transcript, transcripts};
use serde_json::Value;

/// Every view a CI job or an editor reads, of the project at `dir` as seen from `cwd`.
fn ci_views(cwd: &Path, dir: &str) -> String {
    transcripts(
        cwd,
        &[
            &["validate", "--dir", dir, "--format", "github"],
            &["validate", "--dir", dir, "--format", "concise"],
            &["validate", "--dir", dir, "--format", "json"],
        ],
    )
}

fn sarif(cwd: &Path, args: &[&str]) -> Value {
    let output = run_in(cwd, &[&["validate", "--format", "sarif"], args].concat());
    assert!(exit_code(&output) < 2, "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("the SARIF log is JSON")
}

/// The places SARIF results point at: `uri line:column`.
fn sarif_places(log: &Value) -> Vec<String> {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| {
            let location = &result["locations"][0]["physicalLocation"];
            let region = &location["region"];
            format!(
                "{} {} {}:{}",
                result["ruleId"].as_str().unwrap(),
                location["artifactLocation"]["uri"].as_str().unwrap(),
                region["startLine"],
                region["startColumn"]
            )
        })
        .collect()
}

#[test]
fn a_monorepo_checked_from_its_root_names_files_from_the_root() {
    let monorepo = fixture("validate", "monorepo");
    insta::assert_snapshot!(ci_views(&monorepo, "packages/agent"));
    insta::assert_debug_snapshot!(sarif_places(&sarif(&monorepo, &["--dir", "packages/agent"])));
}

#[test]
fn the_same_project_checked_from_inside_names_files_from_there() {
    let package = fixture("validate", "monorepo").join("packages/agent");
    insta::assert_snapshot!(ci_views(&package, "."));
    insta::assert_debug_snapshot!(sarif_places(&sarif(&package, &["--dir", "."])));
}

/// `./packages/agent/`, or the folder named absolutely, is the same folder as `packages/agent`.
#[test]
fn any_spelling_of_the_dir_names_files_the_same_way() {
    let monorepo = fixture("validate", "monorepo");
    let concise = |dir: &str| {
        String::from_utf8(run_in(&monorepo, &["validate", "--format", "concise", "--dir", dir]).stdout).unwrap()
    };
    let expected = concise("packages/agent");
    assert!(expected.starts_with("packages/agent/"), "{expected}");
    assert_eq!(concise("./packages/agent/"), expected);
    assert_eq!(concise(&monorepo.join("packages/agent").to_string_lossy()), expected);
    // A folder above the current one is named absolutely (as ruff names every file).
    let package = monorepo.join("packages/agent").canonicalize().unwrap();
    let output = run_in(&package.join("bot"), &["validate", "--format", "concise", "--dir", ".."]);
    let absolute = expected.replace("packages/agent/", &format!("{}/", package.to_string_lossy()));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), absolute);
}

/// One line per finding on stdout, the summary on stderr (so `2>/dev/null | grep` sees
/// findings only); exit codes as in every format.
#[test]
fn concise_is_one_line_per_finding() {
    insta::assert_snapshot!(transcripts(
        &fixture("validate", "unknown-event"),
        &[&["validate", "--format", "concise"], &["validate", "--format", "concise", "--deny-warnings"]]
    ));
    insta::assert_snapshot!(transcript(&fixture("validate", "parse-error"), &["validate", "--format", "concise"]));
    insta::assert_snapshot!(transcript(&fixture("validate", "no-agent-source"), &["validate", "--format", "concise"]));
}

/// Every fixture project (the monorepo's package with `--dir`), as a SARIF log.
fn every_fixture_log() -> Vec<(String, Value)> {
    let mut logs = Vec::new();
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(root().join("fixtures/validate")).unwrap().map(|entry| entry.unwrap().path()).collect();
    cases.sort();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let args: &[&str] = if case.join("packages").is_dir() { &["--dir", "packages/agent"] } else { &[] };
        logs.push((name, sarif(&case, args)));
    }
    logs.push(("examples/acme-bot".to_owned(), sarif(&root().join("examples/acme-bot"), &[])));
    logs
}

/// The official schema, as published by the OASIS SARIF TC (see tests/data/README.md).
#[test]
fn every_fixture_s_sarif_meets_the_sarif_2_1_0_schema() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let mut results = 0;
    for (case, log) in every_fixture_log() {
        let errors: Vec<String> =
            validator.iter_errors(&log).map(|error| format!("{} at {}", error, error.instance_path())).collect();
        assert!(errors.is_empty(), "{case}: the SARIF log breaks the schema:\n{}", errors.join("\n"));
        results += log["runs"][0]["results"].as_array().unwrap().len();
    }
    assert!(results > 30, "the fixtures' logs hold findings to check ({results})");
}

/// The schema itself rejects what GitHub would: a log missing its `version` fails.
#[test]
fn the_schema_check_can_fail() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut log = sarif(&fixture("validate", "unknown-event"), &[]);
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = Value::from(0);
    assert!(!validator.is_valid(&log), "startLine 0 is below the schema's minimum");
}

/// What GitHub code scanning asks beyond the schema.
#[test]
fn every_fixture_s_sarif_meets_github_code_scanning() {
    for (case, log) in every_fixture_log() {
        let driver = &log["runs"][0]["tool"]["driver"];
        assert!(driver["informationUri"].as_str().is_some_and(|uri| uri.starts_with("https://")), "{case}");
        for rule in driver["rules"].as_array().unwrap() {
            let id = rule["id"].as_str().unwrap();
            for field in ["shortDescription", "fullDescription"] {
                assert!(rule[field]["text"].as_str().is_some_and(|text| !text.is_empty()), "{id} {field}");
            }
            assert!(rule["help"]["text"].as_str().is_some_and(|text| !text.is_empty()), "{id} help");
            assert!(rule["help"]["markdown"].as_str().is_some_and(|text| !text.is_empty()), "{id} help");
            let help_uri = rule["helpUri"].as_str().unwrap();
            assert!(help_uri.ends_with(&format!("docs/codes.md#{}", id.replace("::", "-"))), "{help_uri}");
        }
        for result in log["runs"][0]["results"].as_array().unwrap() {
            let id = result["ruleId"].as_str().unwrap();
            let locations = result["locations"].as_array().unwrap();
            assert_eq!(locations.len(), 1, "{case} {id}: one location, never none");
            let location = &locations[0]["physicalLocation"];
            assert!(location["artifactLocation"]["uri"].as_str().is_some_and(|uri| !uri.is_empty()), "{case} {id}");
            let region = &location["region"];
            assert!(region["startLine"].as_u64().is_some_and(|line| line >= 1), "{case} {id}: {region}");
            assert!(region["startColumn"].as_u64().is_some_and(|column| column >= 1), "{case} {id}: {region}");
            let fingerprint = result["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap();
            let (hash, occurrence) = fingerprint.split_once(':').unwrap();
            assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{fingerprint}");
            assert!(occurrence.parse::<u32>().is_ok_and(|n| n >= 1), "{fingerprint}");
        }
    }
}

/// A finding's fingerprint follows the flagged line's text, not its number: a line added
/// above it moves the region and keeps the fingerprint; editing the line changes it.
#[test]
fn a_fingerprint_survives_lines_added_above() {
    let project = common::copy_fixture("validate", "unknown-event");
    let hook = project.path().join("bot/hooks/typos.ts");
    let fingerprints = |log: &Value| -> Vec<(String, u64)> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                (
                    result["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap().to_owned(),
                    result["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let before = fingerprints(&sarif(project.path(), &[]));
    let source = std::fs::read_to_string(&hook).unwrap();
    std::fs::write(&hook, format!("// A comment\n// and another\n{source}")).unwrap();
    let after = fingerprints(&sarif(project.path(), &[]));
    assert_eq!(before.len(), after.len());
    for ((hash_before, line_before), (hash_after, line_after)) in before.iter().zip(&after) {
        assert_eq!(hash_before, hash_after);
        assert_eq!(line_before + 2, *line_after);
    }
    std::fs::write(&hook, source.replace("onTurn", "onTurnDone")).unwrap();
    let edited = fingerprints(&sarif(project.path(), &[]));
    assert_ne!(edited, before, "an edited line is another finding");
}

/// Each rule's `helpUri` (docs/codes.md, at the code's anchor) lands on the code's row.
#[test]
fn every_code_has_its_anchor_in_the_code_table() {
    let codes = std::fs::read_to_string(root().join("docs/codes.md")).unwrap();
    for code in agent_sdk::diagnostics::Code::ALL {
        let anchor = code.as_str().replace("::", "-");
        assert!(
            codes.contains(&format!("| <a id=\"{anchor}\"></a>`{}` |", code.as_str())),
            "the code table of docs/codes.md has no row anchored at #{anchor}"
        );
    }
}

/// The vendor's CI line, `validate --dir .`, fails on a misspelt event key (a handler that
/// never runs; tsc's TS2353), and in a GitHub Actions job (`GITHUB_ACTIONS=true`) with no
/// `--format`, the findings are annotations; `--format` still chooses.
#[test]
fn in_github_actions_the_findings_are_annotations_and_a_misspelt_event_fails_the_gate() {
    let dir = fixture("validate", "unknown-event");
    let in_actions = |args: &[&str]| {
        common::agent_sdk()
            .args(args)
            .current_dir(&dir)
            .env("GITHUB_ACTIONS", "true")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let annotated = in_actions(&["validate", "--dir", "."]);
    assert_eq!(exit_code(&annotated), 1);
    let stdout = String::from_utf8_lossy(&annotated.stdout);
    assert!(stdout.starts_with("::error file=bot/hooks/typos.ts,line=4,col=5,"), "{stdout}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    let concise = in_actions(&["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&concise.stdout);
    assert!(stdout.starts_with("bot/hooks/typos.ts:4:5: error hooks::unknown-event"), "{stdout}");
}
