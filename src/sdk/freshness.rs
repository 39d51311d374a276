//! Whether the SDK packages `tsc` and editors see are there and were written by this
//! binary: `validate`'s two warnings. (Hooks run with the runtime's own copy either way:
//! only the types are at stake.)

use std::path::{Path, PathBuf};

use super::SDK_PACKAGES;
use super::folders::{STAMP_FIELD, VERSION};
use crate::diagnostics::{Code, Diagnostic};

/// What a project's `node_modules/` holds of one SDK package.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// Written by this binary, or a package agent-sdk did not write (no stamp): left alone.
    Current,
    /// Written by another version of agent-sdk (`None`: a stamp that cannot be read).
    Stamped(Option<String>),
    Missing,
}

/// The warnings about the SDK packages of the project at `project_dir`: missing while it
/// has a `tsconfig.json`, or written by another version. Packages are looked for where
/// Node and `tsc` look: `node_modules/` of the project and of every folder above it.
pub fn check_packages(project_dir: &Path) -> Vec<Diagnostic> {
    let found: Vec<(&str, Found)> = SDK_PACKAGES.iter().map(|&name| (name, find(project_dir, name))).collect();
    let mut diagnostics = Vec::new();
    let missing: Vec<&str> =
        found.iter().filter(|(_, found)| *found == Found::Missing).map(|(name, _)| *name).collect();
    if !missing.is_empty() && project_dir.join("tsconfig.json").is_file() {
        diagnostics.push(packages_missing(&missing));
    }
    let stamped: Vec<(&str, Option<&str>)> = found
        .iter()
        .filter_map(|(name, found)| match found {
            Found::Stamped(version) => Some((*name, version.as_deref())),
            _ => None,
        })
        .collect();
    if !stamped.is_empty() {
        diagnostics.push(packages_outdated(&stamped));
    }
    diagnostics
}

fn find(project_dir: &Path, package: &str) -> Found {
    let start = project_dir.canonicalize().unwrap_or_else(|_| project_dir.to_path_buf());
    let manifest = start.ancestors().map(|dir| manifest_path(dir, package)).find(|path| path.is_file());
    let Some(manifest) = manifest else { return Found::Missing };
    let json = std::fs::read_to_string(&manifest).ok().and_then(|text| crate::fs::json::parse(&text).ok());
    let Some(json) = json else { return Found::Stamped(None) };
    match json.get(STAMP_FIELD) {
        None => Found::Current,
        Some(stamp) => match stamp.get("writtenBy").and_then(|version| version.as_str()) {
            Some(VERSION) => Found::Current,
            Some(other) => Found::Stamped(Some(other.to_owned())),
            None => Found::Stamped(None),
        },
    }
}

fn manifest_path(dir: &Path, package: &str) -> PathBuf {
    super::folders::package_dir(dir, package).join("package.json")
}

/// `a`, `a and b`, `a, b and c`.
pub fn listed(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn packages_missing(missing: &[&str]) -> Diagnostic {
    let names: Vec<String> = missing.iter().map(|name| format!("`{name}`")).collect();
    let (are, them) = if missing.len() == 1 { ("is", "it") } else { ("are", "them") };
    Diagnostic::new(
        Code::SdkPackagesMissing,
        format!(
            "the project has a tsconfig.json, but the SDK package{} {} {are} not in node_modules/, so `tsc` and editors cannot type its hooks",
            if missing.len() == 1 { "" } else { "s" },
            listed(&names),
        ),
        format!(
            "run `{} sdk` to write {them}; hooks run without {them}, only type checking needs {them}",
            crate::process::invocation::command()
        ),
    )
}

fn packages_outdated(stamped: &[(&str, Option<&str>)]) -> Diagnostic {
    let names: Vec<String> = stamped.iter().map(|(name, _)| format!("`{name}`")).collect();
    let mut versions: Vec<String> = stamped
        .iter()
        .map(|(_, version)| version.map_or_else(|| "an unknown agent-sdk".to_owned(), |v| format!("agent-sdk {v}")))
        .collect();
    versions.sort();
    versions.dedup();
    let (were, them) = if stamped.len() == 1 { ("was", "it") } else { ("were", "them") };
    Diagnostic::new(
        Code::SdkPackagesOutdated,
        format!(
            "the SDK package{} {} in node_modules/ {were} written by {}, not by this agent-sdk {VERSION}, so {} types may not match what hooks run with",
            if stamped.len() == 1 { "" } else { "s" },
            listed(&names),
            listed(&versions),
            if stamped.len() == 1 { "its" } else { "their" },
        ),
        format!("run `{} sdk` to write {them} again", crate::process::invocation::command()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_packages_are_current_and_a_missing_one_is_named() {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("tsconfig.json"), "{}").unwrap();
        super::super::packages::write_packages(project.path(), false).unwrap();
        assert_eq!(check_packages(project.path()), vec![]);
        std::fs::remove_dir_all(project.path().join("node_modules/@cursor/july")).unwrap();
        let diagnostics = check_packages(project.path());
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, Code::SdkPackagesMissing);
        assert!(diagnostics[0].message.contains("package `@cursor/july` is not"), "{}", diagnostics[0].message);
    }

    #[test]
    fn a_package_found_above_the_project_counts() {
        let workspace = tempfile::tempdir().unwrap();
        super::super::packages::write_packages(workspace.path(), false).unwrap();
        let project = workspace.path().join("packages/agent");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("tsconfig.json"), "{}").unwrap();
        assert_eq!(check_packages(&project), vec![]);
    }
}
