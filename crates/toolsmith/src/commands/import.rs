//! `toolsmith import`: read sources into the catalog, each in one transaction.
//! A source is a file, a folder, an archive, or the address of an MCP server
//! whose `tools/list` is imported (see `mcp_source`), or an `http(s)://` URL of a spec, fetched
//! with a timeout, a size cap and few redirects, the URL kept as the source.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use toolsmith_catalog::{
    ImportBatch, ImportOptions, ImportReport, RefSource, Store, read_bytes_with, read_source,
};
use toolsmith_exec::McpAddress;

use crate::cli::ImportArgs;
use crate::context::Context;
use crate::{mcp_source, printer};

/// Runs `toolsmith import`.
pub(super) fn run(ctx: &Context, args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let mut store = ctx.store()?;
    let options = ImportOptions {
        format: args.format.map(Into::into),
        tool: args.tool.clone(),
        category: args.category.clone(),
        label: args.label.clone(),
        base_url: None,
        keep_going: args.keep_going,
    };
    if args.watch {
        return watch(ctx, &mut store, &options, args);
    }
    let mut reports = Vec::new();
    for path in &args.paths {
        let started = Instant::now();
        let source = path.to_string_lossy();
        let spinner = ctx
            .progress()
            .spinner(format!("importing {}", path.display()));
        let batch = if McpAddress::is_mcp(&source) {
            mcp_source::read(&source, &options, &ctx.config()?.mcp)
        } else if is_url(&source) {
            fetch(ctx, &source).and_then(|bytes| {
                let refs = SameHost { ctx };
                read_bytes_with(path, &bytes, &options, &refs).map_err(anyhow::Error::from)
            })
        } else {
            read_source(path, &options).map_err(anyhow::Error::from)
        }
        .with_context(|| format!("importing {}", path.display()));
        let report = batch.and_then(|batch| {
            let report = store
                .import(&batch, toolsmith_catalog::Activate::from(args.activate))
                .with_context(|| format!("storing {}", path.display()))?;
            Ok((batch, report))
        });
        spinner.finish_and_clear();
        let (batch, report) = report?;
        if !args.json.json {
            print_report(&batch, None, &report, started.elapsed())?;
        }
        reports.push(report);
    }
    if args.json.json {
        printer::json(&reports)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How long fetching a spec by URL may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest spec fetched by URL (the biggest RapidAPI tool files are a few MiB).
const FETCH_MAX_BYTES: usize = 32 * 1024 * 1024;
/// Redirects followed when fetching a spec.
const FETCH_MAX_REDIRECTS: usize = 5;

/// Whether a source is an `http://` or `https://` URL.
fn is_url(source: &str) -> bool {
    let lower = source.get(..8).unwrap_or(source).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The body of a spec URL: a success status within [`FETCH_TIMEOUT`], at most
/// [`FETCH_MAX_REDIRECTS`] redirects and [`FETCH_MAX_BYTES`] bytes.
fn fetch(ctx: &Context, url: &str) -> anyhow::Result<Vec<u8>> {
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(FETCH_MAX_REDIRECTS))
        .build()
        .context("building the HTTP client")?;
    ctx.runtime()?.block_on(async {
        let mut response = client
            .get(url)
            .header(
                reqwest::header::ACCEPT,
                "application/json, application/yaml, text/yaml, */*",
            )
            .send()
            .await
            .with_context(|| format!("fetching {url}"))?;
        let status = response.status();
        if !status.is_success() {
            anyhow::bail!("fetching {url}: HTTP {status}");
        }
        if response
            .content_length()
            .is_some_and(|n| n > FETCH_MAX_BYTES as u64)
        {
            anyhow::bail!("{url} is larger than {FETCH_MAX_BYTES} bytes");
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .with_context(|| format!("reading {url}"))?
        {
            if body.len() + chunk.len() > FETCH_MAX_BYTES {
                anyhow::bail!("{url} is larger than {FETCH_MAX_BYTES} bytes");
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    })
}

/// A fetched spec's external `$ref`s: read over HTTP like the spec, from its own host only.
struct SameHost<'c> {
    ctx: &'c Context,
}

impl RefSource for SameHost<'_> {
    fn locate(&self, base: &str, file: &str) -> Result<String, String> {
        let base = reqwest::Url::parse(base).map_err(|e| format!("{base}: {e}"))?;
        let mut target = base.join(file).map_err(|e| format!("{file}: {e}"))?;
        target.set_fragment(None);
        let origin = |u: &reqwest::Url| {
            (
                u.scheme().to_owned(),
                u.host_str().map(str::to_owned),
                u.port_or_known_default(),
            )
        };
        if origin(&target) != origin(&base) {
            return Err(format!(
                "{target} is not on the spec's host {}: refused",
                base.host_str().unwrap_or("?")
            ));
        }
        Ok(target.to_string())
    }

    fn read(&self, location: &str) -> Result<Vec<u8>, String> {
        fetch(self.ctx, location).map_err(|e| format!("{e:#}"))
    }
}

/// `--watch`: imports the one MCP server's tools, then again on every change.
fn watch(
    ctx: &Context,
    store: &mut Store,
    options: &ImportOptions,
    args: &ImportArgs,
) -> anyhow::Result<ExitCode> {
    let [source] = args.paths.as_slice() else {
        anyhow::bail!("--watch follows one MCP server; give exactly one address");
    };
    let source = source.to_string_lossy();
    if !McpAddress::is_mcp(&source) {
        anyhow::bail!("--watch follows an MCP server; `{source}` is not an MCP address");
    }
    mcp_source::watch(&source, options, &ctx.config()?.mcp, |batch, why| {
        let started = Instant::now();
        let report = store
            .import(&batch, toolsmith_catalog::Activate::from(args.activate))
            .with_context(|| format!("storing {source}"))?;
        if args.json.json {
            printer::json(&report)
        } else {
            print_report(&batch, Some(why), &report, started.elapsed())
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `, N unchanged` when some records were imported again with nothing changed.
fn unchanged(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(", {n} unchanged")
    }
}

/// One source's import, in a line (and the refined docs and failures under it). `format`
/// overrides the batch's own format name.
fn print_report(
    batch: &ImportBatch,
    format: Option<&str>,
    report: &ImportReport,
    elapsed: Duration,
) -> anyhow::Result<()> {
    let format = format.unwrap_or_else(|| batch.format.map_or("rapidapi", |f| f.as_str()));
    printer::line(format!(
        "{} ({format}): {} tools added, {} updated{}; {} APIs added, {} updated{}; {} doc versions added, {} unchanged ({:.1} s)",
        batch.source,
        report.tools_added,
        report.tools_updated,
        unchanged(report.tools_unchanged),
        report.apis_added,
        report.apis_updated,
        unchanged(report.apis_unchanged),
        report.docs_added,
        report.docs_unchanged,
        elapsed.as_secs_f64(),
    ))?;
    if report.refs_matched > 0 || !report.refs_unmatched.is_empty() {
        printer::line(format!(
            "  refined docs: {} matched, {} unmatched",
            report.refs_matched,
            report.refs_unmatched.len()
        ))?;
        for name in report.refs_unmatched.iter().take(10) {
            printer::line(format!("    unmatched: {name}"))?;
        }
    }
    for failure in &report.failures {
        printer::note(format!("  skipped: {failure}"));
    }
    Ok(())
}
