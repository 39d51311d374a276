//! Descriptors on Unix: ends given to a child at fixed numbers (`dup2` between fork and exec),
//! non-blocking pipes, and `poll` over several of them.

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, FromRawFd};
use std::process::Command;

/// An open descriptor this process owns: a pipe's end, a file.
pub type Descriptor = std::os::fd::OwnedFd;

/// Gives the child of `command` each end at its number (the only descriptors it gets beyond
/// its standard streams: dup2 leaves them open across exec, and every other one of ours is
/// close-on-exec). The ends are first moved above the standard streams and every number
/// asked for, so that placing one never overwrites another; what is returned holds them
/// until the child has started (drop it then: the child's ends live on in the child only).
pub fn give_to_child<const N: usize>(
    command: &mut Command,
    ends: [(Descriptor, i32); N],
) -> std::io::Result<[Descriptor; N]> {
    use std::os::unix::process::CommandExt;
    let highest = ends.iter().map(|(_, number)| *number).max().unwrap_or(2);
    let mut numbers = [0; N];
    let mut moved = Vec::with_capacity(N);
    for (index, (end, number)) in ends.into_iter().enumerate() {
        numbers[index] = number;
        moved.push(above(end, highest)?);
    }
    let moved: [Descriptor; N] = moved.try_into().map_err(|_| std::io::Error::other("a channel end was lost"))?;
    let raw = moved.each_ref().map(AsRawFd::as_raw_fd);
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (dup2)
    // and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for (end, number) in raw.into_iter().zip(numbers) {
                if libc::dup2(end, number) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(moved)
}

/// `fd`, or a close-on-exec copy of it numbered above `highest`.
fn above(fd: Descriptor, highest: i32) -> std::io::Result<Descriptor> {
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
