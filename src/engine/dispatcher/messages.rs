//! What the runtime says while events flow: each message counted, reported and passed on
//! (spans and metrics to telemetry, handler runs to the timeline).

use serde_json::Value;

use super::{Dispatcher, ExitCall, HandlerOf, Happened};
use crate::protocol::{FromNode, HandlerEnded, OtelKind, Unhandled, UnhandledKind};
use crate::runtime::calls::attributes_text;
use crate::runtime::host::{FromRuntime, Stream};
use crate::runtime::slot::RuntimeState;
use crate::state::handler_run::Outcome;
use crate::telemetry::hook_spans;

impl Dispatcher<'_> {
    /// Handles one thing the runtime sent (its end is the caller's to handle).
    pub(super) fn heard(&mut self, received: FromRuntime) {
        match received {
            FromRuntime::Message(message) => self.handle(message),
            FromRuntime::Output { stream, line, state } => self.runtime_output(stream, line, state),
            FromRuntime::CallFailed { hook, call, error } => {
                // A write whose promise had resolved as it was sent (`kv.set`, `reminders.set`)
                // that the state store then refused: counted as a failure (`run` exits 3).
                self.stats.writes_failed += 1;
                self.report(Happened::CallFailed { hook, call, error });
            }
            FromRuntime::Exited => {}
        }
    }

    /// A line the runtime's process printed outside `console`: the output of a process a
    /// hook started (attributed to the hook whose handler ran when it was read), or Node's
    /// own message.
    pub(super) fn runtime_output(&self, stream: Stream, line: String, state: RuntimeState) {
        if line.trim().is_empty() {
            return;
        }
        let hook = match state {
            RuntimeState::Running(running) => Some(self.hook_name(running.hook).to_owned()),
            RuntimeState::Idle { .. } | RuntimeState::Starting => None,
        };
        self.report(Happened::Output { stream, hook, line });
    }

    pub(super) fn handle(&mut self, message: FromNode) {
        match message {
            FromNode::Threw { seq, hook: index, handler, message, stack } => {
                self.stats.threw += 1;
                let hook = self.hook_name(index).to_owned();
                let at = self.first_project_frame(stack.as_deref());
                if let Some(timeline) = self.timeline.as_mut() {
                    timeline.threw(seq, index, at.clone());
                }
                self.report(Happened::Threw { handler: HandlerOf { hook, handler }, message, at });
            }
            FromNode::TimedOut { hook, handler, .. } => {
                self.stats.timed_out += 1;
                let hook = self.hook_name(hook).to_owned();
                self.report(Happened::TimedOut { handler: HandlerOf { hook, handler }, after: self.timeout });
            }
            // Every event through `seq` (they finish in order).
            FromNode::Done { seq } => self.finished_before(seq.saturating_add(1)),
            FromNode::Console { level, hook, text } => self.report(Happened::Console { level, hook, text }),
            FromNode::Otel(otel) if otel.kind == OtelKind::Log => {
                let body = match &otel.value {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                self.report(Happened::OtelLog {
                    level: otel.log_level(),
                    hook: otel.hook.clone().unwrap_or_else(|| "?".to_owned()),
                    body,
                    attributes: attributes_text(&otel.attrs),
                });
            }
            FromNode::Otel(otel) => {
                if let Some(error) = &otel.error {
                    let hook = otel.hook.clone().unwrap_or_else(|| "?".to_owned());
                    self.report(Happened::SpanFailed { hook, span: otel.name.clone(), error: error.clone() });
                }
                if let Some(telemetry) = &self.config.telemetry {
                    match otel.kind {
                        OtelKind::Span => hook_spans::hook_span(telemetry, &otel),
                        _ => {
                            if let Some(instruments) = telemetry.instruments() {
                                instruments.record(&otel);
                            }
                        }
                    }
                }
                self.otel.record(&otel);
            }
            FromNode::Handler(ended) => {
                self.record_run(&ended);
                let traced = self.pending.front().filter(|pending| pending.event.index == ended.seq);
                if let (Some(telemetry), Some(pending)) = (&self.config.telemetry, traced)
                    && let Some(parent) = pending.trace
                {
                    hook_spans::handler_ended(telemetry, parent, &pending.event, self.hook_name(ended.hook), &ended);
                }
            }
            FromNode::Unhandled(unhandled) => self.unhandled(unhandled),
            FromNode::Exit { hook, code, stack } => self.exit_call = Some(ExitCall { hook, code, stack }),
            // Said only after a shutdown, which `close` waits for (or past, to the end).
            FromNode::Bye => {}
            // Answered by the reader thread; the rest belong to loading.
            FromNode::Call(_)
            | FromNode::Hello { .. }
            | FromNode::Loading { .. }
            | FromNode::Loaded { .. }
            | FromNode::LoadFailed { .. }
            | FromNode::Ready
            | FromNode::Mounted { .. }
            | FromNode::MountsDone => {}
        }
    }

    /// An error in a hook's code that nothing handled: counted as a failure (`run` exits 3)
    /// and said with what fixes it.
    fn unhandled(&mut self, unhandled: Unhandled) {
        match unhandled.kind {
            UnhandledKind::Rejection => self.stats.unhandled_rejections += 1,
            UnhandledKind::Exception => self.stats.uncaught_exceptions += 1,
        }
        let Unhandled { kind, after_return, hook, text } = unhandled;
        self.report(Happened::Unhandled { kind, after_return, hook, text });
    }

    /// Records a handler's run in the timeline, if one is kept.
    fn record_run(&mut self, ended: &HandlerEnded) {
        if self.timeline.is_none() {
            return;
        }
        let hook = self.hook_name(ended.hook).to_owned();
        let event = self.pending.iter().find(|pending| pending.event.index == ended.seq);
        let event_type = event.map_or("?", |pending| pending.event.event_type.as_str());
        if let Some(Err(problem)) =
            self.timeline.as_mut().map(|timeline| timeline.ended(self.store, ended, event_type, &hook))
        {
            self.timeline_failed(&problem);
        }
    }

    /// Records the run of a handler the runtime was stopped in (of the oldest event in flight).
    pub(super) fn record_cut_off(&mut self, running: &HandlerOf, outcome: Outcome, why: String) {
        let (Some(timeline), Some(front)) = (self.timeline.as_mut(), self.pending.front()) else { return };
        let HandlerOf { hook, handler } = running;
        let recorded =
            timeline.cut_off(self.store, front.event.index, &front.event.event_type, hook, handler, outcome, why);
        if let Err(problem) = recorded {
            self.timeline_failed(&problem);
        }
    }

    /// The timeline could not be written: said once, and no longer kept (the hooks go on).
    fn timeline_failed(&mut self, problem: &anyhow::Error) {
        self.timeline = None;
        self.report(Happened::TimelineFailed { problem: format!("{problem:#}") });
    }
}
