//! The hooks of `.pre-commit-hooks.yaml`, run by the real pre-commit (`pre-commit try-repo`
//! of a repository holding that file, as a user's `.pre-commit-config.yaml` names this one)
//! in a git repository holding the example project, with the agent-sdk under test first on
//! PATH.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

/// A git repository holding this one's `.pre-commit-hooks.yaml`, committed, as pre-commit
/// clones a hook repository (so the test needs no git history of the checkout it runs in).
fn hooks_repository() -> tempfile::TempDir {
    let hooks = tempfile::tempdir().unwrap();
    std::fs::copy(common::root().join(".pre-commit-hooks.yaml"), hooks.path().join(".pre-commit-hooks.yaml")).unwrap();
    git(hooks.path(), &["init", "-q"]);
    git(hooks.path(), &["add", "-A"]);
    git(hooks.path(), &["commit", "-q", "-m", "hooks"]);
    hooks
}

/// `pre-commit try-repo <hooks> <hook> --all-files` in `repo`.
fn try_hook(repo: &Path, hooks: &Path, hook: &str, cache: &Path) -> Output {
    try_hook_on(repo, hooks, hook, cache, &["--all-files"])
}

/// `pre-commit try-repo <hooks> <hook> <files>` in `repo`: `files` is `--all-files`, or
/// `--files` and the files pre-commit passes the hook (as it passes the staged ones).
fn try_hook_on(repo: &Path, hooks: &Path, hook: &str, cache: &Path, files: &[&str]) -> Output {
    let binary_dir = Path::new(env!("CARGO_BIN_EXE_agent-sdk")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(binary_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    Command::new("python3")
        .args(["-m", "pre_commit", "try-repo"])
        .arg(hooks)
        .arg(hook)
        .args(files)
        .args(["--color", "never"])
        .current_dir(repo)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", cache)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// `git <args>` in `repo`, as a user named `t` (tests/it/action.rs makes its checkouts with it too).
pub(crate) fn git(repo: &Path, args: &[&str]) {
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
fn the_validate_and_test_hooks_pass_a_clean_project_and_validate_fails_on_a_warning() {
    let repo = common::copy_project(&common::root().join("examples/acme-bot"));
    let _ = std::fs::remove_dir_all(repo.path().join(".agent-sdk"));
    let cache = tempfile::tempdir().unwrap();
    let hooks = hooks_repository();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);

    let validated = try_hook(repo.path(), hooks.path(), "agent-sdk-validate", cache.path());
    assert!(validated.status.success(), "{}", said(&validated));
    assert!(
        said(&validated).contains("agent-sdk validate") && said(&validated).contains("Passed"),
        "{}",
        said(&validated)
    );
    let tested = try_hook(repo.path(), hooks.path(), "agent-sdk-test", cache.path());
    assert!(tested.status.success(), "{}", said(&tested));
    assert!(said(&tested).contains("agent-sdk test") && said(&tested).contains("Passed"), "{}", said(&tested));

    // Two handlers for one event is a warning (`validate` alone exits 0), which the hook
    // fails on: it denies warnings, as the scaffold's `validate` script does.
    std::fs::write(
        repo.path().join("bot/hooks/twice.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.completed\"() {}, [\"turn.completed\"]() {} } });\n",
    )
    .unwrap();
    git(repo.path(), &["add", "-A"]);
    let refused = try_hook(repo.path(), hooks.path(), "agent-sdk-validate", cache.path());
    assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
    assert!(
        said(&refused).contains("Failed") && said(&refused).contains("hooks::duplicate-event"),
        "{}",
        said(&refused)
    );
}

/// The validate hook is passed the files of the commit, and reports only their findings:
/// a commit that leaves a broken hook alone passes, one that touches it fails.
#[test]
fn the_validate_hook_checks_the_files_of_the_commit() {
    let repo = common::copy_project(&common::root().join("examples/acme-bot"));
    let _ = std::fs::remove_dir_all(repo.path().join(".agent-sdk"));
    let cache = tempfile::tempdir().unwrap();
    let hooks = hooks_repository();
    std::fs::write(
        repo.path().join("bot/hooks/typo.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.complete\"() {} } });\n",
    )
    .unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);

    let other =
        try_hook_on(repo.path(), hooks.path(), "agent-sdk-validate", cache.path(), &["--files", "bot/hooks/pager.ts"]);
    assert!(other.status.success(), "{}", said(&other));
    let touched =
        try_hook_on(repo.path(), hooks.path(), "agent-sdk-validate", cache.path(), &["--files", "bot/hooks/typo.ts"]);
    assert_eq!(touched.status.code(), Some(1), "{}", said(&touched));
    assert!(said(&touched).contains("hooks::unknown-event"), "{}", said(&touched));
    assert!(said(&touched).contains("bot/hooks/typo.ts:2"), "{}", said(&touched));
}
