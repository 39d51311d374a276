//! Modules the hooks reach only by a name computed at run time (`import(name)`,
//! `require(name)`): no string literal names them, so the project check could not walk to
//! them. The runtime asks for each as it runs ([`ModuleRequest`]); [`OnDemand::answer`]
//! resolves it as `run` would, compiles what it reaches into the same cache and answers
//! where it leads, with the manifest for it ([`ModuleAnswer`]).
//!
//! The runtime of `run` and `dev` asks over a channel of its own, answered by the binary
//! that started it ([`crate::runtime::modules`]); the test runner's processes, which have
//! no channel, run `agent-sdk __load-module` ([`crate::commands::load_module`]).

use std::path::{Path, PathBuf};

use super::cache::Cache;
use super::graph;
use super::resolver::{ImportKind, Resolver, Target};
use crate::diagnostics::Severity;
// The module channel's lines are the runtime protocol's (one schema across the Node boundary).
pub use crate::protocol::{ModuleAnswer, ModuleRequest};
use crate::state::StateRoot;

/// Answers the requests of one runtime, for the project at `root`: one resolver and one
/// cache, kept warm from one request to the next.
pub struct OnDemand {
    root: PathBuf,
    resolver: Resolver,
    cache: Cache,
    runtime_dir: PathBuf,
}

impl OnDemand {
    /// For the project at `root` (absolute, links resolved), whose state root is `state_root`,
    /// run by the runtime in `runtime_dir` (whose SDK its manifests name).
    pub fn new(root: &Path, state_root: &StateRoot, runtime_dir: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            resolver: Resolver::new(root),
            cache: Cache::new(state_root),
            runtime_dir: runtime_dir.to_path_buf(),
        }
    }

    /// Resolves what `request` asks for, and compiles what it reaches unless Node loads it
    /// as it is.
    pub fn answer(&self, request: &ModuleRequest) -> ModuleAnswer {
        let target = match &request.from {
            Some(importer) => {
                let kind = if request.require { ImportKind::LazyRequire } else { ImportKind::Dynamic };
                let format = self.resolver.format_of(importer);
                match self.resolver.resolve(importer, format, &request.specifier, kind) {
                    Ok(Target::File(path)) => path,
                    Ok(_) => return ModuleAnswer::Found { target: None, manifest: None },
                    Err(unresolved) => {
                        let error = format!("Cannot find module '{}': {}", request.specifier, unresolved.tried);
                        return ModuleAnswer::Refused { error };
                    }
                }
            }
            None => PathBuf::from(&request.specifier),
        };
        let target = target.canonicalize().unwrap_or(target);
        // The rule of the walk from the hooks: a literal import of a JSON file (or of a
        // package's JavaScript) is left to Node, and so is a computed one.
        if !graph::is_walked(&target) {
            return ModuleAnswer::Found { target: Some(target), manifest: None };
        }
        let modules = graph::walk_files(&self.root, std::slice::from_ref(&target), &self.resolver, Some(&self.cache));
        let first_error = modules.diagnostics.iter().find(|diagnostic| diagnostic.severity() == Severity::Error);
        if let Some(error) = first_error {
            let at = error.label.as_ref().map(|label| format!(":{}:{}", label.start_at.line, label.start_at.column));
            let path = error.path.clone().unwrap_or_default();
            return ModuleAnswer::Refused { error: format!("{} (at {path}{})", error.message, at.unwrap_or_default()) };
        }
        if target.to_str().is_none() {
            return ModuleAnswer::Refused { error: super::NotUtf8Path(target).to_string() };
        }
        match super::manifest(&modules, &self.runtime_dir) {
            Ok(manifest) => ModuleAnswer::Found { target: Some(target), manifest: Some(Box::new(manifest)) },
            Err(problem) => ModuleAnswer::Refused { error: problem.to_string() },
        }
    }
}
