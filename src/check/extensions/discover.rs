//! Mount discovery: every module file directly in `<src>/extensions/` (tests, specs and
//! declarations skipped) is a mount, its file name without the extension its namespace.

use std::path::PathBuf;

use crate::check::discover::{FileKind, and_list, file_kind};
use crate::diagnostics::{Code, Diagnostic};
use crate::project::Project;

/// One mount file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountFile {
    /// Its file name without the extension: the prefix of its hooks' names.
    pub namespace: String,
    pub path: PathBuf,
    /// The same file with every link resolved: the path Node knows it by.
    pub real_path: PathBuf,
    /// Its path relative to `--dir`, with `/`.
    pub display_path: String,
}

/// `<src>/extensions/`.
pub fn extensions_dir(project: &Project) -> PathBuf {
    project.source_dir().join("extensions")
}

/// Whether the project has a mount file at all: a project without one is checked without
/// starting Node.
pub fn has_mounts(project: &Project) -> bool {
    let Ok(entries) = std::fs::read_dir(extensions_dir(project)) else { return false };
    entries.flatten().any(|entry| {
        entry.file_name().to_str().is_some_and(|name| matches!(file_kind(name), FileKind::Module(_)))
            && entry.path().is_file()
    })
}

/// Every mount file, in byte order of namespaces, and what is wrong with their names. A
/// file with a bad or shared namespace is reported and left out.
pub fn discover(project: &Project) -> (Vec<MountFile>, Vec<Diagnostic>) {
    let dir = extensions_dir(project);
    let mut found = Vec::new();
    let mut diagnostics = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else { return (found, diagnostics) };
    let prefix = format!("{}/extensions", project.layout.folder());
    for entry in entries.flatten() {
        let Some(file_name) = entry.file_name().to_str().map(str::to_owned) else { continue };
        let FileKind::Module(stem) = file_kind(&file_name) else { continue };
        if file_name.starts_with('.') || !entry.path().is_file() {
            continue;
        }
        let display_path = format!("{prefix}/{file_name}");
        if let Some(problem) = namespace_problem(stem) {
            diagnostics.push(invalid_namespace(stem, &display_path, problem));
            continue;
        }
        let path = entry.path();
        let real_path = path.canonicalize().unwrap_or_else(|_| path.clone());
        found.push(MountFile { namespace: stem.to_owned(), path, real_path, display_path });
    }
    found.sort_by(|a, b| a.namespace.as_bytes().cmp(b.namespace.as_bytes()).then(a.display_path.cmp(&b.display_path)));
    let mut kept = Vec::new();
    for group in found.chunk_by(|a, b| a.namespace == b.namespace) {
        if let [only] = group {
            kept.push(only.clone());
        } else {
            diagnostics.push(duplicate_namespace(group));
        }
    }
    (kept, diagnostics)
}

/// What is wrong with `namespace`, if anything: `[A-Za-z0-9][A-Za-z0-9_-]*` without `__`.
pub fn namespace_problem(namespace: &str) -> Option<&'static str> {
    let mut chars = namespace.chars();
    if !chars.next().is_some_and(|first| first.is_ascii_alphanumeric()) {
        return Some("it must start with a letter or a digit");
    }
    if !namespace.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Some("it may hold only letters, digits, `_` and `-`");
    }
    if namespace.contains("__") {
        return Some("`__` separates the namespace from a hook's name (`<ns>__<name>`)");
    }
    None
}

fn invalid_namespace(namespace: &str, display_path: &str, problem: &str) -> Diagnostic {
    let suggestion: String = namespace
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect::<String>()
        .split("__")
        .collect::<Vec<_>>()
        .join("_");
    let suggestion = suggestion.trim_start_matches(['_', '-']);
    let help = if suggestion.is_empty() {
        "rename the file: its name without the extension is the namespace of its hooks".to_owned()
    } else {
        format!("rename the file, e.g. to `{}`", display_path.replacen(namespace, suggestion, 1))
    };
    Diagnostic::new(
        Code::InvalidNamespace,
        format!("`{namespace}` is not a valid extension namespace: {problem}; this mount was not loaded"),
        help,
    )
    .with_path(display_path)
}

fn duplicate_namespace(group: &[MountFile]) -> Diagnostic {
    let paths: Vec<String> = group.iter().map(|mount| format!("`{}`", mount.display_path)).collect();
    Diagnostic::new(
        Code::DuplicateNamespace,
        format!(
            "namespace `{}` is used by {} mount files: {}; none of them was loaded",
            group[0].namespace,
            group.len(),
            and_list(&paths)
        ),
        "a mount's namespace is its file name without the extension, so keep one of these files and delete or rename the others",
    )
    .with_path(&group[0].display_path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_letters_digits_underscores_and_dashes_without_a_double_underscore() {
        for good in ["ci", "ci-triage", "ci_2", "2fa", "A"] {
            assert_eq!(namespace_problem(good), None, "{good}");
        }
        for bad in ["ci__x", "_ci", "-ci", "c i", "ci.x", "é"] {
            assert!(namespace_problem(bad).is_some(), "{bad}");
        }
    }
}
