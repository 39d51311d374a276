//! The dev server's sessions: each live one has its own worker thread and, once it has had
//! a turn, its own lane of the hook runtime all sessions share ([`crate::engine::shared`]),
//! so one session's slow hook never delays another's; within a session, turns and their
//! events go one at a time, in order. At most `max_live` sessions are live; one idle for
//! `--session-idle` is put to rest (its thread, lane and store connections are given back)
//! and its next message brings it back.

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::engine::stats::DispatchStats;
use crate::model::local::Script;
use crate::server::agent::Agent;
use crate::server::turn_stream::{BUFFERED_EVENTS, TurnStream};
use crate::session::{Hooks, LaneHooks, Session};
use crate::signals::Interrupt;
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::log_record::{Level, Record};
use crate::state::serve_log::ServeLog;
use crate::state::session_info::SessionInfo;
use crate::state::session_lease::{SessionInUse, SessionLease};
use crate::telemetry::Parent;
use crate::telemetry::request_span::RequestSpan;
use crate::time::clock::new_id;

/// One message to answer, and where the turn's events are streamed to.
pub struct Turn {
    pub text: String,
    /// The local model's script for this turn (the message's `script`), checked already.
    pub script: Option<Script>,
    pub stream: TurnStream,
    /// The request's `agent_sdk.http` span, when traces are exported.
    pub request: Option<RequestSpan>,
}

/// Why a session cannot take a turn now.
#[derive(Debug)]
pub enum Refusal {
    /// `max` sessions are live already.
    Full { max: usize },
    /// No worker thread could be started (the process is out of threads or memory).
    NoThread(std::io::Error),
    /// The new session could not be recorded in the store.
    Unrecorded(anyhow::Error),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Full { max } => write!(
                f,
                "{max} sessions are live, the most this server takes (--max-sessions); \
                 try again when one has been idle for --session-idle"
            ),
            Refusal::NoThread(problem) => write!(f, "could not start a thread for the session: {problem}"),
            Refusal::Unrecorded(problem) => write!(f, "could not record the new session: {problem:#}"),
        }
    }
}

struct Worker {
    turns: Sender<Turn>,
    /// Tells this worker from a later one of the same session.
    serial: u64,
    thread: std::thread::JoinHandle<()>,
}

#[derive(Default)]
struct Live {
    workers: HashMap<String, Worker>,
    /// Sessions created here: one at rest with nothing recorded is still known.
    created: HashSet<String>,
    next_serial: u64,
}

/// Every session the server knows, by id.
pub struct Sessions {
    agent: Arc<Agent>,
    max_live: usize,
    live: Arc<Mutex<Live>>,
}

impl Sessions {
    pub fn new(agent: Arc<Agent>, max_live: usize) -> Self {
        Self { agent, max_live, live: Arc::default() }
    }

    /// A new, empty session, as `info` describes it (recorded, so it outlives a rest and a
    /// restart of the server).
    pub fn create(&self, info: &SessionInfo) -> Result<String, Refusal> {
        let id = new_id("ses");
        let mut live = lock(&self.live);
        if live.workers.len() >= self.max_live {
            return Err(Refusal::Full { max: self.max_live });
        }
        StateStore::open(&self.agent.project().dir)
            .and_then(|store| store.record_session(&id, info))
            .map_err(Refusal::Unrecorded)?;
        self.start_worker(&mut live, &id)?;
        live.created.insert(id.clone());
        drop(live);
        match self.agent.serve_log(Some(&id)) {
            Ok(log) => log.info(format!("session {id} started ({})", info.describe())),
            Err(problem) => log_start_failure(&id, &problem),
        }
        Ok(id)
    }

    /// Whether `id` is a session: live, created here, or recorded before. Err when the
    /// store could not be asked.
    pub fn exists(&self, id: &str) -> anyhow::Result<bool> {
        {
            let live = lock(&self.live);
            if live.workers.contains_key(id) || live.created.contains(id) {
                return Ok(true);
            }
        }
        let store = StateStore::open(&self.agent.project().dir)?;
        Ok(store.session_info(id)?.is_some() || store.next_index(id)? > 0)
    }

    /// Queues a turn on the session's worker, bringing a session at rest back first.
    pub fn send(&self, id: &str, turn: Turn) -> Result<(), Refusal> {
        let mut live = lock(&self.live);
        // Sent under the lock: a worker puts itself to rest under it too, so a turn is
        // never queued on a worker that is leaving.
        let turn = match live.workers.get(id) {
            Some(worker) => match worker.turns.send(turn) {
                Ok(()) => return Ok(()),
                // Its worker ended without putting itself to rest (it cannot, but a new
                // one is the answer if it ever does).
                Err(unsent) => {
                    live.workers.remove(id);
                    unsent.0
                }
            },
            None => turn,
        };
        let turns = self.start_worker(&mut live, id)?;
        // The new worker cannot leave before this send (it would need the lock); if it
        // ever did, the dropped turn tells its client the session stopped.
        let _ = turns.send(turn);
        Ok(())
    }

    fn start_worker(&self, live: &mut Live, id: &str) -> Result<Sender<Turn>, Refusal> {
        if live.workers.len() >= self.max_live {
            return Err(Refusal::Full { max: self.max_live });
        }
        let (turns, queue) = channel();
        let serial = live.next_serial;
        live.next_serial += 1;
        let agent = Arc::clone(&self.agent);
        let all = Arc::clone(&self.live);
        let session_id = id.to_owned();
        let thread = std::thread::Builder::new()
            .name(format!("session {id}"))
            .spawn(move || serve_session(&agent, &session_id, &queue, &all, serial))
            .map_err(Refusal::NoThread)?;
        live.workers.insert(id.to_owned(), Worker { turns: turns.clone(), serial, thread });
        Ok(turns)
    }

    /// Stops taking turns and waits until every session dispatched what it recorded.
    pub fn shut_down(&self) {
        let workers: Vec<Worker> = lock(&self.live).workers.drain().map(|(_, worker)| worker).collect();
        let threads: Vec<_> = workers.into_iter().map(|worker| worker.thread).collect();
        for thread in threads {
            let _ = thread.join();
        }
    }
}

fn lock(live: &Mutex<Live>) -> MutexGuard<'_, Live> {
    live.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What a session's worker does next.
enum Next {
    Answer(Turn),
    /// No turn came for `--session-idle`.
    Idle,
    /// The server is shutting down.
    Stop,
}

fn wait_for_turn(turns: &Receiver<Turn>, idle: Duration) -> Next {
    match turns.recv_timeout(idle) {
        Ok(turn) => Next::Answer(turn),
        Err(RecvTimeoutError::Timeout) => Next::Idle,
        Err(RecvTimeoutError::Disconnected) => Next::Stop,
    }
}

/// A session's worker: answers its turns in order until it is idle or the server stops.
fn serve_session(agent: &Agent, session_id: &str, turns: &Receiver<Turn>, live: &Mutex<Live>, serial: u64) {
    let mut next = wait_for_turn(turns, agent.session_idle);
    loop {
        next = match next {
            Next::Answer(turn) => match OpenSession::open(agent, session_id) {
                Ok(open) => open.answer_until_idle(turn, turns),
                Err(problem) => {
                    log_start_failure(session_id, &problem);
                    turn.stream.fail(&problem.context(format!("session {session_id} could not start its turn")));
                    wait_for_turn(turns, agent.session_idle)
                }
            },
            Next::Idle => match rest_unless_busy(live, session_id, serial, turns) {
                Some(turn) => Next::Answer(turn),
                None => return,
            },
            Next::Stop => return,
        };
    }
}

/// Leaves the live sessions, unless a turn came in the meantime.
fn rest_unless_busy(live: &Mutex<Live>, session_id: &str, serial: u64, turns: &Receiver<Turn>) -> Option<Turn> {
    let mut live = lock(live);
    if let Ok(turn) = turns.try_recv() {
        return Some(turn);
    }
    if live.workers.get(session_id).is_some_and(|worker| worker.serial == serial) {
        live.workers.remove(session_id);
    }
    None
}

/// Without a recorded log (the store would not open), stderr is the only place to say it.
fn log_start_failure(session_id: &str, error: &anyhow::Error) {
    let log = ServeLog::new(crate::state::serve_log::LogFormat::Text);
    log.error(format!("session {session_id} could not start a turn: {error:#}"));
}

/// A turn that was answered: which, whether it failed, and the session's counts before it.
struct TurnEnded {
    turn_id: Option<String>,
    failed: bool,
    before: DispatchStats,
}

impl TurnEnded {
    /// The serve-log line of the turn once its hooks are done: `turn completed in 14ms: 6
    /// events dispatched to 3 hooks; 0 handlers threw, 0 timed out`.
    fn record(&self, hooks: &LaneHooks<'_>, took: Duration) -> Record {
        let stats = hooks.stats().since(&self.before);
        let mut record = Record::new(
            if stats.misbehaved() { Level::Warn } else { Level::Info },
            format!(
                "turn {} in {} (its hooks done): {}; {}",
                if self.failed { "failed" } else { "completed" },
                crate::time::clock::format_duration(took),
                stats.dispatched(hooks.loaded()),
                stats.failures()
            ),
        );
        record.turn_id.clone_from(&self.turn_id);
        record
    }
}

/// What a session holds while it answers turns: its serve log and its store connection.
struct OpenSession<'a> {
    agent: &'a Agent,
    id: &'a str,
    /// Who the session is (`live`, `chat` for one recorded by `run` or an older server).
    info: SessionInfo,
    log: ServeLog,
    store: StateStore,
}

/// The session's hooks on the shared runtime, and which version of them it runs.
type Loaded<'s> = Option<(u64, LaneHooks<'s>)>;

impl<'a> OpenSession<'a> {
    fn open(agent: &'a Agent, id: &'a str) -> anyhow::Result<Self> {
        let log = agent.serve_log(Some(id))?;
        let store = StateStore::open(&agent.project().dir)?;
        let info = store.session_info(id)?.unwrap_or_default();
        Ok(Self { agent, id, info, log, store })
    }

    /// Answers `first` and every turn after it until none comes for `--session-idle`.
    fn answer_until_idle(self, first: Turn, turns: &Receiver<Turn>) -> Next {
        let mut loaded: Loaded<'_> = None;
        let mut turn = first;
        loop {
            self.answer(turn, &mut loaded);
            match wait_for_turn(turns, self.agent.session_idle) {
                Next::Answer(next) => turn = next,
                other => {
                    let idle = matches!(other, Next::Idle);
                    if let Some((_, hooks)) = loaded.take() {
                        hooks.leave();
                        if idle {
                            self.log.info("session idle: put to rest until its next message (its hooks' runtime serves the other sessions)");
                        }
                    }
                    return other;
                }
            }
        }
    }

    /// One turn: recorded, streamed to its client (who never holds it up) and dispatched.
    fn answer<'s>(&'s self, turn: Turn, loaded: &mut Loaded<'s>) {
        let Turn { text, script, stream, request } = turn;
        let started = Instant::now();
        let answered =
            self.answer_turn(text, script.as_ref(), stream, loaded, request.as_ref().map(|request| request.span));
        if let Some(request) = request {
            request.end(if answered.is_ok() { 200 } else { 503 }, answered.as_ref().err().map(String::as_str));
        }
        // The turn's stream has ended for the client; its hooks may still be running.
        if let (Ok(ended), Some((_, hooks))) = (&answered, loaded.as_mut()) {
            match hooks.finish() {
                Ok(()) => self.log.write(ended.record(hooks, started.elapsed())),
                Err(problem) => {
                    self.log.error(format!("the session's hook runtime failed: {problem:#}"));
                    self.drop_runtime(loaded);
                }
            }
        }
        if let Some(warning) = self.agent.setup.telemetry.as_ref().and_then(|telemetry| telemetry.failure_warning()) {
            self.log.warn(warning);
        }
    }

    /// [`OpenSession::answer`]'s work; `Err`: why the turn could not be answered (the
    /// stream was told).
    fn answer_turn<'s>(
        &'s self,
        text: String,
        script: Option<&Script>,
        mut stream: TurnStream,
        loaded: &mut Loaded<'s>,
        parent: Option<Parent>,
    ) -> Result<TurnEnded, String> {
        // Held for the turn and its dispatch, as `run` holds it: one writer per session.
        let _lease = match SessionLease::take(&self.agent.setup.state_root, self.id) {
            Ok(lease) => lease,
            Err(problem) if problem.is::<SessionInUse>() => {
                self.log.error(format!("{problem:#}: the message was not answered"));
                stream.refuse_in_use(&problem);
                return Err(format!("{problem:#}"));
            }
            Err(problem) => {
                self.log.error(format!("could not take the session's lease: {problem:#}"));
                stream.fail(&problem.context("could not take the session's lease"));
                return Err("could not take the session's lease".to_owned());
            }
        };
        let session = Session::new(&self.agent.setup, &self.agent.model, self.id, &self.store, &self.log);
        // What a writer that crashed left undispatched: said when the session opens, and when new.
        if let Err(problem) = session.take_stock(loaded.is_none()) {
            self.log.error(format!("could not look for events the hooks never saw: {problem:#}"));
        }
        // The model starts answering while a session's first turn loads its hooks.
        let instructions = self.agent.hook_set().plan.instructions;
        let asked = match session.ask(&text, &instructions, script) {
            Ok(asked) => asked,
            Err(problem) => {
                self.log.error(format!("could not start the turn: {problem:#}"));
                stream.fail(&problem.context("could not start the turn"));
                return Err("could not start the turn".to_owned());
            }
        };
        let hooks = match self.runtime_for_turn(loaded) {
            Ok(hooks) => hooks,
            Err(problem) => {
                self.log.error(format!("could not start the session's hook runtime: {problem:#}"));
                stream.fail(&problem.context("could not start the session's hook runtime"));
                return Err("could not start the session's hook runtime".to_owned());
            }
        };
        let before = hooks.stats();
        let mut sink = |envelope: &Envelope| -> anyhow::Result<()> {
            stream.send(envelope);
            self.agent.events_recorded.send_modify(|recorded| *recorded += 1);
            Ok(())
        };
        let interrupt = Interrupt::by(&self.agent.stopping, "the server is stopping");
        let fed = session.with_hooks(hooks).answer(asked, &mut sink, interrupt, parent);
        if stream.fell_behind() {
            self.log.warn(format!(
                "a client fell behind the turn's events and was cut off (more than {BUFFERED_EVENTS} waiting); \
                 the turn went on and was recorded"
            ));
        }
        let ended = match fed {
            Ok(outcome) => {
                let failed = outcome.failed.is_some();
                if let Some(failed) = outcome.failed {
                    self.log.write(failed.record());
                }
                stream.finish();
                TurnEnded { turn_id: outcome.turn_id, failed, before }
            }
            Err(problem) => {
                self.log.error(format!("the turn broke off: {problem:#}"));
                stream.fail(&problem.context("the turn broke off"));
                self.drop_runtime(loaded);
                return Err("the turn broke off".to_owned());
            }
        };
        Ok(ended)
    }

    /// The runtime for this turn: the one already running, unless the hooks changed on
    /// disk since it loaded them (then they are reloaded between turns).
    fn runtime_for_turn<'l, 's>(&'s self, loaded: &'l mut Loaded<'s>) -> anyhow::Result<&'l mut LaneHooks<'s>> {
        let hook_set = self.agent.hook_set();
        if loaded.as_ref().is_some_and(|(generation, _)| *generation != hook_set.generation)
            && let Some((_, old)) = loaded.take()
        {
            old.leave();
        }
        if loaded.is_none() {
            let hooks = self.agent.attach(self.id, &self.info, &hook_set, &self.log, &self.store)?;
            *loaded = Some((hook_set.generation, hooks));
        }
        loaded.as_mut().map(|(_, hooks)| hooks).ok_or_else(|| anyhow::anyhow!("no hook runtime"))
    }

    /// A runtime that failed is stopped; the next turn starts a new one.
    fn drop_runtime(&self, loaded: &mut Loaded<'_>) {
        if let Some((_, hooks)) = loaded.take() {
            hooks.drop_failed();
        }
    }
}
