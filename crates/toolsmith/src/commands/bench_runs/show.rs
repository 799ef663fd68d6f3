//! `bench show`'s per-query views: the path metrics (CP, path set) and the judged verdicts
//! (ToolEval, AnyTool) side by side with the count of queries where they disagree, and one
//! query's gold path and gold answer next to what the run answered.

use std::collections::BTreeMap;

use toolsmith_eval::{BenchStore, QueryScores, RunId, StoredResult};

use crate::{printer, table};

/// One query's judged verdicts (the first judge run's).
#[derive(Clone, Copy, Debug, Default)]
struct Judged {
    tooleval: Option<bool>,
    anytool: Option<bool>,
}

/// How often two yes/no scores of the same queries disagree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Disagreement {
    /// Queries both scores exist for.
    pub(crate) compared: usize,
    /// The first says yes, the second no.
    pub(crate) only_first: usize,
    /// The second says yes, the first no.
    pub(crate) only_second: usize,
}

impl Disagreement {
    /// Counts over pairs `(first, second)`, skipping queries where either is missing.
    pub(crate) fn of(pairs: impl IntoIterator<Item = (Option<bool>, Option<bool>)>) -> Self {
        let mut d = Self::default();
        for pair in pairs {
            if let (Some(a), Some(b)) = pair {
                d.compared += 1;
                d.only_first += usize::from(a && !b);
                d.only_second += usize::from(b && !a);
            }
        }
        d
    }

    fn line(&self, first: &str, second: &str) -> String {
        format!(
            "{first} vs {second}: disagree on {} of {} queries ({first} only: {}, {second} only: {})",
            self.only_first + self.only_second,
            self.compared,
            self.only_first,
            self.only_second
        )
    }
}

fn mark(value: Option<bool>) -> String {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
    .to_owned()
}

/// The per-query table of a run, then how CP and path set disagree with the judges.
pub(crate) fn print_queries(
    bench: &BenchStore,
    id: RunId,
    scores: &[(String, QueryScores)],
) -> anyhow::Result<()> {
    let mut judged: BTreeMap<String, Judged> = BTreeMap::new();
    for (query, judge_run, j) in bench.judgements(id)? {
        if judge_run == 0 {
            judged.insert(
                query,
                Judged {
                    tooleval: j.tooleval_pass,
                    anytool: Some(j.anytool_pass),
                },
            );
        }
    }
    let mut t = table::new([
        "query",
        "finish",
        "limit",
        "CP",
        "path-set",
        "pass ToolEval",
        "pass AnyTool",
        "F1",
        "answer",
        "covered",
        "calls run/rejected/unknown",
        "tokens",
        "errors",
    ]);
    for (query, s) in scores {
        t.add_row(query_cells(
            query,
            s,
            judged.get(query).copied().unwrap_or_default(),
        ));
    }
    table::align_right(&mut t, [7, 10, 11]);
    table::print(&t)?;
    if judged.is_empty() {
        return Ok(());
    }
    print_disagreements(scores, &judged)
}

/// One query's row of the per-query table.
fn query_cells(query: &str, s: &QueryScores, j: Judged) -> Vec<String> {
    vec![
        query.to_owned(),
        s.finish.as_str().to_owned(),
        s.limit
            .map_or_else(|| "-".to_owned(), |l| l.as_str().to_owned()),
        mark(Some(s.correct_path)),
        mark(Some(s.path_set)),
        mark(j.tooleval),
        mark(j.anytool),
        format!("{:.3}", s.path_f1),
        mark(s.answer_correct),
        mark(Some(s.offered_covers)),
        format!(
            "{}/{}/{}",
            s.calls.executed, s.calls.rejected, s.calls.unknown_tool
        ),
        s.tokens.to_string(),
        s.errors
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(","),
    ]
}

/// How CP and path set disagree with each judge, one line per pair.
fn print_disagreements(
    scores: &[(String, QueryScores)],
    judged: &BTreeMap<String, Judged>,
) -> anyhow::Result<()> {
    let pairs = |path: fn(&QueryScores) -> bool, judge: fn(&Judged) -> Option<bool>| {
        Disagreement::of(
            scores
                .iter()
                .map(|(q, s)| (Some(path(s)), judged.get(q).and_then(judge))),
        )
    };
    let cp = |s: &QueryScores| s.correct_path;
    let set = |s: &QueryScores| s.path_set;
    let tooleval = |j: &Judged| j.tooleval;
    let anytool = |j: &Judged| j.anytool;
    for (line, first, second) in [
        (pairs(cp, tooleval), "CP", "ToolEval"),
        (pairs(cp, anytool), "CP", "AnyTool"),
        (pairs(set, tooleval), "path-set", "ToolEval"),
        (pairs(set, anytool), "path-set", "AnyTool"),
    ] {
        printer::line(line.line(first, second))?;
    }
    Ok(())
}

/// One query's gold path and gold answer, and what the run answered.
pub(crate) fn print_gold(result: &StoredResult) -> anyhow::Result<()> {
    let s = &result.scores;
    let gold = if s.gold.is_empty() {
        format!("{} APIs (not stored with this run)", s.gold_len)
    } else {
        s.gold
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" -> ")
    };
    printer::line(format!("gold path: {gold}"))?;
    if let Some(answer) = s.gold_answer {
        printer::line(format!(
            "gold answer: {answer}{}",
            match s.answer_correct {
                Some(true) => " (the run's answer matches it)",
                Some(false) => " (the run's answer does not match it)",
                None => "",
            }
        ))?;
    }
    printer::line(format!(
        "answer ({}): {}",
        result.run.finish.as_str(),
        result
            .run
            .answer
            .as_deref()
            .or(result.run.detail.as_deref())
            .unwrap_or("-")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disagreements_count_each_direction_and_skip_missing_verdicts() {
        let d = Disagreement::of([
            (Some(true), Some(true)),
            (Some(true), Some(false)),
            (Some(false), Some(true)),
            (Some(false), Some(true)),
            (Some(false), None),
        ]);
        assert_eq!(
            d,
            Disagreement {
                compared: 4,
                only_first: 1,
                only_second: 2
            }
        );
        assert_eq!(
            d.line("CP", "ToolEval"),
            "CP vs ToolEval: disagree on 3 of 4 queries (CP only: 1, ToolEval only: 2)"
        );
    }
}
