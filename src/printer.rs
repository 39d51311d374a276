//! The one way output reaches the terminal: stdout for results, stderr for messages,
//! with the colour decision (`--color`, `NO_COLOR`, TTY) made once.

use std::io::{IsTerminal, Write};

use crate::cli::ColorChoice;

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

    /// Writes a command's result to stdout. A closed pipe comes back as an error the
    /// caller turns into a quiet exit.
    pub fn stdout(&self, text: &str) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush()
    }

    /// Writes a message for the person at the terminal to stderr.
    pub fn stderr(&self, text: &str) {
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}
