//! Server-Sent Events read from a byte stream in linear time: each byte is looked at once
//! when its line is searched for an end and once when the line is read, however the bytes
//! are split into chunks (a line of megabytes that arrives in thousands of chunks is not
//! searched again from its start for each one).
//!
//! The fields are the WHATWG ones the `logs` client and the model providers need: `data`
//! (joined by newlines), `id` (kept from event to event, as the standard says) and `event`;
//! comments (`: heartbeat`) and `retry` are read and dropped, since each client keeps its
//! own backoff.
//!
//! What is held in memory is bounded: a line, and an event's data (its `data:` lines
//! joined), are at most the parser's limit, so a server that never ends a line, or never
//! sends the blank line that ends an event, is an error, not a growing buffer.

/// The longest line, and the most data one event may hold, unless a reader says otherwise.
pub const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The last event id seen on the stream (empty if none).
    pub id: String,
    /// The event type (`message` when the server named none).
    pub event: String,
    pub data: String,
}

/// Why a stream cannot be read as an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseProblem {
    NotUtf8,
    /// A line longer than the limit (in bytes).
    LineTooLong(usize),
    /// An event whose data grew past the limit (in bytes) before a blank line ended it.
    EventTooLong(usize),
}

impl std::fmt::Display for SseProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseProblem::NotUtf8 => f.write_str("the stream is not UTF-8 text"),
            SseProblem::LineTooLong(limit) => write!(f, "the stream has a line longer than {}", mebibytes(*limit)),
            SseProblem::EventTooLong(limit) => {
                write!(
                    f,
                    "the stream has an event over {} (data lines with no blank line to end them)",
                    mebibytes(*limit)
                )
            }
        }
    }
}

fn mebibytes(bytes: usize) -> String {
    format!("{} MiB", bytes / (1024 * 1024))
}

/// Bytes in, events out.
#[derive(Debug)]
pub struct SseParser {
    /// The longest line, and the most data of one event, in bytes.
    limit: usize,
    /// Bytes not yet read as lines; `buffer[start..]` is what is left.
    buffer: Vec<u8>,
    start: usize,
    /// How far past `start` the search for a line end has already looked.
    searched: usize,
    /// The last line ended with CR at the end of a chunk: a LF that follows belongs to it.
    after_cr: bool,
    /// Whether the stream's first line was read (a byte-order mark there is dropped).
    started: bool,
    last_id: String,
    event: String,
    data: String,
    has_data: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser that refuses a line, or an event's data, longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            buffer: Vec::new(),
            start: 0,
            searched: 0,
            after_cr: false,
            started: false,
            last_id: String::new(),
            event: String::new(),
            data: String::new(),
            has_data: false,
        }
    }

    /// Adds bytes that arrived.
    pub fn push(&mut self, bytes: &[u8]) {
        // Drop what was read once it is most of the buffer, so the copy is paid for by the
        // reading it follows (linear in all).
        if self.start > 0 && self.start >= self.buffer.len() / 2 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete event, if the bytes so far hold one.
    pub fn next_event(&mut self) -> Result<Option<SseEvent>, SseProblem> {
        while let Some(line) = self.next_line()? {
            if let Some(event) = self.take_line(&line)? {
                return Ok(Some(event));
            }
        }
        Ok(None)
    }

    /// The next complete line, without its end.
    fn next_line(&mut self) -> Result<Option<String>, SseProblem> {
        if self.after_cr && self.buffer.get(self.start) == Some(&b'\n') {
            self.start += 1;
            self.after_cr = false;
        }
        if self.start < self.buffer.len() {
            self.after_cr = false;
        }
        let rest = &self.buffer[self.start..];
        let Some(end) = rest[self.searched..].iter().position(|&b| b == b'\n' || b == b'\r') else {
            self.searched = rest.len();
            if rest.len() > self.limit {
                return Err(SseProblem::LineTooLong(self.limit));
            }
            return Ok(None);
        };
        let end = self.searched + end;
        let mut line = std::str::from_utf8(&rest[..end]).map_err(|_| SseProblem::NotUtf8)?;
        if !self.started {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
            self.started = true;
        }
        let line = line.to_owned();
        let mut consumed = end + 1;
        if rest[end] == b'\r' {
            match rest.get(end + 1) {
                Some(b'\n') => consumed += 1,
                Some(_) => {}
                None => self.after_cr = true,
            }
        }
        self.start += consumed;
        self.searched = 0;
        Ok(Some(line))
    }

    /// Applies one line; a blank line dispatches the event gathered so far.
    fn take_line(&mut self, line: &str) -> Result<Option<SseEvent>, SseProblem> {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            let data = std::mem::take(&mut self.data);
            if !std::mem::take(&mut self.has_data) {
                return Ok(None);
            }
            let event = if event.is_empty() { "message".to_owned() } else { event };
            return Ok(Some(SseEvent { id: self.last_id.clone(), event, data }));
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => self.add_data(value)?,
            "id" if !value.contains('\0') => value.clone_into(&mut self.last_id),
            "event" => value.clone_into(&mut self.event),
            _ => {}
        }
        Ok(None)
    }

    /// Adds a `data:` line to the event, within the limit.
    fn add_data(&mut self, value: &str) -> Result<(), SseProblem> {
        let separator = usize::from(self.has_data);
        if self.data.len() + separator + value.len() > self.limit {
            return Err(SseProblem::EventTooLong(self.limit));
        }
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event in `chunks`, fed one chunk at a time.
    fn events(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, SseProblem> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        for chunk in chunks {
            parser.push(chunk);
            while let Some(event) = parser.next_event()? {
                events.push(event);
            }
        }
        Ok(events)
    }

    fn event(id: &str, data: &str) -> SseEvent {
        SseEvent { id: id.to_owned(), event: "message".to_owned(), data: data.to_owned() }
    }

    #[test]
    fn ids_data_and_comments() {
        let stream = b"\xef\xbb\xbf: heartbeat\n\nid: 1\ndata: {\"a\":1}\n\nid:2\ndata:x\ndata: y\nretry: 5\n\n";
        assert_eq!(events(&[stream]).unwrap(), [event("1", "{\"a\":1}"), event("2", "x\ny")]);
    }

    #[test]
    fn the_id_is_kept_and_an_event_without_data_is_not_dispatched() {
        let stream = b"id: 7\n\ndata: a\n\nevent: reset\ndata: b\n\n";
        let found = events(&[stream]).unwrap();
        assert_eq!(found[0], event("7", "a"));
        assert_eq!((found[1].id.as_str(), found[1].event.as_str()), ("7", "reset"));
    }

    #[test]
    fn every_line_end_and_every_split_reads_the_same() {
        let stream: &[u8] = b"id: 1\r\ndata: a\r\rid: 2\ndata: b\r\n\r\ndata: c\n\n";
        let whole = events(&[stream]).unwrap();
        assert_eq!(whole, [event("1", "a"), event("2", "b"), event("2", "c")]);
        for split in 0..stream.len() {
            assert_eq!(events(&[&stream[..split], &stream[split..]]).unwrap(), whole, "split at {split}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(events(&bytes).unwrap(), whole);
    }

    #[test]
    fn a_partial_event_waits_for_its_end() {
        assert_eq!(events(&[b"id: 1\ndata: a\n"]).unwrap(), []);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_problem() {
        assert_eq!(events(&[b"data: \xff\n\n"]), Err(SseProblem::NotUtf8));
    }

    #[test]
    fn an_event_is_bounded_like_a_line() {
        let mut parser = SseParser::with_limit(10);
        parser.push(b"data: 12345\ndata: 1234\n");
        assert_eq!(parser.next_event(), Ok(None), "5 + 1 + 4 bytes are within 10");
        parser.push(b"data: \n");
        assert_eq!(parser.next_event(), Err(SseProblem::EventTooLong(10)));
        let mut parser = SseParser::with_limit(10);
        parser.push(b"data: 1234567890\n\n: comments are not data\n");
        assert_eq!(parser.next_event().unwrap().unwrap().data, "1234567890");
        assert_eq!(
            SseProblem::EventTooLong(16 * 1024 * 1024).to_string(),
            "the stream has an event over 16 MiB (data lines with no blank line to end them)"
        );
    }

    #[test]
    fn a_long_line_in_small_chunks_is_searched_once() {
        let mut parser = SseParser::default();
        parser.push(b"data: ");
        for _ in 0..10_000 {
            parser.push(&[b'x'; 100]);
            assert_eq!(parser.next_event(), Ok(None));
            assert_eq!(parser.searched, parser.buffer.len() - parser.start, "the search goes on where it stopped");
        }
        parser.push(b"\n\n");
        assert_eq!(parser.next_event().unwrap().unwrap().data.len(), 1_000_000);
    }
}
