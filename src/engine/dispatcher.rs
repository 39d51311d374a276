//! The dispatcher: hands recorded events to the hook runtime, one session's events in
//! index order, sending ahead so Node never waits on us; watches each handler's time;
//! restarts the runtime when it dies or a handler never yields; answers `ctx` calls.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::engine::plan::{HookToLoad, LoadPlan};
use crate::engine::shared::LaneLink;
use crate::engine::stats::DispatchStats;
use crate::engine::timeline::Timeline;
use crate::protocol::{
    ConsoleLevel, FromNode, HandlerEnded, HookToImport, InitCtx, Manifest, OtelKind, ToNode, TraceParent, Unhandled,
    UnhandledKind,
};
use crate::runtime::calls::{OtelSummary, attributes_text};
use crate::runtime::host::{
    FromRuntime, Runtime, RuntimeConfig, RuntimeLink, Stream, check_node_version, diagnose_node,
};
use crate::runtime::node_version::{NodeVersion, end_of_life_warning};
use crate::runtime::slot::{RunningHandler, RuntimeState};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::handler_run::Outcome;
use crate::state::log_record::{Level, Record};
use crate::state::serve_log::ServeLog;
use crate::telemetry::{Parent, hook_spans};

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

/// How long the runtime is waited for while a debugger is attached to it: as long as it takes.
const DEBUGGED_WAIT: Duration = Duration::from_secs(365 * 24 * 3600);

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

/// The runtime a dispatcher hands its events to.
enum Link {
    /// Its own (`run`, `test`, and the keeper of a shared one): started, restarted and
    /// stopped by this dispatcher.
    Own(Runtime),
    /// A session's lane of a runtime the sessions of a `dev` server share
    /// ([`crate::engine::shared`]), whose keeper restarts it.
    Lane(LaneLink),
}

impl Link {
    fn send(&self, message: &ToNode) -> std::io::Result<()> {
        match self {
            Link::Own(runtime) => runtime.send(message),
            Link::Lane(lane) => lane.send(message),
        }
    }

    fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        match self {
            Link::Own(runtime) => runtime.queue(message),
            Link::Lane(lane) => lane.queue(message),
        }
    }

    fn send_queued(&mut self) {
        match self {
            Link::Own(runtime) => runtime.send_queued(),
            Link::Lane(lane) => lane.send_queued(),
        }
    }

    fn recv_timeout(&mut self, wait: Duration) -> Result<FromRuntime, RecvTimeoutError> {
        match self {
            Link::Own(runtime) => runtime.messages.recv_timeout(wait),
            Link::Lane(lane) => lane.recv_timeout(wait),
        }
    }

    fn try_recv(&mut self) -> Result<FromRuntime, TryRecvError> {
        match self {
            Link::Own(runtime) => runtime.messages.try_recv(),
            Link::Lane(lane) => lane.try_recv(),
        }
    }

    fn slot(&self) -> crate::runtime::slot::SlotReading {
        match self {
            Link::Own(runtime) => runtime.slot(),
            Link::Lane(lane) => lane.slot(),
        }
    }

    fn state(&self) -> RuntimeState {
        self.slot().state
    }

    /// The lane an event is sent on (`None`: the runtime's only one).
    fn session(&self) -> Option<u64> {
        match self {
            Link::Own(_) => None,
            Link::Lane(lane) => Some(lane.session()),
        }
    }

    /// Kills a runtime of its own (a shared one is its keeper's to kill).
    fn kill(&mut self) {
        if let Link::Own(runtime) = self {
            runtime.kill();
        }
    }

    /// The exit status of a runtime of its own that ended (a shared one's is its keeper's).
    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        match self {
            Link::Own(runtime) => runtime.exit_status(),
            Link::Lane(_) => None,
        }
    }

    fn ended_status(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        match self {
            Link::Own(runtime) => runtime.ended_status(patience),
            Link::Lane(_) => None,
        }
    }
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
    runtime: Link,
    log: &'s ServeLog,
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
        Self::with_link(config, Link::Own(runtime), plan, ctx, timeout, log, store)
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
        let mut dispatcher = Self::with_link(config, Link::Lane(lane), plan, InitCtx::Shared, timeout, log, store);
        dispatcher.loaded = loaded;
        dispatcher
    }

    fn with_link(
        config: RuntimeConfig,
        runtime: Link,
        plan: LoadPlan,
        ctx: InitCtx,
        timeout: Duration,
        log: &'s ServeLog,
        store: &'s StateStore,
    ) -> Self {
        Self {
            config,
            ctx,
            not_to_load: vec![None; plan.hooks.len()],
            hooks: plan.hooks,
            manifest: plan.manifest,
            timeout,
            runtime,
            log,
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
        match &self.runtime {
            Link::Own(runtime) => Some(runtime.link()),
            Link::Lane(_) => None,
        }
    }

    /// The `init` message: every hook, those that failed to load before marked to skip.
    fn init_message(&self) -> ToNode<'_> {
        let hooks = self
            .hooks
            .iter()
            .zip(&self.not_to_load)
            .map(|(hook, skip)| HookToImport {
                name: &hook.name,
                url: &hook.url,
                source: &hook.source,
                key: hook.key.as_deref(),
                skip: skip.as_deref(),
            })
            .collect();
        ToNode::Init {
            hooks,
            ctx: &self.ctx,
            timeout_ms: self.timeout.as_millis() as u64,
            timeout_text: crate::clock::format_duration(self.timeout),
            manifest: &self.manifest,
            otel_api_version: self.config.otel.version(),
            tracing: self.config.telemetry.as_ref().is_some_and(|telemetry| telemetry.tracing()),
        }
    }

    /// Sends `init` and waits for `ready`. A hook that ends the runtime while it is
    /// imported, or whose import never yields, is marked, logged, and skipped by a fresh
    /// runtime.
    fn initialise(&mut self, first: bool) -> anyhow::Result<()> {
        self.runtime.send(&self.init_message())?;
        // What loaded, logged once the runtime is ready (and only the first time: a
        // restarted runtime loads the same hooks).
        let mut outcomes: Vec<Record> = Vec::new();
        let mut said_hello = false;
        // The hook being imported, and since when.
        let mut loading: Option<Instant> = None;
        // What Node wrote before it said hello: its own reason for not starting.
        let mut early_stderr: Vec<String> = Vec::new();
        loop {
            let wait = match loading {
                // A debugger may hold the runtime at a breakpoint (or before its first line,
                // with --inspect-brk) for as long as the person at it likes.
                _ if self.debugged => DEBUGGED_WAIT,
                None => self.timeout + Duration::from_secs(30),
                Some(since) => (since + self.timeout + KILL_GRACE).saturating_duration_since(Instant::now()),
            };
            let ended = match self.runtime.recv_timeout(wait) {
                Ok(FromRuntime::Message(message)) => {
                    match message {
                        FromNode::Hello { node } => {
                            said_hello = true;
                            early_stderr
                                .drain(..)
                                .for_each(|line| self.runtime_output(Stream::Stderr, &line, RuntimeState::Starting));
                            if let Err(too_old) = check_node_version(&node) {
                                self.runtime.kill();
                                return Err(too_old.into());
                            }
                            // Said before the hooks' lines, once per invocation (not per
                            // restart, nor per session of `dev`, whose start said it already).
                            if let Some(warning) = NodeVersion::parse(&node).and_then(end_of_life_warning) {
                                self.log.warn(warning);
                            }
                        }
                        FromNode::Loading { .. } => loading = Some(Instant::now()),
                        FromNode::Ready => {
                            self.loaded = outcomes.iter().filter(|record| record.level == Level::Info).count();
                            if first {
                                self.stats.load_failed = (outcomes.len() - self.loaded) as u64;
                                for (skip, outcome) in self.not_to_load.iter_mut().zip(&outcomes) {
                                    if outcome.level != Level::Info && skip.is_none() {
                                        *skip = Some(outcome.message.clone());
                                    }
                                }
                                outcomes.into_iter().for_each(|record| self.log.write(record));
                            }
                            return Ok(());
                        }
                        FromNode::Loaded { hook, .. } => {
                            loading = None;
                            outcomes.push(Record::new(Level::Info, format!("loaded hook \"{hook}\"")));
                        }
                        FromNode::LoadFailed { hook, message, stack } => {
                            loading = None;
                            outcomes.push(self.load_failure(&hook, &message, stack.as_deref()));
                        }
                        other => self.handle(other),
                    }
                    None
                }
                Ok(FromRuntime::Output { stream: Stream::Stderr, line, .. }) if is_inspector_line(&line) => {
                    // Said at once: the debugger's address is what the person needs now.
                    self.debugged = true;
                    self.log.info(format!("runtime: {line}"));
                    None
                }
                Ok(FromRuntime::Output { stream: Stream::Stderr, line, .. }) if first && !said_hello => {
                    early_stderr.push(line);
                    None
                }
                Ok(FromRuntime::Output { stream, line, state }) => {
                    self.runtime_output(stream, &line, state);
                    None
                }
                Ok(FromRuntime::CallFailed { hook, call, error }) => {
                    self.call_failed(hook, &call, &error);
                    None
                }
                Ok(FromRuntime::Exited) | Err(RecvTimeoutError::Disconnected) => {
                    if first && !said_hello {
                        // The reader threads may still be handing on the last lines.
                        while let Ok(FromRuntime::Output { line, .. }) =
                            self.runtime.recv_timeout(Duration::from_millis(100))
                        {
                            early_stderr.push(line);
                        }
                        return Err(diagnose_node(&self.config.node, &early_stderr).into());
                    }
                    Some("it ended the hook runtime while loading (process.exit or a crash at import)".to_owned())
                }
                Err(RecvTimeoutError::Timeout) if loading.is_some() => Some(format!(
                    "its import did not finish within {} (it never yielded)",
                    crate::clock::format_duration(self.timeout)
                )),
                Err(RecvTimeoutError::Timeout) => anyhow::bail!("the hook runtime did not finish loading hooks"),
            };
            if let Some(reason) = ended {
                // The hook whose code called process.exit (a timer its import set, say), else
                // the one being imported.
                let exited_in = self.exit_call.take().and_then(|call| {
                    let hook = call.hook?;
                    self.hooks.iter().position(|known| known.name == hook)
                });
                let Some(skip) = self.not_to_load.get_mut(exited_in.unwrap_or(outcomes.len())) else {
                    anyhow::bail!("the hook runtime exited while loading hooks");
                };
                *skip = Some(reason);
                loading = None;
                self.runtime.kill();
                self.runtime = Link::Own(Runtime::start(&self.config)?);
                self.runtime.send(&self.init_message())?;
                outcomes.clear();
            }
        }
    }

    /// The log record of a hook that failed to load.
    fn load_failure(&self, hook: &str, reason: &str, stack: Option<&str>) -> Record {
        let at = self.at_location(stack);
        Record::new(Level::Error, format!("hook \"{hook}\" failed to load: {reason}{at}")).hook(hook)
    }

    /// ` (at bot/hooks/x.ts:7:13)`: where a stack enters the project's sources, or nothing.
    fn at_location(&self, stack: Option<&str>) -> String {
        let location = stack.and_then(|stack| self.first_project_frame(stack));
        location.map(|location| format!(" (at {location})")).unwrap_or_default()
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
        if let (Link::Lane(lane), true) = (&mut self.runtime, self.pending.is_empty()) {
            lane.catch_up();
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
        if let Some(through) = self.dispatched_through.take() {
            self.store.mark_dispatched(&self.config.session_id, through)?;
        }
        Ok(())
    }

    /// Queues an event's line: it goes out with the next pump's.
    fn send_event(&mut self, event: &Envelope, from: usize, trace: Option<Parent>) -> std::io::Result<()> {
        let hex = trace.map(|parent| parent.hex());
        let trace = hex.as_ref().map(|(trace_id, span_id)| TraceParent { trace_id, span_id });
        let session = self.runtime.session();
        let timeline = self.timeline.is_some();
        self.runtime.queue(&ToNode::Event { seq: event.index, from, event, trace, timeline, session })
    }

    /// Waits until every dispatched event went through every hook.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        while !self.pending.is_empty() {
            self.pump(Duration::from_secs(1))?;
            self.save_progress()?;
        }
        if let Some(through) = self.dispatched_through.take() {
            self.store.mark_dispatched(&self.config.session_id, through)?;
        }
        Ok(())
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
                if let Some(through) = self.dispatched_through.take() {
                    self.store.mark_dispatched(&self.config.session_id, through)?;
                }
                return Ok(Finished::Stopped { undispatched: self.pending.len() });
            }
            if !said && interrupted.load(Ordering::SeqCst) {
                said = true;
                let line = self.waiting_for(interrupted_by());
                self.log.warn(line);
            }
            // Short waits: a Ctrl-C is answered within this, however long a handler runs.
            self.pump(Duration::from_millis(100))?;
            self.save_progress()?;
        }
        self.finish()?;
        Ok(Finished::All)
    }

    /// What the hooks are still doing: `waiting for hook "boot" (turn.completed) to finish;
    /// Ctrl-C again to stop now` (`SIGTERM again …` when that is what stopped the run).
    fn waiting_for(&mut self, signal: &str) -> String {
        let running = match self.runtime.state() {
            RuntimeState::Running(handler) => {
                let event = self.pending.iter().find(|pending| pending.event.index == handler.seq);
                event.map(|pending| (self.hook_name(handler.hook).to_owned(), pending.event.event_type.clone()))
            }
            RuntimeState::Idle { .. } | RuntimeState::Starting => None,
        };
        match running {
            Some((hook, event)) => {
                format!("waiting for hook \"{hook}\" ({event}) to finish; {signal} again to stop now")
            }
            None => format!(
                "waiting for the hooks to finish {}; {signal} again to stop now",
                crate::printer::plural(self.pending.len(), "event")
            ),
        }
    }

    /// Whether dispatched events are still going through the hooks.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The session's serve log.
    pub fn serve_log(&self) -> &'s ServeLog {
        self.log
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
                    Some(watched) => (watched.since + self.timeout + KILL_GRACE)
                        .saturating_duration_since(Instant::now())
                        .min(max_wait),
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
                Some(FromRuntime::Message(message)) => self.handle(message),
                Some(FromRuntime::Output { stream, line, state }) => {
                    self.debugged |= is_inspector_line(&line);
                    self.runtime_output(stream, &line, state);
                }
                Some(FromRuntime::CallFailed { hook, call, error }) => self.call_failed(hook, &call, &error),
                Some(FromRuntime::Exited) => return self.restart(Restart::Exited),
                None => {
                    if max_wait.is_zero() {
                        return Ok(());
                    }
                    let stuck =
                        self.watch().is_some_and(|watched| watched.since.elapsed() >= self.timeout + KILL_GRACE);
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

    /// Handles what an ended runtime sent before it ended, waiting briefly for the channel
    /// to close.
    fn drain_after_exit(&mut self) {
        let until = Instant::now() + Duration::from_millis(200);
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.runtime.recv_timeout(left) {
                Ok(FromRuntime::Message(message)) => self.handle(message),
                Ok(FromRuntime::Output { stream, line, state }) => self.runtime_output(stream, &line, state),
                Ok(FromRuntime::CallFailed { hook, call, error }) => self.call_failed(hook, &call, &error),
                Ok(FromRuntime::Exited) | Err(_) => return,
            }
        }
    }

    /// A line the runtime's process printed outside `console`: the output of a process a
    /// hook started (attributed to the hook whose handler ran when it was read), or Node's
    /// own message.
    fn runtime_output(&self, stream: Stream, line: &str, state: RuntimeState) {
        if line.trim().is_empty() {
            return;
        }
        let level = if stream == Stream::Stdout { Level::Info } else { Level::Warn };
        let record = match state {
            RuntimeState::Running(running) => {
                let hook = self.hook_name(running.hook);
                Record::new(level, format!("hook \"{hook}\": {line}")).hook(hook)
            }
            RuntimeState::Idle { .. } | RuntimeState::Starting => Record::new(level, format!("runtime: {line}")),
        };
        self.log(record);
    }

    /// An error in a hook's code that nothing handled: counted as a failure (`run` exits 3)
    /// and said with what fixes it.
    fn unhandled(&mut self, unhandled: Unhandled) {
        let what = match unhandled.kind {
            UnhandledKind::Rejection => {
                self.stats.unhandled_rejections += 1;
                "unhandled rejection"
            }
            UnhandledKind::Exception => {
                self.stats.uncaught_exceptions += 1;
                "uncaught exception"
            }
        };
        let fix = match (unhandled.kind, unhandled.after_return) {
            (UnhandledKind::Rejection, true) => {
                " (after its handler returned: a promise the handler did not await; await it, or catch it)"
            }
            (UnhandledKind::Rejection, false) => " (a promise nothing awaited or caught: await it, or catch it)",
            (UnhandledKind::Exception, true) => {
                " (after its handler returned, in code it left running: a timer, a callback)"
            }
            (UnhandledKind::Exception, false) => "",
        };
        let text = unhandled.text.trim_end();
        let record = match unhandled.hook {
            Some(hook) => Record::new(Level::Error, format!("hook \"{hook}\": {what}{fix}: {text}")).hook(&hook),
            None => Record::new(Level::Error, format!("{what}{fix}: {text}")),
        };
        self.log(record);
    }

    /// A write whose promise had resolved as it was sent (`kv.set`, `reminders.set`) that
    /// the state store then refused: counted as a failure (`run` exits 3), named with its hook.
    fn call_failed(&mut self, hook: Option<String>, call: &str, error: &str) {
        self.stats.writes_failed += 1;
        let what =
            format!("ctx.host.{call} failed after its promise had resolved (a write resolves as it is sent): {error}");
        let record = match hook {
            Some(hook) => Record::new(Level::Error, format!("hook \"{hook}\": {what}")).hook(&hook),
            None => Record::new(Level::Error, what),
        };
        self.log(record);
    }

    fn hook_name(&self, index: usize) -> &str {
        self.hooks.get(index).map_or("?", |hook| hook.name.as_str())
    }

    fn handle(&mut self, message: FromNode) {
        match message {
            FromNode::Threw { seq, hook: index, handler, message, stack } => {
                self.stats.threw += 1;
                let hook = self.hook_name(index).to_owned();
                let location = stack.as_deref().and_then(|stack| self.first_project_frame(stack));
                let at = location.as_ref().map(|location| format!(" (at {location})")).unwrap_or_default();
                if let Some(timeline) = self.timeline.as_mut() {
                    timeline.threw(seq, index, location);
                }
                let record =
                    Record::new(Level::Error, format!("hook \"{hook}\" handler for {handler} threw: {message}{at}"));
                self.log(record.hook(&hook));
            }
            FromNode::TimedOut { hook, handler, .. } => {
                self.stats.timed_out += 1;
                let hook = self.hook_name(hook).to_owned();
                self.log_timed_out(&hook, &handler);
            }
            // Every event through `seq` (they finish in order).
            FromNode::Done { seq } => self.finished_before(seq.saturating_add(1)),
            FromNode::Console { level, hook, text } => {
                let level = match level {
                    ConsoleLevel::Error => Level::Error,
                    ConsoleLevel::Warn => Level::Warn,
                    ConsoleLevel::Info => Level::Info,
                };
                let record = match hook {
                    None => Record::new(level, text),
                    Some(hook) => Record::new(level, format!("hook \"{hook}\": {text}")).hook(&hook),
                };
                self.log(record);
            }
            FromNode::Otel(otel) if otel.kind == OtelKind::Log => {
                let hook = otel.hook.as_deref().unwrap_or("?");
                let body = match &otel.value {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                let attributes = attributes_text(&otel.attrs).map(|text| format!(" ({text})")).unwrap_or_default();
                let record = Record::new(otel.log_level(), format!("hook \"{hook}\": {body}{attributes}"));
                self.log(record.hook(hook));
            }
            FromNode::Otel(otel) => {
                if let Some(error) = &otel.error {
                    let hook = otel.hook.as_deref().unwrap_or("?");
                    let record =
                        Record::new(Level::Error, format!("hook \"{hook}\": span \"{}\" failed: {error}", otel.name));
                    self.log(record.hook(hook));
                }
                if let Some(telemetry) = &self.config.telemetry {
                    match otel.kind {
                        OtelKind::Span => hook_spans::hook_span(telemetry, &otel),
                        _ => {
                            if let Some(instruments) = telemetry.instruments() {
                                instruments.record(&otel);
                            }
                        }
                    }
                }
                self.otel.record(&otel);
            }
            FromNode::Handler(ended) => {
                self.record_run(&ended);
                let traced = self.pending.front().filter(|pending| pending.event.index == ended.seq);
                if let (Some(telemetry), Some(pending)) = (&self.config.telemetry, traced)
                    && let Some(parent) = pending.trace
                {
                    hook_spans::handler_ended(telemetry, parent, &pending.event, self.hook_name(ended.hook), &ended);
                }
            }
            FromNode::Unhandled(unhandled) => self.unhandled(unhandled),
            FromNode::Exit { hook, code, stack } => self.exit_call = Some(ExitCall { hook, code, stack }),
            // Said only after a shutdown, which `close` waits for (or past, to the end).
            FromNode::Bye => {}
            // Answered by the reader thread; the rest belong to loading.
            FromNode::Call(_)
            | FromNode::Hello { .. }
            | FromNode::Loading { .. }
            | FromNode::Loaded { .. }
            | FromNode::LoadFailed { .. }
            | FromNode::Ready
            | FromNode::Mounted { .. }
            | FromNode::MountsDone => {}
        }
    }

    /// Records a handler's run in the timeline, if one is kept.
    fn record_run(&mut self, ended: &HandlerEnded) {
        if self.timeline.is_none() {
            return;
        }
        let hook = self.hook_name(ended.hook).to_owned();
        let event = self.pending.iter().find(|pending| pending.event.index == ended.seq);
        let event_type = event.map_or("?", |pending| pending.event.event_type.as_str());
        if let Some(Err(problem)) =
            self.timeline.as_mut().map(|timeline| timeline.ended(self.store, ended, event_type, &hook))
        {
            self.timeline_failed(&problem);
        }
    }

    /// Records the run of a handler the runtime was stopped in (of the oldest event in flight).
    fn record_cut_off(&mut self, hook: &str, handler: &str, outcome: Outcome, why: String) {
        let (Some(timeline), Some(front)) = (self.timeline.as_mut(), self.pending.front()) else { return };
        let recorded =
            timeline.cut_off(self.store, front.event.index, &front.event.event_type, hook, handler, outcome, why);
        if let Err(problem) = recorded {
            self.timeline_failed(&problem);
        }
    }

    /// The timeline could not be written: said once, and no longer kept (the hooks go on).
    fn timeline_failed(&mut self, problem: &anyhow::Error) {
        self.timeline = None;
        self.log.warn(format!("could not record the hooks timeline (the playground's), so it stops here: {problem:#}"));
    }

    fn log_timed_out(&self, hook: &str, handler: &str) {
        self.log(
            Record::new(
                Level::Error,
                format!(
                    "hook \"{hook}\" handler for {handler} timed out after {}",
                    crate::clock::format_duration(self.timeout)
                ),
            )
            .hook(hook),
        );
    }

    /// Logs a record about the event the runtime is handling (the oldest one in flight:
    /// Node handles them in order), naming its type and turn.
    fn log(&self, mut record: Record) {
        if let Some(pending) = self.pending.front() {
            record.event = Some(pending.event.event_type.clone());
            record.turn_id.clone_from(&pending.event.turn_id);
        }
        self.log.write(record);
    }

    /// `bot/hooks/x.ts:7:13` from a stack trace: the first frame in the project's sources.
    /// Frames in agent-sdk's own runtime (under the state root) are not the project's.
    fn first_project_frame(&self, stack: &str) -> Option<String> {
        let root = self.config.project_root.to_string_lossy().into_owned();
        stack.lines().skip(1).find_map(|line| {
            let start = line.find(&root)?;
            let frame = line[start + root.len()..].trim_start_matches('/').trim_end_matches(')');
            (!frame.starts_with(crate::state::STATE_DIR)).then(|| frame.to_owned())
        })
    }

    /// Kills (if needed) and restarts the runtime, then sends again what was in flight,
    /// skipping the handler that was running: it either caused the restart or, cut off by
    /// another's doing, is named as an unconfirmed delivery (at most once, never twice).
    /// On a lane of a shared runtime, the keeper restarts it; the lane names its own
    /// handler's part and moves on to the new one.
    fn restart(&mut self, why: Restart) -> anyhow::Result<()> {
        let why = match (&self.runtime, why) {
            (Link::Own(_), why) => why,
            (Link::Lane(lane), Restart::NeverYielded) => {
                // This session's handler ran past its deadline and no timer of Node's said
                // so: Node is stuck, in the handler (of every session's) that started last.
                let stuck_in = lane.stuck_in();
                let mine = stuck_in.as_ref().is_some_and(|(stuck, _)| stuck.id == lane.session());
                let why = match &stuck_in {
                    Some((stuck, handler)) => format!(
                        "hook \"{}\" handler for event #{} of session {} did not yield for {} (it was timed out)",
                        self.hook_name(handler.hook),
                        handler.seq,
                        stuck.session_id,
                        crate::clock::format_duration(self.timeout + KILL_GRACE)
                    ),
                    None => "a handler did not yield".to_owned(),
                };
                lane.stop_runtime(stuck_in.map(|(stuck, _)| stuck.id), why);
                if mine { Restart::NeverYielded } else { Restart::CutOff }
            }
            (Link::Lane(lane), Restart::Exited | Restart::CutOff) => match lane.stopped_for() {
                Some(Some(stuck)) if stuck == lane.session() => Restart::NeverYielded,
                Some(_) => Restart::CutOff,
                None => Restart::Exited,
            },
        };
        // Whose handler ran: the one seen never yielding, or what the slot of an ended
        // runtime says last (what it finished before it is done, said or not).
        let running = match (why, self.runtime.state()) {
            (Restart::NeverYielded, RuntimeState::Running(handler)) if matches!(self.runtime, Link::Lane(_)) => {
                Some(handler)
            }
            (Restart::NeverYielded, _) => self.watched.map(|watched| watched.handler),
            (Restart::Exited | Restart::CutOff, RuntimeState::Running(handler)) => Some(handler),
            (Restart::Exited | Restart::CutOff, RuntimeState::Idle { through: Some(through) }) => {
                self.finished_before(through.saturating_add(1));
                None
            }
            (Restart::Exited | Restart::CutOff, RuntimeState::Idle { through: None } | RuntimeState::Starting) => None,
        };
        self.watched = None;
        if let Some(running) = running {
            self.finished_before(running.seq);
        }
        let culprit = running.map(|running| (self.hook_name(running.hook).to_owned(), self.handler_key(running)));
        match (why, &culprit) {
            (Restart::NeverYielded, Some((hook, handler))) => {
                self.stats.timed_out += 1;
                self.log_timed_out(hook, handler);
                let why = format!("did not yield for {}", crate::clock::format_duration(self.timeout + KILL_GRACE));
                self.record_cut_off(hook, handler, Outcome::TimedOut, why);
            }
            (Restart::Exited, culprit) => self.log_exit(culprit.as_ref()),
            (Restart::CutOff, Some((hook, handler))) => {
                self.log.error(format!(
                    "the hook runtime was restarted for another session's handler that never yielded, while hook \"{hook}\" handler for {handler} ran"
                ));
                self.log_unconfirmed(hook, handler);
            }
            (Restart::NeverYielded | Restart::CutOff, None) => {}
        }
        self.exit_call = None;
        self.stats.restarts += 1;
        match &mut self.runtime {
            Link::Own(runtime) => {
                self.log.warn("restarting the hook runtime; the remaining events will still be dispatched");
                runtime.kill();
                self.runtime = Link::Own(Runtime::start(&self.config)?);
                self.initialise(false)?;
            }
            // Its keeper says it restarts, once, in the server's own lines.
            Link::Lane(lane) => lane.move_on()?,
        }
        if let (Some(running), Some(front)) = (running, self.pending.front_mut())
            && front.event.index == running.seq
        {
            front.from = running.hook + 1;
        }
        let resend: Vec<(Envelope, usize, Option<Parent>)> =
            self.pending.iter().map(|pending| (pending.event.clone(), pending.from, pending.trace)).collect();
        for (event, from, trace) in resend {
            self.send_event(&event, from, trace)?;
        }
        self.runtime.send_queued();
        Ok(())
    }

    /// The keeper of a shared runtime stops it for a session that found it stuck (`why`
    /// says in whose handler), and starts it again.
    pub fn restart_stuck(&mut self, why: &str) -> anyhow::Result<()> {
        self.log.error(format!("the hook runtime was stopped: {why}"));
        self.restart(Restart::NeverYielded)
    }

    /// Says why the runtime ended and who ended it. The handler that was running (if any) is
    /// blamed only when its own code called `process.exit`; otherwise its delivery is named
    /// as unconfirmed and counted.
    fn log_exit(&mut self, running: Option<&(String, String)>) {
        let status = self
            .runtime
            .ended_status(Duration::from_millis(500))
            .map_or_else(String::new, |status| format!(" ({status})"));
        let exit_call = self.exit_call.take();
        let caller = exit_call.as_ref().map(|call| call.hook.clone());
        let during = |(hook, handler): &(String, String)| format!(" while hook \"{hook}\" handler for {handler} ran");
        let message = match (&caller, running) {
            (Some(Some(caller)), running) => {
                let code = exit_call.as_ref().map_or(Value::Null, |call| call.code.clone());
                let at = self.at_location(exit_call.as_ref().and_then(|call| call.stack.as_deref()));
                let when = match running {
                    Some((hook, handler)) if hook == caller => format!(" in its handler for {handler}"),
                    Some(running) => during(running),
                    None => String::new(),
                };
                format!("the hook runtime exited{status}: hook \"{caller}\" called process.exit({code}){when}{at}")
            }
            (Some(None), running) => format!(
                "the hook runtime exited{status}: process.exit was called outside any hook's code{}",
                running.map(during).unwrap_or_default()
            ),
            (None, running) => format!("the hook runtime exited{status}{}", running.map(during).unwrap_or_default()),
        };
        self.log.error(message.clone());
        let caused_by_running = matches!((&caller, running), (Some(Some(caller)), Some((hook, _))) if caller == hook);
        match (running, caused_by_running) {
            (Some((hook, handler)), false) => self.log_unconfirmed(hook, handler),
            (Some((hook, handler)), true) => self.record_cut_off(hook, handler, Outcome::Exited, message),
            (None, _) => {}
        }
    }

    /// Names a delivery whose handler was cut off by no doing of its own, and counts it.
    fn log_unconfirmed(&mut self, hook: &str, handler: &str) {
        self.stats.unconfirmed += 1;
        let event = self.pending.front().map_or_else(
            || handler.to_owned(),
            |pending| format!("#{} ({})", pending.event.index, pending.event.event_type),
        );
        self.log(
            Record::new(
                Level::Warn,
                format!(
                    "unconfirmed delivery: event {event} to hook \"{hook}\": its {handler} handler was cut off and may not have finished"
                ),
            )
            .hook(hook),
        );
        let why = "cut off: the hook runtime ended or was restarted while it ran, so it may not have finished";
        self.record_cut_off(hook, handler, Outcome::Unconfirmed, why.to_owned());
    }

    /// Stops the runtime after everything was dispatched (a shared one's lane leaves it).
    pub fn shutdown(mut self) {
        self.runtime.send_queued();
        if let Link::Own(runtime) = self.runtime {
            runtime.shutdown();
        }
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
        if let Link::Lane(_) = self.runtime {
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
                    Ok(FromRuntime::Message(message)) => self.handle(message),
                    Ok(FromRuntime::Output { stream, line, state }) => self.runtime_output(stream, &line, state),
                    Ok(FromRuntime::CallFailed { hook, call, error }) => self.call_failed(hook, &call, &error),
                    Ok(FromRuntime::Exited) | Err(_) => break,
                }
            }
        }
        let otel = std::mem::take(&mut self.otel);
        if let (Link::Own(runtime), true) = (&mut self.runtime, said_bye) {
            runtime.let_go();
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

#[derive(Debug, Clone, Copy)]
enum Restart {
    Exited,
    NeverYielded,
    /// A shared runtime stopped for another session's handler that never yielded.
    CutOff,
}
