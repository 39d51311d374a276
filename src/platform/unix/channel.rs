//! Descriptors on Unix: ends moved out of the way of the numbers a child gets them at (see
//! [`super::spawn`]), non-blocking pipes, and `poll` over several of them.

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, FromRawFd};

/// An open descriptor this process owns: a pipe's end, a file.
pub type Descriptor = std::os::fd::OwnedFd;

/// `fd`, or a close-on-exec copy of it numbered above `highest`.
pub(super) fn above(fd: Descriptor, highest: i32) -> std::io::Result<Descriptor> {
    if fd.as_raw_fd() > highest {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we then own (or -1).
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, highest + 1) };
    if moved == -1 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `moved` is a fresh descriptor owned by nobody else.
    Ok(unsafe { Descriptor::from_raw_fd(moved) })
}

/// Makes reads and writes of `fd` return `WouldBlock` rather than wait.
pub fn set_nonblocking(fd: &impl AsFd) -> std::io::Result<()> {
    let fd = fd.as_fd().as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, reading then setting its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Waits until at least one of `files` (a `None` is skipped) has something to read or has
/// closed, and marks which in `ready`. `Interrupted` when a signal came first.
pub fn wait_readable(files: &[Option<&File>], ready: &mut [bool]) -> std::io::Result<()> {
    let mut polled: Vec<libc::pollfd> = files
        .iter()
        // A negative descriptor is skipped by poll.
        .map(|file| libc::pollfd { fd: file.map_or(-1, AsRawFd::as_raw_fd), events: libc::POLLIN, revents: 0 })
        .collect();
    // SAFETY: `polled` is a valid array of `polled.len()` pollfd structs.
    if unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, -1) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    for (ready, polled) in ready.iter_mut().zip(&polled) {
        *ready = polled.revents != 0;
    }
    Ok(())
}

/// Waits until the non-blocking `pipe` has room to write (or its reader is gone).
pub fn wait_writable(pipe: &impl AsFd) -> std::io::Result<()> {
    let mut polled = libc::pollfd { fd: pipe.as_fd().as_raw_fd(), events: libc::POLLOUT, revents: 0 };
    // SAFETY: one valid pollfd.
    if unsafe { libc::poll(&mut polled, 1, -1) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
