//! `toolsmith quickstart`: a guided tour on the example library API.
//!
//! Each step runs this same binary with the command a user would type, printed before its
//! output, so the tour shows the real commands and their real output; no step reaches into
//! another command's code. The example API runs in this process, on a thread of its own,
//! for as long as the tour lasts.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::mpsc;

use crate::cli::QuickstartArgs;
use crate::context::Context;
use crate::printer;
use anyhow::Context as _;

/// The catalog's name for the example API's tool.
const TOOL: &str = "library";
/// The query the search step runs.
const SEARCH: &str = "borrow a book for a library member";
/// The API the call steps call, and its arguments.
const CALL_API: &str = "library/search_books";
const CALL_ARGS: &str = r#"{"title": "solaris"}"#;
/// The agents compared on the example queries when an LLM is configured.
const SOLVERS: [&str; 2] = ["react", "conagents"];

/// Runs the tour; exits 2 when a step that later steps need fails.
pub(crate) fn run(ctx: &Context, args: &QuickstartArgs) -> anyhow::Result<ExitCode> {
    let api = ExampleServer::start(args.port)?;
    let files = Files::write(ctx.db(), &api.base_url)?;
    printer::line(format!(
        "The example library API is running at {} (its spec: {}).",
        api.base_url,
        files.spec.display()
    ))?;
    let tour = Tour::new(ctx.db(), 7)?;
    let Some(method) = basic_steps(&tour, &files)? else {
        return Ok(ExitCode::from(2));
    };
    benchmark_step(&tour, &args.data.path(), method)?;
    let llm = &ctx.config()?.llm;
    let mut report = None;
    if crate::llm::is_configured(llm) {
        report = agent_steps(&tour, &files)?;
        own_tools_steps(&tour)?;
    } else {
        printer::line(NO_LLM)?;
    }
    printer::line(format!(
        "\nDone. The catalog is {}; try `toolsmith --db {} show {CALL_API}`.",
        ctx.db().display(),
        ctx.db().display()
    ))?;
    if let Some(report) = report {
        printer::line(format!(
            "The benchmark's report (open it in a browser): {}",
            report.display()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The tour's files, in the folder beside the catalog.
struct Files {
    work: PathBuf,
    /// The example API's OpenAPI spec.
    spec: PathBuf,
    /// Its example queries with their gold paths.
    queries: PathBuf,
}

impl Files {
    /// Writes the spec of the API served at `base_url` and its queries beside `db`.
    fn write(db: &Path, base_url: &str) -> anyhow::Result<Self> {
        let work = work_dir(db);
        std::fs::create_dir_all(&work)
            .with_context(|| format!("creating the quickstart folder {}", work.display()))?;
        // The tour's files are scratch: the folder ignores itself, so a checkout it lands in
        // (the catalog beside a clone, as `scripts/install.sh` puts it) shows no stray folder.
        let ignore = work.join(".gitignore");
        std::fs::write(&ignore, IGNORE_ALL)
            .with_context(|| format!("writing {}", ignore.display()))?;
        let spec = work.join("library_openapi.json");
        let text = serde_json::to_string_pretty(&toolsmith_testbed::library_spec(base_url))?;
        std::fs::write(&spec, text).with_context(|| format!("writing {}", spec.display()))?;
        let queries = work.join("library_queries.json");
        std::fs::write(&queries, toolsmith_testbed::LIBRARY_QUERIES)
            .with_context(|| format!("writing {}", queries.display()))?;
        Ok(Self {
            work,
            spec,
            queries,
        })
    }
}

/// Import, list, index, search and call; the search method the index allows, `None` when
/// the import failed (nothing after it can run).
fn basic_steps(tour: &Tour, files: &Files) -> anyhow::Result<Option<&'static str>> {
    let spec_arg = files.spec.to_string_lossy().into_owned();
    if !tour.step(
        "Import the API's OpenAPI spec into the catalog",
        &["import", &spec_arg, "--tool", TOOL],
    )? {
        return Ok(None);
    }
    tour.step("List its APIs", &["tools", "--tool", TOOL])?;
    let indexed = tour.step(
        "Embed every API's doc for semantic search (local MiniLM, once)",
        &["index"],
    )?;
    let method = if indexed { "hybrid" } else { "bm25" };
    if !indexed {
        printer::note(
            "the local embedding model is not installed (scripts/install-model.sh installs it): \
             searching with BM25 alone",
        );
    }
    tour.step(
        "Search the catalog",
        &["search", SEARCH, "-k", "3", "--method", method],
    )?;
    tour.step(
        "Call an API on the simulator (built from the spec's response schemas)",
        &["call", CALL_API, "--args", CALL_ARGS, "--mode", "simulate"],
    )?;
    tour.step(
        "Call the same API live",
        &["call", CALL_API, "--args", CALL_ARGS, "--mode", "live"],
    )?;
    Ok(Some(method))
}

/// `bench retrieval` on RestBench TMDB, or a note that the benchmark data is missing.
fn benchmark_step(tour: &Tour, data: &Path, method: &str) -> anyhow::Result<()> {
    if !data.join("restbench-tmdb").is_dir() {
        return tour.skip(&format!(
            "the retrieval benchmark: no benchmark data at {} (set TOOLSMITH_DATA)",
            data.display()
        ));
    }
    let data = data.to_string_lossy();
    tour.step(
        "Measure retrieval on RestBench TMDB (100 queries, NDCG and recall)",
        &[
            "bench",
            "retrieval",
            "--dataset",
            "restbench-tmdb",
            "--method",
            method,
            "--data-dir",
            &data,
        ],
    )?;
    Ok(())
}

/// Two agents benchmarked live on the example queries, compared, and their HTML report;
/// the report's page when it was written.
fn agent_steps(tour: &Tour, files: &Files) -> anyhow::Result<Option<PathBuf>> {
    printer::line(
        "\nAn LLM endpoint is configured: two agents answer the example API's queries live.",
    )?;
    let queries_arg = files.queries.to_string_lossy().into_owned();
    let spec_arg = files.spec.to_string_lossy().into_owned();
    let mut runs = Vec::new();
    for solver in SOLVERS {
        let name = format!("quickstart-{solver}");
        let report = tour.extra_json(
            &format!("Benchmark {solver} on the example API's queries (gold paths, live calls)"),
            &[
                "bench",
                "run",
                "--dataset",
                &queries_arg,
                "--catalog",
                &spec_arg,
                "--solver",
                solver,
                "--mode",
                "live",
                "--concurrency",
                "1",
                "--name",
                &name,
                "--json",
            ],
        )?;
        if let Some(run) = report.as_ref().and_then(|r| r["run"].as_i64()) {
            runs.push(run.to_string());
        }
    }
    let [first, second] = runs.as_slice() else {
        return Ok(None);
    };
    tour.extra_step(
        "Compare the two agents",
        &["bench", "compare", first, second],
    )?;
    let dir = files.work.join("report");
    let dir_arg = dir.to_string_lossy().into_owned();
    let written = tour.extra_step(
        "Write the HTML report of the two runs",
        &["report", first, second, "--out", &dir_arg],
    )?;
    Ok(written.then(|| dir.join("index.html")))
}

/// The synthesized evaluation set the tour makes of the example API.
const SYNTH_SET: &str = "quickstart";

/// The path for a user's own tools, which have no benchmark: synthesize an evaluation set
/// from the catalog, benchmark an agent on its eval split, refine the docs with the gate on
/// that split (a new doc becomes active only where it ranks no worse), and benchmark again.
fn own_tools_steps(tour: &Tour) -> anyhow::Result<()> {
    printer::line(
        "\nYour own tools have no benchmark: toolsmith writes one from the catalog, then \
         measures a refinement on it.",
    )?;
    let made = tour.extra_step(
        "Synthesize an evaluation set (requests with gold paths, each checked on the simulator)",
        &[
            "synth",
            "run",
            SYNTH_SET,
            "--single",
            "6",
            "--chains",
            "4",
            "--combos",
            "0",
            "--per-path",
            "2",
            "--mode",
            "simulate",
        ],
    )?;
    if !made {
        return Ok(());
    }
    tour.extra_step("Show the set", &["synth", "show", SYNTH_SET])?;
    let before = bench_on_synth(tour, "before")?;
    tour.extra_step(
        "Refine the docs (EasyTool), gated on the set's eval split",
        &["refine", "--method", "easytool", "--apis", TOOL, "--gate"],
    )?;
    let after = bench_on_synth(tour, "after")?;
    if let (Some(before), Some(after)) = (before, after) {
        tour.extra_step(
            "Compare the agent before and after the refinement",
            &["bench", "compare", &before, &after],
        )?;
    }
    Ok(())
}

/// ReAct on the synthesized set's eval split, simulated; the run's id when it ran.
fn bench_on_synth(tour: &Tour, when: &str) -> anyhow::Result<Option<String>> {
    let dataset = format!("synth:{SYNTH_SET}");
    let name = format!("quickstart-synth-{when}");
    let report = tour.extra_json(
        &format!("Benchmark ReAct on the set's eval split, {when} refinement (simulated calls)"),
        &[
            "bench",
            "run",
            "--dataset",
            &dataset,
            "--solver",
            "react",
            "--mode",
            "simulate",
            "--name",
            &name,
            "--json",
        ],
    )?;
    Ok(report
        .as_ref()
        .and_then(|r| r["run"].as_i64())
        .map(|run| run.to_string()))
}

/// The tour folder's `.gitignore`: everything in it.
const IGNORE_ALL: &str = "# written by `toolsmith quickstart`: every file here is scratch\n*\n";

/// What to do to run the agent steps, in a few lines.
const NO_LLM: &str = "
No LLM endpoint is configured, so the agent steps were skipped. Point toolsmith at any
OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server) and run this again:
  export OPENAI_BASE_URL=http://localhost:11434/v1   # the server's /v1 address
  export OPENAI_API_KEY=...                           # when the server needs a key
  export TOOLSMITH_MODEL=llama3.1                     # the model to use
or set base_url and model in the [llm] section of toolsmith.toml.";

/// The folder beside the catalog that holds the tour's files (the spec with its server).
fn work_dir(db: &Path) -> PathBuf {
    let stem = db
        .file_stem()
        .map_or_else(|| "toolsmith".into(), |s| s.to_string_lossy());
    db.with_file_name(format!("{stem}-quickstart"))
}

/// The steps of the tour: this binary, run on the same catalog.
struct Tour {
    exe: PathBuf,
    db: PathBuf,
    total: usize,
    done: std::cell::Cell<usize>,
}

impl Tour {
    fn new(db: &Path, total: usize) -> anyhow::Result<Self> {
        Ok(Self {
            exe: std::env::current_exe().context("finding the toolsmith binary")?,
            db: db.to_path_buf(),
            total,
            done: std::cell::Cell::new(0),
        })
    }

    /// Runs one numbered step; `Ok(false)` when the command failed (it said why).
    fn step(&self, title: &str, args: &[&str]) -> anyhow::Result<bool> {
        let n = self.done.get() + 1;
        self.done.set(n);
        self.run(&format!("[{n}/{}] {title}", self.total), args)
    }

    /// Skips the next numbered step, saying why.
    fn skip(&self, why: &str) -> anyhow::Result<()> {
        let n = self.done.get() + 1;
        self.done.set(n);
        printer::line(format!("\n[{n}/{}] skipped {why}", self.total))
    }

    /// Runs a step beyond the numbered ones (the agent steps).
    fn extra_step(&self, title: &str, args: &[&str]) -> anyhow::Result<bool> {
        self.run(&format!("[+] {title}"), args)
    }

    /// Runs a step beyond the numbered ones whose stdout is JSON; prints a line of it and
    /// returns the value (`None` when the command failed).
    fn extra_json(&self, title: &str, args: &[&str]) -> anyhow::Result<Option<serde_json::Value>> {
        let out = self
            .command(&format!("[+] {title}"), args)?
            .stderr(std::process::Stdio::inherit())
            .output()
            .with_context(|| format!("running toolsmith {}", args.join(" ")))?;
        if !out.status.success() {
            printer::note(format!(
                "step failed ({}): toolsmith {}",
                out.status,
                shown(args)
            ));
            return Ok(None);
        }
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .with_context(|| format!("reading the JSON of toolsmith {}", shown(args)))?;
        let summary = &report["summary"];
        printer::line(format!(
            "run {}: {} queries, CP {:.1}%, answered {:.1}%",
            report["run"],
            summary["queries"],
            summary["cp"].as_f64().unwrap_or(0.0),
            summary["answered"].as_f64().unwrap_or(0.0)
        ))?;
        Ok(Some(report))
    }

    /// Shows the heading and the command, and returns it ready to run on the catalog.
    fn command(&self, heading: &str, args: &[&str]) -> anyhow::Result<Command> {
        printer::line(format!("\n{heading}\n$ toolsmith {}", shown(args)))?;
        std::io::stdout().flush().context("writing to stdout")?;
        let mut command = Command::new(&self.exe);
        command.arg("--db").arg(&self.db).args(args);
        Ok(command)
    }

    fn run(&self, heading: &str, args: &[&str]) -> anyhow::Result<bool> {
        let status = self
            .command(heading, args)?
            .status()
            .with_context(|| format!("running toolsmith {}", args.join(" ")))?;
        if !status.success() {
            printer::note(format!("step failed ({status}): toolsmith {}", shown(args)));
        }
        Ok(status.success())
    }
}

/// Arguments as a shell would need them typed.
fn shown(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.chars().any(|c| c.is_whitespace() || "\"'{}$".contains(c)) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                (*a).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The example API on a thread of its own; it stops when this is dropped.
struct ExampleServer {
    base_url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ExampleServer {
    fn start(port: u16) -> anyhow::Result<Self> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let served = toolsmith_testbed::runtime().map(|runtime| {
                runtime.block_on(async {
                    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
                    match toolsmith_testbed::ExampleApi::start(addr).await {
                        Ok(api) => {
                            let _ = ready_tx.send(Ok(api.base_url()));
                            let _ = stop_rx.await;
                        }
                        Err(err) => {
                            let _ = ready_tx.send(Err(err.to_string()));
                        }
                    }
                });
            });
            if let Err(err) = served {
                tracing::error!("the example API's runtime: {err}");
            }
        });
        let base_url = ready_rx
            .recv()
            .context("the example API's thread ended before it started")?
            .map_err(|err| anyhow::anyhow!("starting the example API: {err}"))?;
        Ok(Self {
            base_url,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

impl Drop for ExampleServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_shown_as_typed() {
        assert_eq!(
            shown(&["call", "a/b", "--args", r#"{"x": 1}"#]),
            r#"call a/b --args '{"x": 1}'"#
        );
        assert_eq!(shown(&["search", "it's"]), r#"search 'it'\''s'"#);
    }

    #[test]
    fn the_tour_folder_sits_beside_the_catalog() {
        assert_eq!(
            work_dir(Path::new("/tmp/x/toolsmith.db")),
            Path::new("/tmp/x/toolsmith-quickstart")
        );
    }
}
