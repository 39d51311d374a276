//! The one place a checked project becomes a running session, for `run` and `dev` alike
//! (and for `dev`'s watcher when the code changes): the project prepared ([`SessionSetup`]),
//! checked the way its sessions load it (the static check, then each extension's mount run
//! in Node), the gate ("the hooks have errors"), the [`LoadPlan`], the serve log's start-up
//! lines, the `ctx` handlers see, the runtime's hooks loaded, and the recorder that numbers
//! the session's events. Two commands building these by hand would drift and disagree in
//! front of a user. Once started, a session takes its turns through [`Session`].

mod lane;
mod turns;

use std::path::Path;
use std::time::Duration;

use crate::check::CheckedProject;
use crate::cli::{ColorChoice, EnvFiles};
use crate::diagnostics::Severity;
use crate::engine::dispatcher::Dispatcher;
pub use crate::engine::hooks::Hooks;
pub use crate::engine::plan::{HookToLoad, LoadPlan};
use crate::exit_status::Exit;
use crate::loader::cache::Cache;
use crate::model::choice::ModelChoice;
use crate::printer::Printer;
use crate::project::env_file::LoadedEnv;
use crate::project::{self, Located};
use crate::protocol::{CtxAgent, CtxChannel, CtxSession, HookCtx, InitCtx};
use crate::report::{self, ProjectDir};
use crate::runtime::host::Runtime;
pub use crate::runtime::setup::SessionSetup;
use crate::state::StateStore;
use crate::state::log_record::{Level, Record};
use crate::state::serve_log::ServeLog;
pub use lane::LaneHooks;
pub use turns::{Asked, HooksEnded, Outcome, Session, Sink, exit_status};

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

/// A project checked the way its sessions load it, on either side of the gate.
pub enum Checked {
    /// No errors: what a runtime loads.
    Loadable { checked: CheckedProject, plan: LoadPlan },
    /// Errors, or no agent here: nothing loads.
    Refused(CheckedProject),
}

/// Checks a located project the way its sessions load it: the static check (compiled
/// modules cached under the state root), each extension's mount run in Node (as the runtime
/// `mount_as` would), the gate, then the load plan.
pub fn check(located: Located, setup: Option<&SessionSetup>, mount_as: &str) -> anyhow::Result<Checked> {
    use crate::check::full::{self, Mounts, Options};
    let cache = setup.map(|setup| Cache::new(&setup.state_root));
    let Some(setup) = setup else {
        return Ok(Checked::Refused(full::check(located, Options::static_only(cache.as_ref()))));
    };
    let config = setup.runtime_config(mount_as);
    let mounts = Mounts::Run { config: &config, timeout: setup.hook_timeout };
    let options = Options { mounts, ..Options::static_only(cache.as_ref()) };
    let checked = full::check(located, options);
    if checked.stops_loading() || checked.project.is_none() {
        return Ok(Checked::Refused(checked));
    }
    let plan = plan(&checked, &setup.runtime_dir)?;
    Ok(Checked::Loadable { checked, plan })
}

/// The hooks of a checked project that would load, with what the runtime needs to load
/// them from their sources.
pub fn plan(checked: &CheckedProject, runtime_dir: &Path) -> Result<LoadPlan, crate::loader::NotUtf8Path> {
    let hooks = checked
        .loaded()
        .map(|hook| HookToLoad {
            name: hook.name.clone(),
            url: crate::text::uri::file_url(&hook.real_path),
            source: hook.path.clone(),
            key: hook.mount.as_ref().map(|mount| mount.key.clone()),
        })
        .collect();
    let manifest = crate::loader::manifest(&checked.modules, runtime_dir)?;
    let files = checked.modules.modules.iter().map(|module| module.path.clone()).collect();
    let instructions = crate::check::extensions::mounted::instructions(checked);
    Ok(LoadPlan { hooks, manifest: std::sync::Arc::new(manifest), files, instructions })
}

/// A project past the gate: what its sessions share, the checked project, the load plan,
/// and what the caller started early (`run` starts Node and its model while the project is
/// checked).
pub struct Started<E> {
    pub setup: SessionSetup,
    pub env: LoadedEnv,
    pub checked: CheckedProject,
    pub plan: LoadPlan,
    pub early: E,
    /// What the export of telemetry says (see [`SessionSetup::export`]).
    exporting: Vec<Record>,
}

/// What a command's sessions are started with.
pub struct Options<'o> {
    pub dir: &'o Path,
    pub env: EnvFiles<'o>,
    pub hook_timeout: Duration,
    /// The runtime the extensions' mounts run as (`run`'s session id, `"dev"`).
    pub mount_as: &'o str,
    /// What did not happen when the gate is closed ("nothing ran", "the server did not start").
    pub refused: &'o str,
}

/// Prepares and checks the project in `options.dir`, starting `early` as soon as the
/// project is prepared (before the check), then the gate: a project with errors, or no
/// project, prints the report to stderr and ends with exit 1. Past the gate, telemetry
/// export starts when the environment asks for it.
pub fn start<E>(
    options: &Options,
    printer: &Printer,
    early: impl FnOnce(&SessionSetup, &LoadedEnv) -> anyhow::Result<E>,
) -> anyhow::Result<Started<E>> {
    let located = project::locate(options.dir)?;
    let prepared = match located.project.clone() {
        Some(project) => {
            let (setup, env) = SessionSetup::prepare(project, options.env, options.hook_timeout)?;
            let early = early(&setup, &env)?;
            Some((setup, env, early))
        }
        None => None,
    };
    let checked = check(located, prepared.as_ref().map(|(setup, ..)| setup), options.mount_as)?;
    let (checked, plan, (mut setup, env, early)) = match (checked, prepared) {
        (Checked::Loadable { checked, plan }, Some(prepared)) => (checked, plan, prepared),
        (Checked::Loadable { checked, .. } | Checked::Refused(checked), _) => {
            if let Some(line) = report::settings::from_above(&checked.config, &ProjectDir::new(options.dir, &checked)) {
                printer.stderr(&line);
            }
            printer.stderr(&report::pretty(&checked, &Printer::new(ColorChoice::Never)));
            let what = if checked.project.is_none() { "there is no agent here" } else { "the hooks have errors" };
            return Err(Exit::failure(format!("{what}, so {}; see above", options.refused)).into());
        }
    };
    let exporting = setup.export(&env)?;
    Ok(Started { setup, env, checked, plan, early, exporting })
}

impl<E> Started<E> {
    /// The serve log's first lines: which settings from above the project apply, the
    /// checker's warnings, what the environment files set, the model, the OpenTelemetry
    /// providers, and where telemetry goes.
    pub fn startup_lines(&self, model: &ModelChoice) -> Vec<Record> {
        let mut lines = Vec::new();
        let dir = ProjectDir::new(&self.setup.project.dir, &self.checked);
        if let Some(line) = report::settings::from_above(&self.checked.config, &dir) {
            lines.push(Record::new(Level::Info, line.trim_end()));
        }
        let findings = report::concise::log_findings(&self.checked, &dir);
        lines.extend(findings.into_iter().map(|(severity, line)| {
            let level = if severity == Severity::Error { Level::Error } else { Level::Warn };
            Record::new(level, line)
        }));
        lines.extend(self.env.summary().map(|line| Record::new(Level::Info, line)));
        if let ModelChoice::Provider(provider) = model {
            lines.push(Record::new(Level::Info, provider.describe()));
        }
        lines.extend(self.setup.otel.summary().map(|line| Record::new(Level::Info, line)));
        lines.extend(self.exporting.iter().cloned());
        lines
    }
}

/// The `ctx` every handler of the session receives (SPEC §7), without its functions.
pub fn ctx(setup: &SessionSetup, facts: &SessionFacts) -> HookCtx {
    HookCtx {
        session: CtxSession {
            id: facts.id.to_owned(),
            channel_id: facts.channel_id.to_owned(),
            mode: facts.mode.to_owned(),
            purpose: facts.purpose.to_owned(),
            auth: (),
            title: facts.title.map(str::to_owned),
        },
        agent: CtxAgent { name: setup.project.name.clone() },
        channel: CtxChannel {
            id: facts.channel_id.to_owned(),
            continuation_token: facts.continuation_token.map(str::to_owned),
        },
        state_root: setup.state_root.path().to_path_buf(),
    }
}

/// A dispatcher for `runtime` (started with [`SessionSetup::start_runtime`]), with
/// `plan`'s hooks loaded into it.
pub fn load<'s>(
    setup: &SessionSetup,
    runtime: Runtime,
    facts: &SessionFacts,
    plan: &LoadPlan,
    log: &'s ServeLog,
    store: &'s StateStore,
) -> anyhow::Result<Dispatcher<'s>> {
    let config = setup.runtime_config(facts.id);
    let ctx = InitCtx::Session(Box::new(ctx(setup, facts)));
    let mut dispatcher = Dispatcher::new(config, runtime, plan.clone(), ctx, setup.hook_timeout, log, store);
    dispatcher.load()?;
    Ok(dispatcher)
}
