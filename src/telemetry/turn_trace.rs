//! One turn as OpenTelemetry sees it: an `agent_sdk.turn` span (GenAI attributes: the
//! provider, the request and response model, token usage, finish reasons) with a `chat
//! <model>` child for each model request and an `execute_tool <name>` child for each tool
//! call, and the turn's metrics — all read off the events the turn records, in order.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Array, KeyValue, StringValue};
use serde_json::Value;

use crate::telemetry::{Ended, Parent, Telemetry};

/// The model a turn asks, as the GenAI conventions name it.
#[derive(Debug, Clone)]
pub struct GenAi {
    /// `gen_ai.provider.name`: `openai`, `x_ai`, … (`agent_sdk.local` for the local model).
    pub provider: String,
    /// `gen_ai.request.model`.
    pub model: String,
}

/// What every turn of a session is traced with.
#[derive(Debug, Clone)]
pub struct Traced {
    pub telemetry: Arc<Telemetry>,
    /// The span turns run under (the `dev` server's `agent_sdk.http` request span).
    pub parent: Option<Parent>,
    pub session_id: String,
    pub agent: String,
    pub gen_ai: GenAi,
}

impl Traced {
    /// The trace of turn `turn_id`, starting now.
    pub fn start(&self, turn_id: &str) -> TurnTrace {
        TurnTrace::start(&self.telemetry, self.parent, &self.session_id, turn_id, &self.agent, self.gen_ai.clone())
    }

    /// The trace of a turn read from its recorded events (`run --replay`, `run --event`):
    /// a model request opens with its `message.received`, not before.
    pub fn start_recorded(&self, turn_id: &str) -> TurnTrace {
        let mut trace = self.start(turn_id);
        trace.model = None;
        trace
    }
}

struct Open {
    span_id: SpanId,
    start: SystemTime,
    since: Instant,
}

/// A tool call in progress.
struct ToolCall {
    call_id: String,
    name: String,
    open: Open,
}

/// A turn's trace while it runs.
pub struct TurnTrace {
    telemetry: Arc<Telemetry>,
    turn: Parent,
    parent: Option<SpanId>,
    start: SystemTime,
    session_id: String,
    turn_id: String,
    agent: String,
    gen_ai: GenAi,
    model: Option<Open>,
    tools: Vec<ToolCall>,
    finish_reasons: Vec<String>,
    /// The model the provider says answered (its response's `model`), once it said one.
    response_model: Option<String>,
    ended: bool,
}

impl TurnTrace {
    /// A turn starting now, a model request with it; `parent`: the span it runs under (the
    /// `dev` server's `agent_sdk.http` request span), if any.
    pub fn start(
        telemetry: &Arc<Telemetry>,
        parent: Option<Parent>,
        session_id: &str,
        turn_id: &str,
        agent: &str,
        gen_ai: GenAi,
    ) -> Self {
        let turn = Parent {
            trace_id: parent.map_or_else(|| telemetry.new_trace_id(), |parent| parent.trace_id),
            span_id: telemetry.new_span_id(),
        };
        let mut trace = Self {
            telemetry: Arc::clone(telemetry),
            turn,
            parent: parent.map(|parent| parent.span_id),
            start: SystemTime::now(),
            session_id: session_id.to_owned(),
            turn_id: turn_id.to_owned(),
            agent: agent.to_owned(),
            gen_ai,
            model: None,
            tools: Vec::new(),
            finish_reasons: Vec::new(),
            response_model: None,
            ended: false,
        };
        trace.model = Some(trace.open());
        trace
    }

    /// The span the turn's events are handled under (their handler spans' parent), when
    /// traces or metrics are exported (a handler's end also gives its metrics).
    pub fn events_parent(&self) -> Option<Parent> {
        (self.telemetry.tracing() || self.telemetry.instruments().is_some()).then_some(self.turn)
    }

    /// Whether the turn's terminal event was taken in (its span is ended).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The provider answered as `model` (which may name a version the request did not).
    pub fn responded(&mut self, model: &str) {
        self.response_model = Some(model.to_owned());
    }

    /// `gen_ai.response.model`: the model that answered, else the one asked.
    fn response_model(&self) -> String {
        self.response_model.clone().unwrap_or_else(|| self.gen_ai.model.clone())
    }

    fn open(&self) -> Open {
        Open { span_id: self.telemetry.new_span_id(), start: SystemTime::now(), since: Instant::now() }
    }

    fn model_attributes(&self) -> Vec<KeyValue> {
        vec![
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", self.gen_ai.provider.clone()),
            KeyValue::new("gen_ai.request.model", self.gen_ai.model.clone()),
        ]
    }

    /// Takes in an event the turn recorded.
    pub fn on_event(&mut self, event_type: &str, data: &Value) {
        match event_type {
            "message.received" if self.model.is_none() && self.finish_reasons.is_empty() && !self.ended => {
                self.model = Some(self.open());
            }
            "actions.requested" => {
                self.end_model("tool_calls", None, None);
                let calls = data["calls"].as_array().map(Vec::as_slice).unwrap_or_default();
                for call in calls {
                    let open = self.open();
                    self.tools.push(ToolCall {
                        call_id: call["callId"].as_str().unwrap_or_default().to_owned(),
                        name: call["toolName"].as_str().unwrap_or("tool").to_owned(),
                        open,
                    });
                }
            }
            "action.result" => {
                let call_id = data["callId"].as_str().unwrap_or_default();
                if let Some(at) = self.tools.iter().position(|tool| tool.call_id == call_id) {
                    let tool = self.tools.remove(at);
                    self.end_tool(tool, data["isError"].as_bool().unwrap_or(false));
                }
            }
            "actions.completed" => {
                for tool in std::mem::take(&mut self.tools) {
                    self.end_tool(tool, false);
                }
                self.model = Some(self.open());
            }
            "turn.completed" => self.end(true, data),
            "turn.failed" => self.end(false, data),
            _ => {}
        }
    }

    fn end_tool(&self, tool: ToolCall, failed: bool) {
        let mut attributes = vec![
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", tool.name.clone()),
            KeyValue::new("gen_ai.tool.call.id", tool.call_id.clone()),
        ];
        if failed {
            attributes.push(KeyValue::new("error.type", "tool_error"));
        }
        if let Some(instruments) = self.telemetry.instruments() {
            instruments
                .tool_calls
                .add(1, &[KeyValue::new("gen_ai.tool.name", tool.name.clone()), KeyValue::new("error", failed)]);
        }
        self.telemetry.end(Ended {
            name: format!("execute_tool {}", tool.name),
            kind: SpanKind::Internal,
            trace_id: self.turn.trace_id,
            span_id: tool.open.span_id,
            parent: Some(self.turn.span_id),
            start: tool.open.start,
            end: SystemTime::now(),
            attributes,
            status: if failed { Status::error("the tool returned an error") } else { Status::Unset },
            events: Vec::new(),
            links: Vec::new(),
            scope: None,
        });
    }

    /// Ends the model request in progress (`finish`: why it stopped).
    fn end_model(&mut self, finish: &str, usage: Option<&Value>, failed: Option<&str>) {
        let Some(open) = self.model.take() else { return };
        self.finish_reasons.push(finish.to_owned());
        let mut attributes = self.model_attributes();
        attributes.push(KeyValue::new("gen_ai.response.finish_reasons", strings(&[finish.to_owned()])));
        attributes.extend(usage_attributes(usage));
        if let Some(model) = &self.response_model {
            attributes.push(KeyValue::new("gen_ai.response.model", model.clone()));
        }
        if failed.is_some() {
            attributes.push(KeyValue::new("error.type", "model_error"));
        }
        if let Some(instruments) = self.telemetry.instruments() {
            let mut labels = self.model_attributes();
            if failed.is_some() {
                labels.push(KeyValue::new("error.type", "model_error"));
            }
            instruments.operation_duration.record(open.since.elapsed().as_secs_f64(), &labels);
        }
        self.telemetry.end(Ended {
            name: format!("chat {}", self.gen_ai.model),
            kind: SpanKind::Client,
            trace_id: self.turn.trace_id,
            span_id: open.span_id,
            parent: Some(self.turn.span_id),
            start: open.start,
            end: SystemTime::now(),
            attributes,
            status: failed.map_or(Status::Unset, |why| Status::error(why.to_owned())),
            events: Vec::new(),
            links: Vec::new(),
            scope: None,
        });
    }

    /// The turn's terminal event: its span and metrics.
    fn end(&mut self, completed: bool, data: &Value) {
        if self.ended {
            return;
        }
        self.ended = true;
        let usage = data.get("usage").filter(|usage| usage.is_object());
        let message = data["message"].as_str().unwrap_or("the turn failed");
        if completed {
            self.end_model("stop", usage, None);
        } else {
            self.end_model("error", None, Some(message));
        }
        for tool in std::mem::take(&mut self.tools) {
            self.end_tool(tool, true);
        }
        let status = if completed { "completed" } else { data["status"].as_str().unwrap_or("error") };
        let response_model = self.response_model();
        let mut attributes = self.turn_attributes(status);
        attributes.push(KeyValue::new("gen_ai.response.model", response_model.clone()));
        attributes.push(KeyValue::new("gen_ai.response.finish_reasons", strings(&self.finish_reasons)));
        attributes.extend(usage_attributes(usage));
        let cost = data["cost"]["totalUsd"].as_f64();
        if let Some(cost) = cost {
            attributes.push(KeyValue::new("agent_sdk.turn.cost_usd", cost));
        }
        if let Some(instruments) = self.telemetry.instruments() {
            let mut labels = self.model_attributes();
            labels.push(KeyValue::new("gen_ai.response.model", response_model));
            for (kind, key) in [("input", "inputTokens"), ("output", "outputTokens")] {
                if let Some(tokens) = usage.and_then(|usage| usage[key].as_f64()) {
                    let mut labels = labels.clone();
                    labels.push(KeyValue::new("gen_ai.token.type", kind));
                    instruments.token_usage.record(tokens, &labels);
                }
            }
            if let Some(cost) = cost {
                instruments.cost.add(cost, &labels);
            }
            instruments.turns.add(1, &[KeyValue::new("agent_sdk.turn.status", status.to_owned())]);
        }
        self.end_turn_span(attributes, if completed { Status::Ok } else { Status::error(message.to_owned()) });
    }

    /// What the turn's span says of it whether or not it ended.
    fn turn_attributes(&self, status: &str) -> Vec<KeyValue> {
        vec![
            KeyValue::new("session.id", self.session_id.clone()),
            KeyValue::new("agent_sdk.turn.id", self.turn_id.clone()),
            KeyValue::new("agent_sdk.turn.status", status.to_owned()),
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", self.agent.clone()),
            KeyValue::new("gen_ai.provider.name", self.gen_ai.provider.clone()),
            KeyValue::new("gen_ai.request.model", self.gen_ai.model.clone()),
        ]
    }

    fn end_turn_span(&self, attributes: Vec<KeyValue>, status: Status) {
        self.telemetry.end(Ended {
            name: "agent_sdk.turn".to_owned(),
            kind: SpanKind::Internal,
            trace_id: self.turn.trace_id,
            span_id: self.turn.span_id,
            parent: self.parent,
            start: self.start,
            end: SystemTime::now(),
            attributes,
            status,
            events: Vec::new(),
            links: Vec::new(),
            scope: None,
        });
    }
}

/// A turn whose terminal event never came (a replay that stops mid-turn, `run --event` of
/// another event, an error) still ends its spans, so that its handlers' spans have their
/// parent: the turn's with no status, `agent_sdk.turn.status` `unfinished`.
impl Drop for TurnTrace {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.end_model("unfinished", None, None);
        for tool in std::mem::take(&mut self.tools) {
            self.end_tool(tool, false);
        }
        let attributes = self.turn_attributes("unfinished");
        self.end_turn_span(attributes, Status::Unset);
    }
}

/// `gen_ai.usage.input_tokens` / `output_tokens` of a turn's `usage`.
fn usage_attributes(usage: Option<&Value>) -> Vec<KeyValue> {
    let Some(usage) = usage else { return Vec::new() };
    [("gen_ai.usage.input_tokens", "inputTokens"), ("gen_ai.usage.output_tokens", "outputTokens")]
        .into_iter()
        .filter_map(|(name, key)| Some(KeyValue::new(name, usage[key].as_i64()?)))
        .collect()
}

fn strings(items: &[String]) -> opentelemetry::Value {
    opentelemetry::Value::Array(Array::String(items.iter().map(|item| StringValue::from(item.clone())).collect()))
}
