//! A check narrowed to the files named (`validate FILE…`, [`crate::check::Scope::Files`]):
//! their findings, those of the modules the hooks among them import, and the project-wide
//! ones; the hooks and mounts among them, and how many files were named, for the summary.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::check::CheckedProject;
use crate::loader::resolver::Target;

/// Keeps what `only` (paths relative to the project) covers: the findings in those files, in
/// the modules the hooks among them reach (whose errors keep those hooks from loading), and
/// the project-wide ones; and the hooks and mounts among them (what the summary counts). The
/// whole project was checked, so a named module's findings are those of every hook that
/// reaches it.
pub(crate) fn narrow(checked: &mut CheckedProject, only: &BTreeSet<String>) {
    let named = |path: &str| only.contains(path);
    let reached = reached_from(checked, only);
    checked
        .diagnostics
        .retain(|diagnostic| diagnostic.path.as_deref().is_none_or(|path| named(path) || reached.contains(path)));
    // A mounted hook's path is its mount file's.
    checked.hooks.retain(|hook| named(&hook.path));
    checked.mounts.retain(|mount| named(&mount.file.display_path));
    checked.files_named = Some(only.len());
}

/// The modules (relative to the project, with `/`) that the named hooks import, directly or
/// not, as the check's walk of the imports found them.
fn reached_from(checked: &CheckedProject, only: &BTreeSet<String>) -> BTreeSet<String> {
    let Some(project) = &checked.project else { return BTreeSet::new() };
    let imports: HashMap<&Path, Vec<&Path>> = checked
        .modules
        .modules
        .iter()
        .map(|module| {
            let files = module.resolved.iter().filter_map(|(_, target)| match target {
                Target::File(path) => Some(path.as_path()),
                _ => None,
            });
            (module.path.as_path(), files.collect())
        })
        .collect();
    let mut stack: Vec<&Path> = checked
        .hooks
        .iter()
        .filter(|hook| hook.mount.is_none() && only.contains(&hook.path))
        .map(|hook| hook.real_path.as_path())
        .collect();
    let mut seen: HashSet<&Path> = stack.iter().copied().collect();
    while let Some(module) = stack.pop() {
        for &next in imports.get(module).into_iter().flatten() {
            if seen.insert(next) {
                stack.push(next);
            }
        }
    }
    seen.into_iter().filter_map(|path| crate::fs::relative_slashed(path, &project.canonical_dir)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Diagnostic;

    #[test]
    fn a_narrowed_check_keeps_the_named_files_findings_and_the_project_wide_ones() {
        let mut checked = CheckedProject {
            diagnostics: vec![
                Diagnostic::at(Some("bot/hooks/a.ts")),
                Diagnostic::at(Some("bot/hooks/b.ts")),
                Diagnostic::at(None),
            ],
            ..CheckedProject::default()
        };
        narrow(&mut checked, &BTreeSet::from(["bot/hooks/a.ts".to_owned()]));
        let paths: Vec<_> = checked.diagnostics.iter().map(|d| d.path.clone()).collect();
        assert_eq!(paths, [Some("bot/hooks/a.ts".to_owned()), None]);
    }
}
