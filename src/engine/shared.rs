//! One hook runtime for every session of a `dev` server, as hosting runs hooks ("in the
//! serving process for every session of the agent"): each hook module is evaluated once,
//! and its module-scope state (a cache, a batch, a rate limiter) is the agent's, not a
//! session's. Each session dispatches on a lane of its own ([`LaneLink`]), independently of
//! the others. A keeper thread ([`keeper`](super::keeper)) owns the Node process for its whole life (it is killed when
//! the thread that started it ends): it loads the hooks once, restarts the runtime when it
//! ends or a session finds it stuck in a handler that never yields, opens every lane again
//! in the new one, and stops it when the last session leaves.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::protocol::{HookCtx, ToNode};
use crate::runtime::host::RuntimeConfig;
use crate::runtime::host::{Batch, FromRuntime, RuntimeLink};
use crate::runtime::lanes::{Lane, Lanes, Routed};
use crate::runtime::link::{Link, Restart, StuckWhy};
use crate::runtime::slot::SlotReading;

/// A runtime shared by sessions. Dropped with its last session: then its keeper stops it.
pub struct SharedRuntime {
    pub(super) inner: Arc<Inner>,
    pub(super) keeper: Option<JoinHandle<()>>,
}

pub(super) struct Inner {
    pub(super) lanes: Arc<Lanes>,
    pub(super) state: Mutex<State>,
    pub(super) changed: Condvar,
}

#[derive(Default)]
pub(super) struct State {
    /// The runtime sessions dispatch to, once its hooks loaded.
    pub(super) current: Option<RuntimeLink>,
    /// How many hooks loaded, and how many failed to.
    pub(super) loaded: usize,
    pub(super) load_failed: u64,
    /// Why the keeper gave up (the runtime could not start, or restart): every session's
    /// dispatch fails with it, and the next turn starts a new shared runtime.
    pub(super) failed: Option<String>,
    /// A session found the runtime of this generation stuck: the keeper stops it and says why.
    pub(super) stop_requested: Option<(u64, String)>,
    /// The runtime of this generation was stopped for the never-yielding handler of this
    /// lane (`None`: no session's handler was found running).
    pub(super) stopped_for: Option<(u64, Option<u64>)>,
    /// The last session left: the keeper stops the runtime and ends.
    pub(super) leaving: bool,
}

impl Inner {
    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A runtime whose hooks loaded is where sessions dispatch from now on: every open lane
    /// is opened in it (a new one knows none).
    pub(super) fn publish(&self, link: RuntimeLink, loaded: usize, load_failed: u64) {
        let mut state = self.state();
        for lane in self.lanes.all() {
            let _ = link.send(&ToNode::Open { session: lane.id, slot: lane.slot, ctx: &lane.ctx });
        }
        state.current = Some(link);
        state.loaded = loaded;
        state.load_failed = load_failed;
        self.changed.notify_all();
    }

    pub(super) fn fail(&self, problem: &anyhow::Error) {
        let mut state = self.state();
        state.failed = Some(format!("{problem:#}"));
        state.current = None;
        self.changed.notify_all();
    }

    /// The first runtime after generation `after` (0: the first one), once its hooks loaded.
    fn wait_after(&self, after: u64) -> anyhow::Result<RuntimeLink> {
        let mut state = self.state();
        loop {
            if let Some(problem) = &state.failed {
                anyhow::bail!("{problem}");
            }
            if let Some(current) = state.current.as_ref().filter(|current| current.generation > after) {
                return Ok(current.clone());
            }
            state = self.changed.wait(state).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

impl SharedRuntime {
    /// Whether the keeper gave up on this runtime (a new one is then started).
    pub fn failed(&self) -> bool {
        self.inner.state().failed.is_some()
    }

    /// Opens a lane for session `session_id`, whose handlers get `ctx`, once the hooks
    /// loaded: how many did, how many failed to, and the lane.
    pub fn attach(self: &Arc<Self>, session_id: &str, ctx: HookCtx) -> anyhow::Result<(usize, u64, LaneLink)> {
        let runtime = self.inner.wait_after(0)?;
        let (sender, messages) = channel();
        let state = self.inner.state();
        // The newest runtime (it may have restarted since): opened under the lock that
        // publishing a restarted one takes, so the lane is opened in every runtime from now on.
        let runtime = state.current.clone().unwrap_or(runtime);
        let lane = self.inner.lanes.open(session_id, Arc::new(ctx), sender, &runtime.slot);
        runtime.send(&ToNode::Open { session: lane.id, slot: lane.slot, ctx: &lane.ctx })?;
        let (loaded, load_failed) = (state.loaded, state.load_failed);
        drop(state);
        Ok((
            loaded,
            load_failed,
            LaneLink { shared: Arc::clone(self), lane, runtime, messages, queued: Batch::default() },
        ))
    }
}

impl Drop for SharedRuntime {
    /// The last session left: the keeper stops the runtime (its observable instruments are
    /// measured, its `bye` awaited, at most 2.5 s) and ends.
    fn drop(&mut self) {
        self.inner.state().leaving = true;
        if let Some(keeper) = self.keeper.take() {
            let _ = keeper.join();
        }
    }
}

/// A session's lane of a shared runtime: what its dispatcher sends and receives through.
pub struct LaneLink {
    shared: Arc<SharedRuntime>,
    lane: Lane,
    /// The runtime this lane's events were last sent to.
    runtime: RuntimeLink,
    messages: Receiver<Routed>,
    /// Lines queued and not yet sent.
    queued: Batch,
}

impl LaneLink {
    /// Whether this lane's message is news: the end of a runtime it has left behind is not.
    fn stale(&self, generation: u64, received: &FromRuntime) -> bool {
        generation < self.runtime.generation && matches!(received, FromRuntime::Exited)
    }

    /// Asks the keeper to stop the runtime this lane is on, for `why` (the log says it),
    /// blaming lane `culprit`'s running handler.
    fn stop_runtime(&self, culprit: Option<u64>, why: String) {
        let mut state = self.shared.inner.state();
        if state.stopped_for.is_some_and(|(generation, _)| generation >= self.runtime.generation) {
            return;
        }
        state.stopped_for = Some((self.runtime.generation, culprit));
        state.stop_requested = Some((self.runtime.generation, why));
    }

    /// Whether the runtime this lane is on was stopped for a session's handler that never
    /// yielded: `Some(Some(lane))` that lane's, `Some(None)` no session's known one.
    fn stopped_for(&self) -> Option<Option<u64>> {
        let state = self.shared.inner.state();
        state.stopped_for.filter(|(generation, _)| *generation == self.runtime.generation).map(|(_, lane)| lane)
    }
}

impl Link for LaneLink {
    fn send(&self, message: &ToNode) -> std::io::Result<()> {
        self.runtime.send(message)
    }

    fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        self.queued.push(message)
    }

    fn send_queued(&mut self) {
        self.runtime.send_batch(&mut self.queued);
    }

    /// What Node said about this lane; the end of a runtime this lane has left behind is not news.
    fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError> {
        let until = std::time::Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let (generation, received) = self.messages.recv_timeout(left)?;
            if !self.stale(generation, &received) {
                return Ok(received);
            }
        }
    }

    fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError> {
        loop {
            let (generation, received) = self.messages.try_recv()?;
            if !self.stale(generation, &received) {
                return Ok(received);
            }
        }
    }

    /// This lane's record of the handler slot, in the runtime it was sent to last.
    fn slot(&self) -> SlotReading {
        self.runtime.slot.read_lane(self.lane.slot)
    }

    fn owns_runtime(&self) -> bool {
        false
    }

    /// Waits for the runtime that follows the one this lane is on, which has this lane open.
    fn start_again(&mut self, _config: &RuntimeConfig) -> anyhow::Result<()> {
        self.runtime = self.shared.inner.wait_after(self.runtime.generation)?;
        Ok(())
    }

    /// The lane's id, as the runtime's messages name it.
    fn lane(&self) -> Option<u64> {
        Some(self.lane.id)
    }

    /// With nothing in flight, a lane whose runtime was restarted (while this session had
    /// no work in it) moves to the new one without further ado.
    fn catch_up(&mut self) {
        let state = self.shared.inner.state();
        if let Some(current) = state.current.as_ref().filter(|current| current.generation > self.runtime.generation) {
            self.runtime = current.clone();
        }
    }

    /// A handler of this session's ran past its deadline and no timer of Node's said so:
    /// Node is stuck, in the handler (of every session's) that started last, and the keeper
    /// is asked to stop it. Whether a restart is this session's doing is the keeper's word.
    fn judge(&mut self, seen: Restart, why: StuckWhy<'_>) -> Restart {
        match seen {
            Restart::NeverYielded => {
                let stuck_in = self.shared.inner.lanes.latest_running(&self.runtime.slot);
                let mine = stuck_in.as_ref().is_some_and(|(stuck, _)| stuck.id == self.lane.id);
                let why = why(stuck_in.as_ref().map(|(lane, handler)| (lane, *handler)));
                self.stop_runtime(stuck_in.map(|(stuck, _)| stuck.id), why);
                if mine { Restart::NeverYielded } else { Restart::CutOff }
            }
            Restart::Exited | Restart::CutOff => match self.stopped_for() {
                Some(Some(stuck)) if stuck == self.lane.id => Restart::NeverYielded,
                Some(_) => Restart::CutOff,
                None => Restart::Exited,
            },
        }
    }
}

impl Drop for LaneLink {
    /// The session leaves the runtime: its lane is closed (the runtime, with the last one).
    fn drop(&mut self) {
        let state = self.shared.inner.state();
        self.shared.inner.lanes.close(self.lane.id);
        if let Some(current) = &state.current {
            let _ = current.send(&ToNode::Close { session: self.lane.id });
        }
    }
}
