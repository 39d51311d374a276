//! A project's state database (`.agent-sdk/state.db`) as the tests read it: with rusqlite,
//! as the library does, to check what `run` and `dev` recorded and to leave in it what a
//! crashed writer would.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

/// The store of the project at `dir` (rusqlite waits up to 5 s for a writer's lock).
pub fn open(dir: &Path) -> Connection {
    let path = dir.join(".agent-sdk/state.db");
    Connection::open(&path).unwrap_or_else(|error| panic!("{} opens: {error}", path.display()))
}

/// The recorded events of `session`: `(index, type)`, in order.
pub fn events(dir: &Path, session: &str) -> Vec<(u64, String)> {
    let store = open(dir);
    let mut query = store.prepare("SELECT idx, type FROM events WHERE session_id = ?1 ORDER BY idx").unwrap();
    query.query_map([session], |row| Ok((row.get(0)?, row.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// How far the store says `session`'s events reached the hooks (`None`: not at all).
pub fn dispatched_through(dir: &Path, session: &str) -> Option<u64> {
    open(dir)
        .query_row("SELECT through FROM dispatched WHERE session_id = ?1", [session], |row| row.get(0))
        .optional()
        .unwrap()
}

/// Records `events` (`(index, type, data)`) of turn `turn_id` in `session` without
/// dispatching them, as a writer that crashed in between leaves them.
pub fn insert_undispatched(dir: &Path, session: &str, turn_id: &str, events: &[(u64, &str, &str)]) {
    let mut store = open(dir);
    let transaction = store.transaction().unwrap();
    for (index, kind, data) in events {
        transaction
            .execute(
                "INSERT INTO events (session_id, idx, turn_id, type, at, data) \
                 VALUES (?1, ?2, ?3, ?4, '2026-11-30T00:00:00.000Z', ?5)",
                params![session, index, turn_id, kind, data],
            )
            .unwrap();
    }
    transaction.commit().unwrap();
}
