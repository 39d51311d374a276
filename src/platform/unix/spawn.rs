//! Starting the hook runtime without copying agent-sdk: on Linux the child shares this
//! process's memory until it executes Node (`clone` with `CLONE_VM | CLONE_VFORK`, what
//! posix_spawn does), and makes by hand the few requests it needs before that: its channel
//! ends at fixed numbers, a process group of its own, and death with its parent, which
//! posix_spawn cannot ask for. A `fork` copied agent-sdk's page tables and made its next
//! writes fault: some 1 ms of every `run` before Node could start (docs/performance.md).
//! Elsewhere on Unix it is std's `Command`, which forks.

use std::ffi::{OsStr, OsString};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use super::channel::Descriptor;

/// What to start: a program with its arguments, in a folder, with exactly an environment.
pub struct Launch {
    program: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    dir: PathBuf,
}

/// A started child with its output: the read ends of its stdout and stderr (its stdin is
/// `/dev/null`).
pub struct Started {
    pub child: Child,
    pub stdout: Descriptor,
    pub stderr: Descriptor,
}

impl Launch {
    /// `program` (searched for on the environment's `PATH` when it names no folder; a
    /// relative path is this process's, not `dir`'s), run in `dir` with the variables `env`
    /// and nothing else.
    pub fn new(program: &Path, dir: &Path, env: Vec<(OsString, OsString)>) -> Self {
        Launch { program: program.to_path_buf(), args: Vec::new(), env, dir: dir.to_path_buf() }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Starts the child, each of `ends` at its number (the only descriptors it gets beyond its
    /// standard streams), leading a process group of its own and (on Linux) killed when the
    /// thread that started it ends. The ends are closed here once the child has them.
    pub fn start<const N: usize>(self, ends: [(Descriptor, i32); N]) -> std::io::Result<Started> {
        let (stdout, child_stdout) = std::io::pipe()?;
        let (stderr, child_stderr) = std::io::pipe()?;
        let null = std::fs::File::open("/dev/null")?;
        let mut given: Vec<(Descriptor, i32)> =
            vec![(null.into(), 0), (child_stdout.into(), 1), (child_stderr.into(), 2)];
        given.extend(ends);
        let child = start(&self, given)?;
        Ok(Started { child, stdout: stdout.into(), stderr: stderr.into() })
    }
}

/// A child [`Launch::start`] started: waited for, killed, known by its pid.
pub struct Child {
    pid: libc::pid_t,
    status: Option<ExitStatus>,
}

impl Child {
    pub fn id(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Its exit status, if it has ended (reaping it).
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        if self.status.is_none() {
            self.status = reap(self.pid, libc::WNOHANG)?;
        }
        Ok(self.status)
    }

    /// Waits for it to end.
    pub fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(status) = self.status {
            return Ok(status);
        }
        let status = reap(self.pid, 0)?.ok_or_else(|| std::io::Error::other("waitpid returned no status"))?;
        self.status = Some(status);
        Ok(status)
    }

    /// SIGKILL, unless it has been reaped already (its pid may then be another process's).
    pub fn kill(&mut self) -> std::io::Result<()> {
        if self.status.is_some() {
            return Ok(());
        }
        // SAFETY: kill(2) of our own unreaped child.
        if unsafe { libc::kill(self.pid, libc::SIGKILL) } == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

/// waitpid(2) of `pid` with `options`: its status once it has ended.
fn reap(pid: libc::pid_t, options: libc::c_int) -> std::io::Result<Option<ExitStatus>> {
    use std::os::unix::process::ExitStatusExt;
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) of our own child into a local.
        match unsafe { libc::waitpid(pid, &mut status, options) } {
            0 => return Ok(None),
            -1 => {
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
            _ => return Ok(Some(ExitStatus::from_raw(status))),
        }
    }
}

/// Where `program` is: itself when it names a folder, else the first executable file of that
/// name in the `PATH` of `env` (as the child's exec would have searched it); a relative
/// result is taken from this process's folder, not the one the child changes to.
fn locate(program: &Path, env: &[(OsString, OsString)]) -> std::io::Result<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let found = if program.as_os_str().as_bytes().contains(&b'/') {
        program.to_path_buf()
    } else {
        let path = env.iter().rev().find(|(name, _)| name == "PATH").map(|(_, value)| value.as_os_str());
        let folders = std::env::split_paths(path.unwrap_or(OsStr::new("/usr/local/bin:/usr/bin:/bin")));
        let mut candidates = folders.map(|folder| folder.join(program));
        candidates.find(|candidate| is_executable(candidate)).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, format!("{} is not on PATH", program.display()))
        })?
    };
    if found.is_absolute() { Ok(found) } else { Ok(std::env::current_dir()?.join(found)) }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// A text for the child's exec: the bytes of `text` and a NUL (a NUL inside is refused).
fn c_text(text: &[u8]) -> std::io::Result<std::ffi::CString> {
    std::ffi::CString::new(text).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in a program, argument or variable")
    })
}

/// Each of `given` moved above every number asked for (so that placing one never overwrites
/// another still to be placed), held until the child has them, and the moves to make.
type Placed = (Vec<Descriptor>, Vec<(libc::c_int, libc::c_int)>);

fn placed(given: Vec<(Descriptor, i32)>) -> std::io::Result<Placed> {
    let highest = given.iter().map(|(_, number)| *number).max().unwrap_or(2);
    let mut held = Vec::with_capacity(given.len());
    let mut moves = Vec::with_capacity(given.len());
    for (end, number) in given {
        let end = super::channel::above(end, highest)?;
        moves.push((end.as_raw_fd(), number));
        held.push(end);
    }
    Ok((held, moves))
}

#[cfg(target_os = "linux")]
fn start(launch: &Launch, given: Vec<(Descriptor, i32)>) -> std::io::Result<Child> {
    linux::start(launch, given)
}

/// Elsewhere on Unix: std's `Command` (a fork), the ends placed between fork and exec.
#[cfg(not(target_os = "linux"))]
fn start(launch: &Launch, given: Vec<(Descriptor, i32)>) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let (held, moves) = placed(given)?;
    let mut command = std::process::Command::new(&launch.program);
    command.args(&launch.args).env_clear().envs(launch.env.iter().cloned()).current_dir(&launch.dir).process_group(0);
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (dup2)
    // and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for &(end, number) in &moves {
                if libc::dup2(end, number) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = command.spawn()?;
    drop(held);
    let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
    Ok(Child { pid, status: None })
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::sync::atomic::{AtomicI32, Ordering};

    use super::{Child, Descriptor, Launch, c_text, locate, placed};

    /// Everything the child reads between clone and exec, made before: it allocates nothing.
    struct Plan {
        path: CString,
        argv: Vec<*const libc::c_char>,
        envp: Vec<*const libc::c_char>,
        dir: CString,
        /// (descriptor, number it takes in the child), every descriptor above every number.
        moves: Vec<(libc::c_int, libc::c_int)>,
        parent: libc::pid_t,
        /// The errno of the step that failed, if one did (the child then exits 127).
        failed: AtomicI32,
    }

    /// The child's stack while it shares our memory: it calls a few libc functions, no more.
    const STACK_BYTES: usize = 64 * 1024;

    pub(super) fn start(launch: &Launch, given: Vec<(Descriptor, i32)>) -> std::io::Result<Child> {
        let path = c_text(locate(&launch.program, &launch.env)?.as_os_str().as_bytes())?;
        let mut args = vec![c_text(launch.program.as_os_str().as_bytes())?];
        for arg in &launch.args {
            args.push(c_text(arg.as_bytes())?);
        }
        let mut vars = Vec::with_capacity(launch.env.len());
        for (name, value) in &launch.env {
            vars.push(c_text(&[name.as_bytes(), b"=", value.as_bytes()].concat())?);
        }
        let dir = c_text(launch.dir.as_os_str().as_bytes())?;
        let (held, moves) = placed(given)?;
        let plan = Plan {
            path,
            argv: args.iter().map(|arg| arg.as_ptr()).chain(std::iter::once(std::ptr::null())).collect(),
            envp: vars.iter().map(|var| var.as_ptr()).chain(std::iter::once(std::ptr::null())).collect(),
            dir,
            moves,
            parent: std::process::id() as libc::pid_t,
            failed: AtomicI32::new(0),
        };
        let mut stack = vec![0u128; STACK_BYTES / size_of::<u128>()];
        // SAFETY: the stack's end, 16-byte aligned (u128), is where the child's stack starts
        // (it grows down); the vector outlives the child's use of it (CLONE_VFORK: clone
        // returns once the child has executed or exited).
        let top = unsafe { stack.as_mut_ptr().add(stack.len()) }.cast::<libc::c_void>();
        let pid = {
            // No handler of ours may run in the child while it shares our memory: every signal
            // is blocked around the clone, and the child unblocks them only as it executes.
            let all = signal_set(true);
            let mut before = signal_set(false);
            // SAFETY: pthread_sigmask with valid sets; the mask is restored below.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut before) };
            // SAFETY: `child` runs on `stack` with `plan`, both alive until clone returns
            // (CLONE_VFORK); it only makes async-signal-safe calls and ends in exec or _exit.
            let pid = unsafe {
                libc::clone(
                    child,
                    top,
                    libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                    std::ptr::from_ref(&plan).cast_mut().cast(),
                )
            };
            let error = std::io::Error::last_os_error();
            // SAFETY: as above.
            unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &before, std::ptr::null_mut()) };
            if pid == -1 {
                return Err(error);
            }
            pid
        };
        drop(held);
        let mut child = Child { pid, status: None };
        match plan.failed.load(Ordering::SeqCst) {
            0 => Ok(child),
            errno => {
                let _ = child.wait();
                Err(std::io::Error::from_raw_os_error(errno))
            }
        }
    }

    /// A signal set with every signal (`full`) or none.
    fn signal_set(full: bool) -> libc::sigset_t {
        // SAFETY: a zeroed sigset_t is a valid value to fill or empty.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: the set is ours.
        unsafe {
            if full {
                libc::sigfillset(&mut set);
            } else {
                libc::sigemptyset(&mut set);
            }
        }
        set
    }

    /// The child, between clone and exec, in our memory: default signal handling, death with
    /// its parent, its own process group, its descriptors, its folder, then Node.
    extern "C" fn child(plan: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `plan` is the parent's Plan, alive and unchanged while the parent waits.
        let plan = unsafe { &*plan.cast::<Plan>() };
        // SAFETY: each call is async-signal-safe and reads only the plan (see above).
        unsafe {
            let fail = |plan: &Plan| -> libc::c_int {
                plan.failed.store(*libc::__errno_location(), Ordering::SeqCst);
                libc::_exit(127)
            };
            // A handler agent-sdk set is not the child's (std's spawn does the same for
            // SIGPIPE, which Rust ignores): every one goes back to its default.
            for signal in 1..=libc::SIGRTMAX() {
                let mut current: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                    && current.sa_sigaction != libc::SIG_DFL
                    && (current.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
                {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(signal, &default, std::ptr::null_mut());
                }
            }
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return fail(plan);
            }
            // The parent may have died before the request took effect.
            if libc::getppid() != plan.parent {
                libc::_exit(1);
            }
            if libc::setpgid(0, 0) == -1 {
                return fail(plan);
            }
            for &(end, number) in &plan.moves {
                if libc::dup2(end, number) == -1 {
                    return fail(plan);
                }
            }
            if libc::chdir(plan.dir.as_ptr()) == -1 {
                return fail(plan);
            }
            let none = signal_set(false);
            libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            libc::execve(plan.path.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr());
            fail(plan)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn shell(script: &str, env: &[(&str, &str)], dir: &Path) -> Launch {
        let env = env.iter().map(|(name, value)| (OsString::from(name), OsString::from(value))).collect();
        Launch::new(Path::new("sh"), dir, env).arg("-c").arg(script)
    }

    fn output(started: Started) -> (String, String, ExitStatus) {
        let Started { mut child, stdout, stderr } = started;
        let (mut out, mut err) = (String::new(), String::new());
        std::fs::File::from(stdout).read_to_string(&mut out).unwrap();
        std::fs::File::from(stderr).read_to_string(&mut err).unwrap();
        (out, err, child.wait().unwrap())
    }

    #[test]
    fn the_child_gets_its_ends_at_their_numbers_its_folder_its_variables_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (reads, writes) = std::io::pipe().unwrap();
        let script =
            "echo \"$ONLY $HOME\"; pwd; ls /proc/self/fd | tr '\\n' ' '; echo; echo through >&5; echo >&2 said";
        let env = [("PATH", "/usr/bin:/bin"), ("ONLY", "this")];
        let started = shell(script, &env, dir.path()).start([(writes.into(), 5)]).unwrap();
        let (out, err, status) = output(started);
        assert!(status.success(), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "this ", "no variable but those given");
        assert_eq!(Path::new(lines[1]).canonicalize().unwrap(), dir.path().canonicalize().unwrap());
        // Below 10 (what the test's own process leaves open is inherited as ever): 0, 1, 2 and
        // the end at 5, besides the descriptor ls opened to list them (3).
        let mut low: Vec<u32> =
            lines[2].split_whitespace().filter_map(|fd| fd.parse().ok()).filter(|fd| *fd < 10).collect();
        low.sort_unstable();
        assert_eq!(low, [0, 1, 2, 3, 5]);
        let mut through = String::new();
        std::fs::File::from(std::os::fd::OwnedFd::from(reads)).read_to_string(&mut through).unwrap();
        assert_eq!(through, "through\n");
        assert_eq!(err, "said\n");
    }

    #[test]
    fn the_child_leads_a_process_group_of_its_own() {
        let started = shell("ps -o pgid= -p $$", &[("PATH", "/usr/bin:/bin")], Path::new("/")).start([]).unwrap();
        let pid = started.child.id();
        let (out, _, status) = output(started);
        assert!(status.success());
        assert_eq!(out.trim(), pid.to_string());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_child_dies_with_the_thread_that_started_it() {
        let started = std::thread::spawn(|| {
            shell("exec sleep 30", &[("PATH", "/usr/bin:/bin")], Path::new("/")).start([]).unwrap()
        })
        .join()
        .unwrap();
        let Started { mut child, .. } = started;
        let began = std::time::Instant::now();
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?}");
        assert!(began.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn a_program_not_on_path_is_not_found_and_an_unusable_folder_is_said() {
        let env = vec![(OsString::from("PATH"), OsString::from("/nonexistent"))];
        let error = Launch::new(Path::new("node"), Path::new("/"), env.clone()).start([]).err().unwrap();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        let error = Launch::new(Path::new("/bin/sh"), Path::new("/nonexistent"), env).start([]).err().unwrap();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "chdir's ENOENT: {error}");
    }

    #[test]
    fn a_relative_program_is_found_from_this_process_s_folder_not_the_child_s() {
        let here = std::env::current_dir().unwrap();
        let relative = Path::new("./relative-program");
        assert_eq!(locate(relative, &[]).unwrap(), here.join(relative));
        let env = [(OsString::from("PATH"), OsString::from("/nonexistent::/bin"))];
        assert_eq!(locate(Path::new("sh"), &env).unwrap(), Path::new("/bin/sh"));
    }

    #[test]
    fn a_file_that_is_no_program_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("not-a-program");
        std::fs::write(&script, "text").unwrap();
        let error = Launch::new(&script, Path::new("/"), Vec::new()).start([]).err().unwrap();
        assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied, "{error}");
    }

    #[test]
    fn a_child_is_waited_for_once_and_killed_only_while_it_is_ours() {
        let Started { mut child, .. } =
            shell("exec sleep 30", &[("PATH", "/usr/bin:/bin")], Path::new("/")).start([]).unwrap();
        assert!(child.try_wait().unwrap().is_none());
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(child.try_wait().unwrap(), Some(status));
        child.kill().unwrap();
    }
}
