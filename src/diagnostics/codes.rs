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
    ($($variant:ident => $code:literal, $severity:ident, $summary:literal;)*) => {
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
        }
    };
}

codes! {
    NoAgentSource => "project::no-agent-source", Error,
        "The project has neither a `bot/` nor an `agent/` source folder.";
    AmbiguousLayout => "project::ambiguous-layout", Error,
        "The project has both `bot/` and `agent/`, so which one is the agent is ambiguous.";
    InvalidPackageJson => "project::invalid-package-json", Warning,
        "`package.json` could not be read as JSON, so the agent is named after its folder.";
    SdkPackagesMissing => "project::sdk-packages-missing", Warning,
        "The project has a `tsconfig.json` but the SDK packages are not in `node_modules/`, so `tsc` and editors cannot type its hooks (`agent-sdk sdk` writes them).";
    SdkPackagesOutdated => "project::sdk-packages-outdated", Warning,
        "The SDK packages in `node_modules/` were written by another version of agent-sdk, so their types may not match what hooks run with (`agent-sdk sdk` writes them again).";
    Unreadable => "hooks::unreadable", Error,
        "A hook module could not be read: an I/O error, not UTF-8, binary, or over the size limit.";
    SymlinkLoop => "hooks::symlink-loop", Warning,
        "A symbolic link under `hooks/` points back at one of its own parent folders.";
    LinkOutsideProject => "hooks::link-outside-project", Error,
        "A symbolic link under `hooks/` leads outside the project.";
    ParseError => "hooks::parse-error", Error,
        "A hook module is not valid TypeScript or JavaScript.";
    NoDefaultExport => "hooks::no-default-export", Error,
        "A hook module has no default export.";
    NotDefineHook => "hooks::not-define-hook", Error,
        "A hook module's default export is not a call of `defineHook(...)`.";
    UnknownSdkModule => "hooks::unknown-sdk-module", Error,
        "`defineHook` is imported from a module that is not the SDK's hooks module.";
    ReservedName => "hooks::reserved-name", Error,
        "A hook's name contains `__`, which is reserved for hooks mounted by extensions.";
    DuplicateName => "hooks::duplicate-name", Error,
        "Two or more modules map to the same hook name.";
    EventsMissing => "hooks::events-missing", Error,
        "`defineHook` is not given an object with an `events` object.";
    HandlerNotFunction => "hooks::handler-not-function", Error,
        "A value in `events` is not a function.";
    EmptyEvents => "hooks::empty-events", Warning,
        "`events` is empty, so the hook is skipped.";
    UnknownEvent => "hooks::unknown-event", Warning,
        "A key in `events` is not an event type (or `\"*\"`), so its handler never runs.";
    DuplicateEvent => "hooks::duplicate-event", Warning,
        "The same event key appears twice in `events`; only the last handler is kept.";
    DynamicEvents => "hooks::dynamic-events", Advice,
        "Part of a hook could not be checked statically (a spread, a computed key, an imported value).";
    UnresolvedImport => "hooks::unresolved-import", Error,
        "A hook, or a module it imports, imports something that resolves to no file or installed package.";
    UnsupportedSyntax => "hooks::unsupported-syntax", Error,
        "A module a hook loads uses syntax Node.js 20 cannot run and agent-sdk cannot lower (standard decorators).";
    BrokenPackageJson => "hooks::broken-package-json", Error,
        "The package.json Node reads to load a module the hooks reach is not valid JSON, so Node refuses to load it.";
    NotAHookModule => "hooks::not-a-hook-module", Warning,
        "A `.tsx` or `.jsx` file under `hooks/` is not loaded: hooks have no JSX.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_namespaced() {
        for (i, a) in Code::ALL.iter().enumerate() {
            assert!(a.as_str().starts_with("project::") || a.as_str().starts_with("hooks::"));
            assert!(Code::ALL[i + 1..].iter().all(|b| b.as_str() != a.as_str()));
        }
    }
}
