//! Evaluation: benchmark datasets, and the metrics the five papers report as pure functions.
//!
//! - **Datasets.** [`Dataset`] holds a benchmark's [`Query`]s with their gold APIs as the file
//!   names them ([`GoldApi`]); [`load`] reads RestGPT's and DRAFT's RestBench files,
//!   ToolBench-style query files and AnyToolBench, detecting the format, and
//!   [`Dataset::resolve`] turns the gold names into catalog [`ApiId`](toolsmith_catalog::ApiId)s.
//!   [`load_funcqa`], [`load_anytoolbench`] and [`load_tooleval`] read the benchmarks that carry
//!   answers or reference runs instead of (or besides) gold paths. [`Benchmark`] names the
//!   standard retrieval benchmarks and their corpus sources under the shared data folder.
//! - **Runs.** A [`RunRecord`] is what the metrics know of one solver run: its calls
//!   ([`CallRecord`]: API or unknown name, arguments, outcome, observation) and how it ended
//!   (the solver's [`Finish`](toolsmith_solve::Finish)); [`RunRecord::from_run`] converts a
//!   solver's typed trace into it.
//! - **Metrics** (module [`metrics`], one module per family, each function documented with its
//!   source paper and exact definition): retrieval ([`ndcg_at_k`], [`recall_at_k`]), call paths
//!   ([`correct_path`], [`correct_path_in_steps`], [`path_set`], [`path_f1`], [`lcs_path_rate`], [`path_success`],
//!   [`delta_solution_length`], [`offered_covers`]), judged pass rate (ToolEval's
//!   [`tooleval_decision`] and [`tooleval_query_passes`], AnyTool's [`anytool_passes`]), win
//!   rate over pairwise verdicts in both orders ([`pair_outcome`], [`WinRate`]), FuncQA
//!   ([`funcqa_correct`], [`extract_number`]), cost ([`CostReport`], [`Prices`]), the error
//!   taxonomy ([`classify`]) and judge variance ([`mean_std`]). Shares are counted in a
//!   [`Rate`].
//! - **Harness.** A [`BenchSpec`] names a dataset, a solver and how it runs; a [`Harness`]
//!   runs it concurrently through the [`Solver`](toolsmith_solve::Solver) trait, scores each
//!   query ([`QueryScores`]) and stores it at once in the [`BenchStore`] (eval's tables in the
//!   catalog database), so `--resume` redoes nothing finished. [`RunSummary`] and
//!   [`Comparison`] are the tables of a run and of several side by side.
//! - **Report.** [`report::write_report`] turns stored runs ([`report::ReportInput`]) into a
//!   static HTML report: comparison table, SVG plots, error taxonomy, a page per query with
//!   its trace, and word-level diffs of the doc versions compared.
//! - **Synthesized sets** (module [`synth`]): requests with gold paths made from any catalog
//!   (sampled paths, written requests, kept only when their calls run), stored in the catalog
//!   file with `eval` and `index` splits; `--dataset synth:NAME` reads the eval split.
//! - **Gate.** [`gate::judge`] decides whether an API's candidate doc is no worse than its
//!   active doc from the gold API's paired ranks (a one-sided sign test or a mean-rank margin).
//! - **Judges.** [`Judge`] gives typed verdicts ([`AnswerStatus`], [`TaskSolvability`],
//!   [`Preference`]); [`LlmJudge`] asks a chat model under the role `judge`; with the `test-utils` feature, `testing::ScriptedJudge` replays scripted
//!   ones. By default a judge run asks each question once and every sample and vote reads
//!   its verdict ([`VoteDraws`]); long observations are cut around what the answer cites.
//!   [`OfferJudge`] (role `judge`) reads an offer of tools instead of a run: for each need
//!   of a request, which offered API serves it, or none ([`OfferVerdict`]); `bench retrieval
//!   --judge-offer` sets it beside strict offered-path coverage.
//!
//! ```
//! use toolsmith_eval::{Rate, RetrievalScores, SolutionLength, correct_path, delta_solution_length,
//!     funcqa_answer_correct, path_f1};
//!
//! // Two RestBench-style runs against the gold path search -> credits.
//! let gold = ["search_movie", "movie_credits"];
//! let runs = [
//!     (vec!["search_movie", "movie_details", "movie_credits"], true),
//!     (vec!["movie_credits"], false),
//! ];
//! let cp = Rate::of(runs.iter().map(|(called, _)| correct_path(called, &gold)));
//! assert_eq!((cp.hits, cp.total), (1, 2));
//! assert_eq!(cp.percent(), 50.0);
//!
//! // ConAgents' Path F1 of the first run: 2 gold APIs + the end token matched,
//! // precision 3/4, recall 3/3.
//! let f1 = path_f1(&runs[0].0, &gold, runs[0].1);
//! assert!((f1.f1 - 6.0 / 7.0).abs() < 1e-12);
//!
//! // ΔSL over the successful run: one call more than the gold path.
//! let lengths: Vec<SolutionLength> = runs
//!     .iter()
//!     .map(|(called, ok)| SolutionLength { called: called.len(), gold: gold.len(), success: *ok })
//!     .collect();
//! assert_eq!(delta_solution_length(&lengths), Some(1.0));
//!
//! // NDCG@1 and Recall@5 of one ranking.
//! let scores = RetrievalScores::mean([(&["b", "a", "c"][..], &["a"][..])]);
//! assert!(scores.ndcg_1 == 0.0 && scores.recall_5 == 1.0);
//!
//! // FuncQA: within 0.1 % of the gold value.
//! assert!(funcqa_answer_correct("The car keeps 0.39355 of its price.", 0.3936));
//! ```
#![warn(missing_docs)]

pub use crate::benchmark::{Benchmark, SYNTH_PREFIX, TOOLENV2404};
pub use crate::dataset::anytool::{AnyToolQuery, CategorizedApi};
pub use crate::dataset::funcqa::{FuncQaCall, FuncQaItem};
pub use crate::dataset::tooleval::{
    OfferedFunction, ReferenceFinish, ReferenceRun, ToolEvalQuery, ToolEvalSet,
};
pub use crate::dataset::{
    Dataset, DatasetFormat, GoldApi, Query, Resolution, ResolvedQuery, SkipCauses, Unresolved,
    load, load_anytoolbench, load_as, load_funcqa, load_merged, load_tooleval,
};
pub use crate::error::{Error, Result};
pub use crate::harness::Expansion;
pub use crate::harness::{
    BadToolsOffered, BenchObserver, BenchRun, BenchSpec, BenchStore, ComparedRun, Comparison,
    Harness, JudgeSettings, PassRates, QueryJudgement, QueryResult, QueryScores, Quiet,
    RetrievalResult, RunId, RunSummary, SolverFactory, SolverKind, StoredResult, StoredRetrieval,
    ToolsOffered, WinRateReport, judge_pass_rates, judge_win_rate, solvability_scope,
};
pub use crate::judge::{AnswerStatus, Judge, JudgeCase, JudgeUsage, Preference, TaskSolvability};
pub use crate::llm_judge::{LlmJudge, LlmJudgeSettings};
pub use crate::metrics::Rate;
pub use crate::metrics::cost::{CostReport, Prices, QueryCost, Summary};
pub use crate::metrics::errors::{Diagnosis, ErrorKind, TaxonomyContext, classify};
pub use crate::metrics::funcqa::{
    FUNCQA_TOLERANCE, extract_number, funcqa_answer_correct, funcqa_correct,
};
pub use crate::metrics::pass_rate::VoteDraws;
pub use crate::metrics::pass_rate::{
    ANYTOOL_REFUSAL_WORDS, Draws, PassRateSettings, SampleVerdict, Screening, anytool_passes,
    anytool_passes_judged, anytool_query_judged, anytool_refusal, tooleval_decision,
    tooleval_query_judged, tooleval_query_passes, tooleval_sample, tooleval_screen,
};
pub use crate::metrics::path::{
    PathF1, SolutionLength, correct_path, correct_path_in_steps, delta_solution_length,
    delta_solution_length_conagents, lcs_len, lcs_path_rate, offered_covers, path_f1, path_set,
    path_success,
};
pub use crate::metrics::rank_agreement::kendall_tau_b;
pub use crate::metrics::rank_noise::{Band, Bootstrap, tau_b_over_pairs};
pub use crate::metrics::retrieval::{
    RetrievalScores, dcg_at_k, ndcg_at_k, ndcg_curve, recall_at_k,
};
pub use crate::metrics::variance::{MeanStd, mean_std};
pub use crate::metrics::win_rate::{PairOutcome, PairedVerdict, WinRate, judge_pair, pair_outcome};
pub use crate::offer_judge::{
    JUDGE_OFFER_PROMPT, JudgedNeed, OfferJudge, OfferVerdict, Served, ShownApi,
};
pub use crate::run::{CallRecord, CallStatus, CalledApi, HelperTool, RunRecord};

mod benchmark;
mod dataset;
mod error;
pub mod gate;
mod harness;
mod judge;
mod judge_excerpt;
mod judge_record;
mod llm_judge;
pub mod metrics;
mod offer_judge;
pub mod report;
mod run;
pub mod synth;
#[cfg(any(test, feature = "test-utils"))]
pub mod testing;
