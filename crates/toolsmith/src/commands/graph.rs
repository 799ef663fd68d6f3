//! `toolsmith graph build|show|export|stats`: ToolExpNet's tool graph of the catalog, kept in
//! the catalog database (`toolsmith-graph`).

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_graph::{
    BuildInfo, Edge, EdgeKey, EdgeKind, Evidence, Experience, GraphSettings, GraphStats,
    GraphStore, Node, build_graph,
};
use toolsmith_llm::CacheMode;
use toolsmith_retrieve::{Corpus, DenseIndex};

use crate::cli::{GraphBuildArgs, GraphExportArgs, GraphFormat, GraphShowArgs};
use crate::context::Context;
use crate::{printer, retrieval, table};

fn open_graph(ctx: &Context) -> anyhow::Result<GraphStore> {
    let db = ctx.db();
    GraphStore::open(db).with_context(|| format!("opening the tool graph in {}", db.display()))
}

/// Runs `graph build`.
pub(super) fn build(ctx: &Context, args: &GraphBuildArgs) -> anyhow::Result<ExitCode> {
    let config = ctx.config()?;
    let settings = GraphSettings {
        phi: args.phi.unwrap_or(config.graph.phi),
        ..config.graph
    };
    settings.validate()?;
    let store = ctx.store()?;
    let catalog = store
        .catalog(&args.docs.selector(), &args.scope.scope())
        .context("reading the catalog")?;
    if catalog.api_count() == 0 {
        bail!(
            "the catalog {} has no APIs: import some first",
            ctx.db().display()
        );
    }
    let mut embedder_id = None;
    let vectors = if args.no_similarity {
        None
    } else {
        // The same texts and embedder as dense retrieval: the cached vectors are reused.
        let corpus = Arc::new(Corpus::from_catalog(&catalog));
        let embedder = retrieval::embedder(ctx, CacheMode::ReadWrite)?;
        embedder_id = Some(embedder.model_id().to_owned());
        let rt = ctx.runtime()?;
        let spinner = ctx
            .progress()
            .spinner(format!("embedding the docs of {} APIs", corpus.len()));
        let index = rt.block_on(DenseIndex::build(
            Arc::clone(&corpus),
            embedder.as_ref(),
            config.retrieve.dense,
        ));
        spinner.finish_and_clear();
        let index = index.context("embedding the API docs")?;
        let vectors: Vec<(ApiId, Vec<f32>)> = corpus
            .docs()
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((d.api.clone(), index.vector(i)?.to_vec())))
            .collect();
        Some(vectors)
    };
    let graph = build_graph(&catalog, vectors.as_deref(), &settings);
    let info = BuildInfo {
        phi: vectors.as_ref().map(|_| settings.phi),
        embedder: embedder_id,
        docs: args
            .docs
            .doc_version
            .as_ref()
            .map_or_else(|| "active".to_owned(), ToString::to_string),
        built_at_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
    };
    open_graph(ctx)?.replace(&graph, &info)?;
    print_stats(&graph.stats(), Some(&info), args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `graph stats`.
pub(super) fn stats(ctx: &Context, json: bool) -> anyhow::Result<ExitCode> {
    let store = open_graph(ctx)?;
    let Some(info) = store.build_info()? else {
        bail!(
            "no tool graph in {}: run `toolsmith graph build` first",
            ctx.db().display()
        );
    };
    print_stats(&store.load()?.stats(), Some(&info), json)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct StatsReport<'a> {
    #[serde(flatten)]
    stats: &'a GraphStats,
    build: Option<&'a BuildInfo>,
}

fn print_stats(stats: &GraphStats, info: Option<&BuildInfo>, json: bool) -> anyhow::Result<()> {
    if json {
        return printer::json(&StatsReport { stats, build: info });
    }
    let mut out = table::new([
        "nodes",
        "edges",
        "similarity",
        "dependency",
        "mean degree",
        "isolated",
    ]);
    out.add_row(vec![
        stats.nodes.to_string(),
        stats.edges.to_string(),
        stats.similarity.to_string(),
        stats.dependency.to_string(),
        format!("{:.2}", stats.mean_degree),
        stats.isolated.to_string(),
    ]);
    table::align_right(&mut out, 0..6);
    table::print(&out)?;
    if let Some(info) = info {
        printer::line(format!(
            "built from the {} docs{}",
            info.docs,
            match (&info.phi, &info.embedder) {
                (Some(phi), Some(model)) => format!(", similarity at cosine >= {phi} ({model})"),
                _ => ", dependency edges only".to_owned(),
            }
        ))?;
    }
    Ok(())
}

/// `graph show --json`.
#[derive(Serialize)]
struct NodeReport<'a> {
    node: &'a Node,
    edges: Vec<&'a Edge>,
    experiences: Vec<(EdgeKey, Experience)>,
}

/// Runs `graph show`.
pub(super) fn show(ctx: &Context, args: &GraphShowArgs) -> anyhow::Result<ExitCode> {
    let api = resolve(ctx, &args.api)?;
    let store = open_graph(ctx)?;
    if store.build_info()?.is_none() {
        bail!(
            "no tool graph in {}: run `toolsmith graph build` first",
            ctx.db().display()
        );
    }
    let graph = store.load()?;
    let Some(node) = graph.node(&api) else {
        bail!("{api} is not in the tool graph (built on another part of the catalog?)");
    };
    let report = NodeReport {
        node,
        edges: graph.edges_of(&api).collect(),
        experiences: store.experiences_of(&api)?,
    };
    if args.json.json {
        printer::json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "{api}\n  insight: {}",
        table::first_line(&node.insight, 200)
    ))?;
    let mut out = table::new(["kind", "edge", "weight", "strength", "evidence"]);
    for e in &report.edges {
        let arrow = match e.kind {
            EdgeKind::Similarity => {
                let other = if e.from == api { &e.to } else { &e.from };
                format!("~ {other}")
            }
            EdgeKind::Dependency if e.from == api => format!("-> {}", e.to),
            EdgeKind::Dependency => format!("<- {}", e.from),
        };
        let evidence = match &e.evidence {
            Evidence::Similarity { cosine } => format!("cosine {cosine:.3}"),
            Evidence::Dependency { feeds } => feeds
                .iter()
                .map(|f| format!("{} -> {} ({:?})", f.field, f.param, f.rule))
                .collect::<Vec<_>>()
                .join("; "),
        };
        out.add_row(vec![
            e.kind.to_string(),
            arrow,
            format!("{:.2}", e.weight),
            format!("{:.2}", e.strength),
            table::first_line(&evidence, 120),
        ]);
    }
    table::align_right(&mut out, [2, 3]);
    table::print(&out)?;
    printer::line(format!("{} experience(s)", report.experiences.len()))?;
    for (key, x) in &report.experiences {
        printer::line(format!(
            "  [{} {} -> {}] iteration {}: {} {}",
            key.kind,
            key.from,
            key.to,
            x.iteration,
            if x.correct { "right" } else { "wrong" },
            table::first_line(&x.query, 100)
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// An API id, or a name the catalog resolves to exactly one API.
fn resolve(ctx: &Context, name: &str) -> anyhow::Result<ApiId> {
    let store = ctx.store()?;
    let found = store.resolve_api(name)?;
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => match name.parse::<ApiId>() {
            Ok(id) => Ok(id),
            Err(_) => bail!("no API `{name}` in the catalog"),
        },
        many => bail!(
            "`{name}` names {} APIs ({}); give an id",
            many.len(),
            many.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Runs `graph export`.
pub(super) fn export(ctx: &Context, args: &GraphExportArgs) -> anyhow::Result<ExitCode> {
    let store = open_graph(ctx)?;
    if store.build_info()?.is_none() {
        bail!(
            "no tool graph in {}: run `toolsmith graph build` first",
            ctx.db().display()
        );
    }
    let graph = store.load()?;
    let text = match args.format {
        GraphFormat::Json => serde_json::to_string_pretty(&graph)? + "\n",
        GraphFormat::Dot => graph.to_dot(),
    };
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            printer::note(format!(
                "wrote {} nodes and {} edges to {}",
                graph.nodes.len(),
                graph.edges.len(),
                path.display()
            ));
        }
        None => printer::line(text.trim_end())?,
    }
    Ok(ExitCode::SUCCESS)
}
