//! What differs between operating systems, in one place: a `cfg(unix)` side and a
//! `cfg(windows)` side with the same names, so the rest of the code asks for what it needs
//! (an anonymous file in memory, a child that dies with us) and never for how.
//!
//! Windows has no side for the hook runtime yet (see docs/ARCHITECTURE.md, "Platforms"): what
//! it lacks says so with [`Unsupported`], an error a command prints, rather than failing to
//! compile.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

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
