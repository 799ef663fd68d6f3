//! Log output of the libraries' `tracing` events (retries, MCP servers' stderr, ...) on
//! stderr. Warnings by default, `-v` info, `-vv` debug, `-vvv` trace; `RUST_LOG` overrides.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::ColorChoice;
use crate::env;

/// The level of `-v` repeated `verbose` times.
fn level(verbose: u8) -> &'static str {
    match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    }
}

/// Whether the log is colored.
fn ansi(color: ColorChoice) -> bool {
    match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stderr().is_terminal() && std::env::var_os(env::NO_COLOR).is_none()
        }
    }
}

/// Installs the subscriber for the process (once; a second call changes nothing).
pub(crate) fn install(verbose: u8, color: ColorChoice) {
    let filter =
        EnvFilter::try_from_env(env::LOG).unwrap_or_else(|_| EnvFilter::new(level(verbose)));
    // Fails only when a subscriber is installed already, which then stays.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi(color))
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_v_raises_the_level() {
        assert_eq!(
            [0, 1, 2, 3, 9].map(level),
            ["warn", "info", "debug", "trace", "trace"]
        );
    }

    #[test]
    fn always_and_never_decide_colors() {
        assert!(ansi(ColorChoice::Always));
        assert!(!ansi(ColorChoice::Never));
    }
}
