//! What `run` dispatches: a message for the model, a recorded stream, or one synthetic event.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use crate::cli::RunArgs;
use crate::engine::model;
use crate::engine::turn::TurnEvent;
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
        let data: Value = match &args.data {
            Some(data) => serde_json::from_str(data).with_context(|| format!("--data is not valid JSON: {data}"))?,
            None => serde_json::from_str(known.example).context("the built-in example payload")?,
        };
        Ok(Some(Input::Synthetic(TurnEvent { event_type: known.name, data })))
    }
}

/// The envelopes of an NDJSON file, read as they are needed (blank lines skipped).
pub struct ReplayFile {
    path: PathBuf,
    lines: std::io::Lines<BufReader<std::fs::File>>,
    line: usize,
}

impl ReplayFile {
    /// Opens the file now, so a missing one stops `run` before anything starts.
    fn open(path: &Path) -> anyhow::Result<Self> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read --replay file `{}`", path.display()))?;
        Ok(Self { path: path.to_path_buf(), lines: BufReader::new(file).lines(), line: 0 })
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
            return Some(serde_json::from_str::<Envelope>(&line).with_context(|| {
                format!(
                    "{}:{}: not an event envelope; the events before it were dispatched",
                    self.path.display(),
                    self.line
                )
            }));
        }
    }
}

/// A `--script` file for the local model.
pub fn read_script(path: &Path) -> anyhow::Result<model::Script> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read --script file `{}`", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("`{}` is not a model script", path.display()))
}
