//! A model server for the tests, written by hand on loopback so that each answer can
//! misbehave as real servers do: error statuses, Retry-After, cut streams, silence, echoed
//! keys. It answers its nth connection with its nth answer and keeps every request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// One request as the server read it, and when.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request line and headers, as sent.
    pub head: String,
    pub body: Value,
    pub at: Instant,
    /// The wall clock's milliseconds since 1970, to hold against a hook's `Date.now()`.
    pub wall_ms: u128,
}

impl Request {
    /// A header's value (its name in any case).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
        })
    }
}

/// What the server does with one connection, given the request read from it; the
/// connection closes when it returns.
pub type Answer = Box<dyn FnOnce(&mut TcpStream, &Request) + Send>;

pub struct ModelServer {
    /// The base URL, ending in `/v1`.
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ModelServer {
    /// A server that answers one connection with each of `answers`, in order.
    pub fn start(answers: Vec<Answer>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for answer in answers {
                let Ok((mut stream, _)) = listener.accept() else { return };
                let Some(request) = read_request(&mut stream) else { return };
                seen.lock().unwrap().push(request.clone());
                answer(&mut stream, &request);
            }
        });
        ModelServer { url, requests }
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length: usize = head
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().ok()))
        .flatten()
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let wall_ms = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_millis();
    Some(Request { head, body: serde_json::from_slice(&body).unwrap_or(Value::Null), at: Instant::now(), wall_ms })
}

/// The head of a `200` event stream.
pub const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

/// One server-sent event.
pub fn event(data: &str) -> String {
    format!("data: {data}\n\n")
}

/// A whole streamed answer: each chunk, then `[DONE]`.
pub fn streamed(chunks: Vec<Value>) -> Answer {
    Box::new(move |stream, _| {
        let mut answer = SSE_HEAD.to_owned();
        for chunk in chunks {
            answer.push_str(&event(&chunk.to_string()));
        }
        answer.push_str(&event("[DONE]"));
        let _ = stream.write_all(answer.as_bytes());
    })
}

/// Exactly these bytes.
pub fn raw(response: String) -> Answer {
    Box::new(move |stream, _| {
        let _ = stream.write_all(response.as_bytes());
    })
}

/// A whole response: `code` (`429 Too Many Requests`), more headers (each ending in
/// `\r\n`), and a JSON body.
pub fn status(code: &str, extra_headers: &str, body: &str) -> Answer {
    raw(format!(
        "HTTP/1.1 {code}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra_headers}\r\n{body}",
        body.len()
    ))
}

/// An answer that sends `start` and then nothing for 3 s, holding the connection open.
pub fn hang_after(start: String) -> Answer {
    Box::new(move |stream, _| {
        let _ = stream.write_all(start.as_bytes());
        std::thread::sleep(Duration::from_secs(3));
    })
}

/// A chunk with a piece of the reply.
pub fn text(delta: &str) -> Value {
    json!({ "choices": [{ "index": 0, "delta": { "content": delta }, "finish_reason": null }] })
}

/// A chunk that ends the step.
pub fn finish(reason: &str) -> Value {
    json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": reason }] })
}

/// The final chunk `stream_options.include_usage` asks for.
pub fn usage(prompt: u64, completion: u64, cached: u64) -> Value {
    json!({ "choices": [], "usage": {
        "prompt_tokens": prompt, "completion_tokens": completion,
        "prompt_tokens_details": { "cached_tokens": cached } } })
}
