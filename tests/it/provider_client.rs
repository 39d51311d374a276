//! The model providers' own API against the hand-written loopback server of
//! `common::model_server`, which misbehaves as real ones do: errors, Retry-After, cut
//! streams, silence, echoed keys.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agent_sdk::model::provider::{ChatMessage, Provider, ProviderKind, Role, Settings};
use agent_sdk::model::{ModelOutput, ModelStream, Next, ToolCall};
use agent_sdk::state::log_record::Level;
use serde_json::{Value, json};

use crate::common::model_server::{
    ModelServer, SSE_HEAD, event, finish, hang_after, raw, status, streamed, text, usage,
};

const KEY: &str = "sk-test-secret-4242";

fn settings(url: &str) -> Settings {
    Settings {
        base_url: Some(url.to_owned()),
        tools: Vec::new(),
        max_steps: 4,
        retries: 0,
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(5),
        max_duration: Duration::from_secs(60),
    }
}

fn connect_as(model: &str, settings: Settings) -> Provider {
    let lookup = |name: &str| (name == "OPENAI_COMPATIBLE_API_KEY").then(|| KEY.to_owned());
    Provider::connect(ProviderKind::OpenAiCompatible, model, settings, &lookup).unwrap()
}

fn connect(settings: Settings) -> Provider {
    connect_as("gpt-4o-mini", settings)
}

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage { role: Role::System, text: "Be brief.".to_owned() },
        ChatMessage { role: Role::User, text: "hi".to_owned() },
    ]
}

/// Every output of a turn, until its stream ends.
fn outputs_of(provider: &Provider) -> Vec<ModelOutput> {
    let mut turn = provider.start_turn(conversation());
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut outputs = Vec::new();
    while Instant::now() < deadline {
        match turn.next(Duration::from_millis(100)) {
            Next::Output(output) => outputs.push(output),
            Next::Waiting => {}
            Next::Ended => return outputs,
        }
    }
    panic!("the turn did not end: {outputs:?}");
}

fn failure(outputs: &[ModelOutput]) -> String {
    let failures: Vec<&String> = outputs
        .iter()
        .filter_map(|output| match output {
            ModelOutput::Failed(message) => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(failures.len(), 1, "exactly one failure: {outputs:?}");
    assert!(matches!(outputs.last(), Some(ModelOutput::Failed(_))), "the failure ends the turn: {outputs:?}");
    failures[0].clone()
}

fn logs(outputs: &[ModelOutput]) -> Vec<(Level, String)> {
    outputs
        .iter()
        .filter_map(|output| match output {
            ModelOutput::Log(level, line) => Some((*level, line.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_streamed_reply_arrives_in_order_with_usage_and_cost() {
    let (rest_sent, rest) = mpsc::channel::<()>();
    let server = ModelServer::start(vec![Box::new(move |stream, _| {
        let _ = stream.write_all(SSE_HEAD.as_bytes());
        let _ = stream.write_all(
            event(
                &json!({ "choices": [{ "delta": { "role": "assistant", "reasoning_content": "thinking" } }] })
                    .to_string(),
            )
            .as_bytes(),
        );
        let _ = stream.write_all(event(&text("Hel").to_string()).as_bytes());
        // The rest waits until the test has seen the first delta: nothing is buffered.
        let _ = rest.recv_timeout(Duration::from_secs(5));
        for chunk in [text("lo"), finish("stop"), usage(1200, 30, 1000)] {
            let _ = stream.write_all(event(&chunk.to_string()).as_bytes());
        }
        let _ = stream.write_all(event("[DONE]").as_bytes());
    })]);
    let provider = connect(settings(&server.url));
    let mut turn = provider.start_turn(conversation());
    let mut outputs = Vec::new();
    let started = Instant::now();
    while outputs.len() < 2 {
        match turn.next(Duration::from_secs(5)) {
            Next::Output(output) => outputs.push(output),
            other => panic!("expected a delta before the rest was sent, got {other:?} after {outputs:?}"),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(3));
    rest_sent.send(()).unwrap();
    loop {
        match turn.next(Duration::from_secs(5)) {
            Next::Output(output) => outputs.push(output),
            Next::Waiting => panic!("the turn hung: {outputs:?}"),
            Next::Ended => break,
        }
    }
    assert_eq!(
        outputs,
        [
            ModelOutput::Reasoning("thinking".to_owned()),
            ModelOutput::Text("Hel".to_owned()),
            ModelOutput::Text("lo".to_owned()),
            ModelOutput::Completed {
                usage: Some(
                    json!({ "inputTokens": 200, "outputTokens": 30, "cacheReadTokens": 1000, "cacheWriteTokens": 0 })
                ),
                // 200 × 0.15 + 1000 × 0.075 + 30 × 0.60 per million.
                cost: Some(json!({ "totalUsd": 0.000123, "model": "gpt-4o-mini" })),
            },
        ]
    );
    let request = &server.requests()[0];
    assert!(request.head.starts_with("POST /v1/chat/completions "), "{}", request.head);
    assert_eq!(request.header("authorization").as_deref(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(
        request.body,
        json!({
            "model": "gpt-4o-mini",
            "messages": [{ "role": "system", "content": "Be brief." }, { "role": "user", "content": "hi" }],
            "stream": true,
            "stream_options": { "include_usage": true },
        })
    );
}

fn tool_call_chunks() -> Vec<Value> {
    vec![
        json!({ "choices": [{ "delta": { "tool_calls": [
            { "index": 0, "id": "call_abc", "type": "function", "function": { "name": "search", "arguments": "" } } ] } }] }),
        json!({ "choices": [{ "delta": { "tool_calls": [ { "index": 0, "function": { "arguments": "{\"q\": " } } ] } }] }),
        json!({ "choices": [{ "delta": { "tool_calls": [ { "index": 0, "function": { "arguments": "\"rust\"}" } } ] } }] }),
        finish("tool_calls"),
        usage(100, 10, 0),
    ]
}

#[test]
fn a_tool_step_is_answered_with_the_stub_and_the_turn_goes_on() {
    let server = ModelServer::start(vec![
        streamed(tool_call_chunks()),
        streamed(vec![text("Found it."), finish("stop"), usage(150, 5, 0)]),
    ]);
    let tools =
        vec![json!({ "type": "function", "function": { "name": "search", "parameters": { "type": "object" } } })];
    let provider = connect(Settings { tools: tools.clone(), ..settings(&server.url) });
    let outputs = outputs_of(&provider);
    let stub = json!({ "dryRun": true, "note": "stubbed: agent-sdk does not run tools; no tool ran" });
    assert_eq!(
        outputs[0],
        ModelOutput::Tools(vec![ToolCall {
            call_id: Some("call_abc".to_owned()),
            tool_name: "search".to_owned(),
            args: Some(json!({ "q": "rust" })),
            output: Some(stub.clone()),
            is_error: false,
            retries: vec![],
        }])
    );
    assert_eq!(outputs[1], ModelOutput::Text("Found it.".to_owned()));
    let ModelOutput::Completed { usage: Some(usage), cost: Some(_) } = &outputs[2] else { panic!("{outputs:?}") };
    assert_eq!(usage["inputTokens"], 250, "usage is summed over the steps");
    assert_eq!(usage["outputTokens"], 15);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["tools"], Value::Array(tools));
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[2],
        json!({ "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_abc", "type": "function", "function": { "name": "search", "arguments": "{\"q\": \"rust\"}" } } ] })
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_abc");
    assert_eq!(serde_json::from_str::<Value>(messages[3]["content"].as_str().unwrap()).unwrap(), stub);
}

#[test]
fn a_server_error_fails_with_its_status_and_message() {
    let server = ModelServer::start(vec![status(
        "500 Internal Server Error",
        "",
        r#"{"error":{"message":"the engine\nis overloaded","type":"server_error"}}"#,
    )]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(outputs.len(), 1);
    assert_eq!(failure(&outputs), "the model server answered 500 Internal Server Error: the engine\\nis overloaded");
}

#[test]
fn a_429_with_retry_after_is_retried_after_the_wait_it_asks() {
    let server = ModelServer::start(vec![
        status("429 Too Many Requests", "Retry-After: 1\r\n", r#"{"error":{"message":"slow down"}}"#),
        streamed(vec![text("ok"), finish("stop"), usage(1, 1, 0)]),
    ]);
    let provider = connect(Settings { retries: 2, ..settings(&server.url) });
    let started = Instant::now();
    let outputs = outputs_of(&provider);
    assert!(started.elapsed() >= Duration::from_millis(950), "the wait was honoured: {:?}", started.elapsed());
    assert_eq!(
        outputs[0],
        ModelOutput::Log(
            Level::Warn,
            "the model server answered 429 Too Many Requests; retry 1 of 2 in 1s, as its Retry-After asked".to_owned()
        )
    );
    assert_eq!(outputs[1], ModelOutput::Text("ok".to_owned()));
    assert!(matches!(outputs[2], ModelOutput::Completed { .. }));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn an_answer_that_is_not_retried_after_a_retry_says_on_which_attempt_it_came() {
    let server = ModelServer::start(vec![
        status("503 Service Unavailable", "", "down"),
        status("400 Bad Request", "", r#"{"error":{"message":"messages must not be empty"}}"#),
    ]);
    let outputs = outputs_of(&connect(Settings { retries: 2, ..settings(&server.url) }));
    assert_eq!(
        failure(&outputs),
        "the model server answered 400 Bad Request: messages must not be empty (on attempt 2)"
    );
}

#[test]
fn retries_that_run_out_say_how_many_attempts_were_made() {
    let server = ModelServer::start(vec![
        status("503 Service Unavailable", "", "down"),
        status("503 Service Unavailable", "", "still down"),
    ]);
    let outputs = outputs_of(&connect(Settings { retries: 1, ..settings(&server.url) }));
    assert_eq!(
        logs(&outputs),
        [(Level::Warn, "the model server answered 503 Service Unavailable; retry 1 of 1 in 500ms".to_owned())]
    );
    assert_eq!(
        failure(&outputs),
        "the model server answered 503 Service Unavailable: still down (gave up after 2 attempts)"
    );
}

#[test]
fn a_retry_after_longer_than_a_minute_is_not_waited_for() {
    let server = ModelServer::start(vec![status("429 Too Many Requests", "Retry-After: 3600\r\n", "{}")]);
    let started = Instant::now();
    let outputs = outputs_of(&connect(Settings { retries: 3, ..settings(&server.url) }));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        failure(&outputs),
        "the model server answered 429 Too Many Requests and asked to be retried in 1h (Retry-After), longer than the 1m agent-sdk waits; gave up"
    );
}

#[test]
fn a_refused_connection_is_retried_then_reported() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let outputs = outputs_of(&connect(Settings { retries: 1, ..settings(&url) }));
    let logs = logs(&outputs);
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].1.starts_with(&format!("could not connect to {url}: ")), "{logs:?}");
    assert!(logs[0].1.ends_with("; retry 1 of 1 in 500ms"), "{logs:?}");
    let failure = failure(&outputs);
    assert!(failure.starts_with(&format!("could not connect to {url}: ")), "{failure}");
    assert!(failure.ends_with(" (gave up after 2 attempts)"), "{failure}");
}

#[test]
fn a_stream_cut_halfway_fails() {
    let server = ModelServer::start(vec![raw(format!(
        "{SSE_HEAD}{}{}",
        event(&text("Hal").to_string()),
        event(&text("f").to_string())
    ))]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(outputs[..2], [ModelOutput::Text("Hal".to_owned()), ModelOutput::Text("f".to_owned())]);
    assert_eq!(failure(&outputs), "the model server's stream ended before the reply was complete (after 2 chunks)");
}

#[test]
fn a_stream_that_finished_without_done_is_accepted() {
    let server = ModelServer::start(vec![raw(format!(
        "{SSE_HEAD}{}{}",
        event(&text("ok").to_string()),
        event(&finish("stop").to_string())
    ))]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(outputs[0], ModelOutput::Text("ok".to_owned()));
    assert!(matches!(outputs.last(), Some(ModelOutput::Completed { usage: None, cost: None })), "{outputs:?}");
}

#[test]
fn silence_mid_stream_and_before_the_headers_hits_the_idle_timeout() {
    let idle = Duration::from_millis(300);
    for start in [format!("{SSE_HEAD}{}", event(&text("a").to_string())), String::new()] {
        let server = ModelServer::start(vec![hang_after(start)]);
        let started = Instant::now();
        let outputs = outputs_of(&connect(Settings { idle_timeout: idle, ..settings(&server.url) }));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert_eq!(failure(&outputs), "the model server sent nothing for 300ms (--model-idle-timeout); gave up");
    }
}

#[test]
fn the_key_never_appears_even_when_the_server_echoes_it() {
    let server = ModelServer::start(vec![Box::new(|stream, request| {
        let echoed = request.header("authorization").unwrap_or_default();
        let body = json!({ "error": { "message": format!("Incorrect API key provided: {echoed}") } }).to_string();
        let _ = stream.write_all(
            format!(
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    })]);
    let provider = connect(settings(&server.url));
    let outputs = outputs_of(&provider);
    let failure = failure(&outputs);
    assert_eq!(
        failure,
        "the model server answered 401 Unauthorized: Incorrect API key provided: Bearer [redacted] (check the key in OPENAI_COMPATIBLE_API_KEY)"
    );
    let describe = provider.describe();
    assert_eq!(
        describe,
        format!("model openai-compatible:gpt-4o-mini at {} (key from OPENAI_COMPATIBLE_API_KEY)", server.url)
    );
    assert!(!format!("{provider:?}").contains(KEY), "{provider:?}");
}

#[test]
fn a_dropped_turn_closes_the_connection_at_once() {
    let (closed_tx, closed) = mpsc::channel::<Duration>();
    let server = ModelServer::start(vec![Box::new(move |stream, _| {
        let _ = stream.write_all(format!("{SSE_HEAD}{}", event(&text("first").to_string())).as_bytes());
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let waiting = Instant::now();
        // The client sends nothing more: a read returns when the connection closes.
        let _ = stream.read(&mut [0; 16]);
        let _ = closed_tx.send(waiting.elapsed());
    })]);
    let provider = connect(settings(&server.url));
    let mut turn = provider.start_turn(conversation());
    assert_eq!(turn.next(Duration::from_secs(5)), Next::Output(ModelOutput::Text("first".to_owned())));
    let dropped = Instant::now();
    drop(turn);
    closed.recv_timeout(Duration::from_secs(5)).expect("the connection was closed");
    assert!(dropped.elapsed() < Duration::from_secs(1), "closed {:?} after the drop", dropped.elapsed());
}

#[test]
fn a_model_still_calling_tools_after_max_steps_fails() {
    let server = ModelServer::start(vec![streamed(tool_call_chunks()), streamed(tool_call_chunks())]);
    let outputs = outputs_of(&connect(Settings { max_steps: 2, ..settings(&server.url) }));
    assert!(matches!(outputs[0], ModelOutput::Tools(_)));
    assert!(matches!(outputs[1], ModelOutput::Tools(_)));
    assert_eq!(outputs.len(), 3);
    assert_eq!(failure(&outputs), "the model was still calling tools after 2 steps (--max-steps 2)");
}

#[test]
fn a_malformed_chunk_fails() {
    let server =
        ModelServer::start(vec![raw(format!("{SSE_HEAD}{}{}", event(&text("a").to_string()), event("not json {")))]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(failure(&outputs), "the model server sent a malformed chunk: not json {");
}

#[test]
fn an_error_inside_the_stream_fails_with_its_message() {
    let server =
        ModelServer::start(vec![streamed(vec![text("a"), json!({ "error": { "message": "context too long" } })])]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(failure(&outputs), "the model server sent an error: context too long");
}

#[test]
fn a_whole_json_answer_is_one_step() {
    let completion = json!({
        "object": "chat.completion",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": "Hello whole." }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 10, "completion_tokens": 3 }
    })
    .to_string();
    let server = ModelServer::start(vec![status("200 OK", "", &completion)]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    assert_eq!(outputs[0], ModelOutput::Text("Hello whole.".to_owned()));
    let ModelOutput::Completed { usage: Some(usage), .. } = &outputs[1] else { panic!("{outputs:?}") };
    assert_eq!(usage["inputTokens"], 10);
    assert_eq!(usage["outputTokens"], 3);
}

#[test]
fn missing_usage_and_price_are_told_once_per_provider() {
    let server =
        ModelServer::start(vec![streamed(vec![text("a"), finish("stop")]), streamed(vec![text("b"), finish("stop")])]);
    let provider = connect_as("llama3.1:8b", settings(&server.url));
    let first = outputs_of(&provider);
    assert_eq!(
        logs(&first),
        [
            (
                Level::Info,
                "the model server reported no usage (it ignores stream_options.include_usage): turn.completed has no usage"
                    .to_owned()
            ),
            (
                Level::Info,
                "no price is known for `llama3.1:8b`: turn.completed has no cost (docs/models.md lists the priced models)"
                    .to_owned()
            ),
        ]
    );
    assert_eq!(first.last(), Some(&ModelOutput::Completed { usage: None, cost: None }));
    let second = outputs_of(&provider);
    assert!(logs(&second).is_empty(), "{second:?}");
}

#[test]
fn a_provider_is_shared_across_threads_and_its_turns_end_when_it_is_dropped() {
    fn shared_across_threads<T: Send + Sync>() {}
    shared_across_threads::<Provider>();
    let server = ModelServer::start(vec![hang_after(format!("{SSE_HEAD}{}", event(&text("a").to_string())))]);
    let provider = connect(settings(&server.url));
    let mut turn = provider.start_turn(conversation());
    assert_eq!(turn.next(Duration::from_secs(5)), Next::Output(ModelOutput::Text("a".to_owned())));
    drop(provider);
    assert_eq!(turn.next(Duration::from_secs(2)), Next::Ended, "the provider's thread stopped the turn");
}

#[test]
fn a_compatible_server_without_a_key_is_described_so() {
    let provider = Provider::connect(
        ProviderKind::OpenAiCompatible,
        "llama3.1:8b",
        settings("http://127.0.0.1:1234/v1/"),
        &|name: &str| (name == "OPENAI_API_KEY").then(|| KEY.to_owned()),
    )
    .unwrap();
    assert_eq!(provider.describe(), "model openai-compatible:llama3.1:8b at http://127.0.0.1:1234/v1 (no key)");
}

#[test]
fn a_redirect_is_not_followed_so_the_key_goes_nowhere_else() {
    let elsewhere = ModelServer::start(vec![streamed(vec![text("should not be asked"), finish("stop")])]);
    let server = ModelServer::start(vec![status(
        "307 Temporary Redirect",
        &format!("Location: {}/chat/completions\r\n", elsewhere.url),
        "{}",
    )]);
    let outputs = outputs_of(&connect(settings(&server.url)));
    let message = failure(&outputs);
    assert!(message.starts_with("the model server answered 307 Temporary Redirect"), "{message}");
    assert!(message.contains("does not follow redirects") && message.contains("--base-url"), "{message}");
    assert!(elsewhere.requests().is_empty(), "the key went to the redirect's target");
}
