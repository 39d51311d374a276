//! What writing the SDK packages will do, decided before anything is written: a folder is
//! written when it is empty or holds a package stamped by agent-sdk (of any version); a
//! package without the stamp (a real `@cursor/bdk`, a linked workspace package) is refused
//! unless `--force` takes it over; and nothing is ever written through a link that leads
//! out of the project. `sdk` and `init` refuse the whole write, naming every problem, so a
//! refused run has written nothing.

use std::fmt;
use std::path::{Path, PathBuf};

use super::SDK_PACKAGES;
use super::folders::{Held, Refusal, STAMP_FIELD, held, package_dir, vendor_dir};
use super::node_modules::{EntryPlan, plan_entry};
use crate::fs::link_out::link_out;

/// What will be done for one package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackagePlan {
    pub name: &'static str,
    /// `<project>/vendor/agent-sdk/<folder>`.
    pub vendor: PathBuf,
    /// Whether `vendor` is taken over with `--force` (it held what agent-sdk did not write).
    pub vendor_taken_over: bool,
    pub node_modules: EntryPlan,
}

/// The packages could not be written: every reason, with the project they are of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub project_dir: PathBuf,
    pub refusals: Vec<Refusal>,
}

/// What will be done for each SDK package of the project at `project_dir` (which need not
/// exist yet), or every reason it cannot be done. With `force`, what agent-sdk did not
/// write is taken over: a folder gets the SDK's files, a link is replaced by a copy
/// (never written through).
pub fn plan_packages(project_dir: &Path, force: bool) -> Result<Vec<PackagePlan>, Refused> {
    let mut plans = Vec::new();
    let mut refusals = Vec::new();
    for &name in &SDK_PACKAGES {
        let vendor = vendor_dir(project_dir, name);
        let vendor_taken_over = match plan_vendor(project_dir, &vendor, force) {
            Ok(taken_over) => taken_over,
            Err(refusal) => {
                refusals.push(refusal);
                false
            }
        };
        match plan_entry(project_dir, &package_dir(project_dir, name), &vendor, force) {
            Ok(node_modules) => plans.push(PackagePlan { name, vendor, vendor_taken_over, node_modules }),
            Err(refusal) => refusals.push(refusal),
        }
    }
    if refusals.is_empty() { Ok(plans) } else { Err(Refused { project_dir: project_dir.to_path_buf(), refusals }) }
}

/// Whether the package's folder `vendor` is written as it is (`Ok(false)`) or taken over
/// (`Ok(true)`, with `force`), or why not.
fn plan_vendor(project_dir: &Path, vendor: &Path, force: bool) -> Result<bool, Refusal> {
    if let Some(link) = link_out(project_dir, vendor) {
        return Err(Refusal::LinksOut { path: vendor.to_path_buf(), link });
    }
    match held(vendor) {
        Held::Nothing | Held::Stamped => Ok(false),
        Held::NotOurs if force => Ok(true),
        Held::NotOurs => Err(Refusal::NotOurs { path: vendor.to_path_buf(), link_to: std::fs::read_link(vendor).ok() }),
    }
}

impl Refused {
    /// `path` as the user sees it: from the project, its control characters shown escaped.
    fn shown(&self, path: &Path) -> String {
        crate::text::untrusted::escape_path(path.strip_prefix(&self.project_dir).unwrap_or(path))
    }

    fn line(&self, refusal: &Refusal) -> String {
        match refusal {
            // Said of the link, which may be a folder above several packages: once.
            Refusal::LinksOut { link, .. } => format!(
                "{} is a link out of the project (to {}), and nothing is written through one",
                self.shown(&link.link),
                crate::text::untrusted::escape_path(&link.leads_to)
            ),
            Refusal::NotOurs { path, link_to: None } => format!(
                "{} holds a package agent-sdk did not write (its package.json has no \"{STAMP_FIELD}\" stamp)",
                self.shown(path)
            ),
            Refusal::NotOurs { path, link_to: Some(target) } => format!(
                "{} is a link to {}, a package agent-sdk did not write (its package.json has no \"{STAMP_FIELD}\" stamp)",
                self.shown(path),
                crate::text::untrusted::escape_path(target)
            ),
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let of = match self.project_dir.as_os_str().to_str() {
            Some("." | "") => String::new(),
            _ => format!(" in `{}`", crate::text::untrusted::escape_path(&self.project_dir)),
        };
        let mut lines = vec![format!("the SDK packages cannot be written{of} (nothing was written):")];
        for line in self.refusals.iter().map(|refusal| format!("  {}", self.line(refusal))) {
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        if self.refusals.iter().any(|refusal| matches!(refusal, Refusal::NotOurs { .. })) {
            lines.push(
                "run it again with --force to take over what agent-sdk did not write: a folder gets the SDK's files, a link is replaced by a copy (what it leads to is left alone)"
                    .to_owned(),
            );
        }
        if self.refusals.iter().any(|refusal| matches!(refusal, Refusal::LinksOut { .. })) {
            lines.push(
                "make each link out of the project a folder of its own, or remove it: --force never writes through one"
                    .to_owned(),
            );
        }
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for Refused {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_nothing_stamped_or_not_ours() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("package");
        assert_eq!(held(&dir), Held::Nothing);
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(held(&dir), Held::Nothing);
        std::fs::write(dir.join("package.json"), r#"{ "name": "@cursor/bdk" }"#).unwrap();
        assert_eq!(held(&dir), Held::NotOurs);
        std::fs::write(dir.join("package.json"), r#"{ "agentSdk": { "writtenBy": "0.0.1" } }"#).unwrap();
        assert_eq!(held(&dir), Held::Stamped);
    }
}
