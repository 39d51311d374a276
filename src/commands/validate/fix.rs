//! `validate --fix`: writes the findings' fixes into the project's files, checks again, and
//! goes on until no fix is left to apply (a fix can make another finding appear), so the
//! check it hands back is of the files as they now are. Applying fixes twice changes
//! nothing: a fixed finding is gone from the next check.

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};

use anyhow::Context as _;

use crate::check::CheckedProject;
use crate::diagnostics::{Applicability, Code, Edit, fix};
use crate::project::Project;

/// How many rounds of fix-then-check at most: a fix that kept making new ones would
/// otherwise never end.
const MAX_ROUNDS: usize = 10;

/// What `--fix` did.
#[derive(Debug, Default)]
pub struct Fixed {
    /// Each file written (relative to `--dir`), with the codes of the findings fixed in it.
    pub files: BTreeMap<String, Vec<Code>>,
    /// Files left alone because they changed after the check read them (an editor saved).
    pub changed_meanwhile: Vec<String>,
}

impl Fixed {
    pub fn count(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }
}

/// Checks the project at `dir` with `check`, applies the fixes it found (the safe ones, and
/// the unsafe ones too with `with_unsafe`), and checks again until none is left.
pub fn fix_project(
    dir: &Path,
    with_unsafe: bool,
    check: impl Fn(&Path) -> anyhow::Result<CheckedProject>,
) -> anyhow::Result<(CheckedProject, Fixed)> {
    let mut fixed = Fixed::default();
    let mut checked = check(dir)?;
    for _ in 0..MAX_ROUNDS {
        let Some(project) = &checked.project else { break };
        let files = files_to_fix(&checked, project, with_unsafe, &mut fixed);
        if files.is_empty() {
            break;
        }
        for (path, file) in files {
            let mut edits = file.edits;
            edits.sort_by_key(|edit| (edit.start, edit.end));
            let text = fix::apply_edits(&checked.sources[&path], edits);
            if text == checked.sources[&path] {
                continue;
            }
            write_fixed(&file.target, &text, &checked.sources[&path])
                .with_context(|| format!("could not write the fixes to {}", file.target.display()))?;
            fixed.files.entry(path).or_default().extend(file.codes);
        }
        checked = check(dir)?;
    }
    for codes in fixed.files.values_mut() {
        codes.sort();
    }
    Ok((checked, fixed))
}

/// One file's share of this round's fixes.
struct FileFixes<'c> {
    /// Where it is written: the file its links lead to.
    target: PathBuf,
    /// The edits of the fixes chosen, in no order; none overlaps another.
    edits: Vec<&'c Edit>,
    /// The code of each fix chosen whose first edit is in this file.
    codes: Vec<Code>,
}

/// The fixes to apply this round, by file: each fix whole, none overlapping another (the
/// next round takes those up). A fix is left out when any file it edits may not be written
/// or changed since the check read it, when an edit does not fit the text checked, or when
/// it would change nothing (it would be "fixed" again every round, and counted each time).
fn files_to_fix<'c>(
    checked: &'c CheckedProject,
    project: &Project,
    with_unsafe: bool,
    fixed: &mut Fixed,
) -> BTreeMap<String, FileFixes<'c>> {
    let mut files: BTreeMap<String, FileFixes<'c>> = BTreeMap::new();
    let mut refused: HashSet<&str> = HashSet::new();
    let applicable = checked.diagnostics.iter().filter_map(|diagnostic| {
        let fix = diagnostic.fix.as_ref()?;
        (fix.applicability == Applicability::Safe || with_unsafe).then_some((diagnostic.code, fix))
    });
    let applicable = applicable.filter(|(_, fix)| changes_its_files(checked, fix));
    'fixes: for (code, fix) in applicable {
        for edit in &fix.edits {
            let path = edit.path.as_str();
            if refused.contains(path) {
                continue 'fixes;
            }
            if let Some(file) = files.get(path) {
                if file.edits.iter().any(|other| fix::overlap(edit, other)) {
                    continue 'fixes;
                }
                continue;
            }
            match writable(project, path, checked.sources.get(path)) {
                Ok(target) => {
                    files.insert(path.to_owned(), FileFixes { target, edits: Vec::new(), codes: Vec::new() });
                }
                Err(changed) => {
                    if changed {
                        fixed.changed_meanwhile.push(path.to_owned());
                    }
                    refused.insert(path);
                    continue 'fixes;
                }
            }
        }
        for edit in &fix.edits {
            if let Some(file) = files.get_mut(edit.path.as_str()) {
                file.edits.push(edit);
            }
        }
        if let Some(file) = fix.edits.first().and_then(|edit| files.get_mut(edit.path.as_str())) {
            file.codes.push(code);
        }
    }
    files.retain(|_, file| !file.edits.is_empty());
    files
}

/// Whether every edit of `fix` fits the text checked of its file and one of them changes it.
fn changes_its_files(checked: &CheckedProject, fix: &fix::Fix) -> bool {
    let changes = |edit: &Edit| checked.sources.get(&edit.path).and_then(|text| fix::changes(text, edit));
    let changes: Option<Vec<bool>> = fix.edits.iter().map(changes).collect();
    changes.is_some_and(|changes| changes.contains(&true))
}

/// Where the file at `path` (relative to the project) is written when fixed: the file its
/// links lead to. `Err(true)` when it changed since the check read `checked_text`;
/// `Err(false)` when it may not be written: its text was not kept, it is outside the project
/// (`..`, a link out) or in an installed package.
fn writable(project: &Project, path: &str, checked_text: Option<&String>) -> Result<PathBuf, bool> {
    let checked_text = checked_text.ok_or(false)?;
    let relative = Path::new(path);
    let plain =
        relative.components().all(|component| matches!(component, Component::Normal(name) if name != "node_modules"));
    if !plain {
        return Err(false);
    }
    let target = project.dir.join(relative).canonicalize().map_err(|_| false)?;
    let inside = target.strip_prefix(&project.canonical_dir).map_err(|_| false)?;
    if inside.components().any(|component| component.as_os_str() == "node_modules") {
        return Err(false);
    }
    match std::fs::read_to_string(&target) {
        Ok(now) if now == *checked_text => Ok(target),
        _ => Err(true),
    }
}

/// Writes `text` over the file at `target` (which held `original`) as an editor saving it
/// would: replaced whole, with its owner, group and permissions; or, when it has more than
/// one name (a hard link), in place, so that every name sees the fix and it stays one file.
fn write_fixed(target: &Path, text: &str, original: &str) -> std::io::Result<()> {
    let metadata = std::fs::metadata(target)?;
    if crate::platform::files::link_count(&metadata) > 1 {
        return crate::fs::overwrite_in_place(target, text.as_bytes(), original.as_bytes());
    }
    crate::fs::replace_keeping_owner(target, text.as_bytes(), &metadata)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Fix;

    fn project(dir: &Path) -> Project {
        let located = crate::project::locate(dir).unwrap();
        located.project.unwrap()
    }

    /// A check of `dir` that finds in `bot/hooks/a.ts` the findings `fixes` returns for its
    /// text, every time (the file's text and the fixes' offsets are the test's own).
    fn checking(fixes: impl Fn(&str) -> Vec<Fix>) -> impl Fn(&Path) -> anyhow::Result<CheckedProject> {
        move |dir| {
            let path = "bot/hooks/a.ts";
            let text = std::fs::read_to_string(dir.join(path))?;
            let diagnostics = fixes(&text)
                .into_iter()
                .map(|fix| crate::diagnostics::Diagnostic::new(Code::UnusedSuppression, "", "").with_fix(fix))
                .collect();
            let sources = [(path.to_owned(), text)].into_iter().collect();
            Ok(CheckedProject { project: Some(project(dir)), diagnostics, sources, ..CheckedProject::default() })
        }
    }

    #[test]
    fn a_fix_that_does_not_fit_the_text_or_changes_nothing_is_not_applied_nor_counted() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("bot/hooks")).unwrap();
        let text = "// a,\u{a0}b\n";
        std::fs::write(root.path().join("bot/hooks/a.ts"), text).unwrap();
        let fixes = |text: &str| {
            let file = crate::diagnostics::SourceFile::new("bot/hooks/a.ts", text);
            vec![
                // Ends inside the no-break space.
                Fix::safe("inside a character", vec![file.edit(3, 6, "")]),
                Fix::safe("past the end", vec![file.edit(3, 99, "")]),
                Fix::safe("the same text", vec![file.edit(0, 2, "//")]),
            ]
        };
        let (_, fixed) = fix_project(root.path(), false, checking(fixes)).unwrap();
        assert_eq!(fixed.count(), 0, "{fixed:?}");
        assert_eq!(std::fs::read_to_string(root.path().join("bot/hooks/a.ts")).unwrap(), text);
    }

    #[test]
    fn only_files_inside_the_project_and_outside_installed_packages_are_written() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("agent");
        std::fs::create_dir_all(dir.join("bot/hooks")).unwrap();
        std::fs::create_dir_all(dir.join("node_modules/pkg")).unwrap();
        let text = "export {};\n".to_owned();
        for path in ["agent/bot/hooks/a.ts", "agent/node_modules/pkg/index.js", "outside.ts"] {
            std::fs::write(root.path().join(path), &text).unwrap();
        }
        // A link out (on Unix: a Windows link needs a privilege a test may not have).
        #[cfg(unix)]
        std::os::unix::fs::symlink("../../../outside.ts", dir.join("bot/hooks/out.ts")).unwrap();
        let link = cfg!(unix).then_some("bot/hooks/out.ts");
        let outside = ["node_modules/pkg/index.js", "../outside.ts", "/etc/passwd"].into_iter().chain(link);
        let project = project(&dir);
        assert!(writable(&project, "bot/hooks/a.ts", Some(&text)).is_ok());
        for path in outside {
            assert_eq!(writable(&project, path, Some(&text)), Err(false), "{path}");
        }
        assert_eq!(writable(&project, "bot/hooks/a.ts", None), Err(false));
        assert_eq!(writable(&project, "bot/hooks/a.ts", Some(&"changed".to_owned())), Err(true));
    }
}
