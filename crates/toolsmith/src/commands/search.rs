//! `toolsmith search`: the APIs that best fit a query, by BM25, embeddings or both.

use std::process::ExitCode;

use serde::Serialize;
use toolsmith_retrieve::{Added, Hit, Link, ToolHit};

use crate::cli::SearchArgs;
use crate::context::Context;
use crate::{printer, retrieval, table};

/// Runs `toolsmith search`.
pub(super) fn run(ctx: &Context, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let corpus = retrieval::corpus(&store, &args.docs.selector())?;
    if corpus.is_empty() {
        anyhow::bail!(
            "the catalog {} has no APIs: import some first",
            ctx.db().display()
        );
    }
    let spec = retrieval::PipelineSpec::new(ctx, args.method.method.map(Into::into))?;
    let spec = if args.no_expand {
        spec.without_expansion()
    } else {
        spec
    };
    let filter = args.scope.filter();
    let rt = ctx.runtime()?;
    rt.block_on(async {
        let pipeline = retrieval::Pipeline::build(ctx, corpus, spec).await?;
        if args.tools {
            let hits = pipeline
                .retriever()
                .search_tools(&args.query, args.k, &filter)
                .await?;
            print_tools(&hits, args.json.json)
        } else {
            let (hits, added) = pipeline.offer(&args.query, args.k, &filter).await?;
            print_hits(&hits, &added, args.json.json)
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// One hit of `search --json`: the hit, and for a producer added by dependency expansion,
/// which result's parameter it feeds.
#[derive(Serialize)]
struct HitRow<'a> {
    #[serde(flatten)]
    hit: &'a Hit,
    #[serde(skip_serializing_if = "Option::is_none")]
    added_for: Option<AddedFor<'a>>,
}

#[derive(Serialize)]
struct AddedFor<'a> {
    api: String,
    param: &'a str,
    link: Link,
}

fn print_hits(hits: &[Hit], added: &[Added], json: bool) -> anyhow::Result<()> {
    let why = |hit: &Hit| added.iter().find(|a| a.api == hit.api);
    if json {
        let rows: Vec<HitRow<'_>> = hits
            .iter()
            .map(|hit| HitRow {
                hit,
                added_for: why(hit).map(|a| AddedFor {
                    api: a.feeds.to_string(),
                    param: &a.param,
                    link: a.link,
                }),
            })
            .collect();
        return printer::json(&rows);
    }
    if hits.is_empty() {
        printer::note("no API matches");
        return Ok(());
    }
    let mut out = table::new(["#", "score", "API", "doc"]);
    for (i, hit) in hits.iter().enumerate() {
        let (rank, doc) = match why(hit) {
            Some(a) => (
                "+".to_owned(),
                match a.link {
                    Link::Producer => {
                        format!("(produces {} for {}) {}", a.param, a.feeds, hit.text)
                    }
                    Link::Consumer => format!("(takes {} from {}) {}", a.param, a.feeds, hit.text),
                    Link::Rank => hit.text.clone(),
                },
            ),
            None => ((i + 1).to_string(), hit.text.clone()),
        };
        out.add_row(vec![
            rank,
            format!("{:.4}", hit.score),
            hit.api.to_string(),
            table::first_line(&doc, 100),
        ]);
    }
    table::align_right(&mut out, [0, 1]);
    table::print(&out)
}

/// One tool in `search --tools --json`.
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
    if rows.is_empty() {
        printer::note("no tool matches");
        return Ok(());
    }
    let mut out = table::new(["#", "score", "tool", "APIs"]);
    for (i, row) in rows.iter().enumerate() {
        out.add_row(vec![
            (i + 1).to_string(),
            format!("{:.4}", row.score),
            row.tool.to_owned(),
            row.apis.join(", "),
        ]);
    }
    table::align_right(&mut out, [0, 1]);
    table::print(&out)
}
