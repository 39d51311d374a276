//! The host side of `ctx`: what a hook's `ctx.host.kv`, `.files`, `.reminders`,
//! `ctx.artifacts` and `.otel` calls do in a local run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::protocol::{ArtifactTagged, Call, FileScope, HostCall, Otel, OtelKind, Reminder, Reply};
use crate::state::StateStore;

/// Metrics a run's hooks recorded, through `ctx.host.otel` or the instruments of
/// `@opentelemetry/api`, summarised at the end: per metric, and per set of attributes.
#[derive(Debug, Default)]
pub struct OtelSummary {
    /// Counters and up-down counters: name → their sum.
    pub counters: BTreeMap<String, ByAttributes<f64>>,
    pub histograms: BTreeMap<String, ByAttributes<Distribution>>,
    /// Gauges (and what observable instruments observed at shutdown): name → the last value.
    pub gauges: BTreeMap<String, ByAttributes<f64>>,
    pub tags: BTreeMap<String, String>,
    /// Spans of `@opentelemetry/api`'s tracer, by name: how many ended, how many failed,
    /// their milliseconds.
    pub spans: BTreeMap<String, Spans>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Spans {
    pub ended: u64,
    pub failed: u64,
    pub milliseconds: f64,
}

/// A metric's value, and its value for each set of attributes it was recorded with
/// (`channel=local`), by their text.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ByAttributes<T> {
    pub total: T,
    pub by: BTreeMap<String, T>,
}

/// What a histogram recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distribution {
    pub count: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for Distribution {
    fn default() -> Self {
        Self { count: 0, sum: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

impl Distribution {
    fn add(&mut self, value: f64) {
        *self =
            Self { count: self.count + 1, sum: self.sum + value, min: self.min.min(value), max: self.max.max(value) };
    }
}

/// At most this many sets of attributes are listed on a metric's line.
const ATTRIBUTE_SETS_SHOWN: usize = 5;

impl OtelSummary {
    /// Adds one `{ kind, name, value, attrs }` record from the runtime.
    pub fn record(&mut self, otel: &Otel) {
        let name = otel.name.clone();
        let value = otel.value.as_f64();
        let attributes = attributes_text(&otel.attrs);
        match otel.kind {
            OtelKind::Counter | OtelKind::UpDown => {
                let value = value.unwrap_or(1.0);
                let entry = self.counters.entry(name).or_default();
                entry.total += value;
                if let Some(attributes) = attributes {
                    *entry.by.entry(attributes).or_default() += value;
                }
            }
            OtelKind::Gauge => {
                let Some(value) = value else { return };
                let entry = self.gauges.entry(name).or_default();
                entry.total = value;
                if let Some(attributes) = attributes {
                    entry.by.insert(attributes, value);
                }
            }
            OtelKind::Histogram => {
                let value = value.unwrap_or(0.0);
                let entry = self.histograms.entry(name).or_default();
                entry.total.add(value);
                if let Some(attributes) = attributes {
                    entry.by.entry(attributes).or_default().add(value);
                }
            }
            OtelKind::Span => {
                let entry = self.spans.entry(name).or_default();
                entry.ended += 1;
                entry.failed += u64::from(otel.error.is_some());
                entry.milliseconds += value.unwrap_or(0.0);
            }
            // A hook's log record is a serve-log record of its own, not a metric.
            OtelKind::Log => {}
            OtelKind::Tag => {
                let value = match &otel.value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                self.tags.insert(name, value);
            }
        }
    }

    /// One line per metric, for the serve log.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .counters
            .iter()
            .map(|(name, sum)| {
                format!("otel counter {name} = {}{}", trim_float(sum.total), by_attributes(sum, |v| trim_float(*v)))
            })
            .collect();
        lines.extend(self.histograms.iter().map(|(name, recorded)| {
            let Distribution { count, sum, min, max } = recorded.total;
            let by = by_attributes(recorded, |part| format!("count {}, sum {}", part.count, trim_float(part.sum)));
            format!(
                "otel histogram {name}: count {count}, sum {}, min {}, max {}{by}",
                trim_float(sum),
                trim_float(min),
                trim_float(max)
            )
        }));
        lines.extend(self.gauges.iter().map(|(name, last)| {
            format!("otel gauge {name} = {}{}", trim_float(last.total), by_attributes(last, |v| trim_float(*v)))
        }));
        lines.extend(self.tags.iter().map(|(key, value)| format!("otel tag {key} = {value}")));
        lines.extend(self.spans.iter().map(|(name, spans)| {
            format!(
                "otel span {name}: {} ended, {} failed, {} ms in all",
                spans.ended,
                spans.failed,
                trim_float((spans.milliseconds * 10.0).round() / 10.0)
            )
        }));
        lines
    }
}

/// ` (channel=local: 2; channel=slack: 1)`: the value for each set of attributes, when
/// any was recorded with some; the first few, then how many more.
fn by_attributes<T>(metric: &ByAttributes<T>, shown: impl Fn(&T) -> String) -> String {
    if metric.by.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = metric
        .by
        .iter()
        .take(ATTRIBUTE_SETS_SHOWN)
        .map(|(attributes, value)| format!("{attributes}: {}", shown(value)))
        .collect();
    if metric.by.len() > ATTRIBUTE_SETS_SHOWN {
        parts.push(format!("and {} more", metric.by.len() - ATTRIBUTE_SETS_SHOWN));
    }
    format!(" ({})", parts.join("; "))
}

/// `channel=local, model=gpt-4o`: a record's attributes in key order; `None` without any.
pub fn attributes_text(attrs: &Value) -> Option<String> {
    let object = attrs.as_object().filter(|object| !object.is_empty())?;
    let mut pairs: Vec<(&String, String)> = object
        .iter()
        .map(|(key, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (key, text)
        })
        .collect();
    pairs.sort();
    Some(pairs.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join(", "))
}

fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 { format!("{}", value as i64) } else { format!("{value}") }
}

/// Answers the runtime's host calls for one session, with its own connection to the
/// state store (calls are answered on the thread that reads the runtime's messages).
pub struct HostCalls {
    store: StateStore,
    session_id: String,
}

impl HostCalls {
    pub fn open(state_root: &crate::state::StateRoot, session_id: &str) -> anyhow::Result<Self> {
        Ok(Self { store: StateStore::open_root(state_root.clone())?, session_id: session_id.to_owned() })
    }

    /// The reply message to a `{ t: "call", id, method, args }` message.
    pub fn reply(&self, call: &Call) -> Reply {
        Reply::new(call.id.clone(), self.call(&call.method, &call.args))
    }

    /// [`HostCalls::reply`] for session `session_id` (a runtime serving many sessions
    /// answers them all on one connection).
    pub fn reply_for(&mut self, session_id: &str, call: &Call) -> Reply {
        if self.session_id != session_id {
            session_id.clone_into(&mut self.session_id);
        }
        self.reply(call)
    }

    /// The reply to `{ method, args }`: the value, or an error message the hook's promise rejects with.
    pub fn call(&self, method: &str, args: &[Value]) -> Result<Value, String> {
        let result = match HostCall::of(method, args)? {
            HostCall::KvGet((key,)) => self.store.kv_get(&key).map(|value| value.unwrap_or(Value::Null)),
            HostCall::KvSet(key, value) => self.store.kv_set(&key, &value).map(|()| Value::Null),
            HostCall::KvDelete((key,)) => self.store.kv_delete(&key).map(Value::Bool),
            HostCall::KvList((prefix,)) => self.store.kv_list(prefix.as_deref().unwrap_or_default()).map(answer),
            HostCall::FilesWrite(path, data, scope) => {
                return self.write_file(&path, &data, scope).map(|()| Value::Null);
            }
            HostCall::FilesAppend(path, data, scope) => {
                return self.append_file(&path, &data, scope).map(|()| Value::Null);
            }
            HostCall::FilesRead(path, scope) => return self.read_file(&path, scope),
            HostCall::FilesList((scope,)) => return self.list_files(scope),
            HostCall::RemindersSet(at, note) => {
                self.store.reminder_set(&self.session_id, &at, &note).map(|()| Value::Null)
            }
            HostCall::RemindersList(()) => self.store.reminders(&self.session_id).map(|reminders| {
                answer(reminders.into_iter().map(|(at, note)| Reminder { at, note }).collect::<Vec<_>>())
            }),
            HostCall::ArtifactsTag(name, value, turn_id) => self
                .store
                .artifact_tag(&self.session_id, turn_id.as_deref(), &name, &value)
                .map(|()| answer(ArtifactTagged { session_id: self.session_id.clone(), turn_id: turn_id.clone() })),
        };
        result.map_err(|error| error.to_string())
    }

    /// The folder a `files` scope maps to: the session's own, or the deployment's.
    fn scope_root(&self, scope: FileScope) -> PathBuf {
        let files = self.store.root().files();
        match scope {
            FileScope::Deployment => files.join("deployment"),
            FileScope::Session => files.join("sessions").join(&self.session_id),
        }
    }

    /// `path` inside the scope, refusing anything that could leave it: `..`, an absolute
    /// path, a link on the way that leads out, and a link to nothing (writing through it
    /// would create its target wherever it points). Nothing is created here.
    fn scoped_path(&self, path: &str, scope: FileScope) -> Result<PathBuf, String> {
        let relative = Path::new(path);
        let escapes = path.is_empty()
            || relative.is_absolute()
            || relative.components().any(|component| !matches!(component, Component::Normal(_)));
        if escapes {
            return Err(format!("ctx.host.files: `{path}` is not a relative path inside the {} scope", scope.as_str()));
        }
        if scope == FileScope::Session {
            crate::state::session_id::check_session_id(&self.session_id)?;
        }
        let root = self.scope_root(scope);
        crate::fs::create_private_dir_all(&root).map_err(|error| error.to_string())?;
        let root = root.canonicalize().map_err(|error| error.to_string())?;
        // Walk down what exists, resolving each link where it stands; what does not exist
        // yet is created under the last real folder, inside the scope.
        let mut real = root.clone();
        for component in relative.components() {
            let next = real.join(component);
            real = match std::fs::symlink_metadata(&next) {
                Ok(metadata) if metadata.file_type().is_symlink() => next.canonicalize().map_err(|_| {
                    format!("ctx.host.files: `{path}` goes through a link that leads nowhere; it is not followed")
                })?,
                Ok(_) => next,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => next,
                Err(error) => return Err(format!("ctx.host.files: `{path}`: {error}")),
            };
            if !real.starts_with(&root) {
                return Err(format!("ctx.host.files: `{path}` leads outside the {} scope", scope.as_str()));
            }
        }
        Ok(real)
    }

    fn write_file(&self, path: &str, data: &str, scope: FileScope) -> Result<(), String> {
        let target = self.scoped_path(path, scope)?;
        if let Some(parent) = target.parent() {
            crate::fs::create_private_dir_all(parent)
                .map_err(|error| format!("ctx.host.files.write(`{path}`): {error}"))?;
        }
        std::fs::write(target, data).map_err(|error| format!("ctx.host.files.write(`{path}`): {error}"))
    }

    /// Adds `data` at the end of the file (created when there is none) as one write of the
    /// whole text, in append mode (`O_APPEND`: the end is found by the kernel at the write,
    /// not by us before it) and under an exclusive lock on the file (`flock`), so that
    /// appends from sessions of one `dev` server, or from processes sharing the state root,
    /// never interleave or overwrite one another, even if a write were cut short. The cost
    /// is the same for an empty file and a long one: nothing is read.
    fn append_file(&self, path: &str, data: &str, scope: FileScope) -> Result<(), String> {
        let target = self.scoped_path(path, scope)?;
        let failed = |error: std::io::Error| format!("ctx.host.files.append(`{path}`): {error}");
        if let Some(parent) = target.parent() {
            crate::fs::create_private_dir_all(parent).map_err(failed)?;
        }
        let mut file = std::fs::OpenOptions::new().append(true).create(true).open(target).map_err(failed)?;
        // Released when the file closes, at the end of this call.
        file.lock().map_err(failed)?;
        file.write_all(data.as_bytes()).map_err(failed)
    }

    fn read_file(&self, path: &str, scope: FileScope) -> Result<Value, String> {
        let target = self.scoped_path(path, scope)?;
        match std::fs::read_to_string(target) {
            Ok(text) => Ok(Value::String(text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Value::Null),
            Err(error) => Err(format!("ctx.host.files.read(`{path}`): {error}")),
        }
    }

    fn list_files(&self, scope: FileScope) -> Result<Value, String> {
        let root = self.scope_root(scope);
        let mut files: Vec<String> = walkdir::WalkDir::new(&root)
            .into_iter()
            .flatten()
            .filter(|entry| entry.file_type().is_file())
            .filter_map(|entry| crate::fs::relative_slashed(entry.path(), &root))
            .collect();
        files.sort();
        Ok(answer(files))
    }
}

/// A host call's answer as the JSON its reply carries.
fn answer(value: impl serde::Serialize) -> Value {
    // Strings, lists and structs of them: nothing here fails to serialize.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn otel(kind: OtelKind, name: &str, value: Value, attrs: Value) -> Otel {
        Otel::new(kind, name, value, attrs)
    }

    #[test]
    fn each_metric_is_summed_or_kept_last_per_set_of_attributes_the_first_five_listed() {
        let mut summary = OtelSummary::default();
        // Eight records in eight sets: `a` twice, once with each `n`.
        for (index, channel) in ["a", "b", "c", "d", "e", "f", "g", "a"].iter().enumerate() {
            let attrs = json!({ "channel": channel, "n": index % 2 == 0 });
            summary.record(&otel(OtelKind::Counter, "turns", json!(1), attrs));
        }
        summary.record(&otel(OtelKind::UpDown, "in_flight", json!(1), json!({})));
        summary.record(&otel(OtelKind::UpDown, "in_flight", json!(-1), json!({})));
        summary.record(&otel(OtelKind::Gauge, "open", json!(3), json!({ "region": "eu" })));
        summary.record(&otel(OtelKind::Gauge, "open", json!(4), json!({ "region": "eu" })));
        summary.record(&otel(OtelKind::Histogram, "ms", json!(1.5), json!({})));
        summary.record(&otel(OtelKind::Span, "page", json!(2.04), json!({})));
        summary.record(&Otel { error: Some("down".to_owned()), ..otel(OtelKind::Span, "page", json!(1.0), json!({})) });
        assert_eq!(
            summary.lines(),
            [
                "otel counter in_flight = 0",
                "otel counter turns = 8 (channel=a, n=false: 1; channel=a, n=true: 1; channel=b, n=false: 1; channel=c, n=true: 1; channel=d, n=false: 1; and 3 more)",
                "otel histogram ms: count 1, sum 1.5, min 1.5, max 1.5",
                "otel gauge open = 4 (region=eu: 4)",
                "otel span page: 2 ended, 1 failed, 3 ms in all",
            ]
        );
    }
}
