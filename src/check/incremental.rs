//! Re-checking a few hook modules of a project checked before, as an editor needs on every
//! keystroke (`agent-sdk lsp`): each hook is read (from the editor's unsaved text when the
//! resolver's overlay holds it), analysed, compiled and walked exactly as
//! [`crate::check::full::check`] does, but only those hooks and the modules they reach;
//! the rest of the project keeps its last result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::discover::HookModule;
use super::{ModuleCheck, apply_suppressions_of, check_module, name_problem};
use crate::config::Config;
use crate::diagnostics::{Diagnostic, suppression};
use crate::loader::graph;
use crate::loader::resolver::{Resolver, display_path};
use crate::parse::analysis_pool;

/// What re-checking some hooks found, file by file.
#[derive(Debug, Default)]
pub struct Rechecked {
    /// The diagnostics of each re-checked hook and of every module they reach, by path
    /// relative to the project folder (suppressions applied); a file with none has an empty
    /// list, so that what it had before is cleared.
    pub by_path: HashMap<String, Vec<Diagnostic>>,
    /// The text of each such file with a labelled diagnostic or a suppression comment.
    pub sources: HashMap<String, String>,
    /// For every module reached (hooks included; absolute, links resolved): the files its
    /// imports lead to.
    pub imports: HashMap<PathBuf, Vec<PathBuf>>,
}

/// Re-checks `modules[index]` for each of `indexes` (`modules` is the project's discovery,
/// in discovery order, so name clashes are found as the full check finds them). `root` is
/// the project folder, absolute with links resolved; `config` the project's settings, whose
/// rule levels apply as in the full check.
pub fn recheck_hooks(
    root: &Path,
    modules: &[HookModule],
    indexes: &[usize],
    resolver: &Resolver,
    config: &Config,
) -> Rechecked {
    let check = |&index: &usize| check_module(&modules[index], name_problem(modules, index), resolver, None);
    let checks: Vec<ModuleCheck> = match analysis_pool() {
        Some(pool) => pool.install(|| indexes.par_iter().map(check).collect()),
        None => indexes.iter().map(check).collect(),
    };
    let mut rechecked = Rechecked::default();
    let mut entries = Vec::new();
    for (&index, check) in indexes.iter().zip(checks) {
        let shown = &modules[index].display_path;
        if let Some(source) = check.source {
            rechecked.sources.insert(shown.clone(), source);
        }
        entries.extend(check.entry);
        rechecked.by_path.entry(shown.clone()).or_default().extend(check.analysis.diagnostics);
    }
    let graph = graph::walk(root, entries, resolver, None, analysis_pool());
    for module in &graph.modules {
        rechecked.by_path.entry(display_path(root, &module.path)).or_default();
        let leads_to = module.resolved.iter().filter_map(|(_, target)| match target {
            crate::loader::resolver::Target::File(file) => Some(file.clone()),
            _ => None,
        });
        rechecked.imports.insert(module.path.clone(), leads_to.collect());
    }
    for diagnostic in graph.diagnostics {
        if let Some(path) = &diagnostic.path {
            rechecked.by_path.entry(path.clone()).or_default().push(diagnostic);
        }
    }
    for (path, text) in graph.sources {
        rechecked.sources.entry(path).or_insert(text);
    }
    for (path, text) in &rechecked.sources {
        if text.contains(suppression::DIRECTIVE)
            && let Some(diagnostics) = rechecked.by_path.get_mut(path)
        {
            apply_suppressions_of(diagnostics, path, text);
        }
    }
    for diagnostics in rechecked.by_path.values_mut() {
        config.apply(diagnostics);
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    rechecked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::discover;
    use crate::check::full::{self, Options};

    /// Re-checking every hook of a project finds, file by file, what the full check found
    /// (but for discovery's own findings, which the editor keeps from the full check).
    #[test]
    fn rechecking_every_hook_finds_what_the_full_check_found_file_by_file() {
        let cases = [
            "unknown-event",
            "unresolved-import",
            "missing-export",
            "suppression-silences",
            "suppression-unused",
            "suppression-cannot-silence-error",
            "duplicate-name",
            "reserved-name",
            "parse-error",
            "accepted-forms",
        ];
        for case in cases {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/validate").join(case);
            let located = crate::project::locate(&dir).unwrap();
            let project = located.project.clone().unwrap();
            let full = full::check(located, Options::static_only(None));
            let discovery = discover::discover(&project, &full.config);
            let resolver = Resolver::new(&project.canonical_dir);
            let all: Vec<usize> = (0..discovery.modules.len()).collect();
            let rechecked = recheck_hooks(&project.canonical_dir, &discovery.modules, &all, &resolver, &full.config);
            assert!(!rechecked.by_path.is_empty(), "{case}");
            for (path, found) in &rechecked.by_path {
                let expected: Vec<&Diagnostic> = full
                    .diagnostics
                    .iter()
                    .filter(|diagnostic| diagnostic.path.as_deref() == Some(path.as_str()))
                    .filter(|diagnostic| !discovery.diagnostics.contains(diagnostic))
                    .collect();
                let found: Vec<&Diagnostic> = found.iter().collect();
                assert_eq!(found, expected, "{case}: {path}");
            }
        }
    }
}
