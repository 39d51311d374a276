//! The processes a check's Node leaves behind. A runtime and what it starts share a process
//! group that is killed with it, but a process can leave the group: `spawn(…, { detached:
//! true })` (a session of its own) or a double fork. A static check (`validate`, `info`,
//! the editor) runs an extension mount's code to learn what it mounts, and promises that
//! nothing it started outlives the check: this process becomes the "subreaper" those
//! orphans are handed to (instead of init), and ends every one of them once the mounts ran.

/// From now on, the orphans of this process's descendants become its children (Linux's
/// `PR_SET_CHILD_SUBREAPER`; elsewhere they go to init, out of reach), for [`end_adopted`]
/// to end.
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    }
}

/// Kills and reaps every child this process adopted (see [`adopt_orphans`]): a child that
/// is not a runtime still running (whose group is live) and not of this process's own
/// group and session, which is what a process started by a runtime and left behind is.
/// Their own orphans come to this process as they die, and are ended in turn. How many
/// were ended.
pub fn end_adopted() -> usize {
    let mut ended = 0;
    // Each round ends the orphans of the one before; a fork bomb gets a bounded fight.
    for _ in 0..64 {
        // Held while the round's children are ended: no runtime starts (and is taken for an
        // orphan before its group is counted) meanwhile.
        let live = crate::platform::live_groups();
        let adopted = adopted_children(&live);
        if adopted.is_empty() {
            break;
        }
        for pid in adopted {
            // SAFETY: kill(2) and waitpid(2) of a child of this process.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
            ended += 1;
        }
    }
    ended
}

/// This process's children that it did not start (see [`end_adopted`]).
fn adopted_children(live: &std::collections::BTreeSet<u32>) -> Vec<libc::pid_t> {
    let (me, group, session) = own_ids();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter_map(|pid| Some((pid, Stat::of(pid)?)))
        .filter(|(_, stat)| stat.parent == me)
        .filter(|(_, stat)| {
            let own = stat.group == group && stat.session == session;
            !own && !u32::try_from(stat.group).is_ok_and(|group| live.contains(&group))
        })
        .map(|(pid, _)| pid)
        .collect()
}

fn own_ids() -> (libc::pid_t, libc::pid_t, libc::pid_t) {
    // SAFETY: getpid(2), getpgrp(2) and getsid(2) of this process cannot fail.
    unsafe { (libc::getpid(), libc::getpgrp(), libc::getsid(0)) }
}

/// The ids `/proc/<pid>/stat` gives a process.
#[derive(Debug, PartialEq, Eq)]
struct Stat {
    parent: libc::pid_t,
    group: libc::pid_t,
    session: libc::pid_t,
}

impl Stat {
    fn of(pid: libc::pid_t) -> Option<Self> {
        Self::parse(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
    }

    /// `pid (comm) state ppid pgrp session …`; the command's name may hold spaces and
    /// parentheses, so the fields are read after its last `)`.
    fn parse(stat: &str) -> Option<Self> {
        let (_, rest) = stat.rsplit_once(')')?;
        let mut fields = rest.split_ascii_whitespace().skip(1).map(str::parse::<libc::pid_t>);
        Some(Self { parent: fields.next()?.ok()?, group: fields.next()?.ok()?, session: fields.next()?.ok()? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_command_name_whatever_it_holds() {
        let stat = "4242 (node ) (x)) S 17 4242 4242 0 -1 4194560 1 0 0 0";
        assert_eq!(Stat::parse(stat), Some(Stat { parent: 17, group: 4242, session: 4242 }));
        assert_eq!(Stat::parse("garbage"), None);
        assert_eq!(Stat::parse("1 (init) S x 1 1"), None);
    }

    #[test]
    fn this_process_is_not_its_own_adopted_child() {
        let me = Stat::of(std::process::id() as libc::pid_t).unwrap();
        let (_, group, session) = own_ids();
        assert_eq!((me.group, me.session), (group, session));
    }
}
