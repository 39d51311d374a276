//! `agent-sdk sdk`: the SDK packages written into a project's `vendor/agent-sdk/` and
//! copied into `node_modules/`, what it says about them (and about a `package.json` that
//! does not name them), that writing again changes nothing, and that Node loads every
//! module of every package, by `import` and by `require`.

use crate::common;

use std::path::Path;
use std::process::Command;

use crate::common::snapshot::Filters;
use crate::common::{copy_fixture, exit_code, run_in, transcript};

const PACKAGES: [&str; 3] = ["@cursor/bdk", "@grok/agent-sdk", "@cursor/july"];

/// What a user sees, with the binary's version (which the packages are stamped with) as
/// `[VERSION]`, so that a release does not change the snapshot.
fn seen(dir: &Path, args: &[&str]) -> String {
    Filters::new().version().apply(&transcript(dir, args))
}

#[test]
fn writes_the_three_packages_and_then_has_nothing_to_write() {
    let project = copy_fixture("run", "state");
    insta::assert_snapshot!("first_run", seen(project.path(), &["sdk"]));
    insta::assert_snapshot!("second_run", seen(project.path(), &["sdk"]));

    let memory = project.path().join("node_modules/@grok/agent-sdk/memory.mjs");
    std::fs::write(&memory, "// edited by hand\n").unwrap();
    let again = seen(project.path(), &["sdk", "--dir", "."]);
    // node_modules/ holds a copy (a link would hide the packages from pnpm's lockfile): the
    // edit is in the copy, and so is the repair.
    let updated = "vendor/agent-sdk/grok-agent-sdk is up to date (agent-sdk [VERSION]); updated its copy node_modules/@grok/agent-sdk (1 of 20 files changed)";
    assert!(again.contains(updated), "{again}");
    assert!(std::fs::read_to_string(&memory).unwrap().contains("memoryHook"), "the edit was replaced");
}

#[test]
fn each_package_has_every_module_for_esm_and_commonjs_with_types_and_the_stamp() {
    let project = copy_fixture("run", "state");
    assert_eq!(exit_code(&run_in(project.path(), &["sdk"])), 0);
    for package in PACKAGES {
        let dir = project.path().join("node_modules").join(package);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        for module in ["index", "hooks", "memory", "extensions", "testing"] {
            for extension in ["mjs", "cjs", "d.ts"] {
                assert!(files.contains(&format!("{module}.{extension}")), "{package}: {files:?}");
            }
        }
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
        assert_eq!(manifest["name"], package);
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(manifest["agentSdk"]["writtenBy"], env!("CARGO_PKG_VERSION"));
        assert_eq!(manifest["types"], "./index.d.ts");
        let hooks = &manifest["exports"]["./hooks"];
        assert_eq!(hooks["types"], "./hooks.d.ts");
        assert_eq!(hooks["import"], "./hooks.mjs");
        assert_eq!(hooks["require"], "./hooks.cjs");
        let extensions = &manifest["exports"]["./extensions"];
        assert_eq!(extensions["types"], "./extensions.d.ts");
        assert_eq!(extensions["import"], "./extensions.mjs");
        assert_eq!(extensions["require"], "./extensions.cjs");
        // The files are the runtime's own.
        let runtime = std::fs::read_to_string(common::root().join("src/runtime/node/sdk/hooks.cjs")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("hooks.cjs")).unwrap(), runtime);
    }
}

/// Node, from the project folder, finds every module of every package both ways, and a
/// hook made with one is a hook to the others (the runtime recognises it), as a mount is.
#[test]
fn node_imports_and_requires_every_module() {
    let project = copy_fixture("run", "state");
    assert_eq!(exit_code(&run_in(project.path(), &["sdk"])), 0);
    let script = PACKAGES
        .iter()
        .map(|package| {
            format!(
                r#"{{
  const root = await import("{package}");
  const {{ defineHook, isHookDefinition }} = await import("{package}/hooks");
  const {{ memoryHook }} = await import("{package}/memory");
  const {{ defineExtension, disableHook, isMount }} = await import("{package}/extensions");
  const required = {{ root: require("{package}"), hooks: require("{package}/hooks"), memory: require("{package}/memory"), extensions: require("{package}/extensions") }};
  const hook = defineHook({{ events: {{ "turn.completed"() {{}} }} }});
  check(isHookDefinition(hook) && isHookDefinition(memoryHook()), "{package}: hooks");
  check(required.hooks.isHookDefinition(hook) && typeof required.memory.memoryHook === "function", "{package}: require");
  const mount = defineExtension(() => ({{ hooks: {{ triage: hook, "audit/usage": hook }} }}))();
  check(isMount(mount) && required.extensions.isMount(disableHook(mount, "triage")), "{package}: extensions");
  check(mount.disableHook("audit/usage").disabled[0] === "audit/usage" && mount.hooks.triage === hook, "{package}: a mount");
  // `/hooks` exports the extensions module's own `disableHook`, to `import` and `require` alike.
  check((await import("{package}/hooks")).disableHook === disableHook && required.hooks.disableHook === disableHook, "{package}: disableHook");
  // The root holds the types only, as `validate` has it: no function to import from it.
  check(root.defineHook === undefined && required.root.memoryHook === undefined, "{package}: a root of types");
}}"#
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let program = format!(
        "import {{ createRequire }} from 'node:module';\nconst require = createRequire(process.cwd() + '/');\nfunction check(ok, what) {{ if (!ok) throw new Error(what); }}\n{script}\nconsole.log('ok');\n"
    );
    let output = Command::new("node")
        .args(["--input-type=module", "-e", &program])
        .current_dir(project.path())
        .env_remove("NODE_OPTIONS")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ok\n", "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn a_package_json_that_does_not_name_the_packages_is_told_and_updated_when_asked() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("tsconfig.json"), r#"{ "compilerOptions": { "module": "nodenext" } }"#).unwrap();
    let manifest = "{\n  \"name\": \"acme\",\n  \"dependencies\": {\n    \"@cursor/july\": \"file:vendor/agent-sdk/cursor-july\",\n    \"zod\": \"^3.25.0\"\n  }\n}\n";
    std::fs::write(project.path().join("package.json"), manifest).unwrap();
    insta::assert_snapshot!("told", seen(project.path(), &["sdk"]));
    assert_eq!(std::fs::read_to_string(project.path().join("package.json")).unwrap(), manifest);

    insta::assert_snapshot!("updated", seen(project.path(), &["sdk", "--update-package-json"]));
    assert_eq!(
        std::fs::read_to_string(project.path().join("package.json")).unwrap(),
        "{\n  \"name\": \"acme\",\n  \"dependencies\": {\n    \"@cursor/bdk\": \"file:vendor/agent-sdk/cursor-bdk\",\n    \"@cursor/july\": \"file:vendor/agent-sdk/cursor-july\",\n    \"@grok/agent-sdk\": \"file:vendor/agent-sdk/grok-agent-sdk\",\n    \"zod\": \"^3.25.0\"\n  }\n}\n"
    );
    let named = seen(project.path(), &["sdk"]);
    assert!(!named.contains("package.json"), "{named}");
}

#[test]
fn update_package_json_without_one_is_a_usage_error() {
    let project = tempfile::tempdir().unwrap();
    let output = run_in(project.path(), &["sdk", "--update-package-json"]);
    assert_eq!(exit_code(&output), 2);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("there is no package.json in . to add the SDK packages to"), "{said}");
    assert!(!project.path().join("vendor").exists(), "nothing was written");
}

/// A copy of a package in node_modules/ (as pnpm and yarn install a `file:` folder) does
/// not see the folder change: sdk writes it again too.
#[test]
fn a_copy_in_node_modules_is_written_again() {
    let project = tempfile::tempdir().unwrap();
    let copy = project.path().join("node_modules/@cursor/bdk");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::write(copy.join("package.json"), r#"{ "name": "@cursor/bdk", "agentSdk": { "writtenBy": "0.0.1" } }"#)
        .unwrap();
    std::fs::write(copy.join("hooks.mjs"), "// an older agent-sdk's\n").unwrap();
    let said = seen(project.path(), &["sdk"]);
    assert!(
        said.contains("wrote vendor/agent-sdk/cursor-bdk (agent-sdk [VERSION], 20 files); updated its copy node_modules/@cursor/bdk (20 of 20 files changed)"),
        "{said}"
    );
    assert!(!copy.is_symlink() && std::fs::read_to_string(copy.join("hooks.mjs")).unwrap().contains("defineHook"));
    assert!(
        said.contains(
            "wrote vendor/agent-sdk/cursor-july (agent-sdk [VERSION], 20 files); copied it to node_modules/@cursor/july"
        ),
        "{said}"
    );
}

#[test]
fn a_folder_without_package_json_gets_node_modules_too() {
    let project = tempfile::tempdir().unwrap();
    let output = run_in(project.path(), &["sdk"]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    assert!(project.path().join("node_modules/@cursor/july/hooks.d.ts").is_file());
    assert!(project.path().join("vendor/agent-sdk/cursor-july/hooks.d.ts").is_file());
    assert!(!project.path().join("package.json").exists(), "sdk writes no package.json of the project's");
}

#[test]
fn a_tsconfig_that_resolves_the_classic_way_gets_a_hint() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("tsconfig.json"),
        "{\n  // ES modules, and no moduleResolution: TypeScript 5 resolves the classic way\n  \"compilerOptions\": { \"module\": \"esnext\", \"strict\": true, },\n}\n",
    )
    .unwrap();
    insta::assert_snapshot!(seen(project.path(), &["sdk"]));
    std::fs::write(project.path().join("tsconfig.json"), r#"{ "compilerOptions": { "module": "nodenext" } }"#).unwrap();
    let fine = seen(project.path(), &["sdk"]);
    assert!(!fine.contains("hint:"), "{fine}");
    // Saved with a byte order mark (PowerShell, some editors), as tsc reads it.
    std::fs::write(project.path().join("tsconfig.json"), "\u{feff}{ \"compilerOptions\": { \"module\": \"esnext\" } }")
        .unwrap();
    let with_bom = seen(project.path(), &["sdk"]);
    assert!(with_bom.contains("hint: tsconfig.json resolves modules the \"classic\" way"), "{with_bom}");
}

#[test]
fn a_missing_dir_is_a_usage_error() {
    let project = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(seen(project.path(), &["sdk", "--dir", "no/such/project"]));
}

/// `seen` with the temporary folder `root` (as links resolve it) shown as `[ROOT]`.
fn seen_in(root: &Path, args: &[&str]) -> String {
    Filters::new().version().folder(root, "[ROOT]").apply(&transcript(root, args))
}

/// A workspace: the agent in `agent/`, and a package of the workspace named `@cursor/bdk`
/// in `packages/bdk/`, which `agent/node_modules/@cursor/bdk` links to (as npm links a
/// workspace package).
fn workspace_with_a_linked_package() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let package = root.path().join("packages/bdk");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(package.join("package.json"), r#"{ "name": "@cursor/bdk", "version": "2.0.0" }"#).unwrap();
    std::fs::write(package.join("hooks.mjs"), "// the workspace's own source\n").unwrap();
    let entry = root.path().join("agent/node_modules/@cursor/bdk");
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("../../../packages/bdk", &entry).unwrap();
    root
}

/// sdk overwrote a linked workspace package's source, through the link: now a package
/// without agent-sdk's stamp is refused (nothing is written), and `--force` replaces the
/// link with a copy, leaving the source alone.
#[test]
fn a_linked_package_sdk_did_not_write_is_refused_and_never_written_through() {
    let root = workspace_with_a_linked_package();
    let source = root.path().join("packages/bdk/hooks.mjs");
    let refused = seen_in(root.path(), &["sdk", "--dir", "agent"]);
    assert_eq!(std::fs::read_to_string(&source).unwrap(), "// the workspace's own source\n");
    assert!(!root.path().join("agent/vendor").exists(), "nothing was written");
    let forced = seen_in(root.path(), &["sdk", "--dir", "agent", "--force"]);
    insta::assert_snapshot!(format!("{refused}\n{forced}"));
    assert_eq!(std::fs::read_to_string(&source).unwrap(), "// the workspace's own source\n");
    let entry = root.path().join("agent/node_modules/@cursor/bdk");
    assert!(!entry.is_symlink() && std::fs::read_to_string(entry.join("hooks.mjs")).unwrap().contains("defineHook"));
}

/// A package in `node_modules/` from the registry, and someone's files where a package's
/// folder goes: neither is overwritten without `--force`.
#[test]
fn a_package_without_the_stamp_is_not_overwritten_without_force() {
    let project = tempfile::tempdir().unwrap();
    let registry = project.path().join("node_modules/@grok/agent-sdk");
    std::fs::create_dir_all(&registry).unwrap();
    std::fs::write(registry.join("package.json"), r#"{ "name": "@grok/agent-sdk", "version": "3.1.0" }"#).unwrap();
    let vendored = project.path().join("vendor/agent-sdk/cursor-july");
    std::fs::create_dir_all(&vendored).unwrap();
    std::fs::write(vendored.join("notes.md"), "mine\n").unwrap();
    let refused = seen(project.path(), &["sdk"]);
    assert_eq!(std::fs::read_dir(project.path().join("vendor/agent-sdk")).unwrap().count(), 1, "nothing was written");
    let forced = seen(project.path(), &["sdk", "--force"]);
    insta::assert_snapshot!(format!("{refused}\n{forced}"));
    assert_eq!(std::fs::read_to_string(vendored.join("notes.md")).unwrap(), "mine\n", "a file it does not have stays");
    let manifest = std::fs::read_to_string(registry.join("package.json")).unwrap();
    assert!(manifest.contains("\"agentSdk\""), "{manifest}");
    assert!(seen(project.path(), &["sdk"]).contains("exit: 0"), "taken over, the packages are agent-sdk's");
}

/// `node_modules/` that links out of the project (pnpm's store of a workspace, a shared
/// folder) is never written through: a stamped copy there is left, and says so; a package
/// folder of `vendor/` that links out is refused, with `--force` too.
#[test]
fn nothing_is_written_through_a_link_out_of_the_project() {
    let root = tempfile::tempdir().unwrap();
    let (project, shared) = (root.path().join("agent"), root.path().join("shared/node_modules"));
    let stamped = shared.join("@cursor/bdk");
    std::fs::create_dir_all(&stamped).unwrap();
    std::fs::write(stamped.join("package.json"), r#"{ "agentSdk": { "writtenBy": "0.0.1" } }"#).unwrap();
    std::fs::write(stamped.join("hooks.mjs"), "// an older agent-sdk's\n").unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink("../shared/node_modules", project.join("node_modules")).unwrap();
    let left = seen_in(root.path(), &["sdk", "--dir", "agent"]);
    assert_eq!(std::fs::read_to_string(stamped.join("hooks.mjs")).unwrap(), "// an older agent-sdk's\n");
    assert!(!shared.join("@grok").exists() && !shared.join("@cursor/july").exists(), "nothing was copied out");

    std::fs::create_dir_all(root.path().join("elsewhere")).unwrap();
    std::fs::remove_dir_all(project.join("vendor/agent-sdk")).unwrap();
    std::os::unix::fs::symlink("../../elsewhere", project.join("vendor/agent-sdk")).unwrap();
    let refused = seen_in(root.path(), &["sdk", "--dir", "agent", "--force"]);
    assert_eq!(std::fs::read_dir(root.path().join("elsewhere")).unwrap().count(), 0, "nothing was written there");
    insta::assert_snapshot!(format!("{left}\n{refused}"));
}
