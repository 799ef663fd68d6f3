//! `toolsmith search`: the APIs that best fit a query, by BM25, embeddings or both. Also the
//! helpers `index` and `bench` share: the runtime, the embedder, the corpus.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;
use toolsmith_catalog::{DocLabel, DocSelector, Scope, Store, ToolId};
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder, LocalEmbedder, OpenAiEmbedder};
use toolsmith_retrieve::{Corpus, Filter, Hit, Method, ToolHit, build_retriever};

use crate::cli::Global;
use crate::commands::{open_store, selector};
use crate::printer;
use crate::settings::{EmbedderKind, RetrieveConfig, llm_settings, retrieve_config};

/// Find the APIs that fit a query.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// What the user wants to do.
    pub query: String,
    /// How many results.
    #[arg(short = 'k', long, default_value_t = 10)]
    pub k: usize,
    /// bm25, dense or hybrid. Dense and hybrid embed every API not yet embedded (run
    /// `toolsmith index` first on a large catalog).
    /// By default `[retrieve] method` of toolsmith.toml, else hybrid.
    #[arg(long)]
    pub method: Option<Method>,
    /// Search the docs of this label instead of the active ones.
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this tool (its id).
    #[arg(long)]
    pub tool: Option<ToolId>,
    /// Rank tools (each by its best API) instead of APIs.
    #[arg(long)]
    pub tools: bool,
    /// Print JSON (an array of hits).
    #[arg(long)]
    pub json: bool,
}

/// Runs `toolsmith search`.
pub fn run(global: &Global, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let corpus = corpus(&store, &selector(args.doc_version.as_ref()))?;
    if corpus.is_empty() {
        anyhow::bail!(
            "the catalog {} has no APIs: import some first",
            global.db.display()
        );
    }
    let config = retrieve_config()?;
    let method = config.method(args.method);
    let embedder = if method.embeds() {
        Some(embedder(&global.db, &config, CacheMode::ReadWrite)?)
    } else {
        None
    };
    let filter = Filter {
        category: args.category.clone(),
        tool: args.tool.clone(),
    };
    let rt = runtime()?;
    rt.block_on(async {
        let retriever = build_retriever(method, corpus, embedder, &config.settings()).await?;
        if args.tools {
            let hits = retriever.search_tools(&args.query, args.k, &filter).await?;
            print_tools(&hits, args.json)
        } else {
            let hits = retriever.search(&args.query, args.k, &filter).await?;
            print_hits(&hits, args.json)
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print_hits(hits: &[Hit], json: bool) -> anyhow::Result<()> {
    if json {
        return printer::json(hits);
    }
    for (i, hit) in hits.iter().enumerate() {
        printer::line(format!(
            "{:>2}. {:>8.4}  {:<48} {}",
            i + 1,
            hit.score,
            hit.api.to_string(),
            hit.text
        ));
    }
    if hits.is_empty() {
        printer::note("no API matches");
    }
    Ok(())
}

#[derive(Serialize)]
struct ToolRow<'a> {
    tool: &'a str,
    score: f32,
    apis: Vec<String>,
}

fn print_tools(hits: &[ToolHit], json: bool) -> anyhow::Result<()> {
    let rows: Vec<ToolRow<'_>> = hits
        .iter()
        .map(|h| ToolRow {
            tool: h.tool.as_str(),
            score: h.score,
            apis: h.apis.iter().map(ToString::to_string).collect(),
        })
        .collect();
    if json {
        return printer::json(&rows);
    }
    for (i, row) in rows.iter().enumerate() {
        printer::line(format!(
            "{:>2}. {:>8.4}  {:<32} {}",
            i + 1,
            row.score,
            row.tool,
            row.apis.join(", ")
        ));
    }
    Ok(())
}

/// A runtime for the async parts of a command (embedding, the cache's blocking tasks).
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// The configured embedder (the local MiniLM, or the `[llm]` endpoint's embedding model), its
/// vectors cached in the catalog database `db`.
pub(crate) fn embedder(
    db: &Path,
    config: &RetrieveConfig,
    mode: CacheMode,
) -> anyhow::Result<Arc<dyn Embedder>> {
    let cache = CacheDb::open(db)
        .with_context(|| format!("opening the embedding cache in {}", db.display()))?;
    Ok(match config.embedder {
        EmbedderKind::Local => {
            let local =
                LocalEmbedder::load_default().context("loading the local embedding model")?;
            Arc::new(CachedEmbedder::new(local, cache, mode))
        }
        EmbedderKind::Http => {
            let settings = llm_settings(None)?;
            let remote = OpenAiEmbedder::new(&settings, config.embedding_dimensions)
                .with_context(|| format!("the embedding endpoint {}", settings.base_url))?;
            Arc::new(CachedEmbedder::new(remote, cache, mode))
        }
    })
}

/// The retrieval corpus of a catalog view.
pub(crate) fn corpus(store: &Store, selector: &DocSelector) -> anyhow::Result<Arc<Corpus>> {
    let catalog = store
        .catalog(selector, &Scope::default())
        .context("reading the catalog")?;
    Ok(Arc::new(Corpus::from_catalog(&catalog)))
}
