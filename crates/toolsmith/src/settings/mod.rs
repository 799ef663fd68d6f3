//! Settings from `toolsmith.toml` and the environment, read once per process into a typed
//! [`Config`]. Precedence, highest first: a command's flag, then the environment where it
//! overrides the file (`TOOLSMITH_EMBEDDER`; the `[llm]` variables of
//! [`LlmSettings::with_env`]), then the file, then the libraries' `PAPER`/default values.

mod mcp;
mod synth;

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use toolsmith_llm::LlmSettings;
use toolsmith_retrieve::{Method, RetrieveSettings};

pub(crate) use self::mcp::McpConfig;
pub(crate) use self::synth::SynthConfig;
use crate::env;

/// Everything `toolsmith.toml` configures, with the environment applied.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// `[llm]` of the file, then the environment (`OPENAI_BASE_URL`, `TOOLSMITH_MODEL`, ...).
    pub llm: LlmSettings,
    /// `[retrieve]` of the file, then `TOOLSMITH_EMBEDDER`.
    pub retrieve: RetrieveConfig,
    /// `[mcp]` of the file.
    pub mcp: McpConfig,
    /// `[solve]` of the file: the agents' shared settings (`protocol = "toolsmith" | "paper"`,
    /// `max_searches`, ...).
    pub solve: toolsmith_solve::AgentSettings,
    /// `[judge]` of the file: how the LLM judge is asked and how much judging a run gets.
    pub judge: JudgeConfig,
    /// `[anytool]` of the file: AnyTool's pool cap, rounds, token budget, search assistance.
    pub anytool: toolsmith_solve::AnyToolSettings,
    /// `[prices]` of the file: money per million prompt and completion tokens, for the cost
    /// in benchmark summaries (none by default: prices change).
    pub prices: Option<toolsmith_eval::Prices>,
    /// `[graph]` of the file: how `graph build` builds the tool graph.
    pub graph: toolsmith_graph::GraphSettings,
    /// `[refine]` of the file.
    pub refine: RefineConfig,
    /// `[serve]` of the file: `toolsmith serve`'s limits (result size, body size, ...).
    pub serve: toolsmith_serve::ServeSettings,
    /// `[exec]` of the file: how tools are executed (the simulator's page size, ...).
    pub exec: ExecConfig,
    /// `[synth]` of the file: how `toolsmith synth` makes an evaluation set.
    pub synth: SynthConfig,
}

/// The `[exec]` table: how tool calls run.
///
/// ```toml
/// [exec.simulate]
/// page_items = 10  # items on a simulated page of a longer list when the API documents no page size
/// min_items = 1    # shortest and longest synthesized list (unless the schema asks otherwise)
/// max_items = 5
/// max_depth = 8    # below this depth only required properties are filled
/// max_requested_items = 100  # most items a call may ask for (`limit`, `cnt`), also in the LLM's prompt
/// max_prompt_chars = 24000   # most characters of a fill prompt: a larger draft is shortened, else refused
/// fill = "schema"  # or "llm": the configured model rewrites the values, cached and checked
/// today = "2026-11-29"  # the simulated world's date (unset: the real UTC date); pin it for exact replays
/// ```
///
/// `today` is the one date setting: agents are told the date of the world their tools answer
/// from (`executor::world_date`: this date when the mode simulates, the real UTC date live or
/// replayed; none under `--protocol paper`), and `bench run` fixes its date when it starts and
/// stores it with the run, so a resumed run tells its agents and its simulator that date.
///
/// `allow_writes = ["library", "tmdb/delete_list"]` (top of `[exec]`) lets agents make unsafe
/// calls (POST, PUT, PATCH, DELETE, MCP tools not declared read-only) to these tools or APIs
/// in live and record modes; nothing else but safe calls goes through.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ExecConfig {
    /// The simulator's settings (`--mode simulate`, and the fallback of the replay modes).
    pub simulate: toolsmith_exec::SimulatorSettings,
    /// Tools (`tmdb`) and APIs (`tmdb/delete_list`) agents may change in live and record
    /// modes (with the commands' `--allow-write`).
    pub allow_writes: Vec<String>,
}

impl ExecConfig {
    /// The settings, checked: a page holds at least one item, and a list's fewest items are
    /// at most its most.
    fn validate(self) -> anyhow::Result<Self> {
        let s = &self.simulate;
        if s.page_items == 0 {
            anyhow::bail!("[exec.simulate] page_items must be at least 1");
        }
        if s.max_requested_items == 0 {
            anyhow::bail!("[exec.simulate] max_requested_items must be at least 1");
        }
        if s.max_prompt_chars < 1_000 {
            anyhow::bail!("[exec.simulate] max_prompt_chars must be at least 1000");
        }
        if s.min_items > s.max_items {
            anyhow::bail!(
                "[exec.simulate] min_items ({}) is more than max_items ({})",
                s.min_items,
                s.max_items
            );
        }
        Ok(self)
    }
}

/// The `[judge]` table:
///
/// ```toml
/// [judge]
/// runs = 3                 # judge each run 3 times: pass rates as mean ± std
/// win_rounds = 2           # rounds (each in both orders) per query of a win rate
/// draws = "shared"         # one verdict per question and judge run ("independent": per vote)
/// temperature = 0.2
/// ```
///
/// The judge's model is `[llm] role_models.judge` (else `[llm] model`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct JudgeConfig {
    /// Judge runs per benchmark run (judge variance): 1.
    pub runs: usize,
    /// ToolEval samples per judgement: 4.
    pub tooleval_samples: usize,
    /// AnyTool votes per judgement: 3.
    pub anytool_votes: usize,
    /// `shared` (default): each question asked once per judge run, read by every sample
    /// and vote; `independent`: each sample and vote its own seeded draw, as the papers' code.
    pub draws: toolsmith_eval::VoteDraws,
    /// Rounds per query of a win rate: 2.
    pub win_rounds: usize,
    /// Sampling temperature of the judge (ToolEval: 0.2).
    pub temperature: Option<f32>,
    /// Largest judge reply in tokens (ToolEval: 1,000).
    pub max_tokens: Option<u32>,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        let paper = toolsmith_eval::JudgeSettings::PAPER;
        let llm = toolsmith_eval::LlmJudgeSettings::PAPER;
        Self {
            runs: paper.runs,
            tooleval_samples: paper.pass.tooleval_samples,
            anytool_votes: paper.pass.anytool_votes,
            draws: toolsmith_eval::VoteDraws::default(),
            win_rounds: paper.win_rounds,
            temperature: llm.temperature,
            max_tokens: llm.max_tokens,
        }
    }
}

impl JudgeConfig {
    /// The harness's judge settings, `runs` overriding the file's when given.
    pub(crate) fn settings(&self, runs: Option<usize>) -> toolsmith_eval::JudgeSettings {
        toolsmith_eval::JudgeSettings {
            runs: runs.unwrap_or(self.runs).max(1),
            pass: toolsmith_eval::PassRateSettings {
                tooleval_samples: self.tooleval_samples,
                anytool_votes: self.anytool_votes,
                draws: self.draws,
            },
            win_rounds: self.win_rounds.max(1),
            seed: 0,
        }
    }

    /// How the LLM judge is asked.
    pub(crate) fn llm(&self) -> toolsmith_eval::LlmJudgeSettings {
        let paper = toolsmith_eval::LlmJudgeSettings::PAPER;
        toolsmith_eval::LlmJudgeSettings {
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            ..paper
        }
    }
}

impl Config {
    /// Reads the config file (`TOOLSMITH_CONFIG`, else `./toolsmith.toml` when present) and
    /// applies the environment.
    pub(crate) fn load() -> anyhow::Result<Self> {
        let file = match config_path() {
            Some(path) => {
                tracing::debug!(path = %path.display(), "reading the config file");
                read_config(&path)?
            }
            None => ConfigFile::default(),
        };
        let embedder = std::env::var(env::EMBEDDER).ok().filter(|v| !v.is_empty());
        Self::resolve(file, embedder.as_deref())
    }

    /// The config of a parsed file, `embedder` being `TOOLSMITH_EMBEDDER` when set.
    fn resolve(file: ConfigFile, embedder: Option<&str>) -> anyhow::Result<Self> {
        let mut retrieve = file.retrieve.unwrap_or_default();
        if let Some(raw) = embedder {
            retrieve.embedder = raw
                .parse()
                .with_context(|| format!("reading {}", env::EMBEDDER))?;
        }
        Ok(Self {
            llm: file.llm.unwrap_or_default().with_env(),
            retrieve,
            mcp: file.mcp.unwrap_or_default(),
            solve: file.solve.unwrap_or_default(),
            judge: file.judge.unwrap_or_default(),
            anytool: file.anytool.unwrap_or_default(),
            prices: file.prices,
            graph: file.graph.unwrap_or_default(),
            refine: file.refine.unwrap_or_default(),
            serve: file.serve.unwrap_or_default(),
            exec: file.exec.unwrap_or_default().validate()?,
            synth: file.synth.unwrap_or_default(),
        })
    }

    /// The LLM settings with `--model` applied when given.
    pub(crate) fn llm_settings(&self, model_flag: Option<&str>) -> LlmSettings {
        let mut settings = self.llm.clone();
        if let Some(model) = model_flag {
            model.clone_into(&mut settings.model);
        }
        settings
    }
}

/// `toolsmith.toml` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigFile {
    /// The LLM endpoint: `base_url`, `model`, `role_models` (a model per agent
    /// role: agent, grounding, execution, observing, judge, ...), timeouts, retries.
    llm: Option<LlmSettings>,
    /// MCP servers by name (`[mcp.servers.NAME]`), which `mcp://NAME` refers to.
    mcp: Option<McpConfig>,
    /// Retrieval: the default method, the embedder, and each method's settings.
    retrieve: Option<RetrieveConfig>,
    /// The agents' shared settings (protocol, search budget, observation length, ...).
    solve: Option<toolsmith_solve::AgentSettings>,
    /// The LLM judge and how much judging a benchmark run gets.
    judge: Option<JudgeConfig>,
    /// AnyTool's settings (`pool_cap`, `token_budget`, `search_assisted`, `category_by`, ...).
    anytool: Option<toolsmith_solve::AnyToolSettings>,
    /// Money per million tokens: `prompt_per_million`, `completion_per_million`.
    prices: Option<toolsmith_eval::Prices>,
    /// The tool graph's settings.
    graph: Option<toolsmith_graph::GraphSettings>,
    /// Doc refinement: each method's settings.
    refine: Option<RefineConfig>,
    /// `toolsmith serve`: `max_result_chars`, `page_chars`, `expose_top_n`, `max_body_bytes`,
    /// `max_concurrent_requests`, ...
    serve: Option<toolsmith_serve::ServeSettings>,
    /// How tools are executed: `[exec.simulate]` (`page_items`, `min_items`, `max_items`,
    /// `max_depth`).
    exec: Option<ExecConfig>,
    /// `toolsmith synth`: path counts, requests per path, split share, answer check.
    synth: Option<SynthConfig>,
}

/// The `[refine]` table: each method's settings, by default its paper's (`PAPER`).
///
/// ```toml
/// [refine.draft]
/// max_rounds = 5            # I
/// diversity_threshold = 0.9 # phi
/// stop_similarity = 0.75    # tau
/// [refine.easytool]
/// examples_per_api = 1
/// [refine.expnet]
/// iterations = 3
/// max_try = 10
/// [refine.queries]
/// count = 10                # synthetic requests per API (Re-Invoke)
/// dedup_threshold = 0.9     # cosine at which a request is a near-duplicate
/// apis_per_call = 1        # APIs whose views one request writes (texts only above 1)
/// pack_tools = false       # above 1, small tools share a request (not yet measured)
/// [refine.gate]
/// rule = "sign_test"       # sign_test | margin (docs/gate.md)
/// alpha = 0.05
/// margin = 0.0
/// depth = 100
/// view_cosine = 0.9        # eval requests this close to a view are left out (docs/gate.md)
/// scope = "label"          # label | api: what one decision covers (docs/gate.md)
/// ```
///
/// `invented_values` (`shape_only` | `exclude` | `trust`, default `shape_only`) says what
/// DRAFT and EasyTool may learn from a response the simulator or a model made up: its shape
/// only (the prompt marks it, and a rewritten sentence quoting a value only it held is
/// removed), its skeleton only (values replaced by their types), or everything (as before).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RefineConfig {
    /// DRAFT's settings.
    pub draft: toolsmith_refine::DraftSettings,
    /// EasyTool's settings.
    pub easytool: toolsmith_refine::EasyToolSettings,
    /// ToolExpNet's settings.
    pub expnet: toolsmith_refine::ExpNetSettings,
    /// What DRAFT and EasyTool may learn from invented responses (issue 31).
    pub invented_values: toolsmith_refine::InventedValues,
    /// The query writer's settings (`refine --method queries`).
    pub queries: toolsmith_refine::QueryWriterSettings,
    /// The activation gate's rule (`docs gate`, `refine --gate`; docs/gate.md).
    pub gate: toolsmith_eval::gate::GateSettings,
}

/// The `[retrieve]` table:
///
/// ```toml
/// [retrieve]
/// method = "hybrid"        # bm25 | dense | hybrid: what search, solve and bench use by default
/// embedder = "local"       # local (MiniLM on the CPU) | http ([llm] base_url, embedding_model)
/// embedding_dimensions = 1536
/// embed_on_search_max = 2000   # search/solve embed a catalog on the fly only up to this many APIs
/// [retrieve.dense]
/// vectors = "int8"         # int8 (default: a quarter of the bytes scanned, top k x rescore rescored in f32) | f32
/// rescore = 4
/// views = "max"           # max (Re-Invoke: best of doc and views) | mean_top2 | doc_only
/// [retrieve.dense.fields]  # and [retrieve.bm25.weights]: a field left out keeps its default
/// source = 0.0             # > 0: the description as imported, beside a refined doc (a view; a BM25 field)
/// [retrieve.hybrid]
/// fusion = { kind = "zscore", bm25 = 0.5 }   # default | { kind = "rrf", k = 60.0, dense_weight = 1.0 }
/// [retrieve.intents]
/// enabled = false          # split requests into intents with the model (role `intents`); --intents
/// fusion = "round_robin"   # round_robin | rrf: how the per-intent rankings are merged
/// max_intents = 5
/// [retrieve.rerank]
/// enabled = false          # reorder the top candidates with the model (role `rerank`); --rerank
/// depth = 20               # candidates the model sees (RankGPT's window)
/// doc_chars = 300          # each candidate's one-line doc is cut to this
/// window = "fused"         # fused | per_intent: with --intents, show each intent's own top list by need
/// per_intent = 30          # per_intent: how deep each intent's list is shown
/// ```
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RetrieveConfig {
    /// The method when a command gets no `--method`. By default [`Method::default`], chosen by
    /// measurement on the retrieval benchmarks.
    pub method: Method,
    /// Which embedder dense and hybrid search use. `TOOLSMITH_EMBEDDER` overrides it.
    pub embedder: EmbedderKind,
    /// Vector length of the HTTP embedder's model (1536 for `text-embedding-3-small`).
    pub embedding_dimensions: usize,
    /// `search` and `solve --retrieve` embed the APIs with no cached vector on the fly only
    /// when the catalog has at most this many APIs; a larger one without its dense index is
    /// searched with BM25 and a note says to run `toolsmith index`. By default 2,000 (about
    /// half a minute of MiniLM on two cores).
    pub embed_on_search_max: usize,
    /// BM25's settings.
    pub bm25: toolsmith_retrieve::Bm25Settings,
    /// The dense index's settings.
    pub dense: toolsmith_retrieve::DenseSettings,
    /// The fusion's settings.
    pub hybrid: toolsmith_retrieve::HybridSettings,
    /// `[retrieve.expand]`: dependency-aware expansion of result lists.
    pub expand: toolsmith_retrieve::ExpandSettings,
    /// `[retrieve.intents]`: intent extraction at query time (off by default).
    pub intents: toolsmith_retrieve::IntentSettings,
    /// `[retrieve.rerank]`: listwise LLM reranking before expansion (off by default).
    pub rerank: toolsmith_retrieve::RerankSettings,
}

impl Default for RetrieveConfig {
    fn default() -> Self {
        let settings = RetrieveSettings::default();
        Self {
            method: Method::default(),
            embedder: EmbedderKind::Local,
            embedding_dimensions: 1536,
            embed_on_search_max: 2_000,
            bm25: settings.bm25,
            dense: settings.dense,
            hybrid: settings.hybrid,
            expand: toolsmith_retrieve::ExpandSettings::default(),
            intents: toolsmith_retrieve::IntentSettings::default(),
            rerank: toolsmith_retrieve::RerankSettings::default(),
        }
    }
}

impl RetrieveConfig {
    /// The settings of every method.
    pub(crate) fn settings(&self) -> RetrieveSettings {
        RetrieveSettings {
            bm25: self.bm25,
            dense: self.dense,
            hybrid: self.hybrid,
        }
    }

    /// The method to use: the flag's, else the configured one.
    pub(crate) fn method(&self, flag: Option<Method>) -> Method {
        flag.unwrap_or(self.method)
    }
}

/// Where embeddings come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum EmbedderKind {
    /// all-MiniLM-L6-v2 on the CPU (installed by `scripts/install-model.sh`).
    #[default]
    Local,
    /// The OpenAI-compatible `/embeddings` endpoint of the `[llm]` settings.
    Http,
}

impl std::str::FromStr for EmbedderKind {
    type Err = anyhow::Error;
    fn from_str(raw: &str) -> anyhow::Result<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "local" => Ok(Self::Local),
            "http" => Ok(Self::Http),
            other => anyhow::bail!("unknown embedder `{other}`: expected local or http"),
        }
    }
}

/// The config file to read: `TOOLSMITH_CONFIG`, else `./toolsmith.toml` if it exists.
fn config_path() -> Option<PathBuf> {
    match std::env::var_os(env::CONFIG) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ => Some(PathBuf::from("toolsmith.toml")).filter(|p| p.exists()),
    }
}

/// Reads a config file.
fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("reading the config file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str, embedder: Option<&str>) -> anyhow::Result<Config> {
        Config::resolve(toml::from_str(text)?, embedder)
    }

    #[test]
    fn the_file_sets_the_simulators_page_size_and_refuses_an_empty_page() -> anyhow::Result<()> {
        let c = config("[exec.simulate]\npage_size = 7\n", None)?;
        assert_eq!(c.exec.simulate.page_items, 7, "its former name still reads");
        assert_eq!(c.exec.simulate.max_items, 5, "the rest stays the default");
        assert_eq!(config("", None)?.exec.simulate.page_items, 10);
        let zero = config("[exec.simulate]\npage_items = 0\n", None).unwrap_err();
        assert!(zero.to_string().contains("page_items"), "{zero}");
        assert!(config("[exec.simulate]\npage = 3\n", None).is_err());
        let prompt = config("[exec.simulate]\nmax_prompt_chars = 8000\n", None)?;
        assert_eq!(prompt.exec.simulate.max_prompt_chars, 8000);
        assert!(config("[exec.simulate]\nmax_prompt_chars = 10\n", None).is_err());
        let dated = config("[exec.simulate]\ntoday = \"2026-01-15\"\n", None)?;
        let today = dated.exec.simulate.today.map(|d| d.to_string());
        assert_eq!(today.as_deref(), Some("2026-01-15"));
        assert!(config("[exec.simulate]\ntoday = \"next week\"\n", None).is_err());
        Ok(())
    }

    #[test]
    fn the_file_sets_the_graph_and_the_dependency_expansion() -> anyhow::Result<()> {
        let c = config(
            "[graph]\nphi = 0.7\n[retrieve.expand]\nbudget = 5\nmode = \"producers\"\nswap = 3\n",
            None,
        )?;
        assert_eq!(c.graph.phi, 0.7);
        assert_eq!(c.graph.initial_weight, 1.0, "the rest stays the paper's");
        assert_eq!(c.retrieve.expand.budget, 5);
        assert_eq!(c.retrieve.expand.swap, 3);
        assert_eq!(
            c.retrieve.expand.mode,
            toolsmith_retrieve::ExpandMode::Producers
        );
        assert!(c.retrieve.expand.enabled);
        let d = config("", None)?;
        assert_eq!(d.graph, toolsmith_graph::GraphSettings::PAPER);
        assert_eq!(
            d.retrieve.expand,
            toolsmith_retrieve::ExpandSettings::DEFAULT
        );
        assert!(
            config("[graph]\nfi = 0.7\n", None).is_err(),
            "typos are errors"
        );
        Ok(())
    }

    #[test]
    fn the_file_sets_intent_extraction_off_by_default() -> anyhow::Result<()> {
        use toolsmith_retrieve::{IntentFusion, IntentSettings};
        assert_eq!(config("", None)?.retrieve.intents, IntentSettings::DEFAULT);
        assert!(
            !config("", None)?.retrieve.intents.enabled,
            "off by default"
        );
        let c = config(
            "[retrieve.intents]
enabled = true
fusion = \"rrf\"
max_intents = 3
",
            None,
        )?;
        assert!(c.retrieve.intents.enabled);
        assert_eq!(c.retrieve.intents.fusion, IntentFusion::Rrf);
        assert_eq!(c.retrieve.intents.max_intents, 3);
        assert!(
            config(
                "[retrieve.intents]
fusion = \"sum\"
",
                None
            )
            .is_err()
        );
        Ok(())
    }

    #[test]
    fn the_file_sets_reranking_off_by_default() -> anyhow::Result<()> {
        use toolsmith_retrieve::RerankSettings;
        let d = config("", None)?.retrieve.rerank;
        assert_eq!(d, RerankSettings::DEFAULT);
        assert!(!d.enabled && d.depth == 20, "off, RankGPT's window");
        let c = config("[retrieve.rerank]\nenabled = true\ndepth = 10\n", None)?;
        assert!(c.retrieve.rerank.enabled);
        assert_eq!(c.retrieve.rerank.depth, 10);
        assert!(config("[retrieve.rerank]\nwindow = 10\n", None).is_err());
        assert_eq!(
            d.window,
            toolsmith_retrieve::RerankWindow::Fused,
            "today's window"
        );
        let c = config(
            "[retrieve.rerank]\nwindow = \"per_intent\"\nper_intent = 12\n",
            None,
        )?;
        assert!(c.retrieve.rerank.per_intent_window());
        assert_eq!(c.retrieve.rerank.per_intent, 12);
        assert!(config("[retrieve.rerank]\nwindow = \"needs\"\n", None).is_err());
        Ok(())
    }

    #[test]
    fn the_file_sets_retrieval_and_the_environment_overrides_the_embedder() {
        let text = "[retrieve]\nmethod = \"bm25\"\nembedder = \"http\"\n";
        let from_file = config(text, None).unwrap();
        assert_eq!(from_file.retrieve.method, Method::Bm25);
        assert_eq!(from_file.retrieve.embedder, EmbedderKind::Http);
        let overridden = config(text, Some("local")).unwrap();
        assert_eq!(overridden.retrieve.embedder, EmbedderKind::Local);
        assert!(config(text, Some("gpu")).is_err());
    }

    #[test]
    fn solve_judge_and_prices_tables_are_read() {
        let text = "[solve]\nprotocol = \"paper\"\nmax_searches = 2\n\n[judge]\nruns = 3\n\n\
                    [prices]\nprompt_per_million = 0.15\ncompletion_per_million = 0.6\n";
        let config = config(text, None).unwrap();
        assert_eq!(config.solve.protocol, toolsmith_solve::Protocol::Paper);
        assert_eq!(config.solve.max_searches, 2);
        assert_eq!(config.judge.settings(None).runs, 3);
        assert_eq!(config.judge.settings(Some(5)).runs, 5);
        assert_eq!(config.judge.settings(None).pass.anytool_votes, 3);
        assert_eq!(config.prices.map(|p| p.completion_per_million), Some(0.6));
        let default = Config::default();
        assert_eq!(default.solve.protocol, toolsmith_solve::Protocol::Toolsmith);
        assert!(config_from("[solve]\nprotocol = \"other\"\n").is_err());
    }

    fn config_from(text: &str) -> anyhow::Result<Config> {
        config(text, None)
    }

    #[test]
    fn a_flag_beats_the_file() {
        let config = config("[retrieve]\nmethod = \"dense\"\n", None).unwrap();
        assert_eq!(config.retrieve.method(None), Method::Dense);
        assert_eq!(config.retrieve.method(Some(Method::Bm25)), Method::Bm25);
        assert_eq!(config.llm_settings(Some("m-flag")).model, "m-flag");
    }

    #[test]
    fn no_file_means_the_defaults_and_unknown_keys_are_errors() {
        let empty = config("", None).unwrap();
        assert_eq!(empty.retrieve.method, Method::default());
        assert!(empty.mcp.servers.is_empty());
        assert!(config("[retrieve]\nmethdo = \"dense\"\n", None).is_err());
        assert!(config("[llmm]\n", None).is_err());
    }

    #[test]
    fn refine_settings_default_to_the_papers_and_the_file_overrides_them() {
        let empty = config("", None).unwrap();
        assert_eq!(empty.refine.draft, toolsmith_refine::DraftSettings::PAPER);
        let set = config("[refine.draft]\nmax_rounds = 3\n", None).unwrap();
        assert_eq!(set.refine.draft.max_rounds, 3);
        assert_eq!(set.refine.draft.stop_similarity, 0.75);
        assert!(config("[refine.draft]\nrounds = 3\n", None).is_err());
        use toolsmith_refine::InventedValues;
        assert_eq!(empty.refine.invented_values, InventedValues::ShapeOnly);
        let trust = config("[refine]\ninvented_values = \"trust\"\n", None).unwrap();
        assert_eq!(trust.refine.invented_values, InventedValues::Trust);
        assert!(config("[refine]\ninvented_values = \"some\"\n", None).is_err());
    }
}
