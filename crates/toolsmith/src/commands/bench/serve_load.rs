//! `toolsmith bench serve`: a bounded load test of the HTTP API on loopback. The TMDB catalog
//! (RestBench) is served with the simulated executor; each client searches with a RestBench
//! query and calls the first hit with arguments filled from its schema, until time is up.

use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use serde::Serialize;
use toolsmith_catalog::{DocSelector, Scope, Store};
use toolsmith_eval::Benchmark;
use toolsmith_exec::{ApiBook, Executor, Provenance, Simulator, Validated};
use toolsmith_serve::load::{LoadReport, LoadSettings, rss_kib, run_load};
use toolsmith_serve::{CancellationToken, HttpOptions};

use crate::cli::BenchServeArgs;
use crate::context::Context;
use crate::{benchmarks, printer, serving, table};

/// `bench serve --json`.
#[derive(Debug, Serialize)]
struct Report {
    apis: usize,
    method: String,
    #[serde(flatten)]
    load: LoadReport,
    rss_before_kib: Option<u64>,
    rss_after_kib: Option<u64>,
}

/// Runs `bench serve`. Exit 1 when any request failed.
pub(crate) fn run(ctx: &Context, args: &BenchServeArgs) -> anyhow::Result<ExitCode> {
    let data = args.data.path();
    let tmdb = Benchmark::parse("restbench-tmdb")?;
    let mut store = Store::in_memory()?;
    benchmarks::import_all(&mut store, &tmdb.corpus_sources(&data), *ctx.progress())?;
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    let queries: Vec<String> = tmdb
        .load(&data)
        .with_context(|| format!("loading RestBench TMDB from {}", data.display()))?
        .queries
        .into_iter()
        .map(|q| q.text)
        .collect();
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let executor: Arc<dyn Executor> = Arc::new(Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    ));
    let method = ctx
        .config()?
        .retrieve
        .method(args.method.method.map(Into::into));
    let rt = serving::runtime()?;
    let report = rt.block_on(async {
        let service = serving::service(ctx, &store, catalog, method, executor, None, None).await?;
        let apis = service.len();
        let stop = CancellationToken::new();
        let app = toolsmith_serve::router(service, HttpOptions::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let server = tokio::spawn(toolsmith_serve::serve(
            listener,
            app,
            stop.clone().cancelled_owned(),
        ));
        let spinner = ctx.progress().spinner(format!(
            "{} clients searching and calling for {} s",
            args.clients, args.seconds
        ));
        let rss_before_kib = rss_kib();
        let load = run_load(&LoadSettings {
            base_url: format!("http://{addr}"),
            token: None,
            clients: usize::from(args.clients),
            duration: Duration::from_secs(args.seconds),
            queries,
            k: args.k,
        })
        .await;
        let rss_after_kib = rss_kib();
        spinner.finish_and_clear();
        stop.cancel();
        server.await.context("the server task failed")??;
        anyhow::Ok(Report {
            apis,
            method: method.to_string(),
            load: load.context("running the load clients")?,
            rss_before_kib,
            rss_after_kib,
        })
    })?;
    printer::report(&report, args.json.json)?;
    for sample in &report.load.error_samples {
        printer::note(format!("error: {sample}"));
    }
    Ok(if report.load.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.load;
        let mb = |kib: Option<u64>| {
            kib.map_or("-".to_owned(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
        };
        let mut out = table::new(["measure", "value"]);
        for (name, value) in [
            ("APIs (TMDB)", self.apis.to_string()),
            ("search method", self.method.clone()),
            ("clients", l.clients.to_string()),
            ("seconds", format!("{:.1}", l.seconds)),
            ("requests", l.requests.to_string()),
            ("searches / calls", format!("{} / {}", l.searches, l.calls)),
            ("throughput", format!("{:.0} req/s", l.throughput)),
            ("p50 / p99", format!("{:.2} / {:.2} ms", l.p50_ms, l.p99_ms)),
            ("errors", l.errors.to_string()),
            ("tool failures (answered)", l.tool_failures.to_string()),
            (
                "RSS before / after",
                format!("{} / {}", mb(self.rss_before_kib), mb(self.rss_after_kib)),
            ),
        ] {
            out.add_row(vec![name.to_owned(), value]);
        }
        f.write_str(&out.trim_fmt())
    }
}
