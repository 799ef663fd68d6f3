//! The jq sandbox's child process, for this crate's tests (the toolsmith
//! binary runs the same entry point as `toolsmith __jq-sandbox`).

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some(toolsmith_exec::sandbox::SUBCOMMAND) {
        args.next();
    }
    toolsmith_exec::sandbox::child_main_from_args(args)
}
