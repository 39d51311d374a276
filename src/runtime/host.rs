//! The hook runtime process: one long-lived Node.js child speaking NDJSON on stdin/stdout
//! (the protocol is documented at the top of `node/host.mjs`). This module starts it,
//! sends it messages, hands its messages on, and kills it when asked.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};

use anyhow::Context;
use serde_json::Value;

/// The runtime's files, embedded in the binary and written under the state root.
const RUNTIME_FILES: &[(&str, &str)] = &[
    ("host.mjs", include_str!("node/host.mjs")),
    ("loader.mjs", include_str!("node/loader.mjs")),
    ("sdk/hooks.cjs", include_str!("node/sdk/hooks.cjs")),
    ("sdk/hooks.mjs", include_str!("node/sdk/hooks.mjs")),
    ("sdk/memory.cjs", include_str!("node/sdk/memory.cjs")),
    ("sdk/memory.mjs", include_str!("node/sdk/memory.mjs")),
    ("sdk/index.cjs", include_str!("node/sdk/index.cjs")),
    ("sdk/index.mjs", include_str!("node/sdk/index.mjs")),
];

/// The oldest Node.js with `module.register` (loader hooks without a flag).
pub const MIN_NODE: (u32, u32) = (20, 6);

/// What the runtime said, or that it went away.
#[derive(Debug)]
pub enum FromRuntime {
    Message(Value),
    /// A line the runtime (not a hook) wrote to stderr: Node's own errors.
    Stderr(String),
    /// stdout closed: the process exited or is about to.
    Exited,
}

/// Where the runtime's pieces are.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    pub node: PathBuf,
    pub project_root: PathBuf,
    pub compiled_root: PathBuf,
    pub runtime_dir: PathBuf,
}

/// One running Node process.
pub struct Runtime {
    child: Child,
    stdin: std::io::BufWriter<ChildStdin>,
    pub messages: Receiver<FromRuntime>,
}

/// Finds `node` and checks it is new enough; the error says what to do.
pub fn find_node() -> anyhow::Result<PathBuf> {
    let node = std::env::var_os("AGENT_SDK_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from);
    let output = Command::new(&node).arg("--version").output().map_err(|_| {
        anyhow::anyhow!(
            "Node.js was not found (`{}`); hooks run in Node.js ≥ 20.6: install it from https://nodejs.org",
            node.display()
        )
    })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let mut parts = version.trim_start_matches('v').split('.').map(|part| part.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if found < MIN_NODE {
        anyhow::bail!(
            "Node.js {version} is too old: hooks need Node.js ≥ {}.{} (for module.register); upgrade it from https://nodejs.org",
            MIN_NODE.0,
            MIN_NODE.1
        );
    }
    Ok(node)
}

/// Writes the embedded runtime files into `runtime_dir`, and the SDK packages into the
/// compiled tree's `node_modules` for `require` (ESM imports go through the loader, but
/// Node 20's `require` does not, so `.cjs` hooks find the SDK as a package there).
pub fn install_runtime(runtime_dir: &Path, compiled_root: &Path) -> std::io::Result<()> {
    for (name, text) in RUNTIME_FILES {
        write_if_changed(&runtime_dir.join(name), text)?;
    }
    let sdk_dir = runtime_dir.canonicalize()?.join("sdk");
    for package in crate::sdk::SDK_PACKAGES {
        let package_dir = compiled_root.join("node_modules").join(package);
        let manifest = serde_json::json!({
            "name": package,
            "private": true,
            "exports": { ".": "./index.cjs", "./hooks": "./hooks.cjs", "./memory": "./memory.cjs" },
        });
        write_if_changed(&package_dir.join("package.json"), &manifest.to_string())?;
        for module in ["index", "hooks", "memory"] {
            let target = serde_json::to_string(&sdk_dir.join(format!("{module}.cjs"))).unwrap_or_default();
            write_if_changed(
                &package_dir.join(format!("{module}.cjs")),
                &format!("module.exports = require({target});\n"),
            )?;
        }
    }
    Ok(())
}

/// Writes `text` to `path` unless it already holds exactly that, so a warm start writes nothing.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}

impl Runtime {
    pub fn start(config: &RuntimeConfig) -> anyhow::Result<Self> {
        let mut child = Command::new(&config.node)
            .arg("--enable-source-maps")
            .arg(config.runtime_dir.join("host.mjs"))
            .env("AGENT_SDK_PROJECT_ROOT", &config.project_root)
            .env("AGENT_SDK_COMPILED_ROOT", &config.compiled_root)
            .env("AGENT_SDK_RUNTIME_DIR", &config.runtime_dir)
            // For `require` in `.cjs` hooks: the project's packages (ESM goes through the loader).
            .env("NODE_PATH", config.project_root.join("node_modules"))
            .current_dir(&config.project_root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("could not start the hook runtime (node)")?;
        let (sender, messages) = channel();
        let stdout = child.stdout.take().context("the runtime has no stdout")?;
        let stderr = child.stderr.take().context("the runtime has no stderr")?;
        let stdin = child.stdin.take().context("the runtime has no stdin")?;
        let protocol = |line: String| match serde_json::from_str(&line) {
            Ok(message) => FromRuntime::Message(message),
            Err(_) => FromRuntime::Stderr(line),
        };
        spawn_reader(stdout, sender.clone(), protocol, true);
        spawn_reader(stderr, sender, FromRuntime::Stderr, false);
        Ok(Self { child, stdin: std::io::BufWriter::new(stdin), messages })
    }

    /// Queues a message; [`Runtime::flush`] sends what is queued.
    pub fn send(&mut self, message: &Value) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.stdin, message)?;
        self.stdin.write_all(b"\n")
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.stdin.flush()
    }

    /// Ends the process at once (a handler that never yields, or a restart).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The exit status, once the process has ended.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Asks the runtime to finish and waits for it.
    pub fn shutdown(mut self) {
        let _ = self.send(&serde_json::json!({ "t": "shutdown" }));
        let _ = self.flush();
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// Reads `stream` line by line on its own thread, sending each line (mapped) on `sender`,
/// and [`FromRuntime::Exited`] at its end when `report_end`.
fn spawn_reader(
    stream: impl std::io::Read + Send + 'static,
    sender: Sender<FromRuntime>,
    map: impl Fn(String) -> FromRuntime + Send + 'static,
    report_end: bool,
) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if sender.send(map(line)).is_err() {
                return;
            }
        }
        if report_end {
            let _ = sender.send(FromRuntime::Exited);
        }
    });
}
