//! Loading the hooks: `init` until `ready`. A hook whose import ends the runtime or never
//! yields is marked, reported, and skipped by a fresh runtime; what loaded is said once the
//! runtime is ready, the first time only (a restarted runtime loads the same hooks).

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::{Dispatcher, Happened, is_inspector_line, render};
use crate::protocol::{FromNode, HookToImport, ToNode};
use crate::runtime::host::{FromRuntime, Stream, check_node_version, diagnose_node};
use crate::runtime::node_version::{NodeVersion, end_of_life_warning};
use crate::runtime::slot::RuntimeState;

/// How long the runtime is waited for while a debugger is attached to it: as long as it takes.
const DEBUGGED_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long a runtime gets to say its next loading step, beyond the hook timeout, when no
/// import is under way (Node's start, the loader's compile of the first hook).
const START_PATIENCE: Duration = Duration::from_secs(30);

/// One init's progress.
#[derive(Default)]
struct Loading {
    /// How each hook's import went, in order.
    outcomes: Vec<Happened>,
    said_hello: bool,
    /// Since when the hook being imported has been.
    importing: Option<Instant>,
    /// What Node wrote before it said hello: its own reason for not starting.
    early_stderr: Vec<String>,
}

impl Dispatcher<'_> {
    /// The `init` message: every hook, those that failed to load before marked to skip.
    fn init_message(&self) -> ToNode<'_> {
        let hooks = self
            .hooks
            .iter()
            .zip(&self.not_to_load)
            .map(|(hook, skip)| HookToImport {
                name: &hook.name,
                url: &hook.url,
                source: &hook.source,
                key: hook.key.as_deref(),
                skip: skip.as_deref(),
            })
            .collect();
        ToNode::Init {
            hooks,
            ctx: &self.ctx,
            timeout_ms: self.timeout.as_millis() as u64,
            timeout_text: crate::time::clock::format_duration(self.timeout),
            manifest: &self.manifest,
            otel_api_version: self.config.otel.version(),
            tracing: self.config.telemetry.as_ref().is_some_and(|telemetry| telemetry.tracing()),
        }
    }

    /// Sends `init` and waits for `ready` (`first`: the first load, whose outcomes are said).
    pub(super) fn initialise(&mut self, first: bool) -> anyhow::Result<()> {
        self.runtime.send(&self.init_message())?;
        let mut loading = Loading::default();
        loop {
            let wait = match loading.importing {
                // A debugger may hold the runtime at a breakpoint (or before its first line,
                // with --inspect-brk) for as long as the person at it likes.
                _ if self.debugged => DEBUGGED_WAIT,
                None => self.timeout + START_PATIENCE,
                Some(since) => (since + self.timeout + self.kill_grace).saturating_duration_since(Instant::now()),
            };
            let cut_short = match self.runtime.recv_timeout(wait) {
                Ok(FromRuntime::Message(FromNode::Ready)) => {
                    self.ready(loading.outcomes, first);
                    return Ok(());
                }
                Ok(FromRuntime::Message(message)) => {
                    self.loading_message(message, &mut loading)?;
                    None
                }
                Ok(FromRuntime::Output { stream: Stream::Stderr, line, .. }) if is_inspector_line(&line) => {
                    // Said at once: the debugger's address is what the person needs now.
                    self.debugged = true;
                    self.report(Happened::Debugger { line });
                    None
                }
                Ok(FromRuntime::Output { stream: Stream::Stderr, line, .. }) if first && !loading.said_hello => {
                    loading.early_stderr.push(line);
                    None
                }
                Ok(FromRuntime::Exited) | Err(RecvTimeoutError::Disconnected) => {
                    if first && !loading.said_hello {
                        // The reader threads may still be handing on the last lines.
                        while let Ok(FromRuntime::Output { line, .. }) =
                            self.runtime.recv_timeout(Duration::from_millis(100))
                        {
                            loading.early_stderr.push(line);
                        }
                        return Err(diagnose_node(&self.config.node, &loading.early_stderr).into());
                    }
                    Some(render::ended_while_loading())
                }
                Ok(received) => {
                    self.heard(received);
                    None
                }
                Err(RecvTimeoutError::Timeout) if loading.importing.is_some() => {
                    Some(render::import_never_yielded(self.timeout))
                }
                Err(RecvTimeoutError::Timeout) => anyhow::bail!("the hook runtime did not finish loading hooks"),
            };
            if let Some(reason) = cut_short {
                self.skip_and_start_again(reason, loading.outcomes.len())?;
                loading.outcomes.clear();
                loading.importing = None;
            }
        }
    }

    /// A message of the load, before `ready`.
    fn loading_message(&mut self, message: FromNode, loading: &mut Loading) -> anyhow::Result<()> {
        match message {
            FromNode::Hello { node } => {
                loading.said_hello = true;
                for line in loading.early_stderr.drain(..) {
                    self.runtime_output(Stream::Stderr, line, RuntimeState::Starting);
                }
                if let Err(too_old) = check_node_version(&node) {
                    self.runtime.kill();
                    return Err(too_old.into());
                }
                // Said before the hooks' lines, once per invocation (not per restart, nor per
                // session of `dev`, whose start said it already).
                if let Some(warning) = NodeVersion::parse(&node).and_then(end_of_life_warning) {
                    self.report(Happened::NodePastEndOfLife { warning });
                }
            }
            FromNode::Loading { .. } => loading.importing = Some(Instant::now()),
            FromNode::Loaded { hook, .. } => {
                loading.importing = None;
                loading.outcomes.push(Happened::Loaded { hook });
            }
            FromNode::LoadFailed { hook, message, stack } => {
                loading.importing = None;
                let at = self.first_project_frame(stack.as_deref());
                loading.outcomes.push(Happened::LoadFailed { hook, reason: message, at });
            }
            other => self.handle(other),
        }
        Ok(())
    }

    /// The runtime is ready: how many hooks loaded, and (the first time) what failed to,
    /// not imported again by a restarted runtime, and each hook's outcome said.
    fn ready(&mut self, outcomes: Vec<Happened>, first: bool) {
        self.loaded = outcomes.iter().filter(|outcome| matches!(outcome, Happened::Loaded { .. })).count();
        if !first {
            return;
        }
        self.stats.load_failed = (outcomes.len() - self.loaded) as u64;
        for (skip, outcome) in self.not_to_load.iter_mut().zip(&outcomes) {
            if let (Happened::LoadFailed { reason, .. }, None) = (outcome, &skip) {
                *skip = Some(reason.clone());
            }
        }
        outcomes.into_iter().for_each(|outcome| self.report(outcome));
    }

    /// The runtime ended or hung while loading: the hook whose code called `process.exit`
    /// (a timer its import set, say), else the one being imported (the `imported`th), is
    /// not imported again by the fresh runtime started in its place.
    fn skip_and_start_again(&mut self, reason: String, imported: usize) -> anyhow::Result<()> {
        let exited_in = self.exit_call.take().and_then(|call| {
            let hook = call.hook?;
            self.hooks.iter().position(|known| known.name == hook)
        });
        let Some(skip) = self.not_to_load.get_mut(exited_in.unwrap_or(imported)) else {
            anyhow::bail!("the hook runtime exited while loading hooks");
        };
        *skip = Some(reason);
        self.runtime.start_again(&self.config)?;
        self.runtime.send(&self.init_message())?;
        Ok(())
    }
}
