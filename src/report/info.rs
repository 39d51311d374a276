//! `info`: the project's agent and its hooks, as the stable JSON of SPEC §4 or as a tree.
//! The JSON keeps names as data; the tree shows their control characters escaped.

use std::fmt::Write;

use owo_colors::OwoColorize;
use serde::Serialize;

use crate::check::CheckedProject;
use crate::check::extensions::Mount;
use crate::diagnostics::Severity;
use crate::printer::plural;
use crate::text::untrusted::escape;

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
    extensions: Vec<ExtensionJson<'c>>,
    diagnostics: CountsJson,
}

#[derive(Serialize)]
struct HookJson<'c> {
    name: &'c str,
    path: &'c str,
    /// `null` when they cannot be known before the module runs (`export { default } from …`,
    /// an imported or spread `events`): unknown, not none.
    events: Option<&'c [String]>,
    /// The namespace of the mount that contributes it; absent for the project's own hooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    extension: Option<&'c str>,
}

/// One mount file under `<src>/extensions/` (SPEC §3a).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtensionJson<'c> {
    namespace: &'c str,
    path: &'c str,
    /// The package its factory comes from; `null` for one in the project.
    package: Option<PackageJson<'c>>,
    /// Every hook the extension has, mounted or disabled (empty when it could not be run).
    hooks: Vec<ExtensionHookJson>,
    instructions: bool,
    secret_names: &'c [String],
    egress_domains: &'c [String],
    /// Whether it was run to learn what it mounts (not with `--no-exec` or `"noExec"`).
    ran: bool,
}

#[derive(Serialize)]
struct PackageJson<'c> {
    name: &'c str,
    version: Option<&'c str>,
}

#[derive(Serialize)]
struct ExtensionHookJson {
    /// As it loads: `<namespace>__<key>`.
    name: String,
    /// Its name inside the extension.
    key: String,
    disabled: bool,
}

#[derive(Serialize)]
struct SkippedJson<'c> {
    name: &'c str,
    path: &'c str,
    /// The code that keeps the hook from loading, without its `hooks::` prefix.
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    extension: Option<&'c str>,
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
                .map(|hook| HookJson {
                    name: &hook.name,
                    path: &hook.path,
                    events: hook.events.as_deref(),
                    extension: hook.mount.as_ref().map(|mount| mount.namespace.as_str()),
                })
                .collect(),
            skipped: checked
                .hooks
                .iter()
                .filter_map(|hook| {
                    let reason = hook.skipped?.as_str();
                    let reason = reason.split_once("::").map_or(reason, |(_, reason)| reason);
                    let extension = hook.mount.as_ref().map(|mount| mount.namespace.as_str());
                    Some(SkippedJson { name: &hook.name, path: &hook.path, reason, extension })
                })
                .collect(),
            extensions: checked.mounts.iter().map(extension_json).collect(),
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

fn extension_json(mount: &Mount) -> ExtensionJson<'_> {
    static NONE: Vec<String> = Vec::new();
    let mounted = mount.mounted.as_ref().filter(|mounted| mounted.problem.is_none());
    ExtensionJson {
        namespace: mount.namespace(),
        path: &mount.file.display_path,
        package: mount.package.as_ref().map(|(name, version)| PackageJson { name, version: version.as_deref() }),
        hooks: mounted
            .map(|mounted| {
                mounted
                    .hooks
                    .iter()
                    .map(|hook| ExtensionHookJson {
                        name: format!("{}__{}", mount.namespace(), hook.key),
                        key: hook.key.clone(),
                        disabled: mounted.disabled.contains(&hook.key),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        instructions: mounted
            .is_some_and(|mounted| mounted.instructions.as_ref().is_some_and(|text| !text.trim().is_empty())),
        secret_names: mounted.map_or(&NONE, |mounted| &mounted.secret_names),
        egress_domains: mounted.map_or(&NONE, |mounted| &mounted.egress_domains),
        ran: mount.mounted.is_some(),
    }
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

    let hooks_last = skipped.is_empty() && checked.mounts.is_empty();
    let hooks_branch = if hooks_last { "└──" } else { "├──" };
    let hooks_indent = if hooks_last { "    " } else { "│   " };
    let _ = writeln!(out, "{hooks_branch} hooks ({} loaded)", loaded.len());
    for (i, hook) in loaded.iter().enumerate() {
        let branch = if i + 1 == loaded.len() { "└──" } else { "├──" };
        let events = match hook.events.as_deref() {
            None => "(events unknown until the module runs)".to_owned(),
            Some([]) => "(no events)".to_owned(),
            Some(events) => events.iter().map(|event| escape(event)).collect::<Vec<_>>().join(", "),
        };
        let name = escape(&hook.name);
        let _ = writeln!(out, "{hooks_indent}{branch} {name:width$}  {}  {events}", path(&hook.path));
    }
    if !checked.mounts.is_empty() {
        let (branch, indent) = if skipped.is_empty() { ("└──", "    ") } else { ("├──", "│   ") };
        let _ = writeln!(out, "{branch} extensions ({})", checked.mounts.len());
        let namespace_width = checked.mounts.iter().map(|mount| mount.namespace().chars().count()).max().unwrap_or(0);
        for (i, mount) in checked.mounts.iter().enumerate() {
            let branch = if i + 1 == checked.mounts.len() { "└──" } else { "├──" };
            let namespace = mount.namespace();
            let _ = writeln!(
                out,
                "{indent}{branch} {namespace:namespace_width$}  {}  {}",
                dim(&escape(&mount.file.display_path)),
                escape(&mount_summary(mount, checked.mounts_forbidden))
            );
        }
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

/// `@acme/ci-triage 1.4.0: 2 hooks mounted, 1 disabled (audit/usage); instructions; secrets
/// BUILDKITE_TOKEN; egress api.buildkite.com`: one mount in a line.
fn mount_summary(mount: &Mount, forbidden: Option<crate::check::extensions::Forbidden>) -> String {
    let package = match &mount.package {
        Some((name, Some(version))) => format!("{name} {version}"),
        Some((name, None)) => name.clone(),
        None => mount.shape.as_ref().map_or_else(String::new, |shape| shape.factory_source.clone()),
    };
    let Some(mounted) = mount.mounted.as_ref().filter(|mounted| mounted.problem.is_none()) else {
        return match forbidden {
            Some(why) if mount.loads => format!("{package}: not run ({}), what it mounts is unknown", why.as_str()),
            _ => format!("{package}: not mounted (see validate)"),
        };
    };
    let disabled: Vec<&str> = mounted
        .hooks
        .iter()
        .filter(|hook| mounted.disabled.contains(&hook.key))
        .map(|hook| hook.key.as_str())
        .collect();
    let mut line = format!("{package}: {} mounted", plural(mounted.hooks.len() - disabled.len(), "hook"));
    if !disabled.is_empty() {
        line.push_str(&format!(", {} disabled ({})", disabled.len(), disabled.join(", ")));
    }
    if mounted.instructions.as_ref().is_some_and(|text| !text.trim().is_empty()) {
        line.push_str("; instructions");
    }
    if !mounted.secret_names.is_empty() {
        line.push_str(&format!("; secrets {}", mounted.secret_names.join(", ")));
    }
    if !mounted.egress_domains.is_empty() {
        line.push_str(&format!("; egress {}", mounted.egress_domains.join(", ")));
    }
    line
}

/// Says so when some hooks have errors, so nobody mistakes the list for the whole project.
pub fn broken_hooks_note(checked: &CheckedProject) -> Option<String> {
    let broken =
        checked.hooks.iter().filter(|hook| hook.skipped.is_some_and(|code| code.severity() == Severity::Error)).count();
    (broken > 0).then(|| {
        let hooks = if broken == 1 { "1 hook has errors and does" } else { "hooks have errors and do" };
        let hooks = if broken == 1 { hooks.to_owned() } else { format!("{broken} {hooks}") };
        format!("note: {hooks} not load; run `{} validate` for details", crate::process::invocation::command())
    })
}
