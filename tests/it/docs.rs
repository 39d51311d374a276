//! The docs run: every ```console block of README.md and docs/ is executed with trycmd and
//! its output compared, so the docs cannot drift from the binary.
//!
//! Where a page runs: a page with a `<page>.in` beside it runs in a copy of what that link
//! names (and `<page>.out/` makes it a sandbox, so nothing is written into the repository);
//! every other page runs from the repository's root and only reads. Blocks that cannot run
//! offline are ```text and say so. `TRYCMD=overwrite cargo test --test it -- docs::` rewrites the
//! outputs; read each before committing it.

#[test]
fn docs_examples_run() {
    trycmd::TestCases::new()
        .register_bin("agent-sdk", std::path::PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk")))
        .register_bin("bdk", std::path::PathBuf::from(env!("CARGO_BIN_EXE_bdk")))
        .default_bin_name("agent-sdk")
        // What a user without these set sees: the local model, no colour forced, no CI.
        .env("AGENT_SDK_MODEL", "local")
        .env("FORCE_COLOR", "")
        .env("CLICOLOR_FORCE", "")
        .env("GITHUB_ACTIONS", "false")
        .case("README.md")
        .case("docs/*.md")
        .case("docs/commands/*.md");
}
