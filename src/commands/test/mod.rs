//! `agent-sdk test`: the hooks' tests, run by Node's built-in test runner through the
//! loader `run` uses.
//!
//! ```text
//!   files::find ─▶ PATTERN ─▶ graph::walk_files (compile, resolve) ─▶ diagnostics (as validate)
//!                                     │
//!                                     └─▶ manifest ─▶ node --import test-setup.mjs --test <options> <files>
//!                                                          │ (reporters: spec… to their destinations;
//!                                                          │  test-results.mjs to a file)
//!                                                          └─▶ results ─▶ annotations, name patterns
//! ```
//!
//! A test file with errors (syntax, an import that leads nowhere) is reported and left
//! out; the others run. `--watch` polls the source folder and every module the tests
//! reach, and starts over on a change (stopping a run still going).

mod coverage;
mod files;
mod node;
mod options;
mod reporters;
mod results;

use std::cell::Cell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cli::TestArgs;
use crate::exit_status::ExitStatus;
use crate::loader::cache::Cache;
use crate::loader::graph;
use crate::loader::resolver::Resolver;
use crate::printer::Printer;
use crate::printer::plural;
use crate::project;
use crate::project::fingerprint::{Fingerprint, fingerprint};
use crate::report::{self, ProjectDir};
use crate::runtime::node_version::{NodeVersion, end_of_life_warning};
use crate::session::SessionSetup;
use crate::signals::{self, Stop};
use files::{Patterns, TestFile};
use node::{ManifestFile, TestRunner};
use options::RunnerOptions;
use results::ResultsFile;

/// How often a running test run is looked at (its end, Ctrl-C): its end is seen at most
/// this late, so it is short (one `waitpid` a look).
const RUNNING_TICK: Duration = Duration::from_millis(2);

/// How often `--watch`, waiting for a change, looks at Ctrl-C.
const TICK: Duration = Duration::from_millis(50);

/// How often `--watch` looks at the code.
const POLL: Duration = Duration::from_millis(250);

/// Runs the project's tests (those `args.patterns` match) once, or on every change with `--watch`.
pub fn test(args: &TestArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().context("could not read the current folder")?;
    let located = project::locate(&args.dir.dir)?;
    let Some(project) = located.project else {
        printer.stderr(&report::render_diagnostics(&located.diagnostics, &Default::default(), printer));
        printer.stderr("error: there is no agent here, so no test ran; see above\n");
        return Ok(ExitStatus::Failure);
    };
    let config = crate::config::find(&project.dir);
    if let Some(line) = report::settings::from_above(&config, &ProjectDir::for_files(&project.dir)) {
        printer.stderr(&line);
    }
    if !config.diagnostics.is_empty() {
        let sources = config.source.iter().map(|source| (source.display_path.clone(), source.text.clone())).collect();
        printer.stderr(&report::render_diagnostics(&config.diagnostics, &sources, printer));
    }
    if config.diagnostics.iter().any(|diagnostic| diagnostic.severity() == crate::diagnostics::Severity::Error) {
        printer.stderr("error: the settings file has errors, so no test ran; see above\n");
        return Ok(ExitStatus::Failure);
    }
    let args = &with_settings(args, &config.test);
    let options = RunnerOptions::new(args, &cwd)?;
    // The hook timeout is the runtime's; Node's test runner has its own (`{ timeout }` per test).
    let patterns = Patterns::new(&args.patterns, &project)?;
    let (setup, _env) = SessionSetup::prepare(project, args.env.files(), Duration::from_secs(30))?;
    let node = node::NodeCheck::start(&setup);
    let stopped = Arc::new(OnceLock::new());
    let first = Arc::clone(&stopped);
    // Node runs in a process group of its own (so a change can stop it with every test
    // process it started): Ctrl-C reaches agent-sdk only, which ends the run with that
    // group, and SIGTERM or SIGHUP do the same (each exits 128 + the signal).
    let _ = signals::on_stop(move |signal| {
        let _ = first.set(signal);
    });
    let dir = ProjectDir::for_files(&setup.project.dir);
    let tests = Tests {
        setup: &setup,
        node: &node,
        patterns: patterns.as_ref(),
        options: &options,
        dir: &dir,
        noted: Cell::new(false),
        printer,
        stopped: &stopped,
    };
    if args.watch { tests.watch() } else { tests.once() }
}

/// `args` with the settings file's `test` defaults where no flag was given: its env files
/// when no `--env-file` is, coverage when it or `--coverage` asks, its Node arguments
/// when none follow `--`.
fn with_settings(args: &TestArgs, settings: &crate::config::TestSettings) -> TestArgs {
    let mut args = args.clone();
    if args.env.env_file.is_empty() {
        args.env.env_file.clone_from(&settings.env_files);
    }
    args.coverage |= settings.coverage;
    if args.node_args.is_empty() {
        args.node_args.clone_from(&settings.node_args);
    }
    args
}

/// What a run of the tests needs.
struct Tests<'a> {
    setup: &'a SessionSetup,
    node: &'a node::NodeCheck,
    patterns: Option<&'a Patterns>,
    options: &'a RunnerOptions<'a>,
    /// The project as the annotations name its files.
    dir: &'a ProjectDir,
    /// Whether the notes about this Node's coverage were said (once, before the first run).
    noted: Cell<bool>,
    printer: &'a Printer,
    /// The first stopping signal (Ctrl-C, SIGTERM, SIGHUP), once one came.
    stopped: &'a OnceLock<Stop>,
}

/// How a round of tests ended.
enum Ended {
    Finished(ExitStatus),
    Interrupted,
    /// The code changed while the tests ran (`--watch`): they were stopped.
    Changed,
}

impl Tests<'_> {
    /// 128 + the signal that stopped the tests (130 for Ctrl-C).
    fn stopped_status(&self) -> ExitStatus {
        self.stopped.get().copied().unwrap_or(Stop::CTRL_C).exit_status()
    }

    fn once(&self) -> anyhow::Result<ExitStatus> {
        let (ended, _) = self.round(None)?;
        Ok(match ended {
            Ended::Finished(status) => status,
            Ended::Interrupted | Ended::Changed => self.stopped_status(),
        })
    }

    fn watch(&self) -> anyhow::Result<ExitStatus> {
        let project = &self.setup.project;
        let config = vec![project.dir.join("package.json"), project.dir.join("tsconfig.json")];
        let mut watched = Watched::new(project.source_dir(), config.clone());
        loop {
            let (ended, reached) = self.round(Some(&mut watched))?;
            match ended {
                Ended::Interrupted => return Ok(self.stopped_status()),
                Ended::Changed => {}
                Ended::Finished(_) => {
                    if !watched.changed() {
                        watched.follow(config.iter().cloned().chain(reached).collect());
                        self.printer.progress("\nwaiting for changes to the agent's code (Ctrl-C stops)\n");
                        let mut next_look = Instant::now() + POLL;
                        while !watched.changed_by(&mut next_look) {
                            if self.stopped.get().is_some() {
                                return Ok(self.stopped_status());
                            }
                            std::thread::sleep(TICK);
                        }
                    }
                }
            }
            self.printer.progress("\nthe code changed: running the tests again\n");
        }
    }

    /// Finds, compiles and runs the tests once; returns how it ended and every module the
    /// tests reach.
    fn round(&self, mut watched: Option<&mut Watched>) -> anyhow::Result<(Ended, Vec<PathBuf>)> {
        let project = &self.setup.project;
        let found = files::find(project);
        let (selected, unmatched) = match self.patterns {
            Some(patterns) => patterns.select(&found),
            None => (found.clone(), Vec::new()),
        };
        if !unmatched.is_empty() {
            // A pattern that matches nothing is a typo or a moved file: never green on nothing.
            let list: Vec<String> = unmatched.iter().map(|glob| format!("`{glob}`")).collect();
            self.printer.stderr(&format!(
                "error: no test file matches {} ({} in {}), so no test ran\n",
                list.join(", "),
                plural(found.len(), "test file"),
                files::folders_shown(project)
            ));
            return Ok((Ended::Finished(ExitStatus::Failure), Vec::new()));
        }
        if selected.is_empty() {
            self.printer.stderr(&format!(
                "no tests: there is no `*.test.*` or `*.spec.*` file, nor a module in a `__tests__` folder outside the hooks folder, in {}\n",
                files::folders_shown(project)
            ));
            return Ok((Ended::Finished(ExitStatus::Success), Vec::new()));
        }
        // Vitest's tests need vitest's runner: said and skipped, not run into a wall of errors.
        let (vitest, selected): (Vec<TestFile>, Vec<TestFile>) =
            selected.into_iter().partition(|file| files::imports_vitest(&file.path));
        for file in &vitest {
            self.printer.stderr(&format!("{} imports vitest: run it with npx vitest (skipped)\n", file.shown));
        }
        if selected.is_empty() {
            self.printer.stderr(&format!(
                "error: every test file imports vitest ({}), so no test ran\n",
                plural(vitest.len(), "file")
            ));
            return Ok((Ended::Finished(ExitStatus::Failure), Vec::new()));
        }
        let root = &project.canonical_dir;
        let paths: Vec<PathBuf> =
            selected.iter().map(|file| file.path.canonicalize().unwrap_or_else(|_| root.join(&file.shown))).collect();
        let cache = Cache::new(&self.setup.state_root);
        let modules = graph::walk_files(root, &paths, &Resolver::new(root), Some(&cache));
        let reached = modules.modules.iter().map(|module| module.path.clone()).collect();
        if !modules.diagnostics.is_empty() {
            let report = report::render_diagnostics(&modules.diagnostics, &modules.sources, self.printer);
            self.printer.stderr(&format!("{report}\n"));
        }
        let (runnable, broken): (Vec<_>, Vec<_>) =
            selected.iter().zip(&modules.entry_errors).partition(|(_, error)| error.is_none());
        if !broken.is_empty() {
            let names: Vec<&str> = broken.iter().map(|(file, _)| file.shown.as_str()).collect();
            let verb = if names.len() == 1 { "has" } else { "have" };
            self.printer.stderr(&format!("error: {} {verb} errors, so did not run; see above\n", names.join(", ")));
        }
        if runnable.is_empty() {
            return Ok((Ended::Finished(ExitStatus::Failure), reached));
        }
        let manifest = ManifestFile::write(self.setup, &crate::loader::manifest(&modules, &self.setup.runtime_dir)?)?;
        let files: Vec<&str> = runnable.iter().map(|(file, _)| file.shown.as_str()).collect();
        let version = self.node.usable()?;
        let results = if self.options.wants_results() { Some(ResultsFile::new(self.setup)?) } else { None };
        let options = self.runner_options(version, &files, results.as_ref())?;
        self.options.make_folders()?;
        let mut runner = TestRunner::start(self.setup, &manifest, &files, &options, self.printer.color())?;
        let mut next_look = Instant::now() + POLL;
        let ended = loop {
            if let Some(passed) = runner.passed()? {
                let results = results.as_ref().and_then(ResultsFile::read);
                let passed = self.options.settle(passed, results, root, self.dir, self.printer)?;
                let status = if passed && broken.is_empty() { ExitStatus::Success } else { ExitStatus::Failure };
                break Ended::Finished(status);
            }
            if self.stopped.get().is_some() {
                runner.kill();
                break Ended::Interrupted;
            }
            if watched.as_deref_mut().is_some_and(|watched| watched.changed_by(&mut next_look)) {
                runner.kill();
                break Ended::Changed;
            }
            std::thread::sleep(RUNNING_TICK);
        };
        Ok((ended, reached))
    }

    /// Node's options for a run of `files` on `version`, its notes said before the first.
    fn runner_options(
        &self,
        version: NodeVersion,
        files: &[&str],
        results: Option<&ResultsFile>,
    ) -> anyhow::Result<Vec<OsString>> {
        let own_folders =
            [self.setup.state_root.path(), self.setup.runtime_dir.as_path()].map(|folder| self.relative(folder));
        let results_module = self.setup.runtime_dir.join("test-results.mjs");
        let results = results.map(|file| (results_module.as_path(), file.path()));
        let args = self.options.node_args(version, files, &own_folders, results)?;
        if !self.noted.replace(true) {
            // A warning about the machine, not a progress line: said with --quiet too.
            if let Some(warning) = end_of_life_warning(version) {
                self.printer.stderr(&format!("warning: {warning}\n"));
            }
            for note in self.options.notes(version) {
                self.printer.stderr(&format!("{note}\n"));
            }
        }
        Ok(args)
    }

    /// `folder` relative to the project (where Node runs), or as it is when outside it.
    fn relative(&self, folder: &Path) -> String {
        let relative = folder.strip_prefix(&self.setup.project.canonical_dir).unwrap_or(folder);
        relative.to_string_lossy().into_owned()
    }
}

/// What `--watch` looks at: the source folder and the files the tests reached.
struct Watched {
    source: PathBuf,
    reached: Vec<PathBuf>,
    last: Fingerprint,
}

impl Watched {
    fn new(source: PathBuf, reached: Vec<PathBuf>) -> Self {
        let last = fingerprint(&source, &reached);
        Self { source, reached, last }
    }

    /// Whether anything changed, looking only once `next_look` has come (then it is [`POLL`] later).
    fn changed_by(&mut self, next_look: &mut Instant) -> bool {
        if Instant::now() < *next_look {
            return false;
        }
        *next_look = Instant::now() + POLL;
        self.changed()
    }

    /// Whether anything changed since the last look.
    fn changed(&mut self) -> bool {
        let now = fingerprint(&self.source, &self.reached);
        let changed = now != self.last;
        self.last = now;
        changed
    }

    /// Watches `reached` from now on, as they are now.
    fn follow(&mut self, reached: Vec<PathBuf>) {
        self.last = fingerprint(&self.source, &reached);
        self.reached = reached;
    }
}
