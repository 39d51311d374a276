//! The Unix side of [`crate::platform`] (Linux first; what is Linux-only says so).

use std::fs::File;

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
    use std::os::unix::fs::OpenOptionsExt;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

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
