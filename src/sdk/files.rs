//! The SDK's own files (`src/runtime/node/sdk/`), embedded in the binary: ONE table, which
//! the hook runtime installs under the state root and `agent-sdk sdk` writes into each
//! package in `node_modules/`. A file added here reaches both with no other change.

/// Every file of the SDK, by its name in a package (and under the runtime's `sdk/`).
///
/// A module `<stem>` is `<stem>.mjs` (ES module), `<stem>.cjs` (CommonJS) and, when it is
/// hand-written, `<stem>.d.ts`; `index` is the package root. The declarations of `index`,
/// `hooks`, `memory` and `extensions` are written by [`super::declarations`] (`index`'s
/// generated from the event vocabulary).
pub const SDK_FILES: &[(&str, &str)] = &[
    ("hooks.cjs", include_str!("../runtime/node/sdk/hooks.cjs")),
    ("hooks.mjs", include_str!("../runtime/node/sdk/hooks.mjs")),
    ("extensions.cjs", include_str!("../runtime/node/sdk/extensions.cjs")),
    ("extensions.mjs", include_str!("../runtime/node/sdk/extensions.mjs")),
    ("memory.cjs", include_str!("../runtime/node/sdk/memory.cjs")),
    ("memory.mjs", include_str!("../runtime/node/sdk/memory.mjs")),
    ("index.cjs", include_str!("../runtime/node/sdk/index.cjs")),
    ("index.mjs", include_str!("../runtime/node/sdk/index.mjs")),
    ("context.cjs", include_str!("../runtime/node/sdk/context.cjs")),
    ("otel-api.cjs", include_str!("../runtime/node/sdk/otel-api.cjs")),
    ("telemetry.cjs", include_str!("../runtime/node/sdk/telemetry.cjs")),
    ("testing.cjs", include_str!("../runtime/node/sdk/testing.cjs")),
    ("testing.mjs", include_str!("../runtime/node/sdk/testing.mjs")),
    ("testing.d.ts", include_str!("../runtime/node/sdk/testing.d.ts")),
];

/// Every file of the SDK: the embedded ones, then the one generated from the event
/// vocabulary (`events.cjs`, the test kit's event defaults).
pub fn sdk_files() -> impl Iterator<Item = (&'static str, Cow<'static, str>)> {
    let embedded = SDK_FILES.iter().map(|&(name, text)| (name, Cow::Borrowed(text)));
    embedded
        .chain(std::iter::once((crate::sdk::event_examples::FILE, Cow::Owned(crate::sdk::event_examples::render()))))
}

use std::borrow::Cow;

/// The folder of the runtime the SDK files are installed in.
pub const RUNTIME_SDK_FOLDER: &str = "sdk";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file in `src/runtime/node/sdk/` is in the table, so neither the runtime nor
    /// the written packages miss one.
    #[test]
    fn the_table_holds_every_file_of_the_sdk_folder() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime/node/sdk");
        let mut on_disk: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut in_table: Vec<String> = SDK_FILES.iter().map(|(name, _)| (*name).to_owned()).collect();
        in_table.sort();
        assert_eq!(in_table, on_disk);
    }
}
