//! The `dev` server's `agent_sdk.http` span: one per `POST /v1/sessions/{id}/messages`, the
//! parent of the turn it runs (a client's own `traceparent` makes it a child of the
//! client's span), ended when the turn's stream ends.

use std::sync::Arc;
use std::time::SystemTime;

use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId};

use crate::telemetry::{Ended, Parent, Telemetry};

/// The route the span names (the HTTP conventions' `http.route`).
const ROUTE: &str = "/v1/sessions/{id}/messages";

pub struct RequestSpan {
    telemetry: Arc<Telemetry>,
    /// Its own place, which the turn's span is a child of.
    pub span: Parent,
    remote_parent: Option<SpanId>,
    start: SystemTime,
    session_id: String,
}

impl RequestSpan {
    /// A request for `session_id` arriving now, with the client's `traceparent` header, if
    /// any; `None` when traces are not exported.
    pub fn start(telemetry: &Arc<Telemetry>, session_id: &str, traceparent: Option<&str>) -> Option<Self> {
        if !telemetry.tracing() {
            return None;
        }
        let remote = traceparent.and_then(parse_traceparent);
        Some(Self {
            telemetry: Arc::clone(telemetry),
            span: Parent {
                trace_id: remote.map_or_else(|| telemetry.new_trace_id(), |remote| remote.trace_id),
                span_id: telemetry.new_span_id(),
            },
            remote_parent: remote.map(|remote| remote.span_id),
            start: SystemTime::now(),
            session_id: session_id.to_owned(),
        })
    }

    /// The request was answered (`status`), its stream ended; `failed`: why the turn could
    /// not be answered, if it could not.
    pub fn end(self, status: u16, failed: Option<&str>) {
        self.telemetry.end(Ended {
            name: "agent_sdk.http".to_owned(),
            kind: SpanKind::Server,
            trace_id: self.span.trace_id,
            span_id: self.span.span_id,
            parent: self.remote_parent,
            start: self.start,
            end: SystemTime::now(),
            attributes: vec![
                KeyValue::new("http.request.method", "POST"),
                KeyValue::new("http.route", ROUTE),
                KeyValue::new("url.path", format!("/v1/sessions/{}/messages", self.session_id)),
                KeyValue::new("http.response.status_code", i64::from(status)),
                KeyValue::new("session.id", self.session_id),
            ],
            status: failed.map_or(Status::Unset, |why| Status::error(why.to_owned())),
            events: Vec::new(),
            links: Vec::new(),
            scope: None,
        });
    }
}

/// `00-<32 hex>-<16 hex>-<2 hex>` (W3C Trace Context); a zero id is no parent.
pub fn parse_traceparent(header: &str) -> Option<Parent> {
    let mut parts = header.trim().split('-');
    let (version, trace, span, _flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if version.len() != 2 || version == "ff" || trace.len() != 32 || span.len() != 16 {
        return None;
    }
    let trace_id = TraceId::from_hex(trace).ok().filter(|id| *id != TraceId::INVALID)?;
    let span_id = SpanId::from_hex(span).ok().filter(|id| *id != SpanId::INVALID)?;
    Some(Parent { trace_id, span_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_read_as_w3c_writes_it() {
        let parent = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(parent.hex(), ("4bf92f3577b34da6a3ce929d0e0e4736".to_owned(), "00f067aa0ba902b7".to_owned()));
        assert_eq!(parse_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"), None);
        assert_eq!(parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"), None);
        assert_eq!(parse_traceparent("garbage"), None);
    }
}
