//! A `dev` session's hooks: its lane of the runtime every session of the server shares,
//! from the session's first turn (or the first after its hooks changed) until it rests, its
//! hooks reload or the server stops. The server holds one per live session and never the
//! dispatcher behind it.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::dispatcher::Dispatcher;
use crate::engine::hooks::Hooks;
use crate::engine::shared::SharedRuntime;
use crate::engine::stats::DispatchStats;
use crate::engine::timeline::Timeline;
use crate::runtime::setup::SessionSetup;
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::serve_log::ServeLog;
use crate::telemetry::Parent;

use super::{LoadPlan, SessionFacts};

/// A session's hooks on its lane of a shared runtime.
pub struct LaneHooks<'s> {
    dispatcher: Dispatcher<'s>,
    log: &'s ServeLog,
}

impl<'s> LaneHooks<'s> {
    /// Opens the session's lane of `shared` (whose keeper loaded `plan`'s hooks), says how
    /// many hooks it has, and records each handler's run for the playground (`wake` is
    /// called as each is recorded).
    pub fn attach(
        shared: &Arc<SharedRuntime>,
        setup: &SessionSetup,
        facts: &SessionFacts<'_>,
        plan: &LoadPlan,
        wake: Arc<dyn Fn() + Send + Sync>,
        (log, store): (&'s ServeLog, &'s StateStore),
    ) -> anyhow::Result<Self> {
        let session_id = facts.id;
        let (loaded, load_failed, lane) = shared.attach(session_id, super::ctx(setup, facts))?;
        log.info(format!(
            "session {session_id}: {} (the runtime's, loaded once for every session)",
            crate::printer::plural(loaded, "hook")
        ));
        let config = setup.runtime_config(session_id);
        let mut dispatcher = Dispatcher::on_lane(config, lane, loaded, plan.clone(), setup.hook_timeout, log, store);
        // Said in the session's summary, as `run` says it.
        dispatcher.stats.load_failed = load_failed;
        dispatcher.record_timeline(Timeline::new(session_id, wake));
        Ok(Self { dispatcher, log })
    }

    /// What the hooks did so far (a turn's part is what it adds).
    pub fn stats(&self) -> DispatchStats {
        self.dispatcher.stats
    }

    /// How many hooks the runtime loaded.
    pub fn loaded(&self) -> usize {
        self.dispatcher.loaded
    }

    /// Waits for the hooks to finish what was dispatched, says what they recorded for the
    /// session (`otel …` lines, as `run` does at its end) and its summary, and leaves the
    /// runtime. Said before the session leaves: the last to leave stops it, and the
    /// runtime's own lines follow.
    pub fn leave(mut self) {
        if let Err(problem) = self.dispatcher.finish() {
            self.log.error(format!("the session's hook runtime failed: {problem:#}"));
        }
        for line in std::mem::take(&mut self.dispatcher.otel).lines() {
            self.log.info(line);
        }
        self.log.info(self.dispatcher.stats.summary(self.dispatcher.loaded));
        self.dispatcher.close();
    }

    /// Leaves a runtime that failed, saying nothing more (the next turn attaches anew).
    pub fn drop_failed(self) {
        self.dispatcher.shutdown();
    }
}

impl Hooks for LaneHooks<'_> {
    fn dispatch_in(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()> {
        self.dispatcher.dispatch_in(event, trace)
    }

    fn dispatch_all_in(&mut self, events: Vec<(Envelope, Option<Parent>)>) -> anyhow::Result<()> {
        self.dispatcher.dispatch_all_in(events)
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        Hooks::finish(&mut self.dispatcher)
    }

    fn busy(&self) -> bool {
        self.dispatcher.busy()
    }

    fn idle(&mut self, duration: Duration) -> anyhow::Result<()> {
        self.dispatcher.idle(duration)
    }
}
