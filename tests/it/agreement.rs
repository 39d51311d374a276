//! `validate`, `info` and `run` agree: for every valid project in the repository (every
//! fixture, the example, the benchmark projects), the hooks `info --json` says would load
//! are exactly the hooks `run` loads and dispatches to. A promise the CLI prints is only
//! as good as this test. And no project the repository ships as working is refused: an
//! error `validate` finds in one is a false error (the forms tsc and Node accept).

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::{copy_project, exit_code, link_workspace_packages, root};

/// Hooks that throw, exit or never finish while they are imported, on purpose: no static
/// check can see that, and `run` reports each of them as failed to load (exit 3).
const FAIL_AT_IMPORT_ON_PURPOSE: [(&str, &str); 7] = [
    ("failures", "5-broken-import"),
    ("failures", "7-exit-at-import"),
    ("throws-at-import", "webhook"),
    ("imports", "1-never-settles"),
    ("imports", "2-spins"),
    ("hanging", "hangs"),
    ("slow-import", "late"),
];

/// The projects outside `fixtures/validate/` (where each case shows a finding) that have
/// errors on purpose: `run` refuses them, as tests/it/run.rs, tests/it/runtime.rs and
/// tests/it/config.rs check (`fixtures/config/invalid` has errors in its settings,
/// `fixtures/config/rules` raises a warning to an error).
const INVALID_ON_PURPOSE: [&str; 6] =
    ["errors", "decorators-standard", "missing-package", "missing-relative-import", "invalid", "rules"];

/// Every project in the repository: a folder holding `bot/` or `agent/`, with the folder
/// to copy (a monorepo is copied whole) and `--dir` inside the copy.
fn projects() -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for group in ["fixtures", "examples", "bench"] {
        for entry in walkdir::WalkDir::new(root().join(group)).into_iter().filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            !(name == "node_modules" || name.starts_with('.') || name == "bot" || name == "agent")
        }) {
            let entry = entry.unwrap();
            let dir = entry.path();
            if !(dir.join("bot").is_dir() || dir.join("agent").is_dir()) {
                continue;
            }
            match dir.ancestors().find(|ancestor| ancestor.join("packages").is_dir() && ancestor != &dir) {
                Some(workspace) => {
                    let inside = dir.strip_prefix(workspace).unwrap().to_string_lossy().into_owned();
                    found.push((workspace.to_path_buf(), inside));
                }
                None => found.push((dir.to_path_buf(), ".".to_owned())),
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Whether every error `validate` finds in the project is one about a handler, not its hook
/// (`hooks::unknown-event`): `validate` fails, and `run` loads every hook, as hosting does.
fn only_errors_about_handlers(cwd: &Path, dir: &str) -> bool {
    let validate = agent_sdk(cwd, &["validate", "--dir", dir, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let errors = || diagnostics.iter().filter(|diagnostic| diagnostic["severity"] == "error");
    errors().count() > 0 && errors().all(|diagnostic| diagnostic["code"] == "hooks::unknown-event")
}

/// A copy of `source` in a fresh folder, with the links `npm install` makes for workspaces.
fn copy(source: &Path) -> tempfile::TempDir {
    let copy = copy_project(source);
    link_workspace_packages(copy.path());
    copy
}

fn agent_sdk(cwd: &Path, args: &[&str]) -> std::process::Output {
    common::agent_sdk().args(args).current_dir(cwd).env("NO_COLOR", "1").env_remove("NODE_OPTIONS").output().unwrap()
}

#[test]
fn every_hook_info_lists_is_loaded_and_dispatched_to_by_run() {
    let mut checked = 0;
    for (source, dir) in projects() {
        let case = source.file_name().unwrap().to_string_lossy().into_owned();
        let project = copy(&source);
        let info = agent_sdk(project.path(), &["info", "--json", "--dir", &dir]);
        let report: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
        let Some(agent) = report["agents"].get(0) else { continue };
        if agent["diagnostics"]["errors"] != 0 && !only_errors_about_handlers(project.path(), &dir) {
            let on_purpose =
                source.starts_with(root().join("fixtures/validate")) || INVALID_ON_PURPOSE.contains(&case.as_str());
            if !on_purpose {
                let validate = agent_sdk(project.path(), &["validate", "--dir", &dir]);
                panic!(
                    "{case}: validate refuses a project that should run\n{}",
                    String::from_utf8_lossy(&validate.stdout)
                );
            }
            continue; // not a valid project: `run` refuses it, as tests/it/run.rs checks
        }
        let promised: BTreeSet<String> =
            agent["hooks"].as_array().unwrap().iter().map(|hook| hook["name"].as_str().unwrap().to_owned()).collect();

        // Loading date-fns's whole index (bench/realistic's digest hook) takes Node itself 2 s
        // or more on a busy 2-core machine: a hook's import is given 10 s.
        let args = ["run", "--dir", &dir, "--event", "turn.completed", "--log-format", "json", "--hook-timeout", "10s"];
        let ran = agent_sdk(project.path(), &args);
        let log = String::from_utf8_lossy(&ran.stderr);
        assert_ne!(exit_code(&ran), 1, "{case}: run refused a project info accepted\n{log}");
        let records: Vec<serde_json::Value> =
            log.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{case}: {line}"))).collect();
        let loaded: BTreeSet<String> = records
            .iter()
            .filter_map(|record| record["message"].as_str()?.strip_prefix("loaded hook \"")?.strip_suffix('"'))
            .map(str::to_owned)
            .collect();
        let expected: BTreeSet<String> = promised
            .iter()
            .filter(|hook| !FAIL_AT_IMPORT_ON_PURPOSE.contains(&(case.as_str(), hook.as_str())))
            .cloned()
            .collect();
        assert_eq!(loaded, expected, "{case}: info promised {promised:?}\n{log}");
        let summary =
            records.iter().filter_map(|record| record["message"].as_str()).find(|m| m.starts_with("summary:"));
        let hooks = if expected.len() == 1 { "1 hook;".to_owned() } else { format!("{} hooks;", expected.len()) };
        assert!(summary.is_some_and(|summary| summary.contains(&format!("dispatched to {hooks}"))), "{case}: {log}");
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} valid projects were found");
}

/// The `import` of a package (not the SDK's, not a relative path) on `line`, if it is one.
fn package_import(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("import ")?;
    let specifier = rest.rsplit_once(" from \"")?.1.strip_suffix("\";")?;
    let package = !(specifier.starts_with('.') || specifier.starts_with("@cursor/"));
    package.then_some(specifier)
}

/// `validate` judges an import of an installed package by reading it as Node does (a
/// CommonJS package by Node's own lexer): each such import in the fixtures that show
/// `hooks::missing-export`, alone in a module, links in Node exactly when validate reports
/// nothing on its line.
#[test]
fn validate_judges_each_package_import_as_node_links_it() {
    let (mut linked, mut refused) = (0, 0);
    for case in ["commonjs-exports", "missing-export"] {
        let project = copy(&root().join("fixtures/validate").join(case));
        let validate = agent_sdk(project.path(), &["validate", "--format", "json"]);
        let report: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
        let flagged: BTreeSet<(String, u64)> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|diagnostic| diagnostic["code"] == "hooks::missing-export")
            .map(|diagnostic| (diagnostic["path"].as_str().unwrap().to_owned(), diagnostic["line"].as_u64().unwrap()))
            .collect();
        let hooks = project.path().join("bot/hooks");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&hooks).unwrap().map(|entry| entry.unwrap().path()).collect();
        files.sort();
        for file in files {
            let shown = format!("bot/hooks/{}", file.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&file).unwrap();
            for (index, line) in text.lines().enumerate() {
                let Some(specifier) = package_import(line) else { continue };
                let probe = project.path().join("probe.mjs");
                std::fs::write(&probe, format!("{line}\n")).unwrap();
                let node = std::process::Command::new(common::node()).arg(&probe).output().unwrap();
                let stderr = String::from_utf8_lossy(&node.stderr);
                let reported = flagged.contains(&(shown.clone(), index as u64 + 1));
                assert_eq!(
                    node.status.success(),
                    !reported,
                    "{case}: {shown}:{}: `{line}` (validate reported it: {reported})\n{stderr}",
                    index + 1
                );
                if reported {
                    assert!(stderr.contains(specifier), "{case}: Node fails for another reason: {stderr}");
                    refused += 1;
                } else {
                    linked += 1;
                }
            }
        }
    }
    assert!(linked >= 8 && refused >= 5, "{linked} imports linked, {refused} were refused");
}
