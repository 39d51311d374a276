//! Real model providers through the real binary: `run` and `dev` with `--model
//! openai-compatible:…` against `@dwmkerr/mock-llm`, a third-party OpenAI-compatible server
//! from npm (`npm ci --prefix tests/mock-llm`), and against a small in-test server for
//! what that one cannot send (usage, tool calls, status codes with headers, a cut stream):
//! `common::model_server`.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::dev_server::DevServer;
use crate::common::model_server::{Answer, ModelServer, SSE_HEAD, event, finish, raw, status, streamed, text, usage};
use crate::common::{Ran, copy_fixture, root, run_recorded};

// ---------------------------------------------------------------------------------------
// @dwmkerr/mock-llm, started on a free port with a rules file.

/// A running mock-llm server; killed when dropped.
struct MockLlm {
    child: Child,
    url: String,
    _config: tempfile::NamedTempFile,
}

impl MockLlm {
    /// Starts mock-llm with `rules` (its YAML `rules:` list) and its streaming settings.
    fn start(chunk_size: usize, chunk_interval_ms: u64, rules: &str) -> MockLlm {
        let mut config = tempfile::NamedTempFile::new().unwrap();
        write!(
            config,
            "streaming:\n  chunkSize: {chunk_size}\n  chunkIntervalMs: {chunk_interval_ms}\nrules:\n{rules}"
        )
        .unwrap();
        let start = root().join("tests/mock-llm/start.cjs");
        assert!(
            root().join("tests/mock-llm/node_modules/@dwmkerr/mock-llm").is_dir(),
            "the mock server is not installed: run `npm ci --prefix tests/mock-llm`"
        );
        let mut child = Command::new("node")
            .arg(start)
            .arg(config.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = loop {
            let line = lines.next().expect("mock-llm printed its port").unwrap();
            if let Some(port) = line.strip_prefix("listening ") {
                break port.trim().to_owned();
            }
        };
        // It logs every request on stdout: keep reading so it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        MockLlm { child, url: format!("http://127.0.0.1:{port}/v1"), _config: config }
    }

    /// A server that streams back `Echo: <the last message>`.
    fn echo(chunk_size: usize, chunk_interval_ms: u64) -> MockLlm {
        MockLlm::start(
            chunk_size,
            chunk_interval_ms,
            r#"  - path: "/v1/chat/completions"
    method: "POST"
    match: "@"
    response:
      status: 200
      content: |
        {"id":"chatcmpl-1","object":"chat.completion","model":"{{jmes request body.model}}","choices":[{"message":{"role":"assistant","content":"Echo: {{jmes request body.messages[-1].content}} ({{jmes request length(body.messages)}} messages)"},"finish_reason":"stop"}]}
"#,
        )
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------
// The hand-written server (`common::model_server`), for what mock-llm cannot send.

/// A streamed reply: the pieces, a stop, and usage.
fn reply(pieces: &[&str]) -> Answer {
    let mut chunks: Vec<Value> = pieces.iter().map(|piece| text(piece)).collect();
    chunks.push(finish("stop"));
    chunks.push(usage(20, 6, 0));
    streamed(chunks)
}

// ---------------------------------------------------------------------------------------
// Running the binary.

/// `agent-sdk run` in `dir` (no model variables come from the test's own environment).
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    run_recorded(dir, &[&["run", "--dir", "."], args].concat(), env)
}

fn compatible(url: &str) -> Vec<String> {
    vec!["--model".into(), "openai-compatible:gpt-4o-mini".into(), "--base-url".into(), url.into()]
}

fn args<'a>(model: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    model.iter().map(String::as_str).chain(rest.iter().copied()).collect()
}

/// The envelopes of a `--json` run.
fn envelopes(ran: &Ran) -> Vec<Value> {
    ran.stdout().lines().map(|line| serde_json::from_str(line).expect("an envelope a line")).collect()
}

fn types(envelopes: &[Value]) -> Vec<String> {
    envelopes.iter().map(|envelope| envelope["type"].as_str().unwrap().to_owned()).collect()
}

fn exit(ran: &Ran) -> i32 {
    ran.output.status.code().unwrap_or(-1)
}

/// The one `turn.failed` of a run, checked to be the only terminal event and the last.
fn the_failure(envelopes: &[Value]) -> &Value {
    let terminal: Vec<&Value> =
        envelopes.iter().filter(|envelope| envelope["type"].as_str().unwrap().starts_with("turn.")).collect();
    assert_eq!(terminal.len(), 1, "exactly one terminal event: {envelopes:#?}");
    assert_eq!(terminal[0]["type"], "turn.failed");
    assert_eq!(envelopes.last(), Some(terminal[0]));
    &terminal[0]["data"]
}

/// A turn that must fail: `run --message hi --json` of a copy of the agent fixture on
/// `openai-compatible:gpt-4o-mini` at `url`, with `flags`; checked to exit 1 with exactly
/// one `turn.failed`, last. The run, its envelopes and the failure's message.
fn failing_turn(url: &str, flags: &[&str]) -> (Ran, Vec<Value>, String) {
    let dir = copy_fixture("providers", "agent");
    let model = compatible(url);
    let ran = run(dir.path(), &args(&model, &[&["--message", "hi", "--json"], flags].concat()), &[]);
    assert_eq!(exit(&ran), 1, "{}", ran.both());
    let envelopes = envelopes(&ran);
    let message = the_failure(&envelopes)["message"].as_str().unwrap().to_owned();
    (ran, envelopes, message)
}

// ---------------------------------------------------------------------------------------
// Against mock-llm.

#[test]
fn a_reply_streamed_by_a_real_openai_compatible_server_is_printed_recorded_and_dispatched() {
    let server = MockLlm::echo(6, 5);
    let dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "hello there"]), &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    // The system message (instructions.md) and the user's message were sent.
    assert_eq!(ran.stdout(), "Echo: hello there (2 messages)\n", "{}", ran.both());
    let log = ran.log();
    assert!(log.contains("model openai-compatible:gpt-4o-mini at http://127.0.0.1:"), "{log}");
    // mock-llm sends no usage chunk: said once, and turn.completed has no usage.
    assert_eq!(log.matches("reported no usage").count(), 1, "{log}");
    let seen: Vec<&str> = ran.record.iter().filter_map(|line| line.strip_prefix("event ")).collect();
    let appended = seen.iter().filter(|line| line.ends_with(" message.appended")).count();
    assert!(appended >= 4, "the reply streamed in pieces: {seen:?}");
    assert!(seen.first().unwrap().ends_with("message.received"));
    assert!(seen.last().unwrap().ends_with("turn.completed"));
    assert!(ran.record.contains(&"usage null cost null".to_owned()), "{:?}", ran.record);
    assert!(log.contains("summary: "), "{log}");
}

#[test]
fn hooks_see_the_same_event_types_from_the_local_model_and_from_a_provider() {
    let server = MockLlm::echo(8, 1);
    let kinds = |ran: &Ran| -> Vec<String> {
        let mut kinds: Vec<String> = ran
            .record
            .iter()
            .filter_map(|line| line.strip_prefix("event "))
            .map(|line| line.split_once(' ').unwrap().1.to_owned())
            .collect();
        kinds.dedup();
        kinds
    };
    let local_dir = copy_fixture("providers", "agent");
    let local = run(local_dir.path(), &["--message", "hello"], &[]);
    let provider_dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    let provider = run(provider_dir.path(), &args(&model, &["--message", "hello"]), &[]);
    assert_eq!(exit(&local), 0, "{}", local.both());
    assert_eq!(exit(&provider), 0, "{}", provider.both());
    assert_eq!(kinds(&local), ["message.received", "message.appended", "message.completed", "turn.completed"]);
    assert_eq!(kinds(&local), kinds(&provider));
}

#[test]
fn an_error_the_server_streams_ends_the_turn_with_its_message_and_never_the_key() {
    // mock-llm sends an error status inside a 200 stream, as OpenAI documents for streams;
    // this one echoes the request's Authorization header back, key and all.
    let server = MockLlm::start(
        50,
        5,
        r#"  - path: "/v1/chat/completions"
    match: "@"
    response:
      status: 500
      content: |
        {"error":{"message":"upstream exploded while serving {{jmes request headers.authorization}}","type":"server_error","code":null}}
"#,
    );
    let dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    let ran = run(
        dir.path(),
        &args(&model, &["--message", "hi", "--json"]),
        &[("OPENAI_COMPATIBLE_API_KEY", "sk-test-very-secret-1234")],
    );
    assert_eq!(exit(&ran), 1, "{}", ran.both());
    let envelopes = envelopes(&ran);
    let failure = the_failure(&envelopes);
    assert_eq!(failure["status"], "error");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("upstream exploded while serving Bearer"), "{message}");
    assert!(ran.log().contains("turn failed: "), "{}", ran.log());
    for (what, text) in [("stdout", ran.stdout()), ("stderr", ran.log()), ("record", ran.record.join("\n"))] {
        assert!(!text.contains("very-secret"), "the key is in the {what}: {text}");
    }
    let database = std::fs::read(dir.path().join(".agent-sdk/state.db")).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&database).contains("very-secret"), "the key is in the state store");
}

#[test]
fn a_server_that_sends_nothing_is_given_up_after_the_idle_timeout() {
    // mock-llm writes its first chunk only after a whole interval.
    let server = MockLlm::echo(50, 60_000);
    let started = Instant::now();
    let (ran, _, message) = failing_turn(&server.url, &["--model-idle-timeout", "700ms"]);
    assert!(started.elapsed() < Duration::from_secs(20), "gave up in time");
    assert!(message.contains("700ms") && message.contains("--model-idle-timeout"), "{message}");
    assert!(ran.record.iter().any(|line| line.starts_with("failed error: ")), "{:?}", ran.record);
}

#[test]
fn ctrl_c_while_the_model_streams_records_one_cancelled_failure_and_exits_130() {
    let server = MockLlm::echo(4, 300);
    let dir = copy_fixture("providers", "agent");
    let mut child = common::agent_sdk()
        .args(["run", "--dir", ".", "--message", "a long question", "--json"])
        .args(compatible(&server.url))
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    // Wait for the first piece of the reply, then press Ctrl-C.
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the run ended before its reply started");
        let envelope: Value = serde_json::from_str(&line).unwrap();
        let first_delta = envelope["type"] == "message.appended";
        lines.push(envelope);
        if first_delta {
            break;
        }
    }
    let pressed = Instant::now();
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    lines.extend(rest.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()));
    let status = child.wait().unwrap();
    assert!(pressed.elapsed() < Duration::from_secs(5), "Ctrl-C ended the turn at once");
    assert_eq!(status.code(), Some(130));
    let failure = the_failure(&lines);
    assert_eq!(failure["status"], "cancelled");
    assert!(!types(&lines).contains(&"message.completed".to_owned()));
}

#[test]
fn dev_serves_sessions_on_a_real_model_and_sends_each_turn_its_history() {
    let server = MockLlm::echo(10, 1);
    let dir = copy_fixture("providers", "agent");
    let dev = dev_on(dir.path(), &compatible(&server.url));
    let session = dev.create_session();
    let mut replies = Vec::new();
    for message in ["first", "second"] {
        let response = dev.send_streaming(&session, message);
        assert_eq!(response.status(), 200);
        let events: Vec<Value> = response
            .text()
            .unwrap()
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect();
        let completed = events.iter().find(|event| event["type"] == "message.completed").expect("a reply");
        replies.push(completed["data"]["text"].as_str().unwrap().to_owned());
    }
    // The system message, then each turn's messages: the second turn sent the first's.
    assert_eq!(replies, ["Echo: first (2 messages)", "Echo: second (4 messages)"]);
}

/// `agent-sdk dev` on a free port with the `model` flags.
fn dev_on(dir: &Path, model: &[String]) -> DevServer {
    DevServer::start_with(dir, 0, &model.iter().map(String::as_str).collect::<Vec<_>>())
}

// ---------------------------------------------------------------------------------------
// Against the in-test server.

#[test]
fn usage_and_cost_come_from_the_final_chunk_and_the_price_table() {
    let server = ModelServer::start(vec![reply(&["The refund ", "policy is ", "30 days."])]);
    let dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "refunds?", "--json"]), &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    let envelopes = envelopes(&ran);
    let completed = envelopes.last().unwrap();
    assert_eq!(completed["type"], "turn.completed");
    assert_eq!(completed["data"]["result"], "The refund policy is 30 days.");
    assert_eq!(
        completed["data"]["usage"],
        json!({ "inputTokens": 20, "outputTokens": 6, "cacheReadTokens": 0, "cacheWriteTokens": 0 })
    );
    assert_eq!(completed["data"]["cost"]["model"], "gpt-4o-mini");
    assert!(completed["data"]["cost"]["totalUsd"].as_f64().unwrap() > 0.0);
    // What was asked: streaming with usage, the system message first.
    let request = &server.requests()[0];
    assert!(request.head.starts_with("POST /v1/chat/completions "), "{}", request.head);
    assert_eq!(request.body["stream"], true);
    assert_eq!(request.body["stream_options"]["include_usage"], true);
    assert_eq!(request.body["model"], "gpt-4o-mini");
    assert_eq!(request.body["messages"][0]["role"], "system");
    assert!(request.body["messages"][0]["content"].as_str().unwrap().starts_with("You are the Acme support agent."));
    assert_eq!(request.body["messages"][1], json!({ "role": "user", "content": "refunds?" }));
}

#[test]
fn a_tool_call_is_recorded_answered_with_a_stub_and_the_turn_continues() {
    let call = |delta: Value| {
        json!({ "id": "c1", "object": "chat.completion.chunk",
                "choices": [{ "index": 0, "delta": { "tool_calls": [delta] }, "finish_reason": null }] })
    };
    let first = streamed(vec![
        call(json!({ "index": 0, "id": "call_abc", "type": "function",
                         "function": { "name": "lookup_order", "arguments": "" } })),
        call(json!({ "index": 0, "function": { "arguments": "{\"order\":" } })),
        call(json!({ "index": 0, "function": { "arguments": "\"A-17\"}" } })),
        finish("tool_calls"),
        usage(30, 10, 0),
    ]);
    let server = ModelServer::start(vec![first, reply(&["Order A-17 ", "ships today."])]);
    let dir = copy_fixture("providers", "agent");
    let tools = json!([{ "type": "function", "function": { "name": "lookup_order", "description": "Find an order",
                          "parameters": { "type": "object", "properties": { "order": { "type": "string" } } } } }]);
    std::fs::write(dir.path().join("tools.json"), tools.to_string()).unwrap();
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "where is A-17?", "--json", "--tools", "tools.json"]), &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    let envelopes = envelopes(&ran);
    assert_eq!(
        types(&envelopes),
        [
            "message.received",
            "actions.requested",
            "action.result",
            "actions.completed",
            "message.appended",
            "message.appended",
            "message.completed",
            "turn.completed"
        ]
    );
    assert_eq!(
        envelopes[1]["data"]["calls"],
        json!([{ "callId": "call_abc", "toolName": "lookup_order", "args": { "order": "A-17" } }])
    );
    assert_eq!(envelopes[2]["data"]["stubbed"], true);
    assert_eq!(envelopes[2]["data"]["isError"], false);
    assert!(ran.record.contains(&"result call_abc lookup_order stubbed=true".to_owned()), "{:?}", ran.record);
    // Usage adds up over both requests.
    assert_eq!(envelopes[7]["data"]["usage"]["inputTokens"], 50);
    assert_eq!(envelopes[7]["data"]["usage"]["outputTokens"], 16);
    let received = server.requests();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body["tools"], tools);
    // The second request answers the call with the stub.
    let messages = received[1].body["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["tool_calls"][0]["id"], "call_abc");
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "lookup_order");
    let tool = &messages[messages.len() - 1];
    assert_eq!(tool["role"], "tool");
    assert_eq!(tool["tool_call_id"], "call_abc");
    let stub: Value = serde_json::from_str(tool["content"].as_str().unwrap()).unwrap();
    assert_eq!(stub["dryRun"], true);
}

#[test]
fn a_model_that_keeps_calling_tools_is_stopped_after_max_steps() {
    let again = || {
        streamed(vec![
            json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": 0, "id": "call_x", "type": "function",
                     "function": { "name": "search", "arguments": "{}" } }] }, "finish_reason": null }] }),
            finish("tool_calls"),
        ])
    };
    let server = ModelServer::start(vec![again(), again()]);
    let (_, envelopes, message) = failing_turn(&server.url, &["--max-steps", "2"]);
    assert!(message.contains("after 2 steps") && message.contains("--max-steps"), "{message}");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(types(&envelopes).iter().filter(|kind| *kind == "actions.completed").count(), 2);
}

#[test]
fn a_500_with_no_retries_left_fails_the_turn_with_the_status_and_the_server_s_words() {
    let failing = || {
        status("500 Internal Server Error", "", r#"{"error":{"message":"the GPUs are on fire","type":"server_error"}}"#)
    };
    let server = ModelServer::start(vec![failing(), failing()]);
    let (ran, _, message) = failing_turn(&server.url, &["--model-retries", "1"]);
    assert!(message.contains("500") && message.contains("the GPUs are on fire"), "{message}");
    // One retry, logged, then the failure.
    assert_eq!(server.requests().len(), 2);
    assert_eq!(ran.log().matches("retry 1 of 1").count(), 1, "{}", ran.log());
    assert!(ran.log().contains("turn failed: "), "{}", ran.log());
}

#[test]
fn a_429_is_retried_after_the_wait_its_retry_after_asks() {
    let server = ModelServer::start(vec![
        status(
            "429 Too Many Requests",
            "Retry-After: 1\r\n",
            r#"{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}"#,
        ),
        reply(&["Hello ", "again."]),
    ]);
    let dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "hi"]), &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    assert_eq!(ran.stdout(), "Hello again.\n");
    let received = server.requests();
    assert_eq!(received.len(), 2);
    let waited = received[1].at - received[0].at;
    assert!(waited >= Duration::from_millis(950), "waited {waited:?}");
    let log = ran.log();
    assert_eq!(log.matches("answered 429").count(), 1, "one retry, logged once: {log}");
    assert!(log.contains("Retry-After"), "{log}");
}

#[test]
fn a_stream_cut_halfway_keeps_what_arrived_and_ends_in_one_failure() {
    // Two pieces, then the connection closes: no finish_reason, no [DONE].
    let server = ModelServer::start(vec![raw(format!(
        "{SSE_HEAD}{}{}",
        event(&text("The refund ").to_string()),
        event(&text("policy").to_string())
    ))]);
    let (_, envelopes, message) = failing_turn(&server.url, &[]);
    assert!(message.contains("ended before the reply was complete"), "{message}");
    assert_eq!(types(&envelopes), ["message.received", "message.appended", "message.appended", "turn.failed"]);
    // Nothing is retried once the reply has started.
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_malformed_chunk_ends_the_turn_saying_what_came() {
    let server = ModelServer::start(vec![streamed(vec![text("Hi"), json!("not a chunk")])]);
    let (_, _, message) = failing_turn(&server.url, &[]);
    assert!(message.contains("malformed chunk") && message.contains("not a chunk"), "{message}");
}

#[test]
fn a_session_sends_its_earlier_turns_as_history() {
    let server = ModelServer::start(vec![reply(&["First answer."]), reply(&["Second answer."])]);
    let dir = copy_fixture("providers", "agent");
    let model = compatible(&server.url);
    for message in ["first question", "second question"] {
        let ran = run(dir.path(), &args(&model, &["--message", message, "--session", "ses_history"]), &[]);
        assert_eq!(exit(&ran), 0, "{}", ran.both());
    }
    let received = server.requests();
    let roles: Vec<(String, String)> = received[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| (message["role"].as_str().unwrap().to_owned(), message["content"].as_str().unwrap().to_owned()))
        .skip(1)
        .collect();
    assert_eq!(
        roles,
        [
            ("user".to_owned(), "first question".to_owned()),
            ("assistant".to_owned(), "First answer.".to_owned()),
            ("user".to_owned(), "second question".to_owned())
        ]
    );
}

#[test]
fn openai_takes_its_key_and_base_url_from_dot_env_and_sends_the_key_as_a_bearer_token() {
    let server = ModelServer::start(vec![reply(&["Hi."])]);
    let dir = copy_fixture("providers", "agent");
    std::fs::write(
        dir.path().join(".env"),
        format!("OPENAI_API_KEY=sk-from-dot-env\nOPENAI_BASE_URL={}\n", server.url),
    )
    .unwrap();
    let ran = run(dir.path(), &["--model", "openai:gpt-4o", "--message", "hi"], &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    let authorization = server.requests()[0].header("authorization");
    assert_eq!(authorization.as_deref(), Some("Bearer sk-from-dot-env"));
    assert!(!ran.log().contains("sk-from-dot-env"), "{}", ran.log());
}

#[test]
fn a_model_that_cannot_be_used_stops_the_run_before_anything_runs() {
    let dir = copy_fixture("providers", "agent");
    let cases: [(&[&str], &str); 5] = [
        (&["--model", "openai:gpt-4o"], "OPENAI_API_KEY"),
        (&["--model", "xai:grok-4"], "XAI_API_KEY"),
        (&["--model", "openai-compatible:llama3"], "--base-url"),
        (&["--model", "gpt-4o"], "openai:gpt-4o"),
        (&["--model", "anthropic:claude"], "anthropic"),
    ];
    for (model, named) in cases {
        let ran = run(dir.path(), &[model, &["--message", "hi"]].concat(), &[]);
        assert_eq!(exit(&ran), 2, "{model:?}: {}", ran.both());
        assert!(ran.log().contains(named), "{model:?} names {named}: {}", ran.log());
        assert!(ran.record.is_empty(), "no hook ran: {:?}", ran.record);
    }
    // Flags that do not go with the model, and a tools file that is not one.
    std::fs::write(dir.path().join("script.json"), r#"{ "steps": [ { "text": "hi" } ] }"#).unwrap();
    std::fs::write(dir.path().join("tools.json"), r#"[{ "type": "function" }]"#).unwrap();
    let url = "http://127.0.0.1:9/v1";
    let flags: [(&[&str], &str); 3] = [
        (&["--tools", "tools.json"], "--tools offers tools to a real model"),
        (&["--model", "openai-compatible:m", "--base-url", url, "--script", "script.json"], "--script plays the local"),
        (&["--model", "openai-compatible:m", "--base-url", url, "--tools", "tools.json"], "has no `function.name`"),
    ];
    for (flags, said) in flags {
        let ran = run(dir.path(), &[flags, &["--message", "hi"]].concat(), &[]);
        assert_eq!(exit(&ran), 2, "{flags:?}: {}", ran.both());
        assert!(ran.log().contains(said), "{flags:?} says {said}: {}", ran.log());
    }
    // And the model may come from AGENT_SDK_MODEL.
    let ran = run(dir.path(), &["--message", "hi"], &[("AGENT_SDK_MODEL", "xai:grok-4")]);
    assert_eq!(exit(&ran), 2, "{}", ran.both());
    assert!(ran.log().contains("XAI_API_KEY"), "{}", ran.log());
    // Only a message asks the model: a synthetic event needs no key.
    let ran = run(dir.path(), &["--event", "turn.completed"], &[("AGENT_SDK_MODEL", "xai:grok-4")]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
}

#[test]
fn the_readme_lists_the_price_table_the_binary_uses() {
    let dollars = |value: f64| {
        let text = format!("{value:.4}");
        let trimmed = text.trim_end_matches('0');
        let decimals = trimmed.split_once('.').map_or(0, |(_, decimals)| decimals.len());
        format!("${trimmed}{}", "0".repeat(2usize.saturating_sub(decimals)))
    };
    let mut table = String::from("| `--model` | input | cached input | output |\n|---|---:|---:|---:|\n");
    for (kind, model, price) in agent_sdk::model::provider::PRICES {
        table.push_str(&format!(
            "| `{}:{model}` | {} | {} | {} |\n",
            kind.name(),
            dollars(price.input),
            dollars(price.cached_input),
            dollars(price.output)
        ));
    }
    let readme = std::fs::read_to_string(root().join("docs/models.md")).unwrap();
    let start = "<!-- prices: generated from src/model/provider/prices.rs; tests/it/providers.rs checks them -->\n";
    let listed = readme
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once("<!-- end of prices -->"))
        .map(|(listed, _)| listed)
        .expect("docs/models.md has the price table");
    assert_eq!(listed, table, "the price table of docs/models.md is out of date; it should be:\n{table}");
}

#[test]
fn a_server_that_never_accepts_the_connection_is_given_up_after_the_connect_timeout() {
    // A listener with a backlog of 0 whose queue is already full: the kernel drops new
    // connection attempts, so connecting hangs (as to a host that does not answer).
    let mut blackhole = Command::new("python3")
        .args([
            "-c",
            "import socket, time\n\
             s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)\n\
             port = s.getsockname()[1]\n\
             held = []\n\
             for _ in range(3):\n\
             \x20   c = socket.socket(); c.setblocking(False)\n\
             \x20   try: c.connect(('127.0.0.1', port))\n\
             \x20   except BlockingIOError: pass\n\
             \x20   held.append(c)\n\
             time.sleep(0.2)\n\
             print(port, flush=True)\n\
             time.sleep(120)\n",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    BufReader::new(blackhole.stdout.take().unwrap()).read_line(&mut port).unwrap();
    let url = format!("http://127.0.0.1:{}/v1", port.trim());
    let started = Instant::now();
    let (ran, _, message) = failing_turn(&url, &["--model-connect-timeout", "400ms", "--model-retries", "1"]);
    let took = started.elapsed();
    let _ = blackhole.kill();
    let _ = blackhole.wait();
    assert_eq!(
        message,
        format!(
            "could not connect to {url}: no connection within 400ms (--model-connect-timeout) (gave up after 2 attempts)"
        )
    );
    assert!(ran.log().contains("retry 1 of 1 in 500ms"), "{}", ran.log());
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn reasoning_streams_as_its_own_events_and_cached_and_reasoning_tokens_are_reported() {
    let reasoning = |delta: &str| json!({ "choices": [{ "index": 0, "delta": { "reasoning_content": delta }, "finish_reason": null }] });
    let server = ModelServer::start(vec![streamed(vec![
        reasoning("The user asks "),
        reasoning("about refunds."),
        text("30 days."),
        finish("stop"),
        json!({ "choices": [], "usage": { "prompt_tokens": 1000, "completion_tokens": 40, "total_tokens": 1040,
                 "prompt_tokens_details": { "cached_tokens": 800 },
                 "completion_tokens_details": { "reasoning_tokens": 32 } } }),
    ])]);
    let dir = copy_fixture("providers", "agent");
    let ran = run(
        dir.path(),
        &["--model", "openai:o4-mini", "--message", "refunds?", "--json"],
        &[("OPENAI_API_KEY", "sk-test"), ("OPENAI_BASE_URL", &server.url)],
    );
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    let envelopes = envelopes(&ran);
    assert_eq!(
        types(&envelopes),
        [
            "message.received",
            "reasoning.appended",
            "reasoning.appended",
            "message.appended",
            "message.completed",
            "turn.completed"
        ]
    );
    assert_eq!(envelopes[1]["data"]["delta"], "The user asks ");
    let completed = &envelopes[5]["data"];
    assert_eq!(
        completed["usage"],
        json!({ "inputTokens": 200, "outputTokens": 40, "cacheReadTokens": 800, "cacheWriteTokens": 0, "reasoningTokens": 32 })
    );
    // o4-mini: $1.10 a million input, $0.275 cached, $4.40 output.
    let expected = (200.0 * 1.10 + 800.0 * 0.275 + 40.0 * 4.40) / 1_000_000.0;
    assert_eq!(completed["cost"]["model"], "o4-mini");
    assert!((completed["cost"]["totalUsd"].as_f64().unwrap() - expected).abs() < 1e-9, "{completed}");
}

#[test]
fn stopping_dev_cancels_a_turn_still_waiting_on_the_model() {
    // A slow server: a piece of the reply every 300 ms.
    let server = MockLlm::echo(2, 300);
    let dir = copy_fixture("providers", "agent");
    let dev = dev_on(dir.path(), &compatible(&server.url));
    let session = dev.create_session();
    let response = dev.send_streaming(&session, "a question with a long echo");
    let mut stream = BufReader::new(response);
    let mut events = Vec::new();
    let mut line = String::new();
    while stream.read_line(&mut line).unwrap() > 0 {
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            let event: Value = serde_json::from_str(data).unwrap();
            let first_delta = event["type"] == "message.appended";
            events.push(event);
            if first_delta && events.len() == 2 {
                // The reply has started: stop the server.
                Command::new("kill").args(["-TERM", &dev.child.id().to_string()]).status().unwrap();
            }
        }
        line.clear();
    }
    let failure = the_failure(&events);
    assert_eq!(failure["status"], "cancelled");
    assert_eq!(failure["message"], "the turn was cancelled (the server is stopping)");
}

#[test]
fn the_model_is_asked_while_the_hooks_load_not_after() {
    let server = ModelServer::start(vec![reply(&["Warm."])]);
    let dir = copy_fixture("providers", "slow-import");
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "hi"]), &[]);
    assert_eq!(exit(&ran), 0, "{}", ran.both());
    assert_eq!(ran.stdout(), "Warm.\n");
    let imported: u128 =
        ran.record.iter().find_map(|line| line.strip_prefix("imported at ")).expect("the hook loaded").parse().unwrap();
    let asked = server.requests()[0].wall_ms;
    // The hook's import takes a second; the request came long before it ended.
    assert!(asked + 500 < imported, "asked at {asked}, the hook loaded at {imported}");
    assert!(ran.record.contains(&"turn completed".to_owned()), "{:?}", ran.record);
}

#[test]
fn dev_asks_the_model_while_a_session_s_first_turn_loads_its_hooks() {
    let server = ModelServer::start(vec![reply(&["Warm."])]);
    let dir = copy_fixture("providers", "slow-import");
    let dev = dev_on(dir.path(), &compatible(&server.url));
    let session = dev.create_session();
    let reply = dev.send_streaming(&session, "hi").text().unwrap();
    assert!(reply.contains("turn.completed"), "{reply}");
    let record = std::fs::read_to_string(dir.path().join("record.txt")).unwrap();
    let imported: u128 =
        record.lines().find_map(|line| line.strip_prefix("imported at ")).expect("the hook loaded").parse().unwrap();
    let asked = server.requests()[0].wall_ms;
    assert!(asked + 500 < imported, "asked at {asked}, the hook loaded at {imported}");
}

// ---------------------------------------------------------------------------------------
// Streams that never end, or end nowhere (issue 21, items 7 and 8), and echoed keys (item 9).

/// An answer that sends `start`, then `piece` every `every` until `for_how_long` has
/// passed or the client is gone.
fn drip(start: String, piece: String, every: Duration, for_how_long: Duration) -> Answer {
    Box::new(move |stream, _| {
        let _ = stream.write_all(start.as_bytes());
        let started = Instant::now();
        while started.elapsed() < for_how_long && stream.write_all(piece.as_bytes()).is_ok() {
            std::thread::sleep(every);
        }
    })
}

#[test]
fn data_lines_that_never_end_their_event_fail_the_turn_at_the_event_bound() {
    // A mebibyte of `data:` a line, 17 times, and never the blank line that ends an event.
    let line = format!("data: {}\n", "x".repeat(1024 * 1024));
    let server = ModelServer::start(vec![Box::new(move |stream, _| {
        let _ = stream.write_all(format!("{SSE_HEAD}{}", event(&text("a").to_string())).as_bytes());
        for _ in 0..17 {
            if stream.write_all(line.as_bytes()).is_err() {
                return;
            }
        }
    })]);
    let (_, envelopes, message) = failing_turn(&server.url, &[]);
    assert_eq!(
        message,
        "the model server sent a stream agent-sdk cannot read: the stream has an event over 16 MiB (data lines with no blank line to end them)"
    );
    assert_eq!(types(&envelopes), ["message.received", "message.appended", "turn.failed"]);
}

#[test]
fn keep_alive_comments_and_a_one_byte_drip_do_not_hold_off_the_idle_timeout() {
    let start = || format!("{SSE_HEAD}{}", event(&text("Hi").to_string()));
    let every = Duration::from_millis(100);
    let comments = drip(start(), ": keep-alive\n\n".to_owned(), every, Duration::from_secs(20));
    let bytes = drip(start(), "d".to_owned(), every, Duration::from_secs(20));
    for (answer, what) in [(comments, "keep-alive comments"), (bytes, "a byte at a time")] {
        let server = ModelServer::start(vec![answer]);
        let (_, envelopes, message) = failing_turn(&server.url, &["--model-idle-timeout", "1s"]);
        assert_eq!(
            message,
            "the model server sent no data for 1s, only keep-alives or part of an event (--model-idle-timeout); gave up",
            "{what}"
        );
        assert_eq!(types(&envelopes), ["message.received", "message.appended", "turn.failed"], "{what}");
    }
}

#[test]
fn a_model_that_keeps_sending_is_stopped_at_model_max_duration() {
    let chunk = event(&text("more ").to_string());
    let server =
        ModelServer::start(vec![drip(SSE_HEAD.to_owned(), chunk, Duration::from_millis(100), Duration::from_secs(20))]);
    let (_, envelopes, message) = failing_turn(&server.url, &["--model-max-duration", "1s"]);
    assert_eq!(message, "the model's answer took longer than 1s (--model-max-duration); gave up");
    assert!(types(&envelopes).iter().filter(|kind| *kind == "message.appended").count() >= 2, "{envelopes:?}");
}

#[test]
fn a_model_stream_that_never_ends_is_stopped_at_the_reply_bound() {
    // 64 KiB of text a chunk, as fast as the turn reads them, 80 MiB in all, then `[DONE]`.
    let server = ModelServer::start(vec![Box::new(|stream, _| {
        let chunk = event(&text(&"x".repeat(64 * 1024)).to_string());
        let _ = stream.write_all(SSE_HEAD.as_bytes());
        for _ in 0..80 * 16 {
            if stream.write_all(chunk.as_bytes()).is_err() {
                return;
            }
        }
        let _ = stream.write_all(event("[DONE]").as_bytes());
    })]);
    let dir = copy_fixture("providers", "agent");
    // The reply goes to a file: the test keeps none of it in memory.
    let stdout = std::fs::File::create(dir.path().join("stdout.txt")).unwrap();
    let output = common::agent_sdk()
        .args(["run", "--dir", ".", "--message", "hi"])
        .args(compatible(&server.url))
        .current_dir(dir.path())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "turn failed: the model server sent more than 64 MiB for one turn, the most agent-sdk reads; gave up"
        ),
        "{stderr}"
    );
}

#[test]
fn a_turn_that_cannot_print_stops_reading_the_model() {
    // Nobody reads the run's stdout: once the pipe is full the turn cannot go on, and the
    // model's stream must wait for it instead of piling up in memory. The server writes
    // 1 KiB chunks until a write has waited 2 s, or until 60 MiB (under the reply bound):
    // what the turn took in is what a full queue, the sockets and the pipe hold.
    let (written_sender, written) = std::sync::mpsc::channel();
    let server = ModelServer::start(vec![Box::new(move |stream, _| {
        let chunk = event(&text(&"x".repeat(1024)).to_string());
        let _ = stream.write_all(SSE_HEAD.as_bytes());
        let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
        let mut total = 0;
        while total < 60 * 1024 * 1024 && stream.write_all(chunk.as_bytes()).is_ok() {
            total += chunk.len();
        }
        let _ = written_sender.send(total);
    })]);
    let dir = copy_fixture("providers", "agent");
    let mut child = common::agent_sdk()
        .args(["run", "--dir", ".", "--message", "hi"])
        .args(compatible(&server.url))
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let total = written.recv_timeout(Duration::from_secs(120));
    let _ = child.kill();
    let _ = child.wait();
    let total = total.expect("the server stopped writing");
    assert!(total < 48 * 1024 * 1024, "the turn took in {total} bytes while it could print nothing");
}

/// Every file `agent-sdk` keeps under `.agent-sdk/` (the store, its WAL, the session's files), as text.
fn state_files(dir: &Path) -> String {
    walkdir::WalkDir::new(dir.join(".agent-sdk"))
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap_or_default()).into_owned())
        .collect()
}

/// A chunk whose content is `escaped`, written into the JSON as it is (escapes and all).
fn escaped_text(escaped: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{escaped}"}},"finish_reason":null}}]}}"#)
}

#[test]
fn an_echoed_key_is_scrubbed_json_escaped_split_over_deltas_and_in_a_whole_completion() {
    const KEY: &str = "sk-test-very-secret-1234";
    let reasoning = |delta: &str| json!({ "choices": [{ "index": 0, "delta": { "reasoning_content": delta } }] });
    let call = |arguments: &str| {
        json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": 0, "id": "call_k", "type": "function",
                "function": { "name": "lookup", "arguments": arguments } }] } }] })
    };
    // The first step calls a tool with the key in its arguments, cut in two; the second
    // answers with the key JSON-escaped, and cut over two deltas, in the text and in the
    // reasoning.
    let tool_step = streamed(vec![call("{\"key\": \"sk-test-ve"), call("ry-secret-1234\"}"), finish("tool_calls")]);
    let mut answer = SSE_HEAD.to_owned();
    for chunk in [
        reasoning("I was sent sk-test-very-se").to_string(),
        reasoning("cret-1234.").to_string(),
        escaped_text(r"Your key is sk-test-very-secret-\u0031234, "),
        text("and again sk-test-").to_string(),
        text("very-secret-1234. Bye.").to_string(),
        finish("stop").to_string(),
    ] {
        answer.push_str(&event(&chunk));
    }
    answer.push_str(&event("[DONE]"));
    let whole = r#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Whole: sk-test-very-secret-\u0031234"},"finish_reason":"stop"}]}"#;
    let server = ModelServer::start(vec![tool_step, raw(answer), status("200 OK", "", whole)]);
    let dir = copy_fixture("providers", "agent");
    std::fs::write(
        dir.path().join("tools.json"),
        json!([{ "type": "function", "function": { "name": "lookup", "parameters": { "type": "object" } } }])
            .to_string(),
    )
    .unwrap();
    let model = compatible(&server.url);
    let key = [("OPENAI_COMPATIBLE_API_KEY", KEY)];
    let streamed_turn = run(dir.path(), &args(&model, &["--message", "hi", "--tools", "tools.json"]), &key);
    assert_eq!(exit(&streamed_turn), 0, "{}", streamed_turn.both());
    assert_eq!(streamed_turn.stdout(), "Your key is [redacted], and again [redacted]. Bye.\n");
    assert!(
        streamed_turn.record.iter().any(|line| line.contains(r#"{"key":"[redacted]"}"#)),
        "{:?}",
        streamed_turn.record
    );
    let whole_turn = run(dir.path(), &args(&model, &["--message", "hi"]), &key);
    assert_eq!(exit(&whole_turn), 0, "{}", whole_turn.both());
    assert_eq!(whole_turn.stdout(), "Whole: [redacted]\n");
    for ran in [&streamed_turn, &whole_turn] {
        for (what, text) in [("stdout", ran.stdout()), ("stderr", ran.log()), ("hooks' file", ran.record.join("\n"))] {
            assert!(!text.contains(KEY), "the key is in the {what}: {text}");
        }
    }
    let state = state_files(dir.path());
    assert!(state.contains("[redacted]"), "the store holds the reply");
    assert!(!state.contains(KEY), "the key is in the state store");
}

/// A URL's user name and password are never quoted from a provider: not from a redirect's
/// target (the turn's failure, the serve log, the stored log), and not from a base URL that
/// carries them (refused before anything is sent).
#[test]
fn a_password_in_a_url_is_never_quoted_from_a_redirect_or_a_base_url() {
    let dir = copy_fixture("providers", "agent");
    let server = ModelServer::start(vec![status(
        "307 Temporary Redirect",
        "Location: http://agent:s3cret@models.example/v1/chat/completions\r\n",
        "{}",
    )]);
    let model = compatible(&server.url);
    let ran = run(dir.path(), &args(&model, &["--message", "hi", "--json"]), &[]);
    assert_eq!(exit(&ran), 1, "{}", ran.both());
    let message = the_failure(&envelopes(&ran))["message"].as_str().unwrap().to_owned();
    assert!(message.contains("this one leads to `http://…@models.example/v1/chat/completions`"), "{message}");
    assert!(!ran.both().contains("s3cret"), "{}", ran.both());
    let stored = run_recorded(dir.path(), &["logs", "--dir", "."], &[]);
    assert!(stored.stdout().contains("this one leads to `http://…@models.example"), "{}", stored.both());
    assert!(!stored.both().contains("s3cret"), "{}", stored.both());

    let model = compatible("http://agent:s3cret@127.0.0.1:9/v1");
    let ran = run(dir.path(), &args(&model, &["--message", "hi"]), &[]);
    assert_eq!(exit(&ran), 2, "{}", ran.both());
    assert!(ran.log().contains("carries a user name or password"), "{}", ran.log());
    assert!(!ran.both().contains("s3cret"), "{}", ran.both());
}
