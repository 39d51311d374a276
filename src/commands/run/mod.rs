//! `agent-sdk run`: one real local turn. Events are recorded, then every hook runs for
//! real in Node.js; the reply streams to stdout and the serve log to stderr.

mod input;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use serde_json::json;

use crate::check::check_project;
use crate::cli::{ColorChoice, Mode, OutputFormat, Purpose, RunArgs};
use crate::clock::new_id;
use crate::diagnostics::Severity;
use crate::engine::dispatcher::{Dispatcher, HookToLoad};
use crate::engine::feed::{Feed, Recorder};
use crate::engine::model::{self, LOCAL_MODEL};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;
use crate::report::{self, plural};
use crate::runtime::compile::compile_project;
use crate::runtime::host::{Runtime, RuntimeConfig, install_runtime, node_command};
use crate::serve_log::ServeLog;
use crate::state::{StateStore, state_root};
use input::{Input, read_script};

/// The exit code of a run the user interrupted (128 + SIGINT).
const INTERRUPTED: u8 = 130;

/// Records a turn (or a replayed stream, or one synthetic event) and dispatches every
/// event to the hooks; returns when every recorded event was dispatched.
pub fn run(args: &RunArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let session_id = args.session.clone().unwrap_or_else(|| new_id("ses"));
    let mut log = ServeLog::new(args.log_format);
    log.for_session(&session_id);
    if args.model != LOCAL_MODEL {
        anyhow::bail!("unknown model `{}`: this build has the embedded `local` model only", args.model);
    }
    let checked = check_project(&args.dir.dir)?;
    if checked.count(Severity::Error) > 0 || checked.project.is_none() {
        printer.stderr(&report::render(OutputFormat::Pretty, &checked, &Printer::new(ColorChoice::Never)));
        let what = if checked.project.is_none() { "there is no agent here" } else { "the hooks have errors" };
        printer.stderr(&format!("error: {what}, so nothing ran; see above\n"));
        return Ok(ExitStatus::Failure);
    }
    let Some(project) = &checked.project else { unreachable!("checked above") };
    log.check_warnings(&checked);

    let input = Input::from_args(args)?;
    // Node starts as early as it can; the state store opens and the project compiles while
    // it boots.
    let state_root = state_root(&project.dir).context("could not create the state folder")?;
    let project_root = project.canonical_dir.clone();
    let compiled_root = state_root.join("compiled");
    let runtime_dir = state_root.join("runtime");
    install_runtime(&runtime_dir, &compiled_root).context("could not write the hook runtime")?;

    let hooks = HookToLoad::all(&checked, &compiled_root);
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
    log.record_to(StateStore::open(&project.dir)?);
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
        if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
    });

    let recorder = Recorder { store: &store, session_id: &session_id, next: store.next_index(&session_id)? };
    let json = args.json;
    // `--json`: every envelope as a line; otherwise the reply as it streams.
    let mut show = |envelope: &crate::engine::envelope::Envelope| -> anyhow::Result<()> {
        if json {
            let mut line = serde_json::to_string(envelope)?;
            line.push('\n');
            printer.stdout(&line)?;
        } else if envelope.event_type == "message.appended" {
            printer.stdout(envelope.data["delta"].as_str().unwrap_or_default())?;
        }
        Ok(())
    };
    let mut feed = Feed { sink: &mut show, recorder, dispatcher: &mut dispatcher, interrupted: &interrupted };
    let outcome = match input {
        Input::Message(message) => {
            let instructions = std::fs::read_to_string(project.source_dir().join("instructions.md")).ok();
            let outputs = match &args.script {
                Some(path) => model::play(instructions.as_deref(), &message, &read_script(path)?),
                None => model::local_reply(instructions.as_deref(), &message),
            };
            let outcome = feed.turn(&message, outputs)?;
            if !json {
                printer.stdout("\n")?;
            }
            if outcome.cancelled {
                log.warn("cancelled: the turn was recorded as failed (cancelled); dispatching what was recorded");
            }
            outcome
        }
        Input::Replay(replay) => feed.replay(replay)?,
        Input::Synthetic(event) => feed.synthetic(event)?,
    };
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
    if let Some(error) = outcome.bad_input {
        return Err(error);
    }
    Ok(if outcome.cancelled {
        ExitStatus::Code(INTERRUPTED)
    } else if outcome.failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}
