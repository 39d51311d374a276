//! The server's stdio: LSP's `Content-Length` frames to and from messages, on three threads.
//! Unlike `lsp-server`'s own stdio transport, a frame whose body is not a JSON-RPC message
//! is logged and skipped, not the end of the connection, and so is one over
//! [`MAX_MESSAGE_BYTES`] (read and thrown away in chunks, never held). What goes out passes
//! through an [`Outbox`], so a client that stops reading holds at most one list of
//! diagnostics per file in the server's memory.

use std::io::{BufRead, Read, Write};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use lsp_server::{Connection, Message};

use super::outbox::Outbox;

/// The largest message the server reads: far above any real one (a document's whole text
/// is at most a few MiB), and low enough that a false `Content-Length` costs no memory.
pub const MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;

/// The connection over stdin and stdout, and the threads that carry it.
pub fn stdio() -> (Connection, [JoinHandle<()>; 2]) {
    let (to_client, outgoing) = crossbeam_channel::unbounded::<Message>();
    let (incoming, from_client) = crossbeam_channel::unbounded::<Message>();
    let outbox = Arc::new(Outbox::default());
    let writer = {
        let outbox = Arc::clone(&outbox);
        std::thread::spawn(move || write_all(&outbox))
    };
    // Empties the channel at once, whether the client reads or not: what waits, waits in
    // the outbox. It ends when every sender is gone.
    std::thread::spawn(move || {
        for message in outgoing {
            outbox.put(message);
        }
        outbox.close();
    });
    let replies = to_client.clone();
    let reader = std::thread::spawn(move || read_all(&incoming, &replies));
    (Connection { sender: to_client, receiver: from_client }, [reader, writer])
}

fn write_all(outbox: &Outbox) {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    while let Some(message) = outbox.take() {
        if message.write(&mut stdout).and_then(|()| stdout.flush()).is_err() {
            outbox.close(); // the client is gone: nothing more is kept for it
            return;
        }
    }
}

fn read_all(incoming: &Sender<Message>, replies: &Sender<Message>) {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    loop {
        let oversized = |length: u64| {
            let mib = MAX_MESSAGE_BYTES / (1024 * 1024);
            log(
                replies,
                &format!("agent-sdk lsp: skipped a message of {length} bytes, over the {mib} MiB the server reads"),
            );
        };
        let body = match read_frame(&mut stdin, oversized) {
            Ok(Some(Frame::Body(body))) => body,
            Ok(Some(Frame::Skipped)) => continue,
            Ok(None) => return,
            Err(error) => {
                eprintln_log(&format!("agent-sdk lsp: unreadable frame skipped: {error}"));
                continue;
            }
        };
        match serde_json::from_slice::<Message>(&body) {
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(notification) if notification.method == "exit");
                if incoming.send(message).is_err() || exit {
                    return;
                }
            }
            Err(error) => {
                log(replies, &format!("agent-sdk lsp: skipped a message that is not JSON-RPC: {error}"));
            }
        }
    }
}

/// `line` in the client's log (`window/logMessage`, as an error) and on stderr.
fn log(replies: &Sender<Message>, line: &str) {
    eprintln_log(line);
    let _ = replies.send(Message::Notification(lsp_server::Notification::new(
        "window/logMessage".to_owned(),
        serde_json::json!({ "type": 1, "message": line }),
    )));
}

/// The server's own log goes to stderr, which editors show as the server's output.
fn eprintln_log(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// What one frame held.
#[derive(Debug, PartialEq)]
enum Frame {
    Body(Vec<u8>),
    /// A body over [`MAX_MESSAGE_BYTES`], read and thrown away.
    Skipped,
}

/// The next frame: `Ok(None)` at the end of input; an error for a frame whose headers cannot
/// be read (the bytes up to the next blank line are then skipped) or whose body the input
/// ends inside. A body over [`MAX_MESSAGE_BYTES`] is told to `oversized` (with its length)
/// before it is skipped, as it may never end.
fn read_frame(input: &mut impl BufRead, oversized: impl FnOnce(u64)) -> std::io::Result<Option<Frame>> {
    let Some(length) = read_headers(input)? else { return Ok(None) };
    if length > MAX_MESSAGE_BYTES {
        oversized(length);
        let skipped = std::io::copy(&mut input.by_ref().take(length), &mut std::io::sink())?;
        return Ok((skipped == length).then_some(Frame::Skipped));
    }
    // Read as it arrives: a length no body follows costs nothing.
    let mut body = Vec::new();
    input.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the input ended inside a message"));
    }
    Ok(Some(Frame::Body(body)))
}

/// A frame's headers, up to the blank line after them: its `Content-Length`.
fn read_headers(input: &mut impl BufRead) -> std::io::Result<Option<u64>> {
    let mut length = None;
    let mut saw_header = false;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<u64>().ok();
        }
    }
    match length {
        Some(length) => Ok(Some(length)),
        None => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a frame without a Content-Length")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(reader: &mut impl BufRead) -> std::io::Result<Option<Frame>> {
        read_frame(reader, |length| panic!("not over the limit: {length}"))
    }

    #[test]
    fn frames_are_read_and_a_headerless_one_is_an_error_not_the_end() {
        let input = b"Content-Length: 2\r\n\r\n{}X-Junk: 1\r\n\r\nContent-Length: 3\r\n\r\n[1]";
        let mut reader = std::io::BufReader::new(&input[..]);
        assert_eq!(frame(&mut reader).unwrap(), Some(Frame::Body(b"{}".to_vec())));
        assert!(frame(&mut reader).is_err());
        assert_eq!(frame(&mut reader).unwrap(), Some(Frame::Body(b"[1]".to_vec())));
        assert!(frame(&mut reader).unwrap().is_none());
    }

    #[test]
    fn a_body_cut_short_is_an_error_then_the_end() {
        let mut reader = std::io::BufReader::new(&b"Content-Length: 100000000000\r\n\r\n{}"[..]);
        let mut told = None;
        assert_eq!(read_frame(&mut reader, |length| told = Some(length)).unwrap(), None);
        assert_eq!(told, Some(100_000_000_000));
        let mut reader = std::io::BufReader::new(&b"Content-Length: 9\r\n\r\n{}"[..]);
        assert_eq!(frame(&mut reader).unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(frame(&mut reader).unwrap().is_none());
    }

    #[test]
    fn a_body_over_the_limit_is_skipped_and_the_next_frame_read() {
        let over = MAX_MESSAGE_BYTES + 1;
        let mut input = format!("Content-Length: {over}\r\n\r\n").into_bytes();
        input.resize(input.len() + over as usize, b' ');
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let mut reader = std::io::BufReader::new(&input[..]);
        let mut told = None;
        assert_eq!(read_frame(&mut reader, |length| told = Some(length)).unwrap(), Some(Frame::Skipped));
        assert_eq!(told, Some(over));
        assert_eq!(frame(&mut reader).unwrap(), Some(Frame::Body(b"{}".to_vec())));
        let mut reader = std::io::BufReader::new(&b"Content-Length: 18446744073709551615\r\n\r\n{}"[..]);
        assert_eq!(read_frame(&mut reader, |_| {}).unwrap(), None);
    }
}
