//! The SDK's module names, in one table: the packages a hook imports `defineHook` from.
//! Its files ([`files`]), their generated type declarations ([`declarations`]) and the
//! packages `agent-sdk sdk` writes into `vendor/agent-sdk/` ([`packages`]) and makes
//! `node_modules/` see ([`node_modules`]), once it has decided what it may write ([`plan`]),
//! live beside it, with `validate`'s check that those are there and current ([`freshness`]).

pub mod declarations;
pub mod event_examples;
pub mod files;
pub mod folders;
pub mod freshness;
pub mod node_modules;
pub mod packages;
pub mod plan;

/// The SDK packages, by vendor: each has a root module (types), `/hooks`, `/memory`,
/// `/extensions` and `/testing`.
pub const SDK_PACKAGES: [&str; 3] = ["@cursor/bdk", "@grok/agent-sdk", "@cursor/july"];

/// The modules that export `defineHook`.
pub const HOOKS_MODULES: [&str; 3] = ["@cursor/bdk/hooks", "@grok/agent-sdk/hooks", "@cursor/july/hooks"];

/// The modules that export `memoryHook`.
pub const MEMORY_MODULES: [&str; 3] = ["@cursor/bdk/memory", "@grok/agent-sdk/memory", "@cursor/july/memory"];

/// The modules of the test kit (`createTestContext`, `events`, `dispatch`).
pub const TESTING_MODULES: [&str; 3] = ["@cursor/bdk/testing", "@grok/agent-sdk/testing", "@cursor/july/testing"];

/// The modules extensions are made with (`defineExtension`) and mounts adjusted with
/// (`disableHook`, also exported by the hooks modules).
pub const EXTENSIONS_MODULES: [&str; 3] =
    ["@cursor/bdk/extensions", "@grok/agent-sdk/extensions", "@cursor/july/extensions"];

/// The name hooks are defined with.
pub const DEFINE_HOOK: &str = "defineHook";

/// The ready-made hook that journals every turn for later sessions.
pub const MEMORY_HOOK: &str = "memoryHook";

/// The events `memoryHook()` handles (kept in step with `runtime/node/sdk/memory.mjs`).
pub const MEMORY_HOOK_EVENTS: [&str; 4] = ["message.received", "message.completed", "turn.completed", "turn.failed"];

/// Whether `source` is one of the SDK's memory modules.
pub fn is_memory_module(source: &str) -> bool {
    MEMORY_MODULES.contains(&source)
}

/// Whether `source` is one of the SDK's test kit modules.
pub fn is_testing_module(source: &str) -> bool {
    TESTING_MODULES.contains(&source)
}

/// Whether `source` is one of the SDK's extensions modules.
pub fn is_extensions_module(source: &str) -> bool {
    EXTENSIONS_MODULES.contains(&source)
}

/// Whether `source` is one of the SDK's hooks modules.
pub fn is_hooks_module(source: &str) -> bool {
    HOOKS_MODULES.contains(&source)
}

/// The hooks module a wrong import source most likely meant: the same package's `/hooks`
/// when the package is right, else the closest name.
pub fn suggest_hooks_module(source: &str) -> &'static str {
    if let Some(package) = SDK_PACKAGES.iter().position(|package| source.starts_with(package)) {
        return HOOKS_MODULES[package];
    }
    HOOKS_MODULES
        .iter()
        .copied()
        .max_by(|a, b| strsim::jaro_winkler(source, a).total_cmp(&strsim::jaro_winkler(source, b)))
        .unwrap_or(HOOKS_MODULES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_package_s_hooks_module() {
        assert_eq!(suggest_hooks_module("@cursor/bdk"), "@cursor/bdk/hooks");
        assert_eq!(suggest_hooks_module("@grok/agent-sdk/memory"), "@grok/agent-sdk/hooks");
        assert_eq!(suggest_hooks_module("@cursor/july/hook"), "@cursor/july/hooks");
        assert_eq!(suggest_hooks_module("@grok/agentsdk/hooks"), "@grok/agent-sdk/hooks");
    }
}
