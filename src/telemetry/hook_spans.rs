//! What the hook runtime says of traced work, as spans: each handler of a traced turn's
//! event (`hook <name>`, a child of the turn's span, with its outcome and handler metrics)
//! and each span a hook ended through `@opentelemetry/api` (with its own ids, parent,
//! times, kind, status, events and links, under its tracer's scope).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{Event, Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};

use crate::protocol::{HandlerEnded, HandlerOutcome, Otel};
use crate::state::envelope::Envelope;
use crate::telemetry::{Ended, Parent, Telemetry, attributes_of};

/// Milliseconds since the Unix epoch (as Node's clock gives them) as a time.
fn time_of(epoch_ms: f64) -> SystemTime {
    if epoch_ms.is_finite() && epoch_ms > 0.0 {
        UNIX_EPOCH + Duration::from_secs_f64(epoch_ms / 1000.0)
    } else {
        SystemTime::now()
    }
}

/// A handler of `event` (a traced turn's, under `parent`) ended.
pub fn handler_ended(telemetry: &Telemetry, parent: Parent, event: &Envelope, hook: &str, ended: &HandlerEnded) {
    let outcome = match ended.outcome {
        HandlerOutcome::Ok => "ok",
        HandlerOutcome::Threw => "threw",
        HandlerOutcome::TimedOut => "timed_out",
    };
    if let Some(instruments) = telemetry.instruments() {
        let labels = [
            KeyValue::new("agent_sdk.hook.name", hook.to_owned()),
            KeyValue::new("agent_sdk.event.type", event.event_type.clone()),
        ];
        instruments.handler_duration.record(ended.ms.max(0.0) / 1000.0, &labels);
        let mut labels = labels.to_vec();
        labels.push(KeyValue::new("agent_sdk.hook.outcome", outcome));
        instruments.handler_calls.add(1, &labels);
    }
    let Some(Ok(span_id)) = ended.span_id.as_deref().map(SpanId::from_hex) else { return };
    let start = time_of(ended.start);
    let end = start + Duration::from_secs_f64(ended.ms.max(0.0) / 1000.0);
    let mut attributes = vec![
        KeyValue::new("agent_sdk.hook.name", hook.to_owned()),
        KeyValue::new("agent_sdk.hook.handler", ended.handler.clone()),
        KeyValue::new("agent_sdk.hook.outcome", outcome),
        KeyValue::new("agent_sdk.event.type", event.event_type.clone()),
        KeyValue::new("agent_sdk.event.index", event.index as i64),
        KeyValue::new("session.id", event.session_id.clone()),
    ];
    if let Some(turn_id) = &event.turn_id {
        attributes.push(KeyValue::new("agent_sdk.turn.id", turn_id.clone()));
    }
    let (status, events) = match (ended.outcome, &ended.error) {
        (HandlerOutcome::Ok, _) => (Status::Unset, Vec::new()),
        (failed, error) => {
            let message = error.clone().unwrap_or_else(|| outcome.to_owned());
            let kind = if failed == HandlerOutcome::TimedOut { "TimeoutError" } else { "Error" };
            attributes.push(KeyValue::new("error.type", kind));
            let exception = Event::new(
                "exception",
                end,
                vec![KeyValue::new("exception.type", kind), KeyValue::new("exception.message", message.clone())],
                0,
            );
            (Status::error(message), vec![exception])
        }
    };
    telemetry.end(Ended {
        name: format!("hook {hook}"),
        kind: SpanKind::Internal,
        trace_id: parent.trace_id,
        span_id,
        parent: Some(parent.span_id),
        start,
        end,
        attributes,
        status,
        events,
        links: Vec::new(),
        scope: None,
    });
}

/// A span a hook ended through `@opentelemetry/api`.
pub fn hook_span(telemetry: &Telemetry, span: &Otel) {
    let ids = span.trace_id.as_deref().zip(span.span_id.as_deref());
    let Some((Ok(trace_id), Ok(span_id))) = ids.map(|(trace, span)| (TraceId::from_hex(trace), SpanId::from_hex(span)))
    else {
        return;
    };
    let start = time_of(span.start.unwrap_or_default());
    let end = start
        + Duration::from_secs_f64(span.value.as_f64().filter(|ms| ms.is_finite()).unwrap_or(0.0).max(0.0) / 1000.0);
    let mut attributes = attributes_of(&span.attrs);
    if let Some(hook) = &span.hook {
        attributes.push(KeyValue::new("agent_sdk.hook.name", hook.clone()));
    }
    let status = match &span.status {
        Some(status) if status.code == 1 => Status::Ok,
        Some(status) if status.code == 2 => {
            Status::error(status.message.clone().or_else(|| span.error.clone()).unwrap_or_default())
        }
        _ => Status::Unset,
    };
    let kind = match span.span_kind {
        Some(1) => SpanKind::Server,
        Some(2) => SpanKind::Client,
        Some(3) => SpanKind::Producer,
        Some(4) => SpanKind::Consumer,
        _ => SpanKind::Internal,
    };
    let events = span
        .events
        .iter()
        .map(|event| Event::new(event.name.clone(), time_of(event.time), attributes_of(&event.attrs), 0))
        .collect();
    let links = span
        .links
        .iter()
        .filter_map(|link| {
            let context = SpanContext::new(
                TraceId::from_hex(&link.trace_id).ok()?,
                SpanId::from_hex(&link.span_id).ok()?,
                TraceFlags::SAMPLED,
                false,
                TraceState::NONE,
            );
            Some(Link::new(context, attributes_of(&link.attrs), 0))
        })
        .collect();
    let parent = span.parent_span_id.as_deref().and_then(|id| SpanId::from_hex(id).ok());
    telemetry.end(Ended {
        name: span.name.clone(),
        kind,
        trace_id,
        span_id,
        parent,
        start,
        end,
        attributes,
        status,
        events,
        links,
        scope: span.scope.as_ref().map(|scope| InstrumentationScope::builder(scope.clone()).build()),
    });
}
