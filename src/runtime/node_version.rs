//! Whether a Node.js can run the hooks and their tests, asked once of `node --version` the
//! way `run`, `dev` and `test` start it (with the environment files' variables, so a
//! `NODE_OPTIONS` reaches it as it reaches them): its version, or why not, in Node's own
//! words when Node says why.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// The oldest Node.js hooks run in (SPEC §8).
pub const MIN_NODE: (u32, u32) = (20, 6);

/// The oldest Node.js the vendor asks for; an older one past its end of life still runs
/// the hooks, with [`end_of_life_warning`].
pub const RECOMMENDED_NODE: (u32, u32) = (22, 13);

/// The Node.js lines this binary runs that are past their end of life, with the day each
/// ended (https://github.com/nodejs/Release): the odd ones never were LTS.
const ENDED: [(u32, &str); 3] = [(20, "2026-04-30"), (21, "2024-06-01"), (23, "2025-06-01")];

/// Set (and not empty), no end-of-life warning is said: for a user who knows, and for the
/// test suite, whose snapshots must read the same on every Node it runs on.
pub const NO_NODE_WARNING: &str = "AGENT_SDK_NO_NODE_WARNING";

/// Whether this process has said the end-of-life warning: once per invocation, however
/// often the runtime restarts and however many sessions `dev` serves. Once a day (a stamp
/// in the user's cache, as npm's update notifier keeps) would hide it from CI logs, where
/// an old Node lingers longest, and make one command's output depend on another's.
static WARNED: AtomicBool = AtomicBool::new(false);

/// A Node.js that cannot run hooks (exit 2: an environment error).
#[derive(Debug, Clone)]
pub struct NodeUnusable(pub String);

impl std::fmt::Display for NodeUnusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NodeUnusable {}

/// A Node.js version, as `node --version` says it (`v22.23.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct NodeVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl NodeVersion {
    /// `v20.20.2` or `20.20.2`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().trim_start_matches('v').splitn(3, '.');
        let mut next = || parts.next().and_then(|part| part.parse::<u32>().ok());
        Some(Self { major: next()?, minor: next()?, patch: next()? })
    }

    /// Whether this is `major.minor` or later.
    pub fn at_least(self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl std::fmt::Display for NodeVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The warning for a Node.js past its end of life, the first time this process asks and
/// unless [`NO_NODE_WARNING`] is set; `None` otherwise. The caller says it where its
/// command says warnings (the serve log for `run` and `dev`, stderr for `test`).
pub fn end_of_life_warning(version: NodeVersion) -> Option<String> {
    let silenced = std::env::var_os(NO_NODE_WARNING).is_some_and(|value| !value.is_empty());
    let warning = past_end_of_life(version).filter(|_| !silenced)?;
    (!WARNED.swap(true, Ordering::SeqCst)).then_some(warning)
}

/// What [`end_of_life_warning`] says of `version`, every time.
fn past_end_of_life(version: NodeVersion) -> Option<String> {
    let (_, ended) = ENDED.iter().find(|(major, _)| *major == version.major)?;
    Some(format!(
        "Node.js {version} is past its end of life ({ended}); agent-sdk supports it for now, use Node.js {}.{} or newer",
        RECOMMENDED_NODE.0, RECOMMENDED_NODE.1
    ))
}

/// What the Node.js is asked for: `hooks` or `tests`, as the messages say it.
#[derive(Debug, Clone, Copy)]
pub enum NodeUse {
    Hooks,
    Tests,
}

impl NodeUse {
    fn noun(self) -> &'static str {
        match self {
            NodeUse::Hooks => "hooks",
            NodeUse::Tests => "tests",
        }
    }
}

/// `node --version` as the runtime and the test runner start Node: with `env` (the
/// environment files' variables) added. Its answer goes to [`read_version`].
pub fn version_command(node: &Path, env: &[(String, String)]) -> Command {
    let mut command = Command::new(node);
    command
        .arg("--version")
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Asks `node --version` now and reads the answer (see [`read_version`]).
pub fn probe_node(node: &Path, env: &[(String, String)], node_use: NodeUse) -> Result<NodeVersion, NodeUnusable> {
    read_version(node, env, version_command(node, env).output(), node_use)
}

/// The verdict on what [`version_command`] answered: the version, or why this Node.js
/// cannot be used: not found, refused to start (in its own words, naming `NODE_OPTIONS`
/// when it is set, the usual cause), or too old.
pub fn read_version(
    node: &Path,
    env: &[(String, String)],
    answered: std::io::Result<Output>,
    node_use: NodeUse,
) -> Result<NodeVersion, NodeUnusable> {
    let output = answered.map_err(|_| not_found(node, node_use))?;
    let said = String::from_utf8_lossy(&output.stderr).trim_end().to_owned();
    if !output.status.success() {
        return Err(refused(node, env, &said));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(version) = NodeVersion::parse(&stdout) else {
        return Err(NodeUnusable(format!(
            "`{} --version` did not say a version (it said `{}`): is it Node.js?",
            node.display(),
            stdout.trim()
        )));
    };
    if !version.at_least(MIN_NODE.0, MIN_NODE.1) {
        return Err(too_old(&version.to_string(), node_use));
    }
    Ok(version)
}

/// Checks a version the runtime reported (`20.20.2`, or `v20.20.2` from `node --version`).
pub fn check_node_version(version: &str) -> Result<(), NodeUnusable> {
    match NodeVersion::parse(version) {
        Some(found) if found.at_least(MIN_NODE.0, MIN_NODE.1) => Ok(()),
        _ => Err(too_old(version.trim(), NodeUse::Hooks)),
    }
}

/// Why a runtime ended before it said hello, given what it wrote to stderr: Node missing,
/// refusing to start, too old, or Node's own message. Asks `node --version` (only on this
/// failure path, so a normal start runs Node once).
pub fn diagnose_node(node: &Path, stderr: &[String]) -> NodeUnusable {
    let version = match probe_node(node, &[], NodeUse::Hooks) {
        Err(unusable) => return unusable,
        Ok(version) => version,
    };
    let said: Vec<&str> = stderr.iter().map(|line| line.trim_end()).filter(|line| !line.is_empty()).collect();
    if said.is_empty() {
        NodeUnusable(format!("the hook runtime could not start with Node.js {version}"))
    } else {
        NodeUnusable(format!("Node.js could not start the hook runtime:\n{}", said.join("\n")))
    }
}

fn not_found(node: &Path, node_use: NodeUse) -> NodeUnusable {
    NodeUnusable(format!(
        "Node.js was not found (`{}`); {} run in Node.js ≥ {}.{}: install it from https://nodejs.org",
        node.display(),
        node_use.noun(),
        MIN_NODE.0,
        MIN_NODE.1
    ))
}

fn too_old(version: &str, node_use: NodeUse) -> NodeUnusable {
    NodeUnusable(format!(
        "Node.js v{} is too old: {} need Node.js ≥ {}.{}; upgrade it from https://nodejs.org",
        version.trim_start_matches('v'),
        node_use.noun(),
        MIN_NODE.0,
        MIN_NODE.1
    ))
}

/// Node exited at once, before saying its version: nearly always an option it refuses in
/// `NODE_OPTIONS` (the shell's, or an environment file's, which wins as it does for Node).
fn refused(node: &Path, env: &[(String, String)], said: &str) -> NodeUnusable {
    let options = env
        .iter()
        .find(|(key, _)| key == "NODE_OPTIONS")
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var("NODE_OPTIONS").ok())
        .filter(|options| !options.trim().is_empty());
    let said = if said.is_empty() { "(it said nothing)" } else { said };
    match options {
        Some(options) => NodeUnusable(format!(
            "Node.js refused to start with NODE_OPTIONS=`{options}` (fix it or unset it):\n{said}"
        )),
        None => NodeUnusable(format!("Node.js (`{}`) could not start:\n{said}", node.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare_as_node_numbers_them() {
        let version = NodeVersion::parse("v22.5.0\n").unwrap();
        assert_eq!(version.to_string(), "v22.5.0");
        assert!(version.at_least(22, 5) && version.at_least(20, 13) && !version.at_least(22, 6));
        assert!(NodeVersion::parse("v20.10.0").unwrap() > NodeVersion::parse("v20.9.1").unwrap());
        assert_eq!(NodeVersion::parse(""), None);
        assert_eq!(NodeVersion::parse("v22"), None);
    }

    #[test]
    fn only_a_line_past_its_end_of_life_is_warned_of() {
        let said = |text: &str| past_end_of_life(NodeVersion::parse(text).unwrap());
        assert_eq!(
            said("v20.20.2").as_deref(),
            Some(
                "Node.js v20.20.2 is past its end of life (2026-04-30); agent-sdk supports it for now, use Node.js 22.13 or newer"
            )
        );
        assert!(said("v23.11.1").is_some_and(|warning| warning.contains("(2025-06-01)")));
        assert_eq!(said("v22.12.0"), None);
        assert_eq!(said("v24.0.0"), None);
    }

    #[test]
    fn a_version_older_than_20_6_is_too_old() {
        assert!(check_node_version("20.6.0").is_ok());
        let refused = check_node_version("v20.5.1").unwrap_err().to_string();
        assert_eq!(
            refused,
            "Node.js v20.5.1 is too old: hooks need Node.js ≥ 20.6; upgrade it from https://nodejs.org"
        );
        assert!(check_node_version("").is_err());
    }
}
