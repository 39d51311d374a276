//! The whole static check of a project as data: `discover → analyze → diagnostics`.
//! `validate`, `info` and `run` all start here; none of them prints from in here.

pub mod analyze;
pub mod discover;
pub mod extensions;
pub mod full;
pub mod incremental;
mod narrow;

use std::collections::HashMap;

use rayon::prelude::*;

use crate::check::analyze::HookAnalysis;
use crate::check::discover::HookModule;
use crate::check::extensions::Mount;
use crate::config::Config;
use crate::diagnostics::{Code, Diagnostic, Severity, suppression};
use crate::loader::cache::Cache;
use crate::loader::graph::{self, ModuleGraph, Visited};
use crate::loader::resolver::Resolver;
use crate::parse::analysis_pool;
use crate::project::{Located, Project};

/// One discovered hook module and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReport {
    pub name: String,
    /// Relative to `--dir`, with `/`.
    pub path: String,
    /// The module with every link resolved: the path Node loads it by.
    pub real_path: std::path::PathBuf,
    /// The event keys, in source order; `None` when they cannot be known before the module
    /// runs (see [`crate::check::analyze::HookAnalysis::known_events`]).
    pub events: Option<Vec<String>>,
    /// Why the hook would not load (`None`: it loads).
    pub skipped: Option<Code>,
    /// For a hook an extension contributes: which mount, and its name inside the extension
    /// (`path` and `real_path` are then the mount file's).
    pub mount: Option<MountedAs>,
}

/// Where a mounted hook comes from: `ci__triage` is `triage` of the mount `ci`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountedAs {
    pub namespace: String,
    pub key: String,
}

/// Everything a static check found.
#[derive(Debug, Default)]
pub struct CheckedProject {
    /// `None` when no single source folder was found (see the diagnostics).
    pub project: Option<Project>,
    /// Every discovered module, in discovery order.
    pub hooks: Vec<HookReport>,
    /// Every finding, in report order.
    pub diagnostics: Vec<Diagnostic>,
    /// The text of each file with a labelled diagnostic (for rendering snippets) or an
    /// `agent-sdk-ignore` comment, by path.
    pub sources: HashMap<String, String>,
    /// Every module the hooks that would load reach, as Node will load them.
    pub modules: ModuleGraph,
    /// Every mount file under `<src>/extensions/`, in namespace order; what each mounts is
    /// known once [`crate::check::extensions::mount`] ran them.
    pub mounts: Vec<Mount>,
    /// Why the mounts were not run, when a static check was forbidden to run them.
    pub mounts_forbidden: Option<crate::check::extensions::Forbidden>,
    /// The project's settings (`agent-sdk.json`), already applied to `diagnostics`.
    pub config: Config,
    /// What discovery found: every hook module, and its own findings (also in
    /// `diagnostics`), for the editor, which re-checks hooks one by one.
    pub discovery: discover::Discovery,
    /// When the report covers only the files named (`validate PATH…`): how many, which the
    /// summary counts instead of the hook modules and mount files.
    pub files_named: Option<usize>,
}

impl CheckedProject {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|diagnostic| diagnostic.severity() == severity).count()
    }

    /// Whether a finding keeps the project from loading in a session (`run`, `dev`): an
    /// error but one about a single handler ([`Diagnostic::stops_loading`]).
    pub fn stops_loading(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::stops_loading)
    }

    /// The hooks that would load, in discovery order.
    pub fn loaded(&self) -> impl Iterator<Item = &HookReport> {
        self.hooks.iter().filter(|hook| hook.skipped.is_none())
    }
}

/// What a check covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Scope {
    /// The whole project: every hook and mount.
    #[default]
    Project,
    /// These files (relative to the project, with `/`; `validate FILE…`, on a commit's
    /// files): only their findings are kept, with those of the modules the hooks among them
    /// import ([`narrow`]). When every one is a hook module, only they are analysed and their
    /// imports followed, and no mount runs; a file that is not (a module they import, a mount)
    /// needs the whole check to say which hooks reach it, so the whole project is checked.
    Files(std::collections::BTreeSet<String>),
}

/// The static check of a located project (every problem inside it is a diagnostic), not yet
/// finished: [`full::check`] composes it with the mounts and finishes it once, for every
/// command. The files `overlay` holds are read from it instead of the disk (`agent-sdk
/// lsp`); compiled modules are kept in `cache`; `scope` says which hooks are analysed.
pub(crate) fn check_statically(
    located: Located,
    cache: Option<&Cache>,
    overlay: std::sync::Arc<crate::loader::resolver::Overlay>,
    scope: &Scope,
) -> CheckedProject {
    let mut checked = CheckedProject { diagnostics: located.diagnostics, ..CheckedProject::default() };
    let Some(project) = located.project else {
        return checked;
    };
    let mut config = crate::config::find(&project.dir);
    let mut discovery = discover::discover(&project, &config);
    let resolver = Resolver::new(&project.canonical_dir);
    resolver.set_overlay(overlay);
    let name_problems: Vec<Option<Code>> =
        (0..discovery.modules.len()).map(|index| name_problem(&discovery.modules, index)).collect();
    let analysed = analysed(&discovery, scope);
    // One pass per hook: read, parse, analyse and, when it would load, compile it and
    // resolve its imports from that same parse.
    let check = |&index: &usize| check_module(&discovery.modules[index], name_problems[index], &resolver, cache);
    let checks: Vec<ModuleCheck> = match analysis_pool() {
        Some(pool) => pool.install(|| analysed.par_iter().map(check).collect()),
        None => analysed.iter().map(check).collect(),
    };

    let mut entries = Vec::new();
    let mut entry_hooks = Vec::new();
    for (index, check) in analysed.into_iter().zip(checks) {
        let module = &discovery.modules[index];
        if let Some(source) = check.source {
            checked.sources.insert(module.display_path.clone(), source);
        }
        if let Some(entry) = check.entry {
            entries.push(entry);
            // Its place in `checked.hooks`, which holds the analysed modules only.
            entry_hooks.push(checked.hooks.len());
        }
        checked.hooks.push(HookReport {
            name: module.name.clone(),
            path: module.display_path.clone(),
            real_path: module.real_path.clone(),
            skipped: skip_reason(name_problems[index], &check.analysis.diagnostics),
            events: check.analysis.known_events(),
            mount: None,
        });
        checked.diagnostics.extend(check.analysis.diagnostics);
    }
    checked.diagnostics.extend(discovery.diagnostics.iter().cloned());
    let hook_entries = entries.len();
    let (mounts, mut mount_entries) = crate::check::extensions::read_mounts(&project, &resolver, cache, &mut checked);
    let mount_indexes: Vec<usize> = mount_entries.iter().map(|(index, _)| *index).collect();
    entries.extend(mount_entries.drain(..).map(|(_, entry)| entry));
    checked.mounts = mounts;
    follow_imports(&project, entries, &entry_hooks, &resolver, &mut checked, cache);
    for (&index, error) in mount_indexes.iter().zip(&checked.modules.entry_errors[hook_entries..]) {
        if error.is_some() {
            checked.mounts[index].loads = false;
        }
    }
    // The editor's copy of discovery's own findings, at the settings' levels.
    config.apply(&mut discovery.diagnostics);
    checked.discovery = discovery;
    checked.diagnostics.append(&mut config.diagnostics);
    // For the snippets of what is found in the settings file itself.
    if let Some(source) = config.source.as_ref() {
        let path = Some(source.display_path.as_str());
        if checked.diagnostics.iter().any(|diagnostic| diagnostic.path.as_deref() == path) {
            checked.sources.insert(source.display_path.clone(), source.text.clone());
        }
    }
    checked.config = config;
    checked.project = Some(project);
    checked
}

/// The indexes of the discovered modules `scope` has analysed, in discovery order: the files
/// it names when each is a hook module, else every one.
fn analysed(discovery: &discover::Discovery, scope: &Scope) -> Vec<usize> {
    let every = 0..discovery.modules.len();
    let Scope::Files(files) = scope else { return every.collect() };
    let named: Vec<usize> =
        every.clone().filter(|&index| files.contains(&discovery.modules[index].display_path)).collect();
    if named.len() == files.len() { named } else { every.collect() }
}

/// Applies the `agent-sdk-ignore` comments of the file at `path`, whose text is `text`, to
/// `diagnostics`. The comments are the parser's (parsed again, only for a file that holds
/// the directive's text), on a thread with the stack a parse needs.
pub(crate) fn apply_suppressions_of(diagnostics: &mut Vec<Diagnostic>, path: &str, text: &str) {
    let read = || crate::parse::on_a_big_enough_stack(text.len(), || crate::parse::line_comments(path, text));
    let comments = match analysis_pool() {
        Some(pool) => pool.install(read),
        None => read(),
    };
    suppression::apply(diagnostics, path, text, &comments.unwrap_or_default());
}

/// How long a compiled module no run used is kept in the cache (edits leave old entries
/// behind).
const CACHE_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Walks on from the hooks that would load so far; a hook that reaches an error is
/// skipped with it.
fn follow_imports(
    project: &Project,
    entries: Vec<Visited>,
    entry_hooks: &[usize],
    resolver: &Resolver,
    checked: &mut CheckedProject,
    cache: Option<&Cache>,
) {
    let mut graph = graph::walk(&project.canonical_dir, entries, resolver, cache, analysis_pool());
    if let Some(cache) = cache.filter(|_| graph.compiled > 0) {
        // Never what this check reached: the runtime is about to load it.
        cache.prune(CACHE_MAX_AGE, &graph.cache_keys);
    }
    // The hooks' entries come first; the mount files' after them.
    for (&index, error) in entry_hooks.iter().zip(&graph.entry_errors) {
        if error.is_some() {
            checked.hooks[index].skipped = *error;
        }
    }
    checked.diagnostics.append(&mut graph.diagnostics);
    for (path, text) in graph.sources.drain() {
        checked.sources.entry(path).or_insert(text);
    }
    checked.modules = graph;
}

/// What checking one hook module found.
pub(crate) struct ModuleCheck {
    pub(crate) analysis: HookAnalysis,
    /// Its text, when a diagnostic points into it or it holds an `agent-sdk-ignore` comment.
    pub(crate) source: Option<String>,
    /// The hook as the import walk starts from it, when it would load so far.
    pub(crate) entry: Option<Visited>,
}

/// Reads and analyses one module; when it would load so far (no [`skip_reason`]), compiles
/// it from the same parse and resolves its imports. An editor's unsaved text (the
/// resolver's overlay) is read instead of the disk's.
pub(crate) fn check_module(
    module: &HookModule,
    name_problem: Option<Code>,
    resolver: &Resolver,
    cache: Option<&Cache>,
) -> ModuleCheck {
    let unsaved = resolver.unsaved_text(&module.real_path);
    let text = match analyze::read::read_hook_or_unsaved(&module.path, &module.display_path, unsaved) {
        Ok(text) => text,
        Err(diagnostic) => {
            let analysis = HookAnalysis { diagnostics: vec![*diagnostic], ..HookAnalysis::default() };
            return ModuleCheck { analysis, source: None, entry: None };
        }
    };
    let checked = crate::parse::on_a_big_enough_stack(text.len(), || {
        analyze::analyze_then(&module.display_path, &text, |analysis, allocator, program| {
            let loads = skip_reason(name_problem, &analysis.diagnostics).is_none();
            loads.then(|| {
                graph::visit_entry(
                    &module.real_path,
                    &module.display_path,
                    &text,
                    (allocator, program),
                    resolver,
                    cache,
                )
            })
        })
    });
    let (analysis, entry) = match checked {
        Some((analysis, entry)) => (analysis, entry.flatten()),
        None => (
            HookAnalysis {
                diagnostics: vec![crate::diagnostics::too_big_to_parse(&module.display_path)],
                ..HookAnalysis::default()
            },
            None,
        ),
    };
    // Kept for snippets, and for the suppressions a module holds.
    let labelled = analysis.diagnostics.iter().any(|diagnostic| diagnostic.label.is_some());
    let keep = labelled || text.contains(suppression::DIRECTIVE);
    ModuleCheck { analysis, source: keep.then_some(text), entry }
}

/// A naming problem that keeps module `index` from loading, whatever is in it. `modules`
/// is in discovery order, so modules sharing a name are neighbours.
pub(crate) fn name_problem(modules: &[HookModule], index: usize) -> Option<Code> {
    let name = &modules[index].name;
    if name.contains("__") {
        return Some(Code::ReservedName);
    }
    let same_name = |other: Option<&HookModule>| other.is_some_and(|other| &other.name == name);
    if same_name(index.checked_sub(1).and_then(|before| modules.get(before))) || same_name(modules.get(index + 1)) {
        return Some(Code::DuplicateName);
    }
    None
}

/// Why a module would not load: its naming problem, its first error, or an empty `events`.
pub(crate) fn skip_reason(name_problem: Option<Code>, diagnostics: &[Diagnostic]) -> Option<Code> {
    if name_problem.is_some() {
        return name_problem;
    }
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    sorted
        .iter()
        .find(|diagnostic| diagnostic.stops_loading())
        .or_else(|| sorted.iter().find(|diagnostic| diagnostic.code == Code::EmptyEvents))
        .map(|diagnostic| diagnostic.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery(paths: &[&str]) -> discover::Discovery {
        let module = |path: &&str| discover::HookModule {
            name: path.trim_start_matches("bot/hooks/").trim_end_matches(".ts").to_owned(),
            path: path.into(),
            real_path: path.into(),
            display_path: (*path).to_owned(),
        };
        discover::Discovery { modules: paths.iter().map(module).collect(), diagnostics: Vec::new() }
    }

    #[test]
    fn a_scope_of_hook_modules_analyses_only_them_and_any_other_file_the_whole_project() {
        let found = discovery(&["bot/hooks/a.ts", "bot/hooks/b.ts", "bot/hooks/c.ts"]);
        let files = |paths: &[&str]| Scope::Files(paths.iter().map(|path| (*path).to_owned()).collect());
        assert_eq!(analysed(&found, &Scope::Project), [0, 1, 2]);
        assert_eq!(analysed(&found, &files(&["bot/hooks/c.ts", "bot/hooks/a.ts"])), [0, 2]);
        // A module a hook imports: which hooks reach it is known only from all of them.
        assert_eq!(analysed(&found, &files(&["bot/hooks/a.ts", "bot/lib/util.ts"])), [0, 1, 2]);
    }
}
