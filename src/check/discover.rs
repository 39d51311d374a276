//! Hook discovery (SPEC §3.1–3.5, 3.11): every module under `<src>/hooks/` but tests, named
//! by its path, in byte order of names. Links are followed only while they stay in the project.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::config::Config;
use crate::diagnostics::{Code, Diagnostic};
use crate::project::Project;

/// File extensions of hook modules.
pub const MODULE_EXTENSIONS: [&str; 6] = ["ts", "mts", "cts", "js", "mjs", "cjs"];

/// One hook module found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookModule {
    /// The hook's name: its path under `hooks/` without the extension, with `/`.
    pub name: String,
    /// Where to read it.
    pub path: PathBuf,
    /// The same file with every link resolved: the path Node knows it by.
    pub real_path: PathBuf,
    /// Its path relative to `--dir`, with `/`: what diagnostics and `info` show.
    pub display_path: String,
}

/// Every hook module, in discovery order, and what was wrong with the tree itself.
#[derive(Debug, Default)]
pub struct Discovery {
    pub modules: Vec<HookModule>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What a file name under `hooks/` is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FileKind<'n> {
    /// A hook module; the name without its extension.
    Module(&'n str),
    /// A test, spec or declaration file: skipped on purpose.
    Skipped,
    /// A `.tsx` or `.jsx` file: it looks like a hook but is never loaded.
    Jsx,
    /// Not a module at all.
    Other,
}

pub(crate) fn file_kind(file_name: &str) -> FileKind<'_> {
    let Some((stem, extension)) = file_name.rsplit_once('.') else {
        return FileKind::Other;
    };
    if !stem.is_empty() && matches!(extension, "tsx" | "jsx") {
        let is_test = stem.ends_with(".test") || stem.ends_with(".spec");
        return if is_test { FileKind::Skipped } else { FileKind::Jsx };
    }
    if stem.is_empty() || !MODULE_EXTENSIONS.contains(&extension) {
        return FileKind::Other;
    }
    let is_declaration = extension.ends_with("ts") && stem.ends_with(".d");
    if is_declaration || stem.ends_with(".test") || stem.ends_with(".spec") {
        return FileKind::Skipped;
    }
    FileKind::Module(stem)
}

/// The folders Jest and Vitest keep tests and mocks in, beside the code they test. Hosting
/// skips only test files (`*.test.*`, `*.spec.*`), so under `hooks/` every other module in
/// them (a helper, a manual mock, a test not named as one) is a hook to it, named
/// `__tests__/…`, which it refuses (`__`): discovery reports them so.
pub const TEST_FOLDERS: [&str; 2] = ["__tests__", "__mocks__"];

/// Whether the walk never enters or reads this entry: dot-files, dot-folders and
/// `node_modules`.
fn is_ignored(file_name: &str) -> bool {
    file_name.starts_with('.') || file_name == "node_modules"
}

/// Finds every hook module of `project`, in discovery order (byte order of names).
/// Paths the project's settings ignore (`"ignore"` in agent-sdk.json) are skipped as if
/// they were not there.
pub fn discover(project: &Project, config: &Config) -> Discovery {
    let hooks_dir = project.hooks_dir();
    let mut discovery = Discovery::default();
    if !hooks_dir.exists() && hooks_dir.symlink_metadata().is_err() {
        return discovery;
    }
    let display = |path: &Path| display_path(project, &hooks_dir, path);

    // Resolved once; a module's real path is this plus its relative path unless a link
    // leads to it (then it is resolved on its own), which saves a readlink per folder per file.
    let real_hooks_dir = hooks_dir.canonicalize().unwrap_or_else(|_| hooks_dir.clone());
    let mut linked_folders: Vec<PathBuf> = Vec::new();
    // What the settings' `ignore` skipped, and whether it is a folder.
    let mut settings_left_out: Vec<(PathBuf, bool)> = Vec::new();
    let mut walk = WalkDir::new(&hooks_dir).follow_links(true).into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                discovery.diagnostics.extend(walk_error(&error, &display));
                continue;
            }
        };
        let is_dir = entry.file_type().is_dir();
        let Some(file_name) = entry.file_name().to_str() else {
            discovery.diagnostics.push(non_utf8_name(&display(entry.path())));
            if is_dir {
                walk.skip_current_dir();
            }
            continue;
        };
        let ignored = entry.depth() > 0 && is_ignored(file_name);
        let left_out = entry.depth() > 0 && config.ignore.is_some() && config.ignores(&display(entry.path()));
        if ignored || left_out {
            if left_out && !ignored {
                settings_left_out.push((entry.path().to_path_buf(), is_dir));
            }
            if is_dir {
                walk.skip_current_dir();
            }
            continue;
        }
        if entry.path_is_symlink()
            && let Some(diagnostic) = link_outside(project, entry.path(), &display)
        {
            discovery.diagnostics.push(diagnostic);
            if is_dir {
                walk.skip_current_dir();
            }
            continue;
        }
        if is_dir {
            if entry.path_is_symlink() {
                linked_folders.push(entry.path().to_path_buf());
            }
            continue;
        }
        let stem = match file_kind(file_name) {
            FileKind::Module(stem) => stem,
            FileKind::Jsx => {
                discovery.diagnostics.push(jsx_module(&display(entry.path())));
                continue;
            }
            FileKind::Skipped | FileKind::Other => continue,
        };
        let Some(name) = hook_name(&hooks_dir, entry.path(), stem) else {
            discovery.diagnostics.push(non_utf8_name(&display(entry.path())));
            continue;
        };
        let through_link =
            entry.path_is_symlink() || linked_folders.iter().any(|folder| entry.path().starts_with(folder));
        let real_path = match entry.path().strip_prefix(&hooks_dir) {
            Ok(relative) if !through_link => real_hooks_dir.join(relative),
            _ => entry.path().canonicalize().unwrap_or_else(|_| entry.path().to_path_buf()),
        };
        discovery.modules.push(HookModule {
            name,
            path: entry.path().to_path_buf(),
            real_path,
            display_path: display(entry.path()),
        });
    }

    discovery
        .modules
        .sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()).then_with(|| a.display_path.cmp(&b.display_path)));
    discovery
        .diagnostics
        .extend(discovery.modules.iter().filter(|module| module.name.contains("__")).map(reserved_name));
    discovery.diagnostics.extend(duplicate_names(&discovery.modules));
    if discovery.modules.is_empty() {
        let left_out: usize = settings_left_out.iter().map(|(path, is_dir)| modules_in(path, *is_dir)).sum();
        if left_out > 0 {
            discovery.diagnostics.push(ignores_every_hook(project, config, left_out));
        }
    }
    discovery
}

/// How many hook modules the entry at `path` is (a file) or holds (a folder), as the walk
/// would have found them.
fn modules_in(path: &Path, is_dir: bool) -> usize {
    let is_module =
        |name: &std::ffi::OsStr| name.to_str().is_some_and(|name| matches!(file_kind(name), FileKind::Module(_)));
    if !is_dir {
        return usize::from(path.file_name().is_some_and(is_module));
    }
    WalkDir::new(path)
        .follow_links(true)
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || entry.file_name().to_str().is_some_and(|name| !is_ignored(name)))
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file() && is_module(entry.file_name()))
        .count()
}

/// The settings' `ignore` left out all `count` hook modules, so no hook is checked or
/// loaded: said at the `ignore` of the settings file, which may be in a folder above.
fn ignores_every_hook(project: &Project, config: &Config, count: usize) -> Diagnostic {
    let modules = if count == 1 { "the one hook module".to_owned() } else { format!("all {count} hook modules") };
    let message = format!(
        "`ignore` leaves out every hook under `{}/` ({modules}), so no hook is checked or loaded",
        project.hooks_prefix()
    );
    let help = "narrow the patterns to what discovery should skip, e.g. \"bot/hooks/wip/**\" (they are matched against the path from the project folder, `bot/hooks/wip/draft.ts`)";
    match (&config.source, config.ignore_at) {
        (Some(source), Some(span)) => crate::diagnostics::SourceFile::new(&source.display_path, &source.text)
            .diagnostic(Code::IgnoresEveryHook, span, "leaves out every hook", message, help),
        _ => Diagnostic::new(Code::IgnoresEveryHook, message, help),
    }
}

/// `hooks/audit/usage.ts` → `audit/usage`, with `/` on every OS.
fn hook_name(hooks_dir: &Path, path: &Path, stem: &str) -> Option<String> {
    let relative = path.strip_prefix(hooks_dir).ok()?;
    let mut name = String::new();
    if let Some(parent) = relative.parent() {
        for component in parent.components() {
            name.push_str(component.as_os_str().to_str()?);
            name.push('/');
        }
    }
    name.push_str(stem);
    Some(name)
}

/// `path` relative to `--dir`, with `/`.
fn display_path(project: &Project, hooks_dir: &Path, path: &Path) -> String {
    let mut display = project.hooks_prefix();
    if let Ok(relative) = path.strip_prefix(hooks_dir) {
        for component in relative.components() {
            display.push('/');
            display.push_str(&component.as_os_str().to_string_lossy());
        }
    }
    display
}

/// The modules that share a name with another, as one diagnostic per name.
fn duplicate_names(modules: &[HookModule]) -> Vec<Diagnostic> {
    modules
        .chunk_by(|a, b| a.name == b.name)
        .filter(|group| group.len() > 1)
        .map(|group| {
            let paths: Vec<String> = group.iter().map(|module| format!("`{}`", module.display_path)).collect();
            Diagnostic::new(
                Code::DuplicateName,
                format!("hook name `{}` is used by {} modules: {}", group[0].name, group.len(), and_list(&paths)),
                "a hook's name is its path without the extension, so keep one of these modules and delete or rename the others",
            )
            .with_path(&group[0].display_path)
        })
        .collect()
}

/// `a`, `b and c`: a list in words.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn reserved_name(module: &HookModule) -> Diagnostic {
    if let Some(folder) = module.name.split('/').find(|part| TEST_FOLDERS.contains(part)) {
        return in_test_folder(module, folder);
    }
    Diagnostic::new(
        Code::ReservedName,
        format!(
            "hook name `{}` contains `__`, which is reserved for hooks mounted by extensions (`<ns>__<name>`)",
            module.name
        ),
        format!("rename the file so its name has no `__`, e.g. `{}`", module.display_path.replace("__", "_")),
    )
    .with_path(&module.display_path)
}

/// A module in a `__tests__` or `__mocks__` folder that is not a test file: hosting loads it
/// as a hook, and refuses its name.
fn in_test_folder(module: &HookModule, folder: &str) -> Diagnostic {
    let file = module.display_path.rsplit('/').next().unwrap_or(&module.display_path);
    let test_name = match file.rsplit_once('.') {
        Some((stem, extension)) => format!("{stem}.test.{extension}"),
        None => format!("{file}.test.ts"),
    };
    Diagnostic::new(
        Code::ReservedName,
        format!(
            "is in a `{folder}` folder but is not a test file (`*.test.*`, `*.spec.*`), so hosting loads it as a hook named `{}` and refuses the name (`__` is reserved for extensions)",
            module.name
        ),
        format!(
            "if it is a test, name it `{test_name}`; if it is a helper, a mock or a hook, move it out of the hooks folder (everything there but test files is loaded as a hook)"
        ),
    )
    .with_path(&module.display_path)
}

fn jsx_module(display: &str) -> Diagnostic {
    Diagnostic::new(
        Code::NotAHookModule,
        "is a `.tsx`/`.jsx` file, so it is not loaded as a hook",
        "hooks are `.ts`, `.mts`, `.cts`, `.js`, `.mjs` or `.cjs` modules without JSX: rename it (and drop the JSX), or move it out of `hooks/` if it is not a hook",
    )
    .with_path(display)
}

fn non_utf8_name(display: &str) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        "its file name is not valid UTF-8, so it cannot be named as a hook",
        "rename it using UTF-8 characters",
    )
    .with_path(display)
}

/// A diagnostic when the link at `path` resolves outside the project.
fn link_outside(project: &Project, path: &Path, display: &impl Fn(&Path) -> String) -> Option<Diagnostic> {
    let target = path.canonicalize().ok()?;
    if target.starts_with(&project.canonical_dir) {
        return None;
    }
    let written =
        std::fs::read_link(path).map_or_else(|_| target.display().to_string(), |link| link.display().to_string());
    let display = display(path);
    Some(
        Diagnostic::new(
            Code::LinkOutsideProject,
            format!("is a symbolic link to `{written}`, which is outside the project; it was not checked"),
            "hooks must live inside the project so they deploy with it: copy the file in instead of linking to it",
        )
        .with_path(display),
    )
}

/// A diagnostic for an entry the walk could not read; `None` for files that are not modules anyway.
fn walk_error(error: &walkdir::Error, display: &impl Fn(&Path) -> String) -> Option<Diagnostic> {
    let path = error.path()?;
    let shown = display(path);
    if let Some(ancestor) = error.loop_ancestor() {
        return Some(
            Diagnostic::new(
                Code::SymlinkLoop,
                format!("is a symbolic link to its own parent folder `{}`; it was not followed", display(ancestor)),
                "remove the link; everything under the folder it points at is already checked",
            )
            .with_path(shown),
        );
    }
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    if file_kind(name) != FileKind::Other || !name.contains('.') {
        let reason = error.io_error().map_or_else(|| error.to_string(), crate::text::io_error::describe);
        return Some(
            Diagnostic::new(
                Code::Unreadable,
                format!("cannot be read: {reason}"),
                "make sure the path exists and is readable by this user (a broken link is reported here too)",
            )
            .with_path(shown),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_and_mock_folders_are_not_entered_but_files_of_their_names_are_read() {
        assert!(!is_ignored("__tests__") && !is_ignored("__mocks__"));
        assert!(is_ignored("node_modules") && is_ignored(".cache") && is_ignored(".x.ts"));
        assert!(!is_ignored("tests") && !is_ignored("audit"));
    }

    #[test]
    fn classifies_file_names() {
        assert_eq!(file_kind("usage.ts"), FileKind::Module("usage"));
        assert_eq!(file_kind("usage.cjs"), FileKind::Module("usage"));
        assert_eq!(file_kind("my hook.mts"), FileKind::Module("my hook"));
        assert_eq!(file_kind("usage.test.ts"), FileKind::Skipped);
        assert_eq!(file_kind("usage.spec.mjs"), FileKind::Skipped);
        assert_eq!(file_kind("types.d.ts"), FileKind::Skipped);
        assert_eq!(file_kind("types.d.cts"), FileKind::Skipped);
        assert_eq!(file_kind("types.d.js"), FileKind::Module("types.d"));
        assert_eq!(file_kind("README.md"), FileKind::Other);
        assert_eq!(file_kind("usage.tsx"), FileKind::Jsx);
        assert_eq!(file_kind("usage.jsx"), FileKind::Jsx);
        assert_eq!(file_kind("usage.test.tsx"), FileKind::Skipped);
        assert_eq!(file_kind(".ts"), FileKind::Other);
        assert_eq!(file_kind("Makefile"), FileKind::Other);
    }
}
