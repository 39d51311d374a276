//! What every session of a `dev` server shares: how its sessions are assembled, the hooks
//! to load (swapped when the source changes), the one hook runtime that serves them all
//! (per version of the hooks), and the serve log's newest cursor (for `/v1/logs` followers).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use crate::check::CheckedProject;
use crate::engine::keeper::Keeping;
use crate::engine::shared::SharedRuntime;
use crate::model::choice::ModelChoice;
use crate::project::Project;
use crate::report::ProjectDir;
use crate::session::{LaneHooks, LoadPlan, SessionFacts, SessionSetup};
use crate::state::StateStore;
use crate::state::serve_log::LogFormat;
use crate::state::serve_log::ServeLog;
use crate::state::session_info::SessionInfo;

/// The hooks sessions load; `generation` changes when they are reloaded.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub generation: u64,
    pub plan: LoadPlan,
}

/// What the last check (start-up, each change) says of the project, as the API serves it.
#[derive(Debug, Clone, Default)]
pub struct Described {
    /// What `info --json` prints (`GET /v1/info`).
    pub info: String,
    /// What `validate --format json` prints (`GET /v1/check`): every finding, at the
    /// settings' levels.
    pub check: String,
    /// Every hook's name and file, relative to the project, loaded or skipped
    /// (`GET /v1/source`).
    pub sources: Vec<(String, String)>,
}

impl Described {
    pub fn of(checked: &CheckedProject, dir: &std::path::Path) -> Self {
        Self {
            info: crate::report::info::render_json(checked, "."),
            check: crate::report::json::render(checked, &ProjectDir::new(dir, checked)),
            sources: checked.hooks.iter().map(|hook| (hook.name.clone(), hook.path.clone())).collect(),
        }
    }
}

/// The agent being served.
pub struct Agent {
    pub setup: SessionSetup,
    /// The model that answers every session's turns.
    pub model: ModelChoice,
    /// Set when the server is told to stop (Ctrl-C, SIGTERM, SIGHUP): turns still waiting on the
    /// model end as cancelled.
    pub stopping: AtomicBool,
    /// How long a session may wait for its next turn before it is put to rest (its thread,
    /// runtime and store connections given back).
    pub session_idle: Duration,
    pub log_format: LogFormat,
    /// `--quiet`: the serve log writes only warnings and errors to stderr (all is recorded).
    pub quiet: bool,
    pub hooks: RwLock<HookSet>,
    /// The newest serve-log cursor, for `/v1/logs` followers to wake on.
    pub log_cursor: Arc<tokio::sync::watch::Sender<u64>>,
    /// Bumped as any session records an event or a handler's run, for the followers of
    /// `/v1/session/{id}/events` and `/v1/sessions/{id}/timeline`.
    pub events_recorded: Arc<tokio::sync::watch::Sender<u64>>,
    /// What the project is, as of the last check (start-up, each change): shared, so a
    /// request (the playground polls) takes it without copying the documents.
    pub described: RwLock<Arc<Described>>,
    /// The hook runtime every session dispatches to, with the generation of the hooks it
    /// loaded: held by the sessions that use it, stopped when the last one leaves (they all
    /// rest, the hooks changed, the server stops), started again by the next turn.
    pub runtime: Mutex<Option<(u64, Weak<SharedRuntime>)>>,
}

impl Agent {
    pub fn project(&self) -> &Project {
        &self.setup.project
    }

    /// What the project is, as of the last check.
    pub fn described(&self) -> Arc<Described> {
        Arc::clone(&self.described.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The hooks to load now.
    pub fn hook_set(&self) -> HookSet {
        self.hooks.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// A serve log for `session_id` (or the server itself), recorded with cursors.
    pub fn serve_log(&self, session_id: Option<&str>) -> anyhow::Result<ServeLog> {
        let mut log = ServeLog::new(self.log_format);
        log.tag_sessions();
        if self.quiet {
            log.quiet();
        }
        if let Some(session_id) = session_id {
            log.for_session(session_id);
        }
        log.record_to(StateStore::open(&self.project().dir)?);
        log.notify(Arc::clone(&self.log_cursor));
        if let Some(telemetry) = &self.setup.telemetry {
            log.export_to(Arc::clone(telemetry));
        }
        Ok(log)
    }

    /// `session_id`'s hooks on the runtime of `hooks` (started, with its hooks loaded,
    /// unless one runs). A dev session can take follow-ups, so its channel has a
    /// continuation token.
    pub fn attach<'s>(
        &self,
        session_id: &str,
        info: &SessionInfo,
        hooks: &HookSet,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> anyhow::Result<LaneHooks<'s>> {
        let shared = self.shared_runtime(hooks)?;
        let facts = self.facts(session_id, info);
        let recorded = Arc::clone(&self.events_recorded);
        let wake = Arc::new(move || recorded.send_modify(|recorded| *recorded += 1));
        LaneHooks::attach(&shared, &self.setup, &facts, &hooks.plan, wake, (log, store))
    }

    /// Who a session is, as its handlers' `ctx` says: as its creator described it.
    pub fn facts<'f>(&self, session_id: &'f str, info: &'f SessionInfo) -> SessionFacts<'f> {
        SessionFacts {
            id: session_id,
            channel_id: "dev",
            mode: info.mode.as_str(),
            purpose: info.purpose.as_str(),
            title: info.title.as_deref(),
            continuation_token: Some(session_id),
        }
    }

    /// The runtime of `hooks`: the one running, else a new one (its keeper loads the hooks,
    /// logging each in the server's log, while the caller goes on).
    fn shared_runtime(&self, hooks: &HookSet) -> anyhow::Result<Arc<SharedRuntime>> {
        let mut current = self.runtime.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((generation, runtime)) = current.as_ref()
            && *generation == hooks.generation
            && let Some(runtime) = runtime.upgrade().filter(|runtime| !runtime.failed())
        {
            return Ok(runtime);
        }
        let keeping = Keeping {
            config: self.setup.runtime_config(""),
            plan: hooks.plan.clone(),
            timeout: self.setup.hook_timeout,
            log: self.serve_log(None)?,
            store: StateStore::open(&self.project().dir)?,
        };
        let runtime = SharedRuntime::start(keeping)?;
        *current = Some((hooks.generation, Arc::downgrade(&runtime)));
        Ok(runtime)
    }
}
