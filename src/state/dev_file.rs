//! `dev.json`: the dev server's URL, bearer token and pid, kept under the state root with
//! mode 0600, for `agent-sdk logs` to find a local server.
//!
//! Only the server that holds it writes it: the holder keeps an OS file lock (`flock` on
//! Unix) on the file for as long as it runs, and the kernel lets go when it dies, however
//! it dies. So a second server of the project can tell that the first still runs (and
//! which one it is), and never takes the file over from a live server.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::StateRoot;

/// How long a refused server waits for the holder to write the file (it writes it right
/// after taking the lock).
const HOLDER_WAIT: Duration = Duration::from_secs(1);

/// What `agent-sdk logs` reads to find a local dev server; the one type of `dev.json`, for
/// the server that writes it and the clients that read it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevFile {
    /// Empty in a file without one (then no server is named).
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub token: String,
    /// The server's process, to name it to a second one (files written before it had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// Why `dev.json` could not be read.
#[derive(Debug)]
pub enum DevFileError {
    Unreadable(std::io::Error),
    /// It is not what `dev` writes.
    NotDevFile(serde_json::Error),
}

impl DevFile {
    /// Reads `dev.json` at `path`: `None` when there is none (no local server was started).
    pub fn read(path: &std::path::Path) -> Result<Option<Self>, DevFileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(DevFileError::Unreadable(error)),
        };
        serde_json::from_str(&text).map(Some).map_err(DevFileError::NotDevFile)
    }
}

/// The right to write `dev.json`, until dropped.
#[derive(Debug)]
pub struct DevFileLease {
    file: File,
}

impl DevFileLease {
    /// Takes `dev.json` (made if there is none) without waiting. When a live server holds
    /// it: what the file says of that server, if it could be read.
    pub fn take(root: &StateRoot) -> anyhow::Result<Result<Self, Option<DevFile>>> {
        let path = root.dev_file();
        let mut file = open_private(&path).with_context(|| format!("could not open `{}`", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(Ok(Self { file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(Err(holder(&mut file))),
            Err(std::fs::TryLockError::Error(error)) => {
                Err(error).with_context(|| format!("could not lock `{}`", path.display()))
            }
        }
    }

    /// Writes `dev` into the file, in place of what it held.
    pub fn write(&mut self, dev: &DevFile) -> anyhow::Result<()> {
        // An older file may have been created with wider permissions.
        crate::platform::files::make_private(&self.file)?;
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(serde_json::to_string_pretty(dev)?.as_bytes())?;
        Ok(())
    }
}

/// Opens `path` to read and write, made readable by its owner only if it is new.
fn open_private(path: &std::path::Path) -> std::io::Result<File> {
    crate::platform::files::private(std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false))
        .open(path)
}

/// What the holder wrote, waiting briefly for it to be written.
fn holder(file: &mut File) -> Option<DevFile> {
    let started = Instant::now();
    loop {
        let mut text = String::new();
        let read = file.rewind().and_then(|()| file.read_to_string(&mut text));
        let dev = read.ok().and_then(|_| serde_json::from_str::<DevFile>(&text).ok());
        if dev.is_some() || started.elapsed() >= HOLDER_WAIT {
            return dev;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_dev_json_is_read_never_taken_and_free_again_once_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let root = StateRoot::create(dir.path()).unwrap();
        let mut held = DevFileLease::take(&root).unwrap().unwrap();
        let dev = DevFile { url: "http://127.0.0.1:7311".into(), token: "t".into(), pid: Some(42) };
        held.write(&dev).unwrap();
        assert_eq!(DevFileLease::take(&root).unwrap().unwrap_err(), Some(dev.clone()));
        assert_eq!(std::fs::read_to_string(root.dev_file()).unwrap(), serde_json::to_string_pretty(&dev).unwrap());
        drop(held);
        let mut again = DevFileLease::take(&root).unwrap().expect("free once let go");
        again.write(&DevFile { pid: None, ..dev }).unwrap();
        assert!(!std::fs::read_to_string(root.dev_file()).unwrap().contains("pid"));
        #[cfg(unix)]
        {
            let mode =
                std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(root.dev_file()).unwrap().permissions());
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
