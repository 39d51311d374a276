//! The hooks timeline of a `dev` session: how each handler ran for each event, recorded as
//! it ends (from the runtime's `handler` lines, and for the runs a restart cut off), which
//! the playground shows beside the events.

use std::sync::Arc;

use crate::protocol::{HandlerEnded, HandlerOutcome};
use crate::state::StateStore;
use crate::state::handler_run::{HandlerRun, Outcome};

/// Records one session's handler runs.
pub struct Timeline {
    session_id: String,
    /// Called after each record (the playground's followers wake on it).
    recorded: Arc<dyn Fn() + Send + Sync>,
    /// Where the last `threw` line's throw came from, for the run that ends next:
    /// (event, hook index, `bot/hooks/x.ts:7:13`).
    threw_at: Option<(u64, usize, String)>,
}

impl Timeline {
    pub fn new(session_id: &str, recorded: Arc<dyn Fn() + Send + Sync>) -> Self {
        Self { session_id: session_id.to_owned(), recorded, threw_at: None }
    }

    /// A handler threw, at `at` in the project's sources (if a frame is the project's): its
    /// `handler` line comes next.
    pub fn threw(&mut self, seq: u64, hook: usize, at: Option<String>) {
        self.threw_at = at.map(|at| (seq, hook, at));
    }

    /// A handler of event `seq` (of type `event_type`) ended, as its `handler` line says.
    pub fn ended(
        &mut self,
        store: &StateStore,
        ended: &HandlerEnded,
        event_type: &str,
        hook: &str,
    ) -> anyhow::Result<()> {
        let at = match self.threw_at.take() {
            Some((seq, index, at)) if seq == ended.seq && index == ended.hook => Some(at),
            _ => None,
        };
        let outcome = match ended.outcome {
            HandlerOutcome::Ok => Outcome::Ok,
            HandlerOutcome::Threw => Outcome::Threw,
            HandlerOutcome::TimedOut => Outcome::TimedOut,
        };
        self.record(
            store,
            &HandlerRun {
                event: ended.seq,
                event_type: event_type.to_owned(),
                hook: hook.to_owned(),
                handler: ended.handler.clone(),
                outcome,
                ms: Some(ended.ms),
                error: ended.error.clone(),
                at,
            },
        )
    }

    /// A handler of event `seq` that sent no `handler` line: the runtime was stopped in it
    /// (`TimedOut`: it never yielded), ended or was restarted under it.
    #[allow(clippy::too_many_arguments)]
    pub fn cut_off(
        &mut self,
        store: &StateStore,
        seq: u64,
        event_type: &str,
        hook: &str,
        handler: &str,
        outcome: Outcome,
        why: String,
    ) -> anyhow::Result<()> {
        self.threw_at = None;
        let run = HandlerRun {
            event: seq,
            event_type: event_type.to_owned(),
            hook: hook.to_owned(),
            handler: handler.to_owned(),
            outcome,
            ms: None,
            error: Some(why),
            at: None,
        };
        self.record(store, &run)
    }

    fn record(&self, store: &StateStore, run: &HandlerRun) -> anyhow::Result<()> {
        store.record_handler_run(&self.session_id, run)?;
        (self.recorded)();
        Ok(())
    }
}
