//! `agent-sdk run`: one real local turn. Events are recorded, then every hook runs for
//! real in Node.js; the reply streams to stdout and the serve log to stderr.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::{Value, json};

use crate::check::check_project;
use crate::cli::{ColorChoice, Mode, OutputFormat, Purpose, RunArgs};
use crate::clock::{new_id, now_rfc3339};
use crate::diagnostics::{Code, Severity};
use crate::engine::dispatcher::{Dispatcher, HookToLoad};
use crate::engine::envelope::Envelope;
use crate::engine::model::{self, LOCAL_MODEL};
use crate::engine::turn::{self, TurnEvent, TurnStep};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;
use crate::report::{self, plural};
use crate::runtime::compile::{compile_project, compiled_path};
use crate::runtime::host::{Runtime, RuntimeConfig, install_runtime, node_command};
use crate::serve_log::ServeLog;
use crate::state::{StateStore, state_root};
use crate::uri::file_url;
use crate::vocabulary;

/// The exit code of a run the user interrupted (128 + SIGINT).
const INTERRUPTED: u8 = 130;

/// Records a turn (or a replayed stream, or one synthetic event) and dispatches every
/// event to the hooks; returns when every recorded event was dispatched.
pub fn run(args: &RunArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let log = ServeLog::new(args.log_format);
    if args.model != LOCAL_MODEL {
        anyhow::bail!("unknown model `{}`: this build has the embedded `local` model only", args.model);
    }
    let checked = check_project(&args.dir.dir)?;
    if checked.count(Severity::Error) > 0 || checked.project.is_none() {
        printer.stderr(&report::render(OutputFormat::Pretty, &checked, &Printer::new(ColorChoice::Never)));
        printer.stderr("error: the hooks have errors, so nothing ran; fix them (see above) and run again\n");
        return Ok(ExitStatus::Failure);
    }
    let Some(project) = &checked.project else { unreachable!("checked above") };
    // Empty-events warnings are said by the "skipped hook" lines below.
    for diagnostic in
        checked.diagnostics.iter().filter(|d| d.severity() == Severity::Warning && d.code != Code::EmptyEvents)
    {
        let path = diagnostic.path.as_deref().map(|path| format!("{path}: ")).unwrap_or_default();
        log.warn(format!("{path}{} [{}]", diagnostic.message, diagnostic.code.as_str()));
    }
    for hook in checked.hooks.iter().filter(|hook| hook.skipped.is_some()) {
        log.warn(format!("skipped hook \"{}\" ({})", hook.name, hook.skipped.map_or("", |code| code.as_str())));
    }

    let input = Input::from_args(args)?;
    // Node starts as early as it can; the state store opens and the project compiles while
    // it boots.
    let state_root = state_root(&project.dir).context("could not create the state folder")?;
    let project_root = project.canonical_dir.clone();
    let compiled_root = state_root.join("compiled");
    let runtime_dir = state_root.join("runtime");
    install_runtime(&runtime_dir, &compiled_root).context("could not write the hook runtime")?;

    let session_id = args.session.clone().unwrap_or_else(|| new_id("ses"));
    let mut log = log;
    log.for_session(&session_id);
    let hooks: Vec<HookToLoad> = checked
        .loaded()
        .map(|hook| HookToLoad {
            name: hook.name.clone(),
            url: file_url(&compiled_path(&compiled_root, &hook.path)),
            source: hook.path.clone(),
        })
        .collect();
    let ctx = json!({
        "session": {
            "id": session_id,
            "channelId": "local",
            "mode": match args.mode { Mode::Chat => "chat", Mode::Task => "task" },
            "purpose": match args.purpose { Purpose::Live => "live", Purpose::Eval => "eval" },
            "auth": null,
        },
        "agent": { "name": project.name },
        "channel": { "id": "local", "continuationToken": null },
        "stateRoot": state_root,
    });
    let config = RuntimeConfig {
        node: node_command(),
        project_root: project_root.clone(),
        compiled_root: compiled_root.clone(),
        runtime_dir: runtime_dir.clone(),
        project_dir: project.dir.clone(),
        session_id: session_id.clone(),
    };
    let runtime = Runtime::start(&config)?;
    let store = StateStore::open(&project.dir)?;
    let mut dispatcher = Dispatcher::new(config, runtime, hooks, ctx, args.hook_timeout, &log, &store);
    for failure in compile_project(&project_root, &compiled_root, &runtime_dir.join("sdk"))
        .context("could not write the compiled hooks")?
    {
        log.warn(format!("{}: could not be compiled: {}", failure.path, failure.message));
    }
    dispatcher.load()?;
    let hook_count = dispatcher.loaded;
    log.info(format!("session {session_id}: {} loaded", plural(hook_count, "hook")));

    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    // The first Ctrl-C cancels the turn (recorded as `turn.failed`); a second one quits at once.
    // Without the handler Ctrl-C still ends the process, only without `turn.failed`.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
    });

    let mut recorder = Recorder { store: &store, session_id: &session_id, next: store.next_index(&session_id)? };
    let mut failed = false;
    let mut cancelled = false;
    // A bad line in a --replay file: what came before it is still dispatched, then it is reported.
    let mut bad_input: Option<anyhow::Error> = None;
    match input {
        Input::Message(message) => {
            let instructions = std::fs::read_to_string(project.source_dir().join("instructions.md")).ok();
            let outputs = match &args.script {
                Some(path) => model::play(instructions.as_deref(), &message, &read_script(path)?),
                None => model::local_reply(instructions.as_deref(), &message),
            };
            let turn_id = new_id("turn");
            for step in turn::turn_steps(&message, outputs) {
                let event = match step {
                    TurnStep::Wait(duration) => {
                        wait_for_model(&mut dispatcher, duration, &interrupted)?;
                        continue;
                    }
                    TurnStep::Record(_) if interrupted.load(Ordering::SeqCst) => {
                        cancelled = true;
                        turn::cancelled()
                    }
                    TurnStep::Record(event) => event,
                };
                failed |= event.event_type == "turn.failed";
                if !args.json && event.event_type == "message.appended" {
                    print_reply(printer, event.data["delta"].as_str().unwrap_or_default())?;
                }
                let envelope = recorder.record(event.event_type, Some(&turn_id), event.data, now_rfc3339())?;
                printer_json(printer, args.json, &envelope)?;
                dispatcher.dispatch(envelope)?;
                if cancelled {
                    log.warn("cancelled: the turn was recorded as failed (cancelled); dispatching what was recorded");
                    break;
                }
            }
            if !args.json {
                printer.stdout("\n")?;
            }
        }
        Input::Replay(mut replay) => {
            // Read and recorded in batches (one transaction each), each batch before any of
            // its events is dispatched; the file is never held in memory whole.
            loop {
                let mut envelopes = Vec::with_capacity(REPLAY_BATCH);
                for event in replay.by_ref().take(REPLAY_BATCH) {
                    match event {
                        Ok(event) => envelopes.push(recorder.envelope(
                            &event.event_type,
                            event.turn_id.as_deref(),
                            event.data,
                            event.at,
                        )),
                        Err(error) => {
                            bad_input = Some(error);
                            break;
                        }
                    }
                }
                if envelopes.is_empty() {
                    break;
                }
                store.append(&envelopes)?;
                for envelope in envelopes {
                    printer_json(printer, args.json, &envelope)?;
                    failed |= envelope.event_type == "turn.failed";
                    dispatcher.dispatch(envelope)?;
                }
                if bad_input.is_some() {
                    break;
                }
                if interrupted.load(Ordering::SeqCst) {
                    cancelled = true;
                    break;
                }
            }
        }
        Input::Synthetic(event) => {
            let envelope = recorder.record(event.event_type, Some(&new_id("turn")), event.data, now_rfc3339())?;
            printer_json(printer, args.json, &envelope)?;
            dispatcher.dispatch(envelope)?;
        }
    }
    dispatcher.finish()?;
    let stats = dispatcher.stats;
    for line in dispatcher.otel.lines() {
        log.info(line);
    }
    dispatcher.shutdown();
    log.info(format!(
        "summary: {} dispatched to {}; {} threw, {} timed out; {}",
        plural(stats.events as usize, "event"),
        plural(hook_count, "hook"),
        plural(stats.threw as usize, "handler"),
        stats.timed_out,
        plural(stats.restarts as usize, "runtime restart"),
    ));
    if let Some(error) = bad_input {
        return Err(error);
    }
    Ok(if cancelled {
        ExitStatus::Code(INTERRUPTED)
    } else if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// What the run dispatches.
enum Input {
    Message(String),
    Replay(ReplayFile),
    Synthetic(TurnEvent),
}

impl Input {
    fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        if let Some(message) = &args.message {
            return Ok(Input::Message(message.clone()));
        }
        if let Some(path) = &args.replay {
            return Ok(Input::Replay(ReplayFile::open(path)?));
        }
        let event_type = args.event.as_deref().unwrap_or_default();
        let Some(known) = vocabulary::event_type(event_type) else {
            let hint =
                vocabulary::suggest(event_type).map(|name| format!(" (did you mean `{name}`?)")).unwrap_or_default();
            anyhow::bail!("`{event_type}` is not an event type{hint}");
        };
        let data: Value = match &args.data {
            Some(data) => serde_json::from_str(data).with_context(|| format!("--data is not valid JSON: {data}"))?,
            None => serde_json::from_str(known.example).context("the built-in example payload")?,
        };
        Ok(Input::Synthetic(TurnEvent { event_type: known.name, data }))
    }
}

/// Events replayed per transaction.
const REPLAY_BATCH: usize = 512;

/// The envelopes of an NDJSON file, read as they are needed (blank lines skipped).
struct ReplayFile {
    path: PathBuf,
    lines: std::io::Lines<BufReader<std::fs::File>>,
    line: usize,
}

impl ReplayFile {
    /// Opens the file now, so a missing one stops `run` before anything starts.
    fn open(path: &Path) -> anyhow::Result<Self> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read --replay file `{}`", path.display()))?;
        Ok(Self { path: path.to_path_buf(), lines: BufReader::new(file).lines(), line: 0 })
    }
}

impl Iterator for ReplayFile {
    type Item = anyhow::Result<Envelope>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = match self.lines.next()? {
                Ok(line) => line,
                Err(error) => {
                    return Some(Err(
                        anyhow::Error::new(error).context(format!("cannot read `{}`", self.path.display()))
                    ));
                }
            };
            self.line += 1;
            if line.trim().is_empty() {
                continue;
            }
            return Some(serde_json::from_str::<Envelope>(&line).with_context(|| {
                format!(
                    "{}:{}: not an event envelope; the events before it were dispatched",
                    self.path.display(),
                    self.line
                )
            }));
        }
    }
}

/// A `--script` file for the local model.
fn read_script(path: &Path) -> anyhow::Result<model::Script> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read --script file `{}`", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("`{}` is not a model script", path.display()))
}

/// Lets time pass while the model works, handling the hooks meanwhile; Ctrl-C ends the wait.
fn wait_for_model(dispatcher: &mut Dispatcher, duration: Duration, interrupted: &AtomicBool) -> anyhow::Result<()> {
    let until = Instant::now() + duration;
    while !interrupted.load(Ordering::SeqCst) {
        let Some(left) = until.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) else { break };
        dispatcher.idle(left.min(Duration::from_millis(50)))?;
    }
    Ok(())
}

/// Numbers and records a session's events.
struct Recorder<'s> {
    store: &'s StateStore,
    session_id: &'s str,
    next: u64,
}

impl Recorder<'_> {
    fn envelope(&mut self, event_type: &str, turn_id: Option<&str>, data: Value, at: String) -> Envelope {
        let envelope = Envelope {
            event_type: event_type.to_owned(),
            index: self.next,
            session_id: self.session_id.to_owned(),
            turn_id: turn_id.map(str::to_owned),
            at,
            data,
        };
        self.next += 1;
        envelope
    }

    /// Builds the next envelope and makes it durable.
    fn record(&mut self, event_type: &str, turn_id: Option<&str>, data: Value, at: String) -> anyhow::Result<Envelope> {
        let envelope = self.envelope(event_type, turn_id, data, at);
        self.store.append(std::slice::from_ref(&envelope))?;
        Ok(envelope)
    }
}

fn print_reply(printer: &Printer, delta: &str) -> std::io::Result<()> {
    printer.stdout(delta)?;
    std::io::stdout().flush()
}

fn printer_json(printer: &Printer, json: bool, envelope: &Envelope) -> anyhow::Result<()> {
    if json {
        let mut line = serde_json::to_string(envelope)?;
        line.push('\n');
        printer.stdout(&line)?;
    }
    Ok(())
}
