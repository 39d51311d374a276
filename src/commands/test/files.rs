//! Finding the project's tests: `*.test.*` and `*.spec.*` modules (TypeScript or
//! JavaScript) under the source folder, and every module in a `__tests__` folder (Jest's
//! convention), the files hook discovery skips on purpose; PATTERN globs narrow them down.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::project::Project;

/// The extensions a test file may have: what the loader runs.
const EXTENSIONS: [&str; 6] = ["ts", "mts", "cts", "js", "mjs", "cjs"];

/// One test file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFile {
    /// As found, under `--dir`.
    pub path: PathBuf,
    /// Relative to `--dir`, with `/`: what PATTERN is matched against and what Node is given.
    pub shown: String,
}

/// Every test file under the project's source folder, in byte order of their paths.
/// Dot-folders (the state root among them) and `node_modules` are not entered.
pub fn find(project: &Project) -> Vec<TestFile> {
    let source = project.source_dir();
    let walk = walkdir::WalkDir::new(&source).follow_links(true).into_iter().filter_entry(|entry| {
        let name = entry.file_name().to_string_lossy();
        entry.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
    });
    let in_tests_folder = |path: &Path| {
        path.strip_prefix(&source).is_ok_and(|inside| inside.components().any(|part| part.as_os_str() == "__tests__"))
    };
    let mut files: Vec<TestFile> = walk
        .flatten()
        .filter(|entry| {
            entry.file_type().is_file()
                && is_test_file(&entry.file_name().to_string_lossy(), in_tests_folder(entry.path()))
        })
        .filter_map(|entry| {
            let shown = shown_path(&project.dir, entry.path())?;
            Some(TestFile { path: entry.into_path(), shown })
        })
        .collect();
    files.sort_by(|a, b| a.shown.cmp(&b.shown));
    files
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

/// The PATTERN arguments: globs over a test file's path relative to `--dir`
/// (`bot/hooks/*.test.ts`; `*` stays within a folder, `**` crosses them), or over its
/// file name when the glob has no `/` (`usage*`).
pub struct Patterns {
    paths: GlobSet,
    names: GlobSet,
    /// As given, for messages.
    given: Vec<String>,
}

impl Patterns {
    /// `None` when no pattern was given (every test runs); an error names a glob that is not one.
    pub fn new(patterns: &[String]) -> anyhow::Result<Option<Self>> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let mut paths = GlobSetBuilder::new();
        let mut names = GlobSetBuilder::new();
        for pattern in patterns {
            let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .map_err(|error| anyhow::anyhow!("`{pattern}` is not a valid glob: {}", error.kind()))?;
            if pattern.contains('/') {
                paths.add(glob);
            } else {
                names.add(glob);
            }
        }
        Ok(Some(Self { paths: paths.build()?, names: names.build()?, given: patterns.to_vec() }))
    }

    /// `` `usage*`, `bot/**` ``.
    pub fn list(&self) -> String {
        self.given.iter().map(|glob| format!("`{glob}`")).collect::<Vec<_>>().join(", ")
    }

    pub fn matches(&self, file: &TestFile) -> bool {
        let name = file.shown.rsplit('/').next().unwrap_or(&file.shown);
        self.paths.is_match(&file.shown) || self.names.is_match(name)
    }
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
    fn patterns_match_paths_or_file_names() {
        let patterns = |globs: &[&str]| {
            Patterns::new(&globs.iter().map(|glob| (*glob).to_owned()).collect::<Vec<_>>()).unwrap().unwrap()
        };
        let nested = file("bot/hooks/audit/usage.test.ts");
        assert!(patterns(&["usage*"]).matches(&nested));
        assert!(patterns(&["bot/**/*.test.ts"]).matches(&nested));
        assert!(patterns(&["./bot/hooks/audit/usage.test.ts"]).matches(&nested));
        assert!(!patterns(&["bot/hooks/*.test.ts"]).matches(&nested));
        assert!(!patterns(&["paging*"]).matches(&nested));
        assert!(Patterns::new(&["bot/[".to_owned()]).is_err());
        assert!(Patterns::new(&[]).unwrap().is_none());
    }
}
