//! The completion scripts committed under `completions/` are exactly what the binaries
//! generate today, and the bash ones complete in a real bash: the words typed so far go in
//! as bash hands them to a completion function, and what it offers comes out.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::root;

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "powershell", "elvish"];

/// `<program> completions <shell>`, run as `program` (`agent-sdk` or `bdk`).
fn generated(program: &str, shell: &str) -> String {
    let binary = match program {
        "bdk" => env!("CARGO_BIN_EXE_bdk"),
        _ => env!("CARGO_BIN_EXE_agent-sdk"),
    };
    let output = Command::new(binary).args(["completions", shell]).output().unwrap();
    assert!(output.status.success(), "{program} completions {shell} failed");
    String::from_utf8(output.stdout).unwrap()
}

fn committed(program: &str, shell: &str) -> PathBuf {
    root().join("completions").join(format!("{program}.{shell}"))
}

#[test]
fn committed_completions_match_the_cli() {
    for program in ["agent-sdk", "bdk"] {
        for shell in SHELLS {
            let path = committed(program, shell);
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == generated(program, shell),
                "{} is out of date; regenerate it with `cargo run --bin {program} -- completions {shell} > {}`",
                path.display(),
                path.display()
            );
        }
    }
}

/// What bash offers for `line` (the cursor at its end) with `script` sourced: the
/// function the script registered for the line's first word, called as bash calls it.
fn complete_in_bash(script: &Path, line: &str) -> Vec<String> {
    const DRIVER: &str = r#"
source "$1" || exit 3
line="$2"
read -ra COMP_WORDS <<< "$line"
[[ "$line" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$line"
COMP_POINT=${#line}
spec=$(complete -p "${COMP_WORDS[0]}") || exit 4
[[ $spec =~ -F\ ([^ ]+) ]] || exit 5
"${BASH_REMATCH[1]}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let output = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", DRIVER, "driver"])
        .arg(script)
        .arg(line)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && stderr.is_empty(), "completing `{line}` failed: {:?}\n{stderr}", output.status);
    String::from_utf8_lossy(&output.stdout).lines().filter(|word| !word.is_empty()).map(str::to_owned).collect()
}

#[test]
fn bash_completes_commands_flags_and_values_after_the_subcommand() {
    let script = committed("agent-sdk", "bash");
    assert_eq!(complete_in_bash(&script, "agent-sdk va"), ["validate"]);
    assert_eq!(complete_in_bash(&script, "agent-sdk run --ses"), ["--session"]);
    assert_eq!(complete_in_bash(&script, "agent-sdk init --layout "), ["bot", "agent"]);
    assert_eq!(complete_in_bash(&script, "agent-sdk --color always dev --rot"), ["--rotate-token"]);
    assert_eq!(complete_in_bash(&script, "agent-sdk logs --level "), ["debug", "info", "warn", "error"]);
    assert_eq!(complete_in_bash(&script, "agent-sdk run --event turn."), ["turn.completed", "turn.failed"]);
}

#[test]
fn bdk_completes_bdk() {
    let script = committed("bdk", "bash");
    assert_eq!(complete_in_bash(&script, "bdk va"), ["validate"]);
    assert_eq!(complete_in_bash(&script, "bdk run --ses"), ["--session"]);
    assert!(generated("bdk", "zsh").starts_with("#compdef bdk\n"));
    assert!(generated("bdk", "fish").contains("complete -c bdk "));
}

#[test]
fn bdk_names_itself() {
    let output = Command::new(env!("CARGO_BIN_EXE_bdk")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("bdk {}\n", env!("CARGO_PKG_VERSION")));
    let output = Command::new(env!("CARGO_BIN_EXE_bdk")).args(["validate", "--bogus"]).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("Usage: bdk validate"));
}
