//! The metric instruments export records into: agent-sdk's own (GenAI token usage and
//! operation duration, cost, turns, tool calls, hook handler outcomes and durations), and
//! one SDK instrument per instrument a hook made (its meter's scope, name, kind and unit),
//! made when its first measurement arrives.

use std::collections::HashMap;
use std::sync::Mutex;

use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter, MeterProvider as _, UpDownCounter};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value as OtelValue};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use serde_json::Value;

use crate::protocol::{Otel, OtelKind};

/// The GenAI semantic conventions' advised buckets for token counts.
const TOKEN_BUCKETS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0,
    67108864.0,
];
/// ... and for durations in seconds.
const SECONDS_BUCKETS: [f64; 14] =
    [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/// The scope of `ctx.host.otel`'s instruments.
const CTX_SCOPE: &str = "ctx.host.otel";

enum HookInstrument {
    Counter(Counter<f64>),
    UpDown(UpDownCounter<f64>),
    Histogram(Histogram<f64>),
    Gauge(Gauge<f64>),
}

pub struct Instruments {
    provider: SdkMeterProvider,
    pub token_usage: Histogram<f64>,
    pub operation_duration: Histogram<f64>,
    pub cost: Counter<f64>,
    pub turns: Counter<u64>,
    pub tool_calls: Counter<u64>,
    pub handler_calls: Counter<u64>,
    pub handler_duration: Histogram<f64>,
    hooks: Mutex<HashMap<(String, String, u8), HookInstrument>>,
    meters: Mutex<HashMap<String, Meter>>,
}

impl Instruments {
    pub fn new(provider: &SdkMeterProvider) -> Self {
        let scope = InstrumentationScope::builder(super::SCOPE).with_version(env!("CARGO_PKG_VERSION")).build();
        let meter = provider.meter_with_scope(scope);
        Self {
            provider: provider.clone(),
            token_usage: meter
                .f64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens used by each turn's model, by gen_ai.token.type")
                .with_boundaries(TOKEN_BUCKETS.to_vec())
                .build(),
            operation_duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("How long each model request took")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            cost: meter.f64_counter("agent_sdk.turn.cost").with_unit("USD").with_description("What turns cost").build(),
            turns: meter
                .u64_counter("agent_sdk.turns")
                .with_unit("{turn}")
                .with_description("Turns, by status")
                .build(),
            tool_calls: meter
                .u64_counter("agent_sdk.tool.calls")
                .with_unit("{call}")
                .with_description("Tool calls, by tool and whether they failed")
                .build(),
            handler_calls: meter
                .u64_counter("agent_sdk.hook.handler.calls")
                .with_unit("{call}")
                .with_description("Hook handler runs, by hook, event type and outcome (ok, threw, timed_out)")
                .build(),
            handler_duration: meter
                .f64_histogram("agent_sdk.hook.handler.duration")
                .with_unit("s")
                .with_description("How long hook handlers ran")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            hooks: Mutex::new(HashMap::new()),
            meters: Mutex::new(HashMap::new()),
        }
    }

    /// One measurement a hook made (through `@opentelemetry/api` or `ctx.host.otel`).
    pub fn record(&self, otel: &Otel) {
        let (scope, unit) = (otel.scope.as_deref(), otel.unit.as_deref());
        let Some(value) = otel.value.as_f64().filter(|value| value.is_finite()) else { return };
        let kind = match otel.kind {
            OtelKind::Counter => 0,
            OtelKind::UpDown => 1,
            OtelKind::Histogram => 2,
            OtelKind::Gauge => 3,
            _ => return,
        };
        let scope = scope.unwrap_or(CTX_SCOPE);
        let attributes = attributes_of(&otel.attrs);
        let mut hooks = self.hooks.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (scope.to_owned(), otel.name.clone(), kind);
        let instrument = hooks.entry(key).or_insert_with(|| {
            let meter = self.meter(scope);
            let name = otel.name.clone();
            let unit = unit.unwrap_or_default().to_owned();
            match kind {
                0 => HookInstrument::Counter(meter.f64_counter(name).with_unit(unit).build()),
                1 => HookInstrument::UpDown(meter.f64_up_down_counter(name).with_unit(unit).build()),
                2 => HookInstrument::Histogram(meter.f64_histogram(name).with_unit(unit).build()),
                _ => HookInstrument::Gauge(meter.f64_gauge(name).with_unit(unit).build()),
            }
        });
        match instrument {
            HookInstrument::Counter(counter) => counter.add(value, &attributes),
            HookInstrument::UpDown(counter) => counter.add(value, &attributes),
            HookInstrument::Histogram(histogram) => histogram.record(value, &attributes),
            HookInstrument::Gauge(gauge) => gauge.record(value, &attributes),
        }
    }

    fn meter(&self, scope: &str) -> Meter {
        let mut meters = self.meters.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        meters
            .entry(scope.to_owned())
            .or_insert_with(|| self.provider.meter_with_scope(InstrumentationScope::builder(scope.to_owned()).build()))
            .clone()
    }
}

/// A JSON object's entries as OpenTelemetry attributes: strings, booleans, numbers
/// (integers stay integers) and arrays of one of them; anything else is left out.
pub fn attributes_of(attrs: &Value) -> Vec<KeyValue> {
    let Some(object) = attrs.as_object() else { return Vec::new() };
    object.iter().filter_map(|(key, value)| Some(KeyValue::new(key.clone(), value_of(value)?))).collect()
}

fn value_of(value: &Value) -> Option<OtelValue> {
    Some(match value {
        Value::String(text) => OtelValue::String(text.clone().into()),
        Value::Bool(flag) => OtelValue::Bool(*flag),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => OtelValue::I64(integer),
            None => OtelValue::F64(number.as_f64()?),
        },
        Value::Array(items) => OtelValue::Array(array_of(items)?),
        Value::Null | Value::Object(_) => return None,
    })
}

/// An array of one type; an empty one is an empty string array.
fn array_of(items: &[Value]) -> Option<Array> {
    if items.iter().all(Value::is_string) {
        return Some(Array::String(
            items.iter().filter_map(|item| Some(StringValue::from(item.as_str()?.to_owned()))).collect(),
        ));
    }
    if items.iter().all(Value::is_boolean) {
        return Some(Array::Bool(items.iter().filter_map(Value::as_bool).collect()));
    }
    if items.iter().all(Value::is_i64) {
        return Some(Array::I64(items.iter().filter_map(Value::as_i64).collect()));
    }
    if items.iter().all(Value::is_number) {
        return Some(Array::F64(items.iter().filter_map(Value::as_f64).collect()));
    }
    None
}
