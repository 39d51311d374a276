//! The one way output reaches the terminal: stdout for results, stderr for messages,
//! with the colour decision (`--color`, `NO_COLOR`, `FORCE_COLOR`, `CLICOLOR_FORCE`, TTY)
//! and `--quiet` decided once.

use std::io::{IsTerminal, Write};

use crate::cli::ColorChoice;

/// The reader of our stdout went away: not a failure of the command.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for StdoutClosed {}

impl StdoutClosed {
    /// Whether `error` (or a cause) is our stdout closing, not some other broken pipe.
    pub fn is_cause_of(error: &anyhow::Error) -> bool {
        error.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .is_some_and(|inner| inner.is::<StdoutClosed>())
        })
    }
}

/// Where a command's output goes, whether it may be coloured, and whether summary and
/// progress lines are left out (`--quiet`).
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    color: bool,
    quiet: bool,
    stdout_is_terminal: bool,
}

impl Printer {
    pub fn new(choice: ColorChoice) -> Self {
        let stdout_is_terminal = std::io::stdout().is_terminal();
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => auto_color(stdout_is_terminal, |name| std::env::var_os(name)),
        };
        Self { color, quiet: false, stdout_is_terminal }
    }

    /// The same printer, leaving out summary and progress lines when `quiet`.
    pub fn quiet(self, quiet: bool) -> Self {
        Self { quiet, ..self }
    }

    /// Whether summary and progress lines are left out (`--quiet`): only results,
    /// findings and errors are printed.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Writes a progress or summary line to stderr, unless `--quiet`.
    pub fn progress(&self, text: &str) {
        if !self.quiet {
            self.stderr(text);
        }
    }

    /// Whether output may use colour and other terminal styling.
    pub fn color(&self) -> bool {
        self.color
    }

    /// Whether stdout is a terminal (not a pipe or a file): text we did not write is then
    /// shown with its escape sequences escaped, as `less` does, not run by the terminal.
    pub fn stdout_is_terminal(&self) -> bool {
        self.stdout_is_terminal
    }

    /// Writes a command's result to stdout. A closed pipe (`| head`) comes back as a
    /// [`StdoutClosed`] error, which `main` turns into a quiet exit.
    pub fn stdout(&self, text: &str) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|error| {
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, StdoutClosed)
            } else {
                error
            }
        })
    }

    /// Writes a message for the person at the terminal to stderr.
    pub fn stderr(&self, text: &str) {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// `--color auto`: `NO_COLOR` (set and not empty) turns colour off; else `FORCE_COLOR` or
/// `CLICOLOR_FORCE` (set, not empty and not `0`) turns it on, terminal or not; else colour
/// on a terminal. `NO_COLOR` wins over the two, as in cargo and uv (anstream), so a
/// user's "never" is never overridden by a tool's "force"; `--color` wins over all three.
fn auto_color(is_terminal: bool, var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    let set = |name: &str| var(name).filter(|value| !value.is_empty());
    if set("NO_COLOR").is_some() {
        return false;
    }
    let forced = |name: &str| set(name).is_some_and(|value| value != "0");
    forced("FORCE_COLOR") || forced("CLICOLOR_FORCE") || is_terminal
}

/// `1 error`, `2 warnings`.
/// `` `a`, `b`, `c` ``: names as a message lists them, each in backticks.
pub fn code_list<S: AsRef<str>>(names: &[S]) -> String {
    names.iter().map(|name| format!("`{}`", name.as_ref())).collect::<Vec<_>>().join(", ")
}

pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 { format!("{count} {noun}") } else { format!("{count} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::auto_color;

    fn with(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| vars.iter().find(|(key, _)| key == name).map(|(_, value)| value.into())
    }

    #[test]
    fn the_environment_decides_auto_colour_in_order() {
        assert!(auto_color(true, with(&[])));
        assert!(!auto_color(false, with(&[])));
        assert!(auto_color(false, with(&[("FORCE_COLOR", "1")])));
        assert!(auto_color(false, with(&[("FORCE_COLOR", "true")])));
        assert!(auto_color(false, with(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto_color(false, with(&[("FORCE_COLOR", "0")])));
        assert!(!auto_color(false, with(&[("FORCE_COLOR", "")])));
        assert!(!auto_color(false, with(&[("CLICOLOR_FORCE", "0")])));
        assert!(!auto_color(true, with(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")])));
        assert!(auto_color(true, with(&[("NO_COLOR", "")])));
    }
}
