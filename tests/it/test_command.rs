//! `agent-sdk test`: the hooks' tests run by Node's test runner through the loader `run`
//! uses (TypeScript, tsconfig paths, CommonJS, the SDK modules), with the test kit
//! `@cursor/bdk/testing`; exit codes, what a user sees, PATTERN filters and `--watch`.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::snapshot::Filters;
use crate::common::{copy_fixture, exit_code, run_in, transcript};

/// What a user sees from `agent-sdk test <args>`, with what changes from run to run
/// filtered: the project's temporary path, durations, and Node's own stack frames.
fn test_transcript(dir: &Path, args: &[&str]) -> String {
    let args: Vec<&str> = std::iter::once("test").chain(args.iter().copied()).collect();
    let text = transcript(dir, &args);
    let text = Filters::new().project(dir).apply(&text);
    let mut filtered = String::new();
    for line in text.lines() {
        let line = if line.contains("(node:internal/") {
            // Node's own frames differ between versions: one line stands for them all.
            let frames = format!("      at [Node.js]{}\n", if line.ends_with(" {") { " {" } else { "" });
            if filtered.ends_with(&frames) || filtered.ends_with("      at [Node.js]\n") {
                filtered.truncate(filtered.rfind("      at [Node.js]").unwrap_or(filtered.len()));
            }
            frames
        } else {
            without_durations(line) + "\n"
        };
        filtered.push_str(&line);
    }
    filtered
}

/// `✔ name (1.23ms)` → `✔ name (…ms)`, `ℹ duration_ms 123.4` → `ℹ duration_ms …`.
fn without_durations(line: &str) -> String {
    if let Some(prefix) = line.strip_suffix("ms)")
        && let Some(open) = prefix.rfind(" (")
        && prefix[open + 2..].chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return format!("{} (…ms)", &prefix[..open]);
    }
    match line.split_once("duration_ms ") {
        Some((before, _)) => format!("{before}duration_ms …"),
        None => line.to_owned(),
    }
}

/// A test file that imports vitest needs vitest's runner: it is named, skipped, and the
/// others decide the exit status; when every selected file imports it, nothing ran: exit 1.
#[test]
fn a_test_file_that_imports_vitest_is_named_and_skipped() {
    let dir = copy_fixture("test", "vitest");
    let output = run_in(dir.path(), &["test"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(exit_code(&output), 0, "{stdout}{stderr}");
    assert!(stderr.contains("bot/hooks/usage.test.ts imports vitest: run it with npx vitest (skipped)\n"), "{stderr}");
    assert!(!stderr.contains("order.test.ts imports vitest"), "{stderr}");
    assert!(stdout.contains("order adds up"), "{stdout}");
    assert!(!format!("{stdout}{stderr}").contains("Vitest failed"), "{stdout}{stderr}");
    let output = run_in(dir.path(), &["test", "bot/hooks/usage.test.ts"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 1, "{stderr}");
    assert!(stderr.contains("error: every test file imports vitest (1 file), so no test ran\n"), "{stderr}");
}

#[test]
fn a_failing_test_fails_the_run_and_each_result_is_printed() {
    let dir = copy_fixture("test", "results");
    let text = test_transcript(dir.path(), &[]);
    // Node 20's spec reporter also prints a failure's error where the test ends, and leaves
    // `diff` out of an AssertionError: Node 22 and later print it only in the list of failures.
    let suffix = if common::node_major() <= 20 { "node20" } else { "" };
    insta::with_settings!({ snapshot_suffix => suffix }, { insta::assert_snapshot!(text) });
    assert!(text.contains("exit: 1\n"), "{text}");
}

#[test]
fn passing_tests_exit_0_and_patterns_pick_the_files() {
    let dir = copy_fixture("test", "results");
    let by_name = test_transcript(dir.path(), &["usage*"]);
    insta::assert_snapshot!(by_name);
    assert!(by_name.contains("exit: 0\n"), "{by_name}");
    // The same file by its path, `*` within a folder, `**` across folders.
    for pattern in ["bot/hooks/usage.test.ts", "./bot/hooks/*.test.ts", "bot/**/usage.*"] {
        let output = run_in(dir.path(), &["test", pattern]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(exit_code(&output), 0, "{pattern}: {stdout}");
        assert!(stdout.contains("ℹ tests 3\n"), "{pattern}: {stdout}");
    }
    let both = run_in(dir.path(), &["test", "usage.test.ts", "paging.spec.ts"]);
    assert!(String::from_utf8_lossy(&both.stdout).contains("ℹ tests 5\n"));
    assert_eq!(exit_code(&both), 1);
}

#[test]
fn a_pattern_matching_nothing_fails_and_a_bad_glob_is_a_usage_error() {
    let dir = copy_fixture("test", "results");
    insta::assert_snapshot!(test_transcript(dir.path(), &["billing*", "bot/billing/**"]));
    insta::assert_snapshot!(test_transcript(dir.path(), &["bot/["]));
}

/// Jest's folders beside the hooks: a test file in `bot/hooks/__tests__` is run by `test`
/// and skipped by discovery, as hosting skips it. Any other module there (a real hook, a
/// helper, a mock) is a hook to hosting, named `__tests__/…`, which it refuses: `validate`
/// says so where it is, `run` refuses the project as hosting would, and `test` does not
/// count it as a test that passed.
#[test]
fn a_test_in_jest_s_folder_runs_and_any_other_module_there_is_a_hook_hosting_refuses() {
    let dir = copy_fixture("test", "test-folders");
    let text = test_transcript(dir.path(), &[]);
    assert!(text.starts_with("$ agent-sdk test\nexit: 0\n"), "{text}");
    assert!(
        text.contains("✔ a completed turn is charged by its output tokens") && text.contains("ℹ tests 1\n"),
        "{text}"
    );
    let by_path = test_transcript(dir.path(), &["bot/hooks/__tests__/*"]);
    assert!(by_path.contains("ℹ tests 1\n"), "{by_path}");
    let validate = transcript(dir.path(), &["validate"]);
    assert_eq!(
        validate,
        "$ agent-sdk validate\nexit: 0\n----- stdout -----\nFound no problems in 1 file; 1 hook would load.\n"
    );

    let smoke = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"turn.completed\"() {} } });\n";
    std::fs::write(dir.path().join("bot/hooks/__tests__/smoke-hook.ts"), smoke).unwrap();
    let validate = run_in(dir.path(), &["validate", "--format", "concise"]);
    let stdout = String::from_utf8_lossy(&validate.stdout);
    assert_eq!(exit_code(&validate), 1, "{stdout}");
    assert_eq!(
        stdout.trim_end(),
        "bot/hooks/__tests__/smoke-hook.ts:1:1: error hooks::reserved-name is in a `__tests__` folder but is not a test file (`*.test.*`, `*.spec.*`), so hosting loads it as a hook named `__tests__/smoke-hook` and refuses the name (`__` is reserved for extensions)"
    );
    let run = run_in(dir.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&run), 1, "{}", String::from_utf8_lossy(&run.stderr));
    let text = test_transcript(dir.path(), &[]);
    assert!(text.contains("ℹ tests 1\n") && !text.contains("smoke-hook"), "{text}");
}

/// A test file that declares no test tested nothing: Node counts it as one passing test,
/// named after the file; `test` fails the run and says which file.
#[test]
fn a_test_file_that_declares_no_test_is_no_pass() {
    let dir = copy_fixture("test", "test-folders");
    std::fs::write(dir.path().join("bot/hooks/__tests__/later.test.ts"), "// TODO: test the refunds\nexport {};\n")
        .unwrap();
    let output = run_in(dir.path(), &["test"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 1, "{stderr}");
    assert!(
        stderr.ends_with("error: `bot/hooks/__tests__/later.test.ts` declares no test, so it tested nothing: a test file passes when its tests do (`test(…)` from node:test, or the kit's)\n"),
        "{stderr}"
    );
    let one = run_in(dir.path(), &["test", "bot/hooks/__tests__/usage.test.ts"]);
    assert_eq!(exit_code(&one), 0, "{}", String::from_utf8_lossy(&one.stderr));
}

#[test]
fn a_project_without_tests_says_so_and_exits_0() {
    let dir = copy_fixture("test", "empty");
    insta::assert_snapshot!(test_transcript(dir.path(), &[]));
}

#[test]
fn a_folder_without_an_agent_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(dir.path(), &["test"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 1, "{stderr}");
    assert!(stderr.contains("error: there is no agent here, so no test ran"), "{stderr}");
}

#[test]
fn a_test_file_with_errors_is_reported_like_validate_and_the_others_run() {
    let dir = copy_fixture("test", "results");
    std::fs::write(
        dir.path().join("bot/hooks/broken.test.ts"),
        "import { test } from \"node:test\";\ntest(\"x\", () => {\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("bot/hooks/missing.test.ts"),
        "import { nothing } from \"./nowhere.js\";\nnothing();\n",
    )
    .unwrap();
    let text = test_transcript(dir.path(), &["usage*", "broken*", "missing*"]);
    insta::assert_snapshot!(text);
    assert!(text.contains("exit: 1\n") && text.contains("ℹ pass 3\n"), "{text}");
}

#[test]
fn a_tsconfig_paths_alias_resolves_in_tests_and_in_the_hooks_they_import() {
    let dir = copy_fixture("test", "paths");
    let text = test_transcript(dir.path(), &[]);
    assert!(text.starts_with("$ agent-sdk test\nexit: 0\n"), "{text}");
    assert!(text.contains("✔ the alias resolves in the test and in the hook it imports"), "{text}");
}

#[test]
fn typescript_in_a_commonjs_package_runs_as_commonjs() {
    let dir = copy_fixture("test", "commonjs");
    let text = test_transcript(dir.path(), &[]);
    assert!(text.starts_with("$ agent-sdk test\nexit: 0\n"), "{text}");
    assert!(text.contains("✔ runs as CommonJS, with require and __filename"), "{text}");
}

#[test]
fn the_test_kit_stubs_ctx_makes_events_and_dispatches_as_the_runtime_does() {
    let dir = copy_fixture("test", "kit");
    let text = test_transcript(dir.path(), &[]);
    insta::assert_snapshot!(text);
    assert!(text.contains("exit: 0\n") && text.contains("ℹ fail 0\n"), "{text}");
}

/// An extension's hooks, from a workspace package whose `exports` point at TypeScript: its
/// author's tests dispatch `mount.hooks.<key>` through the kit, and the project's tests
/// import the project's mounts (`fixtures/test/extension`).
#[test]
fn an_extension_s_hooks_dispatch_through_the_test_kit() {
    let dir = copy_fixture("test", "extension");
    common::link_workspace_packages(dir.path());
    let text = test_transcript(dir.path(), &[]);
    insta::assert_snapshot!(text);
    assert!(text.contains("exit: 0\n") && text.contains("ℹ pass 3\n"), "{text}");
}

#[test]
fn the_kit_s_events_carry_the_data_run_event_dispatches() {
    let dir = copy_fixture("test", "kit");
    let output = run_in(dir.path(), &["test", "kit.test.ts"]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stdout));
    // Written by the kit's test: `events.<type>().data` for every type the kit has.
    let kit: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("events.json")).unwrap()).unwrap();
    let types: Vec<&str> = agent_sdk::vocabulary::EVENTS.iter().map(|event| event.name).collect();
    assert_eq!(kit.keys().map(String::as_str).collect::<Vec<_>>(), types, "one maker per event type, in order");
    for (event_type, data) in &kit {
        let ran = run_in(dir.path(), &["run", "--event", event_type, "--json"]);
        let envelope: serde_json::Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert_eq!(&envelope["data"], data, "{event_type}");
    }
    // The kit merges `data` deeply, as `run --data` does.
    let merged: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("merged.json")).unwrap()).unwrap();
    let given = [
        ("turn.completed", r#"{"usage":{"inputTokens":1200,"outputTokens":300}}"#),
        ("actions.requested", r#"{"calls":[{"toolName":"fetch_page"}]}"#),
    ];
    for (event_type, data) in given {
        let ran = run_in(dir.path(), &["run", "--event", event_type, "--data", data, "--json"]);
        let envelope: serde_json::Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert_eq!(envelope["data"], merged[event_type], "{event_type}");
    }
    assert_eq!(merged["turn.completed"]["usage"]["cacheReadTokens"], 0);
    assert_eq!(merged["actions.requested"]["calls"][0]["callId"], "call_1");
}

/// What `--watch` has printed so far, both streams.
fn printed(dir: &Path) -> (String, String) {
    let read = |name| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    (read("watch.out"), read("watch.err"))
}

/// Waits until `done` holds for what `--watch` printed (a failsafe deadline, not a timing).
fn wait_for(dir: &Path, what: &str, done: impl Fn(&str, &str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (out, err) = printed(dir);
        if done(&out, &err) {
            return;
        }
        assert!(Instant::now() < deadline, "never saw {what}\n--- stdout ---\n{out}--- stderr ---\n{err}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn watch_reruns_the_tests_when_a_file_changes_until_ctrl_c() {
    let dir = copy_fixture("test", "paths");
    let logs = tempfile::tempdir().unwrap();
    let mut child = common::agent_sdk()
        .args(["test", "--watch"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(logs.path().join("watch.out")).unwrap())
        .stderr(std::fs::File::create(logs.path().join("watch.err")).unwrap())
        .spawn()
        .unwrap();
    let waiting = |err: &str| err.matches("waiting for changes").count();
    wait_for(logs.path(), "the first run", |_, err| waiting(err) == 1);
    assert!(printed(logs.path()).0.contains("ℹ pass 1\n"));

    // A failing assertion in the test file: the rerun reports it.
    let test_file = dir.path().join("bot/hooks/outcome.test.ts");
    let source = std::fs::read_to_string(&test_file).unwrap();
    std::fs::write(&test_file, source.replace("\"cancelled by the user\")", "\"cancelled\")")).unwrap();
    wait_for(logs.path(), "a second run", |_, err| waiting(err) == 2);
    let (out, err) = printed(logs.path());
    assert!(err.contains("the code changed: running the tests again"), "{err}");
    assert!(out.contains("ℹ fail 1\n"), "{out}");

    // A change to a module the test imports (through the alias) counts too.
    let labels = dir.path().join("bot/lib/labels.ts");
    std::fs::write(
        &labels,
        std::fs::read_to_string(&labels).unwrap().replace("\"cancelled by the user\"", "\"cancelled\""),
    )
    .unwrap();
    wait_for(logs.path(), "a third run", |_, err| waiting(err) == 3);
    let out = printed(logs.path()).0;
    let last_run = out.rsplit("ℹ tests").next().unwrap_or_default();
    assert!(last_run.contains("ℹ pass 1\n"), "{out}");

    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
}

#[test]
fn without_node_it_is_an_environment_error() {
    let dir = copy_fixture("test", "results");
    let output = common::agent_sdk()
        .args(["test"])
        .current_dir(dir.path())
        .env("AGENT_SDK_NODE", "/nonexistent/node")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 2, "{stderr}");
    assert!(stderr.contains("Node.js was not found (`/nonexistent/node`)"), "{stderr}");
}

#[test]
fn decorators_and_their_metadata_work_in_tests_as_in_run() {
    let dir = copy_fixture("runtime", "decorators-legacy");
    let test_file = "import { test } from \"node:test\";\n\
        import { dispatch, events } from \"@cursor/bdk/testing\";\n\
        import metadata from \"./metadata\";\n\
        import pricing from \"./pricing\";\n\
        test(\"both hooks\", async () => {\n\
          await dispatch(metadata, events[\"turn.completed\"]());\n\
          await dispatch(pricing, events[\"turn.completed\"]());\n\
        });\n";
    std::fs::write(dir.path().join("bot/hooks/decorated.test.ts"), test_file).unwrap();
    let tested = common::run_recorded(dir.path(), &["test"], &[]);
    assert_eq!(exit_code(&tested.output), 0, "{}", tested.both());
    let ran = common::run_recorded(dir.path(), &["run", "--event", "turn.completed"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(tested.record.len(), 2, "{}", tested.both());
    assert_eq!(tested.record, ran.record);
}

#[test]
fn tests_read_no_env_file_unless_one_is_named() {
    let dir = copy_fixture("run", "env");
    std::fs::write(dir.path().join(".env"), "ACME_REGION=eu-west\nACME_TIER=free\n").unwrap();
    let test_file = "import assert from \"node:assert/strict\";\n\
        import { test } from \"node:test\";\n\
        test(\"env\", () => {\n\
          assert.equal(process.env.ACME_REGION, \"eu-west\");\n\
          assert.equal(process.env.ACME_TIER, \"free\");\n\
        });\n";
    std::fs::write(dir.path().join("bot/hooks/env.test.ts"), test_file).unwrap();
    // A developer's `.env` does not make a test pass that fails on CI (vitest and jest read none).
    let output = run_in(dir.path(), &["test"]);
    assert_eq!(exit_code(&output), 1, "{}", String::from_utf8_lossy(&output.stdout));
    let named = run_in(dir.path(), &["test", "--env-file", ".env"]);
    assert_eq!(exit_code(&named), 0, "{}", String::from_utf8_lossy(&named.stdout));
    // Accepted from scripts written when tests read `.env`; it changes nothing.
    let skipped = run_in(dir.path(), &["test", "--no-env-file"]);
    assert_eq!(exit_code(&skipped), 1, "{}", String::from_utf8_lossy(&skipped.stdout));
}

/// A test with its own name in its result line, importing the project's hook from `hook`.
fn write_test(dir: &Path, path: &str, hook: &str, name: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = format!(
        "import assert from \"node:assert/strict\";\nimport {{ test }} from \"node:test\";\nimport hook from \"{hook}\";\n\ntest(\"{name}\", () => {{\n  assert.ok(hook.events);\n}});\n"
    );
    std::fs::write(file, text).unwrap();
}

#[test]
fn root_test_folders_hold_tests_and_a_named_file_anywhere_in_the_project_runs() {
    let dir = copy_fixture("test", "empty");
    write_test(dir.path(), "test/usage.test.ts", "../bot/hooks/audit.js", "from test/");
    write_test(dir.path(), "tests/unit/paging.spec.ts", "../../bot/hooks/audit.js", "from tests/");
    write_test(dir.path(), "scripts/smoke.ts", "../bot/hooks/audit.js", "a named file");
    // Never in a package's own tests.
    write_test(dir.path(), "test/node_modules/dep/dep.test.ts", "../../../bot/hooks/audit.js", "from node_modules");

    let all = test_transcript(dir.path(), &[]);
    assert!(all.starts_with("$ agent-sdk test\nexit: 0\n"), "{all}");
    assert!(all.contains("✔ from test/") && all.contains("✔ from tests/") && all.contains("ℹ tests 2\n"), "{all}");

    // As the shell completes it, from the project folder.
    let one = test_transcript(dir.path(), &["test/usage.test.ts"]);
    assert!(one.contains("exit: 0\n") && one.contains("✔ from test/") && one.contains("ℹ tests 1\n"), "{one}");
    let named = test_transcript(dir.path(), &["scripts/smoke.ts", "paging*"]);
    assert!(named.contains("exit: 0\n"), "{named}");
    assert!(
        named.contains("✔ a named file") && named.contains("✔ from tests/") && named.contains("ℹ tests 2\n"),
        "{named}"
    );
}

#[test]
fn a_pattern_that_matches_nothing_fails_even_beside_one_that_matches_or_with_no_tests_at_all() {
    let dir = copy_fixture("test", "empty");
    // No test anywhere: a pattern is a typo or a moved file, never green on nothing.
    let none = test_transcript(dir.path(), &["test/usage.test.ts"]);
    assert!(none.contains("exit: 1\n"), "{none}");
    assert!(
        none.contains("error: no test file matches `test/usage.test.ts` (0 test files in bot/), so no test ran"),
        "{none}"
    );

    write_test(dir.path(), "bot/hooks/audit.test.ts", "./audit.js", "audit");
    let one_missing = test_transcript(dir.path(), &["audit*", "billing*"]);
    assert!(one_missing.contains("exit: 1\n"), "{one_missing}");
    assert!(one_missing.contains("error: no test file matches `billing*` (1 test file in bot/)"), "{one_missing}");
    assert!(!one_missing.contains("✔ audit"), "{one_missing}");

    let outside = tempfile::tempdir().unwrap();
    write_test(outside.path(), "elsewhere.test.ts", "node:os", "elsewhere");
    let elsewhere = outside.path().join("elsewhere.test.ts");
    let refused = test_transcript(dir.path(), &[elsewhere.to_str().unwrap()]);
    assert!(refused.contains("exit: 2\n") && refused.contains("is outside the project"), "{refused}");
}

/// The major and minor version of the Node.js the tests run in (`(22, 8)`).
fn node_version() -> (u32, u32) {
    let output = Command::new(common::node()).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&output.stdout);
    let mut parts = version.trim().trim_start_matches('v').split('.').map(|part| part.parse().unwrap());
    (parts.next().unwrap(), parts.next().unwrap())
}

/// `agent-sdk test <args>` in `cwd` with `env` added (colourless, no NODE_OPTIONS of the
/// developer's): exit code, stdout, stderr.
fn test_with(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = common::agent_sdk();
    command
        .arg("test")
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("NODE_OPTIONS")
        .envs(env.iter().copied());
    common::outcome(command)
}

/// Each `--reporter` writes to the `--reporter-destination` in the same place, as Node pairs
/// them; a file is named from the current folder and its folders are made. What does not
/// pair up, or asks for coverage without `--coverage`, is a usage error before anything runs.
#[test]
fn reporters_write_to_their_destinations_paired_as_node_pairs_them() {
    let dir = copy_fixture("test", "reporting");
    let bot = dir.path().join("bot");
    let args = ["--reporter", "tap", "--reporter", "junit"];
    let (code, stdout, stderr) = test_with(
        &bot,
        &[&args[..], &["--reporter-destination", "stdout", "--reporter-destination", "out/junit.xml"]].concat(),
        &[],
    );
    if node_version() < (20, 8) {
        // Node's junit reporter came in 20.8: refused before anything runs.
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stderr.starts_with("error: --reporter junit needs Node.js ≥ 20.8"), "{stderr}");
    } else {
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(stdout.starts_with("TAP version 13\n") && stdout.contains("not ok 2 - counts\n"), "{stdout}");
        let junit = std::fs::read_to_string(bot.join("out/junit.xml")).unwrap();
        assert!(junit.starts_with("<?xml") && junit.contains("<testcase name=\"charges\""), "{junit}");
        assert!(junit.contains("<failure") && junit.contains("2 !== 3"), "{junit}");
    }

    let (code, stdout, _) = test_with(dir.path(), &["--reporter", "dot"], &[]);
    assert_eq!(code, 1);
    assert!(stdout.starts_with(".X"), "{stdout}");

    // One destination without --reporter is the default reporter's.
    let (code, stdout, _) = test_with(dir.path(), &["--reporter-destination", "reports/spec.txt"], &[]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    let spec = std::fs::read_to_string(dir.path().join("reports/spec.txt")).unwrap();
    assert!(spec.contains("✖ counts"), "{spec}");

    insta::assert_snapshot!(common::transcripts(
        dir.path(),
        &[
            &["test", "--reporter", "tap", "--reporter", "junit"],
            &["test", "--reporter", "dot", "--reporter", "junit", "--reporter-destination", "stdout"],
            &["test", "--reporter-destination", "a.txt", "--reporter-destination", "b.txt"],
            &["test", "--reporter", "lcov", "--reporter-destination", "lcov.info"],
        ],
    ));
}

/// `--reporter github`: a GitHub Actions error per failed test, titled by its name after its
/// suite's, on the line of the `.ts` test file where it failed, escaped as the runner
/// parses it. In a GitHub Actions job (GITHUB_ACTIONS=true) they follow the default `spec`
/// report, as vitest adds its `github-actions` reporter; never elsewhere, nor beside a
/// reporter chosen with --reporter unless `github` is one.
#[test]
fn github_annotations_name_each_failed_test_on_its_ts_line() {
    let dir = copy_fixture("test", "reporting");
    let annotations = "::error file=bot/hooks/billing.test.ts,line=11,col=11,title=billing > refunds%2C in full::refund failed: 100%25 of 2%0Alines\n\
        ::error file=bot/hooks/billing.test.ts,line=16,col=10,title=counts::Expected values to be strictly equal:%0A%0A2 !== 3\n";
    let (code, stdout, _) = test_with(dir.path(), &["--reporter", "github"], &[]);
    assert_eq!((code, stdout.as_str()), (1, annotations));

    let (code, stdout, _) = test_with(dir.path(), &[], &[("GITHUB_ACTIONS", "true")]);
    assert_eq!(code, 1);
    assert!(stdout.contains("✖ counts") && stdout.ends_with(annotations), "{stdout}");

    let (_, stdout, _) = test_with(dir.path(), &[], &[]);
    assert!(!stdout.contains("::error"), "{stdout}");
    let (_, stdout, _) = test_with(dir.path(), &["--reporter", "dot"], &[("GITHUB_ACTIONS", "true")]);
    assert!(!stdout.contains("::error"), "{stdout}");

    // Named from the current folder, as `validate --format github` names them.
    let parent = dir.path().parent().unwrap();
    let name = dir.path().file_name().unwrap().to_str().unwrap();
    let (_, stdout, _) = test_with(parent, &["--dir", name, "--reporter", "github"], &[]);
    assert!(stdout.starts_with(&format!("::error file={name}/bot/hooks/billing.test.ts,line=11,")), "{stdout}");
}

/// `--test-name-pattern` (`-t`, as in vitest and jest) runs the tests whose name, or whose
/// suite's, matches one of the patterns (Node's own option). A pattern no test matches is a
/// typo or a renamed test: exit 1, never green on nothing (Node 20 reports every test
/// skipped, Node 22 and later a passing file).
#[test]
fn a_test_name_pattern_runs_the_tests_it_names_and_one_that_names_none_fails() {
    let dir = copy_fixture("test", "reporting");
    let (code, stdout, stderr) = test_with(dir.path(), &["-t", "charges"], &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("✔ charges") && stdout.contains("ℹ pass 1\n") && stdout.contains("ℹ fail 0\n"), "{stdout}");

    let (code, stdout, _) = test_with(dir.path(), &["--test-name-pattern", "/CHARGES/i", "-t", "^counts$"], &[]);
    assert_eq!(code, 1);
    assert!(stdout.contains("ℹ pass 1\n") && stdout.contains("ℹ fail 1\n"), "{stdout}");

    let (code, _, stderr) = test_with(dir.path(), &["-t", "refund$", "-t", "discount"], &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stderr, "error: no test's name matches --test-name-pattern `refund$` or `discount`, so no test ran\n");
    let (code, _, stderr) = test_with(dir.path(), &["-t", "refund$"], &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stderr, "error: no test's name matches --test-name-pattern `refund$`, so no test ran\n");
}

/// `--coverage`: Node's coverage of the agent's code, after the results, on the `.ts`
/// sources (`lcov` writes it for other tools). Node ≥ 22.8 names the uncovered lines
/// exactly (here the one line no test runs: the paging of a turn that was not cancelled)
/// and, with agent-sdk's `--test-coverage-exclude`s, lists neither the test files nor
/// agent-sdk's own modules; an older Node gets them wrong or leaves them in, and is said to.
#[test]
fn coverage_is_reported_on_the_ts_sources_of_the_agent() {
    let dir = copy_fixture("test", "results");
    let version = node_version();
    // Node's lcov reporter came in 20.11.
    let lcov_args = ["--reporter", "spec", "--reporter", "lcov", "--reporter-destination", "stdout"];
    let lcov_args = if version >= (20, 11) { &lcov_args[..] } else { &[] };
    let lcov_file = ["--reporter-destination", "coverage/lcov.info"];
    let lcov_file = if version >= (20, 11) { &lcov_file[..] } else { &[] };
    let (code, stdout, stderr) =
        test_with(dir.path(), &[&["usage*", "--coverage"], lcov_args, lcov_file].concat(), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = stdout.split("ℹ start of coverage report\n").nth(1).unwrap_or_else(|| panic!("{stdout}"));
    let lcov = std::fs::read_to_string(dir.path().join("coverage/lcov.info")).unwrap_or_default();
    assert_eq!(lcov.contains("SF:bot/hooks/usage.ts\n"), version >= (20, 11), "{lcov}");
    if version >= (22, 8) {
        assert!(report.contains("ℹ   usage.ts |  95.00 |    85.71 |  100.00 | 17\n"), "{report}");
        assert!(lcov.contains("DA:17,0\n") && !lcov.contains("DA:16,0\n"), "{lcov}");
        assert!(!report.contains("usage.test.ts") && !report.contains(".agent-sdk"), "{report}");
        assert_eq!(stderr, "");
    } else {
        // Node 20.13 to 22.7 map onto the `.ts` lines, inexactly, and an older one not at
        // all; before 22.5 they cannot leave files out.
        assert!(report.contains("bot/hooks/usage.ts "), "{report}");
        let said = if version >= (20, 13) {
            "maps coverage onto the `.ts` lines inexactly (fixed in Node.js 22.8)"
        } else {
            "measures coverage on the compiled JavaScript"
        };
        assert!(stderr.contains(said), "{stderr}");
        assert_eq!(stderr.contains("cannot leave files out"), version < (22, 5), "{stderr}");
    }

    let (code, stdout, stderr) = test_with(dir.path(), &["usage*", "--coverage", "--reporter", "dot"], &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stderr.ends_with("note: --coverage: only the spec, tap and lcov reporters report it\n"), "{stderr}");
}

/// Everything after `--` goes to Node's test runner as it is, before the test files, with
/// PATTERNs still before `--`; an option Node refuses is a usage error (exit 2).
#[test]
fn arguments_after_dashes_go_to_node_s_test_runner() {
    let dir = copy_fixture("test", "empty");
    std::fs::write(dir.path().join("preload.mjs"), "globalThis.preloaded = \"by --import\";\n").unwrap();
    let test_file = "import assert from \"node:assert/strict\";\n\
        import { test } from \"node:test\";\n\
        test(\"preloaded\", () => {\n\
          assert.equal(globalThis.preloaded, \"by --import\");\n\
        });\n";
    std::fs::write(dir.path().join("bot/hooks/preload.test.ts"), test_file).unwrap();
    write_test(dir.path(), "bot/hooks/audit.test.ts", "./audit.js", "audit");

    let (code, stdout, stderr) = test_with(dir.path(), &["preload*", "--", "--import", "./preload.mjs"], &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("✔ preloaded") && stdout.contains("ℹ tests 1\n"), "{stdout}");
    let (code, _, _) = test_with(dir.path(), &["preload*"], &[]);
    assert_eq!(code, 1);

    let (code, _, stderr) = test_with(dir.path(), &["--", "--no-such-flag"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("bad option: --no-such-flag\n"), "{stderr}");
    assert!(
        stderr.ends_with("error: Node.js refused an option of its test runner (see above); the arguments after `--` go to it as they are\n"),
        "{stderr}"
    );
}

/// NODE_OPTIONS reaches the tests as it is set (the shell's, or an environment file's); one
/// Node refuses is said in Node's own words and names NODE_OPTIONS (exit 2), as `run` says it.
#[test]
fn node_options_reach_the_tests_and_one_node_refuses_is_an_environment_error() {
    let dir = copy_fixture("test", "empty");
    let preload = dir.path().join("preload.cjs");
    std::fs::write(&preload, "globalThis.preloaded = \"by NODE_OPTIONS\";\n").unwrap();
    let test_file = "import assert from \"node:assert/strict\";\n\
        import { test } from \"node:test\";\n\
        test(\"preloaded\", () => {\n\
          assert.equal(globalThis.preloaded, \"by NODE_OPTIONS\");\n\
        });\n";
    std::fs::write(dir.path().join("bot/hooks/preload.test.ts"), test_file).unwrap();
    let require = format!("--require {}", preload.display());
    let (code, stdout, stderr) = test_with(dir.path(), &[], &[("NODE_OPTIONS", &require)]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    let (code, _, stderr) = test_with(dir.path(), &[], &[("NODE_OPTIONS", "--no-such-flag")]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr
            .starts_with("error: Node.js refused to start with NODE_OPTIONS=`--no-such-flag` (fix it or unset it):\n"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with(": --no-such-flag is not allowed in NODE_OPTIONS\n") && !stderr.contains("too old"),
        "{stderr}"
    );

    std::fs::write(dir.path().join("ci.env"), "NODE_OPTIONS=--bogus\n").unwrap();
    let (code, _, stderr) = test_with(dir.path(), &["--env-file", "ci.env"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("NODE_OPTIONS=`--bogus`") && stderr.ends_with(": --bogus is not allowed in NODE_OPTIONS\n"),
        "{stderr}"
    );
}

/// SIGTERM and SIGHUP stop `test` as Ctrl-C does: the run ends with every process it
/// started (a test that never ends included), exit 128 + the signal.
#[test]
fn sigterm_and_sighup_end_the_tests_and_every_process_they_started() {
    for (signal, code) in [("-TERM", 143), ("-HUP", 129), ("-INT", 130)] {
        let dir = copy_fixture("test", "empty");
        let pid_file = dir.path().join("test-pid.txt");
        std::fs::create_dir_all(dir.path().join("test")).unwrap();
        std::fs::write(
            dir.path().join("test/forever.test.ts"),
            "import { writeFileSync } from \"node:fs\";\nimport { test } from \"node:test\";\n\n\
             test(\"never ends\", async () => {\n  writeFileSync(process.env.PID_FILE!, String(process.pid));\n  \
             await new Promise(() => setInterval(() => {}, 1000));\n});\n",
        )
        .unwrap();
        let mut child = common::agent_sdk()
            .arg("test")
            .current_dir(dir.path())
            .env("PID_FILE", &pid_file)
            .env_remove("NODE_OPTIONS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let pid = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file).ok().filter(|pid| !pid.is_empty()) {
                break pid;
            }
            assert!(started.elapsed() < std::time::Duration::from_secs(30), "{signal}: the test never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
        assert_eq!(child.wait().unwrap().code(), Some(code), "{signal}");
        let ended = std::time::Instant::now();
        while common::still_runs(&pid) {
            assert!(
                ended.elapsed() < std::time::Duration::from_secs(5),
                "{signal}: the test's process {pid} still runs"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Hooks that record with `@opentelemetry/api` and `@opentelemetry/api-logs`, as the vendor's
/// docs write them, are unit-tested through the kit's `telemetry`: meters (observables when
/// collected), spans with their parents, events and status, and log records, though the
/// test imports the hooks before the kit (`fixtures/otel/api-metrics`, the real API installed).
#[test]
fn the_kit_records_what_hooks_measure_trace_and_log_with_the_opentelemetry_api() {
    let installed = common::fixture("otel", "api-metrics").join("node_modules/@opentelemetry/api");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/api-metrics`");
    let dir = copy_fixture("otel", "api-metrics");
    let text = test_transcript(dir.path(), &[]);
    insta::assert_snapshot!(text);
    assert!(text.contains("exit: 0\n") && text.contains("ℹ pass 4\n"), "{text}");
}

/// Where the project installs the OpenTelemetry SDK, its providers are in charge: the kit
/// records nothing, and says so rather than hand a test an empty list.
#[test]
fn the_kit_stands_aside_for_the_opentelemetry_sdk_and_says_so() {
    let installed = common::fixture("otel", "own-sdk").join("node_modules/@opentelemetry/sdk-metrics");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/own-sdk`");
    let dir = copy_fixture("otel", "own-sdk");
    let test = "import assert from \"node:assert/strict\";\nimport { test } from \"node:test\";\nimport { telemetry } from \"@cursor/bdk/testing\";\n\ntest(\"reads the kit's metrics\", () => {\n  assert.deepEqual(telemetry.metrics, []);\n});\n";
    std::fs::write(dir.path().join("bot/hooks/kit.test.ts"), test).unwrap();
    let text = test_transcript(dir.path(), &[]);
    assert!(text.contains("exit: 1\n"), "{text}");
    assert!(
        text.contains("telemetry.metrics: the project installs @opentelemetry/sdk-metrics, so its own OpenTelemetry providers are in charge and the test kit records nothing"),
        "{text}"
    );
}
