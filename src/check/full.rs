//! The full check, composed in one place for every command that checks a project
//! (`validate`, `info`, the editor, and `run` and `dev` through the session): the static
//! check, then the extension mounts (run, or each marked not run), then what only `validate`
//! looks at, then the one finishing pass (suppressions, the settings' levels, the order). So
//! what `validate` reports and what a session loads agree by construction.

use std::sync::Arc;
use std::time::Duration;

use crate::check::extensions::{self, Forbidden};
use crate::check::{CheckedProject, Scope};
use crate::diagnostics::suppression;
use crate::loader::cache::Cache;
use crate::loader::resolver::Overlay;
use crate::project::Located;
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

/// Checks a located project as `options` says, then finishes it once.
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
