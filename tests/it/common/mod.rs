//! Running the real binary the way a user does, and writing down what they would see.

pub mod dev_server;
pub mod model_server;
pub mod otlp;
pub mod snapshot;
pub mod sources;
pub mod store;
pub mod tls;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Set, agent-sdk does not warn of a Node.js past its end of life (docs/install.md).
pub const NO_NODE_WARNING: &str = "AGENT_SDK_NO_NODE_WARNING";

/// One `agent-sdk` invocation and what the hooks recorded during it.
pub struct Ran {
    pub output: Output,
    /// What the hooks recorded (to the file in `AGENT_SDK_TEST_RECORD`), a line each.
    pub record: Vec<String>,
}

impl Ran {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// The serve log (`run`), or whatever a command printed on stderr.
    pub fn log(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Both streams, for failure messages.
    pub fn both(&self) -> String {
        format!("----- stdout -----\n{}----- stderr -----\n{}", self.stdout(), self.log())
    }
}

/// Runs `agent-sdk <args>` in `cwd` as a user's shell would, without colour, a
/// `NODE_OPTIONS` or a model's variables of the test's own, plus `env`; the hooks record to
/// `<cwd>/record.txt`.
pub fn run_recorded(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    recorded(agent_sdk(), cwd, args, env)
}

/// [`run_recorded`] with `command`, an [`agent_sdk`] or [`agent_sdk_at`] (with what else it sets).
pub fn recorded(mut command: Command, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let record = cwd.join("record.txt");
    let _ = std::fs::remove_file(&record);
    let output = command
        .args(args)
        .current_dir(cwd)
        .env("AGENT_SDK_TEST_RECORD", &record)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env_remove("NODE_OPTIONS")
        .envs(env.iter().copied())
        .output()
        .expect("the agent-sdk binary runs");
    let record = std::fs::read_to_string(record).unwrap_or_default().lines().map(str::to_owned).collect();
    Ran { output, record }
}

/// `agent-sdk` as the tests run it: without the developer's model variables
/// (`AGENT_SDK_MODEL`, the providers' keys and base URL) and `OTEL_*` variables, so that no
/// test reaches a real model or collector, nor the CI's `GITHUB_ACTIONS`, nor the CA files
/// their machine trusts (`SSL_CERT_FILE`, …: a test names its own); and without the
/// warning for a Node.js past its end of life, so that what a test sees reads the same on
/// the suite's Node 20 as on the matrix's 22, 24 and 26 (`node_eol` tests the warning).
pub fn agent_sdk() -> Command {
    agent_sdk_at(Path::new(env!("CARGO_BIN_EXE_agent-sdk")))
}

/// [`agent_sdk`], started from `binary` (a link to it elsewhere: a test may then remove it).
pub fn agent_sdk_at(binary: &Path) -> Command {
    let mut command = Command::new(binary);
    // (`npm_config_user_agent`: the hints say `npx agent-sdk …` when npm started the binary;
    // `GITHUB_ACTIONS`: `test` adds annotations to its report in a GitHub Actions job.)
    for variable in [
        "AGENT_SDK_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_COMPATIBLE_API_KEY",
        "XAI_API_KEY",
        "npm_config_user_agent",
        "GITHUB_ACTIONS",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
    ] {
        command.env_remove(variable);
    }
    command.env(NO_NODE_WARNING, "1");
    // Nor the developer's OpenTelemetry collector: a test exports only where it says.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("OTEL_") {
            command.env_remove(key);
        }
    }
    command
}

/// The crate root: fixtures are found from here.
/// The Node.js the binary runs hooks with: `AGENT_SDK_NODE`, else `node` on PATH.
pub fn node() -> std::ffi::OsString {
    std::env::var_os("AGENT_SDK_NODE").unwrap_or_else(|| "node".into())
}

/// The major version of [`node`], e.g. 24.
pub fn node_major() -> u32 {
    major_of(node())
}

/// The major version of the Node.js `program` (a path, or a name on PATH).
pub fn major_of(program: impl AsRef<std::ffi::OsStr>) -> u32 {
    let output = Command::new(program).arg("--version").output().expect("node runs");
    let version = String::from_utf8_lossy(&output.stdout);
    version.trim().trim_start_matches('v').split('.').next().and_then(|major| major.parse().ok()).expect("a version")
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `fixtures/<group>/<case>`.
pub fn fixture(group: &str, case: &str) -> PathBuf {
    root().join("fixtures").join(group).join(case)
}

/// Runs `agent-sdk <args>` in `cwd` with a clean, colourless environment.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    agent_sdk()
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

/// `command` run to its end: its exit code, stdout and stderr as text.
pub fn outcome(mut command: Command) -> (i32, String, String) {
    let output = command.output().expect("the command runs");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (exit_code(&output), text(&output.stdout), text(&output.stderr))
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
    copy_project(&fixture(group, case))
}

/// A copy of the project folder `source` in a fresh temporary folder.
pub fn copy_project(source: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    copy_tree(source, copy.path());
    copy
}

/// Copies what is in the folder `source` into the folder `target` (made when missing).
pub fn copy_tree(source: &Path, target: &Path) {
    for entry in walkdir::WalkDir::new(source) {
        let entry = entry.unwrap();
        let to = target.join(entry.path().strip_prefix(source).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// What `npm install` makes of `"workspaces": ["packages/*"]` in the workspace at `root`:
/// `node_modules/<name>` linked to each package of `packages/` that has a name.
pub fn link_workspace_packages(root: &Path) {
    let Ok(packages) = std::fs::read_dir(root.join("packages")) else { return };
    for package in packages {
        let package = package.unwrap();
        let manifest = std::fs::read_to_string(package.path().join("package.json")).unwrap_or_default();
        let manifest = serde_json::from_str::<serde_json::Value>(&manifest).unwrap_or_default();
        let Some(name) = manifest["name"].as_str() else { continue };
        let link = root.join("node_modules").join(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        let depth = name.matches('/').count() + 1;
        let target = format!("{}packages/{}", "../".repeat(depth), package.file_name().to_string_lossy());
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &link).unwrap();
        #[cfg(windows)]
        std::os::windows::fs::symlink_dir(link.parent().unwrap().join(target), &link).unwrap();
    }
}

/// Every file and folder under `dir`, relative to it, sorted: for tests that check a command
/// wrote nothing there.
pub fn files_of(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|entry| entry.unwrap().path().strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    files
}

/// Whether the process `pid` still runs (a zombie has ended): for tests that check nothing
/// a command started is left behind.
pub fn still_runs(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(") ").next().is_some_and(|rest| !rest.starts_with('Z')))
}
