//! The runtime a dispatcher hands its events to: a Node process of its own, or a session's
//! lane of one that the sessions of a `dev` server share (whose keeper starts, loads and
//! restarts it). The dispatcher sees only this.

use std::process::ExitStatus;
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::Duration;

use crate::protocol::ToNode;
use crate::runtime::host::{FromRuntime, Runtime, RuntimeConfig, RuntimeLink};
use crate::runtime::lanes::Lane;
use crate::runtime::slot::{RunningHandler, SlotReading};

/// Why a runtime is started again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// It ended (or its channel closed).
    Exited,
    /// A handler of this session's ran past its deadline and never yielded.
    NeverYielded,
    /// A shared runtime stopped for another session's handler that never yielded.
    CutOff,
}

/// Words why a stuck runtime is stopped, from the handler (of every session's) that
/// started last, if any: its lane and handler.
pub type StuckWhy<'a> = &'a dyn Fn(Option<(&Lane, RunningHandler)>) -> String;

/// Where a dispatcher sends its events and hears the runtime.
pub trait Link {
    /// Sends a message at once (lines queued and not yet sent go after it).
    fn send(&self, message: &ToNode) -> std::io::Result<()>;
    /// Adds a message to those [`Link::send_queued`] sends together.
    fn queue(&mut self, message: &ToNode) -> std::io::Result<()>;
    fn send_queued(&mut self);
    fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError>;
    fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError>;
    /// What the runtime is doing for this link, as its handler slot says.
    fn slot(&self) -> SlotReading;
    /// Whether the dispatcher owns the runtime: starts it, loads its hooks, restarts and
    /// stops it. A lane's runtime is its keeper's.
    fn owns_runtime(&self) -> bool;
    /// Starts the runtime again: one of its own is killed and a new one started (its hooks
    /// still to load); a lane waits for the keeper's next runtime (loaded, with the lane open).
    fn start_again(&mut self, config: &RuntimeConfig) -> anyhow::Result<()>;
    /// The lane events are sent on (`None`: the runtime's only one).
    fn lane(&self) -> Option<u64> {
        None
    }
    /// With nothing in flight: a lane moves to a runtime its keeper restarted meanwhile.
    fn catch_up(&mut self) {}
    /// Why the runtime restarts as this link sees it, `seen` being what the dispatcher saw.
    /// A lane that saw its handler never yield asks the keeper to stop the runtime (`why`
    /// words it, from the handler that started last of every session's), and learns from
    /// the keeper whether its runtime was stopped for its own handler or another's.
    fn judge(&mut self, seen: Restart, _why: StuckWhy<'_>) -> Restart {
        seen
    }
    /// Ends a runtime of its own at once.
    fn kill(&mut self) {}
    /// The exit status of a runtime of its own that ended.
    fn exit_status(&mut self) -> Option<ExitStatus> {
        None
    }
    /// The exit status of a runtime of its own whose channel closed, waiting up to `patience`.
    fn ended_status(&mut self, _patience: Duration) -> Option<ExitStatus> {
        None
    }
    /// Ends a runtime of its own that said its last (see [`Runtime::let_go`]).
    fn let_go(&mut self) {}
    /// Asks a runtime of its own to finish what is queued, and waits for it.
    fn shutdown(&mut self) {}
    /// Where the sessions sharing a runtime of its own write to it (for its keeper).
    fn runtime_link(&self) -> Option<RuntimeLink> {
        None
    }
}

impl Link for Runtime {
    fn send(&self, message: &ToNode) -> std::io::Result<()> {
        Runtime::send(self, message)
    }

    fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        Runtime::queue(self, message)
    }

    fn send_queued(&mut self) {
        Runtime::send_queued(self);
    }

    fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError> {
        self.messages.recv_timeout(wait)
    }

    fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError> {
        self.messages.try_recv()
    }

    fn slot(&self) -> SlotReading {
        Runtime::slot(self)
    }

    fn owns_runtime(&self) -> bool {
        true
    }

    fn start_again(&mut self, config: &RuntimeConfig) -> anyhow::Result<()> {
        Runtime::kill(self);
        *self = Runtime::start(config)?;
        Ok(())
    }

    fn kill(&mut self) {
        Runtime::kill(self);
    }

    fn exit_status(&mut self) -> Option<ExitStatus> {
        Runtime::exit_status(self)
    }

    fn ended_status(&mut self, patience: Duration) -> Option<ExitStatus> {
        Runtime::ended_status(self, patience)
    }

    fn let_go(&mut self) {
        Runtime::let_go(self);
    }

    fn shutdown(&mut self) {
        Runtime::shutdown(self);
    }

    fn runtime_link(&self) -> Option<RuntimeLink> {
        Some(self.link())
    }
}
