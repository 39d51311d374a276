//! What happened to a session's handlers, counted as the dispatcher sees it, and said in
//! the words of the summary line (`run`'s last line, a `dev` session's per turn).

/// What happened to the handlers, for the summary line.
#[derive(Debug, Default, Clone, Copy)]
pub struct DispatchStats {
    pub events: u64,
    /// Hooks that failed to load (counted once, by the first runtime).
    pub load_failed: u64,
    pub threw: u64,
    /// Errors in the hooks' code that nothing handled: a promise not awaited whose
    /// rejection nobody caught, a throw in a timer.
    pub unhandled_rejections: u64,
    pub uncaught_exceptions: u64,
    /// Writes (`kv.set`, `reminders.set`) whose promise resolved as they were sent, and
    /// that then failed.
    pub writes_failed: u64,
    pub timed_out: u64,
    pub restarts: u64,
    /// (event, hook) deliveries whose handler was running when the runtime ended by no doing
    /// of its own: it may or may not have finished. Each is named in the log.
    pub unconfirmed: u64,
}

impl DispatchStats {
    /// What happened after `before` (an earlier copy of the same counts): one turn's part.
    pub fn since(&self, before: &DispatchStats) -> DispatchStats {
        DispatchStats {
            events: self.events.saturating_sub(before.events),
            load_failed: self.load_failed.saturating_sub(before.load_failed),
            threw: self.threw.saturating_sub(before.threw),
            unhandled_rejections: self.unhandled_rejections.saturating_sub(before.unhandled_rejections),
            uncaught_exceptions: self.uncaught_exceptions.saturating_sub(before.uncaught_exceptions),
            writes_failed: self.writes_failed.saturating_sub(before.writes_failed),
            timed_out: self.timed_out.saturating_sub(before.timed_out),
            restarts: self.restarts.saturating_sub(before.restarts),
            unconfirmed: self.unconfirmed.saturating_sub(before.unconfirmed),
        }
    }

    /// `6 events dispatched to 3 hooks`: how many events went through how many hooks.
    pub fn dispatched(&self, hooks: usize) -> String {
        format!("{} dispatched to {}", plural(self.events, "event"), plural(hooks as u64, "hook"))
    }

    /// Whether any handler failed, or the hooks' code failed where nothing handled it: `run`
    /// then exits 3.
    pub fn misbehaved(&self) -> bool {
        self.load_failed
            + self.threw
            + self.unhandled_rejections
            + self.uncaught_exceptions
            + self.writes_failed
            + self.timed_out
            + self.restarts
            + self.unconfirmed
            > 0
    }

    /// `0 handlers threw, 0 timed out`, with the unhandled errors, the restarts and the
    /// unconfirmed deliveries when there were any.
    pub fn failures(&self) -> String {
        let mut text =
            format!("{} threw{}, {} timed out", plural(self.threw, "handler"), self.unhandled(), self.timed_out);
        if self.restarts > 0 || self.unconfirmed > 0 {
            text.push_str(&format!("; {}, {}", plural(self.restarts, "runtime restart"), self.unconfirmed_text()));
        }
        text
    }

    /// The summary line of a run, or of a `dev` session when it leaves the runtime.
    pub fn summary(&self, hooks: usize) -> String {
        format!(
            "summary: {}; {} failed to load, {} threw{}, {} timed out; {}, {}",
            self.dispatched(hooks),
            plural(self.load_failed, "hook"),
            plural(self.threw, "handler"),
            self.unhandled(),
            self.timed_out,
            plural(self.restarts, "runtime restart"),
            self.unconfirmed_text(),
        )
    }

    /// `, 1 unhandled rejection, 1 uncaught exception` (in Node's words), `, 1 host write
    /// failed`, or nothing when there were none.
    fn unhandled(&self) -> String {
        let mut text = String::new();
        if self.unhandled_rejections > 0 {
            text.push_str(&format!(", {}", plural(self.unhandled_rejections, "unhandled rejection")));
        }
        if self.uncaught_exceptions > 0 {
            text.push_str(&format!(", {}", plural(self.uncaught_exceptions, "uncaught exception")));
        }
        if self.writes_failed > 0 {
            text.push_str(&format!(", {} failed", plural(self.writes_failed, "host write")));
        }
        text
    }

    fn unconfirmed_text(&self) -> String {
        match self.unconfirmed {
            1 => "1 unconfirmed delivery".to_owned(),
            count => format!("{count} unconfirmed deliveries"),
        }
    }
}

fn plural(count: u64, noun: &str) -> String {
    crate::printer::plural(usize::try_from(count).unwrap_or(usize::MAX), noun)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_every_kind_of_failure_in_the_serve_logs_words() {
        let stats = DispatchStats {
            events: 13,
            load_failed: 1,
            threw: 2,
            timed_out: 0,
            restarts: 1,
            unconfirmed: 1,
            ..DispatchStats::default()
        };
        assert_eq!(
            stats.summary(3),
            "summary: 13 events dispatched to 3 hooks; 1 hook failed to load, 2 handlers threw, 0 timed out; 1 runtime restart, 1 unconfirmed delivery"
        );
        assert_eq!(stats.failures(), "2 handlers threw, 0 timed out; 1 runtime restart, 1 unconfirmed delivery");
    }

    #[test]
    fn errors_nothing_handled_are_counted_in_node_s_words_only_when_there_were_any() {
        let stats =
            DispatchStats { events: 1, unhandled_rejections: 2, uncaught_exceptions: 1, ..DispatchStats::default() };
        assert_eq!(
            stats.summary(1),
            "summary: 1 event dispatched to 1 hook; 0 hooks failed to load, 0 handlers threw, 2 unhandled rejections, 1 uncaught exception, 0 timed out; 0 runtime restarts, 0 unconfirmed deliveries"
        );
        assert_eq!(stats.failures(), "0 handlers threw, 2 unhandled rejections, 1 uncaught exception, 0 timed out");
        assert!(stats.misbehaved());
        assert!(!DispatchStats { events: 3, ..DispatchStats::default() }.misbehaved());
    }

    #[test]
    fn a_write_that_failed_after_it_resolved_is_a_failure_of_its_own() {
        let stats = DispatchStats { events: 2, writes_failed: 1, ..DispatchStats::default() };
        assert_eq!(stats.failures(), "0 handlers threw, 1 host write failed, 0 timed out");
        assert!(stats.misbehaved());
    }

    #[test]
    fn a_turns_part_is_what_happened_since_and_quiet_turns_leave_out_restarts() {
        let before = DispatchStats { events: 6, threw: 1, ..DispatchStats::default() };
        let after = DispatchStats { events: 10, threw: 1, ..DispatchStats::default() };
        let turn = after.since(&before);
        assert_eq!(turn.dispatched(1), "4 events dispatched to 1 hook");
        assert_eq!(turn.failures(), "0 handlers threw, 0 timed out");
    }
}
