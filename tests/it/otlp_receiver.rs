//! The tests' OTLP collector (`common::otlp`) itself: what an exporter posts comes back as
//! flat spans, metric points and log records, and its failing modes fail as they say.
//! Decoding proper (protobuf, gzip, OTLP/JSON's hex ids, bad bodies) is checked by
//! `tests/otlp/selftest.py`; this checks the Rust side's flattening, on OTLP/JSON requests.

use std::time::Duration;

use crate::common::otlp::{Attributes, LogRecord, MetricKind, MetricPoint, Receiver, Span, SpanEvent, Temporality};
use serde_json::{Value, json};

const TRACE: &str = "5b8efff798038103d269b633813fc60c";

fn post(receiver: &Receiver, path: &str, body: Value) -> reqwest::Result<reqwest::blocking::Response> {
    reqwest::blocking::Client::new()
        .post(format!("{}{path}", receiver.endpoint()))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer secret")
        .timeout(Duration::from_millis(500))
        .body(body.to_string())
        .send()
}

fn resource() -> Value {
    json!({ "attributes": [{ "key": "service.name", "value": { "stringValue": "acme-bot" } }] })
}

fn attributes(pairs: Value) -> Attributes {
    pairs.as_object().unwrap().clone().into_iter().collect()
}

#[test]
fn what_an_exporter_posts_comes_back_flat_and_the_failing_modes_fail() {
    let receiver = Receiver::start();
    let traces = json!({ "resourceSpans": [{ "resource": resource(), "scopeSpans": [{
        "scope": { "name": "agent-sdk" },
        "spans": [
            { "traceId": TRACE, "spanId": "eee19b7ec3c1b174", "name": "agent_sdk.turn", "kind": 1,
              "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000090000000" },
            { "traceId": TRACE, "spanId": "0af7651916cd43dd", "parentSpanId": "eee19b7ec3c1b174",
              "name": "hook usage", "kind": "SPAN_KIND_INTERNAL",
              "startTimeUnixNano": "1700000000010000000", "endTimeUnixNano": "1700000000020000000",
              "attributes": [
                  { "key": "text", "value": { "stringValue": "hi" } },
                  { "key": "index", "value": { "intValue": "2" } },
                  { "key": "ratio", "value": { "doubleValue": 0.5 } },
                  { "key": "ok", "value": { "boolValue": false } },
                  { "key": "tags", "value": { "arrayValue": { "values": [{ "stringValue": "a" }, { "intValue": 7 }] } } },
                  { "key": "nested", "value": { "kvlistValue": { "values": [{ "key": "k", "value": { "stringValue": "v" } }] } } },
                  { "key": "empty", "value": {} },
              ],
              "events": [{ "name": "exception", "timeUnixNano": "1700000000015000000",
                           "attributes": [{ "key": "exception.message", "value": { "stringValue": "boom" } }] }],
              "status": { "code": 2, "message": "boom" } },
        ] }] }] });
    let metrics = json!({ "resourceMetrics": [{ "resource": resource(), "scopeMetrics": [{
        "scope": { "name": "acme" },
        "metrics": [
            { "name": "acme.tokens.input", "unit": "{token}", "sum": { "aggregationTemporality": 1, "isMonotonic": true,
              "dataPoints": [{ "asInt": "412", "timeUnixNano": "1700000000100000000",
                               "attributes": [{ "key": "channel", "value": { "stringValue": "slack" } }] }] } },
            { "name": "acme.queue", "sum": { "aggregationTemporality": "AGGREGATION_TEMPORALITY_CUMULATIVE",
              "dataPoints": [{ "asInt": "-3" }] } },
            { "name": "acme.sessions.open", "gauge": { "dataPoints": [{ "asDouble": 2.5 }] } },
            { "name": "acme.turn.duration", "unit": "ms", "histogram": { "aggregationTemporality": 1, "dataPoints": [
                { "count": "2", "sum": 200, "min": 80, "max": 120, "bucketCounts": ["0", "2", "0"], "explicitBounds": [50, 150] },
            ] } },
        ] }] }] });
    let logs = json!({ "resourceLogs": [{ "resource": resource(), "scopeLogs": [{
        "scope": { "name": "agent-sdk" },
        "logRecords": [{ "timeUnixNano": "1700000000030000000", "severityNumber": 14, "severityText": "WARN",
                         "body": { "stringValue": "hook usage threw" }, "traceId": TRACE, "spanId": "0af7651916cd43dd",
                         "attributes": [{ "key": "hook", "value": { "stringValue": "usage" } }] }] }] }] });
    for (path, body) in [("/v1/traces", traces), ("/v1/metrics", metrics), ("/v1/logs", logs)] {
        let response = post(&receiver, path, body).unwrap();
        assert_eq!(response.status(), 200, "{path}: {}", response.text().unwrap());
    }
    assert_eq!(post(&receiver, "/v1/trace", json!({})).unwrap().status(), 404);
    let requests = receiver.wait_for(|requests| requests.len() == 4, Duration::from_secs(10));
    assert_eq!(requests.len(), 4, "{requests:#?}");
    assert_eq!(requests[0]["headers"]["authorization"], "Bearer secret");
    assert_eq!(requests[3]["path"], "/v1/trace");
    assert!(requests[3]["error"].as_str().unwrap().contains("no OTLP signal"), "{}", requests[3]);

    let service = attributes(json!({ "service.name": "acme-bot" }));
    let turn = Span {
        name: "agent_sdk.turn".into(),
        kind: "SPAN_KIND_INTERNAL".into(),
        trace_id: TRACE.into(),
        span_id: "eee19b7ec3c1b174".into(),
        parent_span_id: None,
        start_time_unix_nano: 1_700_000_000_000_000_000,
        end_time_unix_nano: 1_700_000_000_090_000_000,
        attributes: Attributes::new(),
        events: vec![],
        status_code: "STATUS_CODE_UNSET".into(),
        status_message: String::new(),
        resource: service.clone(),
        scope: "agent-sdk".into(),
    };
    let hook = Span {
        name: "hook usage".into(),
        span_id: "0af7651916cd43dd".into(),
        parent_span_id: Some("eee19b7ec3c1b174".into()),
        start_time_unix_nano: 1_700_000_000_010_000_000,
        end_time_unix_nano: 1_700_000_000_020_000_000,
        attributes: attributes(json!({ "text": "hi", "index": 2, "ratio": 0.5, "ok": false, "tags": ["a", 7],
                                       "nested": { "k": "v" }, "empty": null })),
        events: vec![SpanEvent {
            name: "exception".into(),
            time_unix_nano: 1_700_000_000_015_000_000,
            attributes: attributes(json!({ "exception.message": "boom" })),
        }],
        status_code: "STATUS_CODE_ERROR".into(),
        status_message: "boom".into(),
        ..turn.clone()
    };
    assert_eq!(receiver.spans(), vec![turn, hook]);

    let point = |name: &str, kind, temporality| MetricPoint {
        name: name.into(),
        description: String::new(),
        unit: String::new(),
        kind,
        temporality,
        is_monotonic: false,
        attributes: Attributes::new(),
        value: None,
        count: None,
        sum: None,
        min: None,
        max: None,
        bucket_counts: vec![],
        explicit_bounds: vec![],
        start_time_unix_nano: 0,
        time_unix_nano: 0,
        resource: service.clone(),
        scope: "acme".into(),
    };
    assert_eq!(
        receiver.metrics(),
        vec![
            MetricPoint {
                unit: "{token}".into(),
                is_monotonic: true,
                attributes: attributes(json!({ "channel": "slack" })),
                value: Some(412.0),
                time_unix_nano: 1_700_000_000_100_000_000,
                ..point("acme.tokens.input", MetricKind::Sum, Some(Temporality::Delta))
            },
            MetricPoint { value: Some(-3.0), ..point("acme.queue", MetricKind::Sum, Some(Temporality::Cumulative)) },
            MetricPoint { value: Some(2.5), ..point("acme.sessions.open", MetricKind::Gauge, None) },
            MetricPoint {
                unit: "ms".into(),
                count: Some(2),
                sum: Some(200.0),
                min: Some(80.0),
                max: Some(120.0),
                bucket_counts: vec![0, 2, 0],
                explicit_bounds: vec![50.0, 150.0],
                ..point("acme.turn.duration", MetricKind::Histogram, Some(Temporality::Delta))
            },
        ]
    );

    assert_eq!(
        receiver.log_records(),
        vec![LogRecord {
            time_unix_nano: 1_700_000_000_030_000_000,
            observed_time_unix_nano: 0,
            severity_number: 14,
            severity_text: "WARN".into(),
            body: json!("hook usage threw"),
            attributes: attributes(json!({ "hook": "usage" })),
            event_name: String::new(),
            trace_id: Some(TRACE.into()),
            span_id: Some("0af7651916cd43dd".into()),
            resource: service,
            scope: "agent-sdk".into(),
        }]
    );

    let failing = Receiver::answering(500);
    assert_eq!(post(&failing, "/v1/logs", json!({})).unwrap().status(), 500);
    assert_eq!(failing.wait_for(|requests| !requests.is_empty(), Duration::from_secs(10))[0]["body"], json!({}));

    let hanging = Receiver::hanging();
    let unanswered = post(&hanging, "/v1/logs", json!({})).unwrap_err();
    assert!(unanswered.is_timeout(), "{unanswered}");
    assert_eq!(hanging.wait_for(|requests| !requests.is_empty(), Duration::from_secs(10)).len(), 1);
}
