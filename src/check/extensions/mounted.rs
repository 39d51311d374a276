//! What the mounts contributed, merged into the check: each mounted hook as a hook report
//! named `<ns>__<key>` (in discovery order with the project's own), and every problem a
//! mount has as a diagnostic at its call in the mount file.

use crate::check::{CheckedProject, HookReport, MountedAs};
use crate::diagnostics::{Code, Diagnostic, SourceFile};
use crate::protocol::{MountProblemKind, Mounted};
use crate::vocabulary;

use super::Mount;
use super::mount_file::MountShape;

/// Takes in what mount `index` mounted: its hooks, and diagnostics for what is wrong.
/// `minimal_env`: the mount ran with a minimal environment (a static check's), which the
/// help of a rejection then names.
pub fn take_in(checked: &mut CheckedProject, index: usize, mounted: Mounted, minimal_env: bool) {
    let mount = &checked.mounts[index];
    let Some(shape) = &mount.shape else { return };
    let text = checked.sources.get(&mount.file.display_path).map_or("", String::as_str);
    let file = SourceFile::new(&mount.file.display_path, text);
    let mut diagnostics = Vec::new();
    let mut hooks = Vec::new();
    match &mounted.problem {
        Some(problem) => {
            diagnostics.push(problem_at_call(&file, mount, shape, problem.kind, &problem.message, minimal_env));
        }
        None => {
            diagnostics.extend(unknown_disabled(&file, mount, shape, &mounted));
            let mount_error = diagnostics.first().map(|diagnostic| diagnostic.code);
            for hook in mounted.hooks.iter().filter(|hook| !mounted.disabled.contains(&hook.key)) {
                let name = format!("{}__{}", mount.namespace(), hook.key);
                let mut own = Vec::new();
                match (&hook.events, key_problem(&hook.key)) {
                    (_, Some(problem)) => own.push(at_call(
                        &file,
                        shape,
                        Code::NotAnExtensionHook,
                        "mounted here",
                        format!("extension `{}` names a hook `{}`, which {problem}, so it is not mounted", mount.namespace(), hook.key),
                        "this is the extension's own bug: report it to its authors, or disable the hook with `.disableHook(\"…\")` to mount the others",
                    )),
                    (None, None) => own.push(at_call(
                        &file,
                        shape,
                        Code::NotAnExtensionHook,
                        "mounted here",
                        format!("hook `{name}` of extension `{}` is not a `defineHook(...)` result, so it is not mounted", mount.namespace()),
                        format!("this is the extension's own bug: report it to its authors, or disable it with `.disableHook(\"{}\")`", hook.key),
                    )),
                    (Some(events), None) => own.extend(event_warnings(&file, shape, &name, events)),
                }
                // A mounted hook is skipped as a project's own is: its first error, else an empty `events`.
                let skipped = mount_error.or_else(|| crate::check::skip_reason(None, &own));
                hooks.push(HookReport {
                    name,
                    path: mount.file.display_path.clone(),
                    real_path: mount.file.real_path.clone(),
                    // What the extension's code said when it ran: known.
                    events: Some(hook.events.clone().unwrap_or_default()),
                    skipped,
                    mount: Some(MountedAs { namespace: mount.namespace().to_owned(), key: hook.key.clone() }),
                });
                diagnostics.extend(own);
            }
        }
    }
    checked.mounts[index].mounted = Some(mounted);
    checked.diagnostics.extend(diagnostics);
    checked.hooks.extend(hooks);
}

/// What is wrong with a hook's key inside its extension, as hook names go (SPEC §3a).
fn key_problem(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        return Some("is empty");
    }
    if key.contains("__") {
        return Some("contains `__`, which separates a namespace from a hook's name");
    }
    if key.split('/').any(str::is_empty) {
        return Some("has an empty part between `/`s");
    }
    if key.chars().any(|c| c.is_whitespace() || c.is_control() || c == '\\') {
        return Some("holds a space, a control character or a `\\`");
    }
    None
}

fn problem_at_call(
    file: &SourceFile,
    mount: &Mount,
    shape: &MountShape,
    kind: MountProblemKind,
    message: &str,
    minimal_env: bool,
) -> Diagnostic {
    let from = from_package(mount, shape);
    match kind {
        MountProblemKind::NotAMount => at_call(
            file,
            shape,
            Code::NotAMount,
            "not a mount",
            format!("{message}, so this file mounts nothing"),
            format!(
                "make sure `{}` is an extension (its default export made with `defineExtension`), and export its call: `export default ci({{ … }})`",
                shape.factory_source
            ),
        ),
        MountProblemKind::Threw => at_call(
            file,
            shape,
            Code::ExtensionRejected,
            "threw here",
            format!("extension `{}`{from} rejected its configuration: {message}", mount.namespace()),
            if minimal_env {
                "fix the options of this call (the message is the extension's own); it ran with a minimal environment (PATH, HOME, the locale, Node's own variables; no secrets, no .env): if its options read a variable, name it with `--pass-env NAME`"
            } else {
                "fix the options of this call (the message is the extension's own); its hooks are not mounted until it accepts them"
            },
        ),
        MountProblemKind::Ended => at_call(
            file,
            shape,
            Code::ExtensionRejected,
            "loaded here",
            format!("extension `{}`{from} failed to load: {message}", mount.namespace()),
            "an extension must not end the process or block while it loads: report it to its authors",
        ),
    }
}

/// ` (from `@acme/ci-triage`)`, or nothing for a factory in the project.
fn from_package(mount: &Mount, shape: &MountShape) -> String {
    match &mount.package {
        Some((name, _)) => format!(" (from `{name}`)"),
        None if !shape.factory_source.starts_with('.') => format!(" (from `{}`)", shape.factory_source),
        None => String::new(),
    }
}

/// `disableHook` names that are not hooks of the extension, each at its name.
fn unknown_disabled(file: &SourceFile, mount: &Mount, shape: &MountShape, mounted: &Mounted) -> Vec<Diagnostic> {
    let keys: Vec<&str> = mounted.hooks.iter().map(|hook| hook.key.as_str()).collect();
    let listed = if keys.is_empty() {
        "it has no hooks".to_owned()
    } else {
        let quoted: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
        format!("its hooks are {}", crate::check::discover::and_list(&quoted))
    };
    let mut seen = Vec::new();
    let mut diagnostics = Vec::new();
    for key in &mounted.disabled {
        if keys.contains(&key.as_str()) || seen.contains(key) {
            continue;
        }
        seen.push(key.clone());
        let span = shape.disabled.iter().find(|hook| &hook.key == key).map_or(shape.call, |hook| hook.span);
        let bare = key.strip_prefix(&format!("{}__", mount.namespace())).filter(|bare| keys.contains(bare));
        let help = match (bare, crate::diagnostics::suggest::nearest(key, keys.iter().copied())) {
            (Some(bare), _) => format!("name the hook without its namespace: `\"{bare}\"` ({listed})"),
            (None, Some(near)) => format!("did you mean `\"{near}\"`? ({listed})"),
            (None, None) => format!("name one of the extension's hooks: {listed}"),
        };
        diagnostics.push(file.diagnostic(
            Code::UnknownExtensionHook,
            span,
            "no such hook",
            format!(
                "`disableHook` names `{key}`, which is not a hook of extension `{}`{}",
                mount.namespace(),
                from_package(mount, shape)
            ),
            help,
        ));
    }
    diagnostics
}

/// The warnings a project's own hook gets for its `events`, for a mounted one: none at all,
/// or keys that are not event types.
fn event_warnings(file: &SourceFile, shape: &MountShape, name: &str, events: &[String]) -> Vec<Diagnostic> {
    if events.is_empty() {
        return vec![at_call(
            file,
            shape,
            Code::EmptyEvents,
            "mounted here",
            format!("hook `{name}` has no handlers (its `events` is empty), so it is skipped"),
            "this is the extension's own: report it to its authors, or disable the hook with `.disableHook(\"…\")`",
        )];
    }
    events
        .iter()
        .filter(|key| !vocabulary::is_known_key(key))
        .map(|key| {
            let help = match vocabulary::suggest(key) {
                Some(near) => format!("did you mean `{near}`? This is the extension's own: report it to its authors"),
                None => "use one of the event types listed in docs/events.md; this is the extension's own: report it to its authors".to_owned(),
            };
            at_call(
                file,
                shape,
                Code::UnknownEvent,
                "mounted here",
                format!("`{key}` is not an event type, so the handler of hook `{name}` for it never runs"),
                help,
            )
        })
        .collect()
}

fn at_call(
    file: &SourceFile,
    shape: &MountShape,
    code: Code,
    label: &str,
    message: String,
    help: impl Into<String>,
) -> Diagnostic {
    file.diagnostic(code, shape.call, label, message, help)
}

/// The instructions of every mount that loads, in namespace order: appended to the root
/// agent's own in the model's system prompt.
pub fn instructions(checked: &CheckedProject) -> Vec<String> {
    checked
        .mounts
        .iter()
        .filter_map(|mount| mount.mounted.as_ref().filter(|mounted| mounted.problem.is_none()))
        .filter_map(|mounted| mounted.instructions.clone())
        .filter(|text| !text.trim().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_keys_are_hook_names() {
        for good in ["triage", "audit/usage", "a-b.c"] {
            assert_eq!(key_problem(good), None, "{good}");
        }
        for bad in ["", "a__b", "a//b", "/a", "a b", "a\\b"] {
            assert!(key_problem(bad).is_some(), "{bad}");
        }
    }
}
