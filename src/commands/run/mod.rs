//! `agent-sdk run`: one real local turn. Events are recorded, then every hook runs for
//! real in Node.js; the reply streams to stdout and the serve log to stderr.

mod export;
mod input;
mod output;

use std::sync::Arc;

use crate::cli::RunArgs;
use crate::exit_status::ExitStatus;
use crate::model::choice::ModelChoice;
use crate::model::local::Script;
use crate::model::provider::ModelSpec;
use crate::printer::Printer;
use crate::printer::plural;
use crate::project::env_file;
use crate::runtime::host::Runtime;
use crate::session::{self, Asked, Hooks, HooksEnded, Outcome, Session, SessionFacts, SessionSetup, Started};
use crate::signals::{Interrupt, Stopping};
use crate::state::StateStore;
use crate::state::envelope::Envelope;
use crate::state::serve_log::ServeLog;
use crate::state::session_lease::SessionLease;
use crate::time::clock::new_id;
use input::{Input, read_script};
use output::TurnOutput;

/// Records a turn (or a replayed stream, or one synthetic event) and dispatches every
/// event to the hooks; returns when every recorded event was dispatched.
pub fn run(args: &RunArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let session_id = args.session.clone().unwrap_or_else(|| new_id("ses"));
    let mut log = serve_log(args, printer, &session_id);
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
    let Started { setup, plan, early: (runtime, model, _lease), .. } = started;
    if let Some(telemetry) = &setup.telemetry {
        log.export_to(Arc::clone(telemetry));
    }
    // An early return from here on drops the runtime, which kills it.
    let store = StateStore::open(&setup.project.dir)?;
    log.record_to(StateStore::open(&setup.project.dir)?);
    // Declared before the runtime's dispatcher, so it flushes after the runtime is gone.
    let mut flush = export::FlushAtEnd::new(setup.telemetry.clone(), &log);
    if args.session.is_some() {
        log.info(session_named(&store, &session_id)?);
    }
    let session = Session::new(&setup, &model, &session_id, &store, &log);
    // The model starts answering while Node loads the hooks: what it sends meanwhile waits
    // in its stream.
    let asked = match &input {
        Some(Input::Message(message)) => Some(session.ask(message, &plan.instructions, None)?),
        _ => None,
    };
    // While Node loads the hooks: what an earlier process left undispatched is set aside
    // (before anything is recorded), and the signals' thread starts.
    if !args.redeliver {
        session.take_stock(true)?;
    }
    let stopping = Stopping::prepare();
    let mut session = session.load(&setup, runtime, &facts(args, &session_id), &plan)?;
    let stopping = stopping.handle();
    if args.redeliver {
        session.redeliver()?;
    }
    // A replay's output shows when the replay is done, a piece at a time (each streamed
    // delta written at once cost a system call per event).
    let held = matches!(input, Some(Input::Replay(_)));
    let mut output = if held { TurnOutput::held(printer) } else { TurnOutput::new(printer) };
    let mut outcome = feed(&mut session, input, asked, &mut output, args.json, stopping.interrupt())?;
    let HooksEnded::Finished { misbehaved } = session.end(&stopping, outcome.cancelled)? else {
        return Ok(stopping.stopped_by().exit_status());
    };
    // Said last, where it is seen; a cancelled turn was said as it happened.
    if let (Some(failed), false) = (&outcome.failed, outcome.cancelled) {
        log.write(failed.record());
    }
    // What is pending reaches the collector now, within its bound (after the last line it
    // exports).
    flush.now();
    if let Some(error) = outcome.bad_input.take() {
        return Err(error);
    }
    output.finish()?;
    Ok(session::exit_status(&outcome, stopping.stopped(), misbehaved))
}

/// Records what the run was given (the answer to what was `asked`, a replay, an event), shows
/// it (with `--json`, every envelope as a line; else the reply as it streams) and hands it
/// to the hooks.
fn feed(
    session: &mut Session<'_, impl Hooks>,
    input: Option<Input>,
    asked: Option<Asked>,
    output: &mut TurnOutput,
    json: bool,
    interrupt: Interrupt,
) -> anyhow::Result<Outcome> {
    let mut show = |envelope: &Envelope| -> anyhow::Result<()> {
        if json {
            let mut line = serde_json::to_string(envelope)?;
            line.push('\n');
            output.print(&line);
        } else if envelope.event_type == "message.appended" {
            output.print_reply(envelope.data["delta"].as_str().unwrap_or_default());
        }
        Ok(())
    };
    let outcome = match (input, asked) {
        (Some(Input::Message(_)), Some(asked)) => {
            let outcome = session.answer(asked, &mut show, interrupt, None)?;
            if !json {
                output.print("\n");
            }
            if outcome.cancelled {
                session
                    .log()
                    .warn("cancelled: the turn was recorded as failed (cancelled); dispatching what was recorded");
            }
            outcome
        }
        (Some(Input::Replay(replay)), _) => {
            let outcome = session.replay(replay, &mut show, interrupt)?;
            output.end_line();
            outcome
        }
        (Some(Input::Synthetic(event)), _) => session.synthetic(event, &mut show, interrupt)?,
        _ => Outcome::default(),
    };
    Ok(outcome)
}

/// The run's serve log, its lines tagged with the session (`--quiet`: only warnings and
/// errors reach stderr).
fn serve_log(args: &RunArgs, printer: &Printer, session_id: &str) -> ServeLog {
    let mut log = ServeLog::new(args.log_format);
    log.for_session(session_id);
    if printer.is_quiet() {
        log.quiet();
    }
    log
}

/// Who the session is, as `ctx.session` says: a local one, never continued by a follow-up.
fn facts<'a>(args: &'a RunArgs, session_id: &'a str) -> SessionFacts<'a> {
    SessionFacts {
        id: session_id,
        channel_id: "local",
        mode: args.mode.as_str(),
        purpose: args.purpose.as_str(),
        title: None,
        continuation_token: None,
    }
}

/// What `--session` named: a session that is new (it starts now) or one that continues.
fn session_named(store: &StateStore, session_id: &str) -> anyhow::Result<String> {
    Ok(match store.next_index(session_id)? {
        0 => format!("session {session_id} is new: starting it"),
        recorded => format!("session {session_id} continues: {} recorded", plural(recorded as usize, "event")),
    })
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
