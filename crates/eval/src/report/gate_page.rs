//! The report's page of the activation gate's decisions: per round, each API's candidate,
//! what was decided, by which rule, and the figures it read.

use maud::html;
use toolsmith_catalog::{DocDecision, Evidence};

use crate::gate::GateFigures;
use crate::report::pages::page;

/// The gate's decisions, newest round first.
pub(crate) fn gate_page(decisions: &[DocDecision]) -> String {
    let mut rounds: Vec<u32> = decisions.iter().map(|d| d.round).collect();
    rounds.sort_unstable_by(|a, b| b.cmp(a));
    rounds.dedup();
    let body = html! {
        h1 { "Gated activation" }
        p.muted { "Each candidate doc became active only where the gold API ranked no worse on the eval queries touching it (docs/gate.md). Ranks: 1 is best." }
        @for round in &rounds {
            @let these: Vec<&DocDecision> = decisions.iter().filter(|d| d.round == *round).collect();
            h2 { "Round " (round) }
            p.muted { "Rule: " (these.first().map_or("", |d| d.rule.as_str())) }
            @let near = near_views(&these);
            @if near > 0 {
                p.muted { (near) " eval requests left out as near-duplicates of the label's views (one writer wrote both: docs/gate.md)" }
            }
            table {
                tr { th { "API" } th { "candidate" } th { "was active" } th { "decision" } th { "queries" }
                     th { "better" } th { "worse" } th { "tied" } th { "mean rank before" } th { "mean rank with candidate" } th { "p(worse)" } }
                @for d in &these {
                    @let figures: Option<GateFigures> = serde_json::from_value(d.figures.clone()).ok();
                    tr {
                        td { code { (d.api) } }
                        td { "v" (d.candidate) " (" (d.label) ")" }
                        td { (d.previous.map_or_else(|| "none".to_owned(), |v| format!("v{v}"))) }
                        td class=(if d.outcome.as_str() == "activated" { "up" } else { "down" }) {
                            (d.outcome.as_str())
                            @if d.evidence == Evidence::Untested { " (untested)" }
                        }
                        @match &figures {
                            Some(f) => {
                                td.num { (f.queries) } td.num { (f.better) } td.num { (f.worse) } td.num { (f.ties) }
                                td.num { (format!("{:.2}", f.mean_active_rank)) }
                                td.num { (format!("{:.2}", f.mean_candidate_rank)) }
                                td.num { (format!("{:.3}", f.p_worse)) }
                            }
                            None => { td.num colspan="7" { "no eval query touches it" } }
                        }
                    }
                }
            }
        }
    };
    page("Gated activation", "", body)
}

/// The eval requests a round left out as near-duplicates of its label's views (the same for
/// every decision of the round; 0 for labels without views).
fn near_views(decisions: &[&DocDecision]) -> usize {
    decisions
        .iter()
        .filter_map(|d| serde_json::from_value::<GateFigures>(d.figures.clone()).ok())
        .map(|f| f.near_views)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsmith_catalog::DecisionOutcome;

    fn decision(
        round: u32,
        api: &str,
        outcome: DecisionOutcome,
        figures: serde_json::Value,
    ) -> DocDecision {
        DocDecision {
            round,
            api: api.parse().expect("id"),
            label: "easytool".parse().expect("label"),
            candidate: 2,
            previous: Some(1),
            outcome,
            evidence: if figures.is_null() {
                Evidence::Untested
            } else {
                Evidence::Measured
            },
            rule: "sign_test alpha=0.05".to_owned(),
            figures,
            created_at_ms: 0,
        }
    }

    #[test]
    fn the_page_lists_each_round_newest_first_with_its_figures() {
        let figures = GateFigures {
            queries: 5,
            better: 0,
            worse: 5,
            ties: 0,
            mean_active_rank: 1.0,
            mean_candidate_rank: 101.0,
            p_worse: 0.03125,
            verdict: crate::gate::Verdict::Worse,
            near_views: 0,
        };
        let page = gate_page(&[
            decision(
                1,
                "tmdb/search",
                DecisionOutcome::Kept,
                serde_json::to_value(&figures).expect("json"),
            ),
            decision(
                2,
                "tmdb/person",
                DecisionOutcome::Activated,
                serde_json::Value::Null,
            ),
        ]);
        let (two, one) = (
            page.find("Round 2").expect("round 2"),
            page.find("Round 1").expect("round 1"),
        );
        assert!(two < one);
        assert!(page.contains("101.00") && page.contains("0.031"), "{page}");
        assert!(page.contains("activated (untested)"));
        assert!(
            !page.contains("near-duplicates"),
            "no views, nothing left out"
        );
    }

    #[test]
    fn a_round_that_left_requests_out_says_how_many() {
        let figures = GateFigures {
            queries: 4,
            better: 3,
            worse: 1,
            ties: 0,
            mean_active_rank: 3.0,
            mean_candidate_rank: 2.0,
            p_worse: 0.9375,
            verdict: crate::gate::Verdict::NoWorse,
            near_views: 7,
        };
        let value = serde_json::to_value(&figures).expect("json");
        let page = gate_page(&[decision(
            1,
            "tmdb/search",
            DecisionOutcome::Activated,
            value,
        )]);
        assert!(
            page.contains("7 eval requests left out as near-duplicates"),
            "{page}"
        );
    }
}
