//! The signals that ask a command to stop — Ctrl-C (SIGINT), SIGTERM and SIGHUP — handled
//! alike (a terminal closed, a process manager or CI stopping the job, a user at the
//! keyboard), each with its name to say and the exit status it gives: 128 + its number, as
//! shells report it (130, 143, 129). [`Stopping`] is how a turn's command answers them
//! (cancel, then stop at once, then end); [`Interrupt`] is what a turn looks at.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::exit_status::ExitStatus;

/// Their numbers, the same on every Unix (and what the exit status counts from, as shells
/// report it on any system).
const SIGHUP: i32 = 1;
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

/// A stopping signal that was received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop(i32);

impl Stop {
    /// Ctrl-C, the stop a test or a user without a signal in hand means.
    pub const CTRL_C: Stop = Stop(SIGINT);

    /// How a person would name it: `Ctrl-C`, `SIGTERM`, `SIGHUP`.
    pub fn name(self) -> &'static str {
        match self.0 {
            SIGTERM => "SIGTERM",
            SIGHUP => "SIGHUP",
            _ => "Ctrl-C",
        }
    }

    /// The exit status of a command it stopped.
    pub fn exit_status(self) -> ExitStatus {
        ExitStatus::Stopped { signal: self.0 }
    }
}

/// Calls `handler` on a thread of its own with each stopping signal, from now on (in place
/// of the signals' default action, which would end the process before it could stop what it
/// started).
pub fn on_stop(handler: impl FnMut(Stop) + Send + 'static) -> std::io::Result<()> {
    prepare_on_stop(handler)?.arm()
}

/// [`on_stop`]'s thread, started now; the signals keep their default action until armed.
fn prepare_on_stop(
    mut handler: impl FnMut(Stop) + Send + 'static,
) -> std::io::Result<crate::platform::signals::PreparedSignals> {
    crate::platform::signals::prepare_signals(&[SIGINT, SIGTERM, SIGHUP], move |signal| handler(Stop(signal)))
}

/// What interrupts a turn: a flag set from elsewhere, and what set it, in the words a
/// cancelled turn's `turn.failed` says.
#[derive(Clone, Copy)]
pub struct Interrupt<'a> {
    flag: &'a AtomicBool,
    by: By<'a>,
}

#[derive(Clone, Copy)]
enum By<'a> {
    /// The first stopping signal, once one came (Ctrl-C until then).
    Signal(&'a OnceLock<Stop>),
    Words(&'static str),
}

impl<'a> Interrupt<'a> {
    /// `flag`, set by what `words` name (`"the server is stopping"`).
    pub fn by(flag: &'a AtomicBool, words: &'static str) -> Self {
        Self { flag, by: By::Words(words) }
    }

    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag itself, for what waits on it.
    pub fn flag(&self) -> &'a AtomicBool {
        self.flag
    }

    /// What set it: `Ctrl-C`, `SIGTERM`, `the server is stopping`.
    pub fn name(&self) -> &'static str {
        match self.by {
            By::Signal(first) => first_or_ctrl_c(first).name(),
            By::Words(words) => words,
        }
    }
}

/// How a command that runs a turn answers the stopping signals: the first cancels the turn
/// (the turn looks at [`Stopping::interrupt`]), or, once it has ended, has the command say
/// what the hooks are still doing and exit 128 + the signal when they are done; a second
/// one stops at once ([`Stopping::now`]), and if the command is somewhere it cannot look,
/// the process ends [`STOP_AT_ONCE_WITHIN`] later all the same, with what the hooks
/// started. Without the handler a signal still ends the process, only without
/// `turn.failed`, and leaves what the hooks started running.
pub struct Stopping {
    interrupted: Arc<AtomicBool>,
    now: Arc<AtomicBool>,
    first: Arc<OnceLock<Stop>>,
}

/// [`Stopping`] whose signals are not handled yet (see [`Stopping::prepare`]).
pub struct PreparedStopping {
    stopping: Stopping,
    prepared: Option<crate::platform::signals::PreparedSignals>,
}

impl PreparedStopping {
    /// Handles the stopping signals from now on.
    pub fn handle(self) -> Stopping {
        if let Some(prepared) = &self.prepared {
            let _ = prepared.arm();
        }
        self.stopping
    }
}

/// How long a second signal waits for the command to stop before the process ends.
pub const STOP_AT_ONCE_WITHIN: Duration = Duration::from_secs(3);

impl Stopping {
    /// Handles the stopping signals from now on.
    pub fn handle() -> Self {
        Self::prepare().handle()
    }

    /// Readies the handling of the stopping signals (its thread starts now, while nothing
    /// waits for it), which [`PreparedStopping::handle`] then starts; until then a signal
    /// ends the process as by default.
    pub fn prepare() -> PreparedStopping {
        let stopping = Self::unhandled();
        let (interrupted, now, first) =
            (Arc::clone(&stopping.interrupted), Arc::clone(&stopping.now), Arc::clone(&stopping.first));
        let prepared = prepare_on_stop(move |signal| {
            let first = *first.get_or_init(|| signal);
            if interrupted.swap(true, Ordering::SeqCst) {
                now.store(true, Ordering::SeqCst);
                std::thread::sleep(STOP_AT_ONCE_WITHIN);
                crate::platform::process::kill_live_groups();
                std::process::exit(i32::from(first.exit_status().code()));
            }
        });
        PreparedStopping { stopping, prepared: prepared.ok() }
    }

    /// No signal handled: set by hand (tests).
    pub fn unhandled() -> Self {
        Self { interrupted: Arc::default(), now: Arc::default(), first: Arc::default() }
    }

    /// Set by the first signal.
    pub fn interrupt(&self) -> Interrupt<'_> {
        Interrupt { flag: &self.interrupted, by: By::Signal(&self.first) }
    }

    /// Set by the second signal: stop waiting for the hooks.
    pub fn now(&self) -> &AtomicBool {
        &self.now
    }

    /// The first signal that came (Ctrl-C when none did).
    pub fn stopped_by(&self) -> Stop {
        first_or_ctrl_c(&self.first)
    }

    /// The signal that interrupted the command, once one did.
    pub fn stopped(&self) -> Option<Stop> {
        self.interrupted.load(Ordering::SeqCst).then(|| self.stopped_by())
    }
}

fn first_or_ctrl_c(first: &OnceLock<Stop>) -> Stop {
    first.get().copied().unwrap_or(Stop::CTRL_C)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_numbers_are_the_systems() {
        assert_eq!((SIGHUP, SIGINT, SIGTERM), (libc::SIGHUP, libc::SIGINT, libc::SIGTERM));
    }

    #[test]
    fn each_signal_exits_as_shells_report_it() {
        let said: Vec<(&str, u8)> =
            [SIGINT, SIGTERM, SIGHUP].into_iter().map(|n| (Stop(n).name(), Stop(n).exit_status().code())).collect();
        assert_eq!(said, [("Ctrl-C", 130), ("SIGTERM", 143), ("SIGHUP", 129)]);
    }

    #[test]
    fn an_interrupt_is_named_by_the_first_signal() {
        let stopping = Stopping::unhandled();
        assert_eq!(stopping.interrupt().name(), "Ctrl-C");
        let _ = stopping.first.set(Stop(SIGTERM));
        let _ = stopping.first.set(Stop(SIGHUP));
        assert_eq!((stopping.interrupt().name(), stopping.stopped_by().exit_status().code()), ("SIGTERM", 143));
    }
}
