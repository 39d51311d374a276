//! The signals that ask a command to stop — Ctrl-C (SIGINT), SIGTERM and SIGHUP — handled
//! alike (a terminal closed, a process manager or CI stopping the job, a user at the
//! keyboard), each with its name to say and the exit status it gives: 128 + its number, as
//! shells report it (130, 143, 129).

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

    /// 128 + the signal's number.
    pub fn exit_code(self) -> u8 {
        u8::try_from(128 + self.0).unwrap_or(130)
    }
}

/// Calls `handler` on a thread of its own with each stopping signal, from now on (in place
/// of the signals' default action, which would end the process before it could stop what it
/// started).
pub fn on_stop(mut handler: impl FnMut(Stop) + Send + 'static) -> std::io::Result<()> {
    crate::platform::signals::on_signals(&[SIGINT, SIGTERM, SIGHUP], move |signal| handler(Stop(signal)))
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
            [SIGINT, SIGTERM, SIGHUP].into_iter().map(|n| (Stop(n).name(), Stop(n).exit_code())).collect();
        assert_eq!(said, [("Ctrl-C", 130), ("SIGTERM", 143), ("SIGHUP", 129)]);
    }
}
