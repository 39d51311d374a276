//! The dev server's sessions: each has its own worker thread and its own hook runtime, so
//! one session's slow hook never delays another's; within a session, turns and their
//! events go one at a time, in order.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::clock::new_id;
use crate::dev::agent::Agent;
use crate::engine::dispatcher::Dispatcher;
use crate::engine::envelope::Envelope;
use crate::engine::feed::Feed;
use crate::engine::model;
use crate::engine::session;
use crate::engine::undelivered::Undelivered;
use crate::serve_log::ServeLog;
use crate::session_lease::SessionLease;
use crate::state::StateStore;

/// One message to answer, and where the turn's events are streamed to.
pub struct Turn {
    pub text: String,
    pub events: tokio::sync::mpsc::Sender<Envelope>,
}

struct Worker {
    turns: Sender<Turn>,
    thread: JoinHandle<()>,
}

/// Every session the server knows, by id.
pub struct Sessions {
    agent: Arc<Agent>,
    workers: Mutex<HashMap<String, Worker>>,
}

impl Sessions {
    pub fn new(agent: Arc<Agent>) -> Self {
        Self { agent, workers: Mutex::new(HashMap::new()) }
    }

    /// A new, empty session.
    pub fn create(&self) -> String {
        let id = new_id("ses");
        self.worker_for(&id);
        id
    }

    /// Whether `id` is a session: started here, or recorded before a restart.
    pub fn exists(&self, id: &str) -> bool {
        self.lock().contains_key(id)
            || StateStore::open(&self.agent.project().dir)
                .and_then(|store| store.next_index(id))
                .is_ok_and(|next| next > 0)
    }

    /// Queues a turn on the session's worker.
    pub fn send(&self, id: &str, turn: Turn) -> anyhow::Result<()> {
        let turns = self.worker_for(id);
        turns.send(turn).map_err(|_| anyhow::anyhow!("session {id} is shutting down"))
    }

    fn worker_for(&self, id: &str) -> Sender<Turn> {
        let mut workers = self.lock();
        let worker = workers.entry(id.to_owned()).or_insert_with(|| {
            let (turns, queue) = channel();
            let agent = Arc::clone(&self.agent);
            let session_id = id.to_owned();
            let thread = std::thread::spawn(move || serve_session(&agent, &session_id, &queue));
            Worker { turns, thread }
        });
        worker.turns.clone()
    }

    /// Stops taking turns and waits until every session dispatched what it recorded.
    pub fn shut_down(&self) {
        let workers: Vec<Worker> = self.lock().drain().map(|(_, worker)| worker).collect();
        let threads: Vec<JoinHandle<()>> = workers.into_iter().map(|worker| worker.thread).collect();
        for thread in threads {
            let _ = thread.join();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Worker>> {
        self.workers.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A session's worker: answers its turns in order until the server shuts down.
fn serve_session(agent: &Agent, session_id: &str, turns: &Receiver<Turn>) {
    let log = match agent.serve_log(Some(session_id)) {
        Ok(log) => log,
        Err(error) => return log_start_failure(session_id, &error),
    };
    if let Err(error) = answer_turns(agent, session_id, turns, &log) {
        log.error(format!("session {session_id} stopped: {error:#}"));
    }
}

/// Without a recorded log (the store would not open), stderr is the only place to say it.
fn log_start_failure(session_id: &str, error: &anyhow::Error) {
    let log = ServeLog::new(crate::serve_log::LogFormat::Text);
    log.error(format!("session {session_id} could not start: {error:#}"));
}

fn answer_turns(agent: &Agent, session_id: &str, turns: &Receiver<Turn>, log: &ServeLog) -> anyhow::Result<()> {
    let store = StateStore::open(&agent.project().dir)?;
    let never_interrupted = std::sync::atomic::AtomicBool::new(false);
    let mut current: Option<(u64, Dispatcher)> = None;
    loop {
        let turn = match turns.recv_timeout(agent.session_idle) {
            Ok(turn) => turn,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // An idle session gives its runtime back; the next turn starts a new one.
                if let Some((_, mut idle)) = current.take() {
                    idle.finish()?;
                    idle.shutdown();
                    log.info("session idle: its hook runtime was stopped until the next turn");
                }
                continue;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        // Held for the turn and its dispatch, as `run` holds it: one writer per session.
        let _lease = match SessionLease::take(&agent.setup.state_root, session_id) {
            Ok(lease) => lease,
            Err(error) => {
                log.error(format!("{error:#}: the message was not answered"));
                continue;
            }
        };
        // What a writer that crashed left undispatched: said when the session opens, and when new.
        let undelivered = Undelivered::take_stock(&store, session_id)?;
        if let Some(warning) =
            undelivered.warning(session_id).filter(|_| current.is_none() || undelivered.found_now > 0)
        {
            log.warn(warning);
        }
        let hook_set = agent.hook_set();
        // Hooks changed on disk since this runtime loaded them: reload between turns.
        if current.as_ref().is_none_or(|(generation, _)| *generation != hook_set.generation) {
            if let Some((_, mut old)) = current.take() {
                old.finish()?;
                old.shutdown();
            }
            let dispatcher = agent.start_dispatcher(session_id, &hook_set.plan, log, &store)?;
            current = Some((hook_set.generation, dispatcher));
        }
        let Some((_, dispatcher)) = current.as_mut() else { continue };
        let instructions = std::fs::read_to_string(agent.project().source_dir().join("instructions.md")).ok();
        let outputs = model::local_reply(instructions.as_deref(), &turn.text);
        {
            let recorder = session::recorder(&store, session_id)?;
            let events = turn.events;
            // A client that went away still gets its turn recorded and dispatched.
            let mut stream = move |envelope: &Envelope| -> anyhow::Result<()> {
                let _ = events.blocking_send(envelope.clone());
                Ok(())
            };
            let mut feed = Feed { sink: &mut stream, recorder, dispatcher, interrupted: &never_interrupted };
            feed.turn(&turn.text, outputs)?;
        }
        // The turn's stream has ended for the client; its hooks may still be running.
        dispatcher.finish()?;
    }
    if let Some((_, mut dispatcher)) = current {
        dispatcher.finish()?;
        dispatcher.shutdown();
    }
    Ok(())
}
