//! A session's lease: one process at a time records a session's events (`run` and `dev`
//! alike), so two writers never interleave turns or race for the same index.
//!
//! The lease is an OS file lock (`flock` on Unix) on `<state root>/sessions/<id>.lock`,
//! which holds the owner's pid for the message a refused process prints. The kernel
//! releases the lock when its process dies, however it dies, so a crash (`kill -9`) never
//! leaves a session stuck. The holder removes the file when it lets go; a taker that finds
//! it locked a file already removed (a holder let go in between) takes the new one.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

/// How long a refused process waits for the holder to write its pid (it writes it right
/// after taking the lock).
const PID_WAIT: Duration = Duration::from_secs(1);

/// Another process holds the session.
#[derive(Debug)]
pub struct SessionInUse {
    pub session_id: String,
    /// The holder's pid, when it could be read.
    pub pid: Option<u32>,
}

impl std::fmt::Display for SessionInUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pid = self.pid.map_or_else(|| "pid unknown".to_owned(), |pid| format!("pid {pid}"));
        write!(f, "session {} is in use by another agent-sdk ({pid})", self.session_id)
    }
}

impl std::error::Error for SessionInUse {}

/// The right to record a session's events, until dropped.
#[derive(Debug)]
pub struct SessionLease {
    file: File,
    path: PathBuf,
}

impl SessionLease {
    /// Takes the lease of `session_id` without waiting: a [`SessionInUse`] error when
    /// another process holds it.
    pub fn take(root: &super::StateRoot, session_id: &str) -> anyhow::Result<Self> {
        let dir = root.sessions();
        crate::fs::create_private_dir_all(&dir).with_context(|| format!("could not create `{}`", dir.display()))?;
        let path = dir.join(lock_file_name(session_id));
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .with_context(|| format!("could not open the session lock `{}`", path.display()))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let pid = holder_pid(&mut file);
                    return Err(SessionInUse { session_id: session_id.to_owned(), pid }.into());
                }
                Err(std::fs::TryLockError::Error(error)) => {
                    return Err(error).with_context(|| format!("could not lock `{}`", path.display()));
                }
            }
            if !still_at(&file, &path) {
                // The holder we waited on removed the file as it let go: lock the new one.
                continue;
            }
            // A new file is empty; only a file a crashed holder left keeps an old pid to
            // clear. Truncating an empty file is not free: on ext4 a file truncated and then
            // written has its block allocated at close, so removing it at the end of the run
            // waits on the disk (a synchronous discard, 0.5-4 ms, where mounted with `discard`).
            if file.metadata()?.len() > 0 {
                file.set_len(0)?;
                file.rewind()?;
            }
            writeln!(file, "{}", std::process::id())?;
            return Ok(Self { file, path });
        }
    }
}

impl Drop for SessionLease {
    /// Removes the lock file while still holding it; closing the file lets go.
    fn drop(&mut self) {
        if crate::platform::files::REMOVABLE_WHILE_OPEN {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

/// The lock file's name: the id itself when it is a plain name, else a hash of it (an id
/// with `/` or `..` must not lead out of the folder).
fn lock_file_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if plain {
        format!("{session_id}.lock")
    } else {
        format!("hashed-{:032x}.lock", xxhash_rust::xxh3::xxh3_128(session_id.as_bytes()))
    }
}

/// The pid the holder wrote, waiting briefly for it to be written.
fn holder_pid(file: &mut File) -> Option<u32> {
    let started = Instant::now();
    loop {
        let mut text = String::new();
        let pid = file.rewind().and_then(|()| file.read_to_string(&mut text)).ok().and_then(|_| {
            let line = text.strip_suffix('\n')?;
            line.parse().ok()
        });
        if pid.is_some() || started.elapsed() >= PID_WAIT {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the locked `file` is still the one at `path` (not removed by a holder that let
/// go between our open and our lock).
/// Where a file held open cannot be removed, the holder never removes it, so the locked one
/// is always current.
fn still_at(file: &File, path: &Path) -> bool {
    if !crate::platform::files::REMOVABLE_WHILE_OPEN {
        return true;
    }
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(locked), Ok(current)) => crate::platform::files::same_file(&locked, &current).unwrap_or(true),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lease_on_a_held_session_names_the_holder_and_a_dropped_one_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let root = super::super::StateRoot::create(dir.path()).unwrap();
        let held = SessionLease::take(&root, "ses_a").unwrap();
        let refused = SessionLease::take(&root, "ses_a").unwrap_err();
        let in_use = refused.downcast_ref::<SessionInUse>().unwrap();
        assert_eq!(in_use.pid, Some(std::process::id()));
        assert!(SessionLease::take(&root, "ses_b").is_ok(), "sessions are leased one by one");
        drop(held);
        assert!(SessionLease::take(&root, "ses_a").is_ok());
    }

    #[test]
    fn a_file_a_crashed_holder_left_is_taken_and_its_old_pid_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let root = super::super::StateRoot::create(dir.path()).unwrap();
        let path = root.sessions().join(lock_file_name("ses_a"));
        crate::fs::create_private_dir_all(&root.sessions()).unwrap();
        std::fs::write(&path, "4194303999\n").unwrap();
        let _held = SessionLease::take(&root, "ses_a").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\n", std::process::id()));
    }

    #[test]
    fn an_id_that_is_not_a_plain_name_never_leads_out_of_the_folder() {
        assert_eq!(lock_file_name("ses_1-a"), "ses_1-a.lock");
        for odd in ["../x", "/etc/passwd", "", "a/b", &"x".repeat(200)] {
            let name = lock_file_name(odd);
            assert!(name.starts_with("hashed-") && !name.contains('/'), "{name}");
        }
    }
}
