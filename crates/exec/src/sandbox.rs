//! A jq engine (jaq) run in a child process, for extracting what an agent
//! needs from a large response.
//!
//! The parent ([`JqSandbox::run`]) spawns an executable that calls
//! [`child_main`] (toolsmith's hidden `__jq-sandbox` subcommand), with an
//! empty environment, a wall-clock timeout (the child is killed on expiry),
//! an address-space limit the child sets on itself before reading anything,
//! and a cap on the output it reads back. The child runs jq's standard
//! library minus everything that reads the environment or the outside
//! world, or writes anywhere but its output: `env`, `$ENV`, `input`,
//! `inputs`, `now`, `halt`, `debug`, `stderr`, `input_filename`.
//!
//! Protocol: the parent writes one JSON object `{"filter": ..., "input": ...}`
//! to the child's stdin; the child writes each result as one line of JSON
//! and exits 0, or writes an error message to stderr and exits with
//! [`EXIT_COMPILE`] or [`EXIT_RUNTIME`].

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The child's exit code when the filter does not parse or compile.
pub const EXIT_COMPILE: u8 = 2;
/// The child's exit code when the filter fails while running.
pub const EXIT_RUNTIME: u8 = 3;
/// The child's exit code when its request cannot be read.
pub const EXIT_PROTOCOL: u8 = 4;

/// The subcommand toolsmith runs the child as.
pub const SUBCOMMAND: &str = "__jq-sandbox";

/// Native filters the sandbox removes: they read the environment or the
/// clock, stop the process, or write outside the result stream.
const DENIED: &[&str] = &[
    "env",
    "now",
    "halt",
    "debug_empty",
    "stderr_empty",
    "input_filename",
    "input",
    "inputs",
    "get_search_list",
    "get_prog_origin",
    "get_jq_origin",
];

/// Definitions of the standard library built on the denied natives.
const DENIED_DEFS: &[&str] = &["stderr", "debug", "halt", "halt_error", "input", "inputs"];

/// Limits of one sandboxed run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSettings {
    /// The child is killed when it has not finished after this long.
    pub timeout: Duration,
    /// Address-space limit of the child, in bytes.
    pub memory_bytes: u64,
    /// Output read back from the child, in bytes; past it the child is
    /// killed and the results so far are returned, marked truncated.
    pub max_output_bytes: usize,
}

impl Default for SandboxSettings {
    /// 2 seconds, 512 MiB of address space, 64 KiB of output: enough for any
    /// extraction an agent should make, small enough to stop a runaway filter.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(2),
            memory_bytes: 512 * 1024 * 1024,
            max_output_bytes: 64 * 1024,
        }
    }
}

/// The results of a filter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JqOutput {
    /// Each output of the filter, in order.
    pub values: Vec<Value>,
    /// Whether the output cap cut the results short.
    pub truncated: bool,
}

/// Why a filter produced no results. The message is meant for the agent
/// that wrote the filter, so that it can fix it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JqError {
    /// The filter does not parse or refers to something undefined.
    #[error("the jq filter does not compile: {0}")]
    Compile(String),
    /// The filter failed on this input.
    #[error("the jq filter failed: {0}")]
    Runtime(String),
    /// The filter ran past the time limit and was stopped.
    #[error(
        "the jq filter ran longer than {0:?} and was stopped; avoid unbounded loops and recursion"
    )]
    Timeout(Duration),
    /// The child died: out of memory or stack.
    #[error("the jq filter was stopped: {0}; use less memory and shallower recursion")]
    Killed(String),
    /// The child could not be started or talked to.
    #[error("cannot run the jq sandbox `{program}`: {source}")]
    Spawn {
        /// The executable.
        program: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Runs jq filters in child processes.
#[derive(Clone, Debug)]
pub struct JqSandbox {
    program: PathBuf,
    args: Vec<OsString>,
    settings: SandboxSettings,
}

#[derive(Serialize, Deserialize)]
struct Request {
    filter: String,
    input: Value,
}

impl JqSandbox {
    /// A sandbox that runs `program __jq-sandbox` (toolsmith's own binary,
    /// `std::env::current_exe()` at the command line's edge).
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: vec![SUBCOMMAND.into()],
            settings: SandboxSettings::default(),
        }
    }

    /// Replaces the arguments that select the child mode (by default
    /// `__jq-sandbox`); the memory flag is appended to them.
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<OsString>>) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the limits.
    pub fn settings(mut self, settings: SandboxSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Runs `filter` on `input` in a fresh child.
    pub async fn run(&self, filter: &str, input: &Value) -> Result<JqOutput, JqError> {
        let spawn_error = |source| JqError::Spawn {
            program: self.program.clone(),
            source,
        };
        let request = serde_json::to_vec(&Request {
            filter: filter.to_owned(),
            input: input.clone(),
        })
        .map_err(|e| spawn_error(std::io::Error::other(e)))?;
        let mut child = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .arg("--max-memory-bytes")
            .arg(self.settings.memory_bytes.to_string())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_error)?;
        let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_error(std::io::Error::other("child pipes missing")));
        };
        let cap = self.settings.max_output_bytes;
        let work = async {
            // The child reads its whole request before writing anything, so
            // writing first cannot deadlock. A child that died early closes
            // the pipe; its exit status says why.
            let _ = stdin.write_all(&request).await;
            drop(stdin);
            let mut out = Vec::new();
            let mut truncated = false;
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                let n = stdout.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                out.extend_from_slice(buf.get(..n).unwrap_or_default());
                if out.len() > cap {
                    out.truncate(cap);
                    truncated = true;
                    break;
                }
            }
            let mut err = Vec::new();
            if !truncated {
                let _ = (&mut stderr).take(8 * 1024).read_to_end(&mut err).await;
            }
            (out, truncated, err)
        };
        let Ok((out, truncated, err)) = tokio::time::timeout(self.settings.timeout, work).await
        else {
            let _ = child.kill().await;
            return Err(JqError::Timeout(self.settings.timeout));
        };
        if truncated {
            let _ = child.kill().await;
            return Ok(JqOutput {
                values: parse_lines(&out, true),
                truncated,
            });
        }
        let status = match tokio::time::timeout(self.settings.timeout, child.wait()).await {
            Ok(Ok(status)) => status,
            Ok(Err(source)) => return Err(spawn_error(source)),
            Err(_) => {
                let _ = child.kill().await;
                return Err(JqError::Timeout(self.settings.timeout));
            }
        };
        let message = String::from_utf8_lossy(&err).trim().to_owned();
        match status.code().and_then(|c| u8::try_from(c).ok()) {
            Some(0) => Ok(JqOutput {
                values: parse_lines(&out, false),
                truncated: false,
            }),
            Some(EXIT_COMPILE) => Err(JqError::Compile(message)),
            Some(EXIT_RUNTIME) => Err(JqError::Runtime(message)),
            _ => Err(JqError::Killed(death_reason(&status, &message))),
        }
    }
}

fn parse_lines(out: &[u8], cut: bool) -> Vec<Value> {
    let text = String::from_utf8_lossy(out);
    let mut lines: Vec<&str> = text.lines().collect();
    // A cut stream ends in a partial line unless the cut fell on a newline.
    if cut && !text.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_owned())))
        .collect()
}

fn death_reason(status: &std::process::ExitStatus, stderr: &str) -> String {
    if stderr.contains("overflowed its stack") {
        "it recursed too deeply (stack overflow)".to_owned()
    } else if stderr.contains("memory allocation") || stderr.contains("out of memory") {
        "it ran out of memory".to_owned()
    } else {
        signal_text(status)
    }
}

#[cfg(unix)]
fn signal_text(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match status.signal() {
        Some(sig) => {
            format!("the sandbox died on signal {sig} (most likely out of memory or stack)")
        }
        None => format!("the sandbox exited with {status}"),
    }
}

#[cfg(not(unix))]
fn signal_text(status: &std::process::ExitStatus) -> String {
    format!("the sandbox exited with {status}")
}

/// The child's entry point, with its command-line arguments after the
/// subcommand (`--max-memory-bytes N`). An executable's `main` calls this;
/// it reads stdin and writes stdout and stderr, as the protocol says.
pub fn child_main_from_args(args: impl IntoIterator<Item = String>) -> ExitCode {
    let mut memory = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--max-memory-bytes" {
            memory = args.next().and_then(|n| n.parse().ok());
        }
    }
    child_main(memory)
}

/// The child's entry point: limits its own memory, reads the request from
/// stdin, runs the filter, writes the results to stdout.
pub fn child_main(max_memory_bytes: Option<u64>) -> ExitCode {
    if let Some(limit) = max_memory_bytes {
        limit_address_space(limit);
    }
    let mut raw = Vec::new();
    if std::io::stdin().read_to_end(&mut raw).is_err() {
        return fail(EXIT_PROTOCOL, "cannot read the request");
    }
    let request: Request = match serde_json::from_slice(&raw) {
        Ok(r) => r,
        Err(e) => return fail(EXIT_PROTOCOL, &format!("malformed request: {e}")),
    };
    drop(raw);
    match run_filter(&request.filter, &request.input) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => fail(code, &message),
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr().lock(), "{message}");
    ExitCode::from(code)
}

/// Sets RLIMIT_AS on the current process.
#[cfg(unix)]
#[allow(unsafe_code)]
fn limit_address_space(bytes: u64) {
    let limit = libc::rlim_t::try_from(bytes).unwrap_or(libc::RLIM_INFINITY);
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit only reads the struct passed by reference, which
    // lives across the call; std offers no safe wrapper for it. Failure
    // leaves the process unlimited, and the parent's timeout still applies.
    let _ = unsafe { libc::setrlimit(libc::RLIMIT_AS, &raw const rlimit) };
}

#[cfg(not(unix))]
fn limit_address_space(_bytes: u64) {}

fn run_filter(filter: &str, input: &Value) -> Result<(), (u8, String)> {
    use jaq_core::load::{Arena, File, Loader};
    use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
    use jaq_json::Val;

    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .filter(|def| !DENIED_DEFS.contains(&def.name));
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(|(name, _, _)| !DENIED.contains(name));
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let program = File {
        code: filter,
        path: (),
    };
    let modules = loader
        .load(&arena, program)
        .map_err(|errs| (EXIT_COMPILE, load_errors(filter, &errs)))?;
    let compiled = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errs| (EXIT_COMPILE, compile_errors(filter, &errs)))?;
    let text = input.to_string();
    let input = jaq_json::read::parse_single(text.as_bytes())
        .map_err(|e| (EXIT_RUNTIME, format!("input is not JSON: {e}")))?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&compiled.lut, Vars::new([]));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for result in compiled.id.run((ctx, input)).map(unwrap_valr) {
        match result {
            Ok(value) => {
                if writeln!(out, "{value}").is_err() {
                    // The parent stopped reading (output cap): nothing more to do.
                    return Ok(());
                }
            }
            Err(err) => {
                let _ = out.flush();
                return Err((EXIT_RUNTIME, err.to_string()));
            }
        }
    }
    let _ = out.flush();
    Ok(())
}

/// Where `part` (a slice of `code`) starts, as a 1-based column-ish offset.
fn offset(code: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(code.as_ptr() as usize) + 1
}

fn load_errors<P>(code: &str, errs: &jaq_core::load::Errors<&str, P>) -> String {
    use jaq_core::load::Error;
    let mut out = Vec::new();
    for (_, err) in errs {
        match err {
            Error::Io(items) => out.extend(
                items
                    .iter()
                    .map(|(path, e)| format!("cannot load {path}: {e}")),
            ),
            Error::Lex(items) => out.extend(items.iter().map(|(expect, at)| {
                format!(
                    "expected {} at offset {}",
                    expect.as_str(),
                    offset(code, at)
                )
            })),
            Error::Parse(items) => out.extend(items.iter().map(|(expect, at)| {
                let found = if at.is_empty() {
                    "end of input".to_owned()
                } else {
                    format!("`{at}`")
                };
                format!(
                    "expected {} at offset {}, found {found}",
                    expect.as_str(),
                    offset(code, at)
                )
            })),
        }
    }
    out.join("; ")
}

fn compile_errors<P>(code: &str, errs: &jaq_core::compile::Errors<&str, P>) -> String {
    let mut out = Vec::new();
    for (_, items) in errs {
        for (name, undefined) in items {
            let what = format!("{undefined:?}").to_lowercase();
            out.push(format!(
                "undefined {what} `{name}` at offset {} (the sandbox has no environment, clock or input access)",
                offset(code, name)
            ));
        }
    }
    out.join("; ")
}
