//! The runtime's three outputs, its protocol channel, stdout and stderr, read by one
//! thread, the channel first: a line that a hook's child process prints is never handed on
//! ahead of a protocol message that Node wrote before it (the `start` that says whose
//! handler runs), however the machine schedules threads. Read by three threads, a busy
//! machine could hand on a child's first lines before the `start` that Node wrote ahead
//! of them, and credit them to the handler before.

use std::fs::File;
use std::io::{ErrorKind, Read};

use crate::platform::channel::{Descriptor, set_nonblocking, wait_readable};
use crate::protocol::FromNode;
use crate::runtime::slot::RuntimeState;

/// What the runtime said, or that it went away.
#[derive(Debug)]
pub enum FromRuntime {
    Message(FromNode),
    /// A line written to the process's stdout or stderr rather than through `console`: Node's
    /// own errors, or the output of a process a hook started.
    Output {
        stream: Stream,
        line: String,
        /// What the runtime was doing when the line was read (whose handler ran).
        state: RuntimeState,
    },
    /// A call sent [`Call::resolved`](crate::protocol::Call) failed: no promise is left to
    /// reject, so it is its hook's error.
    /// `call`: the method and its first argument, `kv.set("last-turn")`.
    CallFailed {
        hook: Option<String>,
        call: String,
        error: String,
    },
    /// The protocol channel closed: the process exited or is about to.
    Exited,
}

/// Which of the runtime's output streams a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Where a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Protocol,
    Stdout,
    Stderr,
}

/// What the reader is told, in the order the runtime wrote it.
pub enum Arrived {
    /// A whole line (without its end of line).
    Line(Source, Vec<u8>),
    /// The protocol channel closed: the runtime exited or is about to.
    ProtocolClosed,
    /// Everything the runtime had written was handed on: the reader waits for more.
    CaughtUp,
}

/// The longest line of stdout or stderr handed on; a longer one is cut into pieces of this
/// length, so that one endless line cannot take the memory.
const LONGEST_OUTPUT_LINE: usize = 64 * 1024;

/// How much one read takes.
const CHUNK: usize = 64 * 1024;

/// The most of the protocol channel read before the outputs get their turn (Node could
/// write without end; the outputs must still be read).
const PROTOCOL_FIRST: usize = 1024 * 1024;

/// One of the three, with what was read of it and not yet handed on as lines.
struct Input {
    source: Source,
    file: Option<File>,
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no end of line: a long line arriving in many
    /// reads is searched once, not again from its start after each.
    searched: usize,
}

/// Starts the thread. `deliver` gets everything in order and returns `false` when nobody
/// listens any more, which ends the thread; it ends too once all three have closed.
pub fn spawn(
    protocol: Descriptor,
    stdout: Descriptor,
    stderr: Descriptor,
    deliver: impl FnMut(Arrived) -> bool + Send + 'static,
) -> std::io::Result<()> {
    let mut inputs = Vec::with_capacity(3);
    for (source, fd) in [(Source::Protocol, protocol), (Source::Stdout, stdout), (Source::Stderr, stderr)] {
        set_nonblocking(&fd)?;
        inputs.push(Input { source, file: Some(File::from(fd)), pending: Vec::new(), searched: 0 });
    }
    std::thread::Builder::new().name("agent-sdk-runtime-reader".to_owned()).spawn(move || read_all(inputs, deliver))?;
    Ok(())
}

fn read_all(mut inputs: Vec<Input>, mut deliver: impl FnMut(Arrived) -> bool) {
    let mut buffer = vec![0; CHUNK];
    let mut first = true;
    while inputs.iter().any(|input| input.file.is_some()) {
        if !std::mem::take(&mut first) && !deliver(Arrived::CaughtUp) {
            return;
        }
        let files: Vec<Option<&File>> = inputs.iter().map(|input| input.file.as_ref()).collect();
        let mut ready = vec![false; files.len()];
        match wait_readable(&files, &mut ready) {
            Ok(()) => {}
            Err(error) if error.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        // In order, the protocol first: what it holds now was written before anything the
        // outputs hold now.
        for (input, ready) in inputs.iter_mut().zip(ready) {
            if !ready {
                continue;
            }
            let limit = if input.source == Source::Protocol { PROTOCOL_FIRST } else { CHUNK };
            if !read_available(input, &mut buffer, limit, &mut deliver) {
                return;
            }
        }
    }
}

/// Reads what `input` has now (at most about `limit` bytes) and hands on its whole lines;
/// at its end, the rest too. Returns `false` when nobody listens any more.
fn read_available(
    input: &mut Input,
    buffer: &mut [u8],
    limit: usize,
    deliver: &mut impl FnMut(Arrived) -> bool,
) -> bool {
    let mut taken = 0;
    let mut ended = false;
    while taken < limit {
        let Some(file) = input.file.as_mut() else { return true };
        match file.read(buffer) {
            Ok(0) => {
                ended = true;
                break;
            }
            Ok(read) => {
                taken += read;
                input.pending.extend_from_slice(&buffer[..read]);
                // A short read took all there was: asking again would only say so (poll
                // says when more comes), a system call per wake-up saved.
                if read < buffer.len() {
                    break;
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if error.kind() == ErrorKind::WouldBlock => break,
            Err(_) => {
                ended = true;
                break;
            }
        }
    }
    if !hand_on_lines(input, deliver) {
        return false;
    }
    if ended {
        input.file = None;
        let rest = std::mem::take(&mut input.pending);
        // A protocol line cut off by the end is no message; an output's last line is output.
        if !rest.is_empty() && input.source != Source::Protocol && !deliver(Arrived::Line(input.source, rest)) {
            return false;
        }
        if input.source == Source::Protocol {
            return deliver(Arrived::ProtocolClosed);
        }
    }
    true
}

/// Hands on every whole line of `input.pending` (an output's too-long line in pieces).
fn hand_on_lines(input: &mut Input, deliver: &mut impl FnMut(Arrived) -> bool) -> bool {
    let output = input.source != Source::Protocol;
    let mut start = 0;
    let mut searched = input.searched;
    loop {
        let rest = &input.pending[start..];
        let found = rest[searched.min(rest.len())..].iter().position(|&byte| byte == b'\n').map(|at| at + searched);
        let (end, next) = match found {
            Some(end) if !output || end <= LONGEST_OUTPUT_LINE => (end, end + 1),
            _ if output && rest.len() >= LONGEST_OUTPUT_LINE => (LONGEST_OUTPUT_LINE, LONGEST_OUTPUT_LINE),
            _ => {
                searched = rest.len();
                break;
            }
        };
        let line = rest[..end].to_vec();
        start += next;
        searched = 0;
        if !deliver(Arrived::Line(input.source, line)) {
            return false;
        }
    }
    input.pending.drain(..start);
    input.searched = searched;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(source: Source, reads: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut input = Input { source, file: None, pending: Vec::new(), searched: 0 };
        let mut lines = Vec::new();
        for read in reads {
            input.pending.extend_from_slice(read);
            hand_on_lines(&mut input, &mut |arrived| {
                if let Arrived::Line(_, line) = arrived {
                    lines.push(line);
                }
                true
            });
        }
        lines
    }

    /// What the protocol channel holds when an output line is read was written before
    /// it, so it is handed on first: every time, not only when the threads are lucky.
    #[test]
    fn what_the_protocol_wrote_first_is_handed_on_first() {
        use std::io::Write;
        for round in 0..200 {
            let (protocol_read, mut protocol_write) = std::io::pipe().unwrap();
            let (stdout_read, mut stdout_write) = std::io::pipe().unwrap();
            let (stderr_read, stderr_write) = std::io::pipe().unwrap();
            protocol_write.write_all(format!("start {round}\n").as_bytes()).unwrap();
            stdout_write.write_all(b"child output\n").unwrap();
            drop((protocol_write, stdout_write, stderr_write));
            let (sender, received) = std::sync::mpsc::channel();
            spawn(protocol_read.into(), stdout_read.into(), stderr_read.into(), move |arrived| {
                let said = match arrived {
                    Arrived::Line(source, line) => format!("{source:?}: {}", String::from_utf8_lossy(&line)),
                    Arrived::ProtocolClosed => "closed".to_owned(),
                    Arrived::CaughtUp => return true,
                };
                sender.send(said).is_ok()
            })
            .unwrap();
            let order: Vec<String> = received.iter().collect();
            assert_eq!(order[0], format!("Protocol: start {round}"), "{order:?}");
            assert!(order.contains(&"Stdout: child output".to_owned()), "{order:?}");
        }
    }

    #[test]
    fn lines_split_across_reads_come_whole() {
        let lines = lines_of(Source::Protocol, &[b"{\"t\":", b"\"done\"}\n{\"t\"", b":\"x\"}\n\n"]);
        assert_eq!(lines, [b"{\"t\":\"done\"}".to_vec(), b"{\"t\":\"x\"}".to_vec(), Vec::new()]);
    }

    #[test]
    fn an_endless_output_line_is_cut_and_a_protocol_line_is_not() {
        let long = vec![b'a'; LONGEST_OUTPUT_LINE + 10];
        let cut = lines_of(Source::Stdout, &[&long[..1000], &long[1000..], b"\n"]);
        assert_eq!(cut.iter().map(Vec::len).collect::<Vec<_>>(), [LONGEST_OUTPUT_LINE, 10]);
        let whole = lines_of(Source::Protocol, &[&long[..1000], &long[1000..], b"\n"]);
        assert_eq!(whole.iter().map(Vec::len).collect::<Vec<_>>(), [LONGEST_OUTPUT_LINE + 10]);
    }
}
