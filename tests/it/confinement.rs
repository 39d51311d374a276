//! What a run writes stays where it belongs and is for its user only: the state root is
//! private (0700), and a session id cannot move the state anywhere else.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{copy_fixture, exit_code, run_recorded};

/// The permission bits of `path`.
fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_state_root_and_every_folder_in_it_are_private() {
    // The `state` fixture fills every part of the state root: the store, compiled
    // modules, and session and deployment files.
    let dir = copy_fixture("run", "state");
    let ran = run_recorded(dir.path(), &["run", "--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    let root = dir.path().join(".agent-sdk");
    assert_eq!(mode(&root), 0o700, "the state root");
    let folders: Vec<_> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|entry| entry.file_type().is_dir())
        .collect();
    assert!(folders.len() > 4, "files/, cache/, sessions/ and more: {folders:?}");
    for folder in folders {
        assert_eq!(mode(folder.path()) & 0o077, 0, "{} is open to others", folder.path().display());
    }
}

/// The runtime's own files (the host, the SDK) are written once into the user's cache, in a
/// private folder named after their content, not into each project: a fresh checkout's first
/// run writes none of them, and a second project runs from the same set.
#[test]
fn the_runtime_s_files_are_written_once_into_the_user_s_cache() {
    let cache = tempfile::tempdir().unwrap();
    let cache_env = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let (first, second) = (copy_fixture("run", "state"), copy_fixture("run", "state"));
    for dir in [&first, &second] {
        let ran = run_recorded(dir.path(), &["run", "--message", "hi"], &cache_env);
        assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
        assert!(!dir.path().join(".agent-sdk/runtime").exists(), "no runtime files in the project");
    }
    let sets: Vec<_> =
        std::fs::read_dir(cache.path().join("agent-sdk/runtime")).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(sets.len(), 1, "one set for both projects: {sets:?}");
    assert!(sets[0].join("host.mjs").is_file() && sets[0].join("sdk/hooks.mjs").is_file());
    assert_eq!(mode(&sets[0]) & 0o077, 0, "the set is private");
}

/// Without a cache folder (no HOME nor XDG_CACHE_HOME), or one that cannot be written, the
/// runtime's files go under the project's state root, and the run works the same.
#[test]
fn without_a_cache_folder_the_runtime_s_files_go_into_the_state_root() {
    let unwritable = tempfile::tempdir().unwrap();
    let blocked = unwritable.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    for env in [vec![("HOME", ""), ("XDG_CACHE_HOME", "")], vec![("XDG_CACHE_HOME", blocked.to_str().unwrap())]] {
        let dir = copy_fixture("run", "state");
        let ran = run_recorded(dir.path(), &["run", "--message", "hi"], &env);
        assert_eq!(exit_code(&ran.output), 0, "{env:?}: {}", ran.log());
        assert!(dir.path().join(".agent-sdk/runtime/host.mjs").is_file(), "{env:?}");
    }
}

#[test]
fn an_existing_state_root_keeps_the_mode_its_user_gave_it() {
    let dir = copy_fixture("run", "state");
    let root = dir.path().join(".agent-sdk");
    std::fs::create_dir(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o750)).unwrap();
    let ran = run_recorded(dir.path(), &["run", "--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.log());
    assert_eq!(mode(&root), 0o750);
    assert_eq!(mode(&root.join("files")), 0o700, "what agent-sdk creates in it is private");
}

/// A project in a fresh temporary folder whose one hook writes through `dangling.txt` in
/// both scopes: it catches the session one (and records what happened) and lets the
/// deployment one throw.
fn project_writing_through_links() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{ \"name\": \"confined\" }\n").unwrap();
    std::fs::create_dir_all(dir.path().join("bot/hooks")).unwrap();
    let hook = r#"import { appendFileSync } from "node:fs";
import { defineHook } from "@cursor/bdk/hooks";

const record = (line: string) => appendFileSync(process.env.AGENT_SDK_TEST_RECORD!, line + "\n");

export default defineHook({
  events: {
    async "turn.completed"(event, ctx) {
      for (const path of ["dangling.txt", "gone/inside.txt", "fine/new.txt"]) {
        try {
          await ctx.host.files.write(path, "written");
          record(`wrote ${path}`);
        } catch (error) {
          record(`refused ${path}: ${(error as Error).message}`);
        }
      }
      record(`read ${await ctx.host.files.read("dangling.txt").catch(() => "refused")}`);
      record(`append ${await ctx.host.files.append("dangling.txt", "appended").then(() => "appended", (error: Error) => error.message)}`);
      await ctx.host.files.write("dangling.txt", "written", { scope: "deployment" });
      record("wrote the deployment link");
    },
  },
});
"#;
    std::fs::write(dir.path().join("bot/hooks/files.ts"), hook).unwrap();
    dir
}

#[test]
fn a_link_to_nothing_in_the_files_scope_is_not_written_through() {
    let dir = project_writing_through_links();
    let outside = tempfile::tempdir().unwrap();
    let session = dir.path().join(".agent-sdk/files/sessions/ses_links");
    let deployment = dir.path().join(".agent-sdk/files/deployment");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::create_dir_all(&deployment).unwrap();
    std::os::unix::fs::symlink(outside.path().join("session.txt"), session.join("dangling.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("gone"), session.join("gone")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("deployment.txt"), deployment.join("dangling.txt")).unwrap();

    let ran = run_recorded(dir.path(), &["run", "--event", "turn.completed", "--session", "ses_links"], &[]);
    let refused = "goes through a link that leads nowhere; it is not followed";
    assert_eq!(
        ran.record,
        [
            format!("refused dangling.txt: ctx.host.files: `dangling.txt` {refused}"),
            format!("refused gone/inside.txt: ctx.host.files: `gone/inside.txt` {refused}"),
            "wrote fine/new.txt".to_owned(),
            "read refused".to_owned(),
            format!("append ctx.host.files: `dangling.txt` {refused}"),
        ],
        "{}",
        ran.log()
    );
    assert_eq!(exit_code(&ran.output), 3, "the deployment write threw: {}", ran.log());
    assert!(ran.log().contains(&format!("threw: ctx.host.files: `dangling.txt` {refused}")), "{}", ran.log());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was created outside");
    assert_eq!(std::fs::read_to_string(session.join("fine/new.txt")).unwrap(), "written");
}

#[test]
fn a_session_id_that_is_not_one_is_a_usage_error_and_nothing_is_written() {
    let parent = tempfile::tempdir().unwrap();
    let dir = copy_fixture("run", "state");
    let long = "s".repeat(129);
    let absolute = parent.path().join("x").display().to_string();
    for id in ["../../x", absolute.as_str(), "a/b", "", ".", "ses 1", "ses\u{1b}[31m", long.as_str()] {
        let ran = run_recorded(dir.path(), &["run", "--message", "hi", "--session", id], &[]);
        assert_eq!(exit_code(&ran.output), 2, "{id:?}: {}", ran.log());
        assert!(ran.log().contains("is not a session id: use 1 to 128 letters, digits, `_` or `-`"), "{}", ran.log());
        assert!(!ran.log().contains('\u{1b}'), "the id is shown escaped: {}", ran.log());
        assert!(ran.record.is_empty(), "no hook ran");
        let logs = common::run_in(dir.path(), &["logs", "--session", id]);
        assert_eq!(exit_code(&logs), 2, "logs --session {id:?}");
    }
    assert!(!dir.path().join(".agent-sdk").exists(), "nothing was written");
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    let ok = run_recorded(dir.path(), &["run", "--message", "hi", "--session", &"s".repeat(128)], &[]);
    assert_eq!(exit_code(&ok.output), 0, "128 characters are fine: {}", ok.log());
}
