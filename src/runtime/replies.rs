//! The replies to the runtime's `ctx` calls, on their own pipe (fd 5 in Node). The thread
//! that answered a call writes its reply at once, so a hook awaiting it waits for no other
//! thread to wake. Only when Node is not reading them (a handler that makes a thousand
//! calls before it awaits one) do replies queue for a thread of their own, which waits for
//! the pipe: the answering thread never blocks on Node, which could be blocked writing the
//! very calls that thread has stopped reading.

use std::io::{ErrorKind, PipeWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};

use crate::protocol::ToNode;

/// Writes the replies to one runtime.
pub struct Replies {
    pipe: Arc<PipeWriter>,
    backlog: Sender<Vec<u8>>,
    /// Replies handed to the backlog thread and not yet written: while there are any, a new
    /// one queues behind them.
    queued: Arc<AtomicUsize>,
}

impl Replies {
    pub fn new(pipe: PipeWriter) -> std::io::Result<Self> {
        crate::platform::channel::set_nonblocking(&pipe)?;
        let pipe = Arc::new(pipe);
        let queued = Arc::new(AtomicUsize::new(0));
        let (backlog, lines) = channel::<Vec<u8>>();
        let (writer, count) = (Arc::clone(&pipe), Arc::clone(&queued));
        std::thread::Builder::new().name("agent-sdk-replies".to_owned()).spawn(move || {
            while let Ok(line) = lines.recv() {
                if write_waiting(&writer, &line).is_err() {
                    // Node is gone: nothing more is written.
                    return;
                }
                count.fetch_sub(1, Ordering::AcqRel);
            }
        })?;
        Ok(Self { pipe, backlog, queued })
    }

    /// Sends `reply` now if the pipe takes it, else (what it did not take) after the ones queued.
    pub fn send(&self, reply: &ToNode) {
        let Ok(mut line) = serde_json::to_vec(reply) else { return };
        line.push(b'\n');
        if self.queued.load(Ordering::Acquire) == 0 {
            match (&*self.pipe).write(&line) {
                Ok(written) if written == line.len() => return,
                Ok(written) => drop(line.drain(..written)),
                Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                // Node is gone; its end reaches the dispatcher as the channel closing.
                Err(_) => return,
            }
        }
        self.queued.fetch_add(1, Ordering::AcqRel);
        let _ = self.backlog.send(line);
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
        let replies = Replies::new(writer).unwrap();
        for id in 0..20_000 {
            replies.send(&ToNode::Reply(Reply::new(id.into(), Ok(serde_json::json!("some value")))));
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
}
