//! The hook runtime runs every module as Node and tsc would, in place, from its source
//! path: the projects in `fixtures/runtime/` are small, realistic TypeScript projects
//! (tsconfig `paths`/`baseUrl`/`extends`, `import.meta`, CommonJS, `.mts`/`.cts`, legacy
//! decorators, an npm-workspaces monorepo, package.json `imports`, JSON imports, `using`).
//! Each hook records a value it could only compute if that setup really works (to the file
//! in `AGENT_SDK_TEST_RECORD`), and the tests compare those lines exactly.
//!
//! Every positive case is run twice, as a user would: one synthetic `turn.completed`
//! (`run --event turn.completed`) and a whole turn (`run --message hi`). The negative
//! cases each break one thing in an otherwise valid project.

use crate::common;

use std::path::Path;

use crate::common::{Ran, copy_fixture, exit_code, link_workspace_packages, run_recorded};

/// The runtime's own files (its cache, its loader) never show in what a user reads:
/// every path a user sees is one of their sources.
fn assert_no_state_paths(ran: &Ran) {
    assert!(!ran.log().contains(".agent-sdk/"), "stderr names the state root:\n{}", ran.both());
    assert!(!ran.stdout().contains(".agent-sdk/"), "stdout names the state root:\n{}", ran.both());
}

/// Runs `agent-sdk <args>` in `cwd`, the hooks recording to `<cwd>/record.txt`.
fn agent_sdk(cwd: &Path, args: &[&str]) -> Ran {
    // throws-at-import's hook throws when this is not set: it must stay empty.
    let ran = run_recorded(cwd, args, &[("ACME_WEBHOOK_URL", "")]);
    assert_no_state_paths(&ran);
    ran
}

/// `run --event turn.completed` and `run --message hi` on the project at `cwd/dir`: both
/// exit 0, load every hook in `hooks`, and record exactly `on_event` and `on_message`.
fn runs_as_node_would(cwd: &Path, dir: &str, hooks: &[&str], on_event: &[&str], on_message: &[&str]) {
    let runs: [(&[&str], &[&str]); 2] = [
        (&["run", "--dir", dir, "--event", "turn.completed"], on_event),
        (&["run", "--dir", dir, "--message", "hi"], on_message),
    ];
    for (args, expected) in runs {
        let ran = agent_sdk(cwd, args);
        let log = ran.log();
        assert_eq!(exit_code(&ran.output), 0, "agent-sdk {}\n{}", args.join(" "), ran.both());
        for hook in hooks {
            assert!(
                log.contains(&format!("loaded hook \"{hook}\"")),
                "agent-sdk {}: {hook} did not load\n{log}",
                args.join(" ")
            );
        }
        assert!(!log.contains("\" failed to load"), "{log}");
        assert!(!log.contains(" threw: "), "{log}");
        assert_eq!(ran.record, expected, "agent-sdk {}\n{log}", args.join(" "));
    }
}

/// A positive case where the hooks only handle `turn.completed`: both runs record the same.
fn runs_turn_completed(case: &str, hooks: &[&str], expected: &[&str]) {
    let project = copy_fixture("runtime", case);
    runs_as_node_would(project.path(), ".", hooks, expected, expected);
}

/// `validate --format json` on a project: its exit code and diagnostics.
fn validate_json(dir: &Path) -> (i32, Vec<serde_json::Value>, Ran) {
    let ran = agent_sdk(dir, &["validate", "--dir", ".", "--format", "json"]);
    let report: serde_json::Value =
        serde_json::from_str(&ran.stdout()).unwrap_or_else(|error| panic!("{error}\n{}", ran.both()));
    let diagnostics = report["diagnostics"].as_array().unwrap().clone();
    (exit_code(&ran.output), diagnostics, ran)
}

/// The one diagnostic with this code; it must be about `path`.
fn the_diagnostic<'a>(diagnostics: &'a [serde_json::Value], code: &str, path: &str) -> &'a serde_json::Value {
    let found: Vec<&serde_json::Value> = diagnostics.iter().filter(|d| d["code"] == code).collect();
    assert_eq!(found.len(), 1, "exactly one {code}: {diagnostics:#?}");
    assert_eq!(found[0]["path"], path, "{:#}", found[0]);
    found[0]
}

/// A broken import stops `validate` (exit 1, the code, the specifier named) and `run`
/// (exit 1 before any hook runs): a hook that would fail to load never gets as far as a run.
fn an_unresolved_import_is_an_error(case: &str, path: &str, specifier: &str) {
    let project = copy_fixture("runtime", case);
    let validate = agent_sdk(project.path(), &["validate", "--dir", "."]);
    assert_eq!(exit_code(&validate.output), 1, "{}", validate.both());
    assert!(validate.both().contains("hooks::unresolved-import"), "{}", validate.both());
    assert!(validate.both().contains(specifier), "{}", validate.both());

    let (code, diagnostics, ran) = validate_json(project.path());
    assert_eq!(code, 1, "{}", ran.both());
    let diagnostic = the_diagnostic(&diagnostics, "hooks::unresolved-import", path);
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["line"], 2, "it points at the import: {diagnostic:#}");
    assert!(diagnostic["message"].as_str().unwrap().contains(specifier), "{diagnostic:#}");
    assert_eq!(diagnostics.iter().filter(|d| d["severity"] == "error").count(), 1, "{diagnostics:#?}");

    let run = agent_sdk(project.path(), &["run", "--dir", ".", "--event", "turn.completed"]);
    assert_eq!(exit_code(&run.output), 1, "{}", run.both());
    assert!(run.log().contains("hooks::unresolved-import"), "{}", run.log());
    assert!(run.record.is_empty(), "no hook ran: {:?}", run.record);
}

// ---------------------------------------------------------------------------------------
// What must run.

#[test]
fn tsconfig_paths_and_base_url_come_through_extends_in_an_esm_project() {
    let project = copy_fixture("runtime", "tsconfig-paths");
    let on_event = ["alias paths-from-the-base-config Tilde Alias util.ts", "nested/deep two-folders-down"];
    let on_message = ["nested/deep received hi", on_event[0], on_event[1]];
    runs_as_node_would(project.path(), ".", &["alias", "nested/deep"], &on_event, &on_message);
}

#[test]
fn tsconfig_paths_and_base_url_come_through_extends_in_a_commonjs_project() {
    let project = copy_fixture("runtime", "tsconfig-paths-cjs");
    let on_event =
        ["alias paths-from-the-base-config Tilde Alias util.ts commonjs", "legacy required-through-an-alias"];
    let on_message = ["alias received Hi", on_event[0], on_event[1]];
    runs_as_node_would(project.path(), ".", &["alias", "legacy"], &on_event, &on_message);
}

#[test]
fn tsconfig_paths_without_base_url_are_relative_to_the_config_that_declares_them() {
    runs_turn_completed("tsconfig-paths-no-baseurl", &["greeter"], &["greeter Hello, Ada! How can I help?"]);
}

#[test]
fn import_meta_names_the_source_file() {
    let project = copy_fixture("runtime", "import-meta");
    let on_event = [
        "prompt Answer in one short paragraph. | Answer in one short paragraph. | prompt.ts | true",
        "reply Thanks for writing in, Ada. (templates.ts)",
    ];
    let on_message = ["prompt received hi in hooks", on_event[0], on_event[1]];
    runs_as_node_would(project.path(), ".", &["prompt", "reply"], &on_event, &on_message);
}

#[test]
fn a_commonjs_project_runs_as_commonjs() {
    let project = copy_fixture("runtime", "commonjs");
    let on_event = [
        "audit card **** **** **** 4242 audit.js",
        "banner Support desk v2 | banner.ts | // Reads files next to itself, the CommonJS way.",
        "modern function object object pin **** 5678",
    ];
    let on_message = ["audit received 2 chars", on_event[0], on_event[1], on_event[2]];
    runs_as_node_would(project.path(), ".", &["audit", "banner", "modern"], &on_event, &on_message);
}

#[test]
fn mts_is_esm_and_cts_is_commonjs_in_a_commonjs_package() {
    runs_turn_completed(
        "module-formats",
        &["legacy", "modern", "plain"],
        &[
            "legacy commonjs function legacy.cts turn.completed",
            "modern esm undefined modern.mts escalate after two failed answers",
            "plain commonjs plain.ts",
        ],
    );
}

#[test]
fn ts_and_js_are_esm_and_cts_is_commonjs_in_a_module_package() {
    runs_turn_completed(
        "module-formats-esm",
        &["legacy", "modern", "plain"],
        &[
            "legacy function object legacy.cts",
            "modern undefined undefined modern.ts",
            "plain undefined plain.js formats-bot-esm@0.4.0",
        ],
    );
}

#[test]
fn experimental_decorators_and_their_metadata_work_as_tsc_emits_them() {
    runs_turn_completed(
        "decorators-legacy",
        &["metadata", "pricing"],
        &[
            // What tsc's own output records (esbuild, and so tsx, emits no design-time metadata).
            "metadata quote(String,Number) => Number constructor(Object)",
            "pricing 5.5 computed=2 calls=3 inject=RATES \
             order=memoize quote;logged quote;Inject(RATES);Injectable(singleton) PricingService",
        ],
    );
}

#[test]
fn a_workspace_package_imports_typescript_from_its_siblings() {
    let monorepo = copy_fixture("runtime", "monorepo");
    link_workspace_packages(monorepo.path());
    let on_event = ["digest $0.0125 | weekly us… | DONE! | ../shared/src/format.ts | ../util/src/index.ts"];
    let on_message = ["digest received HI!", on_event[0]];
    // Run from the repository root, as a workspace script would.
    runs_as_node_would(monorepo.path(), "packages/agent", &["digest"], &on_event, &on_message);
}

/// Workspace packages without `"type": "module"` run as CommonJS; an ES module hook imports
/// from them what tsc's output would give Node: the names a barrel re-exports (`export *`,
/// transitively) and the keys of `export = { … }`, and from a published CommonJS package
/// what Node's lexer finds (tsc's `__exportStar` re-exports and getters).
#[test]
fn an_esm_hook_imports_what_commonjs_packages_export_as_tsc_would_emit_it() {
    let workspace = copy_fixture("runtime", "commonjs-barrel");
    link_workspace_packages(workspace.path());
    let expected = ["barrel HI! 42 v3.1 eu/3/region+retries weekly-usage 2"];
    runs_as_node_would(workspace.path(), "packages/agent", &["barrel"], &expected, &expected);
}

#[test]
fn package_json_imports_map_to_typescript_sources() {
    runs_turn_completed(
        "package-imports",
        &["ops/pager", "router"],
        &["ops/pager accounts", "router billing priority=5"],
    );
}

#[test]
fn json_imports_need_no_import_attribute_in_an_esm_project() {
    runs_turn_completed(
        "json-imports",
        &["settings"],
        &["settings json-bot@1.2.0 gpt-4.1-mini budget=24576 support+billing"],
    );
}

#[test]
fn json_imports_work_in_a_commonjs_project() {
    runs_turn_completed(
        "json-imports-cjs",
        &["settings"],
        &["settings json-bot-cjs@1.2.0 gpt-4.1-mini budget=24576 support+billing"],
    );
}

#[test]
fn using_and_await_using_dispose_in_reverse_order() {
    runs_turn_completed(
        "using",
        &["cleanup"],
        &["cleanup connect db, lock outer, lock inner, write, unlock inner, commit, unlock outer, disconnect db, \
           lock guard, unlock guard, caught disk full"],
    );
}

#[test]
fn typescript_s_import_require_and_export_equals_run_in_cts_and_in_ts_of_a_commonjs_package() {
    runs_turn_completed(
        "import-require",
        &["aliased", "member", "namespace"],
        &["aliased function turn.completed", "member function", "namespace namespace.cts turn.completed"],
    );
}

#[test]
fn a_byte_order_mark_in_package_json_and_tsconfig_json_is_read_as_node_and_tsc_read_it() {
    runs_turn_completed(
        "byte-order-mark",
        &["manifest"],
        &["manifest bom-bot@2.1.0 undefined reached through tsconfig paths"],
    );
    let project = copy_fixture("runtime", "byte-order-mark");
    let info = agent_sdk(project.path(), &["info", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&info.stdout()).unwrap();
    assert_eq!(report["agents"][0]["name"], "bom-bot", "the agent is named by its package.json");
    assert_eq!(report["agents"][0]["diagnostics"], serde_json::json!({ "errors": 0, "warnings": 0 }), "{report:#}");
}

// ---------------------------------------------------------------------------------------
// What must fail, and how.

#[test]
fn a_missing_relative_import_is_reported_before_anything_runs() {
    an_unresolved_import_is_an_error("missing-relative-import", "bot/hooks/reminders.ts", "../lib/nope");
}

#[test]
fn a_package_that_is_not_installed_is_reported_before_anything_runs() {
    an_unresolved_import_is_an_error("missing-package", "bot/hooks/guard.ts", "zod");
}

#[test]
fn a_tsx_file_is_a_warning_and_the_other_hooks_run() {
    let project = copy_fixture("runtime", "tsx-hook");
    let validate = agent_sdk(project.path(), &["validate", "--dir", "."]);
    assert_eq!(exit_code(&validate.output), 0, "{}", validate.both());
    assert!(validate.both().contains("hooks::not-a-hook-module"), "{}", validate.both());
    assert!(validate.both().contains("widget.tsx"), "{}", validate.both());

    let (code, diagnostics, ran) = validate_json(project.path());
    assert_eq!(code, 0, "{}", ran.both());
    let diagnostic = the_diagnostic(&diagnostics, "hooks::not-a-hook-module", "bot/hooks/widget.tsx");
    assert_eq!(diagnostic["severity"], "warning");

    let run = agent_sdk(project.path(), &["run", "--dir", ".", "--event", "turn.completed"]);
    assert_eq!(exit_code(&run.output), 0, "{}", run.both());
    assert!(run.log().contains("loaded hook \"usage\""), "{}", run.log());
    assert!(!run.log().contains("loaded hook \"widget\""), "{}", run.log());
    assert_eq!(run.record, ["usage object"], "{}", run.log());
}

#[test]
fn a_hook_that_throws_at_import_is_logged_with_its_source_location_and_the_others_run() {
    let project = copy_fixture("runtime", "throws-at-import");
    let validate = agent_sdk(project.path(), &["validate", "--dir", "."]);
    assert_eq!(exit_code(&validate.output), 0, "statically the module is fine: {}", validate.both());

    for args in [&["run", "--dir", ".", "--event", "turn.completed"][..], &["run", "--dir", ".", "--message", "hi"]] {
        let ran = agent_sdk(project.path(), args);
        let log = ran.log();
        assert_eq!(exit_code(&ran.output), 3, "agent-sdk {}\n{}", args.join(" "), ran.both());
        // Line and column of `new Error` in the TypeScript source (the interface and type
        // above it are erased when it runs, so only a source map gets this right).
        assert!(
            log.contains("hook \"webhook\" failed to load: config missing (at bot/hooks/webhook.ts:12:9)"),
            "agent-sdk {}\n{log}",
            args.join(" ")
        );
        assert!(log.contains("loaded hook \"usage\""), "{log}");
        assert!(!log.contains("loaded hook \"webhook\""), "{log}");
        assert_eq!(ran.record, ["usage object"], "{log}");
    }
}

#[test]
fn standard_decorators_are_unsupported_syntax() {
    let project = copy_fixture("runtime", "decorators-standard");
    let validate = agent_sdk(project.path(), &["validate", "--dir", "."]);
    assert_eq!(exit_code(&validate.output), 1, "{}", validate.both());
    assert!(validate.both().contains("hooks::unsupported-syntax"), "{}", validate.both());

    let (code, diagnostics, ran) = validate_json(project.path());
    assert_eq!(code, 1, "{}", ran.both());
    let diagnostic = the_diagnostic(&diagnostics, "hooks::unsupported-syntax", "bot/hooks/timing.ts");
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["line"], 20, "it points at the decorator: {diagnostic:#}");

    let run = agent_sdk(project.path(), &["run", "--dir", ".", "--event", "turn.completed"]);
    assert_eq!(exit_code(&run.output), 1, "{}", run.both());
    assert!(run.log().contains("hooks::unsupported-syntax"), "{}", run.log());
    assert!(run.record.is_empty(), "no hook ran: {:?}", run.record);
}

#[test]
fn a_module_imported_by_a_computed_name_is_compiled_when_it_is_asked_for() {
    runs_turn_completed("computed-imports", &["plugins"], &["plugins HELLO ADA! | 3 letters"]);
    runs_turn_completed("computed-requires", &["dispatch"], &["dispatch audit from audit.ts"]);
}

#[test]
fn a_broken_module_imported_by_a_computed_name_is_a_throw_naming_the_import() {
    let project = copy_fixture("runtime", "computed-imports");
    let plugins = project.path().join("bot/plugins");
    std::fs::write(plugins.join("count.ts"), "import { tally } from \"../lib/tally\";\nexport const run = tally;\n")
        .unwrap();
    let ran = agent_sdk(project.path(), &["run", "--dir", ".", "--event", "turn.completed"]);
    let log = ran.log();
    assert_eq!(exit_code(&ran.output), 3, "{}", ran.both());
    assert!(
        log.contains("hook \"plugins\" handler for turn.completed threw: `../lib/tally` cannot be found, so this module would fail to load (at bot/plugins/count.ts:1:23)"),
        "{log}"
    );
}

#[test]
fn import_require_and_export_equals_in_an_es_module_are_unsupported_syntax_before_anything_runs() {
    let project = copy_fixture("runtime", "import-require");
    // The same hooks in a `"type": "module"` package: `.ts` files are ES modules, which
    // have no `require` or `module.exports` (`.cts` stays CommonJS).
    std::fs::write(project.path().join("package.json"), r#"{ "name": "import-require-esm", "type": "module" }"#)
        .unwrap();
    let (code, diagnostics, ran) = validate_json(project.path());
    assert_eq!(code, 1, "{}", ran.both());
    let errors: Vec<(&str, &str, i64)> = diagnostics
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| (d["code"].as_str().unwrap(), d["path"].as_str().unwrap(), d["line"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        errors,
        [
            ("hooks::unsupported-syntax", "bot/hooks/aliased.ts", 2),
            ("hooks::unsupported-syntax", "bot/hooks/member.ts", 2)
        ],
        "{diagnostics:#?}"
    );
    let message =
        diagnostics.iter().find(|d| d["path"] == "bot/hooks/aliased.ts").unwrap()["message"].as_str().unwrap();
    assert!(
        message.starts_with("`import … = require(…)` is CommonJS, and Node runs `aliased.ts` as an ES module"),
        "{message}"
    );

    let run = agent_sdk(project.path(), &["run", "--dir", ".", "--event", "turn.completed"]);
    assert_eq!(exit_code(&run.output), 1, "{}", run.both());
    assert!(run.record.is_empty(), "no hook ran: {:?}", run.record);
}

/// Whether the Node the tests run has `module.registerHooks()` (≥ 22.15, ≥ 23.5): the
/// runtime's module hooks then run in its main thread by default.
fn node_has_register_hooks() -> bool {
    let output = std::process::Command::new(common::node())
        .args(["-p", "typeof require('node:module').registerHooks"])
        .output()
        .expect("node runs");
    String::from_utf8_lossy(&output.stdout).trim() == "function"
}

#[test]
fn module_hooks_run_in_thread_where_node_has_register_hooks_and_on_the_loader_thread_when_asked() {
    let project = copy_fixture("runtime", "module-hooks");
    let default = if node_has_register_hooks() { "in-thread" } else { "worker" };
    for (asked, registered) in [("", default), ("worker", "worker")] {
        let env = [("AGENT_SDK_MODULE_HOOKS", asked)];
        let ran = run_recorded(project.path(), &["run", "--event", "turn.completed"], &env);
        assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
        assert_eq!(ran.record, [format!("module hooks {registered}: hello Ada from legacy.cts")], "{}", ran.both());
        // Node 26 deprecates module.register() ([DEP0205]): no warning of Node's reaches the user.
        assert!(!ran.both().contains("Warning"), "AGENT_SDK_MODULE_HOOKS={asked}:\n{}", ran.both());

        let tested = run_recorded(project.path(), &["test"], &env);
        assert_eq!(exit_code(&tested.output), 0, "{}", tested.both());
        assert_eq!(tested.record, [format!("test: module hooks {registered}")], "{}", tested.both());
        assert!(!tested.both().contains("Warning"), "AGENT_SDK_MODULE_HOOKS={asked}:\n{}", tested.both());
    }
}

// ---------------------------------------------------------------------------------------
// The compiled-module cache, and modules compiled while the hooks run (issue 21).

/// The compiled modules in the project's cache (`<key>.json` entries, each with its code).
fn cache_entries(project: &Path) -> Vec<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(project.join(".agent-sdk/cache"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .collect();
    entries.sort();
    entries
}

/// Makes every file of the project's cache look last used `days` ago.
fn age_cache(project: &Path, days: u64) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 24 * 3600);
    for entry in std::fs::read_dir(project.join(".agent-sdk/cache")).unwrap() {
        let file = std::fs::File::options().write(true).open(entry.unwrap().path()).unwrap();
        file.set_modified(then).unwrap();
    }
}

#[test]
fn a_cache_last_used_31_days_ago_and_one_edit_still_load_every_hook() {
    let project = copy_fixture("runtime", "tsconfig-paths");
    let expected = ["alias paths-from-the-base-config Tilde Alias util.ts", "nested/deep two-folders-down"];
    let first = agent_sdk(project.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&first.output), 0, "{}", first.both());
    let before = cache_entries(project.path());
    age_cache(project.path(), 31);
    // One edit: that hook is compiled again, and the old entries are pruned.
    let hook = project.path().join("bot/hooks/alias.ts");
    let edited = std::fs::read_to_string(&hook).unwrap() + "// edited\n";
    std::fs::write(&hook, edited).unwrap();

    let second = agent_sdk(project.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&second.output), 0, "{}", second.both());
    assert_eq!(second.record, expected, "{}", second.both());
    let after = cache_entries(project.path());
    assert_eq!(after.len(), before.len(), "the edited hook's old entry went, every entry in use stayed: {after:?}");
    assert_eq!(after.iter().filter(|entry| !before.contains(entry)).count(), 1, "one new entry: {after:?}");
}

#[test]
fn a_compiled_module_deleted_from_the_cache_while_the_hooks_run_is_compiled_again() {
    runs_turn_completed(
        "cache-cleared",
        &["esm", "require"],
        &["esm loaded after the cache was cleared", "cjs loaded after the cache was cleared"],
    );
}

/// Writes `bot/plugins/many.ts`, which imports `count` generated modules and exports the
/// sum of theirs as `total`.
fn write_many_modules(project: &Path, count: usize) {
    // A long folder name, as generated code has: the manifest names every module twice.
    let folder = "generated-modules-of-a-plugin-with-a-long-folder-name";
    let modules = project.join("bot/plugins").join(folder);
    std::fs::create_dir_all(&modules).unwrap();
    let mut plugin = String::new();
    for index in 0..count {
        std::fs::write(modules.join(format!("module-{index}.ts")), "export const value: number = 1;\n").unwrap();
        plugin.push_str(&format!("import {{ value as v{index} }} from \"./{folder}/module-{index}.js\";\n"));
    }
    let sum: Vec<String> = (0..count).map(|index| format!("v{index}")).collect();
    plugin.push_str(&format!("export const total: number = {};\n", sum.join(" + ")));
    std::fs::write(project.join("bot/plugins/many.ts"), plugin).unwrap();
}

#[test]
fn a_computed_import_whose_answer_is_over_1_mib_loads_in_run_and_in_test() {
    let project = copy_fixture("runtime", "computed-many");
    write_many_modules(project.path(), 3000);
    // What the runtime is answered for the plugin (its manifest) is over 1 MiB, the
    // buffer a child process's output had.
    let plugin = project.path().canonicalize().unwrap().join("bot/plugins/many.ts");
    let answer = common::run_in(project.path(), &["__load-module", "--dir", ".", "--", plugin.to_str().unwrap()]);
    assert!(answer.stdout.len() > 1024 * 1024, "{} bytes", answer.stdout.len());

    let ran = agent_sdk(project.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.record, ["many total 3000"], "{}", ran.both());
    let tested = agent_sdk(project.path(), &["test"]);
    assert_eq!(exit_code(&tested.output), 0, "{}", tested.both());
    assert_eq!(tested.record, ["test many total 3000"], "{}", tested.both());
}

/// An init larger than a pipe holds (a hook whose imports reach a thousand modules with long
/// paths, each named in the init's manifest: some 300 KB) reaches the runtime in pieces, the
/// first read in Node's main thread before anything runs and the rest after it: the hook
/// loads and sees the event.
#[test]
fn an_init_larger_than_a_pipe_holds_reaches_the_runtime_whole() {
    let project = copy_fixture("runtime", "static-many");
    write_many_modules(project.path(), 1000);
    let ran = agent_sdk(project.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert!(ran.log().contains("1 hook loaded"), "{}", ran.both());
    assert_eq!(ran.record, ["many total 1000"], "{}", ran.both());
}

#[test]
fn a_module_a_computed_import_loaded_is_answered_from_memory_the_next_times() {
    let project = copy_fixture("runtime", "computed-twice");
    // Every event of the turn imports the plugin; its source is deleted after the first.
    let ran = agent_sdk(project.path(), &["run", "--message", "hi"]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert!(ran.record.len() >= 3, "{:?}", ran.record);
    for (index, line) in ran.record.iter().enumerate() {
        assert_eq!(line, &format!("twice #{index} HELLO ADA!"), "{}", ran.both());
    }
}

#[test]
fn a_computed_import_of_json_through_a_paths_alias_loads_as_the_literal_one_does() {
    runs_turn_completed("computed-json", &["prices"], &["prices coffee 3.5 eur 0.92 gbp 0.79"]);
}

#[test]
fn computed_imports_go_on_working_after_the_binary_is_replaced() {
    let project = copy_fixture("runtime", "binary-replaced");
    // A link to the binary, which the hook removes before its computed import, as an
    // upgrade (npm, cargo install) replaces the file while `run` or `dev` goes on.
    let binary = project.path().join("agent-sdk");
    std::fs::hard_link(env!("CARGO_BIN_EXE_agent-sdk"), &binary).unwrap();
    let env = [("BINARY_TO_REMOVE", binary.to_str().unwrap())];
    let ran =
        common::recorded(common::agent_sdk_at(&binary), project.path(), &["run", "--event", "turn.completed"], &env);
    assert!(!binary.exists(), "the hook removed it");
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.record, ["upgrade HELLO ADA!"], "{}", ran.both());
}

/// Writes `bot/data/table.ts`: `rows`, about `megabytes` MB of generated data.
fn write_table(project: &Path, megabytes: usize) -> usize {
    let mut text = String::from("export const rows: { sku: string; price: number; tags: string[] }[] = [\n");
    let mut count = 0;
    while text.len() < megabytes * 1_000_000 {
        text.push_str(&format!(
            "  {{ sku: \"SKU-{count:07}\", price: {}.5, tags: [\"in-stock\", \"bulk\"] }},\n",
            count % 97
        ));
        count += 1;
    }
    text.push_str("];\n");
    std::fs::create_dir_all(project.join("bot/data")).unwrap();
    std::fs::write(project.join("bot/data/table.ts"), text).unwrap();
    count
}

/// `command` with its address space limited to `gib` GiB (as `ulimit -v`).
fn with_address_space_of(mut command: std::process::Command, gib: u64) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let bytes = gib * 1024 * 1024 * 1024;
    // SAFETY: setrlimit(2) is async-signal-safe and the closure allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

#[test]
fn a_module_of_megabytes_compiles_and_loads_in_a_limited_address_space() {
    // (3 MB under `ulimit -v 4GB` and 12 MB under 8 GB: Node loads both.)
    for (megabytes, gib) in [(3, 4), (12, 8)] {
        let project = copy_fixture("runtime", "big-module");
        let rows = write_table(project.path(), megabytes);
        let limited = || with_address_space_of(common::agent_sdk(), gib);
        let validated = common::recorded(limited(), project.path(), &["validate"], &[]);
        assert_eq!(exit_code(&validated.output), 0, "{megabytes} MB: {}", validated.both());
        let ran = common::recorded(limited(), project.path(), &["run", "--event", "turn.completed"], &[]);
        assert_eq!(exit_code(&ran.output), 0, "{megabytes} MB: {}", ran.both());
        let last = format!("SKU-{:07}", rows - 1);
        assert_eq!(ran.record, [format!("table {rows} rows, last {last}")], "{}", ran.both());
    }
}

#[test]
fn a_module_nested_deeper_than_any_stack_holds_is_a_parse_error_not_a_crash() {
    let project = copy_fixture("runtime", "big-module");
    // 4 million levels of nesting: deeper than any stack the compiler gets (Node's own
    // parser gives up past a few thousand).
    let levels = 4_000_000;
    let nested = format!("export const rows: any = {}{};\n", "[".repeat(levels), "]".repeat(levels));
    std::fs::create_dir_all(project.path().join("bot/data")).unwrap();
    std::fs::write(project.path().join("bot/data/table.ts"), nested).unwrap();
    let ran = agent_sdk(project.path(), &["validate", "--format", "json"]);
    assert_eq!(exit_code(&ran.output), 1, "{}", ran.both());
    let report: serde_json::Value = serde_json::from_str(&ran.stdout()).unwrap();
    let diagnostic =
        the_diagnostic(report["diagnostics"].as_array().unwrap(), "hooks::parse-error", "bot/data/table.ts");
    assert_eq!(
        diagnostic["message"], "it is nested too deeply to compile (deeper than Node.js itself parses)",
        "{diagnostic:#}"
    );
}

/// The files under `folder` (none when it does not exist).
fn files_under(folder: &Path) -> usize {
    walkdir::WalkDir::new(folder).into_iter().filter_map(Result::ok).filter(|entry| entry.file_type().is_file()).count()
}

/// Node never removes an entry from its compile cache (one per module path: a test suite's
/// temporary projects left 28,000 per Node version, 1.2 GB, in a developer's cache): a Node
/// version's folder grown past 4,096 entries is emptied at the next run, and Node's own folder
/// of that run is kept.
#[test]
fn a_compile_cache_grown_past_its_bound_is_emptied_at_the_next_run() {
    let cache = tempfile::tempdir().unwrap();
    let xdg = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let project = copy_fixture("runtime", "compile-cache");
    let ran = run_recorded(project.path(), &["run", "--event", "turn.completed"], &xdg);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    let sets: Vec<_> =
        std::fs::read_dir(cache.path().join("agent-sdk/runtime")).unwrap().map(|entry| entry.unwrap().path()).collect();
    let compile_cache = sets[0].join("compile-cache");
    let grown = compile_cache.join("v0.0.0-x64-grown-0");
    std::fs::create_dir_all(&grown).unwrap();
    for entry in 0..4097 {
        std::fs::write(grown.join(format!("{entry:08x}")), "compiled").unwrap();
    }
    // What Node kept (nothing before Node 22), in the folders it named.
    let kept_by_node = || {
        walkdir::WalkDir::new(&compile_cache)
            .into_iter()
            .filter_entry(|entry| entry.depth() == 0 || !entry.file_name().to_string_lossy().starts_with('.'))
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_file() && !entry.path().starts_with(&grown))
            .map(walkdir::DirEntry::into_path)
            .collect::<std::collections::BTreeSet<_>>()
    };
    let kept = kept_by_node();

    let ran = run_recorded(project.path(), &["run", "--event", "turn.completed"], &xdg);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert!(!grown.exists(), "the grown folder is set aside (and removed off the run's way)");
    // Node may add entries this run (with the module hooks on its loader thread, what it writes
    // at exit varies from run to run); none it had is removed.
    let now = kept_by_node();
    assert!(
        kept.is_subset(&now),
        "Node's own entries are kept: {:?} missing",
        kept.difference(&now).collect::<Vec<_>>()
    );
}

/// Node keeps the code it compiled (the runtime's, the SDK's, the hooks') beside the runtime's
/// files for the next run (Node ≥ 22.1: earlier ones have no compile cache); the hooks see
/// the environment they were given: not the variable agent-sdk set, and a user's own as is.
#[test]
fn node_keeps_what_it_compiled_beside_the_runtime_and_the_hooks_see_only_their_environment() {
    let cache = tempfile::tempdir().unwrap();
    let xdg = cache.path().to_str().unwrap();
    let project = copy_fixture("runtime", "compile-cache");
    let kept_by_node = common::node_major() >= 22;
    let ran = run_recorded(project.path(), &["run", "--event", "turn.completed"], &[("XDG_CACHE_HOME", xdg)]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.record, ["NODE_COMPILE_CACHE unset"], "{}", ran.both());
    let sets: Vec<_> =
        std::fs::read_dir(cache.path().join("agent-sdk/runtime")).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(sets.len(), 1, "{sets:?}");
    let kept = files_under(&sets[0].join("compile-cache"));
    assert_eq!(kept > 0, kept_by_node, "{kept} files kept in {}", sets[0].display());

    let own = tempfile::tempdir().unwrap();
    let own_path = own.path().to_str().unwrap();
    let env = [("XDG_CACHE_HOME", xdg), ("NODE_COMPILE_CACHE", own_path)];
    let ran = run_recorded(project.path(), &["run", "--event", "turn.completed"], &env);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.record, [format!("NODE_COMPILE_CACHE {own_path}")], "{}", ran.both());
    assert_eq!(files_under(own.path()) > 0, kept_by_node, "the user's cache is where Node keeps it");
}
