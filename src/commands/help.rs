//! `agent-sdk help` (and `agent-sdk` run bare): the command index, one command's help, every
//! command's, or a command's arguments and flags as JSON — all read from the clap
//! definition in [`crate::cli`], so none of them can drift from what the parser accepts.

use clap::builder::StyledStr;
use serde_json::{Value, json};

use crate::cli::{Cli, HelpArgs, ProgramName};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;

/// Prints the command index: each command with its one-line summary.
pub fn index(program: ProgramName, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let name = program.as_str();
    let mut command = built(program)
        .help_template("{name} {version}\n{about}\n\nCommands:\n{subcommands}{after-help}")
        .after_help(format!(
            "`{name} <command> --help` or `{name} help <command>`: one command's help\n\
             `{name} help --all`: every command's\n\
             `{name} help <command> --json`: its arguments and flags as JSON"
        ));
    printer.stdout(&styled(printer, &command.render_help()))?;
    Ok(ExitStatus::Success)
}

/// Prints what `args` ask for (see [`crate::cli::Command::Help`]).
pub fn help(args: &HelpArgs, program: ProgramName, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let mut cli = built(program);
    let text = match (&args.command, args.json) {
        (Some(name), true) => pretty(&command_json(subcommand(&mut cli, name)?, false))?,
        (None, true) => pretty(&command_json(&cli, true))?,
        (Some(name), false) => styled(printer, &subcommand(&mut cli, name)?.render_long_help()),
        (None, false) if args.all => every_help(&mut cli, printer),
        (None, false) => return index(program, printer),
    };
    printer.stdout(&text)?;
    Ok(ExitStatus::Success)
}

/// The command line's definition, built (global flags propagated, every `Usage:` named
/// as the user types it), for introspection.
fn built(program: ProgramName) -> clap::Command {
    let mut command = Cli::command_named(program);
    command.build();
    command
}

/// The command `name`. The parser takes only the names of [`crate::cli::COMMANDS`] (a typo
/// gets its "a similar value exists"), so one missing is a definition out of step.
fn subcommand<'c>(cli: &'c mut clap::Command, name: &str) -> anyhow::Result<&'c mut clap::Command> {
    cli.find_subcommand_mut(name).ok_or_else(|| anyhow::anyhow!("the command line defines no command `{name}`"))
}

/// Every command's help, each under a `# <program> <command>` heading.
fn every_help(cli: &mut clap::Command, printer: &Printer) -> String {
    let helps: Vec<String> = cli
        .get_subcommands_mut()
        .map(|command| {
            let heading = command.get_bin_name().unwrap_or(command.get_name()).to_owned();
            format!("# {heading}\n\n{}", styled(printer, &command.render_long_help()))
        })
        .collect();
    helps.join("\n")
}

/// Help text with its colours when the printer colours, else plain.
fn styled(printer: &Printer, text: &StyledStr) -> String {
    if printer.color() { text.ansi().to_string() } else { text.to_string() }
}

fn pretty(value: &Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// A command as JSON: its name, summary, description, usage, positional arguments and
/// flags (hidden ones left out), and with `with_commands` each of its commands in full.
fn command_json(command: &clap::Command, with_commands: bool) -> Value {
    let shown = command.get_arguments().filter(|arg| !arg.is_hide_set());
    let (positionals, flags): (Vec<&clap::Arg>, Vec<&clap::Arg>) = shown.partition(|arg| arg.is_positional());
    let usage = command.clone().render_usage().to_string();
    let mut value = json!({
        "name": command.get_name(),
        "command": command.get_bin_name().unwrap_or(command.get_name()),
        "about": command.get_about().map(ToString::to_string),
        "description": command.get_long_about().or(command.get_about()).map(ToString::to_string),
        "usage": usage.strip_prefix("Usage: ").unwrap_or(&usage),
        "arguments": positionals.into_iter().map(argument_json).collect::<Vec<_>>(),
        "flags": flags.into_iter().map(flag_json).collect::<Vec<_>>(),
    });
    if with_commands {
        value["version"] = json!(command.get_version());
        value["commands"] = command.get_subcommands().map(|command| command_json(command, false)).collect();
    }
    value
}

fn argument_json(arg: &clap::Arg) -> Value {
    json!({
        "name": value_name(arg),
        "help": help_of(arg),
        "required": arg.is_required_set(),
        "multiple": takes_many(arg),
        "default": defaults(arg),
        "values": possible_values(arg),
    })
}

fn flag_json(arg: &clap::Arg) -> Value {
    let takes_value = arg.get_action().takes_values();
    json!({
        "long": arg.get_long().map(|long| format!("--{long}")),
        "short": arg.get_short().map(|short| format!("-{short}")),
        "value": takes_value.then(|| value_name(arg)),
        "help": help_of(arg),
        "required": arg.is_required_set(),
        "multiple": takes_many(arg) || matches!(arg.get_action(), clap::ArgAction::Append | clap::ArgAction::Count),
        "default": defaults(arg),
        "values": possible_values(arg),
        "env": arg.get_env().map(|env| env.to_string_lossy().into_owned()),
        "global": arg.is_global_set(),
        "heading": arg.get_help_heading(),
    })
}

/// What `--help` shows for the argument's value: `PATH`, else its id in capitals.
fn value_name(arg: &clap::Arg) -> String {
    arg.get_value_names()
        .and_then(|names| names.first())
        .map_or_else(|| arg.get_id().to_string().to_uppercase(), ToString::to_string)
}

fn help_of(arg: &clap::Arg) -> Option<String> {
    arg.get_long_help().or(arg.get_help()).map(ToString::to_string)
}

fn takes_many(arg: &clap::Arg) -> bool {
    arg.get_num_args().is_some_and(|range| range.max_values() > 1)
}

fn defaults(arg: &clap::Arg) -> Value {
    match arg.get_default_values() {
        [] => Value::Null,
        [one] => json!(one.to_string_lossy()),
        many => many.iter().map(|value| json!(value.to_string_lossy())).collect(),
    }
}

fn possible_values(arg: &clap::Arg) -> Value {
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| value.get_name().to_owned())
        .collect();
    if values.is_empty() { Value::Null } else { json!(values) }
}
