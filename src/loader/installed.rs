//! The packages installed where Node looks for a bare import (the `node_modules` folders of
//! the importer's folder and of every folder above it), and the one a name that is not
//! installed most likely meant: `date-fsn` is `date-fns`, installed, and not a package to
//! fetch from npm (a misspelt name there may be someone's trap).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What each `node_modules` folder holds, read once per check (the first time an import
/// that leads nowhere asks).
#[derive(Debug, Default)]
pub struct InstalledPackages {
    by_folder: Mutex<HashMap<PathBuf, Arc<[String]>>>,
}

impl InstalledPackages {
    /// The `node_modules` folders Node searches from `dir`, nearest first (Node skips a
    /// `node_modules/node_modules`).
    pub fn search_path(dir: &Path) -> impl Iterator<Item = PathBuf> + '_ {
        dir.ancestors()
            .filter(|folder| folder.file_name().is_none_or(|name| name != "node_modules"))
            .map(|folder| folder.join("node_modules"))
    }

    /// The folder of `package` (`name` or `@scope/name`) Node would find from `dir`, if any.
    pub fn folder_of(dir: &Path, package: &str) -> Option<PathBuf> {
        Self::search_path(dir).map(|folder| folder.join(package)).find(|folder| folder.is_dir())
    }

    /// The installed package whose name is nearest `package` (which is not installed), when
    /// one is near enough to be what was meant: a letter or two off, or two swapped.
    pub fn nearest(&self, dir: &Path, package: &str) -> Option<String> {
        let most_edits = (package.chars().count() / 4).max(1);
        let mut best: Option<(usize, String)> = None;
        for folder in Self::search_path(dir) {
            for name in self.names_in(&folder).iter() {
                let Some(edits) = edits_within(package.as_bytes(), name.as_bytes(), most_edits) else { continue };
                let better = best.as_ref().is_none_or(|(fewest, known)| (edits, name) < (*fewest, known));
                if edits > 0 && better {
                    best = Some((edits, name.clone()));
                }
            }
        }
        best.map(|(_, name)| name)
    }

    /// The packages in one `node_modules` folder (scoped ones as `@scope/name`).
    fn names_in(&self, folder: &Path) -> Arc<[String]> {
        let lock = || self.by_folder.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(known) = lock().get(folder) {
            return Arc::clone(known);
        }
        let mut names = Vec::new();
        for (name, path) in package_folders(folder) {
            if name.starts_with('@') {
                names.extend(package_folders(&path).into_iter().map(|(inner, _)| format!("{name}/{inner}")));
            } else {
                names.push(name);
            }
        }
        let names: Arc<[String]> = names.into();
        lock().insert(folder.to_path_buf(), Arc::clone(&names));
        names
    }
}

/// The edits (insert, delete, replace a letter, or swap two neighbours) that make `a` into
/// `b`, when there are at most `most`; `None` as soon as more are certain. A node_modules
/// folder can hold thousands of packages, and almost every name is far off: the length, or
/// the first row of letters that cannot stay within `most`, settles it.
fn edits_within(a: &[u8], b: &[u8], most: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    // Optimal string alignment: three rows of the edit-distance table, reused.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let replace = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = replace.min(previous[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        if row.iter().min().is_some_and(|fewest| *fewest > most) {
            return None;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut row);
    }
    Some(previous[b.len()]).filter(|edits| *edits <= most)
}

/// The folders (links to folders included) in `folder` that can be packages: not `.bin`,
/// `.pnpm` or other dot-entries.
fn package_folders(folder: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| Some((entry.file_name().into_string().ok()?, entry.path())))
        .filter(|(name, path)| !name.starts_with('.') && path.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(packages: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for package in packages {
            std::fs::create_dir_all(dir.path().join(package)).unwrap();
        }
        dir
    }

    #[test]
    fn a_near_name_among_every_folder_node_searches_is_suggested() {
        let dir =
            project(&["node_modules/date-fns", "node_modules/@acme/utils", "app/node_modules/zod", "app/src/hooks"]);
        std::fs::write(dir.path().join("node_modules/ky"), "a file, not a package").unwrap();
        let installed = InstalledPackages::default();
        let from = dir.path().join("app/src/hooks");
        assert_eq!(installed.nearest(&from, "date-fsn").as_deref(), Some("date-fns"));
        assert_eq!(installed.nearest(&from, "@acme/utlis").as_deref(), Some("@acme/utils"));
        assert_eq!(installed.nearest(&from, "zdo").as_deref(), Some("zod"));
        assert_eq!(installed.nearest(&from, "left-pad"), None, "nothing near");
        assert_eq!(installed.nearest(&from, "kx"), None, "a file is not a package");
        assert_eq!(installed.nearest(&from, "date-fns"), None, "the same name is no suggestion");
        assert_eq!(installed.nearest(&dir.path().join("elsewhere"), "zdo"), None, "not on Node's path from there");
        assert_eq!(
            InstalledPackages::folder_of(&from, "@acme/utils"),
            Some(dir.path().join("node_modules/@acme/utils"))
        );
        assert_eq!(InstalledPackages::folder_of(&from, "@acme/nope"), None);
    }

    #[test]
    fn edits_are_counted_as_strsim_counts_them_up_to_the_bound() {
        for (a, b) in [
            ("date-fsn", "date-fns"),
            ("lodahs", "lodash"),
            ("expres", "express"),
            ("recat", "react"),
            ("@acme/utlis", "@acme/utils"),
            ("zod", "zed"),
            ("left-pad", "date-fns"),
            ("a", ""),
            ("", ""),
        ] {
            let expected = strsim::osa_distance(a, b);
            for most in 0..4 {
                let within = edits_within(a.as_bytes(), b.as_bytes(), most);
                assert_eq!(within, (expected <= most).then_some(expected), "{a} {b} {most}");
            }
        }
    }

    #[test]
    fn node_skips_node_modules_inside_node_modules() {
        let folders: Vec<PathBuf> = InstalledPackages::search_path(Path::new("/p/node_modules/a/lib")).collect();
        let expected = [
            "/p/node_modules/a/lib/node_modules",
            "/p/node_modules/a/node_modules",
            "/p/node_modules",
            "/node_modules",
        ];
        assert_eq!(folders, expected.map(PathBuf::from));
    }
}
