//! What a test run's results say, read back from Node: the tests that ran and each failed
//! test, written by agent-sdk's own reporter (`node/test-results.mjs`) to a file of the
//! runtime's while the run lasts (see `RunnerOptions::wants_results`). They make `--reporter github`'s annotations,
//! and tell a file that declares no test, or a `--test-name-pattern` that matched nothing,
//! from a green run.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

use crate::report::FailedTest;
use crate::session::SessionSetup;

/// The one JSON line `test-results.mjs` writes.
#[derive(Debug, Deserialize)]
pub struct TestResults {
    /// The tests that ran: neither skipped (the name pattern leaves a test out as skipped
    /// on Node 20) nor todo.
    pub ran: u64,
    pub failed: Vec<FailedOnNode>,
    /// The files that passed without a test of their own (absolute): no pass.
    #[serde(default)]
    pub empty: Vec<PathBuf>,
}

/// A failed test as Node said it.
#[derive(Debug, Deserialize)]
pub struct FailedOnNode {
    /// Absolute: Node's working directory is the project.
    file: Option<PathBuf>,
    line: Option<u32>,
    column: Option<u32>,
    test: String,
    message: String,
}

impl TestResults {
    /// The failed tests, their files relative to the project at `root` (its canonical path,
    /// Node's working directory).
    pub fn failed_tests(&self, root: &Path) -> Vec<FailedTest> {
        self.failed.iter().map(|failed| failed.as_failed_test(root)).collect()
    }
}

impl FailedOnNode {
    fn as_failed_test(&self, root: &Path) -> FailedTest {
        let path = self.file.as_deref().map(|file| file.strip_prefix(root).unwrap_or(file));
        let mut failed = FailedTest {
            path: path.map(|path| path.to_string_lossy().into_owned()),
            line: self.line,
            column: self.column,
            name: self.test.clone(),
            message: self.message.clone(),
        };
        // A file that failed outside its tests (it threw as it loaded) is named after
        // itself (absolute on Node 20), and Node only knows that its process failed.
        let is_the_file = self.file.as_ref().is_some_and(|file| Path::new(&self.test) == file)
            || failed.path.as_deref() == Some(self.test.as_str());
        if is_the_file {
            failed.name = failed.path.clone().unwrap_or_default();
            failed.message = "the test file failed outside its tests; its output in the log says why".to_owned();
        }
        failed
    }
}

/// Where one run's results are written, in the state root's `tests/` while the run lasts.
pub struct ResultsFile(PathBuf);

impl ResultsFile {
    pub fn new(setup: &SessionSetup) -> anyhow::Result<Self> {
        let path = setup.state_root.path().join("tests").join(format!("results-{}.json", std::process::id()));
        if let Some(parent) = path.parent() {
            crate::fs::create_private_dir_all(parent).context("could not make a place for the tests' results")?;
        }
        let _ = std::fs::remove_file(&path);
        Ok(Self(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// What the reporter wrote; `None` when it wrote nothing whole (Node ended before its
    /// reporters did, or was stopped).
    pub fn read(&self) -> Option<TestResults> {
        let text = std::fs::read_to_string(&self.0).ok()?;
        serde_json::from_str(text.lines().last()?).ok()
    }
}

impl Drop for ResultsFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(file: &str, test: &str) -> FailedOnNode {
        let file = Some(PathBuf::from(file));
        FailedOnNode { file, line: Some(1), column: Some(1), test: test.to_owned(), message: "test failed".to_owned() }
    }

    #[test]
    fn a_test_is_named_by_its_name_and_its_file_from_the_project() {
        let test = failed("/p/bot/hooks/a.test.ts", "billing > refunds").as_failed_test(Path::new("/p"));
        assert_eq!(test.path.as_deref(), Some("bot/hooks/a.test.ts"));
        assert_eq!((test.name.as_str(), test.message.as_str()), ("billing > refunds", "test failed"));
    }

    #[test]
    fn a_file_that_failed_outside_its_tests_is_named_as_such() {
        // Node 20 names it by its absolute path, Node 22 and later by the one it was given.
        for name in ["/p/bot/hooks/a.test.ts", "bot/hooks/a.test.ts"] {
            let test = failed("/p/bot/hooks/a.test.ts", name).as_failed_test(Path::new("/p"));
            assert_eq!(test.name, "bot/hooks/a.test.ts");
            assert_eq!(test.message, "the test file failed outside its tests; its output in the log says why");
        }
    }
}
