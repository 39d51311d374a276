//! The registry of diagnostic codes: every code `validate` can report, its severity and
//! what it means. Codes are stable: tools match on them, so a code is never renamed.

use serde::Serialize;

/// How serious a finding is. Errors fail `validate`; warnings fail it only with
/// `--deny-warnings`; advice never does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Advice,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "advice",
        }
    }
}

macro_rules! codes {
    ($($variant:ident => $code:literal, $severity:ident, $summary:literal, $help:literal;)*) => {
        /// A stable diagnostic code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(#[doc = $summary] $variant,)*
        }

        impl Code {
            /// Every code, in registry order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as users see it, e.g. `hooks::reserved-name`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// The severity every diagnostic with this code has.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// One sentence on what the code means (used for SARIF rules).
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => $summary,)* }
            }

            /// How to fix any finding with this code, in general (each finding's own
            /// `help` says it for its case); SARIF rules carry it.
            pub fn help(self) -> &'static str {
                match self { $(Code::$variant => $help,)* }
            }

            /// The code named `name`, as written in an `agent-sdk-ignore` comment.
            pub fn from_name(name: &str) -> Option<Code> {
                match name { $($code => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    NoAgentSource => "project::no-agent-source", Error,
        "The project has neither a `bot/` nor an `agent/` source folder.",
        "Run `agent-sdk validate` in the folder that holds `bot/` or `agent/` (or point `--dir` at it), or make the folder with `agent-sdk init`.";
    AmbiguousLayout => "project::ambiguous-layout", Error,
        "The project has both `bot/` and `agent/`, so which one is the agent is ambiguous.",
        "Keep one source folder: move the hooks of the other into it and remove it.";
    InvalidPackageJson => "project::invalid-package-json", Warning,
        "`package.json` could not be read as JSON, so the agent is named after its folder.",
        "Fix the JSON syntax of `package.json` (it must be a single JSON object).";
    SdkPackagesMissing => "project::sdk-packages-missing", Warning,
        "The project has a `tsconfig.json` but the SDK packages are not in `node_modules/`, so `tsc` and editors cannot type its hooks (`agent-sdk sdk` writes them).",
        "Run `agent-sdk sdk` to write the SDK packages into `node_modules/`.";
    SdkPackagesOutdated => "project::sdk-packages-outdated", Warning,
        "The SDK packages in `node_modules/` were written by another version of agent-sdk, so their types may not match what hooks run with (`agent-sdk sdk` writes them again).",
        "Run `agent-sdk sdk` to write the SDK packages again with this version.";
    Unreadable => "hooks::unreadable", Error,
        "A hook module could not be read: an I/O error, not UTF-8, binary, or over the size limit.",
        "Make the file a readable UTF-8 text file under 1 MiB, or move it out of `hooks/`.";
    SymlinkLoop => "hooks::symlink-loop", Warning,
        "A symbolic link under `hooks/` points back at one of its own parent folders.",
        "Remove the link, or point it at a folder that does not contain it.";
    LinkOutsideProject => "hooks::link-outside-project", Error,
        "A symbolic link under `hooks/` leads outside the project.",
        "Copy the file into the project, or replace the link with one that stays inside it.";
    ParseError => "hooks::parse-error", Error,
        "A hook module is not valid TypeScript or JavaScript.",
        "Fix the syntax error at the location shown.";
    NoDefaultExport => "hooks::no-default-export", Error,
        "A hook module has no default export.",
        "Add `export default defineHook({ events: { ... } })`, or move the module out of `hooks/` if it is not a hook.";
    NotDefineHook => "hooks::not-define-hook", Error,
        "A hook module's default export is not a call of `defineHook(...)`.",
        "Export the result of `defineHook({ events: { ... } })` imported from the SDK's hooks module.";
    UnknownSdkModule => "hooks::unknown-sdk-module", Error,
        "`defineHook` is imported from a module that is not the SDK's hooks module.",
        "Import `defineHook` from `@cursor/bdk/hooks`, `@grok/agent-sdk/hooks` or `@cursor/july/hooks`.";
    ReservedName => "hooks::reserved-name", Error,
        "A hook's name contains `__`, which is reserved for hooks mounted by extensions.",
        "Rename the file or folder so the hook's name has no `__`.";
    DuplicateName => "hooks::duplicate-name", Error,
        "Two or more modules map to the same hook name.",
        "Keep one module per name: rename or remove the others (`a.ts` and `a.js` are both `a`).";
    EventsMissing => "hooks::events-missing", Error,
        "`defineHook` is not given an object with an `events` object.",
        "Pass `defineHook` an object with an `events` object: `defineHook({ events: { \"turn.completed\"(event, ctx) {} } })`.";
    HandlerNotFunction => "hooks::handler-not-function", Error,
        "A value in `events` is not a function.",
        "Make each value in `events` a function (a method, an arrow or a function expression).";
    EmptyEvents => "hooks::empty-events", Warning,
        "`events` is empty, so the hook is skipped.",
        "Add a handler to `events`, or remove the hook.";
    UnknownEvent => "hooks::unknown-event", Error,
        "A key in `events` is not an event type (or `\"*\"`), so its handler never runs (tsc says TS2353); the hook still loads, as hosting loads it.",
        "Use one of the event types listed in docs/events.md (the message suggests the nearest), or `\"*\"` for every event.";
    DuplicateEvent => "hooks::duplicate-event", Warning,
        "The same event key appears twice in `events`; only the last handler is kept.",
        "Keep one handler per event key: merge the two into one.";
    DynamicEvents => "hooks::dynamic-events", Advice,
        "Part of a hook could not be checked statically (a spread, a computed key, an imported value).",
        "Nothing needs fixing: write `events` as a literal object in the hook module if you want it checked statically.";
    UnresolvedImport => "hooks::unresolved-import", Error,
        "A hook, or a module it imports, imports something that resolves to no file or installed package.",
        "Fix the specifier, create the file it names, or install the package it names; when the message names an installed package the name is close to, fix the name instead.";
    MissingExport => "hooks::missing-export", Error,
        "A hook, or a module it imports, imports a name the imported module does not export, so Node refuses to load it.",
        "Import a name the module exports (the message suggests the nearest), or export the name from it.";
    UnsupportedSyntax => "hooks::unsupported-syntax", Error,
        "A module a hook loads uses syntax Node.js 20 cannot run and agent-sdk cannot lower (standard decorators; TypeScript's `import … = require(…)` or `export =` in a module Node runs as an ES module).",
        "Set `\"experimentalDecorators\": true` in the compilerOptions of `tsconfig.json` to use TypeScript's decorators, or apply the decorator function by hand; in an ES module, use `import … from` and `export default` (or rename the file to `.cts`).";
    BrokenPackageJson => "hooks::broken-package-json", Error,
        "The package.json Node reads to load a module the hooks reach is not valid JSON, so Node refuses to load it.",
        "Fix the JSON syntax of the package.json named in the message.";
    ModuleScopeSecret => "hooks::module-scope-secret", Warning,
        "A hook module reads an environment variable when it loads: hosted deployments bind secrets after the process starts, so a module-scope read stays empty.",
        "Read the variable inside the handler that uses it (`process.env.NAME` in its body), not at module scope.";
    FetchWithoutTimeout => "hooks::fetch-without-timeout", Warning,
        "A handler calls `fetch` without a `signal`, so the request never times out and a stalled one holds up later handlers on that session.",
        "Give the call a timeout: add `signal: AbortSignal.timeout(5_000)` to its options.";
    PagesCancelledTurns => "hooks::pages-cancelled-turns", Advice,
        "A `turn.failed` handler makes an outbound call without checking for cancelled turns, which record interrupted work, not failures.",
        "Return early when `event.data.status === \"cancelled\"`.";
    MetersEvalSessions => "hooks::meters-eval-sessions", Advice,
        "A handler records metrics or pages without checking `ctx.session.purpose`, so eval sessions are metered and paged like live ones.",
        "Skip the handler's metering or paging when `ctx.session.purpose === \"eval\"`.";
    MutatesEvent => "hooks::mutates-event", Warning,
        "A handler changes its event or `ctx`, which are frozen: the change throws, and later subscribers see the same object.",
        "Treat the event and `ctx` as read-only: copy what you need into a local (`{ ...event.data }`), or keep it in `ctx.host.kv` or `ctx.host.files`.";
    StateInStateRoot => "hooks::state-in-state-root", Warning,
        "A hook writes files under `ctx.stateRoot`, which resets when a hosted deployment is replaced.",
        "Keep derived state in `ctx.host.kv` or `ctx.host.files`, which are durable.";
    FloatingHostCall => "hooks::floating-host-call", Warning,
        "A `ctx.host` call (or `ctx.artifacts.tag`) whose promise nobody awaits, returns or handles: if it fails, its rejection is unhandled (`run` exits 3), and what it does may come after its handler returned.",
        "`await` the call, or write `void` before it to say it runs on by itself on purpose.";
    RebuildsReplyFromDeltas => "hooks::rebuilds-reply-from-deltas", Advice,
        "A `message.appended` handler pieces the reply together from its deltas, which `message.completed` carries whole.",
        "Handle `message.completed` and read `event.data.text` instead.";
    NotAHookModule => "hooks::not-a-hook-module", Warning,
        "A `.tsx` or `.jsx` file under `hooks/` is not loaded: hooks have no JSX.",
        "Rename it to `.ts` (and drop the JSX), or move it out of `hooks/` if it is not a hook.";
    InvalidNamespace => "extensions::invalid-namespace", Error,
        "A mount file's name, which is its extension's namespace, is not a valid namespace (letters, digits, `_` and `-`, starting with a letter or digit, without `__`).",
        "Rename the file under `extensions/`: its name without the extension becomes the namespace, as in `ci.ts` → hooks named `ci__<name>`.";
    DuplicateNamespace => "extensions::duplicate-namespace", Error,
        "Two or more mount files under `extensions/` have the same namespace (`ci.ts` and `ci.js` are both `ci`).",
        "Keep one mount file per namespace: rename or remove the others.";
    NotAMount => "extensions::not-a-mount", Error,
        "A mount file's default export is not an extension's mount: a call of the factory an extension package exports, optionally through `.disableHook(\"…\")` or `disableHook(…, \"…\")`.",
        "Export the extension's call: `import ci from \"@acme/ci-triage\"; export default ci({ … });` (the package's default export is made with `defineExtension`).";
    ExtensionRejected => "extensions::config-rejected", Error,
        "The extension threw while the project loaded: it rejected the options the mount gives it (or failed to load).",
        "Fix the options passed to the extension's call in the mount file; the message is the extension's own.";
    UnknownExtensionHook => "extensions::unknown-hook", Error,
        "`disableHook` names a hook the extension does not have.",
        "Name one of the extension's hooks (the message lists them, and suggests the nearest), by its name inside the extension, without the `<namespace>__` prefix.";
    NotAnExtensionHook => "extensions::not-a-hook", Error,
        "A hook an extension contributes is not a `defineHook(...)` result, or its name is not a valid hook name (empty parts, `__`, spaces).",
        "This is the extension's own bug: report it to its authors, or disable the hook with `.disableHook(\"…\")` to mount the others.";
    MountNeedsNode => "extensions::node-missing", Error,
        "The project mounts extensions, whose hooks and configuration are known only by running them in Node.js, and Node.js could not be started.",
        "Install Node.js 20.6 or later and put `node` on PATH (or set AGENT_SDK_NODE to its path); projects without `extensions/` are checked without Node.";
    MountNotRun => "extensions::not-run", Advice,
        "An extension mount was not run, so the hooks it mounts and its check of its options are unknown: `--no-exec`, the settings' `noExec` or the editor (which runs no code by default) forbid running code.",
        "Run `agent-sdk validate` without `--no-exec` (it runs each mount once in Node.js, with a minimal environment and nothing written into the project) to check what it mounts; in the editor, set the server's `runExtensions` option (VS Code: `agentSdk.runExtensions`, in a trusted workspace).";
    CannotSilenceError => "suppression::cannot-silence-error", Warning,
        "An `agent-sdk-ignore` comment names an error on the next line; errors cannot be silenced, so it is still reported.",
        "Fix the error, and take its code out of the comment.";
    UnusedSuppression => "suppression::unused", Warning,
        "An `agent-sdk-ignore` comment names a code that no finding on the next line has.",
        "Remove the code from the comment (or the whole comment), or move the comment to the line just before the finding.";
    UnknownSuppressedCode => "suppression::unknown-code", Warning,
        "An `agent-sdk-ignore` comment names no code, or a code that does not exist.",
        "Name codes as `validate` prints them, e.g. `// agent-sdk-ignore hooks::unknown-event`; separate several with commas or spaces.";
    InvalidConfig => "config::invalid", Error,
        "The settings file (`agent-sdk.json` or `agent-sdk.jsonc`, or the `agentSdk` key of a package.json) has a syntax error, an unknown key or rule, a value of the wrong type, or lowers an error.",
        "Fix the setting at the place shown; docs/configuration.md lists every setting, and `$schema` lets an editor check the file as you type.";
    SettingsNotOwned => "config::not-owned", Warning,
        "The nearest settings file is owned by another user (neither you, nor root, nor the project folder's owner), so it is not used: whoever can write a folder above the project could have put it there.",
        "If you trust it, give it to yourself or the project's owner (`chown`); otherwise remove it. Until then the defaults apply.";
    IgnoresEveryHook => "config::ignores-every-hook", Warning,
        "The settings' `ignore` leaves out every hook under the hooks folder, so no hook is checked or loaded.",
        "Narrow the patterns to what discovery should skip (e.g. \"bot/hooks/wip/**\"); a settings file in a folder above the project applies to it too.";
}

impl Code {
    /// Whether an error with this code keeps its hook from loading (and so cannot be
    /// silenced or lowered). Every error does but one about a single handler:
    /// `hooks::unknown-event` names a handler that never runs, while hosting loads
    /// the hook and runs its other handlers. `validate` fails on it; `run` and `dev`
    /// load the hook and say so; the settings may lower it and `agent-sdk-ignore`
    /// silences it, as for a warning.
    pub fn stops_loading(self) -> bool {
        !matches!(self, Code::UnknownEvent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_namespaced() {
        for (i, a) in Code::ALL.iter().enumerate() {
            let namespace = a.as_str().split_once("::").map(|(namespace, _)| namespace);
            assert!(
                matches!(namespace, Some("project" | "hooks" | "extensions" | "suppression" | "config")),
                "{}",
                a.as_str()
            );
            assert_eq!(Code::from_name(a.as_str()), Some(*a));
            assert!(Code::ALL[i + 1..].iter().all(|b| b.as_str() != a.as_str()));
        }
    }
}
