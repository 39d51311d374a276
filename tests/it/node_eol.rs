//! A Node.js past its end of life (Node 20 since 2026-04-30): `run`, `dev` and `test` keep
//! working and warn once per invocation, however often the runtime restarts; Node 22 and
//! later get no warning, and `AGENT_SDK_NO_NODE_WARNING` silences it (the rest of the suite
//! sets it, so its snapshots read the same on every Node).

use std::path::{Path, PathBuf};

use crate::common::dev_server::{DevServer, dev_command, in_project};
use crate::common::snapshot::Filters;
use crate::common::{self, NO_NODE_WARNING, copy_fixture};

const WARNING: &str = "is past its end of life";

/// A `node` that answers `--version` with `version` and runs the real Node for anything
/// else: what `dev` and `test` ask before they start Node (the runtime's own hello still
/// comes from the real one).
fn node_saying(dir: &Path, version: &str) -> PathBuf {
    let real = std::process::Command::new("sh").args(["-c", "command -v \"$0\""]).arg(common::node()).output().unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_owned();
    assert!(!real.is_empty(), "no node to wrap");
    let node = dir.join(format!("node-{version}"));
    let script = format!("#!/bin/sh\n[ \"$1\" = --version ] && {{ echo {version}; exit 0; }}\nexec '{real}' \"$@\"\n");
    std::fs::write(&node, script).unwrap();
    std::fs::set_permissions(&node, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    node
}

/// `agent-sdk <args>` in `dir` with `node` as the Node.js, as a user runs it (no variable
/// silencing the warning): exit code, stdout, stderr.
fn with_node(dir: &Path, node: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = common::agent_sdk();
    command
        .args(args)
        .current_dir(dir)
        .env_remove(NO_NODE_WARNING)
        .env("AGENT_SDK_NODE", node)
        .env("NO_COLOR", "1")
        .env_remove("NODE_OPTIONS")
        .envs(env.iter().copied());
    common::outcome(command)
}

/// `test` on a Node 20 warns on stderr before the tests run, with `--quiet` too (it is
/// about the machine, not progress), and the tests still run and pass.
#[test]
fn test_on_node_20_warns_once_even_with_quiet_and_runs() {
    let dir = copy_fixture("test", "results");
    let node = node_saying(dir.path(), "v20.20.2");
    let (code, stdout, stderr) = with_node(dir.path(), &node, &["test", "--quiet", "usage*"], &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("ℹ pass 3\n"), "{stdout}");
    insta::assert_snapshot!(stderr, @"warning: Node.js v20.20.2 is past its end of life (2026-04-30); agent-sdk supports it for now, use Node.js 22.13 or newer");
}

/// Node 22 is not warned of; the variable silences the warning on Node 20.
#[test]
fn node_22_and_the_variable_get_no_warning() {
    let dir = copy_fixture("test", "results");
    let node_22 = node_saying(dir.path(), "v22.13.0");
    let (code, stdout, stderr) = with_node(dir.path(), &node_22, &["test", "usage*"], &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stderr.contains(WARNING), "{stderr}");
    let node_20 = node_saying(dir.path(), "v20.20.2");
    let (code, stdout, stderr) = with_node(dir.path(), &node_20, &["test", "usage*"], &[(NO_NODE_WARNING, "1")]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stderr.contains(WARNING), "{stderr}");
}

/// `run` learns the version from the runtime itself, so this takes the real Node: on Node
/// 20 (the suite's) one WARN line comes first in the serve log, though the runtime is
/// started twice; on 22 and later (the matrix) none.
#[test]
fn run_warns_once_though_the_runtime_restarts() {
    let dir = copy_fixture("node_eol", "restart");
    let (code, _, log) = with_node(dir.path(), Path::new(&common::node()), &["run", "--message", "hi"], &[]);
    assert_eq!(code, 3, "the hook ended the runtime: {log}");
    assert_eq!(log.matches("restarting the hook runtime").count(), 1, "{log}");
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains(WARNING)).collect();
    if common::node_major() == 20 {
        let first = Filters::new().log_times().pattern(r"v20\.\d+\.\d+", "v20.[..]").apply(log.lines().next().unwrap());
        insta::assert_snapshot!(first, @"[TIME] WARN  Node.js v20.[..] is past its end of life (2026-04-30); agent-sdk supports it for now, use Node.js 22.13 or newer");
        assert_eq!(warnings.len(), 1, "{log}");
    } else {
        assert!(warnings.is_empty(), "{log}");
    }
}

/// `dev` asks `node --version` as it starts: on a Node 20 the warning is its first serve-log
/// line, in the log's history too (so `logs` and the playground say it), and no session's
/// runtime says it again.
#[test]
fn dev_warns_once_as_it_starts_not_per_session() {
    let dir = copy_fixture("dev", "basic");
    let node = node_saying(dir.path(), "v20.20.2");
    let mut command = in_project(dev_command(dir.path(), &["--hook-timeout", "5s"]), dir.path());
    command.env_remove(NO_NODE_WARNING).env("AGENT_SDK_NODE", &node);
    let server = DevServer::adopt(command.spawn().unwrap(), dir.path(), "");
    for message in ["one", "two"] {
        let session = server.create_session();
        server.send_settled(&session, message);
    }
    let history = server.logs("");
    let said: Vec<&serde_json::Value> =
        history.iter().filter(|record| record["message"].as_str().is_some_and(|text| text.contains(WARNING))).collect();
    assert_eq!(said.len(), 1, "{history:?}");
    assert_eq!(said[0]["level"], "warn", "{history:?}");
    assert_eq!(server.stop(), Some(0));
    let log = std::fs::read_to_string(dir.path().join("dev.log")).unwrap();
    assert_eq!(log.matches(WARNING).count(), 1, "{log}");
    let first = Filters::new().log_times().apply(log.lines().next().unwrap());
    insta::assert_snapshot!(first, @"[TIME] WARN  Node.js v20.20.2 is past its end of life (2026-04-30); agent-sdk supports it for now, use Node.js 22.13 or newer");
}
