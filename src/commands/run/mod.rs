//! `agent-sdk run`: one real local turn. Events are recorded, then every hook runs for
//! real in Node.js; the reply streams to stdout and the serve log to stderr.

mod export;
mod input;
mod output;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use crate::cli::RunArgs;
use crate::clock::new_id;
use crate::engine::dispatcher::{Dispatcher, Finished};
use crate::engine::feed::{Feed, Outcome};
use crate::engine::undelivered::{self, Undelivered};
use crate::env_file;
use crate::exit_status::{ExitStatus, HOOKS_MISBEHAVED};
use crate::model::choice::ModelChoice;
use crate::model::local::Script;
use crate::model::provider::ModelSpec;
use crate::printer::Printer;
use crate::printer::plural;
use crate::runtime::host::Runtime;
use crate::session::{self, SessionFacts, SessionSetup, Started};
use crate::signals::{self, Stop};
use crate::state::StateStore;
use crate::state::serve_log::ServeLog;
use crate::state::session_lease::SessionLease;
use crate::telemetry::turn_trace::Traced;
use input::{Input, read_script};
use output::TurnOutput;

/// Records a turn (or a replayed stream, or one synthetic event) and dispatches every
/// event to the hooks; returns when every recorded event was dispatched.
pub fn run(args: &RunArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let session_id = args.session.clone().unwrap_or_else(|| new_id("ses"));
    let mut log = ServeLog::new(args.log_format);
    log.for_session(&session_id);
    if printer.is_quiet() {
        log.quiet();
    }
    // A model the flag names wrongly, or a script that does not read, stops the run first.
    if let Some(named) = &args.model.model {
        ModelSpec::parse(named)?;
    }
    let script = args.script.as_deref().map(read_script).transpose()?;
    let mut input = Input::from_args(args)?;
    // Node starts as early as it can: it boots while the project is checked and compiled.
    let options = session::Options {
        dir: &args.dir.dir,
        env: args.env.files(),
        hook_timeout: args.hook_timeout,
        mount_as: &session_id,
        refused: "nothing ran",
    };
    let started = session::start(&options, printer, |setup, env| start_early(setup, env, args, script, &session_id))?;
    // Checked while Node boots; a bad line stops the run, said alone, before any hook is
    // imported (the runtime, dropped, is killed) and before anything is recorded.
    if let Some(Input::Replay(replay)) = &mut input {
        replay.check()?;
    }
    started.startup_lines(&started.early.1).into_iter().for_each(|record| log.write(record));
    let Started { setup, checked, plan, early: (runtime, model, _lease), .. } = started;
    let Some(project) = &checked.project else { unreachable!("past the gate") };
    if let Some(telemetry) = &setup.telemetry {
        log.export_to(Arc::clone(telemetry));
    }
    // An early return from here on drops the runtime, which kills it.
    let store = StateStore::open(&project.dir)?;
    log.record_to(StateStore::open(&project.dir)?);
    // Declared before the runtime's dispatcher, so it flushes after the runtime is gone.
    let mut flush = export::FlushAtEnd::new(setup.telemetry.clone(), &log);
    let facts = SessionFacts {
        id: &session_id,
        channel_id: "local",
        mode: args.mode.as_str(),
        purpose: args.purpose.as_str(),
        title: None,
        continuation_token: None,
    };
    if args.session.is_some() {
        log.info(session_named(&store, &session_id)?);
    }
    // The model starts answering while Node loads the hooks: what it sends meanwhile waits
    // in its stream (a real model's first token often takes longer than the hooks' load).
    let answer = match &input {
        Some(Input::Message(message)) => {
            Some(model.start_turn(&project.source_dir(), &plan.instructions, &store, &session_id, message, None)?)
        }
        _ => None,
    };
    let mut dispatcher = session::load(&setup, runtime, &facts, &plan, &log, &store)?;
    let hook_count = dispatcher.loaded;
    log.info(format!("session {session_id}: {} loaded", plural(hook_count, "hook")));

    let interrupted = Arc::new(AtomicBool::new(false));
    let stop_now = Arc::new(AtomicBool::new(false));
    let first_stop = Arc::new(OnceLock::new());
    let (flag, stop, first) = (Arc::clone(&interrupted), Arc::clone(&stop_now), Arc::clone(&first_stop));
    // The first Ctrl-C (or SIGTERM, SIGHUP) cancels the turn (recorded as `turn.failed`),
    // or, once it has ended, says what the hooks are still doing and exits 128 + the signal
    // when they are done; a second one stops at once (saying what was not dispatched), and
    // if the run is somewhere it cannot look, the process ends 3 s later all the same, with
    // what the hooks started. Without the handler a signal still ends the process, only
    // without `turn.failed`, and leaves what the hooks started running.
    let _ = signals::on_stop(move |signal| {
        let first = *first.get_or_init(|| signal);
        if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_secs(3));
            crate::platform::process::kill_live_groups();
            std::process::exit(i32::from(first.exit_code()));
        }
    });
    let stopped_by = || first_stop.get().map_or(Stop::CTRL_C, |stop| *stop);
    let stopped_by_name = || stopped_by().name();

    redeliver_or_mention(args.redeliver, &store, &session_id, &mut dispatcher, &log)?;

    let recorder = session::recorder(&store, &session_id)?;
    let json = args.json;
    // A replay's output shows when the replay is done, a piece at a time (each streamed
    // delta written at once cost a system call per event).
    let mut output = match input {
        Some(Input::Replay(_)) => TurnOutput::held(printer),
        _ => TurnOutput::new(printer),
    };
    // `--json`: every envelope as a line; otherwise the reply as it streams.
    let mut show = |envelope: &crate::state::envelope::Envelope| -> anyhow::Result<()> {
        if json {
            let mut line = serde_json::to_string(envelope)?;
            line.push('\n');
            output.print(&line);
        } else if envelope.event_type == "message.appended" {
            output.print_reply(envelope.data["delta"].as_str().unwrap_or_default());
        }
        Ok(())
    };
    let mut feed = Feed {
        sink: &mut show,
        recorder,
        dispatcher: &mut dispatcher,
        interrupted: &interrupted,
        interrupted_by: &stopped_by_name,
        traced: setup.telemetry.as_ref().map(|telemetry| Traced {
            telemetry: Arc::clone(telemetry),
            parent: None,
            session_id: session_id.clone(),
            agent: project.name.clone(),
            gen_ai: model.gen_ai(),
        }),
    };
    let outcome = match (input, answer) {
        (Some(Input::Message(message)), Some(mut answer)) => {
            let outcome = feed.turn(&message, answer.as_mut())?;
            // Stops a model still streaming (Ctrl-C) now, not once the hooks are done.
            drop(answer);
            if !json {
                output.print("\n");
            }
            if outcome.cancelled {
                log.warn("cancelled: the turn was recorded as failed (cancelled); dispatching what was recorded");
            }
            outcome
        }
        (Some(Input::Replay(replay)), _) => {
            let outcome = feed.replay(replay)?;
            output.end_line();
            outcome
        }
        (Some(Input::Synthetic(event)), _) => feed.synthetic(event)?,
        _ => Outcome::default(),
    };
    if let Finished::Stopped { undispatched } =
        dispatcher.finish_unless_stopped(&interrupted, &stop_now, &stopped_by_name, outcome.cancelled)?
    {
        let (pronoun, verb) = if undispatched == 1 { ("it", "was") } else { ("them", "were") };
        log.warn(format!(
            "stopped at once: {} {verb} not dispatched to every hook; \
             `{} run --session {session_id} --redeliver` dispatches {pronoun}",
            plural(undispatched, "recorded event"),
            crate::invocation::command()
        ));
        return Ok(ExitStatus::Code(stopped_by().exit_code()));
    }
    let closed = dispatcher.close();
    for line in closed.otel.lines() {
        log.info(line);
    }
    let stats = closed.stats;
    log.info(stats.summary(hook_count));
    // Said last, where it is seen; a cancelled turn was said as it happened.
    if let (Some(failed), false) = (&outcome.failed, outcome.cancelled) {
        log.write(failed.record());
    }
    // What is pending reaches the collector now, within its bound (after the last line it
    // exports).
    flush.now();
    if let Some(error) = outcome.bad_input {
        return Err(error);
    }
    output.finish()?;
    let misbehaved = stats.misbehaved();
    Ok(if outcome.cancelled || interrupted.load(std::sync::atomic::Ordering::SeqCst) {
        ExitStatus::Code(stopped_by().exit_code())
    } else if outcome.failed.is_some() {
        ExitStatus::Failure
    } else if misbehaved {
        ExitStatus::Code(HOOKS_MISBEHAVED)
    } else {
        ExitStatus::Success
    })
}

/// What `--session` named: a session that is new (it starts now) or one that continues.
fn session_named(store: &StateStore, session_id: &str) -> anyhow::Result<String> {
    Ok(match store.next_index(session_id)? {
        0 => format!("session {session_id} is new: starting it"),
        recorded => format!("session {session_id} continues: {} recorded", plural(recorded as usize, "event")),
    })
}

/// What an earlier process recorded in the session and never dispatched: dispatched now
/// with `--redeliver`, else only counted in the log (delivery is at most once).
fn redeliver_or_mention(
    redeliver: bool,
    store: &StateStore,
    session_id: &str,
    dispatcher: &mut Dispatcher,
    log: &ServeLog,
) -> anyhow::Result<()> {
    let undelivered = Undelivered::take_stock(store, session_id)?;
    if !redeliver {
        if let Some(warning) = undelivered.warning(session_id) {
            log.warn(warning);
        }
        return Ok(());
    }
    if undelivered.count == 0 {
        log.info(format!("nothing to redeliver: the hooks saw every recorded event of session {session_id}"));
        return Ok(());
    }
    log.info(format!("redelivering {} its hooks never saw", plural(undelivered.count as usize, "recorded event")));
    let redelivered = undelivered::redeliver(store, session_id, dispatcher)?;
    log.info(format!("redelivered {}", plural(redelivered as usize, "event")));
    Ok(())
}

/// Chooses the session's model (one that cannot be used stops the run here), takes its
/// lease (a session in use by another process stops the run before anything is written),
/// and starts Node for it, while the project is checked.
fn start_early(
    setup: &SessionSetup,
    env: &env_file::LoadedEnv,
    args: &RunArgs,
    script: Option<Script>,
    session_id: &str,
) -> anyhow::Result<(Runtime, ModelChoice, SessionLease)> {
    // Only a message asks a model: `--replay` and `--event` need no key.
    let model = match &args.message {
        Some(_) => ModelChoice::choose(&args.model, script, &|name| env.lookup(name))?,
        None => ModelChoice::Local(None),
    };
    let lease = SessionLease::take(&setup.state_root, session_id)?;
    let runtime = setup.start_runtime(session_id)?;
    Ok((runtime, model, lease))
}
