//! The modules Node will load from the hooks: each hook's static imports followed through
//! the project's own code (and any TypeScript, wherever it lives), every module compiled
//! or scanned, every import resolved. `validate` reports what would fail to load; `run`
//! hands the same graph to the runtime, so the two never disagree.
//!
//! Packages under `node_modules` are resolved but not walked into: Node loads them as
//! they are (TypeScript inside one, e.g. a workspace package whose `exports` point at
//! `.ts`, is walked, because only we can compile it).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::cache::{Cache, Cached};
use super::compiled::{self, Compiled, Problem, ProblemKind};
use super::exports::OwnExports;
use super::link::{self, Linker, Walked};
use super::resolver::{ModuleFormat, Resolver, Target, TsOptions, Unresolved, display_path, is_typescript};
use super::transform;
use crate::diagnostics::{Code, Diagnostic, SourceFile};

/// A module the runtime will load.
#[derive(Debug, Clone)]
pub struct Module {
    /// Absolute, links resolved.
    pub path: PathBuf,
    pub format: ModuleFormat,
    /// The compiled code (in the cache) Node runs instead of the source.
    pub code: Option<PathBuf>,
    /// For TypeScript compiled to CommonJS: the names the ES module standing for it exports
    /// besides `default`, all Node's lexer would find, re-exports followed ([`link`]).
    ///
    /// [`link`]: super::link
    pub exports: Vec<String>,
    /// What its own text exports.
    pub own: OwnExports,
    /// Where each of its imports leads.
    pub resolved: Vec<(String, Target)>,
}

/// What the walk found.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    /// Every module reached, hooks first, in the order they were reached.
    pub modules: Vec<Module>,
    /// For each entry (hook) in order: the first error among the modules it reaches.
    pub entry_errors: Vec<Option<Code>>,
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every module with a labelled diagnostic, by display path.
    pub sources: HashMap<String, String>,
    /// Modules compiled in this walk (not found in the cache).
    pub compiled: usize,
    /// The cache keys of every module reached: the entries the runtime is about to load.
    pub cache_keys: HashSet<String>,
}

/// One module's result before it joins the graph.
pub struct Visited {
    module: Module,
    /// Its path as the user sees it.
    shown: String,
    diagnostics: Vec<Diagnostic>,
    source: Option<(String, String)>,
    /// Files it leads to that are walked too.
    next: Vec<PathBuf>,
    /// Its imports as compiled, for linking.
    imports: Vec<compiled::Import>,
    compiled: bool,
    /// Its entry in the cache, when there is a cache.
    cache_key: Option<String>,
}

/// Walks on from `entries` (the hooks, already visited with [`visit_entry`] in the pass
/// that analysed them). `root` is the project folder (absolute, links resolved), which
/// display paths are relative to; `cache` stores compiled code (`None`: compile in memory
/// only, as `validate` does).
pub fn walk(
    root: &Path,
    entries: Vec<Visited>,
    resolver: &Resolver,
    cache: Option<&Cache>,
    pool: Option<&rayon::ThreadPool>,
) -> ModuleGraph {
    let entry_paths: Vec<PathBuf> = entries.iter().map(|entry| entry.module.path.clone()).collect();
    let mut seen: HashSet<PathBuf> = entry_paths.iter().cloned().collect();
    let mut visited: HashMap<PathBuf, Visited> = HashMap::new();
    let mut order = Vec::new();
    let mut results = entries;
    loop {
        let mut frontier = Vec::new();
        for result in results {
            for next in &result.next {
                if seen.insert(next.clone()) {
                    frontier.push(next.clone());
                }
            }
            order.push(result.module.path.clone());
            visited.insert(result.module.path.clone(), result);
        }
        if frontier.is_empty() {
            break;
        }
        let visit_all = || -> Vec<Visited> {
            frontier.par_iter().map(|path| visit(path, display_path(root, path), resolver, cache)).collect()
        };
        results = match pool {
            Some(pool) => pool.install(visit_all),
            None => visit_all(),
        };
    }
    link_all(&mut visited, resolver, pool);
    assemble(&entry_paths, &order, visited)
}

/// Walks from `files` (absolute, links resolved) as if each were a hook: what the runtime
/// needs for a module no string literal reaches (`import(name)` of a computed name). The
/// modules are compiled on the analysis pool's threads, whose stacks parsing needs.
pub fn walk_files(root: &Path, files: &[PathBuf], resolver: &Resolver, cache: Option<&Cache>) -> ModuleGraph {
    let pool = crate::parse::analysis_pool();
    let visit_all = || files.par_iter().map(|path| visit(path, display_path(root, path), resolver, cache)).collect();
    let entries = match pool {
        Some(pool) => pool.install(visit_all),
        None => visit_all(),
    };
    walk(root, entries, resolver, cache, pool)
}

fn assemble(entries: &[PathBuf], order: &[PathBuf], mut visited: HashMap<PathBuf, Visited>) -> ModuleGraph {
    let mut graph = ModuleGraph {
        entry_errors: entries.iter().map(|entry| first_error(entry, &visited)).collect(),
        ..ModuleGraph::default()
    };
    for path in order {
        let Some(result) = visited.remove(path) else { continue };
        graph.compiled += usize::from(result.compiled);
        graph.cache_keys.extend(result.cache_key);
        graph.diagnostics.extend(result.diagnostics);
        if let Some((shown, text)) = result.source {
            graph.sources.insert(shown, text);
        }
        graph.modules.push(result.module);
    }
    graph
}

/// The first error (in walk order) among the modules `entry` reaches.
fn first_error(entry: &Path, visited: &HashMap<PathBuf, Visited>) -> Option<Code> {
    let mut stack = vec![entry.to_path_buf()];
    let mut seen = HashSet::new();
    while let Some(path) = stack.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(result) = visited.get(&path) else { continue };
        if let Some(error) =
            result.diagnostics.iter().find(|diagnostic| diagnostic.severity() == crate::diagnostics::Severity::Error)
        {
            return Some(error.code);
        }
        stack.extend(result.next.iter().rev().cloned());
    }
    None
}

/// A hook, read and parsed by the caller (who analysed it): compiled from that parse (or
/// found in the cache) and its imports resolved. `path` has its links resolved; `shown`
/// is its path as the user sees it.
pub fn visit_entry<'a>(
    path: &Path,
    shown: &str,
    source: &str,
    parsed: (&'a oxc::allocator::Allocator, oxc::ast::ast::Program<'a>),
    resolver: &Resolver,
    cache: Option<&Cache>,
) -> Visited {
    let (allocator, program) = parsed;
    let mut visited = Visited::new(path, shown.to_owned(), resolver.format_of(path));
    visited.compile(source, resolver, cache, |format, options, output| {
        transform::compile_program(allocator, program, path, format, options, output)
    });
    visited
}

/// Reads, compiles (or finds in the cache) and resolves one module the hooks reach.
fn visit(path: &Path, shown: String, resolver: &Resolver, cache: Option<&Cache>) -> Visited {
    let mut visited = Visited::new(path, shown, resolver.format_of(path));
    match resolver.read_source(path) {
        Ok(source) => visited.compile(&source, resolver, cache, |format, options, output| {
            super::big_modules::compile(path, &source, format, options, output)
        }),
        Err(error) => visited.diagnostics.push(unreadable(&visited.shown, &error)),
    }
    visited
}

impl Visited {
    fn new(path: &Path, shown: String, format: ModuleFormat) -> Self {
        let module = Module {
            path: path.to_path_buf(),
            format,
            code: None,
            exports: Vec::new(),
            own: OwnExports::default(),
            resolved: Vec::new(),
        };
        Self {
            module,
            shown,
            diagnostics: Vec::new(),
            source: None,
            next: Vec::new(),
            imports: Vec::new(),
            compiled: false,
            cache_key: None,
        }
    }

    /// Finds the module in the cache or compiles it with `compile`, then resolves its imports.
    fn compile(
        &mut self,
        source: &str,
        resolver: &Resolver,
        cache: Option<&Cache>,
        compile: impl FnOnce(ModuleFormat, &TsOptions, compiled::Output) -> Result<Compiled, Vec<Problem>>,
    ) {
        let path = self.module.path.clone();
        let format = self.module.format;
        if let Some((manifest, reason)) = resolver.broken_package_json(&path) {
            return self.diagnostics.push(broken_package_json(&self.shown, &manifest, &reason));
        }
        let options = match resolver.ts_options(&path) {
            Ok(options) => options,
            Err(error) => return self.diagnostics.push(bad_tsconfig(&self.shown, &error)),
        };
        let key = cache.map(|_| Cache::key(&path, source, format, &options)).unwrap_or_default();
        self.cache_key = cache.map(|_| key.clone());
        let compiled = match cache.and_then(|cache| cache.get(&key)) {
            Some(cached) => cached,
            None => {
                self.compiled = true;
                let output = if cache.is_some() { compiled::Output::Code } else { compiled::Output::Check };
                match compile(format, &options, output) {
                    Ok(compiled) => match cache.map(|cache| cache.put(&key, &compiled)) {
                        Some(Ok(stored)) => stored,
                        Some(Err(error)) => return self.diagnostics.push(unreadable(&self.shown, &error)),
                        None => Cached { imports: compiled.imports, exports: compiled.exports, code: None },
                    },
                    Err(problems) => {
                        let file = SourceFile::new(&self.shown, source);
                        self.diagnostics.extend(problems.iter().map(|problem| problem_diagnostic(&file, problem)));
                        self.source = Some((self.shown.clone(), source.to_owned()));
                        return;
                    }
                }
            }
        };
        self.module.code = compiled.code;
        self.module.own = compiled.exports;
        let file = SourceFile::new(&self.shown, source);
        for import in &compiled.imports {
            match resolver.resolve(&path, format, &import.specifier, import.kind) {
                Ok(target) => {
                    if let Target::File(file) = &target
                        && is_walked(file)
                        && !self.next.contains(file)
                    {
                        self.next.push(file.clone());
                    }
                    self.module.resolved.push((import.specifier.clone(), target));
                }
                Err(_) if import.kind.may_fail() => {}
                Err(unresolved) => self.diagnostics.push(unresolved_import(&file, import, &unresolved)),
            }
        }
        // Only an ES module's named imports are linked (see `link_all`).
        if format == ModuleFormat::Esm {
            self.imports = compiled.imports.into_iter().filter(|import| !import.names.is_empty()).collect();
        }
        if self.diagnostics.iter().any(|diagnostic| diagnostic.label.is_some()) {
            self.source = Some((self.shown.clone(), source.to_owned()));
        }
    }
}

/// Links every module reached: an ES module's imports of names its targets do not export
/// are errors of it, and a TypeScript module run as CommonJS gets the names its facade
/// exports.
fn link_all(visited: &mut HashMap<PathBuf, Visited>, resolver: &Resolver, pool: Option<&rayon::ThreadPool>) {
    let (missing, facades) = {
        let walked = visited
            .iter()
            .map(|(path, result)| {
                let module = &result.module;
                (path.as_path(), Walked { format: module.format, own: &module.own, resolved: &module.resolved })
            })
            .collect();
        let linker = Linker::new(resolver, walked);
        // The packages' files ES modules take names from are read side by side first.
        let imported: HashSet<&Path> = visited
            .values()
            .filter(|result| result.module.format == ModuleFormat::Esm)
            .flat_map(|result| {
                let named = result.imports.iter().filter(|import| !import.names.is_empty());
                named.filter_map(|import| {
                    match result.module.resolved.iter().find(|(specifier, _)| *specifier == import.specifier) {
                        Some((_, Target::File(path))) => Some(path.as_path()),
                        _ => None,
                    }
                })
            })
            .collect();
        let imported: Vec<&Path> = imported.into_iter().collect();
        let read_all = || imported.par_iter().for_each(|path| linker.read_ahead(path));
        match pool {
            Some(pool) => pool.install(read_all),
            None => read_all(),
        }
        let mut missing = Vec::new();
        let mut facades = Vec::new();
        for (path, result) in visited.iter() {
            let module = &result.module;
            if module.format == ModuleFormat::CommonJs && module.code.is_some() {
                facades.push((path.clone(), linker.facade_names(path)));
            }
            if module.format != ModuleFormat::Esm || result.imports.iter().all(|import| import.names.is_empty()) {
                continue;
            }
            let read = || match &result.source {
                Some((_, text)) => Some(text.clone()),
                None => resolver.read_source(path).ok(),
            };
            if let Some((found, source)) =
                link::missing_exports(&linker, &result.shown, read, &result.imports, &module.resolved)
            {
                missing.push((path.clone(), found, source));
            }
        }
        (missing, facades)
    };
    for (path, names) in facades {
        if let Some(result) = visited.get_mut(&path) {
            result.module.exports = names;
        }
    }
    for (path, found, source) in missing {
        if let Some(result) = visited.get_mut(&path) {
            result.diagnostics.extend(found);
            result.source.get_or_insert_with(|| (result.shown.clone(), source));
        }
    }
}

/// Whether the walk follows into `path`: TypeScript anywhere (only we can compile it),
/// JavaScript outside `node_modules` (the project's own code).
pub fn is_walked(path: &Path) -> bool {
    let in_dependencies = path.components().any(|component| component.as_os_str() == "node_modules");
    let javascript = matches!(path.extension().and_then(|extension| extension.to_str()), Some("js" | "mjs" | "cjs"));
    is_typescript(path) || (javascript && !in_dependencies)
}

fn unresolved_import(file: &SourceFile, import: &compiled::Import, unresolved: &Unresolved) -> Diagnostic {
    let help = format!("{}; {}", unresolved.tried, unresolved.fix);
    if import.span == (0, 0) {
        // An import the compiler added (a helper): nothing in the source to point at.
        let message = format!("the compiled module imports `{}`, which cannot be found", import.specifier);
        return Diagnostic::new(Code::UnresolvedImport, message, help).with_path(file.path);
    }
    let message = format!("`{}` cannot be found, so this module would fail to load", import.specifier);
    file.diagnostic(Code::UnresolvedImport, import.span, "imported here", message, help)
}

fn problem_diagnostic(file: &SourceFile, problem: &Problem) -> Diagnostic {
    let code = match problem.kind {
        ProblemKind::Syntax => Code::ParseError,
        ProblemKind::Unsupported => Code::UnsupportedSyntax,
    };
    let label = match problem.kind {
        ProblemKind::Syntax => "here",
        ProblemKind::Unsupported => "not supported",
    };
    match problem.span {
        Some(span) => file.diagnostic(code, span, label, problem.message.clone(), problem.help.clone()),
        None => Diagnostic::new(code, problem.message.clone(), problem.help.clone()).with_path(file.path),
    }
}

fn unreadable(shown: &str, error: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        format!("cannot be read: {}", crate::text::io_error::describe(error)),
        "make sure the file exists and is readable by this user",
    )
    .with_path(shown)
}

fn broken_package_json(shown: &str, manifest: &str, what_is_wrong: &str) -> Diagnostic {
    Diagnostic::new(
        Code::BrokenPackageJson,
        format!("cannot be loaded: Node reads `{manifest}` to load it, and that {what_is_wrong}"),
        format!("fix the JSON in `{manifest}`"),
    )
    .with_path(shown)
}

fn bad_tsconfig(shown: &str, error: &str) -> Diagnostic {
    Diagnostic::new(
        Code::UnresolvedImport,
        format!("its tsconfig cannot be read: {error}"),
        "fix the tsconfig.json that governs this module (and every file it `extends`)",
    )
    .with_path(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typescript_everywhere_and_the_project_s_javascript_are_walked() {
        assert!(is_walked(Path::new("/p/node_modules/@acme/util/src/index.ts")));
        assert!(is_walked(Path::new("/p/bot/lib/x.js")));
        assert!(!is_walked(Path::new("/p/node_modules/left-pad/index.js")));
        assert!(!is_walked(Path::new("/p/bot/data.json")));
    }
}
