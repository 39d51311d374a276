//! Feeding a session's events: each recorded (durably), then shown to whoever is waiting
//! for it (`run`'s stdout, `dev`'s HTTP stream), then handed to the hooks.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::engine::hooks::Hooks;
use crate::engine::turn::{self, Turn, TurnEvent, TurnStep};
use crate::model::{ModelStream, Next};
use crate::signals::Interrupt;
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::log_record::{Level, Record};
use crate::state::serve_log::ServeLog;
use crate::telemetry::Parent;
use crate::telemetry::turn_trace::{Traced, TurnTrace};
use crate::time::clock::{new_id, now_rfc3339};

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

/// The first batch of a replay is smaller: the hooks, loaded and waiting, start on it while
/// the next is read and recorded.
const FIRST_REPLAY_BATCH: usize = 32;

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
    pub hooks: &'f mut dyn Hooks,
    /// Where the model's own lines go.
    pub log: &'f ServeLog,
    pub interrupt: Interrupt<'f>,
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
            if self.interrupt.is_set() {
                outcome.cancelled = true;
                return self
                    .record_show_dispatch(turn::cancelled(self.interrupt.name()), &turn_id, &mut outcome, trace)
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
                    TurnStep::Wait(duration) => wait_for_model(self.hooks, duration, self.interrupt)?,
                    TurnStep::Responded(model) => {
                        if let Some(trace) = trace.as_mut() {
                            trace.responded(&model);
                        }
                    }
                    TurnStep::Log(level, line) => {
                        let mut record = Record::new(level, line);
                        record.turn_id = Some(turn_id.clone());
                        self.log.write(record);
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
        if !self.hooks.busy() {
            return Ok(model.next(MODEL_WAIT));
        }
        match model.next(Duration::ZERO) {
            Next::Waiting => {
                self.hooks.idle(HOOKS_SLICE)?;
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
        self.hooks.dispatch_in(envelope, parent)
    }

    /// A recorded stream, read and recorded in batches (one transaction each), each batch
    /// before any of its events is dispatched (a file is read as it goes; a pipe's events are what
    /// `run` kept while it checked them: see `commands::run::input`).
    /// Each replayed turn is traced as a live one is, from its recorded events.
    pub fn replay(&mut self, mut replay: impl Iterator<Item = anyhow::Result<Envelope>>) -> anyhow::Result<Outcome> {
        let mut outcome = Outcome::default();
        // The turns it has not ended when it stops end with it.
        let mut turns = self.traced.clone().map(ReplayedTurns::new);
        let mut batch = FIRST_REPLAY_BATCH;
        loop {
            let mut envelopes = Vec::with_capacity(batch);
            for event in replay.by_ref().take(batch) {
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
            let mut traced = Vec::with_capacity(envelopes.len());
            for envelope in envelopes {
                outcome.failed = outcome.failed.take().or_else(|| FailedTurn::of(&envelope));
                (self.sink)(&envelope)?;
                let parent = turns.as_mut().and_then(|turns| turns.on_event(&envelope));
                traced.push((envelope, parent));
            }
            self.hooks.dispatch_all_in(traced)?;
            batch = REPLAY_BATCH;
            if outcome.bad_input.is_some() {
                break;
            }
            if self.interrupt.is_set() {
                outcome.cancelled = true;
                break;
            }
        }
        Ok(outcome)
    }

    /// One synthetic event (`--event`), traced as a turn of its own.
    pub fn synthetic(&mut self, event: TurnEvent) -> anyhow::Result<Outcome> {
        let turn_id = new_id("turn");
        let mut trace = self.traced.as_ref().map(|traced| traced.start_recorded(&turn_id));
        let envelope = self.recorder.record(event.event_type, Some(&turn_id), event.data, now_rfc3339())?;
        let parent = trace.as_mut().and_then(|trace| {
            trace.on_event(&envelope.event_type, &envelope.data);
            trace.events_parent()
        });
        (self.sink)(&envelope)?;
        self.hooks.dispatch_in(envelope, parent)?;
        Ok(Outcome::default())
    }
}

/// The traces of a replay's turns, one per turn id, each started at its turn's first event
/// and ended by its terminal event (or, for a turn the replay does not end, when the
/// replay is done). An event with no turn id is dispatched untraced.
struct ReplayedTurns {
    traced: Traced,
    open: HashMap<String, TurnTrace>,
}

impl ReplayedTurns {
    fn new(traced: Traced) -> Self {
        Self { traced, open: HashMap::new() }
    }

    /// Takes in a replayed event; the span its handlers run under.
    fn on_event(&mut self, envelope: &Envelope) -> Option<Parent> {
        let turn_id = envelope.turn_id.as_deref()?;
        let trace = self.open.entry(turn_id.to_owned()).or_insert_with(|| self.traced.start_recorded(turn_id));
        trace.on_event(&envelope.event_type, &envelope.data);
        let parent = trace.events_parent();
        if trace.ended() {
            self.open.remove(turn_id);
        }
        parent
    }
}

/// Lets time pass while the model works, handling the hooks meanwhile; Ctrl-C ends the wait.
fn wait_for_model(hooks: &mut dyn Hooks, duration: Duration, interrupt: Interrupt) -> anyhow::Result<()> {
    // A pause too long for the clock (a script's `pauseMs` near u64::MAX) lasts until Ctrl-C.
    let until = Instant::now().checked_add(duration);
    while !interrupt.is_set() {
        let left = match until {
            Some(until) => until.saturating_duration_since(Instant::now()),
            None => Duration::MAX,
        };
        if left.is_zero() {
            break;
        }
        hooks.idle(left.min(Duration::from_millis(50)))?;
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
