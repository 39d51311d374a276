//! The completion scripts committed under `completions/` are exactly what the binaries
//! generate today, the bash ones complete in a real bash (the words typed so far go in as
//! bash hands them to a completion function, and what it offers comes out), and the Nushell
//! ones in a real Nushell (asked what it completes at the end of a line, as its editor asks).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::root;

const SHELLS: [&str; 6] = ["bash", "zsh", "fish", "powershell", "elvish", "nushell"];

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

/// `completions/<program>.<shell>`; Nushell's is `.nu`, the name its `source` and `use` take.
fn committed(program: &str, shell: &str) -> PathBuf {
    let extension = if shell == "nushell" { "nu" } else { shell };
    root().join("completions").join(format!("{program}.{extension}"))
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

/// What Nushell (tests/nushell's: the official release for Linux x64) offers at the end of
/// `line`, typed after the completion script at `script` was sourced: `nu --ide-complete`,
/// the completion its editor integration asks for.
fn complete_in_nushell(script: &Path, line: &str) -> Vec<String> {
    let nu = root().join("tests/nushell/node_modules/@nushell/linux-x64/bin/nu");
    assert!(
        nu.is_file(),
        "Nushell is not installed: run scripts/test-setup (npm ci --prefix tests/nushell; Linux x64 only)"
    );
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(script, folder.path().join("completions.nu")).unwrap();
    let typed = format!("source completions.nu\n{line}");
    std::fs::write(folder.path().join("typed.nu"), &typed).unwrap();
    let output = Command::new(nu)
        .args(["--no-config-file", "--ide-complete", &typed.len().to_string(), "typed.nu"])
        .current_dir(folder.path())
        .output()
        .expect("nu runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "completing `{line}` failed: {stdout}{}", String::from_utf8_lossy(&output.stderr));
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}"));
    let words = answer["completions"].as_array().unwrap_or_else(|| panic!("no completions: {answer}"));
    words.iter().map(|word| word.as_str().unwrap().to_owned()).collect()
}

#[test]
fn nushell_completes_commands_flags_and_values() {
    let script = committed("agent-sdk", "nushell");
    assert_eq!(complete_in_nushell(&script, "agent-sdk va"), ["agent-sdk validate"]);
    assert_eq!(complete_in_nushell(&script, "agent-sdk run --ses"), ["--session"]);
    assert_eq!(complete_in_nushell(&script, "agent-sdk init --layout "), ["agent", "bot"]);
    assert_eq!(complete_in_nushell(&script, "agent-sdk logs --level "), ["debug", "error", "info", "warn"]);
    assert_eq!(
        complete_in_nushell(&script, "agent-sdk completions "),
        ["bash", "elvish", "fish", "nushell", "powershell", "zsh"]
    );
    let script = committed("bdk", "nushell");
    assert_eq!(complete_in_nushell(&script, "bdk run --rep"), ["--replay"]);
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
