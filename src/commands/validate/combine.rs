//! One report from several checks: a check narrowed to the files named on the command line,
//! and the checks of several agents joined, each finding's path under its agent's folder,
//! so that every output format renders them as it renders one project.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::check::CheckedProject;
use crate::diagnostics::Diagnostic;
use crate::loader::resolver::Target;

/// Keeps what `only` (paths relative to the project) covers: the findings in those files, in
/// the modules the hooks among them reach (whose errors keep those hooks from loading), and
/// the project-wide ones; and the hooks and mounts among them (what the summary counts). The
/// whole project was checked, so a named module's findings are those of every hook that
/// reaches it.
pub fn narrow(checked: &mut CheckedProject, only: &BTreeSet<String>) {
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
    seen.into_iter()
        .filter_map(|path| path.strip_prefix(&project.canonical_dir).ok())
        .map(|relative| {
            relative.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
        })
        .collect()
}

/// One agent's check and where it sits under the report's root.
pub struct Part {
    /// The agent's folder relative to the root, with `/` and a final `/` (`apps/a/`), or `""`
    /// for the root itself.
    pub prefix: String,
    /// Where a finding about the whole project points inside it (`package.json`, `bot/`).
    pub anchor: String,
    pub checked: CheckedProject,
}

/// The parts as one check: every path is put under its part's prefix, and a finding about a
/// whole project points at its anchor, so that the reader sees which agent it is about.
pub fn join(parts: Vec<Part>) -> CheckedProject {
    let mut joined = CheckedProject {
        files_named: Some(parts.iter().map(|part| crate::report::Summary::of(&part.checked).files).sum()),
        ..CheckedProject::default()
    };
    for Part { prefix, anchor, checked } in parts {
        let under = |path: &str| format!("{prefix}{path}");
        for mut diagnostic in checked.diagnostics {
            move_under(&mut diagnostic, &prefix, &anchor);
            joined.diagnostics.push(diagnostic);
        }
        joined.sources.extend(checked.sources.into_iter().map(|(path, text)| (under(&path), text)));
        joined.hooks.extend(checked.hooks.into_iter().map(|mut hook| {
            hook.path = under(&hook.path);
            hook
        }));
        joined.mounts.extend(checked.mounts.into_iter().map(|mut mount| {
            mount.file.display_path = under(&mount.file.display_path);
            mount
        }));
        joined.mounts_forbidden = joined.mounts_forbidden.or(checked.mounts_forbidden);
    }
    joined.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    joined
}

fn move_under(diagnostic: &mut Diagnostic, prefix: &str, anchor: &str) {
    let path = diagnostic.path.take().unwrap_or_else(|| anchor.to_owned());
    diagnostic.path = Some(format!("{prefix}{path}"));
    for edit in diagnostic.fix.iter_mut().flat_map(|fix| fix.edits.iter_mut()) {
        edit.path = format!("{prefix}{}", edit.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    fn finding(path: Option<&str>) -> Diagnostic {
        let diagnostic = Diagnostic::new(Code::UnknownEvent, "m", "h");
        match path {
            Some(path) => diagnostic.with_path(path),
            None => diagnostic,
        }
    }

    #[test]
    fn a_narrowed_check_keeps_the_named_files_findings_and_the_project_wide_ones() {
        let mut checked = CheckedProject {
            diagnostics: vec![finding(Some("bot/hooks/a.ts")), finding(Some("bot/hooks/b.ts")), finding(None)],
            ..CheckedProject::default()
        };
        narrow(&mut checked, &BTreeSet::from(["bot/hooks/a.ts".to_owned()]));
        let paths: Vec<_> = checked.diagnostics.iter().map(|d| d.path.clone()).collect();
        assert_eq!(paths, [Some("bot/hooks/a.ts".to_owned()), None]);
    }

    #[test]
    fn joined_findings_sit_under_their_agent_and_project_wide_ones_at_its_anchor() {
        let part = |prefix: &str, path| Part {
            prefix: prefix.to_owned(),
            anchor: "package.json".to_owned(),
            checked: CheckedProject { diagnostics: vec![finding(path)], ..CheckedProject::default() },
        };
        let joined = join(vec![part("apps/b/", Some("bot/hooks/x.ts")), part("apps/a/", None)]);
        let paths: Vec<_> = joined.diagnostics.iter().map(|d| d.path.clone().unwrap()).collect();
        assert_eq!(paths, ["apps/a/package.json", "apps/b/bot/hooks/x.ts"]);
    }
}
