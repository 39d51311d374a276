//! The certificates HTTPS clients trust (`src/http/trust.rs`), through the real binary: a model
//! provider, OTLP export, `logs` and `chat` behind a TLS front whose certificate a CA made
//! in the test issued (`common::tls`), as a company's proxy would present one. Without a
//! variable the certificate is not trusted and the error names the variables to set; with
//! `SSL_CERT_FILE`, `SSL_CERT_DIR` or `NODE_EXTRA_CA_CERTS` (and for OTLP its
//! `OTEL_EXPORTER_OTLP_*CERTIFICATE`) it is; a variable naming a broken file is its own error.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use crate::common::dev_server::DevServer;
use crate::common::model_server::{ModelServer, finish, status, streamed, text};
use crate::common::otlp::Receiver;
use crate::common::snapshot::Filters;
use crate::common::tls::{TestCa, TlsFront};
use crate::common::{Ran, agent_sdk, copy_fixture, exit_code, run_recorded};

/// The `host:port` of a test server's plain `http://` URL.
fn address_of(url: &str) -> SocketAddr {
    let rest = url.strip_prefix("http://").unwrap();
    rest.split('/').next().unwrap().parse().unwrap()
}

/// What a user sees of `ran`: its exit code and stderr, with the front's port, the CA's
/// folder, the project and the times and ids filtered.
fn seen(ran: &Ran, front: &TlsFront, ca: &TestCa, project: &Path) -> String {
    let filters = Filters::new()
        .folder(ca.scratch(), "[CA]")
        .project(project)
        .literal(&format!("127.0.0.1:{}", front.port), "127.0.0.1:[PORT]")
        .log_times()
        .ids();
    filters.apply(&format!("exit: {}\n{}", exit_code(&ran.output), ran.log()))
}

// ---------------------------------------------------------------------------------------
// A model provider over HTTPS.

/// A model server that streams `Hello there.` to each of `turns` connections, behind TLS.
fn https_model(ca: &TestCa, turns: usize) -> (ModelServer, TlsFront) {
    let answers =
        (0..turns).map(|_| streamed(vec![text("Hello"), text(" there."), finish("stop")])).collect::<Vec<_>>();
    let server = ModelServer::start(answers);
    let front = TlsFront::start(ca, address_of(&server.url));
    (server, front)
}

/// `run --message hi` of a copy of the providers' agent on `openai-compatible:gpt-4o-mini`
/// at `base_url`, with `env`.
fn run_on(base_url: &str, env: &[(&str, &str)]) -> (tempfile::TempDir, Ran) {
    let dir = copy_fixture("providers", "agent");
    let args = ["run", "--dir", ".", "--model", "openai-compatible:gpt-4o-mini", "--base-url", base_url];
    let ran = run_recorded(dir.path(), &[&args[..], &["--message", "hi"]].concat(), env);
    (dir, ran)
}

#[test]
fn a_provider_behind_a_private_ca_is_not_trusted_and_the_error_names_the_variables() {
    let ca = TestCa::new();
    let (server, front) = https_model(&ca, 1);
    let (dir, ran) = run_on(&front.url("/v1"), &[]);
    assert_eq!(exit_code(&ran.output), 1, "{}", ran.both());
    // Not retried: another try meets the same certificate.
    assert_eq!(front.connections(), 1, "{}", ran.both());
    assert!(server.requests().is_empty());
    insta::assert_snapshot!(seen(&ran, &front, &ca, dir.path()));
}

#[test]
fn ssl_cert_file_ssl_cert_dir_and_node_extra_ca_certs_each_make_the_provider_trusted() {
    let ca = TestCa::new();
    let file = ca.pem_file().to_string_lossy().into_owned();
    let folder = ca.pem_folder().to_string_lossy().into_owned();
    for variable in ["SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS"] {
        let path = if variable == "SSL_CERT_DIR" { &folder } else { &file };
        let (server, front) = https_model(&ca, 1);
        let (_dir, ran) = run_on(&front.url("/v1"), &[(variable, path)]);
        assert_eq!(exit_code(&ran.output), 0, "{variable}: {}", ran.both());
        assert_eq!(ran.stdout(), "Hello there.\n", "{variable}: {}", ran.both());
        assert_eq!(server.requests().len(), 1, "{variable}");
    }
}

#[test]
fn a_ca_variable_in_dot_env_is_read_as_the_key_is() {
    let ca = TestCa::new();
    let (_server, front) = https_model(&ca, 1);
    let dir = copy_fixture("providers", "agent");
    std::fs::write(dir.path().join(".env"), format!("SSL_CERT_FILE={}\n", ca.pem_file().display())).unwrap();
    let args = ["run", "--dir", ".", "--model", "openai-compatible:gpt-4o-mini", "--base-url", &front.url("/v1")];
    let ran = run_recorded(dir.path(), &[&args[..], &["--message", "hi"]].concat(), &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.stdout(), "Hello there.\n");
}

#[test]
fn a_ca_variable_naming_a_missing_or_non_pem_file_is_an_error_naming_both() {
    let ca = TestCa::new();
    let (_server, front) = https_model(&ca, 1);
    let not_pem = ca.scratch().join("ca.der");
    std::fs::write(&not_pem, b"\x30\x82\x01\x0a not a PEM file").unwrap();
    let empty = ca.scratch().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut transcripts = Vec::new();
    for (variable, path) in
        [("SSL_CERT_FILE", ca.scratch().join("missing.pem")), ("NODE_EXTRA_CA_CERTS", not_pem), ("SSL_CERT_DIR", empty)]
    {
        let (dir, ran) = run_on(&front.url("/v1"), &[(variable, &path.to_string_lossy())]);
        assert!(ran.stdout().is_empty() && ran.record.is_empty(), "nothing ran: {}", ran.both());
        transcripts.push(format!(
            "$ {variable}={} agent-sdk run …\n{}",
            path.display(),
            seen(&ran, &front, &ca, dir.path())
        ));
    }
    // Nothing was asked of the server.
    assert_eq!(front.connections(), 0);
    insta::assert_snapshot!(Filters::new().folder(ca.scratch(), "[CA]").apply(&transcripts.join("\n")));
}

#[test]
fn a_plain_http_provider_reads_no_ca_variable() {
    let server = ModelServer::start(vec![streamed(vec![text("Plain."), finish("stop")])]);
    let (_dir, ran) = run_on(&server.url, &[("SSL_CERT_FILE", "/no/such/ca.pem")]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(ran.stdout(), "Plain.\n");
}

/// A hook that fetches `HOOK_FETCHES` when a message comes, and records what came of it.
const FETCHING_HOOK: &str = r#"import { defineHook } from "@cursor/bdk/hooks";
import { record } from "../lib/record";

export default defineHook({
  events: {
    async "message.received"() {
      try {
        const answer = await fetch(process.env.HOOK_FETCHES!);
        record(`fetched ${answer.status}`);
      } catch (error) {
        record(`fetch failed: ${String((error as Error).cause)}`);
      }
    },
  },
});
"#;

#[test]
fn node_extra_ca_certs_trusts_the_ca_for_the_provider_and_still_reaches_the_hooks_fetch() {
    let ca = TestCa::new();
    let file = ca.pem_file().to_string_lossy().into_owned();
    for trusted in [false, true] {
        let (_model, model_front) = https_model(&ca, 1);
        let fetched = ModelServer::start(vec![status("200 OK", "", "{}")]);
        let fetched_front = TlsFront::start(&ca, address_of(&fetched.url));
        let dir = copy_fixture("providers", "agent");
        std::fs::write(dir.path().join("bot/hooks/fetcher.ts"), FETCHING_HOOK).unwrap();
        let hook_fetches = fetched_front.url("/v1/anything");
        let mut env = vec![("HOOK_FETCHES", hook_fetches.as_str())];
        if trusted {
            env.push(("NODE_EXTRA_CA_CERTS", &file));
        }
        let args = ["run", "--dir", ".", "--model", "openai-compatible:gpt-4o-mini", "--base-url"];
        let ran = run_recorded(dir.path(), &[&args[..], &[&model_front.url("/v1"), "--message", "hi"]].concat(), &env);
        let fetch: Vec<&String> = ran.record.iter().filter(|line| line.starts_with("fetch")).collect();
        if trusted {
            assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
            assert_eq!(fetch, ["fetched 200"], "{}", ran.both());
        } else {
            assert_eq!(exit_code(&ran.output), 1, "{}", ran.both());
            assert_eq!(fetch.len(), 1, "{}", ran.both());
            assert!(fetch[0].starts_with("fetch failed: ") && fetch[0].contains("certificate"), "{fetch:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// OpenTelemetry export to a collector over HTTPS.

/// How long a test waits for what a finished `run` exported (it flushed before it ended).
const ARRIVED: Duration = Duration::from_secs(5);

/// `run --message hello` (the local model) of a copy of the providers' agent, exporting to
/// `endpoint`, with `env`.
fn run_exporting(endpoint: &str, env: &[(&str, &str)]) -> (tempfile::TempDir, Ran) {
    let dir = copy_fixture("providers", "agent");
    let env = [&[("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)][..], env].concat();
    let ran = run_recorded(dir.path(), &["run", "--dir", ".", "--message", "hello"], &env);
    (dir, ran)
}

/// The signals that reached `collector` (`traces`, `metrics`, `logs`), sorted.
fn signals_received(collector: &Receiver, expected: usize) -> Vec<String> {
    let requests = collector.wait_for(|requests| requests.len() >= expected, ARRIVED);
    let mut signals: Vec<String> = requests
        .iter()
        .filter_map(|request| request["path"].as_str()?.strip_prefix("/v1/").map(str::to_owned))
        .collect();
    signals.sort();
    signals.dedup();
    signals
}

#[test]
fn export_to_a_collector_behind_a_private_ca_fails_with_one_warning_naming_the_variables() {
    let ca = TestCa::new();
    let collector = Receiver::start();
    let front = TlsFront::start(&ca, address_of(&collector.endpoint()));
    let (dir, ran) = run_exporting(&front.url(""), &[]);
    assert_eq!(exit_code(&ran.output), 0, "export never fails a run: {}", ran.both());
    assert!(collector.requests().is_empty());
    insta::assert_snapshot!(seen_lines(&warnings(&ran), &front, &ca, dir.path()));
}

/// The serve log's warnings, a line each.
fn warnings(ran: &Ran) -> String {
    ran.log().lines().filter(|line| line.contains("WARN ")).collect::<Vec<_>>().join("\n")
}

/// [`seen`] of some lines only.
fn seen_lines(lines: &str, front: &TlsFront, ca: &TestCa, project: &Path) -> String {
    Filters::new()
        .folder(ca.scratch(), "[CA]")
        .project(project)
        .literal(&format!("127.0.0.1:{}", front.port), "127.0.0.1:[PORT]")
        .pattern(r"\d+ requests failed", "[N] requests failed")
        // Which signal failed first varies from run to run.
        .pattern(r"/v1/(traces|metrics|logs)\b", "/v1/[SIGNAL]")
        .log_times()
        .apply(lines)
}

#[test]
fn otel_exporter_otlp_certificate_or_ssl_cert_file_make_the_collector_trusted() {
    let ca = TestCa::new();
    let file = ca.pem_file().to_string_lossy().into_owned();
    for variable in ["OTEL_EXPORTER_OTLP_CERTIFICATE", "SSL_CERT_FILE"] {
        let collector = Receiver::start();
        let front = TlsFront::start(&ca, address_of(&collector.endpoint()));
        let (_dir, ran) = run_exporting(&front.url(""), &[(variable, &file)]);
        assert_eq!(exit_code(&ran.output), 0, "{variable}: {}", ran.both());
        assert!(!ran.log().contains("WARN "), "{variable}: {}", ran.log());
        assert_eq!(signals_received(&collector, 3), ["logs", "metrics", "traces"], "{variable}: {}", ran.log());
    }
}

#[test]
fn a_signal_s_own_certificate_variable_trusts_for_that_signal_only() {
    let ca = TestCa::new();
    let collector = Receiver::start();
    let front = TlsFront::start(&ca, address_of(&collector.endpoint()));
    let file = ca.pem_file().to_string_lossy().into_owned();
    let (dir, ran) = run_exporting(&front.url(""), &[("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", &file)]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert_eq!(signals_received(&collector, 1), ["traces"], "{}", ran.log());
    // The other signals' warning names the shared variable, not the traces' own.
    assert!(!warnings(&ran).contains("/v1/traces"), "{}", ran.log());
    insta::assert_snapshot!(seen_lines(&warnings(&ran), &front, &ca, dir.path()));
}

#[test]
fn an_otlp_certificate_naming_a_missing_file_stops_the_run() {
    let ca = TestCa::new();
    let collector = Receiver::start();
    let front = TlsFront::start(&ca, address_of(&collector.endpoint()));
    let missing = ca.scratch().join("collector-ca.pem");
    let (dir, ran) = run_exporting(&front.url(""), &[("OTEL_EXPORTER_OTLP_CERTIFICATE", &missing.to_string_lossy())]);
    assert!(ran.stdout().is_empty() && ran.record.is_empty(), "nothing ran: {}", ran.both());
    insta::assert_snapshot!(seen(&ran, &front, &ca, dir.path()));
}

// ---------------------------------------------------------------------------------------
// `logs` and `chat`, clients of a dev server behind HTTPS.

/// `agent-sdk <args>` in `dir`, with `env`.
fn client(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let output = agent_sdk()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("AGENT_SDK_HOST")
        .env_remove("AGENT_SDK_TOKEN")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Ran { output, record: Vec::new() }
}

#[test]
fn logs_and_chat_say_which_variables_trust_a_dev_server_behind_a_private_ca() {
    let ca = TestCa::new();
    let dir = copy_fixture("dev", "basic");
    let server = DevServer::start(dir.path(), 0);
    let front = TlsFront::start(&ca, address_of(&server.url));
    let host = front.url("");
    let logs = ["logs", "--host", host.as_str(), "--token", server.token.as_str()];
    let chat = ["chat", "--url", host.as_str(), "--token", server.token.as_str(), "--message", "hi"];

    let untrusted = [client(dir.path(), &logs, &[]), client(dir.path(), &chat, &[])];
    // Neither retried: one connection each.
    assert_eq!(front.connections(), 2);
    let shown: Vec<String> = untrusted.iter().map(|ran| seen(ran, &front, &ca, dir.path())).collect();
    insta::assert_snapshot!(format!("$ agent-sdk logs --host …\n{}\n$ agent-sdk chat --url …\n{}", shown[0], shown[1]));

    // Trusted, `logs` reads the history. (`chat` is not run trusted here: the dev server
    // names its `traceUrl` `http://<Host>`, which a TLS front in front of it does not serve.)
    let file = ca.pem_file().to_string_lossy().into_owned();
    let ran = client(dir.path(), &logs, &[("SSL_CERT_FILE", &file)]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert!(ran.stdout().contains("INFO  serving dev-basic on http://127.0.0.1:"), "{}", ran.both());
}
