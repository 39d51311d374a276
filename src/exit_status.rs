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
