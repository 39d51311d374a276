//! The one exit-status type of every command, mapped to the process exit code in one place.

use std::process::ExitCode;

/// How a command ended. The README documents the codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: the command did its job and found nothing wrong.
    Success,
    /// 1: the check failed (errors, or warnings with `--deny-warnings`), or the turn failed.
    Failure,
    /// 2: usage or environment error: a bad flag, an unreadable `--dir`, a missing tool.
    Error,
    /// 3: the turn completed while a hook failed to load, threw, timed out or crashed its
    /// runtime (`run`, `chat`): `run --event …` is a test a CI can trust.
    HooksMisbehaved,
    /// Stopped by the signal numbered `signal` (`crate::signals::Stop::exit_status`):
    /// 128 + its number, as shells report it (130 after Ctrl-C).
    Stopped { signal: i32 },
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
            ExitStatus::HooksMisbehaved => 3,
            ExitStatus::Stopped { signal } => u8::try_from(128 + signal).unwrap_or(130),
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(status.code())
    }
}

/// An error that ends the command with an exit status of its own rather than the 2 any other
/// error gets: `main` prints it once (`error: …`) and exits with its status. Each error thus
/// carries its exit code, wherever in the command it arises.
#[derive(Debug)]
pub struct Exit {
    pub status: ExitStatus,
    pub message: String,
}

impl Exit {
    /// Exit 1: the command ran and what it checked failed (errors in the hooks, files in the way).
    pub fn failure(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Failure, message: message.into() }
    }

    /// Exit 2: a usage or environment error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Error, message: message.into() }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The exit status `error` asks for: that of the first [`Exit`] in its chain, else 2.
pub fn status_of(error: &anyhow::Error) -> ExitStatus {
    error.chain().find_map(|cause| cause.downcast_ref::<Exit>()).map_or(ExitStatus::Error, |exit| exit.status)
}
