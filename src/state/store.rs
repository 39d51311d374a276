//! The local state store: one SQLite database under `<dir>/.agent-sdk/`, holding every
//! session's event log and serve log, who each `dev` session is, the agent's key-value
//! store, reminders and artifacts.
//!
//! SQLite (bundled) because it is one file, safe with concurrent processes (WAL), and
//! anyone can inspect it with `sqlite3 .agent-sdk/state.db`. Every write commits before
//! the caller goes on, so an event is durable before any hook sees it.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};

use crate::state::envelope::Envelope;
use crate::state::handler_run::{HandlerRun, Outcome};
use crate::state::log_record::Record;
use crate::state::session_info::SessionInfo;

/// The folder under `--dir` that holds local state.
pub const STATE_DIR: &str = ".agent-sdk";

/// The state root, `<dir>/.agent-sdk/`, and every path agent-sdk keeps in it: the one
/// place that knows the layout of the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateRoot {
    path: PathBuf,
}

impl StateRoot {
    /// Where the state root of the project at `dir` is; nothing is created (for readers).
    pub fn of(dir: &Path) -> Self {
        Self { path: dir.join(STATE_DIR) }
    }

    /// The state root of the project at `dir`, created on demand (mode 0700) with its own
    /// `.gitignore` (see [`ignore_in_git`]), as an absolute path.
    pub fn create(dir: &Path) -> std::io::Result<Self> {
        Self::create_at(&dir.join(STATE_DIR))
    }

    /// A state root at `path` itself, created on demand as [`StateRoot::create`] makes a
    /// project's: the one `validate`, `info` and the editor keep in the user's cache folder
    /// ([`super::user_cache`]), so that a check writes nothing into the project.
    pub fn create_at(path: &Path) -> std::io::Result<Self> {
        crate::fs::create_private_dir_all(path)?;
        ignore_in_git(path)?;
        Ok(Self { path: path.canonicalize()? })
    }

    /// The folder itself (`ctx.stateRoot`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `state.db`: the SQLite store.
    pub fn database(&self) -> PathBuf {
        self.path.join("state.db")
    }

    /// `runtime/`: the hook runtime's own files (`host.mjs`, its loader, the SDK).
    pub fn runtime(&self) -> PathBuf {
        self.path.join("runtime")
    }

    /// `cache/`: compiled modules.
    pub fn cache(&self) -> PathBuf {
        self.path.join("cache")
    }

    /// `files/`: what `ctx.host.files` keeps (`sessions/<id>/` and `deployment/`).
    pub fn files(&self) -> PathBuf {
        self.path.join("files")
    }

    /// `sessions/`: the sessions' lock files.
    pub fn sessions(&self) -> PathBuf {
        self.path.join("sessions")
    }

    /// `dev.json`: the dev server's URL and token.
    pub fn dev_file(&self) -> PathBuf {
        self.path.join("dev.json")
    }

    /// `chat.json`: the continuation tokens of the sessions `chat` started, by server.
    pub fn chat_file(&self) -> PathBuf {
        self.path.join("chat.json")
    }
}

/// What the state root's own `.gitignore` says: everything in it.
const GITIGNORE: &str = "# Written by agent-sdk: its local state (event log, dev token) is never committed.\n*\n";

/// Writes `<root>/.gitignore` (`*`) when the state root has none, as ruff does for its
/// cache and uv for a virtual environment: the event log and the dev token stay out of git
/// even in a project whose own `.gitignore` does not name `.agent-sdk/`. One that exists,
/// whatever it says, is the user's and is left alone.
fn ignore_in_git(root: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let path = root.join(".gitignore");
    if path.symlink_metadata().is_ok() {
        return Ok(());
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(mut file) => file.write_all(GITIGNORE.as_bytes()),
        // Another agent-sdk wrote it first.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
}

/// One recorded serve-log line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRow {
    pub cursor: u64,
    pub at: String,
    pub level: String,
    pub message: String,
    pub session_id: Option<String>,
    pub turn_id: Option<String>,
    pub hook: Option<String>,
    pub event: Option<String>,
}

/// An open state store.
pub struct StateStore {
    connection: Connection,
    root: StateRoot,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL,
    idx        INTEGER NOT NULL,
    turn_id    TEXT,
    type       TEXT NOT NULL,
    at         TEXT NOT NULL,
    data       TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dispatched (
    session_id TEXT PRIMARY KEY,
    through    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS undelivered (
    session_id  TEXT NOT NULL,
    from_idx    INTEGER NOT NULL,
    through_idx INTEGER NOT NULL,
    PRIMARY KEY (session_id, from_idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS serve_log (
    cursor     INTEGER PRIMARY KEY AUTOINCREMENT,
    at         TEXT NOT NULL,
    level      TEXT NOT NULL,
    message    TEXT NOT NULL,
    session_id TEXT,
    turn_id    TEXT,
    hook       TEXT,
    event      TEXT
);
CREATE TABLE IF NOT EXISTS serve_log_identity (
    id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    purpose    TEXT NOT NULL,
    mode       TEXT NOT NULL,
    title      TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS http_sessions (
    session_id         TEXT PRIMARY KEY,
    principal          TEXT NOT NULL,
    continuation_token TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS handler_runs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    idx        INTEGER NOT NULL,
    type       TEXT NOT NULL,
    hook       TEXT NOT NULL,
    handler    TEXT NOT NULL,
    outcome    TEXT NOT NULL,
    ms         REAL,
    error      TEXT,
    at         TEXT
);
CREATE INDEX IF NOT EXISTS handler_runs_of_session ON handler_runs (session_id, id);
CREATE TABLE IF NOT EXISTS kv (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reminders (
    session_id TEXT NOT NULL,
    at         TEXT NOT NULL,
    note       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS artifacts (
    session_id TEXT NOT NULL,
    turn_id    TEXT,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL
);
";

/// A serve-log line, recorded with its cursor and the time it was recorded.
const APPEND_LOG: &str = "INSERT INTO serve_log (at, level, message, session_id, turn_id, hook, event) \
     VALUES (COALESCE(?1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), ?2, ?3, ?4, ?5, ?6, ?7) RETURNING cursor, at";

impl StateStore {
    /// Opens (creating on demand) the store of the project at `dir`.
    pub fn open(dir: &Path) -> anyhow::Result<Self> {
        Self::open_root(StateRoot::create(dir)?)
    }

    /// Opens (creating on demand) the store kept in the state root `root`.
    pub fn open_root(root: StateRoot) -> anyhow::Result<Self> {
        let connection = Connection::open(root.database())?;
        connection.busy_handler(Some(wait_for_the_write_lock))?;
        use_write_ahead_log(&connection)?;
        // NORMAL in WAL mode: a commit survives the process dying; only a power cut
        // can lose the last commits.
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        // Closing the last connection would checkpoint the log into the database (and sync
        // both to disk) on the way out of every `run`: the log is checkpointed as it grows
        // instead (every 1,000 pages, by the commit that crosses them), and a connection
        // opened later reads it as it is.
        connection.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        connection.execute_batch(SCHEMA)?;
        Ok(Self { connection, root })
    }

    /// The state root it lives in.
    pub fn root(&self) -> &StateRoot {
        &self.root
    }

    /// Records who the session `session_id` is (`dev`'s `POST /v1/sessions`).
    pub fn record_session(&self, session_id: &str, info: &SessionInfo) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT OR REPLACE INTO sessions (session_id, purpose, mode, title, created_at)
             VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
            params![session_id, info.purpose.as_str(), info.mode.as_str(), info.title],
        )?;
        Ok(())
    }

    /// The sessions recorded with [`StateStore::record_session`], newest first, at most
    /// `limit`: each one's id, description, when it was created and how many events it has.
    pub fn recent_sessions(&self, limit: u32) -> anyhow::Result<Vec<(String, SessionInfo, String, u64)>> {
        let mut query = self.connection.prepare_cached(
            "SELECT s.session_id, s.purpose, s.mode, s.title, s.created_at, \
             (SELECT COUNT(*) FROM events e WHERE e.session_id = s.session_id) \
             FROM sessions s ORDER BY s.created_at DESC, s.rowid DESC LIMIT ?1",
        )?;
        let rows = query.query_map([limit], |row| {
            let info = SessionInfo::from_stored(&row.get::<_, String>(1)?, &row.get::<_, String>(2)?, row.get(3)?);
            Ok((row.get(0)?, info, row.get(4)?, row.get::<_, i64>(5)? as u64))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records who started the session over the hosting API (`POST /v1/session`) and the
    /// continuation token its next follow-up must bring.
    pub fn record_http_session(&self, session_id: &str, principal: &str, token: &str) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT OR REPLACE INTO http_sessions (session_id, principal, continuation_token) VALUES (?1, ?2, ?3)",
            params![session_id, principal, token],
        )?;
        Ok(())
    }

    /// The session a continuation token is current for, with who started it; `None` for a
    /// token that is no session's current one (it rotated, or never was).
    pub fn http_session_of_token(&self, token: &str) -> anyhow::Result<Option<(String, String)>> {
        Ok(self
            .connection
            .query_row(
                "SELECT session_id, principal FROM http_sessions WHERE continuation_token = ?1",
                params![token],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?)
    }

    /// Who started the session over the hosting API; `None` for one started otherwise.
    pub fn http_session_principal(&self, session_id: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .connection
            .query_row("SELECT principal FROM http_sessions WHERE session_id = ?1", params![session_id], |row| {
                row.get(0)
            })
            .optional()?)
    }

    /// Replaces the session's continuation token `old` by `new`: false when `old` is no
    /// longer its token (another follow-up took it first).
    pub fn rotate_continuation_token(&self, session_id: &str, old: &str, new: &str) -> anyhow::Result<bool> {
        let changed = self.connection.execute(
            "UPDATE http_sessions SET continuation_token = ?3 WHERE session_id = ?1 AND continuation_token = ?2",
            params![session_id, old, new],
        )?;
        Ok(changed == 1)
    }

    /// The session's events from index `from` on, in order.
    pub fn events_from(&self, session_id: &str, from: u64) -> anyhow::Result<Vec<Envelope>> {
        let mut query = self.connection.prepare_cached(
            "SELECT idx, turn_id, type, at, data FROM events WHERE session_id = ?1 AND idx >= ?2 ORDER BY idx",
        )?;
        let rows = query.query_map(params![session_id, from as i64], |row| envelope(session_id, row))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records how a handler of one of the session's events ran (a `dev` session's timeline).
    pub fn record_handler_run(&self, session_id: &str, run: &HandlerRun) -> anyhow::Result<()> {
        let mut insert = self.connection.prepare_cached(
            "INSERT INTO handler_runs (session_id, idx, type, hook, handler, outcome, ms, error, at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        insert.execute(params![
            session_id,
            run.event as i64,
            run.event_type,
            run.hook,
            run.handler,
            run.outcome.as_str(),
            run.ms,
            run.error,
            run.at
        ])?;
        Ok(())
    }

    /// The session's handler runs recorded after the one numbered `after` (0: from the
    /// first), in the order they ended, each with its number.
    pub fn handler_runs_after(&self, session_id: &str, after: u64) -> anyhow::Result<Vec<(u64, HandlerRun)>> {
        let mut query = self.connection.prepare_cached(
            "SELECT id, idx, type, hook, handler, outcome, ms, error, at FROM handler_runs \
             WHERE session_id = ?1 AND id > ?2 ORDER BY id",
        )?;
        let rows = query.query_map(params![session_id, after as i64], |row| {
            Ok((
                row.get::<_, i64>(0)? as u64,
                HandlerRun {
                    event: row.get::<_, i64>(1)? as u64,
                    event_type: row.get(2)?,
                    hook: row.get(3)?,
                    handler: row.get(4)?,
                    outcome: Outcome::from_stored(&row.get::<_, String>(5)?),
                    ms: row.get(6)?,
                    error: row.get(7)?,
                    at: row.get(8)?,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Who the session is, when it was recorded with [`StateStore::record_session`].
    pub fn session_info(&self, session_id: &str) -> anyhow::Result<Option<SessionInfo>> {
        Ok(self
            .connection
            .query_row("SELECT purpose, mode, title FROM sessions WHERE session_id = ?1", params![session_id], |row| {
                Ok(SessionInfo::from_stored(&row.get::<_, String>(0)?, &row.get::<_, String>(1)?, row.get(2)?))
            })
            .optional()?)
    }

    /// The index the session's next event gets.
    pub fn next_index(&self, session_id: &str) -> anyhow::Result<u64> {
        let last: Option<i64> =
            self.connection
                .query_row("SELECT MAX(idx) FROM events WHERE session_id = ?1", [session_id], |row| row.get(0))?;
        Ok(last.map_or(0, |last| last as u64 + 1))
    }

    /// Records events in one transaction; they are durable when this returns. Their data is
    /// written out as JSON before the transaction begins: the write lock, which a hook's
    /// `kv.set` on another connection waits for, is held for the inserts alone.
    pub fn append(&self, events: &[Envelope]) -> anyhow::Result<()> {
        let data: Vec<String> = events.iter().map(|event| event.data.to_string()).collect();
        let transaction = Transaction::new_unchecked(&self.connection, TransactionBehavior::Immediate)?;
        {
            let mut insert = transaction.prepare_cached(
                "INSERT INTO events (session_id, idx, turn_id, type, at, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (event, data) in events.iter().zip(&data) {
                insert.execute(params![
                    event.session_id,
                    event.index as i64,
                    event.turn_id,
                    event.event_type,
                    event.at,
                    data
                ])?;
            }
        }
        transaction.commit()?;
        Ok(())
    }

    /// Every recorded event of a session, in index order.
    pub fn events(&self, session_id: &str) -> anyhow::Result<Vec<Envelope>> {
        let mut query = self
            .connection
            .prepare_cached("SELECT idx, turn_id, type, at, data FROM events WHERE session_id = ?1 ORDER BY idx")?;
        let rows = query.query_map([session_id], |row| envelope(session_id, row))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The conversation so far: each `message.received` (the user's, `true`) and
    /// `message.completed` (the agent's reply, `false`) text, in order.
    pub fn messages(&self, session_id: &str) -> anyhow::Result<Vec<(bool, String)>> {
        let mut query = self.connection.prepare_cached(
            "SELECT type = 'message.received', json_extract(data, '$.text') FROM events \
             WHERE session_id = ?1 AND type IN ('message.received', 'message.completed') ORDER BY idx",
        )?;
        let rows = query.query_map([session_id], |row| {
            Ok((row.get::<_, bool>(0)?, row.get::<_, Option<String>>(1)?.unwrap_or_default()))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Remembers that every event of the session up to `index` reached the hooks.
    pub fn mark_dispatched(&self, session_id: &str, index: u64) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT INTO dispatched (session_id, through) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET through = MAX(through, excluded.through)",
            params![session_id, index as i64],
        )?;
        Ok(())
    }

    /// Sets aside what the session recorded past its dispatched cursor: the events a process
    /// that ended before dispatching them left behind. They stay set aside (counted by
    /// [`StateStore::undelivered_count`]) until redelivered, and the cursor moves past
    /// them so that new events are dispatched as usual. Returns how many were set aside
    /// now. Called by the holder of the session's lease, before it records anything.
    pub fn set_aside_undispatched(&self, session_id: &str) -> anyhow::Result<u64> {
        let transaction = Transaction::new_unchecked(&self.connection, TransactionBehavior::Immediate)?;
        let through: Option<i64> = transaction
            .query_row("SELECT through FROM dispatched WHERE session_id = ?1", [session_id], |row| row.get(0))
            .optional()?;
        let from = through.map_or(0, |through| through + 1);
        let (count, last): (i64, Option<i64>) = transaction.query_row(
            "SELECT COUNT(*), MAX(idx) FROM events WHERE session_id = ?1 AND idx >= ?2",
            params![session_id, from],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        let Some(last) = last else { return Ok(0) };
        transaction.execute(
            "INSERT INTO undelivered (session_id, from_idx, through_idx) VALUES (?1, ?2, ?3)
             ON CONFLICT(session_id, from_idx) DO UPDATE SET through_idx = MAX(through_idx, excluded.through_idx)",
            params![session_id, from, last],
        )?;
        transaction.execute(
            "INSERT INTO dispatched (session_id, through) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET through = MAX(through, excluded.through)",
            params![session_id, last],
        )?;
        transaction.commit()?;
        Ok(count as u64)
    }

    /// How many of the session's recorded events are set aside, never dispatched.
    pub fn undelivered_count(&self, session_id: &str) -> anyhow::Result<u64> {
        let count: i64 = self.connection.query_row(
            "SELECT COUNT(*) FROM events e JOIN undelivered u
               ON u.session_id = e.session_id AND e.idx BETWEEN u.from_idx AND u.through_idx
             WHERE e.session_id = ?1",
            [session_id],
            |row| row.get(0),
        )?;
        Ok(count as u64)
    }

    /// Up to `limit` of the session's set-aside events after index `after`, in index order.
    pub fn undelivered_events(
        &self,
        session_id: &str,
        after: Option<u64>,
        limit: usize,
    ) -> anyhow::Result<Vec<Envelope>> {
        let mut query = self.connection.prepare_cached(
            "SELECT e.idx, e.turn_id, e.type, e.at, e.data FROM events e JOIN undelivered u
               ON u.session_id = e.session_id AND e.idx BETWEEN u.from_idx AND u.through_idx
             WHERE e.session_id = ?1 AND e.idx > ?2 ORDER BY e.idx LIMIT ?3",
        )?;
        let after = after.map_or(-1, |after| after as i64);
        let rows = query.query_map(params![session_id, after, limit as i64], |row| envelope(session_id, row))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Forgets the set-aside events up to index `through`: they were redelivered.
    pub fn forget_undelivered(&self, session_id: &str, through: u64) -> anyhow::Result<()> {
        self.connection.execute(
            "DELETE FROM undelivered WHERE session_id = ?1 AND through_idx <= ?2",
            params![session_id, through as i64],
        )?;
        Ok(())
    }

    /// Records one serve-log line, at the time it is recorded (read by SQLite once it holds
    /// the write lock, so the times of the log's lines grow with their cursors, whichever of
    /// many writers got there first), or at `record.at` when `as_written` (a line said
    /// before there was a store): its cursor, which only ever grows, and its time.
    pub fn append_log(&self, record: &Record, as_written: bool) -> anyhow::Result<(u64, String)> {
        let mut insert = self.connection.prepare_cached(APPEND_LOG)?;
        let at = as_written.then_some(record.at.as_str());
        let params = params![
            at,
            record.level.as_str(),
            record.message,
            record.session_id,
            record.turn_id,
            record.hook,
            record.event
        ];
        let (cursor, at) = insert.query_row(params, |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)))?;
        Ok((cursor as u64, at))
    }

    /// Readies [`StateStore::append_log`]'s statement, so that the first line it records
    /// (when the hooks have loaded, with the event waiting) does not compile it.
    pub fn ready_to_append_logs(&self) -> anyhow::Result<()> {
        self.connection.prepare_cached(APPEND_LOG)?;
        Ok(())
    }

    /// The serve log's identity, made the first time it is asked for: a log made again
    /// (a fresh state root) has another, so a client can tell that cursors started over.
    pub fn log_id(&self) -> anyhow::Result<String> {
        self.connection.execute(
            "INSERT INTO serve_log_identity (id) SELECT ?1 WHERE NOT EXISTS (SELECT 1 FROM serve_log_identity)",
            [crate::time::clock::new_id("log")],
        )?;
        Ok(self.connection.query_row("SELECT id FROM serve_log_identity LIMIT 1", [], |row| row.get(0))?)
    }

    /// The cursor of the newest serve-log line, 0 when there is none.
    pub fn newest_log_cursor(&self) -> anyhow::Result<u64> {
        let newest: i64 =
            self.connection.query_row("SELECT COALESCE(MAX(cursor), 0) FROM serve_log", [], |row| row.get(0))?;
        Ok(newest.unsigned_abs())
    }

    /// The ids of the sessions with serve-log lines whose id ends with `end` (the whole id
    /// included), in the order their first line was written.
    pub fn log_sessions_ending_with(&self, end: &str) -> anyhow::Result<Vec<String>> {
        let mut query = self.connection.prepare_cached(
            "SELECT session_id FROM serve_log WHERE session_id IS NOT NULL AND substr(session_id, -length(?1)) = ?1
             GROUP BY session_id ORDER BY MIN(cursor)",
        )?;
        let ids = query.query_map(params![end], |row| row.get(0))?;
        Ok(ids.collect::<Result<_, _>>()?)
    }

    /// Serve-log lines for `sql` (see `dev::logs`), bound to a cursor, optional `since`
    /// and session filters, a limit, and the hooks (a JSON array) the lines must be of.
    pub fn query_log(
        &self,
        sql: &str,
        after: u64,
        since: Option<&str>,
        session: Option<&str>,
        limit: u64,
        hooks: Option<&str>,
    ) -> anyhow::Result<Vec<LogRow>> {
        let mut query = self.connection.prepare_cached(sql)?;
        let rows = query.query_map(params![after as i64, since, session, limit as i64, hooks], |row| {
            Ok(LogRow {
                cursor: row.get::<_, i64>(0)? as u64,
                at: row.get(1)?,
                level: row.get(2)?,
                message: row.get(3)?,
                session_id: row.get(4)?,
                turn_id: row.get(5)?,
                hook: row.get(6)?,
                event: row.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn kv_get(&self, key: &str) -> anyhow::Result<Option<serde_json::Value>> {
        let mut query = self.connection.prepare_cached("SELECT value FROM kv WHERE key = ?1")?;
        let value: Option<String> = query.query_row([key], |row| row.get(0)).optional()?;
        Ok(value.map(|value| serde_json::from_str(&value).unwrap_or(serde_json::Value::Null)))
    }

    pub fn kv_set(&self, key: &str, value: &serde_json::Value) -> anyhow::Result<()> {
        // Cached: a hook's kv.set is one round trip a handler awaits, and parsing the
        // statement each time was a part of it.
        let mut upsert = self.connection.prepare_cached(
            "INSERT INTO kv (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )?;
        upsert.execute(params![key, value.to_string()])?;
        Ok(())
    }

    pub fn kv_delete(&self, key: &str) -> anyhow::Result<bool> {
        Ok(self.connection.prepare_cached("DELETE FROM kv WHERE key = ?1")?.execute([key])? > 0)
    }

    /// Keys starting with `prefix`, in byte order.
    pub fn kv_list(&self, prefix: &str) -> anyhow::Result<Vec<String>> {
        let mut query =
            self.connection.prepare_cached("SELECT key FROM kv WHERE substr(key, 1, ?2) = ?1 ORDER BY key")?;
        let keys = query.query_map(params![prefix, prefix.chars().count() as i64], |row| row.get(0))?;
        Ok(keys.collect::<Result<_, _>>()?)
    }

    pub fn reminder_set(&self, session_id: &str, at: &str, note: &str) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT INTO reminders (session_id, at, note) VALUES (?1, ?2, ?3)",
            params![session_id, at, note],
        )?;
        Ok(())
    }

    pub fn reminders(&self, session_id: &str) -> anyhow::Result<Vec<(String, String)>> {
        let mut query = self
            .connection
            .prepare_cached("SELECT at, note FROM reminders WHERE session_id = ?1 ORDER BY at, rowid")?;
        let rows = query.query_map([session_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn artifact_tag(
        &self,
        session_id: &str,
        turn_id: Option<&str>,
        name: &str,
        value: &serde_json::Value,
    ) -> anyhow::Result<()> {
        self.connection.execute(
            "INSERT INTO artifacts (session_id, turn_id, name, value) VALUES (?1, ?2, ?3, ?4)",
            params![session_id, turn_id, name, value.to_string()],
        )?;
        Ok(())
    }
}

/// How long a write waits for another connection's (another thread's, another process's)
/// before it fails: 10 s.
const WRITE_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Turns the store to WAL (it stays so: a store any process has opened is found in WAL).
/// The switch needs the file to itself, and while another process makes the same switch
/// SQLite refuses it at once ("database is locked", without asking the busy handler: cold
/// `run`s started together on a new project), so it is tried again, as the busy handler
/// would, while the patience lasts.
fn use_write_ahead_log(connection: &Connection) -> rusqlite::Result<()> {
    let mut attempt = 0;
    loop {
        match connection.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy && wait_for_the_write_lock(attempt) =>
            {
                attempt += 1;
            }
            switched => return switched,
        }
    }
}

/// SQLite's busy handler: whether to try again for the write lock another connection
/// holds, after a short sleep. The first retries come every 50 µs: the lock is mostly held
/// by a batch of recorded events, for about a millisecond, and a hook awaiting its `kv.set`
/// should get it as soon as that ends (SQLite's own timeout sleeps 1, 2, 5, 10 ms…, which
/// made a replay's `kv.set` round trips take milliseconds at p99); later ones every 1 ms.
fn wait_for_the_write_lock(attempt: i32) -> bool {
    const QUICK_RETRIES: i32 = 40;
    const QUICK: std::time::Duration = std::time::Duration::from_micros(50);
    const SLOW: std::time::Duration = std::time::Duration::from_millis(1);
    let waited = QUICK * attempt.min(QUICK_RETRIES) as u32 + SLOW * (attempt - QUICK_RETRIES).max(0) as u32;
    if waited >= WRITE_LOCK_PATIENCE {
        return false;
    }
    std::thread::sleep(if attempt < QUICK_RETRIES { QUICK } else { SLOW });
    true
}

/// An event row (`idx, turn_id, type, at, data`) of `session_id`.
fn envelope(session_id: &str, row: &Row) -> rusqlite::Result<Envelope> {
    let data: String = row.get(4)?;
    Ok(Envelope {
        index: row.get::<_, i64>(0)? as u64,
        turn_id: row.get(1)?,
        event_type: row.get(2)?,
        at: row.get(3)?,
        data: serde_json::from_str(&data).unwrap_or(serde_json::Value::Null),
        session_id: session_id.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::log_record::Level;

    /// Two writers: a line made first and recorded second is recorded after the other in
    /// cursor and in time alike (its time is when it was recorded), so `logs` never prints
    /// an earlier time after a later one.
    #[test]
    fn a_log_line_is_timed_when_it_is_recorded_so_times_grow_with_cursors() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (StateStore::open(dir.path()).unwrap(), StateStore::open(dir.path()).unwrap());
        let made_first = Record::new(Level::Info, "made first");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let made_second = Record::new(Level::Info, "made second");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (cursor_b, at_b) = second.append_log(&made_second, false).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let (cursor_a, at_a) = first.append_log(&made_first, false).unwrap();
        assert!(cursor_b < cursor_a);
        assert!(at_b < at_a, "{at_b} then {at_a}");
        assert!(made_first.at < at_b, "timed when recorded, not when made");
        assert_eq!(at_a.len(), "2026-12-02T02:00:10.123Z".len(), "{at_a}");
        // A line said before there was a store keeps its time.
        let (_, kept) = first.append_log(&made_first, true).unwrap();
        assert_eq!(kept, made_first.at);
    }

    /// Cold `run`s started together all open a store that does not exist yet: each turns it
    /// to WAL, which SQLite refuses at once ("database is locked", without asking the busy
    /// handler) while another process does the same; none fails for it. (Processes, as file
    /// locks are a process's: this test starts itself six times, each one opening the store
    /// as soon as a file says go.)
    #[test]
    fn stores_opened_together_on_a_new_database_all_open() {
        const OPENER: &str = "AGENT_SDK_TEST_OPEN_STORE_AT";
        if let Some(dir) = std::env::var_os(OPENER) {
            let dir = PathBuf::from(dir);
            while !dir.join("go").exists() {
                std::thread::sleep(std::time::Duration::from_micros(100));
            }
            if let Err(error) = StateStore::open_root(StateRoot::create(&dir).unwrap()) {
                panic!("{error:#}");
            }
            return;
        }
        let this = std::env::current_exe().unwrap();
        for _ in 0..25 {
            let dir = tempfile::tempdir().unwrap();
            let openers: Vec<_> = (0..6)
                .map(|_| {
                    std::process::Command::new(&this)
                        .args(["--exact", "state::store::tests::stores_opened_together_on_a_new_database_all_open"])
                        .env(OPENER, dir.path())
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            std::thread::sleep(std::time::Duration::from_millis(30));
            std::fs::write(dir.path().join("go"), "").unwrap();
            for opener in openers {
                let opened = opener.wait_with_output().unwrap();
                // (libtest says a failure on stdout.)
                assert!(opened.status.success(), "{}", String::from_utf8_lossy(&opened.stdout));
            }
        }
    }
}
