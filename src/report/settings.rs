//! Which settings file applies, as a line for stderr: always when it is in a folder above
//! the project (`using settings from ../agent-sdk.json`, said by every command that reads
//! it), and whichever it is for `validate --verbose`.

use crate::config::{Config, FILE_NAMES, PACKAGE_KEY, Source};
use crate::report::ProjectDir;
use crate::text::untrusted::escape;

/// `using settings from ../agent-sdk.json` when the settings in effect come from a folder
/// above the project's (a parent's `ignore`, rule levels or `test.nodeArgs` apply to it,
/// and nothing in the project says so); `None` for the project folder's own, or none.
pub fn from_above(config: &Config, dir: &ProjectDir) -> Option<String> {
    let source = config.source.as_ref().filter(|source| source.is_from_above())?;
    Some(format!("using settings from {}\n", named(source, dir)))
}

/// Which settings file was read, for `validate --verbose`: the [`from_above`] line, or
/// `settings: …` naming the file or saying there is none.
pub fn read_line(config: &Config, dir: &ProjectDir) -> String {
    if let Some(line) = from_above(config, dir) {
        return line;
    }
    match &config.source {
        Some(source) => format!("settings: {}\n", named(source, dir)),
        None => format!(
            "settings: none (no {}, {} or package.json with \"{PACKAGE_KEY}\" in the project's folder or above it, up to the repository's root); the defaults apply\n",
            FILE_NAMES[0], FILE_NAMES[1],
        ),
    }
}

/// The settings file as the current directory names it; a package.json's key says which.
fn named(source: &Source, dir: &ProjectDir) -> String {
    let path = escape(&lexically_normal(&dir.file(&source.display_path))).into_owned();
    match source.in_package_json {
        true => format!("the \"{PACKAGE_KEY}\" key of {path}"),
        false => path,
    }
}

/// `path` with each `name/..` taken out: `packages/agent/../../agent-sdk.json` is
/// `agent-sdk.json`.
fn lexically_normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." if parts.last().is_some_and(|last| *last != ".." && !last.is_empty()) => {
                parts.pop();
            }
            "." => {}
            part => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_and_its_dot_dot_cancel_out() {
        assert_eq!(lexically_normal("packages/agent/../../agent-sdk.json"), "agent-sdk.json");
        assert_eq!(lexically_normal("agent/../../agent-sdk.json"), "../agent-sdk.json");
        assert_eq!(lexically_normal("../../agent-sdk.json"), "../../agent-sdk.json");
        assert_eq!(lexically_normal("/srv/a/../agent-sdk.json"), "/srv/agent-sdk.json");
    }
}
