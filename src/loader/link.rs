//! Linking, as Node does before an ES module runs: every name an `import { … }` or
//! `export { … } from` takes must be exported by the module it names, or the importer fails
//! to load (`does not provide an export named …`). A module's exports are its own
//! ([`super::exports`]) plus all of every module it re-exports, followed transitively:
//! through the project's modules (from the walk), the SDK's, and the packages' files, read
//! here on demand. Where any part cannot be known, nothing is judged (never a false error).
//!
//! The same names are the exports of the ES module standing for a TypeScript module run as
//! CommonJS (the runtime's facade), so what `validate` accepts is what `run` links.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use oxc::allocator::Allocator;
use oxc::parser::Parser;
use oxc::span::SourceType;

use super::compiled::{Import, ImportedName};
use super::exports::{Language, OwnExports, commonjs_exports, own_exports};
use super::resolver::{ImportKind, ModuleFormat, Resolver, SdkModule, Target};
use crate::diagnostics::{Code, Diagnostic, Fix, SourceFile};

/// A package file bigger than this is not read for its exports (its imports are not judged).
const MAX_SCANNED_BYTES: u64 = 8 << 20;

/// How many modules one module's re-exports may reach before its names count as unknown.
const MAX_RE_EXPORTED_MODULES: usize = 10_000;

/// What a module exports, all re-exports followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exports {
    Known {
        names: BTreeSet<String>,
        default: bool,
    },
    /// Some of its names cannot be known statically.
    Unknown,
}

impl Exports {
    /// Whether an import of `name` (`default` for a default import) links, or cannot be judged.
    pub fn links(&self, name: &str) -> bool {
        match self {
            Exports::Known { names, default } => {
                if name == "default" {
                    *default
                } else {
                    names.contains(name)
                }
            }
            Exports::Unknown => true,
        }
    }
}

/// What the walk knows of one module it reached.
pub struct Walked<'w> {
    pub format: ModuleFormat,
    pub own: &'w OwnExports,
    /// Where each of its imports leads.
    pub resolved: &'w [(String, Target)],
}

/// Answers what modules export, for one walk (package files are read once).
pub struct Linker<'w> {
    resolver: &'w Resolver,
    walked: HashMap<&'w Path, Walked<'w>>,
    scanned: Mutex<HashMap<PathBuf, Option<(ModuleFormat, OwnExports)>>>,
    /// [`Linker::file_exports`] of each file asked about, once.
    followed: Mutex<HashMap<PathBuf, Exports>>,
}

impl<'w> Linker<'w> {
    pub fn new(resolver: &'w Resolver, walked: HashMap<&'w Path, Walked<'w>>) -> Self {
        Self { resolver, walked, scanned: Mutex::default(), followed: Mutex::default() }
    }

    /// What the module at `target` exports to an ES module importing it.
    pub fn exports(&self, target: &Target) -> Exports {
        match target {
            Target::Sdk(module) => sdk_exports(*module).clone(),
            Target::File(path) => self.file_exports(path),
            Target::Builtin | Target::Helper(_) => Exports::Unknown,
        }
    }

    /// Whether the module at `target` exports every one of `names`, found without reading
    /// all it re-exports when that can be avoided: its own names first, then the modules it
    /// re-exports under one of the names sought (`export * from "./format.js"` for
    /// `format`, as date-fns and lodash-es lay out one export per file). `false` means some
    /// may be missing: [`Linker::exports`] says for sure.
    pub fn exports_all(&self, target: &Target, names: &[&str]) -> bool {
        let Target::File(path) = target else { return false };
        let Some((format, own)) = self.module(path) else { return false };
        let mut sought: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| {
                if *name == "default" {
                    !(own.default || format != ModuleFormat::Esm)
                } else {
                    !own.names.iter().any(|own| own == name)
                }
            })
            .collect();
        if sought.contains(&"default") {
            return false;
        }
        for specifier in &own.stars {
            if sought.is_empty() {
                break;
            }
            let Some(stem) = named_after(specifier) else { continue };
            if !sought.contains(&stem) {
                continue;
            }
            let Some(target) = self.star_target(path, format, specifier) else { continue };
            if let Exports::Known { names: found, .. } = self.exports(&target) {
                sought.retain(|name| !found.contains(*name));
            }
        }
        sought.is_empty()
    }

    /// The exports of the file at `path`: its own and, breadth first, those of every module
    /// its `export *` (or CommonJS re-exports) reach; `default` is never re-exported.
    pub fn file_exports(&self, path: &Path) -> Exports {
        if let Some(known) = self.followed.lock().ok().and_then(|followed| followed.get(path).cloned()) {
            return known;
        }
        let exports = self.follow_re_exports(path);
        if let Ok(mut followed) = self.followed.lock() {
            followed.insert(path.to_path_buf(), exports.clone());
        }
        exports
    }

    /// [`Linker::file_exports`], worked out.
    fn follow_re_exports(&self, path: &Path) -> Exports {
        let Some((format, own)) = self.module(path) else { return Exports::Unknown };
        let default = own.default || format != ModuleFormat::Esm;
        let mut names: BTreeSet<String> = own.names.iter().cloned().collect();
        let mut seen: HashSet<PathBuf> = HashSet::from([path.to_path_buf()]);
        let mut queue: Vec<(PathBuf, ModuleFormat, String)> =
            own.stars.into_iter().map(|star| (path.to_path_buf(), format, star)).collect();
        while let Some((from, from_format, specifier)) = queue.pop() {
            let Some(target) = self.star_target(&from, from_format, &specifier) else { return Exports::Unknown };
            let path = match target {
                Target::Sdk(module) => match sdk_exports(module) {
                    Exports::Known { names: sdk_names, .. } => {
                        names.extend(sdk_names.iter().cloned());
                        continue;
                    }
                    Exports::Unknown => return Exports::Unknown,
                },
                Target::File(path) => path,
                Target::Builtin | Target::Helper(_) => return Exports::Unknown,
            };
            if seen.contains(&path) {
                continue;
            }
            if seen.len() >= MAX_RE_EXPORTED_MODULES {
                return Exports::Unknown;
            }
            let Some((star_format, star_own)) = self.module(&path) else { return Exports::Unknown };
            // A CommonJS module re-exports with `require`, which cannot load an ES module.
            if from_format == ModuleFormat::CommonJs && star_format == ModuleFormat::Esm {
                return Exports::Unknown;
            }
            names.extend(star_own.names.iter().cloned());
            queue.extend(star_own.stars.into_iter().map(|star| (path.clone(), star_format, star)));
            seen.insert(path);
        }
        Exports::Known { names, default }
    }

    /// A module's format and own exports; `None` when they cannot be known (unreadable,
    /// unparsable, or open).
    fn module(&self, path: &Path) -> Option<(ModuleFormat, OwnExports)> {
        let (format, own) = match self.walked.get(path) {
            Some(walked) => (walked.format, walked.own.clone()),
            None => self.scan(path)?,
        };
        (!own.open).then_some((format, own))
    }

    /// Where the re-export `specifier` of the module at `path` (run as `format`) leads;
    /// `None`: nowhere.
    fn star_target(&self, path: &Path, format: ModuleFormat, specifier: &str) -> Option<Target> {
        if let Some(walked) = self.walked.get(path) {
            return walked
                .resolved
                .iter()
                .find(|(resolved, _)| resolved == specifier)
                .map(|(_, target)| target.clone());
        }
        let kind = if format == ModuleFormat::CommonJs { ImportKind::Require } else { ImportKind::Static };
        self.resolver.resolve(path, format, specifier, kind).ok()
    }

    /// How Node runs the file at `path`.
    pub fn format_of(&self, path: &Path) -> ModuleFormat {
        self.walked.get(path).map_or_else(|| self.resolver.format_of(path), |walked| walked.format)
    }

    /// Reads the file at `path` for its exports now, if the walk did not (so several can be
    /// read at once).
    pub fn read_ahead(&self, path: &Path) {
        if !self.walked.contains_key(path) {
            self.scan(path);
        }
    }

    /// Reads a file the walk did not reach (a package's) for its own exports, once.
    fn scan(&self, path: &Path) -> Option<(ModuleFormat, OwnExports)> {
        if let Some(scanned) = self.scanned.lock().ok()?.get(path) {
            return scanned.clone();
        }
        let scanned = scan_file(path, self.resolver.format_of(path));
        self.scanned.lock().ok()?.insert(path.to_path_buf(), scanned.clone());
        scanned
    }

    /// The names a module run as CommonJS defines for an ES module importing it (what the
    /// runtime's facade exports besides `default`): all that Node's lexer would find.
    pub fn facade_names(&self, path: &Path) -> Vec<String> {
        match self.file_exports(path) {
            Exports::Known { names, .. } => names.into_iter().filter(|name| name != "__esModule").collect(),
            // What can be known still links.
            Exports::Unknown => self.walked.get(path).map(|walked| walked.own.names.clone()).unwrap_or_default(),
        }
    }
}

/// The name a module's file is named after: `format` for `./format.js`, `./format/index.js`.
fn named_after(specifier: &str) -> Option<&str> {
    let path = Path::new(specifier);
    let stem = path.file_stem()?.to_str()?;
    if stem == "index" { path.parent()?.file_name()?.to_str() } else { Some(stem) }
}

fn scan_file(path: &Path, format: ModuleFormat) -> Option<(ModuleFormat, OwnExports)> {
    match format {
        ModuleFormat::Json => return Some((format, OwnExports { default: true, ..OwnExports::default() })),
        ModuleFormat::Other => return None,
        ModuleFormat::Esm | ModuleFormat::CommonJs => {}
    }
    if std::fs::metadata(path).ok()?.len() > MAX_SCANNED_BYTES {
        return None;
    }
    let source = std::fs::read_to_string(path).ok()?;
    let language = Language::of(path);
    if format == ModuleFormat::CommonJs && language == Language::JavaScript {
        // Node lexes it; nothing more is needed from its syntax.
        return Some((format, commonjs_exports(&source)));
    }
    let source_type = if language == Language::TypeScript {
        SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts())
    } else {
        SourceType::mjs()
    };
    crate::parse::on_a_big_enough_stack(source.len(), || {
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, &source, source_type).parse();
        if parsed.panicked || parsed.diagnostics.errors().next().is_some() {
            return None;
        }
        Some((format, own_exports(&parsed.program, format, language)))
    })
    .flatten()
}

/// What an SDK module exports at run time: the names of the runtime's own ES module file.
pub fn sdk_exports(module: SdkModule) -> &'static Exports {
    static TABLE: OnceLock<HashMap<SdkModule, Exports>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        [SdkModule::Root, SdkModule::Hooks, SdkModule::Memory, SdkModule::Extensions, SdkModule::Testing]
            .into_iter()
            .map(|module| {
                let file = module.file_name(ModuleFormat::Esm);
                let text = crate::sdk::files::SDK_FILES.iter().find(|(name, _)| *name == file).map(|(_, text)| *text);
                let allocator = Allocator::default();
                let exports = match text {
                    Some(text) => {
                        let own = own_exports(
                            &Parser::new(&allocator, text, SourceType::mjs()).parse().program,
                            ModuleFormat::Esm,
                            Language::JavaScript,
                        );
                        Exports::Known { names: own.names.into_iter().collect(), default: own.default }
                    }
                    None => Exports::Unknown,
                };
                (module, exports)
            })
            .collect()
    });
    table.get(&module).unwrap_or(&Exports::Unknown)
}

/// The `hooks::missing-export` errors of one ES module's imports (`imports`, resolved to
/// `resolved`), in source order, with its text (read with `read`, shown as `shown`, only
/// when there is one); `None` when every import links.
pub fn missing_exports(
    linker: &Linker,
    shown: &str,
    read: impl FnOnce() -> Option<String>,
    imports: &[Import],
    resolved: &[(String, Target)],
) -> Option<(Vec<Diagnostic>, String)> {
    let mut missing = Vec::new();
    for import in imports.iter().filter(|import| import.kind == ImportKind::Static && !import.names.is_empty()) {
        let Some((_, target)) = resolved.iter().find(|(specifier, _)| *specifier == import.specifier) else { continue };
        let sought: Vec<&str> = import.names.iter().map(|name| name.name.as_str()).collect();
        if linker.exports_all(target, &sought) {
            continue;
        }
        let exports = linker.exports(target);
        let names: Vec<&ImportedName> = import.names.iter().filter(|name| !exports.links(&name.name)).collect();
        if let (false, Exports::Known { names: exported, .. }) = (names.is_empty(), exports) {
            missing.push((import, names, exported, target_kind(linker, target)));
        }
    }
    if missing.is_empty() {
        return None;
    }
    let text = read()?;
    let file = SourceFile::new(shown, &text);
    let diagnostics = missing
        .iter()
        .flat_map(|(import, names, exported, kind)| {
            names.iter().map(|name| missing_export(&file, import, name, exported, *kind)).collect::<Vec<_>>()
        })
        .collect();
    Some((diagnostics, text))
}

fn target_kind(linker: &Linker, target: &Target) -> TargetKind {
    match target {
        Target::File(path) => match linker.format_of(path) {
            ModuleFormat::Json => TargetKind::Json,
            ModuleFormat::CommonJs => TargetKind::CommonJs,
            _ if path.components().any(|part| part.as_os_str() == "node_modules") => TargetKind::Module,
            _ => TargetKind::ProjectModule,
        },
        _ => TargetKind::Module,
    }
}

fn missing_export(
    file: &SourceFile,
    import: &Import,
    name: &ImportedName,
    exported: &BTreeSet<String>,
    kind: TargetKind,
) -> Diagnostic {
    let specifier = &import.specifier;
    let listed: Vec<&String> = exported.iter().filter(|name| *name != "__esModule").collect();
    let (message, label) = if name.name == "default" {
        (
            format!("`{specifier}` has no default export, so this module would fail to load"),
            "no default export".to_owned(),
        )
    } else {
        (
            format!("`{specifier}` does not export `{}`, so this module would fail to load", name.name),
            format!("not exported by `{specifier}`"),
        )
    };
    let suggestion = (name.name != "default")
        .then(|| {
            crate::diagnostics::suggest::nearest(&name.name, listed.iter().map(|known| known.as_str()))
                .map(str::to_owned)
        })
        .flatten();
    let help = match (&suggestion, kind) {
        (Some(suggestion), _) => format!("did you mean `{suggestion}`? ({})", exported_list(specifier, &listed)),
        (None, TargetKind::Json) => format!(
            "a JSON module has only a default export: `import data from \"{specifier}\"`, then read `data.{}`",
            name.name
        ),
        (None, TargetKind::CommonJs) => format!(
            "{}; Node finds a CommonJS module's names by reading its text, not by running it (`exports.x = …`, `module.exports = {{ … }}` up to the first value it cannot read): import its default export and read the name from it (`import pkg from \"{specifier}\"`, then `pkg.{}`)",
            exported_list(specifier, &listed),
            name.name
        ),
        (None, TargetKind::Module | TargetKind::ProjectModule) if name.name == "default" => format!(
            "import the names it exports instead ({}), or `import * as name from \"{specifier}\"`",
            exported_list(specifier, &listed)
        ),
        (None, TargetKind::ProjectModule) => {
            format!("{}; fix the name, or export it from there", exported_list(specifier, &listed))
        }
        (None, TargetKind::Module) => format!("{}; fix the name", exported_list(specifier, &listed)),
    };
    let diagnostic = file.diagnostic(Code::MissingExport, name.span, label, message, help);
    match suggestion.and_then(|suggestion| rename_import_fix(file, name, &suggestion)) {
        Some(fix) => diagnostic.with_fix(fix),
        None => diagnostic,
    }
}

/// Imports `suggestion` in place of the missing name, keeping the local name the module
/// uses: `{ fromat as f }` becomes `{ format as f }`, `{ fromat }` becomes
/// `{ format as fromat }`. `None` in an installed package's file, or when a comment follows the
/// name (the text after it is then not known to be `as`, `,` or `}`).
fn rename_import_fix(file: &SourceFile, name: &ImportedName, suggestion: &str) -> Option<Fix> {
    if file.path.split('/').any(|part| part == "node_modules") {
        return None;
    }
    let (start, end) = name.span;
    let after = file.text.get(end as usize..)?.trim_start();
    if after.starts_with('/') {
        return None;
    }
    let aliased = after.strip_prefix("as").is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace()));
    let quoted = matches!(file.text.as_bytes().get(start as usize), Some(b'"' | b'\''));
    let edit = match (quoted, aliased) {
        (true, _) => file.string_literal_edit(start, end, suggestion),
        (false, true) => file.edit(start, end, suggestion),
        (false, false) => file.edit(start, end, format!("{suggestion} as {}", name.name)),
    };
    Some(Fix::safe(format!("Import `{suggestion}`"), vec![edit]))
}

#[derive(Clone, Copy)]
enum TargetKind {
    Json,
    CommonJs,
    /// An ES module of the project's own (not in `node_modules`).
    ProjectModule,
    Module,
}

fn exported_list(specifier: &str, names: &[&String]) -> String {
    const SHOWN: usize = 8;
    if names.is_empty() {
        return format!("`{specifier}` exports no names");
    }
    let mut shown: Vec<String> = names.iter().take(SHOWN).map(|name| format!("`{name}`")).collect();
    if names.len() > SHOWN {
        shown.push(format!("and {} more", names.len() - SHOWN));
    }
    format!("`{specifier}` exports {}", shown.join(", "))
}
