//! One handler's run for a recorded event, as the `dev` playground's hooks timeline shows it:
//! which hook's handler ran, how it ended, how long it took and, when it threw, where.

use serde::{Deserialize, Serialize};

/// How a handler's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    Threw,
    TimedOut,
    /// Cut off by no doing of its own (the runtime ended or was restarted for another's
    /// handler): it may not have finished.
    Unconfirmed,
    /// Its own code called `process.exit`, which ended the runtime.
    Exited,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Threw => "threw",
            Self::TimedOut => "timed_out",
            Self::Unconfirmed => "unconfirmed",
            Self::Exited => "exited",
        }
    }

    pub fn from_stored(text: &str) -> Self {
        match text {
            "ok" => Self::Ok,
            "threw" => Self::Threw,
            "timed_out" => Self::TimedOut,
            "exited" => Self::Exited,
            _ => Self::Unconfirmed,
        }
    }
}

/// A handler's run, as recorded (`GET /v1/sessions/{id}/timeline` sends it as it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandlerRun {
    /// The event's index in its session.
    pub event: u64,
    /// The event's type.
    #[serde(rename = "type")]
    pub event_type: String,
    pub hook: String,
    /// The event key it handled (`turn.completed`, `*`).
    pub handler: String,
    pub outcome: Outcome,
    /// How long it ran, in milliseconds; `null` when that is not known (cut off).
    pub ms: Option<f64>,
    /// A throw's message, a timeout's or a cut-off's reason.
    pub error: Option<String>,
    /// Where a throw came from, in the project's TypeScript (`bot/hooks/pager.ts:7:13`).
    pub at: Option<String>,
}
