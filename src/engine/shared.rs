//! One hook runtime for every session of a `dev` server, as hosting runs hooks ("in the
//! serving process for every session of the agent"): each hook module is evaluated once,
//! and its module-scope state (a cache, a batch, a rate limiter) is the agent's, not a
//! session's. Each session dispatches on a lane of its own ([`LaneLink`]), independently of
//! the others. A keeper thread owns the Node process for its whole life (it is killed when
//! the thread that started it ends): it loads the hooks once, restarts the runtime when it
//! ends or a session finds it stuck in a handler that never yields, opens every lane again
//! in the new one, and stops it when the last session leaves.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::dispatcher::Dispatcher;
use crate::engine::plan::LoadPlan;
use crate::protocol::{HookCtx, InitCtx, ToNode};
use crate::runtime::host::{Batch, FromRuntime, Runtime, RuntimeConfig, RuntimeLink};
use crate::runtime::lanes::{Lane, Lanes, Routed};
use crate::runtime::slot::{RunningHandler, SlotReading};
use crate::state::StateStore;
use crate::state::serve_log::ServeLog;

/// How often the keeper looks whether a session asked for the runtime to be stopped, or the
/// last session left, while nothing else wakes it.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// What the keeper needs to run the runtime: started in its thread.
pub struct Keeping {
    pub config: RuntimeConfig,
    pub plan: LoadPlan,
    pub timeout: Duration,
    /// The server's own serve log (no session): hooks loaded, restarts, what no session said.
    pub log: ServeLog,
    pub store: StateStore,
}

/// A runtime shared by sessions. Dropped with its last session: then its keeper stops it.
pub struct SharedRuntime {
    inner: Arc<Inner>,
    keeper: Option<JoinHandle<()>>,
}

struct Inner {
    lanes: Arc<Lanes>,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// The runtime sessions dispatch to, once its hooks loaded.
    current: Option<RuntimeLink>,
    /// How many hooks loaded, and how many failed to.
    loaded: usize,
    load_failed: u64,
    /// Why the keeper gave up (the runtime could not start, or restart): every session's
    /// dispatch fails with it, and the next turn starts a new shared runtime.
    failed: Option<String>,
    /// A session found the runtime of this generation stuck: the keeper stops it and says why.
    stop_requested: Option<(u64, String)>,
    /// The runtime of this generation was stopped for the never-yielding handler of this
    /// lane (`None`: no session's handler was found running).
    stopped_for: Option<(u64, Option<u64>)>,
    /// The last session left: the keeper stops the runtime and ends.
    leaving: bool,
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A runtime whose hooks loaded is where sessions dispatch from now on: every open lane
    /// is opened in it (a new one knows none).
    fn publish(&self, link: RuntimeLink, loaded: usize, load_failed: u64) {
        let mut state = self.state();
        for lane in self.lanes.all() {
            let _ = link.send(&ToNode::Open { session: lane.id, slot: lane.slot, ctx: &lane.ctx });
        }
        state.current = Some(link);
        state.loaded = loaded;
        state.load_failed = load_failed;
        self.changed.notify_all();
    }

    fn fail(&self, problem: &anyhow::Error) {
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
    /// Starts the keeper (Node boots in its thread and loads the hooks while the caller goes on).
    pub fn start(keeping: Keeping) -> anyhow::Result<Arc<Self>> {
        let lanes = Arc::new(Lanes::default());
        let inner = Arc::new(Inner { lanes: Arc::clone(&lanes), state: Mutex::default(), changed: Condvar::new() });
        let mut keeping = keeping;
        keeping.config.lanes = Some(lanes);
        let kept = Arc::clone(&inner);
        let keeper = std::thread::Builder::new()
            .name("agent-sdk-shared-runtime".to_owned())
            .spawn(move || keep(&kept, keeping))
            .map_err(|problem| anyhow::Error::new(problem).context("could not start a thread for the hook runtime"))?;
        Ok(Arc::new(Self { inner, keeper: Some(keeper) }))
    }

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

/// The keeper's thread: starts the runtime, loads the hooks, then restarts the runtime as
/// often as it must, until the last session leaves.
fn keep(inner: &Inner, keeping: Keeping) {
    // However the keeper ends, no session waits for a runtime it will not start.
    let _ended = Ended(inner);
    let Keeping { config, plan, timeout, log, store } = keeping;
    let runtime = match Runtime::start(&config) {
        Ok(runtime) => runtime,
        Err(problem) => return inner.fail(&problem),
    };
    let mut dispatcher = Dispatcher::new(config, runtime, plan, InitCtx::Shared, timeout, &log, &store);
    if let Err(problem) = dispatcher.load() {
        return inner.fail(&problem);
    }
    publish(inner, &dispatcher);
    loop {
        let (leaving, stop) = {
            let mut state = inner.state();
            let generation = dispatcher.link().map_or(0, |link| link.generation);
            let stop = state.stop_requested.take().filter(|(stuck, _)| *stuck == generation);
            (state.leaving, stop)
        };
        if leaving {
            break;
        }
        let restarts = dispatcher.stats.restarts;
        let kept = match stop {
            Some((_, why)) => dispatcher.restart_stuck(&why),
            None => dispatcher.idle(LOOK_EVERY),
        };
        if let Err(problem) = kept {
            log.error(format!("the hook runtime could not be restarted: {problem:#}"));
            return inner.fail(&problem);
        }
        if dispatcher.stats.restarts != restarts {
            publish(inner, &dispatcher);
        }
    }
    for line in dispatcher.close().otel.lines() {
        log.info(line);
    }
}

/// Marks the runtime gone when the keeper ends (the last session left, or it gave up).
struct Ended<'a>(&'a Inner);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.failed.get_or_insert_with(|| "the hook runtime was stopped".to_owned());
        state.current = None;
        self.0.changed.notify_all();
    }
}

/// The keeper's runtime (of its own, so it has a link) is the one sessions dispatch to.
fn publish(inner: &Inner, dispatcher: &Dispatcher<'_>) {
    if let Some(link) = dispatcher.link() {
        inner.publish(link, dispatcher.loaded, dispatcher.stats.load_failed);
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
    /// The lane's id, as the runtime's messages name it.
    pub fn session(&self) -> u64 {
        self.lane.id
    }

    pub fn send(&self, message: &ToNode) -> std::io::Result<()> {
        self.runtime.send(message)
    }

    pub fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        self.queued.push(message)
    }

    pub fn send_queued(&mut self) {
        self.runtime.send_batch(&mut self.queued);
    }

    /// What Node said about this lane; the end of a runtime this lane has left behind is not news.
    pub fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError> {
        let until = std::time::Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let (generation, received) = self.messages.recv_timeout(left)?;
            if !self.stale(generation, &received) {
                return Ok(received);
            }
        }
    }

    pub fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError> {
        loop {
            let (generation, received) = self.messages.try_recv()?;
            if !self.stale(generation, &received) {
                return Ok(received);
            }
        }
    }

    fn stale(&self, generation: u64, received: &FromRuntime) -> bool {
        generation < self.runtime.generation && matches!(received, FromRuntime::Exited)
    }

    /// This lane's record of the handler slot, in the runtime it was sent to last.
    pub fn slot(&self) -> SlotReading {
        self.runtime.slot.read_lane(self.lane.slot)
    }

    /// With nothing in flight, a lane whose runtime was restarted (while this session had
    /// no work in it) moves to the new one without further ado.
    pub fn catch_up(&mut self) {
        let state = self.shared.inner.state();
        if let Some(current) = state.current.as_ref().filter(|current| current.generation > self.runtime.generation) {
            self.runtime = current.clone();
        }
    }

    /// The handler the stuck runtime is stuck in (the one, of every session's, that
    /// started last): its lane and handler, and whether it is this session's.
    pub fn stuck_in(&self) -> Option<(Lane, RunningHandler)> {
        self.shared.inner.lanes.latest_running(&self.runtime.slot)
    }

    /// Asks the keeper to stop the runtime this lane is on, for `why` (the log says it),
    /// blaming lane `culprit`'s running handler.
    pub fn stop_runtime(&self, culprit: Option<u64>, why: String) {
        let mut state = self.shared.inner.state();
        if state.stopped_for.is_some_and(|(generation, _)| generation >= self.runtime.generation) {
            return;
        }
        state.stopped_for = Some((self.runtime.generation, culprit));
        state.stop_requested = Some((self.runtime.generation, why));
    }

    /// Whether the runtime this lane is on was stopped for a session's handler that never
    /// yielded: `Some(Some(lane))` that lane's, `Some(None)` no session's known one.
    pub fn stopped_for(&self) -> Option<Option<u64>> {
        let state = self.shared.inner.state();
        state.stopped_for.filter(|(generation, _)| *generation == self.runtime.generation).map(|(_, lane)| lane)
    }

    /// Waits for the runtime that follows the one this lane is on, which has this lane open.
    pub fn move_on(&mut self) -> anyhow::Result<()> {
        self.runtime = self.shared.inner.wait_after(self.runtime.generation)?;
        Ok(())
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
