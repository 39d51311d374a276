//! Running the real binary the way a user does, and writing down what they would see.

#![allow(dead_code)] // Each test crate uses a different part of this.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate root: fixtures are found from here.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `fixtures/<group>/<case>`.
pub fn fixture(group: &str, case: &str) -> PathBuf {
    root().join("fixtures").join(group).join(case)
}

/// Runs `agent-sdk <args>` in `cwd` with a clean, colourless environment.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-sdk"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env("NO_COLOR", "1")
        .output()
        .expect("the agent-sdk binary runs")
}

/// What a user sees from `agent-sdk <args>` run in `cwd`: the command, exit code, stdout, stderr.
pub fn transcript(cwd: &Path, args: &[&str]) -> String {
    let output = run_in(cwd, args);
    let mut text = format!("$ agent-sdk {}\nexit: {}\n", args.join(" "), exit_code(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !stdout.is_empty() {
        text.push_str("----- stdout -----\n");
        text.push_str(&stdout);
    }
    if !stderr.is_empty() {
        text.push_str("----- stderr -----\n");
        text.push_str(&stderr);
    }
    text
}

pub fn exit_code(output: &Output) -> i32 {
    output.status.code().unwrap_or_else(|| panic!("killed by a signal: {:?}", output.status))
}

/// Runs every given command in `cwd` and joins their transcripts.
pub fn transcripts(cwd: &Path, commands: &[&[&str]]) -> String {
    commands.iter().map(|args| transcript(cwd, args)).collect::<Vec<_>>().join("\n")
}

/// A copy of `fixtures/<group>/<case>` in a fresh temporary folder, so a test's state
/// (`.agent-sdk/`) starts empty and never lands in the repository.
pub fn copy_fixture(group: &str, case: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    let source = fixture(group, case);
    for entry in walkdir::WalkDir::new(&source) {
        let entry = entry.unwrap();
        let target = copy.path().join(entry.path().strip_prefix(&source).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    copy
}
