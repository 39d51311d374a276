//! The hook runtime process: one long-lived Node.js child speaking NDJSON on stdin/stdout
//! (the protocol is documented at the top of `node/host.mjs`). This module starts it,
//! sends it messages, hands its messages on, and kills it when asked.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};

use anyhow::Context;
use serde_json::Value;

use crate::runtime::calls::HostCalls;

/// The runtime's files, embedded in the binary and written under the state root.
const RUNTIME_FILES: &[(&str, &str)] = &[
    ("host.mjs", include_str!("node/host.mjs")),
    ("loader.mjs", include_str!("node/loader.mjs")),
    ("on-demand.mjs", include_str!("node/on-demand.mjs")),
    ("helpers/decorate.cjs", include_str!("node/helpers/decorate.cjs")),
    ("helpers/decorateMetadata.cjs", include_str!("node/helpers/decorateMetadata.cjs")),
    ("helpers/decorateParam.cjs", include_str!("node/helpers/decorateParam.cjs")),
    ("helpers/usingCtx.cjs", include_str!("node/helpers/usingCtx.cjs")),
    ("sdk/hooks.cjs", include_str!("node/sdk/hooks.cjs")),
    ("sdk/hooks.mjs", include_str!("node/sdk/hooks.mjs")),
    ("sdk/memory.cjs", include_str!("node/sdk/memory.cjs")),
    ("sdk/memory.mjs", include_str!("node/sdk/memory.mjs")),
    ("sdk/index.cjs", include_str!("node/sdk/index.cjs")),
    ("sdk/index.mjs", include_str!("node/sdk/index.mjs")),
];

/// The oldest Node.js hooks run in (SPEC §8).
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

/// Where the runtime's pieces are, and whose `ctx` calls it makes.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    pub node: PathBuf,
    /// The project folder, absolute with links resolved: Node's working directory.
    pub project_root: PathBuf,
    pub runtime_dir: PathBuf,
    /// Variables from `.env` files, added to Node's environment.
    pub env: Vec<(String, String)>,
    /// `--dir`, whose state store answers the calls.
    pub project_dir: PathBuf,
    pub session_id: String,
}

/// Lines for the runtime's stdin (each a whole message), shared by the dispatcher and the
/// thread answering calls and written in order by a thread of their own: neither ever
/// waits on Node reading them. A handler that never yields stops Node reading its stdin;
/// a sender blocked on a full pipe then would keep the watchdog that kills it from running.
type Stdin = Sender<Vec<u8>>;

/// One running Node process.
pub struct Runtime {
    child: Child,
    stdin: Stdin,
    pub messages: Receiver<FromRuntime>,
}

/// The `node` to run: `AGENT_SDK_NODE`, else `node` on PATH.
pub fn node_command() -> PathBuf {
    std::env::var_os("AGENT_SDK_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from)
}

/// A Node.js that cannot run hooks (exit 2: an environment error).
#[derive(Debug)]
pub struct NodeUnusable(pub String);

impl std::fmt::Display for NodeUnusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NodeUnusable {}

fn not_found(node: &Path) -> NodeUnusable {
    NodeUnusable(format!(
        "Node.js was not found (`{}`); hooks run in Node.js ≥ {}.{}: install it from https://nodejs.org",
        node.display(),
        MIN_NODE.0,
        MIN_NODE.1
    ))
}

/// Checks a version the runtime reported (`20.20.2`, or `v20.20.2` from `node --version`).
pub fn check_node_version(version: &str) -> Result<(), NodeUnusable> {
    let mut parts = version.trim().trim_start_matches('v').split('.').map(|part| part.parse::<u32>().unwrap_or(0));
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if found < MIN_NODE {
        return Err(NodeUnusable(format!(
            "Node.js v{} is too old: hooks need Node.js ≥ {}.{}; upgrade it from https://nodejs.org",
            version.trim().trim_start_matches('v'),
            MIN_NODE.0,
            MIN_NODE.1
        )));
    }
    Ok(())
}

/// Why a runtime ended before it said hello, given what it wrote to stderr: Node missing,
/// too old, or Node's own message (a bad `NODE_OPTIONS`, …). Asks `node --version` (only
/// on this failure path, so a normal start runs Node once).
pub fn diagnose_node(node: &Path, stderr: &[String]) -> NodeUnusable {
    let output = match Command::new(node).arg("--version").output() {
        Err(_) => return not_found(node),
        Ok(output) => output,
    };
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success()
        && let Err(too_old) = check_node_version(&version)
    {
        return too_old;
    }
    let said: Vec<&str> = stderr.iter().map(|line| line.trim_end()).filter(|line| !line.is_empty()).collect();
    if said.is_empty() {
        NodeUnusable(format!("the hook runtime could not start with Node.js {version}"))
    } else {
        NodeUnusable(format!("Node.js could not start the hook runtime:\n{}", said.join("\n")))
    }
}

/// Writes the embedded runtime files into `runtime_dir`.
pub fn install_runtime(runtime_dir: &Path) -> std::io::Result<()> {
    for (name, text) in RUNTIME_FILES {
        write_if_changed(&runtime_dir.join(name), text)?;
    }
    Ok(())
}

/// Writes `text` to `path` unless it already holds exactly that, so a warm start writes nothing.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        crate::state::create_private_dir_all(parent)?;
    }
    // Another agent-sdk may be reading it: replace it whole, never write it in place.
    crate::loader::cache::write_atomically(path, text.as_bytes())
}

impl Runtime {
    pub fn start(config: &RuntimeConfig) -> anyhow::Result<Self> {
        let mut command = Command::new(&config.node);
        #[cfg(target_os = "linux")]
        die_with_parent(&mut command);
        let mut child = command
            .arg("--enable-source-maps")
            .arg(config.runtime_dir.join("host.mjs"))
            .envs(config.env.iter().map(|(key, value)| (key, value)))
            // For modules no string literal imports: the runtime asks this binary to
            // compile them (`agent-sdk __load-module`).
            .env("AGENT_SDK_EXE", std::env::current_exe().unwrap_or_else(|_| PathBuf::from("agent-sdk")))
            .env("AGENT_SDK_PROJECT_ROOT", &config.project_root)
            .current_dir(&config.project_root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                    anyhow::Error::new(not_found(&config.node))
                }
                _ => anyhow::Error::new(error).context("could not start the hook runtime (node)"),
            })?;
        let (sender, messages) = channel();
        let stdout = child.stdout.take().context("the runtime has no stdout")?;
        let stderr = child.stderr.take().context("the runtime has no stderr")?;
        let stdin = spawn_stdin_writer(child.stdin.take().context("the runtime has no stdin")?);
        let calls = HostCalls::open(&config.project_dir, &config.session_id)?;
        spawn_protocol_reader(stdout, sender.clone(), stdin.clone(), calls);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if sender.send(FromRuntime::Stderr(line)).is_err() {
                    return;
                }
            }
        });
        Ok(Self { child, stdin, messages })
    }

    /// Queues a message for the runtime; it never waits. A runtime that has exited is not
    /// an error here: its end reaches [`Runtime::messages`] as [`FromRuntime::Exited`],
    /// where the dispatcher restarts it and sends again.
    pub fn send(&mut self, message: &Value) -> std::io::Result<()> {
        queue_line(&self.stdin, message)
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
        let _ = self.child.wait();
    }
}

impl Drop for Runtime {
    /// A runtime never outlives its owner: one still running is killed.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

/// The runtime is killed when agent-sdk dies, however it dies (`kill -9` too): a runtime
/// spinning in a hook must never outlive the command that started it. (Linux delivers the
/// signal when the *thread* that started the runtime ends: runtimes are started by the
/// thread that owns them for their whole life, `run`'s main thread or a `dev` session's.)
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (prctl,
    // getppid, _exit) and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the request took effect.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Serializes `message` as one line and queues it for the stdin writer.
fn queue_line(stdin: &Stdin, message: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    // The writer is gone only when the runtime is: its end is noticed by its stdout closing.
    let _ = stdin.send(line);
    Ok(())
}

/// The thread that writes the runtime's stdin: whatever is queued goes out together and
/// is flushed before it waits for more. It ends when the runtime stops reading (the pipe
/// breaks) or when nobody can queue a line any more (stdin closes: the runtime finishes).
fn spawn_stdin_writer(stdin: ChildStdin) -> Stdin {
    let (lines, queue) = channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut writer = std::io::BufWriter::new(stdin);
        while let Ok(line) = queue.recv() {
            let queued = std::iter::once(line).chain(std::iter::from_fn(|| queue.try_recv().ok()));
            for line in queued {
                if writer.write_all(&line).is_err() {
                    return;
                }
            }
            if writer.flush().is_err() {
                return;
            }
        }
    });
    lines
}

/// Reads the runtime's protocol channel on its own thread. `ctx` calls are answered right
/// here, so a hook awaiting one never waits on the dispatcher; everything else, and the
/// channel's end, goes to `sender`.
fn spawn_protocol_reader(stdout: ChildStdout, sender: Sender<FromRuntime>, stdin: Stdin, calls: HostCalls) {
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let received = match serde_json::from_str::<Value>(&line) {
                Ok(message) if message["t"] == "call" => {
                    let _ = queue_line(&stdin, &calls.reply(&message));
                    continue;
                }
                Ok(message) => FromRuntime::Message(message),
                Err(_) => FromRuntime::Stderr(line),
            };
            if sender.send(received).is_err() {
                return;
            }
        }
        let _ = sender.send(FromRuntime::Exited);
    });
}
