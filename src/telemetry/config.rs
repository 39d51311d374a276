//! What the `OTEL_*` variables ask for (the shell's, else the `.env` files'): whether each
//! signal is exported and where, in which encoding, with which headers, timeout and
//! temporality, under which resource. Nothing is exported without an endpoint.

use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry_otlp::Protocol;
use opentelemetry_sdk::metrics::Temporality;

/// The three signals, each with its own `OTEL_EXPORTER_OTLP_<SIGNAL>_*` variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Traces,
    Metrics,
    Logs,
}

impl Signal {
    pub const ALL: [Signal; 3] = [Signal::Traces, Signal::Metrics, Signal::Logs];

    /// `traces`, as in `/v1/traces`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Traces => "traces",
            Signal::Metrics => "metrics",
            Signal::Logs => "logs",
        }
    }

    /// `TRACES`, as in `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`.
    fn upper(self) -> &'static str {
        match self {
            Signal::Traces => "TRACES",
            Signal::Metrics => "METRICS",
            Signal::Logs => "LOGS",
        }
    }

    /// `OTEL_EXPORTER_OTLP_TRACES_<what>`, else `OTEL_EXPORTER_OTLP_<what>`.
    fn variable(self, what: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        lookup(&format!("OTEL_EXPORTER_OTLP_{}_{what}", self.upper()))
            .or_else(|| lookup(&format!("OTEL_EXPORTER_OTLP_{what}")))
    }

    /// The variable that names this signal's CA file, and what it names: its own
    /// (`OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`) when set, else `OTEL_EXPORTER_OTLP_CERTIFICATE`
    /// (`None` when neither is set).
    pub fn certificate(self, lookup: &dyn Fn(&str) -> Option<String>) -> (String, Option<String>) {
        let own = format!("OTEL_EXPORTER_OTLP_{}_CERTIFICATE", self.upper());
        match lookup(&own) {
            Some(path) => (own, Some(path)),
            None => ("OTEL_EXPORTER_OTLP_CERTIFICATE".to_owned(), lookup("OTEL_EXPORTER_OTLP_CERTIFICATE")),
        }
    }

    /// The headers to send with this signal's next export, read now (they are re-read on
    /// each export): `k=v` pairs, comma-separated, values URL-encoded.
    pub fn headers(self, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
        self.variable("HEADERS", lookup).map(|text| parse_pairs(&text)).unwrap_or_default()
    }
}

/// The timeout of one export request when `OTEL_EXPORTER_OTLP_TIMEOUT` says none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// One signal's exporter.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalExport {
    pub signal: Signal,
    /// The URL requests go to: a per-signal endpoint as written, else the base with
    /// `/v1/<signal>` appended.
    pub url: String,
    pub protocol: Protocol,
    pub timeout: Duration,
}

/// What to export, decided once at start.
#[derive(Debug, Clone)]
pub struct ExportConfig {
    /// The signals exported (each has an endpoint and is not turned off).
    pub signals: Vec<SignalExport>,
    pub temporality: Temporality,
    /// The resource: `service.name` first, then `OTEL_RESOURCE_ATTRIBUTES`'.
    pub resource: Vec<KeyValue>,
    /// What the variables ask for that is not done (grpc, an unknown protocol or
    /// temporality), each a serve-log warning.
    pub warnings: Vec<String>,
}

impl ExportConfig {
    /// What the variables `lookup` reads ask for; `None`: nothing is exported (no endpoint,
    /// or `OTEL_SDK_DISABLED=true`). `agent` is the default `service.name`.
    pub fn from_env(agent: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<ExportConfig> {
        if lookup("OTEL_SDK_DISABLED").is_some_and(|value| value.trim().eq_ignore_ascii_case("true")) {
            return None;
        }
        let mut warnings = Vec::new();
        let signals: Vec<SignalExport> = Signal::ALL
            .into_iter()
            .filter(|signal| {
                let exporter = lookup(&format!("OTEL_{}_EXPORTER", signal.upper()));
                !exporter.is_some_and(|value| value.trim().eq_ignore_ascii_case("none"))
            })
            .filter_map(|signal| {
                let url = url_of(signal, lookup)?;
                if let Some(warning) = without_scheme(signal, &url, lookup) {
                    warnings.push(warning);
                    return None;
                }
                let protocol = protocol_of(signal, lookup, &mut warnings);
                let timeout = signal
                    .variable("TIMEOUT", lookup)
                    .and_then(|text| text.trim().parse::<u64>().ok())
                    .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
                Some(SignalExport { signal, url, protocol, timeout })
            })
            .collect();
        warnings.dedup();
        if signals.is_empty() {
            // Every endpoint was refused: that is said, and nothing is exported.
            return (!warnings.is_empty()).then(|| ExportConfig {
                signals,
                temporality: Temporality::Delta,
                resource: Vec::new(),
                warnings,
            });
        }
        let temporality = temporality_of(lookup, &mut warnings);
        let resource = resource_of(agent, lookup);
        warnings.dedup();
        Some(ExportConfig { signals, temporality, resource, warnings })
    }

    /// The exporter of `signal`, if it is exported.
    pub fn signal(&self, signal: Signal) -> Option<&SignalExport> {
        self.signals.iter().find(|export| export.signal == signal)
    }

    /// Whether anything is exported (not when every endpoint was refused).
    pub fn exports(&self) -> bool {
        !self.signals.is_empty()
    }

    /// The serve-log line that says where telemetry goes (never a header); `run` and `dev`
    /// say it only when something is exported.
    pub fn summary(&self) -> String {
        if !self.exports() {
            return "OpenTelemetry: exporting nothing".to_owned();
        }
        let each: Vec<String> =
            self.signals.iter().map(|export| format!("{} to {}", export.signal.name(), export.url)).collect();
        let protocol = match self.signals[0].protocol {
            Protocol::HttpJson => "http/json",
            _ => "http/protobuf",
        };
        self.without_credentials(&format!("OpenTelemetry: exporting {} ({protocol})", each.join(", ")))
    }

    /// `text` with the user name and password of every URL in it hidden, the endpoints'
    /// own included however they were written (see [`crate::text::uri::without_credentials_of`]).
    pub fn without_credentials(&self, text: &str) -> String {
        let urls: Vec<&str> = self.signals.iter().map(|export| export.url.as_str()).collect();
        crate::text::uri::without_credentials_of(text, &urls)
    }
}

/// The warning for an endpoint with no scheme (`127.0.0.1:4318`), which no exporter can
/// send to: the signal is not exported, as if its collector were down. Said once for the
/// variable every signal read it from.
fn without_scheme(signal: Signal, url: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if url.contains("://") {
        return None;
    }
    let own = format!("OTEL_EXPORTER_OTLP_{}_ENDPOINT", signal.upper());
    let (variable, written) = match lookup(&own) {
        Some(written) => (own, written),
        None => ("OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(), lookup("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_default()),
    };
    let written = crate::text::untrusted::escape(written.trim());
    let text =
        format!("OpenTelemetry: {variable}={written} needs a scheme: http://{written}; nothing is exported to it");
    Some(crate::text::uri::without_credentials_of(&text, &[&written]))
}

/// The URL a signal's requests go to.
fn url_of(signal: Signal, lookup: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(url) = lookup(&format!("OTEL_EXPORTER_OTLP_{}_ENDPOINT", signal.upper())) {
        return Some(url.trim().to_owned());
    }
    let base = lookup("OTEL_EXPORTER_OTLP_ENDPOINT")?;
    Some(format!("{}/v1/{}", base.trim().trim_end_matches('/'), signal.name()))
}

fn protocol_of(signal: Signal, lookup: &dyn Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> Protocol {
    let Some(named) = signal.variable("PROTOCOL", lookup) else {
        return Protocol::HttpBinary;
    };
    match named.trim().to_ascii_lowercase().as_str() {
        "http/protobuf" => Protocol::HttpBinary,
        "http/json" => Protocol::HttpJson,
        "grpc" => {
            warnings.push(
                "OpenTelemetry: the grpc protocol is not supported; exporting over http/protobuf instead \
                 (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf says so)"
                    .to_owned(),
            );
            Protocol::HttpBinary
        }
        other => {
            warnings.push(format!(
                "OpenTelemetry: unknown protocol `{}` (http/protobuf or http/json); exporting over http/protobuf",
                crate::text::untrusted::escape(other)
            ));
            Protocol::HttpBinary
        }
    }
}

/// Delta unless `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` says otherwise.
fn temporality_of(lookup: &dyn Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> Temporality {
    let Some(named) = lookup("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE") else {
        return Temporality::Delta;
    };
    match named.trim().to_ascii_lowercase().as_str() {
        "delta" => Temporality::Delta,
        "cumulative" => Temporality::Cumulative,
        "lowmemory" => Temporality::LowMemory,
        other => {
            warnings.push(format!(
                "OpenTelemetry: unknown metrics temporality `{}` (delta, cumulative or lowmemory); using delta",
                crate::text::untrusted::escape(other)
            ));
            Temporality::Delta
        }
    }
}

/// `service.name` (`OTEL_SERVICE_NAME`, else `OTEL_RESOURCE_ATTRIBUTES`', else the agent's
/// name), then the other resource attributes in their order.
fn resource_of(agent: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<KeyValue> {
    let attributes = lookup("OTEL_RESOURCE_ATTRIBUTES").map(|text| parse_pairs(&text)).unwrap_or_default();
    let service = lookup("OTEL_SERVICE_NAME")
        .map(|name| name.trim().to_owned())
        .or_else(|| attributes.iter().find(|(key, _)| key == "service.name").map(|(_, value)| value.clone()))
        .unwrap_or_else(|| agent.to_owned());
    let mut resource = vec![KeyValue::new("service.name", service)];
    resource.extend(
        attributes.into_iter().filter(|(key, _)| key != "service.name").map(|(key, value)| KeyValue::new(key, value)),
    );
    resource.push(KeyValue::new("telemetry.sdk.name", "agent-sdk"));
    resource.push(KeyValue::new("telemetry.sdk.language", "rust"));
    resource.push(KeyValue::new("telemetry.sdk.version", env!("CARGO_PKG_VERSION")));
    resource
}

/// `k1=v1,k2=v2` with URL-encoded values (W3C baggage-like, as the OpenTelemetry spec
/// writes headers and resource attributes); a pair without `=` or with an empty key is
/// left out.
fn parse_pairs(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            let key = key.trim();
            let value = percent_encoding::percent_decode_str(value.trim()).decode_utf8_lossy().into_owned();
            (!key.is_empty()).then(|| (key.to_owned(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Option<ExportConfig> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ExportConfig::from_env("acme-bot", &|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn nothing_is_exported_without_an_endpoint_or_when_disabled() {
        assert!(config(&[]).is_none());
        assert!(config(&[("OTEL_SERVICE_NAME", "x")]).is_none());
        assert!(config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"), ("OTEL_SDK_DISABLED", "TRUE")]).is_none());
    }

    #[test]
    fn the_base_endpoint_gets_the_signal_s_path_and_a_signal_s_own_is_used_as_written() {
        let config = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m:9090/otlp"),
            ("OTEL_LOGS_EXPORTER", "none"),
        ])
        .unwrap();
        let urls: Vec<&str> = config.signals.iter().map(|export| export.url.as_str()).collect();
        assert_eq!(urls, ["http://c:4318/v1/traces", "http://m:9090/otlp"]);
        assert_eq!(config.temporality, Temporality::Delta);
        assert_eq!(config.signals[0].timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn grpc_falls_back_with_a_warning_and_json_is_taken() {
        let grpc =
            config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]).unwrap();
        assert!(grpc.signals.iter().all(|export| export.protocol == Protocol::HttpBinary));
        assert_eq!(grpc.warnings.len(), 1, "{:?}", grpc.warnings);
        assert!(grpc.warnings[0].contains("grpc protocol is not supported"));
        let json = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "1500"),
            ("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "Cumulative"),
        ])
        .unwrap();
        assert!(json.signals.iter().all(|export| export.protocol == Protocol::HttpJson));
        assert_eq!(json.signals[0].timeout, Duration::from_millis(1500));
        assert_eq!(json.temporality, Temporality::Cumulative);
        assert!(json.warnings.is_empty());
    }

    #[test]
    fn the_resource_names_the_agent_unless_the_variables_name_the_service() {
        let service = |config: ExportConfig| config.resource[0].value.as_str().into_owned();
        assert_eq!(service(config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c")]).unwrap()), "acme-bot");
        let named = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
            ("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs,deployment.environment=dev%20eu"),
        ])
        .unwrap();
        assert_eq!(named.resource[1], KeyValue::new("deployment.environment", "dev eu"));
        assert_eq!(service(named), "from-attrs");
        let both = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
            ("OTEL_SERVICE_NAME", "billing"),
            ("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs"),
        ])
        .unwrap();
        assert_eq!(service(both), "billing");
    }

    #[test]
    fn a_signal_s_own_certificate_wins() {
        let vars =
            [("OTEL_EXPORTER_OTLP_CERTIFICATE", "/all.pem"), ("OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE", "/logs.pem")];
        let lookup = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned());
        assert_eq!(
            Signal::Logs.certificate(&lookup),
            ("OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE".to_owned(), Some("/logs.pem".to_owned()))
        );
        assert_eq!(
            Signal::Traces.certificate(&lookup),
            ("OTEL_EXPORTER_OTLP_CERTIFICATE".to_owned(), Some("/all.pem".to_owned()))
        );
        assert_eq!(Signal::Metrics.certificate(&|_| None), ("OTEL_EXPORTER_OTLP_CERTIFICATE".to_owned(), None));
    }

    #[test]
    fn headers_are_url_decoded_and_a_signal_s_own_win() {
        let vars = [
            ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20abc,x-team = core ,broken"),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-only=logs"),
        ];
        let lookup = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned());
        assert_eq!(
            Signal::Traces.headers(&lookup),
            [("authorization".to_owned(), "Bearer abc".to_owned()), ("x-team".to_owned(), "core".to_owned())]
        );
        assert_eq!(Signal::Logs.headers(&lookup), [("x-only".to_owned(), "logs".to_owned())]);
    }

    #[test]
    fn an_endpoint_without_a_scheme_is_said_once_and_not_exported_to() {
        let none = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "agent:s3cret@127.0.0.1:4318")]).unwrap();
        assert!(!none.exports());
        assert_eq!(
            none.warnings,
            [
                "OpenTelemetry: OTEL_EXPORTER_OTLP_ENDPOINT=…@127.0.0.1:4318 needs a scheme: http://…@127.0.0.1:4318; nothing is exported to it"
            ]
        );
        let some = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "c:4318/v1/logs"),
        ])
        .unwrap();
        let urls: Vec<&str> = some.signals.iter().map(|export| export.url.as_str()).collect();
        assert_eq!(urls, ["http://c:4318/v1/traces", "http://c:4318/v1/metrics"]);
        assert_eq!(
            some.warnings,
            [
                "OpenTelemetry: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=c:4318/v1/logs needs a scheme: http://c:4318/v1/logs; nothing is exported to it"
            ]
        );
    }

    #[test]
    fn a_message_shows_no_endpoint_s_credentials_even_quoted_without_a_scheme() {
        let config = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://agent:s3cret@c:4318")]).unwrap();
        assert_eq!(
            config.without_credentials("invalid endpoint 'agent:s3cret@c:4318/v1/traces'"),
            "invalid endpoint '…@c:4318/v1/traces'"
        );
        assert_eq!(
            config.summary(),
            "OpenTelemetry: exporting traces to http://…@c:4318/v1/traces, metrics to http://…@c:4318/v1/metrics, logs to http://…@c:4318/v1/logs (http/protobuf)"
        );
    }
}
