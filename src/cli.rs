//! Every command-line type. The doc comments here are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// A fast, exact toolchain for TypeScript agent hooks.
///
/// Finds the hooks of an agent project (`bot/hooks/` or `agent/hooks/`), checks them
/// statically, and describes the project for scripts.
#[derive(Debug, Parser)]
#[command(name = "agent-sdk", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// When to use colour: `auto` uses it on a terminal unless `NO_COLOR` is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find every hook and check it statically; exit 1 if any has an error.
    ///
    /// The CI gate: no hook code runs. Exit codes: 0 no errors, 1 errors (or warnings
    /// with --deny-warnings), 2 usage or environment error.
    Validate(ValidateArgs),
    /// Describe the project: its agent and the hooks that would load.
    Info(InfoArgs),
    /// Print a shell completion script to stdout.
    Completions(CompletionsArgs),
}

/// The project every command works on.
#[derive(Debug, Args)]
pub struct DirArg {
    /// The project root: the folder that holds `bot/` or `agent/`.
    #[arg(long, default_value = ".", value_name = "PATH")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Pretty)]
    pub format: OutputFormat,

    /// Fail (exit 1) on warnings too, not only on errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// Print the stable JSON description (schemaVersion 1) instead of a tree.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// How `validate` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Source snippets with labels; colour on a terminal.
    Pretty,
    /// One JSON document (schemaVersion 1), documented in the README.
    Json,
    /// GitHub Actions workflow commands (`::error file=…`), one per line.
    Github,
    /// SARIF 2.1.0, for code-scanning uploads.
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}
