//! What is true of a package that is not installed, so the help sends the user the right
//! way: a package of the project's own workspace is linked by an install at the workspace's
//! root, a declared dependency by an install of what is declared, and only a name the
//! project neither defines nor declares is one to add from the registry (a registry
//! install of a name the project defines would fetch whatever holds that name on npm).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::fs::json;

/// Where a package that is not installed comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotInstalled {
    /// A package of the workspace rooted at `root`, in `folder`.
    Workspace { root: PathBuf, folder: PathBuf, install: PackageManager },
    /// Declared in the dependencies of the package.json at `manifest`.
    Declared { manifest: PathBuf, install: PackageManager },
    /// Neither: the project does not name it anywhere.
    Unknown { install: PackageManager },
}

/// The packages of each workspace a check met, by name, read once per check: on a fresh
/// clone every import of a package is unresolved, and each would walk the workspace again.
#[derive(Debug, Default)]
pub struct Workspaces {
    by_root: Mutex<HashMap<PathBuf, Arc<HashMap<String, PathBuf>>>>,
}

impl Workspaces {
    /// The packages of the workspace rooted at `root`, by name.
    fn members(&self, root: &Path) -> Arc<HashMap<String, PathBuf>> {
        let mut by_root = self.by_root.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let members = by_root.entry(root.to_path_buf()).or_insert_with(|| Arc::new(workspace_members(root)));
        Arc::clone(members)
    }

    /// What the project at `project` says of `package`, seen from a module in `dir`: the
    /// package.json files of `dir` and the folders above it, up to the repository's or
    /// workspace's root (or the project's folder, outside any).
    pub fn explain(&self, dir: &Path, project: &Path, package: &str) -> NotInstalled {
        let folders = searched_folders(dir, project);
        let install = package_manager(&folders);
        if let Some(root) = folders.iter().find(|folder| !workspace_patterns(folder).is_empty())
            && let Some(folder) = self.members(root).get(package)
        {
            return NotInstalled::Workspace { root: root.to_path_buf(), folder: folder.clone(), install };
        }
        let declared =
            folders.iter().map(|folder| folder.join("package.json")).find(|manifest| declares(manifest, package));
        match declared {
            Some(manifest) => NotInstalled::Declared { manifest, install },
            None => NotInstalled::Unknown { install },
        }
    }
}

/// `dir` and each folder above it up to the first that is a repository's or a workspace's
/// root; with none, up to `project` (a folder above a project outside any repository is
/// nobody's in particular).
fn searched_folders<'d>(dir: &'d Path, project: &Path) -> Vec<&'d Path> {
    let mut folders = Vec::new();
    for folder in dir.ancestors() {
        folders.push(folder);
        if crate::config::is_repository_or_workspace_root(folder) {
            return folders;
        }
    }
    let inside = dir.ancestors().position(|folder| folder == project).map_or(1, |at| at + 1);
    folders.truncate(inside);
    folders
}

/// The package manager a project installs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    Npm,
    Pnpm,
    Yarn,
    Bun,
}

impl PackageManager {
    /// The command that installs what the project declares.
    pub fn install(self) -> &'static str {
        match self {
            PackageManager::Npm => "npm install",
            PackageManager::Pnpm => "pnpm install",
            PackageManager::Yarn => "yarn install",
            PackageManager::Bun => "bun install",
        }
    }

    /// The command that adds `package` to the project's dependencies.
    pub fn add_command(self, package: &str) -> String {
        match self {
            PackageManager::Npm => format!("npm install {package}"),
            PackageManager::Pnpm => format!("pnpm add {package}"),
            PackageManager::Yarn => format!("yarn add {package}"),
            PackageManager::Bun => format!("bun add {package}"),
        }
    }
}

/// The package manager of the lockfile (or pnpm's workspace file) nearest the module, among
/// `folders`: npm when there is none.
fn package_manager(folders: &[&Path]) -> PackageManager {
    for folder in folders {
        let has = |name: &str| folder.join(name).is_file();
        if has("pnpm-lock.yaml") || has("pnpm-workspace.yaml") {
            return PackageManager::Pnpm;
        }
        if has("yarn.lock") {
            return PackageManager::Yarn;
        }
        if has("bun.lock") || has("bun.lockb") {
            return PackageManager::Bun;
        }
        if has("package-lock.json") {
            return PackageManager::Npm;
        }
    }
    PackageManager::Npm
}

/// Whether the package.json at `manifest` names `package` in one of its dependency sections.
fn declares(manifest: &Path, package: &str) -> bool {
    let Some(value) = read_json(manifest) else { return false };
    crate::project::package_json::DEPENDENCY_SECTIONS.iter().any(|section| value[section].get(package).is_some())
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    json::parse(&text).ok()
}

/// The workspace patterns of `folder`: its package.json's `workspaces` (an array, or yarn's
/// `{ "packages": [...] }`), or its `pnpm-workspace.yaml`'s `packages` list.
fn workspace_patterns(folder: &Path) -> Vec<String> {
    if let Ok(text) = std::fs::read_to_string(folder.join("pnpm-workspace.yaml")) {
        return pnpm_packages(&text);
    }
    let Some(value) = read_json(&folder.join("package.json")) else { return Vec::new() };
    let workspaces = &value["workspaces"];
    let list = workspaces.as_array().or_else(|| workspaces["packages"].as_array());
    list.into_iter().flatten().filter_map(|pattern| pattern.as_str().map(str::to_owned)).collect()
}

/// The `packages:` list of a `pnpm-workspace.yaml`, in the block form pnpm's docs write
/// (`packages:` then `  - "packages/*"` lines); any other form reads as no list, so no package
/// is taken for the workspace's (the help then says what it says without a workspace).
fn pnpm_packages(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|line| line.trim_end() != "packages:").skip(1);
    let mut patterns = Vec::new();
    for line in lines.by_ref() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some(item) = trimmed.strip_prefix("- ").filter(|_| line.starts_with(char::is_whitespace)) else { break };
        let item = item.split(" #").next().unwrap_or(item).trim();
        let unquoted = item.trim_matches(|quote| quote == '"' || quote == '\'');
        patterns.push(unquoted.to_owned());
    }
    patterns
}

/// The packages of the workspace rooted at `root`, by name: each of its folders the
/// workspace's patterns include that holds a package.json with a name.
fn workspace_members(root: &Path) -> HashMap<String, PathBuf> {
    let Some((included, excluded)) = globs(&workspace_patterns(root)) else { return HashMap::new() };
    let walk = walkdir::WalkDir::new(root).min_depth(1).max_depth(MAX_DEPTH).into_iter().filter_entry(|entry| {
        let name = entry.file_name().to_string_lossy();
        entry.file_type().is_dir() && name != "node_modules" && !name.starts_with('.')
    });
    let mut members = HashMap::new();
    for folder in walk.filter_map(Result::ok).map(walkdir::DirEntry::into_path) {
        let relative = folder.strip_prefix(root).unwrap_or(&folder);
        if !included.is_match(relative) || excluded.is_match(relative) {
            continue;
        }
        if let Some(name) =
            read_json(&folder.join("package.json")).and_then(|value| value["name"].as_str().map(str::to_owned))
        {
            members.entry(name).or_insert(folder);
        }
    }
    members
}

/// How deep under a workspace's root its packages are looked for (`packages/*` is 2 deep
/// from nothing; `apps/*/packages/*` is 4).
const MAX_DEPTH: usize = 6;

/// The workspace's patterns as globs: the folders they include, and those a `!pattern`
/// leaves out. `None` when no pattern includes a folder.
fn globs(patterns: &[String]) -> Option<(GlobSet, GlobSet)> {
    let mut included = GlobSetBuilder::new();
    let mut excluded = GlobSetBuilder::new();
    let mut includes_any = false;
    for pattern in patterns {
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(pattern) => (true, pattern),
            None => (false, pattern.as_str()),
        };
        let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
        let Ok(glob) = GlobBuilder::new(pattern).literal_separator(true).build() else { continue };
        if negated {
            excluded.add(glob);
        } else {
            included.add(glob);
            includes_any = true;
        }
    }
    if !includes_any {
        return None;
    }
    Some((included.build().ok()?, excluded.build().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_package_of_the_workspace_is_found_in_its_folder() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "package.json", r#"{ "workspaces": ["packages/*", "!packages/old"] }"#);
        write(root.path(), "packages/oncall-ext/package.json", r#"{ "name": "@acme/oncall-ext" }"#);
        write(root.path(), "packages/old/package.json", r#"{ "name": "@acme/old" }"#);
        write(root.path(), "packages/agent/package.json", r#"{ "name": "agent" }"#);
        std::fs::create_dir_all(root.path().join("packages/agent/bot/hooks")).unwrap();
        let dir = root.path().join("packages/agent/bot/hooks");
        let found = Workspaces::default().explain(&dir, root.path(), "@acme/oncall-ext");
        assert_eq!(
            found,
            NotInstalled::Workspace {
                root: root.path().to_path_buf(),
                folder: root.path().join("packages/oncall-ext"),
                install: PackageManager::Npm
            }
        );
        assert_eq!(
            Workspaces::default().explain(&dir, root.path(), "@acme/old"),
            NotInstalled::Unknown { install: PackageManager::Npm }
        );
    }

    #[test]
    fn a_workspace_is_walked_once_per_check() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "package.json", r#"{ "workspaces": ["packages/*"] }"#);
        write(root.path(), "packages/ext/package.json", r#"{ "name": "ext" }"#);
        std::fs::create_dir_all(root.path().join("packages/agent")).unwrap();
        let workspaces = Workspaces::default();
        let dir = root.path().join("packages/agent");
        assert!(matches!(workspaces.explain(&dir, &dir, "ext"), NotInstalled::Workspace { .. }));
        // What the first import read is what the next one is told (the walk is not redone).
        std::fs::remove_dir_all(root.path().join("packages/ext")).unwrap();
        assert!(matches!(workspaces.explain(&dir, &dir, "ext"), NotInstalled::Workspace { .. }));
        assert!(matches!(Workspaces::default().explain(&dir, &dir, "ext"), NotInstalled::Unknown { .. }));
    }

    #[test]
    fn pnpm_workspaces_and_lockfiles_name_pnpm() {
        let root = tempfile::tempdir().unwrap();
        write(
            root.path(),
            "pnpm-workspace.yaml",
            "# the packages\npackages:\n  - 'packages/*' # all\n  - \"tools/x\"\nonlyBuiltDependencies: []\n",
        );
        write(root.path(), "package.json", "{}");
        write(root.path(), "tools/x/package.json", r#"{ "name": "x-tool" }"#);
        std::fs::create_dir_all(root.path().join("packages/agent")).unwrap();
        let found = Workspaces::default().explain(&root.path().join("packages/agent"), root.path(), "x-tool");
        assert!(matches!(found, NotInstalled::Workspace { install: PackageManager::Pnpm, .. }), "{found:?}");
        assert_eq!(pnpm_packages("packages:\n  - a/*\n  - b\n"), ["a/*", "b"]);
        assert!(pnpm_packages("packages: [a]\n").is_empty());
    }

    #[test]
    fn a_declared_dependency_is_declared_and_anything_else_unknown() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        write(root.path(), "package.json", r#"{ "devDependencies": { "zod": "^3" } }"#);
        write(root.path(), "yarn.lock", "");
        std::fs::create_dir_all(root.path().join("bot/hooks")).unwrap();
        let dir = root.path().join("bot/hooks");
        assert_eq!(
            Workspaces::default().explain(&dir, root.path(), "zod"),
            NotInstalled::Declared { manifest: root.path().join("package.json"), install: PackageManager::Yarn }
        );
        assert_eq!(
            Workspaces::default().explain(&dir, root.path(), "left-pad"),
            NotInstalled::Unknown { install: PackageManager::Yarn }
        );
    }

    #[test]
    fn outside_a_repository_the_project_folder_is_the_last_one_read() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "package.json", r#"{ "dependencies": { "zod": "^3" } }"#);
        write(root.path(), "agent/package.json", r#"{ "name": "agent" }"#);
        std::fs::create_dir_all(root.path().join("agent/bot/hooks")).unwrap();
        let project = root.path().join("agent");
        let found = Workspaces::default().explain(&project.join("bot/hooks"), &project, "zod");
        assert_eq!(found, NotInstalled::Unknown { install: PackageManager::Npm });
    }
}
