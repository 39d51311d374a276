//! `agent-sdk completions <shell>`: the shell completion script, generated from the CLI itself.

use clap_complete::{Generator, Shell};

use crate::cli::{Cli, CompletionShell, CompletionsArgs, ProgramName};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;

/// Prints the completion script for `shell`, completing the name the program was run as.
pub fn completions(args: &CompletionsArgs, program: ProgramName, printer: &Printer) -> anyhow::Result<ExitStatus> {
    printer.stdout(&script(args.shell, program))?;
    Ok(ExitStatus::Success)
}

/// The completion script for `shell` completing `program` (also what `completions/` holds).
pub fn script(shell: CompletionShell, program: ProgramName) -> String {
    let name = program.as_str();
    match shell {
        CompletionShell::Bash if name.contains('-') => bash_script_for_hyphenated(program),
        CompletionShell::Bash => generate(Shell::Bash, program, name),
        CompletionShell::Elvish => generate(Shell::Elvish, program, name),
        CompletionShell::Fish => generate(Shell::Fish, program, name),
        CompletionShell::Nushell => generate(clap_complete_nushell::Nushell, program, name),
        CompletionShell::Powershell => generate(Shell::PowerShell, program, name),
        CompletionShell::Zsh => generate(Shell::Zsh, program, name),
    }
}

fn generate(shell: impl Generator, program: ProgramName, bin_name: &str) -> String {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command_named(program), bin_name, &mut buffer);
    String::from_utf8_lossy(&buffer).into_owned()
}

/// clap_complete's bash script for a name with a hyphen completes nothing after the
/// subcommand: the loop that reads the words spells `agent-sdk run` as
/// `agent__sdk__subcmd__run`, the arms that answer as `agent__subcmd__sdk__subcmd__run`
/// (clap-rs/clap#6421, unfixed in 4.6.12). So the script is generated for `agent_sdk`,
/// which both spell alike, and its function is registered for the real name.
fn bash_script_for_hyphenated(program: ProgramName) -> String {
    let safe_name = program.as_str().replace('-', "_");
    let registration = format!(" {safe_name}");
    let mut script = String::new();
    for line in generate(Shell::Bash, program, &safe_name).lines() {
        let registers = line.trim_start().starts_with("complete -F ");
        match line.strip_suffix(&registration).filter(|_| registers) {
            Some(start) => script.push_str(&format!("{start} {}\n", program.as_str())),
            None => script.push_str(&format!("{line}\n")),
        }
    }
    script
}
