//! What `test` asks of Node's test runner besides the files, the same for every run: the
//! reports, the test name patterns, coverage and the arguments after `--`; and what is
//! made of a run's results once Node is done (annotations, a pattern no test matched).

use std::ffi::OsString;
use std::path::Path;

use super::coverage;
use super::reporters::{Destination, Reports};
use super::results::TestResults;
use crate::cli::TestArgs;
use crate::printer::Printer;
use crate::report::ProjectDir;
use crate::runtime::node_version::NodeVersion;

/// The test runner's options, from `test`'s flags.
pub struct RunnerOptions<'a> {
    reports: Reports,
    name_patterns: &'a [String],
    coverage: bool,
    /// The arguments after `--`, for Node as they are.
    after_dashes: &'a [String],
}

impl<'a> RunnerOptions<'a> {
    /// The options `args` ask for (a usage error when the reporters do not pair up); a
    /// relative reporter destination is in `cwd`.
    pub fn new(args: &'a TestArgs, cwd: &Path) -> anyhow::Result<Self> {
        let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|value| value == "true");
        Ok(Self {
            reports: Reports::choose(args, github_actions, cwd)?,
            name_patterns: &args.test_name_pattern,
            coverage: args.coverage,
            after_dashes: &args.node_args,
        })
    }

    /// Whether a run needs its results back from Node (`test-results.mjs`): for the
    /// annotations, to tell a name pattern that matched nothing from a green run, and, with
    /// at most one reporter of Node's (the default `spec`), a file that declares no test.
    /// Beside two or more, one more reporter takes Node past its limit of listeners on its
    /// results stream, and it warns (`MaxListenersExceededWarning`) on every run.
    pub fn wants_results(&self) -> bool {
        !self.reports.github().is_empty() || !self.name_patterns.is_empty() || self.reports.node_reporters() <= 1
    }

    /// Node's arguments, between `--test` and the files (`files`, relative to the project;
    /// `own_folders`, agent-sdk's, as [`coverage::node_args`] takes them); `results`: agent-sdk's reporter and the file it writes. A
    /// reporter `version` does not have is exit 2.
    pub fn node_args(
        &self,
        version: NodeVersion,
        files: &[&str],
        own_folders: &[String],
        results: Option<(&Path, &Path)>,
    ) -> anyhow::Result<Vec<OsString>> {
        self.reports.check(version)?;
        let mut args = self.reports.node_args(results);
        args.extend(self.name_patterns.iter().map(|pattern| OsString::from(format!("--test-name-pattern={pattern}"))));
        if self.coverage {
            args.extend(coverage::node_args(version, files, own_folders).into_iter().map(OsString::from));
        }
        args.extend(self.after_dashes.iter().map(OsString::from));
        Ok(args)
    }

    /// What to say before the first run: what this Node's coverage gets wrong, and that
    /// no chosen reporter shows it.
    pub fn notes(&self, version: NodeVersion) -> Vec<String> {
        if !self.coverage {
            return Vec::new();
        }
        let mut notes = coverage::notes(version);
        if !self.reports.shows_coverage() {
            notes.push("note: --coverage: only the spec, tap and lcov reporters report it".to_owned());
        }
        notes
    }

    /// Makes the folders of the files the reports go to (Node does not).
    pub fn make_folders(&self) -> anyhow::Result<()> {
        self.reports.make_folders()
    }

    /// Whether the run passed, once its results are in: the annotations written, and a
    /// run where the name patterns matched no test failed (never green on nothing).
    pub fn settle(
        &self,
        passed: bool,
        results: Option<TestResults>,
        root: &Path,
        dir: &ProjectDir,
        printer: &Printer,
    ) -> anyhow::Result<bool> {
        let Some(results) = results else { return Ok(passed) };
        if !self.reports.github().is_empty() {
            let annotations = crate::report::render_failed_tests(&results.failed_tests(root), dir);
            for destination in self.reports.github() {
                write_to(destination, &annotations, printer)?;
            }
        }
        // (With a name pattern, a file none of whose tests it matches is reported so too.)
        if passed && !results.empty.is_empty() && self.name_patterns.is_empty() {
            let files: Vec<String> = results
                .empty
                .iter()
                .map(|file| format!("`{}`", dir.file(&file.strip_prefix(root).unwrap_or(file).to_string_lossy())))
                .collect();
            let (verb, which) = if files.len() == 1 { ("declares", "it") } else { ("declare", "each") };
            printer.stderr(&format!(
                "error: {} {verb} no test, so {which} tested nothing: a test file passes when its tests do (`test(…)` from node:test, or the kit's)\n",
                crate::check::discover::and_list(&files)
            ));
            return Ok(false);
        }
        if passed && results.ran == 0 && !self.name_patterns.is_empty() {
            let patterns: Vec<String> = self.name_patterns.iter().map(|pattern| format!("`{pattern}`")).collect();
            printer.stderr(&format!(
                "error: no test's name matches --test-name-pattern {}, so no test ran\n",
                patterns.join(" or ")
            ));
            return Ok(false);
        }
        Ok(passed)
    }
}

fn write_to(destination: &Destination, text: &str, printer: &Printer) -> anyhow::Result<()> {
    match destination {
        Destination::Stdout => printer.stdout(text)?,
        Destination::Stderr => printer.stderr(text),
        Destination::File(path) => std::fs::write(path, text)
            .map_err(|error| anyhow::anyhow!("could not write the annotations to `{}`: {error}", path.display()))?,
    }
    Ok(())
}
