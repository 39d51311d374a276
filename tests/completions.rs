//! The completion scripts committed under `completions/` are exactly what the binary
//! generates today: this fails when a flag changes and the scripts were not regenerated.

mod common;

use common::{root, run_in};

#[test]
fn committed_completions_match_the_cli() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = run_in(&root(), &["completions", shell]);
        assert!(output.status.success(), "completions {shell} failed");
        let path = root().join("completions").join(format!("agent-sdk.{shell}"));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == String::from_utf8_lossy(&output.stdout),
            "{} is out of date; regenerate it with `cargo run -- completions {shell} > {}`",
            path.display(),
            path.display()
        );
    }
}
