//! `toolsmith bench search-speed`: index build time, memory and query latency of BM25, the
//! dense backends and hybrid search on slices of ToolEnv2404 (padded with synthetic APIs
//! beyond it), dense queries being seeded random vectors. Build the job, run it size by size,
//! report once.

mod report;

use std::ops::ControlFlow;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use toolsmith_catalog::{DocSelector, Store};
use toolsmith_eval::{Benchmark, TOOLENV2404};
use toolsmith_llm::{Embedder, LocalEmbedder};
use toolsmith_plumbing::measure::{Latency, SeededFloats, status_kib};
use toolsmith_retrieve::timing::{self, Timed};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, CorpusDoc, DenseBackend, DenseIndex, DenseSettings,
    HybridSettings, VectorFormat,
};

use self::report::{BackendRow, SPEED_DIMS, SpeedReport, SpeedRow};
use crate::cli::SpeedArgs;
use crate::context::Context;
use crate::progress::Progress;
use crate::{benchmarks, printer, retrieval};

const MIB: f64 = 1024.0 * 1024.0;

/// The seed of the random query and document vectors.
const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Queries embedded one by one to time the query embedding.
const QUERY_EMBEDDINGS: usize = 100;

/// Runs `bench search-speed`.
pub(crate) fn run(ctx: &Context, args: &SpeedArgs) -> anyhow::Result<ExitCode> {
    let mut job = Job::build(ctx, args)?;
    let report = job.run(ctx, args)?;
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Everything the measurement needs, read before the first size.
struct Job {
    progress: Progress,
    full: Arc<Corpus>,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
    rng: SeededFloats,
    hybrid: HybridSettings,
    configured_vectors: VectorFormat,
    hnsw: DenseSettings,
    max_build: Duration,
    model: Option<LocalEmbedder>,
}

/// One size's indexes and how long each took to make.
struct Indexes {
    corpus: Arc<Corpus>,
    synthetic: bool,
    bm25: Bm25Index,
    bm25_build: Duration,
    dense: DenseIndex,
    dense_load: Duration,
    int8: DenseIndex,
    int8_build: Duration,
    /// The index hybrid search fuses with BM25 (the configured vector format).
    configured: DenseIndex,
    hnsw: Result<DenseIndex, String>,
    hnsw_build: Duration,
    hnsw_rss: Option<f64>,
}

/// One size's timed passes over the queries.
struct Passes {
    bm25: Timed,
    dense: Timed,
    int8: Timed,
    hnsw: Option<Timed>,
    brute: Timed,
    hybrid: Timed,
}

impl Job {
    fn build(ctx: &Context, args: &SpeedArgs) -> anyhow::Result<Self> {
        let data = args.data.path();
        let progress = *ctx.progress();
        let started = Instant::now();
        let mut store = Store::in_memory()?;
        benchmarks::import_all(&mut store, &[data.join(TOOLENV2404)], progress)?;
        let full = retrieval::corpus(
            &store,
            &DocSelector::Active,
            retrieval::SourceField::configured(ctx)?,
        )?;
        printer::note(format!(
            "imported {} APIs of ToolEnv2404 in {:.1}s",
            full.len(),
            started.elapsed().as_secs_f64()
        ));
        let mut queries: Vec<String> = Vec::new();
        for b in [Benchmark::ToolbenchG1, Benchmark::ToolbenchG2] {
            queries.extend(b.load(&data)?.queries.into_iter().map(|q| q.text));
        }
        anyhow::ensure!(!queries.is_empty(), "no queries under {}", data.display());
        let n = args.queries.max(1);
        let texts: Vec<String> = queries.iter().cycle().take(n).cloned().collect();
        let mut rng = SeededFloats::new(SEED);
        let vectors: Vec<Vec<f32>> = (0..n).map(|_| rng.vector(SPEED_DIMS)).collect();
        let config = ctx.config()?;
        let model = if args.embed_queries || args.embed_docs.is_some() {
            let spinner = progress.spinner("loading the local embedding model");
            let model = LocalEmbedder::load_default();
            spinner.finish_and_clear();
            Some(model.context("loading the local embedding model")?)
        } else {
            None
        };
        Ok(Self {
            progress,
            full,
            texts,
            vectors,
            rng,
            hybrid: config.retrieve.hybrid,
            configured_vectors: config.retrieve.dense.vectors,
            hnsw: DenseSettings {
                backend: DenseBackend::Hnsw,
                ..config.retrieve.dense
            },
            max_build: Duration::from_secs(args.max_build_secs),
            model,
        })
    }

    /// Measures every size, then the embedding model if asked.
    fn run(&mut self, ctx: &Context, args: &SpeedArgs) -> anyhow::Result<SpeedReport> {
        let rt = ctx.runtime()?;
        let docs_per_second = match (&self.model, args.embed_docs) {
            (Some(model), Some(n)) => {
                let spinner = self.progress.spinner(format!("embedding {n} API docs"));
                let rate = doc_embedding_rate(&rt, model, &self.full, n);
                spinner.finish_and_clear();
                Some(rate?)
            }
            _ => None,
        };
        let mut rows = Vec::new();
        let mut backends = Vec::new();
        for &size in &args.sizes {
            let indexes = self.indexes(size)?;
            let passes = self.passes(&indexes)?;
            let (row, mut more) = self.rows(&indexes, &passes, docs_per_second);
            rows.push(row);
            backends.append(&mut more);
        }
        let query_embedding = match &self.model {
            Some(model) if args.embed_queries => {
                let bar = self
                    .progress
                    .bar(self.texts.len().min(QUERY_EMBEDDINGS), "embedding queries");
                let latency = query_embedding_latency(&rt, model, &self.texts, &bar);
                bar.finish_and_clear();
                Some(latency?)
            }
            _ => None,
        };
        Ok(SpeedReport {
            rows,
            backends,
            query_embedding,
            doc_embeddings_per_second: docs_per_second,
            queries: self.texts.len(),
            peak_rss_mib: status_kib("VmHWM").map(|k| k / 1024.0),
            catalog_apis: self.full.len(),
            hnsw: self.hnsw.hnsw,
            rescore: DenseSettings::default().rescore,
        })
    }

    /// Builds the indexes of a corpus of `size` APIs over fresh random vectors.
    fn indexes(&mut self, size: usize) -> anyhow::Result<Indexes> {
        let synthetic = size > self.full.len();
        let corpus = Arc::new(sized_corpus(&self.full, size)?);
        let t = Instant::now();
        let bm25 = Bm25Index::build(corpus.clone(), Bm25Settings::default());
        let bm25_build = t.elapsed();
        let raw = self.rng.vector(corpus.len() * SPEED_DIMS);
        let t = Instant::now();
        // The exact f32 scan at every size (`auto` would walk a graph from `hnsw_from` on).
        let search = DenseSettings {
            backend: DenseBackend::Exact,
            vectors: VectorFormat::F32,
            ..DenseSettings::default()
        };
        let dense = DenseIndex::from_vectors(corpus.clone(), "random-unit", SPEED_DIMS, raw)?
            .with_search_settings(search);
        let dense_load = t.elapsed();
        let t = Instant::now();
        let int8 = dense.clone().with_search_settings(DenseSettings {
            vectors: VectorFormat::Int8,
            ..search
        });
        int8.warm()?;
        let int8_build = t.elapsed();
        // Hybrid search fuses BM25 with the dense scan as configured (int8 by default).
        let configured = match self.configured_vectors {
            VectorFormat::Int8 => int8.clone(),
            VectorFormat::F32 => dense.clone(),
        };
        let (hnsw, hnsw_build, hnsw_rss) =
            hnsw_index(&dense, self.hnsw, self.max_build, self.progress)?;
        Ok(Indexes {
            corpus,
            synthetic,
            bm25,
            bm25_build,
            dense,
            dense_load,
            int8,
            int8_build,
            configured,
            hnsw,
            hnsw_build,
            hnsw_rss,
        })
    }

    /// Times each method over all queries, one method after the other; checks that the
    /// dense index and the brute-force baseline agree on every query's top 10.
    fn passes(&self, ix: &Indexes) -> anyhow::Result<Passes> {
        let n = self.texts.len();
        let bar = self
            .progress
            .bar(n, format!("{} APIs: queries", ix.corpus.len()));
        let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
        let v = &self.vectors;
        let passes = Passes {
            bm25: timing::time_bm25(&ix.bm25, &texts, 10),
            dense: timing::time_dense(&ix.dense, v, 10)?,
            int8: timing::time_dense(&ix.int8, v, 10)?,
            hnsw: match &ix.hnsw {
                Ok(graph) => Some(timing::time_dense(graph, v, 10)?),
                Err(_) => None,
            },
            brute: timing::time_brute_force(&ix.dense, v, 10),
            hybrid: timing::time_hybrid(&ix.bm25, &ix.configured, self.hybrid, &texts, v, 10)?,
        };
        bar.inc(n as u64);
        bar.finish_and_clear();
        let checksum = passes.bm25.results() + passes.dense.results() + passes.hybrid.results();
        anyhow::ensure!(
            checksum > 0,
            "no results at all: the measurement timed nothing"
        );
        let disagree = passes.brute.disagreements(&passes.dense.top);
        anyhow::ensure!(
            disagree == 0,
            "the dense index and the brute-force baseline ranked {disagree} of {n} queries \
             differently at {} APIs",
            ix.corpus.len()
        );
        Ok(passes)
    }

    /// The size's row and its dense backends' rows.
    fn rows(
        &self,
        ix: &Indexes,
        passes: &Passes,
        docs_per_second: Option<f64>,
    ) -> (SpeedRow, Vec<BackendRow>) {
        let dense = Latency::of(passes.dense.samples.clone());
        let baseline = Latency::of(passes.brute.samples.clone());
        let wanted = (self.texts.len() * 10).max(1) as f64;
        let exact = &passes.dense.top;
        let row = |backend: &'static str, build: Duration, mib: f64, scanned_mib, timed: &Timed| {
            let latency = Latency::of(timed.samples.clone());
            BackendRow {
                apis: ix.corpus.len(),
                synthetic: ix.synthetic,
                backend,
                build_ms: build.as_secs_f64() * 1e3,
                mib,
                scanned_mib,
                rss_growth_mib: None,
                skipped: None,
                speedup: baseline.p50_us / latency.p50_us.max(1e-3),
                latency,
                recall_at_10: timed.found(exact) as f64 / wanted,
            }
        };
        let f32_mib = ix.dense.heap_bytes() as f64 / MIB;
        let matrix_mib = size_of_val(ix.dense.matrix()) as f64 / MIB;
        let int8_mib = ix.int8.heap_bytes() as f64 / MIB;
        let mut backends = vec![
            row(
                "exact f32",
                ix.dense_load,
                f32_mib,
                Some(matrix_mib),
                &passes.dense,
            ),
            row(
                "int8+rescore",
                ix.int8_build,
                int8_mib,
                Some(int8_mib - f32_mib),
                &passes.int8,
            ),
        ];
        backends.push(match (&ix.hnsw, &passes.hnsw) {
            (Ok(graph), Some(timed)) => BackendRow {
                rss_growth_mib: ix.hnsw_rss,
                ..row(
                    "hnsw",
                    ix.hnsw_build,
                    graph.heap_bytes() as f64 / MIB,
                    None,
                    timed,
                )
            },
            _ => skipped_hnsw(ix, why_skipped(&ix.hnsw)),
        });
        let size = SpeedRow {
            apis: ix.corpus.len(),
            synthetic: ix.synthetic,
            bm25_build_ms: ix.bm25_build.as_secs_f64() * 1e3,
            bm25_terms: ix.bm25.vocabulary(),
            bm25_mib: ix.bm25.heap_bytes() as f64 / MIB,
            dense_load_ms: ix.dense_load.as_secs_f64() * 1e3,
            dense_mib: f32_mib,
            dense_embed_s: docs_per_second.map(|rate| ix.corpus.len() as f64 / rate),
            rss_mib: status_kib("VmRSS").map(|k| k / 1024.0),
            bm25: Latency::of(passes.bm25.samples.clone()),
            speedup: baseline.p50_us / dense.p50_us.max(1e-3),
            dense,
            baseline,
            hybrid: Latency::of(passes.hybrid.samples.clone()),
        };
        (size, backends)
    }
}

/// Why the graph has no timings.
fn why_skipped(hnsw: &Result<DenseIndex, String>) -> String {
    match hnsw {
        Err(why) => why.clone(),
        Ok(_) => "not timed".to_owned(),
    }
}

/// The HNSW row of a size whose graph was not built.
fn skipped_hnsw(ix: &Indexes, why: String) -> BackendRow {
    BackendRow {
        apis: ix.corpus.len(),
        synthetic: ix.synthetic,
        backend: "hnsw",
        build_ms: ix.hnsw_build.as_secs_f64() * 1e3,
        mib: 0.0,
        scanned_mib: None,
        rss_growth_mib: None,
        skipped: Some(why),
        latency: Latency::default(),
        recall_at_10: 0.0,
        speedup: 0.0,
    }
}

/// A corpus of `size` APIs: ToolEnv2404's first ones, padded with synthetic APIs (empty
/// docs, 1,000 to a tool) beyond its size.
fn sized_corpus(full: &Corpus, size: usize) -> anyhow::Result<Corpus> {
    if size <= full.len() {
        return Ok(full.prefix(size));
    }
    let mut docs: Vec<CorpusDoc> = full.docs().to_vec();
    for i in full.len()..size {
        let tool = format!("synthetic{}", i / 1_000);
        docs.push(CorpusDoc {
            api: format!("{tool}/api{i}")
                .parse()
                .with_context(|| format!("synthetic API id {tool}/api{i}"))?,
            tool: tool
                .parse()
                .with_context(|| format!("synthetic tool id {tool}"))?,
            category: "synthetic".to_owned(),
            fields: Default::default(),
        });
    }
    Ok(Corpus::from_docs(docs))
}

/// `dense` searched through an HNSW graph built now with a progress bar, its build time and
/// the growth of resident memory meanwhile; `Err(why)` instead when the build, projected from
/// the batches done, would take longer than `max_build` (it is stopped there).
#[allow(clippy::type_complexity)]
fn hnsw_index(
    dense: &DenseIndex,
    settings: DenseSettings,
    max_build: Duration,
    progress: Progress,
) -> anyhow::Result<(Result<DenseIndex, String>, Duration, Option<f64>)> {
    let graph = dense.clone().with_search_settings(settings);
    let rss = status_kib("VmRSS");
    let bar = progress.bar(
        dense.corpus().len(),
        format!("{} APIs: HNSW graph", dense.corpus().len()),
    );
    let t = Instant::now();
    let mut projected = Duration::ZERO;
    let built = graph.warm_with_progress(&mut |done, total| {
        bar.set_position(done as u64);
        // Insertion slows as the graph grows (about log n), so a linear projection is a
        // lower bound.
        projected = t.elapsed().mul_f64(total as f64 / done.max(1) as f64);
        if done < total && projected > max_build {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    bar.finish_and_clear();
    let took = t.elapsed();
    if !built {
        return Ok((
            Err(format!(
                "build stopped: would take at least {:.0}s (> --max-build-secs {})",
                projected.as_secs_f64(),
                max_build.as_secs()
            )),
            took,
            None,
        ));
    }
    let growth = rss
        .zip(status_kib("VmRSS"))
        .map(|(before, after)| (after - before) / 1024.0);
    Ok((Ok(graph), took, growth))
}

/// API docs embedded per second by the local MiniLM, over the first `n` docs of `corpus` with
/// the dense index's text fields, batched as an index build does.
fn doc_embedding_rate(
    rt: &tokio::runtime::Runtime,
    model: &LocalEmbedder,
    corpus: &Corpus,
    n: usize,
) -> anyhow::Result<f64> {
    let settings = DenseSettings::default();
    let texts: Vec<String> = corpus
        .docs()
        .iter()
        .take(n.max(1))
        .map(|d| settings.embedded_text(d))
        .collect();
    let t = Instant::now();
    let vectors = rt.block_on(model.embed(&texts))?;
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(
        vectors.len() == texts.len(),
        "the model returned {} vectors for {} texts",
        vectors.len(),
        texts.len()
    );
    Ok(texts.len() as f64 / secs.max(1e-9))
}

/// The latency of embedding one query at a time, over the first queries.
fn query_embedding_latency(
    rt: &tokio::runtime::Runtime,
    model: &LocalEmbedder,
    texts: &[String],
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<Latency> {
    let mut samples = Vec::new();
    for q in texts.iter().take(QUERY_EMBEDDINGS) {
        let one = [q.clone()];
        let t = Instant::now();
        let v = rt.block_on(model.embed(&one))?;
        samples.push(t.elapsed());
        bar.inc(1);
        anyhow::ensure!(v.len() == 1, "the model returned no vector");
    }
    Ok(Latency::of(samples))
}
