//! The `logs` client: reads a server's serve log over Server-Sent Events and prints it,
//! resuming after a dropped connection so that no line is lost or printed twice.
//!
//! ```text
//!  flags / env / dev.json ──▶ connect (host, token, plain-HTTP rule)
//!  --since / --level ───────▶ query (GET /v1/logs?…)
//!                                   │
//!                                   ▼
//!          follow: request ─▶ sse (events) ─▶ resume (drop cursor ≤ last printed) ─▶ print
//!             ▲                    │
//!             └── backoff ◀── lost (end, read error, 5xx, 45 s of silence)
//! ```

pub mod connect;
pub mod follow;
pub mod print;
pub mod query;
pub mod resume;

use crate::exit_status::ExitStatus;

/// Why `logs` ends early: what to tell the user, and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    pub status: ExitStatus,
    pub message: String,
    /// No server answered at all (none was started, or it is not running): the local
    /// history may be read instead.
    pub no_server: bool,
}

impl Stop {
    /// Exit 1: the server is missing, refused us, or went away for good.
    pub fn failure(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Failure, message: message.into(), no_server: false }
    }

    /// Exit 1 (unless there is a local history to print): no server answered.
    pub fn no_server(message: impl Into<String>) -> Self {
        Self { no_server: true, ..Self::failure(message) }
    }

    /// Exit 2: a bad flag or a broken local setup.
    pub fn usage(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Error, message: message.into(), no_server: false }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Stop {}
