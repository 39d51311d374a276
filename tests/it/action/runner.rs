//! A runner for a composite action's steps, as GitHub's runs them: `${{ inputs.* }}` and
//! `${{ steps.*.outputs.* }}` filled in, each step's `if`, GitHub's environment
//! (`GITHUB_ACTIONS=true`, `GITHUB_OUTPUT`, `RUNNER_TEMP`, …) and each `run:` with its
//! `shell`'s command line. It knows what action.yml uses and refuses the rest, saying so.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::common::{self, root};
use crate::pre_commit::git;

/// `action.yml` as far as a run of it goes (its name and branding are for the Marketplace).
/// Unknown keys of a step are refused, so that one the runner below would not honour
/// (`uses:`, `continue-on-error:`, …) fails the tests instead of being passed over.
#[derive(Debug, Deserialize)]
pub(super) struct Action {
    pub(super) description: String,
    pub(super) inputs: IndexMap<String, Input>,
    pub(super) outputs: IndexMap<String, ActionOutput>,
    runs: Runs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Input {
    pub(super) description: String,
    #[serde(default)]
    required: bool,
    default: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ActionOutput {
    pub(super) description: String,
    value: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Runs {
    using: String,
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Step {
    name: String,
    id: Option<String>,
    #[serde(rename = "if")]
    condition: Option<String>,
    shell: String,
    #[serde(default)]
    env: IndexMap<String, String>,
    #[serde(rename = "working-directory")]
    working_directory: Option<String>,
    run: String,
}

pub(super) fn action() -> Action {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action: Action = serde_yaml_ng::from_str(&text).expect("action.yml is a composite action");
    assert_eq!(action.runs.using, "composite");
    action
}

/// What one run of the action did.
#[derive(Debug)]
pub(super) struct ActionRun {
    steps: Vec<StepRun>,
    /// The action's outputs, as the workflow's later steps read them.
    outputs: BTreeMap<String, String>,
}

#[derive(Debug)]
pub(super) struct StepRun {
    pub(super) name: String,
    /// The exit code, or `None` when the step was skipped (its `if`, or a step before it failed).
    pub(super) exit: Option<i32>,
    pub(super) output: String,
}

impl ActionRun {
    pub(super) fn succeeded(&self) -> bool {
        self.steps.iter().all(|step| step.exit.is_none_or(|code| code == 0))
    }

    pub(super) fn step(&self, name: &str) -> &StepRun {
        self.steps.iter().find(|step| step.name == name).unwrap_or_else(|| panic!("no step {name:?}: {self}"))
    }

    pub(super) fn output(&self, name: &str) -> &str {
        self.outputs.get(name).map_or("", String::as_str)
    }
}

impl std::fmt::Display for ActionRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for step in &self.steps {
            match step.exit {
                Some(code) => writeln!(f, "--- {} (exit {code})\n{}", step.name, step.output)?,
                None => writeln!(f, "--- {} (skipped)", step.name)?,
            }
        }
        writeln!(f, "--- outputs: {:?}", self.outputs)
    }
}

/// A job's runner: the checkout (`GITHUB_WORKSPACE`, a git repository), the runner's
/// temporary folder and home, and the PATH and environment the job's steps have.
pub(super) struct Runner {
    workspace: tempfile::TempDir,
    temp: tempfile::TempDir,
    path: OsString,
    env: Vec<(String, OsString)>,
}

impl Runner {
    /// A checkout holding a copy of `project` at `at` (`""` for the repository root), with the
    /// agent-sdk under test first on PATH.
    pub(super) fn with_project(project: &Path, at: &str) -> Self {
        let runner = Self::bare();
        let target = runner.workspace.path().join(at);
        common::copy_tree(project, &target);
        let _ = std::fs::remove_dir_all(target.join(".agent-sdk"));
        git(runner.workspace.path(), &["init", "-q"]);
        git(runner.workspace.path(), &["add", "-A"]);
        runner.with_path_first(binary_dir())
    }

    pub(super) fn bare() -> Self {
        Self {
            workspace: tempfile::tempdir().unwrap(),
            temp: tempfile::tempdir().unwrap(),
            path: std::env::var_os("PATH").unwrap(),
            env: Vec::new(),
        }
    }

    pub(super) fn with_path_first(mut self, dir: PathBuf) -> Self {
        self.path =
            std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&self.path.clone()))).unwrap();
        self
    }

    /// PATH without the folders that hold an `agent-sdk` (the test binary's, a cargo install):
    /// a runner on which nothing has installed it.
    pub(super) fn without_agent_sdk_on_path(mut self) -> Self {
        let kept: Vec<PathBuf> =
            std::env::split_paths(&self.path).filter(|dir| !dir.join("agent-sdk").exists()).collect();
        self.path = std::env::join_paths(kept).unwrap();
        self
    }

    pub(super) fn with_env(mut self, name: &str, value: impl Into<OsString>) -> Self {
        self.env.push((name.to_owned(), value.into()));
        self
    }

    pub(super) fn workspace(&self) -> &Path {
        self.workspace.path()
    }

    /// `RUNNER_TEMP`, where the action may install agent-sdk.
    pub(super) fn runner_temp(&self) -> PathBuf {
        self.temp.path().join("runner-temp")
    }

    /// The action's steps with the inputs `with` (as a workflow's `with:` gives them).
    pub(super) fn run(&self, with: &[(&str, &str)]) -> ActionRun {
        let action = action();
        let inputs = inputs_of(&action, with);
        let runner_temp = self.runner_temp();
        let home = self.temp.path().join("home");
        std::fs::create_dir_all(&runner_temp).unwrap();
        std::fs::create_dir_all(&home).unwrap();

        let mut step_outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut steps = Vec::new();
        let mut failed = false;
        for (index, step) in action.runs.steps.iter().enumerate() {
            let context = Context { inputs: &inputs, steps: &step_outputs };
            // A step runs when the ones before it succeeded (`success()`, the default) and its
            // own `if` holds.
            if failed || step.condition.as_deref().is_some_and(|condition| !context.holds(condition)) {
                steps.push(StepRun { name: step.name.clone(), exit: None, output: String::new() });
                continue;
            }
            let output_file = runner_temp.join(format!("output-{index}"));
            std::fs::write(&output_file, "").unwrap();
            let script = runner_temp.join(format!("step-{index}.sh"));
            std::fs::write(&script, context.fill(&step.run)).unwrap();

            let mut command = shell_command(&step.shell, &script);
            let cwd = match &step.working_directory {
                Some(dir) => self.workspace().join(context.fill(dir)),
                None => self.workspace().to_owned(),
            };
            command
                .current_dir(cwd)
                .env_clear()
                .env("PATH", &self.path)
                .env("HOME", &home)
                .env("CI", "true")
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", self.workspace())
                .env("GITHUB_ACTION_PATH", root())
                .env("GITHUB_OUTPUT", &output_file)
                .env("GITHUB_ENV", runner_temp.join("env"))
                .env("GITHUB_PATH", runner_temp.join("path"))
                .env("GITHUB_STEP_SUMMARY", runner_temp.join("summary"))
                .env("RUNNER_OS", "Linux")
                .env("RUNNER_TEMP", &runner_temp);
            if let Some(node) = std::env::var_os("AGENT_SDK_NODE") {
                command.env("AGENT_SDK_NODE", node);
            }
            for (name, value) in &self.env {
                command.env(name, value);
            }
            for (name, value) in &step.env {
                command.env(name, context.fill(value));
            }
            let ran = command.output().unwrap();
            let output = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
            let exit = ran.status.code().unwrap_or_else(|| panic!("step {:?} killed: {output}", step.name));
            failed = exit != 0;
            if let Some(id) = &step.id {
                step_outputs.insert(id.clone(), read_outputs(&output_file));
            }
            steps.push(StepRun { name: step.name.clone(), exit: Some(exit), output });
        }

        let context = Context { inputs: &inputs, steps: &step_outputs };
        let outputs = action.outputs.iter().map(|(name, output)| (name.clone(), context.fill(&output.value))).collect();
        ActionRun { steps, outputs }
    }
}

/// Every input's value: the one given, else its default; an input the action does not
/// declare is refused (GitHub only warns, and the value goes nowhere).
pub(super) fn inputs_of(action: &Action, with: &[(&str, &str)]) -> BTreeMap<String, String> {
    for (name, _) in with {
        assert!(action.inputs.contains_key(*name), "action.yml has no input {name:?}");
    }
    action
        .inputs
        .iter()
        .map(|(name, input)| {
            let given = with.iter().find(|(given, _)| given == name).map(|(_, value)| (*value).to_owned());
            assert!(given.is_some() || !input.required, "the required input {name:?} is not given");
            (name.clone(), given.or_else(|| input.default.clone()).unwrap_or_default())
        })
        .collect()
}

/// The contexts a composite action's expressions can read here.
pub(super) struct Context<'a> {
    inputs: &'a BTreeMap<String, String>,
    steps: &'a BTreeMap<String, BTreeMap<String, String>>,
}

impl Context<'_> {
    /// `text` with each `${{ expression }}` replaced by its value.
    fn fill(&self, text: &str) -> String {
        let expression = regex::Regex::new(r"\$\{\{\s*(.*?)\s*\}\}").unwrap();
        expression.replace_all(text, |captures: &regex::Captures<'_>| self.value(&captures[1])).into_owned()
    }

    /// `inputs.<name>` (declared, or the test fails) and `steps.<id>.outputs.<name>` (empty
    /// when the step set none, as on GitHub). Anything else is more than this runner knows.
    fn value(&self, expression: &str) -> String {
        if let Some(name) = expression.strip_prefix("inputs.") {
            return self
                .inputs
                .get(name)
                .unwrap_or_else(|| panic!("action.yml reads an undeclared input: {name}"))
                .clone();
        }
        if let Some((id, name)) = expression.strip_prefix("steps.").and_then(|rest| rest.split_once(".outputs.")) {
            return self.steps.get(id).and_then(|outputs| outputs.get(name)).cloned().unwrap_or_default();
        }
        panic!("this runner does not evaluate `{expression}`: teach tests/it/action.rs, or keep action.yml simpler")
    }

    /// A step's `if`: `<value> == '<literal>'`, compared as GitHub compares strings (ignoring case).
    fn holds(&self, condition: &str) -> bool {
        let condition = condition.trim().trim_start_matches("${{").trim_end_matches("}}").trim();
        let Some((left, right)) = condition.split_once(" == ") else {
            panic!("this runner does not evaluate the condition `{condition}`")
        };
        let literal = right.trim().strip_prefix('\'').and_then(|rest| rest.strip_suffix('\''));
        let literal = literal.unwrap_or_else(|| panic!("not a string literal in `{condition}`"));
        self.value(left.trim()).eq_ignore_ascii_case(literal)
    }
}

/// The command line GitHub runs a `run:` with for `shell` (its documented defaults).
pub(super) fn shell_command(shell: &str, script: &Path) -> Command {
    let mut command = match shell {
        "bash" => {
            let mut bash = Command::new("bash");
            bash.args(["--noprofile", "--norc", "-eo", "pipefail"]);
            bash
        }
        "sh" => {
            let mut sh = Command::new("sh");
            sh.arg("-e");
            sh
        }
        other => panic!("this runner does not know the shell {other:?}"),
    };
    command.arg(script);
    command
}

/// The `name=value` lines (and `name<<DELIMITER` blocks) a step appended to `GITHUB_OUTPUT`.
pub(super) fn read_outputs(file: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|line| *line != delimiter).collect();
            outputs.insert(name.to_owned(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_owned(), value.to_owned());
        }
    }
    outputs
}

pub(super) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk"))
}

pub(super) fn binary_dir() -> PathBuf {
    binary().parent().unwrap().to_owned()
}
