//! Files on Unix: anonymous files in memory, positioned reads and writes, modes 0600 and
//! 0700, owners by uid, link counts, and a file's identity as its device and inode.

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// A new file that lives in memory and has no name: only the processes given its descriptor
/// hold it, and nothing is left behind. `memfd_create` where the kernel has it (Linux ≥ 3.17,
/// called by number: glibc only names it from 2.27, and the binary promises 2.17); elsewhere
/// a file in the temporary folder, removed as soon as it is open.
pub fn anonymous_file(name: &std::ffi::CStr) -> std::io::Result<File> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a NUL-terminated name and flags; returns a new descriptor we own, or -1.
        let fd = unsafe { libc::syscall(libc::SYS_memfd_create, name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd >= 0 {
            // SAFETY: `fd` is a fresh descriptor owned by nobody else.
            return Ok(unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(fd as std::os::fd::RawFd) });
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::ENOSYS) {
            return Err(error);
        }
    }
    unlinked_temporary_file(name)
}

/// A private file in the temporary folder, already removed from it.
fn unlinked_temporary_file(name: &std::ffi::CStr) -> std::io::Result<File> {
    let dir = std::env::temp_dir();
    let stem = name.to_string_lossy();
    let mut attempt = 0u32;
    loop {
        let path = dir.join(format!("{stem}-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(error) => return Err(error),
        }
    }
}

/// `path` opened for reading without waiting for a writer (a FIFO opens at once, as a file
/// that is then not a regular one) and without becoming the controlling terminal (a tty):
/// what the open file is can then be asked of it (`metadata`), one path lookup in all.
pub fn open_to_inspect(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)
}

/// Reads exactly `buffer.len()` bytes of `file` from `offset`, leaving its position alone.
pub fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.read_exact_at(buffer, offset)
}

/// Writes all of `bytes` into `file` at `offset`, leaving its position alone.
pub fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    file.write_all_at(bytes, offset)
}

/// Creates the folder `path` and any missing parent with mode 0700 (less the umask).
pub fn create_private_dir_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// `options` creating a file with mode 0600: readable by its owner only.
pub fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    options.mode(0o600)
}

/// Makes `file` readable by its owner only (mode 0600), whatever it was created with.
pub fn make_private(file: &File) -> std::io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

/// Gives `file` the permissions of the file whose metadata is `like`, and, where the system
/// permits (root may give a file to anyone, others only to a group they are in), its owner
/// and group.
pub fn take_owner_and_mode(file: &File, like: &Metadata) -> std::io::Result<()> {
    if std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid())).is_err() {
        // Not permitted to give it away: at least its group, when that is one of ours.
        let _ = std::os::unix::fs::fchown(file, None, Some(like.gid()));
    }
    // After the owner: a change of owner clears the set-id bits.
    file.set_permissions(like.permissions())
}

/// The uid of the user a file belongs to.
pub fn owner(metadata: &Metadata) -> Option<u32> {
    Some(metadata.uid())
}

/// How many names (hard links) the file has.
pub fn link_count(metadata: &Metadata) -> u64 {
    metadata.nlink()
}

/// Whether the two are the same file (device and inode); always known here.
pub fn same_file(a: &Metadata, b: &Metadata) -> Option<bool> {
    Some(a.dev() == b.dev() && a.ino() == b.ino())
}

/// A file held open may be removed (its name goes; the open file lives on).
pub const REMOVABLE_WHILE_OPEN: bool = true;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anonymous_file_holds_what_is_written_and_has_no_name() {
        for file in [anonymous_file(c"agent-sdk-test").unwrap(), unlinked_temporary_file(c"agent-sdk-test").unwrap()] {
            file.write_all_at(b"slot", 0).unwrap();
            let mut read = [0; 4];
            file.read_exact_at(&mut read, 0).unwrap();
            assert_eq!(&read, b"slot");
            assert_eq!(file.metadata().unwrap().len(), 4);
        }
        let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.starts_with(&format!("agent-sdk-test-{}-", std::process::id())))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
