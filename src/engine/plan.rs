//! The plan a runtime loads hooks by: which hooks, from which modules, with the manifest
//! its loader serves them with. [`crate::session::plan`] makes it from a checked project;
//! the engine only reads it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::protocol::Manifest;

/// A hook as the runtime loads it.
#[derive(Debug, Clone)]
pub struct HookToLoad {
    pub name: String,
    /// `file://` URL of its source module.
    pub url: String,
    /// Source path relative to `--dir`.
    pub source: String,
    /// For a hook an extension mounts: its name inside the extension (`url` is then the
    /// mount file's).
    pub key: Option<String>,
}

/// The hooks a runtime loads, and the manifest its loader serves them with.
#[derive(Debug, Clone, Default)]
pub struct LoadPlan {
    pub hooks: Vec<HookToLoad>,
    pub manifest: Arc<Manifest>,
    /// Every file the hooks reach (for `dev` to watch).
    pub files: Vec<PathBuf>,
    /// The instructions the mounted extensions add to the agent's, in namespace order.
    pub instructions: Vec<String>,
}
