//! The signals that ask a command to stop — Ctrl-C (SIGINT), SIGTERM and SIGHUP — handled
//! alike (a terminal closed, a process manager or CI stopping the job, a user at the
//! keyboard), each with its name to say and the exit status it gives: 128 + its number, as
//! shells report it (130, 143, 129).

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

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
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("agent-sdk-signals".to_owned()).spawn(move || {
        for signal in signals.forever() {
            handler(Stop(signal));
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signal_exits_as_shells_report_it() {
        let said: Vec<(&str, u8)> =
            [SIGINT, SIGTERM, SIGHUP].into_iter().map(|n| (Stop(n).name(), Stop(n).exit_code())).collect();
        assert_eq!(said, [("Ctrl-C", 130), ("SIGTERM", 143), ("SIGHUP", 129)]);
    }
}
