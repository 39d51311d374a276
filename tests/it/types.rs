//! The SDK packages' declarations, checked by the real TypeScript compiler (pinned in
//! `tests/typescript/package.json`, installed with `npm ci --prefix tests/typescript`):
//! after `agent-sdk sdk`, a strict `tsc --noEmit` passes on valid projects (ESM and
//! CommonJS, each package name, `"*"` handlers, `memoryHook`, `switch (event.type)`), with
//! every module resolution a project may use, and fails where a hook names an event type
//! that does not exist or reads a field its event does not have: the error and line checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{copy_project, exit_code, link_workspace_packages, root, run_in};

/// The compiler, or a failure saying how to install it.
fn tsc() -> PathBuf {
    let tsc = root().join("tests/typescript/node_modules/.bin/tsc");
    assert!(
        tsc.is_file(),
        "the TypeScript compiler these tests run is not installed: run `npm ci --prefix tests/typescript`"
    );
    tsc
}

/// How the checked project resolves modules: `module` and `moduleResolution`.
#[derive(Debug, Clone, Copy)]
struct Resolution(&'static str, &'static str);

/// Node's own rules, ESM and CommonJS by each file's format.
const NODENEXT: Resolution = Resolution("nodenext", "nodenext");
/// A bundler's: `exports` with the `import` condition, extensionless relative imports.
const BUNDLER: Resolution = Resolution("preserve", "bundler");
/// The classic `node` (node10) resolution, which reads no `exports`.
const NODE10: Resolution = Resolution("commonjs", "node");

/// `tsc --noEmit` on a copy of `project` after `agent-sdk sdk`, with a strict tsconfig
/// (extending the project's own, when it has one): the exit code and the errors, each as
/// `path(line,col): TSxxxx`.
fn type_check(project: &Path, resolution: Resolution) -> (i32, Vec<String>, String) {
    type_check_except(project, resolution, &[])
}

/// [`type_check`], leaving out the files `except` names.
fn type_check_except(project: &Path, resolution: Resolution, except: &[&str]) -> (i32, Vec<String>, String) {
    let copy = copy_project(project);
    let source = ["bot", "agent"].into_iter().find(|folder| copy.path().join(folder).is_dir()).expect("a project");
    type_check_in(copy.path(), resolution, &[source], except, false)
}

/// `agent-sdk sdk` in `dir`, then `tsc --noEmit` on `folders` with a strict tsconfig
/// (extending the project's own, when it has one), leaving out `except` and, unless
/// `tests`, the test files: the exit code and the errors, each as `path(line,col): TSxxxx`.
fn type_check_in(
    dir: &Path,
    resolution: Resolution,
    folders: &[&str],
    except: &[&str],
    tests: bool,
) -> (i32, Vec<String>, String) {
    let sdk = run_in(dir, &["sdk"]);
    assert_eq!(exit_code(&sdk), 0, "{}", String::from_utf8_lossy(&sdk.stderr));

    let type_roots = root().join("tests/typescript/node_modules/@types");
    let left_out: &[&str] = if tests { &[] } else { &["**/*.test.*", "**/*.spec.*"] };
    let exclude: Vec<&str> = left_out.iter().chain(&["**/node_modules"]).chain(except).copied().collect();
    let mut tsconfig = serde_json::json!({
        "compilerOptions": {
            "strict": true,
            "noEmit": true,
            "module": resolution.0,
            "moduleResolution": resolution.1,
            "types": ["node"],
            "typeRoots": [type_roots],
            // The written declarations are checked too.
            "skipLibCheck": false,
        },
        "include": folders,
        "exclude": exclude,
    });
    if dir.join("tsconfig.json").is_file() {
        tsconfig["extends"] = "./tsconfig.json".into();
    }
    std::fs::write(dir.join("tsconfig.check.json"), tsconfig.to_string()).unwrap();

    let output = Command::new(tsc())
        .args(["--project", "tsconfig.check.json", "--pretty", "false"])
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let errors = text
        .lines()
        .filter_map(|line| {
            let (place, rest) = line.split_once(": error ")?;
            Some(format!("{place}: {}", rest.split(':').next()?))
        })
        .collect();
    (exit_code(&output), errors, text)
}

fn project(group: &str, case: &str) -> PathBuf {
    root().join(group).join(case)
}

/// The files of `validate`'s accepted-forms fixture that are no TypeScript `tsc` accepts:
/// they are there for the analyser, which reads every form that is still a defineHook call.
const NOT_TYPESCRIPT: [&str; 2] = [
    // `as const` on a call is a TypeScript error (TS1355); it also imports a type `Hook`.
    "bot/hooks/wrapped.ts",
    // `defineHook<State>(…)`: defineHook has no type parameter (TS2558).
    "bot/hooks/events-const.ts",
];

fn passes(project: &Path, resolution: Resolution) {
    let except: &[&str] = if project.ends_with("accepted-forms") { &NOT_TYPESCRIPT } else { &[] };
    let (code, errors, text) = type_check_except(project, resolution, except);
    assert!(code == 0 && errors.is_empty(), "{} with {resolution:?}:\n{text}", project.display());
}

macro_rules! type_checks {
    ($($name:ident => ($group:literal, $case:literal), $resolution:expr;)*) => {$(
        #[test]
        fn $name() {
            passes(&project($group, $case), $resolution);
        }
    )*};
}

type_checks! {
    // ES modules (`"type": "module"`): a `"*"` handler narrowed with `if`, and every type
    // of the root module with `switch (event.type)`, `@cursor/july` and `@grok/agent-sdk`'s memoryHook.
    the_example_type_checks => ("examples", "acme-bot"), NODENEXT;
    narrowing_type_checks => ("fixtures/types", "narrowing"), NODENEXT;
    esm_with_commonjs_files_type_checks => ("fixtures/runtime", "module-formats-esm"), NODENEXT;
    a_hook_that_touches_node_internals_type_checks => ("fixtures/hostile", "primordials"), NODENEXT;
    // CommonJS: memoryHook, all three package names (with `import x = require(…)` in a
    // `.cts` and an `.mts`), and projects with tsconfigs of their own.
    memory_hook_in_commonjs_type_checks => ("fixtures/run", "state"), NODENEXT;
    every_accepted_form_and_package_name_type_checks => ("fixtures/validate", "accepted-forms"), NODENEXT;
    commonjs_with_esm_files_type_checks => ("fixtures/runtime", "module-formats"), NODENEXT;
    tsconfig_paths_in_commonjs_type_check => ("fixtures/runtime", "tsconfig-paths-cjs"), NODENEXT;
    legacy_decorators_type_check => ("fixtures/runtime", "decorators-legacy"), NODENEXT;
    // A bundler's resolution: `exports` read with the `import` condition.
    tsconfig_paths_type_check_with_bundler_resolution => ("fixtures/runtime", "tsconfig-paths"), BUNDLER;
    narrowing_type_checks_with_bundler_resolution => ("fixtures/types", "narrowing"), BUNDLER;
    // node10, which reads no `exports`: the subpaths are files at the package's root.
    every_package_name_type_checks_with_node10_resolution => ("fixtures/validate", "accepted-forms"), NODE10;
    narrowing_type_checks_with_node10_resolution => ("fixtures/types", "narrowing"), NODE10;
}

/// An event type that does not exist is an excess property of `Handlers` (TS2353), at the key.
#[test]
fn a_wrong_event_key_fails_at_the_key() {
    let (code, errors, text) = type_check(&project("fixtures/validate", "unknown-event"), NODENEXT);
    assert_ne!(code, 0, "{text}");
    assert_eq!(errors, ["bot/hooks/typos.ts(4,5): TS2353"], "{text}");
    assert!(text.contains("'\"turn.complete\"' does not exist in type 'Handlers'"), "{text}");
}

/// A typed handler's `event` is its own event: `message.received` has no `usage` (TS2339).
#[test]
fn a_field_the_event_does_not_have_fails_where_it_is_read() {
    for resolution in [NODENEXT, BUNDLER] {
        let (code, errors, text) = type_check(&project("fixtures/types", "wrong-field"), resolution);
        assert_ne!(code, 0, "{text}");
        assert_eq!(errors, ["bot/hooks/usage.ts(8,58): TS2339"], "{resolution:?}: {text}");
        assert!(text.contains("Property 'usage' does not exist on type '{ text: string; }'"), "{text}");
    }
}

/// The package root holds types only: `defineHook` imported from it is an error for `tsc`
/// (TS2305) as it is for `validate` (`hooks::unknown-sdk-module`), at the same import.
#[test]
fn define_hook_from_the_package_root_fails_as_validate_says() {
    let (code, errors, text) = type_check(&project("fixtures/validate", "unknown-sdk-module"), NODENEXT);
    assert_ne!(code, 0, "{text}");
    assert!(errors.iter().any(|error| error.starts_with("bot/hooks/root-module.ts(1,10): TS2305")), "{text}");
}

/// A copy of `fixtures/test/extension` with its workspace package linked into
/// `node_modules/`, as `npm install` links it.
fn extension_project() -> tempfile::TempDir {
    let copy = copy_project(&project("fixtures/test", "extension"));
    link_workspace_packages(copy.path());
    copy
}

/// An extension's types (`<sdk>/extensions`): the factory's options and hook keys are
/// inferred, so `.disableHook("…")` and `disableHook(mount, "…")` (from `/extensions` and
/// `/hooks`, all three package names) take its keys, `/` included, an extension without
/// options is mounted with none, and the test kit's `dispatch` takes `mount.hooks.<key>`
/// (the tests are checked too).
#[test]
fn extensions_their_mounts_and_their_tests_type_check() {
    for resolution in [NODENEXT, BUNDLER] {
        let project = extension_project();
        let (code, errors, text) = type_check_in(project.path(), resolution, &["bot", "packages"], &[], true);
        assert!(code == 0 && errors.is_empty(), "{resolution:?}:\n{text}");
    }
    // node10 reads no `exports`: the package's `types`. (Its tests are left out as the
    // other projects' are: a default import of `node:assert` needs `esModuleInterop` there.)
    let project = extension_project();
    let (code, errors, text) = type_check_in(project.path(), NODE10, &["bot", "packages"], &[], false);
    assert!(code == 0 && errors.is_empty(), "{NODE10:?}:\n{text}");
}

/// `tsc` rejects a hook key the extension does not have, in each form a mount file adjusts
/// its mount with, and a mistyped or misspelt option: each at the argument.
#[test]
fn an_unknown_hook_key_or_a_mistyped_option_fails_at_the_argument() {
    let project = extension_project();
    let mistakes = [
        (
            "chained.ts",
            "import ci from \"@acme/ci-triage\";\n\nexport default ci({ org: \"acme\" }).disableHook(\"nope\");\n",
        ),
        (
            "free.ts",
            "import ci from \"@acme/ci-triage\";\nimport { disableHook } from \"@cursor/bdk/extensions\";\n\nexport default disableHook(ci({ org: \"acme\" }), \"triage\", \"nope\");\n",
        ),
        (
            "from-hooks.ts",
            "import ci from \"@acme/ci-triage\";\nimport { disableHook } from \"@grok/agent-sdk/hooks\";\n\nexport default disableHook(ci({ org: \"acme\" }), \"audit/usage\", \"audit\");\n",
        ),
        ("mistyped.ts", "import ci from \"@acme/ci-triage\";\n\nexport default ci({ org: 1 });\n"),
        ("misspelt.ts", "import ci from \"@acme/ci-triage\";\n\nexport default ci({ orgg: \"acme\" });\n"),
    ];
    for (file, text) in mistakes {
        std::fs::write(project.path().join("bot/extensions").join(file), text).unwrap();
    }
    let (code, errors, text) = type_check_in(project.path(), NODENEXT, &["bot"], &[], false);
    assert_ne!(code, 0, "{text}");
    assert_eq!(
        errors,
        [
            "bot/extensions/chained.ts(3,48): TS2345",
            "bot/extensions/free.ts(4,59): TS2345",
            "bot/extensions/from-hooks.ts(4,64): TS2345",
            "bot/extensions/misspelt.ts(3,21): TS2561",
            "bot/extensions/mistyped.ts(3,21): TS2322",
        ],
        "{text}"
    );
    let unknown = "Argument of type '\"nope\"' is not assignable to parameter of type '\"triage\" | \"audit/usage\"'";
    assert_eq!(text.matches(unknown).count(), 2, "{text}");
    assert!(text.contains("Argument of type '\"audit\"' is not assignable"), "{text}");
    assert!(text.contains("Type 'number' is not assignable to type 'string'"), "{text}");
    assert!(text.contains("'orgg' does not exist in type 'CiOptions'. Did you mean to write 'org'?"), "{text}");
}

/// The file Node starts as the hook runtime, `src/runtime/node/generated/host.mjs`, is the
/// esbuild bundle of `host.mjs` and what it imports (one file, no import to resolve at start:
/// see docs/performance.md), built from the sources as they are: a source edited without
/// the bundle fails here. `UPDATE_RUNTIME_BUNDLE=1` writes it (esbuild is pinned in
/// `tests/typescript`).
#[test]
fn the_runtime_bundle_is_built_from_its_sources() {
    let esbuild = root().join("tests/typescript/node_modules/.bin/esbuild");
    assert!(esbuild.is_file(), "esbuild is not installed: run `npm ci --prefix tests/typescript`");
    let sources = root().join("src/runtime/node");
    let built = Command::new(esbuild)
        .current_dir(&sources)
        .args([
            "host.mjs",
            "--bundle",
            "--format=esm",
            "--platform=node",
            "--target=node20.6",
            "--legal-comments=none",
            "--log-level=warning",
            "--banner:js=// Generated from host.mjs and its imports by esbuild: do not edit. UPDATE_RUNTIME_BUNDLE=1 cargo test --test it -- types::the_runtime_bundle writes it.",
        ])
        .output()
        .expect("esbuild runs");
    assert!(built.status.success(), "esbuild failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let bundle = sources.join("generated/host.mjs");
    if std::env::var_os("UPDATE_RUNTIME_BUNDLE").is_some() {
        std::fs::write(&bundle, &built.stdout).unwrap();
        return;
    }
    let committed = std::fs::read(&bundle).unwrap_or_default();
    assert!(
        committed == built.stdout,
        "{} is not the bundle of its sources: run `UPDATE_RUNTIME_BUNDLE=1 cargo test --test it -- types::the_runtime_bundle`",
        bundle.display()
    );
}

/// The hook runtime's JavaScript (`src/runtime/node/**`) type-checks (`tsc --checkJs`, strict
/// but for implicit `any`) against `protocol.d.ts`, the declarations generated from the
/// protocol's Rust types, and Node's own: a message either side changes without the other
/// fails here.
#[test]
fn the_runtime_s_javascript_checks_against_the_generated_protocol() {
    let tsconfig = root().join("src/runtime/node/tsconfig.json");
    let checked = Command::new(tsc()).arg("-p").arg(&tsconfig).output().expect("tsc runs");
    assert!(
        checked.status.success(),
        "tsc -p {} found errors:\n{}{}",
        tsconfig.display(),
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}
