//! What a benchmark run is: [`BenchSpec`], stored with the run so a resumed run and its
//! report know exactly what was run.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use toolsmith_catalog::DocLabel;
use toolsmith_exec::Mode;
use toolsmith_solve::Protocol;

use crate::benchmark::Benchmark;
use crate::error::{Error, Result};
pub(super) use crate::harness::offered::ToolsOffered;

/// The solvers a run can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// ReAct (ToolBench's CoT@n).
    React,
    /// ToolBench's depth-first search-based decision tree.
    Dfsdt,
    /// ConAgents: grounding, execution and observing agents.
    Conagents,
    /// AnyTool: hierarchical agents pick APIs from the whole catalog, DFSDT over them.
    Anytool,
}

impl SolverKind {
    /// Stable name (`react`, `dfsdt`, `conagents`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::React => "react",
            Self::Dfsdt => "dfsdt",
            Self::Conagents => "conagents",
            Self::Anytool => "anytool",
        }
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether retrieval adds, after its top K, the producers of the inputs the retrieved APIs
/// need (dependency expansion over the tool graph).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expansion {
    /// Expanded, as `search` and `solve --retrieve` offer (the default).
    #[default]
    On,
    /// The plain top K.
    Off,
}

impl Expansion {
    /// Stable name (`on`, `off`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
        }
    }
}

impl fmt::Display for Expansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Expansion {
    type Err = Error;

    /// `on` or `off`.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "on" => Ok(Self::On),
            "off" => Ok(Self::Off),
            other => Err(Error::BadSpec(format!(
                "expansion `{other}`: use on or off"
            ))),
        }
    }
}

impl Benchmark {
    /// The tools a solver is offered on this benchmark unless told otherwise: RestBench TMDB
    /// offers the whole spec (as RestGPT does), ToolBench sets and query files their
    /// candidate lists.
    pub fn default_tools(&self) -> ToolsOffered {
        match self {
            Self::RestbenchTmdb | Self::Funcqa | Self::Synth(_) => ToolsOffered::All,
            Self::ToolbenchDraft282 | Self::ToolbenchG1 | Self::ToolbenchG2 | Self::File(_) => {
                ToolsOffered::Candidates
            }
        }
    }

    /// How tools are called on this benchmark unless told otherwise: simulated from their
    /// schemas and examples (offline and deterministic) for every benchmark shipped.
    pub fn default_mode(&self) -> Mode {
        Mode::Simulate
    }
}

/// One benchmark run: what runs on what, and how. Stored as JSON with the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchSpec {
    /// The run's name (shown by `bench list` and in comparisons).
    pub name: String,
    /// A benchmark name ([`Benchmark::NAMES`]) or a query file path.
    pub dataset: String,
    /// Tool specs to import for a query file (its catalog); `None` for a named benchmark
    /// (which knows its sources) or to use the catalog database as it is.
    pub catalog: Option<PathBuf>,
    /// The solver.
    pub solver: SolverKind,
    /// Render tools from the docs of this label instead of the active ones.
    pub doc_version: Option<DocLabel>,
    /// Which tools each query is offered.
    pub tools: ToolsOffered,
    /// Run only the first N queries of the dataset.
    pub limit: Option<usize>,
    /// Queries solved at once.
    pub concurrency: usize,
    /// How tools are called.
    pub mode: Mode,
    /// Seeds the candidate shuffles (and is recorded for the LLM's sampling seed).
    pub seed: u64,
    /// Whose rules the agents follow (runs stored before it was recorded read as
    /// [`Protocol::Toolsmith`]).
    #[serde(default)]
    pub protocol: Protocol,
    /// Whether retrieved tools are expanded by their dependencies (runs stored before it
    /// was recorded read as [`Expansion::On`], what they ran with).
    #[serde(default)]
    pub expansion: Expansion,
    /// Whether requests were split into intents before retrieval, as the run was started
    /// (the flag, else `[retrieve.intents]`), so a resumed run searches as it began. `None`:
    /// stored before it was recorded, or not chosen (the configuration decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intents: Option<bool>,
    /// Whether the model reranked the retrieved tools, as the run was started; `None` as
    /// for [`BenchSpec::intents`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerank: Option<bool>,
    /// The reranking stage's settings (window, depth, ...) as the run was started, when it
    /// reranked, so a resumed run reranks as it began whatever `[retrieve.rerank]` says now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerank_settings: Option<toolsmith_retrieve::RerankSettings>,
    /// The date the run's world is at, fixed when it started: its agents are told it is today
    /// and its simulator answers as of it, so a resumed or replayed run sends the prompts it
    /// began with (and hits the LLM cache) on any later day. `None`: not fixed yet (a new run,
    /// or one stored before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<jiff::civil::Date>,
}

impl BenchSpec {
    /// Queries solved at once by default.
    pub const DEFAULT_CONCURRENCY: usize = 4;

    /// A run of `solver` on `benchmark` with the benchmark's default tools and mode, every
    /// query, seed 0, named `<dataset>-<solver>` (a query file by its stem).
    pub fn new(benchmark: &Benchmark, solver: SolverKind) -> Self {
        let dataset = benchmark.name();
        let short = match benchmark {
            Benchmark::Synth(set) => format!("synth-{set}"),
            Benchmark::File(path) => path
                .file_stem()
                .map_or_else(|| dataset.clone(), |s| s.to_string_lossy().into_owned()),
            _ => dataset.clone(),
        };
        Self {
            name: format!("{short}-{solver}"),
            dataset,
            catalog: None,
            solver,
            doc_version: None,
            tools: benchmark.default_tools(),
            limit: None,
            concurrency: Self::DEFAULT_CONCURRENCY,
            mode: benchmark.default_mode(),
            seed: 0,
            protocol: Protocol::default(),
            expansion: Expansion::default(),
            intents: None,
            rerank: None,
            rerank_settings: None,
            today: None,
        }
    }

    /// The benchmark the spec names.
    pub fn benchmark(&self) -> Result<Benchmark> {
        Benchmark::parse(&self.dataset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_offered_round_trip_through_their_names()
    -> std::result::Result<(), Box<dyn std::error::Error>> {
        for (text, tools) in [
            ("candidates", ToolsOffered::Candidates),
            (
                "retrieve:10",
                ToolsOffered::Retrieve {
                    k: 10,
                    search: false,
                },
            ),
            (
                "retrieve:5+search",
                ToolsOffered::Retrieve { k: 5, search: true },
            ),
            ("search-tool", ToolsOffered::SearchTool),
            ("all", ToolsOffered::All),
        ] {
            assert_eq!(text.parse::<ToolsOffered>()?, tools);
            assert_eq!(tools.to_string(), text);
        }
        for bad in [
            "retrieve:0",
            "retrieve:",
            "retrieve:x",
            "retrieve:+search",
            "retrieve:0+search",
            "retrieve:3+more",
            "some",
        ] {
            assert!(bad.parse::<ToolsOffered>().is_err(), "{bad}");
        }
        Ok(())
    }

    #[test]
    fn a_spec_takes_the_benchmark_defaults_and_round_trips_as_json()
    -> std::result::Result<(), Box<dyn std::error::Error>> {
        let spec = BenchSpec::new(&Benchmark::RestbenchTmdb, SolverKind::React);
        assert_eq!(spec.tools, ToolsOffered::All);
        assert_eq!(spec.mode, Mode::Simulate);
        assert_eq!(spec.name, "restbench-tmdb-react");
        let json = serde_json::to_value(&spec)?;
        assert_eq!(json["tools"], "all");
        assert_eq!(json["solver"], "react");
        assert_eq!(serde_json::from_value::<BenchSpec>(json.clone())?, spec);
        assert_eq!(json["expansion"], "on");
        // A run stored before expansion was recorded ran with it on.
        let mut old = json;
        old.as_object_mut().map(|o| o.remove("expansion"));
        assert_eq!(
            serde_json::from_value::<BenchSpec>(old)?.expansion,
            Expansion::On
        );
        let mut off = spec.clone();
        off.expansion = "off".parse()?;
        assert_eq!(serde_json::to_value(&off)?["expansion"], "off");
        assert!("maybe".parse::<Expansion>().is_err());
        assert_eq!(
            BenchSpec::new(&Benchmark::ToolbenchG1, SolverKind::Dfsdt).tools,
            ToolsOffered::Candidates
        );
        let file = BenchSpec::new(
            &Benchmark::File("data/my_queries.json".into()),
            SolverKind::Conagents,
        );
        assert_eq!(file.name, "my_queries-conagents");
        assert_eq!(file.dataset, "data/my_queries.json");
        Ok(())
    }
}
