//! What every session of a project shares, ready to start runtimes: the environment files
//! read, the state root, the Node.js to run, the runtime's files written, the hook timeout,
//! the OpenTelemetry providers and exporters. `run`, `dev`, `test` and `validate` (for an
//! extension's mount) prepare it the same way.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::cli::EnvFiles;
use crate::project::Project;
use crate::project::env_file::{self, LoadedEnv};
use crate::runtime::environment::Environment;
use crate::runtime::host::{Runtime, RuntimeConfig, node_command};
use crate::state::StateRoot;
use crate::state::log_record::{Level, Record};
use crate::telemetry::{ExportConfig, Telemetry};

/// Refuses a project Node.js could not load: one whose path is not UTF-8 text (Node takes
/// module paths as strings, so no string names its files). A usage error, before anything
/// is written or started.
fn node_can_load_from(project: &Project) -> Result<(), crate::exit_status::Exit> {
    let Some(path) = [&project.dir, &project.canonical_dir].into_iter().find(|path| path.to_str().is_none()) else {
        return Ok(());
    };
    Err(crate::exit_status::Exit::usage(format!(
        "the project's path `{}` is not UTF-8 text, and Node.js cannot load modules from it (it takes paths as strings): move the project, or rename its folder, to a UTF-8 name",
        crate::text::untrusted::escape_path(path)
    )))
}

/// Writes the runtime's files where its sessions read them (see [`crate::runtime::files`]),
/// keeps Node's compile cache beside them within its bounds, and removes what earlier
/// versions kept in the state root instead: the compiled copy of the project, and (once the
/// user's cache holds them) the runtime's files.
fn install_runtime(state_root: &StateRoot) -> anyhow::Result<PathBuf> {
    let obsolete = state_root.path().join("compiled");
    if obsolete.is_dir() {
        let _ = std::fs::remove_dir_all(obsolete);
    }
    let runtime_dir = crate::runtime::files::install(state_root).context("could not write the hook runtime")?;
    crate::runtime::compile_cache::trim(&runtime_dir);
    let in_the_state_root = state_root.runtime();
    if runtime_dir != in_the_state_root && in_the_state_root.is_dir() {
        let _ = std::fs::remove_dir_all(in_the_state_root);
    }
    Ok(runtime_dir)
}

/// What every session of a project shares.
#[derive(Debug, Clone)]
pub struct SessionSetup {
    pub project: Project,
    pub state_root: StateRoot,
    /// The runtime's own files (see [`crate::runtime::files`]).
    pub runtime_dir: PathBuf,
    pub node: PathBuf,
    /// Variables for the runtime: from `.env` files, or (for a check) what `--pass-env` names.
    pub env: Vec<(String, String)>,
    /// What the runtime's environment starts from: the command's own, or for a check a
    /// minimal one (see [`crate::runtime::environment`]).
    pub environment: Environment,
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
        let runtime_dir = install_runtime(&state_root)?;
        let setup = SessionSetup {
            project,
            state_root,
            runtime_dir,
            node: node_command(),
            env: loaded.vars.clone(),
            environment: Environment::Inherited,
            hook_timeout,
            otel,
            telemetry: None,
        };
        Ok((setup, loaded))
    }

    /// What a static check (`validate`, `info`, the editor) needs to run the project's
    /// extension mounts, and nothing more: no `.env` is read, the runtime starts with a
    /// minimal environment plus the variables `pass_env` names (those the command has), and
    /// the state root is the project's folder in the user's cache, so nothing is written
    /// into the project.
    pub fn for_check(project: Project, pass_env: &[String], hook_timeout: Duration) -> anyhow::Result<Self> {
        node_can_load_from(&project)?;
        let state_root = crate::state::user_cache::checks_root(&project.canonical_dir)?;
        let otel = crate::runtime::otel_api::Providers::for_project(&project.canonical_dir);
        let env = crate::runtime::environment::passed(pass_env, |name| std::env::var(name).ok());
        let runtime_dir = install_runtime(&state_root)?;
        let setup = SessionSetup {
            project,
            state_root,
            runtime_dir,
            node: node_command(),
            env,
            environment: Environment::Minimal,
            hook_timeout,
            otel,
            telemetry: None,
        };
        Ok(setup)
    }

    /// Starts exporting when the `OTEL_*` variables (the shell's, else `env`'s files') name
    /// a collector (SPEC §7); what to say of it in the serve log: where it goes (info), and
    /// what the variables ask for that is not done (warnings). `test` never calls it: tests
    /// never export.
    pub fn export(&mut self, env: &LoadedEnv) -> anyhow::Result<Vec<Record>> {
        let Some(config) = ExportConfig::from_env(&self.project.name, &|name| env.lookup(name)) else {
            return Ok(Vec::new());
        };
        let warnings = config.warnings.iter().map(|warning| Record::new(Level::Warn, warning.clone()));
        if !config.exports() {
            return Ok(warnings.collect());
        }
        let mut lines = vec![Record::new(Level::Info, config.summary())];
        lines.extend(warnings);
        self.telemetry =
            Some(Telemetry::start(config, env.vars.clone()).context("could not start exporting telemetry")?);
        Ok(lines)
    }

    pub fn runtime_config(&self, session_id: &str) -> RuntimeConfig {
        RuntimeConfig {
            node: self.node.clone(),
            project_root: self.project.canonical_dir.clone(),
            runtime_dir: self.runtime_dir.clone(),
            env: self.env.clone(),
            environment: self.environment,
            state_root: self.state_root.clone(),
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
}
