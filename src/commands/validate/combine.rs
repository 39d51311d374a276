//! One report from the checks of several agents: each finding's path under its agent's
//! folder, so that every output format renders them as it renders one project.

use crate::check::CheckedProject;
use crate::diagnostics::Diagnostic;

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

    #[test]
    fn joined_findings_sit_under_their_agent_and_project_wide_ones_at_its_anchor() {
        let part = |prefix: &str, path| Part {
            prefix: prefix.to_owned(),
            anchor: "package.json".to_owned(),
            checked: CheckedProject { diagnostics: vec![Diagnostic::at(path)], ..CheckedProject::default() },
        };
        let joined = join(vec![part("apps/b/", Some("bot/hooks/x.ts")), part("apps/a/", None)]);
        let paths: Vec<_> = joined.diagnostics.iter().map(|d| d.path.clone().unwrap()).collect();
        assert_eq!(paths, ["apps/a/package.json", "apps/b/bot/hooks/x.ts"]);
    }
}
