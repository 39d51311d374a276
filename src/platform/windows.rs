//! The Windows side of [`crate::platform`]. Files, users and the stopping keys work; what
//! the hook runtime needs has another design there (docs/ARCHITECTURE.md, "Platforms": named
//! pipes for the channel, a job object for the child's lifetime), so each of those parts
//! says it is not supported yet.

/// Files on Windows: positioned reads and writes, no modes, no uids.
pub mod files {
    use std::fs::{File, Metadata, OpenOptions};
    use std::os::windows::fs::FileExt;
    use std::path::Path;

    use crate::platform::Unsupported;

    /// Windows would share the handler slot as a file opened with delete-on-close that Node
    /// writes by path; not written yet.
    pub fn anonymous_file(_name: &std::ffi::CStr) -> std::io::Result<File> {
        Err(Unsupported("the hook runtime's handler slot").into())
    }

    /// `path` opened for reading, to ask the open file what it is (`metadata`).
    pub fn open_to_inspect(path: &Path) -> std::io::Result<File> {
        File::open(path)
    }

    /// Reads exactly `buffer.len()` bytes of `file` from `offset`. (Windows moves the file's
    /// position; nothing here reads it by position.)
    pub fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> std::io::Result<()> {
        while !buffer.is_empty() {
            match file.seek_read(buffer, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(read) => {
                    buffer = &mut buffer[read..];
                    offset += read as u64;
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Writes all of `bytes` into `file` at `offset`.
    pub fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
        while !bytes.is_empty() {
            match file.seek_write(bytes, offset) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(written) => {
                    bytes = &bytes[written..];
                    offset += written as u64;
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Creates the folder `path` and any missing parent; what is private there is the user
    /// profile's ACLs, which a folder under it inherits.
    pub fn create_private_dir_all(path: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(path)
    }

    /// `options` as they are: a new file inherits its folder's ACLs.
    pub fn private(options: &mut OpenOptions) -> &mut OpenOptions {
        options
    }

    /// Nothing to do: a file inherits its folder's ACLs.
    pub fn make_private(_file: &File) -> std::io::Result<()> {
        Ok(())
    }

    /// Gives `file` the read-only flag of the file whose metadata is `like` (Windows files
    /// have no mode, and giving a file away needs a privilege a user does not have).
    pub fn take_owner_and_mode(file: &File, like: &Metadata) -> std::io::Result<()> {
        file.set_permissions(like.permissions())
    }

    /// Windows files have owners by SID, not uid: not read yet, so no file's owner is
    /// compared.
    pub fn owner(_metadata: &Metadata) -> Option<u32> {
        None
    }

    /// How many names the file has: std reads no link count on Windows yet, so a file is
    /// taken to have one (a fix replaces it rather than writing it in place).
    pub fn link_count(_metadata: &Metadata) -> u64 {
        1
    }

    /// Whether the two are the same file: std reads no file index on Windows yet (`None`).
    pub fn same_file(_a: &Metadata, _b: &Metadata) -> Option<bool> {
        None
    }

    /// std opens files without `FILE_SHARE_DELETE`, so a file held open cannot be removed.
    pub const REMOVABLE_WHILE_OPEN: bool = false;
}

/// Users on Windows: not read yet (owners are SIDs; see [`files::owner`]).
pub mod users {
    /// No uid on Windows: [`super::files::owner`] is `None` there, so no file's owner is
    /// ever compared with this.
    pub fn current_user() -> u32 {
        u32::MAX
    }

    /// No user database by uid on Windows.
    pub fn name_of(_uid: u32) -> Option<String> {
        None
    }
}

/// A child's lifetime on Windows: a job object with "kill on job close" would hold the
/// runtime and every process it starts; not written yet, and no runtime starts there yet.
pub mod process {
    use std::process::Command;

    /// A job object would end the child with agent-sdk; not written yet.
    pub fn die_with_parent(_command: &mut Command) {}

    /// A console process group of its own (`CREATE_NEW_PROCESS_GROUP`): Ctrl-C at the
    /// console reaches agent-sdk, not the child.
    pub fn own_process_group(command: &mut Command) {
        use std::os::windows::process::CommandExt;
        const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        command.creation_flags(CREATE_NEW_PROCESS_GROUP);
    }

    /// Forgets the group as live. Killing what the child started needs the job object; the
    /// child itself is killed by its owner.
    pub fn kill_group(leader: u32) {
        crate::platform::live_groups().remove(&leader);
    }

    /// Forgets every live group (see [`kill_group`]).
    pub fn kill_live_groups() {
        crate::platform::live_groups().clear();
    }

    /// Nothing to reap: a Windows process leaves no zombie.
    pub fn reap_in_background(_pid: u32) {}

    /// Orphans stay in the job object that would hold them; not written yet.
    pub fn adopt_orphans() {}

    /// See [`adopt_orphans`]: none ended.
    pub fn end_adopted() -> usize {
        0
    }
}

/// Handles on Windows. The runtime's channel would be named pipes whose names the runtime
/// gets in its environment: a child cannot be given handles at fixed descriptor numbers.
pub mod channel {
    use std::fs::File;
    use std::os::windows::io::AsHandle;

    use crate::platform::Unsupported;

    /// An open handle this process owns: a pipe's end, a file.
    pub type Descriptor = std::os::windows::io::OwnedHandle;

    /// Anonymous pipes have no non-blocking mode on Windows; overlapped named pipes would.
    pub fn set_nonblocking(_handle: &impl AsHandle) -> std::io::Result<()> {
        Err(Unsupported("a non-blocking pipe").into())
    }

    /// Waiting on several pipes would be a thread per pipe or an I/O completion port.
    pub fn wait_readable(_files: &[Option<&File>], _ready: &mut [bool]) -> std::io::Result<()> {
        Err(Unsupported("waiting on several pipes").into())
    }

    /// See [`set_nonblocking`].
    pub fn wait_writable(_pipe: &impl AsHandle) -> std::io::Result<()> {
        Err(Unsupported("a non-blocking pipe").into())
    }
}

/// Starting the hook runtime on Windows: its channel would be named pipes (see [`channel`]);
/// not written yet.
pub mod spawn {
    use std::ffi::{OsStr, OsString};
    use std::path::Path;
    use std::process::ExitStatus;

    use super::channel::Descriptor;
    use crate::platform::Unsupported;

    /// What to start (see the Unix side).
    pub struct Launch;

    /// A started child with its output.
    pub struct Started {
        pub child: Child,
        pub stdout: Descriptor,
        pub stderr: Descriptor,
    }

    impl Launch {
        pub fn new(_program: &Path, _dir: &Path, _env: Vec<(OsString, OsString)>) -> Self {
            Launch
        }

        pub fn arg(self, _arg: impl AsRef<OsStr>) -> Self {
            self
        }

        pub fn start<const N: usize>(self, _ends: [(Descriptor, i32); N]) -> std::io::Result<Started> {
            Err(Unsupported("the hook runtime's channel (fds 3 to 8)").into())
        }
    }

    /// A child [`Launch::start`] started: none can be, yet.
    pub struct Child(std::convert::Infallible);

    impl Child {
        pub fn id(&self) -> u32 {
            match self.0 {}
        }

        pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
            match self.0 {}
        }

        pub fn wait(&mut self) -> std::io::Result<ExitStatus> {
            match self.0 {}
        }

        pub fn kill(&mut self) -> std::io::Result<()> {
            match self.0 {}
        }
    }
}

/// The stopping keys on Windows: Ctrl-C, Ctrl-Break and closing the console.
pub mod signals {
    use crate::platform::Unsupported;

    /// The console's control handler would deliver Ctrl-C to a thread; not written yet (so
    /// Ctrl-C ends the process at once, as by default).
    pub fn prepare_signals(
        _signals: &[i32],
        _handler: impl FnMut(i32) + Send + 'static,
    ) -> std::io::Result<PreparedSignals> {
        Err(Unsupported("stopping in order on Ctrl-C").into())
    }

    /// Never made on Windows (see [`prepare_signals`]).
    pub struct PreparedSignals;

    impl PreparedSignals {
        pub fn arm(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Ctrl-C as a stream, for one listener that lasts a whole command.
    pub struct Interrupts(tokio::signal::windows::CtrlC);

    impl Interrupts {
        /// Listens from now on (in a tokio runtime).
        pub fn listen() -> std::io::Result<Self> {
            tokio::signal::windows::ctrl_c().map(Self)
        }

        /// The next Ctrl-C.
        pub async fn recv(&mut self) {
            self.0.recv().await;
        }
    }

    /// Ctrl-C, Ctrl-Break or the console closing, whichever comes first.
    pub async fn stop_requested() {
        use tokio::signal::windows::{ctrl_break, ctrl_close};
        let interrupt = tokio::signal::ctrl_c();
        let (Ok(mut brk), Ok(mut close)) = (ctrl_break(), ctrl_close()) else {
            let _ = interrupt.await;
            return;
        };
        tokio::select! {
            _ = interrupt => {}
            _ = brk.recv() => {}
            _ = close.recv() => {}
        }
    }
}
