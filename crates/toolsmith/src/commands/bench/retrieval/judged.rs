//! `bench retrieval --judge-offer`: each query's offer at each `--coverage-k` cut-off read by
//! the judge model ([`OfferJudge`], role `judge`), set beside the strict count. The strict
//! count wants the gold APIs themselves; the judge accepts any offered API that serves a need,
//! so the two disagree where the catalog holds interchangeable APIs. Reported per cut-off:
//! both coverages, the 2x2 counts, the unjudged offers, the judge's calls and tokens, and on
//! request the strict misses the judge found covered, with what it named instead.

use std::fmt;
use std::sync::Arc;

use anyhow::Context as _;
use futures::StreamExt as _;
use indicatif::ProgressBar;
use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_eval::{JudgeUsage, JudgedNeed, OfferJudge, OfferVerdict};
use toolsmith_llm::{CacheMode, Role};
use toolsmith_retrieve::Corpus;

use crate::context::Context;
use crate::table;

/// One query's offer at one cut-off, to be judged.
pub(super) struct Case {
    pub(super) query: String,
    pub(super) k: usize,
    pub(super) offered: Vec<ApiId>,
    pub(super) gold: Vec<ApiId>,
}

impl Case {
    /// The gold APIs the offer lacks (none: the strict count covers it).
    fn missing(&self) -> Vec<ApiId> {
        self.gold
            .iter()
            .filter(|g| !self.offered.contains(g))
            .cloned()
            .collect()
    }
}

/// The judge over `corpus`'s summaries, asking the configured model under the role `judge`
/// through the response cache, sampled as `[judge]` says.
pub(super) fn judge(ctx: &Context, corpus: Arc<Corpus>) -> anyhow::Result<(OfferJudge, String)> {
    let config = ctx.config()?;
    let chat = crate::llm::cached_chat(ctx, None, CacheMode::ReadWrite)
        .context("the model that judges offers (--judge-offer, [llm] role_models.judge)")?;
    let model = config
        .llm_settings(None)
        .model_for(&Role::new(Role::JUDGE))
        .to_owned();
    let judge = OfferJudge::new(Arc::new(chat), config.judge.llm(), corpus);
    Ok((judge, model))
}

/// Every case's verdict, in order, `in_flight` asked at a time. Cases that show the judge the
/// same request and the same offer (a query whose offer stops growing before the larger
/// cut-off) are asked once, so the count of calls does not hang on which of them the cache
/// saw first.
pub(super) async fn judge_all(
    judge: &OfferJudge,
    cases: &[Case],
    in_flight: usize,
    bar: &ProgressBar,
) -> anyhow::Result<Vec<OfferVerdict>> {
    let mut distinct: Vec<&Case> = Vec::new();
    let slots: Vec<usize> = cases
        .iter()
        .map(|case| {
            distinct
                .iter()
                .position(|d| d.query == case.query && d.offered == case.offered)
                .unwrap_or_else(|| {
                    distinct.push(case);
                    distinct.len() - 1
                })
        })
        .collect();
    bar.set_length(distinct.len() as u64);
    let verdicts: Vec<OfferVerdict> = futures::stream::iter(distinct)
        .map(|case| async move {
            let verdict = judge
                .judge(&case.query, &case.offered)
                .await
                .with_context(|| format!("judging the offer at K={} for {:?}", case.k, case.query));
            bar.inc(1);
            verdict
        })
        .buffered(in_flight.max(1))
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<anyhow::Result<_>>()?;
    Ok(slots.into_iter().map(|i| verdicts[i].clone()).collect())
}

/// What `--judge-offer` reports.
#[derive(Debug, Serialize)]
pub(super) struct JudgedOffers {
    /// The judge's model (`[llm] role_models.judge`, else `[llm] model`).
    pub(super) model: String,
    /// One row per `--coverage-k` cut-off.
    pub(super) points: Vec<JudgedPoint>,
    /// What the judge cost over every offer (calls answered by the cache apart).
    pub(super) usage: JudgeUsage,
    /// With `--judged-misses`: the offers the strict count misses and the judge finds covered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) misses: Option<Vec<JudgedMiss>>,
    /// The offers the judge gave no usable reply for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) unjudged: Vec<Unjudged>,
    /// With `--offers`: every offer's verdict, to read the judge beside the offer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) verdicts: Option<Vec<CaseVerdict>>,
}

/// The judge's verdict on one query's offer at one cut-off.
#[derive(Debug, Serialize)]
pub(super) struct CaseVerdict {
    pub(super) query: String,
    pub(super) k: usize,
    /// Whether the offer holds every gold API.
    pub(super) strict: bool,
    pub(super) verdict: OfferVerdict,
}

/// Strict and judged coverage at one cut-off, and how the two agree.
#[derive(Debug, Default, PartialEq, Serialize)]
pub(super) struct JudgedPoint {
    pub(super) k: usize,
    /// Offers holding every gold API (the benchmark's metric), %.
    pub(super) strict: f64,
    /// Offers the judge finds serve every need, % of all queries (unjudged ones count as not).
    pub(super) judged: f64,
    /// Covered by both counts.
    pub(super) both: usize,
    /// Covered strictly; the judge finds a need unserved.
    pub(super) strict_only: usize,
    /// Strict misses the judge finds covered.
    pub(super) judged_only: usize,
    /// Covered by neither.
    pub(super) neither: usize,
    /// Offers with no usable judge reply.
    pub(super) unjudged: usize,
}

/// A strict miss the judge finds covered.
#[derive(Debug, Serialize)]
pub(super) struct JudgedMiss {
    pub(super) query: String,
    pub(super) k: usize,
    /// The gold APIs the offer lacks.
    pub(super) missing: Vec<ApiId>,
    /// The needs the judge served with an API outside the gold path: the stand-ins to check
    /// against the missing gold APIs.
    pub(super) instead: Vec<JudgedNeed>,
}

/// An offer the judge gave no usable reply for.
#[derive(Debug, Serialize)]
pub(super) struct Unjudged {
    pub(super) query: String,
    pub(super) k: usize,
    pub(super) reason: String,
}

/// The report of `cases` and their `verdicts` (in the same order) at the cut-offs `ks`.
pub(super) fn tally(
    cases: &[Case],
    verdicts: &[OfferVerdict],
    ks: &[usize],
    model: String,
    usage: JudgeUsage,
    list_misses: bool,
) -> JudgedOffers {
    let mut report = JudgedOffers {
        model,
        points: ks
            .iter()
            .map(|&k| JudgedPoint {
                k,
                ..JudgedPoint::default()
            })
            .collect(),
        usage,
        misses: list_misses.then(Vec::new),
        unjudged: Vec::new(),
        verdicts: None,
    };
    let mut strict_hits = vec![0usize; ks.len()];
    for (case, verdict) in cases.iter().zip(verdicts) {
        if let Some(i) = ks.iter().position(|&k| k == case.k) {
            strict_hits[i] += usize::from(report.add(i, case, verdict));
        }
    }
    for (point, hits) in report.points.iter_mut().zip(strict_hits) {
        let n =
            (point.both + point.strict_only + point.judged_only + point.neither + point.unjudged)
                .max(1) as f64;
        point.strict = 100.0 * hits as f64 / n;
        point.judged = 100.0 * (point.both + point.judged_only) as f64 / n;
    }
    report
}

impl JudgedOffers {
    /// With every case's verdict listed (`--offers`).
    pub(super) fn with_verdicts(self, cases: &[Case], verdicts: Vec<OfferVerdict>) -> Self {
        let listed = cases
            .iter()
            .zip(verdicts)
            .map(|(case, verdict)| CaseVerdict {
                query: case.query.clone(),
                k: case.k,
                strict: case.missing().is_empty(),
                verdict,
            })
            .collect();
        Self {
            verdicts: Some(listed),
            ..self
        }
    }

    /// Counts one case at the cut-off `i`; says whether the strict count covers it.
    fn add(&mut self, i: usize, case: &Case, verdict: &OfferVerdict) -> bool {
        let missing = case.missing();
        let strict = missing.is_empty();
        let Some(point) = self.points.get_mut(i) else {
            return strict;
        };
        let needs = match verdict {
            OfferVerdict::Unjudged { reason } => {
                point.unjudged += 1;
                self.unjudged.push(Unjudged {
                    query: case.query.clone(),
                    k: case.k,
                    reason: reason.clone(),
                });
                return strict;
            }
            OfferVerdict::Judged { needs } => needs,
        };
        match (strict, verdict.covered() == Some(true)) {
            (true, true) => point.both += 1,
            (true, false) => point.strict_only += 1,
            (false, false) => point.neither += 1,
            (false, true) => {
                point.judged_only += 1;
                if let Some(misses) = &mut self.misses {
                    misses.push(JudgedMiss {
                        query: case.query.clone(),
                        k: case.k,
                        missing,
                        instead: needs
                            .iter()
                            .filter(|n| n.api().is_some_and(|a| !case.gold.contains(a)))
                            .cloned()
                            .collect(),
                    });
                }
            }
        }
        strict
    }

    fn table(&self) -> String {
        let header = [
            "K",
            "strict coverage",
            "judged coverage",
            "both",
            "strict only",
            "judged only",
            "neither",
            "unjudged",
        ];
        let mut out = table::new(header);
        for p in &self.points {
            out.add_row(vec![
                p.k.to_string(),
                format!("{:.1}", p.strict),
                format!("{:.1}", p.judged),
                p.both.to_string(),
                p.strict_only.to_string(),
                p.judged_only.to_string(),
                p.neither.to_string(),
                p.unjudged.to_string(),
            ]);
        }
        table::align_right(&mut out, 0..header.len());
        out.trim_fmt()
    }
}

impl fmt::Display for JudgedOffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "judged offer (judge model {}; strict coverage is the benchmark's metric, the \
             judged one depends on the judge model):",
            self.model
        )?;
        writeln!(f, "{}", self.table())?;
        let u = &self.usage;
        write!(
            f,
            "judge: {} LLM call(s) ({} from the cache), {} prompt + {} completion tokens",
            u.calls, u.cache_hits, u.prompt_tokens, u.completion_tokens
        )?;
        for miss in self.misses.iter().flatten() {
            let missing: Vec<String> = miss.missing.iter().map(ToString::to_string).collect();
            write!(
                f,
                "\njudged covered, strict miss @{}: {}\n  missing: {}",
                miss.k,
                miss.query,
                missing.join(", ")
            )?;
            for need in &miss.instead {
                if let Some(api) = need.api() {
                    write!(f, "\n  judged: {:?} -> {api}", need.need)?;
                }
            }
        }
        for u in &self.unjudged {
            write!(f, "\nunjudged @{}: {} ({})", u.k, u.query, u.reason)?;
        }
        Ok(())
    }
}
