//! Extensions (SPEC §3a), through the real binary: a package's hooks mounted by a file in
//! `bot/extensions/` load as `<ns>__<key>` in `validate`, `info` and `run`, disabled ones do
//! not, a mount's instructions reach the model's prompt, and every way a mount can be wrong
//! is a located `validate` error. The packages are an installed ES module with `.d.ts`, a
//! CommonJS package, an npm workspace package whose `exports` point at `.ts` sources, and
//! an extension kept in the project.

use crate::common;

use std::path::Path;

use crate::common::{copy_fixture, copy_project, exit_code, fixture, link_workspace_packages, run_in, transcripts};

/// The serve log as a user reads it, without what changes from run to run: each line's
/// timestamp and the session's id.
fn log_lines(log: &str) -> String {
    log.lines()
        .map(|line| {
            let line = line.split_once("Z ").filter(|(time, _)| time.starts_with("20")).map_or(line, |(_, rest)| rest);
            let mut words: Vec<String> = line.split(' ').map(str::to_owned).collect();
            for word in &mut words {
                if let Some(id) = word.strip_prefix("ses_") {
                    *word = format!("ses_[ID]{}", id.trim_start_matches(|c: char| c.is_ascii_hexdigit()));
                }
            }
            words.join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `run <args>` in `dir`: its exit code, stdout and the serve log.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = run_in(dir, &[&["run"], args].concat());
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (exit_code(&output), stdout, log_lines(&String::from_utf8_lossy(&output.stderr)))
}

fn what_is_seen(dir: &Path) -> String {
    transcripts(dir, &[&["validate"], &["info"], &["info", "--json"]])
}

#[test]
fn an_installed_es_module_package_mounts_its_hooks_but_the_disabled_one() {
    let project = copy_fixture("extensions", "esm-package");
    insta::assert_snapshot!("esm_package", what_is_seen(project.path()));
    let (code, reply, log) = run(project.path(), &["--message", "the build is red"]);
    assert_eq!(code, 0, "{log}");
    assert!(reply.contains("following my instructions (\"You are the build helper of Acme.\")"), "{reply}");
    insta::assert_snapshot!("esm_package_run", log);
    let (code, _, log) = run(project.path(), &["--event", "turn.failed"]);
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("INFO  hook \"ci__triage\": triage: acme turn failed: the model provider returned HTTP 500"),
        "{log}"
    );
    assert!(!log.contains("audit/usage"), "disabled: {log}");
}

#[test]
fn a_commonjs_package_mounts_through_the_disable_hook_function() {
    let project = copy_fixture("extensions", "commonjs-package");
    insta::assert_snapshot!("commonjs_package", what_is_seen(project.path()));
    let (code, _, log) = run(project.path(), &["--message", "hi"]);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("INFO  hook \"legacy__notify\": notify #builds: turn.completed with "), "{log}");
    assert!(!log.contains("noisy"), "disabled: {log}");
}

#[test]
fn a_workspace_package_with_typescript_sources_mounts_and_runs() {
    let workspace = copy_project(&fixture("extensions", "workspace"));
    link_workspace_packages(workspace.path());
    let agent = workspace.path().join("packages/agent");
    insta::assert_snapshot!("workspace_package", what_is_seen(&agent));
    let (code, _, log) = run(&agent, &["--event", "turn.failed"]);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("INFO  hook \"ci__triage\": [ci acme] triage: the model provider returned HTTP 500"), "{log}");
    let (code, _, log) = run(&agent, &["--event", "turn.completed"]);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("INFO  hook \"ci__jobs/summary\": [ci acme] summary: 38 tokens"), "{log}");
    assert!(!log.contains("flaky"), "disabled: {log}");
}

/// A fresh clone of the workspace, before `npm install` linked its packages: the help says
/// the extension is the workspace's own package and where, and to install at the
/// workspace's root, never to fetch its name from the registry.
#[test]
fn a_workspace_package_not_yet_linked_is_said_to_be_the_workspace_s_own() {
    let workspace = copy_project(&fixture("extensions", "workspace"));
    let agent = workspace.path().join("packages/agent");
    let checked = run_in(&agent, &["validate", "--format", "concise"]);
    assert_eq!(exit_code(&checked), 1);
    let stdout = String::from_utf8_lossy(&checked.stdout);
    assert_eq!(
        stdout.trim_end(),
        "bot/extensions/ci.ts:1:16: error hooks::unresolved-import `@acme/ci-ext` cannot be found, so this module would fail to load"
    );
    let json = run_in(&agent, &["validate", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let help = report["diagnostics"][0]["help"].as_str().unwrap();
    assert_eq!(
        help,
        "`@acme/ci-ext` is a package of this workspace, at `../ci-ext`, but it is not linked: there is no `node_modules/@acme/ci-ext` in `bot/extensions` or any folder above it; run `npm install` at the workspace's root (`../..`) to link its packages"
    );
    assert!(!help.contains("npm install @acme"), "{help}");
}

/// Without instructions of its own, the agent's prompt starts with the extension's: the
/// local model quotes the prompt's first line.
#[test]
fn a_mount_s_instructions_reach_the_model_s_prompt() {
    let project = copy_fixture("extensions", "instructions");
    let (code, reply, log) = run(project.path(), &["--message", "what did we ship?"]);
    assert_eq!(code, 0, "{log}");
    assert!(reply.contains("following my instructions (\"Answer as the standup bot of team platform.\")"), "{reply}");
    assert!(log.contains("INFO  hook \"standup__recap\": recap for platform: "), "{log}");
}

/// After the agent's own instructions, each mount's follows, in the system message a
/// real model receives.
#[test]
fn a_real_model_gets_the_agent_s_instructions_then_each_mount_s() {
    use crate::common::model_server::{ModelServer, finish, streamed, text};
    let project = copy_fixture("extensions", "esm-package");
    let server = ModelServer::start(vec![streamed(vec![text("On it."), finish("stop")])]);
    let output = common::agent_sdk()
        .args(["run", "--message", "why is the build red?", "--model", "openai-compatible:test-model"])
        .args(["--base-url", &server.url])
        .current_dir(project.path())
        .env("OPENAI_COMPATIBLE_API_KEY", "test-key")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    let body = &server.requests()[0].body;
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][0]["content"],
        "You are the build helper of Acme.\n\nWhen a build of acme fails, say which job failed first.\n"
    );
}

/// Every way a mount can be wrong is a located error (or warning) of `validate`, in each
/// format, and `info --json` lists what loads.
#[test]
fn each_problem_of_a_mount_is_a_located_validate_finding() {
    for case in [
        "extension-config-rejected",
        "extension-unknown-hook",
        "extension-invalid-namespace",
        "extension-duplicate-namespace",
        "extension-not-a-mount",
        "extension-not-installed",
        "extension-broken-hooks",
        "extension-ends-node",
    ] {
        let project = copy_fixture("validate", case);
        let seen =
            transcripts(project.path(), &[&["validate"], &["validate", "--format", "json"], &["info", "--json"]]);
        assert!(seen.starts_with("$ agent-sdk validate\nexit: 1\n"), "{case}: {seen}");
        insta::assert_snapshot!(case.replace('-', "_"), seen);
    }
}

/// A project that mounts an extension wrongly runs nothing: `run` refuses it as it refuses
/// hooks with errors, with the same message `validate` gives.
#[test]
fn run_refuses_a_project_whose_mount_is_wrong() {
    let project = copy_fixture("validate", "extension-config-rejected");
    let (code, _, log) = run(project.path(), &["--event", "turn.completed"]);
    assert_eq!(code, 1, "{log}");
    assert!(log.contains("extension `ci` rejected its configuration: ci: `org` must be a string"), "{log}");
    assert!(log.contains("the hooks have errors, so nothing ran"), "{log}");
}

/// Mounts are known only by running them: without a Node.js to run them in, `validate`
/// says so at each mount; a project without mounts is still checked without Node, and
/// nothing is written into it.
#[test]
fn without_node_mounts_cannot_be_checked_and_a_project_without_them_needs_none() {
    let project = copy_fixture("extensions", "esm-package");
    let output = common::agent_sdk()
        .args(["validate", "--format", "json"])
        .current_dir(project.path())
        .env("AGENT_SDK_NODE", "/nonexistent/node")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(exit_code(&output), 1, "{stdout}");
    insta::assert_snapshot!("node_missing", stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let finding = &report["diagnostics"][0];
    assert_eq!(finding["code"], "extensions::node-missing", "{stdout}");
    assert_eq!(finding["path"], "bot/extensions/ci.ts", "{stdout}");
    let message = finding["message"].as_str().unwrap();
    assert!(message.starts_with("extension `ci` could not be checked: what a mount contributes is known only by running it in Node.js, and Node.js was not found (`/nonexistent/node`)"), "{message}");

    let plain = copy_fixture("validate", "accepted-forms");
    let output = common::agent_sdk()
        .args(["validate"])
        .current_dir(plain.path())
        .env("AGENT_SDK_NODE", "/nonexistent/node")
        .output()
        .unwrap();
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stdout));
    assert!(!plain.path().join(".agent-sdk").exists(), "a static check writes nothing");
}

/// A warning about an extension's own hook (which the project cannot fix) is silenced by an
/// `agent-sdk-ignore` comment above the mount's call, as a hook's are.
#[test]
fn an_extension_s_own_warning_is_silenced_where_it_is_mounted() {
    let project = copy_fixture("extensions", "silenced");
    let silenced = run_in(project.path(), &["validate", "--deny-warnings"]);
    assert_eq!(exit_code(&silenced), 0, "{}", String::from_utf8_lossy(&silenced.stdout));
    let mount = project.path().join("bot/extensions/noisy.ts");
    let text = std::fs::read_to_string(&mount).unwrap();
    std::fs::write(&mount, text.replace("// agent-sdk-ignore hooks::unknown-event\n", "")).unwrap();
    let warned = run_in(project.path(), &["validate", "--deny-warnings", "--format", "json"]);
    let stdout = String::from_utf8_lossy(&warned.stdout);
    assert_eq!(exit_code(&warned), 1, "{stdout}");
    assert!(
        stdout
            .contains("`turn.complete` is not an event type, so the handler of hook `noisy__legacy` for it never runs"),
        "{stdout}"
    );
}

/// The settings' rule levels reach an extension's own findings too: `unknown-event` is an
/// error that fails `validate`; off, the finding about the extension's hook is gone; lowered
/// to a warning, it passes but with `--deny-warnings`.
#[test]
fn the_settings_rule_levels_apply_to_an_extension_s_own_findings() {
    let project = copy_fixture("extensions", "silenced");
    let mount = project.path().join("bot/extensions/noisy.ts");
    let text = std::fs::read_to_string(&mount).unwrap();
    std::fs::write(&mount, text.replace("// agent-sdk-ignore hooks::unknown-event\n", "")).unwrap();
    let settings = project.path().join("agent-sdk.json");
    let by_default = run_in(project.path(), &["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&by_default.stdout);
    assert_eq!(exit_code(&by_default), 1, "{stdout}");
    assert!(stdout.contains("error hooks::unknown-event"), "{stdout}");
    std::fs::write(&settings, "{ \"rules\": { \"unknown-event\": \"off\" } }\n").unwrap();
    let off = run_in(project.path(), &["validate", "--deny-warnings"]);
    assert_eq!(exit_code(&off), 0, "{}", String::from_utf8_lossy(&off.stdout));
    std::fs::write(&settings, "{ \"rules\": { \"unknown-event\": \"warning\" } }\n").unwrap();
    let lowered = run_in(project.path(), &["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&lowered.stdout);
    assert_eq!(exit_code(&lowered), 0, "{stdout}");
    assert!(stdout.contains("warning hooks::unknown-event"), "{stdout}");
    let denied = run_in(project.path(), &["validate", "--deny-warnings"]);
    assert_eq!(exit_code(&denied), 1);
}
