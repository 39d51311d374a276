//! A runtime that ended or never yields: whose handler was running and what became of its
//! event (timed out, exited by its own `process.exit`, or an unconfirmed delivery), then a
//! fresh runtime (or, on a lane, the keeper's next one) gets what was in flight again,
//! skipping that handler: at most once, never twice.

use std::time::Duration;

use super::{Dispatcher, ExitCaller, HandlerOf, Happened, render};
use crate::runtime::link::Restart;
use crate::runtime::slot::RuntimeState;
use crate::state::envelope::Envelope;
use crate::state::handler_run::Outcome;
use crate::telemetry::Parent;

impl Dispatcher<'_> {
    /// Kills (if needed) and restarts the runtime, then sends again what was in flight,
    /// skipping the handler that was running: it either caused the restart or, cut off by
    /// another's doing, is named as an unconfirmed delivery. On a lane of a shared runtime,
    /// the keeper restarts it; the lane names its own handler's part and moves on.
    pub(super) fn restart(&mut self, seen: Restart) -> anyhow::Result<()> {
        let grace = self.timeout + self.kill_grace;
        let hooks = &self.hooks;
        let why = self.runtime.judge(seen, &|stuck| {
            let stuck = stuck.map(|(lane, handler)| {
                let hook = hooks.get(handler.hook).map_or("?", |hook| hook.name.as_str());
                (hook, handler.seq, lane.session_id.as_str())
            });
            render::stuck_in(stuck, grace)
        });
        // Whose handler ran: the one seen never yielding (on a lane, what its slot says), or
        // what the slot of an ended runtime says last (what it finished before it is done,
        // said or not). None of this dispatcher's runs with none of its events in flight:
        // the keeper of a shared runtime has none, and the slot's first record is a
        // session's, whose own dispatcher names its handler.
        let state =
            if self.pending.is_empty() { RuntimeState::Idle { through: None } } else { self.runtime.slot().state };
        let running = match (why, state) {
            (Restart::NeverYielded, RuntimeState::Running(handler)) if !self.runtime.owns_runtime() => Some(handler),
            (Restart::NeverYielded, _) => self.watched.map(|watched| watched.handler),
            (Restart::Exited | Restart::CutOff, RuntimeState::Running(handler)) => Some(handler),
            (Restart::Exited | Restart::CutOff, RuntimeState::Idle { through: Some(through) }) => {
                self.finished_before(through.saturating_add(1));
                None
            }
            (Restart::Exited | Restart::CutOff, RuntimeState::Idle { through: None } | RuntimeState::Starting) => None,
        };
        self.watched = None;
        if let Some(running) = running {
            self.finished_before(running.seq);
        }
        let culprit = running.map(|running| self.handler_of(running));
        match (why, culprit) {
            (Restart::NeverYielded, Some(culprit)) => {
                self.stats.timed_out += 1;
                self.report(Happened::TimedOut { handler: culprit.clone(), after: self.timeout });
                self.record_cut_off(&culprit, Outcome::TimedOut, render::did_not_yield(grace));
            }
            (Restart::Exited, culprit) => self.exited(culprit),
            (Restart::CutOff, Some(culprit)) => {
                self.report(Happened::CutOffForAnother { running: culprit.clone() });
                self.unconfirmed(culprit);
            }
            (Restart::NeverYielded | Restart::CutOff, None) => {}
        }
        self.exit_call = None;
        self.stats.restarts += 1;
        if self.runtime.owns_runtime() {
            self.report(Happened::Restarting);
            self.runtime.start_again(&self.config)?;
            self.initialise(false)?;
        } else {
            // Its keeper says it restarts, once, in the server's own lines.
            self.runtime.start_again(&self.config)?;
        }
        if let (Some(running), Some(front)) = (running, self.pending.front_mut())
            && front.event.index == running.seq
        {
            front.from = running.hook + 1;
        }
        let resend: Vec<(Envelope, usize, Option<Parent>)> =
            self.pending.iter().map(|pending| (pending.event.clone(), pending.from, pending.trace)).collect();
        for (event, from, trace) in resend {
            self.send_event(&event, from, trace)?;
        }
        self.runtime.send_queued();
        Ok(())
    }

    /// The keeper of a shared runtime stops it for a session that found it stuck (`why`
    /// says in whose handler), and starts it again.
    pub fn restart_stuck(&mut self, why: &str) -> anyhow::Result<()> {
        self.report(Happened::RuntimeStopped { why: why.to_owned() });
        self.restart(Restart::NeverYielded)
    }

    /// Says why the runtime ended and who ended it. The handler that was running (if any) is
    /// blamed only when its own code called `process.exit`; otherwise its delivery is named
    /// as unconfirmed and counted.
    fn exited(&mut self, running: Option<HandlerOf>) {
        let status = self.runtime.ended_status(Duration::from_millis(500)).map(|status| status.to_string());
        let caller = match self.exit_call.take() {
            None => ExitCaller::Unknown,
            Some(call) => match call.hook {
                None => ExitCaller::NoHook,
                Some(hook) => {
                    ExitCaller::Hook { hook, code: call.code, at: self.first_project_frame(call.stack.as_deref()) }
                }
            },
        };
        let caused_by_running = matches!((&caller, &running), (ExitCaller::Hook { hook: caller, .. }, Some(running)) if *caller == running.hook);
        let why = render::runtime_exited(status.as_deref(), &caller, running.as_ref());
        self.report(Happened::RuntimeExited { status, caller, running: running.clone() });
        match (running, caused_by_running) {
            (Some(running), false) => self.unconfirmed(running),
            (Some(running), true) => self.record_cut_off(&running, Outcome::Exited, why),
            (None, _) => {}
        }
    }

    /// Names a delivery whose handler was cut off by no doing of its own, and counts it.
    fn unconfirmed(&mut self, running: HandlerOf) {
        self.stats.unconfirmed += 1;
        let event = self.pending.front().map(|pending| (pending.event.index, pending.event.event_type.clone()));
        self.report(Happened::Unconfirmed { handler: running.clone(), event });
        self.record_cut_off(&running, Outcome::Unconfirmed, render::cut_off());
    }
}
