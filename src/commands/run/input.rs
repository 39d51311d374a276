//! What `run` dispatches: a message for the model, a recorded stream, or one synthetic event.

use std::io::{BufRead, BufReader, Seek};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;

use crate::cli::RunArgs;
use crate::engine::turn::TurnEvent;
use crate::model::local;
use crate::printer::plural;
use crate::state::envelope::Envelope;
use crate::time::clock::{new_id, now_rfc3339};
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

/// The event's example `data` with `--data` merged deeply over it (what is left out keeps
/// the example's value, an array's objects over the example's first item, as the test kit's
/// `events.<type>({ data })` does), checked against the event's shape: a required field
/// still missing, or one of the wrong type, is refused, named.
fn with_data(known: &'static vocabulary::EventType, example: Value, data: &str) -> anyhow::Result<Value> {
    let given: Value = serde_json::from_str(data).with_context(|| format!("--data is not valid JSON: {data}"))?;
    if !given.is_object() {
        anyhow::bail!("--data must be a JSON object (the fields of the event's `data`), not {given}");
    }
    let merged = crate::vocabulary::data_shape::merge_over(example, given);
    let Some(shape) = crate::vocabulary::data_shape::of_event(known) else { return Ok(merged) };
    if let Err(problem) = crate::vocabulary::data_shape::check(&merged, shape, "data") {
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
    /// Reads and checks one line: JSON, an event, of a type the vocabulary has, whose `data`
    /// fits that type (as `--data` is checked, but nothing is merged: a recorded line is
    /// replayed as it is).
    fn parse(text: &str) -> Result<Self, String> {
        let line = serde_json::from_str::<ReplayLine>(text).map_err(|error| match error.classify() {
            serde_json::error::Category::Data => {
                format!("not an event ({error}): each line needs at least `type` and `data`")
            }
            _ => format!("not JSON (column {}: {error})", error.column()),
        })?;
        let Some(known) = vocabulary::event_type(&line.event_type) else {
            let hint = vocabulary::suggest(&line.event_type)
                .map(|name| format!(" (did you mean `{name}`?)"))
                .unwrap_or_default();
            return Err(format!("`{}` is not an event type{hint}", crate::text::untrusted::escape(&line.event_type)));
        };
        if let Some(shape) = crate::vocabulary::data_shape::of_event(known)
            && let Err(problem) = crate::vocabulary::data_shape::check(&line.data, shape, "data")
        {
            return Err(format!(
                "its data does not fit `{}`: {}; its data is {}",
                known.name,
                crate::text::untrusted::escape(&problem),
                known.data
            ));
        }
        Ok(line)
    }
}

/// The most of a `--replay` input that is not a regular file (a pipe, a FIFO) kept in
/// memory to replay it: it can be read only once, and it is read whole to be checked.
const KEPT_AT_MOST: usize = 512 * 1024 * 1024;

/// The events of an NDJSON file (blank lines skipped), checked whole ([`ReplayFile::check`],
/// while Node boots) and then read again as they are needed, from the same open file, so a
/// file is never held in memory whole. A pipe or a FIFO can be read only once: what it
/// holds is kept (in memory, at most [`KEPT_AT_MOST`]) as it is checked, and replayed from
/// there. The replay gives exactly the events that were checked (none before the check): a
/// file cut short since is an error, and lines added to it are not replayed.
pub struct ReplayFile {
    path: PathBuf,
    /// The file as opened, until it is checked.
    opened: Option<std::fs::File>,
    /// Its lines, once checked.
    lines: Option<std::io::Lines<Box<dyn BufRead>>>,
    line: usize,
    /// The events the file held when it was checked, and how many of them were given.
    checked: usize,
    given: usize,
    /// The turn of the hand-written events that name none: one per turn, a new one after
    /// each `turn.completed` / `turn.failed`.
    written_turn: Option<String>,
}

impl ReplayFile {
    /// Opens the file, or standard input for `-` (one that cannot be opened stops `run`
    /// before anything starts). A terminal (`-` or `/dev/stdin` at one, `/dev/tty`) is
    /// refused: nobody types a recorded stream, and reading one would wait for Ctrl-D.
    fn open(path: &Path) -> anyhow::Result<Self> {
        use std::io::IsTerminal;
        let standard_input = path == Path::new(STANDARD_INPUT);
        let file = if standard_input {
            self::standard_input()
        } else {
            std::fs::File::open(path).with_context(|| cannot_read(path))
        }?;
        if file.is_terminal() {
            let what = if standard_input {
                "--replay - reads standard input, which is a terminal here".to_owned()
            } else {
                format!("--replay file `{}` is a terminal", path.display())
            };
            anyhow::bail!(
                "{what}; pipe the events in (agent-sdk run --json --message \"…\" | agent-sdk run --replay -) \
                 or name a file"
            );
        }
        let path = if standard_input { PathBuf::from(STANDARD_INPUT_SHOWN) } else { path.to_path_buf() };
        Ok(Self { path, opened: Some(file), lines: None, line: 0, checked: 0, given: 0, written_turn: None })
    }

    /// Checks every line, so that a bad one stops `run` before any hook is imported or
    /// anything is recorded, with every bad line named. `run` calls it once Node is starting:
    /// the check (some 15 ms for 10,000 events) and Node's boot take the same time.
    pub fn check(&mut self) -> anyhow::Result<()> {
        let Some(mut file) = self.opened.take() else { return Ok(()) };
        let regular = file.metadata().with_context(|| cannot_read(&self.path))?.is_file();
        let mut kept = (!regular).then(Vec::new);
        self.checked = check(&self.path, BufReader::new(&mut file), kept.as_mut().map(|kept| (kept, KEPT_AT_MOST)))?;
        let source: Box<dyn BufRead> = match kept {
            Some(kept) => Box::new(std::io::Cursor::new(kept)),
            None => {
                file.rewind().with_context(|| cannot_read(&self.path))?;
                Box::new(BufReader::new(file))
            }
        };
        self.lines = Some(source.lines());
        Ok(())
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

    /// The error of a file that ended before every event it held when it was checked.
    fn cut_short(&self) -> anyhow::Error {
        let dispatched = match self.given {
            0 => "none was dispatched".to_owned(),
            1 => "that one was dispatched".to_owned(),
            given => format!("those {given} were dispatched"),
        };
        anyhow::anyhow!(
            "--replay file `{}` ended after {} of the {} it held when it was checked (it changed during the replay); \
             {dispatched}",
            self.path.display(),
            self.given,
            plural(self.checked, "event"),
        )
    }
}

/// The `--replay` that reads standard input, and how it is named in what `run` says.
const STANDARD_INPUT: &str = "-";
const STANDARD_INPUT_SHOWN: &str = "<stdin>";

/// Standard input as a file of its own (its descriptor duplicated), read as any `--replay`
/// file is: in place when the shell gave it a file (`< events.jsonl`), kept as it is
/// checked when it is a pipe.
fn standard_input() -> anyhow::Result<std::fs::File> {
    let stdin = std::io::stdin();
    #[cfg(unix)]
    let duplicated = std::os::fd::AsFd::as_fd(&stdin).try_clone_to_owned();
    #[cfg(windows)]
    let duplicated = std::os::windows::io::AsHandle::as_handle(&stdin).try_clone_to_owned();
    duplicated.map(std::fs::File::from).with_context(|| cannot_read(Path::new(STANDARD_INPUT_SHOWN)))
}

fn cannot_read(path: &Path) -> String {
    format!("cannot read --replay file `{}`", path.display())
}

/// Checks every line of `reader` (the `--replay` file at `path`), and keeps what it read in
/// `kept` when it is given, refusing more than its bound: how many events it holds, or an
/// error naming every bad line (the first [`BAD_LINES_SHOWN`]).
fn check(path: &Path, reader: impl BufRead, mut kept: Option<(&mut Vec<u8>, usize)>) -> anyhow::Result<usize> {
    let mut bad = Vec::new();
    let mut bad_count = 0;
    let mut events = 0;
    for (index, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read `{}`", path.display()))?;
        if let Some((kept, bound)) = kept.as_mut() {
            if kept.len() + line.len() + 1 > *bound {
                anyhow::bail!(
                    "--replay `{}` is not a file (a pipe?) and holds more than {} MiB, which is what is kept \
                     in memory to check it and then replay it; save it to a file and replay that",
                    path.display(),
                    *bound / (1024 * 1024)
                );
            }
            kept.extend_from_slice(line.as_bytes());
            kept.push(b'\n');
        }
        if line.trim().is_empty() {
            continue;
        }
        // What `dev` serves at GET /v1/sessions/{id}/events, saved as it came.
        if events == 0 && bad_count == 0 && line.trim_start().starts_with('[') {
            anyhow::bail!(
                "--replay file `{0}` is a JSON array; --replay takes NDJSON, one event a line \
                 (jq -c '.[]' {0} > events.jsonl)",
                path.display()
            );
        }
        match ReplayLine::parse(&line) {
            Ok(_) => events += 1,
            Err(problem) => {
                bad_count += 1;
                if bad.len() < BAD_LINES_SHOWN {
                    bad.push(format!("  {}:{}: {problem}", path.display(), index + 1));
                }
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
    if events == 0 {
        // An empty file or pipe is a mistake upstream (a recording that failed, a wrong
        // path), not a replay that went well.
        anyhow::bail!(
            "--replay file `{}` holds no events (it is empty, or only blank lines); nothing was recorded",
            path.display()
        );
    }
    Ok(events)
}

impl Iterator for ReplayFile {
    type Item = anyhow::Result<Envelope>;

    fn next(&mut self) -> Option<Self::Item> {
        // What was checked, and no more (a run whose `--json` output is appended to the file
        // it replays would otherwise never end).
        if self.given >= self.checked {
            return None;
        }
        let lines = self.lines.as_mut()?;
        loop {
            let line = match lines.next() {
                Some(Ok(line)) => line,
                Some(Err(error)) => {
                    return Some(Err(
                        anyhow::Error::new(error).context(format!("cannot read `{}`", self.path.display()))
                    ));
                }
                None => {
                    let error = self.cut_short();
                    self.given = self.checked;
                    return Some(Err(error));
                }
            };
            self.line += 1;
            if line.trim().is_empty() {
                continue;
            }
            // Checked when opened: a line that fails now was changed during the replay.
            return Some(match ReplayLine::parse(&line) {
                Ok(line) => {
                    self.given += 1;
                    Ok(self.envelope(line))
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &str = "{\"type\":\"message.received\",\"data\":{\"text\":\"hi\"}}\r\n\n\
                          {\"type\":\"turn.completed\",\"data\":{}}";

    #[test]
    fn what_a_pipe_held_is_kept_line_by_line_as_it_is_checked() {
        let mut kept = Vec::new();
        assert_eq!(check(Path::new("p"), EVENTS.as_bytes(), Some((&mut kept, 1024))).unwrap(), 2);
        let kept = String::from_utf8(kept).unwrap();
        assert_eq!(kept.lines().collect::<Vec<_>>(), EVENTS.lines().collect::<Vec<_>>());
        assert_eq!(check(Path::new("p"), EVENTS.as_bytes(), None).unwrap(), 2, "a file is only checked");
    }

    #[test]
    fn a_pipe_that_holds_more_than_is_kept_is_refused_saying_what_to_do() {
        let mut kept = Vec::new();
        let error = check(Path::new("/dev/stdin"), EVENTS.as_bytes(), Some((&mut kept, 60))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--replay `/dev/stdin` is not a file (a pipe?) and holds more than 0 MiB, which is what is kept in memory \
             to check it and then replay it; save it to a file and replay that"
        );
    }
}
