//! Reading what the model server answers, within a turn's bounds: an event stream (each
//! output sent the moment its chunk is read), or a whole body. The idle timeout counts
//! data, not keep-alive comments or part of an event, and all the answers of one turn come
//! to at most [`MAX_TURN_BYTES`], so a server that never stops sending ends the turn with
//! a reason instead of holding it.

use futures_util::StreamExt;
use reqwest::Response;
use tokio::time::Instant;

use crate::http::sse::SseParser;
use crate::model::provider::shared::{MAX_COMPLETION_BODY, Outputs, Shared, innermost_reason};
use crate::model::provider::stream::Step;

/// The most of the model server's answers one turn reads (every request of it, keep-alives
/// included): about 300,000 tokens of OpenAI's chunks, far more than a reply's maximum.
pub const MAX_TURN_BYTES: usize = 64 * 1024 * 1024;

/// How much a turn has read of the model server's answers.
#[derive(Debug, Default)]
pub struct Received {
    bytes: usize,
}

impl Received {
    /// Counts `bytes` more; the turn's failure once they come to more than [`MAX_TURN_BYTES`].
    pub fn count(&mut self, bytes: usize) -> Result<(), String> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > MAX_TURN_BYTES {
            return Err(format!(
                "the model server sent more than {} MiB for one turn, the most agent-sdk reads; gave up",
                MAX_TURN_BYTES / (1024 * 1024)
            ));
        }
        Ok(())
    }
}

/// Reads the event stream of one step, sending each output as soon as its chunk is read.
pub async fn read_stream(
    shared: &Shared,
    response: Response,
    outputs: &Outputs,
    received: &mut Received,
) -> Result<Step, String> {
    let mut body = response.bytes_stream();
    // One event may be as large as a whole completion.
    let mut parser = SseParser::with_limit(MAX_COMPLETION_BODY);
    let mut step = Step::new(shared.key_scrub.clone());
    let idle = shared.settings.idle_timeout;
    let mut data_due = Instant::now() + idle;
    // Whether anything (a comment, part of an event) came since the last data.
    let mut heard = false;
    loop {
        let bytes = match tokio::time::timeout_at(data_due, body.next()).await {
            Err(_) => return Err(shared.idle_failure(heard)),
            Ok(Some(Ok(bytes))) => bytes,
            // A connection cut and a clean end read the same: the stream is over.
            Ok(None | Some(Err(_))) => break,
        };
        received.count(bytes.len())?;
        heard = true;
        parser.push(&bytes);
        let mut had_data = false;
        while let Some(event) = parser.next_event().map_err(|problem| unreadable(&problem))? {
            let data = event.data.trim();
            if data.is_empty() {
                continue;
            }
            had_data = true;
            if data == "[DONE]" {
                return Ok(step);
            }
            for output in step.read_chunk(data)? {
                outputs.send(output).await;
            }
        }
        // Counted from when the turn took the outputs: a wait for room in the queue is
        // the turn's, not the server's.
        if had_data {
            data_due = Instant::now() + idle;
            heard = false;
        }
    }
    // Some servers end the stream without `[DONE]` once the reply has finished.
    if step.finished() {
        return Ok(step);
    }
    Err(format!(
        "the model server's stream ended before the reply was complete (after {} chunk{})",
        step.chunks(),
        if step.chunks() == 1 { "" } else { "s" }
    ))
}

fn unreadable(problem: &crate::http::sse::SseProblem) -> String {
    format!("the model server sent a stream agent-sdk cannot read: {problem}")
}

/// An answer's whole body as text, at most `limit` bytes, with the idle timeout between
/// pieces.
pub async fn read_body(shared: &Shared, response: Response, limit: usize) -> Result<String, String> {
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(shared.settings.idle_timeout, stream.next()).await {
            Err(_) => return Err(shared.idle_failure(false)),
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                return Err(format!("the model server's answer was cut off: {}", innermost_reason(&error)));
            }
            Ok(Some(Ok(bytes))) => {
                let room = limit.saturating_sub(body.len());
                body.extend_from_slice(&bytes[..bytes.len().min(room)]);
                if body.len() >= limit {
                    break;
                }
            }
        }
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_reads_at_most_its_bound() {
        let mut received = Received::default();
        assert!(received.count(MAX_TURN_BYTES).is_ok());
        let failure = received.count(1).unwrap_err();
        assert_eq!(failure, "the model server sent more than 64 MiB for one turn, the most agent-sdk reads; gave up");
        assert!(received.count(usize::MAX).is_err(), "no overflow");
    }
}
