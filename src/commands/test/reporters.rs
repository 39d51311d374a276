//! Which reports a test run writes, and where: Node's reporters (`spec`, `dot`, `tap`,
//! `junit`, `lcov`) and agent-sdk's `github`, each paired with its destination as Node's
//! test runner pairs `--test-reporter` with `--test-reporter-destination`.
//!
//! Without `--reporter`, the report is `spec` on stdout, with `github` after it when
//! `GITHUB_ACTIONS=true`, as vitest adds its `github-actions` reporter to its default one.
//! Node has no `github` reporter: agent-sdk's own reporter (`node/test-results.mjs`) writes
//! the failures to a file, and agent-sdk turns them into annotations once Node is done.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::{ReporterDestination, TestArgs, TestReporter};
use crate::exit_status::Exit;
use crate::runtime::node_version::NodeVersion;

/// Where a report goes; a file's path is absolute (Node runs in the project folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    Stderr,
    File(PathBuf),
}

/// The reports of every run of `test`.
#[derive(Debug)]
pub struct Reports {
    /// Node's reporters, in the order given.
    node: Vec<(TestReporter, Destination)>,
    /// Where the GitHub annotations go, when asked for.
    github: Vec<Destination>,
}

impl Reports {
    /// The reports `args` ask for (a usage error, exit 2, when they do not pair up); a
    /// relative file is in `cwd`. `github_actions`: the run is a GitHub Actions job.
    pub fn choose(args: &TestArgs, github_actions: bool, cwd: &Path) -> anyhow::Result<Self> {
        let destinations: Vec<Destination> =
            args.reporter_destination.iter().map(|destination| absolute(destination, cwd)).collect();
        let mut chosen = if args.reporter.is_empty() {
            default_reports(destinations, github_actions)?
        } else {
            paired(&args.reporter, destinations)?
        };
        if !args.coverage && chosen.iter().any(|(reporter, _)| *reporter == TestReporter::Lcov) {
            return Err(Exit::usage("--reporter lcov writes the coverage: add --coverage").into());
        }
        let github = chosen.iter().filter(|(reporter, _)| *reporter == TestReporter::Github).map(|(_, to)| to.clone());
        let github = github.collect();
        chosen.retain(|(reporter, _)| *reporter != TestReporter::Github);
        Ok(Self { node: chosen, github })
    }

    /// Where the GitHub annotations go (none unless asked for).
    pub fn github(&self) -> &[Destination] {
        &self.github
    }

    /// How many of Node's own reporters were chosen.
    pub fn node_reporters(&self) -> usize {
        self.node.len()
    }

    /// Node's arguments for its reporters. Node needs one: with `github` alone, agent-sdk's
    /// results reporter is it (`results`, which is added whenever it is given).
    pub fn node_args(&self, results: Option<(&Path, &Path)>) -> Vec<OsString> {
        let mut args = Vec::new();
        for (reporter, destination) in &self.node {
            args.push(OsString::from(format!("--test-reporter={}", reporter.as_str())));
            args.push(destination_arg(destination));
        }
        if let Some((module, file)) = results {
            let mut reporter = OsString::from("--test-reporter=");
            reporter.push(module);
            args.push(reporter);
            args.push(destination_arg(&Destination::File(file.to_path_buf())));
        }
        args
    }

    /// Whether Node `version` has each chosen reporter (exit 2 when not).
    pub fn check(&self, version: NodeVersion) -> anyhow::Result<()> {
        for (reporter, _) in &self.node {
            let (major, minor) = first_node_with(*reporter);
            if !version.at_least(major, minor) {
                return Err(Exit::usage(format!(
                    "--reporter {} needs Node.js ≥ {major}.{minor}, and this one is {version}; upgrade it from https://nodejs.org",
                    reporter.as_str()
                ))
                .into());
            }
        }
        Ok(())
    }

    /// Whether the run writes Node's coverage report somewhere (a reporter that prints it).
    pub fn shows_coverage(&self) -> bool {
        self.node
            .iter()
            .any(|(reporter, _)| matches!(reporter, TestReporter::Spec | TestReporter::Tap | TestReporter::Lcov))
    }

    /// Makes the folders of the files the reports go to (Node does not).
    pub fn make_folders(&self) -> anyhow::Result<()> {
        let files = self.node.iter().map(|(_, destination)| destination).chain(&self.github);
        for destination in files {
            if let Destination::File(path) = destination
                && let Some(parent) = path.parent()
            {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("could not make the folder of `{}`", path.display()))?;
            }
        }
        Ok(())
    }
}

/// The first Node.js with `reporter` among its built-in ones (measured on each 20.x).
fn first_node_with(reporter: TestReporter) -> (u32, u32) {
    match reporter {
        TestReporter::Junit => (20, 8),
        TestReporter::Lcov => (20, 11),
        TestReporter::Spec | TestReporter::Dot | TestReporter::Tap | TestReporter::Github => (20, 0),
    }
}

/// No `--reporter`: `spec`, to the one destination given (else stdout), and `github` on stdout
/// in a GitHub Actions job.
fn default_reports(
    destinations: Vec<Destination>,
    github_actions: bool,
) -> anyhow::Result<Vec<(TestReporter, Destination)>> {
    if destinations.len() > 1 {
        return Err(Exit::usage(format!(
            "--reporter-destination is given {} times for the one default reporter (spec): add a --reporter for each, in the same order",
            destinations.len()
        ))
        .into());
    }
    let spec = destinations.into_iter().next().unwrap_or(Destination::Stdout);
    let mut reports = vec![(TestReporter::Spec, spec)];
    if github_actions {
        reports.push((TestReporter::Github, Destination::Stdout));
    }
    Ok(reports)
}

/// Each `--reporter` with the `--reporter-destination` in the same place, as Node pairs
/// them: one for each, or none for a single reporter (stdout).
fn paired(
    reporters: &[TestReporter],
    destinations: Vec<Destination>,
) -> anyhow::Result<Vec<(TestReporter, Destination)>> {
    if destinations.is_empty() && reporters.len() == 1 {
        return Ok(vec![(reporters[0], Destination::Stdout)]);
    }
    if destinations.len() != reporters.len() {
        return Err(Exit::usage(format!(
            "{} and {}: give one destination for each reporter, in the same order (as Node's test runner pairs them)",
            times("--reporter", reporters.len()),
            times("--reporter-destination", destinations.len())
        ))
        .into());
    }
    Ok(reporters.iter().copied().zip(destinations).collect())
}

fn times(flag: &str, count: usize) -> String {
    match count {
        0 => format!("{flag} is not given"),
        1 => format!("{flag} is given once"),
        count => format!("{flag} is given {count} times"),
    }
}

fn absolute(destination: &ReporterDestination, cwd: &Path) -> Destination {
    match destination {
        ReporterDestination::Stdout => Destination::Stdout,
        ReporterDestination::Stderr => Destination::Stderr,
        ReporterDestination::File(path) => Destination::File(cwd.join(path)),
    }
}

fn destination_arg(destination: &Destination) -> OsString {
    let mut arg = OsString::from("--test-reporter-destination=");
    match destination {
        Destination::Stdout => arg.push("stdout"),
        Destination::Stderr => arg.push("stderr"),
        Destination::File(path) => arg.push(path),
    }
    arg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(reporters: &[TestReporter], destinations: &[&str], github_actions: bool) -> Result<Reports, String> {
        let args = TestArgs {
            reporter: reporters.to_vec(),
            reporter_destination: destinations
                .iter()
                .map(|text| match *text {
                    "stdout" => ReporterDestination::Stdout,
                    "stderr" => ReporterDestination::Stderr,
                    path => ReporterDestination::File(PathBuf::from(path)),
                })
                .collect(),
            coverage: true,
            ..TestArgs::default()
        };
        Reports::choose(&args, github_actions, Path::new("/work")).map_err(|error| error.to_string())
    }

    fn args_of(reports: &Reports) -> Vec<String> {
        reports.node_args(None).iter().map(|arg| arg.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn without_a_reporter_spec_goes_to_stdout_with_github_on_actions() {
        let plain = choose(&[], &[], false).unwrap();
        assert_eq!(args_of(&plain), ["--test-reporter=spec", "--test-reporter-destination=stdout"]);
        assert!(plain.github().is_empty());
        let actions = choose(&[], &[], true).unwrap();
        assert_eq!(args_of(&actions), ["--test-reporter=spec", "--test-reporter-destination=stdout"]);
        assert_eq!(actions.github(), [Destination::Stdout]);
        let to_file = choose(&[], &["out/spec.txt"], false).unwrap();
        assert_eq!(args_of(&to_file), ["--test-reporter=spec", "--test-reporter-destination=/work/out/spec.txt"]);
    }

    #[test]
    fn reporters_pair_with_destinations_in_order_as_node_pairs_them() {
        use TestReporter::{Dot, Github, Junit};
        let reports = choose(&[Dot, Junit, Github], &["stderr", "/tmp/junit.xml", "stdout"], true).unwrap();
        assert_eq!(
            args_of(&reports),
            [
                "--test-reporter=dot",
                "--test-reporter-destination=stderr",
                "--test-reporter=junit",
                "--test-reporter-destination=/tmp/junit.xml",
            ]
        );
        assert_eq!(reports.github(), [Destination::Stdout]);
        // An explicit choice is the whole choice: no `github` added on Actions (as vitest).
        assert!(choose(&[Dot], &[], true).unwrap().github().is_empty());
        assert_eq!(
            choose(&[Dot, Junit], &["stdout"], false).unwrap_err(),
            "--reporter is given 2 times and --reporter-destination is given once: give one destination for each reporter, in the same order (as Node's test runner pairs them)"
        );
        assert!(choose(&[Dot, Junit], &[], false).is_err());
        assert!(choose(&[], &["a.txt", "b.txt"], false).is_err());
    }
}
