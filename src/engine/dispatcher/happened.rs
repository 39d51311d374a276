//! What a dispatcher says happened: one event per line of the serve log, in the order it
//! happened. The dispatcher decides; [`super::render`] words.

use std::time::Duration;

use crate::protocol::{ConsoleLevel, UnhandledKind};
use crate::runtime::host::Stream;
use crate::state::envelope::Envelope;
use crate::state::log_record::Level;

/// A hook and one of its handlers (its event key, or `*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerOf {
    pub hook: String,
    pub handler: String,
}

/// Who called `process.exit` before the runtime ended, as the runtime said.
#[derive(Debug, Clone, PartialEq)]
pub enum ExitCaller {
    /// Nobody said: the runtime crashed, or was killed.
    Unknown,
    /// Code outside every hook's.
    NoHook,
    /// This hook's code, with the code it passed and where it called it.
    Hook { hook: String, code: serde_json::Value, at: Option<String> },
}

/// One thing the dispatcher saw happen.
#[derive(Debug, Clone, PartialEq)]
pub enum Happened {
    /// The runtime's Node is past its end of life (`warning` says so and what to use).
    NodePastEndOfLife {
        warning: String,
    },
    /// Node's inspector said where a debugger attaches.
    Debugger {
        line: String,
    },
    Loaded {
        hook: String,
    },
    LoadFailed {
        hook: String,
        reason: String,
        at: Option<String>,
    },
    /// A line the runtime's process printed outside `console`, while `hook`'s handler ran
    /// (`None`: Node's own).
    Output {
        stream: Stream,
        hook: Option<String>,
        line: String,
    },
    /// A hook's `console.*` (`hook` `None`: the runtime's own complaint).
    Console {
        level: ConsoleLevel,
        hook: Option<String>,
        text: String,
    },
    /// A hook's OpenTelemetry log record.
    OtelLog {
        level: Level,
        hook: String,
        body: String,
        attributes: Option<String>,
    },
    /// A hook's span ended with an error.
    SpanFailed {
        hook: String,
        span: String,
        error: String,
    },
    Threw {
        handler: HandlerOf,
        message: String,
        at: Option<String>,
    },
    TimedOut {
        handler: HandlerOf,
        after: Duration,
    },
    Unhandled {
        kind: UnhandledKind,
        after_return: bool,
        hook: Option<String>,
        text: String,
    },
    /// A write that resolved as it was sent (`kv.set`) failed later in the store.
    CallFailed {
        hook: Option<String>,
        call: String,
        error: String,
    },
    /// The runtime ended on its own (`status`: how, when known).
    RuntimeExited {
        status: Option<String>,
        caller: ExitCaller,
        running: Option<HandlerOf>,
    },
    /// The keeper of a shared runtime stopped it, for `why` (a session's stuck handler).
    RuntimeStopped {
        why: String,
    },
    /// A shared runtime was restarted for another session's handler while this one ran.
    CutOffForAnother {
        running: HandlerOf,
    },
    /// A handler was cut off by no doing of its own: its event may not have gone through it.
    Unconfirmed {
        handler: HandlerOf,
        event: Option<(u64, String)>,
    },
    /// The dispatcher starts its runtime again.
    Restarting,
    /// The user stopped the turn while events are in flight: what is still awaited.
    /// `running`: the hook that runs and its event's type.
    Waiting {
        running: Option<(String, String)>,
        events: usize,
        signal: String,
    },
    /// The hooks timeline could not be written, so it is no longer kept.
    TimelineFailed {
        problem: String,
    },
}

/// Where a dispatcher says what happened: the serve log, worded by [`super::render`].
pub trait Reporter {
    /// `during`: the event the runtime is handling (the oldest in flight), if any.
    fn report(&self, happened: Happened, during: Option<&Envelope>);
}
