//! The folders the SDK packages are written in and what they hold: each package's folder
//! under `vendor/agent-sdk/` and its `node_modules/<name>` entry, agent-sdk's stamp in a
//! written `package.json`, what a folder holds ([`Held`]) and why one is not written
//! ([`Refusal`]); and a package's files written where they changed. The plan, the
//! `node_modules` entries and the writer all stand on it.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::fs::link_out::LinkOut;

/// The version every written package is stamped with: the binary's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The field of a written `package.json` holding the stamp: `"agentSdk": { "writtenBy": "<version>" }`.
pub const STAMP_FIELD: &str = "agentSdk";

/// The folder of the project the packages are written in, one folder each.
pub const VENDOR_FOLDER: &str = "vendor/agent-sdk";

/// `<project_dir>/node_modules/<package>`.
pub fn package_dir(project_dir: &Path, package: &str) -> PathBuf {
    package.split('/').fold(project_dir.join("node_modules"), |dir, part| dir.join(part))
}

/// The folder of `vendor/agent-sdk/` holding `package`: `@cursor/bdk` is `cursor-bdk`.
pub fn vendor_folder(package: &str) -> String {
    package.trim_start_matches('@').replace('/', "-")
}

/// `<project_dir>/vendor/agent-sdk/<folder>`.
pub fn vendor_dir(project_dir: &Path, package: &str) -> PathBuf {
    project_dir.join(VENDOR_FOLDER).join(vendor_folder(package))
}

/// What a package folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Nothing: it is not there, or empty.
    Nothing,
    /// A package agent-sdk wrote: its `package.json` has the stamp.
    Stamped,
    /// Anything else: a package agent-sdk did not write, or files of someone's.
    NotOurs,
}

/// What `dir` holds (through any link).
pub fn held(dir: &Path) -> Held {
    let empty = std::fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_none());
    if empty {
        Held::Nothing
    } else if is_stamped(dir) {
        Held::Stamped
    } else {
        Held::NotOurs
    }
}

/// Whether `dir/package.json` carries agent-sdk's stamp, of any version.
fn is_stamped(dir: &Path) -> bool {
    let text = std::fs::read_to_string(dir.join("package.json")).unwrap_or_default();
    crate::fs::json::parse(&text).is_ok_and(|json| json[STAMP_FIELD]["writtenBy"].is_string())
}

/// Why the packages were not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Writing `path` would follow `link` out of the project.
    LinksOut { path: PathBuf, link: LinkOut },
    /// `path` holds what agent-sdk did not write; `link_to`: where it leads, when it is a link.
    NotOurs { path: PathBuf, link_to: Option<PathBuf> },
}

/// Writes each of `files` into `dir` unless it holds exactly that; how many it wrote.
pub fn write_files(dir: &Path, files: &[(String, String)]) -> anyhow::Result<usize> {
    let mut written = 0;
    for (file, text) in files {
        let path = dir.join(file);
        if write_if_changed(&path, text).with_context(|| format!("could not write {}", path.display()))? {
            written += 1;
        }
    }
    Ok(written)
}

/// Writes `text` to `path` unless it holds exactly that already; whether it wrote.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<bool> {
    crate::fs::write_if_changed(path, text, |folder| std::fs::create_dir_all(folder))
}
