//! How the project's code is run, decided once for `validate` and `run`: which modules the
//! hooks load ([`graph`]), where each import leads ([`resolver`], oxc_resolver with the
//! project's tsconfig), how each TypeScript module is compiled for Node 20 ([`transform`],
//! [`commonjs`]) and where compiled code is kept ([`cache`]).
//!
//! ```text
//!   hooks ─▶ graph::walk ─▶ transform (or cache hit) ─▶ resolver ─▶ next modules …
//!                │
//!                ├─▶ diagnostics (validate: unresolved-import, unsupported-syntax, …)
//!                └─▶ manifest ─▶ the runtime's loader (module.register + require hooks)
//! ```

pub mod big_modules;
pub mod cache;
pub mod commonjs;
pub mod commonjs_only;
pub mod compiled;
pub mod exports;
pub mod graph;
pub mod installed;
pub mod line_starts;
pub mod link;
pub mod not_installed;
pub mod on_demand;
pub mod resolver;
pub mod transform;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::protocol::{Manifest, ManifestFormat, ManifestModule, SdkFiles};
use graph::ModuleGraph;
use resolver::{ModuleFormat, Target};

/// A module Node.js would have to load from a path that is not UTF-8 text: Node takes
/// module paths as strings, so no string names it.
#[derive(Debug)]
pub struct NotUtf8Path(pub PathBuf);

impl std::fmt::Display for NotUtf8Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Node.js cannot load `{}`: its path is not UTF-8 text, and Node takes module paths as strings",
            crate::text::untrusted::escape_path(&self.0)
        )
    }
}

impl std::error::Error for NotUtf8Path {}

/// `path` as the string Node is given for it.
fn node_path(path: &Path) -> Result<String, NotUtf8Path> {
    path.to_str().map(str::to_owned).ok_or_else(|| NotUtf8Path(path.to_path_buf()))
}

/// What the runtime's loader needs: for each module, its format and compiled code; for each
/// importer, where its specifiers lead. Paths are absolute; built-ins are left to Node.
pub fn manifest(graph: &ModuleGraph, runtime_dir: &Path) -> Result<Manifest, NotUtf8Path> {
    let sdk_dir = runtime_dir.join(crate::sdk::files::RUNTIME_SDK_FOLDER);
    let mut modules = IndexMap::new();
    let mut resolutions = IndexMap::new();
    for module in &graph.modules {
        let key = node_path(&module.path)?;
        let code = module.code.as_deref().map(node_path).transpose()?;
        let format = match module.format {
            ModuleFormat::Esm => ManifestFormat::Module,
            ModuleFormat::CommonJs => ManifestFormat::Commonjs,
            ModuleFormat::Json => ManifestFormat::Json,
            ModuleFormat::Other => ManifestFormat::Other,
        };
        modules.insert(key.clone(), ManifestModule { format, code, exports: module.exports.clone() });
        let mut resolved = IndexMap::new();
        for (specifier, target) in &module.resolved {
            let path = match target {
                Target::File(path) => path.clone(),
                Target::Sdk(sdk) => sdk_dir.join(sdk.file_name(module.format)),
                Target::Helper(name) => runtime_dir.join("helpers").join(format!("{name}.cjs")),
                Target::Builtin => continue,
            };
            resolved.insert(specifier.clone(), node_path(&path)?);
        }
        resolutions.insert(key, resolved);
    }
    Ok(Manifest { modules, resolutions, sdk: sdk_modules(&sdk_dir)? })
}

/// Every SDK specifier and the runtime's files for it, for code the graph did not reach
/// (a package that imports the SDK itself).
fn sdk_modules(sdk_dir: &Path) -> Result<IndexMap<String, SdkFiles>, NotUtf8Path> {
    let specifiers = crate::sdk::SDK_PACKAGES
        .iter()
        .chain(&crate::sdk::HOOKS_MODULES)
        .chain(&crate::sdk::MEMORY_MODULES)
        .chain(&crate::sdk::EXTENSIONS_MODULES)
        .chain(&crate::sdk::TESTING_MODULES);
    let mut table = IndexMap::new();
    for specifier in specifiers {
        let Some(module) = resolver::SdkModule::of(specifier) else { continue };
        let file = |format| node_path(&sdk_dir.join(module.file_name(format)));
        table.insert(
            (*specifier).to_owned(),
            SdkFiles { import: file(ModuleFormat::Esm)?, require: file(ModuleFormat::CommonJs)? },
        );
    }
    Ok(table)
}
