//! `agent-sdk init` through the real binary: the project it makes validates, runs, passes
//! its tests and type-checks with the real `tsc`; its hooks import the SDK package of the
//! layout (or `--sdk`); its `package.json` names the SDK packages, `@types/node` of the
//! Node.js on PATH and a `validate` script that fails on warnings; an existing
//! `package.json` is told what it lacks, or given it (`--update-package-json`); and it never
//! overwrites a file without `--force`. (tests/it/npm_use.rs runs npm, pnpm and yarn on it.)

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::snapshot::Filters;
use crate::common::{exit_code, root, run_in, transcript};

fn agent_sdk(cwd: &Path, args: &[&str]) -> std::process::Output {
    run_in(cwd, args)
}

fn text(output: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

#[test]
fn a_new_project_validates_runs_and_passes_its_tests() {
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(transcript(dir.path(), &["init", "demo"]));
    let demo = dir.path().join("demo");
    for args in [
        &["validate", "--dir", "demo"][..],
        &["run", "--dir", "demo", "--message", "hi"],
        &["test", "--dir", "demo"],
        &["info", "--dir", "demo", "--json"],
    ] {
        let output = agent_sdk(dir.path(), args);
        assert_eq!(exit_code(&output), 0, "{args:?}:\n{}", text(&output));
    }
    let tests = text(&agent_sdk(dir.path(), &["test", "--dir", "demo"]));
    assert!(tests.contains("ℹ pass 3") && tests.contains("ℹ fail 0"), "{tests}");
    let info: serde_json::Value =
        serde_json::from_slice(&agent_sdk(dir.path(), &["info", "--dir", "demo", "--json"]).stdout).unwrap();
    assert_eq!(info["agents"][0]["name"], "demo", "{info}");
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(demo.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["type"], "module");
    assert!(std::fs::read_to_string(demo.join(".gitignore")).unwrap().lines().any(|line| line == ".agent-sdk/"));
}

#[test]
fn the_scaffold_type_checks_with_its_own_strict_tsconfig() {
    let tsc = root().join("tests/typescript/node_modules/.bin/tsc");
    assert!(tsc.is_file(), "tsc is not installed: run `npm ci --prefix tests/typescript`");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo", "--layout", "agent"])), 0);
    install_opentelemetry_api(&dir.path().join("demo"));
    // @types/node comes from the test's own install, as `npm install` would bring it.
    let type_roots = root().join("tests/typescript/node_modules/@types");
    let output = Command::new(&tsc)
        .args(["--noEmit", "-p", "tsconfig.json", "--typeRoots"])
        .arg(&type_roots)
        .current_dir(dir.path().join("demo"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let tsconfig = std::fs::read_to_string(dir.path().join("demo/tsconfig.json")).unwrap();
    assert!(tsconfig.contains("\"strict\": true") && tsconfig.contains("\"include\": [\"agent\"]"), "{tsconfig}");
}

#[test]
fn files_that_exist_are_listed_and_nothing_is_written_without_force() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo"])), 0);
    let usage = dir.path().join("demo/bot/hooks/usage.ts");
    std::fs::write(&usage, "// mine\n").unwrap();
    std::fs::remove_file(dir.path().join("demo/bot/hooks/memory.ts")).unwrap();
    insta::assert_snapshot!("refused", transcript(dir.path(), &["init", "demo"]));
    assert_eq!(std::fs::read_to_string(&usage).unwrap(), "// mine\n");
    assert!(!dir.path().join("demo/bot/hooks/memory.ts").exists(), "nothing was written, not even a missing file");

    // A file that holds what init writes is in nobody's way: init can run again.
    let again = agent_sdk(dir.path(), &["init", "demo", "--force"]);
    assert_eq!(exit_code(&again), 0, "{}", text(&again));
    std::fs::write(&usage, "// mine\n").unwrap();
    let forced = agent_sdk(dir.path(), &["init", "demo", "--force"]);
    assert_eq!(exit_code(&forced), 0, "{}", text(&forced));
    assert!(std::fs::read_to_string(&usage).unwrap().contains("defineHook"));
    assert!(text(&forced).contains("bot/hooks/usage.ts               overwritten (--force)"), "{}", text(&forced));
    assert!(text(&forced).contains("bot/hooks/usage.test.ts          unchanged"), "{}", text(&forced));
}

#[test]
fn a_package_json_is_kept_and_a_gitignore_gets_only_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{ \"name\": \"acme-support\", \"version\": \"1.0.0\" }\n")
        .unwrap();
    std::fs::write(dir.path().join(".gitignore"), "node_modules\ndist/").unwrap();
    let output = agent_sdk(dir.path(), &["init", "--name", "ignored-because-package-json-names-it"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("package.json")).unwrap(),
        "{ \"name\": \"acme-support\", \"version\": \"1.0.0\" }\n"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(), "node_modules\ndist/\n.agent-sdk/\n");
    assert!(text(&output).contains("Created the agent \"acme-support\""), "{}", text(&output));
}

/// What the Node.js on PATH (the one `init` asks) says its major version is.
/// The `@types/node` major init names for the Node.js on PATH: its LTS line, 22 or later.
fn node_major() -> String {
    agent_sdk::scaffold::types_node_major(common::major_of("node")).to_string()
}

fn package_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap()
}

/// What init says to an existing package.json, with the `@types/node` major as `[NODE]`.
fn seen(dir: &Path, args: &[&str]) -> String {
    Filters::new().node_range(node_major()).apply(&transcript(dir, args))
}

#[test]
fn an_existing_package_json_is_told_what_it_lacks_and_given_it_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = "{\n    \"name\": \"acme-support\",\n    \"scripts\": { \"test\": \"jest\" },\n    \"devDependencies\": { \"typescript\": \"5.9.3\" }\n}\n";
    std::fs::write(dir.path().join("package.json"), manifest).unwrap();
    insta::assert_snapshot!("told", seen(dir.path(), &["init"]));
    assert_eq!(std::fs::read_to_string(dir.path().join("package.json")).unwrap(), manifest, "kept as it is");

    // Asked, init adds exactly that, in the file's own layout; the rest of the scaffold is
    // there already, as it wrote it, so running init again is no refusal.
    insta::assert_snapshot!("given", seen(dir.path(), &["init", "--update-package-json"]));
    let updated = std::fs::read_to_string(dir.path().join("package.json")).unwrap();
    insta::assert_snapshot!("updated_package_json", Filters::new().node_range(node_major()).apply(&updated));
    let again = seen(dir.path(), &["init", "--update-package-json"]);
    assert!(!again.contains("added the scripts") && !again.contains("lacks"), "nothing is left to add: {again}");
    assert!(
        again.contains("package.json: its \"test\" script stays \"jest\"; the scaffold's is \"agent-sdk test\""),
        "{again}"
    );
}

#[test]
fn a_package_json_that_is_not_json_is_left_alone_and_not_updated() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{ \"name\": \"acme\", }\n").unwrap();
    let told = text(&agent_sdk(dir.path(), &["init"]));
    assert!(told.contains("package.json is not valid JSON") && told.contains("so init left it alone"), "{told}");
    assert!(told.contains("\"@cursor/bdk\": \"file:vendor/agent-sdk/cursor-bdk\""), "{told}");
    let refused = agent_sdk(dir.path(), &["init", "--update-package-json"]);
    assert_eq!(exit_code(&refused), 2, "{}", text(&refused));
    assert!(text(&refused).contains("init did not change package.json"), "{}", text(&refused));
    assert_eq!(std::fs::read_to_string(dir.path().join("package.json")).unwrap(), "{ \"name\": \"acme\", }\n");
}

#[test]
fn the_hooks_import_the_layout_s_sdk_or_the_one_named() {
    let dir = tempfile::tempdir().unwrap();
    for (args, folder, package) in [
        (&["init", "bot-demo"][..], "bot-demo/bot", "@cursor/bdk"),
        (&["init", "agent-demo", "--layout", "agent"], "agent-demo/agent", "@grok/agent-sdk"),
        (&["init", "july-demo", "--layout", "agent", "--sdk", "@cursor/july"], "july-demo/agent", "@cursor/july"),
    ] {
        let output = agent_sdk(dir.path(), args);
        assert_eq!(exit_code(&output), 0, "{args:?}: {}", text(&output));
        for (file, module) in
            [("hooks/usage.ts", "hooks"), ("hooks/usage.test.ts", "testing"), ("hooks/memory.ts", "memory")]
        {
            let source = std::fs::read_to_string(dir.path().join(folder).join(file)).unwrap();
            assert!(source.contains(&format!("from \"{package}/{module}\"")), "{args:?} {file}:\n{source}");
        }
        let project = dir.path().join(folder).parent().unwrap().to_path_buf();
        if folder.ends_with("/agent") {
            let validate = agent_sdk(&project, &["validate"]);
            assert!(text(&validate).contains("is declared in `package.json` but not installed"), "{}", text(&validate));
            install_opentelemetry_api(&project);
        }
        let tests = text(&agent_sdk(&project, &["test"]));
        assert!(tests.contains("ℹ pass 3") && tests.contains("ℹ fail 0"), "{args:?}: {tests}");
    }
    let wrong = agent_sdk(dir.path(), &["init", "x", "--sdk", "@cursor/bdk/hooks"]);
    assert_eq!(exit_code(&wrong), 2);
    assert!(text(&wrong).contains("[possible values: @cursor/bdk, @grok/agent-sdk, @cursor/july]"), "{}", text(&wrong));
}

/// What `npm install` adds to a new project of the agent layout, whose usage hook records
/// with `@opentelemetry/api`: the real package, from the copy `npm ci --prefix
/// fixtures/otel/api-metrics` installs.
fn install_opentelemetry_api(project: &Path) {
    let installed = root().join("fixtures/otel/api-metrics/node_modules/@opentelemetry/api");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/api-metrics`");
    let to = project.join("node_modules/@opentelemetry/api");
    for entry in walkdir::WalkDir::new(&installed) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(&installed).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn node_s_types_follow_the_node_on_path_else_the_newest_lts() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "here"])), 0);
    assert_eq!(package_json(&dir.path().join("here"))["devDependencies"]["@types/node"], format!("^{}", node_major()));
    let without_node = common::agent_sdk()
        .args(["init", "nowhere"])
        .current_dir(dir.path())
        .env("AGENT_SDK_NODE", dir.path().join("no-such-node"))
        .output()
        .unwrap();
    assert_eq!(exit_code(&without_node), 0, "{}", text(&without_node));
    assert_eq!(package_json(&dir.path().join("nowhere"))["devDependencies"]["@types/node"], "^24");
}

/// The scaffold's `npm run validate` is the CI gate: a handler for an event that does not
/// exist never runs, and fails it (a warning, denied).
#[test]
fn the_validate_script_fails_on_a_handler_that_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(exit_code(&agent_sdk(dir.path(), &["init", "demo"])), 0);
    let demo = dir.path().join("demo");
    let npm_run_validate = || {
        Command::new("npm")
            .args(["run", "--silent", "validate"])
            .current_dir(&demo)
            .env("PATH", path_with_binary())
            .output()
            .unwrap()
    };
    let passed = npm_run_validate();
    assert!(passed.status.success(), "{}", text(&passed));
    let usage = demo.join("bot/hooks/usage.ts");
    let source = std::fs::read_to_string(&usage).unwrap().replace("\"turn.completed\"(", "\"turn.complete\"(");
    std::fs::write(&usage, source).unwrap();
    let failed = npm_run_validate();
    assert!(!failed.status.success(), "{}", text(&failed));
    assert!(text(&failed).contains("turn.complete"), "{}", text(&failed));
}

/// PATH with the binary's folder first, as after installing agent-sdk.
fn path_with_binary() -> std::ffi::OsString {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk"));
    std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap()
}

/// A package.json saved with a byte order mark (PowerShell, some editors) names the agent
/// all the same, as npm reads it.
#[test]
fn a_package_json_with_a_byte_order_mark_still_names_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "\u{feff}{ \"name\": \"acme-support\" }\n").unwrap();
    let output = agent_sdk(dir.path(), &["init"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("Created the agent \"acme-support\""), "{}", text(&output));
}

#[test]
fn a_project_of_the_other_layout_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agent/hooks")).unwrap();
    let output = agent_sdk(dir.path(), &["init"]);
    assert_eq!(exit_code(&output), 2);
    assert!(text(&output).contains("already has an `agent/` source folder; a project has one: use `--layout agent`"));
    assert!(!dir.path().join("bot").exists());
}

/// Started through npm (`npx agent-sdk init`, an npm script), the next steps say how npm runs
/// it, as every hint does.
#[test]
fn hints_name_the_package_manager_that_started_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let npm = "npm/10.8.2 node/v22.23.3 linux x64 workspaces/false";
    let output = common::agent_sdk()
        .args(["init", "bot-project"])
        .current_dir(dir.path())
        .env("npm_config_user_agent", npm)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("\n  npx agent-sdk run --message \"hello\"   # one local turn"), "{stdout}");
    assert!(stdout.contains("\n  npx agent-sdk validate                # the CI gate\n"), "{stdout}");
    let output = common::agent_sdk()
        .arg("logs")
        .current_dir(dir.path())
        .env("npm_config_user_agent", "pnpm/9.15.0 npm/? node/v22.23.3 linux x64")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("start one with `pnpm exec agent-sdk dev`"), "{stderr}");
}

/// `transcript` with the temporary folder `root` (as links resolve it) shown as `[ROOT]`.
fn seen_in(root: &Path, args: &[&str]) -> String {
    Filters::new().folder(root, "[ROOT]").apply(&transcript(root, args))
}

/// Links at the scaffold's paths that lead out of the folder: a link to nowhere (which
/// writing would create), a link to someone's file, and a source folder that is a link.
#[test]
fn links_that_lead_out_of_the_folder_are_refused_with_or_without_force() {
    use std::os::unix::fs::symlink;
    let root = tempfile::tempdir().unwrap();
    let (project, outside) = (root.path().join("demo"), root.path().join("outside"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(outside.join("instructions")).unwrap();
    symlink("../outside/package.json", project.join("package.json")).unwrap();
    std::fs::write(outside.join("tsconfig.json"), "// someone's\n").unwrap();
    symlink("../outside/tsconfig.json", project.join("tsconfig.json")).unwrap();
    symlink("../outside/instructions", project.join("agent")).unwrap();
    let refused = seen_in(root.path(), &["init", "demo", "--layout", "agent"]);
    let forced = seen_in(root.path(), &["init", "demo", "--layout", "agent", "--force"]);
    insta::assert_snapshot!(format!("{refused}\n{forced}"));
    assert!(!outside.join("package.json").exists(), "a file was created outside the folder");
    assert_eq!(std::fs::read_to_string(outside.join("tsconfig.json")).unwrap(), "// someone's\n");
    assert_eq!(std::fs::read_dir(outside.join("instructions")).unwrap().count(), 0);
    assert!(!project.join(".gitignore").exists(), "nothing was written");
}

/// A link that stays in the folder is followed, as any path there.
#[test]
fn links_inside_the_folder_are_followed() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("demo");
    std::fs::create_dir_all(project.join("source")).unwrap();
    std::os::unix::fs::symlink("source", project.join("bot")).unwrap();
    let output = agent_sdk(root.path(), &["init", "demo"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert!(project.join("source/hooks/usage.ts").is_file());
}

/// A new project takes the newest vitest cleanly, on the Node.js on PATH (the matrix runs
/// this on Node 22, 24 and 26), even when it was made on Node 20 (`@types/node ^20` made
/// npm fall back to vitest 4 on Node 24, or refuse with ERESOLVE): its `@types/node` and
/// `typescript` are ones vitest's peer ranges accept. Needs the npm registry, as
/// `npm i -D vitest` does for a user.
#[test]
fn a_new_project_installs_the_newest_vitest_beside_its_types() {
    let dir = tempfile::tempdir().unwrap();
    // The project is made where `node` is Node 20 (init asks it its version, nothing more).
    let node_20 = dir.path().join("node-20");
    std::fs::write(&node_20, "#!/bin/sh\necho v20.20.2\n").unwrap();
    std::fs::set_permissions(&node_20, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let made = common::agent_sdk()
        .args(["init", "fresh"])
        .current_dir(dir.path())
        .env("AGENT_SDK_NODE", &node_20)
        .output()
        .unwrap();
    assert_eq!(exit_code(&made), 0, "{}", text(&made));
    let project = dir.path().join("fresh");
    let npm = |dir: &Path, args: &[&str]| {
        let output = Command::new("npm")
            .args(args)
            .args(["--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "npm {args:?}:\n{}", text(&output));
    };
    let vitest_in = |dir: &Path| -> serde_json::Value {
        let manifest = std::fs::read_to_string(dir.join("node_modules/vitest/package.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&manifest).unwrap()["version"].clone()
    };
    // What npm picks for this Node in a project that constrains nothing (the newest vitest
    // whose `engines` admit it: vitest 5 leaves Node 20 out).
    let bare = dir.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    std::fs::write(bare.join("package.json"), r#"{ "name": "bare", "private": true }"#).unwrap();
    npm(&bare, &["install", "--save-dev", "vitest"]);
    npm(&project, &["install"]);
    npm(&project, &["install", "--save-dev", "vitest"]);
    assert_eq!(vitest_in(&project), vitest_in(&bare), "the scaffold made npm fall back to an older vitest");
    // Every peer range is met (npm ls exits 1 on an invalid or missing peer).
    npm(&project, &["ls", "--all"]);
    let tsc =
        Command::new(project.join("node_modules/.bin/tsc")).arg("--noEmit").current_dir(&project).output().unwrap();
    assert!(tsc.status.success(), "the scaffold type-checks with its own typescript:\n{}", text(&tsc));
}

/// In a repository with a tsconfig.json of its own, init keeps it (its build depends on
/// it), puts the hooks' settings in `bot/tsconfig.json`, and says what to add to the
/// repository's when it takes in `bot/` too; `--force` still writes the scaffold's.
#[test]
fn a_repository_s_tsconfig_is_kept_and_the_hooks_get_their_own() {
    let theirs = "{\n  // the repository's build\n  \"compilerOptions\": { \"outDir\": \"dist\" }\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("tsconfig.json"), theirs).unwrap();
    let output = agent_sdk(dir.path(), &["init", "repo"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert_eq!(std::fs::read_to_string(repo.join("tsconfig.json")).unwrap(), theirs);
    let own = std::fs::read_to_string(repo.join("bot/tsconfig.json")).unwrap();
    assert!(own.contains("\"include\": [\".\"]") && own.contains("\"strict\": true"), "{own}");
    insta::assert_snapshot!(text(&output));

    // One that names its own folders is told nothing more.
    let apart = tempfile::tempdir().unwrap();
    std::fs::write(apart.path().join("tsconfig.json"), r#"{ "include": ["src"] }"#).unwrap();
    let output = agent_sdk(apart.path(), &["init"]);
    assert_eq!(exit_code(&output), 0, "{}", text(&output));
    assert!(text(&output).contains("Your tsconfig.json was kept; the hooks' own settings are in bot/tsconfig.json"));
    assert!(!text(&output).contains("\"exclude\""), "{}", text(&output));

    let forced = agent_sdk(apart.path(), &["init", "--force"]);
    assert_eq!(exit_code(&forced), 0, "{}", text(&forced));
    assert!(std::fs::read_to_string(apart.path().join("tsconfig.json")).unwrap().contains("\"include\": [\"bot\"]"));
}
