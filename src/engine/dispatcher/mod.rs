//! The dispatcher: hands recorded events to the hook runtime, one session's events in
//! index order, sending ahead so Node never waits on us; watches each handler's time;
//! restarts the runtime when it dies or a handler never yields; answers `ctx` calls.
//!
//! It decides and says nothing itself: each thing it sees happen is a [`Happened`] handed
//! to its [`Reporter`] (the serve log, worded by [`render`]). The runtime is a
//! [`Link`]: a Node process of its own, or a lane of a shared one.
//!
//! - [`loading`]: `init` until `ready`, skipping a hook whose import ends or hangs the runtime;
//! - [`messages`]: what the runtime says while events flow;
//! - [`restart`]: what a runtime that ended or hung leaves, and the restart.

mod happened;
mod loading;
mod messages;
pub mod render;
mod restart;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use self::happened::{ExitCaller, HandlerOf, Happened, Reporter};
use crate::engine::plan::{HookToLoad, LoadPlan};
use crate::engine::shared::LaneLink;
use crate::engine::stats::DispatchStats;
use crate::engine::timeline::Timeline;
use crate::protocol::{FromNode, InitCtx, Manifest, ToNode, TraceParent};
use crate::runtime::calls::OtelSummary;
use crate::runtime::host::{FromRuntime, Runtime, RuntimeConfig, RuntimeLink};
use crate::runtime::link::{Link, Restart};
use crate::runtime::slot::{RunningHandler, RuntimeState};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::serve_log::ServeLog;
use crate::telemetry::Parent;

/// Past the hook timeout, how long a handler that never yields gets before the runtime is
/// killed (the runtime's own timer handles every handler that does yield).
const KILL_GRACE: Duration = Duration::from_millis(500);

/// How long a runtime told to shut down gets to say its last (its observable instruments'
/// callbacks get 2 s of it, in host.mjs) before it is killed.
const CLOSE_WITHIN: Duration = Duration::from_millis(2_500);

/// Events sent ahead of the one running, at most: enough to keep Node busy, bounded memory.
const SEND_AHEAD: usize = 2048;

/// While events are in flight, how often the handler slot is looked at when nothing else
/// wakes the dispatcher: a handler that never yields is seen to run at most this late.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// How often how far the hooks got is saved while events flow: what a crash leaves behind
/// as "never seen" is then at most this much of what they saw, not the whole run.
const SAVE_PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// How [`Dispatcher::finish_unless_stopped`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    /// Every event went through every hook.
    All,
    /// Stopped at once (a second Ctrl-C): these events did not go through every hook.
    Stopped { undispatched: usize },
}

/// Node's inspector announcing itself (`--inspect`, `--inspect-brk` in `NODE_OPTIONS`).
fn is_inspector_line(line: &str) -> bool {
    ["Debugger listening on ", "Debugger attached.", "For help, see: https://nodejs.org/"]
        .iter()
        .any(|start| line.starts_with(start))
}

struct Pending {
    event: Envelope,
    /// The first hook (by load index) still to run for this event.
    from: usize,
    /// The span of the turn the event belongs to, when traces are exported: its handlers'
    /// spans are children of it.
    trace: Option<Parent>,
}

/// The handler the slot says runs, and since when the dispatcher has seen it run.
#[derive(Debug, Clone, Copy)]
struct Watched {
    generation: u32,
    handler: RunningHandler,
    since: Instant,
}

pub struct Dispatcher<'s> {
    config: RuntimeConfig,
    ctx: InitCtx,
    hooks: Vec<HookToLoad>,
    manifest: std::sync::Arc<Manifest>,
    /// Hooks that failed to load (their import threw, ended the runtime or never finished),
    /// with why: a restarted runtime does not import them again.
    not_to_load: Vec<Option<String>>,
    timeout: Duration,
    /// Past the timeout, how long a handler that never yields gets ([`KILL_GRACE`]; less in
    /// unit tests, which would otherwise wait it out).
    kill_grace: Duration,
    runtime: Box<dyn Link>,
    /// Where what happened is said: the session's serve log (a test's list in unit tests).
    reporter: &'s dyn Reporter,
    store: &'s StateStore,
    pending: VecDeque<Pending>,
    watched: Option<Watched>,
    dispatched_through: Option<u64>,
    /// What the runtime said about its own `process.exit`, until it ends.
    exit_call: Option<ExitCall>,
    progress_saved: Instant,
    pub otel: OtelSummary,
    pub stats: DispatchStats,
    /// How many hooks the runtime loaded.
    pub loaded: usize,
    /// Node's inspector is on (a debugger may hold the runtime at a breakpoint): the
    /// watchdog and the load's deadlines are off.
    debugged: bool,
    /// Where each handler's run is recorded (a `dev` session's hooks timeline).
    timeline: Option<Timeline>,
}

impl<'s> Dispatcher<'s> {
    /// A dispatcher for a runtime that was just started; [`Dispatcher::load`] then loads the
    /// hooks. In between, Node boots while the caller compiles them.
    pub fn new(
        config: RuntimeConfig,
        runtime: Runtime,
        plan: LoadPlan,
        ctx: InitCtx,
        timeout: Duration,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> Self {
        Self::with_link(config, Box::new(runtime), plan, ctx, timeout, log, store)
    }

    /// A dispatcher for session lane `lane` of a runtime shared by a `dev` server's sessions,
    /// whose hooks (`loaded` of them) its keeper loaded.
    #[allow(clippy::too_many_arguments)]
    pub fn on_lane(
        config: RuntimeConfig,
        lane: LaneLink,
        loaded: usize,
        plan: LoadPlan,
        timeout: Duration,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> Self {
        // The lane's `ctx` went to the runtime with its `open` ([`crate::engine::shared::SharedRuntime::attach`]).
        let mut dispatcher = Self::with_link(config, Box::new(lane), plan, InitCtx::Shared, timeout, log, store);
        dispatcher.loaded = loaded;
        dispatcher
    }

    fn with_link(
        config: RuntimeConfig,
        runtime: Box<dyn Link>,
        plan: LoadPlan,
        ctx: InitCtx,
        timeout: Duration,
        reporter: &'s dyn Reporter,
        store: &'s StateStore,
    ) -> Self {
        Self {
            config,
            ctx,
            not_to_load: vec![None; plan.hooks.len()],
            hooks: plan.hooks,
            manifest: plan.manifest,
            timeout,
            kill_grace: KILL_GRACE,
            runtime,
            reporter,
            store,
            pending: VecDeque::new(),
            watched: None,
            dispatched_through: None,
            exit_call: None,
            progress_saved: Instant::now(),
            otel: OtelSummary::default(),
            stats: DispatchStats::default(),
            loaded: 0,
            debugged: false,
            timeline: None,
        }
    }

    /// Records how each handler runs in `timeline` (a `dev` session's, for the playground).
    pub fn record_timeline(&mut self, timeline: Timeline) {
        self.timeline = Some(timeline);
    }

    /// Loads the hooks (logging each load and failure) and waits until the runtime is ready.
    pub fn load(&mut self) -> anyhow::Result<()> {
        self.initialise(true)
    }

    /// Where the sessions sharing this dispatcher's runtime write to it (for its keeper).
    pub fn link(&self) -> Option<RuntimeLink> {
        self.runtime.runtime_link()
    }

    /// Says what happened, about the event being handled (the oldest one in flight: Node
    /// handles them in order).
    fn report(&self, happened: Happened) {
        self.reporter.report(happened, self.pending.front().map(|pending| &pending.event));
    }

    /// Hands one recorded event to the hooks. Returns at once unless too many are in flight.
    pub fn dispatch(&mut self, event: Envelope) -> anyhow::Result<()> {
        self.dispatch_in(event, None)
    }

    /// [`Dispatcher::dispatch`], of an event of a traced turn: `trace` is the turn's span.
    pub fn dispatch_in(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()> {
        self.queue_event(event, trace)?;
        self.pump(Duration::ZERO)?;
        self.save_progress()
    }

    /// Hands recorded events to the hooks together (a replay's batch): sent in one write,
    /// as many at a time as may be in flight, each under its turn's span when it is traced.
    pub fn dispatch_all_in(
        &mut self,
        events: impl IntoIterator<Item = (Envelope, Option<Parent>)>,
    ) -> anyhow::Result<()> {
        for (event, trace) in events {
            self.queue_event(event, trace)?;
        }
        self.pump(Duration::ZERO)?;
        self.save_progress()
    }

    /// Queues one event for the runtime (sent by the next pump); waits while too many are in flight.
    fn queue_event(&mut self, event: Envelope, trace: Option<Parent>) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            self.runtime.catch_up();
        }
        self.send_event(&event, 0, trace)?;
        self.pending.push_back(Pending { event, from: 0, trace });
        while self.pending.len() > SEND_AHEAD {
            self.pump(Duration::from_secs(1))?;
        }
        Ok(())
    }

    /// Saves how far the hooks got, unless it was saved a moment ago.
    fn save_progress(&mut self) -> anyhow::Result<()> {
        if self.progress_saved.elapsed() < SAVE_PROGRESS_EVERY {
            return Ok(());
        }
        self.progress_saved = Instant::now();
        self.save_dispatched()
    }

    /// Saves how far the hooks got.
    fn save_dispatched(&mut self) -> anyhow::Result<()> {
        if let Some(through) = self.dispatched_through.take() {
            self.store.mark_dispatched(&self.config.session_id, through)?;
        }
        Ok(())
    }

    /// Queues an event's line: it goes out with the next pump's.
    fn send_event(&mut self, event: &Envelope, from: usize, trace: Option<Parent>) -> std::io::Result<()> {
        let hex = trace.map(|parent| parent.hex());
        let trace = hex.as_ref().map(|(trace_id, span_id)| TraceParent { trace_id, span_id });
        let session = self.runtime.lane();
        let timeline = self.timeline.is_some();
        self.runtime.queue(&ToNode::Event { seq: event.index, from, event, trace, timeline, session })
    }

    /// Waits until every dispatched event went through every hook.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        while !self.pending.is_empty() {
            self.pump(Duration::from_secs(1))?;
            self.save_progress()?;
        }
        self.save_dispatched()
    }

    /// [`Dispatcher::finish`], for a user who may press Ctrl-C while the hooks finish: once
    /// `interrupted` is set (and unless `said`, the turn's cancellation was said already),
    /// the log says what the wait is for; once `stop_now` is, it stops waiting at once,
    /// saving how far the hooks got: how many events did not go through every hook.
    pub fn finish_unless_stopped(
        &mut self,
        interrupted: &AtomicBool,
        stop_now: &AtomicBool,
        interrupted_by: &dyn Fn() -> &'static str,
        mut said: bool,
    ) -> anyhow::Result<Finished> {
        while !self.pending.is_empty() {
            if stop_now.load(Ordering::SeqCst) {
                self.save_dispatched()?;
                return Ok(Finished::Stopped { undispatched: self.pending.len() });
            }
            if !said && interrupted.load(Ordering::SeqCst) {
                said = true;
                self.report(self.waiting_for(interrupted_by()));
            }
            // Short waits: a Ctrl-C is answered within this, however long a handler runs.
            self.pump(Duration::from_millis(100))?;
            self.save_progress()?;
        }
        self.finish()?;
        Ok(Finished::All)
    }

    /// What the hooks are still doing: the hook that runs and its event's type, if any.
    fn waiting_for(&self, signal: &str) -> Happened {
        let running = match self.runtime.slot().state {
            RuntimeState::Running(handler) => {
                let event = self.pending.iter().find(|pending| pending.event.index == handler.seq);
                event.map(|pending| (self.hook_name(handler.hook).to_owned(), pending.event.event_type.clone()))
            }
            RuntimeState::Idle { .. } | RuntimeState::Starting => None,
        };
        Happened::Waiting { running, events: self.pending.len(), signal: signal.to_owned() }
    }

    /// Whether dispatched events are still going through the hooks.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Keeps handling the runtime's messages for `duration` (while the model is slow).
    pub fn idle(&mut self, duration: Duration) -> anyhow::Result<()> {
        let until = Instant::now() + duration;
        while let Some(left) = until.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) {
            self.pump(left)?;
        }
        self.save_progress()
    }

    /// Handles every message the runtime has sent, first waiting up to `max_wait` (or the
    /// running handler's deadline) for one. A handler past its deadline that never
    /// yielded gets the runtime restarted (looked at only by a pump that may wait: one
    /// after every dispatched event reads no slot).
    fn pump(&mut self, max_wait: Duration) -> anyhow::Result<()> {
        self.runtime.send_queued();
        let mut may_wait = !max_wait.is_zero();
        loop {
            let received = if may_wait {
                may_wait = false;
                let wait = match self.watch() {
                    Some(watched) => self.deadline_of(watched).saturating_duration_since(Instant::now()).min(max_wait),
                    None if self.pending.is_empty() => max_wait,
                    None => max_wait.min(WATCH_EVERY),
                };
                match self.runtime.recv_timeout(wait) {
                    Ok(received) => Some(received),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => Some(FromRuntime::Exited),
                }
            } else {
                match self.runtime.try_recv() {
                    Ok(received) => Some(received),
                    Err(TryRecvError::Empty) => None,
                    Err(TryRecvError::Disconnected) => Some(FromRuntime::Exited),
                }
            };
            match received {
                Some(FromRuntime::Exited) => return self.restart(Restart::Exited),
                Some(received) => {
                    if let FromRuntime::Output { line, .. } = &received {
                        self.debugged |= is_inspector_line(line);
                    }
                    self.heard(received);
                }
                None => {
                    if max_wait.is_zero() {
                        return Ok(());
                    }
                    let stuck = self.watch().is_some_and(|watched| Instant::now() >= self.deadline_of(watched));
                    // A handler held at a debugger's breakpoint is not stuck.
                    if stuck && !self.debugged {
                        self.restart(Restart::NeverYielded)?;
                    } else if self.runtime.exit_status().is_some() {
                        // Ended, though its channel has not closed yet: what it sent last is
                        // still on the way. (Asked only after a wait that brought nothing, not
                        // on the no-wait pump after every dispatched event.)
                        self.drain_after_exit();
                        self.restart(Restart::Exited)?;
                    }
                    return Ok(());
                }
            }
        }
    }

    /// When a handler seen running since `watched.since` is stuck: past its timeout and the
    /// grace the runtime's own timer gets.
    fn deadline_of(&self, watched: Watched) -> Instant {
        watched.since + self.timeout + self.kill_grace
    }

    /// The handler that runs while events are in flight, as the slot says, and since when
    /// it has been seen to (the first look at a new generation).
    fn watch(&mut self) -> Option<Watched> {
        if self.pending.is_empty() {
            self.watched = None;
            return None;
        }
        let reading = self.runtime.slot();
        self.watched = match reading.state {
            RuntimeState::Running(handler) => match self.watched {
                Some(watched) if watched.generation == reading.generation => Some(watched),
                _ => Some(Watched { generation: reading.generation, handler, since: Instant::now() }),
            },
            RuntimeState::Idle { .. } | RuntimeState::Starting => None,
        };
        self.watched
    }

    /// Events before `seq` went through their hooks (the runtime runs them in order), though
    /// their `done` may not have reached us (it is sent with the runtime's next write).
    fn finished_before(&mut self, seq: u64) {
        while let Some(done) = self.pending.front().filter(|pending| pending.event.index < seq) {
            self.dispatched_through = Some(done.event.index);
            self.stats.events += 1;
            self.pending.pop_front();
        }
    }

    /// The event key of a running handler: its event's type, or `*`.
    fn handler_key(&self, handler: RunningHandler) -> String {
        if handler.any {
            return "*".to_owned();
        }
        let event = self.pending.iter().find(|pending| pending.event.index == handler.seq);
        event.map_or_else(|| "?".to_owned(), |pending| pending.event.event_type.clone())
    }

    /// A running handler as its hook's name and its event key.
    fn handler_of(&self, handler: RunningHandler) -> HandlerOf {
        HandlerOf { hook: self.hook_name(handler.hook).to_owned(), handler: self.handler_key(handler) }
    }

    /// Handles what an ended runtime sent before it ended, waiting briefly for the channel
    /// to close.
    fn drain_after_exit(&mut self) {
        let until = Instant::now() + Duration::from_millis(200);
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.runtime.recv_timeout(left) {
                Ok(FromRuntime::Exited) | Err(_) => return,
                Ok(received) => self.heard(received),
            }
        }
    }

    fn hook_name(&self, index: usize) -> &str {
        self.hooks.get(index).map_or("?", |hook| hook.name.as_str())
    }

    /// `bot/hooks/x.ts:7:13` from a stack trace: the first frame in the project's sources.
    /// Frames in agent-sdk's own runtime (under the state root) are not the project's.
    fn first_project_frame(&self, stack: Option<&str>) -> Option<String> {
        let root = self.config.project_root.to_string_lossy().into_owned();
        stack?.lines().skip(1).find_map(|line| {
            let start = line.find(&root)?;
            let frame = line[start + root.len()..].trim_start_matches('/').trim_end_matches(')');
            (!frame.starts_with(crate::state::STATE_DIR)).then(|| frame.to_owned())
        })
    }

    /// Stops the runtime after everything was dispatched (a shared one's lane leaves it).
    pub fn shutdown(mut self) {
        self.runtime.send_queued();
        self.runtime.shutdown();
    }

    /// Shuts the runtime down, taking in what it says on its way out (the measurements of
    /// observable instruments, taken at shutdown; console output), for at most
    /// [`CLOSE_WITHIN`], until its `bye`; then the metrics the hooks recorded. The process
    /// is not waited for past its `bye` (see [`Runtime::let_go`]). With the counts of what
    /// happened, the shutdown's part included (an unhandled rejection of what a hook left
    /// running).
    pub fn close(mut self) -> Closed {
        let until = Instant::now() + CLOSE_WITHIN;
        self.runtime.send_queued();
        if !self.runtime.owns_runtime() {
            // The session leaves its lane (dropped with the dispatcher); the runtime goes on.
            return Closed { otel: std::mem::take(&mut self.otel), stats: self.stats };
        }
        let mut said_bye = false;
        let wait_for_teardown = writes_as_it_ends(&self.config);
        if self.runtime.send(&ToNode::Shutdown).is_ok() {
            while let Some(left) = until.checked_duration_since(Instant::now()) {
                match self.runtime.recv_timeout(left) {
                    Ok(FromRuntime::Message(FromNode::Bye)) if !wait_for_teardown => {
                        said_bye = true;
                        break;
                    }
                    Ok(FromRuntime::Exited) | Err(_) => break,
                    Ok(received) => self.heard(received),
                }
            }
        }
        let otel = std::mem::take(&mut self.otel);
        if said_bye {
            self.runtime.let_go();
        } else {
            self.runtime.kill();
        }
        Closed { otel, stats: self.stats }
    }
}

/// What a closed dispatcher leaves: the metrics the hooks recorded, and the counts.
pub struct Closed {
    pub otel: OtelSummary,
    pub stats: DispatchStats,
}

/// Whether the runtime's Node writes files as it tears down, after its last `exit` listener
/// (`NODE_V8_COVERAGE`'s coverage, `--cpu-prof`'s profile): then it is waited for to the end.
fn writes_as_it_ends(config: &RuntimeConfig) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some() || config.env.iter().any(|(key, _)| key == name);
    let options = std::env::var("NODE_OPTIONS").unwrap_or_default()
        + &config
            .env
            .iter()
            .filter(|(key, _)| key == "NODE_OPTIONS")
            .map(|(_, value)| value.as_str())
            .collect::<String>();
    set("NODE_V8_COVERAGE") || options.contains("-prof")
}

/// What the runtime said about its own `process.exit`, before it ended.
#[derive(Debug)]
struct ExitCall {
    /// The hook whose code called it, if any.
    hook: Option<String>,
    code: Value,
    stack: Option<String>,
}
