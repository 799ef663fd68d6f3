//! The named retrieval benchmarks: which query files to load and which sources make up the
//! corpus they are scored against, relative to the shared data folder.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::dataset::{Dataset, load, load_merged};
use crate::error::{Error, Result};

/// A retrieval benchmark: a named one from the shared data, or a query file of the user's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Benchmark {
    /// RestBench TMDB: RestGPT's 100 queries over the 54 TMDB endpoints, with DRAFT's and
    /// EasyTool's refined docs (`draft-ref`, `easytool-ref`).
    RestbenchTmdb,
    /// DRAFT's ToolBench subset: 199 G2-category queries over 282 tools (+3 that only `G2.json`
    /// carries), with DRAFT's and EasyTool's refined docs.
    ToolbenchDraft282,
    /// StableToolBench G1 (instruction, category and tool sets, 474 queries) over the
    /// 46,802 APIs of ToolEnv2404.
    ToolbenchG1,
    /// StableToolBench G2 (instruction and category sets, 230 queries) over ToolEnv2404.
    ToolbenchG2,
    /// FuncQA one-hop (ToolkenGPT): 60 arithmetic questions over the 13 built-in FuncQA
    /// tools, scored by the answer's number.
    Funcqa,
    /// A query file in any format [`load`] reads, scored against the user's catalog.
    File(PathBuf),
    /// The eval split of a set `toolsmith synth` stored in the catalog database
    /// (`synth:NAME`), scored against that catalog; read with
    /// [`synth::eval_dataset`](crate::synth::eval_dataset).
    Synth(String),
}

/// The prefix naming a synthesized set as a dataset: `synth:NAME`.
pub const SYNTH_PREFIX: &str = "synth:";

/// The ToolEnv2404 archive, relative to the data folder.
pub const TOOLENV2404: &str = "toolbench/toolenv2404/toolenv2404_filtered.tar.gz";

const STB: &str = "toolbench/stabletoolbench/test_instruction";

impl Benchmark {
    /// The names [`Benchmark::parse`] accepts besides file paths.
    pub const NAMES: [&'static str; 5] = [
        "restbench-tmdb",
        "toolbench-draft282",
        "toolbench-g1",
        "toolbench-g2",
        "funcqa",
    ];

    /// A benchmark by name, or else a file path that exists.
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "restbench-tmdb" => Self::RestbenchTmdb,
            "toolbench-draft282" => Self::ToolbenchDraft282,
            "toolbench-g1" => Self::ToolbenchG1,
            "toolbench-g2" => Self::ToolbenchG2,
            "funcqa" => Self::Funcqa,
            other if other.starts_with(SYNTH_PREFIX) => match &other[SYNTH_PREFIX.len()..] {
                "" => return Err(Error::UnknownBenchmark(other.to_owned())),
                set => Self::Synth(set.to_owned()),
            },
            other if Path::new(other).is_file() => Self::File(PathBuf::from(other)),
            other => return Err(Error::UnknownBenchmark(other.to_owned())),
        })
    }

    /// The benchmark's name (the file path for [`Benchmark::File`]).
    pub fn name(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Synth(set) => format!("{SYNTH_PREFIX}{set}"),
            named => Self::NAMES
                .get(named.position())
                .map_or_else(String::new, |s| (*s).to_owned()),
        }
    }

    fn position(&self) -> usize {
        match self {
            Self::RestbenchTmdb => 0,
            Self::ToolbenchDraft282 => 1,
            Self::ToolbenchG1 => 2,
            Self::ToolbenchG2 | Self::File(_) | Self::Synth(_) => 3,
            Self::Funcqa => 4,
        }
    }

    /// The query files, under `data_dir`.
    pub fn query_files(&self, data_dir: &Path) -> Vec<PathBuf> {
        let stb = |names: &[&str]| {
            names
                .iter()
                .map(|n| data_dir.join(STB).join(format!("{n}.json")))
                .collect()
        };
        match self {
            Self::RestbenchTmdb => vec![data_dir.join("restbench-tmdb/restgpt/tmdb.json")],
            Self::ToolbenchDraft282 => vec![data_dir.join("toolbench/draft282/G2.json")],
            Self::ToolbenchG1 => stb(&["G1_instruction", "G1_category", "G1_tool"]),
            Self::ToolbenchG2 => stb(&["G2_instruction", "G2_category"]),
            Self::Funcqa => vec![data_dir.join("funcqa/funcqa_oh.json")],
            Self::File(path) => vec![path.clone()],
            Self::Synth(_) => Vec::new(),
        }
    }

    /// The sources to import, in order, to build the benchmark's corpus (empty for a
    /// [`Benchmark::File`]: that is scored against the user's catalog). Refined-doc files come
    /// last; import them without activating so the original docs stay the active ones.
    pub fn corpus_sources(&self, data_dir: &Path) -> Vec<PathBuf> {
        let files = |names: &[&str]| names.iter().map(|n| data_dir.join(n)).collect();
        match self {
            Self::RestbenchTmdb => files(&[
                "restbench-tmdb/restgpt/tmdb_oas.json",
                "restbench-tmdb/draft/TMDB_DRAFT.json",
                "restbench-tmdb/easytool/tmdb_tool.json",
            ]),
            Self::ToolbenchDraft282 => files(&[
                "toolbench/draft282/Initial.json",
                // Three tools its queries use are missing from Initial.json; G2's api_lists have them.
                "toolbench/draft282/G2.json",
                "toolbench/draft282/DRAFT.json",
                "toolbench/draft282/EasyTool.json",
            ]),
            Self::ToolbenchG1 | Self::ToolbenchG2 => files(&[TOOLENV2404]),
            // FuncQA's tools are built in (`toolsmith_exec::NativeTools::funcqa`).
            Self::File(_) | Self::Funcqa | Self::Synth(_) => Vec::new(),
        }
    }

    /// Whether it is scored against the user's own catalog (the `--db` one) rather than
    /// sources of its own: a query file or a synthesized set.
    pub fn uses_own_catalog(&self) -> bool {
        matches!(self, Self::File(_) | Self::Synth(_))
    }

    /// Loads the benchmark's queries from `data_dir` (one file, or several merged). A
    /// synthesized set lives in the catalog database: read it with
    /// [`synth::eval_dataset`](crate::synth::eval_dataset).
    pub fn load(&self, data_dir: &Path) -> Result<Dataset> {
        if let Self::Synth(set) = self {
            return Err(Error::BadSpec(format!(
                "the synthesized set `{set}` is read from the catalog database, not from {}",
                data_dir.display()
            )));
        }
        let files = self.query_files(data_dir);
        match files.as_slice() {
            [one] => {
                let mut dataset = load(one)?;
                dataset.name = self.name();
                Ok(dataset)
            }
            many => load_merged(&self.name(), many),
        }
    }
}
