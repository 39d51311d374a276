//! One way to assemble a session for `run` and `dev` alike: the hooks to load and how
//! (the [`LoadPlan`]), the runtime's configuration, the `ctx` handlers see, the runtime
//! started and its hooks loaded, and the recorder that numbers the session's events. Two
//! commands building these by hand would drift and disagree in front of a user.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::cli::EnvFiles;
use crate::engine::dispatcher::Dispatcher;
pub use crate::engine::dispatcher::LoadPlan;
use crate::engine::feed::Recorder;
use crate::env_file::{self, LoadedEnv};
use crate::project::Project;
use crate::runtime::host::{Runtime, RuntimeConfig, install_runtime, node_command};
use crate::runtime::protocol::{CtxAgent, CtxChannel, CtxSession, HookCtx, InitCtx};
use crate::serve_log::ServeLog;
use crate::state::log_record::{Level, Record};
use crate::state::{StateRoot, StateStore};
use crate::telemetry::{ExportConfig, Telemetry};

/// Who the session is, as `ctx.session` and `ctx.channel` say.
pub struct SessionFacts<'f> {
    pub id: &'f str,
    pub channel_id: &'f str,
    pub mode: &'f str,
    pub purpose: &'f str,
    /// The session's title, when its creator gave one (`dev`'s `POST /v1/sessions`).
    pub title: Option<&'f str>,
    /// `None` when the session cannot take follow-ups (`run` is one-shot).
    pub continuation_token: Option<&'f str>,
}

/// Refuses a project Node.js could not load: one whose path is not UTF-8 text (Node takes
/// module paths as strings, so no string names its files). A usage error, before anything
/// is written or started.
fn node_can_load_from(project: &Project) -> Result<(), crate::exit_status::Exit> {
    let Some(path) = [&project.dir, &project.canonical_dir].into_iter().find(|path| path.to_str().is_none()) else {
        return Ok(());
    };
    Err(crate::exit_status::Exit::usage(format!(
        "the project's path `{}` is not UTF-8 text, and Node.js cannot load modules from it (it takes paths as strings): move the project, or rename its folder, to a UTF-8 name",
        crate::untrusted::escape_path(path)
    )))
}

/// What every session of a project shares.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    pub project: Project,
    pub state_root: StateRoot,
    pub node: PathBuf,
    /// Variables from `.env` files for the runtime.
    pub env: Vec<(String, String)>,
    pub hook_timeout: Duration,
    /// Whether the runtime's OpenTelemetry providers register, decided once for the
    /// project (it reads the `node_modules/` folders above it).
    pub otel: crate::runtime::otel_api::Providers,
    /// The OpenTelemetry exporters, when `run` or `dev` export (see [`SessionSetup::export`]).
    pub telemetry: Option<Arc<Telemetry>>,
}

impl SessionSetup {
    /// Everything a project's sessions share, ready to start runtimes: the environment
    /// files read (their summary is for the serve log), the state root created, the
    /// runtime's files written.
    pub fn prepare(project: Project, env: EnvFiles<'_>, hook_timeout: Duration) -> anyhow::Result<(Self, LoadedEnv)> {
        node_can_load_from(&project)?;
        let shell_has = |key: &str| std::env::var_os(key).is_some();
        let loaded = env_file::load(&project.dir, env.dotenv, env.named, shell_has)?;
        let state_root = StateRoot::create(&project.dir).context("could not create the state folder")?;
        let otel = crate::runtime::otel_api::Providers::for_project(&project.canonical_dir);
        let setup = SessionSetup {
            project,
            state_root,
            node: node_command(),
            env: loaded.vars.clone(),
            hook_timeout,
            otel,
            telemetry: None,
        };
        setup.install_runtime()?;
        Ok((setup, loaded))
    }

    /// Starts exporting when the `OTEL_*` variables (the shell's, else `env`'s files') name
    /// a collector (SPEC §7); what to say of it in the serve log: where it goes (info), and
    /// what the variables ask for that is not done (warnings). `test` never calls it: tests
    /// never export.
    pub fn export(&mut self, env: &LoadedEnv) -> anyhow::Result<Vec<Record>> {
        let Some(config) = ExportConfig::from_env(&self.project.name, &|name| env.lookup(name)) else {
            return Ok(Vec::new());
        };
        let mut lines = vec![Record::new(Level::Info, config.summary())];
        lines.extend(config.warnings.iter().map(|warning| Record::new(Level::Warn, warning.clone())));
        self.telemetry =
            Some(Telemetry::start(config, env.vars.clone()).context("could not start exporting telemetry")?);
        Ok(lines)
    }

    /// Where the runtime's own files live.
    pub fn runtime_dir(&self) -> PathBuf {
        self.state_root.runtime()
    }

    /// Writes the runtime's files (unchanged files are not rewritten), and removes the
    /// compiled copy of the project earlier versions kept.
    fn install_runtime(&self) -> anyhow::Result<()> {
        let obsolete = self.state_root.path().join("compiled");
        if obsolete.is_dir() {
            let _ = std::fs::remove_dir_all(obsolete);
        }
        install_runtime(&self.runtime_dir()).context("could not write the hook runtime")
    }

    pub fn runtime_config(&self, session_id: &str) -> RuntimeConfig {
        RuntimeConfig {
            node: self.node.clone(),
            project_root: self.project.canonical_dir.clone(),
            runtime_dir: self.runtime_dir(),
            env: self.env.clone(),
            project_dir: self.project.dir.clone(),
            session_id: session_id.to_owned(),
            otel: self.otel.clone(),
            telemetry: self.telemetry.clone(),
            lanes: None,
        }
    }

    /// Starts a Node runtime for `session_id` (it boots while the caller goes on).
    pub fn start_runtime(&self, session_id: &str) -> anyhow::Result<Runtime> {
        Runtime::start(&self.runtime_config(session_id))
    }

    /// The `ctx` every handler of the session receives (SPEC §7), without its functions.
    pub fn ctx(&self, facts: &SessionFacts) -> HookCtx {
        HookCtx {
            session: CtxSession {
                id: facts.id.to_owned(),
                channel_id: facts.channel_id.to_owned(),
                mode: facts.mode.to_owned(),
                purpose: facts.purpose.to_owned(),
                auth: (),
                title: facts.title.map(str::to_owned),
            },
            agent: CtxAgent { name: self.project.name.clone() },
            channel: CtxChannel {
                id: facts.channel_id.to_owned(),
                continuation_token: facts.continuation_token.map(str::to_owned),
            },
            state_root: self.state_root.path().to_path_buf(),
        }
    }

    /// A dispatcher for `runtime` (started with [`SessionSetup::start_runtime`]), with
    /// `plan`'s hooks loaded into it.
    pub fn load<'s>(
        &self,
        runtime: Runtime,
        facts: &SessionFacts,
        plan: &LoadPlan,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> anyhow::Result<Dispatcher<'s>> {
        let config = self.runtime_config(facts.id);
        let mut dispatcher = Dispatcher::new(
            config,
            runtime,
            plan.clone(),
            InitCtx::Session(Box::new(self.ctx(facts))),
            self.hook_timeout,
            log,
            store,
        );
        dispatcher.load()?;
        Ok(dispatcher)
    }
}

/// The recorder of a session's next events: indexes go on from the recorded ones.
pub fn recorder<'s>(store: &'s StateStore, session_id: &'s str) -> anyhow::Result<Recorder<'s>> {
    Ok(Recorder { store, session_id, next: store.next_index(session_id)? })
}
