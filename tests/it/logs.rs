//! `agent-sdk logs` against servers the real `dev` cannot imitate: small HTTP servers on
//! loopback written in each test, answering with exactly the bytes a case needs; and with
//! no server at all, reading the local history a `run` recorded.

use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

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
    let child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output().unwrap()));
    match receiver.recv_timeout(limit) {
        Ok(output) => output,
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            let output = receiver.recv().unwrap();
            panic!("logs did not exit within {limit:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
    }
}

/// How the test server answers one connection, given the request's head.
type Answer = Box<dyn Fn(&str, &mut TcpStream) + Send>;

/// A server on loopback that answers its `n`th connection with `answers[n]`, then closes it; connections past the last answer get the last one.
/// Returns its URL.
fn serve(answers: Vec<Answer>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let request = read_request(&mut stream);
            let answer = &answers[n.min(answers.len() - 1)];
            answer(&request, &mut stream);
        }
    });
    url
}

/// Reads one request's head (up to the blank line).
fn read_request(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// The head of a `200` event stream, closed at its end.
const EVENT_STREAM: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// One log line as an SSE event.
fn log_event(cursor: u64, message: &str) -> String {
    let record =
        serde_json::json!({ "cursor": cursor, "at": "2026-11-30T05:52:01.123Z", "level": "info", "message": message });
    format!("id: {cursor}\ndata: {record}\n\n")
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

#[test]
fn a_line_of_16_mb_in_small_pieces_is_read_in_linear_time() {
    let message = "x".repeat(16 * 1024 * 1024);
    let url = serve(vec![Box::new(move |_, stream| {
        let _ = stream.set_nodelay(true);
        let _ = stream.write_all(EVENT_STREAM.as_bytes());
        for piece in log_event(1, &message).as_bytes().chunks(1024) {
            if stream.write_all(piece).is_err() {
                return;
            }
        }
    })]);
    let dir = tempfile::tempdir().unwrap();
    // The quadratic parser took 30 s for 8 MB (over a minute for this); a linear one, a second or two.
    let output = output_within(logs(dir.path(), &["--host", &url, "--json"]), Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let record: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(record["message"].as_str().map(str::len), Some(16 * 1024 * 1024));
}

#[test]
fn an_endless_error_body_is_read_only_as_far_as_the_message_needs() {
    let url = serve(vec![Box::new(|_, stream| {
        let head = "HTTP/1.1 418 I'm a teapot\r\ncontent-type: text/plain\r\ncontent-length: 100000000000\r\n\r\n";
        let _ = stream.write_all(head.as_bytes());
        while stream.write_all("the teapot says no. ".repeat(1000).as_bytes()).is_ok() {}
    })]);
    let dir = tempfile::tempdir().unwrap();
    let output = output_within(logs(dir.path(), &["--host", &url]), Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("418 I'm a teapot: the teapot says no. the teapot"), "{}", stderr(&output));
}

/// A URL with a user name and password in what a server answers (a proxy quoting where it
/// sent the request) is quoted without them.
#[test]
fn a_password_in_a_url_the_server_quotes_is_not_printed() {
    let url = serve(vec![Box::new(|_, stream| {
        let body = r#"{"error":"the upstream http://agent:s3cret@10.0.0.7:7311/v1/logs refused the session"}"#;
        let head = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(format!("{head}{body}").as_bytes());
    })]);
    let dir = tempfile::tempdir().unwrap();
    let output = output_within(logs(dir.path(), &["--host", &url]), Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("the upstream http://…@10.0.0.7:7311/v1/logs refused"), "{}", stderr(&output));
    assert!(!stderr(&output).contains("s3cret"), "{}", stderr(&output));
}

/// Answers with a `200` event stream carrying `body`, then closes.
fn stream_of(body: &'static [u8]) -> Answer {
    Box::new(move |_, stream| {
        let _ = stream.write_all(EVENT_STREAM.as_bytes());
        let _ = stream.write_all(body);
    })
}

#[test]
fn a_server_that_keeps_sending_a_broken_stream_is_given_up_on_in_time() {
    let dir = tempfile::tempdir().unwrap();
    for (body, why) in [
        (&b"\xff\xfe\x00garbage\n\n"[..], "not UTF-8"),
        (b"data: hello\n\n", "not a JSON object"),
        (b"<html>not an event stream</html>", "the server ended the stream"),
    ] {
        let url = serve(vec![stream_of(body)]);
        let output =
            output_within(logs(dir.path(), &["--host", &url, "-f", "--retry-for", "2s"]), Duration::from_secs(30));
        let stderr = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("giving up") && stderr.contains(why), "{why}: {stderr}");
        assert!(!stderr.contains("connected"), "a broken stream is not a connection: {stderr}");
    }
}

#[test]
fn a_stream_that_worked_then_breaks_on_every_reconnect_is_given_up_on_in_time() {
    let first = log_event(1, "the one good line");
    let url = serve(vec![
        Box::new(move |_, stream| {
            let _ = stream.write_all(EVENT_STREAM.as_bytes());
            let _ = stream.write_all(first.as_bytes());
        }),
        stream_of(b"id: 2\ndata: {\"cursor\": 2,\n\n"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let output = output_within(logs(dir.path(), &["--host", &url, "-f", "--retry-for", "2s"]), Duration::from_secs(30));
    let stderr = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("the one good line"));
    assert!(stderr.contains("connection lost (the server ended the stream); reconnecting…"), "{stderr}");
    assert!(stderr.contains("no working log stream") && stderr.contains("not a JSON object"), "{stderr}");
}

/// The stdout and stderr of `logs <args>` in `dir` (no server), which must exit 0.
fn local_logs(dir: &Path, args: &[&str]) -> (String, String) {
    let output = output_within(logs(dir, args), Duration::from_secs(20));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    (String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
}

#[test]
fn with_no_server_logs_reads_the_local_history_with_the_same_filters_and_labels_each_hook_once() {
    let dir = common::copy_fixture("run", "failures");
    let ran = common::run_recorded(
        dir.path(),
        &["run", "--message", "hi", "--hook-timeout", "200ms", "--session", "ses_local"],
        &[],
    );
    assert_eq!(common::exit_code(&ran.output), 3, "{}", ran.log());
    let threw = "hook \"1-thrower\" handler for turn.completed threw: boom from a hook";
    let log = ran.log();
    let run_line = log.lines().find(|line| line.contains(threw)).unwrap_or_else(|| panic!("{log}"));
    assert_eq!(run_line.matches("hook \"1-thrower\"").count(), 1, "run's stderr names the hook once: {run_line}");

    let (stdout, stderr) = local_logs(dir.path(), &["--utc"]);
    assert!(stderr.contains("no server answered, so this is the local history from .agent-sdk/state.db"), "{stderr}");
    let line = stdout.lines().find(|line| line.contains(threw)).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("Z ERROR [es_local] hook \"1-thrower\" handler"), "one label, from the message: {line}");
    assert!(!stdout.contains("[hook \""), "every hook line names its hook itself: {stdout}");
    assert_eq!(stdout.lines().count(), ran.log().lines().count(), "every line of the run: {stdout}\n{}", ran.log());

    let (errors, _) = local_logs(dir.path(), &["--level", "error"]);
    assert!(!errors.is_empty() && errors.lines().all(|line| line.contains(" ERROR ")), "{errors}");
    let (tail, _) = local_logs(dir.path(), &["--tail", "1", "--json"]);
    let last: serde_json::Value = serde_json::from_str(tail.trim()).unwrap();
    assert!(last["message"].as_str().unwrap().starts_with("summary: "), "{tail}");
    assert!(last["id"].as_u64().unwrap() > 1, "{tail}");
    let (other_session, _) = local_logs(dir.path(), &["--session", "ses_other"]);
    assert_eq!(other_session, "");
    let (future, _) = local_logs(dir.path(), &["--since", "2999-01-01T00:00:00Z"]);
    assert_eq!(future, "");
    let (followed, stderr) = local_logs(dir.path(), &["-f", "--tail", "1"]);
    assert_eq!(followed.lines().count(), 1, "{followed}");
    assert!(stderr.ends_with("nothing to follow: no server is running here\n"), "{stderr}");

    let empty = tempfile::tempdir().unwrap();
    let output = output_within(logs(empty.path(), &[]), Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(1), "no server and no history");
    assert!(!empty.path().join(".agent-sdk").exists(), "reading made no state root");
}

#[test]
fn data_lines_that_never_end_their_event_break_the_stream_at_the_event_bound() {
    // 65 lines of a mebibyte of `data:` each, and never the blank line that ends an event.
    let url = serve(vec![Box::new(|_, stream| {
        let line = format!("data: {}\n", "x".repeat(1024 * 1024));
        let _ = stream.write_all(EVENT_STREAM.as_bytes());
        for _ in 0..65 {
            if stream.write_all(line.as_bytes()).is_err() {
                return;
            }
        }
    })]);
    let dir = tempfile::tempdir().unwrap();
    let output = output_within(logs(dir.path(), &["--host", &url, "--retry-for", "1ms"]), Duration::from_secs(60));
    let stderr = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no working log stream for 1ms (the last one: the stream has an event over 64 MiB (data lines with no blank line to end them)); giving up"),
        "{stderr}"
    );
}

#[test]
fn a_json_object_that_is_not_a_log_record_is_refused_and_retry_for_ends_the_retries() {
    let dir = tempfile::tempdir().unwrap();
    // One object that is not a record, then the stream breaks; and a real record the
    // server sends again on every connection, then breaks: neither is a working stream.
    let not_a_record = serve(vec![stream_of(b"data: {\"hello\": \"world\"}\n\n")]);
    let the_same_record = serve(vec![Box::new(|_, stream| {
        let _ = stream.write_all(EVENT_STREAM.as_bytes());
        let _ = stream.write_all(log_event(7, "the same line again").as_bytes());
    })]);
    for (url, follow) in [(&not_a_record, false), (&not_a_record, true), (&the_same_record, true)] {
        let mut args = vec!["--host", url.as_str(), "--retry-for", "2s"];
        if follow {
            args.push("-f");
        }
        let output = output_within(logs(dir.path(), &args), Duration::from_secs(30));
        let stderr = stderr(&output);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("no working log stream for 2s"), "{args:?}: {stderr}");
        if url == &not_a_record {
            assert_eq!(stdout, "", "{args:?}: a line was made of something else");
            assert!(stderr.contains("a record has a cursor, `at`, `level` and `message`"), "{args:?}: {stderr}");
        } else {
            assert_eq!(stdout.matches("the same line again").count(), 1, "{stdout}");
        }
    }
}

/// `--session` takes the tag each line shows (the id's end) when one session's id ends so;
/// a tag several end is an error listing them; `--hook` (repeatable) keeps those hooks'
/// lines; a filter that matches nothing says so.
#[test]
fn the_session_tag_and_hooks_filter_the_history_and_no_match_is_said() {
    let dir = common::copy_fixture("run", "failures");
    for session in ["ses_first0a1b2c3d", "ses_second0a1b2c3d", "ses_third09f8e7d6"] {
        let ran = common::run_recorded(
            dir.path(),
            &["run", "--message", "hi", "--hook-timeout", "200ms", "--session", session],
            &[],
        );
        assert_eq!(common::exit_code(&ran.output), 3, "{}", ran.log());
    }
    let (third, _) = local_logs(dir.path(), &["--utc", "--session", "09f8e7d6"]);
    assert!(!third.is_empty() && third.lines().all(|line| line.contains(" [09f8e7d6] ")), "{third}");
    let (whole, _) = local_logs(dir.path(), &["--utc", "--session", "ses_third09f8e7d6"]);
    assert_eq!(whole, third);

    let output = output_within(logs(dir.path(), &["--session", "0a1b2c3d"]), Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert!(
        stderr(&output).ends_with(
            "error: `0a1b2c3d` ends the ids of 2 sessions (`ses_first0a1b2c3d`, `ses_second0a1b2c3d`); give more of the one you mean\n"
        ),
        "{}",
        stderr(&output)
    );
    // The whole id of one of them is that one, though it ends the other's too.
    let (first, _) = local_logs(dir.path(), &["--session", "second0a1b2c3d"]);
    assert!(!first.is_empty() && first.lines().all(|line| line.contains("[0a1b2c3d]")), "{first}");

    let (thrower, _) = local_logs(dir.path(), &["--json", "--session", "09f8e7d6", "--hook", "1-thrower"]);
    let hooks: Vec<serde_json::Value> =
        thrower.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["hook"].clone()).collect();
    assert!(!hooks.is_empty() && hooks.iter().all(|hook| hook == "1-thrower"), "{thrower}");
    let (two, _) =
        local_logs(dir.path(), &["--json", "--session", "09f8e7d6", "--hook", "1-thrower", "--hook", "3-sleeper"]);
    let named: std::collections::BTreeSet<String> = two
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["hook"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(named, ["1-thrower".to_owned(), "3-sleeper".to_owned()].into());

    let (none, said) = local_logs(dir.path(), &["--session", "09f8e7d6", "--hook", "no-such-hook"]);
    assert_eq!(none, "");
    assert!(said.ends_with("no line of session `09f8e7d6`, hook `no-such-hook` in the log\n"), "{said}");
    let (none, said) = local_logs(dir.path(), &["--session", "ses_never"]);
    assert_eq!(none, "");
    assert!(said.ends_with("no line of session `ses_never` in the log\n"), "{said}");
}

/// A JSON object that is not a record is skipped with a warning naming its id, never printed
/// as a line made up of defaults; the lines around it are printed.
#[test]
fn a_json_object_that_is_not_a_record_is_skipped_with_a_warning() {
    let (first, third) = (log_event(1, "the line before"), log_event(3, "the line after"));
    let url = serve(vec![Box::new(move |_, stream| {
        let _ = stream.write_all(EVENT_STREAM.as_bytes());
        let _ = stream.write_all(first.as_bytes());
        let _ = stream.write_all(b"id: 2\ndata: {\"cursor\": 2, \"level\": \"info\"}\n\n");
        let _ = stream.write_all(third.as_bytes());
    })]);
    let dir = tempfile::tempdir().unwrap();
    let output = output_within(logs(dir.path(), &["--host", &url, "-f", "--retry-for", "1s"]), Duration::from_secs(30));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("the line before") && stdout.contains("the line after"), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    // Whole, as docs/commands/logs.md quotes it (tests/it/docs.rs checks the quote against this).
    assert!(
        stderr(&output).contains(
            "warning: the server sent a JSON object that is not a log record (a record has a cursor, `at`, `level` and `message`) (id 2); skipped\n"
        ),
        "{}",
        stderr(&output)
    );
}
