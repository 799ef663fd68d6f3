//! The `toolsmith` command line.

fn main() -> std::process::ExitCode {
    toolsmith::run()
}
