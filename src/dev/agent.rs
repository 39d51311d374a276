//! What every session of a `dev` server shares: the project, where its compiled hooks
//! and runtime live, the hooks to load (swapped when the source changes), and the serve
//! log's newest cursor (for `/v1/logs` followers).

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::{Value, json};

use crate::engine::dispatcher::{Dispatcher, HookToLoad};
use crate::project::Project;
use crate::runtime::host::{Runtime, RuntimeConfig};
use crate::serve_log::{LogFormat, ServeLog};
use crate::state::StateStore;

/// The hooks sessions load; `generation` changes when they are reloaded.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub generation: u64,
    pub hooks: Vec<HookToLoad>,
}

/// The agent being served.
pub struct Agent {
    pub project: Project,
    pub state_root: PathBuf,
    pub compiled_root: PathBuf,
    pub runtime_dir: PathBuf,
    pub node: PathBuf,
    pub hook_timeout: Duration,
    /// How long a session may wait for its next turn before its runtime is stopped.
    pub session_idle: Duration,
    pub log_format: LogFormat,
    pub hooks: RwLock<HookSet>,
    /// The newest serve-log cursor, for `/v1/logs` followers to wake on.
    pub log_cursor: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Agent {
    /// The hooks to load now.
    pub fn hook_set(&self) -> HookSet {
        self.hooks.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// A serve log for `session_id` (or the server itself), recorded with cursors.
    pub fn serve_log(&self, session_id: Option<&str>) -> anyhow::Result<ServeLog> {
        let mut log = ServeLog::new(self.log_format);
        if let Some(session_id) = session_id {
            log.for_session(session_id);
        }
        log.record_to(StateStore::open(&self.project.dir)?);
        log.notify(Arc::clone(&self.log_cursor));
        Ok(log)
    }

    /// Starts a runtime for `session_id` and loads `hooks` into it.
    pub fn start_dispatcher<'s>(
        &self,
        session_id: &str,
        hooks: Vec<HookToLoad>,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> anyhow::Result<Dispatcher<'s>> {
        let config = RuntimeConfig {
            node: self.node.clone(),
            project_root: self.project.canonical_dir.clone(),
            compiled_root: self.compiled_root.clone(),
            runtime_dir: self.runtime_dir.clone(),
            project_dir: self.project.dir.clone(),
            session_id: session_id.to_owned(),
        };
        let runtime = Runtime::start(&config)?;
        let mut dispatcher =
            Dispatcher::new(config, runtime, hooks, self.ctx(session_id), self.hook_timeout, log, store);
        dispatcher.load()?;
        Ok(dispatcher)
    }

    /// `ctx` of a dev session: follow-ups are possible, so the channel has a token.
    fn ctx(&self, session_id: &str) -> Value {
        json!({
            "session": { "id": session_id, "channelId": "dev", "mode": "chat", "purpose": "live", "auth": null },
            "agent": { "name": self.project.name },
            "channel": { "id": "dev", "continuationToken": session_id },
            "stateRoot": self.state_root,
        })
    }
}
