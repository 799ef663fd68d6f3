//! `toolsmith graph build|show|export|stats`: ToolExpNet's tool graph of the catalog, kept in
//! the catalog database (`toolsmith-graph`).

use std::fmt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_graph::{
    BuildInfo, Edge, EdgeKey, EdgeKind, Evidence, Experience, GoldPairs, GraphSettings, GraphStats,
    GraphStore, Node, build_graph,
};
use toolsmith_llm::CacheMode;
use toolsmith_retrieve::{Corpus, DenseIndex};

use crate::cli::{GraphBuildArgs, GraphExportArgs, GraphFormat, GraphShowArgs, GraphStatsArgs};
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
        // The same texts and embedder as dense retrieval: the cached vectors are reused. The
        // edges compare the docs' own vectors only, so the corpus needs no source
        // descriptions (they would be embedded as extra view rows the edges never read).
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
    let stats = graph.stats();
    printer::report(
        &StatsReport {
            stats: &stats,
            build: Some(&info),
        },
        args.json.json,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `graph stats`.
pub(super) fn stats(ctx: &Context, args: &GraphStatsArgs) -> anyhow::Result<ExitCode> {
    let store = open_graph(ctx)?;
    let Some(info) = store.build_info()? else {
        bail!(
            "no tool graph in {}: run `toolsmith graph build` first",
            ctx.db().display()
        );
    };
    let graph = store.load()?;
    let stats = graph.stats();
    let Some(file) = &args.gold else {
        let report = StatsReport {
            stats: &stats,
            build: Some(&info),
        };
        printer::report(&report, args.json.json)?;
        return Ok(ExitCode::SUCCESS);
    };
    let (paths, unknown) = gold_paths(ctx, file)?;
    let report = GoldReport {
        stats: &stats,
        build: &info,
        gold: graph.gold_pairs(&paths),
        unknown_names: unknown,
        file,
    };
    printer::report(&report, args.json.json)?;
    if !args.json.json && !report.unknown_names.is_empty() {
        printer::note(format!(
            "{} gold names match no single API and were left out: {}",
            report.unknown_names.len(),
            report.unknown_names.join(", ")
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `graph stats --gold`: the graph's figures and how well its dependency edges match the
/// gold paths.
#[derive(Serialize)]
struct GoldReport<'a> {
    stats: &'a GraphStats,
    build: &'a BuildInfo,
    gold: GoldPairs,
    unknown_names: Vec<String>,
    /// The gold file (named in the text).
    #[serde(skip)]
    file: &'a Path,
}

impl fmt::Display for GoldReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = StatsReport {
            stats: self.stats,
            build: Some(self.build),
        };
        writeln!(f, "{stats}")?;
        let gold = &self.gold;
        let mut out = table::new(["against", "of", "dependency edges", "share"]);
        let pct = |x: f64| format!("{:.1}%", 100.0 * x);
        out.add_row(vec![
            "consecutive gold pairs (recall)".to_owned(),
            gold.pairs.to_string(),
            gold.pairs_linked.to_string(),
            pct(gold.recall),
        ]);
        out.add_row(vec![
            "edges on a consecutive pair (precision)".to_owned(),
            gold.edges.to_string(),
            gold.edges_consecutive.to_string(),
            pct(gold.precision_consecutive),
        ]);
        out.add_row(vec![
            "edges on an ordered pair of one path".to_owned(),
            gold.edges.to_string(),
            gold.edges_ordered.to_string(),
            pct(gold.precision_ordered),
        ]);
        table::align_right(&mut out, 1..4);
        writeln!(f, "{}", out.trim_fmt())?;
        write!(
            f,
            "{} gold paths of {}; {} pairs linked only the other way (B -> A)",
            gold.paths,
            self.file.display(),
            gold.pairs_reversed
        )
    }
}

/// The gold tool paths of a query file (RestBench: each item's `solution`, a list of API names
/// such as `GET /search/movie`), each name resolved as `graph show` resolves one; names that
/// match no single API are left out of their path and returned (each once).
fn gold_paths(ctx: &Context, file: &Path) -> anyhow::Result<(Vec<Vec<ApiId>>, Vec<String>)> {
    let raw = std::fs::read_to_string(file)
        .with_context(|| format!("reading the gold file {}", file.display()))?;
    let items: Vec<serde_json::Value> = serde_json::from_str(&raw).with_context(|| {
        format!(
            "{}: expected a JSON array of queries with gold paths",
            file.display()
        )
    })?;
    let store = ctx.store()?;
    let mut unknown: Vec<String> = Vec::new();
    let mut paths = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(names) = item.get("solution").and_then(serde_json::Value::as_array) else {
            bail!(
                "{}: item {i} has no `solution` list of API names",
                file.display()
            );
        };
        let mut path = Vec::with_capacity(names.len());
        for name in names {
            let Some(name) = name.as_str().map(str::trim) else {
                bail!(
                    "{}: item {i}: a `solution` entry is not a string",
                    file.display()
                );
            };
            match store.resolve_api(name)?.as_slice() {
                [one] => path.push(one.clone()),
                _ => {
                    if !unknown.iter().any(|u| u == name) {
                        unknown.push(name.to_owned());
                    }
                }
            }
        }
        paths.push(path);
    }
    Ok((paths, unknown))
}

/// `graph build` and `graph stats`: the graph's figures and how it was built.
#[derive(Serialize)]
struct StatsReport<'a> {
    #[serde(flatten)]
    stats: &'a GraphStats,
    build: Option<&'a BuildInfo>,
}

impl fmt::Display for StatsReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = self.stats;
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
        f.write_str(&out.trim_fmt())?;
        if let Some(info) = self.build {
            write!(
                f,
                "\nbuilt from the {} docs{}",
                info.docs,
                match (&info.phi, &info.embedder) {
                    (Some(phi), Some(model)) =>
                        format!(", similarity at cosine >= {phi} ({model})"),
                    _ => ", dependency edges only".to_owned(),
                }
            )?;
        }
        Ok(())
    }
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
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

impl NodeReport<'_> {
    fn edges_table(&self) -> String {
        let api = &self.node.api;
        let mut out = table::new(["kind", "edge", "weight", "strength", "evidence"]);
        for e in &self.edges {
            let arrow = match e.kind {
                EdgeKind::Similarity => {
                    let other = if e.from == *api { &e.to } else { &e.from };
                    format!("~ {other}")
                }
                EdgeKind::Dependency if e.from == *api => format!("-> {}", e.to),
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
        out.trim_fmt()
    }
}

impl fmt::Display for NodeReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}\n  insight: {}",
            self.node.api,
            table::first_line(&self.node.insight, 200)
        )?;
        writeln!(f, "{}", self.edges_table())?;
        write!(f, "{} experience(s)", self.experiences.len())?;
        for (key, x) in &self.experiences {
            write!(
                f,
                "\n  [{} {} -> {}] iteration {}: {} {}",
                key.kind,
                key.from,
                key.to,
                x.iteration,
                if x.correct { "right" } else { "wrong" },
                table::first_line(&x.query, 100)
            )?;
        }
        Ok(())
    }
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
