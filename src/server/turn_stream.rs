//! A turn's events on their way to its HTTP client, through a bounded buffer the session's
//! worker never waits on: a client that falls behind is cut off (its response ends in an
//! error, never quietly short), while the turn goes on, is recorded and is dispatched.

use futures_util::stream::{self, BoxStream, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;

use crate::state::envelope::Envelope;

/// Events a client may have waiting before it counts as fallen behind (on top of what the
/// sockets hold).
pub const BUFFERED_EVENTS: usize = 1024;

/// How a turn ended for its client: `Err` says why its stream is cut, or why the turn
/// never started.
type Outcome = Result<(), Cut>;

/// Why a turn's stream was cut short, or the turn never started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// Another agent-sdk is recording the session (the client may try again later).
    SessionInUse(String),
    /// The turn could not start, broke off, or its client fell behind.
    Failed(String),
}

impl Cut {
    pub fn message(&self) -> &str {
        match self {
            Cut::SessionInUse(message) | Cut::Failed(message) => message,
        }
    }
}

/// The worker's end: where it puts the turn's events, never waiting.
pub struct TurnStream {
    events: Option<mpsc::Sender<Envelope>>,
    outcome: Option<oneshot::Sender<Outcome>>,
    fell_behind: bool,
}

/// The client's end: the events, and how the turn ended.
pub struct TurnEvents {
    events: mpsc::Receiver<Envelope>,
    outcome: oneshot::Receiver<Outcome>,
}

/// A new stream for one turn.
pub fn channel() -> (TurnStream, TurnEvents) {
    let (events, receiver) = mpsc::channel(BUFFERED_EVENTS);
    let (outcome, outcome_receiver) = oneshot::channel();
    (
        TurnStream { events: Some(events), outcome: Some(outcome), fell_behind: false },
        TurnEvents { events: receiver, outcome: outcome_receiver },
    )
}

impl TurnStream {
    /// Shows `envelope` to the client if it keeps up; a client that does not is cut off.
    pub fn send(&mut self, envelope: &Envelope) {
        let Some(events) = &self.events else { return };
        match events.try_send(envelope.clone()) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.fell_behind = true;
                let cut = format!("the client fell behind: more than {BUFFERED_EVENTS} events were waiting for it");
                self.end(Err(Cut::Failed(cut)));
            }
            // The client went away; the turn goes on without it.
            Err(mpsc::error::TrySendError::Closed(_)) => self.events = None,
        }
    }

    /// Whether the client was cut off for falling behind.
    pub fn fell_behind(&self) -> bool {
        self.fell_behind
    }

    /// The turn could not start (or broke off): the client is told why, as an error status
    /// when nothing was streamed yet.
    pub fn fail(mut self, problem: &anyhow::Error) {
        self.end(Err(Cut::Failed(format!("{problem:#}"))));
    }

    /// The turn was not started: another agent-sdk is recording the session.
    pub fn refuse_in_use(mut self, problem: &anyhow::Error) {
        self.end(Err(Cut::SessionInUse(format!("{problem:#}"))));
    }

    /// Every event of the turn was handed over.
    pub fn finish(mut self) {
        self.end(Ok(()));
    }

    fn end(&mut self, outcome: Outcome) {
        self.events = None;
        if let Some(sender) = self.outcome.take() {
            let _ = sender.send(outcome);
        }
    }
}

/// A turn's envelopes for the response, ending in an error if the stream was cut short.
pub type Envelopes = BoxStream<'static, Result<Envelope, std::io::Error>>;

impl TurnEvents {
    /// Waits until the turn has started: its events, or why it did not start.
    pub async fn started(mut self) -> Result<Envelopes, Cut> {
        let first = self.events.recv().await;
        if first.is_none() {
            return match self.outcome.await {
                Ok(Ok(())) => Ok(stream::empty().boxed()),
                Ok(Err(problem)) => Err(problem),
                Err(_) => Err(Cut::Failed("the session stopped before the turn started".to_owned())),
            };
        }
        let ending = stream::once(self.outcome).filter_map(|outcome| async move {
            match outcome {
                Ok(Ok(())) => None,
                Ok(Err(problem)) => Some(Err(std::io::Error::other(problem.message().to_owned()))),
                Err(_) => Some(Err(std::io::Error::other("the session stopped in the middle of the turn"))),
            }
        });
        Ok(stream::iter(first).chain(ReceiverStream::new(self.events)).map(Ok).chain(ending).boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(index: u64) -> Envelope {
        Envelope {
            event_type: "message.delta".to_owned(),
            index,
            session_id: "ses_t".to_owned(),
            turn_id: None,
            at: "2026-01-01T00:00:00.000Z".to_owned(),
            data: serde_json::Value::Null,
        }
    }

    fn collect(envelopes: Envelopes) -> Vec<Result<u64, String>> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(envelopes.map(|item| item.map(|e| e.index).map_err(|e| e.to_string())).collect())
    }

    #[test]
    fn a_client_that_falls_behind_is_cut_off_with_an_error_and_the_sender_never_waits() {
        let (mut stream, events) = channel();
        for index in 0..(BUFFERED_EVENTS as u64 + 10) {
            stream.send(&envelope(index));
        }
        assert!(stream.fell_behind());
        stream.finish();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let envelopes = runtime.block_on(events.started()).unwrap();
        let received = collect(envelopes);
        assert_eq!(received.len(), BUFFERED_EVENTS + 1);
        assert!(received[..BUFFERED_EVENTS].iter().all(Result::is_ok));
        assert!(received[BUFFERED_EVENTS].as_ref().is_err_and(|problem| problem.contains("fell behind")));
    }

    #[test]
    fn a_turn_that_could_not_start_says_why() {
        let (stream, events) = channel();
        stream.fail(&anyhow::anyhow!("Too many open files"));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert_eq!(runtime.block_on(events.started()).err(), Some(Cut::Failed("Too many open files".to_owned())));
    }

    #[test]
    fn a_whole_turn_ends_cleanly() {
        let (mut stream, events) = channel();
        stream.send(&envelope(0));
        stream.send(&envelope(1));
        stream.finish();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let envelopes = runtime.block_on(events.started()).unwrap();
        assert_eq!(collect(envelopes), vec![Ok(0), Ok(1)]);
    }
}
