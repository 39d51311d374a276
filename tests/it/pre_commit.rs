//! The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit (`pre-commit try-repo`
//! of this repository, as a user's `.pre-commit-config.yaml` would name it) in a git
//! repository holding the example project, with the agent-sdk under test first on PATH.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

/// `pre-commit try-repo <this repository> <hook> --all-files` in `repo`.
fn try_hook(repo: &Path, hook: &str, cache: &Path) -> Output {
    let binary_dir = Path::new(env!("CARGO_BIN_EXE_agent-sdk")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(binary_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    Command::new("python3")
        .args(["-m", "pre_commit", "try-repo"])
        .arg(common::root())
        .args([hook, "--all-files", "--color", "never"])
        .current_dir(repo)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", cache)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn git(repo: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn said(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

#[test]
fn the_validate_and_test_hooks_pass_a_clean_project_and_fail_a_warning() {
    let repo = common::copy_project(&common::root().join("examples/acme-bot"));
    let _ = std::fs::remove_dir_all(repo.path().join(".agent-sdk"));
    let cache = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);

    let validated = try_hook(repo.path(), "agent-sdk-validate", cache.path());
    assert!(validated.status.success(), "{}", said(&validated));
    assert!(
        said(&validated).contains("agent-sdk validate") && said(&validated).contains("Passed"),
        "{}",
        said(&validated)
    );
    let tested = try_hook(repo.path(), "agent-sdk-test", cache.path());
    assert!(tested.status.success(), "{}", said(&tested));
    assert!(said(&tested).contains("agent-sdk test") && said(&tested).contains("Passed"), "{}", said(&tested));

    // A handler for an event that does not exist is a warning, which the hook fails on.
    std::fs::write(
        repo.path().join("bot/hooks/typo.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.complete\"() {} } });\n",
    )
    .unwrap();
    git(repo.path(), &["add", "-A"]);
    let refused = try_hook(repo.path(), "agent-sdk-validate", cache.path());
    assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
    assert!(said(&refused).contains("Failed") && said(&refused).contains("hooks::unknown-event"), "{}", said(&refused));
}
