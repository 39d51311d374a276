//! The serve log: what the hook runtime did, one line per record, on stderr — as text for
//! people or as JSON records (`--log-format json`) for tools — and recorded in the state
//! store's `serve_log` table with a cursor that only grows (what `logs` will follow).

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

use crate::state::StateStore;
use crate::state::log_record::{Level, Record};

/// How the serve log is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-11-30T05:52:01.123Z INFO  message`
    Text,
    /// One JSON record a line.
    Json,
}

/// The `/v1/logs` response header that names the log its cursors belong to (see
/// [`StateStore::log_id`]): the server sends it, the `logs` client compares it.
pub const LOG_ID_HEADER: &str = "log-id";

/// The `/v1/logs` response header with the cursor its history starts after: a follower that
/// has printed no line yet (`--tail 0`) resumes from it after a dropped connection, so the
/// lines logged meanwhile (a restart's `stopping`, `stopped`, `serving`) are not skipped.
pub const LOG_CURSOR_HEADER: &str = "log-cursor";

/// A record as text: a line of its own for each line of its message, each with the time and
/// level (lines after the first marked `| `), and control characters made visible, so that
/// what a hook prints can neither forge a line of the log nor reach the terminal as an
/// escape sequence.
fn text_lines(record: &Record, tag_sessions: bool) -> String {
    let mut prefix = format!("{} {}", record.at, record.level.label());
    if let Some(session_id) = record.session_id.as_deref().filter(|_| tag_sessions) {
        prefix.push_str(&format!(" [{}]", crate::state::session_id::session_tag(session_id)));
    }
    crate::text::untrusted::prefixed_lines(&prefix, &record.message)
}

/// Where serve-log records go besides stderr and the store: the OpenTelemetry log exporter
/// (`crate::telemetry::Telemetry`), which sits above the store.
pub trait ExportRecords: Send + Sync {
    fn log(&self, record: &Record);
}

/// Writes serve-log records to stderr, each tagged with the session, and (once a state
/// store is attached) records them durably, each with a cursor.
pub struct ServeLog {
    format: LogFormat,
    session_id: Option<String>,
    /// Where records are kept; until it is attached they wait in `unrecorded`.
    store: Option<StateStore>,
    unrecorded: RefCell<Vec<Record>>,
    /// Told the cursor of every recorded line (the dev server's `/v1/logs` followers wait on it).
    newest: Option<Arc<tokio::sync::watch::Sender<u64>>>,
    /// `--quiet`: only warnings and errors reach stderr (every line is still recorded).
    quiet: bool,
    /// Where records are exported as OpenTelemetry log records, when they are.
    exporter: Option<Arc<dyn ExportRecords>>,
    /// Text lines of a session's records say which (`[43c2d23a]`, as `logs` prints them):
    /// `dev` serves many at once.
    tag_sessions: bool,
}

impl ServeLog {
    pub fn new(format: LogFormat) -> Self {
        Self {
            format,
            session_id: None,
            store: None,
            unrecorded: RefCell::new(Vec::new()),
            newest: None,
            quiet: false,
            exporter: None,
            tag_sessions: false,
        }
    }

    /// From now on each text line of a session's record names the session, as `logs` does.
    pub fn tag_sessions(&mut self) {
        self.tag_sessions = true;
    }

    /// `--quiet`: from now on only warnings and errors are written to stderr.
    pub fn quiet(&mut self) {
        self.quiet = true;
    }

    /// Announces the cursor of every line recorded from now on.
    pub fn notify(&mut self, newest: Arc<tokio::sync::watch::Sender<u64>>) {
        self.newest = Some(newest);
    }

    /// Records every line from now on (and those written so far) in `store`.
    pub fn record_to(&mut self, store: StateStore) {
        for record in self.unrecorded.take() {
            // The log must never stop a run; stderr already has the line.
            let _ = store.append_log(&record, true);
        }
        let _ = store.ready_to_append_logs();
        self.store = Some(store);
    }

    /// Exports every record from now on (and those written so far, which are still to be
    /// recorded) as an OpenTelemetry log record.
    pub fn export_to(&mut self, exporter: Arc<impl ExportRecords + 'static>) {
        self.unrecorded.borrow().iter().for_each(|record| exporter.log(record));
        self.exporter = Some(exporter);
    }

    pub fn for_session(&mut self, session_id: &str) {
        self.session_id = Some(session_id.to_owned());
    }

    pub fn write(&self, mut record: Record) {
        if record.session_id.is_none() {
            record.session_id.clone_from(&self.session_id);
        }
        match &self.store {
            Some(store) => {
                if let Ok((cursor, at)) = store.append_log(&record, false) {
                    // Said at the time it was recorded: the log's order and its times agree.
                    record.at = at;
                    if let Some(newest) = &self.newest {
                        newest.send_replace(cursor);
                    }
                }
            }
            None => self.unrecorded.borrow_mut().push(record.clone()),
        }
        if let Some(telemetry) = &self.exporter {
            telemetry.log(&record);
        }
        self.to_terminal(&record);
    }

    /// Writes `record` to stderr only, neither recorded nor exported: for what only whoever
    /// started the server may see (the playground's URL, which holds the token).
    pub fn terminal_only(&self, record: &Record) {
        self.to_terminal(record);
    }

    fn to_terminal(&self, record: &Record) {
        if self.quiet && matches!(record.level, Level::Debug | Level::Info) {
            return;
        }
        let line = match self.format {
            LogFormat::Text => text_lines(record, self.tag_sessions),
            LogFormat::Json => {
                let mut line = serde_json::to_string(record).unwrap_or_default();
                line.push('\n');
                line
            }
        };
        // The log goes to a terminal or a file the user chose; if that is gone there is
        // nowhere left to say so.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    pub fn info(&self, message: impl Into<String>) {
        self.write(Record::new(Level::Info, message));
    }

    pub fn warn(&self, message: impl Into<String>) {
        self.write(Record::new(Level::Warn, message));
    }

    pub fn error(&self, message: impl Into<String>) {
        self.write(Record::new(Level::Error, message));
    }
}
