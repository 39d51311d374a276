//! What differs between operating systems, in one place: a `cfg(unix)` side and a
//! `cfg(windows)` side with the same modules and names, so the rest of the code asks for
//! what it needs (an anonymous file in memory, a child that dies with us, a channel at fds
//! 3 to 8) and never for how.
//!
//! - [`files`]: anonymous files, positioned reads and writes, private files and folders,
//!   a file's owner, link count and identity;
//! - [`users`]: who agent-sdk runs as, and a user's name;
//! - [`process`]: a child's process group and lifetime, and the orphans a check leaves;
//! - [`spawn`]: starting the hook runtime, its channel's ends at fixed numbers;
//! - [`channel`]: descriptors, non-blocking pipes, and waiting on several of them;
//! - [`signals`]: the signals that ask a command to stop.
//!
//! Windows has no side for the hook runtime yet (see docs/ARCHITECTURE.md, "Platforms"): what
//! it lacks says so with [`Unsupported`], an error a command prints, rather than failing to
//! compile.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{channel, files, process, signals, spawn, users};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{channel, files, process, signals, spawn, users};

/// What this platform cannot do yet.
#[derive(Debug)]
pub struct Unsupported(pub &'static str);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is not supported on this platform yet", self.0)
    }
}

impl std::error::Error for Unsupported {}

impl From<Unsupported> for std::io::Error {
    fn from(unsupported: Unsupported) -> Self {
        std::io::Error::new(std::io::ErrorKind::Unsupported, unsupported)
    }
}

/// The process groups of the Node processes started and not yet killed (each named by its
/// leader's pid): what a command that must end at once, from wherever it is (a second
/// Ctrl-C), ends first ([`process::kill_live_groups`]), and what a check ending its orphans
/// leaves alone.
pub fn live_groups() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<u32>> {
    static LIVE: std::sync::Mutex<std::collections::BTreeSet<u32>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_supported_says_so_as_an_io_error_of_its_kind() {
        let error = std::io::Error::from(Unsupported("the hook runtime's channel"));
        assert_eq!(error.kind(), std::io::ErrorKind::Unsupported);
        assert_eq!(error.to_string(), "the hook runtime's channel is not supported on this platform yet");
    }

    #[test]
    fn a_group_killed_is_no_longer_live() {
        live_groups().insert(u32::MAX - 7);
        process::kill_group(u32::MAX - 7);
        assert!(!live_groups().contains(&(u32::MAX - 7)));
    }
}
