//! OpenTelemetry, locally: what hooks record through `@opentelemetry/api` (the vendor's
//! first example, seed 003's hook verbatim) and through `ctx.host.otel` reaches the serve
//! log at the end of `run`, with no setup; so do its spans, nested by the active context,
//! and its log records through `@opentelemetry/api-logs`. The project
//! (`fixtures/otel/api-metrics`) has the real `@opentelemetry/api` 1.9.0 and
//! `@opentelemetry/api-logs` 0.223.1 from npm, pinned in its package-lock.json
//! (`npm ci --prefix fixtures/otel/api-metrics`). What only an exporter would see of the
//! runtime (span ids and parents, handler spans, traceparent) is checked by running
//! `tests/otel/providers.mjs` on the runtime's own files. And the runtime ends as Node
//! programs end, so a hook's `beforeExit` listener (where its own provider flushes) runs.
//! And with `OTEL_*` set, all of it (and each turn's trace and metrics, and the serve log)
//! reaches a loopback collector that decodes with the official OpenTelemetry definitions
//! (`tests/otlp/receiver.py`: `python3 -m pip install -r tests/otlp/requirements.txt`).

use crate::common;

use std::path::Path;
use std::time::Duration;

use crate::common::model_server::{ModelServer, streamed};
use crate::common::otlp::{MetricKind, MetricPoint, Receiver, Span, Temporality};
use crate::common::{copy_fixture, exit_code, fixture, run_in};
use serde_json::{Value, json};

/// The serve log's `otel …` lines, without their timestamps.
fn otel_lines(log: &str) -> Vec<String> {
    log.lines().filter_map(|line| line.split_once(" INFO  otel ").map(|(_, rest)| format!("otel {rest}"))).collect()
}

/// The serve log of `agent-sdk <args>` run in `project`, which exits 0.
fn serve_log(project: &std::path::Path, args: &[&str]) -> String {
    let output = run_in(project, args);
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(exit_code(&output), 0, "{log}");
    log
}

fn project() -> tempfile::TempDir {
    let installed = fixture("otel", "api-metrics").join("node_modules/@opentelemetry/api/package.json");
    assert!(
        installed.is_file(),
        "@opentelemetry/api is not installed: run `npm ci --prefix fixtures/otel/api-metrics`"
    );
    copy_fixture("otel", "api-metrics")
}

#[test]
fn instruments_of_the_opentelemetry_api_and_ctx_host_otel_are_summarised_at_the_end_of_run() {
    let project = project();
    let output = run_in(project.path(), &["run", "--message", "hello"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    let lines = otel_lines(&log);
    let (spans, metrics): (Vec<&String>, Vec<&String>) = lines.iter().partition(|line| line.starts_with("otel span "));
    assert_eq!(
        metrics,
        [
            "otel counter acme.ctx.turns = 1 (source=ctx: 1)",
            "otel counter acme.tokens.input = 2",
            "otel counter acme.tokens.output = 18",
            "otel counter acme.turns.in_flight = 0",
            "otel histogram acme.turn.duration: count 2, sum 200, min 80, max 120 (model=local: count 2, sum 200)",
            "otel gauge acme.queue.depth = 7",
            "otel gauge acme.retries = 2 (cause=timeout: 2)",
            "otel gauge acme.sessions.open = 3 (region=eu: 3)",
            "otel gauge acme.tokens.last_output = 18",
        ],
        "{log}"
    );
    // Spans (their milliseconds vary): the traced hook's two, nested across an await.
    assert!(
        log.contains("INFO  hook \"traced\": the active span survives an await and parents a new one: true"),
        "{log}"
    );
    assert_eq!(spans.len(), 2, "{log}");
    assert!(
        spans[0].starts_with("otel span acme.lookup: 1 ended, 0 failed, ") && spans[0].ends_with(" ms in all"),
        "{log}"
    );
    assert!(spans[1].starts_with("otel span acme.summarise: 1 ended, 0 failed, "), "{log}");
    // The summary comes before the run's own last line.
    let summary = log.find("INFO  summary: ").unwrap();
    assert!(log.find(" otel counter ").unwrap() < summary, "{log}");
}

/// Seed 003's `turn.failed` counter, with its attribute.
#[test]
fn a_counter_s_attributes_are_summarised() {
    let project = project();
    let output = run_in(project.path(), &["run", "--event", "turn.failed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    assert!(otel_lines(&log).contains(&"otel counter acme.turn.failed = 1 (channel=local: 1)".to_owned()), "{log}");
}

/// A span a hook ends with status ERROR is said at once, as an error of that hook, and
/// counted in the summary.
#[test]
fn a_failed_span_is_an_error_line_of_its_hook() {
    let project = project();
    let output = run_in(project.path(), &["run", "--event", "turn.failed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    assert!(log.contains("ERROR hook \"traced\": span \"acme.page\" failed: the pager is unreachable"), "{log}");
    assert!(otel_lines(&log).iter().any(|line| line.starts_with("otel span acme.page: 1 ended, 1 failed, ")), "{log}");
}

/// The runtime ends as Node programs end: a hook's `beforeExit` listener (where a provider
/// of its own flushes) and `exit` listener run at the end of `run`, and what they print is
/// in the serve log.
#[test]
fn the_hooks_before_exit_and_exit_listeners_run_at_the_end_of_run() {
    let project = copy_fixture("runtime", "before-exit");
    let output = run_in(project.path(), &["run", "--event", "turn.completed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    let flushed = log.find("INFO  flushed 1 records before exit").unwrap_or_else(|| panic!("{log}"));
    let exited = log.find("INFO  exit listener ran (code 0)").unwrap_or_else(|| panic!("{log}"));
    assert!(flushed < exited && exited < log.find("INFO  summary: ").unwrap(), "{log}");
    assert!(!log.contains("still busy"), "{log}");
}

/// A hook that keeps Node busy for ever (an interval) holds the end of `run` for the
/// shutdown bound (2 s) at most, and the serve log says why.
#[test]
fn a_hook_that_keeps_node_busy_is_ended_after_the_bound_with_a_warning() {
    let project = copy_fixture("runtime", "before-exit");
    std::fs::write(
        project.path().join("bot/hooks/ticker.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nsetInterval(() => {}, 1000);\n\nexport default defineHook({ events: { \"turn.completed\"() {} } });\n",
    )
    .unwrap();
    let output = run_in(project.path(), &["run", "--event", "turn.completed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    assert!(log.contains("WARN  agent-sdk host: Node.js was still busy 2s after the hooks were told to stop (a timer, a socket or a child process of a hook's); it was ended"), "{log}");
    assert!(log.contains("INFO  exit listener ran (code 0)"), "{log}");
}

/// A project that sets up OpenTelemetry's own SDK keeps it: the runtime registers no
/// provider of its own (and says so), the hook's MeterProvider gets the measurements, and
/// it flushes in its `beforeExit` listener, whose output is in the serve log.
#[test]
fn a_project_s_own_sdk_is_left_in_charge_and_flushes_before_exit() {
    let installed = fixture("otel", "own-sdk").join("node_modules/@opentelemetry/sdk-metrics/package.json");
    assert!(installed.is_file(), "run `npm ci --prefix fixtures/otel/own-sdk`");
    let project = copy_fixture("otel", "own-sdk");
    let output = run_in(project.path(), &["run", "--event", "turn.completed"]);
    let log = String::from_utf8_lossy(&output.stderr);
    assert_eq!(exit_code(&output), 0, "{log}");
    assert!(log.contains("INFO  OpenTelemetry: the project installs @opentelemetry/sdk-metrics, so its own providers are left in charge; the summary shows what ctx.host.otel records"), "{log}");
    assert!(log.contains("INFO  exported acme.tokens.output = [38]"), "{log}");
    assert!(otel_lines(&log).is_empty(), "{log}");
}

/// A hook's log records through `@opentelemetry/api-logs` (`logs.getLogger(…).emit(…)`) are
/// serve-log records of that hook, at the level their severity says (none, TRACE, DEBUG and
/// INFO: INFO; WARN: WARN; ERROR and FATAL: ERROR), with their attributes; they are not
/// metrics of the summary.
#[test]
fn a_hook_s_log_records_are_serve_log_records_at_their_severity_s_level() {
    let project = project();
    let log = serve_log(project.path(), &["run", "--message", "hi"]);
    let logged: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" hook \"logged\": "))
        .map(|line| line.split_once(' ').map_or(line, |(_at, rest)| rest))
        .collect();
    insta::assert_snapshot!(logged.join("\n"), @r#"
    INFO  hook "logged": turn completed (acme.tokens.output=17, model=local)
    INFO  hook "logged": usage read
    WARN  hook "logged": the turn was slow
    ERROR hook "logged": {"reason":"quota","left":0}
    INFO  hook "logged": no severity given
    "#);
    assert!(!otel_lines(&log).iter().any(|line| line.contains("acme.audit")), "{log}");

    let json = serve_log(project.path(), &["run", "--message", "hi", "--log-format", "json"]);
    let records: Vec<serde_json::Value> = json.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let logged: Vec<&serde_json::Value> = records
        .iter()
        .filter(|record| record["message"].as_str().is_some_and(|message| message.starts_with("hook \"logged\": ")))
        .collect();
    assert_eq!(logged.len(), 5, "{records:?}");
    assert!(
        logged.iter().all(|record| record["hook"] == "logged" && record["event"] == "turn.completed"),
        "{logged:?}"
    );
}

/// A span's events, links and status are kept now (for export), and the summary still
/// counts it as before: ended, and failed only when its status is ERROR (an OK status is
/// final, as the OpenTelemetry SDK has it, so a later ERROR does not fail it).
#[test]
fn a_span_with_events_and_an_ok_status_is_summarised_as_ended_not_failed() {
    let project = project();
    let log = serve_log(project.path(), &["run", "--event", "turn.failed"]);
    let retried = otel_lines(&log).into_iter().find(|line| line.starts_with("otel span acme.retry: "));
    assert!(retried.is_some_and(|line| line.starts_with("otel span acme.retry: 1 ended, 0 failed, ")), "{log}");
    assert!(!log.contains("span \"acme.retry\" failed"), "{log}");
}

/// What only an exporter sees of the runtime's providers, checked by running
/// `tests/otel/providers.mjs` on `src/runtime/node/sdk/otel-api.cjs` with the real
/// `@opentelemetry/api` and `@opentelemetry/api-logs` of the fixture: a handler's span
/// parents what its code starts (across awaits); a span's kind, times, events, links and
/// status; meters and tracers by name; the `traceparent` fetch sends only inside a span
/// once traces are exported, never over the caller's own; log records.
#[test]
fn the_runtime_s_providers_record_what_export_needs() {
    project(); // the fixture's packages are installed
    let output = std::process::Command::new("node")
        .arg(common::root().join("tests/otel/providers.mjs"))
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let seen: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}"));
    // What a failed assertion shows: the start of what the script saw (its bodies are long).
    let brief: String = stdout.chars().take(3000).collect();
    let (turn_trace, handler_span) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let span = |name: &str| {
        seen["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|span| span["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {brief}"))
    };

    // Nesting under the handler's span, across awaits; `root: true` starts a trace of its own.
    assert_eq!(seen["seen"]["activeInHandler"], handler_span, "{brief}");
    assert_eq!(seen["seen"]["activeAfterHandler"], serde_json::Value::Null, "{brief}");
    let (outer, inner, root) = (span("acme.outer"), span("acme.inner"), span("acme.root"));
    assert_eq!((&outer["traceId"], &outer["parentSpanId"]), (&turn_trace.into(), &handler_span.into()), "{brief}");
    assert_eq!((&inner["traceId"], &inner["parentSpanId"]), (&turn_trace.into(), &outer["spanId"]), "{brief}");
    assert!(root["traceId"] != turn_trace && root["parentSpanId"].is_null(), "{brief}");
    let since_start = span("acme.since-start")["start"].as_f64().unwrap();
    assert!((root["start"].as_f64().unwrap() - since_start).abs() < 1000.0, "{brief}");
    assert_eq!(outer["scope"], "acme.tracer", "{brief}");

    // What a span records.
    let detailed = span("acme.detailed");
    assert_eq!(detailed["spanKind"], 2, "{brief}");
    assert_eq!((&detailed["start"], &detailed["ms"]), (&1_764_484_800_000_i64.into(), &1000.into()), "{brief}");
    assert_eq!(detailed["status"], serde_json::json!({ "code": 2, "message": "bad input" }), "{brief}");
    assert_eq!(detailed["error"], "bad input", "{brief}");
    assert_eq!(detailed["attrs"], serde_json::json!({ "http.method": "GET" }), "{brief}");
    let events = detailed["events"].as_array().unwrap();
    let names: Vec<&str> = events.iter().map(|event| event["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["acme.plain", "acme.hrtime", "acme.dated", "exception"], "{brief}");
    assert_eq!(events[0]["attrs"], serde_json::json!({ "step": 1 }), "{brief}");
    assert_eq!(
        (&events[1]["time"], &events[2]["time"]),
        (&1_764_484_800_500_i64.into(), &1_764_484_800_750_i64.into())
    );
    let exception = &events[3]["attrs"];
    assert_eq!(
        (&exception["exception.type"], &exception["exception.message"]),
        (&"TypeError".into(), &"bad input".into())
    );
    assert!(exception["exception.stacktrace"].as_str().is_some_and(|stack| stack.contains("providers.mjs")), "{brief}");
    assert_eq!(
        detailed["links"],
        serde_json::json!([
            { "traceId": "5bf92f3577b34da6a3ce929d0e0e4736", "spanId": "10f067aa0ba902b7", "attrs": { "why": "batch" } },
            { "traceId": "5bf92f3577b34da6a3ce929d0e0e4736", "spanId": "20f067aa0ba902b7", "attrs": {} },
        ]),
        "{brief}"
    );
    let crowded = span("acme.crowded");
    assert_eq!((crowded["events"].as_array().unwrap().len(), &crowded["droppedEvents"]), (128, &2.into()), "{brief}");
    assert_eq!((&crowded["status"], &crowded["error"]), (&serde_json::json!({ "code": 1 }), &serde_json::Value::Null));

    // Meters by name, with their instruments' units.
    assert_eq!(
        seen["measurements"],
        serde_json::json!([
            { "kind": "histogram", "name": "acme.latency", "value": 5, "scope": "acme.meter", "unit": "ms" },
            { "kind": "counter", "name": "acme.count", "value": 1, "scope": "acme.other" },
        ]),
        "{brief}"
    );
    assert!(seen["seen"]["sameMeterForSameName"] == true && seen["seen"]["otherMeterForOtherName"] == true);

    // fetch: no traceparent before traces are exported or outside a span; the handler's
    // span's, whatever the headers' shape; the caller's own kept; a child span's inside it.
    let handler_header = format!("00-{turn_trace}-{handler_span}-01");
    let child_header = format!("00-{turn_trace}-{}-01", seen["seen"]["callSpanId"].as_str().unwrap());
    let received: Vec<(String, Option<String>, Option<String>)> = seen["received"]
        .as_array()
        .unwrap()
        .iter()
        .map(|request| {
            let text = |key: &str| request[key].as_str().map(str::to_owned);
            (text("path").unwrap(), text("traceparent"), text("kept"))
        })
        .collect();
    let expected = |path: &str, traceparent: Option<&str>, kept: Option<&str>| {
        (path.to_owned(), traceparent.map(str::to_owned), kept.map(str::to_owned))
    };
    assert_eq!(
        received,
        [
            expected("/not-exported", None, None),
            expected("/outside", None, None),
            expected("/plain", Some(&handler_header), Some("object")),
            expected("/headers", Some(&handler_header), Some("headers")),
            expected("/pairs", Some(&handler_header), Some("pairs")),
            expected("/request", Some(&handler_header), Some("request")),
            expected("/callers", Some("00-11111111111111111111111111111111-2222222222222222-00"), None),
            expected("/callers-request", Some("00-33333333333333333333333333333333-4444444444444444-01"), None),
            expected("/in-child", Some(&child_header), None),
        ]
    );
    assert_eq!(seen["seen"]["fetchWrappedOnce"], true, "{brief}");

    // Log records: the logger's name, the body as text (bounded), severity, the active span.
    let records = seen["logRecords"].as_array().unwrap();
    assert_eq!(
        records[0],
        serde_json::json!({
            "name": "acme.logger", "body": "{\"reason\":\"quota\"}", "attrs": { "k": "v" },
            "severity": 13, "severityText": "WARN", "time": 1_764_484_800_000_i64,
        }),
        "{brief}"
    );
    assert_eq!((&records[1]["traceId"], &records[1]["spanId"]), (&turn_trace.into(), &handler_span.into()));
    for record in &records[1..] {
        let body = record["body"].as_str().unwrap();
        assert!(body.len() <= 16 * 1024 && body.len() > 16_000 && body.ends_with('…'), "{}", body.len());
        assert!(record["severity"].is_null(), "{record}");
    }
    assert_eq!(seen["seen"]["loggerEnabled"], true, "{brief}");

    handler_spans(&seen["hosts"], turn_trace);
}

/// What the hook host said of a traced event's handlers (tests/otel/handler-spans.mjs):
/// a "handler" line after each (after its threw/timed_out line), none for an event sent
/// without a trace; the handler's span parents the hook's own and its fetches' traceparent,
/// which only a host told that traces are exported sends.
fn handler_spans(hosts: &serde_json::Value, turn_trace: &str) {
    let exporting = &hosts["exporting"]["lines"];
    let brief: String = exporting.to_string().chars().take(3000).collect();
    let told: Vec<String> = exporting
        .as_array()
        .unwrap()
        .iter()
        .filter(|line| ["threw", "timed_out", "handler", "done"].contains(&line["t"].as_str().unwrap()))
        .map(|line| {
            let (t, seq) = (line["t"].as_str().unwrap(), &line["seq"]);
            match t {
                "handler" => format!("{seq} handler {} {} {}", line["handler"], line["outcome"], line["error"]),
                "done" => format!("{seq} done"),
                _ => format!("{seq} {t} {}", line["handler"]),
            }
        })
        .collect();
    assert_eq!(
        told,
        [
            r#"1 handler "turn.completed" "ok" null"#,
            r#"1 handler "*" "ok" null"#,
            "1 done",
            r#"2 threw "turn.failed""#,
            r#"2 handler "turn.failed" "threw" "boom""#,
            r#"2 handler "*" "ok" null"#,
            "2 done",
            r#"3 timed_out "message.received""#,
            r#"3 handler "message.received" "timed_out" "timed out after 2s""#,
            r#"3 handler "*" "ok" null"#,
            "3 done",
            "4 done",
        ],
        "{brief}"
    );
    let now = hosts["now"].as_f64().unwrap();
    let handler_lines = |lines: &serde_json::Value| -> Vec<serde_json::Value> {
        lines.as_array().unwrap().iter().filter(|line| line["t"] == "handler").cloned().collect()
    };
    let ended = handler_lines(exporting);
    for line in &ended {
        let span_id = line["spanId"].as_str().unwrap();
        assert!(span_id.len() == 16 && span_id.bytes().all(|b| b.is_ascii_hexdigit()), "{line}");
        let (start, ms) = (line["start"].as_f64().unwrap(), line["ms"].as_f64().unwrap());
        assert!(start < now && start > now - 60_000.0 && start.fract() != 0.0 && ms >= 0.0, "{line}");
        assert!(line.get("error").is_none() == (line["outcome"] == "ok"), "{line}");
    }
    assert!(ended[4]["ms"].as_f64().unwrap() >= 190.0, "{}", ended[4]);
    let mut ids: Vec<&str> = ended.iter().map(|line| line["spanId"].as_str().unwrap()).collect();
    ids.dedup();
    assert_eq!(ids.len(), ended.len(), "each handler its own span: {ids:?}");

    for (host, exported) in [("exporting", true), ("notExporting", false)] {
        let lines = &hosts[host]["lines"];
        let handler_span = handler_lines(lines)[0]["spanId"].as_str().unwrap().to_owned();
        let hook_span = lines
            .as_array()
            .unwrap()
            .iter()
            .find(|line| line["name"] == "acme.in-handler")
            .unwrap_or_else(|| panic!("{host}: {lines}"));
        assert_eq!(
            (hook_span["traceId"].as_str(), hook_span["parentSpanId"].as_str()),
            (Some(turn_trace), Some(handler_span.as_str()))
        );
        let active = format!(r#"{{"index":1,"active":"{handler_span}"}}"#);
        assert!(lines.as_array().unwrap().iter().any(|line| line["text"] == active.as_str()), "{host}: {lines}");
        let traceparents: Vec<(String, Option<String>)> = hosts[host]["received"]
            .as_array()
            .unwrap()
            .iter()
            .map(|request| {
                (request["path"].as_str().unwrap().to_owned(), request["traceparent"].as_str().map(str::to_owned))
            })
            .collect();
        let sent = |span: &str| exported.then(|| format!("00-{turn_trace}-{span}-01"));
        assert_eq!(
            traceparents[..2],
            [
                ("/in-span/1".to_owned(), sent(hook_span["spanId"].as_str().unwrap())),
                ("/in-handler/1".to_owned(), sent(&handler_span)),
            ],
            "{host}"
        );
    }
    // With the project's own providers in charge: the handler lines, and nothing else.
    let own = &hosts["ownProviders"];
    let outcomes: Vec<String> = handler_lines(&own["lines"]).iter().map(|line| line["outcome"].to_string()).collect();
    assert_eq!(outcomes, [r#""ok""#, r#""ok""#], "{}", own["lines"]);
    assert!(own["received"].as_array().unwrap().iter().all(|request| request["traceparent"].is_null()), "{own}");
    // An event sent without a trace: no handler span, no traceparent outside the hook's own.
    let received = &hosts["exporting"]["received"];
    assert_eq!(
        (&received[3]["path"], &received[3]["traceparent"]),
        (&"/in-handler/4".into(), &serde_json::Value::Null)
    );
}

// ---------------------------------------------------------------------------------------
// Export over OTLP/HTTP, to a loopback collector that decodes with the official
// OpenTelemetry definitions (`tests/otlp/receiver.py`, `common::otlp`).

/// How long a test waits for what a finished `run` exported (it flushed before it ended).
const ARRIVED: Duration = Duration::from_secs(5);

/// `agent-sdk run` in `dir` with `env` (and none of the developer's `OTEL_*`).
fn run_exporting(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let output = common::agent_sdk()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (exit_code(&output), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// [`run_exporting`] to a collector of its own (`OTEL_EXPORTER_OTLP_ENDPOINT`), with it.
fn run_to_collector(dir: &Path, args: &[&str]) -> (Receiver, i32, String) {
    let collector = Receiver::start();
    let (code, log) = run_exporting(dir, args, &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint())]);
    (collector, code, log)
}

fn point<'p>(points: &'p [MetricPoint], name: &str) -> Vec<&'p MetricPoint> {
    points.iter().filter(|point| point.name == name).collect()
}

fn span<'s>(spans: &'s [Span], name: &str) -> &'s Span {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name}: {:?}", spans.iter().map(|span| &span.name).collect::<Vec<_>>()))
}

/// Seed 003's hook, verbatim: its counters reach a collector with only
/// `OTEL_EXPORTER_OTLP_ENDPOINT` set, as delta sums under the meter's scope, with the
/// resource naming the agent; so does a `ctx.host.otel` counter; and the serve log's
/// records arrive as log records.
#[test]
fn the_hooks_instruments_and_the_serve_log_reach_the_collector() {
    let project = project();
    let (collector, code, log) = run_to_collector(project.path(), &["run", "--message", "hello"]);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains(&format!("INFO  OpenTelemetry: exporting traces to {0}/v1/traces, metrics to {0}/v1/metrics, logs to {0}/v1/logs (http/protobuf)", collector.endpoint())), "{log}");
    let requests = collector.wait_for(
        |requests| !common::otlp::metrics(requests).is_empty() && !common::otlp::log_records(requests).is_empty(),
        ARRIVED,
    );
    let points = common::otlp::metrics(&requests);
    let input = point(&points, "acme.tokens.input");
    assert_eq!(input.len(), 1, "{points:#?}");
    assert_eq!(
        (input[0].kind, input[0].temporality, input[0].is_monotonic, input[0].value, input[0].scope.as_str()),
        (MetricKind::Sum, Some(Temporality::Delta), true, Some(2.0), "acme")
    );
    assert_eq!(input[0].resource["service.name"], "otel-api-bot");
    assert_eq!(point(&points, "acme.tokens.output")[0].value, Some(18.0));
    let ctx = point(&points, "acme.ctx.turns");
    assert_eq!((ctx[0].value, ctx[0].scope.as_str()), (Some(1.0), "ctx.host.otel"), "{ctx:#?}");
    assert_eq!(ctx[0].attributes["source"], "ctx");
    let histogram = point(&points, "acme.turn.duration");
    assert_eq!((histogram[0].count, histogram[0].sum), (Some(2), Some(200.0)), "{histogram:#?}");
    // The serve log, as log records.
    let records = common::otlp::log_records(&requests);
    let loaded =
        records.iter().find(|record| record.body == "loaded hook \"usage\"").unwrap_or_else(|| panic!("{records:#?}"));
    assert_eq!((loaded.severity_number, loaded.severity_text.as_str()), (9, "INFO"));
    assert!(loaded.attributes["session.id"].as_str().is_some_and(|id| id.starts_with("ses_")), "{loaded:#?}");
    assert!(requests.iter().all(|request| request["contentType"] == "application/x-protobuf"), "{requests:#?}");
}

/// A turn is one trace: `agent_sdk.turn` (GenAI attributes of the local model) with a
/// `chat local` child, a `hook <name>` span for each handler of its events, and a span a
/// hook starts in its handler (`startActiveSpan`, and one nested in it across an await)
/// under that handler's span; and the turn's token usage as GenAI metrics.
#[test]
fn a_turn_is_one_trace_with_model_handler_and_hook_spans_nested() {
    let project = project();
    let (collector, code, log) = run_to_collector(project.path(), &["run", "--message", "hello"]);
    assert_eq!(code, 0, "{log}");
    let requests = collector
        .wait_for(|requests| common::otlp::spans(requests).iter().any(|span| span.name == "acme.lookup"), ARRIVED);
    let spans = common::otlp::spans(&requests);
    let turn = span(&spans, "agent_sdk.turn");
    assert_eq!(turn.parent_span_id, None);
    assert_eq!(turn.status_code, "STATUS_CODE_OK");
    for (key, value) in [
        ("gen_ai.operation.name", json!("invoke_agent")),
        ("gen_ai.agent.name", json!("otel-api-bot")),
        ("gen_ai.provider.name", json!("agent_sdk.local")),
        ("gen_ai.request.model", json!("local")),
        ("gen_ai.response.model", json!("local")),
        ("gen_ai.usage.input_tokens", json!(2)),
        ("gen_ai.usage.output_tokens", json!(18)),
        ("gen_ai.response.finish_reasons", json!(["stop"])),
        ("agent_sdk.turn.status", json!("completed")),
    ] {
        assert_eq!(turn.attributes.get(key), Some(&value), "{key}: {turn:#?}");
    }
    let chat = span(&spans, "chat local");
    assert_eq!((chat.kind.as_str(), chat.parent_span_id.as_deref()), ("SPAN_KIND_CLIENT", Some(turn.span_id.as_str())));
    // Every handler of every event of the turn, under the turn.
    let handlers: Vec<&Span> = spans.iter().filter(|span| span.name.starts_with("hook ")).collect();
    assert!(handlers.len() >= 5, "{handlers:#?}");
    assert!(
        handlers.iter().all(
            |handler| handler.trace_id == turn.trace_id && handler.parent_span_id.as_deref() == Some(&turn.span_id)
        ),
        "{handlers:#?}"
    );
    let traced = handlers
        .iter()
        .find(|handler| handler.name == "hook traced" && handler.attributes["agent_sdk.event.type"] == "turn.completed")
        .unwrap_or_else(|| panic!("{handlers:#?}"));
    assert_eq!(traced.attributes["agent_sdk.hook.outcome"], "ok");
    let summarise = span(&spans, "acme.summarise");
    let lookup = span(&spans, "acme.lookup");
    assert_eq!(summarise.parent_span_id.as_deref(), Some(traced.span_id.as_str()), "{spans:#?}");
    assert_eq!(lookup.parent_span_id.as_deref(), Some(summarise.span_id.as_str()));
    assert_eq!((summarise.trace_id.as_str(), summarise.scope.as_str()), (turn.trace_id.as_str(), "acme"));
    assert_eq!(summarise.attributes["agent_sdk.hook.name"], "traced");
    assert!(
        summarise.start_time_unix_nano >= traced.start_time_unix_nano
            && summarise.end_time_unix_nano <= traced.end_time_unix_nano + 1_000_000,
        "{summarise:#?} {traced:#?}"
    );
    // The turn's GenAI metrics.
    let points =
        common::otlp::metrics(&collector.wait_for(|requests| !common::otlp::metrics(requests).is_empty(), ARRIVED));
    let tokens = point(&points, "gen_ai.client.token.usage");
    let by_type = |kind: &str| {
        tokens.iter().find(|point| point.attributes["gen_ai.token.type"] == kind).and_then(|point| point.sum)
    };
    assert_eq!((by_type("input"), by_type("output")), (Some(2.0), Some(18.0)), "{tokens:#?}");
    assert_eq!(tokens[0].unit, "{token}");
    let calls = point(&points, "agent_sdk.hook.handler.calls");
    assert!(calls.iter().all(|point| point.attributes["agent_sdk.hook.outcome"] == "ok"), "{calls:#?}");
    assert!(!point(&points, "gen_ai.client.operation.duration").is_empty(), "{points:#?}");
}

/// A tool call is an `execute_tool <name>` span of its turn; a handler that throws is a
/// span with status ERROR and an `exception` event; a failed turn's span says why.
#[test]
fn tool_calls_failed_handlers_and_failed_turns_are_spans_that_say_so() {
    let project = project();
    std::fs::write(
        project.path().join("bot/hooks/thrower.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({ events: { \"action.result\"() { throw new Error(\"no quota\"); } } });\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("turn.json"),
        r#"{ "steps": [ { "tools": [ { "toolName": "search", "args": { "q": "x" } } ] }, { "fail": "the model gave up" } ] }"#,
    )
    .unwrap();
    let (collector, code, log) =
        run_to_collector(project.path(), &["run", "--message", "hello", "--script", "turn.json"]);
    assert_eq!(code, 1, "{log}");
    let requests = collector
        .wait_for(|requests| common::otlp::spans(requests).iter().any(|span| span.name == "agent_sdk.turn"), ARRIVED);
    let spans = common::otlp::spans(&requests);
    let turn = span(&spans, "agent_sdk.turn");
    assert_eq!((turn.status_code.as_str(), turn.status_message.as_str()), ("STATUS_CODE_ERROR", "the model gave up"));
    let tool = span(&spans, "execute_tool search");
    assert_eq!(tool.parent_span_id.as_deref(), Some(turn.span_id.as_str()));
    assert_eq!(
        (tool.attributes["gen_ai.tool.name"].as_str(), tool.attributes["gen_ai.operation.name"].as_str()),
        (Some("search"), Some("execute_tool"))
    );
    let chats: Vec<&Span> = spans.iter().filter(|span| span.name == "chat local").collect();
    assert_eq!(chats.len(), 2, "a request that asked for the tool, and the one that failed: {chats:#?}");
    let threw = span(&spans, "hook thrower");
    assert_eq!((threw.status_code.as_str(), threw.status_message.as_str()), ("STATUS_CODE_ERROR", "no quota"));
    assert_eq!(threw.attributes["agent_sdk.hook.outcome"], "threw");
    assert_eq!(threw.events[0].name, "exception");
    assert_eq!(threw.events[0].attributes["exception.message"], "no quota");
}

/// A turn of a real model (an OpenAI-compatible server on loopback): the GenAI attributes
/// name its provider, the model asked and the model that answered (the response's
/// `model`, a dated version of the one asked), and its usage is the token metric.
#[test]
fn a_provider_turn_names_its_provider_model_and_tokens() {
    let project = project();
    let answered = "gpt-4o-mini-2024-07-18";
    let server = ModelServer::start(vec![streamed(vec![
        json!({ "model": answered, "choices": [ { "delta": { "content": "Hi" }, "finish_reason": null } ] }),
        json!({ "model": answered, "choices": [ { "delta": {}, "finish_reason": "stop" } ] }),
        json!({ "model": answered, "choices": [], "usage": { "prompt_tokens": 20, "completion_tokens": 6, "total_tokens": 26 } }),
    ])]);
    let (collector, code, log) = run_to_collector(
        project.path(),
        &["run", "--message", "hello", "--model", "openai-compatible:gpt-4o-mini", "--base-url", &server.url],
    );
    assert_eq!(code, 0, "{log}");
    let requests = collector.wait_for(
        |requests| !common::otlp::spans(requests).is_empty() && !common::otlp::metrics(requests).is_empty(),
        ARRIVED,
    );
    let spans = common::otlp::spans(&requests);
    let turn = span(&spans, "agent_sdk.turn");
    assert_eq!(turn.attributes["gen_ai.provider.name"], "openai_compatible");
    assert_eq!(turn.attributes["gen_ai.request.model"], "gpt-4o-mini");
    assert_eq!(turn.attributes["gen_ai.response.model"], answered);
    assert_eq!(
        (turn.attributes["gen_ai.usage.input_tokens"].clone(), turn.attributes["gen_ai.usage.output_tokens"].clone()),
        (json!(20), json!(6))
    );
    assert_eq!(span(&spans, "chat gpt-4o-mini").attributes["gen_ai.response.model"], answered);
    let points = common::otlp::metrics(&requests);
    let tokens = point(&points, "gen_ai.client.token.usage");
    assert!(tokens.iter().all(|point| point.attributes["gen_ai.response.model"] == answered), "{tokens:#?}");
    assert!(
        tokens.iter().any(|point| point.attributes["gen_ai.token.type"] == "input" && point.sum == Some(20.0)),
        "{tokens:#?}"
    );
}

/// The variables: cumulative temporality when preferred; http/json; the headers (their
/// values URL-decoded) on every request; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`;
/// a signal's own endpoint used as written, and `OTEL_LOGS_EXPORTER=none`.
#[test]
fn the_otel_variables_choose_temporality_encoding_headers_resource_and_endpoints() {
    let project = project();
    let collector = Receiver::start();
    let metrics_only = Receiver::start();
    let (code, log) = run_exporting(
        project.path(),
        &["run", "--message", "hello"],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint()),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", &format!("{}/v1/metrics", metrics_only.endpoint())),
            ("OTEL_LOGS_EXPORTER", "none"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "cumulative"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20s3cret,x-team=core"),
            ("OTEL_SERVICE_NAME", "billing-bot"),
            ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=dev%20eu"),
        ],
    );
    assert_eq!(code, 0, "{log}");
    assert!(!log.contains("s3cret"), "{log}");
    let traces = collector.wait_for(|requests| !requests.is_empty(), ARRIVED);
    let metrics = metrics_only.wait_for(|requests| !requests.is_empty(), ARRIVED);
    assert!(traces.iter().all(|request| request["path"] == "/v1/traces"), "{traces:#?}");
    // As written: not `/v1/metrics/v1/metrics`, and nothing else there.
    assert!(metrics.iter().all(|request| request["path"] == "/v1/metrics"), "{metrics:#?}");
    for request in traces.iter().chain(&metrics) {
        assert_eq!(request["contentType"], "application/json", "{request:#?}");
        assert_eq!(request["error"], Value::Null, "{request:#?}");
        assert_eq!(request["headers"]["authorization"], "Bearer s3cret");
        assert_eq!(request["headers"]["x-team"], "core");
    }
    let points = common::otlp::metrics(&metrics);
    let input = point(&points, "acme.tokens.input");
    assert_eq!(input[0].temporality, Some(Temporality::Cumulative), "{input:#?}");
    assert_eq!(input[0].resource["service.name"], "billing-bot");
    assert_eq!(input[0].resource["deployment.environment"], "dev eu");
    assert!(common::otlp::spans(&traces).iter().all(|span| span.resource["service.name"] == "billing-bot"));
}

/// `grpc` is not spoken: one warning, and the export goes over http/protobuf instead.
#[test]
fn grpc_warns_and_falls_back_to_http_protobuf() {
    let project = project();
    let collector = Receiver::start();
    let (code, log) = run_exporting(
        project.path(),
        &["run", "--event", "turn.completed"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint()), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
    );
    assert_eq!(code, 0, "{log}");
    assert_eq!(
        log.matches("WARN  OpenTelemetry: the grpc protocol is not supported; exporting over http/protobuf instead")
            .count(),
        1,
        "{log}"
    );
    let requests = collector.wait_for(|requests| !requests.is_empty(), ARRIVED);
    assert!(
        !requests.is_empty() && requests.iter().all(|request| request["contentType"] == "application/x-protobuf"),
        "{requests:#?}"
    );
}

/// A collector that never answers costs the flush bound (2 s) and one warning; one that
/// answers 500 costs one warning; neither fails the run, and neither warning shows a
/// header's value.
#[test]
fn a_collector_that_hangs_or_fails_costs_one_warning_and_the_bound() {
    let project = project();
    for (collector, said) in [
        (Receiver::hanging(), "did not reach the collector within 2s; dropped"),
        (Receiver::answering(500), "answered 500 Internal Server Error"),
    ] {
        let (code, log) = run_exporting(
            project.path(),
            &["run", "--message", "hello"],
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint()),
                ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=s3cret"),
            ],
        );
        assert_eq!(code, 0, "{log}");
        let warnings: Vec<&str> = log.lines().filter(|line| line.contains("WARN  OpenTelemetry")).collect();
        assert_eq!(warnings.len(), 1, "{log}");
        assert!(!log.contains("s3cret"), "{log}");
        assert!(warnings[0].contains(said), "{log}");
    }
}

/// While traces are exported, a hook's `fetch` carries the `traceparent` of its handler's
/// span; with no exporter it carries none. `OTEL_SDK_DISABLED=true` exports nothing.
#[test]
fn fetch_carries_traceparent_only_while_exporting_and_disabled_exports_nothing() {
    let project = project();
    std::fs::write(
        project.path().join("bot/hooks/notify.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({ events: { async \"turn.completed\"() { await fetch(`${process.env.ECHO_URL}/echo`, { method: \"POST\", body: \"{}\" }); } } });\n",
    )
    .unwrap();
    let echo = Receiver::start();
    let collector = Receiver::start();
    let (code, log) = run_exporting(
        project.path(),
        &["run", "--message", "hello"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &collector.endpoint()), ("ECHO_URL", &echo.endpoint())],
    );
    assert_eq!(code, 0, "{log}");
    let requests = collector
        .wait_for(|requests| common::otlp::spans(requests).iter().any(|span| span.name == "hook notify"), ARRIVED);
    let spans = common::otlp::spans(&requests);
    let notify = span(&spans, "hook notify");
    let fetched = echo.wait_for(|requests| !requests.is_empty(), ARRIVED);
    assert_eq!(fetched.len(), 1, "{fetched:#?}");
    assert_eq!(fetched[0]["headers"]["traceparent"], format!("00-{}-{}-01", notify.trace_id, notify.span_id));

    let quiet = Receiver::start();
    let (code, log) = run_exporting(project.path(), &["run", "--message", "hello"], &[("ECHO_URL", &quiet.endpoint())]);
    assert_eq!(code, 0, "{log}");
    let fetched = quiet.wait_for(|requests| !requests.is_empty(), ARRIVED);
    assert_eq!(fetched.len(), 1, "{fetched:#?}");
    assert_eq!(fetched[0]["headers"].get("traceparent"), None, "{fetched:#?}");

    let disabled = Receiver::start();
    let (code, log) = run_exporting(
        project.path(),
        &["run", "--message", "hello"],
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &disabled.endpoint()),
            ("OTEL_SDK_DISABLED", "true"),
            ("ECHO_URL", &quiet.endpoint()),
        ],
    );
    assert_eq!(code, 0, "{log}");
    assert!(!log.contains("OpenTelemetry: exporting"), "{log}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(disabled.requests().is_empty(), "{:#?}", disabled.requests());
}

/// A user name and password in the endpoint are shown nowhere: not in the "exporting to"
/// line, nor in the warning of a failed export (whose HTTP error names the URL it was
/// sending to), nor in the error about an endpoint the exporter cannot take; neither on
/// stderr nor in the stored serve log.
#[test]
fn the_endpoint_s_password_is_shown_nowhere() {
    let dir = copy_fixture("run", "order");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // A collector that takes each connection and closes it unanswered.
    let hangs_up = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hangs_up_port = hangs_up.local_addr().unwrap().port();
    std::thread::spawn(move || hangs_up.incoming().for_each(drop));
    let failing = [
        (
            format!("http://agent:s3cret@127.0.0.1:{closed}"),
            format!("could not connect to http://…@127.0.0.1:{closed}/v1/"),
        ),
        (format!("http://agent:s3cret@127.0.0.1:{hangs_up_port}"), format!("(http://…@127.0.0.1:{hangs_up_port}/v1/")),
        (format!("ftp://agent:s3cret@127.0.0.1:{closed}"), format!("(ftp://…@127.0.0.1:{closed}/v1/")),
    ];
    for (endpoint, said) in &failing {
        let (code, log) =
            run_exporting(dir.path(), &["run", "--message", "hi"], &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)]);
        assert_eq!(code, 0, "{log}");
        let shown = endpoint.replace("agent:s3cret@", "…@");
        assert!(log.contains(&format!("OpenTelemetry: exporting traces to {shown}/v1/traces")), "{log}");
        let warnings: Vec<&str> =
            log.lines().filter(|line| line.contains("WARN  OpenTelemetry export failed")).collect();
        assert_eq!(warnings.len(), 1, "{log}");
        assert!(warnings[0].contains(said.as_str()), "{said}: {log}");
        assert!(!log.contains("s3cret"), "{log}");
    }
    let stored = run_in(dir.path(), &["logs", "--dir", "."]);
    let stored = String::from_utf8_lossy(&stored.stdout);
    assert_eq!(stored.matches("OpenTelemetry export failed").count(), failing.len(), "{stored}");
    assert!(!stored.contains("s3cret"), "{stored}");
    // An endpoint the exporter refuses as it starts: the run stops, naming it unquoted.
    let endpoint = "http://agent:s3cret@bad host:4318";
    let (code, log) =
        run_exporting(dir.path(), &["run", "--message", "hi"], &[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)]);
    assert_eq!(code, 2, "{log}");
    assert!(log.contains("error: could not start exporting telemetry: ") && log.contains("…@"), "{log}");
    assert!(!log.contains("s3cret"), "{log}");
}

/// `run --event turn.failed` whose pager hook throws (exit 3), the run a user opens a trace
/// for, exports its trace: the synthetic turn's `agent_sdk.turn` span, failed, and under it
/// each handler's `hook <name>` span (the thrower's with status ERROR), and the hooks' own
/// spans under theirs.
#[test]
fn a_synthetic_event_s_run_exports_its_hook_spans_even_when_a_hook_throws() {
    let project = project();
    std::fs::write(
        project.path().join("bot/hooks/pager.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({ events: { \"turn.failed\"() { throw new Error(\"the pager is down\"); } } });\n",
    )
    .unwrap();
    let (collector, code, log) = run_to_collector(project.path(), &["run", "--event", "turn.failed"]);
    assert_eq!(code, 3, "{log}");
    let requests = collector.wait_for(
        |requests| {
            let spans = common::otlp::spans(requests);
            ["agent_sdk.turn", "hook pager", "hook traced"]
                .iter()
                .all(|name| spans.iter().any(|span| span.name == *name))
        },
        ARRIVED,
    );
    let spans = common::otlp::spans(&requests);
    let turn = span(&spans, "agent_sdk.turn");
    assert_eq!(
        (turn.status_code.as_str(), turn.attributes["agent_sdk.turn.status"].as_str()),
        ("STATUS_CODE_ERROR", Some("error"))
    );
    let pager = span(&spans, "hook pager");
    assert_eq!(
        (pager.trace_id.as_str(), pager.parent_span_id.as_deref()),
        (turn.trace_id.as_str(), Some(turn.span_id.as_str()))
    );
    assert_eq!((pager.status_code.as_str(), pager.status_message.as_str()), ("STATUS_CODE_ERROR", "the pager is down"));
    assert_eq!(pager.attributes["agent_sdk.event.type"], "turn.failed");
    let traced = span(&spans, "hook traced");
    assert_eq!(span(&spans, "acme.page").parent_span_id.as_deref(), Some(traced.span_id.as_str()));
    assert!(!spans.iter().any(|span| span.name.starts_with("chat ")), "no model was asked: {spans:#?}");
}

/// The events of a turn `run --json` recorded, as a `--replay` file (written before any
/// slow hook is added).
fn recorded_turn(project: &Path) -> std::path::PathBuf {
    let output = run_in(project, &["run", "--message", "hello", "--json"]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    let file = project.join("turn.jsonl");
    std::fs::write(&file, &output.stdout).unwrap();
    file
}

/// `run --replay` traces each replayed turn as a live one is traced: its `agent_sdk.turn`
/// span, a `chat` span per model request, and its events' handler spans under it.
#[test]
fn a_replay_exports_each_replayed_turn_s_trace_with_its_hook_spans() {
    let project = project();
    recorded_turn(project.path());
    let (collector, code, log) = run_to_collector(project.path(), &["run", "--replay", "turn.jsonl"]);
    assert_eq!(code, 0, "{log}");
    let requests = collector
        .wait_for(|requests| common::otlp::spans(requests).iter().any(|span| span.name == "acme.lookup"), ARRIVED);
    let spans = common::otlp::spans(&requests);
    let turn = span(&spans, "agent_sdk.turn");
    assert_eq!(
        (turn.status_code.as_str(), turn.attributes["agent_sdk.turn.status"].as_str()),
        ("STATUS_CODE_OK", Some("completed"))
    );
    assert_eq!(span(&spans, "chat local").parent_span_id.as_deref(), Some(turn.span_id.as_str()));
    let traced = span(&spans, "hook traced");
    assert_eq!(
        (traced.trace_id.as_str(), traced.parent_span_id.as_deref()),
        (turn.trace_id.as_str(), Some(turn.span_id.as_str()))
    );
    assert_eq!(traced.attributes["agent_sdk.event.type"], "turn.completed");
    assert_eq!(span(&spans, "acme.summarise").parent_span_id.as_deref(), Some(traced.span_id.as_str()));
}

/// Ctrl-C twice during a replay whose hook is slow stops at once (exit 130), and what was
/// pending still reaches the collector, within the flush bound: the replayed turn's span
/// and the serve log up to its last line.
#[test]
fn a_replay_stopped_by_ctrl_c_still_exports_what_was_pending_within_the_bound() {
    let project = project();
    recorded_turn(project.path());
    std::fs::write(
        project.path().join("bot/hooks/slow.ts"),
        "import { defineHook } from \"@cursor/bdk/hooks\";\n\nexport default defineHook({ events: { async \"message.received\"() { console.log(\"slow started\"); await new Promise((resolve) => setTimeout(resolve, 60_000)); } } });\n",
    )
    .unwrap();
    let collector = Receiver::start();
    let mut child = common::agent_sdk()
        .args(["run", "--replay", "turn.jsonl"])
        .current_dir(project.path())
        .env("NO_COLOR", "1")
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, read) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let _ = lines.send(line.unwrap_or_default());
        }
    });
    let mut log = Vec::new();
    let wait_for = |needle: &str, log: &mut Vec<String>| loop {
        let line = read.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("no `{needle}`: {log:#?}"));
        log.push(line);
        if log.last().is_some_and(|line| line.contains(needle)) {
            return;
        }
    };
    wait_for("slow started", &mut log);
    let interrupt = || {
        assert!(std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success())
    };
    interrupt();
    wait_for("Ctrl-C again to stop now", &mut log);
    let stopped = std::time::Instant::now();
    interrupt();
    let status = child.wait().unwrap();
    let took = stopped.elapsed();
    log.extend(read.iter());
    assert_eq!(status.code(), Some(130), "{log:#?}");
    assert!(log.iter().any(|line| line.contains("stopped at once: ")), "{log:#?}");
    assert!(took < Duration::from_secs(5), "took {took:?}: {log:#?}");
    let requests = collector.wait_for(
        |requests| {
            common::otlp::log_records(requests)
                .iter()
                .any(|record| record.body.as_str().is_some_and(|body| body.starts_with("stopped at once: ")))
                && common::otlp::spans(requests).iter().any(|span| span.name == "agent_sdk.turn")
        },
        ARRIVED,
    );
    let records = common::otlp::log_records(&requests);
    assert!(
        records.iter().any(|record| record.body.as_str().is_some_and(|body| body.starts_with("stopped at once: "))),
        "{records:#?}"
    );
    span(&common::otlp::spans(&requests), "agent_sdk.turn");
}

/// An endpoint written without a scheme (`127.0.0.1:4318`) is said once, with the URL it
/// needs, and the run goes on without export, as it does when the collector is down; the
/// password in it is hidden there too.
#[test]
fn an_endpoint_without_a_scheme_is_one_warning_and_the_run_goes_on_without_export() {
    let dir = copy_fixture("run", "order");
    let collector = Receiver::start();
    let written = collector.endpoint().trim_start_matches("http://").to_owned();
    let (code, log) =
        run_exporting(dir.path(), &["run", "--message", "hi"], &[("OTEL_EXPORTER_OTLP_ENDPOINT", &written)]);
    assert_eq!(code, 0, "{log}");
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("OpenTelemetry")).collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(
        warnings[0].ends_with(&format!(
            "WARN  OpenTelemetry: OTEL_EXPORTER_OTLP_ENDPOINT={written} needs a scheme: http://{written}; nothing is exported to it"
        )),
        "{log}"
    );
    assert!(log.contains("INFO  summary: "), "{log}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(collector.requests().is_empty(), "{:#?}", collector.requests());

    let (code, log) = run_exporting(
        dir.path(),
        &["run", "--message", "hi"],
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "agent:s3cret@127.0.0.1:4318")],
    );
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("OTEL_EXPORTER_OTLP_ENDPOINT=…@127.0.0.1:4318 needs a scheme: http://…@127.0.0.1:4318"),
        "{log}"
    );
    assert!(!log.contains("s3cret"), "{log}");
}

/// `@opentelemetry/api` 1.10 has `logs` of its own: a record a hook emits through it is a
/// serve-log record of that hook, as one through `@opentelemetry/api-logs` is, and reaches
/// the collector with the serve log's records.
#[test]
fn a_record_emitted_through_the_api_s_own_logs_is_a_serve_log_record_and_is_exported() {
    let project = project();
    std::fs::write(
        project.path().join("bot/hooks/api-logged.ts"),
        "import { logs, SeverityNumber } from \"@opentelemetry/api\";\nimport { defineHook } from \"@cursor/bdk/hooks\";\n\nconst logger = logs.getLogger(\"acme.api-logs\");\n\nexport default defineHook({ events: { \"turn.completed\"() { logger.emit({ severityNumber: SeverityNumber.WARN, body: \"quota nearly spent\", attributes: { left: 3 } }); } } });\n",
    )
    .unwrap();
    let (collector, code, log) = run_to_collector(project.path(), &["run", "--event", "turn.completed"]);
    assert_eq!(code, 0, "{log}");
    assert!(log.contains("WARN  hook \"api-logged\": quota nearly spent (left=3)"), "{log}");
    let said = |record: &common::otlp::LogRecord| record.body == "hook \"api-logged\": quota nearly spent (left=3)";
    let requests = collector.wait_for(
        |requests| {
            common::otlp::log_records(requests).iter().any(said)
                && common::otlp::spans(requests).iter().any(|span| span.name == "hook api-logged")
        },
        ARRIVED,
    );
    let records = common::otlp::log_records(&requests);
    let record = records.iter().find(|record| said(record)).unwrap_or_else(|| panic!("{records:#?}"));
    assert_eq!(
        (record.severity_text.as_str(), &record.attributes["agent_sdk.hook.name"]),
        ("WARN", &json!("api-logged"))
    );
}
