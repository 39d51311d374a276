//! Finding the project's tests: `*.test.*` and `*.spec.*` modules (TypeScript or
//! JavaScript) under the source folder and the project's root `test/` and `tests/` folders,
//! the files hook discovery (and hosting) skips on purpose, and every module in a
//! `__tests__` folder outside the hooks folder (Jest's convention; inside it, hosting loads
//! any other module as a hook, and `validate` says so); PATTERN arguments narrow them down,
//! or name a file to run.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::project::Project;

/// The extensions a test file may have: what the loader runs.
const EXTENSIONS: [&str; 6] = ["ts", "mts", "cts", "js", "mjs", "cjs"];

/// Whether the test module at `path` imports vitest (`vitest`, `vitest/…`, `@vitest/…`): its
/// `describe`/`it` need vitest's own runner, so Node's would only fail it ("Vitest failed to
/// find the current suite"). Read statically (its top-level `import`s); a file that cannot
/// be read or parsed is left to the run, which says why.
pub fn imports_vitest(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    // Most test files never mention it: no parse for them.
    if !text.contains("vitest") {
        return false;
    }
    let shown = path.to_string_lossy();
    let parsed = crate::check::analyze::parse_then(&shown, &text, |_, _, program| {
        program.body.iter().any(|statement| match statement {
            oxc::ast::ast::Statement::ImportDeclaration(import) => is_vitest(import.source.value.as_str()),
            _ => false,
        })
    });
    parsed.unwrap_or(false)
}

fn is_vitest(specifier: &str) -> bool {
    specifier == "vitest" || specifier.starts_with("vitest/") || specifier.starts_with("@vitest/")
}

/// One test file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFile {
    /// As found, under `--dir`.
    pub path: PathBuf,
    /// Relative to `--dir`, with `/`: what PATTERN is matched against and what Node is given.
    pub shown: String,
}

/// The folders tests are looked for in: the source folder, then the project's root
/// `test/` and `tests/` folders when it has them.
pub fn folders(project: &Project) -> Vec<PathBuf> {
    let root = ["test", "tests"].into_iter().map(|name| project.dir.join(name)).filter(|dir| dir.is_dir());
    std::iter::once(project.source_dir()).chain(root).collect()
}

/// How [`folders`] are named in messages: `bot/, test/`.
pub fn folders_shown(project: &Project) -> String {
    let names: Vec<String> = folders(project)
        .iter()
        .filter_map(|dir| shown_path(&project.dir, dir))
        .map(|name| format!("{name}/"))
        .collect();
    names.join(", ")
}

/// Every test file in the project's [`folders`], in byte order of their paths.
/// Dot-folders (the state root among them) and `node_modules` are not entered.
pub fn find(project: &Project) -> Vec<TestFile> {
    let mut files: Vec<TestFile> = folders(project).iter().flat_map(|folder| find_in(project, folder)).collect();
    files.sort_by(|a, b| a.shown.cmp(&b.shown));
    files.dedup_by(|a, b| a.shown == b.shown);
    files
}

fn find_in(project: &Project, folder: &Path) -> Vec<TestFile> {
    let walk = walkdir::WalkDir::new(folder).follow_links(true).into_iter().filter_entry(|entry| {
        let name = entry.file_name().to_string_lossy();
        entry.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
    });
    let hooks_dir = project.hooks_dir();
    let in_tests_folder = |path: &Path| {
        !path.starts_with(&hooks_dir)
            && path
                .strip_prefix(folder)
                .is_ok_and(|inside| inside.components().any(|part| part.as_os_str() == "__tests__"))
    };
    walk.flatten()
        .filter(|entry| {
            entry.file_type().is_file()
                && is_test_file(&entry.file_name().to_string_lossy(), in_tests_folder(entry.path()))
        })
        .filter_map(|entry| {
            let shown = shown_path(&project.dir, entry.path())?;
            Some(TestFile { path: entry.into_path(), shown })
        })
        .collect()
}

/// `usage.test.ts`, `usage.spec.mjs`, or any module (but a declaration file) in a
/// `__tests__` folder: a test module the loader can run.
fn is_test_file(file_name: &str, in_tests_folder: bool) -> bool {
    let Some((stem, extension)) = file_name.rsplit_once('.') else { return false };
    let is_declaration = extension.ends_with("ts") && stem.ends_with(".d");
    EXTENSIONS.contains(&extension)
        && !stem.is_empty()
        && (stem.ends_with(".test") || stem.ends_with(".spec") || (in_tests_folder && !is_declaration))
}

fn shown_path(dir: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(dir).ok()?;
    let parts: Option<Vec<&str>> = relative.components().map(|part| part.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// The PATTERN arguments: the path of a file in the project (that file runs, whatever its
/// name or folder), or a glob over a test file's path relative to `--dir`
/// (`bot/hooks/*.test.ts`; `*` stays within a folder, `**` crosses them), or over its file
/// name when the glob has no `/` (`usage*`).
pub struct Patterns {
    /// Each glob as given, matched against the path (`true`) or the file name.
    globs: Vec<(String, GlobMatcher, bool)>,
    /// The files named by their path.
    named: Vec<TestFile>,
}

impl Patterns {
    /// `None` when no pattern was given (every test runs). An error names a glob that is not
    /// one, or a named file outside the project or that no loader runs.
    pub fn new(patterns: &[String], project: &Project) -> anyhow::Result<Option<Self>> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let mut globs = Vec::new();
        let mut named = Vec::new();
        for pattern in patterns {
            if let Some(file) = named_file(pattern, project)? {
                named.push(file);
                continue;
            }
            let glob = pattern.strip_prefix("./").unwrap_or(pattern);
            let matcher = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|error| anyhow::anyhow!("`{pattern}` is not a valid glob: {}", error.kind()))?
                .compile_matcher();
            globs.push((pattern.clone(), matcher, glob.contains('/')));
        }
        Ok(Some(Self { globs, named }))
    }

    /// The tests to run: those of `found` a glob matches, and the named files, in byte order
    /// of their paths; and each glob that matches none of `found`.
    pub fn select(&self, found: &[TestFile]) -> (Vec<TestFile>, Vec<String>) {
        let matches = |(_, glob, by_path): &(String, GlobMatcher, bool), file: &TestFile| {
            let name = file.shown.rsplit('/').next().unwrap_or(&file.shown);
            glob.is_match(if *by_path { file.shown.as_str() } else { name })
        };
        let mut selected: Vec<TestFile> =
            found.iter().filter(|file| self.globs.iter().any(|glob| matches(glob, file))).cloned().collect();
        selected.extend(self.named.iter().cloned());
        selected.sort_by(|a, b| a.shown.cmp(&b.shown));
        selected.dedup_by(|a, b| a.shown == b.shown);
        let unmatched = self
            .globs
            .iter()
            .filter(|glob| !found.iter().any(|file| matches(glob, file)))
            .map(|(given, ..)| given.clone());
        (selected, unmatched.collect())
    }
}

/// `pattern` as the path of an existing file (from the current folder, else from `--dir`):
/// that file, when it is in the project and a module the loader runs.
fn named_file(pattern: &str, project: &Project) -> anyhow::Result<Option<TestFile>> {
    let Some(path) = [PathBuf::from(pattern), project.dir.join(pattern)].into_iter().find(|path| path.is_file()) else {
        return Ok(None);
    };
    let real = path.canonicalize().unwrap_or(path);
    let Some(shown) = shown_path(&project.canonical_dir, &real) else {
        anyhow::bail!(
            "`{pattern}` is outside the project ({}): only its own files can be tested",
            project.dir.display()
        );
    };
    let extension = real.extension().and_then(|extension| extension.to_str()).unwrap_or_default();
    if !EXTENSIONS.contains(&extension) {
        let list = EXTENSIONS.map(|extension| format!(".{extension}")).join(", ");
        anyhow::bail!("`{pattern}` is not a module the tests can run ({list})");
    }
    Ok(Some(TestFile { path: real, shown }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(shown: &str) -> TestFile {
        TestFile { path: PathBuf::from(shown), shown: shown.to_owned() }
    }

    #[test]
    fn test_and_spec_modules_are_tests() {
        assert!(is_test_file("usage.test.ts", false));
        assert!(is_test_file("usage.spec.mjs", false));
        assert!(is_test_file("usage.test.cts", false));
        assert!(!is_test_file("usage.ts", false));
        assert!(!is_test_file("usage.test.tsx", false));
        assert!(!is_test_file("usage.test.json", false));
        assert!(!is_test_file("test.ts", false));
        // Jest's `__tests__` folders: every module in them is a test.
        assert!(is_test_file("usage.ts", true));
        assert!(is_test_file("usage.test.ts", true));
        assert!(!is_test_file("types.d.ts", true));
        assert!(!is_test_file("notes.md", true));
        assert!(!is_test_file(".ts", true));
    }

    #[test]
    fn globs_match_paths_or_file_names_and_say_which_matched_nothing() {
        let project = crate::project::locate(Path::new("fixtures/test/results")).unwrap().project.unwrap();
        let patterns = |globs: &[&str]| {
            let globs: Vec<String> = globs.iter().map(|glob| (*glob).to_owned()).collect();
            Patterns::new(&globs, &project).unwrap().unwrap()
        };
        let nested = [file("bot/hooks/audit/usage.test.ts")];
        let selected = |globs: &[&str]| patterns(globs).select(&nested);
        assert_eq!(selected(&["usage*"]), (nested.to_vec(), vec![]));
        assert_eq!(selected(&["bot/**/*.test.ts"]).0, nested);
        assert_eq!(selected(&["./bot/hooks/audit/usage.test.ts"]).0, nested);
        assert_eq!(selected(&["bot/hooks/*.test.ts"]), (vec![], vec!["bot/hooks/*.test.ts".to_owned()]));
        assert_eq!(selected(&["usage*", "paging*"]), (nested.to_vec(), vec!["paging*".to_owned()]));
        assert!(Patterns::new(&["bot/[".to_owned()], &project).is_err());
        assert!(Patterns::new(&[], &project).unwrap().is_none());
    }
}
