//! The project on disk: which layout it uses (`bot/` or `agent/`), and the agent's name.

pub mod env_file;
pub mod fingerprint;
pub mod package_json;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Code, Diagnostic};

/// The two layouts an agent project can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `bot/` — the BDK layout.
    Bot,
    /// `agent/` — the Agent SDK layout.
    Agent,
}

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Bot, Layout::Agent];

    /// The source folder's name under `--dir`.
    pub fn folder(self) -> &'static str {
        match self {
            Layout::Bot => "bot",
            Layout::Agent => "agent",
        }
    }
}

/// An agent project whose source folder was found.
#[derive(Debug, Clone)]
pub struct Project {
    /// `--dir` as the user gave it.
    pub dir: PathBuf,
    /// `--dir` made absolute with every link resolved: the boundary links may not cross.
    pub canonical_dir: PathBuf,
    pub layout: Layout,
    /// The agent's name: `package.json`'s `name`, else the folder name of `--dir`.
    pub name: String,
}

impl Project {
    /// `<dir>/<bot|agent>`.
    pub fn source_dir(&self) -> PathBuf {
        self.dir.join(self.layout.folder())
    }

    /// `<dir>/<bot|agent>/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        self.source_dir().join("hooks")
    }

    /// `<src>/hooks` relative to `--dir`, with `/`.
    pub fn hooks_prefix(&self) -> String {
        format!("{}/hooks", self.layout.folder())
    }
}

/// The project root when none was given: the nearest folder, from the current one up,
/// that holds `bot/` or `agent/` (as cargo finds `Cargo.toml` and tsc `tsconfig.json`),
/// spelt relative to the current folder (`.`, `..`, `../..`) so that the paths printed
/// stay relative to where the user is. With none above, `.`, where the command then
/// says there is no agent source folder.
pub fn find_root() -> PathBuf {
    let Ok(current) = std::env::current_dir() else { return PathBuf::from(".") };
    match current.ancestors().position(holds_a_source_folder) {
        Some(0) | None => PathBuf::from("."),
        Some(levels) => std::iter::repeat_n("..", levels).collect(),
    }
}

/// Whether `folder` holds `bot/` or `agent/`: whether it is a project's root.
pub fn holds_a_source_folder(folder: &Path) -> bool {
    Layout::ALL.into_iter().any(|layout| folder.join(layout.folder()).is_dir())
}

/// Why a project could not even be looked at: a usage or environment error (exit 2).
#[derive(Debug)]
pub struct DirError {
    pub dir: PathBuf,
    pub source: std::io::Error,
}

impl fmt::Display for DirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = self.dir.display();
        match self.source.kind() {
            std::io::ErrorKind::NotFound => write!(f, "--dir `{dir}` does not exist"),
            std::io::ErrorKind::NotADirectory => write!(f, "--dir `{dir}` is not a directory"),
            _ => write!(f, "--dir `{dir}` cannot be read: {}", crate::text::io_error::describe(&self.source)),
        }
    }
}

impl std::error::Error for DirError {}

/// The outcome of looking for the agent's source folder.
#[derive(Debug)]
pub struct Located {
    /// The project, when exactly one layout was found.
    pub project: Option<Project>,
    /// Findings about the project itself (no source folder, both, a bad `package.json`).
    pub diagnostics: Vec<Diagnostic>,
}

/// Finds the agent's source folder under `dir` and names the agent.
pub fn locate(dir: &Path) -> Result<Located, DirError> {
    let to_error = |source| DirError { dir: dir.to_path_buf(), source };
    let canonical_dir = dir.canonicalize().map_err(to_error)?;
    if !canonical_dir.is_dir() {
        return Err(to_error(std::io::Error::from(std::io::ErrorKind::NotADirectory)));
    }
    // Listing the folder proves it is readable, not just present.
    std::fs::read_dir(dir).map_err(to_error)?;

    let found: Vec<Layout> = Layout::ALL.into_iter().filter(|layout| dir.join(layout.folder()).is_dir()).collect();
    let layout = match found.as_slice() {
        [layout] => *layout,
        [] => {
            return Ok(Located { project: None, diagnostics: vec![no_agent_source(dir)] });
        }
        _ => {
            return Ok(Located { project: None, diagnostics: vec![ambiguous_layout()] });
        }
    };

    let mut diagnostics = Vec::new();
    let name = match package_name(dir) {
        Ok(Some(name)) => name,
        Ok(None) => folder_name(&canonical_dir),
        Err(reason) => {
            diagnostics.push(invalid_package_json(&reason));
            folder_name(&canonical_dir)
        }
    };
    let project = Project { dir: dir.to_path_buf(), canonical_dir, layout, name };
    Ok(Located { project: Some(project), diagnostics })
}

/// `name` from `<dir>/package.json`: `Ok(None)` when there is no file or no string `name`;
/// what is wrong with the file otherwise (see [`crate::fs::json::JsonError::clause`]).
fn package_name(dir: &Path) -> Result<Option<String>, String> {
    let text = match std::fs::read_to_string(dir.join("package.json")) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("is not valid JSON ({error})")),
    };
    let json = crate::fs::json::parse(&text).map_err(|error| error.clause())?;
    Ok(json.get("name").and_then(|name| name.as_str()).filter(|name| !name.is_empty()).map(str::to_owned))
}

fn folder_name(canonical_dir: &Path) -> String {
    canonical_dir.file_name().map_or_else(|| "agent".to_owned(), |name| name.to_string_lossy().into_owned())
}

fn no_agent_source(dir: &Path) -> Diagnostic {
    let help = match agents_below(dir).as_slice() {
        [] => {
            "create one with `agent-sdk init` (or make `bot/hooks/`, the BDK layout, or `agent/hooks/`, the Agent SDK \
               layout), or point `--dir` at the project root"
                .to_owned()
        }
        [found] => format!("found an agent in {found}: --dir {found} (or create one here with `agent-sdk init`)"),
        found => {
            let named = found.iter().take(NAMED_AGENTS).cloned().collect::<Vec<_>>().join(", ");
            let more = match found.len().saturating_sub(NAMED_AGENTS) {
                0 => String::new(),
                more => format!(" and {more} more"),
            };
            format!("found agents in {named}{more}: point --dir at one (or create one here with `agent-sdk init`)")
        }
    };
    Diagnostic::new(Code::NoAgentSource, "no agent source folder: neither `bot/` nor `agent/` exists", help)
}

/// How many of the agents found below a folder the hint names (the rest are counted).
const NAMED_AGENTS: usize = 3;

/// The folders one or two levels below `dir` (`agent/`, `apps/agent/`) that hold an agent
/// (`bot/hooks/` or `agent/hooks/`), relative to `dir`, in byte order.
/// Dot-folders and `node_modules` are not looked in.
pub fn agents_below(dir: &Path) -> Vec<String> {
    let children = |folder: &Path| -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
        let mut found: Vec<_> = entries
            .flatten()
            .filter(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                !name.starts_with('.') && name != "node_modules" && entry.path().is_dir()
            })
            .map(|entry| entry.path())
            .collect();
        found.sort();
        found
    };
    let is_agent = |folder: &Path| Layout::ALL.iter().any(|layout| folder.join(layout.folder()).join("hooks").is_dir());
    let mut agents = Vec::new();
    for child in children(dir) {
        let candidates = std::iter::once(child.clone()).chain(children(&child));
        for candidate in candidates.filter(|candidate| is_agent(candidate)) {
            if let Ok(relative) = candidate.strip_prefix(dir) {
                agents.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    agents.sort();
    agents
}

fn ambiguous_layout() -> Diagnostic {
    Diagnostic::new(
        Code::AmbiguousLayout,
        "both `bot/` and `agent/` exist, so which one is the agent is ambiguous",
        "keep one source folder: move the hooks you want into one of them and delete (or rename) the other",
    )
}

fn invalid_package_json(what_is_wrong: &str) -> Diagnostic {
    Diagnostic::new(
        Code::InvalidPackageJson,
        format!("`package.json` {what_is_wrong}; the agent is named after its folder"),
        "fix the JSON in `package.json`, or delete the file",
    )
    .with_path("package.json")
}
