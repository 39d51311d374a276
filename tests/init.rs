//! `agent-sdk init` through the real binary: the project it makes validates, runs, passes
//! its tests and type-checks with the real `tsc`; it never overwrites a file without
//! `--force`; and its SDK packages survive `npm install`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{exit_code, root, run_in, transcript};

fn agent_sdk(cwd: &Path, args: &[&str]) -> std::process::Output {
    run_in(cwd, args)
}

fn text(output: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

#[test]
fn a_new_project_validates_runs_and_passes_its_tests() {
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(transcript(dir.path(), &["init", "demo"]));
    let demo = dir.path().join("demo");
    for args in [
        &["validate", "--dir", "demo"][..],
        &["run", "--dir", "demo", "--message", "hi"],
        &["test", "--dir", "demo"],
        &["info", "--dir", "demo", "--json"],
    ] {
        let output = agent_sdk(dir.path(), args);
        assert_eq!(exit_code(&output), 0, "{args:?}:\n{}", text(&output));
    }
    let tests = text(&agent_sdk(dir.path(), &["test", "--dir", "demo"]));
    assert!(tests.contains("ℹ pass 3") && tests.contains("ℹ fail 0"), "{tests}");
    let info: serde_json::Value =
        serde_json::from_slice(&agent_sdk(dir.path(), &["info", "--dir", "demo", "--json"]).stdout).unwrap();
    assert_eq!(info["agents"][0]["name"], "demo", "{info}");
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(demo.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["type"], "module");
    assert!(std::fs::read_to_string(demo.join(".gitignore")).unwrap().lines().any(|line| line == ".agent-sdk/"));
}

#[test]
fn the_scaffold_type_checks_with_its_own_strict_tsconfig() {
    let tsc = root().join("tests/typescript/node_modules/.bin/tsc");
    assert!(tsc.is_file(), "tsc is not installed: run `npm ci --prefix tests/typescript`");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo", "--layout", "agent"])), 0);
    // @types/node comes from the test's own install, as `npm install` would bring it.
    let type_roots = root().join("tests/typescript/node_modules/@types");
    let output = Command::new(&tsc)
        .args(["--noEmit", "-p", "tsconfig.json", "--typeRoots"])
        .arg(&type_roots)
        .current_dir(dir.path().join("demo"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let tsconfig = std::fs::read_to_string(dir.path().join("demo/tsconfig.json")).unwrap();
    assert!(tsconfig.contains("\"strict\": true") && tsconfig.contains("\"include\": [\"agent\"]"), "{tsconfig}");
}

#[test]
fn files_that_exist_are_listed_and_nothing_is_written_without_force() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo"])), 0);
    let usage = dir.path().join("demo/bot/hooks/usage.ts");
    std::fs::write(&usage, "// mine\n").unwrap();
    std::fs::remove_file(dir.path().join("demo/bot/hooks/memory.ts")).unwrap();
    insta::assert_snapshot!("refused", transcript(dir.path(), &["init", "demo"]));
    assert_eq!(std::fs::read_to_string(&usage).unwrap(), "// mine\n");
    assert!(!dir.path().join("demo/bot/hooks/memory.ts").exists(), "nothing was written, not even a missing file");

    let forced = agent_sdk(dir.path(), &["init", "demo", "--force"]);
    assert_eq!(exit_code(&forced), 0, "{}", text(&forced));
    assert!(std::fs::read_to_string(&usage).unwrap().contains("defineHook"));
    assert!(text(&forced).contains("bot/hooks/usage.ts           overwritten (--force)"), "{}", text(&forced));
}

#[test]
fn a_package_json_is_kept_and_a_gitignore_gets_only_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{ \"name\": \"acme-support\", \"version\": \"1.0.0\" }\n")
        .unwrap();
    std::fs::write(dir.path().join(".gitignore"), "node_modules\ndist/").unwrap();
    let output = agent_sdk(dir.path(), &["init", "--name", "ignored-because-package-json-names-it"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("package.json")).unwrap(),
        "{ \"name\": \"acme-support\", \"version\": \"1.0.0\" }\n"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(), "node_modules\ndist/\n.agent-sdk/\n");
    assert!(text(&output).contains("Created the agent \"acme-support\""), "{}", text(&output));
}

/// A package.json saved with a byte order mark (PowerShell, some editors) names the agent
/// all the same, as npm reads it.
#[test]
fn a_package_json_with_a_byte_order_mark_still_names_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "\u{feff}{ \"name\": \"acme-support\" }\n").unwrap();
    let output = agent_sdk(dir.path(), &["init"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("Created the agent \"acme-support\""), "{}", text(&output));
}

#[test]
fn a_project_of_the_other_layout_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agent/hooks")).unwrap();
    let output = agent_sdk(dir.path(), &["init"]);
    assert_eq!(exit_code(&output), 2);
    assert!(text(&output).contains("already has an `agent/` source folder; a project has one: use `--layout agent`"));
    assert!(!dir.path().join("bot").exists());
}

#[test]
fn the_sdk_packages_are_written_again_after_npm_install_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo"])), 0);
    let demo = dir.path().join("demo");
    // npm removes folders of node_modules/ that package.json does not name; the scaffold's
    // postinstall script writes them again. (Without the dev dependencies: no network.)
    let manifest = demo.join("package.json");
    let mut package: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    package.as_object_mut().unwrap().remove("devDependencies");
    std::fs::write(&manifest, serde_json::to_string_pretty(&package).unwrap()).unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let npm = Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund"])
        .current_dir(&demo)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(npm.status.success(), "{}", text(&npm));
    assert!(text(&npm).contains("removed 3 packages"), "npm pruned the SDK packages first: {}", text(&npm));
    for package in ["@cursor/bdk", "@grok/agent-sdk", "@cursor/july"] {
        assert!(demo.join("node_modules").join(package).join("testing.d.ts").is_file(), "{package} is back");
    }
}
