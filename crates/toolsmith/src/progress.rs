//! Progress bars and spinners for work that can take over a second (import, index, bench),
//! drawn on stderr with `indicatif` so stdout stays machine-readable. Hidden with `--quiet`,
//! and by indicatif itself when stderr is not a terminal.

use std::borrow::Cow;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a spinner redraws on its own.
const TICK: Duration = Duration::from_millis(120);

/// A bar with a known length: `message [=====>    ] 12/40 3s (eta 7s)`.
const BAR: &str = "{msg} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})";

/// A spinner for work of unknown length: `⠋ message 3s`.
const SPINNER: &str = "{spinner} {msg} {elapsed}";

/// Makes the bars and spinners of one command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Progress {
    hidden: bool,
}

impl Progress {
    /// Bars drawn on stderr, or none when `quiet`.
    pub(crate) fn new(quiet: bool) -> Self {
        Self { hidden: quiet }
    }

    fn target(self) -> ProgressDrawTarget {
        if self.hidden {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        }
    }

    /// A bar counting `len` steps.
    pub(crate) fn bar(self, len: usize, message: impl Into<Cow<'static, str>>) -> ProgressBar {
        let style = ProgressStyle::with_template(BAR)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        ProgressBar::with_draw_target(Some(len as u64), self.target())
            .with_style(style)
            .with_message(message)
    }

    /// A spinner that turns on its own until finished, showing the time elapsed.
    pub(crate) fn spinner(self, message: impl Into<Cow<'static, str>>) -> ProgressBar {
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
    }
}
