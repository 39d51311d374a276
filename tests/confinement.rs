//! What a run writes stays where it belongs and is for its user only: the state root is
//! private (0700), and a session id cannot move the state anywhere else.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{copy_fixture, exit_code, run_recorded};

/// The permission bits of `path`.
fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_state_root_and_every_folder_in_it_are_private() {
    // The `state` fixture fills every part of the state root: the store, compiled
    // modules, the runtime's files, and session and deployment files.
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
    assert!(folders.len() > 5, "files/, cache/, runtime/ and more: {folders:?}");
    for folder in folders {
        assert_eq!(mode(folder.path()) & 0o077, 0, "{} is open to others", folder.path().display());
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
