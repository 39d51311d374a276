//! The real model providers: OpenAI, xAI and any OpenAI-compatible server, spoken to over
//! the streaming chat-completions API, each turn's outputs handed to the engine as they
//! arrive.
//!
//! ```text
//!  --model ──► ModelSpec ──► Provider::connect (key, base URL, one HTTP client
//!                                 │             on one background thread)
//!  conversation ──► start_turn ───┤
//!                                 ▼
//!        step: POST <base>/chat/completions ──► SSE chunks ──► ModelOutputs ──► ProviderTurn
//!          ▲   (retries, timeouts)              (answer: bounded,    │          (ModelStream; a queue
//!          │                                     scrub: no key)      │           of at most 1 MiB)
//!          └──── tool calls answered with a stub ◄───────────────────┘
//! ```

mod answer;
mod client;
mod prices;
mod request;
mod scrub;
mod shared;
mod spec;
mod stream;

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::model::{ModelOutput, ModelStream, Next};

pub use prices::{PRICES, Price, price_of};
pub use request::{ChatMessage, Role};
pub use spec::{ModelSpec, ProviderKind};

/// Everything besides the model spec that the flags give.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--tools FILE`: entries of OpenAI's `tools` array, sent as they are.
    pub tools: Vec<Value>,
    /// `--max-steps`: model requests per turn, at least 1.
    pub max_steps: u32,
    /// `--model-retries`: retries of one request on 429, 5xx or a failed connect.
    pub retries: u32,
    /// `--model-connect-timeout`.
    pub connect_timeout: Duration,
    /// `--model-idle-timeout`: how long the server may send no data (no headers, or no
    /// event of the stream: keep-alive comments and part of an event do not count) before
    /// the turn gives up. The wait for headers counts from the request's start, connecting
    /// included.
    pub idle_timeout: Duration,
    /// `--model-max-duration`: how long one turn's answer may take, all its requests included.
    pub max_duration: Duration,
}

/// How much of what the model sent may wait for the turn to take it (in bytes of text):
/// past this the provider stops reading the stream until the turn catches up, so a server
/// faster than the turn can record and print holds up the server, not the memory.
const QUEUED_BYTES: u32 = 1024 * 1024;

/// What an output counts for in the queue: its text, at least 1 and at most the whole queue.
fn queued_weight(output: &ModelOutput) -> u32 {
    let bytes = match output {
        ModelOutput::Text(text) | ModelOutput::Reasoning(text) | ModelOutput::Failed(text) => text.len(),
        ModelOutput::Log(_, line) | ModelOutput::Responded(line) => line.len(),
        ModelOutput::Tools(_) | ModelOutput::Pause(_) | ModelOutput::Completed { .. } => 1,
    };
    u32::try_from(bytes).unwrap_or(u32::MAX).clamp(1, QUEUED_BYTES)
}

/// A provider ready to answer turns; `dev`'s sessions share one (it is `Send + Sync`).
///
/// Its HTTP client lives on a thread of its own with its own runtime: a client must not be
/// used across runtimes, and a runtime must not be dropped inside another's async context,
/// as `dev` would when it drops a session. The thread ends when the provider is dropped,
/// cancelling any turn still running.
pub struct Provider {
    shared: Arc<shared::Shared>,
    jobs: tokio::sync::mpsc::UnboundedSender<client::Job>,
}

impl Provider {
    /// Resolves the key, the base URL and the CAs to trust (`lookup(name)` gives a variable:
    /// the shell's, then `.env`'s) and starts the HTTP client. A missing key, a bad or missing
    /// URL, or a CA variable naming a broken file is a usage error (exit 2).
    pub fn connect(
        kind: ProviderKind,
        model: &str,
        settings: Settings,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Provider, anyhow::Error> {
        let endpoint = spec::Endpoint::resolve(kind, model, settings.base_url.as_deref(), lookup)?;
        let trust = crate::http::trust::Trust::for_url(endpoint.chat_completions.as_str(), lookup)?;
        let shared = Arc::new(shared::Shared::new(kind, model, endpoint, settings, trust));
        let jobs = client::start_runner(&shared)?;
        Ok(Provider { shared, jobs })
    }

    /// The model as `--model` names it: `openai:gpt-4o-mini`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.shared.kind.name(), crate::text::untrusted::escape(&self.shared.model))
    }

    /// One line for the serve log: the model, where it is served, where the key came from.
    /// Never the key.
    pub fn describe(&self) -> String {
        let endpoint = &self.shared.endpoint;
        let key = match &endpoint.key {
            Some(_) => format!("key from {}", endpoint.key_variable),
            None => "no key".to_owned(),
        };
        format!("model {} at {} ({key})", self.name(), endpoint.base_url)
    }

    /// The provider and model, as the OpenTelemetry GenAI conventions name them
    /// (`gen_ai.provider.name`: `openai`, `x_ai`; an OpenAI-compatible server is
    /// `openai_compatible`).
    pub fn gen_ai(&self) -> crate::telemetry::turn_trace::GenAi {
        let provider = match self.shared.kind {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Xai => "x_ai",
            ProviderKind::OpenAiCompatible => "openai_compatible",
        };
        crate::telemetry::turn_trace::GenAi { provider: provider.to_owned(), model: self.shared.model.clone() }
    }

    /// Starts one turn: the HTTP work runs on the provider's thread; the returned stream
    /// yields the turn's outputs as they arrive.
    pub fn start_turn(&self, conversation: Vec<ChatMessage>) -> ProviderTurn {
        let (sender, receiver) = mpsc::channel();
        let room = Arc::new(tokio::sync::Semaphore::new(QUEUED_BYTES as usize));
        let (cancel, cancelled) = oneshot::channel();
        let outputs = shared::Outputs::new(sender.clone(), Arc::clone(&room), Arc::clone(&self.shared));
        if self.jobs.send(client::turn_job(conversation, outputs, cancelled)).is_err() {
            let _ = sender.send(ModelOutput::Failed("the model client's thread has stopped".to_owned()));
        }
        ProviderTurn { outputs: receiver, room, _cancel: cancel }
    }
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let endpoint = &self.shared.endpoint;
        f.debug_struct("Provider")
            .field("kind", &self.shared.kind)
            .field("model", &self.shared.model)
            .field("url", &endpoint.chat_completions.as_str())
            .field("key", &endpoint.key.as_ref().map(|_| format!("[from {}]", endpoint.key_variable)))
            .finish_non_exhaustive()
    }
}

/// One turn's outputs as they arrive. Dropping it cancels the turn at once (Ctrl-C): the
/// request's connection is closed and its background work ends.
pub struct ProviderTurn {
    outputs: mpsc::Receiver<ModelOutput>,
    /// Room in the queue of outputs, in [`queued_weight`]s: taken by the provider before it
    /// queues an output, given back as the turn takes it.
    room: Arc<tokio::sync::Semaphore>,
    /// Dropped with the turn, which the background work sees as the signal to stop.
    _cancel: oneshot::Sender<()>,
}

impl ModelStream for ProviderTurn {
    fn next(&mut self, wait: Duration) -> Next {
        match self.outputs.recv_timeout(wait) {
            Ok(output) => {
                self.room.add_permits(queued_weight(&output) as usize);
                Next::Output(output)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Next::Waiting,
            Err(mpsc::RecvTimeoutError::Disconnected) => Next::Ended,
        }
    }
}

impl std::fmt::Debug for ProviderTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderTurn").finish_non_exhaustive()
    }
}
