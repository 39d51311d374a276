//! Where an import leads, for `validate` and `run` alike: Node's ESM and CommonJS rules
//! (`exports`, `imports`, `main`, index files, built-ins) plus what TypeScript adds
//! (tsconfig `paths`/`baseUrl` through `extends`, `./x.js` written for `./x.ts`), with
//! `oxc_resolver`. Also which format Node runs a file in, and the tsconfig that governs it.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use oxc_resolver::{ResolveError, ResolveOptions, TsConfig, TsconfigDiscovery};

use super::installed::InstalledPackages;
use super::not_installed::{self, NotInstalled};
use crate::sdk;

/// How Node runs a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ModuleFormat {
    Esm,
    CommonJs,
    Json,
    /// A native add-on, WebAssembly, or anything else Node loads on its own.
    Other,
}

impl ModuleFormat {
    /// The name Node's loader hooks use.
    pub fn as_node_str(self) -> &'static str {
        match self {
            ModuleFormat::Esm => "module",
            ModuleFormat::CommonJs => "commonjs",
            ModuleFormat::Json => "json",
            ModuleFormat::Other => "other",
        }
    }
}

/// How a module asks for another: whether by `require` (CommonJS resolution) or by
/// `import`, and whether it must resolve for the module to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ImportKind {
    /// `import … from`, `export … from`: must resolve before the module runs; resolved
    /// as `require` where the module runs as CommonJS (it is compiled to one).
    Static,
    /// `require("…")` at the top of a module: runs as soon as the module does.
    Require,
    /// `require("…")` inside a function or `try`: the module's own business.
    LazyRequire,
    /// `import("…")`: the module's own business.
    Dynamic,
}

impl ImportKind {
    /// Whether a module whose import of this kind leads nowhere still loads.
    pub fn may_fail(self) -> bool {
        matches!(self, ImportKind::LazyRequire | ImportKind::Dynamic)
    }
}

/// The SDK modules the runtime provides itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SdkModule {
    Root,
    Hooks,
    Memory,
    Extensions,
    Testing,
}

impl SdkModule {
    pub fn of(specifier: &str) -> Option<Self> {
        if sdk::is_hooks_module(specifier) {
            Some(SdkModule::Hooks)
        } else if sdk::is_memory_module(specifier) {
            Some(SdkModule::Memory)
        } else if sdk::is_extensions_module(specifier) {
            Some(SdkModule::Extensions)
        } else if sdk::is_testing_module(specifier) {
            Some(SdkModule::Testing)
        } else if sdk::SDK_PACKAGES.contains(&specifier) {
            Some(SdkModule::Root)
        } else {
            None
        }
    }

    /// The runtime's file for this module, in the format of the importing code.
    pub fn file_name(self, format: ModuleFormat) -> &'static str {
        let esm = format == ModuleFormat::Esm;
        match self {
            SdkModule::Root if esm => "index.mjs",
            SdkModule::Root => "index.cjs",
            SdkModule::Hooks if esm => "hooks.mjs",
            SdkModule::Hooks => "hooks.cjs",
            SdkModule::Memory if esm => "memory.mjs",
            SdkModule::Memory => "memory.cjs",
            SdkModule::Extensions if esm => "extensions.mjs",
            SdkModule::Extensions => "extensions.cjs",
            SdkModule::Testing if esm => "testing.mjs",
            SdkModule::Testing => "testing.cjs",
        }
    }
}

/// The package the compiler imports its helpers from (`using`, legacy decorators); the
/// runtime provides each of [`HELPERS`] itself, so no npm package is needed.
pub const HELPERS_PACKAGE: &str = "@agent-sdk/compiler-helpers";

/// The helpers the runtime ships (`src/runtime/node/helpers/`): every one the compiler
/// emits for Node 20.
pub const HELPERS: [&str; 4] = ["decorate", "decorateMetadata", "decorateParam", "usingCtx"];

/// What a specifier resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Sdk(SdkModule),
    /// One of [`HELPERS`].
    Helper(&'static str),
    /// `node:fs`, `fs`, …: Node's own.
    Builtin,
    File(PathBuf),
}

/// An import that leads nowhere: what was tried, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// Where the resolver looked.
    pub tried: String,
    /// What the user can do.
    pub fix: String,
}

/// The TypeScript options that change how a module is compiled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TsOptions {
    pub experimental_decorators: bool,
    pub emit_decorator_metadata: bool,
    pub verbatim_module_syntax: bool,
    /// The tsconfig these came from, as the user sees its path.
    pub tsconfig: Option<String>,
    /// Whether that tsconfig has project references (which files it governs then depends
    /// on each file).
    pub has_references: bool,
}

/// Extensions tried for a specifier written without one: TypeScript's first, then Node's.
const EXTENSIONS: [&str; 4] = [".ts", ".js", ".json", ".node"];

/// One resolver per way of importing, sharing one file-system cache.
pub struct Resolver {
    /// The project folder, which paths in messages are shown relative to.
    root: PathBuf,
    import: oxc_resolver::Resolver,
    require: oxc_resolver::Resolver,
    /// ESM JavaScript, which Node resolves with full specifiers only.
    import_fully_specified: oxc_resolver::Resolver,
    /// The package scope of each folder looked at.
    package_scopes: Mutex<HashMap<PathBuf, PackageScope>>,
    /// [`Resolver::ts_options`] of each folder looked at (without project references).
    ts_options_by_folder: Mutex<HashMap<PathBuf, Result<TsOptions, String>>>,
    /// What is installed, for the explanation of a package that is not.
    installed: InstalledPackages,
    /// The workspaces' own packages, for the same.
    workspaces: not_installed::Workspaces,
    /// The text of files an editor holds unsaved, read instead of the disk's (`agent-sdk lsp`).
    overlay: RwLock<Arc<Overlay>>,
}

/// Unsaved text by file (absolute, links resolved): what an editor shows instead of the disk.
pub type Overlay = HashMap<PathBuf, String>;

/// What a folder's nearest package.json says.
#[derive(Debug, Clone)]
struct PackageScope {
    format: ModuleFormat,
    /// The package.json, when it cannot be read as JSON, and what is wrong with it (see
    /// [`crate::fs::json::JsonError::clause`]).
    broken: Option<(PathBuf, String)>,
}

impl Resolver {
    /// A resolver for the project at `root` (absolute, links resolved).
    pub fn new(root: &Path) -> Self {
        let options = |conditions: &[&str]| ResolveOptions {
            tsconfig: Some(TsconfigDiscovery::Auto),
            condition_names: conditions.iter().map(|name| (*name).to_owned()).collect(),
            extensions: EXTENSIONS.iter().map(|extension| (*extension).to_owned()).collect(),
            extension_alias: vec![
                (".js".into(), vec![".ts".into(), ".js".into()]),
                (".mjs".into(), vec![".mts".into(), ".mjs".into()]),
                (".cjs".into(), vec![".cts".into(), ".cjs".into()]),
            ],
            main_fields: vec!["main".into()],
            builtin_modules: true,
            symlinks: true,
            ..ResolveOptions::default()
        };
        let import = oxc_resolver::Resolver::new(options(&["node", "import"]));
        let require = import.clone_with_options(options(&["node", "require"]));
        let import_fully_specified =
            import.clone_with_options(ResolveOptions { fully_specified: true, ..options(&["node", "import"]) });
        Self {
            root: root.to_path_buf(),
            import,
            require,
            import_fully_specified,
            package_scopes: Mutex::default(),
            ts_options_by_folder: Mutex::default(),
            installed: InstalledPackages::default(),
            workspaces: not_installed::Workspaces::default(),
            overlay: RwLock::default(),
        }
    }

    /// Reads `overlay`'s text instead of the disk's for the files it holds, from now on.
    pub fn set_overlay(&self, overlay: Arc<Overlay>) {
        *self.overlay.write().unwrap_or_else(std::sync::PoisonError::into_inner) = overlay;
    }

    /// The unsaved text of `path` (absolute, links resolved), when an editor holds it.
    pub fn unsaved_text(&self, path: &Path) -> Option<String> {
        self.overlay.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(path).cloned()
    }

    /// The text of the module at `path`: the editor's when it holds it unsaved, else the disk's.
    pub fn read_source(&self, path: &Path) -> std::io::Result<String> {
        match self.unsaved_text(path) {
            Some(text) => Ok(text),
            None => std::fs::read_to_string(path),
        }
    }

    /// Resolves `specifier` imported by the file `importer` (absolute), which Node runs as
    /// `importer_format`.
    pub fn resolve(
        &self,
        importer: &Path,
        importer_format: ModuleFormat,
        specifier: &str,
        kind: ImportKind,
    ) -> Result<Target, Unresolved> {
        if let Some(module) = SdkModule::of(specifier) {
            return Ok(Target::Sdk(module));
        }
        if let Some(name) = specifier.strip_prefix(HELPERS_PACKAGE).and_then(|rest| rest.strip_prefix("/helpers/")) {
            return HELPERS.iter().find(|helper| **helper == name).map(|helper| Target::Helper(helper)).ok_or_else(
                || Unresolved {
                    tried: format!("agent-sdk's compiler needs a helper it does not ship (`{name}`)"),
                    fix: "please report this as a bug of agent-sdk".to_owned(),
                },
            );
        }
        let uses_require = match kind {
            ImportKind::Require | ImportKind::LazyRequire => true,
            ImportKind::Static => importer_format == ModuleFormat::CommonJs,
            ImportKind::Dynamic => false,
        };
        let resolver = if uses_require {
            &self.require
        } else if is_typescript(importer) {
            &self.import
        } else {
            &self.import_fully_specified
        };
        match resolver.resolve_file(importer, specifier) {
            Ok(resolution) => Ok(Target::File(resolution.into_path_buf())),
            Err(ResolveError::Builtin { .. }) => Ok(Target::Builtin),
            Err(error) => Err(self.explain(importer, specifier, &error)),
        }
    }

    /// How Node runs `path`: by extension, and for `.ts`/`.js` by the nearest package.json's `"type"`.
    pub fn format_of(&self, path: &Path) -> ModuleFormat {
        match path.extension().and_then(|extension| extension.to_str()) {
            Some("mts" | "mjs") => ModuleFormat::Esm,
            Some("cts" | "cjs") => ModuleFormat::CommonJs,
            Some("ts" | "js") => self.package_scope(path).format,
            Some("json") => ModuleFormat::Json,
            _ => ModuleFormat::Other,
        }
    }

    /// The nearest package.json above `path` when Node cannot read it as JSON (Node then
    /// refuses to load any module under it), or agent-sdk cannot (nested past
    /// [`crate::fs::json::DEEPEST`]): its path as the user sees it, and what is wrong with it.
    pub fn broken_package_json(&self, path: &Path) -> Option<(String, String)> {
        let (manifest, reason) = self.package_scope(path).broken?;
        Some((self.shown(&manifest), reason))
    }

    /// What the nearest package.json above `path` says, as Node reads it.
    fn package_scope(&self, path: &Path) -> PackageScope {
        let dir = path.parent().unwrap_or(Path::new("/"));
        let mut cache = self.package_scopes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut visited = Vec::new();
        let mut found = PackageScope { format: ModuleFormat::CommonJs, broken: None };
        for folder in dir.ancestors() {
            if let Some(known) = cache.get(folder) {
                found = known.clone();
                break;
            }
            visited.push(folder.to_path_buf());
            let manifest = folder.join("package.json");
            if let Ok(text) = std::fs::read_to_string(&manifest) {
                found = match crate::fs::json::parse(&text) {
                    Ok(json) if json["type"] == "module" => PackageScope { format: ModuleFormat::Esm, broken: None },
                    Ok(_) => PackageScope { format: ModuleFormat::CommonJs, broken: None },
                    Err(error) => {
                        PackageScope { format: ModuleFormat::CommonJs, broken: Some((manifest, error.clause())) }
                    }
                };
                break;
            }
        }
        for folder in visited {
            cache.insert(folder, found.clone());
        }
        found
    }

    /// The tsconfig options that govern compiling `path` (none outside a tsconfig's reach).
    pub fn ts_options(&self, path: &Path) -> Result<TsOptions, String> {
        // Every file of a folder has the same nearest tsconfig; only project references can
        // give one file another, so without them the answer is kept per folder (asking per
        // file costs a file-system lookup each).
        let dir = path.parent().unwrap_or(Path::new("/"));
        let lock = || self.ts_options_by_folder.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(known) = lock().get(dir) {
            return known.clone();
        }
        let tsconfig = self.import.find_tsconfig(path).map_err(|error| error.to_string());
        let options = tsconfig.map(|found| found.map(|tsconfig| options_of(&tsconfig, self.shown(tsconfig.path()))));
        let per_folder = match &options {
            Ok(Some(options)) => !options.has_references,
            _ => true,
        };
        let options = options.map(Option::unwrap_or_default);
        if per_folder {
            lock().insert(dir.to_path_buf(), options.clone());
        }
        options
    }

    /// Why `specifier` did not resolve from `importer`, in the user's terms.
    fn explain(&self, importer: &Path, specifier: &str, error: &ResolveError) -> Unresolved {
        let dir = importer.parent().unwrap_or(Path::new("/"));
        let extensions = EXTENSIONS.join(", ");
        if specifier.starts_with('.') || specifier.starts_with('/') {
            return Unresolved {
                tried: format!(
                    "tried `{specifier}` as written, with the extensions {extensions}, and as a folder with an index file"
                ),
                fix: "fix the path, or create the file".to_owned(),
            };
        }
        if specifier.starts_with('#') {
            return self.explain_subpath_import(dir, specifier);
        }
        let tsconfig = self.import.find_tsconfig(importer).ok().flatten();
        if let Some(tried) = tsconfig.as_ref().and_then(|tsconfig| self.paths_candidates(tsconfig, specifier)) {
            return Unresolved {
                tried,
                fix: "fix the specifier or the `paths` that map it, or create the file".to_owned(),
            };
        }
        if !matches!(error, ResolveError::NotFound(_)) {
            return Unresolved {
                tried: error.to_string(),
                fix: "fix the specifier, or the package it names".to_owned(),
            };
        }
        let package = package_name(specifier);
        let base_url = tsconfig.as_ref().and_then(|tsconfig| self.base_url_tried(tsconfig, specifier));
        let base_url = base_url.map(|tried| format!(", and {tried}")).unwrap_or_default();
        if let Some(folder) = InstalledPackages::folder_of(dir, package) {
            return Unresolved {
                tried: format!(
                    "the package `{package}` is installed (`{}`), but nothing in it answers `{specifier}`{base_url}",
                    self.shown(&folder)
                ),
                fix: "fix the part of the specifier after the package name (see the package's files, its `exports` or `main`)".to_owned(),
            };
        }
        let nowhere =
            format!("there is no `node_modules/{package}` in `{}` or any folder above it{base_url}", self.shown(dir));
        // Never a registry install for a name the project itself defines or declares: npm
        // would fetch whatever holds that name there.
        match self.workspaces.explain(dir, &self.root, package) {
            NotInstalled::Workspace { root, folder, install } => Unresolved {
                tried: format!(
                    "`{package}` is a package of this workspace, at `{}`, but it is not linked: {nowhere}",
                    self.shown(&folder)
                ),
                fix: format!(
                    "run `{}` at the workspace's root (`{}`) to link its packages",
                    install.install(),
                    self.shown(&root)
                ),
            },
            NotInstalled::Declared { manifest, install } => Unresolved {
                tried: format!(
                    "the package `{package}` is declared in `{}` but not installed: {nowhere}",
                    self.shown(&manifest)
                ),
                fix: format!("run `{}` to install the declared dependencies", install.install()),
            },
            NotInstalled::Unknown { install } => {
                // A name near one that is installed is a slip of the keyboard, not a package
                // to fetch: the name on npm may be someone else's, waiting for that slip.
                let fix = match self.installed.nearest(dir, package) {
                    Some(installed) => format!("did you mean `{installed}` (installed)?"),
                    None => format!("add it with `{}`", install.add_command(package)),
                };
                Unresolved { tried: format!("the package `{package}` is not installed: {nowhere}"), fix }
            }
        }
    }

    /// A `#…` import: what the nearest package.json's `imports` makes of it.
    fn explain_subpath_import(&self, dir: &Path, specifier: &str) -> Unresolved {
        let manifest = dir.ancestors().map(|folder| folder.join("package.json")).find(|path| path.is_file());
        let imports = manifest
            .as_ref()
            .and_then(|path| std::fs::read_to_string(path).ok())
            .and_then(|text| crate::fs::json::parse(&text).ok())
            .map(|json| json["imports"].clone())
            .unwrap_or_default();
        let shown = manifest.as_deref().map_or_else(|| "package.json".to_owned(), |path| self.shown(path));
        match subpath_target(&imports, specifier) {
            Some(target) => Unresolved {
                tried: format!("`imports` in `{shown}` maps it to `{target}`, and nothing is there"),
                fix: "fix the specifier or the `imports` entry, or create the file".to_owned(),
            },
            None => Unresolved {
                tried: format!("`{shown}` has no `imports` entry that matches `{specifier}`"),
                fix: format!("add one to `imports` in `{shown}`, or fix the specifier"),
            },
        }
    }

    /// What tsconfig `paths` made of `specifier`, when an entry matches it.
    fn paths_candidates(&self, tsconfig: &TsConfig, specifier: &str) -> Option<String> {
        let paths = tsconfig.compiler_options.paths.as_ref()?;
        if !paths.keys().any(|pattern| matches_paths_key(pattern, specifier)) {
            return None;
        }
        let candidates = tsconfig.resolve_path_alias_or_base_url(specifier);
        if candidates.is_empty() {
            return None;
        }
        let list: Vec<String> = candidates.iter().map(|candidate| format!("`{}`", self.shown(candidate))).collect();
        Some(format!(
            "`{}` maps it to {} (tried with the extensions {} and as a folder), and nothing is there",
            self.shown(tsconfig.path()),
            list.join(", "),
            EXTENSIONS.join(", ")
        ))
    }

    /// What tsconfig `baseUrl` made of `specifier` when no `paths` entry matched it.
    fn base_url_tried(&self, tsconfig: &TsConfig, specifier: &str) -> Option<String> {
        tsconfig.compiler_options.base_url.as_ref()?;
        let candidate = tsconfig.resolve_path_alias_or_base_url(specifier).into_iter().next()?;
        Some(format!(
            "the `baseUrl` of `{}` was tried too: nothing at `{}` (no `paths` entry matches it)",
            self.shown(tsconfig.path()),
            self.shown(&candidate),
        ))
    }
}

/// Whether a tsconfig `paths` key (exact, or with one `*`) matches `specifier`, as tsc matches them.
fn matches_paths_key(pattern: &str, specifier: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == specifier,
        Some((prefix, suffix)) => {
            specifier.len() >= prefix.len() + suffix.len()
                && specifier.starts_with(prefix)
                && specifier.ends_with(suffix)
        }
    }
}

/// The target a package.json `imports` map gives `specifier` (an exact key, or one `*`
/// pattern), taking the first string among conditions; `None` when nothing matches.
fn subpath_target(imports: &serde_json::Value, specifier: &str) -> Option<String> {
    let first_string = |value: &serde_json::Value| -> Option<String> {
        let mut value = value;
        loop {
            match value {
                serde_json::Value::String(text) => return Some(text.clone()),
                serde_json::Value::Object(map) => value = map.values().next()?,
                serde_json::Value::Array(items) => value = items.first()?,
                _ => return None,
            }
        }
    };
    let map = imports.as_object()?;
    if let Some(exact) = map.get(specifier) {
        return first_string(exact);
    }
    map.iter().find_map(|(key, value)| {
        let (prefix, suffix) = key.split_once('*')?;
        let middle = specifier.strip_prefix(prefix)?.strip_suffix(suffix)?;
        Some(first_string(value)?.replace('*', middle))
    })
}

impl Resolver {
    /// `path` as the user sees it: relative to the project folder (`.` for the folder itself).
    fn shown(&self, path: &Path) -> String {
        let shown = display_path(&self.root, path);
        if shown.is_empty() { ".".to_owned() } else { shown }
    }
}

fn options_of(tsconfig: &Arc<TsConfig>, shown: String) -> TsOptions {
    let options = &tsconfig.compiler_options;
    TsOptions {
        experimental_decorators: options.experimental_decorators == Some(true),
        emit_decorator_metadata: options.emit_decorator_metadata == Some(true),
        verbatim_module_syntax: options.verbatim_module_syntax == Some(true),
        tsconfig: Some(shown),
        has_references: !tsconfig.references.is_empty(),
    }
}

/// `path` relative to `root`, with `/` (`../shared/x.ts` for a file beside the project).
pub fn display_path(root: &Path, path: &Path) -> String {
    let root: Vec<Component> = root.components().collect();
    let target: Vec<Component> = path.components().collect();
    let common = root.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); root.len() - common];
    parts.extend(target[common..].iter().map(|part| part.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

/// Whether the file is TypeScript (compiled before Node runs it).
pub fn is_typescript(path: &Path) -> bool {
    matches!(path.extension().and_then(|extension| extension.to_str()), Some("ts" | "mts" | "cts"))
}

/// `@scope/name` or `name` of a bare specifier.
fn package_name(specifier: &str) -> &str {
    let mut parts = specifier.splitn(3, '/');
    let first = parts.next().unwrap_or(specifier);
    match (first.starts_with('@'), parts.next()) {
        (true, Some(name)) => &specifier[..first.len() + 1 + name.len()],
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subpath_imports_map_exact_keys_patterns_and_conditions() {
        let imports = serde_json::json!({
            "#config": { "node": "./config.node.ts", "default": "./config.ts" },
            "#lib/*": "./bot/lib/*.ts",
        });
        assert_eq!(subpath_target(&imports, "#config").as_deref(), Some("./config.node.ts"));
        assert_eq!(subpath_target(&imports, "#lib/a/b").as_deref(), Some("./bot/lib/a/b.ts"));
        assert_eq!(subpath_target(&imports, "#nope"), None);
    }

    #[test]
    fn require_and_import_pick_their_own_export_conditions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let package = root.join("node_modules/dual");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{ "name": "dual", "exports": { "import": "./esm.mjs", "require": "./cjs.cjs" } }"#,
        )
        .unwrap();
        std::fs::write(package.join("esm.mjs"), "").unwrap();
        std::fs::write(package.join("cjs.cjs"), "").unwrap();
        let resolver = Resolver::new(&root);
        let importer = root.join("hook.ts");
        let target = |format, kind| match resolver.resolve(&importer, format, "dual", kind) {
            Ok(Target::File(path)) => path.file_name().unwrap().to_string_lossy().into_owned(),
            other => panic!("{other:?}"),
        };
        assert_eq!(target(ModuleFormat::Esm, ImportKind::Static), "esm.mjs");
        assert_eq!(target(ModuleFormat::CommonJs, ImportKind::Static), "cjs.cjs", "compiled to require");
        assert_eq!(target(ModuleFormat::CommonJs, ImportKind::LazyRequire), "cjs.cjs");
        assert_eq!(target(ModuleFormat::CommonJs, ImportKind::Dynamic), "esm.mjs", "import() in CommonJS");
        assert!(ImportKind::LazyRequire.may_fail() && ImportKind::Dynamic.may_fail());
        assert!(!ImportKind::Require.may_fail() && !ImportKind::Static.may_fail());
    }

    #[test]
    fn display_paths_are_relative_to_the_root() {
        assert_eq!(display_path(Path::new("/w/p"), Path::new("/w/p/bot/x.ts")), "bot/x.ts");
        assert_eq!(display_path(Path::new("/w/p"), Path::new("/w/shared/x.ts")), "../shared/x.ts");
    }

    #[test]
    fn paths_keys_match_exactly_or_around_one_star() {
        assert!(matches_paths_key("@/*", "@/lib/budget"));
        assert!(matches_paths_key("~config", "~config"));
        assert!(matches_paths_key("*", "date-fsn"));
        assert!(matches_paths_key("lib-*-js", "lib-a-js"));
        assert!(!matches_paths_key("lib-*-js", "lib-js"), "the star's prefix and suffix may not overlap");
        assert!(!matches_paths_key("@/*", "date-fsn"));
        assert!(!matches_paths_key("~config", "~config/x"));
    }

    #[test]
    fn package_names_of_bare_specifiers() {
        assert_eq!(package_name("lodash/fp"), "lodash");
        assert_eq!(package_name("@acme/util/x"), "@acme/util");
        assert_eq!(package_name("@acme/util"), "@acme/util");
    }

    #[test]
    fn formats_follow_extensions_and_the_nearest_package_type() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), r#"{ "type": "module" }"#).unwrap();
        std::fs::create_dir(dir.path().join("cjs")).unwrap();
        std::fs::write(dir.path().join("cjs/package.json"), r#"{ "name": "x" }"#).unwrap();
        let resolver = Resolver::new(dir.path());
        assert_eq!(resolver.format_of(&dir.path().join("a.ts")), ModuleFormat::Esm);
        assert_eq!(resolver.format_of(&dir.path().join("a.cts")), ModuleFormat::CommonJs);
        assert_eq!(resolver.format_of(&dir.path().join("cjs/a.ts")), ModuleFormat::CommonJs);
        assert_eq!(resolver.format_of(&dir.path().join("cjs/a.mts")), ModuleFormat::Esm);
        assert_eq!(resolver.format_of(&dir.path().join("cjs/deep/a.js")), ModuleFormat::CommonJs);
        assert_eq!(resolver.broken_package_json(&dir.path().join("cjs/a.ts")), None);
        std::fs::create_dir(dir.path().join("broken")).unwrap();
        std::fs::write(dir.path().join("broken/package.json"), "{ name: x }").unwrap();
        let (shown, _) = resolver.broken_package_json(&dir.path().join("broken/a.ts")).unwrap();
        assert_eq!(shown, "broken/package.json");
    }
}
