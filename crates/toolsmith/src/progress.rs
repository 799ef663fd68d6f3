//! Progress bars and spinners for work that can take over a second (import, index, bench),
//! drawn on stderr with `indicatif` so stdout stays machine-readable. When stderr is not a
//! terminal (a log, a pipe, a CI job) nothing is drawn, and each bar or spinner says what it
//! is doing in one plain line instead, so no command waits silently. `--quiet` hides both.

use std::borrow::Cow;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::printer;

/// How often a spinner redraws on its own.
const TICK: Duration = Duration::from_millis(120);

/// A bar with a known length: `message [=====>    ] 12/40 3s (eta 7s)`.
const BAR: &str = "{msg} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})";

/// A spinner for work of unknown length: `⠋ message 3s`.
const SPINNER: &str = "{spinner} {msg} {elapsed}";

/// Where a command's progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    /// Bars and spinners drawn on a terminal.
    Drawn,
    /// One plain line on stderr as each piece of work starts (stderr is not a terminal).
    Lines,
    /// Nothing (`--quiet`).
    Hidden,
}

/// Makes the bars and spinners of one command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Progress {
    output: Output,
}

impl Progress {
    /// Bars drawn on stderr (plain lines when it is not a terminal), or none when `quiet`.
    pub(crate) fn new(quiet: bool) -> Self {
        Self::with(quiet, std::io::stderr().is_terminal())
    }

    fn with(quiet: bool, terminal: bool) -> Self {
        let output = match (quiet, terminal) {
            (true, _) => Output::Hidden,
            (false, true) => Output::Drawn,
            (false, false) => Output::Lines,
        };
        Self { output }
    }

    fn target(self) -> ProgressDrawTarget {
        match self.output {
            Output::Drawn => ProgressDrawTarget::stderr(),
            Output::Lines | Output::Hidden => ProgressDrawTarget::hidden(),
        }
    }

    /// The plain line saying what starts, when progress is not drawn: `None` otherwise.
    fn line(self, message: &str, len: Option<usize>) -> Option<String> {
        (self.output == Output::Lines).then(|| match len {
            Some(len) => format!("{message}: 0/{len} ..."),
            None => format!("{message} ..."),
        })
    }

    /// A bar counting `len` steps.
    pub(crate) fn bar(self, len: usize, message: impl Into<Cow<'static, str>>) -> ProgressBar {
        let message = message.into();
        if let Some(line) = self.line(&message, Some(len)) {
            printer::note(line);
        }
        let style = ProgressStyle::with_template(BAR)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        ProgressBar::with_draw_target(Some(len as u64), self.target())
            .with_style(style)
            .with_message(message)
    }

    /// A spinner that turns on its own until finished, showing the time elapsed.
    pub(crate) fn spinner(self, message: impl Into<Cow<'static, str>>) -> ProgressBar {
        let message = message.into();
        if let Some(line) = self.line(&message, None) {
            printer::note(line);
        }
        let style = ProgressStyle::with_template(SPINNER)
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let spinner = ProgressBar::with_draw_target(None, self.target())
            .with_style(style)
            .with_message(message);
        spinner.enable_steady_tick(TICK);
        spinner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_hides_every_bar() {
        let quiet = Progress::new(true);
        assert!(quiet.bar(10, "x").is_hidden());
        assert!(quiet.spinner("x").is_hidden());
        assert_eq!(Progress::with(true, false).line("x", None), None);
    }

    #[test]
    fn off_a_terminal_each_piece_of_work_is_one_plain_line() {
        let plain = Progress::with(false, false);
        assert_eq!(
            plain.line("embedding", Some(40)).as_deref(),
            Some("embedding: 0/40 ...")
        );
        assert_eq!(plain.line("reading", None).as_deref(), Some("reading ..."));
        assert!(plain.bar(3, "x").is_hidden(), "nothing is drawn");
        assert_eq!(Progress::with(false, true).line("x", None), None);
    }
}
