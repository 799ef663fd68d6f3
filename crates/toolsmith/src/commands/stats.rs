//! `toolsmith stats`: counts and token statistics of the docs, per doc version.

use std::fmt;
use std::process::ExitCode;

use serde::Serialize;
use toolsmith_catalog::{Catalog, DocLabel, DocSelector, Encoding, Scope, Store, TokenStats};

use crate::cli::StatsArgs;
use crate::context::Context;
use crate::{printer, table};

/// `toolsmith stats`' report.
#[derive(Debug, Serialize)]
struct Report {
    tools: usize,
    apis: usize,
    categories: usize,
    doc_labels: Vec<(String, usize)>,
    tokens: Vec<VersionTokens>,
}

#[derive(Debug, Serialize)]
struct VersionTokens {
    /// `active` or a label.
    doc_version: String,
    /// APIs whose shown doc carries this label (the rest fall back to their active doc).
    apis_with_label: usize,
    cl100k_base: Summary,
    o200k_base: Summary,
    /// How much smaller (in %) the mean cl100k tokens per API are than with the `original`
    /// docs (negative: larger); absent without `original` docs.
    reduction_vs_original_pct: Option<f64>,
}

#[derive(Debug, Serialize)]
struct Summary {
    total: usize,
    mean_per_tool: f64,
    mean_per_api: f64,
    max_per_api: usize,
    spec_mean_per_api: f64,
}

impl From<&TokenStats> for Summary {
    fn from(s: &TokenStats) -> Self {
        Self {
            total: s.total,
            mean_per_tool: s.mean_per_tool,
            mean_per_api: s.mean_per_api,
            max_per_api: s.max_per_api,
            spec_mean_per_api: s.spec_mean_per_api,
        }
    }
}

/// Runs `toolsmith stats`.
pub(super) fn run(ctx: &Context, args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    // Tokenizing every doc version twice takes seconds on a large catalog: say so.
    let spinner = ctx
        .progress()
        .spinner("counting the tokens of every doc version (cl100k_base, o200k_base)");
    let report = Job::build(&store, args)?.run()?;
    spinner.finish_and_clear();
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The catalog's active docs, the doc versions to count, and the scope they are read in.
struct Job<'a> {
    store: &'a Store,
    scope: Scope,
    active: Catalog,
    /// Every doc label with how many tools and APIs carry it.
    labels: Vec<(DocLabel, usize)>,
    /// The versions counted: a name (`active` or a label) and what it selects.
    selectors: Vec<(String, DocSelector)>,
}

impl<'a> Job<'a> {
    fn build(store: &'a Store, args: &StatsArgs) -> anyhow::Result<Self> {
        let scope = args.scope.scope();
        let active = store.catalog(&DocSelector::Active, &scope)?;
        let labels = store.doc_labels()?;
        let mut selectors: Vec<(String, DocSelector)> = Vec::new();
        match &args.docs.doc_version {
            Some(label) => selectors.push((label.to_string(), DocSelector::Label(label.clone()))),
            None => {
                selectors.push(("active".to_owned(), DocSelector::Active));
                selectors.extend(
                    labels
                        .iter()
                        .map(|(l, _)| (l.to_string(), DocSelector::Label(l.clone()))),
                );
            }
        }
        Ok(Self {
            store,
            scope,
            active,
            labels,
            selectors,
        })
    }

    fn run(self) -> anyhow::Result<Report> {
        let mut tokens = Vec::new();
        for (name, selector) in &self.selectors {
            tokens.push(self.version_tokens(name, selector)?);
        }
        if let Some(base) = self.original_mean(&tokens)?.filter(|b| *b > 0.0) {
            for t in &mut tokens {
                t.reduction_vs_original_pct =
                    Some((1.0 - t.cl100k_base.mean_per_api / base) * 100.0);
            }
        }
        let mut categories: Vec<&str> = self
            .active
            .tools
            .iter()
            .map(|t| t.tool.category.as_str())
            .collect();
        categories.sort_unstable();
        categories.dedup();
        Ok(Report {
            tools: self.active.tools.len(),
            apis: self.active.api_count(),
            categories: categories.len(),
            doc_labels: self
                .labels
                .iter()
                .map(|(l, n)| (l.to_string(), *n))
                .collect(),
            tokens,
        })
    }

    /// One doc version's token counts.
    fn version_tokens(&self, name: &str, selector: &DocSelector) -> anyhow::Result<VersionTokens> {
        let catalog = if *selector == DocSelector::Active {
            self.active.clone()
        } else {
            self.store.catalog(selector, &self.scope)?
        };
        let apis_with_label = catalog
            .apis()
            .filter(|(_, a)| {
                name == "active" || a.doc.as_ref().is_some_and(|d| d.label.as_str() == name)
            })
            .count();
        let cl = TokenStats::compute(&catalog, Encoding::Cl100kBase)?;
        let o2 = TokenStats::compute(&catalog, Encoding::O200kBase)?;
        Ok(VersionTokens {
            doc_version: name.to_owned(),
            apis_with_label,
            cl100k_base: (&cl).into(),
            o200k_base: (&o2).into(),
            reduction_vs_original_pct: None,
        })
    }

    /// The mean cl100k tokens per API with the `original` docs, when there are any.
    fn original_mean(&self, tokens: &[VersionTokens]) -> anyhow::Result<Option<f64>> {
        Ok(
            match tokens.iter().find(|t| t.doc_version == DocLabel::ORIGINAL) {
                Some(t) => Some(t.cl100k_base.mean_per_api),
                None if self
                    .labels
                    .iter()
                    .any(|(l, _)| l.as_str() == DocLabel::ORIGINAL) =>
                {
                    let original = DocSelector::Label(DocLabel::original());
                    let catalog = self.store.catalog(&original, &self.scope)?;
                    Some(TokenStats::compute(&catalog, Encoding::Cl100kBase)?.mean_per_api)
                }
                None => None,
            },
        )
    }
}

impl Report {
    fn tokens_table(&self) -> String {
        let mut out = table::new([
            "doc version",
            "APIs",
            "cl100k",
            "per tool",
            "per API",
            "max",
            "spec/API",
            "o200k",
            "per tool",
            "per API",
            "cut vs original",
        ]);
        for t in &self.tokens {
            let (cl, o2) = (&t.cl100k_base, &t.o200k_base);
            out.add_row(vec![
                t.doc_version.clone(),
                t.apis_with_label.to_string(),
                cl.total.to_string(),
                format!("{:.1}", cl.mean_per_tool),
                format!("{:.1}", cl.mean_per_api),
                cl.max_per_api.to_string(),
                format!("{:.1}", cl.spec_mean_per_api),
                o2.total.to_string(),
                format!("{:.1}", o2.mean_per_tool),
                format!("{:.1}", o2.mean_per_api),
                t.reduction_vs_original_pct
                    .map_or_else(String::new, |p| format!("{p:.1}%")),
            ]);
        }
        table::align_right(&mut out, 1..11);
        out.trim_fmt()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let labels: Vec<String> = self
            .doc_labels
            .iter()
            .map(|(l, n)| format!("{l} ({n})"))
            .collect();
        writeln!(
            f,
            "{} tools, {} APIs, {} categories",
            self.tools, self.apis, self.categories
        )?;
        writeln!(
            f,
            "doc labels (tools and APIs carrying each): {}",
            labels.join(", ")
        )?;
        writeln!(f)?;
        writeln!(
            f,
            "tokens of the docs as shown to a model (tool description + each API's name, call, description, parameters, examples);"
        )?;
        writeln!(
            f,
            "spec/API: tokens of each API's full spec record (parameters and response schemas as JSON), the raw docs before any rewriting"
        )?;
        f.write_str(&self.tokens_table())
    }
}
