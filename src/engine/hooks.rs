//! What a session's recorded events are handed to: its hooks, through a [`Dispatcher`] (a
//! fake of it in the session's unit tests), so the feed and redelivery never need Node.js
//! to be tested.

use std::time::Duration;

use crate::engine::dispatcher::Dispatcher;
use crate::state::envelope::Envelope;
use crate::telemetry::Parent;

/// The hooks of a session, as the feed and redelivery use them.
pub trait Hooks {
    /// Hands one recorded event to the hooks, under its turn's span when it is traced.
    fn dispatch_in(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()>;
    /// Hands recorded events to the hooks together (a replay's batch).
    fn dispatch_all_in(&mut self, events: Vec<(Envelope, Option<Parent>)>) -> anyhow::Result<()>;
    /// Waits until every event handed over went through every hook.
    fn finish(&mut self) -> anyhow::Result<()>;
    /// Whether events handed over are still going through the hooks.
    fn busy(&self) -> bool;
    /// Serves the hooks for `duration` (while the model is slow).
    fn idle(&mut self, duration: Duration) -> anyhow::Result<()>;
}

impl Hooks for Dispatcher<'_> {
    fn dispatch_in(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()> {
        Dispatcher::dispatch_in(self, event, trace)
    }

    fn dispatch_all_in(&mut self, events: Vec<(Envelope, Option<Parent>)>) -> anyhow::Result<()> {
        Dispatcher::dispatch_all_in(self, events)
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        Dispatcher::finish(self)
    }

    fn busy(&self) -> bool {
        Dispatcher::busy(self)
    }

    fn idle(&mut self, duration: Duration) -> anyhow::Result<()> {
        Dispatcher::idle(self, duration)
    }
}

impl<H: Hooks + ?Sized> Hooks for &mut H {
    fn dispatch_in(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()> {
        (**self).dispatch_in(event, trace)
    }

    fn dispatch_all_in(&mut self, events: Vec<(Envelope, Option<Parent>)>) -> anyhow::Result<()> {
        (**self).dispatch_all_in(events)
    }

    fn finish(&mut self) -> anyhow::Result<()> {
        (**self).finish()
    }

    fn busy(&self) -> bool {
        (**self).busy()
    }

    fn idle(&mut self, duration: Duration) -> anyhow::Result<()> {
        (**self).idle(duration)
    }
}
