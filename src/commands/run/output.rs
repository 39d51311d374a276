//! The turn's output on stdout (the reply, or `--json` envelopes). A failed write never
//! stops the turn: it is still recorded and dispatched to its end, and what is left of the
//! output is discarded. On a terminal the reply's control characters are shown escaped (a
//! model's text must not set the title, clear the screen, write the clipboard or write over
//! a line); in a pipe or a file it is its bytes, as `less` and `cat` show a file.

use std::borrow::Cow;

use crate::printer::{Printer, StdoutClosed};

/// Stdout for one run, until a write to it fails.
pub struct TurnOutput<'p> {
    printer: &'p Printer,
    failed: Option<std::io::Error>,
    /// Whether what was written so far ends a line (nothing written counts as ended).
    line_ended: bool,
    /// What waits to be written, for output that need not show as it comes (a replay: one
    /// write per [`HELD_AT_MOST`] bytes, not one per streamed piece); `None`: written at once.
    held: Option<String>,
}

/// How much of a replay's output waits before it is written.
const HELD_AT_MOST: usize = 16 * 1024;

impl<'p> TurnOutput<'p> {
    pub fn new(printer: &'p Printer) -> Self {
        Self { printer, failed: None, line_ended: true, held: None }
    }

    /// Output written in pieces of up to [`HELD_AT_MOST`] bytes, and at the end.
    pub fn held(printer: &'p Printer) -> Self {
        Self { printer, failed: None, line_ended: true, held: Some(String::new()) }
    }

    /// Writes a piece of the model's reply, as [`reply_as_written`] says.
    pub fn print_reply(&mut self, text: &str) {
        let text = reply_as_written(text, self.printer.stdout_is_terminal());
        self.print(&text);
    }

    /// Writes `text`, unless an earlier write failed.
    pub fn print(&mut self, text: &str) {
        if !text.is_empty() {
            self.line_ended = text.ends_with('\n');
        }
        match &mut self.held {
            Some(held) => {
                held.push_str(text);
                if held.len() >= HELD_AT_MOST {
                    self.release();
                }
            }
            None => self.write(text),
        }
    }

    fn write(&mut self, text: &str) {
        if self.failed.is_none()
            && let Err(error) = self.printer.stdout(text)
        {
            self.failed = Some(error);
        }
    }

    /// Writes what is held.
    fn release(&mut self) {
        if let Some(held) = self.held.as_mut().map(std::mem::take).filter(|held| !held.is_empty()) {
            self.write(&held);
        }
    }

    /// Ends the line a reply left open (a replayed reply ends as `--message`'s does), and
    /// writes what is held.
    pub fn end_line(&mut self) {
        if !self.line_ended {
            self.print("\n");
        }
        self.release();
    }

    /// How the output went, once the turn is done: a reader that went away (`| head`) is
    /// not a failure of the run; any other failed write is.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.release();
        match self.failed.take() {
            Some(error) if !error.get_ref().is_some_and(|inner| inner.is::<StdoutClosed>()) => {
                Err(anyhow::Error::new(error).context("could not write the output to stdout; the rest was discarded"))
            }
            _ => Ok(()),
        }
    }
}

/// The reply as it is written to stdout: to a terminal, with its control characters but
/// line breaks and tabs escaped ([`crate::text::untrusted::escape_reply`]); to anything else, as
/// it is, for the program that reads it.
fn reply_as_written(text: &str, terminal: bool) -> Cow<'_, str> {
    if terminal { crate::text::untrusted::escape_reply(text) } else { Cow::Borrowed(text) }
}

impl Drop for TurnOutput<'_> {
    /// A run that ends early (an error) still shows what it held.
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_s_escape_sequences_are_escaped_on_a_terminal_only() {
        let reply = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}]52;c;b3duZWQ=\u{7}ok\rINFO  forged\n";
        assert_eq!(
            reply_as_written(reply, true),
            "\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{1b}]52;c;b3duZWQ=\\u{7}ok\\rINFO  forged\n"
        );
        assert!(matches!(reply_as_written(reply, false), Cow::Borrowed(text) if text == reply));
    }
}
