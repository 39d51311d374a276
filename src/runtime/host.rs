//! The hook runtime process: one long-lived Node.js child speaking NDJSON on a channel of
//! its own, fds 3 (to Node), 4 (from Node) and 5 (the replies to its `ctx` calls, which so
//! never queue behind events), with its handler slot at fd 6 ([`super::slot`]) and its
//! module channel at fds 7 and 8 ([`super::modules`]); no process a hook starts inherits
//! them. Its messages are the types of [`crate::protocol`]; what types cannot say (the fd
//! map, the order of lines, restarts) is at the top of `node/host.mjs`. Its stdout and
//! stderr are what hooks and their child processes print. This module starts it, sends it
//! messages, hands its messages and output on, and kills it (and what it started) when asked.

use std::ffi::OsString;
use std::io::PipeReader;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use anyhow::Context;

use crate::platform;
use crate::protocol::{FromNode, LaneOf, Reply, ToNode};
use crate::runtime::calls::HostCalls;
use crate::runtime::lanes::{Lanes, Routed};
use crate::runtime::pipe_lines::PipeLines;
use crate::runtime::reader::{self, Arrived, Source};
use crate::runtime::slot::{HandlerSlot, RuntimeState};

pub use crate::runtime::node_version::{MIN_NODE, NodeUnusable, check_node_version, diagnose_node};
// What the runtime said is read (and named) in `reader`; its users find it here.
pub use crate::runtime::reader::{FromRuntime, Stream};

/// The file descriptors the runtime finds its protocol channel on.
const TO_NODE_FD: i32 = 3;
const FROM_NODE_FD: i32 = 4;
const REPLIES_FD: i32 = 5;
const SLOT_FD: i32 = 6;
const MODULE_REQUESTS_FD: i32 = 7;
const MODULE_ANSWERS_FD: i32 = 8;

/// Where the runtime's pieces are, and whose `ctx` calls it makes.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    pub node: PathBuf,
    /// The project folder, absolute with links resolved: Node's working directory.
    pub project_root: PathBuf,
    pub runtime_dir: PathBuf,
    /// Variables added to Node's environment: from `.env` files, or what `--pass-env` names.
    pub env: Vec<(String, String)>,
    /// What Node's environment starts from (see [`super::environment`]).
    pub environment: super::environment::Environment,
    /// The state root whose store answers the calls (the project's, or for a check the
    /// user's cache: see [`crate::state::user_cache`]).
    pub state_root: crate::state::StateRoot,
    pub session_id: String,
    /// Whether the runtime's OpenTelemetry providers register, and as which version (see
    /// [`super::otel_api`]).
    pub otel: super::otel_api::Providers,
    /// The exporters, when telemetry is exported: the runtime then adds `traceparent` to
    /// a hook's fetch.
    pub telemetry: Option<std::sync::Arc<crate::telemetry::Telemetry>>,
    /// For a runtime that serves many sessions (`dev`): their lanes, by which what Node
    /// says is handed on to each session's dispatcher (and the calls answered for its
    /// session); what names no lane comes to [`Runtime::messages`]. `None`: one session,
    /// `session_id`'s, gets everything.
    pub lanes: Option<Arc<Lanes>>,
}

/// Lines for the runtime (each a whole message), shared by the dispatchers of the sessions
/// it serves and written in order: at once while Node reads them, else by a thread of their
/// own, so no sender ever waits on Node reading them (see [`PipeLines`]). A handler that
/// never yields stops Node reading its channel; a sender blocked on a full pipe then would
/// keep the watchdog that kills it from running.
pub(crate) type Lines = PipeLines;

/// Messages queued to go out together: a burst of events (a replay's) costs the writer one
/// wake-up and Node one read, not one per event.
#[derive(Debug, Default)]
pub struct Batch(Vec<u8>);

impl Batch {
    pub fn push(&mut self, message: &ToNode) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.0, message)?;
        self.0.push(b'\n');
        Ok(())
    }

    /// Sends what was queued.
    fn send(&mut self, to_node: &Lines) {
        if !self.0.is_empty() {
            to_node.send(std::mem::take(&mut self.0));
        }
    }
}

/// What a session's dispatcher holds of a runtime it shares with other sessions: where to
/// write to it, and its handler slot.
#[derive(Debug, Clone)]
pub struct RuntimeLink {
    pub generation: u64,
    to_node: Lines,
    pub slot: HandlerSlot,
}

impl RuntimeLink {
    /// Queues a message for the runtime (see [`Runtime::send`]).
    pub fn send(&self, message: &ToNode) -> std::io::Result<()> {
        self.to_node.send_message(message)
    }

    /// Sends what `batch` queued.
    pub fn send_batch(&self, batch: &mut Batch) {
        batch.send(&self.to_node);
    }
}

/// One running Node process.
pub struct Runtime {
    child: platform::spawn::Child,
    to_node: Lines,
    /// Lines queued by [`Runtime::queue`], not yet handed to the writer.
    queued: Batch,
    /// [`Runtime::let_go`] was called: another thread reaps the process.
    let_go: bool,
    slot: HandlerSlot,
    /// Which runtime of its lanes this is (see [`Lanes::next_generation`]); 0 when unshared.
    generation: u64,
    pub messages: Receiver<FromRuntime>,
}

/// The `node` to run: `AGENT_SDK_NODE`, else `node` on PATH.
pub fn node_command() -> PathBuf {
    std::env::var_os("AGENT_SDK_NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from)
}

impl Runtime {
    pub fn start(config: &RuntimeConfig) -> anyhow::Result<Self> {
        let channel_error = |error| anyhow::Error::new(error).context("could not open the hook runtime's channel");
        let (node_reads, to_node) = std::io::pipe().map_err(channel_error)?;
        let (from_node, node_writes) = std::io::pipe().map_err(channel_error)?;
        let (node_reads_replies, replies) = std::io::pipe().map_err(channel_error)?;
        let slot = HandlerSlot::create().map_err(channel_error)?;
        let (module_requests, node_asks) = std::io::pipe().map_err(channel_error)?;
        let (node_reads_answers, module_answers) = std::io::pipe().map_err(channel_error)?;
        let environment: Vec<(OsString, OsString)> = match config.environment {
            super::environment::Environment::Minimal => super::environment::minimal(std::env::vars_os()),
            super::environment::Environment::Inherited => std::env::vars_os().collect(),
        };
        let env =
            super::environment::with_set(environment, config.env.iter().map(|(key, value)| (key.into(), value.into())));
        let compile_cache = config.runtime_dir.join(super::compile_cache::FOLDER);
        let env = super::compile_cache::with_compile_cache(env, &compile_cache);
        // The channel at fds 3 to 8, in that order (the only descriptors Node gets beyond its
        // standard streams; Node's own child processes do not inherit them: libuv closes every
        // other descriptor in the processes it starts), and a process group of its own:
        // Ctrl-C at the terminal reaches agent-sdk, which ends the turn and its runtime in
        // order, and killing the group takes the processes hooks started along.
        let launch = platform::spawn::Launch::new(&config.node, &config.project_root, env)
            .arg(config.runtime_dir.join("host.mjs"));
        // The live groups stay locked from the spawn until the new group is counted, so that
        // a check ending its orphans ([`super::orphans`]) never takes a runtime still starting
        // for one of its own.
        let mut live = platform::live_groups();
        // Node's ends live on in Node only: the channel closes when Node ends.
        let started = launch
            .start([
                (node_reads.into(), TO_NODE_FD),
                (node_writes.into(), FROM_NODE_FD),
                (node_reads_replies.into(), REPLIES_FD),
                (slot.file().try_clone().map_err(channel_error)?.into(), SLOT_FD),
                (node_asks.into(), MODULE_REQUESTS_FD),
                (node_reads_answers.into(), MODULE_ANSWERS_FD),
            ])
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                    anyhow::Error::new(diagnose_node(&config.node, &[]))
                }
                _ => anyhow::Error::new(error).context("could not start the hook runtime (node)"),
            })?;
        let platform::spawn::Started { child, stdout, stderr } = started;
        live.insert(child.id());
        drop(live);
        // For modules no string literal imports: the runtime asks this binary to compile them.
        super::modules::serve(
            module_requests,
            module_answers,
            config.project_root.clone(),
            config.state_root.clone(),
            config.runtime_dir.clone(),
        )
        .context("could not start answering the hook runtime's module requests")?;
        let (sender, messages) = channel();
        let to_node = PipeLines::new(to_node, "agent-sdk-to-node").map_err(channel_error)?;
        let replies = PipeLines::new(replies, "agent-sdk-replies").map_err(channel_error)?;
        let calls = HostCalls::open(&config.state_root, &config.session_id)?;
        let lanes = config.lanes.clone().map(|lanes| {
            let generation = lanes.next_generation();
            (lanes, generation)
        });
        let generation = lanes.as_ref().map_or(0, |(_, generation)| *generation);
        spawn_reader(Channel { from_node, stdout, stderr, sender, replies, calls, slot: slot.clone(), lanes })
            .context("could not start reading the hook runtime")?;
        Ok(Self { child, to_node, queued: Batch::default(), let_go: false, slot, generation, messages })
    }

    /// Where the sessions sharing this runtime write to it, and its slot.
    pub fn link(&self) -> RuntimeLink {
        RuntimeLink { generation: self.generation, to_node: self.to_node.clone(), slot: self.slot.clone() }
    }

    /// Queues a message for the runtime; it never waits. A runtime that has exited is not
    /// an error here: its end reaches [`Runtime::messages`] as [`FromRuntime::Exited`],
    /// where the dispatcher restarts it and sends again.
    /// (Lines queued with [`Runtime::queue`] and not yet sent go after it.)
    pub fn send(&self, message: &ToNode) -> std::io::Result<()> {
        self.to_node.send_message(message)
    }

    /// Adds a message to the lines [`Runtime::send_queued`] sends together (a [`Batch`]).
    pub fn queue(&mut self, message: &ToNode) -> std::io::Result<()> {
        self.queued.push(message)
    }

    /// Sends what [`Runtime::queue`] queued.
    pub fn send_queued(&mut self) {
        self.queued.send(&self.to_node);
    }

    /// What the runtime is doing now, as its handler slot says.
    pub fn state(&self) -> RuntimeState {
        self.slot.read().state
    }

    /// [`Runtime::state`] with its generation: a handler started again reads differently.
    pub fn slot(&self) -> crate::runtime::slot::SlotReading {
        self.slot.read()
    }

    /// Ends the process at once (a handler that never yields, or a restart), and every
    /// process a hook started that is still in its process group.
    pub fn kill(&mut self) {
        platform::process::kill_group(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Ends a runtime that said its last (`bye`, as it exits): it and what is left of its
    /// process group are killed, and a thread of their own reaps it, so the caller goes on
    /// while Node tears down its loader thread and its heap and the kernel the process
    /// (10 to 25 ms, measured from its last `exit` listener to its end).
    pub fn let_go(&mut self) {
        platform::process::kill_group(self.child.id());
        let _ = self.child.kill();
        self.let_go = true;
        platform::process::reap_in_background(self.child.id());
    }

    /// The exit status, once the process has ended.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The exit status of a process whose channel closed: it is ending, and is given up to
    /// `patience` to finish (a channel closed by other means leaves it running: `None`).
    pub fn ended_status(&mut self, patience: std::time::Duration) -> Option<std::process::ExitStatus> {
        let until = std::time::Instant::now() + patience;
        loop {
            if let Some(status) = self.exit_status() {
                return Some(status);
            }
            if std::time::Instant::now() >= until {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Asks the runtime to finish and waits for it.
    pub fn shutdown(&mut self) {
        let _ = self.send(&ToNode::Shutdown);
        let _ = self.child.wait();
        platform::process::kill_group(self.child.id());
    }
}

impl Drop for Runtime {
    /// A runtime never outlives its owner: one still running is killed.
    fn drop(&mut self) {
        if !self.let_go && matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

/// The runtime's side of the channel, as the reading thread holds it.
struct Channel {
    from_node: PipeReader,
    stdout: platform::channel::Descriptor,
    stderr: platform::channel::Descriptor,
    sender: Sender<FromRuntime>,
    replies: PipeLines,
    calls: HostCalls,
    slot: HandlerSlot,
    /// A shared runtime's lanes, and its generation.
    lanes: Option<(Arc<Lanes>, u64)>,
}

/// Where one thing the runtime said goes: the session lane it names (with the runtime's
/// generation), or [`Runtime::messages`].
enum Destination {
    Lane(Sender<Routed>),
    Runtime,
}

/// Reads what the runtime writes, its protocol channel and its stdout and stderr, on one
/// thread and in the order it was written (see [`reader`]). `ctx` calls are answered right
/// there, first, and on their own channel: a hook awaiting one waits neither on the
/// dispatcher nor behind events, nor for the dispatcher to take the lines Node wrote before
/// the call (they are handed on, in order, once the reader has caught up). An output line
/// goes on with whose handler ran as it was read (the slot is written before the handler
/// runs, so before anything its child prints). The channel's end goes on too.
fn spawn_reader(channel: Channel) -> std::io::Result<()> {
    let Channel { from_node, stdout, stderr, sender, replies, mut calls, slot, lanes } = channel;
    let mut arrived_lines: Vec<(Destination, FromRuntime)> = Vec::new();
    // Hands on what arrived, in order; false when the runtime's own listener is gone.
    let hand_on = move |arrived: &mut Vec<(Destination, FromRuntime)>, generation: u64| {
        arrived.drain(..).all(|(destination, received)| match destination {
            Destination::Lane(lane) => {
                // A session that left no longer listens: nothing to tell it.
                let _ = lane.send((generation, received));
                true
            }
            Destination::Runtime => sender.send(received).is_ok(),
        })
    };
    let generation = lanes.as_ref().map_or(0, |(_, generation)| *generation);
    let lanes = lanes.map(|(lanes, _)| lanes);
    reader::spawn(from_node.into(), stdout, stderr, move |arrived| {
        let (destination, received) = match arrived {
            Arrived::CaughtUp => return hand_on(&mut arrived_lines, generation),
            Arrived::ProtocolClosed => {
                // Every session sharing the runtime learns of its end, after what it said before.
                for lane in lanes.iter().flat_map(|lanes| lanes.all()) {
                    arrived_lines.push((Destination::Lane(lane.sender), FromRuntime::Exited));
                }
                arrived_lines.push((Destination::Runtime, FromRuntime::Exited));
                return hand_on(&mut arrived_lines, generation);
            }
            Arrived::Line(Source::Protocol, line) => {
                let line = String::from_utf8_lossy(&line);
                let lane = lanes.as_ref().and_then(|_| serde_json::from_str::<LaneOf>(&line).ok()?.session);
                match serde_json::from_str::<FromNode>(&line) {
                    Ok(FromNode::Call(call)) => {
                        let reply = match (&lanes, lane) {
                            (Some(lanes), Some(lane)) => match lanes.session_of(lane) {
                                Some(session_id) => calls.reply_for(&session_id, &call),
                                None => Reply::new(call.id.clone(), Err(LEFT.to_owned())),
                            },
                            _ => calls.reply(&call),
                        };
                        if !call.resolved {
                            let _ = replies.send_message(&ToNode::Reply(reply));
                            return true;
                        }
                        let Some(error) = reply.error else { return true };
                        let first = call.args.first().map(serde_json::Value::to_string).unwrap_or_default();
                        let said = format!("{}({first})", call.method);
                        let failed = FromRuntime::CallFailed { hook: call.hook, call: said, error };
                        (destination_of(lanes.as_deref(), lane), failed)
                    }
                    Ok(message) => (destination_of(lanes.as_deref(), lane), FromRuntime::Message(message)),
                    // Only the runtime writes here; a line that is no message is its bug, shown as is.
                    Err(_) => output_line(lanes.as_deref(), &slot, Stream::Stderr, line.into_owned()),
                }
            }
            // A child may print anything: bytes that are not UTF-8 are shown replaced.
            Arrived::Line(source, line) => output_line(
                lanes.as_deref(),
                &slot,
                if source == Source::Stdout { Stream::Stdout } else { Stream::Stderr },
                String::from_utf8_lossy(&line).trim_end_matches('\r').to_owned(),
            ),
        };
        arrived_lines.push((destination, received));
        true
    })
}

/// What a call of a session that left its runtime is answered.
const LEFT: &str = "the session has left this hook runtime";

/// Where a message about lane `lane` goes.
fn destination_of(lanes: Option<&Lanes>, lane: Option<u64>) -> Destination {
    match lanes.zip(lane).and_then(|(lanes, lane)| lanes.sender_of(lane)) {
        Some(sender) => Destination::Lane(sender),
        None => Destination::Runtime,
    }
}

/// A line the process printed, for whose handler ran as it was read: in a shared runtime,
/// the session lane whose handler started last (if one runs), else the runtime's own.
fn output_line(lanes: Option<&Lanes>, slot: &HandlerSlot, stream: Stream, line: String) -> (Destination, FromRuntime) {
    match lanes {
        None => (Destination::Runtime, FromRuntime::Output { stream, line, state: slot.read().state }),
        Some(lanes) => match lanes.latest_running(slot) {
            Some((lane, handler)) => (
                Destination::Lane(lane.sender),
                FromRuntime::Output { stream, line, state: RuntimeState::Running(handler) },
            ),
            None => (
                Destination::Runtime,
                FromRuntime::Output { stream, line, state: RuntimeState::Idle { through: None } },
            ),
        },
    }
}
