//! Where the machine formats (`github`, `sarif`, `concise`) say a finding is: a file named
//! so that the consumer resolves it from the current directory, as oxlint names them, and
//! always a line and column. With `--dir packages/agent` run from a monorepo's root, a
//! finding in `bot/hooks/x.ts` is at `packages/agent/bot/hooks/x.ts`.

use std::path::{Component, Path};

use crate::check::CheckedProject;
use crate::diagnostics::{Diagnostic, LineColumn};

/// The project folder as the reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDir {
    /// `--dir` as the user gave it (`validate --format json` reports it as `dir`).
    pub given: String,
    /// What turns a path relative to the project into one the current directory resolves:
    /// `""` for `.`, `packages/agent/`, or the absolute project folder (with a final `/`)
    /// when it is not under the current directory.
    from_cwd: String,
    /// Where a project-wide finding points, relative to the project: `package.json` when
    /// there is one, else the source folder (`bot/`), else the project folder (`""`).
    anchor: String,
}

/// A finding's place: a file (or, for a project-wide finding without `package.json`, a
/// folder ending in `/`) and a span. A finding about a whole file is at 1:1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: String,
    pub start: LineColumn,
    pub end: LineColumn,
}

impl ProjectDir {
    /// The project at `dir` (as given), looking at the file system for the current
    /// directory and for `package.json`.
    pub fn new(dir: &Path, checked: &CheckedProject) -> Self {
        let anchor = if dir.join("package.json").is_file() {
            "package.json".to_owned()
        } else {
            checked.project.as_ref().map_or_else(String::new, |project| format!("{}/", project.layout.folder()))
        };
        Self { anchor, ..Self::for_files(dir) }
    }

    /// The project at `dir`, for reports that only ever name files in it (`test`'s).
    pub fn for_files(dir: &Path) -> Self {
        let canonical = |path: &Path| path.canonicalize().ok();
        let cwd = std::env::current_dir().ok();
        let from_cwd = from_cwd(dir, || (canonical(dir), cwd.as_deref().and_then(canonical)));
        Self { given: dir.to_string_lossy().into_owned(), from_cwd, anchor: String::new() }
    }

    /// `path` (relative to the project, as in [`Diagnostic::path`]) as the current
    /// directory sees it. The project folder itself is `./` when it is the current one.
    pub fn file(&self, path: &str) -> String {
        match format!("{}{path}", self.from_cwd) {
            empty if empty.is_empty() => "./".to_owned(),
            joined => joined,
        }
    }

    /// Where a finding about the whole project points, relative to it: `package.json`, the
    /// source folder (`bot/`), or `""`.
    pub fn anchor(&self) -> &str {
        &self.anchor
    }

    /// Where `diagnostic` is: its file and span; its file at 1:1 when it has no span; the
    /// project's anchor at 1:1 when it is about the whole project.
    pub fn locate(&self, diagnostic: &Diagnostic) -> Location {
        let first = LineColumn { line: 1, column: 1 };
        let path = self.file(diagnostic.path.as_deref().unwrap_or(&self.anchor));
        match &diagnostic.label {
            Some(label) => Location { path, start: label.start_at, end: label.end_at },
            None => Location { path, start: first, end: first },
        }
    }
}

/// The prefix of [`ProjectDir::from_cwd`]. A relative `dir` that only goes down is used as
/// written (`./packages/agent/` is `packages/agent/`); any other is resolved with `canonical`
/// (the project folder and the current directory, links resolved) and named from the
/// current directory when it is inside it, else absolutely.
fn from_cwd(
    dir: &Path,
    canonical: impl FnOnce() -> (Option<std::path::PathBuf>, Option<std::path::PathBuf>),
) -> String {
    let mut down = Vec::new();
    let goes_only_down = dir.components().all(|component| match component {
        Component::CurDir => true,
        Component::Normal(name) => {
            down.push(name.to_string_lossy().into_owned());
            true
        }
        _ => false,
    });
    if !goes_only_down {
        down.clear();
        match canonical() {
            (Some(dir), Some(cwd)) => match dir.strip_prefix(&cwd) {
                Ok(inside) => down.extend(inside.iter().map(|name| name.to_string_lossy().into_owned())),
                Err(_) => return with_slash(&dir.to_string_lossy()),
            },
            // Unresolvable (it was checked a moment ago): the path as given still names it.
            _ => return with_slash(&dir.to_string_lossy()),
        }
    }
    if down.is_empty() { String::new() } else { format!("{}/", down.join("/")) }
}

fn with_slash(path: &str) -> String {
    if path.ends_with('/') { path.to_owned() } else { format!("{path}/") }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn unresolved() -> (Option<PathBuf>, Option<PathBuf>) {
        (None, None)
    }

    #[test]
    fn a_folder_below_is_named_as_written() {
        assert_eq!(from_cwd(Path::new("."), unresolved), "");
        assert_eq!(from_cwd(Path::new("./"), unresolved), "");
        assert_eq!(from_cwd(Path::new("packages/agent"), unresolved), "packages/agent/");
        assert_eq!(from_cwd(Path::new("./packages//agent/"), unresolved), "packages/agent/");
    }

    #[test]
    fn any_other_folder_is_resolved() {
        let inside = || (Some(PathBuf::from("/repo/packages/agent")), Some(PathBuf::from("/repo")));
        assert_eq!(from_cwd(Path::new("/repo/packages/agent"), inside), "packages/agent/");
        let same = || (Some(PathBuf::from("/repo")), Some(PathBuf::from("/repo")));
        assert_eq!(from_cwd(Path::new("../repo"), same), "");
        let outside = || (Some(PathBuf::from("/elsewhere/agent")), Some(PathBuf::from("/repo")));
        assert_eq!(from_cwd(Path::new("../elsewhere/agent"), outside), "/elsewhere/agent/");
    }
}
