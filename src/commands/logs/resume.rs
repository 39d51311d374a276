//! The pure rules of reconnecting: how long to wait before the next try, and which records
//! of a resumed stream are new (a cursor only grows, so anything not past the last one
//! printed was printed already).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The first wait after a connection is lost.
pub const FIRST_DELAY: Duration = Duration::from_millis(100);
/// The longest wait between two tries.
pub const MAX_DELAY: Duration = Duration::from_secs(2);

/// Exponential backoff: 100 ms, 200 ms, 400 ms … 2 s, each shortened by up to a tenth so
/// that many clients of one restarted server do not all knock at the same instant.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { next: FIRST_DELAY }
    }
}

impl Backoff {
    /// The wait before the next try; `seed` picks the jitter (see [`clock_seed`]).
    pub fn next_delay(&mut self, seed: u32) -> Duration {
        let base = self.next;
        self.next = (base * 2).min(MAX_DELAY);
        let spread = u64::try_from(base.as_millis() / 10).unwrap_or(0);
        base - Duration::from_millis(u64::from(seed) % (spread + 1))
    }
}

/// Jitter from the clock's nanoseconds: enough to spread clients apart, no RNG needed.
pub fn clock_seed() -> u32 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|since| since.subsec_nanos()).unwrap_or_default()
}

/// Where the output stands: the cursor of the last record printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume {
    last_printed: Option<u64>,
}

impl Resume {
    /// Whether a record is new. One without a cursor cannot be placed, so it is shown.
    pub fn admits(&self, cursor: Option<u64>) -> bool {
        match (cursor, self.last_printed) {
            (Some(cursor), Some(last)) => cursor > last,
            _ => true,
        }
    }

    /// Notes that a record was printed.
    pub fn printed(&mut self, cursor: Option<u64>) {
        if let Some(cursor) = cursor {
            self.last_printed = Some(self.last_printed.map_or(cursor, |last| last.max(cursor)));
        }
    }

    /// The `Last-Event-ID` to resume after, once something was printed.
    pub fn last_event_id(&self) -> Option<u64> {
        self.last_printed
    }

    /// Before anything is printed: the history began after `cursor` (the server's
    /// `Log-Cursor`), so a reconnection resumes there.
    pub fn starts_after(&mut self, cursor: Option<u64>) {
        if self.last_printed.is_none() {
            self.last_printed = cursor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn millis(delays: impl Iterator<Item = Duration>) -> Vec<u128> {
        delays.map(|delay| delay.as_millis()).collect()
    }

    #[test]
    fn backoff_doubles_from_100_ms_up_to_2_s() {
        let mut backoff = Backoff::default();
        assert_eq!(millis((0..8).map(|_| backoff.next_delay(0))), [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
    }

    #[test]
    fn jitter_only_shortens_and_by_at_most_a_tenth() {
        for seed in [1, 7, 99, 12_345, u32::MAX] {
            let mut backoff = Backoff::default();
            for base in [100, 200, 400, 800, 1600, 2000, 2000] {
                let delay = backoff.next_delay(seed).as_millis();
                assert!(delay <= base && delay >= base - base / 10, "seed {seed}: {delay} for {base}");
            }
        }
    }

    #[test]
    fn nothing_printed_admits_everything_and_sends_no_last_event_id() {
        let resume = Resume::default();
        assert!(resume.admits(Some(0)) && resume.admits(Some(5)) && resume.admits(None));
        assert_eq!(resume.last_event_id(), None);
    }

    #[test]
    fn a_resumed_stream_drops_what_was_printed_and_keeps_the_rest() {
        let mut resume = Resume::default();
        let mut shown = Vec::new();
        // First connection: 1, 2, 3; it drops; the server replays from 2 on reconnect.
        for cursor in [1, 2, 3, 2, 3, 4, 5, 5, 6] {
            if resume.admits(Some(cursor)) {
                resume.printed(Some(cursor));
                shown.push(cursor);
            }
        }
        assert_eq!(shown, [1, 2, 3, 4, 5, 6]);
        assert_eq!(resume.last_event_id(), Some(6));
    }

    #[test]
    fn gaps_in_cursors_are_fine_and_a_record_without_one_keeps_the_place() {
        let mut resume = Resume::default();
        resume.printed(Some(10));
        resume.printed(None);
        assert!(resume.admits(Some(42)));
        assert!(!resume.admits(Some(10)));
        assert_eq!(resume.last_event_id(), Some(10));
    }
}
