//! The keeper of a shared runtime ([`SharedRuntime`]): the thread that owns the Node
//! process for its whole life, runs it through a [`Dispatcher`] of its own (it loads the
//! hooks once), restarts it when it ends or a session finds it stuck, publishes each new
//! one to the sessions' lanes, and stops it when the last session leaves.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::engine::dispatcher::Dispatcher;
use crate::engine::plan::LoadPlan;
use crate::engine::shared::{Inner, SharedRuntime};
use crate::protocol::InitCtx;
use crate::runtime::host::{Runtime, RuntimeConfig};
use crate::runtime::lanes::Lanes;
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

/// The keeper's runtime (of its own, so it has a link) is the one sessions dispatch to.
fn publish(inner: &Inner, dispatcher: &Dispatcher<'_>) {
    if let Some(link) = dispatcher.link() {
        inner.publish(link, dispatcher.loaded, dispatcher.stats.load_failed);
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
