//! The SDK packages `agent-sdk sdk` (and `init`) writes: `@cursor/bdk`, `@grok/agent-sdk`
//! and `@cursor/july`, each holding the SDK's files (the very ones the runtime runs,
//! [`super::files::SDK_FILES`]), their generated declarations and a `package.json` stamped
//! with the binary's version, so `tsc`, editors and test runners see what the runtime
//! provides. Hooks themselves run with the runtime's own copy.
//!
//! Where they live: `vendor/agent-sdk/<package>/` in the project, a folder the user commits,
//! which the project's `package.json` names as `file:` dependencies
//! (`"@cursor/bdk": "file:vendor/agent-sdk/cursor-bdk"`). Then every package manager keeps
//! them: npm (≥ 7) links `node_modules/@cursor/bdk` to the folder on `npm install <pkg>`,
//! `uninstall`, `update` and `ci` alike, pnpm and yarn copy it (pnpm by hard links), and a
//! fresh clone's `npm ci` finds the folder because it was committed. Packages written into
//! `node_modules/` alone were removed by npm's next `npm install <pkg>` (it prunes what
//! `package.json` does not name; a root `postinstall` runs only on a bare `npm install`),
//! and a folder under the state root `.agent-sdk/` would be missing from a clone, as it is
//! gitignored. [`super::node_modules`] makes the `node_modules/` entries a project that has
//! not run its package manager since needs, and refreshes the copies pnpm and yarn made.

use std::path::{Path, PathBuf};

use super::SDK_PACKAGES;
use super::declarations::declaration_files;
use super::files::sdk_files;
use super::folders::{STAMP_FIELD, VENDOR_FOLDER, VERSION, vendor_folder, write_files};
use super::node_modules::{Installed, install};
use super::plan::{PackagePlan, plan_packages};
use crate::exit_status::Exit;
use crate::project::DirError;
use crate::project::package_json::Entry;

/// What writing one package did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenPackage {
    /// `@cursor/bdk`, …
    pub name: &'static str,
    /// `<project>/vendor/agent-sdk/<folder>`.
    pub dir: PathBuf,
    /// How many files the package has.
    pub files: usize,
    /// How many of them were written (the others already held exactly that).
    pub written: usize,
    /// Whether the folder held what agent-sdk did not write, taken over with `--force`.
    pub taken_over: bool,
    /// What `node_modules/<name>` is now.
    pub installed: Installed,
}

/// The `package.json` dependencies that name the packages: `"@cursor/bdk": "file:vendor/agent-sdk/cursor-bdk"`, …
pub fn dependencies() -> Vec<Entry> {
    let mut names = SDK_PACKAGES.to_vec();
    // As npm writes them.
    names.sort_unstable();
    names
        .into_iter()
        .map(|name| Entry::new("dependencies", name, format!("file:{VENDOR_FOLDER}/{}", vendor_folder(name))))
        .collect()
}

/// Writes the three SDK packages into `<project_dir>/vendor/agent-sdk/`, creating it when
/// needed (a project without `package.json` too), and makes `node_modules/<name>` see each
/// ([`install`]), as [`plan_packages`] decides first: a package agent-sdk did not write is
/// refused (taken over with `force`), and nothing is written through a link out of the
/// project; a refusal writes nothing at all. Each file is replaced whole, and only when its
/// content changed, so running it again writes nothing.
pub fn write_packages(project_dir: &Path, force: bool) -> anyhow::Result<Vec<WrittenPackage>> {
    let metadata =
        std::fs::metadata(project_dir).map_err(|source| DirError { dir: project_dir.to_path_buf(), source })?;
    if !metadata.is_dir() {
        let source = std::io::Error::from(std::io::ErrorKind::NotADirectory);
        return Err(DirError { dir: project_dir.to_path_buf(), source }.into());
    }
    let plans = plan_packages(project_dir, force).map_err(|refused| Exit::failure(refused.to_string()))?;
    let files = package_files();
    plans.into_iter().map(|plan| write_package(plan, &files)).collect()
}

/// Writes one package as `plan` says, its folder then `node_modules/`.
fn write_package(plan: PackagePlan, files: &[(String, String)]) -> anyhow::Result<WrittenPackage> {
    let PackagePlan { name, vendor: dir, vendor_taken_over: taken_over, node_modules } = plan;
    let mut package = files.to_vec();
    package.push(("package.json".to_owned(), package_json(name, files)));
    if taken_over && dir.is_symlink() {
        super::node_modules::remove_link(&dir)?;
    }
    let written = write_files(&dir, &package)?;
    let installed = install(node_modules, &package)?;
    Ok(WrittenPackage { name, dir, files: package.len(), written, taken_over, installed })
}

/// Every file of a package but its `package.json`: the SDK's files and the generated
/// declarations, by name. (A declaration the table holds by hand is kept as written.)
fn package_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> =
        sdk_files().map(|(name, text)| (name.to_owned(), text.into_owned())).collect();
    for (name, text) in declaration_files() {
        if !files.iter().any(|(existing, _)| existing == name) {
            files.push((name.to_owned(), text));
        }
    }
    files.sort();
    files
}

/// One module of a package, as `exports` names it.
#[derive(Debug, PartialEq, Eq)]
struct EntryPoint {
    /// `.` for the root (`index`), else `./<stem>`.
    subpath: String,
    stem: String,
    has_types: bool,
    has_require: bool,
}

/// The package's modules, by convention over its files: every `<stem>.mjs` is the module
/// `./<stem>` (`index.mjs` the root), with `<stem>.cjs` for `require` and `<stem>.d.ts`
/// for its types when the package has them.
fn entry_points(files: &[(String, String)]) -> Vec<EntryPoint> {
    let has = |name: String| files.iter().any(|(file, _)| *file == name);
    let mut entries: Vec<EntryPoint> = files
        .iter()
        .filter_map(|(file, _)| file.strip_suffix(".mjs"))
        .map(|stem| EntryPoint {
            subpath: if stem == "index" { ".".to_owned() } else { format!("./{stem}") },
            stem: stem.to_owned(),
            has_types: has(format!("{stem}.d.ts")),
            has_require: has(format!("{stem}.cjs")),
        })
        .collect();
    // The root first, as people read an `exports` map.
    entries.sort_by(|a, b| (a.subpath != ".", &a.subpath).cmp(&(b.subpath != ".", &b.subpath)));
    entries
}

/// The `package.json` of package `name`: its modules for ESM and CommonJS with their
/// types (`types` first, as TypeScript requires), the root's fields for tools that read no
/// `exports`, and the stamp.
fn package_json(name: &str, files: &[(String, String)]) -> String {
    let entries = entry_points(files);
    let exports = entries
        .iter()
        .map(|entry| {
            let mut conditions = Vec::new();
            if entry.has_types {
                conditions.push(("types", Json::text(format!("./{}.d.ts", entry.stem))));
            }
            conditions.push(("import", Json::text(format!("./{}.mjs", entry.stem))));
            if entry.has_require {
                conditions.push(("require", Json::text(format!("./{}.cjs", entry.stem))));
            }
            (entry.subpath.as_str(), Json::Object(conditions))
        })
        .chain(std::iter::once(("./package.json", Json::text("./package.json"))))
        .collect();
    let manifest = Json::Object(vec![
        ("name", Json::text(name)),
        ("version", Json::text(VERSION)),
        ("description", Json::text("The agent-sdk hook SDK: written by `agent-sdk sdk`, do not edit")),
        ("main", Json::text("./index.cjs")),
        ("module", Json::text("./index.mjs")),
        ("types", Json::text("./index.d.ts")),
        ("exports", Json::Object(exports)),
        ("sideEffects", Json::Bool(false)),
        (STAMP_FIELD, Json::Object(vec![("writtenBy", Json::text(VERSION))])),
    ]);
    let mut text = String::new();
    manifest.write(&mut text, 0);
    text.push('\n');
    text
}

/// Just enough JSON to write objects with their keys in the order given (`serde_json`
/// sorts them, and `exports` conditions are matched in order).
enum Json<'k> {
    Text(String),
    Bool(bool),
    Object(Vec<(&'k str, Json<'k>)>),
}

impl Json<'_> {
    fn text(text: impl Into<String>) -> Self {
        Json::Text(text.into())
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            Json::Text(text) => out.push_str(&serde_json::Value::String(text.clone()).to_string()),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Object(entries) => {
                out.push('{');
                for (index, (key, value)) in entries.iter().enumerate() {
                    out.push_str(if index == 0 { "\n" } else { ",\n" });
                    out.push_str(&"  ".repeat(depth + 1));
                    out.push_str(&serde_json::Value::String((*key).to_owned()).to_string());
                    out.push_str(": ");
                    value.write(out, depth + 1);
                }
                out.push('\n');
                out.push_str(&"  ".repeat(depth));
                out.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<(String, String)> {
        names.iter().map(|name| ((*name).to_owned(), String::new())).collect()
    }

    #[test]
    fn every_esm_module_is_an_entry_point_by_convention() {
        let files = named(&["hooks.cjs", "hooks.d.ts", "hooks.mjs", "index.mjs", "testing.mjs", "testing.cjs"]);
        let entries = entry_points(&files);
        let subpaths: Vec<&str> = entries.iter().map(|entry| entry.subpath.as_str()).collect();
        assert_eq!(subpaths, [".", "./hooks", "./testing"]);
        assert!(entries[1].has_types && entries[1].has_require);
        assert!(!entries[0].has_types && !entries[0].has_require);
        assert!(!entries[2].has_types && entries[2].has_require);
    }

    #[test]
    fn the_manifest_is_json_with_types_first_and_the_stamp() {
        let text = package_json("@cursor/bdk", &package_files());
        let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(manifest["name"], "@cursor/bdk");
        assert_eq!(manifest["version"], VERSION);
        assert_eq!(manifest[STAMP_FIELD]["writtenBy"], VERSION);
        for subpath in [".", "./hooks", "./memory", "./extensions", "./testing"] {
            assert_eq!(manifest["exports"][subpath]["require"].as_str().unwrap().rsplit('.').next(), Some("cjs"));
            assert!(manifest["exports"][subpath]["types"].as_str().unwrap().ends_with(".d.ts"), "{subpath}");
        }
        let hooks = text.split("\"./hooks\": {").nth(1).unwrap();
        assert!(hooks.trim_start().starts_with("\"types\": \"./hooks.d.ts\""), "{hooks}");
    }

    #[test]
    fn the_dependencies_name_each_package_s_folder_in_npm_s_order() {
        let dependencies: Vec<(String, String)> =
            dependencies().into_iter().map(|entry| (entry.key, entry.value)).collect();
        assert_eq!(
            dependencies,
            [
                ("@cursor/bdk".to_owned(), "file:vendor/agent-sdk/cursor-bdk".to_owned()),
                ("@cursor/july".to_owned(), "file:vendor/agent-sdk/cursor-july".to_owned()),
                ("@grok/agent-sdk".to_owned(), "file:vendor/agent-sdk/grok-agent-sdk".to_owned()),
            ]
        );
    }

    #[test]
    fn writing_twice_writes_nothing_the_second_time() {
        let project = tempfile::tempdir().unwrap();
        let first = write_packages(project.path(), false).unwrap();
        assert!(first.iter().all(|package| package.written == package.files));
        let second = write_packages(project.path(), false).unwrap();
        assert!(second.iter().all(|package| package.written == 0));
        assert_eq!(first[0].dir, project.path().join("vendor/agent-sdk/cursor-bdk"));
        assert!(project.path().join("node_modules/@cursor/bdk/hooks.mjs").is_file());
    }
}
