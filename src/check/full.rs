//! The full check, composed in one place for every command that checks a project
//! (`validate`, `info`, the editor, and `run` and `dev` through the session): the static
//! check, then the extension mounts (run, or each marked not run), then what only `validate`
//! looks at, then the one finishing pass (suppressions, the settings' levels, the order). So
//! what `validate` reports and what a session loads agree by construction. For the static
//! commands, [`check_project`] also decides whether the mounts may run.

use std::sync::Arc;
use std::time::Duration;

use crate::check::extensions::{self, Forbidden, MountRuns};
use crate::check::{CheckedProject, Scope};
use crate::diagnostics::suppression;
use crate::loader::cache::Cache;
use crate::loader::resolver::Overlay;
use crate::project::{Located, Project};
use crate::runtime::host::RuntimeConfig;

/// How a check is composed.
pub struct Options<'a> {
    /// Where compiled modules are kept (a session's and a mount run's loader serves them).
    pub cache: Option<&'a Cache>,
    /// Files read from an editor's buffers instead of the disk.
    pub overlay: Arc<Overlay>,
    /// Which hooks are analysed.
    pub scope: &'a Scope,
    pub mounts: Mounts<'a>,
    /// Whether the SDK packages `tsc` sees are checked too: only `validate` looks, since
    /// `run` and `info` never depend on them.
    pub sdk_packages: bool,
}

/// What becomes of the extension mounts.
pub enum Mounts<'a> {
    /// Each that can run is run in Node.js with this runtime, and what it mounts taken in.
    Run { config: &'a RuntimeConfig, timeout: Duration },
    /// None is run: each gets an `extensions::not-run` saying why.
    NotRun(Forbidden),
    /// None is run and nothing is said: a session that will not start (no setup) needs no
    /// more than the static check.
    Skip,
}

impl Options<'_> {
    /// The static check alone, as a session without a setup has it.
    pub fn static_only(cache: Option<&Cache>) -> Options<'_> {
        Options { cache, overlay: Arc::default(), scope: &Scope::Project, mounts: Mounts::Skip, sdk_packages: false }
    }
}

/// Checks a located project as `options` says, finishes it once, and keeps what the scope
/// names.
pub fn check(located: Located, options: Options<'_>) -> CheckedProject {
    let mut checked = crate::check::check_statically(located, options.cache, options.overlay, options.scope);
    match options.mounts {
        Mounts::Run { config, timeout } => extensions::mount(&mut checked, config, timeout),
        Mounts::NotRun(why) => extensions::not_run(&mut checked, why),
        Mounts::Skip => {}
    }
    if options.sdk_packages
        && let Some(project) = &checked.project
    {
        let packages = crate::sdk::freshness::check_packages(&project.dir);
        checked.diagnostics.extend(packages);
    }
    finish(&mut checked);
    if let Scope::Files(files) = options.scope {
        crate::check::narrow::narrow(&mut checked, files);
    }
    checked
}

/// The one finishing pass: the `agent-sdk-ignore` comments of every file read with one
/// (hooks, the modules they import, mount files, whose findings are known only once they
/// ran), the settings' levels, and the report's order.
fn finish(checked: &mut CheckedProject) {
    let mut paths: Vec<&String> = checked
        .sources
        .iter()
        .filter(|(_, text)| text.contains(suppression::DIRECTIVE))
        .map(|(path, _)| path)
        .collect();
    paths.sort();
    for path in paths {
        crate::check::apply_suppressions_of(&mut checked.diagnostics, path, &checked.sources[path]);
    }
    checked.config.apply(&mut checked.diagnostics);
    checked.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}

/// How long a mount's import may take in `validate` and `info` (`run`'s `--hook-timeout`
/// default).
const CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The full check ([`check`]) with the mounts run as `runs` allows: what
/// `validate` and `info` report. A project without mount files is checked statically, and
/// nothing is written; one with them has, when they may run, its modules compiled into its
/// folder of the user's cache, where the loader serves them from.
pub fn check_project(dir: &std::path::Path, runs: &MountRuns) -> anyhow::Result<CheckedProject> {
    check_project_with(dir, std::sync::Arc::default(), runs, &Scope::Project, false)
}

/// [`check_project`] of the project as an editor shows it (the files `overlay` holds are read
/// from it instead of the disk: `agent-sdk lsp`), of the hooks `scope` names, and of the SDK
/// packages `tsc` sees when `sdk_packages` (`validate`).
pub fn check_project_with(
    dir: &std::path::Path,
    overlay: std::sync::Arc<crate::loader::resolver::Overlay>,
    runs: &MountRuns,
    scope: &Scope,
    sdk_packages: bool,
) -> anyhow::Result<CheckedProject> {
    let located = crate::project::locate(dir)?;
    let options = |cache, mounts| Options { cache, overlay, scope, mounts, sdk_packages };
    let to_mount = |project: &Project| extensions::discover::has_mounts(project) && covers_a_mount(scope, project);
    let Some(project) = located.project.clone().filter(to_mount) else {
        return Ok(check(located, options(None, Mounts::Skip)));
    };
    let runs = match runs {
        MountRuns::Contained { .. } if crate::config::find(&project.dir).no_exec => {
            &MountRuns::Forbidden(Forbidden::Settings)
        }
        runs => runs,
    };
    match runs {
        MountRuns::Forbidden(why) => Ok(check(located, options(None, Mounts::NotRun(*why)))),
        MountRuns::Contained { pass_env } => {
            let setup = crate::runtime::setup::SessionSetup::for_check(project, pass_env, CHECK_TIMEOUT)?;
            let cache = Cache::new(&setup.state_root);
            let config = setup.runtime_config("check");
            crate::platform::process::adopt_orphans();
            let mounts = Mounts::Run { config: &config, timeout: setup.hook_timeout };
            let checked = check(located, options(Some(&cache), mounts));
            crate::platform::process::end_adopted();
            Ok(checked)
        }
    }
}

/// Whether `scope` covers a mount file. A mount's findings are at its file and its hooks are
/// named after it, so with none named, running the mounts (a Node.js each) would find only
/// what is left out of the report.
fn covers_a_mount(scope: &Scope, project: &Project) -> bool {
    let mounts = format!("{}/extensions/", project.layout.folder());
    match scope {
        Scope::Project => true,
        Scope::Files(files) => files.iter().any(|file| file.starts_with(&mounts)),
    }
}
