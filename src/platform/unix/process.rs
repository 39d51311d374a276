//! A child's lifetime on Unix: a process group of its own, killed whole; on Linux, death with
//! its parent; reaping in the background; and the orphans a check's Node leaves behind.

use std::process::Command;

pub use super::orphans::{adopt_orphans, end_adopted};

/// The child is killed when agent-sdk dies, however it dies (`kill -9` too): a runtime
/// spinning in a hook must never outlive the command that started it. (Linux delivers the
/// signal when the *thread* that started the child ends: runtimes are started by the thread
/// that owns them for their whole life, `run`'s main thread or a `dev` session's.) Elsewhere
/// on Unix there is no such request; the child's group is killed when its owner lets go.
pub fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: between fork and exec the closure makes only async-signal-safe calls
        // (prctl, getppid, _exit) and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before the request took effect.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Gives the child a process group of its own, led by it: Ctrl-C at the terminal reaches
/// agent-sdk only, which ends the child in order, and [`kill_group`] takes the processes it
/// started along.
pub fn own_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

/// Kills what is left of the process group led by `leader` (processes a hook started and
/// left running; the group may be gone already), and forgets it as live.
pub fn kill_group(leader: u32) {
    signal_group(leader);
    crate::platform::live_groups().remove(&leader);
}

/// Kills every process group still live ([`crate::platform::live_groups`]), with what their
/// hooks or tests started: for a process about to exit without unwinding.
pub fn kill_live_groups() {
    for leader in std::mem::take(&mut *crate::platform::live_groups()) {
        signal_group(leader);
    }
}

/// SIGKILL to the process group led by `leader` (a pid beyond `pid_t` is no group of ours).
fn signal_group(leader: u32) {
    if let Ok(group) = libc::pid_t::try_from(leader) {
        // SAFETY: a plain kill(2) of a process group that only our children's processes join.
        unsafe { libc::kill(-group, libc::SIGKILL) };
    }
}

/// Reaps the child `pid`, already killed, on a thread of its own: the caller goes on while
/// the kernel ends it.
pub fn reap_in_background(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return };
    let _ = std::thread::Builder::new().name("agent-sdk-reaper".to_owned()).spawn(move || {
        // SAFETY: waitpid(2) of our own child, whose status nobody reads.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    });
}
