//! What the turns of one provider share ([`Shared`]: its endpoint, settings, key scrub and
//! HTTP client), where a turn's outputs go ([`Outputs`]), and the bounds and wording both
//! the request side (`client`) and the reading side (`answer`) use.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, mpsc};

use tokio::sync::Semaphore;

use crate::http::trust::Trust;
use crate::model::ModelOutput;
use crate::model::provider::scrub::KeyScrub;
use crate::model::provider::spec::{Endpoint, ProviderKind};
use crate::model::provider::{Settings, queued_weight};
use crate::time::clock::format_duration;

/// The most of a whole (non-streamed) completion read, and of one event of a stream.
pub(crate) const MAX_COMPLETION_BODY: usize = 16 * 1024 * 1024;

/// What every turn of one provider shares.
pub(crate) struct Shared {
    pub kind: ProviderKind,
    pub model: String,
    pub endpoint: Endpoint,
    pub settings: Settings,
    /// The key, kept out of everything the server's answers become.
    pub key_scrub: KeyScrub,
    /// The CAs the client trusts, and what to say when they do not cover the server's.
    pub(super) trust: Trust,
    /// Made on the provider's thread as it starts (loading the system's CAs takes a few
    /// milliseconds, spent while Node boots), or by the first request if that comes first.
    client: tokio::sync::OnceCell<reqwest::Client>,
    pub(super) told_no_usage: AtomicBool,
    pub(super) told_no_price: AtomicBool,
}

impl Shared {
    pub fn new(kind: ProviderKind, model: &str, endpoint: Endpoint, settings: Settings, trust: Trust) -> Shared {
        Shared {
            kind,
            model: model.to_owned(),
            key_scrub: KeyScrub::new(endpoint.key.as_deref()),
            endpoint,
            settings,
            trust,
            client: tokio::sync::OnceCell::new(),
            told_no_usage: AtomicBool::new(false),
            told_no_price: AtomicBool::new(false),
        }
    }

    /// The HTTP client, made the first time it is asked for.
    pub(super) async fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .get_or_try_init(|| async {
                self.trust
                    .client()
                    .connect_timeout(self.settings.connect_timeout)
                    // A redirect would re-send the key somewhere else; the user gives the final URL.
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(concat!("agent-sdk/", env!("CARGO_PKG_VERSION")))
                    .build()
            })
            .await
            .map_err(|error| format!("could not start the HTTP client: {}", innermost_reason(&error)))
    }

    /// `text` (a failure, a log line) with the key, wherever it appears, replaced by
    /// `[redacted]`, and the user name and password of every URL in it hidden (a redirect's
    /// target, an HTTP error naming the URL).
    pub fn scrub(&self, text: &str) -> String {
        crate::text::uri::without_credentials(&self.key_scrub.text(text))
    }

    /// Why the turn gave up on a server that sent no data for the idle timeout: nothing at
    /// all, or (`heard`) only keep-alive comments or part of an event.
    pub fn idle_failure(&self, heard: bool) -> String {
        let idle = format_duration(self.settings.idle_timeout);
        if heard {
            format!(
                "the model server sent no data for {idle}, only keep-alives or part of an event (--model-idle-timeout); gave up"
            )
        } else {
            format!("the model server sent nothing for {idle} (--model-idle-timeout); gave up")
        }
    }
}

/// Where a turn's outputs go, each the moment it is known, once the queue has room for it.
pub(crate) struct Outputs {
    sender: mpsc::Sender<ModelOutput>,
    /// Room in the queue (see [`super::ProviderTurn`]).
    room: Arc<Semaphore>,
    pub(super) shared: Arc<Shared>,
}

impl Outputs {
    pub fn new(sender: mpsc::Sender<ModelOutput>, room: Arc<Semaphore>, shared: Arc<Shared>) -> Self {
        Self { sender, room, shared }
    }

    /// Queues `output`, waiting while the queue is full: the stream is not read meanwhile,
    /// so a server faster than the turn waits for it.
    pub async fn send(&self, output: ModelOutput) {
        let output = match output {
            ModelOutput::Failed(message) => ModelOutput::Failed(self.shared.scrub(&message)),
            ModelOutput::Log(level, line) => ModelOutput::Log(level, self.shared.scrub(&line)),
            output => output,
        };
        if let Ok(room) = self.room.acquire_many(queued_weight(&output)).await {
            // Given back by the turn as it takes the output.
            room.forget();
        }
        // A closed receiver means the turn was dropped; the cancel signal ends the work.
        let _ = self.sender.send(output);
    }
}

/// The deepest cause of an error: `Connection refused (os error 111)`, not `error sending
/// request for url (…)`.
pub(crate) fn innermost_reason(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}
