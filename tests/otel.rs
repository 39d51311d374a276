//! OpenTelemetry, locally: what hooks record through `@opentelemetry/api` (the vendor's
//! first example, seed 003's hook verbatim) and through `ctx.host.otel` reaches the serve
//! log at the end of `run`, with no setup; so do its spans, nested by the active context. The project (`fixtures/otel/api-metrics`) has
//! the real `@opentelemetry/api` 1.9.0 from npm, pinned in its package-lock.json
//! (`npm ci --prefix fixtures/otel/api-metrics`). And the runtime ends as Node programs
//! end, so a hook's `beforeExit` listener (where its own provider flushes) runs.

mod common;

use common::{copy_fixture, exit_code, fixture, run_in};

/// The serve log's `otel …` lines, without their timestamps.
fn otel_lines(log: &str) -> Vec<String> {
    log.lines().filter_map(|line| line.split_once(" INFO  otel ").map(|(_, rest)| format!("otel {rest}"))).collect()
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
