//! Bad input gets a clear message and loses nothing: each hostile file, link or path has
//! a named behaviour, the rest of the project is still checked, and nothing panics.

use crate::common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{exit_code, transcript};

const GOOD_HOOK: &str = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
                         export default defineHook({ events: { \"turn.completed\"() {} } });\n";

/// A project in a fresh temporary folder with one good hook, `bot/hooks/good.ts`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "package.json", "{ \"name\": \"hostile\" }\n");
    write(dir.path(), "bot/hooks/good.ts", GOOD_HOOK);
    dir
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn validate(dir: &Path) -> String {
    transcript(dir, &["validate", "--dir", "."])
}

#[test]
fn a_20_mb_file_is_unreadable_over_the_size_limit() {
    let dir = project();
    let big = format!("// {}\n", "x".repeat(20 * 1024 * 1024));
    write(dir.path(), "bot/hooks/huge.ts", &big);
    insta::assert_snapshot!(validate(dir.path()));
}

#[test]
fn a_fifo_is_not_a_regular_file_and_does_not_hang() {
    let dir = project();
    let status = Command::new("mkfifo").arg(dir.path().join("bot/hooks/pipe.ts")).status().unwrap();
    assert!(status.success());
    insta::assert_snapshot!(validate(dir.path()));
}

/// A socket cannot even be opened (where a FIFO opens without waiting): it is said as what
/// it is all the same, not as the error its opening gave.
#[test]
fn a_socket_is_not_a_regular_file() {
    let dir = project();
    let _listener = std::os::unix::net::UnixListener::bind(dir.path().join("bot/hooks/socket.ts")).unwrap();
    insta::assert_snapshot!(validate(dir.path()));
}

#[test]
fn a_broken_link_is_unreadable() {
    let dir = project();
    symlink("missing.ts", dir.path().join("bot/hooks/gone.ts")).unwrap();
    insta::assert_snapshot!(validate(dir.path()));
}

#[test]
fn a_symlink_loop_is_a_warning_not_a_hang() {
    let dir = project();
    fs::create_dir_all(dir.path().join("bot/hooks/nested")).unwrap();
    symlink("..", dir.path().join("bot/hooks/nested/loop")).unwrap();
    insta::assert_snapshot!(validate(dir.path()));
}

#[test]
fn links_out_of_the_project_are_errors_and_links_inside_are_followed() {
    let outer = tempfile::tempdir().unwrap();
    write(outer.path(), "outside/stolen.ts", GOOD_HOOK);
    write(outer.path(), "project/bot/hooks/good.ts", GOOD_HOOK);
    write(outer.path(), "project/bot/lib/shared.ts", GOOD_HOOK);
    let hooks = outer.path().join("project/bot/hooks");
    symlink("../../../outside/stolen.ts", hooks.join("stolen.ts")).unwrap();
    symlink("../../../outside", hooks.join("outside-dir")).unwrap();
    symlink("../lib/shared.ts", hooks.join("shared.ts")).unwrap();
    insta::assert_snapshot!(validate(&outer.path().join("project")));
}

#[test]
fn a_dir_that_does_not_exist_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(transcript(dir.path(), &["validate", "--dir", "no/such/project"]));
}

#[test]
fn a_dir_that_is_a_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.txt", "hello");
    insta::assert_snapshot!(transcript(dir.path(), &["info", "--json", "--dir", "file.txt"]));
}

#[test]
fn five_thousand_nested_folders_are_walked_without_a_crash() {
    let dir = project();
    nest(&dir.path().join("bot/hooks"), 5000);
    write(dir.path(), "bot/hooks/d/d/d/deep.ts", GOOD_HOOK);
    insta::assert_snapshot!(validate(dir.path()));
}

/// Creates `root/d/d/…` `depth` levels deep. The whole path is far longer than PATH_MAX,
/// so it is built bottom-up in chunks whose paths each fit, moved into one another.
fn nest(root: &Path, depth: usize) {
    const CHUNK: usize = 1000;
    let staging = root.join("staging");
    let mut deeper: Option<std::path::PathBuf> = None;
    for chunk in 0..depth.div_ceil(CHUNK) {
        let levels = CHUNK.min(depth - chunk * CHUNK);
        let top = staging.join(format!("c{chunk}"));
        let deepest = top.join("d/".repeat(levels - 1));
        fs::create_dir_all(&deepest).unwrap();
        if let Some(deeper) = deeper.take() {
            fs::rename(deeper, deepest.join("d")).unwrap();
        }
        deeper = Some(top);
    }
    fs::rename(deeper.unwrap(), root.join("d")).unwrap();
    fs::remove_dir(staging).unwrap();
}

#[test]
fn a_file_name_that_is_not_utf8_is_reported() {
    use std::os::unix::ffi::OsStrExt;
    let dir = project();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.ts");
    fs::write(dir.path().join("bot/hooks").join(name), GOOD_HOOK).unwrap();
    insta::assert_snapshot!(validate(dir.path()));
}

#[test]
fn odd_characters_in_names_are_escaped_for_github() {
    let dir = project();
    let hook = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
                export default defineHook({ events: { \"turn.complete\"() {} } });\n";
    write(dir.path(), "bot/hooks/100%, done: yes.ts", hook);
    write(dir.path(), "bot/hooks/日本/ünïcode hook.ts", hook);
    insta::assert_snapshot!(transcript(dir.path(), &["validate", "--format", "github"]));
}

/// A name made to forge a GitHub Actions workflow command and to colour the terminal.
const FORGING_NAME: &str = "x\n::error::forged\u{1b}[31mred";

#[test]
fn control_characters_in_names_and_sources_never_reach_the_output_raw() {
    let dir = project();
    write(dir.path(), "package.json", "{ \"name\": \"evil\\u001b]0;title\\u0007\" }\n");
    let typo = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
                export default defineHook({ events: { \"turn.complete\"() {}, \"a\u{1b}[2Jb\"() {} } });\n";
    write(dir.path(), &format!("bot/hooks/{FORGING_NAME}.ts"), typo);
    // Two modules, one name: the message lists both paths, with no snippet to carry them.
    write(dir.path(), &format!("bot/hooks/dup{FORGING_NAME}.ts"), GOOD_HOOK);
    write(dir.path(), &format!("bot/hooks/dup{FORGING_NAME}.mts"), GOOD_HOOK);
    let pretty = transcript(dir.path(), &["validate"]);
    let github = transcript(dir.path(), &["validate", "--format", "github"]);
    let info = transcript(dir.path(), &["info"]);
    for (output, commands) in [(&pretty, 0), (&github, 3), (&info, 0)] {
        assert!(!output.contains(['\u{1b}', '\u{7}']), "a control character got through:\n{output}");
        let workflow_commands = output.lines().filter(|line| line.trim_start().starts_with("::")).count();
        assert_eq!(workflow_commands, commands, "a line starts a workflow command:\n{output}");
    }
    assert!(pretty.contains("x\\n::error::forged\\u{1b}[31mred.ts"), "{pretty}");
    assert!(github.contains("file=bot/hooks/x%0A%3A%3Aerror%3A%3Aforged\\u{1b}[31mred.ts,"), "{github}");
    assert!(info.contains("evil\\u{1b}]0;title\\u{7}"), "{info}");
    insta::assert_snapshot!(format!("{pretty}\n{github}\n{info}"));
}

/// Trojan Source (CVE-2021-42574): a bidi override makes `evil\u{202e}st.ts` read as
/// another name, and a zero-width space makes `us\u{200b}age.ts` look like `usage.ts`.
const TROJAN_NAMES: [&str; 3] = ["evil\u{202e}st", "us\u{200b}age", "\u{2066}iso\u{2069}late\u{200d}"];

#[test]
fn bidi_controls_and_zero_width_characters_in_names_are_escaped_in_every_human_format() {
    let dir = project();
    // A typo'd event, so the finding has a snippet; the source has a bidi override too.
    let typo = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
                export default defineHook({ events: { \"turn.complete\"() {} } }); // \u{202e}\u{2067}\n";
    for name in TROJAN_NAMES {
        write(dir.path(), &format!("bot/hooks/{name}.ts"), typo);
    }
    let formats: [&[&str]; 4] =
        [&["validate"], &["validate", "--format", "concise"], &["validate", "--format", "github"], &["info"]];
    let outputs: Vec<String> = formats.iter().map(|args| transcript(dir.path(), args)).collect();
    for output in &outputs {
        let raw = ['\u{202e}', '\u{2066}', '\u{2067}', '\u{2069}', '\u{200b}', '\u{200d}'];
        assert!(!output.contains(raw), "a bidi or zero-width character got through:\n{output}");
        for shown in ["evil\\u{202e}st.ts", "us\\u{200b}age", "\\u{2066}iso\\u{2069}late\\u{200d}"] {
            assert!(output.contains(shown), "`{shown}` is not shown:\n{output}");
        }
    }
    insta::assert_snapshot!(outputs.join("\n"));
}

/// Root reads everything, so a permission test runs the binary as `nobody` when it can.
fn as_unprivileged(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut binary = std::path::PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk"));
    let mut command = if is_root() {
        // `nobody` may not be able to reach the build folder: run a copy from `dir`.
        let copy = dir.join("agent-sdk-copy");
        fs::copy(&binary, &copy).unwrap();
        fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
        binary = copy;
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&binary);
        command
    } else {
        Command::new(&binary)
    };
    command.args(args).current_dir(dir).env("NO_COLOR", "1").output().unwrap()
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.starts_with(b"0\n"))
}

#[test]
fn a_file_without_read_permission_is_unreadable() {
    let dir = project();
    write(dir.path(), "bot/hooks/secret.ts", GOOD_HOOK);
    for path in ["", "bot", "bot/hooks", "bot/hooks/good.ts", "package.json"] {
        let mode = if path.ends_with(".ts") || path.ends_with(".json") { 0o644 } else { 0o755 };
        fs::set_permissions(dir.path().join(path), fs::Permissions::from_mode(mode)).unwrap();
    }
    fs::set_permissions(dir.path().join("bot/hooks/secret.ts"), fs::Permissions::from_mode(0o000)).unwrap();
    let output = as_unprivileged(dir.path(), &["validate", "--format", "json"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    insta::assert_snapshot!(format!(
        "exit: {}\n{stdout}{}",
        exit_code(&output),
        String::from_utf8_lossy(&output.stderr)
    ));
}

#[test]
fn an_unreadable_dir_is_an_environment_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir(dir.path().join("locked")).unwrap();
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let output = as_unprivileged(dir.path(), &["validate", "--dir", "locked"]);
    assert_eq!(exit_code(&output), 2);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "error: --dir `locked` cannot be read: permission denied\n");
    fs::set_permissions(dir.path().join("locked"), fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_closed_pipe_is_not_a_crash() {
    let dir = project();
    for i in 0..2000 {
        let hook = "import { defineHook } from \"@cursor/bdk/hooks\";\n\
                    export default defineHook({ events: { \"turn.complete\"() {} } });\n";
        write(dir.path(), &format!("bot/hooks/h{i}.ts"), hook);
    }
    let mut child = common::agent_sdk()
        .args(["validate", "--format", "github"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read nothing: closing our end makes the binary's next write fail with EPIPE.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(exit_code(&output), 0, "a reader that went away is not a failure");
}

#[test]
fn deeply_nested_code_is_checked_without_overflowing_the_stack() {
    let dir = project();
    // 100 KB of nesting: past the size analysed on the pool's own stack.
    let parens = format!("export default {}1{};\n", "(".repeat(50_000), ")".repeat(50_000));
    let arrows = format!("export default {}1;\n", "a => ".repeat(100_000));
    write(dir.path(), "bot/hooks/parens.ts", &parens);
    write(dir.path(), "bot/hooks/arrows.ts", &arrows);
    write(dir.path(), "bot/hooks/small.ts", &format!("export default {}1{};\n", "[".repeat(5_000), "]".repeat(5_000)));
    let output = common::run_in(dir.path(), &["validate", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let codes: Vec<&str> =
        report["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["hooks::not-define-hook", "hooks::not-define-hook", "hooks::not-define-hook"]);
    assert_eq!(report["summary"]["hooks"], 1, "good.ts still loads");
}

/// Copies the project folder `source` to `target` (which may not be UTF-8).
fn copy_into(source: &Path, target: &Path) {
    for entry in walkdir::WalkDir::new(source) {
        let entry = entry.unwrap();
        let path = target.join(entry.path().strip_prefix(source).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&path).unwrap();
        } else {
            fs::copy(entry.path(), &path).unwrap();
        }
    }
}

/// `agent-sdk <args>` in `cwd`, ended after 60 s if it has not ended (a `dev` that serves).
fn run_at_most_a_minute(cwd: &Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = common::agent_sdk()
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait_with_output().unwrap()
}

/// Every command that takes a project, as a user would type it with `dir`.
fn every_command(dir: &std::ffi::OsStr) -> Vec<Vec<&std::ffi::OsStr>> {
    let flag = |words: &'static [&'static str]| -> Vec<&std::ffi::OsStr> {
        words.iter().map(std::ffi::OsStr::new).chain([std::ffi::OsStr::new("--dir"), dir]).collect()
    };
    vec![
        flag(&["validate"]),
        flag(&["validate", "--format", "concise"]),
        flag(&["info", "--json"]),
        flag(&["run", "--message", "hi"]),
        flag(&["run", "--event", "turn.completed"]),
        flag(&["dev", "--port", "0"]),
        flag(&["test"]),
        flag(&["logs"]),
        flag(&["sdk"]),
        vec![std::ffi::OsStr::new("init"), dir],
    ]
}

/// The commands that run hooks in Node.js, which takes module paths as strings.
const RUN_IN_NODE: [&str; 3] = ["run", "dev", "test"];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 4, ..Default::default() })]

    /// A project whose path is not UTF-8 (a byte that is no UTF-8, between ordinary
    /// characters) never crashes a command: those that run hooks say why they cannot (exit
    /// 2), the others work.
    #[test]
    fn every_command_in_a_folder_whose_name_is_not_utf8_answers_without_a_crash(
        name in ("[a-z]{1,6}", 0x80u8..=0xff, "[a-z0-9 ._-]{0,6}")
    ) {
        use std::os::unix::ffi::OsStrExt;
        let (before, byte, after) = name;
        let name: Vec<u8> = [before.as_bytes(), &[byte], after.as_bytes()].concat();
        let name = std::ffi::OsStr::from_bytes(&name);
        let root = tempfile::tempdir().unwrap();
        // A mount file, as validate and info run mounts in Node too.
        copy_into(&common::fixture("extensions", "silenced"), &root.path().join(name));
        for args in every_command(name) {
            let output = run_at_most_a_minute(root.path(), &args);
            let said = format!("{args:?}\n{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            let code = output.status.code();
            proptest::prop_assert!(code.is_some() && code != Some(101), "{said}");
            proptest::prop_assert!(!said.contains("panicked"), "{said}");
            if RUN_IN_NODE.contains(&args[0].to_str().unwrap()) {
                proptest::prop_assert_eq!(code, Some(2), "{}", said);
                proptest::prop_assert!(said.contains("is not UTF-8 text, and Node.js cannot load modules from it"), "{said}");
                proptest::prop_assert!(said.contains(&format!("\\x{byte:02x}")), "the byte is named: {said}");
            }
        }
    }
}

/// A package.json with `"nested"` holding a value `depth` levels deep (`{"a":{"a":…1}}`).
fn nested_package_json(depth: usize) -> String {
    format!("{{ \"name\": \"deep\", \"nested\": {}1{} }}\n", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// Node reads a package.json however deep it nests (a serde_json default stopped at 128
/// levels): one holding a value 1,000 levels deep validates, is named by it, runs, and is
/// edited by `sdk --update-package-json` with its deep value kept.
#[test]
fn a_package_json_nested_1000_levels_deep_validates_and_runs_like_any_other() {
    let dir = project();
    write(dir.path(), "package.json", &nested_package_json(1000));
    let validated = common::run_in(dir.path(), &["validate"]);
    assert_eq!(exit_code(&validated), 0, "{}", String::from_utf8_lossy(&validated.stderr));
    let info = common::run_in(dir.path(), &["info", "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["agents"][0]["name"], "deep", "{info:#}");
    assert_eq!(info["agents"][0]["diagnostics"], serde_json::json!({ "errors": 0, "warnings": 0 }), "{info:#}");
    let ran = common::run_in(dir.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(exit_code(&ran), 0, "{}", String::from_utf8_lossy(&ran.stderr));
    let edited = common::run_in(dir.path(), &["sdk", "--update-package-json"]);
    assert_eq!(exit_code(&edited), 0, "{}", String::from_utf8_lossy(&edited.stderr));
    let text = fs::read_to_string(dir.path().join("package.json")).unwrap();
    assert!(text.contains("\"@cursor/bdk\": \"file:vendor/agent-sdk/cursor-bdk\""), "{}", &text[..200]);
    assert_eq!(text.matches("\"a\":").count(), 1000, "the deep value is kept whole");
}

/// A package.json 1,000,000 levels deep (6 MB of `{"a":`) is refused with a message that
/// says how deep agent-sdk reads, by every command that reads it, and nothing crashes.
#[test]
fn a_package_json_nested_a_million_levels_deep_is_refused_clearly() {
    let dir = project();
    write(dir.path(), "package.json", &nested_package_json(1_000_000));
    insta::assert_snapshot!(validate(dir.path()));
    let said = "nested more than 1024 levels deep (at line 1 column 5144), deeper than agent-sdk reads";
    for (args, exit) in [(&["run", "--event", "turn.completed"][..], 1), (&["sdk", "--update-package-json"], 2)] {
        let output = common::run_in(dir.path(), args);
        // (The report wraps its lines on a terminal's width.)
        let stderr = String::from_utf8_lossy(&output.stderr).replace("\n  │ ", " ");
        assert_eq!(exit_code(&output), exit, "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    let info = common::run_in(dir.path(), &["info", "--json"]);
    assert_eq!(exit_code(&info), 0, "{}", String::from_utf8_lossy(&info.stderr));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["agents"][0]["skipped"][0]["reason"], "broken-package-json", "{info:#}");
}
