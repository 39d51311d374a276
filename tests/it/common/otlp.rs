//! A loopback OTLP/HTTP collector for the tests: `tests/otlp/receiver.py` decodes what an
//! exporter sends with the official OpenTelemetry protobuf definitions, a JSON line per
//! request, and this side keeps those lines and flattens them into spans, metric points and
//! log records a test can assert on.
//!
//! A recorded request (see receiver.py) is `{"method", "path", "contentType", "headers":
//! {lowercased name: value}, "body": <the Export*ServiceRequest as protobuf's JSON mapping,
//! camelCase, ids in lowercase hex, 64-bit integers as strings> | null, "error": null | why it
//! did not decode}`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

/// What the tests need installed for the receiver (run from the repository root).
pub const INSTALL: &str = "python3 -m pip install -r tests/otlp/requirements.txt";

/// Attributes as a flat map: key → the value as JSON (strings, numbers, booleans, arrays,
/// objects for key-value lists; bytes as base64 strings).
pub type Attributes = BTreeMap<String, Value>;

/// `python3 tests/otlp/receiver.py` on a free port of 127.0.0.1, killed on drop.
pub struct Receiver {
    child: Child,
    /// Held open: the receiver exits when its stdin closes, so it never outlives the test.
    _stdin: ChildStdin,
    port: u16,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Receiver {
    /// A collector that answers every request with 200 and an empty `Export*ServiceResponse`.
    pub fn start() -> Receiver {
        Receiver::spawn(&[])
    }

    /// A collector that answers every request with `status` (still decoding and recording it).
    pub fn answering(status: u16) -> Receiver {
        Receiver::spawn(&["--status", &status.to_string()])
    }

    /// A collector that records every request and never answers it.
    pub fn hanging() -> Receiver {
        Receiver::spawn(&["--hang"])
    }

    fn spawn(mode: &[&str]) -> Receiver {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("otlp").join("receiver.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .args(mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("python3 (≥ 3.11) runs {}: {error}", script.display()));
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        let _ = stdout.read_line(&mut first);
        let port = serde_json::from_str::<Value>(&first).ok().and_then(|line| line["listening"].as_u64());
        let Some(port) = port.and_then(|port| u16::try_from(port).ok()) else {
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            let status = child.wait().unwrap();
            if status.code() == Some(3) {
                panic!("python3 cannot import opentelemetry.proto; install it with `{INSTALL}`\n{stderr}");
            }
            panic!("the OTLP receiver did not start ({status}): {first}{stderr}");
        };
        // Drained so that nothing it prints can ever block it.
        let mut stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let collected = Arc::clone(&requests);
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                let request = serde_json::from_str(&line).unwrap_or_else(|_| serde_json::json!({ "unparsed": line }));
                collected.lock().unwrap().push(request);
            }
        });
        Receiver { child, _stdin: stdin, port, requests }
    }

    /// The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`: `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request recorded so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    /// The requests once `done` holds of them, or whatever has arrived by `timeout`: the test
    /// asserts on what it got, never on how long it took.
    pub fn wait_for(&self, done: impl Fn(&[Value]) -> bool, timeout: Duration) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if done(&requests) || Instant::now() >= deadline {
                return requests;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Every span received so far; see [`spans`].
    pub fn spans(&self) -> Vec<Span> {
        spans(&self.requests())
    }

    /// Every metric data point received so far; see [`metrics`].
    pub fn metrics(&self) -> Vec<MetricPoint> {
        metrics(&self.requests())
    }

    /// Every log record received so far; see [`log_records`].
    pub fn log_records(&self) -> Vec<LogRecord> {
        log_records(&self.requests())
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One span, with the resource and instrumentation scope it came under.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    pub name: String,
    /// `SPAN_KIND_INTERNAL`, `SPAN_KIND_SERVER`, `SPAN_KIND_CLIENT`, … (`SPAN_KIND_UNSPECIFIED` when unset).
    pub kind: String,
    /// Lowercase hex, as W3C `traceparent` writes it.
    pub trace_id: String,
    pub span_id: String,
    /// None for a root span.
    pub parent_span_id: Option<String>,
    pub start_time_unix_nano: u64,
    pub end_time_unix_nano: u64,
    pub attributes: Attributes,
    pub events: Vec<SpanEvent>,
    /// `STATUS_CODE_UNSET`, `STATUS_CODE_OK` or `STATUS_CODE_ERROR`.
    pub status_code: String,
    pub status_message: String,
    /// The resource's attributes (`service.name`, …).
    pub resource: Attributes,
    /// The instrumentation scope's name (`getTracer(name)`).
    pub scope: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpanEvent {
    pub name: String,
    pub time_unix_nano: u64,
    pub attributes: Attributes,
}

/// One data point of one metric, with the metric's own fields beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricPoint {
    pub name: String,
    pub description: String,
    pub unit: String,
    pub kind: MetricKind,
    /// Sums and histograms say theirs; None for gauges and summaries, or when left unspecified.
    pub temporality: Option<Temporality>,
    /// Sums only (a counter's is true, an up-down counter's false).
    pub is_monotonic: bool,
    pub attributes: Attributes,
    /// A sum's or gauge's value (`asInt` or `asDouble`).
    pub value: Option<f64>,
    /// A histogram's or summary's count and sum (None for sums and gauges).
    pub count: Option<u64>,
    pub sum: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// A histogram's buckets: `bucket_counts[i]` counts values ≤ `explicit_bounds[i]` (and above the one before).
    pub bucket_counts: Vec<u64>,
    pub explicit_bounds: Vec<f64>,
    pub start_time_unix_nano: u64,
    pub time_unix_nano: u64,
    pub resource: Attributes,
    /// The instrumentation scope's name (`getMeter(name)`).
    pub scope: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MetricKind {
    Sum,
    Gauge,
    Histogram,
    ExponentialHistogram,
    Summary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Temporality {
    Delta,
    Cumulative,
}

/// One log record, with the resource and instrumentation scope it came under.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogRecord {
    pub time_unix_nano: u64,
    pub observed_time_unix_nano: u64,
    /// 1–24 as OTLP numbers them (TRACE 1, DEBUG 5, INFO 9, WARN 13, ERROR 17, FATAL 21); 0 when unset.
    pub severity_number: u32,
    pub severity_text: String,
    /// The body as JSON, flattened as attribute values are (a string body is a JSON string).
    pub body: Value,
    pub attributes: Attributes,
    pub event_name: String,
    /// Lowercase hex; None when the record was made outside a span.
    pub trace_id: Option<String>,
    pub span_id: Option<String>,
    pub resource: Attributes,
    pub scope: String,
}

/// Every span in `requests` (those that decoded), in the order received.
pub fn spans(requests: &[Value]) -> Vec<Span> {
    under_scopes(requests, "resourceSpans", "scopeSpans", "spans", |span, resource, scope| {
        let status = &span["status"];
        vec![Span {
            name: text(&span["name"]),
            kind: text_or(&span["kind"], "SPAN_KIND_UNSPECIFIED"),
            trace_id: text(&span["traceId"]),
            span_id: text(&span["spanId"]),
            parent_span_id: span["parentSpanId"].as_str().filter(|id| !id.is_empty()).map(str::to_owned),
            start_time_unix_nano: integer(&span["startTimeUnixNano"]),
            end_time_unix_nano: integer(&span["endTimeUnixNano"]),
            attributes: attributes(&span["attributes"]),
            events: items(&span["events"])
                .iter()
                .map(|event| SpanEvent {
                    name: text(&event["name"]),
                    time_unix_nano: integer(&event["timeUnixNano"]),
                    attributes: attributes(&event["attributes"]),
                })
                .collect(),
            status_code: text_or(&status["code"], "STATUS_CODE_UNSET"),
            status_message: text(&status["message"]),
            resource: resource.clone(),
            scope: scope.to_owned(),
        }]
    })
}

/// Every data point of every metric in `requests`, in the order received.
pub fn metrics(requests: &[Value]) -> Vec<MetricPoint> {
    under_scopes(requests, "resourceMetrics", "scopeMetrics", "metrics", |metric, resource, scope| {
        let kinds = [
            ("sum", MetricKind::Sum),
            ("gauge", MetricKind::Gauge),
            ("histogram", MetricKind::Histogram),
            ("exponentialHistogram", MetricKind::ExponentialHistogram),
            ("summary", MetricKind::Summary),
        ];
        let Some((field, kind)) = kinds.into_iter().find(|(field, _)| metric.get(field).is_some()) else {
            panic!("a metric with no data of a kind OTLP defines: {metric}");
        };
        let data = &metric[field];
        let temporality = match data["aggregationTemporality"].as_str() {
            Some("AGGREGATION_TEMPORALITY_DELTA") => Some(Temporality::Delta),
            Some("AGGREGATION_TEMPORALITY_CUMULATIVE") => Some(Temporality::Cumulative),
            _ => None,
        };
        let counted = !matches!(kind, MetricKind::Sum | MetricKind::Gauge);
        items(&data["dataPoints"])
            .iter()
            .map(|point| MetricPoint {
                name: text(&metric["name"]),
                description: text(&metric["description"]),
                unit: text(&metric["unit"]),
                kind,
                temporality,
                is_monotonic: data["isMonotonic"].as_bool().unwrap_or(false),
                attributes: attributes(&point["attributes"]),
                value: number(&point["asDouble"]).or_else(|| point.get("asInt").map(|n| signed(n) as f64)),
                count: counted.then(|| integer(&point["count"])),
                // a histogram's sum is optional; a summary's is not, so unset there means 0
                sum: number(&point["sum"]).or((kind == MetricKind::Summary).then_some(0.0)),
                min: number(&point["min"]),
                max: number(&point["max"]),
                bucket_counts: items(&point["bucketCounts"]).iter().map(integer).collect(),
                explicit_bounds: items(&point["explicitBounds"]).iter().filter_map(number).collect(),
                start_time_unix_nano: integer(&point["startTimeUnixNano"]),
                time_unix_nano: integer(&point["timeUnixNano"]),
                resource: resource.clone(),
                scope: scope.to_owned(),
            })
            .collect()
    })
}

/// Every log record in `requests`, in the order received.
pub fn log_records(requests: &[Value]) -> Vec<LogRecord> {
    under_scopes(requests, "resourceLogs", "scopeLogs", "logRecords", |record, resource, scope| {
        vec![LogRecord {
            time_unix_nano: integer(&record["timeUnixNano"]),
            observed_time_unix_nano: integer(&record["observedTimeUnixNano"]),
            severity_number: severity_number(&record["severityNumber"]),
            severity_text: text(&record["severityText"]),
            body: any_value(&record["body"]),
            attributes: attributes(&record["attributes"]),
            event_name: text(&record["eventName"]),
            trace_id: record["traceId"].as_str().filter(|id| !id.is_empty()).map(str::to_owned),
            span_id: record["spanId"].as_str().filter(|id| !id.is_empty()).map(str::to_owned),
            resource: resource.clone(),
            scope: scope.to_owned(),
        }]
    })
}

/// Walks `body.<resources>[].<scopes>[].<entries>[]` of every request, calling `flatten` with
/// each entry, its resource's attributes and its scope's name.
fn under_scopes<T>(
    requests: &[Value],
    resources: &str,
    scopes: &str,
    entries: &str,
    flatten: impl Fn(&Value, &Attributes, &str) -> Vec<T>,
) -> Vec<T> {
    let mut flat = Vec::new();
    for request in requests {
        for resource in items(&request["body"][resources]) {
            let resource_attributes = attributes(&resource["resource"]["attributes"]);
            for scope in items(&resource[scopes]) {
                let scope_name = text(&scope["scope"]["name"]);
                for entry in items(&scope[entries]) {
                    flat.extend(flatten(entry, &resource_attributes, &scope_name));
                }
            }
        }
    }
    flat
}

/// A list of OTLP `KeyValue`s as a flat map.
pub fn attributes(list: &Value) -> Attributes {
    items(list).iter().map(|pair| (text(&pair["key"]), any_value(&pair["value"]))).collect()
}

/// An OTLP `AnyValue` as plain JSON: `{"intValue": "3"}` is 3, `{"arrayValue": {"values":
/// [...]}}` an array, `{"kvlistValue": …}` an object, an empty value null.
pub fn any_value(value: &Value) -> Value {
    if let Some(int) = value.get("intValue") {
        return Value::from(signed(int));
    }
    if let Some(array) = value.get("arrayValue") {
        return Value::Array(items(&array["values"]).iter().map(any_value).collect());
    }
    if let Some(list) = value.get("kvlistValue") {
        return Value::Object(attributes(&list["values"]).into_iter().collect());
    }
    ["stringValue", "boolValue", "doubleValue", "bytesValue"]
        .iter()
        .find_map(|field| value.get(field).cloned())
        .unwrap_or(Value::Null)
}

/// `SEVERITY_NUMBER_WARN2` → 14: each level has four numbers, TRACE from 1.
fn severity_number(name: &Value) -> u32 {
    const LEVELS: [&str; 6] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];
    let Some(level) = name.as_str().and_then(|name| name.strip_prefix("SEVERITY_NUMBER_")) else {
        return name.as_u64().map_or(0, |n| n as u32);
    };
    let digits = level.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let word = &level[..level.len() - digits.len()];
    let Some(index) = LEVELS.iter().position(|known| *known == word) else { return 0 };
    index as u32 * 4 + digits.parse::<u32>().unwrap_or(1)
}

fn items(list: &Value) -> &[Value] {
    list.as_array().map_or(&[], Vec::as_slice)
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

fn text_or(value: &Value, unset: &str) -> String {
    value.as_str().unwrap_or(unset).to_owned()
}

/// A 64-bit integer as protobuf's JSON mapping writes it (a string), or a number; 0 when absent.
fn integer(value: &Value) -> u64 {
    value.as_str().and_then(|n| n.parse().ok()).or_else(|| value.as_u64()).unwrap_or(0)
}

/// The same for a signed one (a counter's `asInt` may be negative).
fn signed(value: &Value) -> i64 {
    value.as_str().and_then(|n| n.parse().ok()).or_else(|| value.as_i64()).unwrap_or(0)
}

fn number(value: &Value) -> Option<f64> {
    value.as_f64().or_else(|| value.as_str().and_then(|n| n.parse().ok()))
}
