//! What runs cost: tokens, LLM calls, tool calls and wall time per query, summarised over a
//! benchmark (mean, median, sum), and money at configurable prices. ToolBench's DFSDT counts
//! `total_tokens` and `query_count` per query, AnyTool the tokens of every agent, check and
//! judge; EasyTool and ToolExpNet compare documentation lengths in tokens.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::metrics::rate::to_f64;

/// What one query's run used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryCost {
    /// Prompt tokens over all LLM calls.
    pub prompt_tokens: u64,
    /// Completion tokens over all LLM calls.
    pub completion_tokens: u64,
    /// LLM calls made.
    pub llm_calls: u64,
    /// Tool (API) calls made.
    pub tool_calls: u64,
    /// Wall-clock time of the run.
    pub wall: Duration,
}

impl QueryCost {
    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// Prices in money units (say USD) per million tokens. Providers price prompt and completion
/// tokens apart; there is no default because prices change.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// Per million prompt tokens.
    pub prompt_per_million: f64,
    /// Per million completion tokens.
    pub completion_per_million: f64,
}

impl Prices {
    /// What one query's tokens cost.
    pub fn cost(&self, query: &QueryCost) -> f64 {
        (u64_to_f64(query.prompt_tokens) * self.prompt_per_million
            + u64_to_f64(query.completion_tokens) * self.completion_per_million)
            / 1_000_000.0
    }
}

/// Token counts stay far below 2^53, where every integer is exact.
fn u64_to_f64(n: u64) -> f64 {
    n as f64
}

/// Mean, median and sum of one quantity over queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Mean per query.
    pub mean: f64,
    /// Median per query: the middle value, or the mean of the two middle values for an even
    /// count (the 50th percentile with linear interpolation).
    pub p50: f64,
    /// Sum over queries.
    pub sum: f64,
}

impl Summary {
    /// Summarises values, one per query (all zero when there are none).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut sorted: Vec<f64> = values.into_iter().collect();
        if sorted.is_empty() {
            return Self::default();
        }
        sorted.sort_by(f64::total_cmp);
        let sum: f64 = sorted.iter().sum();
        let mid = sorted.len() / 2;
        let p50 = match (
            sorted.get(mid),
            mid.checked_sub(1).and_then(|m| sorted.get(m)),
        ) {
            (Some(hi), Some(lo)) if sorted.len().is_multiple_of(2) => (lo + hi) / 2.0,
            (Some(m), _) => *m,
            (None, _) => 0.0,
        };
        Self {
            mean: sum / to_f64(sorted.len()),
            p50,
            sum,
        }
    }
}

/// The cost of a benchmark run, per quantity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CostReport {
    /// Queries summarised.
    pub queries: usize,
    /// Prompt tokens.
    pub prompt_tokens: Summary,
    /// Completion tokens.
    pub completion_tokens: Summary,
    /// All tokens.
    pub tokens: Summary,
    /// LLM calls.
    pub llm_calls: Summary,
    /// Tool calls.
    pub tool_calls: Summary,
    /// Wall time in seconds.
    pub wall_seconds: Summary,
    /// Money at the given prices, when prices were given.
    pub money: Option<Summary>,
}

impl CostReport {
    /// Summarises per-query costs, pricing them when `prices` is given.
    pub fn new(costs: &[QueryCost], prices: Option<&Prices>) -> Self {
        let over = |f: &dyn Fn(&QueryCost) -> f64| Summary::of(costs.iter().map(f));
        Self {
            queries: costs.len(),
            prompt_tokens: over(&|c| u64_to_f64(c.prompt_tokens)),
            completion_tokens: over(&|c| u64_to_f64(c.completion_tokens)),
            tokens: over(&|c| u64_to_f64(c.tokens())),
            llm_calls: over(&|c| u64_to_f64(c.llm_calls)),
            tool_calls: over(&|c| u64_to_f64(c.tool_calls)),
            wall_seconds: over(&|c| c.wall.as_secs_f64()),
            money: prices.map(|p| over(&|c| p.cost(c))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    fn cost(prompt: u64, completion: u64, llm: u64, tools: u64, ms: u64) -> QueryCost {
        QueryCost {
            prompt_tokens: prompt,
            completion_tokens: completion,
            llm_calls: llm,
            tool_calls: tools,
            wall: Duration::from_millis(ms),
        }
    }

    #[test]
    fn summary_by_hand() {
        let s = Summary::of([3.0, 1.0, 2.0]);
        close(s.mean, 2.0);
        close(s.p50, 2.0);
        close(s.sum, 6.0);
        // Even count: the mean of the two middle values.
        close(Summary::of([4.0, 1.0, 10.0, 2.0]).p50, 3.0);
        close(Summary::of([7.0]).p50, 7.0);
        assert_eq!(Summary::of([]), Summary::default());
    }

    #[test]
    fn report_and_prices_by_hand() {
        // Three queries; the last one never called the LLM (a run that never answered).
        let costs = [
            cost(1_000, 200, 2, 3, 1_500),
            cost(3_000, 600, 4, 1, 2_500),
            cost(0, 0, 0, 0, 0),
        ];
        let prices = Prices {
            prompt_per_million: 0.5,
            completion_per_million: 1.5,
        };
        // Query 1: 1000 · 0.5 / 1e6 + 200 · 1.5 / 1e6 = 0.0005 + 0.0003 = 0.0008.
        close(prices.cost(&costs[0]), 0.0008);
        let r = CostReport::new(&costs, Some(&prices));
        assert_eq!(r.queries, 3);
        close(r.tokens.sum, 4_800.0);
        close(r.tokens.mean, 1_600.0);
        close(r.tokens.p50, 1_200.0);
        close(r.prompt_tokens.sum, 4_000.0);
        close(r.completion_tokens.p50, 200.0);
        close(r.llm_calls.mean, 2.0);
        close(r.tool_calls.sum, 4.0);
        close(r.wall_seconds.sum, 4.0);
        close(r.wall_seconds.p50, 1.5);
        // Query 2: 0.0015 + 0.0009 = 0.0024; total 0.0032.
        let money = r.money.unwrap_or_default();
        close(money.sum, 0.0032);
        close(money.p50, 0.0008);
        assert_eq!(CostReport::new(&costs, None).money, None);
        assert_eq!(CostReport::new(&[], None).queries, 0);
    }
}
