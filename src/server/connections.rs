//! The dev server's connections: accepted in our own loop (a process out of file
//! descriptors answers 503 and goes on serving), each with a deadline on request headers
//! and on a client that takes no bytes, and a shutdown that waits a bounded time for them.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::text::io_error::is_out_of_descriptors;

/// How long a client has to send a request's headers (from connecting, or from the end
/// of its previous response).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a response may wait on a client that takes no bytes at all before its
/// connection is closed.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// How long open connections get to finish once the server is stopping.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long the accept loop pauses when it cannot take a connection now (no descriptor
/// to spare): connections wait in the backlog meanwhile, and the loop never spins.
const RETRY_ACCEPT: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `stop` resolves, then gives open connections
/// [`SHUTDOWN_GRACE`] to finish and closes the rest.
pub async fn serve(listener: TcpListener, app: axum::Router, stop: impl Future<Output = ()>) {
    let mut spare = SpareDescriptor::reserve();
    let mut connections = JoinSet::new();
    let (closing, closed) = watch::channel(false);
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                // Served only while a descriptor is kept in reserve; else this connection
                // is told why with the one it has, which becomes the reserve once it closes
                // (serving it would leave the next connection waiting, untold, in the backlog).
                Ok((stream, _)) if spare.refill() => {
                    connections.spawn(serve_connection(stream, app.clone(), closed.clone()));
                }
                Ok((stream, _)) => {
                    connections.spawn(answer_out_of_descriptors(stream));
                }
                Err(problem) if is_out_of_descriptors(&problem) => {
                    if let Some(refusal) = spare.refuse_one(&listener).await {
                        connections.spawn(refusal);
                    }
                }
                // The client gave up before it was accepted: nothing to wait for.
                Err(problem) if is_connection_gone(&problem) => {}
                Err(_) => tokio::time::sleep(RETRY_ACCEPT).await,
            },
            Some(_) = connections.join_next() => {
                spare.refill();
            }
        }
    }
    drop(listener);
    let _ = closing.send(true);
    let all_finished = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, all_finished).await;
    connections.shutdown().await;
}

/// One connection, HTTP/1.1, until the client closes it, it times out, or the server stops.
async fn serve_connection(stream: TcpStream, app: axum::Router, mut closing: watch::Receiver<bool>) {
    let io = TokioIo::new(SendDeadline { stream, stalled: None });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT);
    let connection = builder.serve_connection(io, TowerToHyperService::new(app));
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        _ = closing.wait_for(|closing| *closing) => {}
    }
    // Finishes the response under way, if any, and closes.
    connection.as_mut().graceful_shutdown();
    let _ = connection.await;
}

fn is_connection_gone(problem: &io::Error) -> bool {
    matches!(
        problem.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

/// A file descriptor kept in reserve: when the process runs out, it is given back for a
/// moment so that a waiting client can be accepted and told why, instead of waiting.
struct SpareDescriptor(Option<std::fs::File>);

impl SpareDescriptor {
    fn reserve() -> Self {
        Self(std::fs::File::open("/dev/null").ok())
    }

    /// Takes a descriptor into reserve if none is; whether one is.
    fn refill(&mut self) -> bool {
        if self.0.is_none() {
            self.0 = std::fs::File::open("/dev/null").ok();
        }
        self.0.is_some()
    }

    /// Accepts one waiting connection with the spare descriptor, to answer it 503.
    async fn refuse_one(&mut self, listener: &TcpListener) -> Option<impl Future<Output = ()> + use<>> {
        if self.0.take().is_none() {
            // The spare is in use (a refusal under way): wait for a descriptor to be freed.
            self.refill();
            tokio::time::sleep(RETRY_ACCEPT).await;
            return None;
        }
        let accepted = tokio::time::timeout(RETRY_ACCEPT, listener.accept()).await;
        let refusal = match accepted {
            Ok(Ok((stream, _))) => Some(answer_out_of_descriptors(stream)),
            _ => None,
        };
        self.refill();
        refusal
    }
}

/// Answers one request 503 without the router (which may itself need descriptors).
async fn answer_out_of_descriptors(mut stream: TcpStream) {
    let body = r#"{"error":"the server is out of file descriptors (too many connections or sessions at once); try again shortly"}"#;
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let patience = Duration::from_secs(1);
    // The request is read before the answer, so that closing does not reset the
    // connection under it.
    let _ = tokio::time::timeout(patience, read_request_head(&mut stream)).await;
    if tokio::time::timeout(patience, stream.write_all(response.as_bytes())).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    let _ = tokio::time::timeout(patience, discard_until_closed(&mut stream)).await;
}

async fn read_request_head(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while head.len() < 64 * 1024 && !head.windows(4).any(|end| end == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => head.extend_from_slice(&buffer[..read]),
        }
    }
}

async fn discard_until_closed(stream: &mut TcpStream) {
    let mut buffer = [0u8; 4096];
    while matches!(stream.read(&mut buffer).await, Ok(read) if read > 0) {}
}

/// A connection whose writes fail once the client has taken no bytes for [`SEND_TIMEOUT`]:
/// a client that stops reading is disconnected instead of holding its connection forever.
struct SendDeadline {
    stream: TcpStream,
    /// Since when writing has been waiting on the client.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl SendDeadline {
    fn watch<T>(&mut self, written: Poll<io::Result<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if written.is_ready() {
            self.stalled = None;
            return written;
        }
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(SEND_TIMEOUT)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client took no bytes for {} s", SEND_TIMEOUT.as_secs()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for SendDeadline {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for SendDeadline {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.watch(written, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.watch(written, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = Pin::new(&mut this.stream).poll_flush(cx);
        this.watch(flushed, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
