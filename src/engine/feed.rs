//! Feeding a session's events: each recorded (durably), then shown to whoever is waiting
//! for it (`run`'s stdout, `dev`'s HTTP stream), then handed to the hooks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::clock::{new_id, now_rfc3339};
use crate::engine::dispatcher::Dispatcher;
use crate::engine::turn::{self, Turn, TurnEvent, TurnStep};
use crate::model::{ModelStream, Next};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::log_record::{Level, Record};
use crate::telemetry::turn_trace::{Traced, TurnTrace};

/// How feeding the events went.
#[derive(Default)]
pub struct Outcome {
    /// The turn's id (of a turn fed by [`Feed::turn`]).
    pub turn_id: Option<String>,
    /// A `turn.failed` was recorded (the first, if a replay holds more).
    pub failed: Option<FailedTurn>,
    /// Ctrl-C stopped it.
    pub cancelled: bool,
    /// A line of a `--replay` file that went bad after the whole file was checked (it was
    /// changed during the replay): what came before it was still dispatched.
    pub bad_input: Option<anyhow::Error>,
}

/// A recorded `turn.failed`: which turn, and why (its `data.message`).
#[derive(Debug, Clone, PartialEq)]
pub struct FailedTurn {
    pub turn_id: Option<String>,
    pub reason: String,
}

impl FailedTurn {
    /// The failure `envelope` records, if it is a `turn.failed`.
    fn of(envelope: &Envelope) -> Option<Self> {
        (envelope.event_type == "turn.failed").then(|| Self {
            turn_id: envelope.turn_id.clone(),
            reason: envelope.data["message"].as_str().unwrap_or("(no message)").to_owned(),
        })
    }

    /// The serve-log line that says why: an error, once per run or turn.
    pub fn record(&self) -> Record {
        let mut record = Record::new(Level::Error, format!("turn failed: {}", self.reason));
        record.turn_id.clone_from(&self.turn_id);
        record.event = Some("turn.failed".to_owned());
        record
    }
}

/// Events recorded per transaction when replaying.
const REPLAY_BATCH: usize = 512;

/// How long one wait on a model lasts before Ctrl-C is looked at again.
const MODEL_WAIT: Duration = Duration::from_millis(50);

/// How long the hooks are served at a time, between looks at the model, while they have
/// events in flight: the most an arriving output waits to be shown.
const HOOKS_SLICE: Duration = Duration::from_millis(1);

/// Where recorded events are shown.
pub type Sink<'f> = dyn FnMut(&Envelope) -> anyhow::Result<()> + 'f;

/// Records events, shows them through `sink`, and hands them to the hooks, in that order.
pub struct Feed<'f, 's> {
    pub sink: &'f mut Sink<'f>,
    pub recorder: Recorder<'s>,
    pub dispatcher: &'f mut Dispatcher<'s>,
    pub interrupted: &'f AtomicBool,
    /// What sets `interrupted`, in the words a cancelled turn's `turn.failed` says.
    pub interrupted_by: &'f (dyn Fn() -> &'static str + 'f),
    /// How turns are traced, when telemetry is exported.
    pub traced: Option<Traced>,
}

impl Feed<'_, '_> {
    /// One turn answering `message`: each of the model's outputs is recorded, shown and
    /// dispatched as it comes, while the hooks are served in between.
    pub fn turn(&mut self, message: &str, model: &mut dyn ModelStream) -> anyhow::Result<Outcome> {
        let turn_id = new_id("turn");
        let mut outcome = Outcome { turn_id: Some(turn_id.clone()), ..Outcome::default() };
        let mut trace = self.traced.as_ref().map(|traced| traced.start(&turn_id));
        let trace = &mut trace;
        let (mut turn, received) = Turn::start(message);
        self.record_show_dispatch(received, &turn_id, &mut outcome, trace)?;
        while !turn.ended() {
            if self.interrupted.load(Ordering::SeqCst) {
                outcome.cancelled = true;
                return self
                    .record_show_dispatch(turn::cancelled((self.interrupted_by)()), &turn_id, &mut outcome, trace)
                    .map(|()| outcome);
            }
            let steps = match self.next_output(model)? {
                Next::Output(output) => turn.steps(output),
                Next::Waiting => continue,
                Next::Ended => {
                    return self
                        .record_show_dispatch(turn::model_stopped(), &turn_id, &mut outcome, trace)
                        .map(|()| outcome);
                }
            };
            for step in steps {
                match step {
                    TurnStep::Record(event) => self.record_show_dispatch(event, &turn_id, &mut outcome, trace)?,
                    TurnStep::Wait(duration) => wait_for_model(self.dispatcher, duration, self.interrupted)?,
                    TurnStep::Log(level, line) => {
                        let mut record = Record::new(level, line);
                        record.turn_id = Some(turn_id.clone());
                        self.dispatcher.serve_log().write(record);
                    }
                }
            }
        }
        Ok(outcome)
    }

    /// The model's next output. While the hooks have events in flight they are served
    /// between short looks at the model; otherwise the wait is on the model alone, so an
    /// output is shown the moment it arrives.
    fn next_output(&mut self, model: &mut dyn ModelStream) -> anyhow::Result<Next> {
        if !self.dispatcher.busy() {
            return Ok(model.next(MODEL_WAIT));
        }
        match model.next(Duration::ZERO) {
            Next::Waiting => {
                self.dispatcher.idle(HOOKS_SLICE)?;
                Ok(Next::Waiting)
            }
            next => Ok(next),
        }
    }

    /// Records a turn's event, shows it and hands it to the hooks (under the turn's span,
    /// when it is traced).
    fn record_show_dispatch(
        &mut self,
        event: TurnEvent,
        turn_id: &str,
        outcome: &mut Outcome,
        trace: &mut Option<TurnTrace>,
    ) -> anyhow::Result<()> {
        let envelope = self.recorder.record(event.event_type, Some(turn_id), event.data, now_rfc3339())?;
        outcome.failed = outcome.failed.take().or_else(|| FailedTurn::of(&envelope));
        let parent = trace.as_mut().and_then(|trace| {
            trace.on_event(&envelope.event_type, &envelope.data);
            trace.events_parent()
        });
        (self.sink)(&envelope)?;
        self.dispatcher.dispatch_in(envelope, parent)
    }

    /// A recorded stream, read and recorded in batches (one transaction each), each batch
    /// before any of its events is dispatched (a file is read as it goes; a pipe's events are what
    /// `run` kept while it checked them: see `commands::run::input`).
    pub fn replay(&mut self, mut replay: impl Iterator<Item = anyhow::Result<Envelope>>) -> anyhow::Result<Outcome> {
        let mut outcome = Outcome::default();
        loop {
            let mut envelopes = Vec::with_capacity(REPLAY_BATCH);
            for event in replay.by_ref().take(REPLAY_BATCH) {
                match event {
                    Ok(event) => envelopes.push(self.recorder.envelope(
                        &event.event_type,
                        event.turn_id.as_deref(),
                        event.data,
                        event.at,
                    )),
                    Err(error) => {
                        outcome.bad_input = Some(error);
                        break;
                    }
                }
            }
            if envelopes.is_empty() {
                break;
            }
            self.recorder.store.append(&envelopes)?;
            for envelope in &envelopes {
                outcome.failed = outcome.failed.take().or_else(|| FailedTurn::of(envelope));
                (self.sink)(envelope)?;
            }
            self.dispatcher.dispatch_all(envelopes)?;
            if outcome.bad_input.is_some() {
                break;
            }
            if self.interrupted.load(Ordering::SeqCst) {
                outcome.cancelled = true;
                break;
            }
        }
        Ok(outcome)
    }

    /// One synthetic event (`--event`).
    pub fn synthetic(&mut self, event: TurnEvent) -> anyhow::Result<Outcome> {
        let envelope = self.recorder.record(event.event_type, Some(&new_id("turn")), event.data, now_rfc3339())?;
        self.show_and_dispatch(envelope)?;
        Ok(Outcome::default())
    }

    /// Shows a recorded envelope and hands it to the hooks.
    fn show_and_dispatch(&mut self, envelope: Envelope) -> anyhow::Result<()> {
        (self.sink)(&envelope)?;
        self.dispatcher.dispatch(envelope)
    }
}

/// Lets time pass while the model works, handling the hooks meanwhile; Ctrl-C ends the wait.
fn wait_for_model(dispatcher: &mut Dispatcher, duration: Duration, interrupted: &AtomicBool) -> anyhow::Result<()> {
    // A pause too long for the clock (a script's `pauseMs` near u64::MAX) lasts until Ctrl-C.
    let until = Instant::now().checked_add(duration);
    while !interrupted.load(Ordering::SeqCst) {
        let left = match until {
            Some(until) => until.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        };
        if left.is_zero() {
            break;
        }
        dispatcher.idle(left.min(Duration::from_millis(50)))?;
    }
    Ok(())
}

/// Numbers and records a session's events.
pub struct Recorder<'s> {
    pub store: &'s StateStore,
    pub session_id: &'s str,
    pub next: u64,
}

impl Recorder<'_> {
    fn envelope(&mut self, event_type: &str, turn_id: Option<&str>, data: Value, at: String) -> Envelope {
        let envelope = Envelope {
            event_type: event_type.to_owned(),
            index: self.next,
            session_id: self.session_id.to_owned(),
            turn_id: turn_id.map(str::to_owned),
            at,
            data,
        };
        self.next += 1;
        envelope
    }

    /// Builds the next envelope and makes it durable.
    fn record(&mut self, event_type: &str, turn_id: Option<&str>, data: Value, at: String) -> anyhow::Result<Envelope> {
        let envelope = self.envelope(event_type, turn_id, data, at);
        self.store.append(std::slice::from_ref(&envelope))?;
        Ok(envelope)
    }
}
