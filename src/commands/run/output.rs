//! The turn's output on stdout (the reply, or `--json` envelopes). A failed write never
//! stops the turn: it is still recorded and dispatched to its end, and what is left of the
//! output is discarded.

use crate::printer::{Printer, StdoutClosed};

/// Stdout for one run, until a write to it fails.
pub struct TurnOutput<'p> {
    printer: &'p Printer,
    failed: Option<std::io::Error>,
    /// Whether what was written so far ends a line (nothing written counts as ended).
    line_ended: bool,
}

impl<'p> TurnOutput<'p> {
    pub fn new(printer: &'p Printer) -> Self {
        Self { printer, failed: None, line_ended: true }
    }

    /// Writes `text`, unless an earlier write failed.
    pub fn print(&mut self, text: &str) {
        if !text.is_empty() {
            self.line_ended = text.ends_with('\n');
        }
        if self.failed.is_none()
            && let Err(error) = self.printer.stdout(text)
        {
            self.failed = Some(error);
        }
    }

    /// Ends the line a reply left open (a replayed reply ends as `--message`'s does).
    pub fn end_line(&mut self) {
        if !self.line_ended {
            self.print("\n");
        }
    }

    /// How the output went, once the turn is done: a reader that went away (`| head`) is
    /// not a failure of the run; any other failed write is.
    pub fn finish(self) -> anyhow::Result<()> {
        match self.failed {
            Some(error) if !error.get_ref().is_some_and(|inner| inner.is::<StdoutClosed>()) => {
                Err(anyhow::Error::new(error).context("could not write the output to stdout; the rest was discarded"))
            }
            _ => Ok(()),
        }
    }
}
