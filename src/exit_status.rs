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
    /// Any other code, e.g. 130 after Ctrl-C.
    Code(u8),
}

/// 3: the turn completed while a hook failed to load, threw, timed out or crashed its
/// runtime (`run`, `chat`): `run --event …` is a test a CI can trust.
pub const HOOKS_MISBEHAVED: u8 = 3;

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        match status {
            ExitStatus::Success => ExitCode::from(0),
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
            ExitStatus::Code(code) => ExitCode::from(code),
        }
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
