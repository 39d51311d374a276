//! `info`: the project's agent and its hooks, as the stable JSON of SPEC §4 or as a tree.
//! The JSON keeps names as data; the tree shows their control characters escaped.

use std::fmt::Write;

use owo_colors::OwoColorize;
use serde::Serialize;

use super::plural;
use crate::check::CheckedProject;
use crate::diagnostics::Severity;
use crate::untrusted::escape;

/// Bumped only when a field changes meaning or goes away; new fields may be added.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoJson<'c> {
    schema_version: u32,
    dir: &'c str,
    agents: Vec<AgentJson<'c>>,
}

#[derive(Serialize)]
struct AgentJson<'c> {
    name: &'c str,
    source: &'static str,
    hooks: Vec<HookJson<'c>>,
    skipped: Vec<SkippedJson<'c>>,
    diagnostics: CountsJson,
}

#[derive(Serialize)]
struct HookJson<'c> {
    name: &'c str,
    path: &'c str,
    events: &'c [String],
}

#[derive(Serialize)]
struct SkippedJson<'c> {
    name: &'c str,
    path: &'c str,
    /// The code that keeps the hook from loading, without its `hooks::` prefix.
    reason: &'static str,
}

#[derive(Serialize)]
struct CountsJson {
    errors: usize,
    warnings: usize,
}

/// The SPEC §4 document; `dir` is `--dir` as given.
pub fn render_json(checked: &CheckedProject, dir: &str) -> String {
    let agents = checked
        .project
        .iter()
        .map(|project| AgentJson {
            name: &project.name,
            source: project.layout.folder(),
            hooks: checked
                .loaded()
                .map(|hook| HookJson { name: &hook.name, path: &hook.path, events: &hook.events })
                .collect(),
            skipped: checked
                .hooks
                .iter()
                .filter_map(|hook| {
                    let reason = hook.skipped?.as_str();
                    let reason = reason.split_once("::").map_or(reason, |(_, reason)| reason);
                    Some(SkippedJson { name: &hook.name, path: &hook.path, reason })
                })
                .collect(),
            diagnostics: CountsJson {
                errors: checked.count(Severity::Error),
                warnings: checked.count(Severity::Warning),
            },
        })
        .collect();
    let info = InfoJson { schema_version: SCHEMA_VERSION, dir, agents };
    let mut out =
        serde_json::to_string_pretty(&info).expect("the description serialises: it has only strings and numbers");
    out.push('\n');
    out
}

/// The same facts as a tree for people.
pub fn render_tree(checked: &CheckedProject, color: bool) -> String {
    let mut out = String::new();
    let Some(project) = &checked.project else {
        return out;
    };
    let bold = |text: &str| {
        if color { text.bold().to_string() } else { text.to_owned() }
    };
    let dim = |text: &str| {
        if color { text.dimmed().to_string() } else { text.to_owned() }
    };

    let _ = writeln!(out, "{} {}", bold(&escape(&project.name)), dim(&format!("({}/)", project.layout.folder())));
    let loaded: Vec<_> = checked.loaded().collect();
    let skipped: Vec<_> = checked.hooks.iter().filter(|hook| hook.skipped.is_some()).collect();
    let width = checked.hooks.iter().map(|hook| escape(&hook.name).chars().count()).max().unwrap_or(0);
    let path_width = checked.hooks.iter().map(|hook| escape(&hook.path).chars().count()).max().unwrap_or(0);
    // Padded before styling, so escape codes do not count towards the width.
    let path = |path: &str| dim(&format!("{:path_width$}", escape(path)));

    let hooks_branch = if skipped.is_empty() { "└──" } else { "├──" };
    let hooks_indent = if skipped.is_empty() { "    " } else { "│   " };
    let _ = writeln!(out, "{hooks_branch} hooks ({} loaded)", loaded.len());
    for (i, hook) in loaded.iter().enumerate() {
        let branch = if i + 1 == loaded.len() { "└──" } else { "├──" };
        let events = if hook.events.is_empty() {
            "(events not known statically)".to_owned()
        } else {
            hook.events.iter().map(|event| escape(event)).collect::<Vec<_>>().join(", ")
        };
        let name = escape(&hook.name);
        let _ = writeln!(out, "{hooks_indent}{branch} {name:width$}  {}  {events}", path(&hook.path));
    }
    if !skipped.is_empty() {
        let _ = writeln!(out, "└── skipped ({})", skipped.len());
        for (i, hook) in skipped.iter().enumerate() {
            let branch = if i + 1 == skipped.len() { "└──" } else { "├──" };
            let reason = hook.skipped.map_or("", |code| code.as_str());
            let name = escape(&hook.name);
            let _ = writeln!(out, "    {branch} {name:width$}  {}  {reason}", path(&hook.path));
        }
    }
    let errors = checked.count(Severity::Error);
    let warnings = checked.count(Severity::Warning);
    let _ = writeln!(out, "{} and {}.", plural(errors, "error"), plural(warnings, "warning"));
    if let Some(note) = broken_hooks_note(checked) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// Says so when some hooks have errors, so nobody mistakes the list for the whole project.
pub fn broken_hooks_note(checked: &CheckedProject) -> Option<String> {
    let broken =
        checked.hooks.iter().filter(|hook| hook.skipped.is_some_and(|code| code.severity() == Severity::Error)).count();
    (broken > 0).then(|| {
        let hooks = if broken == 1 { "1 hook has errors and does" } else { "hooks have errors and do" };
        let hooks = if broken == 1 { hooks.to_owned() } else { format!("{broken} {hooks}") };
        format!("note: {hooks} not load; run `agent-sdk validate` for details")
    })
}
