//! What every session of a `dev` server shares: how its sessions are assembled, the hooks
//! to load (swapped when the source changes), and the serve log's newest cursor (for
//! `/v1/logs` followers).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::cli::LogFormat;
use crate::engine::dispatcher::Dispatcher;
use crate::engine::session::{LoadPlan, SessionFacts, SessionSetup};
use crate::model::choice::ModelChoice;
use crate::project::Project;
use crate::serve_log::ServeLog;
use crate::state::StateStore;

/// The hooks sessions load; `generation` changes when they are reloaded.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub generation: u64,
    pub plan: LoadPlan,
}

/// The agent being served.
pub struct Agent {
    pub setup: SessionSetup,
    /// The model that answers every session's turns.
    pub model: ModelChoice,
    /// Set when the server is told to stop (Ctrl-C, SIGTERM): turns still waiting on the
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
}

impl Agent {
    pub fn project(&self) -> &Project {
        &self.setup.project
    }

    /// The hooks to load now.
    pub fn hook_set(&self) -> HookSet {
        self.hooks.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// A serve log for `session_id` (or the server itself), recorded with cursors.
    pub fn serve_log(&self, session_id: Option<&str>) -> anyhow::Result<ServeLog> {
        let mut log = ServeLog::new(self.log_format);
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

    /// Starts a runtime for `session_id` and loads `plan`'s hooks into it. A dev session
    /// can take follow-ups, so its channel has a continuation token.
    pub fn start_dispatcher<'s>(
        &self,
        session_id: &str,
        plan: &LoadPlan,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> anyhow::Result<Dispatcher<'s>> {
        let runtime = self.setup.start_runtime(session_id)?;
        let facts = SessionFacts {
            id: session_id,
            channel_id: "dev",
            mode: "chat",
            purpose: "live",
            continuation_token: Some(session_id),
        };
        self.setup.load(runtime, &facts, plan, log, store)
    }
}
