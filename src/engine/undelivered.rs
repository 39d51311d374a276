//! Recorded events a session's hooks never saw: a process that recorded them ended (a
//! crash, `kill -9`) before dispatching them. Whoever takes the session next sets them
//! aside and says how many; delivery stays at most once unless `run --redeliver` asks to
//! dispatch them.

use crate::engine::hooks::Hooks;
use crate::state::StateStore;

/// Set-aside events read per query when redelivering.
const REDELIVER_BATCH: usize = 512;

/// What a session has that its hooks never saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undelivered {
    /// Every set-aside event of the session.
    pub count: u64,
    /// How many of them were found just now (left by the process before this one).
    pub found_now: u64,
}

impl Undelivered {
    /// Sets aside what the session's previous process recorded and never dispatched, and
    /// counts everything set aside so far. Call it holding the session's lease, before
    /// recording.
    pub fn take_stock(store: &StateStore, session_id: &str) -> anyhow::Result<Self> {
        let found_now = store.set_aside_undispatched(session_id)?;
        Ok(Self { count: store.undelivered_count(session_id)?, found_now })
    }

    /// The serve-log warning that says so, when there are any.
    pub fn warning(&self, session_id: &str) -> Option<String> {
        let events = match self.count {
            0 => return None,
            1 => "1 recorded event".to_owned(),
            count => format!("{count} recorded events"),
        };
        Some(format!(
            "session {session_id} has {events} its hooks never saw (the process that recorded them ended before \
             dispatching them); run --session {session_id} --redeliver to dispatch them"
        ))
    }
}

/// Dispatches every set-aside event of the session, in index order, waits until the hooks
/// have seen them, and forgets them; returns how many. Interrupted (a crash), they stay
/// set aside and a later redelivery hands them again: redelivery is at least once.
pub fn redeliver(store: &StateStore, session_id: &str, hooks: &mut dyn Hooks) -> anyhow::Result<u64> {
    let mut count = 0;
    let mut last = None;
    loop {
        let batch = store.undelivered_events(session_id, last, REDELIVER_BATCH)?;
        if batch.is_empty() {
            break;
        }
        for envelope in batch {
            last = Some(envelope.index);
            count += 1;
            hooks.dispatch_in(envelope, None)?;
        }
    }
    hooks.finish()?;
    if let Some(through) = last {
        store.forget_undelivered(session_id, through)?;
    }
    Ok(count)
}
