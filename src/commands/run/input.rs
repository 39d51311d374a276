//! What `run` dispatches: a message for the model, a recorded stream, or one synthetic event.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;

use crate::cli::RunArgs;
use crate::clock::{new_id, now_rfc3339};
use crate::engine::turn::TurnEvent;
use crate::model::local;
use crate::printer::plural;
use crate::state::envelope::Envelope;
use crate::vocabulary;

/// What the run dispatches.
pub enum Input {
    Message(String),
    Replay(ReplayFile),
    Synthetic(TurnEvent),
}

impl Input {
    /// The input the flags name; `None` for `--redeliver` alone.
    pub fn from_args(args: &RunArgs) -> anyhow::Result<Option<Self>> {
        if let Some(message) = &args.message {
            return Ok(Some(Input::Message(message.clone())));
        }
        if let Some(path) = &args.replay {
            return Ok(Some(Input::Replay(ReplayFile::open(path)?)));
        }
        let Some(event_type) = args.event.as_deref() else { return Ok(None) };
        let Some(known) = vocabulary::event_type(event_type) else {
            let hint =
                vocabulary::suggest(event_type).map(|name| format!(" (did you mean `{name}`?)")).unwrap_or_default();
            anyhow::bail!("`{event_type}` is not an event type{hint}");
        };
        let example: Value = serde_json::from_str(known.example).context("the built-in example payload")?;
        let data = match &args.data {
            Some(data) => with_data(known, example, data)?,
            None => example,
        };
        Ok(Some(Input::Synthetic(TurnEvent { event_type: known.name, data })))
    }
}

/// The event's example `data` with `--data`'s fields merged over it (one level: a field given
/// replaces the example's, as the test kit's `events.<type>({ data })` does), checked
/// against the event's shape: a required field missing or of the wrong type is refused,
/// named.
fn with_data(known: &vocabulary::EventType, example: Value, data: &str) -> anyhow::Result<Value> {
    let given: Value = serde_json::from_str(data).with_context(|| format!("--data is not valid JSON: {data}"))?;
    let Value::Object(given) = given else {
        anyhow::bail!("--data must be a JSON object (the fields of the event's `data`), not {given}");
    };
    let mut merged = match example {
        Value::Object(fields) => fields,
        _ => serde_json::Map::new(),
    };
    merged.extend(given);
    let merged = Value::Object(merged);
    let Some(shape) = crate::data_shape::parse(known.data) else { return Ok(merged) };
    if let Err(problem) = crate::data_shape::check(&merged, &shape, "data") {
        anyhow::bail!("--data does not fit `{}`: {problem}; its data is {}", known.name, known.data);
    }
    Ok(merged)
}

/// The most bad lines of a `--replay` file that are quoted; the rest are counted.
const BAD_LINES_SHOWN: usize = 50;

/// One line of a `--replay` file: an envelope as `run --json` prints it, or written by hand
/// with only `type` and `data` (the rest have defaults; `index` and `sessionId` are never
/// used: the events join this run's session, numbered after what it recorded).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplayLine {
    #[serde(rename = "type")]
    event_type: String,
    data: Value,
    #[serde(default, rename = "turnId")]
    turn_id: Option<String>,
    #[serde(default)]
    at: Option<String>,
}

impl ReplayLine {
    /// Reads and checks one line: JSON, an event, of a type the vocabulary has.
    fn parse(text: &str) -> Result<Self, String> {
        let line = serde_json::from_str::<ReplayLine>(text).map_err(|error| match error.classify() {
            serde_json::error::Category::Data => {
                format!("not an event ({error}): each line needs at least `type` and `data`")
            }
            _ => format!("not JSON (column {}: {error})", error.column()),
        })?;
        if vocabulary::event_type(&line.event_type).is_none() {
            let hint = vocabulary::suggest(&line.event_type)
                .map(|name| format!(" (did you mean `{name}`?)"))
                .unwrap_or_default();
            return Err(format!("`{}` is not an event type{hint}", crate::untrusted::escape(&line.event_type)));
        }
        Ok(line)
    }
}

/// The events of an NDJSON file (blank lines skipped), checked whole when it is opened and
/// then read again as they are needed, so the file is never held in memory whole.
pub struct ReplayFile {
    path: PathBuf,
    lines: std::io::Lines<BufReader<std::fs::File>>,
    line: usize,
    /// The turn of the hand-written events that name none: one per turn, a new one after
    /// each `turn.completed` / `turn.failed`.
    written_turn: Option<String>,
}

impl ReplayFile {
    /// Opens the file and checks every line, so that a bad one stops `run` before Node
    /// starts or anything is recorded, with every bad line named.
    fn open(path: &Path) -> anyhow::Result<Self> {
        let open =
            || std::fs::File::open(path).with_context(|| format!("cannot read --replay file `{}`", path.display()));
        let mut bad = Vec::new();
        let mut bad_count = 0;
        let mut seen_an_event = false;
        for (index, line) in BufReader::new(open()?).lines().enumerate() {
            let line = line.with_context(|| format!("cannot read `{}`", path.display()))?;
            if line.trim().is_empty() {
                continue;
            }
            // What `dev` serves at GET /v1/sessions/{id}/events, saved as it came.
            if !seen_an_event && line.trim_start().starts_with('[') {
                anyhow::bail!(
                    "--replay file `{0}` is a JSON array; --replay takes NDJSON, one event a line \
                     (jq -c '.[]' {0} > events.jsonl)",
                    path.display()
                );
            }
            seen_an_event = true;
            if let Err(problem) = ReplayLine::parse(&line) {
                bad_count += 1;
                if bad.len() < BAD_LINES_SHOWN {
                    bad.push(format!("  {}:{}: {problem}", path.display(), index + 1));
                }
            }
        }
        if bad_count > 0 {
            let more = bad_count - bad.len();
            if more > 0 {
                bad.push(format!("  … and {}", plural(more, "more bad line")));
            }
            anyhow::bail!(
                "--replay file `{}` has {}; nothing was recorded:\n{}",
                path.display(),
                plural(bad_count, "bad line"),
                bad.join("\n")
            );
        }
        Ok(Self { path: path.to_path_buf(), lines: BufReader::new(open()?).lines(), line: 0, written_turn: None })
    }

    /// The envelope of a checked line, its defaults filled in.
    fn envelope(&mut self, line: ReplayLine) -> Envelope {
        let turn_id = line.turn_id.or_else(|| Some(self.written_turn.get_or_insert_with(|| new_id("turn")).clone()));
        if matches!(line.event_type.as_str(), "turn.completed" | "turn.failed") {
            self.written_turn = None;
        }
        Envelope {
            event_type: line.event_type,
            // Both are set again as it is recorded in this run's session.
            index: 0,
            session_id: String::new(),
            turn_id,
            at: line.at.unwrap_or_else(now_rfc3339),
            data: line.data,
        }
    }
}

impl Iterator for ReplayFile {
    type Item = anyhow::Result<Envelope>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = match self.lines.next()? {
                Ok(line) => line,
                Err(error) => {
                    return Some(Err(
                        anyhow::Error::new(error).context(format!("cannot read `{}`", self.path.display()))
                    ));
                }
            };
            self.line += 1;
            if line.trim().is_empty() {
                continue;
            }
            // Checked when opened: a line that fails now was changed during the replay.
            return Some(match ReplayLine::parse(&line) {
                Ok(line) => Ok(self.envelope(line)),
                Err(problem) => Err(anyhow::anyhow!(
                    "{}:{}: {problem} (the file changed during the replay; the events before it were dispatched)",
                    self.path.display(),
                    self.line
                )),
            });
        }
    }
}

/// A `--script` file for the local model.
pub fn read_script(path: &Path) -> anyhow::Result<local::Script> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read --script file `{}`", path.display()))?;
    let not_a_script = || format!("`{}` is not a model script", path.display());
    let value: serde_json::Value = serde_json::from_str(&text).with_context(not_a_script)?;
    local::Script::from_json(value).map_err(anyhow::Error::msg).with_context(not_a_script)
}
