//! `toolsmith search`: the APIs that best fit a query, by BM25, embeddings or both.

use std::process::ExitCode;

use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_retrieve::{Added, Explanation, Hit, Link, ToolHit};

use crate::cli::SearchArgs;
use crate::context::Context;
use crate::{printer, retrieval, table};

/// Runs `toolsmith search`.
pub(super) fn run(ctx: &Context, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let corpus = retrieval::corpus(
        &store,
        &args.docs.selector(),
        retrieval::SourceField::configured(ctx)?,
    )?;
    if corpus.is_empty() {
        anyhow::bail!(
            "the catalog {} has no APIs: import some first",
            ctx.db().display()
        );
    }
    let spec = retrieval::PipelineSpec::new(ctx, args.method.method.map(Into::into))?
        .with_intents(ctx, args.intents.choice())?
        .with_rerank(ctx, args.rerank.choice())?;
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
            let why = if args.explain {
                let apis: Vec<ApiId> = hits.iter().map(|h| h.api.clone()).collect();
                pipeline
                    .retriever()
                    .explain(&args.query, &apis, args.k, &filter)
                    .await?
            } else {
                vec![None; hits.len()]
            };
            print_hits(&hits, &added, &why, args.json.json)
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// One hit of `search --json`: the hit, for a producer added by dependency expansion which
/// result's parameter it feeds, and with `--explain` the parts of its score.
#[derive(Serialize)]
struct HitRow<'a> {
    #[serde(flatten)]
    hit: &'a Hit,
    #[serde(skip_serializing_if = "Option::is_none")]
    added_for: Option<AddedFor<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a Explanation>,
}

#[derive(Serialize)]
struct AddedFor<'a> {
    api: String,
    param: &'a str,
    link: Link,
}

/// Prints the hits (`explanations` in the same order, `None` when not asked for) as JSON, as
/// a table, or with `--explain` each hit with its explanation indented under it.
fn print_hits(
    hits: &[Hit],
    added: &[Added],
    explanations: &[Option<Explanation>],
    json: bool,
) -> anyhow::Result<()> {
    let why = |hit: &Hit| added.iter().find(|a| a.api == hit.api);
    let explained = |i: usize| explanations.get(i).and_then(Option::as_ref);
    if json {
        let rows: Vec<HitRow<'_>> = hits
            .iter()
            .enumerate()
            .map(|(i, hit)| HitRow {
                hit,
                added_for: why(hit).map(|a| AddedFor {
                    api: a.feeds.to_string(),
                    param: &a.param,
                    link: a.link,
                }),
                explanation: explained(i),
            })
            .collect();
        return printer::json(&rows);
    }
    if hits.is_empty() {
        printer::note("no API matches");
        return Ok(());
    }
    if explanations.iter().any(Option::is_some) {
        return print_explained(hits, |hit| why(hit).is_some(), explained);
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

/// `search --explain` as text: each hit's line, its explanation indented under it.
fn print_explained<'a>(
    hits: &[Hit],
    is_added: impl Fn(&Hit) -> bool,
    explained: impl Fn(usize) -> Option<&'a Explanation>,
) -> anyhow::Result<()> {
    let mut text = String::new();
    for (i, hit) in hits.iter().enumerate() {
        let rank = if is_added(hit) {
            "+".to_owned()
        } else {
            (i + 1).to_string()
        };
        text.push_str(&format!(
            "{rank:>3}  {:.4}  {}  {}\n",
            hit.score,
            hit.api,
            table::first_line(&hit.text, 80)
        ));
        match explained(i) {
            Some(why) => {
                for line in why.to_string().lines() {
                    text.push_str(&format!("       {line}\n"));
                }
            }
            None => text.push_str("       (no explanation)\n"),
        }
    }
    printer::line(text.trim_end())
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
