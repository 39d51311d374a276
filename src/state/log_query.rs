//! The serve log's query, read the same by the `dev` server's `GET /v1/logs` and by the
//! `logs` client when no server answers: the filters a request gives (`since`, `tail`,
//! `session`, `level`, `hook`), checked once ([`LogRequest`]), and the lines of the store
//! that match, a page at a time, each with its cursor.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::state::StateStore;
use crate::state::log_record::Level;
use crate::time::clock::format_timestamp;

/// Lines read from the store per query.
pub const PAGE: u64 = 500;

#[derive(Debug, Default, Deserialize)]
pub struct LogQuery {
    #[serde(default)]
    pub follow: bool,
    pub since: Option<String>,
    pub session: Option<String>,
    pub level: Option<String>,
    pub tail: Option<u64>,
    /// `hook=` (repeatable): only lines of these hooks. Read from the raw query string,
    /// as a form decoder keeps one value per key.
    #[serde(skip)]
    pub hooks: Vec<String>,
}

impl LogQuery {
    /// Every `hook=` of the query string `raw`.
    pub fn hooks_of(raw: Option<&str>) -> Vec<String> {
        let pairs = form_urlencoded::parse(raw.unwrap_or_default().as_bytes());
        pairs.filter(|(key, _)| key == "hook").map(|(_, value)| value.into_owned()).collect()
    }
}

/// A checked request: what to send, from where, and whether to keep following.
#[derive(Debug, Clone)]
pub struct LogRequest {
    pub filter: Filter,
    pub start: Start,
    pub follow: bool,
}

/// Where the history starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Every line that matches.
    Beginning,
    /// Right after this cursor (`Last-Event-ID`).
    After(u64),
    /// The last `n` matching lines; `0` is none (only what comes next, like `tail -n 0`).
    Tail(u64),
}

impl LogRequest {
    /// Checks the query and the `Last-Event-ID` header; a bad one is a 400 with this message.
    pub fn parse(query: &LogQuery, last_event_id: Option<&[u8]>) -> Result<Self, String> {
        let filter = Filter::parse(query)?;
        let start = match (last_event_id.map(parse_last_event_id).transpose()?.flatten(), query.tail) {
            (Some(after), _) => Start::After(after),
            (None, Some(tail)) => Start::Tail(tail),
            (None, None) => Start::Beginning,
        };
        Ok(Self { filter, start, follow: query.follow })
    }
}

/// A cursor is a whole number up to `i64::MAX` (SQLite's integers); an empty header is none.
fn parse_last_event_id(value: &[u8]) -> Result<Option<u64>, String> {
    let text = std::str::from_utf8(value).unwrap_or("\u{fffd}").trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<i64>() {
        Ok(cursor) if cursor >= 0 => Ok(Some(cursor.unsigned_abs())),
        _ => Err(format!(
            "`Last-Event-ID: {}` is not a cursor of this log (a whole number from 0 to {})",
            crate::text::untrusted::escape(text),
            i64::MAX
        )),
    }
}

/// The filters, checked.
#[derive(Debug, Clone)]
pub struct Filter {
    /// RFC 3339 lower bound on `at` (same format everywhere, so strings compare as times).
    since: Option<String>,
    pub session: Option<String>,
    /// The hooks named (none: every line), as a JSON array for SQLite's `json_each`.
    hooks: Option<String>,
    levels: Vec<&'static str>,
}

impl Filter {
    pub fn parse(query: &LogQuery) -> Result<Self, String> {
        let since = query.since.as_deref().map(since_bound).transpose()?;
        if let Some(session) = &query.session {
            crate::state::session_id::check_session_id(session)?;
        }
        // Exactly as the store spells them: `?level=WARN` is no level.
        let least = match query.level.as_deref() {
            None => Level::Debug,
            Some(text) => Level::from_stored(text)
                .ok_or_else(|| format!("unknown level `{text}` (use debug, info, warn or error)"))?,
        };
        let levels = least.and_above().map(Level::as_str).collect();
        let hooks = (!query.hooks.is_empty()).then(|| json!(query.hooks).to_string());
        Ok(Self { since, session: query.session.clone(), hooks, levels })
    }
}

/// The session `given` names: an id of the log as it is, else the one session whose id ends
/// with it (the tag `logs` and `dev` print, `43c2d23a`); an error listing them when several
/// do. One that names no session yet is kept as it is (a session still to come is followed).
pub fn resolve_session(store: &StateStore, given: Option<&str>) -> anyhow::Result<Result<Option<String>, String>> {
    let Some(given) = given else { return Ok(Ok(None)) };
    let ending = store.log_sessions_ending_with(given)?;
    if ending.iter().any(|id| id == given) {
        return Ok(Ok(Some(given.to_owned())));
    }
    Ok(match ending.as_slice() {
        [] => Ok(Some(given.to_owned())),
        [one] => Ok(Some(one.clone())),
        many => {
            const SHOWN: usize = 5;
            let mut listed = many.iter().take(SHOWN).map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ");
            if many.len() > SHOWN {
                listed.push_str(&format!(" and {} more", many.len() - SHOWN));
            }
            Err(format!("`{given}` ends the ids of {} sessions ({listed}); give more of the one you mean", many.len()))
        }
    })
}

/// `10m`, `2h`, `30s` ago, or an RFC 3339 time (as [`crate::time::since::parse_since`] reads
/// it), as the `at` it compares with. An age older than the clock reaches back before any
/// line (every line matches).
fn since_bound(text: &str) -> Result<String, String> {
    let since = crate::time::since::parse_since(text)?;
    Ok(format_timestamp(since.lower_bound(jiff::Timestamp::now())))
}

/// Which lines a query reads.
pub enum QueryFrom {
    /// The next page after a cursor.
    After(u64),
    /// The last `n`.
    Tail(u64),
}

/// The cursor the history starts after.
pub fn start_cursor(store: &StateStore, filter: &Filter, start: Start) -> anyhow::Result<u64> {
    Ok(match start {
        Start::Beginning => 0,
        Start::After(cursor) => cursor,
        // The newest cursor of the whole log (0 when it is empty), whatever the filter.
        Start::Tail(0) => store.newest_log_cursor()?,
        // Just before the first of the last `n` matching lines (if there are none, no
        // older line matches at all, so starting at 0 shows nothing old).
        Start::Tail(n) => query(store, filter, &QueryFrom::Tail(n))?.first().map_or(0, |(cursor, _)| cursor - 1),
    })
}

/// The history `request` asks for, read straight from `store` a page at a time and handed
/// to `each` with its cursor, in order: the records `GET /v1/logs` would send, without
/// following (what `logs` prints when no server answers).
pub fn read_history(
    store: &StateStore,
    request: &LogRequest,
    mut each: impl FnMut(u64, Value) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut filter = request.filter.clone();
    filter.session = resolve_session(store, filter.session.as_deref())?.map_err(crate::exit_status::Exit::usage)?;
    let mut cursor = start_cursor(store, &filter, request.start)?;
    loop {
        let rows = query(store, &filter, &QueryFrom::After(cursor))?;
        let full_page = rows.len() as u64 == PAGE;
        for (line_cursor, record) in rows {
            cursor = line_cursor;
            each(line_cursor, record)?;
        }
        if !full_page {
            return Ok(());
        }
    }
}

/// Lines matching `filter`: the next page after a cursor, or the last `n`.
pub fn query(store: &StateStore, filter: &Filter, from: &QueryFrom) -> anyhow::Result<Vec<(u64, Value)>> {
    let levels = filter.levels.iter().map(|level| format!("'{level}'")).collect::<Vec<_>>().join(",");
    // SQLite's integers are i64: a longer tail is all of the log anyway.
    let (after, order, limit) = match from {
        QueryFrom::After(cursor) => (*cursor, "ASC", PAGE),
        QueryFrom::Tail(n) => (0, "DESC", (*n).min(i64::MAX.unsigned_abs())),
    };
    let sql = format!(
        "SELECT cursor, at, level, message, session_id, turn_id, hook, event FROM serve_log
         WHERE cursor > ?1 AND (?2 IS NULL OR at >= ?2) AND (?3 IS NULL OR session_id = ?3) AND level IN ({levels})
           AND (?5 IS NULL OR hook IN (SELECT value FROM json_each(?5)))
         ORDER BY cursor {order} LIMIT ?4"
    );
    let mut rows = store.query_log(
        &sql,
        after,
        filter.since.as_deref(),
        filter.session.as_deref(),
        limit,
        filter.hooks.as_deref(),
    )?;
    if matches!(from, QueryFrom::Tail(_)) {
        rows.reverse();
    }
    Ok(rows
        .into_iter()
        .map(|row| {
            let mut record = json!({ "cursor": row.cursor, "at": row.at, "level": row.level, "message": row.message });
            for (key, value) in
                [("sessionId", row.session_id), ("turnId", row.turn_id), ("hook", row.hook), ("event", row.event)]
            {
                if let Some(value) = value {
                    record[key] = json!(value);
                }
            }
            (row.cursor, record)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_durations_and_times() {
        assert_eq!(since_bound("2026-11-30T05:00:00.000Z").unwrap(), "2026-11-30T05:00:00.000Z");
        assert_eq!(since_bound("2026-11-30T05:00:00Z").unwrap(), "2026-11-30T05:00:00.000Z");
        assert_eq!(since_bound("2026-11-30T06:00:00+01:00").unwrap(), "2026-11-30T05:00:00.000Z");
        assert!(since_bound("10m").unwrap().ends_with('Z'));
        assert!(since_bound("1h 30m").unwrap().ends_with('Z'));
        assert!(since_bound("yesterday").is_err());
    }

    #[test]
    fn a_last_event_id_is_a_cursor_or_refused() {
        assert_eq!(parse_last_event_id(b" 42 "), Ok(Some(42)));
        assert_eq!(parse_last_event_id(b""), Ok(None));
        assert_eq!(parse_last_event_id(b"9223372036854775807"), Ok(Some(9_223_372_036_854_775_807)));
        for bad in [&b"9223372036854775808"[..], b"-1", b"1e3", b"\xff"] {
            assert!(parse_last_event_id(bad).is_err(), "{bad:?}");
        }
        assert_eq!(since_bound("7304484d").unwrap(), "0000-01-01T00:00:00.000Z", "before any line");
    }

    #[test]
    fn levels_are_a_minimum() {
        let filter = Filter::parse(&LogQuery { level: Some("warn".into()), ..LogQuery::default() }).unwrap();
        assert_eq!(filter.levels, ["warn", "error"]);
        assert!(Filter::parse(&LogQuery { level: Some("loud".into()), ..LogQuery::default() }).is_err());
    }
}
