//! The whole static check of a project as data: `discover → analyze → diagnostics`.
//! `validate`, `info` and `run` all start here; none of them prints from in here.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::analyze::{self, HookAnalysis};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::discover::{self, HookModule};
use crate::loader::cache::Cache;
use crate::loader::graph::{self, Entry, ModuleGraph};
use crate::loader::resolver::Resolver;
use crate::project::{self, DirError, Project};

/// One discovered hook module and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReport {
    pub name: String,
    /// Relative to `--dir`, with `/`.
    pub path: String,
    /// The statically known event keys, in source order.
    pub events: Vec<String>,
    /// Why the hook would not load (`None`: it loads).
    pub skipped: Option<Code>,
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
    /// The text of each file with a labelled diagnostic, by path, for rendering snippets.
    pub sources: HashMap<String, String>,
    /// Every module the hooks that would load reach, as Node will load them.
    pub modules: ModuleGraph,
}

impl CheckedProject {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics.iter().filter(|diagnostic| diagnostic.severity() == severity).count()
    }

    /// The hooks that would load, in discovery order.
    pub fn loaded(&self) -> impl Iterator<Item = &HookReport> {
        self.hooks.iter().filter(|hook| hook.skipped.is_none())
    }
}

/// Checks the project at `dir`. Only a missing or unreadable `dir` is an `Err`; every
/// problem inside the project is a diagnostic.
pub fn check_project(dir: &Path) -> Result<CheckedProject, DirError> {
    check_project_with(dir, None)
}

/// [`check_project`], keeping the compiled modules in `cache` (as `run` and `dev` do).
pub fn check_project_with(dir: &Path, cache: Option<&Cache>) -> Result<CheckedProject, DirError> {
    let located = project::locate(dir)?;
    let mut checked = CheckedProject { diagnostics: located.diagnostics, ..CheckedProject::default() };
    let Some(project) = located.project else {
        return Ok(checked);
    };
    let discovery = discover::discover(&project);
    let analyses: Vec<(HookAnalysis, Option<String>)> = match analysis_pool() {
        Some(pool) => pool.install(|| discovery.modules.par_iter().map(check_module).collect()),
        None => discovery.modules.iter().map(check_module).collect(),
    };

    for (index, (module, (analysis, source))) in discovery.modules.iter().zip(analyses).enumerate() {
        if let Some(source) = source {
            checked.sources.insert(module.display_path.clone(), source);
        }
        checked.hooks.push(HookReport {
            name: module.name.clone(),
            path: module.display_path.clone(),
            skipped: skip_reason(&discovery.modules, index, &analysis.diagnostics),
            events: analysis.events,
        });
        checked.diagnostics.extend(analysis.diagnostics);
    }
    checked.diagnostics.extend(discovery.diagnostics);
    follow_imports(&project, &discovery.modules, &mut checked, cache);
    checked.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    checked.project = Some(project);
    Ok(checked)
}

/// Walks the modules every hook that would load so far reaches; a hook that reaches an
/// error is skipped with it.
fn follow_imports(project: &Project, modules: &[HookModule], checked: &mut CheckedProject, cache: Option<&Cache>) {
    let loading: Vec<usize> =
        (0..checked.hooks.len()).filter(|&index| checked.hooks[index].skipped.is_none()).collect();
    let entries: Vec<Entry> = loading
        .iter()
        .map(|&index| Entry { path: &modules[index].path, display_path: &modules[index].display_path })
        .collect();
    let resolver = Resolver::new(&project.canonical_dir);
    let mut graph = graph::walk(&project.canonical_dir, &entries, &resolver, cache, analysis_pool());
    for (&index, error) in loading.iter().zip(&graph.entry_errors) {
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

/// The threads modules are analysed on, each with the stack [`analyze::analyze_module`]
/// needs. `None` only if the system cannot start threads: then this thread does the work.
fn analysis_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("analyze-{i}"))
            .stack_size(analyze::STACK_BYTES)
            .build()
            .ok()
    })
    .as_ref()
}

/// Reads and analyses one module; keeps its text only when a diagnostic points into it.
fn check_module(module: &HookModule) -> (HookAnalysis, Option<String>) {
    match analyze::read::read_hook(&module.path, &module.display_path) {
        Ok(text) => {
            let analysis = analyze::analyze_module(&module.display_path, &text);
            let labelled = analysis.diagnostics.iter().any(|diagnostic| diagnostic.label.is_some());
            (analysis, labelled.then_some(text))
        }
        Err(diagnostic) => (HookAnalysis { events: Vec::new(), diagnostics: vec![*diagnostic] }, None),
    }
}

/// Why module `index` would not load: a naming error, its first error, or an empty `events`.
/// `modules` is in discovery order, so modules sharing a name are neighbours.
fn skip_reason(modules: &[HookModule], index: usize, diagnostics: &[Diagnostic]) -> Option<Code> {
    let name = &modules[index].name;
    if name.contains("__") {
        return Some(Code::ReservedName);
    }
    let same_name = |other: Option<&HookModule>| other.is_some_and(|other| &other.name == name);
    if same_name(index.checked_sub(1).and_then(|before| modules.get(before))) || same_name(modules.get(index + 1)) {
        return Some(Code::DuplicateName);
    }
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    sorted
        .iter()
        .find(|diagnostic| diagnostic.severity() == Severity::Error)
        .or_else(|| sorted.iter().find(|diagnostic| diagnostic.code == Code::EmptyEvents))
        .map(|diagnostic| diagnostic.code)
}
