//! `bdk` for `cargo install`: runs the `agent-sdk` installed beside it under the name `bdk`.
//!
//! The program is one binary that answers to the name it is run as (`cli::ProgramName`): the
//! npm package maps both commands to it, and a release archive holds it alone. Cargo cannot
//! install a second name for one file, so this small program (std only, no copy of the
//! library) is what `cargo install` puts beside `agent-sdk` as `bdk`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let program = match beside_me() {
        Ok(program) => program,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let mut command = Command::new(&program);
    command.args(std::env::args_os().skip(1));
    run(command, &program)
}

/// `agent-sdk` in the folder this program's file is in (symbolic links followed).
fn beside_me() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|error| format!("could not find where bdk is installed: {error}"))?;
    let me = std::fs::canonicalize(&me).unwrap_or(me);
    let program = me.with_file_name(format!("agent-sdk{}", std::env::consts::EXE_SUFFIX));
    if program.is_file() {
        Ok(program)
    } else {
        Err(format!(
            "bdk runs `{}`, which is not there; install both again with `cargo install agent-sdk`",
            program.display()
        ))
    }
}

/// Becomes `program` named `bdk`: same process, arguments, stdio and environment.
#[cfg(unix)]
fn run(mut command: Command, program: &Path) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = command.arg0("bdk").exec();
    eprintln!("error: could not start `{}`: {error}", program.display());
    ExitCode::from(2)
}

/// Runs `program` and ends with its exit code. Windows has neither `exec` nor a way to name
/// a child's `argv[0]`, so there its messages say `agent-sdk`.
#[cfg(not(unix))]
fn run(mut command: Command, program: &Path) -> ExitCode {
    match command.status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |code| u8::try_from(code & 0xff).unwrap_or(1))),
        Err(error) => {
            eprintln!("error: could not start `{}`: {error}", program.display());
            ExitCode::from(2)
        }
    }
}
