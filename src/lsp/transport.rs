//! The server's stdio: LSP's `Content-Length` frames to and from messages, on two threads.
//! Unlike `lsp-server`'s own stdio transport, a frame whose body is not a JSON-RPC message
//! is logged and skipped, not the end of the connection.

use std::io::{BufRead, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Message};

/// The connection over stdin and stdout, and the threads that carry it.
pub fn stdio() -> (Connection, [JoinHandle<()>; 2]) {
    let (to_client, outgoing) = crossbeam_channel::unbounded::<Message>();
    let (incoming, from_client) = crossbeam_channel::unbounded::<Message>();
    let writer = std::thread::spawn(move || write_all(&outgoing));
    let replies = to_client.clone();
    let reader = std::thread::spawn(move || read_all(&incoming, &replies));
    (Connection { sender: to_client, receiver: from_client }, [reader, writer])
}

fn write_all(outgoing: &Receiver<Message>) {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    for message in outgoing {
        if message.write(&mut stdout).and_then(|()| stdout.flush()).is_err() {
            return; // the client is gone
        }
    }
}

fn read_all(incoming: &Sender<Message>, replies: &Sender<Message>) {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    loop {
        let body = match read_frame(&mut stdin) {
            Ok(Some(body)) => body,
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
                eprintln_log(&format!("agent-sdk lsp: not a JSON-RPC message, skipped: {error}"));
                let _ = replies.send(Message::Notification(lsp_server::Notification::new(
                    "window/logMessage".to_owned(),
                    serde_json::json!({ "type": 1, "message": format!("agent-sdk lsp: skipped a message that is not JSON-RPC: {error}") }),
                )));
            }
        }
    }
}

/// The server's own log goes to stderr, which editors show as the server's output.
fn eprintln_log(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// One frame's body: `Ok(None)` at the end of input; an error for a frame whose headers
/// cannot be read (the bytes up to the next blank line are then skipped).
fn read_frame(input: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
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
            length = value.trim().parse::<usize>().ok();
        }
    }
    let Some(length) = length else {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a frame without a Content-Length"));
    };
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_and_a_headerless_one_is_an_error_not_the_end() {
        let input = b"Content-Length: 2\r\n\r\n{}X-Junk: 1\r\n\r\nContent-Length: 3\r\n\r\n[1]";
        let mut reader = std::io::BufReader::new(&input[..]);
        assert_eq!(read_frame(&mut reader).unwrap().unwrap(), b"{}");
        assert!(read_frame(&mut reader).is_err());
        assert_eq!(read_frame(&mut reader).unwrap().unwrap(), b"[1]");
        assert!(read_frame(&mut reader).unwrap().is_none());
    }
}
