//! All output of the command line goes through here: libraries never print.
//!
//! Writing to stdout can fail. A closed pipe (`toolsmith tools | head`) is the reader's
//! choice, not an error: [`is_broken_pipe`] lets `run` exit quietly with success, as
//! ripgrep does. Any other write error (a full disk) is reported.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

use anyhow::Context;
use serde::Serialize;

/// Writes a line of text to stdout.
pub(crate) fn line(text: impl std::fmt::Display) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .context("writing to stdout")
}

/// Writes a value as pretty JSON to stdout.
pub(crate) fn json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    line(text)
}

/// Writes a command's report once: as pretty JSON with `--json`, else as its text.
pub(crate) fn report<R: Serialize + std::fmt::Display>(
    report: &R,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        self::json(report)
    } else {
        line(report)
    }
}

/// Writes a note for the user to stderr (warnings, summaries; progress has its bars).
pub(crate) fn note(text: impl std::fmt::Display) {
    eprintln!("{text}");
}

/// Reports a failure with its whole chain of causes.
pub(crate) fn error(err: &anyhow::Error) {
    eprintln!("error: {err:#}");
}

/// Whether the failure is stdout's reader having gone away.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_pipe_is_quiet() {
        let pipe = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing to stdout");
        assert!(is_broken_pipe(&pipe));
        let full = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::StorageFull))
            .context("writing to stdout");
        assert!(!is_broken_pipe(&full));
    }
}
