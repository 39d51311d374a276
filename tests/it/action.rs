//! The GitHub Action (`action.yml`, a composite action): its steps run as a runner runs them —
//! `${{ inputs.* }}` and `${{ steps.*.outputs.* }}` filled in, each step's `if`, GitHub's
//! environment (`GITHUB_ACTIONS=true`, `GITHUB_OUTPUT`, `RUNNER_TEMP`, …) and each `run:` with
//! its `shell`'s command line — in a git repository holding an example project; and its steps
//! and the workflow of docs/ci.md linted by actionlint. No runner runs here, so this is what
//! can be known of the action before GitHub runs it.

mod runner;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::common::{self, root};
use runner::{Runner, action, binary};

fn acme_bot() -> PathBuf {
    root().join("examples/acme-bot")
}

const INSTALL: &str = "Find or install agent-sdk";
const VALIDATE: &str = "agent-sdk validate";
const TEST: &str = "agent-sdk test";

#[test]
fn on_a_clean_project_the_action_passes_with_the_agent_sdk_on_path() {
    let runner = Runner::with_project(&acme_bot(), "");
    let run = runner.run(&[]);
    assert!(run.succeeded(), "{run}");
    assert_eq!(run.step(VALIDATE).exit, Some(0), "{run}");
    assert_eq!(run.step(TEST).exit, None, "test is off by default: {run}");
    assert_eq!(run.output("agent-sdk"), binary().to_str().unwrap(), "{run}");
    assert_eq!(run.output("version"), env!("CARGO_PKG_VERSION"), "{run}");
}

#[test]
fn a_project_with_an_error_fails_the_action_with_an_annotation_named_from_the_repository_root() {
    let runner = Runner::with_project(&common::fixture("validate", "unknown-event"), "agents/support");
    let run = runner.run(&[("working-directory", "agents/support"), ("test", "true")]);
    assert!(!run.succeeded(), "{run}");
    let validate = run.step(VALIDATE);
    assert_eq!(validate.exit, Some(1), "{run}");
    assert!(
        validate.output.contains(
            "::error file=agents/support/bot/hooks/typos.ts,line=4,col=5,endLine=4,endColumn=20,title=hooks%3A%3Aunknown-event::`turn.complete` is not an event type"
        ),
        "{run}"
    );
    assert_eq!(run.step(TEST).exit, None, "no tests after a failed validate: {run}");
}

#[test]
fn validate_args_reach_validate_split_at_spaces() {
    let runner = Runner::with_project(&acme_bot(), "");
    // Two handlers for one event: a warning, which validate alone lets pass.
    std::fs::write(
        runner.workspace().join("bot/hooks/twice.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.completed\"() {}, [\"turn.completed\"]() {} } });\n",
    )
    .unwrap();

    let run = runner.run(&[]);
    assert!(run.succeeded(), "{run}");
    assert!(run.step(VALIDATE).output.contains("::warning file=bot/hooks/twice.ts,"), "{run}");

    let run = runner.run(&[("validate-args", "--deny-warnings")]);
    assert_eq!(run.step(VALIDATE).exit, Some(1), "{run}");

    let run = runner.run(&[("validate-args", "--max-warnings 1")]);
    assert!(run.succeeded(), "{run}");
    let run = runner.run(&[("validate-args", "--max-warnings 0")]);
    assert_eq!(run.step(VALIDATE).exit, Some(1), "{run}");
    assert!(run.step(VALIDATE).output.contains("more than --max-warnings 0 allows"), "{run}");
}

#[test]
fn with_test_on_the_action_runs_the_hooks_tests_and_fails_when_one_fails() {
    let runner = Runner::with_project(&acme_bot(), "");
    let test_file = runner.workspace().join("bot/hooks/refunds.test.ts");
    let write_test = |expected: u32| {
        std::fs::write(
            &test_file,
            format!(
                "import {{ test }} from \"node:test\";\nimport assert from \"node:assert/strict\";\n\ntest(\"refunds add up\", () => {{\n  assert.equal(1 + 1, {expected});\n}});\n"
            ),
        )
        .unwrap();
    };

    write_test(2);
    let run = runner.run(&[("test", "true")]);
    assert!(run.succeeded(), "{run}");
    assert_eq!(run.step(TEST).exit, Some(0), "{run}");
    assert!(run.step(TEST).output.contains("refunds add up"), "{run}");

    write_test(3);
    let run = runner.run(&[("test", "true")]);
    assert_eq!(run.step(VALIDATE).exit, Some(0), "{run}");
    assert_eq!(run.step(TEST).exit, Some(1), "{run}");
    assert!(
        run.step(TEST).output.contains("::error file=bot/hooks/refunds.test.ts,line=5,"),
        "a failed test is an annotation too: {run}"
    );
}

#[test]
fn without_a_version_the_project_s_own_agent_sdk_is_found_from_its_folder_up() {
    let runner = Runner::with_project(&acme_bot(), "packages/bot").without_agent_sdk_on_path();
    // What `npm ci` at a workspace's root leaves (npm links the launcher there).
    let bin = runner.workspace().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(binary(), bin.join("agent-sdk")).unwrap();

    let run = runner.run(&[("working-directory", "packages/bot")]);
    assert!(run.succeeded(), "{run}");
    assert_eq!(run.output("agent-sdk"), bin.join("agent-sdk").to_str().unwrap(), "{run}");
}

#[test]
fn the_version_input_is_what_npm_installs() {
    let registry = Registry::start();
    let runner = Runner::with_project(&acme_bot(), "")
        .without_agent_sdk_on_path()
        .with_env("npm_config_registry", registry.url())
        .with_env("npm_config_update_notifier", "false");
    // An explicit version wins over the project's own.
    let bin = runner.workspace().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(binary(), bin.join("agent-sdk")).unwrap();

    let version = env!("CARGO_PKG_VERSION");
    let run = runner.run(&[("version", version)]);
    assert!(run.succeeded(), "{run}");
    let installed = runner.runner_temp().join("agent-sdk-cli/node_modules/.bin/agent-sdk");
    assert_eq!(run.output("agent-sdk"), installed.to_str().unwrap(), "{run}");
    assert_eq!(run.output("version"), version, "{run}");
    assert_eq!(run.step(VALIDATE).exit, Some(0), "{run}");

    let run = runner.run(&[("version", "99.0.0")]);
    assert_eq!(run.step(INSTALL).exit, Some(1), "{run}");
    assert!(run.step(INSTALL).output.contains("No matching version found for @agent-sdk/cli@99.0.0"), "{run}");
    assert_eq!(run.step(VALIDATE).exit, None, "{run}");
}

/// An npm registry on loopback serving the two packages `packaging/npm/build.py` packs around
/// this test's binary (python3's `http.server` over a folder of packuments and tarballs):
/// `npm install @agent-sdk/cli@<version>` then does what it will do against npmjs.com.
struct Registry {
    server: Child,
    url: String,
    _folder: tempfile::TempDir,
}

impl Registry {
    fn start() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let mut server = Command::new("python3")
            .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory"])
            .arg(folder.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        let mut line = String::new();
        BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line
            .split(" port ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("http.server said: {line}"))
            .to_owned();
        let url = format!("http://127.0.0.1:{port}/");

        let tarballs = crate::npm_package::tarballs();
        std::fs::create_dir_all(folder.path().join("-")).unwrap();
        for tarball in [&tarballs.main, &tarballs.platform] {
            let file_name = tarball.file_name().unwrap().to_str().unwrap();
            std::fs::copy(tarball, folder.path().join("-").join(file_name)).unwrap();
            let manifest = Command::new("tar").arg("-xzOf").arg(tarball).arg("package/package.json").output().unwrap();
            let mut manifest: Value = serde_json::from_slice(&manifest.stdout).expect("a package.json in the tarball");
            manifest["dist"] = json!({ "tarball": format!("{url}-/{file_name}") });
            let name = manifest["name"].as_str().unwrap().to_owned();
            let version = manifest["version"].as_str().unwrap().to_owned();
            let packument =
                json!({ "name": name, "dist-tags": { "latest": version }, "versions": { version: manifest } });
            // npm asks for `/@agent-sdk%2fcli`, which http.server reads as `@agent-sdk/cli`.
            let path = folder.path().join(&name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, packument.to_string()).unwrap();
        }
        Self { server, url, _folder: folder }
    }

    fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// action.yml's steps as the one job of a reusable workflow, whose `workflow_call` inputs are
/// the action's: actionlint reads a composite action's metadata only for what a workflow
/// passes it, and not at all in its WebAssembly build, but it checks a workflow's steps
/// through and through — each expression against the inputs and step ids there are, `if`s,
/// `shell`s, step outputs.
fn action_as_workflow(action_yml: &str) -> String {
    let action: Value = serde_yaml_ng::from_str(action_yml).unwrap();
    let inputs: serde_json::Map<String, Value> = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, input)| {
            let mut input = input.clone();
            input["type"] = json!("string");
            (name.clone(), input)
        })
        .collect();
    let outputs: serde_json::Map<String, Value> = action["outputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, output)| (name.clone(), output["value"].clone()))
        .collect();
    let workflow = json!({
        "on": { "workflow_call": { "inputs": inputs } },
        "permissions": {},
        "jobs": { "action": { "runs-on": "ubuntu-24.04", "outputs": outputs, "steps": action["runs"]["steps"] } },
    });
    // JSON is YAML, which actionlint reads.
    serde_json::to_string_pretty(&workflow).unwrap()
}

fn lint(name: &str, workflow: &str) -> Vec<String> {
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join(name);
    std::fs::write(&path, workflow).unwrap();
    crate::workflows::actionlint(&[path])
        .iter()
        .map(|finding| {
            let text = |field: &str| finding[field].as_str().unwrap_or_default().to_owned();
            format!("{}:{}: {} [{}]", finding["line"], finding["column"], text("message"), text("kind"))
        })
        .collect()
}

#[test]
fn actionlint_finds_nothing_in_the_action_s_steps_and_catches_a_misspelt_input() {
    // What the Marketplace and a workflow's editor show of each.
    let action = action();
    assert!(!action.description.is_empty());
    for (name, input) in &action.inputs {
        assert!(!input.description.is_empty(), "the input {name} has no description");
    }
    for (name, output) in &action.outputs {
        assert!(!output.description.is_empty(), "the output {name} has no description");
    }

    let action_yml = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let findings = lint("action.json", &action_as_workflow(&action_yml));
    assert!(findings.is_empty(), "actionlint on action.yml's steps:\n{}", findings.join("\n"));

    // That it passes because the steps are right, not because nothing was checked.
    let misspelt = action_yml.replacen("${{ inputs.version }}", "${{ inputs.vesion }}", 1);
    assert_ne!(misspelt, action_yml);
    let findings = lint("misspelt.json", &action_as_workflow(&misspelt));
    assert!(
        findings.len() == 1
            && findings[0].contains("\"vesion\" is not defined")
            && findings[0].contains("[expression]"),
        "{findings:#?}"
    );
}

/// The workflows docs/ci.md shows: its ```yaml blocks.
fn documented_workflows() -> Vec<String> {
    let page = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    page.split("```yaml\n").skip(1).map(|block| block.split("```").next().unwrap().to_owned()).collect()
}

/// The `with:` keys of each step of `workflow` that uses this action (`agent-sdk/agent-sdk@…`).
fn inputs_given_to_the_action(workflow: &str) -> Vec<Vec<String>> {
    let workflow: Value = serde_yaml_ng::from_str(workflow).unwrap();
    let mut given = Vec::new();
    for job in workflow["jobs"].as_object().unwrap().values() {
        for step in job["steps"].as_array().unwrap() {
            if step["uses"].as_str().is_some_and(|uses| uses.starts_with("agent-sdk/agent-sdk@")) {
                given.push(step["with"].as_object().map(|with| with.keys().cloned().collect()).unwrap_or_default());
            }
        }
    }
    given
}

#[test]
fn the_documented_workflows_pass_actionlint_and_give_the_action_only_its_inputs() {
    let workflows = documented_workflows();
    assert!(!workflows.is_empty(), "docs/ci.md shows no workflow");
    let action = action();
    let mut shown = std::collections::BTreeSet::new();
    for workflow in &workflows {
        let findings = lint("ci.yml", workflow);
        assert!(findings.is_empty(), "actionlint on docs/ci.md's workflow:\n{workflow}\n{}", findings.join("\n"));
        let given = inputs_given_to_the_action(workflow);
        assert!(!given.is_empty(), "docs/ci.md's workflow does not use the action:\n{workflow}");
        for name in given.into_iter().flatten() {
            assert!(action.inputs.contains_key(&name), "docs/ci.md gives the action {name:?}, which it does not take");
            shown.insert(name);
        }
    }
    // Every input is shown somewhere, so a renamed one cannot leave the page behind.
    let declared: std::collections::BTreeSet<String> = action.inputs.keys().cloned().collect();
    assert_eq!(shown, declared, "the inputs docs/ci.md's workflows give and those action.yml declares");
}
