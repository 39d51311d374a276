//! The npm packages (packaging/npm/): built by `packaging/npm/build.py` around this test's
//! own binary, installed from their tarballs into a project offline, and run through `npx`
//! the way a TypeScript developer runs them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{copy_fixture, exit_code, root, run_in};
use serde_json::Value;

const MAIN_PACKAGE: &str = "@agent-sdk/cli";
const PLATFORM_PACKAGE: &str = "@agent-sdk/cli-linux-x64";

/// The two tarballs `build.py` writes: the main package's and this platform's.
pub(crate) struct Tarballs {
    pub(crate) main: PathBuf,
    pub(crate) platform: PathBuf,
}

/// Built once for all the tests here and tests/it/action.rs's registry, under the target
/// directory's scratch folder.
pub(crate) fn tarballs() -> &'static Tarballs {
    static TARBALLS: OnceLock<Tarballs> = OnceLock::new();
    TARBALLS.get_or_init(|| {
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("npm-package");
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).unwrap();
        let binary = binary_to_ship(&scratch);
        let out = scratch.join("tarballs");
        let built = Command::new("python3")
            .arg(root().join("packaging/npm/build.py"))
            .arg("--binary")
            .arg(&binary)
            .arg("--out")
            .arg(&out)
            .current_dir(root())
            .output()
            .expect("python3 runs packaging/npm/build.py (it needs python3 ≥ 3.11, node and npm on PATH)");
        assert!(built.status.success(), "build.py failed:\n{}", both(&built));
        let printed = String::from_utf8_lossy(&built.stdout);
        let paths: Vec<PathBuf> = printed.lines().map(PathBuf::from).collect();
        let [main, platform] = paths.as_slice() else { panic!("build.py prints two tarballs, not:\n{printed}") };
        assert!(main.is_file() && platform.is_file(), "build.py printed tarballs that are not there:\n{printed}");
        Tarballs { main: main.clone(), platform: platform.clone() }
    })
}

/// This test's `agent-sdk` binary without its debug info (`strip --strip-debug`, from the
/// binutils the Rust linker already needs): the same program, a tenth of the size to pack.
/// Where `strip` is missing the binary is shipped as it is, only slower to pack.
fn binary_to_ship(scratch: &Path) -> PathBuf {
    let binary = Path::new(env!("CARGO_BIN_EXE_agent-sdk"));
    let stripped = scratch.join("agent-sdk");
    let strip = Command::new("strip").arg("--strip-debug").arg("-o").arg(&stripped).arg(binary).status();
    if strip.is_ok_and(|status| status.success()) { stripped } else { binary.to_owned() }
}

/// A copy of `fixtures/<group>/<case>` with both packages installed from their tarballs, offline.
struct Project {
    dir: tempfile::TempDir,
    /// npm's cache and user config, kept out of the user's `~/.npm` and `~/.npmrc`.
    npm_home: tempfile::TempDir,
}

impl Project {
    fn install(group: &str, case: &str) -> Self {
        let tarballs = tarballs();
        let project = Project { dir: copy_fixture(group, case), npm_home: tempfile::tempdir().unwrap() };
        let install = project
            .npm("npm")
            .args(["install", "--no-audit", "--no-fund"])
            .arg(&tarballs.main)
            .arg(&tarballs.platform)
            .output()
            .expect("npm runs (it comes with Node.js)");
        assert!(install.status.success(), "npm install of the tarballs failed:\n{}", both(&install));
        project
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `program` (npm, npx, node) in the project, offline, with an empty user config.
    fn npm(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(self.path())
            .env("npm_config_offline", "true")
            .env("npm_config_cache", self.npm_home.path().join("cache"))
            .env("npm_config_userconfig", self.npm_home.path().join("npmrc"))
            .env("npm_config_update_notifier", "false")
            .env("NO_COLOR", "1")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE");
        command
    }

    fn npx(&self, args: &[&str]) -> Output {
        self.npm("npx").args(args).output().expect("npx runs (it comes with Node.js)")
    }

    fn installed_manifest(&self, package: &str) -> Value {
        let manifest = self.path().join("node_modules").join(package).join("package.json");
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap()
    }
}

#[test]
fn npx_agent_sdk_and_npx_bdk_answer_as_the_binary_does() {
    let project = Project::install("validate", "accepted-forms");

    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(project.installed_manifest(MAIN_PACKAGE)["version"], version);
    assert_eq!(project.installed_manifest(MAIN_PACKAGE)["optionalDependencies"][PLATFORM_PACKAGE], version);
    assert_eq!(project.installed_manifest(PLATFORM_PACKAGE)["version"], version);
    assert_eq!(project.installed_manifest(PLATFORM_PACKAGE)["os"], serde_json::json!(["linux"]));
    assert_eq!(project.installed_manifest(PLATFORM_PACKAGE)["cpu"], serde_json::json!(["x64"]));
    // The main package's optional dependency is met by the platform tarball (`npm ls` fails
    // on a missing or invalid one).
    let tree = project.npm("npm").args(["ls", "--all", "--json"]).output().unwrap();
    assert!(tree.status.success(), "{}", both(&tree));
    let tree: Value = serde_json::from_slice(&tree.stdout).unwrap();
    assert_eq!(tree["dependencies"][MAIN_PACKAGE]["dependencies"][PLATFORM_PACKAGE]["version"], version, "{tree:#}");

    let validate = project.npx(&["agent-sdk", "validate"]);
    assert_eq!(exit_code(&validate), 0, "{}", both(&validate));
    assert!(String::from_utf8_lossy(&validate.stdout).contains("Found no problems"), "{}", both(&validate));
    assert_same(&validate, &run_in(project.path(), &["validate"]));

    let info = project.npx(&["bdk", "info", "--json"]);
    assert_eq!(exit_code(&info), 0, "{}", both(&info));
    let json: Value = serde_json::from_slice(&info.stdout).expect("`bdk info --json` prints JSON");
    assert_eq!(json["agents"][0]["name"], "acme-bot", "{json:#}");
    assert_same(&info, &run_in(project.path(), &["info", "--json"]));

    // Findings come back as the binary's exit code.
    let broken = copy_fixture("validate", "duplicate-name");
    let dir = broken.path().to_str().unwrap();
    let failed = project.npx(&["agent-sdk", "validate", "--dir", dir]);
    assert_eq!(exit_code(&failed), 1, "{}", both(&failed));
    assert_same(&failed, &run_in(project.path(), &["validate", "--dir", dir]));

    // `bdk` starts the one binary under its own name.
    let usage = project.npx(&["bdk", "--no-such-flag"]);
    assert_eq!(exit_code(&usage), 2, "{}", both(&usage));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("Usage: bdk "), "{}", both(&usage));
}

#[test]
fn a_signal_for_the_launcher_reaches_the_binary_and_the_binary_s_end_comes_back() {
    let project = Project::install("dev", "basic");

    // SIGTERM to the launcher: `dev` stops cleanly, and the launcher exits with its 0.
    let launcher = start_dev(&project);
    let binary = wait_for_binary(&project, &launcher);
    signal("-TERM", launcher.id());
    let ended = launcher.wait_with_output().unwrap();
    assert_eq!(ended.status.code(), Some(0), "{}", both(&ended));
    assert!(String::from_utf8_lossy(&ended.stderr).contains("stopped"), "{}", both(&ended));
    assert!(!Path::new(&format!("/proc/{binary}")).exists(), "the binary is gone with the launcher");

    // The binary killed by a signal: the launcher ends by the same signal.
    let _ = std::fs::remove_file(project.path().join(".agent-sdk/dev.json"));
    let launcher = start_dev(&project);
    let binary = wait_for_binary(&project, &launcher);
    signal("-KILL", binary);
    let ended = launcher.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(ended.status.signal(), Some(9), "{:?}\n{}", ended.status, both(&ended));
}

#[test]
fn without_its_platform_package_the_launcher_says_what_is_missing_and_how_to_get_it() {
    let project = Project::install("validate", "accepted-forms");
    // What npm leaves when optional dependencies are omitted.
    std::fs::remove_dir_all(project.path().join("node_modules").join(PLATFORM_PACKAGE)).unwrap();

    let validate = project.npx(&["agent-sdk", "validate"]);
    assert_eq!(exit_code(&validate), 2, "{}", both(&validate));
    let version = env!("CARGO_PKG_VERSION");
    let stderr = String::from_utf8_lossy(&validate.stderr);
    assert_eq!(
        stderr,
        format!(
            "agent-sdk: the binary for linux-x64 (glibc) comes in {PLATFORM_PACKAGE}, an optional dependency of \
             {MAIN_PACKAGE}, and it is not installed.\nnpm leaves it out when optional dependencies are omitted \
             (--omit=optional, --no-optional, or the same in an .npmrc) or when the lockfile was made on another \
             platform. Install it with optional dependencies included (`npm install --include=optional`), or add \
             it yourself: `npm install -D {PLATFORM_PACKAGE}@{version}`.\n"
        )
    );
    assert!(validate.stdout.is_empty(), "{}", both(&validate));
}

/// `agent-sdk dev` through the installed launcher, with no terminal (as under a supervisor).
fn start_dev(project: &Project) -> Child {
    project
        .npm("node")
        .args(["node_modules/.bin/agent-sdk", "dev", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The pid of the binary the launcher started, once its server answers. Not as soon as it
/// writes dev.json: `dev` writes that before it listens for SIGTERM (src/commands/dev.rs), and
/// a SIGTERM in between ends it by the signal's default action, with nothing said.
fn wait_for_binary(project: &Project, launcher: &Child) -> u32 {
    let dev_file = project.path().join(".agent-sdk/dev.json");
    let started = Instant::now();
    loop {
        assert!(started.elapsed() < Duration::from_secs(60), "dev did not start through the launcher");
        let dev = std::fs::read_to_string(&dev_file).ok().and_then(|text| serde_json::from_str::<Value>(&text).ok());
        if let Some(url) = dev.as_ref().and_then(|dev| dev["url"].as_str())
            && reqwest::blocking::get(url).is_ok()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let children = Command::new("pgrep").args(["-P", &launcher.id().to_string()]).output().unwrap();
    let children = String::from_utf8_lossy(&children.stdout);
    let [binary] = children.lines().collect::<Vec<_>>()[..] else { panic!("one child of the launcher: {children}") };
    binary.parse().unwrap()
}

fn signal(signal: &str, pid: u32) {
    assert!(Command::new("kill").args([signal, &pid.to_string()]).status().unwrap().success());
}

/// The launcher adds nothing: same exit code, same stdout, same stderr.
fn assert_same(through_npx: &Output, direct: &Output) {
    assert_eq!(exit_code(through_npx), exit_code(direct), "{}", both(through_npx));
    assert_eq!(String::from_utf8_lossy(&through_npx.stdout), String::from_utf8_lossy(&direct.stdout));
    assert_eq!(String::from_utf8_lossy(&through_npx.stderr), String::from_utf8_lossy(&direct.stderr));
}

fn both(output: &Output) -> String {
    format!(
        "----- stdout -----\n{}----- stderr -----\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

// Every platform at once, as the release workflow packs them (`build.py --binaries`), and the
// launcher's choice among them for machines this one is not.

/// Every platform the release builds, as its package must say it: the platforms.json key,
/// Node's `process.platform` and `process.arch`, the C library (Linux) and the binary's name.
const EVERY_PLATFORM: [(&str, &str, &str, Option<&str>, &str); 8] = [
    ("linux-x64", "linux", "x64", Some("glibc"), "agent-sdk"),
    ("linux-x64-musl", "linux", "x64", Some("musl"), "agent-sdk"),
    ("linux-arm64", "linux", "arm64", Some("glibc"), "agent-sdk"),
    ("linux-arm64-musl", "linux", "arm64", Some("musl"), "agent-sdk"),
    ("darwin-x64", "darwin", "x64", None, "agent-sdk"),
    ("darwin-arm64", "darwin", "arm64", None, "agent-sdk"),
    ("win32-x64", "win32", "x64", None, "agent-sdk.exe"),
    ("win32-arm64", "win32", "arm64", None, "agent-sdk.exe"),
];

/// What the launcher lists when no package fits the machine, after saying which machine.
const WHAT_THERE_IS: &str = "\
It has one for:
  linux-x64 (glibc)    @agent-sdk/cli-linux-x64
  linux-x64 (musl)     @agent-sdk/cli-linux-x64-musl
  linux-arm64 (glibc)  @agent-sdk/cli-linux-arm64
  linux-arm64 (musl)   @agent-sdk/cli-linux-arm64-musl
  darwin-x64           @agent-sdk/cli-darwin-x64
  darwin-arm64         @agent-sdk/cli-darwin-arm64
  win32-x64            @agent-sdk/cli-win32-x64
  win32-arm64          @agent-sdk/cli-win32-arm64
Build it from source instead: `cargo install --path .` in a clone of the repository (see its README).";

#[test]
fn build_py_packs_every_platform_from_a_folder_of_binaries() {
    let scratch = tempfile::tempdir().unwrap();
    let binaries = binaries_folder(scratch.path());
    let out = scratch.path().join("tarballs");
    let built = build_py(&["--binaries".as_ref(), binaries.as_os_str(), "--out".as_ref(), out.as_os_str()]);
    assert_eq!(exit_code(&built), 0, "{}", both(&built));
    let printed = String::from_utf8_lossy(&built.stdout);
    let tarballs: Vec<PathBuf> = printed.lines().map(PathBuf::from).collect();
    assert_eq!(
        tarballs.len(),
        1 + EVERY_PLATFORM.len(),
        "the main package's tarball, then each platform's:\n{printed}"
    );

    let version = env!("CARGO_PKG_VERSION");
    // What `npm publish --provenance` compares with the repository the workflow runs in.
    let repository = serde_json::json!({ "type": "git", "url": format!("git+{}.git", env!("CARGO_PKG_REPOSITORY")) });
    let main = unpack(&tarballs[0], &scratch.path().join("main"));
    let manifest = manifest_of(&main);
    assert_eq!(manifest["name"], MAIN_PACKAGE);
    assert_eq!(manifest["version"], version);
    assert_eq!(manifest["repository"], repository);
    let every_package: serde_json::Map<String, Value> =
        EVERY_PLATFORM.iter().map(|(key, ..)| (package_of(key), Value::from(version))).collect();
    assert_eq!(manifest["optionalDependencies"], Value::Object(every_package));
    assert_eq!(manifest["bin"], serde_json::json!({ "agent-sdk": "bin/agent-sdk.js", "bdk": "bin/bdk.js" }));
    let table = std::fs::read_to_string(root().join("packaging/npm/platforms.json")).unwrap();
    assert_eq!(
        std::fs::read_to_string(main.join("platforms.json")).unwrap(),
        table,
        "the launcher's table is the repository's"
    );
    assert_eq!(
        std::fs::read_to_string(main.join("agent-sdk.schema.json")).ok(),
        std::fs::read_to_string(root().join("agent-sdk.schema.json")).ok(),
        "the package's settings schema is the repository's"
    );

    for ((key, os, cpu, libc, binary), tarball) in EVERY_PLATFORM.iter().zip(&tarballs[1..]) {
        let package = unpack(tarball, &scratch.path().join(key));
        let manifest = manifest_of(&package);
        assert_eq!(manifest["name"], package_of(key), "{}", tarball.display());
        assert_eq!(manifest["version"], version, "{key}");
        assert_eq!(manifest["repository"], repository, "{key}");
        assert_eq!(manifest["os"], serde_json::json!([os]), "{key}");
        assert_eq!(manifest["cpu"], serde_json::json!([cpu]), "{key}");
        assert_eq!(manifest.get("libc"), libc.map(|libc| serde_json::json!([libc])).as_ref(), "{key}");
        assert_eq!(
            crate::common::files_of(&package),
            ["bin".to_owned(), format!("bin/{binary}"), "package.json".to_owned()]
        );
        let shipped = package.join("bin").join(binary);
        assert_eq!(
            std::fs::read_to_string(&shipped).unwrap(),
            stand_in(key),
            "{key} carries another platform's binary"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&shipped).unwrap().permissions().mode() & 0o777;
        assert_eq!(format!("{mode:o}"), "755", "{key}: the mode of bin/{binary}");
    }
}

#[test]
fn build_py_refuses_binaries_it_cannot_ship_and_says_why() {
    let scratch = tempfile::tempdir().unwrap();
    let binaries = binaries_folder(scratch.path());
    let out = scratch.path().join("tarballs");
    let refused = |args: &[&std::ffi::OsStr]| -> String {
        let output = build_py(&[args, &["--out".as_ref(), out.as_os_str()]].concat());
        assert_eq!(exit_code(&output), 1, "{}", both(&output));
        assert!(output.stdout.is_empty() && !out.exists(), "build.py packed what it refused:\n{}", both(&output));
        String::from_utf8(output.stderr).unwrap()
    };
    let dir = binaries.display();
    let keys = EVERY_PLATFORM.map(|(key, ..)| key).join(", ");

    // A folder for a platform the table does not have.
    std::fs::create_dir(binaries.join("freebsd-x64")).unwrap();
    assert_eq!(
        refused(&["--binaries".as_ref(), binaries.as_os_str()]),
        format!(
            "build.py: {dir} has freebsd-x64, which platforms.json does not name (it has {keys}): each folder in it \
             is named by the platform of the binary inside\n"
        )
    );
    std::fs::remove_dir(binaries.join("freebsd-x64")).unwrap();

    // A Windows binary without .exe (a Linux one put there by mistake), a platform without its binary.
    std::fs::rename(binaries.join("win32-x64/agent-sdk.exe"), binaries.join("win32-x64/agent-sdk")).unwrap();
    std::fs::remove_dir_all(binaries.join("linux-arm64-musl")).unwrap();
    assert_eq!(
        refused(&["--binaries".as_ref(), binaries.as_os_str()]),
        format!(
            "build.py: every platform of platforms.json needs its binary:\n  \
             {dir}/linux-arm64-musl/agent-sdk is missing (no folder {dir}/linux-arm64-musl)\n  \
             {dir}/win32-x64/agent-sdk.exe is missing ({dir}/win32-x64 has agent-sdk)\n"
        )
    );

    // One binary: for Windows but no .exe; for a platform there is not; not there at all.
    let linux = binaries.join("linux-x64/agent-sdk");
    let one = |binary: &Path, platform: &str| {
        refused(&["--binary".as_ref(), binary.as_os_str(), "--platform".as_ref(), platform.as_ref()])
    };
    assert_eq!(
        one(&linux, "win32-arm64"),
        format!(
            "build.py: {} is for win32-arm64, a Windows platform, but is not an .exe: Windows runs only .exe files \
             (is it a binary for another platform?)\n",
            linux.display()
        )
    );
    assert_eq!(
        one(&linux, "linux-riscv64"),
        format!(
            "build.py: no platform 'linux-riscv64' in {} (it has {keys}); add it there, or name one with --platform\n",
            root().join("packaging/npm/platforms.json").display()
        )
    );
    let nothing = scratch.path().join("not-built-yet");
    assert_eq!(
        one(&nothing, "linux-x64"),
        format!(
            "build.py: no binary at {}: build it first (`cargo build --release`) or name it with --binary\n",
            nothing.display()
        )
    );
}

#[test]
fn build_py_refuses_a_platform_table_that_would_install_the_wrong_binary() {
    // A copy of packaging/npm/ (and the Cargo.toml it reads) whose platforms.json each case rewrites.
    let copy = tempfile::tempdir().unwrap();
    let npm = copy.path().join("packaging/npm");
    std::fs::create_dir_all(npm.join("cli/bin")).unwrap();
    for file in ["build.py", "cli/package.json", "cli/launcher.js", "cli/bin/agent-sdk.js", "cli/bin/bdk.js"] {
        std::fs::copy(root().join("packaging/npm").join(file), npm.join(file)).unwrap();
    }
    std::fs::copy(root().join("Cargo.toml"), copy.path().join("Cargo.toml")).unwrap();
    let binary = copy.path().join("agent-sdk");
    std::fs::write(&binary, stand_in("linux-x64")).unwrap();

    let linux = r#""linux-x64": { "package": "@agent-sdk/cli-linux-x64", "os": "linux", "cpu": "x64", "libc": "glibc", "binary": "agent-sdk" }"#;
    let cases = [
        (
            r#""linux-x64": { "package": "@agent-sdk/cli-linux-x64", "os": "linux", "cpu": "x64", "binary": "agent-sdk" }"#.to_owned(),
            r#"'linux-x64' needs "libc": "glibc" or "musl" (both exist on Linux)"#,
        ),
        (
            format!(r#"{linux}, "win32-x64": {{ "package": "@agent-sdk/cli-win32-x64", "os": "win32", "cpu": "x64", "binary": "agent-sdk" }}"#),
            "'win32-x64' has the binary 'agent-sdk': on Windows, and only there, it is agent-sdk.exe",
        ),
        (
            format!(r#"{linux}, "darwin-x64": {{ "package": "@agent-sdk/cli-darwin-x64", "os": "darwin", "cpu": "x64", "libc": "glibc", "binary": "agent-sdk" }}"#),
            r#"'darwin-x64' has a "libc", which only Linux packages have"#,
        ),
        (
            format!(r#"{linux}, "linux-x64-gnu": {{ "package": "@agent-sdk/cli-linux-x64-gnu", "os": "linux", "cpu": "x64", "libc": "glibc", "binary": "agent-sdk" }}"#),
            "'linux-x64-gnu' and 'linux-x64' are for the same os, cpu and libc",
        ),
        (
            format!(r#"{linux}, "linux-x64-musl": {{ "package": "@agent-sdk/cli-linux-x64", "os": "linux", "cpu": "x64", "libc": "musl", "binary": "agent-sdk" }}"#),
            "'linux-x64-musl' and 'linux-x64' are both @agent-sdk/cli-linux-x64",
        ),
        (format!(r#"{linux}, "darwin-arm64": {{ "package": "@agent-sdk/cli-darwin-arm64", "os": "darwin" }}"#), "'darwin-arm64' has no cpu, binary"),
    ];
    let table = npm.canonicalize().unwrap().join("platforms.json");
    for (entries, problem) in cases {
        std::fs::write(&table, format!("{{ {entries} }}")).unwrap();
        let output = Command::new("python3")
            .arg(npm.join("build.py"))
            .arg("--binary")
            .arg(&binary)
            .args(["--platform", "linux-x64", "--out"])
            .arg(copy.path().join("out"))
            .output()
            .unwrap();
        assert_eq!(exit_code(&output), 1, "{entries}\n{}", both(&output));
        assert_eq!(String::from_utf8_lossy(&output.stderr), format!("build.py: {}: {problem}\n", table.display()));
    }
}

#[test]
fn the_launcher_picks_the_package_of_each_machine_and_names_them_all_when_none_fits() {
    let fitting = EVERY_PLATFORM.map(|(key, os, cpu, libc, binary)| ((os, cpu, libc), Some((key, binary))));
    let unfitting = [
        ("freebsd", "x64", None),
        ("linux", "ia32", Some("glibc")),
        ("linux", "arm", Some("glibc")),
        ("linux", "riscv64", Some("musl")),
        ("win32", "ia32", None),
        ("openbsd", "arm64", None),
        ("android", "arm64", None),
    ]
    .map(|machine| (machine, None));
    let machines: Vec<_> = fitting.into_iter().chain(unfitting).collect();
    let asked: Vec<Value> =
        machines.iter().map(|((os, cpu, libc), _)| serde_json::json!({ "os": os, "cpu": cpu, "libc": libc })).collect();

    let script = "const launcher = require(process.argv[1]);\
                  const table = require(process.argv[2]);\
                  const machines = JSON.parse(process.argv[3]);\
                  console.log(JSON.stringify(machines.map((machine) => launcher.choosePlatform(table, machine))));";
    let output = Command::new(crate::common::node())
        .args(["-e", script])
        .arg(root().join("packaging/npm/cli/launcher.js"))
        .arg(root().join("packaging/npm/platforms.json"))
        .arg(Value::from(asked).to_string())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", both(&output));
    let choices: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();

    for (((os, cpu, libc), expected), choice) in machines.iter().zip(&choices) {
        let machine = format!("{os}-{cpu}{}", libc.map(|libc| format!(" ({libc})")).unwrap_or_default());
        match expected {
            Some((key, binary)) => {
                assert_eq!(choice["key"], *key, "{machine}: {choice:#}");
                assert_eq!(choice["platform"]["package"], package_of(key), "{machine}: {choice:#}");
                // agent-sdk.exe on Windows.
                assert_eq!(choice["platform"]["binary"], *binary, "{machine}: {choice:#}");
            }
            None => assert_eq!(
                choice["unsupported"],
                format!("{MAIN_PACKAGE} has no prebuilt binary for {machine}. {WHAT_THERE_IS}"),
                "{choice:#}"
            ),
        }
    }
}

#[test]
fn on_a_machine_no_package_fits_the_launcher_says_so_and_exits_2() {
    let project = Project::install("validate", "accepted-forms");
    // Node as it is on a 32-bit x86 Linux: the binary is never started.
    let preload = project.npm_home.path().join("ia32.js");
    std::fs::write(&preload, "Object.defineProperty(process, \"arch\", { value: \"ia32\" });\n").unwrap();

    let launched = project
        .npm("node")
        .arg("--require")
        .arg(&preload)
        .args(["node_modules/.bin/bdk", "validate"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&launched), 2, "{}", both(&launched));
    assert_eq!(
        String::from_utf8_lossy(&launched.stderr),
        format!("bdk: {MAIN_PACKAGE} has no prebuilt binary for linux-ia32 (glibc). {WHAT_THERE_IS}\n")
    );
    assert!(launched.stdout.is_empty(), "{}", both(&launched));
}

fn package_of(key: &str) -> String {
    format!("@agent-sdk/cli-{key}")
}

/// A stand-in for the binary of `key`: build.py packs whatever it is given, and a file that
/// names its platform shows which package it landed in.
fn stand_in(key: &str) -> String {
    format!("#!/bin/sh\necho 'the agent-sdk of {key}'\n")
}

/// DIR as `build.py --binaries DIR` reads it: DIR/<key>/<binary> for every platform, none of
/// them executable (a CI artefact arrives so).
fn binaries_folder(scratch: &Path) -> PathBuf {
    let folder = scratch.join("binaries");
    for (key, .., binary) in EVERY_PLATFORM {
        std::fs::create_dir_all(folder.join(key)).unwrap();
        std::fs::write(folder.join(key).join(binary), stand_in(key)).unwrap();
    }
    folder
}

fn build_py(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("python3")
        .arg(root().join("packaging/npm/build.py"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("python3 runs packaging/npm/build.py (it needs python3 ≥ 3.11, node and npm on PATH)")
}

/// The `package/` folder of the npm tarball `tarball`, unpacked into `into`.
fn unpack(tarball: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir_all(into).unwrap();
    let status = Command::new("tar").arg("-xzf").arg(tarball).arg("-C").arg(into).status().expect("tar runs");
    assert!(status.success(), "tar could not unpack {}", tarball.display());
    into.join("package")
}

fn manifest_of(package: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(package.join("package.json")).unwrap()).unwrap()
}
