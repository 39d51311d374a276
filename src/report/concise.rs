//! `--format concise`: one line per finding, `path:line:col: severity code message`, for
//! editors' problem matchers and grep. Paths are named from the current directory (as in
//! `github` and `sarif`); a finding without a span is at 1:1 of its file, a project-wide
//! one at `package.json` (or the source folder). The summary goes to stderr, so stdout is
//! nothing but findings. Control characters in paths and messages are shown escaped, so a
//! finding is always exactly one line.

use super::ProjectDir;
use crate::check::CheckedProject;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::text::untrusted::escape;

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let mut out = String::new();
    for diagnostic in &checked.diagnostics {
        out.push_str(&line(diagnostic, dir));
        out.push('\n');
    }
    out
}

/// What `run` and `dev` say before anything runs of the findings that let the project load,
/// as `validate` says them: each error about a handler
/// (`bot/hooks/usage.ts:4:5: error hooks::unknown-event … never runs (the hook loads without
/// it, as in hosting); did you mean \`turn.completed\`?`) and each warning where it is, with its help, then
/// the hooks that will not load (an empty `events`' warning is said by its "skipped hook"
/// line).
pub fn log_findings(checked: &CheckedProject, dir: &ProjectDir) -> Vec<(Severity, String)> {
    let findings = checked.diagnostics.iter().filter(|diagnostic| {
        let severity = diagnostic.severity();
        (severity == Severity::Error && !diagnostic.stops_loading())
            || (severity == Severity::Warning && diagnostic.code != Code::EmptyEvents)
    });
    let mut lines: Vec<(Severity, String)> = findings
        .map(|diagnostic| {
            // An error that lets its hook load is about one handler.
            let loads = if diagnostic.severity() == Severity::Error {
                " (the hook loads without it, as in hosting)"
            } else {
                ""
            };
            (diagnostic.severity(), format!("{}{loads}; {}", line(diagnostic, dir), escape(&diagnostic.help)))
        })
        .collect();
    lines.extend(checked.hooks.iter().filter(|hook| hook.skipped.is_some()).map(|hook| {
        let code = hook.skipped.map_or("", |code| code.as_str());
        (Severity::Warning, format!("skipped hook \"{}\" ({code})", hook.name))
    }));
    lines
}

/// What `dev` says when changed code does not pass the check: each error as a line, and
/// what it does about them (it keeps serving the last good hooks).
pub fn still_serving(checked: &CheckedProject, dir: &ProjectDir) -> (Vec<String>, String) {
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.stops_loading())
        .map(|diagnostic| line(diagnostic, dir))
        .collect();
    let what = match errors.len() {
        0 => "there is no agent here any more".to_owned(),
        count => format!("the changed hooks have {}", crate::printer::plural(count, "error")),
    };
    (errors, format!("{what}; still serving the last good ones"))
}

/// One finding as one line (no line break): what `dev` logs for each error of a broken edit, too.
pub fn line(diagnostic: &Diagnostic, dir: &ProjectDir) -> String {
    let location = dir.locate(diagnostic);
    format!(
        "{}:{}:{}: {} {} {}",
        escape(&location.path),
        location.start.line,
        location.start.column,
        diagnostic.severity().as_str(),
        diagnostic.code.as_str(),
        escape(&diagnostic.message),
    )
}
