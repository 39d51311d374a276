//! Runs the mount files in Node, once, to learn what each mounts: the extension's factory
//! runs (a throw is it rejecting its options) and its hooks and settings are read; no event
//! is dispatched. The same runtime and loader as `run`, so what is learnt here is what
//! `run` loads. A mount whose import ends Node or never yields is told as such, and the
//! mounts after it are run in a fresh Node.

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use crate::protocol::{FromNode, InitCtx, Manifest, MountProblem, MountProblemKind, MountToImport, Mounted, ToNode};
use crate::runtime::host::{FromRuntime, Runtime, RuntimeConfig, check_node_version, diagnose_node};

/// Past the hook timeout, how long an import that never yields gets before Node is killed.
const KILL_GRACE: Duration = Duration::from_millis(500);

/// One mount file to run: its namespace and `file://` URL.
pub struct ToRun {
    pub namespace: String,
    pub url: String,
}

/// Runs `mounts` in Node with the loader serving `manifest`; what each mounted, in order.
/// Only a Node that cannot start (or is too old) is an `Err`.
pub fn run_mounts(
    config: &RuntimeConfig,
    manifest: &Manifest,
    mounts: &[ToRun],
    timeout: Duration,
) -> anyhow::Result<Vec<Mounted>> {
    let mut results: Vec<Mounted> = Vec::with_capacity(mounts.len());
    while results.len() < mounts.len() {
        let rest = &mounts[results.len()..];
        match run_in_one_node(config, manifest, rest, timeout, &mut results)? {
            Finished::All => {}
            Finished::Ended(reason) => results.push(ended(reason)),
        }
    }
    Ok(results)
}

enum Finished {
    All,
    /// The mount being run ended Node (or never yielded): why, said to the user.
    Ended(String),
}

fn ended(reason: String) -> Mounted {
    Mounted {
        problem: Some(MountProblem { kind: MountProblemKind::Ended, message: reason, stack: None }),
        ..Mounted::default()
    }
}

/// Runs `mounts` in one Node, pushing each result, until all are done or one ends it.
fn run_in_one_node(
    config: &RuntimeConfig,
    manifest: &Manifest,
    mounts: &[ToRun],
    timeout: Duration,
    results: &mut Vec<Mounted>,
) -> anyhow::Result<Finished> {
    let mut runtime = Runtime::start(config)?;
    runtime.send(&ToNode::Init {
        hooks: Vec::new(),
        ctx: &InitCtx::Empty {},
        timeout_ms: timeout.as_millis() as u64,
        timeout_text: crate::time::clock::format_duration(timeout),
        manifest,
        otel_api_version: config.otel.version(),
        tracing: false,
    })?;
    let mounts_to_import =
        mounts.iter().map(|mount| MountToImport { namespace: &mount.namespace, url: &mount.url }).collect();
    runtime.send(&ToNode::Mount { mounts: mounts_to_import })?;
    let mut said_hello = false;
    let mut early_stderr: Vec<String> = Vec::new();
    let mut loading: Option<Instant> = None;
    loop {
        let wait = loading.map_or(timeout + Duration::from_secs(30), |since| {
            (since + timeout + KILL_GRACE).saturating_duration_since(Instant::now())
        });
        match runtime.messages.recv_timeout(wait) {
            Ok(FromRuntime::Message(message)) => match message {
                FromNode::Hello { node } => {
                    said_hello = true;
                    if let Err(too_old) = check_node_version(&node) {
                        runtime.kill();
                        return Err(too_old.into());
                    }
                }
                FromNode::Loading { .. } => loading = Some(Instant::now()),
                FromNode::Mounted { mounted, .. } => {
                    loading = None;
                    results.push(mounted);
                }
                FromNode::MountsDone => {
                    runtime.shutdown();
                    return Ok(Finished::All);
                }
                _ => {}
            },
            Ok(FromRuntime::Output { line, .. }) if !said_hello => early_stderr.push(line),
            // (A mount's import has no ctx to call with.)
            Ok(FromRuntime::Output { .. } | FromRuntime::CallFailed { .. }) => {}
            Ok(FromRuntime::Exited) | Err(RecvTimeoutError::Disconnected) => {
                if !said_hello {
                    while let Ok(FromRuntime::Output { line, .. }) =
                        runtime.messages.recv_timeout(Duration::from_millis(100))
                    {
                        early_stderr.push(line);
                    }
                    return Err(diagnose_node(&config.node, &early_stderr).into());
                }
                runtime.kill();
                return Ok(Finished::Ended(
                    "it ended Node.js while it loaded (process.exit, or a crash at import)".to_owned(),
                ));
            }
            Err(RecvTimeoutError::Timeout) if loading.is_some() => {
                runtime.kill();
                return Ok(Finished::Ended(format!(
                    "its import did not finish within {} (it never yielded)",
                    crate::time::clock::format_duration(timeout)
                )));
            }
            Err(RecvTimeoutError::Timeout) => {
                runtime.kill();
                anyhow::bail!("the hook runtime did not answer while the mounts were loaded");
            }
        }
    }
}
