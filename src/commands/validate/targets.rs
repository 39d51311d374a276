//! What `validate` checks, from its PATHs: whole projects, every agent below a folder that
//! holds none (a monorepo's root), or a few files (the staged files of a pre-commit hook),
//! each in the project found from its folder up.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::cli::ValidatePaths;
use crate::project::holds_a_source_folder;

/// One agent project to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// The project folder, as the reports name it from the current directory (or from the
    /// folder given, for the agents found below it).
    pub dir: PathBuf,
    /// The files whose findings are reported, relative to `dir` with `/`; `None`: all of them.
    pub only: Option<BTreeSet<String>>,
    /// `dir` under the report's root, as its paths are prefixed there: `""` for the root
    /// itself, `a/` below a root `apps`, `apps/a/` (or an absolute folder) below the current
    /// one.
    pub prefix: String,
}

/// Everything `validate` was asked to check.
#[derive(Debug, PartialEq, Eq)]
pub struct Targets {
    /// The folder the report's paths are relative to: the one folder given (or found), else
    /// the current one.
    pub root: PathBuf,
    /// The agents, each once, in the order given (those below a folder in byte order).
    pub agents: Vec<Agent>,
    /// The folder whose agents below were checked, when it held no agent itself: said on
    /// stderr so that the user knows which agents the report covers.
    pub expanded: Option<(PathBuf, Vec<String>)>,
    /// Files given that no agent project holds (no `bot/` or `agent/` in a folder above).
    pub outside: Vec<PathBuf>,
}

impl Targets {
    /// What was checked when it is not the one project the user is in: the agents found below
    /// a folder that holds none, and the files given that no project holds.
    pub fn said(&self) -> Option<String> {
        let mut out = String::new();
        if let Some((folder, agents)) = &self.expanded {
            let escape = crate::text::untrusted::escape;
            let count = if agents.len() == 1 { "the agent".to_owned() } else { format!("the {} agents", agents.len()) };
            out.push_str(&format!(
                "{} holds no agent (no `bot/` or `agent/`); checking {count} below it: {}\n",
                escape(&folder.to_string_lossy()),
                agents.iter().map(|agent| escape(agent).into_owned()).collect::<Vec<_>>().join(", ")
            ));
        }
        if !self.outside.is_empty() {
            let files: Vec<String> = self
                .outside
                .iter()
                .map(|file| crate::text::untrusted::escape(&file.to_string_lossy()).into_owned())
                .collect();
            let what = if self.agents.is_empty() { "nothing to check: " } else { "" };
            out.push_str(&format!(
                "{what}{} in no agent project (no `bot/` or `agent/` in a folder above): {}\n",
                if files.len() == 1 { "1 file is".to_owned() } else { format!("{} files are", files.len()) },
                files.join(", ")
            ));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// What the PATHs (or `--dir`, or the project found from here) name. A PATH that cannot be
/// read is an error (exit 2); `--dir`'s is the check's own.
pub fn resolve(paths: &ValidatePaths) -> anyhow::Result<Targets> {
    for path in &paths.paths {
        std::fs::metadata(path).map_err(|error| unreadable(path, &error))?;
    }
    Ok(match paths.paths.as_slice() {
        [] => of_folder(&paths.dir),
        [dir] if dir.is_dir() => of_folder(dir),
        given => of_paths(given),
    })
}

/// `` `x.ts` does not exist ``, or why it cannot be read.
fn unreadable(path: &Path, error: &std::io::Error) -> anyhow::Error {
    let path = crate::text::untrusted::escape(&path.to_string_lossy()).into_owned();
    match error.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("`{path}` does not exist"),
        _ => anyhow::anyhow!("`{path}` cannot be read: {}", crate::text::io_error::describe(error)),
    }
}

/// One folder: the project it is, or, when it holds no source folder, every agent below it.
fn of_folder(dir: &Path) -> Targets {
    let below = if holds_a_source_folder(dir) { Vec::new() } else { crate::project::agents_below(dir) };
    let mut targets = Targets { root: dir.to_path_buf(), agents: Vec::new(), expanded: None, outside: Vec::new() };
    if below.is_empty() {
        targets.agents.push(Agent { dir: dir.to_path_buf(), only: None, prefix: String::new() });
    } else {
        targets.agents =
            below.iter().map(|agent| Agent { dir: join(dir, agent), only: None, prefix: prefix(agent) }).collect();
        targets.expanded = Some((dir.to_path_buf(), below));
    }
    targets
}

/// Several paths: folders are whole projects; a file is checked in the project above it,
/// and only its findings are reported. Paths are named from the current directory.
fn of_paths(given: &[PathBuf]) -> Targets {
    let mut targets = Targets { root: PathBuf::from("."), agents: Vec::new(), expanded: None, outside: Vec::new() };
    let cwd = std::env::current_dir().unwrap_or_default();
    for path in given {
        if path.is_dir() {
            // Named as a file's project is, so that naming both checks it once.
            let named = std::path::absolute(path).map_or_else(|_| path.clone(), |folder| from_cwd(&folder, &cwd));
            let folder = of_folder(&named);
            let under = |agent: Agent| Agent { prefix: prefix(&agent.dir.to_string_lossy()), ..agent };
            targets.agents.extend(folder.agents.into_iter().map(under));
            targets.expanded = targets.expanded.take().or(folder.expanded);
            continue;
        }
        let Some((dir, file)) = project_of(path, &cwd) else {
            targets.outside.push(path.to_path_buf());
            continue;
        };
        // A settings or package file bears on every hook (rule levels, dependencies): its
        // project is checked and reported whole.
        let whole = path.extension().is_some_and(|extension| extension == "json" || extension == "jsonc");
        match targets.agents.iter_mut().find(|agent| agent.dir == dir) {
            Some(agent) if whole => agent.only = None,
            Some(agent) => {
                if let Some(only) = &mut agent.only {
                    only.insert(file);
                }
            }
            None => {
                let prefix = prefix(&dir.to_string_lossy());
                targets.agents.push(Agent { dir, only: (!whole).then(|| BTreeSet::from([file])), prefix });
            }
        }
    }
    // A project named whole and through a file is checked once, whole.
    let mut seen = BTreeSet::new();
    let whole: BTreeSet<PathBuf> =
        targets.agents.iter().filter(|agent| agent.only.is_none()).map(|agent| agent.dir.clone()).collect();
    targets
        .agents
        .retain(|agent| (agent.only.is_none() || !whole.contains(&agent.dir)) && seen.insert(agent.dir.clone()));
    targets
}

/// The project that holds `file` (the nearest folder above it with `bot/` or `agent/`),
/// named from the current directory, and the file's path relative to it with `/`.
fn project_of(file: &Path, cwd: &Path) -> Option<(PathBuf, String)> {
    let absolute = std::path::absolute(file).ok()?;
    let root = absolute.parent()?.ancestors().find(|folder| holds_a_source_folder(folder))?;
    Some((from_cwd(root, cwd), crate::fs::relative_slashed(&absolute, root)?))
}

/// `folder` (absolute) as the reports name it from the current directory: `.`, `apps/a`, or
/// absolute when it is not below it (as `--dir ..` is named).
fn from_cwd(folder: &Path, cwd: &Path) -> PathBuf {
    match folder.strip_prefix(cwd) {
        Ok(below) if below.as_os_str().is_empty() => PathBuf::from("."),
        Ok(below) => below.to_path_buf(),
        Err(_) => folder.to_path_buf(),
    }
}

/// A folder named from the report's root (`a`, `apps/a`, `.`) as the prefix of its paths.
fn prefix(folder: &str) -> String {
    match folder.replace('\\', "/").trim_end_matches('/') {
        "." | "" => String::new(),
        folder => format!("{folder}/"),
    }
}

/// `relative` (with `/`) under `dir`, without a leading `./` for the current folder.
fn join(dir: &Path, relative: &str) -> PathBuf {
    if dir == Path::new(".") { PathBuf::from(relative) } else { dir.join(relative) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_named_from_the_current_one() {
        let cwd = Path::new("/r/apps");
        assert_eq!(from_cwd(Path::new("/r/apps"), cwd), PathBuf::from("."));
        assert_eq!(from_cwd(Path::new("/r/apps/a"), cwd), PathBuf::from("a"));
        assert_eq!(from_cwd(Path::new("/r"), cwd), PathBuf::from("/r"));
        assert_eq!(from_cwd(Path::new("/elsewhere/b"), cwd), PathBuf::from("/elsewhere/b"));
    }
}
