//! Lines for the runtime on one of its pipes (its messages on fd 3, the replies to its `ctx`
//! calls on fd 5), written at once by the thread that sends them, so Node waits for no other
//! thread to wake. Only when Node is not reading that pipe (a handler that never yields, or
//! one that makes a thousand calls before it awaits one) do lines queue for a thread of
//! their own, which waits for room: a sender never blocks on Node (which could be blocked
//! writing the very lines that sender has stopped reading, or spinning while the sender's
//! watchdog is what must end it).

use std::io::{ErrorKind, PipeWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};

use crate::protocol::ToNode;

/// Writes lines to one pipe of one runtime; its clones write to the same pipe, in the order
/// they send. The pipe closes once every clone is dropped and the queued lines are written
/// (or Node is gone).
#[derive(Debug, Clone)]
pub struct PipeLines(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    pipe: Arc<PipeWriter>,
    backlog: Sender<Vec<u8>>,
    /// Lines handed to the backlog thread and not yet written: while there are any, a new
    /// one queues behind them.
    queued: Arc<AtomicUsize>,
    /// Held from a sender's look at `queued` until its line is written or queued: two
    /// senders' lines never interleave nor pass each other.
    in_order: Mutex<()>,
}

impl PipeLines {
    /// Writes to `pipe` (made non-blocking), with a backlog thread called `name`.
    pub fn new(pipe: PipeWriter, name: &str) -> std::io::Result<Self> {
        crate::platform::channel::set_nonblocking(&pipe)?;
        let pipe = Arc::new(pipe);
        let queued = Arc::new(AtomicUsize::new(0));
        let (backlog, lines) = channel::<Vec<u8>>();
        let (writer, count) = (Arc::clone(&pipe), Arc::clone(&queued));
        std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            while let Ok(line) = lines.recv() {
                if write_waiting(&writer, &line).is_err() {
                    // Node is gone: nothing more is written.
                    return;
                }
                count.fetch_sub(1, Ordering::AcqRel);
            }
        })?;
        Ok(Self(Arc::new(Shared { pipe, backlog, queued, in_order: Mutex::new(()) })))
    }

    /// Sends `message` as one line (see [`PipeLines::send`]).
    pub fn send_message(&self, message: &ToNode) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.send(line);
        Ok(())
    }

    /// Sends `lines` (whole lines) now if the pipe takes them, else (what it did not take)
    /// after the ones queued. A runtime that is gone is no error here: its end reaches the
    /// dispatcher as its channel closing.
    pub fn send(&self, mut lines: Vec<u8>) {
        let Shared { pipe, backlog, queued, in_order } = &*self.0;
        let _in_order = in_order.lock().unwrap_or_else(PoisonError::into_inner);
        if queued.load(Ordering::Acquire) == 0 {
            match (&**pipe).write(&lines) {
                Ok(written) if written == lines.len() => return,
                Ok(written) => drop(lines.drain(..written)),
                Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
        queued.fetch_add(1, Ordering::AcqRel);
        let _ = backlog.send(lines);
    }
}

/// Writes all of `bytes` to the non-blocking `pipe`, waiting for room when it is full.
fn write_waiting(mut pipe: &PipeWriter, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        match pipe.write(bytes) {
            Ok(written) => bytes = &bytes[written..],
            Err(error) if error.kind() == ErrorKind::WouldBlock => {
                match crate::platform::channel::wait_writable(pipe) {
                    // Interrupted (EINTR) only means trying the write again.
                    Err(error) if error.kind() != ErrorKind::Interrupted => return Err(error),
                    _ => {}
                }
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::protocol::Reply;

    /// Far more replies than the pipe holds, while nobody reads it: the sender never blocks,
    /// and once the pipe is read every reply comes, whole and in order.
    #[test]
    fn replies_nobody_reads_yet_queue_in_order_and_the_sender_never_waits() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let replies = PipeLines::new(writer, "replies").unwrap();
        for id in 0..20_000 {
            replies.send_message(&ToNode::Reply(Reply::new(id.into(), Ok(serde_json::json!("some value"))))).unwrap();
        }
        drop(replies);
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        let ids: Vec<u64> = text
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, (0..20_000).collect::<Vec<_>>());
    }

    /// Four threads send long lines (each longer than a pipe writes at once) through clones,
    /// while the pipe is read slowly: every line arrives whole, and each thread's in its order.
    #[test]
    fn lines_sent_from_many_threads_arrive_whole_and_each_thread_s_in_order() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let lines = PipeLines::new(writer, "lines").unwrap();
        let senders: Vec<_> = (0..4)
            .map(|thread| {
                let lines = lines.clone();
                std::thread::spawn(move || {
                    for index in 0..200 {
                        lines.send(format!("{thread} {index} {}\n", "x".repeat(10_000)).into_bytes());
                    }
                })
            })
            .collect();
        drop(lines);
        let mut text = String::new();
        let mut piece = [0u8; 1000];
        loop {
            let read = reader.read(&mut piece).unwrap();
            if read == 0 {
                break;
            }
            text.push_str(std::str::from_utf8(&piece[..read]).unwrap());
            // Read slowly: the pipe stays full, so lines are written in part and queued.
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
        senders.into_iter().for_each(|sender| sender.join().unwrap());
        let mut next = [0; 4];
        for line in text.lines() {
            let mut words = line.split(' ');
            let thread: usize = words.next().unwrap().parse().unwrap();
            let index: usize = words.next().unwrap().parse().unwrap();
            assert_eq!(words.next().map(str::len), Some(10_000), "a line arrived whole");
            assert_eq!(index, next[thread], "thread {thread}'s lines in order");
            next[thread] += 1;
        }
        assert_eq!(next, [200; 4]);
    }
}
