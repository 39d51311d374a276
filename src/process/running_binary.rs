//! This very binary, for the processes it starts to run it again (the test runner's module
//! requests, a compile in a process of its own) and for the cache to tell builds apart: the
//! file this process was started from, which stays valid while it runs even after an
//! upgrade (npm, `cargo install`) replaced or deleted the file at its path.

use std::path::PathBuf;

/// A path that starts this binary for as long as this process lives: on Linux
/// `/proc/<pid>/exe` (the kernel keeps the file this process runs, even deleted); elsewhere
/// the path it was started from.
pub fn path() -> PathBuf {
    if cfg!(target_os = "linux") {
        return PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    }
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("agent-sdk"))
}

/// The size and modification time of the file this process runs (even after it was replaced).
pub fn metadata() -> std::io::Result<std::fs::Metadata> {
    if cfg!(target_os = "linux") {
        return std::fs::metadata("/proc/self/exe");
    }
    std::env::current_exe().and_then(std::fs::metadata)
}
