//! One log record as it reaches the user: a human line
//! (`2026-11-30T05:52:01.123Z WARN  [c3d4e5f6] [hook "pager"] message`) or an NDJSON line
//! (the server's record with its cursor added as `id`).
//!
//! Times are shown in the machine's time zone with its offset
//! (`2026-11-30T07:52:01.123+01:00`), or in UTC with `Z` under `--utc`.

use owo_colors::OwoColorize;
use serde_json::{Map, Value};

use crate::printer::Printer;
use crate::state::log_record::Level;
use crate::text::untrusted::escape;
use crate::time::clock::format_timestamp;
use crate::time::since::parse_rfc3339;

/// One record from the stream: its cursor and the JSON object the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    /// The SSE `id:`, else the record's own `cursor`.
    pub cursor: u64,
    pub fields: Map<String, Value>,
}

/// The fields every record has as text (besides its cursor).
const TEXT_FIELDS: [&str; 3] = ["at", "level", "message"];

impl LogRecord {
    /// Reads one SSE event: `id:` the cursor, `data:` one JSON object with a record's fields
    /// (any other JSON is not a line of the log, and printing it would make one up).
    pub fn from_event(id: &str, data: &str) -> Result<Self, String> {
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(data) else {
            return Err("the server sent a record that is not a JSON object".to_owned());
        };
        let cursor = id.trim().parse().ok().or_else(|| fields.get("cursor").and_then(Value::as_u64));
        let has_text = |key: &&str| fields.get(*key).is_some_and(Value::is_string);
        match cursor {
            Some(cursor) if TEXT_FIELDS.iter().all(has_text) => Ok(Self { cursor, fields }),
            _ => Err("the server sent a JSON object that is not a log record (a record has a cursor, `at`, `level` and `message`)"
                .to_owned()),
        }
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }
}

/// Human lines (coloured or not) or NDJSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Human { color: bool, utc: bool },
    Json,
}

/// Where records are printed, and how. Lines are gathered while more are already waiting
/// and written together by [`Output::flush`], which the follower calls before it waits for
/// the network, so a pipe never waits on a line that has arrived.
#[derive(Debug)]
pub struct Output<'a> {
    pub printer: &'a Printer,
    pub style: Style,
    pending: String,
    /// How many records were printed, for the caller to read once the output is gone.
    printed: &'a std::cell::Cell<usize>,
}

impl<'a> Output<'a> {
    pub fn new(printer: &'a Printer, style: Style, printed: &'a std::cell::Cell<usize>) -> Self {
        Self { printer, style, pending: String::new(), printed }
    }

    /// Adds one record's line to what the next flush writes.
    pub fn print(&mut self, record: &LogRecord) -> anyhow::Result<()> {
        let line = match self.style {
            Style::Human { color, utc } => {
                let zone = if utc { None } else { Some(jiff::tz::TimeZone::system()) };
                human_line(record, color, zone.as_ref())
            }
            Style::Json => json_line(record)?,
        };
        self.pending.push_str(&line);
        self.printed.set(self.printed.get() + 1);
        Ok(())
    }

    /// Writes what was gathered; a closed stdout comes back as the printer's error.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        if !self.pending.is_empty() {
            self.printer.stdout(&self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }
}

/// `<time> <LEVEL> [<session>] [hook "<name>"] <message>\n`, the brackets only when known.
/// Times in `zone`, or in UTC when it is `None`.
pub fn human_line(record: &LogRecord, color: bool, zone: Option<&jiff::tz::TimeZone>) -> String {
    let time = display_time(record.text("at").unwrap_or("-"), zone);
    let level = record.text("level").unwrap_or("info");
    let mut line =
        if color { format!("{} {}", time.dimmed(), colored_label(level)) } else { format!("{time} {}", label(level)) };
    if let Some(session) = record.text("sessionId") {
        line.push_str(&format!(" [{}]", crate::state::session_id::session_tag(session)));
    }
    if let Some(hook) = record.text("hook").filter(|hook| !names_hook(record.text("message"), hook)) {
        line.push_str(&format!(" [hook \"{}\"]", escape(hook)));
    }
    // Each line of the message gets the prefix, as in the serve log itself.
    crate::text::untrusted::prefixed_lines(&line, record.text("message").unwrap_or_default().trim_end_matches('\n'))
}

/// Whether the message already says which hook it is about (`hook "x": …`, `hook "x"
/// failed to load: …`): the serve log names the hook in its sentences, as `run` and `dev`
/// print them, so the `[hook "x"]` label would only say it twice.
fn names_hook(message: Option<&str>, hook: &str) -> bool {
    message.is_some_and(|message| message.contains(&format!("hook \"{hook}\"")))
}

/// The record with its cursor added as `id`, on one line.
pub fn json_line(record: &LogRecord) -> serde_json::Result<String> {
    let mut fields = record.fields.clone();
    fields.insert("id".to_owned(), Value::from(record.cursor));
    let mut line = serde_json::to_string(&fields)?;
    line.push('\n');
    Ok(line)
}

/// The record's time with milliseconds, in `zone` (else UTC); as given when it is not RFC 3339.
fn display_time(at: &str, zone: Option<&jiff::tz::TimeZone>) -> String {
    let Some(instant) = parse_rfc3339(at) else { return escape(at).into_owned() };
    match zone {
        Some(zone) => instant.to_zoned(zone.clone()).strftime("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
        None => format_timestamp(instant),
    }
}

/// The level in capitals, padded so messages line up (`INFO `, `ERROR`). A server may send
/// a level this version does not know: it is shown as sent.
fn label(level: &str) -> String {
    format!("{:<5}", escape(&level.to_ascii_uppercase()))
}

fn colored_label(level: &str) -> String {
    let label = label(level);
    match Level::from_stored(level) {
        Some(Level::Error) => label.red().bold().to_string(),
        Some(Level::Warn) => label.yellow().to_string(),
        Some(Level::Debug) => label.dimmed().to_string(),
        Some(Level::Info) | None => label.green().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(data: &str) -> LogRecord {
        LogRecord::from_event("42", data).unwrap()
    }

    #[test]
    fn the_human_line_has_time_level_session_hook_and_message() {
        let full = record(
            r#"{"cursor":42,"at":"2026-11-30T05:52:01.123Z","level":"warn","message":"pager: slow","sessionId":"ses_0193a1b2c3d4e5f6","turnId":"turn_1","hook":"audit/usage","event":"turn.failed"}"#,
        );
        assert_eq!(
            human_line(&full, false, None),
            "2026-11-30T05:52:01.123Z WARN  [c3d4e5f6] [hook \"audit/usage\"] pager: slow\n"
        );
        let named = record(
            r#"{"at":"2026-11-30T05:52:01.123Z","level":"info","message":"hook \"pager\": paging","hook":"pager"}"#,
        );
        assert_eq!(human_line(&named, false, None), "2026-11-30T05:52:01.123Z INFO  hook \"pager\": paging\n");
        let bare = record(r#"{"cursor":43,"at":"2026-11-30T05:52:01.123Z","level":"error","message":"boom"}"#);
        assert_eq!(human_line(&bare, false, None), "2026-11-30T05:52:01.123Z ERROR boom\n");
    }

    #[test]
    fn times_are_shown_in_utc_and_odd_ones_as_given() {
        let offset = record(r#"{"at":"2026-11-30T06:52:01.1+01:00","level":"info","message":"m"}"#);
        assert_eq!(human_line(&offset, false, None), "2026-11-30T05:52:01.100Z INFO  m\n");
        let odd = record(r#"{"at":"yesterday","level":"debug","message":"m","sessionId":"abc"}"#);
        assert_eq!(human_line(&odd, false, None), "yesterday DEBUG [abc] m\n");
    }

    #[test]
    fn local_times_carry_their_offset() {
        let line = record(r#"{"at":"2026-11-30T05:52:01.123Z","level":"info","message":"m"}"#);
        let plus_one = jiff::tz::TimeZone::fixed(jiff::tz::offset(1));
        assert_eq!(human_line(&line, false, Some(&plus_one)), "2026-11-30T06:52:01.123+01:00 INFO  m\n");
    }

    #[test]
    fn control_characters_cannot_reach_the_terminal() {
        let evil =
            record("{\"at\":\"2026-11-30T05:52:01Z\",\"level\":\"info\",\"message\":\"a\\u001b[31mb\\r\\nc\\n\"}");
        assert_eq!(
            human_line(&evil, false, None),
            "2026-11-30T05:52:01.000Z INFO  a\\u{1b}[31mb\\r\n2026-11-30T05:52:01.000Z INFO  | c\n"
        );
    }

    #[test]
    fn colour_only_when_asked() {
        let line = record(r#"{"at":"2026-11-30T05:52:01Z","level":"error","message":"boom"}"#);
        assert!(human_line(&line, true, None).contains('\u{1b}'));
        assert!(!human_line(&line, false, None).contains('\u{1b}'));
    }

    #[test]
    fn the_json_line_is_the_record_with_its_cursor_as_id() {
        let line = json_line(&record(r#"{"cursor":42,"at":"2026-11-30T05:52:01.123Z","level":"info","message":"hi"}"#))
            .unwrap();
        assert!(line.ends_with('\n') && !line.trim_end().contains('\n'));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"id":42,"cursor":42,"at":"2026-11-30T05:52:01.123Z","level":"info","message":"hi"})
        );
    }

    #[test]
    fn the_cursor_comes_from_the_sse_id_else_from_the_record() {
        let line = r#""at":"2026-11-30T05:52:01Z","level":"info","message":"m""#;
        assert_eq!(LogRecord::from_event("7", &format!(r#"{{"cursor":9,{line}}}"#)).unwrap().cursor, 7);
        assert_eq!(LogRecord::from_event("", &format!(r#"{{"cursor":9,{line}}}"#)).unwrap().cursor, 9);
        assert!(LogRecord::from_event("", &format!("{{{line}}}")).is_err(), "no cursor");
        assert!(LogRecord::from_event("1", "[1]").is_err());
        assert!(LogRecord::from_event("1", "not json").is_err());
    }

    #[test]
    fn a_json_object_without_a_record_s_fields_is_not_a_record() {
        for data in [
            r#"{"hello":"world"}"#,
            r#"{"at":"2026-11-30T05:52:01Z","level":"info"}"#,
            r#"{"at":"2026-11-30T05:52:01Z","level":"info","message":7}"#,
        ] {
            let refused = LogRecord::from_event("1", data).unwrap_err();
            assert!(refused.contains("a record has a cursor, `at`, `level` and `message`"), "{data}: {refused}");
        }
    }
}
