//! The one way output reaches the terminal: stdout for results, stderr for messages,
//! with the colour decision (`--color`, `NO_COLOR`, TTY) made once.

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

/// Where a command's output goes, and whether it may be coloured.
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    color: bool,
}

impl Printer {
    pub fn new(choice: ColorChoice) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
            }
        };
        Self { color }
    }

    /// Whether output may use colour and other terminal styling.
    pub fn color(&self) -> bool {
        self.color
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
