//! The dispatcher driven through a scripted runtime ([`Scripted`]): a Node that runs each
//! hook's handler as the test says (returns, throws, exits, never yields), in order, and
//! answers `init` as a real one does. What the dispatcher reports is heard as
//! [`Happened`]s, not sentences ([`super::render`] has its own tests).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::Duration;

use super::*;
use crate::protocol::FromNode;
use crate::runtime::link::StuckWhy;
use crate::runtime::slot::SlotReading;

/// What a hook's handler (or its import) does in the scripted runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Does {
    Return,
    Throw,
    /// Calls `process.exit(1)`: the runtime ends, saying so first.
    Exit,
    /// The process dies with no word (a crash, a kill from outside).
    Crash,
    /// Never yields: the runtime is stuck.
    Hang,
}

/// Hook `hook` handling event `seq` in the `start`th runtime (0 the first), or importing (`seq` `None`).
type Script = dyn Fn(usize, Option<u64>, u32) -> Does;

/// The scripted runtime's record, shared with the test.
#[derive(Default)]
struct Seen {
    /// How many runtimes were started (the first included).
    starts: u32,
    /// Every handler that ran to its end or threw: (event, hook).
    ran: Vec<(u64, usize)>,
    /// Every event sent, with the hook it was sent from.
    sent: Vec<(u64, usize)>,
}

struct Scripted {
    script: Rc<Script>,
    hooks: Vec<String>,
    seen: Rc<RefCell<Seen>>,
    /// Events queued and not yet sent: (seq, from, type).
    queued: Vec<(u64, usize, String)>,
    /// Events sent and not yet run (the runtime is stuck or has not got to them).
    waiting: RefCell<VecDeque<(u64, usize, String)>>,
    inbox: Rc<RefCell<VecDeque<FromRuntime>>>,
    slot: Rc<RefCell<SlotReading>>,
    /// The hooks the runtime did not load (their handlers never run).
    unloaded: RefCell<Vec<usize>>,
    /// Stuck in a handler, or ended.
    stopped: Cell<bool>,
    ended: Cell<bool>,
    /// Owns its runtime (`run`'s), or is a lane whose keeper restarts it for `judged`.
    lane: Option<Restart>,
}

impl Scripted {
    fn new(hooks: &[&str], script: impl Fn(usize, Option<u64>, u32) -> Does + 'static) -> (Self, Rc<RefCell<Seen>>) {
        let seen = Rc::new(RefCell::new(Seen { starts: 1, ..Seen::default() }));
        let scripted = Self {
            script: Rc::new(script),
            hooks: hooks.iter().map(|hook| (*hook).to_owned()).collect(),
            seen: seen.clone(),
            queued: Vec::new(),
            waiting: RefCell::default(),
            inbox: Rc::default(),
            slot: Rc::new(RefCell::new(SlotReading { generation: 0, state: RuntimeState::Starting })),
            unloaded: RefCell::default(),
            stopped: Cell::new(false),
            ended: Cell::new(false),
            lane: None,
        };
        (scripted, seen)
    }

    fn say(&self, message: FromNode) {
        self.inbox.borrow_mut().push_back(FromRuntime::Message(message));
    }

    fn set_slot(&self, state: RuntimeState) {
        let mut slot = self.slot.borrow_mut();
        slot.generation += 1;
        slot.state = state;
    }

    fn start(&self) -> u32 {
        self.seen.borrow().starts - 1
    }

    /// Ends the process: with its word when a hook called `process.exit`.
    fn end(&self, exit_by: Option<&str>) {
        if let Some(hook) = exit_by {
            self.say(FromNode::Exit { hook: Some(hook.to_owned()), code: 1.into(), stack: None });
        }
        self.inbox.borrow_mut().push_back(FromRuntime::Exited);
        self.stopped.set(true);
        self.ended.set(true);
    }

    /// Imports each hook as `init` asks, as host.mjs does.
    fn init(&self, hooks: &[crate::protocol::HookToImport<'_>]) {
        self.say(FromNode::Hello { node: "v22.12.0".to_owned() });
        self.unloaded.borrow_mut().clear();
        for (index, hook) in hooks.iter().enumerate() {
            let name = hook.name.to_owned();
            if let Some(skip) = hook.skip {
                self.unloaded.borrow_mut().push(index);
                self.say(FromNode::LoadFailed { hook: name, message: skip.to_owned(), stack: None });
                continue;
            }
            self.say(FromNode::Loading { hook: name.clone() });
            match (self.script)(index, None, self.start()) {
                Does::Return => self.say(FromNode::Loaded { hook: name, events: vec!["*".to_owned()] }),
                Does::Throw => {
                    self.unloaded.borrow_mut().push(index);
                    self.say(FromNode::LoadFailed { hook: name, message: "boom".to_owned(), stack: None });
                }
                Does::Exit => return self.end(Some(&name)),
                Does::Crash => return self.end(None),
                Does::Hang => return self.stopped.set(true),
            }
        }
        self.set_slot(RuntimeState::Idle { through: None });
        self.say(FromNode::Ready);
    }

    /// Runs what was sent, in order, until a handler stops the runtime.
    fn run(&self) {
        while !self.stopped.get() {
            let Some((seq, from, event_type)) = self.waiting.borrow_mut().pop_front() else { return };
            for hook in from..self.hooks.len() {
                if self.unloaded.borrow().contains(&hook) {
                    continue;
                }
                self.set_slot(RuntimeState::Running(RunningHandler { seq, hook, any: false }));
                match (self.script)(hook, Some(seq), self.start()) {
                    Does::Return => self.seen.borrow_mut().ran.push((seq, hook)),
                    Does::Throw => {
                        self.seen.borrow_mut().ran.push((seq, hook));
                        self.say(FromNode::Threw {
                            seq,
                            hook,
                            handler: event_type.clone(),
                            message: "boom".to_owned(),
                            stack: None,
                        });
                    }
                    Does::Exit => return self.end(Some(&self.hooks[hook])),
                    Does::Crash => return self.end(None),
                    Does::Hang => return self.stopped.set(true),
                }
            }
            self.set_slot(RuntimeState::Idle { through: Some(seq) });
            self.say(FromNode::Done { seq });
        }
    }

    fn receive(&self, message: &ToNode) {
        match message {
            ToNode::Init { hooks, .. } => self.init(hooks),
            ToNode::Event { seq, from, event, .. } => {
                self.seen.borrow_mut().sent.push((*seq, *from));
                self.waiting.borrow_mut().push_back((*seq, *from, event.event_type.clone()));
            }
            _ => {}
        }
    }
}

impl Link for Scripted {
    fn send(&self, message: &ToNode) -> std::io::Result<()> {
        self.receive(message);
        self.run();
        Ok(())
    }

    fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        if let ToNode::Event { seq, from, event, .. } = message {
            self.queued.push((*seq, *from, event.event_type.clone()));
        }
        Ok(())
    }

    fn send_queued(&mut self) {
        for (seq, from, event_type) in std::mem::take(&mut self.queued) {
            self.seen.borrow_mut().sent.push((seq, from));
            self.waiting.borrow_mut().push_back((seq, from, event_type));
        }
        self.run();
    }

    fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError> {
        if let Some(received) = self.inbox.borrow_mut().pop_front() {
            return Ok(received);
        }
        if self.ended.get() {
            return Err(RecvTimeoutError::Disconnected);
        }
        std::thread::sleep(wait);
        Err(RecvTimeoutError::Timeout)
    }

    fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError> {
        match self.inbox.borrow_mut().pop_front() {
            Some(received) => Ok(received),
            None if self.ended.get() => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    fn slot(&self) -> SlotReading {
        *self.slot.borrow()
    }

    fn owns_runtime(&self) -> bool {
        self.lane.is_none()
    }

    fn start_again(&mut self, _config: &RuntimeConfig) -> anyhow::Result<()> {
        self.seen.borrow_mut().starts += 1;
        self.waiting.borrow_mut().clear();
        self.inbox.borrow_mut().clear();
        self.stopped.set(false);
        self.ended.set(false);
        *self.slot.borrow_mut() = SlotReading { generation: 0, state: RuntimeState::Starting };
        if self.lane.is_some() {
            // The keeper loaded the next runtime.
            self.set_slot(RuntimeState::Idle { through: None });
        }
        Ok(())
    }

    fn lane(&self) -> Option<u64> {
        self.lane.map(|_| 1)
    }

    fn judge(&mut self, seen: Restart, _why: StuckWhy<'_>) -> Restart {
        self.lane.unwrap_or(seen)
    }
}

/// What the dispatcher reported, in order.
#[derive(Default)]
struct Heard(RefCell<Vec<Happened>>);

impl Reporter for Heard {
    fn report(&self, happened: Happened, _during: Option<&Envelope>) {
        self.0.borrow_mut().push(happened);
    }
}

impl Heard {
    fn take(&self) -> Vec<Happened> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// A session's state in a temporary folder, and what its dispatcher reported.
struct Session {
    dir: tempfile::TempDir,
    store: StateStore,
    heard: Heard,
}

impl Session {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path()).unwrap();
        Self { dir, store, heard: Heard::default() }
    }

    /// A dispatcher on `link`, with a handler timeout of 20 ms, its hooks loaded.
    fn dispatcher(&self, link: Scripted) -> Dispatcher<'_> {
        let hooks = link
            .hooks
            .iter()
            .map(|name| HookToLoad {
                name: name.clone(),
                url: format!("file:///bot/hooks/{name}.ts"),
                source: format!("bot/hooks/{name}.ts"),
                key: None,
            })
            .collect();
        let config = RuntimeConfig {
            node: "node".into(),
            project_root: self.dir.path().to_owned(),
            runtime_dir: self.dir.path().to_owned(),
            env: Vec::new(),
            environment: Default::default(),
            state_root: crate::state::StateRoot::of(self.dir.path()),
            session_id: "session".to_owned(),
            otel: crate::runtime::otel_api::Providers::StandAside { sdk_package: "@opentelemetry/sdk-node" },
            telemetry: None,
            lanes: None,
        };
        let plan = LoadPlan { hooks, ..LoadPlan::default() };
        let owns = link.owns_runtime();
        let mut dispatcher = Dispatcher::with_link(
            config,
            Box::new(link),
            plan,
            InitCtx::Empty {},
            Duration::from_millis(20),
            &self.heard,
            &self.store,
        );
        // A handler that never yields is seen stuck 20 ms past its 20 ms, not 500.
        dispatcher.kill_grace = Duration::from_millis(20);
        if owns {
            dispatcher.load().unwrap();
        }
        dispatcher
    }
}

fn event(index: u64) -> Envelope {
    Envelope {
        event_type: "turn.completed".to_owned(),
        index,
        session_id: "session".to_owned(),
        turn_id: Some("turn".to_owned()),
        at: String::new(),
        data: Value::Null,
    }
}

fn handler(hook: &str) -> HandlerOf {
    HandlerOf { hook: hook.to_owned(), handler: "turn.completed".to_owned() }
}

fn loaded(hooks: &[&str]) -> Vec<Happened> {
    hooks.iter().map(|hook| Happened::Loaded { hook: (*hook).to_owned() }).collect()
}

#[test]
fn every_event_goes_through_every_hook_in_order() {
    let session = Session::new();
    let (link, seen) = Scripted::new(&["a", "b"], |_, _, _| Does::Return);
    let mut dispatcher = session.dispatcher(link);
    for index in 0..3 {
        dispatcher.dispatch(event(index)).unwrap();
    }
    dispatcher.finish().unwrap();
    assert_eq!(seen.borrow().ran, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
    assert_eq!(seen.borrow().sent, [(0, 0), (1, 0), (2, 0)]);
    assert_eq!(dispatcher.stats.events, 3);
    assert_eq!(dispatcher.loaded, 2);
    assert!(!dispatcher.busy());
    assert_eq!(session.heard.take(), loaded(&["a", "b"]));
}

#[test]
fn a_hook_that_throws_is_reported_and_the_others_still_run() {
    let session = Session::new();
    let (link, seen) = Scripted::new(&["a", "b"], |hook, seq, _| match (hook, seq) {
        (0, Some(1)) => Does::Throw,
        _ => Does::Return,
    });
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    dispatcher.dispatch_all_in([(event(0), None), (event(1), None)]).unwrap();
    dispatcher.finish().unwrap();
    assert_eq!(seen.borrow().ran, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    assert_eq!(session.heard.take(), [Happened::Threw { handler: handler("a"), message: "boom".to_owned(), at: None }]);
    assert_eq!((dispatcher.stats.threw, dispatcher.stats.restarts), (1, 0));
}

#[test]
fn a_hook_that_exits_is_blamed_and_its_event_goes_on_from_the_next_hook() {
    let session = Session::new();
    // Hook b calls process.exit in its handler of event 1, in the first runtime only.
    let (link, seen) = Scripted::new(&["a", "b", "c"], |hook, seq, start| match (hook, seq, start) {
        (1, Some(1), 0) => Does::Exit,
        _ => Does::Return,
    });
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    for index in 0..3 {
        dispatcher.dispatch(event(index)).unwrap();
    }
    dispatcher.finish().unwrap();
    let caller = ExitCaller::Hook { hook: "b".to_owned(), code: 1.into(), at: None };
    assert_eq!(
        session.heard.take(),
        [Happened::RuntimeExited { status: None, caller, running: Some(handler("b")) }, Happened::Restarting]
    );
    // Event 1 was sent again from hook c: b's handler is not run twice, a's not again.
    let seen = seen.borrow();
    assert_eq!(seen.starts, 2);
    assert_eq!(seen.sent, [(0, 0), (1, 0), (1, 2), (2, 0)]);
    assert_eq!(seen.ran, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)]);
    assert_eq!((dispatcher.stats.events, dispatcher.stats.restarts, dispatcher.stats.unconfirmed), (3, 1, 0));
}

#[test]
fn a_runtime_that_dies_under_a_handler_is_an_unconfirmed_delivery_said_once() {
    let session = Session::new();
    let (link, seen) = Scripted::new(&["a", "b"], |hook, seq, start| match (hook, seq, start) {
        (0, Some(0), 0) => Does::Crash,
        _ => Does::Return,
    });
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    dispatcher.dispatch(event(0)).unwrap();
    dispatcher.finish().unwrap();
    assert_eq!(
        session.heard.take(),
        [
            Happened::RuntimeExited { status: None, caller: ExitCaller::Unknown, running: Some(handler("a")) },
            Happened::Unconfirmed { handler: handler("a"), event: Some((0, "turn.completed".to_owned())) },
            Happened::Restarting,
        ]
    );
    assert_eq!(seen.borrow().ran, [(0, 1)]);
    assert_eq!((dispatcher.stats.unconfirmed, dispatcher.stats.events), (1, 1));
}

#[test]
fn a_handler_that_never_yields_is_timed_out_and_the_runtime_restarted() {
    let session = Session::new();
    let (link, seen) = Scripted::new(&["a", "b"], |hook, seq, start| match (hook, seq, start) {
        (0, Some(1), 0) => Does::Hang,
        _ => Does::Return,
    });
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    dispatcher.dispatch_all_in((0..3).map(|index| (event(index), None))).unwrap();
    dispatcher.finish().unwrap();
    assert_eq!(
        session.heard.take(),
        [Happened::TimedOut { handler: handler("a"), after: Duration::from_millis(20) }, Happened::Restarting]
    );
    // Event 0 was done before the hang; event 1 goes on from hook b, and 2 from the start.
    assert_eq!(seen.borrow().sent, [(0, 0), (1, 0), (2, 0), (1, 1), (2, 0)]);
    assert_eq!(seen.borrow().ran, [(0, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
    assert_eq!((dispatcher.stats.timed_out, dispatcher.stats.restarts, dispatcher.stats.events), (1, 1, 3));
}

#[test]
fn a_hook_whose_import_ends_the_runtime_is_not_imported_again() {
    let session = Session::new();
    let (link, seen) = Scripted::new(&["a", "b", "c"], |hook, seq, _| match (hook, seq) {
        (1, None) => Does::Crash,
        _ => Does::Return,
    });
    let mut dispatcher = session.dispatcher(link);
    let reason = render::ended_while_loading();
    let mut expected = loaded(&["a"]);
    expected.push(Happened::LoadFailed { hook: "b".to_owned(), reason, at: None });
    expected.extend(loaded(&["c"]));
    assert_eq!(session.heard.take(), expected);
    assert_eq!((dispatcher.loaded, dispatcher.stats.load_failed, seen.borrow().starts), (2, 1, 2));
    dispatcher.dispatch(event(0)).unwrap();
    dispatcher.finish().unwrap();
    // The skipped hook's handler is never run: the runtime does not have it.
    assert_eq!(seen.borrow().ran, [(0, 0), (0, 2)]);
}

#[test]
fn a_lane_cut_off_for_another_session_names_its_handler_and_moves_on_without_loading() {
    let session = Session::new();
    let (mut link, seen) = Scripted::new(&["a", "b"], |hook, seq, start| match (hook, seq, start) {
        (0, Some(0), 0) => Does::Crash,
        _ => Does::Return,
    });
    // The keeper stopped the shared runtime for another session's handler.
    link.lane = Some(Restart::CutOff);
    link.set_slot(RuntimeState::Idle { through: None });
    let mut dispatcher = session.dispatcher(link);
    dispatcher.dispatch(event(0)).unwrap();
    dispatcher.finish().unwrap();
    assert_eq!(
        session.heard.take(),
        [
            Happened::CutOffForAnother { running: handler("a") },
            Happened::Unconfirmed { handler: handler("a"), event: Some((0, "turn.completed".to_owned())) },
        ]
    );
    assert_eq!(seen.borrow().ran, [(0, 1)]);
    assert_eq!((dispatcher.stats.unconfirmed, dispatcher.stats.restarts), (1, 1));
}

#[test]
fn a_stopped_turn_says_what_it_waits_for_and_stops_at_once_when_asked_again() {
    use std::sync::atomic::AtomicBool;
    let session = Session::new();
    let (link, seen) =
        Scripted::new(&["a"], |_, seq, start| if (seq, start) == (Some(0), 0) { Does::Hang } else { Does::Return });
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    dispatcher.dispatch_all_in((0..4).map(|index| (event(index), None))).unwrap();
    // Ctrl-C twice: it stops at once, nothing said, every event still owed.
    let (yes, no) = (AtomicBool::new(true), AtomicBool::new(false));
    let finished = dispatcher.finish_unless_stopped(&yes, &yes, &|| "Ctrl-C", false).unwrap();
    assert_eq!(finished, Finished::Stopped { undispatched: 4 });
    assert_eq!(session.heard.take(), []);
    // Ctrl-C once: it says whose handler it waits for, and waits.
    let finished = dispatcher.finish_unless_stopped(&yes, &no, &|| "Ctrl-C", false).unwrap();
    assert_eq!(finished, Finished::All);
    let waiting = Happened::Waiting {
        running: Some(("a".to_owned(), "turn.completed".to_owned())),
        events: 4,
        signal: "Ctrl-C".to_owned(),
    };
    let timed_out = Happened::TimedOut { handler: handler("a"), after: Duration::from_millis(20) };
    assert_eq!(session.heard.take(), [waiting, timed_out, Happened::Restarting]);
    assert_eq!(seen.borrow().ran, [(1, 0), (2, 0), (3, 0)]);
}

#[test]
fn a_runtime_that_ends_with_none_of_its_events_in_flight_blames_no_handler() {
    // The keeper of a shared runtime: the slot's first record is a session's handler.
    let session = Session::new();
    let (link, _) = Scripted::new(&["a"], |_, _, _| Does::Return);
    let (inbox, slot) = (link.inbox.clone(), link.slot.clone());
    let mut dispatcher = session.dispatcher(link);
    session.heard.take();
    let running = RunningHandler { seq: 4, hook: 0, any: false };
    *slot.borrow_mut() = SlotReading { generation: 9, state: RuntimeState::Running(running) };
    inbox.borrow_mut().push_back(FromRuntime::Exited);
    dispatcher.idle(Duration::from_millis(10)).unwrap();
    assert_eq!(
        session.heard.take(),
        [Happened::RuntimeExited { status: None, caller: ExitCaller::Unknown, running: None }, Happened::Restarting]
    );
    assert_eq!((dispatcher.stats.unconfirmed, dispatcher.stats.restarts), (0, 1));
}

#[test]
fn a_lane_whose_shared_runtime_ended_names_its_cut_off_handler_and_waits_for_the_keeper_s_next() {
    let session = Session::new();
    let (mut link, seen) = Scripted::new(&["a", "b"], |hook, seq, start| match (hook, seq, start) {
        (1, Some(0), 0) => Does::Crash,
        _ => Does::Return,
    });
    // The keeper's word: the runtime ended, not stopped for anyone's handler.
    link.lane = Some(Restart::Exited);
    link.set_slot(RuntimeState::Idle { through: None });
    let mut dispatcher = session.dispatcher(link);
    dispatcher.dispatch_all_in([(event(0), None), (event(1), None)]).unwrap();
    dispatcher.finish().unwrap();
    // No restart of its own is said, nor hooks loaded: the keeper does both, once, for all.
    assert_eq!(
        session.heard.take(),
        [
            Happened::RuntimeExited { status: None, caller: ExitCaller::Unknown, running: Some(handler("b")) },
            Happened::Unconfirmed { handler: handler("b"), event: Some((0, "turn.completed".to_owned())) },
        ]
    );
    // Event 0 goes on past its last hook (b was its last): the runtime only says it is done.
    assert_eq!(seen.borrow().sent, [(0, 0), (1, 0), (0, 2), (1, 0)]);
    assert_eq!(seen.borrow().ran, [(0, 0), (1, 0), (1, 1)]);
    assert_eq!((dispatcher.stats.events, dispatcher.stats.unconfirmed, dispatcher.loaded), (2, 1, 0));
}
