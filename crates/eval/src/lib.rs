//! Evaluation: benchmark datasets and the metrics toolsmith reports.
//!
//! - [`Dataset`] holds a benchmark's [`Query`]s with their gold APIs as the file names them
//!   ([`GoldApi`]); [`load`] reads RestGPT's and DRAFT's RestBench files and ToolBench-style
//!   query files, detecting the format. [`Dataset::resolve`] turns the gold names into catalog
//!   [`ApiId`](toolsmith_catalog::ApiId)s and reports the ones that do not resolve.
//! - [`Benchmark`] names the standard retrieval benchmarks (`restbench-tmdb`,
//!   `toolbench-draft282`, `toolbench-g1`, `toolbench-g2`): their query files and the sources
//!   their corpus is built from, under the shared data folder.
//! - [`ndcg_at_k`] and [`recall_at_k`] are pure functions over a ranking and a gold set;
//!   [`RetrievalScores::mean`] averages them over queries.
//!
//! ```no_run
//! use toolsmith_eval::{Benchmark, RetrievalScores};
//! let data = std::path::Path::new("../shared/data");
//! let dataset = Benchmark::RestbenchTmdb.load(data)?;
//! assert_eq!(dataset.len(), 100);
//! let ranked = ["b", "a", "c"];
//! let scores = RetrievalScores::mean([(&ranked[..], &["a"][..])]);
//! assert!(scores.ndcg_1 == 0.0 && scores.recall_5 == 1.0);
//! # Ok::<(), toolsmith_eval::Error>(())
//! ```
#![warn(missing_docs)]

pub use crate::benchmark::{Benchmark, TOOLENV2404};
pub use crate::dataset::{
    Dataset, DatasetFormat, GoldApi, Query, Resolution, ResolvedQuery, Unresolved, load, load_as,
    load_merged,
};
pub use crate::error::{Error, Result};
pub use crate::metrics::{RetrievalScores, dcg_at_k, ndcg_at_k, recall_at_k};

mod benchmark;
mod dataset;
mod error;
mod metrics;
