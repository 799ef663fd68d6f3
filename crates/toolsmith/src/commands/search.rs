//! `toolsmith search`: the APIs that best fit a query, by BM25, embeddings or both.

use std::process::ExitCode;

use serde::Serialize;
use toolsmith_retrieve::{Hit, ToolHit};

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
    let method = ctx
        .config()?
        .retrieve
        .method(args.method.method.map(Into::into));
    let filter = args.scope.filter();
    let rt = ctx.runtime()?;
    rt.block_on(async {
        let retriever = retrieval::retriever(ctx, method, corpus).await?;
        if args.tools {
            let hits = retriever.search_tools(&args.query, args.k, &filter).await?;
            print_tools(&hits, args.json.json)
        } else {
            let hits = retriever.search(&args.query, args.k, &filter).await?;
            print_hits(&hits, args.json.json)
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print_hits(hits: &[Hit], json: bool) -> anyhow::Result<()> {
    if json {
        return printer::json(hits);
    }
    if hits.is_empty() {
        printer::note("no API matches");
        return Ok(());
    }
    let mut out = table::new(["#", "score", "API", "doc"]);
    for (i, hit) in hits.iter().enumerate() {
        out.add_row(vec![
            (i + 1).to_string(),
            format!("{:.4}", hit.score),
            hit.api.to_string(),
            table::first_line(&hit.text, 100),
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
