//! The SDK packages survive real package-manager use: after `agent-sdk init` (a new
//! `package.json`, and an existing one given what it lacks), each of `npm install <pkg>`,
//! `npm install -D <pkg>`, `npm uninstall <pkg>`, `npm update`, `npm ci` in a fresh clone,
//! `pnpm add <pkg>`, `pnpm install --frozen-lockfile` (here and in a fresh clone, as CI runs
//! it), `yarn add <pkg>` and `yarn install --frozen-lockfile` in a fresh clone leaves `@cursor/bdk`,
//! `@grok/agent-sdk` and `@cursor/july` importable by Node, by `tsc` and by vitest; and an
//! `agent-sdk sdk` of another version refreshes them, through npm's link and in the copies
//! pnpm and yarn make; and an extension's own package (no agent) tests its hooks with vitest
//! after `agent-sdk sdk` there. Everything runs offline: `<pkg>` is a tarball packed from
//! `fixtures/npm_use/tiny-dependency`, pnpm, yarn and vitest are pinned in
//! `tests/package-managers/` (`npm ci --prefix tests/package-managers`), `tsc` in
//! `tests/typescript/`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{exit_code, root, run_in};

const PACKAGES: [&str; 3] = ["@cursor/bdk", "@grok/agent-sdk", "@cursor/july"];

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// A program installed for the tests, or a failure saying how to install it.
fn tool(folder: &str, name: &str) -> PathBuf {
    let path = root().join("tests").join(folder).join("node_modules/.bin").join(name);
    assert!(path.is_file(), "{name} is not installed: run `npm ci --prefix tests/{folder}`");
    path
}

/// A scaffolded project in a folder of its own, and the tarball of `<pkg>`.
struct Project {
    temp: tempfile::TempDir,
    dir: PathBuf,
    tarball: PathBuf,
}

impl Project {
    /// `agent-sdk init <args>` in a new folder (holding `package_json` first, when given),
    /// without the dev dependencies (`typescript` and `@types/node` would need the network:
    /// the checks use tests/typescript's), and a vitest test of the test kit.
    fn init(args: &[&str], package_json: Option<&str>) -> Self {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("demo");
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(package_json) = package_json {
            std::fs::write(dir.join("package.json"), package_json).unwrap();
        }
        let init = run_in(&dir, &[&["init"], args].concat());
        assert_eq!(exit_code(&init), 0, "{}", text(&init));
        let manifest = dir.join("package.json");
        let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        json.as_object_mut().unwrap().remove("devDependencies");
        std::fs::write(&manifest, serde_json::to_string_pretty(&json).unwrap()).unwrap();
        std::fs::create_dir_all(dir.join("checks")).unwrap();
        std::fs::write(dir.join("checks/kit.test.ts"), KIT_TEST).unwrap();

        let pack = Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(temp.path())
            .arg(root().join("fixtures/npm_use/tiny-dependency"))
            .output()
            .unwrap();
        assert!(pack.status.success(), "{}", text(&pack));
        let tarball = temp.path().join(String::from_utf8_lossy(&pack.stdout).trim());
        assert!(tarball.is_file(), "{}", text(&pack));
        Self { temp, dir, tarball }
    }

    /// Runs `program args` in the project (or in `dir`), which must succeed; what it printed.
    fn run(&self, program: &Path, args: &[&str], dir: Option<&Path>) -> String {
        let output = Command::new(program)
            .args(args)
            .current_dir(dir.unwrap_or(&self.dir))
            .env_remove("NODE_OPTIONS")
            .env("npm_config_update_notifier", "false")
            .env("YARN_CACHE_FOLDER", self.temp.path().join("yarn-cache"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{} {args:?}:\n{}", program.display(), text(&output));
        text(&output)
    }

    /// What a teammate gets: the project committed and cloned (node_modules/ and .agent-sdk/
    /// are ignored); the clone's folder.
    fn commit_and_clone(&self) -> PathBuf {
        let git = |args: &[&str], dir: &Path| {
            let args = [&["-c", "user.name=test", "-c", "user.email=test@example.com"], args].concat();
            self.run(Path::new("git"), &args, Some(dir))
        };
        git(&["init", "-q"], &self.dir);
        git(&["add", "-A"], &self.dir);
        git(&["commit", "-q", "-m", "the project"], &self.dir);
        let clone = self.dir.with_file_name("clone");
        git(&["clone", "-q", self.dir.to_str().unwrap(), clone.to_str().unwrap()], &self.dir);
        assert!(!clone.join("node_modules").exists() && clone.join("vendor/agent-sdk/cursor-bdk/hooks.d.ts").is_file());
        clone
    }

    fn npm(&self, args: &[&str]) -> String {
        self.run(Path::new("npm"), &[args, &["--offline", "--no-audit", "--no-fund"]].concat(), None)
    }

    fn tarball(&self) -> &str {
        self.tarball.to_str().unwrap()
    }
}

/// The test kit, from vitest (run with `--globals`: the project does not install vitest).
const KIT_TEST: &str = r#"import { createTestContext, dispatch, events } from "@cursor/bdk/testing";
import * as agentSdk from "@grok/agent-sdk/testing";
import * as july from "@cursor/july/testing";
import usage from "../bot/hooks/usage.ts";

test("the test kit dispatches an event to a hook", async () => {
  const ctx = await dispatch(usage, events["turn.completed"](), createTestContext());
  expect(ctx.host.otel.recorded[0]?.name).toBe("tokens.output");
  expect(typeof agentSdk.dispatch).toBe("function");
  expect(typeof july.dispatch).toBe("function");
});
"#;

/// An extension's author's test, under vitest: the extension's hooks dispatched through the
/// test kit.
const EXTENSION_TEST: &str = r#"import { createTestContext, dispatch, events } from "@cursor/bdk/testing";
import ci, { greeter } from "./index.ts";

test("an extension's hook dispatches through the test kit", async () => {
  const mount = ci({ org: "acme" });
  const ctx = await dispatch(mount.hooks.triage, events["turn.failed"](), createTestContext());
  expect(await ctx.host.kv.get("triage:turn_test")).toEqual({ org: "acme", message: events["turn.failed"]().data.message });
  const measured = await dispatch(mount.disableHook("triage").hooks["audit/usage"], events["turn.completed"]());
  expect(measured.host.otel.recorded.map((record) => record.name)).toEqual(["ci.tokens"]);
  expect((await dispatch(greeter().hooks.hello, events["message.received"]())).host.otel.recorded).toHaveLength(1);
  expect(() => ci(JSON.parse("{}"))).toThrow("ci: `org` must be a string");
});
"#;

/// A hook that meters with `@opentelemetry/api`, tested under vitest: the kit, imported before
/// the hook, has registered the providers its module-scope meter binds to.
const TELEMETRY_TEST: &str = r#"import { dispatch, events, telemetry } from "@cursor/bdk/testing";
import usage from "./usage.ts";

test("the kit records the hook's counters", async () => {
  await dispatch(usage, events["turn.completed"]({ data: { usage: { inputTokens: 1200, outputTokens: 300 } } }));
  expect(telemetry.metrics.map(({ name, value }) => `${name} ${value}`)).toEqual([
    "acme.tokens.input 1200",
    "acme.tokens.output 300",
  ]);
});
"#;

#[test]
fn hooks_that_meter_with_the_opentelemetry_api_are_tested_with_vitest() {
    let installed = root().join("fixtures/otel/api-metrics/node_modules/@opentelemetry/api");
    assert!(installed.is_dir(), "run `npm ci --prefix fixtures/otel/api-metrics`");
    let project = common::copy_project(&root().join("fixtures/otel/api-metrics"));
    let sdk = run_in(project.path(), &["sdk"]);
    assert_eq!(exit_code(&sdk), 0, "{}", text(&sdk));
    // Only this test: the fixture's own `telemetry.test.ts` imports `node:test`.
    std::fs::write(project.path().join("bot/hooks/kit.vitest.test.ts"), TELEMETRY_TEST).unwrap();
    passes_one_vitest_test(project.path(), &["kit.vitest"]);
}

/// An extension in a package of its own (no agent): after `agent-sdk sdk` there, vitest runs
/// its author's test of its hooks with the test kit (the extension of `fixtures/test/extension`,
/// which `tests/it/types.rs` type-checks).
#[test]
fn an_extension_package_s_hooks_are_tested_with_vitest() {
    let package = common::copy_project(&root().join("fixtures/test/extension/packages/ci-triage"));
    let sdk = run_in(package.path(), &["sdk"]);
    assert_eq!(exit_code(&sdk), 0, "{}", text(&sdk));
    std::fs::write(package.path().join("src/index.test.ts"), EXTENSION_TEST).unwrap();
    passes_one_vitest_test(package.path(), &[]);
}

/// vitest (`run --globals`: the project does not install vitest) in `dir`, on the files
/// `filters` pick: it passes, one test.
fn passes_one_vitest_test(dir: &Path, filters: &[&str]) {
    let vitest = Command::new(tool("package-managers", "vitest"))
        .args(["run", "--globals", "--root", "."])
        .args(filters)
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .env("CI", "1")
        .output()
        .unwrap();
    assert!(vitest.status.success(), "vitest failed:\n{}", text(&vitest));
    assert!(text(&vitest).contains("1 passed"), "{}", text(&vitest));
}

/// The three ways the packages are used, checked on the project in `dir` after `what`:
/// Node imports every module of each, `tsc --noEmit` passes on the scaffold (its hooks and
/// their test import the SDK), and vitest runs a test importing the test kit. `tsc` and
/// vitest run at the same time.
fn usable(dir: &Path, what: &str) {
    let program: String = PACKAGES
        .iter()
        .flat_map(|package| {
            ["", "/hooks", "/memory", "/extensions", "/testing"]
                .map(|module| format!("await import('{package}{module}');"))
        })
        .collect();
    let node = Command::new("node")
        .args(["--input-type=module", "-e", &program])
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .output()
        .unwrap();
    assert!(node.status.success(), "after {what}, node could not import the SDK:\n{}", text(&node));

    let tsc = Command::new(tool("typescript", "tsc"))
        .args(["--noEmit", "-p", "tsconfig.json", "--typeRoots"])
        .arg(root().join("tests/typescript/node_modules/@types"))
        .current_dir(dir)
        .spawn()
        .unwrap();
    let vitest = Command::new(tool("package-managers", "vitest"))
        .args(["run", "--globals", "--root", ".", "checks/"])
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .env("CI", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tsc = tsc.wait_with_output().unwrap();
    let vitest = vitest.wait_with_output().unwrap();
    assert!(tsc.status.success(), "after {what}, tsc failed:\n{}", text(&tsc));
    assert!(vitest.status.success(), "after {what}, vitest failed:\n{}", text(&vitest));
}

/// Makes the packages look written by another agent-sdk, in the folder and in the copy of it
/// in node_modules/ (`copies`) or through npm's link; `validate` must say so, and `sdk` put
/// this version's back in both.
fn refreshed_after_an_upgrade(dir: &Path, copies: bool) {
    for package in PACKAGES {
        let folder = dir.join("vendor/agent-sdk").join(package.trim_start_matches('@').replace('/', "-"));
        let installed = common_package_dir(dir, package);
        for manifest in [folder.join("package.json"), installed.join("package.json")] {
            let text = std::fs::read_to_string(&manifest).unwrap();
            let old =
                text.replace(&format!("\"writtenBy\": \"{}\"", env!("CARGO_PKG_VERSION")), "\"writtenBy\": \"0.0.1\"");
            // Replaced, not written through, as a package manager's hard link must not carry it.
            std::fs::remove_file(&manifest).unwrap();
            std::fs::write(&manifest, old).unwrap();
        }
    }
    let outdated = text(&run_in(dir, &["validate"]));
    assert!(outdated.contains("project::sdk-packages-outdated"), "{outdated}");
    let sdk = run_in(dir, &["sdk"]);
    assert_eq!(exit_code(&sdk), 0, "{}", text(&sdk));
    let folder =
        format!("updated vendor/agent-sdk/cursor-bdk (agent-sdk {}, 1 of 20 files changed)", env!("CARGO_PKG_VERSION"));
    assert!(text(&sdk).contains(&folder), "{}", text(&sdk));
    let copy = "; updated its copy node_modules/@cursor/bdk (1 of 20 files changed)";
    assert_eq!(text(&sdk).contains(copy), copies, "{}", text(&sdk));
    let validate = text(&run_in(dir, &["validate"]));
    assert!(!validate.contains("sdk-packages"), "after sdk:\n{}\n{validate}", text(&sdk));
}

fn common_package_dir(dir: &Path, package: &str) -> PathBuf {
    package.split('/').fold(dir.join("node_modules"), |dir, part| dir.join(part))
}

#[test]
fn npm_keeps_them_through_install_uninstall_and_update() {
    let project = Project::init(&[], None);
    usable(&project.dir, "init");
    let installed = project.npm(&["install", project.tarball()]);
    assert!(!installed.contains("removed"), "{installed}");
    usable(&project.dir, "npm install <pkg>");
    project.npm(&["install", "-D", project.tarball()]);
    usable(&project.dir, "npm install -D <pkg>");
    project.npm(&["uninstall", "tiny-dependency"]);
    usable(&project.dir, "npm uninstall <pkg>");
    project.npm(&["install", project.tarball()]);
    project.npm(&["update"]);
    usable(&project.dir, "npm update");
}

#[test]
fn npm_sees_an_upgrade_through_its_link_and_a_fresh_clone_s_ci_installs_them() {
    let project = Project::init(&[], None);
    project.npm(&["install", project.tarball()]);
    refreshed_after_an_upgrade(&project.dir, false);
    usable(&project.dir, "an upgraded agent-sdk sdk");

    let clone = project.commit_and_clone();
    project.run(Path::new("npm"), &["ci", "--offline", "--no-audit", "--no-fund"], Some(&clone));
    usable(&clone, "npm ci in a fresh clone");
}

#[test]
fn npm_keeps_them_in_an_existing_package_json_given_what_it_lacks() {
    let project =
        Project::init(&["--update-package-json"], Some("{\n  \"name\": \"acme\",\n  \"version\": \"1.0.0\"\n}\n"));
    project.npm(&["install", project.tarball()]);
    usable(&project.dir, "init --update-package-json, then npm install <pkg>");
}

#[test]
fn pnpm_keeps_them_and_sdk_refreshes_its_copies() {
    let project = Project::init(&[], None);
    let pnpm = tool("package-managers", "pnpm");
    let store = project.temp.path().join("pnpm-store");
    let store = ["--store-dir", store.to_str().unwrap()];
    project.run(&pnpm, &[&["add", "--offline", project.tarball()][..], &store].concat(), None);
    usable(&project.dir, "pnpm add <pkg>");
    // The lockfile `pnpm add` wrote names the SDK packages: CI's frozen install takes it.
    let frozen = [&["install", "--offline", "--frozen-lockfile"][..], &store].concat();
    project.run(&pnpm, &frozen, None);
    let installed = common_package_dir(&project.dir, "@cursor/bdk").canonicalize().unwrap();
    assert!(installed.starts_with(project.dir.join("node_modules/.pnpm")), "pnpm copies a file: folder");
    usable(&project.dir, "pnpm install --frozen-lockfile");
    refreshed_after_an_upgrade(&project.dir, true);
    usable(&project.dir, "an upgraded agent-sdk sdk, with pnpm");
    let clone = project.commit_and_clone();
    project.run(&pnpm, &frozen, Some(&clone));
    usable(&clone, "pnpm install --frozen-lockfile in a fresh clone");
}

#[test]
fn yarn_keeps_them_and_sdk_refreshes_its_copies() {
    let project = Project::init(&[], None);
    // Relative, as a registry package's entry is: yarn records an absolute `file:` tarball
    // under a key its own `--frozen-lockfile` install then does not find.
    let name = project.tarball.file_name().unwrap().to_str().unwrap();
    let tarball = format!("file:../{name}");
    // yarn 1 refuses a project whose `engines` the running Node misses (the scaffold asks
    // for ≥ 22.13; the suite also runs on Node 20).
    project.run(
        &tool("package-managers", "yarn"),
        &["add", "--offline", "--no-progress", "--ignore-engines", &tarball],
        None,
    );
    assert!(!common_package_dir(&project.dir, "@cursor/bdk").is_symlink(), "yarn copies a file: folder");
    usable(&project.dir, "yarn add <pkg>");
    refreshed_after_an_upgrade(&project.dir, true);
    usable(&project.dir, "an upgraded agent-sdk sdk, with yarn");
    let clone = project.commit_and_clone();
    project.run(
        &tool("package-managers", "yarn"),
        &["install", "--offline", "--frozen-lockfile", "--ignore-engines"],
        Some(&clone),
    );
    usable(&clone, "yarn install --frozen-lockfile in a fresh clone");
}
