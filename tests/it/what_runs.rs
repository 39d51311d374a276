//! What runs where (SPEC §3a): `validate` and `info` run no hook code, and an extension
//! mount only as they say — once, in a Node.js with a minimal environment (no secrets of the
//! job, no `.env`), its state in the user's cache (nothing written into the checkout), and
//! every process it started ended with it; `--no-exec` and the settings' `noExec` run no
//! code at all. The mount of `fixtures/extensions/spy` does what a hostile pull request
//! could: it reads the secrets it can see, starts a detached process and writes what it saw
//! to `$TMPDIR/spy.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, agent_sdk, copy_fixture, exit_code, files_of, still_runs};

/// One command's run on a copy of the spy project.
struct Spied {
    /// What a user sees: the command, exit code, stdout and stderr.
    transcript: String,
    /// What the mount saw, when it ran.
    seen: Option<Value>,
    /// Every file of the project after the command.
    files_after: Vec<String>,
}

/// A copy of the spy project with its own temporary and cache folders.
struct SpyProject {
    project: tempfile::TempDir,
    tmp: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl SpyProject {
    fn new() -> Self {
        Self {
            project: copy_fixture("extensions", "spy"),
            tmp: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
        }
    }

    fn dir(&self) -> &Path {
        self.project.path()
    }

    /// `agent-sdk <args>` in the project, as a CI job with secrets in its environment runs it.
    fn run(&self, args: &[&str]) -> Spied {
        let _ = std::fs::remove_file(self.spy_file());
        let output = agent_sdk()
            .args(args)
            .current_dir(self.dir())
            .env("NO_COLOR", "1")
            .env("GITHUB_TOKEN", "ghs_job_secret")
            .env("BUILDKITE_TOKEN", "bk_passed_on_purpose")
            .env("TMPDIR", self.tmp.path())
            .env("XDG_CACHE_HOME", self.cache.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut transcript = format!("$ agent-sdk {}\nexit: {}\n", args.join(" "), exit_code(&output));
        for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            if !text.is_empty() {
                transcript.push_str(&format!("----- {name} -----\n{text}"));
            }
        }
        let seen = std::fs::read_to_string(self.spy_file()).ok().map(|text| serde_json::from_str(&text).unwrap());
        Spied { transcript, seen, files_after: files_of(self.dir()) }
    }

    fn spy_file(&self) -> PathBuf {
        self.tmp.path().join("spy.json")
    }
}

/// Whether the process the mount started has ended, given a few seconds to (it is killed
/// when the check ends, then reaped by whoever adopted it).
fn ended(pid: &Value) -> bool {
    let pid = pid.to_string();
    for _ in 0..100 {
        if !still_runs(&pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Not left behind by the test either.
    let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
    false
}

#[test]
fn validate_runs_a_mount_without_the_job_s_secrets_writes_nothing_and_ends_what_it_started() {
    let spy = SpyProject::new();
    let before = files_of(spy.dir());
    let ran = spy.run(&["validate"]);
    insta::assert_snapshot!("validate_runs_the_mount", ran.transcript);
    let seen = ran.seen.expect("the mount ran");
    assert_eq!(seen["githubToken"], Value::Null, "the job's secret reached the mount: {seen}");
    assert_eq!(seen["dotenvSecret"], Value::Null, "the project's .env reached the mount: {seen}");
    assert_eq!(seen["buildkiteToken"], Value::Null, "{seen}");
    assert_eq!(seen["hasPath"], true, "{seen}");
    assert!(ended(&seen["sleeper"]), "the mount's detached process outlived validate");
    assert_eq!(ran.files_after, before, "validate wrote into the project");
    // Its state went to the user's cache instead.
    let checks = spy.cache.path().join("agent-sdk/checks");
    let folders = files_of(&checks);
    assert!(folders.iter().any(|path| path.ends_with("state.db")), "{folders:?}");
}

#[test]
fn info_runs_the_mount_as_validate_does() {
    let spy = SpyProject::new();
    let before = files_of(spy.dir());
    let ran = spy.run(&["info"]);
    insta::assert_snapshot!("info_runs_the_mount", ran.transcript);
    let seen = ran.seen.expect("the mount ran");
    assert_eq!(seen["githubToken"], Value::Null, "{seen}");
    assert!(ended(&seen["sleeper"]), "the mount's detached process outlived info");
    assert_eq!(ran.files_after, before, "info wrote into the project");
}

#[test]
fn pass_env_gives_the_mount_the_one_variable_it_names() {
    let spy = SpyProject::new();
    let ran = spy.run(&["validate", "--pass-env", "BUILDKITE_TOKEN"]);
    let seen = ran.seen.expect("the mount ran");
    assert_eq!(seen["buildkiteToken"], "bk_passed_on_purpose", "{seen}");
    assert_eq!(seen["githubToken"], Value::Null, "{seen}");
    assert!(ended(&seen["sleeper"]));
}

#[test]
fn no_exec_runs_no_code_and_says_per_mount_what_was_not_checked() {
    let spy = SpyProject::new();
    let before = files_of(spy.dir());
    let transcripts: Vec<String> =
        [&["validate", "--no-exec"][..], &["info", "--no-exec"], &["validate", "--no-exec", "--format", "github"]]
            .iter()
            .map(|args| {
                let ran = spy.run(args);
                assert!(ran.seen.is_none(), "the mount ran under {args:?}");
                assert_eq!(ran.files_after, before, "{args:?} wrote into the project");
                ran.transcript
            })
            .collect();
    insta::assert_snapshot!("no_exec", transcripts.join("\n"));
    let ran = spy.run(&["info", "--no-exec", "--json"]);
    let info: Value = serde_json::from_str(
        ran.transcript.split("----- stdout -----\n").nth(1).unwrap().split("----- stderr").next().unwrap(),
    )
    .unwrap();
    let extension = &info["agents"][0]["extensions"][0];
    assert_eq!(extension["namespace"], "spy");
    assert_eq!(extension["ran"], false, "{extension}");
    // Without the flag, the same document says it ran.
    let ran = spy.run(&["info", "--json"]);
    assert!(ran.transcript.contains("\"ran\": true"), "{}", ran.transcript);
}

#[test]
fn the_settings_no_exec_forbids_running_code_as_the_flag_does() {
    let spy = SpyProject::new();
    std::fs::write(spy.dir().join("agent-sdk.json"), "{ \"noExec\": true }\n").unwrap();
    let ran = spy.run(&["validate", "--format", "concise"]);
    assert!(ran.seen.is_none(), "the mount ran: {}", ran.transcript);
    insta::assert_snapshot!("no_exec_in_the_settings", ran.transcript);
}

#[test]
fn a_broken_env_file_does_not_change_what_validate_says() {
    let spy = SpyProject::new();
    std::fs::write(spy.dir().join(".env"), "DOTENV_SECRET=\"never closed\nNOT A LINE\n").unwrap();
    let ran = spy.run(&["validate"]);
    assert!(ran.transcript.starts_with("$ agent-sdk validate\nexit: 0\n"), "{}", ran.transcript);
    assert!(ran.seen.is_some());
}

#[test]
fn a_rejection_under_the_minimal_environment_says_how_to_pass_a_variable() {
    let spy = SpyProject::new();
    let lib = spy.dir().join("bot/lib/spy.ts");
    let text = std::fs::read_to_string(&lib).unwrap().replace(
        "  // A detached process",
        "  if (!process.env.BUILDKITE_TOKEN) throw new Error(\"spy: BUILDKITE_TOKEN is not set\");\n  // A detached process",
    );
    std::fs::write(&lib, text).unwrap();
    let ran = spy.run(&["validate"]);
    insta::assert_snapshot!("rejected_without_the_variable", ran.transcript);
    let ran = spy.run(&["validate", "--pass-env", "BUILDKITE_TOKEN"]);
    assert!(
        ran.transcript.starts_with("$ agent-sdk validate --pass-env BUILDKITE_TOKEN\nexit: 0\n"),
        "{}",
        ran.transcript
    );
    assert!(ended(&ran.seen.unwrap()["sleeper"]));
}

#[test]
fn the_help_of_validate_says_what_runs() {
    let output = common::run_in(&common::root(), &["validate", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for promise in ["minimal environment", "--no-exec", "nothing is written into the project", "--pass-env"] {
        assert!(help.contains(promise), "{promise}: {help}");
    }
}

/// `validate FILE…` runs the mounts only when a mount file is among the files: a commit of
/// hooks alone starts no Node.js; one that touches a mount has it run, and says so.
#[test]
fn validate_of_files_runs_the_mounts_only_when_a_mount_file_is_named() {
    let spy = SpyProject::new();
    let hooks_only = spy.run(&["validate", "bot/hooks/usage.ts"]);
    assert!(hooks_only.transcript.contains("exit: 0\n"), "{}", hooks_only.transcript);
    assert!(hooks_only.seen.is_none(), "the mount ran: {}", hooks_only.transcript);
    assert!(!hooks_only.transcript.contains("extension mount"), "{}", hooks_only.transcript);
    let with_mount = spy.run(&["validate", "bot/hooks/usage.ts", "bot/extensions/spy.ts"]);
    assert!(with_mount.seen.is_some(), "the mount did not run: {}", with_mount.transcript);
    assert!(with_mount.transcript.contains("ran 1 extension mount in Node.js"), "{}", with_mount.transcript);
}
