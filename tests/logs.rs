//! `agent-sdk logs` against servers the real `dev` cannot imitate: small HTTP servers on
//! loopback written in each test, answering with exactly the bytes a case needs.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// `agent-sdk logs <args>` in an empty folder, with no host or token from the environment.
fn logs(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-sdk"));
    command
        .arg("logs")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("AGENT_SDK_HOST")
        .env_remove("AGENT_SDK_TOKEN");
    command
}

/// Runs `command`, failing the test if it has not exited within `limit`.
fn output_within(mut command: Command, limit: Duration) -> Output {
    let mut child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("logs did not exit within {limit:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn credentials_in_the_host_url_are_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    for args in [
        vec!["--host".to_owned(), format!("http://user:pw@127.0.0.1:{port}"), "--token".to_owned(), "t".to_owned()],
        vec!["--host".to_owned(), format!("http://user:pw@127.0.0.1:{port}")],
    ] {
        let output = output_within(
            logs(dir.path(), &args.iter().map(String::as_str).collect::<Vec<_>>()),
            Duration::from_secs(10),
        );
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains("--token"), "{}", stderr(&output));
        assert!(!stderr(&output).contains("pw"), "the password is never printed: {}", stderr(&output));
    }
    let output = output_within(
        logs(dir.path(), &["--host", "http://user:pw@logs.example.com", "--token", "t", "--insecure"]),
        Duration::from_secs(10),
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(listener.accept().is_err(), "no request was sent");
}
