//! `test --coverage`: Node's test coverage (`--experimental-test-coverage`, the name it still
//! has in Node 26) of the agent's code, reported on the `.ts` sources: the loader's modules
//! carry inline source maps (each line's first column mapped, [`crate::loader::line_starts`]),
//! which Node applies to coverage with `--enable-source-maps`.
//! The test files and agent-sdk's own modules (the runtime's folder, in the user's cache or
//! under the state folder, and the state folder's compiled hooks) are left out. What
//! the running Node cannot do is said before the run rather than hidden in its report.

use crate::runtime::node_version::NodeVersion;

/// Node maps coverage onto the original sources from 20.13 on; before, the lines it lists
/// under a `.ts` file are those of the compiled JavaScript.
const MAPS_ONTO_SOURCES: (u32, u32) = (20, 13);

/// Until 22.8, Node measured the compiled lines without their line breaks when it mapped
/// them, so the lines it names drift by a few (measured: a hook's one uncovered line 17
/// reported as 18-20 on 20.20 and 22.7, as 17 on 22.8).
const MAPS_EXACTLY: (u32, u32) = (22, 8);

/// `--test-coverage-exclude` came in Node 22.5.
const LEAVES_FILES_OUT: (u32, u32) = (22, 5);

/// Node's arguments for coverage on `version`: the test files (relative to the project, as
/// Node is given them) and `own_folders` (agent-sdk's: relative to the project, or absolute
/// where they are outside it, which Node's globs also match) left out where Node can.
pub fn node_args(version: NodeVersion, test_files: &[&str], own_folders: &[String]) -> Vec<String> {
    let mut args = vec!["--experimental-test-coverage".to_owned()];
    if version.at_least(LEAVES_FILES_OUT.0, LEAVES_FILES_OUT.1) {
        let left_out = own_folders
            .iter()
            .map(|folder| glob_literal(folder).map(|folder| format!("{folder}/**")))
            .chain(test_files.iter().map(|file| glob_literal(file)));
        args.extend(left_out.flatten().map(|glob| format!("--test-coverage-exclude={glob}")));
    }
    args
}

/// What `version`'s report gets wrong or leaves in, said before the run.
pub fn notes(version: NodeVersion) -> Vec<String> {
    let mut notes = Vec::new();
    if !version.at_least(MAPS_ONTO_SOURCES.0, MAPS_ONTO_SOURCES.1) {
        notes.push(format!(
            "note: Node.js {version} measures coverage on the compiled JavaScript: the lines it lists under a `.ts` file are the compiled code's (Node.js ≥ {}.{} names the `.ts` lines)",
            MAPS_EXACTLY.0, MAPS_EXACTLY.1
        ));
    } else if !version.at_least(MAPS_EXACTLY.0, MAPS_EXACTLY.1) {
        notes.push(format!(
            "note: Node.js {version} maps coverage onto the `.ts` lines inexactly (fixed in Node.js {}.{}): the lines it lists as uncovered can be off by a few",
            MAPS_EXACTLY.0, MAPS_EXACTLY.1
        ));
    }
    if !version.at_least(LEAVES_FILES_OUT.0, LEAVES_FILES_OUT.1) {
        notes.push(format!(
            "note: Node.js {version} cannot leave files out of its coverage report: it lists the test files and agent-sdk's own modules too (Node.js ≥ {}.{} leaves them out)",
            LEAVES_FILES_OUT.0, LEAVES_FILES_OUT.1
        ));
    }
    notes
}

/// `path` as a glob that matches only itself: each character a glob gives a meaning to
/// is put in a class of its own (`[*]`; a `]` with no `[` before it is itself). `None` for
/// a path with braces, which Node's globs expand before anything else: it stays in.
fn glob_literal(path: &str) -> Option<String> {
    if path.contains(['{', '}']) {
        return None;
    }
    let mut glob = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | '(' | ')') {
            glob.push('[');
            glob.push(c);
            glob.push(']');
        } else {
            glob.push(c);
        }
    }
    Some(glob)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> NodeVersion {
        NodeVersion::parse(text).unwrap()
    }

    #[test]
    fn files_are_left_out_where_node_can() {
        let files = ["bot/hooks/usage.test.ts", "bot/hooks/[id].test.ts", "bot/hooks/{a,b}.test.ts"];
        let own = [".agent-sdk".to_owned(), "/home/ada/.cache/agent-sdk/runtime/0123".to_owned()];
        assert_eq!(
            node_args(version("v22.5.0"), &files, &own),
            [
                "--experimental-test-coverage",
                "--test-coverage-exclude=.agent-sdk/**",
                "--test-coverage-exclude=/home/ada/.cache/agent-sdk/runtime/0123/**",
                "--test-coverage-exclude=bot/hooks/usage.test.ts",
                "--test-coverage-exclude=bot/hooks/[[]id].test.ts",
            ]
        );
        assert_eq!(node_args(version("v22.4.1"), &files, &own), ["--experimental-test-coverage"]);
    }

    #[test]
    fn what_an_older_node_gets_wrong_is_said() {
        assert!(notes(version("v22.8.0")).is_empty());
        let node_22_7 = notes(version("v22.7.0"));
        assert_eq!(node_22_7.len(), 1);
        assert!(node_22_7[0].contains("inexactly"), "{node_22_7:?}");
        let node_20_20 = notes(version("v20.20.2"));
        assert_eq!(node_20_20.len(), 2);
        assert!(node_20_20[1].contains("cannot leave files out"), "{node_20_20:?}");
        let node_20_6 = notes(version("v20.6.0"));
        assert_eq!(node_20_6.len(), 2);
        assert!(node_20_6[0].starts_with("note: Node.js v20.6.0 measures coverage on the compiled JavaScript"));
    }
}
