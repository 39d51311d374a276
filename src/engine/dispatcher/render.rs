//! The dispatcher's words: each [`Happened`] as the serve-log record a person reads. The
//! only place the dispatcher's sentences are written.

use std::time::Duration;

use crate::protocol::{ConsoleLevel, UnhandledKind};
use crate::runtime::host::Stream;
use crate::state::envelope::Envelope;
use crate::state::log_record::{Level, Record};
use crate::state::serve_log::ServeLog;
use crate::time::clock::format_duration;

use super::happened::{ExitCaller, HandlerOf, Happened, Reporter};

impl Reporter for ServeLog {
    fn report(&self, happened: Happened, during: Option<&Envelope>) {
        self.write(record(happened, during));
    }
}

/// The record that says `happened`; one about a hook's handling of an event names the event
/// the runtime was handling (`during`) and its turn.
pub fn record(happened: Happened, during: Option<&Envelope>) -> Record {
    let about_the_event = is_about_the_event(&happened);
    let mut record = words(happened);
    if let (true, Some(event)) = (about_the_event, during) {
        record.event = Some(event.event_type.clone());
        record.turn_id.clone_from(&event.turn_id);
    }
    record
}

/// Whether a record of `happened` belongs to the event being handled (what a hook did
/// while it ran), rather than to the runtime as a whole.
fn is_about_the_event(happened: &Happened) -> bool {
    match happened {
        Happened::Output { .. }
        | Happened::Console { .. }
        | Happened::OtelLog { .. }
        | Happened::SpanFailed { .. }
        | Happened::Threw { .. }
        | Happened::TimedOut { .. }
        | Happened::Unhandled { .. }
        | Happened::CallFailed { .. }
        | Happened::Unconfirmed { .. } => true,
        Happened::NodePastEndOfLife { .. }
        | Happened::Debugger { .. }
        | Happened::Loaded { .. }
        | Happened::LoadFailed { .. }
        | Happened::RuntimeExited { .. }
        | Happened::RuntimeStopped { .. }
        | Happened::CutOffForAnother { .. }
        | Happened::Restarting
        | Happened::Waiting { .. }
        | Happened::TimelineFailed { .. } => false,
    }
}

fn words(happened: Happened) -> Record {
    match happened {
        Happened::NodePastEndOfLife { warning } => Record::new(Level::Warn, warning),
        Happened::Debugger { line } => Record::new(Level::Info, format!("runtime: {line}")),
        Happened::Loaded { hook } => Record::new(Level::Info, format!("loaded hook \"{hook}\"")),
        Happened::LoadFailed { hook, reason, at } => {
            Record::new(Level::Error, format!("hook \"{hook}\" failed to load: {reason}{}", at_text(at))).hook(&hook)
        }
        Happened::Output { stream, hook, line } => {
            let level = if stream == Stream::Stdout { Level::Info } else { Level::Warn };
            by_hook(level, hook, line)
        }
        Happened::Console { level, hook, text } => {
            let level = match level {
                ConsoleLevel::Error => Level::Error,
                ConsoleLevel::Warn => Level::Warn,
                ConsoleLevel::Info => Level::Info,
            };
            match hook {
                None => Record::new(level, text),
                Some(hook) => Record::new(level, format!("hook \"{hook}\": {text}")).hook(&hook),
            }
        }
        Happened::OtelLog { level, hook, body, attributes } => {
            let attributes = attributes.map(|text| format!(" ({text})")).unwrap_or_default();
            Record::new(level, format!("hook \"{hook}\": {body}{attributes}")).hook(&hook)
        }
        Happened::SpanFailed { hook, span, error } => {
            Record::new(Level::Error, format!("hook \"{hook}\": span \"{span}\" failed: {error}")).hook(&hook)
        }
        Happened::Threw { handler: HandlerOf { hook, handler }, message, at } => {
            Record::new(Level::Error, format!("hook \"{hook}\" handler for {handler} threw: {message}{}", at_text(at)))
                .hook(&hook)
        }
        Happened::TimedOut { handler: HandlerOf { hook, handler }, after } => Record::new(
            Level::Error,
            format!("hook \"{hook}\" handler for {handler} timed out after {}", format_duration(after)),
        )
        .hook(&hook),
        Happened::Unhandled { kind, after_return, hook, text } => {
            let what = match kind {
                UnhandledKind::Rejection => "unhandled rejection",
                UnhandledKind::Exception => "uncaught exception",
            };
            let fix = match (kind, after_return) {
                (UnhandledKind::Rejection, true) => {
                    " (after its handler returned: a promise the handler did not await; await it, or catch it)"
                }
                (UnhandledKind::Rejection, false) => " (a promise nothing awaited or caught: await it, or catch it)",
                (UnhandledKind::Exception, true) => {
                    " (after its handler returned, in code it left running: a timer, a callback)"
                }
                (UnhandledKind::Exception, false) => "",
            };
            by_hook_or_none(Level::Error, hook, format!("{what}{fix}: {}", text.trim_end()))
        }
        Happened::CallFailed { hook, call, error } => by_hook_or_none(
            Level::Error,
            hook,
            format!("ctx.host.{call} failed after its promise had resolved (a write resolves as it is sent): {error}"),
        ),
        Happened::RuntimeExited { status, caller, running } => {
            Record::new(Level::Error, runtime_exited(status.as_deref(), &caller, running.as_ref()))
        }
        Happened::RuntimeStopped { why } => Record::new(Level::Error, format!("the hook runtime was stopped: {why}")),
        Happened::CutOffForAnother { running: HandlerOf { hook, handler } } => Record::new(
            Level::Error,
            format!(
                "the hook runtime was restarted for another session's handler that never yielded, while hook \"{hook}\" handler for {handler} ran"
            ),
        ),
        Happened::Unconfirmed { handler: HandlerOf { hook, handler }, event } => {
            let event = event.map_or_else(|| handler.clone(), |(index, event_type)| format!("#{index} ({event_type})"));
            Record::new(
                Level::Warn,
                format!(
                    "unconfirmed delivery: event {event} to hook \"{hook}\": its {handler} handler was cut off and may not have finished"
                ),
            )
            .hook(&hook)
        }
        Happened::Restarting => {
            Record::new(Level::Warn, "restarting the hook runtime; the remaining events will still be dispatched")
        }
        Happened::Waiting { running, events, signal } => Record::new(
            Level::Warn,
            match running {
                Some((hook, event)) => {
                    format!("waiting for hook \"{hook}\" ({event}) to finish; {signal} again to stop now")
                }
                None => format!(
                    "waiting for the hooks to finish {}; {signal} again to stop now",
                    crate::printer::plural(events, "event")
                ),
            },
        ),
        Happened::TimelineFailed { problem } => Record::new(
            Level::Warn,
            format!("could not record the hooks timeline (the playground's), so it stops here: {problem}"),
        ),
    }
}

/// A hook's line as `hook "name": …`, or the runtime's own as `runtime: …`.
fn by_hook(level: Level, hook: Option<String>, line: String) -> Record {
    match hook {
        Some(hook) => Record::new(level, format!("hook \"{hook}\": {line}")).hook(&hook),
        None => Record::new(level, format!("runtime: {line}")),
    }
}

/// A hook's line as `hook "name": …`, or as it is when no hook's.
fn by_hook_or_none(level: Level, hook: Option<String>, line: String) -> Record {
    match hook {
        Some(hook) => Record::new(level, format!("hook \"{hook}\": {line}")).hook(&hook),
        None => Record::new(level, line),
    }
}

/// ` (at bot/hooks/x.ts:7:13)`, or nothing.
fn at_text(at: Option<String>) -> String {
    at.map(|location| format!(" (at {location})")).unwrap_or_default()
}

/// Why the runtime ended and who ended it: the handler that ran is blamed only when its
/// own code called `process.exit`. (Also the reason a timeline gives for that handler.)
pub fn runtime_exited(status: Option<&str>, caller: &ExitCaller, running: Option<&HandlerOf>) -> String {
    let status = status.map(|status| format!(" ({status})")).unwrap_or_default();
    let during = |HandlerOf { hook, handler }: &HandlerOf| format!(" while hook \"{hook}\" handler for {handler} ran");
    match caller {
        ExitCaller::Hook { hook: caller, code, at } => {
            let when = match running {
                Some(HandlerOf { hook, handler }) if hook == caller => format!(" in its handler for {handler}"),
                Some(running) => during(running),
                None => String::new(),
            };
            format!(
                "the hook runtime exited{status}: hook \"{caller}\" called process.exit({code}){when}{}",
                at_text(at.clone())
            )
        }
        ExitCaller::NoHook => format!(
            "the hook runtime exited{status}: process.exit was called outside any hook's code{}",
            running.map(during).unwrap_or_default()
        ),
        ExitCaller::Unknown => format!("the hook runtime exited{status}{}", running.map(during).unwrap_or_default()),
    }
}

/// Why a hook is not imported again: it ended the runtime while it was imported.
pub fn ended_while_loading() -> String {
    "it ended the hook runtime while loading (process.exit or a crash at import)".to_owned()
}

/// Why a hook is not imported again: its import never yielded.
pub fn import_never_yielded(timeout: Duration) -> String {
    format!("its import did not finish within {} (it never yielded)", format_duration(timeout))
}

/// Why a handler's run was cut off when it never yielded (the timeline's reason).
pub fn did_not_yield(after: Duration) -> String {
    format!("did not yield for {}", format_duration(after))
}

/// Why a handler's run was cut off by no doing of its own (the timeline's reason).
pub fn cut_off() -> String {
    "cut off: the hook runtime ended or was restarted while it ran, so it may not have finished".to_owned()
}

/// Why the keeper of a shared runtime stops it: the handler (of every session's) that
/// started last, hook `hook`'s for event `seq` of session `session_id`, never yielded.
pub fn stuck_in(stuck: Option<(&str, u64, &str)>, after: Duration) -> String {
    match stuck {
        Some((hook, seq, session_id)) => format!(
            "hook \"{hook}\" handler for event #{seq} of session {session_id} did not yield for {} (it was timed out)",
            format_duration(after)
        ),
        None => "a handler did not yield".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handler(hook: &str, handler: &str) -> HandlerOf {
        HandlerOf { hook: hook.to_owned(), handler: handler.to_owned() }
    }

    #[test]
    fn a_runtime_that_exited_blames_the_handler_only_when_its_own_code_called_exit() {
        let caller =
            ExitCaller::Hook { hook: "boot".to_owned(), code: 3.into(), at: Some("bot/hooks/boot.ts:4:9".into()) };
        assert_eq!(
            runtime_exited(Some("exit status: 3"), &caller, Some(&handler("boot", "turn.completed"))),
            "the hook runtime exited (exit status: 3): hook \"boot\" called process.exit(3) in its handler for turn.completed (at bot/hooks/boot.ts:4:9)"
        );
        assert_eq!(
            runtime_exited(None, &caller, Some(&handler("meter", "*"))),
            "the hook runtime exited: hook \"boot\" called process.exit(3) while hook \"meter\" handler for * ran (at bot/hooks/boot.ts:4:9)"
        );
        assert_eq!(runtime_exited(None, &ExitCaller::Unknown, None), "the hook runtime exited");
    }

    #[test]
    fn a_hook_s_doing_names_the_event_being_handled_and_the_runtime_s_does_not() {
        let event = Envelope {
            event_type: "turn.completed".into(),
            index: 7,
            session_id: "s".into(),
            turn_id: Some("turn-1".into()),
            at: String::new(),
            data: serde_json::Value::Null,
        };
        let threw = Happened::Threw { handler: handler("boot", "turn.completed"), message: "no".into(), at: None };
        let record = record(threw, Some(&event));
        assert_eq!(record.message, "hook \"boot\" handler for turn.completed threw: no");
        assert_eq!(record.event.as_deref(), Some("turn.completed"));
        assert_eq!(record.turn_id.as_deref(), Some("turn-1"));
        let restarting = super::record(Happened::Restarting, Some(&event));
        assert_eq!(restarting.event, None);
    }
}
