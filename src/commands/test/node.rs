//! Node's built-in test runner (`node --test`), started on the test files with agent-sdk's
//! loader imported first into each of its processes (`test-setup.mjs`), so tests load the
//! project's code exactly as `run` loads the hooks.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::Context;

use crate::exit_status::Exit;
use crate::platform::process::{die_with_parent, kill_group, own_process_group};
use crate::runtime::node_version::{NodeUnusable, NodeUse, NodeVersion, read_version, version_command};
use crate::session::SessionSetup;

/// The check that the Node.js of `setup` can run the tests: `node --version`, started at
/// once (with the environment files' variables, as the tests get them) and awaited only
/// before the first run, so it costs nothing while the tests compile.
pub struct NodeCheck {
    node: PathBuf,
    env: Vec<(String, String)>,
    started: std::sync::Mutex<Option<std::io::Result<Child>>>,
    /// The verdict, once awaited.
    verdict: std::sync::OnceLock<Result<NodeVersion, NodeUnusable>>,
}

impl NodeCheck {
    pub fn start(setup: &SessionSetup) -> Self {
        let child = version_command(&setup.node, &setup.env).spawn();
        Self {
            node: setup.node.clone(),
            env: setup.env.clone(),
            started: std::sync::Mutex::new(Some(child)),
            verdict: Default::default(),
        }
    }

    /// The version of the Node.js that runs the tests; refused when it is missing, refuses
    /// to start (a bad `NODE_OPTIONS`) or is too old (exit 2).
    pub fn usable(&self) -> anyhow::Result<NodeVersion> {
        let verdict = self.verdict.get_or_init(|| {
            let started = self.started.lock().ok().and_then(|mut started| started.take());
            let answered = match started {
                Some(child) => child.and_then(Child::wait_with_output),
                None => version_command(&self.node, &self.env).output(),
            };
            read_version(&self.node, &self.env, answered, NodeUse::Tests)
        });
        verdict.clone().map_err(Into::into)
    }
}

/// The manifest of one run, in the state root's `tests/` while the run lasts.
pub struct ManifestFile(PathBuf);

impl ManifestFile {
    pub fn write(setup: &SessionSetup, manifest: &crate::protocol::Manifest) -> anyhow::Result<Self> {
        let path = setup.state_root.path().join("tests").join(format!("manifest-{}.json", std::process::id()));
        if let Some(parent) = path.parent() {
            crate::fs::create_private_dir_all(parent).context("could not write the tests' manifest")?;
        }
        let text = serde_json::to_vec(manifest).context("could not write the tests' manifest")?;
        crate::fs::write_atomically(&path, &text).context("could not write the tests' manifest")?;
        Ok(Self(path))
    }
}

impl Drop for ManifestFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Node's exit code for an option it does not know or that lacks its value.
const NODE_INVALID_ARGUMENT: i32 = 9;

/// A running `node --test`, with every process it started in a process group of its own.
pub struct TestRunner {
    child: Child,
}

impl TestRunner {
    /// Starts Node's test runner in the project folder on `files` (relative to it), with
    /// `options` (its reporters and the rest) before them; its reports go where they say.
    pub fn start(
        setup: &SessionSetup,
        manifest: &ManifestFile,
        files: &[&str],
        options: &[std::ffi::OsString],
        color: bool,
    ) -> anyhow::Result<Self> {
        let mut command = Command::new(&setup.node);
        own_process_group(&mut command);
        die_with_parent(&mut command);
        command
            .arg("--enable-source-maps")
            .arg("--import")
            .arg(crate::text::uri::file_url(&setup.runtime_dir.join("test-setup.mjs")))
            .arg("--test")
            .args(options)
            .args(files)
            .envs(setup.env.iter().map(|(key, value)| (key, value)))
            .env("AGENT_SDK_TEST_MANIFEST", &manifest.0)
            // For modules no string literal imports (`agent-sdk __load-module`): a path that
            // starts this binary even after an upgrade replaced it (`test --watch` lives long).
            .env("AGENT_SDK_EXE", crate::process::running_binary::path())
            .env("AGENT_SDK_PROJECT_ROOT", &setup.project.canonical_dir)
            .current_dir(&setup.project.canonical_dir)
            .stdin(Stdio::null());
        // The report's colours follow agent-sdk's (`--color`, NO_COLOR, a terminal).
        if color {
            command.env("FORCE_COLOR", "1").env_remove("NO_COLOR");
        } else {
            command.env("NO_COLOR", "1").env_remove("FORCE_COLOR");
        }
        let child = command.spawn().with_context(|| not_started(&setup.node))?;
        Ok(Self { child })
    }

    /// Whether every test passed, once Node has finished (`None` while it runs). Node
    /// refusing an option (exit 9, as for one after `--`) is a usage error (exit 2).
    pub fn passed(&mut self) -> anyhow::Result<Option<bool>> {
        let status = self.child.try_wait().context("lost track of the Node.js test runner")?;
        if status.is_some() {
            // What a test started and left running ends with the run.
            kill_group(self.child.id());
        }
        if status.is_some_and(|status| status.code() == Some(NODE_INVALID_ARGUMENT)) {
            return Err(Exit::usage("Node.js refused an option of its test runner (see above); the arguments after `--` go to it as they are").into());
        }
        Ok(status.map(|status| status.success()))
    }

    /// Ends the run at once, with every test process it started.
    pub fn kill(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for TestRunner {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

fn not_started(node: &Path) -> String {
    format!("could not start the Node.js test runner (`{}`)", node.display())
}
