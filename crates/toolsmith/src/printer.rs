//! All output of the command line goes through here: libraries never print.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

use serde::Serialize;

/// Writes a line of text to stdout. A closed pipe (`toolsmith tools | head`) is not an error.
pub fn line(text: impl std::fmt::Display) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}

/// Writes a value as pretty JSON to stdout.
pub fn json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    line(text);
    Ok(())
}

/// Writes a note for the user to stderr (progress, warnings).
pub fn note(text: impl std::fmt::Display) {
    eprintln!("{text}");
}

/// Reports a failure with its whole chain of causes.
pub fn error(err: &anyhow::Error) {
    eprintln!("error: {err:#}");
}
