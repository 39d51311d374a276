//! `agent-sdk __load-module`: asked by the hook runtime (never by a user) for a module the
//! project check could not reach, because no string literal imports it (`import(name)`
//! of a computed name). It resolves the import as `run` would, compiles what it reaches
//! into the same cache, and prints the manifest for it (`{ target, manifest }`, or
//! `{ error }` with what `validate` would have said) as one JSON line.

use serde_json::json;

use crate::cli::LoadModuleArgs;
use crate::diagnostics::Severity;
use crate::exit_status::ExitStatus;
use crate::loader::cache::Cache;
use crate::loader::graph;
use crate::loader::resolver::{ImportKind, Resolver, Target};
use crate::printer::Printer;
use crate::state::StateRoot;

/// Prints the manifest of the module `args` names; exit 0 whether or not it loads (the
/// runtime reads the answer), 2 only when the project itself cannot be used.
pub fn load_module(args: &LoadModuleArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let root = args.dir.canonicalize()?;
    let state_root = StateRoot::create(&root)?;
    let resolver = Resolver::new(&root);
    let target = match &args.from {
        Some(importer) => {
            let kind = if args.require { ImportKind::LazyRequire } else { ImportKind::Dynamic };
            match resolver.resolve(importer, resolver.format_of(importer), &args.specifier, kind) {
                Ok(Target::File(path)) => path,
                Ok(_) => return answer(printer, json!({ "target": null })),
                Err(unresolved) => {
                    let error = format!("Cannot find module '{}': {}", args.specifier, unresolved.tried);
                    return answer(printer, json!({ "error": error }));
                }
            }
        }
        None => std::path::PathBuf::from(&args.specifier),
    };
    let target = target.canonicalize().unwrap_or(target);
    let cache = Cache::new(&state_root);
    let modules = graph::walk_files(&root, std::slice::from_ref(&target), &resolver, Some(&cache));
    let first_error = modules.diagnostics.iter().find(|diagnostic| diagnostic.severity() == Severity::Error);
    if let Some(error) = first_error {
        let at = error.label.as_ref().map(|label| format!(":{}:{}", label.start_at.line, label.start_at.column));
        let path = error.path.clone().unwrap_or_default();
        let error = format!("{} (at {path}{})", error.message, at.unwrap_or_default());
        return answer(printer, json!({ "error": error }));
    }
    let manifest = crate::loader::manifest(&modules, &state_root.runtime());
    match (target.to_str(), manifest) {
        (Some(target), Ok(manifest)) => answer(printer, json!({ "target": target, "manifest": manifest })),
        (None, _) => answer(printer, json!({ "error": crate::loader::NotUtf8Path(target).to_string() })),
        (_, Err(problem)) => answer(printer, json!({ "error": problem.to_string() })),
    }
}

fn answer(printer: &Printer, value: serde_json::Value) -> anyhow::Result<ExitStatus> {
    printer.stdout(&format!("{value}\n"))?;
    Ok(ExitStatus::Success)
}
