//! Judge-based scores of a stored run: pass rate by ToolEval's and by AnyTool's rules, each
//! judged `runs` times and reported as mean ± std ([`PassRates`]), and the win rate of a run
//! against a reference run, judged pairwise in both orders ([`WinRateReport`]). Every verdict
//! is stored ([`BenchStore::save_judgement`], [`BenchStore::save_preference`]), so judging
//! again redoes nothing already judged and `bench show`/`compare` read the scores back.

use std::collections::{BTreeMap, HashMap};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_solve::TraceEvent;

use crate::error::Result;
use crate::harness::query::QueryJudgement;
use crate::harness::score::RunSummary;
use crate::harness::store::{BenchStore, RunId, StoredResult};
use crate::judge::{Judge, JudgeCase, JudgeUsage};
use crate::metrics::Rate;
use crate::metrics::cost::Prices;
use crate::metrics::pass_rate::{
    Draws, PassRateSettings, anytool_query_judged, tooleval_query_judged,
};
use crate::metrics::variance::{MeanStd, mean_std};
use crate::metrics::win_rate::{PairOutcome, PairedVerdict, WinRate, judge_pair, pair_outcome};

/// How much judging a run gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeSettings {
    /// Independent judgements of the whole run, for judge variance (1: no spread measured).
    pub runs: usize,
    /// Samples per ToolEval judgement and votes per AnyTool judgement.
    pub pass: PassRateSettings,
    /// Rounds (each in both orders) per query of a win-rate comparison (ToolEval's
    /// `eval_preference.py`: `evaluate_times` 2).
    pub win_rounds: usize,
    /// Seeds ToolEval's coin flips for undecided samples.
    pub seed: u64,
}

impl JudgeSettings {
    /// The papers' protocols (independent samples and votes), judged once.
    pub const PAPER: Self = Self {
        runs: 1,
        pass: PassRateSettings::PAPER,
        win_rounds: 2,
        seed: 0,
    };
}

/// The papers' counts, each question asked once per judge run ([`PassRateSettings::default`]).
impl Default for JudgeSettings {
    fn default() -> Self {
        Self {
            pass: PassRateSettings::default(),
            ..Self::PAPER
        }
    }
}

/// A run's judged pass rates, in percent, over its judge runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassRates {
    /// Queries judged (in the last judge run).
    pub queries: usize,
    /// Judge runs.
    pub judge_runs: usize,
    /// Pass rate by ToolEval's rules (decision table, per-query vote of its samples).
    pub tooleval: MeanStd,
    /// Pass rate by AnyTool's rules (a majority of Solved votes).
    pub anytool: MeanStd,
    /// What judging cost, over every stored judgement of the run.
    #[serde(default)]
    pub usage: JudgeUsage,
}

/// A run's win rate against a reference run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WinRateReport {
    /// The reference run.
    pub reference: RunId,
    /// Wins, ties and losses over the queries both runs have.
    pub outcomes: WinRate,
    /// Wins over queries, % (ties count as not won, as ToolEval does).
    pub win_rate: f64,
    /// Ties over queries, %.
    pub tie_rate: f64,
}

impl WinRateReport {
    fn of(reference: RunId, outcomes: WinRate) -> Self {
        Self {
            reference,
            outcomes,
            win_rate: outcomes.rate() * 100.0,
            tie_rate: outcomes.tie_rate() * 100.0,
        }
    }
}

/// FNV-1a of a string: a stable seed per query.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Judges one query once: ToolEval's samples and vote, AnyTool's votes, sharing the judge's
/// draws and stopping each protocol once its outcome is settled ([`Draws`]). The task's
/// solvability is judged against what the run could use ([`solvability_scope`]).
async fn judge_query<J: Judge + ?Sized>(
    judge: &J,
    result: &StoredResult,
    judge_run: usize,
    settings: &JudgeSettings,
) -> Result<QueryJudgement> {
    let before = judge.usage();
    let scope = solvability_scope(result);
    let case = JudgeCase {
        query: &result.run.query,
        offered: &scope,
        run: &result.record,
    };
    let mut draws = Draws::new(judge, case, settings.pass.draws);
    let run_seed = u64::try_from(judge_run).unwrap_or(0);
    let mut rng = StdRng::seed_from_u64(settings.seed ^ fnv1a(&result.query_id) ^ run_seed);
    let mut coin = || rng.random_bool(0.5);
    let (samples, tooleval_pass) =
        tooleval_query_judged(&mut draws, settings.pass.tooleval_samples, &mut coin).await?;
    let anytool_pass = anytool_query_judged(&mut draws, settings.pass.anytool_votes).await?;
    Ok(QueryJudgement {
        tooleval_samples: samples,
        tooleval_pass,
        anytool_pass,
        usage: judge.usage().since(&before),
    })
}

/// The APIs a task's solvability is judged against: AnyTool's pool (what its search seeded
/// and its agents added, over the whole run) when the run built one, else the APIs it was
/// offered (the dataset's listed APIs, the retrieved ones, or those `search_tools` found),
/// and in both cases the query's gold path. An AnyTool run is offered the whole catalog,
/// which no judge prompt can hold. The gold path is added because a task the catalog can
/// solve is solvable: under ToolEval's rule a give-up on an "unsolvable" task passes, so
/// judging against the retrieved APIs alone made every retrieval miss a pass.
pub fn solvability_scope(result: &StoredResult) -> Vec<ApiId> {
    let mut pool: Vec<ApiId> = Vec::new();
    let mut built = false;
    for stamped in &result.run.trace {
        let added = match &stamped.event {
            TraceEvent::Seeded { apis, .. } => apis,
            TraceEvent::PoolChanged { added, .. } => added,
            _ => continue,
        };
        built = true;
        for api in added {
            if !pool.contains(api) {
                pool.push(api.clone());
            }
        }
    }
    let mut scope = if built { pool } else { result.offered.clone() };
    for api in &result.scores.gold {
        if !scope.contains(api) {
            scope.push(api.clone());
        }
    }
    scope
}

/// Judges every stored query of `run` `settings.runs` times (skipping what is already
/// judged), stores each verdict, and returns the pass rates.
pub async fn judge_pass_rates<J: Judge + ?Sized>(
    judge: &J,
    store: &BenchStore,
    run: RunId,
    settings: &JudgeSettings,
) -> Result<PassRates> {
    let results = store.results(run)?;
    let done: std::collections::HashSet<(String, usize)> = store
        .judgements(run)?
        .into_iter()
        .map(|(q, r, _)| (q, r))
        .collect();
    for judge_run in 0..settings.runs.max(1) {
        for result in &results {
            if done.contains(&(result.query_id.clone(), judge_run)) {
                continue;
            }
            let judgement = judge_query(judge, result, judge_run, settings).await?;
            store.save_judgement(run, &result.query_id, judge_run, &judgement)?;
        }
    }
    store.pass_rates(run)?.ok_or_else(|| crate::Error::Judge {
        message: format!("run {run} has no stored query to judge"),
    })
}

/// Judges `run` against `reference` on every query both have: ToolEval's shortcut when
/// exactly one of them passed (ToolEval's pass label of the first judge run, when both runs
/// are judged), else the judge in both orders, `settings.win_rounds` rounds; stores each
/// round (rounds already stored are not asked again) and returns the win rate.
pub async fn judge_win_rate<J: Judge + ?Sized>(
    judge: &J,
    store: &BenchStore,
    run: RunId,
    reference: RunId,
    settings: &JudgeSettings,
) -> Result<WinRateReport> {
    let candidates = store.results(run)?;
    let references: HashMap<String, StoredResult> = store
        .results(reference)?
        .into_iter()
        .map(|r| (r.query_id.clone(), r))
        .collect();
    let passed = |id: RunId| -> Result<HashMap<String, bool>> {
        Ok(store
            .judgements(id)?
            .into_iter()
            .filter(|(_, judge_run, _)| *judge_run == 0)
            .filter_map(|(q, _, j)| j.tooleval_pass.map(|p| (q, p)))
            .collect())
    };
    let (run_passed, reference_passed) = (passed(run)?, passed(reference)?);
    let stored: BTreeMap<(String, usize), PairedVerdict> = store
        .preferences(run, reference)?
        .into_iter()
        .map(|(q, round, v)| ((q, round), v))
        .collect();
    let mut outcomes: Vec<PairOutcome> = Vec::new();
    for candidate in &candidates {
        let Some(other) = references.get(&candidate.query_id) else {
            continue;
        };
        let shortcut = match (
            run_passed.get(&candidate.query_id),
            reference_passed.get(&candidate.query_id),
        ) {
            (Some(c), Some(r)) => PairedVerdict::from_pass_labels(*c, *r),
            _ => None,
        };
        let mut rounds = Vec::new();
        for round in 0..settings.win_rounds.max(1) {
            let key = (candidate.query_id.clone(), round);
            let verdict = match (stored.get(&key), shortcut) {
                (Some(v), _) => *v,
                (None, shortcut) => {
                    let verdict = match shortcut {
                        Some(v) => v,
                        None => {
                            judge_pair(
                                judge,
                                &candidate.run.query,
                                &candidate.record,
                                &other.record,
                            )
                            .await?
                        }
                    };
                    store.save_preference(run, reference, &candidate.query_id, round, &verdict)?;
                    verdict
                }
            };
            rounds.push(verdict);
        }
        outcomes.push(pair_outcome(&rounds));
    }
    Ok(WinRateReport::of(reference, WinRate::of(outcomes)))
}

impl RunSummary {
    /// Counts judging in the run's cost: the judge's tokens at `prices` become
    /// `judging_cost` and are added to `cost` (unchanged without prices or judgements).
    #[must_use]
    pub fn with_judging(mut self, judged: Option<&PassRates>, prices: Option<&Prices>) -> Self {
        if let (Some(judged), Some(prices)) = (judged, prices) {
            let judging = judged.usage.cost(prices);
            self.judging_cost = Some(judging);
            self.cost = Some(self.cost.unwrap_or(0.0) + judging);
        }
        self
    }
}

impl BenchStore {
    /// The pass rates of a run's stored judgements; `None` when it was never judged.
    pub fn pass_rates(&self, run: RunId) -> Result<Option<PassRates>> {
        let judgements = self.judgements(run)?;
        let mut by_run: BTreeMap<usize, Vec<&QueryJudgement>> = BTreeMap::new();
        for (_, judge_run, judgement) in &judgements {
            by_run.entry(*judge_run).or_default().push(judgement);
        }
        let tooleval: Vec<f64> = by_run
            .values()
            .map(|js| Rate::of(js.iter().filter_map(|j| j.tooleval_pass)).percent())
            .collect();
        let anytool: Vec<f64> = by_run
            .values()
            .map(|js| Rate::of(js.iter().map(|j| j.anytool_pass)).percent())
            .collect();
        let queries = by_run.values().last().map_or(0, Vec::len);
        let usage = judgements
            .iter()
            .fold(JudgeUsage::default(), |sum, (_, _, j)| sum.plus(&j.usage));
        Ok(mean_std(&tooleval)
            .zip(mean_std(&anytool))
            .map(|(tooleval, anytool)| PassRates {
                queries,
                judge_runs: by_run.len(),
                tooleval,
                anytool,
                usage,
            }))
    }

    /// The win rate of `run` against `reference` from the stored rounds; `None` when none are
    /// stored.
    pub fn win_rate(&self, run: RunId, reference: RunId) -> Result<Option<WinRateReport>> {
        let mut by_query: BTreeMap<String, Vec<PairedVerdict>> = BTreeMap::new();
        for (query, _, verdict) in self.preferences(run, reference)? {
            by_query.entry(query).or_default().push(verdict);
        }
        if by_query.is_empty() {
            return Ok(None);
        }
        let outcomes = WinRate::of(by_query.values().map(|rounds| pair_outcome(rounds)));
        Ok(Some(WinRateReport::of(reference, outcomes)))
    }
}
