//! Every command-line type. The doc comments here are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::state::log_record::Level;
use crate::state::serve_log::LogFormat;
use crate::state::session_info::{Mode, Purpose};

/// A fast, exact toolchain for TypeScript agent hooks.
///
/// For an agent project (hooks under `bot/hooks/` or `agent/hooks/`): validate checks the
/// hooks statically, info describes the project, run runs one turn with the hooks executed
/// in Node.js, dev serves the agent over HTTP, chat talks to it, test runs the hooks' tests, logs tails a
/// server's serve log, sdk writes the SDK packages for tsc and editors, init creates a
/// project, completions prints a shell completion script, lsp serves editors, and help
/// prints the help of one command, of all (`help --all`), or as JSON (`help run --json`).
///
/// The project is the folder given as PATH or --dir, else the nearest one from the current
/// folder up that holds `bot/` or `agent/`.
#[derive(Debug, Parser)]
#[command(name = "agent-sdk", version, propagate_version = true, max_term_width = 100, disable_help_subcommand = true)]
pub struct Cli {
    /// None: the program was run bare, which prints the command index.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The name the program was run as (not a flag).
    #[arg(skip)]
    pub program: ProgramName,

    /// When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and
    /// even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, display_order = 900)]
    pub color: ColorChoice,

    /// Print only results, findings and errors: no summary or progress lines.
    #[arg(long, short, global = true, display_order = 901)]
    pub quiet: bool,
}

/// The name the program was run as: `agent-sdk`, or `bdk`, the name BDK users type. It
/// names the program in `--help`, `--version` and usage errors, and is the command the
/// completion scripts complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProgramName {
    #[default]
    AgentSdk,
    Bdk,
}

impl ProgramName {
    pub fn as_str(self) -> &'static str {
        match self {
            ProgramName::AgentSdk => "agent-sdk",
            ProgramName::Bdk => "bdk",
        }
    }

    /// `bdk` when the program's file is named so (`bdk`, `/usr/bin/bdk`, `bdk.exe`).
    pub fn from_argv0(argv0: Option<&std::ffi::OsStr>) -> Self {
        let stem = argv0.and_then(|path| std::path::Path::new(path).file_stem());
        if stem.is_some_and(|stem| stem == "bdk") { ProgramName::Bdk } else { ProgramName::AgentSdk }
    }
}

impl Cli {
    /// The command line's definition, naming the program `program`.
    pub fn command_named(program: ProgramName) -> clap::Command {
        use clap::CommandFactory;
        Cli::command().name(program.as_str()).bin_name(program.as_str())
    }

    /// Parses `args` (the first one is the program's path) for the program `program`.
    pub fn try_parse_as<I, T>(program: ProgramName, args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::FromArgMatches;
        let mut command = Cli::command_named(program);
        let matches = command.try_get_matches_from_mut(args)?;
        let mut cli = Cli::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
        cli.program = program;
        Ok(cli)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find every hook and check it statically; exit 1 if any has an error.
    ///
    /// The CI gate: no hook code runs. The one code that can run is an extension mount's
    /// (a file in `<src>/extensions/`): what it mounts is known only by running its factory,
    /// so each mount runs once in Node.js, with a minimal environment (PATH, HOME, the
    /// locale and Node's own variables: no secrets, no `.env`), its state in the user's
    /// cache folder (nothing is written into the project) and every process it starts ended
    /// with it; stderr says when. --no-exec runs no code at all. Exit codes: 0 no errors,
    /// 1 errors (or warnings with --deny-warnings), 2 usage or environment error.
    ///
    /// Given files (a commit's, from pre-commit), it reports only their findings; at a
    /// monorepo's root, every agent below it, in one report.
    ///
    /// Example: agent-sdk validate examples/acme-bot --format github
    Validate(ValidateArgs),
    /// Describe the project: its agent and the hooks that would load.
    ///
    /// Runs extension mounts as `validate` does (a minimal environment, nothing written
    /// into the project); --no-exec runs none.
    ///
    /// Example: agent-sdk info examples/acme-bot --json
    Info(InfoArgs),
    /// Run one local turn: record its events and fire the hooks for real in Node.js.
    ///
    /// The reply streams to stdout; the serve log (what loaded, every hook failure, a
    /// summary) goes to stderr. Exit codes: 0 the turn completed and every hook ran clean,
    /// 1 it failed or the hooks have errors, 2 usage or environment error (e.g. no Node.js
    /// ≥ 20.6), 3 a hook failed to load, threw, timed out or crashed the runtime, 130 Ctrl-C.
    ///
    /// Example: agent-sdk run examples/acme-bot --message "What is the refund policy?"
    Run(RunArgs),
    /// Serve the agent locally over HTTP: many sessions, many turns, hooks as in `run`.
    ///
    /// Writes its URL and a bearer token to `<dir>/.agent-sdk/dev.json` (mode 0600) for
    /// `agent-sdk logs`. Ctrl-C, SIGTERM or SIGHUP stops accepting, finishes what was recorded, exits 0.
    ///
    /// Example: agent-sdk dev examples/acme-bot --port 0 --session-idle 1h
    Dev(DevArgs),
    /// Run the hooks' tests (`*.test.*`, `*.spec.*` under `bot/` or `agent/`) with Node's
    /// test runner, loading the project's code exactly as `run` does.
    ///
    /// Tests import the test kit from `@cursor/bdk/testing` (or `@grok/agent-sdk/testing`,
    /// `@cursor/july/testing`). Exit codes: 0 every test passed (or there are none), 1 a
    /// test failed, a test file has errors, no test file matches PATTERN or no test's name
    /// matches --test-name-pattern, 2 usage or environment error (e.g. no Node.js ≥ 20.6,
    /// or one that refuses NODE_OPTIONS), 130 Ctrl-C (the way --watch ends).
    ///
    /// Example: agent-sdk test --watch 'usage*'
    Test(TestArgs),
    /// Tail the serve log of a hosted agent or a local `agent-sdk dev`.
    ///
    /// Host and token come from --host/--token, then AGENT_SDK_HOST/AGENT_SDK_TOKEN, then
    /// the local `.agent-sdk/dev.json`. A dropped connection is resumed where it stopped:
    /// no line is printed twice and none is skipped.
    ///
    /// Example: agent-sdk logs examples/acme-bot --follow --since 1h --level warn
    Logs(LogsArgs),
    /// Talk to the agent a local `agent-sdk dev` (or a hosted agent) serves.
    ///
    /// Speaks the hosting API (`POST /v1/session`): with --message, one turn, its reply on
    /// stdout and its hooks' outcome (the serve log's lines of the turn) on stderr; without,
    /// one session, a turn per line read, until end of input (Ctrl-D). The URL and token come
    /// from --url/--token, then AGENT_SDK_HOST/AGENT_SDK_TOKEN, then the local
    /// `.agent-sdk/dev.json`. Exit codes: 0 the turn completed and its hooks ran clean, 1 it
    /// failed or the server refused it, 2 usage error or no server, 3 a hook threw, timed out
    /// or failed to load, 130 Ctrl-C.
    ///
    /// Example: agent-sdk chat --message "What is the refund policy?"
    Chat(ChatArgs),
    /// Write the SDK packages into `vendor/agent-sdk/`, with their TypeScript declarations.
    ///
    /// `@cursor/bdk`, `@grok/agent-sdk` and `@cursor/july`: the modules hooks import (the
    /// root, `/hooks`, `/memory`, `/testing`) for ESM and CommonJS, typed from the event
    /// vocabulary and stamped with this binary's version, so `tsc`, editors and test runners
    /// see them. Each is a folder to commit, which `package.json` names as a `file:`
    /// dependency so that npm, pnpm and yarn keep it in `node_modules/`; sdk links
    /// `node_modules/` to them (or refreshes the copy pnpm or yarn made) and says what to add
    /// to a `package.json` that does not name them. Hooks run with the binary's own copy
    /// either way. Unchanged files are not rewritten.
    ///
    /// Example: agent-sdk sdk examples/acme-bot
    Sdk(SdkArgs),
    /// Create a working agent project: hooks, their test, tsconfig and the SDK packages.
    ///
    /// Writes `package.json` (when absent), `<src>/instructions.md`, `<src>/hooks/memory.ts`,
    /// an example hook with its test, a strict `tsconfig.json`, `.gitignore` lines for the
    /// state root, and the SDK packages. A file that exists is never overwritten without
    /// --force: init lists them and exits 1, having written nothing. An existing
    /// `package.json` is kept: init says what it lacks, or adds it with
    /// --update-package-json. So is an existing `tsconfig.json` (the repository's build may
    /// depend on it): the hooks' settings then go into `<src>/tsconfig.json`, and init says
    /// what to exclude when the repository's takes in `<src>/` too (--force writes the
    /// scaffold's instead).
    ///
    /// Example: agent-sdk init my-bot && cd my-bot && agent-sdk run --message "hello"
    Init(InitArgs),
    /// Print a shell completion script to stdout.
    ///
    /// Run as `bdk`, the script completes `bdk`.
    ///
    /// Example: agent-sdk completions bash > ~/.local/share/bash-completion/completions/agent-sdk
    Completions(CompletionsArgs),
    /// Serve the Language Server Protocol over stdio, for editors.
    ///
    /// Diagnostics as `validate` finds them, on every change of the unsaved buffer; quick
    /// fixes and "disable for this line"; completion and hover of event keys; go to an
    /// extension's hook from `disableHook("…")`. Every agent project in the workspace is
    /// served. docs/editors.md shows how to set up VS Code, Neovim and Helix.
    ///
    /// Example: agent-sdk lsp --stdio
    Lsp(LspArgs),
    /// Print the command index, a command's help, every command's, or a command as JSON.
    ///
    /// Bare, `help` (and the program run with no command) prints the index of commands;
    /// `help <command>` prints what `<command> --help` does; --all prints every command's
    /// help; --json prints the command's (or, with no command, the program's and every
    /// command's) arguments and flags as JSON, for tools and scripts.
    ///
    /// Example: agent-sdk help run --json
    Help(HelpArgs),
}

/// Every command's name, in the order `--help` lists them: what `help` completes and takes.
pub const COMMANDS: [&str; 12] =
    ["validate", "info", "run", "dev", "test", "logs", "chat", "sdk", "init", "completions", "lsp", "help"];

/// `agent-sdk help`.
#[derive(Debug, Args)]
pub struct HelpArgs {
    /// The command whose help to print (none: the index).
    #[arg(value_name = "COMMAND", value_parser = clap::builder::PossibleValuesParser::new(COMMANDS))]
    pub command: Option<String>,

    /// Print every command's help, one after another.
    #[arg(long, conflicts_with = "command")]
    pub all: bool,

    /// Print the arguments and flags as JSON: the command's, or with no command the
    /// program's, with every command's.
    #[arg(long)]
    pub json: bool,
}

/// The first argument of the one command no user types: the hook runtime's request for a
/// module no string literal imports. Parsed apart from [`Cli`], so that neither `--help`
/// nor the shell completions offer it.
pub const LOAD_MODULE: &str = "__load-module";

/// The first argument of the other: compile one module too big to compile on a thread of
/// the process that needs it, in a process of its own (see [`crate::loader::big_modules`]).
/// It reads what to compile on stdin.
pub const COMPILE: &str = "__compile";

/// `agent-sdk __load-module`: compile a module the hook runtime was asked to load that no
/// string literal imports (so the project check could not reach it), and print its manifest.
#[derive(Debug, Parser)]
#[command(name = "agent-sdk __load-module")]
pub struct LoadModuleArgs {
    /// The project root (absolute).
    #[arg(long, value_name = "PATH")]
    pub dir: PathBuf,

    /// The module importing `specifier` (absolute); without it, `specifier` is a file path.
    #[arg(long, value_name = "PATH")]
    pub from: Option<PathBuf>,

    /// The module asked with `require` (CommonJS resolution), not `import()`.
    #[arg(long, requires = "from")]
    pub require: bool,

    /// What was imported.
    pub specifier: String,
}

/// The project a command works on, given as `--dir` (for `test`, whose positional
/// arguments are patterns); without it, the nearest folder from here up that holds `bot/`
/// or `agent/`.
#[derive(Debug, Default, Clone, Args)]
pub struct DirArg {
    /// The project root: the folder that holds `bot/` or `agent/`. By default the nearest
    /// such folder, from the current one up.
    #[arg(id = "dir", long = "dir", value_name = "PATH")]
    pub given: Option<PathBuf>,

    /// The project root the command works on: `--dir`, else the one found (set by
    /// `commands::dispatch` before the command runs).
    #[arg(skip)]
    pub dir: PathBuf,
}

/// The project a command works on, given as the positional PATH or as `--dir`; with
/// neither, the nearest folder from here up that holds `bot/` or `agent/`.
#[derive(Debug, Args)]
pub struct ProjectArg {
    /// The project root, as PATH: the folder that holds `bot/` or `agent/`.
    #[arg(id = "dir", long = "dir", value_name = "PATH")]
    pub given_dir: Option<PathBuf>,

    /// The project root: the folder that holds `bot/` or `agent/`. By default the nearest
    /// such folder, from the current one up.
    #[arg(id = "path", value_name = "PATH", conflicts_with = "dir")]
    pub given_path: Option<PathBuf>,

    /// The project root the command works on: PATH or `--dir`, else the one found (set
    /// by `commands::dispatch` before the command runs).
    #[arg(skip)]
    pub dir: PathBuf,
}

/// What `validate` checks: project folders or files (the staged files a pre-commit hook
/// passes), or `--dir`; with neither, the nearest project from here up.
#[derive(Debug, Args)]
pub struct ValidatePaths {
    /// The project root, as PATH: the folder that holds `bot/` or `agent/`.
    #[arg(id = "dir", long = "dir", value_name = "PATH")]
    pub given_dir: Option<PathBuf>,

    /// A project root (the folder that holds `bot/` or `agent/`; a folder without one checks
    /// every agent one or two levels below it), or files: each file is checked in the project
    /// found from its folder up, and only its findings are reported (for pre-commit and
    /// lint-staged, which pass the staged files). By default the nearest project from the
    /// current folder up.
    #[arg(id = "path", value_name = "PATH", conflicts_with = "dir")]
    pub paths: Vec<PathBuf>,

    /// The project root when no PATH is given: `--dir`, else the one found (set by
    /// `commands::dispatch` before the command runs).
    #[arg(skip)]
    pub dir: PathBuf,
}

impl ProjectArg {
    fn given_and_place(&mut self) -> (Option<PathBuf>, &mut PathBuf) {
        (self.given_dir.clone().or_else(|| self.given_path.clone()), &mut self.dir)
    }
}

impl Command {
    /// The project folder the user gave (PATH or `--dir`), and the place for the one the
    /// command works on; `None` for a command that works on no project.
    pub fn project_dir(&mut self) -> Option<(Option<PathBuf>, &mut PathBuf)> {
        match self {
            Command::Validate(args) => Some((args.dir.given_dir.clone(), &mut args.dir.dir)),
            Command::Info(args) => Some(args.dir.given_and_place()),
            Command::Run(args) => Some(args.dir.given_and_place()),
            Command::Dev(args) => Some(args.dir.given_and_place()),
            Command::Logs(args) => Some(args.dir.given_and_place()),
            Command::Chat(args) => Some(args.dir.given_and_place()),
            Command::Sdk(args) => Some(args.dir.given_and_place()),
            Command::Test(args) => Some((args.dir.given.clone(), &mut args.dir.dir)),
            Command::Init(_) | Command::Completions(_) | Command::Lsp(_) | Command::Help(_) => None,
        }
    }
}

impl ValidateArgs {
    /// `--format`, else `github` in a GitHub Actions job (`GITHUB_ACTIONS=true`, where the
    /// findings become annotations on the pull request, as `test` adds its own), else `pretty`.
    pub fn format(&self) -> OutputFormat {
        let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|value| value == "true");
        self.format.unwrap_or(if github_actions { OutputFormat::Github } else { OutputFormat::Pretty })
    }
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub dir: ValidatePaths,

    /// How to print the findings [default: pretty, or github when GITHUB_ACTIONS=true].
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,

    /// Fail (exit 1) on warnings too, not only on errors.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Fail (exit 1) when there are more than N warnings (errors always fail), as eslint's
    /// flag of the same name: a budget to bring down over time. 0 is --deny-warnings.
    #[arg(long, value_name = "N")]
    pub max_warnings: Option<usize>,

    /// Apply the safe fixes of the findings that know one, check again, and report what
    /// remains. Only files inside the project change; never one under node_modules/.
    #[arg(long)]
    pub fix: bool,

    /// Apply the unsafe fixes too: they may change what the code does (adding a timeout to
    /// a `fetch`, importing from another module). Implies --fix.
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// Say on stderr which settings file was read (agent-sdk.json or agent-sdk.jsonc, or a
    /// package.json's "agentSdk" key), or that none was.
    #[arg(long, short)]
    pub verbose: bool,

    #[command(flatten)]
    pub exec: ExecArgs,
}

/// Whether a static command may run an extension mount's code (`validate`, `info`).
#[derive(Debug, Default, Args)]
pub struct ExecArgs {
    /// Run no code at all: extension mounts are checked statically, and each gets an
    /// `extensions::not-run` note (what it mounts is not checked). The settings' "noExec"
    /// does the same.
    #[arg(long)]
    pub no_exec: bool,

    /// Give the extension mounts' Node this variable of the environment (repeatable), for
    /// an extension whose options read one; every other variable is left out.
    #[arg(long, value_name = "NAME", conflicts_with = "no_exec")]
    pub pass_env: Vec<String>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The project folder (made when missing).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    /// The source folder: `bot` (the BDK layout) or `agent` (the Agent SDK layout).
    #[arg(long, value_enum, default_value_t = LayoutChoice::Bot)]
    pub layout: LayoutChoice,

    /// The agent's name (`package.json`'s `name`); by default the folder's name.
    #[arg(long)]
    pub name: Option<String>,

    /// Overwrite the scaffold's files where they exist, and take over the SDK packages'
    /// folders where agent-sdk did not write them (as `sdk --force`). Nothing is ever written
    /// through a link that leads out of the folder.
    #[arg(long)]
    pub force: bool,

    /// The SDK package the hooks import from; by default the layout's: `@cursor/bdk` for
    /// `bot`, `@grok/agent-sdk` for `agent`.
    #[arg(long, value_name = "PACKAGE", value_parser = clap::builder::PossibleValuesParser::new(crate::sdk::SDK_PACKAGES))]
    pub sdk: Option<String>,

    /// Add the scripts and dependencies the scaffold needs to an existing `package.json`
    /// (without it, init only says what to add).
    #[arg(long)]
    pub update_package_json: bool,
}

/// `--layout`: which source folder a new project gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutChoice {
    /// `bot/`: the BDK layout.
    Bot,
    /// `agent/`: the Agent SDK layout.
    Agent,
}

#[derive(Debug, Args)]
pub struct SdkArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// Add the SDK packages to the dependencies of the project's `package.json` when it
    /// does not name them (without it, sdk only says what to add).
    #[arg(long)]
    pub update_package_json: bool,

    /// Take over what agent-sdk did not write where a package goes (a package without its
    /// stamp, in `vendor/agent-sdk/` or `node_modules/`): a folder gets the SDK's files, a
    /// link is replaced by a copy. Without it sdk refuses, and writes nothing. Nothing is
    /// ever written through a link out of the project.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// Print the stable JSON description (schemaVersion 1) instead of a tree: the same as
    /// --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// How to print the description: a tree (the default) or JSON (as --json).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<InfoFormat>,

    #[command(flatten)]
    pub exec: ExecArgs,
}

/// `info --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InfoFormat {
    /// The agent and its hooks as an indented tree.
    Tree,
    /// The stable JSON description (schemaVersion 1), documented in docs/formats.md.
    Json,
}

impl InfoArgs {
    /// Whether to print JSON: `--json` or `--format json`.
    pub fn wants_json(&self) -> bool {
        self.json || self.format == Some(InfoFormat::Json)
    }
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").args(["message", "replay", "event"])))]
#[command(group(clap::ArgGroup::new("work").required(true).multiple(true).args(["message", "replay", "event", "redeliver"])))]
pub struct RunArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// The user's message: runs one turn of the agent on the model (`--model`).
    #[arg(long, short)]
    pub message: Option<String>,

    /// Dispatch a recorded event stream (NDJSON envelopes, e.g. a previous `--json` output)
    /// instead of calling a model; `-` reads it from standard input.
    #[arg(long, value_name = "EVENTS.JSONL")]
    pub replay: Option<PathBuf>,

    /// Dispatch one synthetic event of this type, with a realistic default payload.
    #[arg(long, value_name = "TYPE", value_parser = event_types())]
    pub event: Option<String>,

    /// Fields of the `--event`'s `data`, as a JSON object, merged over its example payload (a field
    /// given replaces the example's); the result must fit the event's type.
    #[arg(long, value_name = "JSON", requires = "event")]
    pub data: Option<String>,

    /// Script the `local` model's turn (reasoning, tool calls, retries, pauses, a failure):
    /// a JSON file `{ "steps": [ { "text": "…" }, { "tools": [ { "toolName": "…" } ] }, … ] }`.
    #[arg(long, value_name = "FILE.json", requires = "message")]
    pub script: Option<PathBuf>,

    /// Continue this session (its events are appended after the recorded ones).
    #[arg(long, value_name = "ID", value_parser = crate::state::session_id::parse_session_id)]
    pub session: Option<String>,

    /// Dispatch the session's recorded events its hooks never saw (a run ended before
    /// dispatching them), before the new turn if one is given. Without it they are only
    /// counted in the log: delivery is at most once.
    #[arg(long, requires = "session")]
    pub redeliver: bool,

    /// `ctx.session.purpose`.
    #[arg(long, value_enum, default_value_t = Purpose::Live)]
    pub purpose: Purpose,

    /// `ctx.session.mode`.
    #[arg(long, value_enum, default_value_t = Mode::Chat)]
    pub mode: Mode,

    /// Print the recorded events as NDJSON on stdout instead of the reply.
    #[arg(long)]
    pub json: bool,

    /// How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::time::clock::parse_duration)]
    pub hook_timeout: std::time::Duration,

    /// The serve log's format on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    #[command(flatten)]
    pub env: EnvArgs,

    /// Last: its flags are listed under their own heading.
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Which model answers the turns, and how its server is reached.
#[derive(Debug, Args)]
#[command(next_help_heading = "Model")]
pub struct ModelArgs {
    /// The model that answers: `local` (embedded, deterministic, no network or key),
    /// `openai:<model>`, `xai:<model>`, or `openai-compatible:<model>` with --base-url.
    /// Default: AGENT_SDK_MODEL, else `local`. The key is read from OPENAI_API_KEY,
    /// XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// The model server's base URL, ending in `/v1`: required by `openai-compatible:`;
    /// for `openai:` it replaces OPENAI_BASE_URL and the official URL, for `xai:` xAI's.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Tools to offer the model: a JSON file holding an OpenAI `tools` array. Each call is
    /// recorded and answered with a stubbed dry-run result; no tool runs.
    #[arg(long, value_name = "FILE.json")]
    pub tools: Option<PathBuf>,

    /// The most requests one turn makes to the model (answering its tool calls starts the next).
    #[arg(long, value_name = "COUNT", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub max_steps: u32,

    /// How often a request is retried when the server is rate limiting (429, honouring
    /// Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached.
    #[arg(long, value_name = "COUNT", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub model_retries: u32,

    /// How long connecting to the model server may take.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::time::clock::parse_duration)]
    pub model_connect_timeout: std::time::Duration,

    /// How long the model server may send no data (before its answer starts, or within
    /// it) before the turn fails; keep-alive comments and part of an event are not data.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::time::clock::parse_duration)]
    pub model_idle_timeout: std::time::Duration,

    /// How long the model may take to answer one turn (every request, retry and tool step
    /// of it) before the turn fails.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::time::clock::parse_duration)]
    pub model_max_duration: std::time::Duration,
}

/// Environment files for the hook runtime.
#[derive(Debug, Default, Args)]
pub struct EnvArgs {
    /// Also read variables for the hooks from this file (after `<dir>/.env`; repeatable;
    /// later files win, the shell's own variables win over every file).
    #[arg(long, value_name = "PATH")]
    pub env_file: Vec<PathBuf>,

    /// Read no environment file, not even `<dir>/.env`.
    #[arg(long, conflicts_with = "env_file")]
    pub no_env_file: bool,
}

impl EnvArgs {
    /// Which files to read: `<dir>/.env` unless --no-env-file, then each --env-file.
    pub fn files(&self) -> EnvFiles<'_> {
        EnvFiles { dotenv: !self.no_env_file, named: &self.env_file }
    }
}

/// Environment files for the tests: none unless named, as vitest and jest read none, so a
/// developer's `.env` never makes a test pass locally that fails on CI.
#[derive(Debug, Default, Clone, Args)]
pub struct TestEnvArgs {
    /// Read variables for the tests from this file (repeatable; later files win, the
    /// shell's own variables win over every file). `.env` is read only when named here
    /// (`--env-file .env`).
    #[arg(long, value_name = "PATH")]
    pub env_file: Vec<PathBuf>,

    /// Accepted for scripts written when tests read `.env`: they read none unless named.
    #[arg(long, hide = true, conflicts_with = "env_file")]
    pub no_env_file: bool,
}

impl TestEnvArgs {
    pub fn files(&self) -> EnvFiles<'_> {
        EnvFiles { dotenv: false, named: &self.env_file }
    }
}

/// The environment files a command reads, from its flags.
#[derive(Debug, Clone, Copy)]
pub struct EnvFiles<'a> {
    /// `<dir>/.env`, when it exists.
    pub dotenv: bool,
    /// Each of these, which must exist, after it.
    pub named: &'a [PathBuf],
}

#[derive(Debug, Args)]
pub struct DevArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// The port to listen on: 7311 unless given; 0 picks a free one (`dev.json` says which).
    /// A second server of a project one already serves needs a port of its own.
    #[arg(long)]
    pub port: Option<u16>,

    /// The address to listen on. Anything but loopback exposes the agent to the network:
    /// it needs --allow-remote.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,

    /// Allow listening on a non-loopback address.
    #[arg(long)]
    pub allow_remote: bool,

    /// Make a new bearer token (the old one stops working).
    #[arg(long)]
    pub rotate_token: bool,

    /// Also let in callers that send this secret as their bearer token (the vendor's
    /// flag); the token of `.agent-sdk/dev.json` still works.
    #[arg(long, value_name = "SECRET", env = "AGENT_SDK_BEARER_TOKEN", hide_env_values = true)]
    pub bearer_token: Option<String>,

    /// Let in callers that send no token at all (a wrong token is still refused). Each
    /// caller's hosting-API sessions stay its own.
    #[arg(long)]
    pub allow_anonymous: bool,

    /// How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = crate::time::clock::parse_duration)]
    pub hook_timeout: std::time::Duration,

    /// How long a session may sit idle before it is put to rest: its Node.js runtime and
    /// its thread are given back, and it no longer counts against --max-sessions. Its
    /// next message brings it back, with its history.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::time::clock::parse_duration)]
    pub session_idle: std::time::Duration,

    /// How many sessions may be live at once (each has a thread and, once it has had a
    /// turn, a Node.js runtime); beyond it, new and resting sessions are answered 429.
    #[arg(long, value_name = "COUNT", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_sessions: u32,

    /// The serve log's format on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    #[command(flatten)]
    pub env: EnvArgs,

    /// Last: its flags are listed under their own heading.
    #[command(flatten)]
    pub model: ModelArgs,
}

impl DevArgs {
    /// The port `dev` listens on when `--port` is not given.
    pub const DEFAULT_PORT: u16 = 7311;

    pub fn port(&self) -> u16 {
        self.port.unwrap_or(Self::DEFAULT_PORT)
    }
}

#[derive(Debug, Default, Clone, Args)]
pub struct TestArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// Run only the test files matching one of these globs: over the path relative to
    /// --dir (`bot/hooks/*.test.ts`; `*` stays within a folder, `**` crosses folders), or
    /// over the file name when the glob has no `/` (`usage*`).
    #[arg(value_name = "PATTERN")]
    pub patterns: Vec<String>,

    /// Run the tests again whenever the agent's code changes, until Ctrl-C.
    #[arg(long)]
    pub watch: bool,

    /// Run only the tests whose name matches this regular expression (repeatable: a test
    /// that matches any runs), as Node's `--test-name-pattern` does: `/refund/i` for
    /// flags; a suite's name counts for the tests in it. When no test matches, exit 1.
    #[arg(long, short = 't', value_name = "REGEX")]
    pub test_name_pattern: Vec<String>,

    /// How the results are reported (repeatable, each to its --reporter-destination).
    /// Without it: `spec`, and `github` too when GITHUB_ACTIONS=true (as vitest does).
    #[arg(long, value_enum, value_name = "NAME")]
    pub reporter: Vec<TestReporter>,

    /// Where each --reporter writes, in the same order (as Node pairs them): `stdout`,
    /// `stderr` or a file, whose folders are created. One for each --reporter, or none for
    /// a single one: stdout.
    #[arg(long, value_name = "stdout|stderr|FILE", value_hint = clap::ValueHint::FilePath, value_parser = parse_reporter_destination)]
    pub reporter_destination: Vec<ReporterDestination>,

    /// Measure which lines of the agent's code the tests run (Node's test coverage) and
    /// report them after the results, on the `.ts` sources (`--reporter lcov` writes them
    /// for other tools). Node.js ≥ 22.8 names the lines exactly and leaves the test files
    /// and agent-sdk's own modules out; an older one is said to get them wrong.
    #[arg(long)]
    pub coverage: bool,

    #[command(flatten)]
    pub env: TestEnvArgs,

    /// Arguments for Node's test runner, after `--`, passed as they are before the test
    /// files (`-- --test-concurrency=1 --test-timeout=5000`).
    #[arg(last = true, value_name = "NODE_ARGS")]
    pub node_args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ChatArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// The agent's URL (else AGENT_SDK_HOST, else the local dev.json's server).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Send this one message and exit.
    #[arg(long, short, value_name = "TEXT")]
    pub message: Option<String>,

    /// Continue this session (one chat started here: its continuation token is kept in
    /// `.agent-sdk/chat.json`).
    #[arg(long, value_name = "ID", value_parser = crate::state::session_id::parse_session_id)]
    pub session: Option<String>,

    /// Print each turn's events (NDJSON envelopes) instead of the reply.
    #[arg(long)]
    pub json: bool,

    /// Allow sending the token over plain HTTP to a host that is not loopback.
    #[arg(long)]
    pub insecure: bool,

    /// How long to wait for a turn's hooks to finish before the reply is left at that.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::time::clock::parse_duration)]
    pub hooks_for: std::time::Duration,
}

#[derive(Debug, Args)]
pub struct LogsArgs {
    #[command(flatten)]
    pub dir: ProjectArg,

    /// The server's URL (else AGENT_SDK_HOST, else the local dev.json).
    #[arg(long, value_name = "URL")]
    pub host: Option<String>,

    /// The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Keep following new lines after the history.
    #[arg(long, short)]
    pub follow: bool,

    /// Only lines from this long ago (`30s`, `10m`, `1.5h`, `1h 30m`) or since an RFC 3339 time.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only this session's lines: its id, or the end of it that each line shows (the tag,
    /// `43c2d23a`), when one session's id ends so.
    #[arg(long, value_name = "ID", value_parser = crate::state::session_id::parse_session_id)]
    pub session: Option<String>,

    /// Only the lines of this hook (as each line names it, `hook "audit/usage"`); repeat it
    /// for several.
    #[arg(long = "hook", value_name = "NAME")]
    pub hooks: Vec<String>,

    /// Only lines at this level or above.
    #[arg(long, value_name = "LEVEL", value_enum)]
    pub level: Option<Level>,

    /// Only the last N lines of the history.
    #[arg(long, value_name = "N")]
    pub tail: Option<u64>,

    /// One JSON record a line (NDJSON), each with its cursor as `id`.
    #[arg(long)]
    pub json: bool,

    /// Print times in UTC instead of local time.
    #[arg(long)]
    pub utc: bool,

    /// Allow sending the token over plain HTTP to a host that is not loopback.
    #[arg(long)]
    pub insecure: bool,

    /// After a lost connection, how long to keep trying before giving up with exit 1.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::time::clock::parse_duration)]
    pub retry_for: std::time::Duration,
}

/// `--event`: the event types of the vocabulary, so that `--help` lists them and the
/// shell completions offer them.
fn event_types() -> clap::builder::PossibleValuesParser {
    let types = crate::vocabulary::EVENTS.iter().map(|event| clap::builder::PossibleValue::new(event.name));
    clap::builder::PossibleValuesParser::new(types)
}

#[derive(Debug, Args)]
pub struct LspArgs {
    /// Speak over stdin and stdout (the only way; accepted because editors pass it).
    #[arg(long)]
    pub stdio: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// `completions <shell>`: the shells clap_complete writes for, and Nushell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Elvish,
    Fish,
    Nushell,
    Powershell,
    Zsh,
}

/// `test --reporter`: one of the reporters of Node's test runner, or agent-sdk's `github`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TestReporter {
    /// Each test's name and result, the failures again at the end.
    Spec,
    /// A dot per passing test, an X per failing one.
    Dot,
    /// TAP version 13.
    Tap,
    /// JUnit XML, for CI systems' test tabs.
    Junit,
    /// The coverage as an LCOV file (with --coverage).
    Lcov,
    /// A GitHub Actions annotation (`::error file=…,line=…`) per failed test, on the line of
    /// the `.ts` test file where it failed.
    Github,
}

impl TestReporter {
    pub fn as_str(self) -> &'static str {
        match self {
            TestReporter::Spec => "spec",
            TestReporter::Dot => "dot",
            TestReporter::Tap => "tap",
            TestReporter::Junit => "junit",
            TestReporter::Lcov => "lcov",
            TestReporter::Github => "github",
        }
    }
}

/// `test --reporter-destination`: where a reporter writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReporterDestination {
    Stdout,
    Stderr,
    /// A file, as given (relative to the current folder).
    File(PathBuf),
}

fn parse_reporter_destination(text: &str) -> Result<ReporterDestination, String> {
    match text {
        "" => Err("a destination is `stdout`, `stderr` or a file's path".to_owned()),
        "stdout" => Ok(ReporterDestination::Stdout),
        "stderr" => Ok(ReporterDestination::Stderr),
        path => Ok(ReporterDestination::File(PathBuf::from(path))),
    }
}

/// How `validate` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Source snippets with labels; colour on a terminal.
    Pretty,
    /// One JSON document (schemaVersion 1), documented in docs/formats.md.
    Json,
    /// GitHub Actions workflow commands (`::error file=…`), one per line.
    Github,
    /// SARIF 2.1.0, for code-scanning uploads.
    Sarif,
    /// One line per finding, `path:line:col: severity code message`, for editors and grep.
    Concise,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_names_help_takes_are_the_commands() {
        let command = Cli::command_named(ProgramName::AgentSdk);
        let names: Vec<&str> = command.get_subcommands().map(clap::Command::get_name).collect();
        assert_eq!(names, COMMANDS);
    }
}
