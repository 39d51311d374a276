//! A session taking turns, the one way `run` and `dev` answer: each message's turn (or a
//! replayed stream, or one synthetic event) recorded, shown to whoever waits for it and
//! handed to the hooks, traced when telemetry is exported; what an earlier process left
//! undispatched set aside and said; and how the turn ends, as an exit status.

use std::sync::Arc;

use crate::engine::dispatcher::{Dispatcher, Finished};
use crate::engine::feed::{Feed, Recorder};
pub use crate::engine::feed::{Outcome, Sink};
use crate::engine::hooks::Hooks;
use crate::engine::turn::TurnEvent;
use crate::engine::undelivered::{self, Undelivered};
use crate::exit_status::ExitStatus;
use crate::model::ModelStream;
use crate::model::choice::ModelChoice;
use crate::model::local::Script;
use crate::printer::plural;
use crate::project::Project;
use crate::runtime::host::Runtime;
use crate::runtime::setup::SessionSetup;
use crate::session::{LoadPlan, SessionFacts};
use crate::signals::{Interrupt, Stop, Stopping};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::serve_log::ServeLog;
use crate::telemetry::turn_trace::Traced;
use crate::telemetry::{Parent, Telemetry};

/// A session: where its turns are recorded and said, what answers them, and (once they
/// are loaded, `H`) the hooks its events are handed to.
pub struct Session<'s, H = ()> {
    pub id: &'s str,
    store: &'s StateStore,
    log: &'s ServeLog,
    project: &'s Project,
    model: &'s ModelChoice,
    telemetry: Option<&'s Arc<Telemetry>>,
    hooks: H,
}

/// A message the model has started answering.
pub struct Asked {
    message: String,
    answer: Box<dyn ModelStream>,
}

/// How the hooks of a `run` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HooksEnded {
    /// Every event went through every hook; `misbehaved`: a hook failed to load, threw,
    /// timed out or crashed its runtime.
    Finished { misbehaved: bool },
    /// A second signal stopped them at once (what was not dispatched was said).
    StoppedAtOnce,
}

impl<'s> Session<'s> {
    pub fn new(
        setup: &'s SessionSetup,
        model: &'s ModelChoice,
        id: &'s str,
        store: &'s StateStore,
        log: &'s ServeLog,
    ) -> Self {
        let telemetry = setup.telemetry.as_ref();
        Self { id, store, log, project: &setup.project, model, telemetry, hooks: () }
    }

    /// The session with a runtime of its own (`run`, started with
    /// [`SessionSetup::start_runtime`]), `plan`'s hooks loaded into it, and how many said.
    pub fn load(
        self,
        setup: &SessionSetup,
        runtime: Runtime,
        facts: &SessionFacts,
        plan: &LoadPlan,
    ) -> anyhow::Result<Session<'s, Dispatcher<'s>>> {
        let dispatcher = super::load(setup, runtime, facts, plan, self.log, self.store)?;
        self.log.info(format!("session {}: {} loaded", self.id, plural(dispatcher.loaded, "hook")));
        Ok(self.with_hooks(dispatcher))
    }
}

impl<'s, H> Session<'s, H> {
    /// Where the session's lines are said.
    pub fn log(&self) -> &'s ServeLog {
        self.log
    }

    /// The session, its events handed to `hooks` from now on.
    pub fn with_hooks<K: Hooks>(self, hooks: K) -> Session<'s, K> {
        let Self { id, store, log, project, model, telemetry, hooks: _ } = self;
        Session { id, store, log, project, model, telemetry, hooks }
    }

    /// Sets aside what an earlier process recorded and never dispatched, and says so (a
    /// warning) when the session opens in this process (`opening`), or when this look
    /// found more. Call it holding the session's lease, before recording.
    pub fn take_stock(&self, opening: bool) -> anyhow::Result<Undelivered> {
        let undelivered = Undelivered::take_stock(self.store, self.id)?;
        if let Some(warning) = undelivered_warning(&undelivered, self.id, opening) {
            self.log.warn(warning);
        }
        Ok(undelivered)
    }

    /// The model starts answering `message` (a session's first turn: while its hooks load;
    /// a real model's first token often takes longer). `instructions`: what the extensions
    /// add to the agent's own; `script`: the local model's, for this turn.
    pub fn ask(&self, message: &str, instructions: &[String], script: Option<&Script>) -> anyhow::Result<Asked> {
        let source_dir = self.project.source_dir();
        let answer = self.model.start_turn(&source_dir, instructions, self.store, self.id, message, script)?;
        Ok(Asked { message: message.to_owned(), answer })
    }

    /// How every turn is traced (under `parent`), when telemetry is exported.
    fn traced(&self, parent: Option<Parent>) -> Option<Traced> {
        self.telemetry.map(|telemetry| Traced {
            telemetry: Arc::clone(telemetry),
            parent,
            session_id: self.id.to_owned(),
            agent: self.project.name.clone(),
            gen_ai: self.model.gen_ai(),
        })
    }
}

impl<H: Hooks> Session<'_, H> {
    /// The turn answering what was `asked`: each of the model's outputs recorded, shown
    /// through `sink` and handed to the hooks as it comes, until the turn ends or
    /// `interrupt` cancels it (recorded as `turn.failed`). Turns are traced under `parent`.
    /// The model is stopped when this returns, not once the hooks are done.
    pub fn answer(
        &mut self,
        asked: Asked,
        sink: &mut Sink<'_>,
        interrupt: Interrupt<'_>,
        parent: Option<Parent>,
    ) -> anyhow::Result<Outcome> {
        let Asked { message, mut answer } = asked;
        self.feed(sink, interrupt, parent)?.turn(&message, answer.as_mut())
    }

    /// A recorded stream, recorded again in this session and handed to the hooks (`run
    /// --replay`).
    pub fn replay(
        &mut self,
        replay: impl Iterator<Item = anyhow::Result<Envelope>>,
        sink: &mut Sink<'_>,
        interrupt: Interrupt<'_>,
    ) -> anyhow::Result<Outcome> {
        self.feed(sink, interrupt, None)?.replay(replay)
    }

    /// One synthetic event (`run --event`), a turn of its own.
    pub fn synthetic(
        &mut self,
        event: TurnEvent,
        sink: &mut Sink<'_>,
        interrupt: Interrupt<'_>,
    ) -> anyhow::Result<Outcome> {
        self.feed(sink, interrupt, None)?.synthetic(event)
    }

    /// Hands the hooks what an earlier process recorded and never dispatched (`run
    /// --redeliver`), saying how many.
    pub fn redeliver(&mut self) -> anyhow::Result<u64> {
        let undelivered = Undelivered::take_stock(self.store, self.id)?;
        if undelivered.count == 0 {
            self.log.info(format!("nothing to redeliver: the hooks saw every recorded event of session {}", self.id));
            return Ok(0);
        }
        let events = plural(undelivered.count as usize, "recorded event");
        self.log.info(format!("redelivering {events} its hooks never saw"));
        let redelivered = undelivered::redeliver(self.store, self.id, &mut self.hooks)?;
        self.log.info(format!("redelivered {}", plural(redelivered as usize, "event")));
        Ok(redelivered)
    }

    /// Events recorded from the session's next index on (after what is recorded), shown
    /// through `sink`, handed to the hooks.
    fn feed<'f>(
        &'f mut self,
        sink: &'f mut Sink<'_>,
        interrupt: Interrupt<'f>,
        parent: Option<Parent>,
    ) -> anyhow::Result<Feed<'f, 'f>> {
        let recorder = Recorder { store: self.store, session_id: self.id, next: self.store.next_index(self.id)? };
        let traced = self.traced(parent);
        Ok(Feed { sink, recorder, hooks: &mut self.hooks, log: self.log, interrupt, traced })
    }
}

impl<'s> Session<'s, Dispatcher<'s>> {
    /// Waits for the hooks to finish what was handed to them, unless `stopping` stops them
    /// at once (then says what they did not see, and how to hand it to them again); then
    /// closes the runtime and says what the hooks recorded (`otel …` lines) and the
    /// session's summary. `said`: whether the turn's cancellation was said already.
    pub fn end(mut self, stopping: &Stopping, said: bool) -> anyhow::Result<HooksEnded> {
        let interrupt = stopping.interrupt();
        let finished =
            self.hooks.finish_unless_stopped(interrupt.flag(), stopping.now(), &|| interrupt.name(), said)?;
        if let Finished::Stopped { undispatched } = finished {
            self.log.warn(stopped_at_once(undispatched, self.id));
            return Ok(HooksEnded::StoppedAtOnce);
        }
        let loaded = self.hooks.loaded;
        let closed = self.hooks.close();
        for line in closed.otel.lines() {
            self.log.info(line);
        }
        self.log.info(closed.stats.summary(loaded));
        Ok(HooksEnded::Finished { misbehaved: closed.stats.misbehaved() })
    }
}

/// The warning about events the hooks never saw, when it is to be said: there are some,
/// and the session opens in this process or this look found more.
fn undelivered_warning(undelivered: &Undelivered, session_id: &str, opening: bool) -> Option<String> {
    undelivered.warning(session_id).filter(|_| opening || undelivered.found_now > 0)
}

/// What a second signal left undispatched, and the command that dispatches it.
fn stopped_at_once(undispatched: usize, session_id: &str) -> String {
    let (pronoun, verb) = if undispatched == 1 { ("it", "was") } else { ("them", "were") };
    format!(
        "stopped at once: {} {verb} not dispatched to every hook; \
         `{} run --session {session_id} --redeliver` dispatches {pronoun}",
        plural(undispatched, "recorded event"),
        crate::process::invocation::command()
    )
}

/// How a command that answered a turn ends: 128 + the signal that stopped it (`stopped`,
/// Ctrl-C for a cancelled turn), else 1 when the turn failed, else 3 when a hook
/// misbehaved, else 0.
pub fn exit_status(outcome: &Outcome, stopped: Option<Stop>, misbehaved: bool) -> ExitStatus {
    if outcome.cancelled || stopped.is_some() {
        stopped.unwrap_or(Stop::CTRL_C).exit_status()
    } else if outcome.failed.is_some() {
        ExitStatus::Failure
    } else if misbehaved {
        ExitStatus::HooksMisbehaved
    } else {
        ExitStatus::Success
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use super::*;
    use crate::project::Layout;
    use crate::state::serve_log::LogFormat;

    /// Hooks that keep what they were handed, in order.
    #[derive(Default)]
    struct SeenHooks {
        seen: Vec<Envelope>,
        finished: bool,
    }

    impl Hooks for SeenHooks {
        fn dispatch_in(&mut self, event: Envelope, _: Option<Parent>) -> anyhow::Result<()> {
            self.seen.push(event);
            Ok(())
        }

        fn dispatch_all_in(&mut self, events: Vec<(Envelope, Option<Parent>)>) -> anyhow::Result<()> {
            self.seen.extend(events.into_iter().map(|(event, _)| event));
            Ok(())
        }

        fn finish(&mut self) -> anyhow::Result<()> {
            self.finished = true;
            Ok(())
        }

        fn busy(&self) -> bool {
            false
        }

        fn idle(&mut self, _: Duration) -> anyhow::Result<()> {
            Ok(())
        }
    }

    /// A project, its store and a quiet serve log, in a folder of their own.
    struct Place {
        _dir: tempfile::TempDir,
        project: Project,
        store: StateStore,
        log: ServeLog,
    }

    impl Place {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let project = Project {
                dir: dir.path().to_path_buf(),
                canonical_dir: dir.path().to_path_buf(),
                layout: Layout::Agent,
                name: "helper".to_owned(),
            };
            let store = StateStore::open(dir.path()).unwrap();
            let mut log = ServeLog::new(LogFormat::Text);
            log.quiet();
            Self { _dir: dir, project, store, log }
        }

        fn session<'s>(&'s self, model: &'s ModelChoice) -> Session<'s, SeenHooks> {
            Session {
                id: "ses_1",
                store: &self.store,
                log: &self.log,
                project: &self.project,
                model,
                telemetry: None,
                hooks: SeenHooks::default(),
            }
        }
    }

    fn script(json: &str) -> ModelChoice {
        ModelChoice::Local(Some(serde_json::from_str(json).unwrap()))
    }

    fn types(events: &[Envelope]) -> Vec<&str> {
        events.iter().map(|event| event.event_type.as_str()).collect()
    }

    /// Answers `message` in `session`, keeping what was shown.
    fn answer(session: &mut Session<'_, SeenHooks>, message: &str, interrupt: Interrupt) -> (Outcome, Vec<Envelope>) {
        let asked = session.ask(message, &[], None).unwrap();
        let mut shown = Vec::new();
        let store = session.store;
        let mut sink = |envelope: &Envelope| -> anyhow::Result<()> {
            // Durable first: what is shown is recorded already.
            assert_eq!(store.events("ses_1")?.last(), Some(envelope));
            shown.push(envelope.clone());
            Ok(())
        };
        let outcome = session.answer(asked, &mut sink, interrupt, None).unwrap();
        (outcome, shown)
    }

    fn not_interrupted() -> AtomicBool {
        AtomicBool::new(false)
    }

    #[test]
    fn a_turn_is_recorded_then_shown_then_handed_to_the_hooks_in_order() {
        let place = Place::new();
        let model = script(r#"{ "steps": [ { "text": "hello" }, { "tools": [ { "toolName": "a" } ] } ] }"#);
        let mut session = place.session(&model);
        let flag = not_interrupted();
        let (outcome, shown) = answer(&mut session, "hi", Interrupt::by(&flag, "test"));
        let recorded = place.store.events("ses_1").unwrap();
        assert_eq!(
            types(&recorded),
            [
                "message.received",
                "message.appended",
                "actions.requested",
                "action.result",
                "actions.completed",
                "message.completed",
                "turn.completed"
            ]
        );
        assert_eq!(shown, recorded);
        assert_eq!(session.hooks.seen, recorded);
        assert!(recorded.iter().all(|event| event.turn_id == outcome.turn_id));
        assert!(outcome.failed.is_none() && !outcome.cancelled);
    }

    #[test]
    fn a_later_turn_goes_on_from_the_recorded_indexes() {
        let place = Place::new();
        let model = ModelChoice::Local(None);
        let mut session = place.session(&model);
        let flag = not_interrupted();
        let (first, _) = answer(&mut session, "one", Interrupt::by(&flag, "test"));
        let (second, _) = answer(&mut session, "two", Interrupt::by(&flag, "test"));
        let indexes: Vec<u64> = place.store.events("ses_1").unwrap().iter().map(|event| event.index).collect();
        assert_eq!(indexes, (0..indexes.len() as u64).collect::<Vec<_>>());
        assert_ne!(first.turn_id, second.turn_id);
        assert_eq!(session.hooks.seen.len(), indexes.len());
    }

    #[test]
    fn an_interrupted_turn_is_recorded_as_cancelled_by_what_interrupted_it() {
        let place = Place::new();
        let model = ModelChoice::Local(None);
        let mut session = place.session(&model);
        let stopping = AtomicBool::new(true);
        let (outcome, shown) = answer(&mut session, "hi", Interrupt::by(&stopping, "the server is stopping"));
        assert!(outcome.cancelled);
        assert_eq!(types(&shown), ["message.received", "turn.failed"]);
        let failed = outcome.failed.expect("a cancelled turn failed");
        assert_eq!(failed.reason, "the turn was cancelled (the server is stopping)");
        assert_eq!(shown[1].data["status"], "cancelled");
        assert_eq!(session.hooks.seen, shown);
    }

    #[test]
    fn a_turn_the_model_fails_is_the_outcome_s_failure() {
        let place = Place::new();
        let model = script(r#"{ "steps": [ { "text": "partly" }, { "fail": "the provider said no" } ] }"#);
        let mut session = place.session(&model);
        let flag = not_interrupted();
        let (outcome, shown) = answer(&mut session, "hi", Interrupt::by(&flag, "test"));
        assert_eq!(types(&shown).last(), Some(&"turn.failed"));
        assert_eq!(outcome.failed.map(|failed| failed.reason), Some("the provider said no".to_owned()));
        assert!(!outcome.cancelled);
    }

    #[test]
    fn a_replay_is_recorded_again_in_this_session_in_order() {
        let place = Place::new();
        let model = ModelChoice::Local(None);
        let mut session = place.session(&model);
        let recorded = |index: u64, event_type: &str| Envelope {
            event_type: event_type.to_owned(),
            index,
            session_id: "ses_other".to_owned(),
            turn_id: Some("turn_a".to_owned()),
            at: "2025-01-01T00:00:00.000Z".to_owned(),
            data: serde_json::json!({ "text": "hi" }),
        };
        let replay = vec![Ok(recorded(7, "message.received")), Ok(recorded(9, "turn.completed"))];
        let flag = not_interrupted();
        let outcome = session.replay(replay.into_iter(), &mut |_| Ok(()), Interrupt::by(&flag, "test")).unwrap();
        let here = place.store.events("ses_1").unwrap();
        assert_eq!(
            here.iter().map(|event| (event.index, event.session_id.as_str())).collect::<Vec<_>>(),
            [(0, "ses_1"), (1, "ses_1")]
        );
        assert_eq!(session.hooks.seen, here);
        assert!(outcome.failed.is_none());
    }

    /// Records `count` events the hooks never saw, as a process that crashed leaves them.
    fn left_undispatched(store: &StateStore, count: u64) {
        let next = store.next_index("ses_1").unwrap();
        let events: Vec<Envelope> = (next..next + count)
            .map(|index| Envelope {
                event_type: "message.received".to_owned(),
                index,
                session_id: "ses_1".to_owned(),
                turn_id: None,
                at: "2025-01-01T00:00:00.000Z".to_owned(),
                data: serde_json::json!({ "text": index.to_string() }),
            })
            .collect();
        store.append(&events).unwrap();
    }

    #[test]
    fn what_the_hooks_never_saw_is_said_when_the_session_opens_or_more_is_found() {
        let place = Place::new();
        let model = ModelChoice::Local(None);
        let session = place.session(&model);
        left_undispatched(&place.store, 2);
        let found = session.take_stock(false).unwrap();
        assert_eq!((found.count, found.found_now), (2, 2));
        assert!(undelivered_warning(&found, "ses_1", false).is_some(), "found now");
        let again = session.take_stock(false).unwrap();
        assert_eq!((again.count, again.found_now), (2, 0));
        assert_eq!(undelivered_warning(&again, "ses_1", false), None, "said already");
        assert!(undelivered_warning(&again, "ses_1", true).unwrap().contains("has 2 recorded events"));
        let none = Undelivered { count: 0, found_now: 0 };
        assert_eq!(undelivered_warning(&none, "ses_1", true), None);
    }

    #[test]
    fn redelivery_hands_the_hooks_exactly_what_was_set_aside_then_forgets_it() {
        let place = Place::new();
        let model = ModelChoice::Local(None);
        let mut session = place.session(&model);
        left_undispatched(&place.store, 1);
        session.take_stock(true).unwrap();
        left_undispatched(&place.store, 2);
        assert_eq!(session.redeliver().unwrap(), 3);
        let indexes: Vec<u64> = session.hooks.seen.iter().map(|event| event.index).collect();
        assert_eq!(indexes, [0, 1, 2]);
        assert!(session.hooks.finished, "redelivery waits for the hooks");
        assert_eq!(session.take_stock(true).unwrap().count, 0);
        assert_eq!(session.redeliver().unwrap(), 0);
    }

    #[test]
    fn a_stop_outranks_a_failed_turn_which_outranks_a_hook_that_misbehaved() {
        let failed = Outcome {
            failed: Some(crate::engine::feed::FailedTurn { turn_id: None, reason: "x".to_owned() }),
            ..Outcome::default()
        };
        let cancelled = Outcome { cancelled: true, ..Outcome::default() };
        assert_eq!(exit_status(&Outcome::default(), None, false), ExitStatus::Success);
        assert_eq!(exit_status(&Outcome::default(), None, true), ExitStatus::HooksMisbehaved);
        assert_eq!(exit_status(&failed, None, true), ExitStatus::Failure);
        assert_eq!(exit_status(&failed, Some(Stop::CTRL_C), true), Stop::CTRL_C.exit_status());
        assert_eq!(exit_status(&cancelled, None, false), Stop::CTRL_C.exit_status());
    }
}
