//! OpenTelemetry export (SPEC §7): when the `OTEL_*` variables name a collector, what the
//! hooks record (their `@opentelemetry/api` instruments, spans and logs, and
//! `ctx.host.otel`), each turn's trace and metrics, and the serve log go to it over
//! OTLP/HTTP, batched by the OpenTelemetry SDK on threads of their own, so a turn or a
//! handler never waits for a collector; at the end what is pending is flushed within
//! [`FLUSH_WITHIN`]. With no endpoint nothing here exists.

pub mod config;
pub mod hook_spans;
mod http;
mod instruments;
pub mod request_span;
pub mod turn_trace;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_otlp::{LogExporter, MetricExporter, SpanExporter, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks, SpanProcessor,
};

use crate::http::trust::Trust;
use crate::state::log_record::{Level, Record};
pub use config::ExportConfig;
use config::{Signal, SignalExport};
use http::{ExportClient, Failures, Shared};
pub use instruments::attributes_of;

/// How long the end of `run` (and `dev`'s shutdown) waits for what is pending to reach the
/// collector; a collector that is down or slow costs at most this.
pub const FLUSH_WITHIN: Duration = Duration::from_secs(2);

/// The instrumentation scope of agent-sdk's own spans, metrics and log records.
pub const SCOPE: &str = "agent-sdk";

/// The exporters of one process, shared by its sessions.
pub struct Telemetry {
    config: ExportConfig,
    spans: Option<BatchSpanProcessor>,
    meters: Option<(SdkMeterProvider, instruments::Instruments)>,
    logs: Option<(SdkLoggerProvider, SdkLogger)>,
    failures: Arc<Failures>,
    ids: RandomIdGenerator,
    scope: InstrumentationScope,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").field("config", &self.config).finish_non_exhaustive()
    }
}

/// A span's place in its trace, as a child is given it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parent {
    pub trace_id: TraceId,
    pub span_id: SpanId,
}

impl Parent {
    /// `{traceId, spanId}` in hex, as the runtime and W3C write them.
    pub fn hex(&self) -> (String, String) {
        (self.trace_id.to_string(), self.span_id.to_string())
    }
}

/// A span to export, ended.
#[derive(Debug, Clone)]
pub struct Ended {
    pub name: String,
    pub kind: SpanKind,
    pub trace_id: TraceId,
    pub span_id: SpanId,
    pub parent: Option<SpanId>,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: Vec<KeyValue>,
    pub status: Status,
    pub events: Vec<opentelemetry::trace::Event>,
    pub links: Vec<opentelemetry::trace::Link>,
    pub scope: Option<InstrumentationScope>,
}

/// A signal's exporter builder, told where, how and with which client to send.
fn configure<B: WithExportConfig + WithHttpConfig>(builder: B, export: &SignalExport, client: ExportClient) -> B {
    builder
        .with_http_client(client)
        .with_endpoint(&export.url)
        .with_protocol(export.protocol)
        .with_timeout(export.timeout)
}

impl Telemetry {
    /// Starts the exporters `config` asks for. `files`: the `.env` files' variables (the
    /// headers are read from them and the shell on every export).
    pub fn start(config: ExportConfig, files: Vec<(String, String)>) -> anyhow::Result<Arc<Telemetry>> {
        let shared = Shared::start()?;
        let failures = Arc::new(Failures::default());
        let files = Arc::new(files);
        let resource = Resource::builder_empty().with_attributes(config.resource.clone()).build();
        // A signal's CAs: the shared variables', and its own certificate's (a variable naming a
        // broken file stops the command, exit 2).
        let lookup = |name: &str| http::lookup_in(&files, name);
        let client = |export: &SignalExport| -> anyhow::Result<ExportClient> {
            let (variable, path) = export.signal.certificate(&lookup);
            let trust = Trust::for_url(&export.url, &lookup)?.and_file(&variable, path.as_deref())?;
            Ok(ExportClient::new(export.signal, export.timeout, &shared, trust, files.clone(), failures.clone()))
        };
        // The exporter's own words quote the endpoint as it was given, password and all.
        let refused = |error: opentelemetry_otlp::ExporterBuildError| {
            anyhow::anyhow!(config.without_credentials(&format!("{:#}", anyhow::Error::from(error))))
        };
        let spans = match config.signal(Signal::Traces) {
            Some(export) => {
                let exporter =
                    configure(SpanExporter::builder().with_http(), export, client(export)?).build().map_err(refused)?;
                let mut processor = BatchSpanProcessor::builder(exporter).build();
                processor.set_resource(&resource);
                Some(processor)
            }
            None => None,
        };
        let meters = match config.signal(Signal::Metrics) {
            Some(export) => {
                let exporter = configure(MetricExporter::builder().with_http(), export, client(export)?)
                    .with_temporality(config.temporality)
                    .build()
                    .map_err(refused)?;
                let provider = SdkMeterProvider::builder()
                    .with_resource(resource.clone())
                    .with_reader(PeriodicReader::builder(exporter).build())
                    .build();
                let instruments = instruments::Instruments::new(&provider);
                Some((provider, instruments))
            }
            None => None,
        };
        let logs = match config.signal(Signal::Logs) {
            Some(export) => {
                let exporter =
                    configure(LogExporter::builder().with_http(), export, client(export)?).build().map_err(refused)?;
                let provider =
                    SdkLoggerProvider::builder().with_resource(resource.clone()).with_batch_exporter(exporter).build();
                let logger = provider.logger(SCOPE);
                Some((provider, logger))
            }
            None => None,
        };
        let scope = InstrumentationScope::builder(SCOPE).with_version(env!("CARGO_PKG_VERSION")).build();
        Ok(Arc::new(Telemetry { config, spans, meters, logs, failures, ids: RandomIdGenerator::default(), scope }))
    }

    pub fn config(&self) -> &ExportConfig {
        &self.config
    }

    /// Whether traces are exported (the runtime then adds `traceparent` to a hook's fetch).
    pub fn tracing(&self) -> bool {
        self.spans.is_some()
    }

    pub fn new_trace_id(&self) -> TraceId {
        self.ids.new_trace_id()
    }

    pub fn new_span_id(&self) -> SpanId {
        self.ids.new_span_id()
    }

    /// Hands an ended span to the batch (it returns at once; a full queue drops it).
    pub fn end(&self, span: Ended) {
        let Some(processor) = &self.spans else { return };
        let mut events = SpanEvents::default();
        events.events = span.events;
        let mut links = SpanLinks::default();
        links.links = span.links;
        let data = SpanData {
            span_context: SpanContext::new(span.trace_id, span.span_id, TraceFlags::SAMPLED, false, TraceState::NONE),
            parent_span_id: span.parent.unwrap_or(SpanId::INVALID),
            parent_span_is_remote: false,
            span_kind: span.kind,
            name: span.name.into(),
            start_time: span.start,
            end_time: span.end.max(span.start),
            attributes: span.attributes,
            dropped_attributes_count: 0,
            events,
            links,
            status: span.status,
            instrumentation_scope: span.scope.unwrap_or_else(|| self.scope.clone()),
        };
        processor.on_end(data);
    }

    /// agent-sdk's own instruments and the hooks' (none when metrics are not exported).
    pub fn instruments(&self) -> Option<&instruments::Instruments> {
        self.meters.as_ref().map(|(_, instruments)| instruments)
    }

    /// A serve-log record, as a log record.
    pub fn log(&self, record: &Record) {
        let Some((_, logger)) = &self.logs else { return };
        let mut log = logger.create_log_record();
        let (number, text) = match record.level {
            Level::Debug => (Severity::Debug, "DEBUG"),
            Level::Info => (Severity::Info, "INFO"),
            Level::Warn => (Severity::Warn, "WARN"),
            Level::Error => (Severity::Error, "ERROR"),
        };
        log.set_severity_number(number);
        log.set_severity_text(text);
        log.set_timestamp(SystemTime::now());
        log.set_body(AnyValue::String(record.message.clone().into()));
        let fields = [
            ("session.id", &record.session_id),
            ("agent_sdk.turn.id", &record.turn_id),
            ("agent_sdk.hook.name", &record.hook),
            ("agent_sdk.event.type", &record.event),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                log.add_attribute(key, value.clone());
            }
        }
        logger.emit(log);
    }

    /// A warning about failed exports not said yet (`dev` says it as soon as it is seen).
    pub fn failure_warning(&self) -> Option<String> {
        self.failures.take_warning()
    }

    /// Flushes what is pending and stops the exporters, taking at most [`FLUSH_WITHIN`] in
    /// all (the three signals flush at once); what to warn about: the exports that failed,
    /// and what was still pending at the bound.
    pub fn shutdown(self: &Arc<Self>) -> Vec<String> {
        let (done, finished) = std::sync::mpsc::channel::<(Signal, bool)>();
        let mut started = 0;
        for signal in Signal::ALL {
            let telemetry = Arc::clone(self);
            let done = done.clone();
            let present = match signal {
                Signal::Traces => self.spans.is_some(),
                Signal::Metrics => self.meters.is_some(),
                Signal::Logs => self.logs.is_some(),
            };
            if !present {
                continue;
            }
            started += 1;
            let spawned = std::thread::Builder::new().name("otel-flush".to_owned()).spawn(move || {
                let flushed = match signal {
                    Signal::Traces => {
                        telemetry.spans.as_ref().is_none_or(|spans| spans.shutdown_with_timeout(FLUSH_WITHIN).is_ok())
                    }
                    Signal::Metrics => {
                        telemetry.meters.as_ref().is_none_or(|(provider, _)| provider.shutdown().is_ok())
                    }
                    Signal::Logs => telemetry
                        .logs
                        .as_ref()
                        .is_none_or(|(provider, _)| provider.shutdown_with_timeout(FLUSH_WITHIN).is_ok()),
                };
                let _ = done.send((signal, flushed));
            });
            if spawned.is_err() {
                started -= 1;
            }
        }
        drop(done);
        let until = std::time::Instant::now() + FLUSH_WITHIN;
        let mut unflushed: Vec<&str> =
            Signal::ALL.into_iter().filter(|signal| self.config.signal(*signal).is_some()).map(Signal::name).collect();
        for _ in 0..started {
            let left = until.saturating_duration_since(std::time::Instant::now());
            match finished.recv_timeout(left) {
                Ok((signal, true)) => unflushed.retain(|name| *name != signal.name()),
                Ok((_, false)) => {}
                Err(_) => break,
            }
        }
        let mut warnings: Vec<String> = self.failure_warning().into_iter().collect();
        if !unflushed.is_empty() && warnings.is_empty() {
            warnings.push(format!(
                "OpenTelemetry: the {} pending at the end did not reach the collector within {}; dropped",
                unflushed.join(", "),
                crate::time::clock::format_duration(FLUSH_WITHIN)
            ));
        }
        warnings
    }
}
impl crate::state::serve_log::ExportRecords for Telemetry {
    fn log(&self, record: &Record) {
        Telemetry::log(self, record);
    }
}
