//! Every flag and subcommand of the command line, as clap types. Doc comments here are the
//! help text. This module imports nothing from `commands`: commands import their flags
//! from here (uv's `uv-cli` shape). Enumerated flags are `ValueEnum`s, so `--help` lists
//! their values, and map onto the library enums through `From` (libraries know no clap).

use std::net::IpAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use toolsmith_catalog::{ApiId, DocLabel, DocSelector, DocTarget, Scope, ToolId};
use toolsmith_retrieve::Filter;

use crate::env;

/// toolsmith: make LLM agents master large sets of tools.
///
/// Import tool specs into a catalog, refine their docs, search them, solve
/// tasks with them, and measure it all.
#[derive(Debug, Parser)]
#[command(name = "toolsmith", version, about, long_about = None)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of [`Global`]'s flags.
const GLOBAL: &str = "Global options";

/// Options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The catalog database (one SQLite file).
    #[arg(long, global = true, env = env::DB, default_value = "toolsmith.db", help_heading = GLOBAL)]
    pub db: PathBuf,
    /// No progress bars or spinners (they are also hidden when stderr is not a terminal).
    #[arg(short, long, global = true, help_heading = GLOBAL)]
    pub quiet: bool,
    /// More log output on stderr: `-v` info, `-vv` debug, `-vvv` trace (default: warnings).
    /// `RUST_LOG` overrides it.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,
    /// Colors in the log on stderr: `auto` when stderr is a terminal and `NO_COLOR` is unset.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = GLOBAL)]
    pub color: ColorChoice,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import tools or docs: OpenAPI/Swagger specs, RapidAPI tool files, folders
    /// and .tar.gz archives, ToolBench query files, DRAFT tool sets, OpenAI
    /// function lists, and DRAFT's or EasyTool's refined docs.
    Import(ImportArgs),
    /// List the catalog's APIs.
    Tools(ToolsArgs),
    /// Show one API (or tool) with its docs.
    Show(ShowArgs),
    /// Export docs as OpenAPI 3.1, OpenAI tools JSON, an MCP tool list or Markdown.
    Export(ExportArgs),
    /// Counts and token statistics of the docs.
    Stats(StatsArgs),
    /// Report where the docs contradict themselves (type/enum mismatches, bounds described
    /// backwards, missing descriptions or response schemas), per API, with a count per kind.
    Lint(LintArgs),
    /// Doc versions: history (with refinement rounds), diff, activate (rollback), add.
    Docs(DocsArgs),
    /// Refine docs into new versions: EasyTool's concise instructions with executed examples,
    /// or DRAFT's explore/analyze/rewrite rounds. Resumable; nothing is activated.
    Refine(RefineArgs),
    /// Embed every API's doc once and keep the vectors in the catalog database.
    Index(IndexArgs),
    /// Find the APIs that fit a query (BM25, embeddings, or both).
    Search(SearchArgs),
    /// Measure retrieval quality (NDCG, recall) or search speed.
    Bench(BenchArgs),
    /// Write a static HTML report of benchmark runs: the comparison table, SVG plots, the
    /// error taxonomy, one page per query with its trace, and diffs of the doc versions used.
    Report(ReportArgs),
    /// Call one API (live, recorded, replayed or simulated) and print the observation as JSON.
    Call(CallArgs),
    /// Serve the example library API (authors, books, loans) for the quickstart.
    ExampleApi(ExampleApiArgs),
    /// A guided tour on the example library API: import, index, search, simulated and live
    /// calls, and the retrieval benchmark, each step the command a user would run.
    Quickstart(QuickstartArgs),
    /// The tool environment: how calls were answered (live, replayed, simulated), per tool.
    Env(EnvArgs),
    /// Answer a query by calling tools with an agent (ReAct, DFSDT, ConAgents, AnyTool).
    Solve(SolveArgs),
    /// ToolExpNet's tool graph: similarity and dependency edges between APIs (build, show,
    /// export, stats).
    Graph(GraphArgs),
    /// Synthesize an evaluation set from the catalog: requests with gold API paths, kept only
    /// when their calls run (run, list, show, export). Use it as `--dataset synth:NAME`.
    Synth(SynthArgs),
    /// Internal: the jq sandbox's child process.
    #[command(name = "__jq-sandbox", hide = true)]
    JqSandbox(JqSandboxArgs),
    /// Serve the catalog to agents: an MCP server (stdio, or streamable HTTP at `/mcp`) with
    /// search_tools, describe_tool, call_tool and read_result, and an HTTP API
    /// (`/v1/tools`, `/v1/search`, `/v1/call`, `/v1/solve`, `/openapi.json`, ...).
    Serve(ServeArgs),
}

// ---------------------------------------------------------------------------------------------
// Shared flag groups (`#[command(flatten)]`).

/// `--doc-version LABEL`: which docs a command reads.
#[derive(Debug, Clone, Default, Args)]
pub struct DocVersionArg {
    /// Use the docs of this label (`original`, `draft-ref`, `easytool-ref`, ...) instead of
    /// the active ones; an API without a doc of that label shows its active doc.
    #[arg(long = "doc-version", value_name = "LABEL")]
    pub doc_version: Option<DocLabel>,
}

impl DocVersionArg {
    /// The catalog view: the label's docs, or the active ones when absent.
    pub fn selector(&self) -> DocSelector {
        self.doc_version
            .as_ref()
            .map_or(DocSelector::Active, |l| DocSelector::Label(l.clone()))
    }
}

/// `--json`: machine-readable output.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct JsonArg {
    /// Print JSON instead of text (the stable, scriptable form).
    #[arg(long)]
    pub json: bool,
}

/// `--category` and `--tool`: a part of the catalog.
#[derive(Debug, Clone, Default, Args)]
pub struct ScopeArgs {
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this tool (its id).
    #[arg(long)]
    pub tool: Option<ToolId>,
}

impl ScopeArgs {
    /// The catalog scope these flags name.
    pub fn scope(&self) -> Scope {
        Scope {
            category: self.category.clone(),
            tool: self.tool.clone(),
        }
    }

    /// The same restriction as a retrieval filter.
    pub fn filter(&self) -> Filter {
        Filter {
            category: self.category.clone(),
            tool: self.tool.clone(),
        }
    }
}

/// `--method`: how to retrieve.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct MethodArg {
    /// The retrieval method. Dense and hybrid embed every API not yet embedded (run
    /// `toolsmith index` first on a large catalog). By default `[retrieve] method` of
    /// toolsmith.toml, else hybrid.
    #[arg(long, value_enum, ignore_case = true)]
    pub method: Option<SearchMethod>,
}

/// `--intents` / `--no-intents`: intent extraction at query time.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct IntentsArg {
    /// Split the request into its tool-related intents with the configured model (role
    /// `intents`, cached), search each on its own and fuse the lists so each intent gets its
    /// share of the K slots; one intent is the plain search. Default: `[retrieve.intents]
    /// enabled` of toolsmith.toml, else off.
    #[arg(long, overrides_with = "no_intents")]
    pub intents: bool,
    /// Search the request as written, whatever toolsmith.toml says.
    #[arg(long, overrides_with = "intents")]
    pub no_intents: bool,
}

impl IntentsArg {
    /// `Some(on)` when a flag was given.
    pub fn choice(&self) -> Option<bool> {
        match (self.intents, self.no_intents) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `--rerank` / `--no-rerank`: listwise LLM reranking of the first stage's top candidates.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct RerankArg {
    /// Show the configured model (role `rerank`, cached) the request and the top
    /// `[retrieve.rerank] depth` candidates (default 20), and put the ones it names first in
    /// its order, the rest after in their old order; dependency expansion then runs on the
    /// reranked list. Default: `[retrieve.rerank] enabled` of toolsmith.toml, else off.
    /// With `--intents` and `[retrieve.rerank] window = "per_intent"`, a request with several
    /// intents shows the model each intent's own top `per_intent` (default 30) by need, and
    /// every need's picks share the first slots.
    #[arg(long, overrides_with = "no_rerank")]
    pub rerank: bool,
    /// Keep the first stage's order, whatever toolsmith.toml says.
    #[arg(long, overrides_with = "rerank")]
    pub no_rerank: bool,
}

impl RerankArg {
    /// `Some(on)` when a flag was given.
    pub fn choice(&self) -> Option<bool> {
        match (self.rerank, self.no_rerank) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// `--mode`: where tool calls go.
#[derive(Debug, Clone, Copy, Args)]
pub struct ModeArg {
    /// Where calls go.
    #[arg(long, value_enum, default_value_t = CallMode::Simulate)]
    pub mode: CallMode,
}

/// `--allow-write`: what an agent may change on a live API.
#[derive(Debug, Clone, Default, Args)]
pub struct AllowWriteArg {
    /// Let the agent make unsafe calls (POST, PUT, PATCH, DELETE, MCP tools not declared
    /// read-only) to this tool (`library`) or API (`library/delete_book`) in live and record
    /// modes; repeatable, added to `[exec] allow_writes`. Without it only GET, HEAD, OPTIONS
    /// and read-only tools run, and any other call is refused as `not_allowed`.
    #[arg(long = "allow-write", value_name = "TOOL|API")]
    pub allow_write: Vec<String>,
}

/// `--model`, `--cache`, `--max-llm-calls`, `--max-tokens`: the LLM an agent runs on.
#[derive(Debug, Clone, Args)]
pub struct LlmArgs {
    /// Model (default: `TOOLSMITH_MODEL`, else `[llm] model` in toolsmith.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// LLM response cache (`replay` reproduces a recorded run with no LLM).
    #[arg(long, value_enum, default_value_t = LlmCache::ReadWrite)]
    pub cache: LlmCache,
    /// Stop (a run, or each query of a benchmark) after this many LLM calls.
    #[arg(long, default_value_t = 200)]
    pub max_llm_calls: u64,
    /// Stop (a run, or each query of a benchmark) after this many tokens.
    #[arg(long)]
    pub max_tokens: Option<u64>,
}

/// `--data-dir`: the shared benchmark data.
#[derive(Debug, Clone, Default, Args)]
pub struct DataDirArg {
    /// The shared benchmark data (default: `$TOOLSMITH_DATA`, else the nearest
    /// `shared/data` in or above the current folder's parents).
    #[arg(long = "data-dir", env = env::DATA)]
    pub data_dir: Option<PathBuf>,
}

impl DataDirArg {
    /// The folder: the flag's, else the nearest `shared/data`, else `../shared/data` (which
    /// then fails to read, naming the path).
    pub fn path(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(|| {
            toolsmith_plumbing::data::data_dir().unwrap_or_else(|_| PathBuf::from("../shared/data"))
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Enumerated values.

/// When to color what goes to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stderr is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Retrieval methods (`toolsmith_retrieve::Method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SearchMethod {
    /// BM25 over the doc fields.
    Bm25,
    /// Cosine similarity of embeddings.
    Dense,
    /// BM25 and dense, fused.
    Hybrid,
}

impl From<SearchMethod> for toolsmith_retrieve::Method {
    fn from(method: SearchMethod) -> Self {
        match method {
            SearchMethod::Bm25 => Self::Bm25,
            SearchMethod::Dense => Self::Dense,
            SearchMethod::Hybrid => Self::Hybrid,
        }
    }
}

/// Where tool calls go (`toolsmith_exec::Mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CallMode {
    /// Live calls only; nothing is stored.
    Live,
    /// Live calls, each stored in the response cache.
    Record,
    /// Stored responses only (a miss is an error).
    Replay,
    /// Stored responses, and the simulator on a miss.
    ReplayOrSimulate,
    /// The simulator only (offline, deterministic).
    Simulate,
}

impl From<CallMode> for toolsmith_exec::Mode {
    fn from(mode: CallMode) -> Self {
        match mode {
            CallMode::Live => Self::Live,
            CallMode::Record => Self::Record,
            CallMode::Replay => Self::Replay,
            CallMode::ReplayOrSimulate => Self::ReplayOrSimulate,
            CallMode::Simulate => Self::Simulate,
        }
    }
}

/// The LLM response cache (`toolsmith_llm::CacheMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmCache {
    /// Never read nor write.
    Off,
    /// Read hits, write misses.
    #[value(alias = "readwrite", alias = "rw")]
    ReadWrite,
    /// Read only: a miss is an error (reproduces a recorded run offline).
    Replay,
}

impl From<LlmCache> for toolsmith_llm::CacheMode {
    fn from(mode: LlmCache) -> Self {
        match mode {
            LlmCache::Off => Self::Off,
            LlmCache::ReadWrite => Self::ReadWrite,
            LlmCache::Replay => Self::Replay,
        }
    }
}

/// Source formats of `import` (`toolsmith_catalog::Format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// OpenAPI 3.0/3.1 or Swagger 2.0, JSON or YAML.
    Openapi,
    /// RapidAPI/ToolBench tool JSON (a file, a folder tree or a .tar.gz of one).
    Rapidapi,
    /// ToolBench/StableToolBench query files.
    ToolbenchQueries,
    /// DRAFT's tool-set files.
    ToolbenchToolset,
    /// OpenAI function-tool JSON.
    OpenaiFunctions,
    /// An MCP `tools/list` result.
    McpTools,
    /// DRAFT's refined docs.
    DraftDocs,
    /// EasyTool's instructions.
    EasytoolDocs,
}

impl From<ImportFormat> for toolsmith_catalog::Format {
    fn from(format: ImportFormat) -> Self {
        match format {
            ImportFormat::Openapi => Self::OpenApi,
            ImportFormat::Rapidapi => Self::RapidApi,
            ImportFormat::ToolbenchQueries => Self::ToolBenchQueries,
            ImportFormat::ToolbenchToolset => Self::ToolBenchToolset,
            ImportFormat::OpenaiFunctions => Self::OpenAiFunctions,
            ImportFormat::McpTools => Self::McpTools,
            ImportFormat::DraftDocs => Self::DraftDocs,
            ImportFormat::EasytoolDocs => Self::EasyToolDocs,
        }
    }
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// OpenAPI 3.1, one document per tool.
    Openapi,
    /// OpenAI tools JSON (`[{type: function, function: {...}}]`).
    Openai,
    /// An MCP `tools/list` result (`{tools: [{name, description, inputSchema}]}`).
    Mcp,
    /// Markdown for people and prompts.
    Markdown,
}

/// `--judge` and `--judge-runs`: whether and how often a benchmark run is judged.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct JudgeArg {
    /// Judge the run with the LLM judge (model role `judge`): pass rate by ToolEval's rules
    /// and by AnyTool's. Queries already judged are not judged again.
    #[arg(long)]
    pub judge: bool,
    /// Judge the run N times and report each pass rate as mean ± std (judge variance);
    /// implies `--judge` (default: `[judge] runs`, else 1).
    #[arg(long, value_name = "N")]
    pub judge_runs: Option<usize>,
}

/// `--protocol`: whose rules an agent follows.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ProtocolArg {
    /// toolsmith's (a chain may take `[solve] max_steps` steps, 10, not ToolBench's 12
    /// nodes; tool searches have their own budget outside that count; DFSDT tries the root's
    /// next child after a give-up at the root) or the paper's (ToolBench's, for numbers
    /// comparable with published ones). Default: `[solve] protocol` of
    /// toolsmith.toml, else toolsmith.
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolName>,
}

/// The protocols an agent can follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolName {
    /// toolsmith's fixes for users.
    Toolsmith,
    /// ToolBench's rules as its reference code runs them.
    Paper,
}

impl From<ProtocolName> for toolsmith_solve::Protocol {
    fn from(name: ProtocolName) -> Self {
        match name {
            ProtocolName::Toolsmith => Self::Toolsmith,
            ProtocolName::Paper => Self::Paper,
        }
    }
}

/// The agents `solve` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverName {
    /// ReAct (ToolBench's CoT@n).
    React,
    /// Depth-first search-based decision tree (ToolBench's DFSDT, width 2).
    Dfsdt,
    /// Grounding, execution and observing agents with iterative calibration.
    Conagents,
    /// AnyTool: meta, category and tool agents pick APIs from the whole catalog into a pool,
    /// DFSDT answers from it, self-reflection retries (`[anytool]` settings; search-assisted
    /// unless `--protocol paper`).
    Anytool,
}

impl From<SolverName> for toolsmith_eval::SolverKind {
    fn from(name: SolverName) -> Self {
        match name {
            SolverName::React => Self::React,
            SolverName::Dfsdt => Self::Dfsdt,
            SolverName::Conagents => Self::Conagents,
            SolverName::Anytool => Self::Anytool,
        }
    }
}

impl From<toolsmith_eval::SolverKind> for SolverName {
    fn from(kind: toolsmith_eval::SolverKind) -> Self {
        match kind {
            toolsmith_eval::SolverKind::React => Self::React,
            toolsmith_eval::SolverKind::Dfsdt => Self::Dfsdt,
            toolsmith_eval::SolverKind::Conagents => Self::Conagents,
            toolsmith_eval::SolverKind::Anytool => Self::Anytool,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The commands' flags.

/// Import tools or docs into the catalog.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Spec files, tool files, folders of `<Category>/<tool>.json`, `.tar.gz`
    /// archives, or MCP servers: `mcp://NAME` (a `[mcp.servers.NAME]` of
    /// toolsmith.toml), `mcp+http://URL`, `mcp+https://URL` or
    /// `'mcp+stdio:COMMAND ARGS...'`, whose tools become one tool's APIs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The format, when detection should not guess.
    #[arg(long, value_enum)]
    pub format: Option<ImportFormat>,
    /// Tool name for single-tool sources (OpenAPI specs, OpenAI function lists,
    /// MCP servers; by default an MCP server's name or host).
    #[arg(long)]
    pub tool: Option<String>,
    /// Category for single-tool sources.
    #[arg(long)]
    pub category: Option<String>,
    /// Label for refined-doc files (default: draft-ref or easytool-ref).
    #[arg(long)]
    pub label: Option<DocLabel>,
    /// Make imported refined docs the active ones.
    #[arg(long)]
    pub activate: bool,
    /// Import the good files of a folder or archive and report the bad ones.
    #[arg(long)]
    pub keep_going: bool,
    /// Print the import reports as JSON.
    #[command(flatten)]
    pub json: JsonArg,
    /// Stay connected to the (one) MCP server and import its tools again each
    /// time it says they changed (`tools/list_changed`), until it goes away.
    #[arg(long)]
    pub watch: bool,
}

/// List the catalog's APIs.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Which docs.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// A JSON array, one object per API.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Show one API (`tool/api`) or tool (`tool`) with its docs.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// `tool/api` for an API, `tool` for a tool.
    pub id: DocTarget,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
    /// Include every doc version, not only the active one.
    #[arg(long)]
    pub all_versions: bool,
}

/// Export docs (the active ones unless `--doc-version` says otherwise).
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Output file (or, for OpenAPI with several tools, a folder); stdout when absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Which docs.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
}

/// Lint the docs (the active ones unless `--doc-version` says otherwise).
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Which docs.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Every finding and the counts as JSON.
    #[command(flatten)]
    pub json: JsonArg,
    /// How many findings to list in the text report (all with `--json`).
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

/// Counts and token statistics of the docs (with no `--doc-version`: the active docs and
/// every label in the store).
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Which docs.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Doc versions of a tool or API.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DocsAction,
}

/// What `toolsmith docs` does.
#[derive(Debug, Subcommand)]
pub enum DocsAction {
    /// List every version of a doc, oldest first (`*` marks the active one).
    History {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// Also show the refinement rounds behind each refined version (what was explored,
        /// what the tool returned, what was suggested, Delta): why the doc says what it says.
        #[arg(long)]
        rounds: bool,
        /// JSON output.
        #[command(flatten)]
        json: JsonArg,
    },
    /// Word-level difference of two versions of a doc (colored on a terminal).
    Diff {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// The old version (a number, or a label for its latest version).
        from: String,
        /// The new version (a number, or a label for its latest version).
        to: String,
    },
    /// Make a version the active one (rollback or roll forward; nothing is deleted):
    /// `docs activate tmdb/get_search_movie 3`, `docs activate tmdb/get_search_movie draft`,
    /// `docs activate --all draft` (every tool and API that has a `draft` doc).
    Activate {
        /// Every tool and API with a doc of the label.
        #[arg(long)]
        all: bool,
        /// `TARGET VERSION|LABEL`, or `LABEL` with `--all`.
        #[arg(required = true, num_args = 1..=2, value_name = "TARGET VERSION|LABEL")]
        args: Vec<String>,
    },
    /// Activate the candidate docs `LABEL` only where they rank their API no worse than the
    /// active docs on the eval queries whose gold path touches it (`[refine.gate] rule`:
    /// a one-sided sign test, or a mean-rank margin; docs/gate.md). Every decision is stored
    /// (`docs history API --rounds`, `toolsmith report`); `docs rollback` undoes the round.
    Gate(DocsGateArgs),
    /// Undo a gate round (the latest by default): every API it switched to its candidate,
    /// and still showing it, shows its previous doc again.
    Rollback {
        /// The gate round (see `docs history API --rounds`).
        round: Option<u32>,
    },
    /// Append a version written by hand.
    Add {
        /// `tool/api` or `tool`.
        target: DocTarget,
        /// The new description.
        #[arg(long)]
        description: String,
        /// A user request the API answers, indexed by search as a view of the doc (repeat for
        /// several); agents are not shown it.
        #[arg(long = "query", value_name = "REQUEST")]
        queries: Vec<String>,
        /// Its label.
        #[arg(long, default_value = "manual")]
        label: DocLabel,
        /// Make it the active version.
        #[arg(long)]
        activate: bool,
    },
}

/// Flags of `docs gate`.
#[derive(Debug, Args)]
pub struct DocsGateArgs {
    /// The candidates' doc label (`easytool`, `draft`, `expnet`, ...).
    pub label: DocLabel,
    /// The eval set: restbench-tmdb, toolbench-draft282, ... or a query file with gold paths,
    /// resolved in the `--db` catalog. Default: the newest synthetic set's eval split.
    #[arg(long)]
    pub dataset: Option<String>,
    /// What becomes of a candidate no eval query touches.
    #[arg(long, value_enum, default_value_t = UntestedDocs::Keep)]
    pub untested: UntestedDocs,
    /// What one decision covers (default: `[refine.gate] scope`, itself `label`).
    #[arg(long, value_enum)]
    pub scope: Option<GateScopeArg>,
    /// How to rank.
    #[command(flatten)]
    pub method: MethodArg,
    /// JSON output (the round's decisions).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// What one `docs gate` decision covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateScopeArg {
    /// One decision for the whole label, from every eval query's pairs pooled.
    Label,
    /// One decision per API, from the eval queries that touch it.
    Api,
}

/// What `docs gate` does with a candidate no eval query touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UntestedDocs {
    /// Activate it (nothing measured against it).
    Activate,
    /// Keep the active doc.
    Keep,
}

/// Flags of `toolsmith refine`.
#[derive(Debug, Args)]
pub struct RefineArgs {
    /// The method (required unless `--resume`).
    #[arg(long, value_enum, required_unless_present = "resume")]
    pub method: Option<RefineMethod>,
    /// Which APIs: comma-separated API ids (`tmdb/get_search_movie`), tool ids (`tmdb`), or
    /// parts of API ids (`search`). Default: every API.
    #[arg(long, value_name = "FILTER")]
    pub apis: Option<String>,
    /// APIs refined at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Continue a stopped run (the latest one, or RUN): no finished API or round is redone.
    #[arg(long, value_name = "RUN", num_args = 0..=1, default_missing_value = "latest",
          conflicts_with_all = ["method", "apis", "from", "no_diversity", "no_adaptive_stop", "max_rounds",
              "iterations", "max_try", "no_similarity", "no_dependency", "no_trial"])]
    pub resume: Option<String>,
    /// Where the calls that test docs go.
    #[arg(long, value_enum, default_value_t = CallMode::Simulate)]
    pub mode: CallMode,
    /// What the explorations may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// The doc label refinement starts from (APIs without one start from their active doc).
    #[arg(long, default_value = "original")]
    pub from: DocLabel,
    /// Stop cleanly after this many LLM tokens (the run can be resumed).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Stop cleanly after this many LLM calls (the run can be resumed).
    #[arg(long)]
    pub max_llm_calls: Option<u64>,
    /// Print the most the run can cost (LLM calls, each repair of a malformed reply counted;
    /// tokens; tool calls), and spend nothing. Needs no LLM.
    #[arg(long)]
    pub dry_run: bool,
    /// DRAFT ablation: no diversity check of exploration queries.
    #[arg(long)]
    pub no_diversity: bool,
    /// DRAFT ablation: always run every round (no tool-adaptive termination).
    #[arg(long)]
    pub no_adaptive_stop: bool,
    /// DRAFT: rounds per API at most (default: `[refine.draft] max_rounds`, else 5).
    #[arg(long)]
    pub max_rounds: Option<u32>,
    /// DRAFT and EasyTool: what a response the simulator or a model made up may teach
    /// (default: `[refine] invented_values`, else shape_only).
    #[arg(long, value_enum, conflicts_with = "resume")]
    pub invented_values: Option<InventedValuesArg>,
    /// ToolExpNet: iterations of trial and insight refinement (default: `[refine.expnet]
    /// iterations`, else 3).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// ToolExpNet: edges of each kind tried per iteration at most (default: `[refine.expnet]
    /// max_try`, else 10).
    #[arg(long)]
    pub max_try: Option<usize>,
    /// ToolExpNet ablation: try no similarity edges.
    #[arg(long)]
    pub no_similarity: bool,
    /// ToolExpNet ablation: try no dependency edges.
    #[arg(long)]
    pub no_dependency: bool,
    /// ToolExpNet ablation: no trial step (insights from neighbours' insights only).
    #[arg(long)]
    pub no_trial: bool,
    /// Model (default: `TOOLSMITH_MODEL`, else `[llm] model` in toolsmith.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// LLM response cache.
    #[arg(long, value_enum, default_value_t = LlmCache::ReadWrite)]
    pub cache: LlmCache,
    /// After the run, gate the new docs (`docs gate LABEL`) on DATASET, or without one on
    /// the newest eval split; without the flag the gate runs when an eval split exists.
    #[arg(long, value_name = "DATASET", num_args = 0..=1, conflicts_with = "no_gate")]
    pub gate: Option<Option<String>>,
    /// Do not gate the new docs (they stay candidates; `docs gate` or `docs activate` later).
    #[arg(long)]
    pub no_gate: bool,
    /// JSON output (the run's report).
    #[command(flatten)]
    pub json: JsonArg,
}

/// What refinement may learn from invented responses (`toolsmith_refine::InventedValues`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InventedValuesArg {
    /// Their shape: the prompt marks them, and a doc sentence quoting one of their values
    /// (absent from the original doc and spec) is removed.
    #[value(name = "shape_only")]
    ShapeOnly,
    /// Only their skeleton (values replaced by types) reaches the prompt; quotes are removed.
    Exclude,
    /// Everything, as if the API had answered (quotes are only flagged in the rounds).
    Trust,
}

impl From<InventedValuesArg> for toolsmith_refine::InventedValues {
    fn from(arg: InventedValuesArg) -> Self {
        match arg {
            InventedValuesArg::ShapeOnly => Self::ShapeOnly,
            InventedValuesArg::Exclude => Self::Exclude,
            InventedValuesArg::Trust => Self::Trust,
        }
    }
}

/// Refinement methods (`toolsmith_refine::Method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RefineMethod {
    /// EasyTool: clean-up, a concise description, executed usage examples (label `easytool`).
    Easytool,
    /// DRAFT: explorer, analyzer and rewriter rounds until the doc settles (label `draft`).
    Draft,
    /// ToolExpNet: contrastive trial and error on the tool graph (`toolsmith graph build`
    /// first), then per-API insights (label `expnet`).
    Expnet,
    /// Re-Invoke's expansion: `[refine.queries] count` diverse user requests per API (model
    /// role `queries`), stored as the starting doc's views (label `queries`);
    /// `[refine.queries] apis_per_call` APIs of a tool per model request (`pack_tools`: small
    /// tools share one).
    Queries,
}

impl From<RefineMethod> for toolsmith_refine::Method {
    fn from(method: RefineMethod) -> Self {
        match method {
            RefineMethod::Easytool => Self::EasyTool,
            RefineMethod::Draft => Self::Draft,
            RefineMethod::Expnet => Self::ExpNet,
            RefineMethod::Queries => Self::Queries,
        }
    }
}

/// Precompute the embeddings dense and hybrid search use.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Which docs to embed.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Embed every API again, ignoring the vectors already stored (they are left as they
    /// are); shows what a cold build costs.
    #[arg(long)]
    pub rebuild: bool,
}

/// Find the APIs that fit a query.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What the user wants to do.
    pub query: String,
    /// How many results.
    #[arg(short = 'k', long, default_value_t = 10)]
    pub k: usize,
    /// How to retrieve.
    #[command(flatten)]
    pub method: MethodArg,
    /// Which docs to search.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Rank tools (each by its best API) instead of APIs.
    #[arg(long)]
    pub tools: bool,
    /// Do not add the producers of the ids the results need (dependency expansion, on by
    /// default once `toolsmith graph build` has run).
    #[arg(long)]
    pub no_expand: bool,
    /// Intent extraction (with `--explain`: which intent brought each hit).
    #[command(flatten)]
    pub intents: IntentsArg,
    /// Reranking (with `--explain`: where the reranker moved each hit).
    #[command(flatten)]
    pub rerank: RerankArg,
    /// Say why each API was offered: its BM25 terms and the fields they matched, its dense
    /// cosine and the text embedded, the fusion's parts (raw score, z-score, weight), or the
    /// retrieved API an expansion-added one serves and through which parameter. Indented
    /// under each hit, or as `explanation` in `--json`.
    #[arg(long, conflicts_with = "tools")]
    pub explain: bool,
    /// JSON output (an array of hits).
    #[command(flatten)]
    pub json: JsonArg,
}

/// Measure retrieval quality or speed.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub what: BenchCommand,
}

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Run a solver over a dataset's queries, score each (CP%, path set, Path F1, LCS,
    /// success, offered-path coverage, cost, error kinds) and store it; prints the summary.
    Run(BenchRunArgs),
    /// The stored benchmark runs.
    List {
        /// JSON output (an array of runs with their summaries).
        #[command(flatten)]
        json: JsonArg,
    },
    /// One run's summary and per-query scores (CP, path set and the judged verdicts side by
    /// side, with where they disagree), or one query's gold path, gold answer, trace and scores.
    Show(BenchShowArgs),
    /// Runs side by side (methods x metrics), with deltas against the first.
    Compare(BenchCompareArgs),
    /// Every combination of docs x dependency expansion x solver on a dataset, one stored
    /// run per cell (`matrix-<name>-<docs>-exp-<on|off>-<solver>`, resumed where stopped),
    /// and one report: CP, judged pass, offered-path coverage, tokens and cost per cell, and
    /// each factor's share (its mean gain holding the others fixed).
    Matrix(BenchMatrixArgs),
    /// NDCG@1/3/5/10 and Recall@5/10 of a retrieval method on a benchmark's queries.
    Retrieval(RetrievalArgs),
    /// Is an eval set a valid yardstick? Ranks a grid of retrieval configurations (methods x
    /// doc versions x dependency expansion) on a reference set (human queries) and on the set
    /// under test (a synthetic one), and reports Kendall's tau-b between the two rankings for
    /// NDCG@10, for offered-path coverage at K and for Recall@10, with each set's gold path
    /// lengths and APIs; and, secondary, each set's own bootstrap noise and the tau-b over the
    /// configuration pairs the reference separates beyond it.
    Agreement(AgreementArgs),
    /// Index build time and query latency (p50/p99) per method on 1k, 10k and 46,802 APIs of
    /// ToolEnv2404. The dense kernel is timed on random unit vectors of 384 dimensions.
    SearchSpeed(SpeedArgs),
    /// Local MiniLM embedding speed: queries one at a time (p50/p99) and a sample of
    /// ToolEnv2404's API docs (docs/s, projected time of the whole catalog).
    Embed(BenchEmbedArgs),
    /// Load test of `toolsmith serve` on loopback: concurrent clients searching and calling the
    /// TMDB catalog (simulated executor) over the HTTP API; throughput, p50/p99, errors, memory.
    Serve(BenchServeArgs),
}

/// Flags of `bench run`.
#[derive(Debug, Args)]
pub struct BenchRunArgs {
    /// restbench-tmdb, toolbench-draft282, toolbench-g1, toolbench-g2, funcqa (FuncQA
    /// one-hop, built-in tools), or a query file (with `--catalog` for its tool specs, else
    /// scored against the `--db` catalog; FuncQA files, one-hop or multi-hop, need neither).
    #[arg(long, required_unless_present = "resume")]
    pub dataset: Option<String>,
    /// Tool specs to import (in memory) for a query file's queries.
    #[arg(long, value_name = "PATH")]
    pub catalog: Option<PathBuf>,
    /// Which agent.
    #[arg(long, value_enum, default_value_t = SolverName::React)]
    pub solver: SolverName,
    /// Which docs tools are rendered from.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Tools each query is offered: candidates, retrieve:K, retrieve:K+search (the top K and
    /// the `search_tools` meta-tool, to find what retrieval missed), search-tool or all
    /// (default: the dataset's: all for restbench-tmdb, candidates for ToolBench sets and
    /// files that have candidate lists, else all).
    #[arg(long, value_parser = parse_tools_offered)]
    pub tools: Option<toolsmith_eval::ToolsOffered>,
    /// Only the first N queries.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Queries solved at once.
    #[arg(long, default_value_t = toolsmith_eval::BenchSpec::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Where tool calls go (default: the dataset's, simulate).
    #[arg(long, value_enum)]
    pub mode: Option<CallMode>,
    /// What the agent may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// Dependency expansion of retrieved tools (`retrieve:K`, `search-tool`): `on` adds the
    /// producers of the inputs the retrieved APIs need, as `search` and `solve` do; `off`
    /// offers the plain top K. Default: on.
    #[arg(long, value_parser = parse_expansion)]
    pub expansion: Option<toolsmith_eval::Expansion>,
    /// Intent extraction of retrieved tools (`retrieve:K`, `search-tool`, AnyTool's seeding).
    #[command(flatten)]
    pub intents: IntentsArg,
    /// Reranking of retrieved tools (`retrieve:K`, `search-tool`, AnyTool's seeding).
    #[command(flatten)]
    pub rerank: RerankArg,
    /// Seeds the candidate shuffles.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The run's name (default: `<dataset>-<solver>`).
    #[arg(long)]
    pub name: Option<String>,
    /// Whose rules the agent follows.
    #[command(flatten)]
    pub protocol: ProtocolArg,
    /// Whether and how often the run is judged.
    #[command(flatten)]
    pub judge: JudgeArg,
    /// Resume this stored run: its spec is reused (a new `--limit` extends it) and finished
    /// queries are not run again.
    #[arg(long, value_name = "RUN", conflicts_with_all = ["dataset", "catalog", "tools", "mode", "name", "protocol", "expansion"])]
    pub resume: Option<i64>,
    /// The model and its limits (per query).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// JSON output (the run's id, spec and summary).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

fn parse_tools_offered(text: &str) -> Result<toolsmith_eval::ToolsOffered, String> {
    text.parse()
        .map_err(|e: toolsmith_eval::BadToolsOffered| e.to_string())
}

fn parse_expansion(text: &str) -> Result<toolsmith_eval::Expansion, String> {
    text.parse()
        .map_err(|e: toolsmith_eval::Error| e.to_string())
}

/// Flags of `bench matrix`.
#[derive(Debug, Args)]
pub struct BenchMatrixArgs {
    /// The dataset, as `bench run --dataset` takes it.
    #[arg(long)]
    pub dataset: String,
    /// Tool specs to import (in memory) for a query file's queries.
    #[arg(long, value_name = "PATH")]
    pub catalog: Option<PathBuf>,
    /// Doc labels to cross (default: `original`, and those of `easytool`, `draft` and
    /// `expnet` the catalog has).
    #[arg(long, value_delimiter = ',', value_name = "LABEL,...")]
    pub docs: Vec<DocLabel>,
    /// Dependency expansion settings to cross (default: off,on).
    #[arg(long, value_delimiter = ',', value_parser = parse_expansion, value_name = "on|off,...")]
    pub expansion: Vec<toolsmith_eval::Expansion>,
    /// Solvers to cross (default: react,conagents).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "SOLVER,...")]
    pub solvers: Vec<SolverName>,
    /// Tools each query is offered (expansion changes only what retrieval offers).
    #[arg(long, value_parser = parse_tools_offered, default_value = "retrieve:10")]
    pub tools: toolsmith_eval::ToolsOffered,
    /// Only the first N queries (a larger N extends finished cells).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Queries solved at once within a cell.
    #[arg(long, default_value_t = toolsmith_eval::BenchSpec::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Where tool calls go (default: the dataset's, simulate).
    #[arg(long, value_enum)]
    pub mode: Option<CallMode>,
    /// What the agent may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// Seeds the candidate shuffles.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The matrix's name, in each cell's run name (default: the dataset's short name).
    #[arg(long)]
    pub name: Option<String>,
    /// Whose rules the agents follow.
    #[command(flatten)]
    pub protocol: ProtocolArg,
    /// Whether and how often each cell is judged.
    #[command(flatten)]
    pub judge: JudgeArg,
    /// The model and its limits (per query).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// JSON output (every cell and each factor's share).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `bench show`.
#[derive(Debug, Args)]
pub struct BenchShowArgs {
    /// The run's id.
    pub run: i64,
    /// A query's id: show its trace and scores.
    pub query: Option<String>,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Flags of `bench compare`.
#[derive(Debug, Args)]
pub struct BenchCompareArgs {
    /// Run ids; the first is the baseline.
    #[arg(required = true)]
    pub runs: Vec<i64>,
    /// Judge each run pairwise against this reference run, in both orders (ToolEval's win
    /// rate; ties reported apart). Rounds already judged are not judged again.
    #[arg(long, value_name = "RUN")]
    pub win_rate_against: Option<i64>,
    /// The judge's model (default: `[llm] role_models.judge`, else `[llm] model`).
    #[arg(long)]
    pub model: Option<String>,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Flags of `bench retrieval`.
#[derive(Debug, Args)]
pub struct RetrievalArgs {
    /// restbench-tmdb, toolbench-draft282, toolbench-g1, toolbench-g2, or a query file (scored
    /// against the `--db` catalog). A named benchmark builds its own corpus in memory.
    #[arg(long)]
    pub dataset: String,
    /// How to retrieve.
    #[command(flatten)]
    pub method: MethodArg,
    /// Which docs to score (`draft-ref`, `easytool-ref`; by default the original ones).
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// At most this many producers added per query by dependency expansion (default:
    /// `[retrieve.expand] budget` of toolsmith.toml, else 4).
    #[arg(long)]
    pub expand_budget: Option<usize>,
    /// Intent extraction before ranking (its model calls and tokens per query are reported).
    #[command(flatten)]
    pub intents: IntentsArg,
    /// Reranking after ranking (its model calls and tokens per query are reported).
    #[command(flatten)]
    pub rerank: RerankArg,
    /// Also report offered-path coverage at these cut-offs (`8,9,10,11,12`): plain top-K,
    /// with dependency expansion, and the tools offered, to draw coverage against tools.
    #[arg(long, value_delimiter = ',', value_name = "K,...")]
    pub coverage_k: Vec<usize>,
    /// List the queries whose gold path the expanded offer misses at this K: each missing
    /// gold API with its rank in the query's ranking, and what expansion added instead.
    /// Each missing API's score parts (`search --explain`) are set against the top hit's.
    #[arg(long, value_name = "K")]
    pub misses: Option<usize>,
    /// Also list, per query and `--coverage-k` cut-off, the APIs offered with dependency
    /// expansion: what `bench run --tools retrieve:K` offers the agent for that query.
    #[arg(long, requires = "coverage_k")]
    pub offers: bool,
    /// Also ask the judge model (role `judge`: `[llm] role_models.judge`, else `[llm] model`;
    /// cached) about each query's offer at each `--coverage-k` cut-off: which offered API
    /// serves each need of the request, or none. Reports judged coverage beside the strict
    /// one, how the two agree, the offers it gave no usable reply for (counted as not
    /// covered), and the judge's calls and tokens. The strict figure is the benchmark's
    /// metric; the judged one depends on the judge model. With `--offers`, the JSON lists
    /// each offer's needs as the judge read them.
    #[arg(long, requires = "coverage_k")]
    pub judge_offer: bool,
    /// With `--judge-offer`: list the offers the strict count misses and the judge finds
    /// covered, each with its missing gold APIs and the offered APIs the judge named instead.
    #[arg(long, requires = "judge_offer")]
    pub judged_misses: bool,
    /// JSON output (one object).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `bench agreement`.
#[derive(Debug, Args)]
pub struct AgreementArgs {
    /// The reference set (real users' queries): a named benchmark (restbench-tmdb, ...) or a
    /// query file with gold paths, resolved in the `--db` catalog.
    #[arg(long)]
    pub reference: String,
    /// The set under test, as `--reference` takes it (default: the newest synthetic eval
    /// split).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Retrieval methods of the grid.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "bm25,dense,hybrid"
    )]
    pub methods: Vec<SearchMethod>,
    /// Doc versions of the grid (labels in the `--db` catalog).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "original,easytool",
        value_name = "LABEL,..."
    )]
    pub doc_versions: Vec<DocLabel>,
    /// Dependency expansion settings of the grid (it changes what is offered, not NDCG).
    #[arg(long, value_delimiter = ',', value_parser = parse_expansion, default_value = "off,on", value_name = "on|off,...")]
    pub expansion: Vec<toolsmith_eval::Expansion>,
    /// The cut-off K of offered-path coverage.
    #[arg(short = 'k', long, default_value_t = 10)]
    pub k: usize,
    /// Bootstrap resamples of each set's queries for the noise figures: how stable a set's
    /// own ranking is, and which configuration pairs the reference separates beyond noise.
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub bootstrap: usize,
    /// The seed of the bootstrap draws.
    #[arg(long, default_value_t = 0)]
    pub bootstrap_seed: u64,
    /// JSON output (one object).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `bench search-speed`.
#[derive(Debug, Args)]
pub struct SpeedArgs {
    /// Catalog sizes to measure (the first N APIs of ToolEnv2404; sizes beyond its 46,802
    /// add synthetic APIs with random vectors, up to 1,000,000 and more).
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,46802")]
    pub sizes: Vec<usize>,
    /// Queries timed per size and method (StableToolBench's G1 and G2 queries, cycled).
    #[arg(long, default_value_t = 300)]
    pub queries: usize,
    /// Also time embedding each query with the local MiniLM model.
    #[arg(long = "embed-queries")]
    pub embed_queries: bool,
    /// Also time embedding this many API docs with the local MiniLM model (batched, as an
    /// index build does), to give the dense index's build time at each size.
    #[arg(long = "embed-docs", value_name = "N")]
    pub embed_docs: Option<usize>,
    /// Skip the HNSW rows of a size whose graph build would take longer than this many
    /// seconds (projected from the first batches; the output says how long it would take).
    /// The graph's settings are `[retrieve.dense.hnsw]`'s.
    #[arg(long = "max-build-secs", value_name = "SECS", default_value_t = 900)]
    pub max_build_secs: u64,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `bench embed`.
#[derive(Debug, Args)]
pub struct BenchEmbedArgs {
    /// Queries embedded one at a time (StableToolBench's G1 and G2 queries, cycled).
    #[arg(long, default_value_t = 100)]
    pub queries: usize,
    /// API docs of ToolEnv2404 embedded in one call, spread over the catalog (0: none).
    #[arg(long, default_value_t = 2000)]
    pub docs: usize,
    /// Threads the model runs on (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Texts per forward pass (default: the embedder's).
    #[arg(long)]
    pub batch: Option<usize>,
    /// Also time candle's BERT, the reference path, on the same texts, and print the lowest
    /// cosine between the two paths' vectors.
    #[arg(long)]
    pub reference: bool,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `bench serve`.
#[derive(Debug, Args)]
pub struct BenchServeArgs {
    /// Concurrent clients.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub clients: u16,
    /// Seconds they run (at most an hour).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub seconds: u64,
    /// Hits per search; each client calls the first.
    #[arg(long, default_value_t = 3)]
    pub k: usize,
    /// How to search.
    #[command(flatten)]
    pub method: MethodArg,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `serve`.
///
/// Add it to an MCP client (Claude Desktop's `claude_desktop_config.json`) as
/// `{"mcpServers": {"toolsmith": {"command": "toolsmith", "args": ["--db", "/path/toolsmith.db", "serve"]}}}`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The MCP transport: `stdio` (this process's stdin and stdout; the default without
    /// `--http`) or `http` (streamable HTTP at `/mcp` of the HTTP server).
    #[arg(long, value_enum)]
    pub mcp: Option<McpTransportArg>,
    /// Serve the HTTP API at this address (with `--mcp http`, 127.0.0.1:8765 by default).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// The environment variable holding the bearer token every HTTP route then requires
    /// (default: `TOOLSMITH_SERVE_TOKEN` when set; no token otherwise).
    #[arg(long, value_name = "VAR", conflicts_with = "token")]
    pub token_env: Option<String>,
    /// The bearer token itself (prefer `--token-env`: other users of the machine can read a
    /// process's arguments).
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// A `Host` name (or `host:port`) the HTTP server answers besides the loopback ones
    /// (repeatable; adds to `[serve] allowed_hosts`). Without a token only loopback hosts are
    /// answered (against DNS rebinding); with one any host is, unless this narrows it.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Where calls go.
    #[command(flatten)]
    pub mode: ModeArg,
    /// What clients' calls may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// How `search_tools` searches.
    #[command(flatten)]
    pub method: MethodArg,
}

/// The MCP transport of `serve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum McpTransportArg {
    /// Stdin and stdout: one client, which started this process.
    Stdio,
    /// Streamable HTTP at `/mcp`: any number of clients.
    Http,
}

/// Call one API and print what came back (the observation) as JSON.
///
/// Credentials come from `TOOLSMITH_KEY_<TOOL>` (or `TOOLSMITH_KEY_<TOOL>_<SCHEME>`; HTTP
/// basic from `TOOLSMITH_USERNAME_<TOOL>` and `TOOLSMITH_PASSWORD_<TOOL>`; RapidAPI tools
/// also read `RAPIDAPI_KEY`), sent as the API's security requirement says (`toolsmith show
/// API` names them); they never appear in the output or the cache.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The API, `tool/api` (e.g. `tmdb/get_search_movie`, `funcqa/power`).
    pub api: ApiId,
    /// The arguments, a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Where the call goes.
    #[command(flatten)]
    pub mode: ModeArg,
}

/// Serve the example library API (authors, books, members, loans) for the
/// quickstart, with its OpenAPI spec at `/openapi.json`.
#[derive(Debug, Args)]
pub struct ExampleApiArgs {
    /// Port to listen on (0 for any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
}

/// A guided tour: starts the example library API, imports its spec into the catalog
/// (`--db`), indexes it, searches it, calls it (simulated, then live), and runs the retrieval
/// benchmark on RestBench TMDB. Each step runs the command a user would type, shown before
/// its output. Running it again updates what the first run stored.
#[derive(Debug, Args)]
pub struct QuickstartArgs {
    /// Port for the example API (0 for any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Where the benchmark data is.
    #[command(flatten)]
    pub data: DataDirArg,
}

/// Flags of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Stored benchmark run ids (`bench list`); the first is the baseline of every delta.
    /// None: the most recent runs (`--last`); with no run stored, the report shows the stored
    /// `bench retrieval` results alone.
    pub runs: Vec<i64>,
    /// When no run is named: report the N most recent runs (every run when there are fewer).
    #[arg(long, value_name = "N", default_value_t = 6)]
    pub last: usize,
    /// The folder to write: index.html, plots/ and queries/ (created; earlier files there are
    /// overwritten).
    #[arg(long, value_name = "DIR", default_value = "toolsmith-report")]
    pub out: PathBuf,
    /// Print what was written as JSON (the index's path and the files).
    #[command(flatten)]
    pub json: JsonArg,
    /// Where the benchmark data is (the catalog of a named benchmark, for its doc versions).
    #[command(flatten)]
    pub data: DataDirArg,
}

/// The tool environment: how calls were answered.
#[derive(Debug, Args)]
pub struct EnvArgs {
    /// What to show.
    #[command(subcommand)]
    pub action: EnvAction,
}

/// What `toolsmith env` shows.
#[derive(Debug, Subcommand)]
pub enum EnvAction {
    /// Calls answered live, replayed or simulated, and responses recorded, per tool.
    Coverage {
        /// JSON output.
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Answer a query by calling tools.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The user's request.
    pub query: String,
    /// Which agent.
    #[arg(long, value_enum, default_value_t = SolverName::React)]
    pub solver: SolverName,
    /// Offer exactly these APIs (`tool/api`, comma-separated).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["retrieve", "search_tool"])]
    pub tools: Vec<ApiId>,
    /// Offer the top K APIs found by retrieval (`[retrieve] method`, else hybrid).
    #[arg(long, value_name = "K")]
    pub retrieve: Option<usize>,
    /// Offer a `search_tools` meta-tool the agent calls to find tools itself.
    #[arg(long)]
    pub search_tool: bool,
    /// Intent extraction of `--retrieve`, `--search-tool` and AnyTool's seeding.
    #[command(flatten)]
    pub intents: IntentsArg,
    /// Reranking of `--retrieve`, `--search-tool` and AnyTool's seeding.
    #[command(flatten)]
    pub rerank: RerankArg,
    /// Whose rules the agent follows.
    #[command(flatten)]
    pub protocol: ProtocolArg,
    /// How tools are called.
    #[command(flatten)]
    pub mode: ModeArg,
    /// What the agent may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// Which docs tools are rendered from.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Add the docs' usage examples to tool descriptions.
    #[arg(long)]
    pub examples: bool,
    /// AnyTool: search hits that seed the pool before any agent runs (0: no search stage).
    /// Default: `[anytool] seed_k`.
    #[arg(long, value_name = "N")]
    pub seed_k: Option<usize>,
    /// AnyTool: give the solver's first attempt only the pooled APIs the solvability check
    /// names. Default: `[anytool] trim_pool` (on unless `--protocol paper`).
    #[arg(long, overrides_with = "no_trim_pool")]
    pub trim_pool: bool,
    /// AnyTool: give the solver the whole pool.
    #[arg(long, overrides_with = "trim_pool")]
    pub no_trim_pool: bool,
    /// Also write the trace as JSON lines here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The model and its limits.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Print the result as JSON instead of the trace.
    #[command(flatten)]
    pub json: JsonArg,
}

impl SolveArgs {
    /// `--trim-pool` / `--no-trim-pool`, when given.
    pub fn trim_pool(&self) -> Option<bool> {
        match (self.trim_pool, self.no_trim_pool) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// Run one jq filter read from stdin (internal: the jq sandbox's child).
#[derive(Debug, Args)]
pub struct JqSandboxArgs {
    /// Address-space limit the child sets on itself, in bytes.
    #[arg(long)]
    pub max_memory_bytes: Option<u64>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn enumerated_flags_map_onto_every_library_value() {
        assert_eq!(
            SearchMethod::value_variants().len(),
            toolsmith_retrieve::Method::ALL.len()
        );
        assert_eq!(
            CallMode::value_variants().len(),
            toolsmith_exec::Mode::ALL.len()
        );
        assert_eq!(
            ImportFormat::value_variants().len(),
            toolsmith_catalog::Format::ALL.len()
        );
        for method in SearchMethod::value_variants() {
            let name = method.to_possible_value().map(|v| v.get_name().to_owned());
            let lib: toolsmith_retrieve::Method = (*method).into();
            assert_eq!(name.as_deref(), Some(lib.as_str()));
        }
        for mode in CallMode::value_variants() {
            let name = mode.to_possible_value().map(|v| v.get_name().to_owned());
            let lib: toolsmith_exec::Mode = (*mode).into();
            assert_eq!(name.as_deref(), Some(lib.as_str()));
        }
        for cache in LlmCache::value_variants() {
            let name = cache.to_possible_value().map(|v| v.get_name().to_owned());
            let lib: toolsmith_llm::CacheMode = (*cache).into();
            assert_eq!(name.as_deref(), Some(lib.as_str()));
        }
        for format in ImportFormat::value_variants() {
            let name = format.to_possible_value().map(|v| v.get_name().to_owned());
            let lib: toolsmith_catalog::Format = (*format).into();
            assert_eq!(name.as_deref(), Some(lib.as_str()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// `toolsmith graph`.

/// The tool graph's subcommands.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// What to do.
    #[command(subcommand)]
    pub what: GraphCommand,
}

/// `graph build`, `show`, `export`, `stats`.
#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Build the graph of the catalog (replacing the stored one): similarity edges from doc
    /// embeddings, dependency edges from response schemas and examples.
    Build(GraphBuildArgs),
    /// One API's node: its insight, its edges with weights and evidence, its experiences.
    Show(GraphShowArgs),
    /// Write the stored graph as JSON or Graphviz DOT.
    Export(GraphExportArgs),
    /// Nodes, edges by kind, mean degree; with `--gold`, the dependency edges against a
    /// benchmark's gold tool paths.
    Stats(GraphStatsArgs),
}

/// Flags of `graph stats`.
#[derive(Debug, Args)]
pub struct GraphStatsArgs {
    /// A query file with gold tool paths (RestBench's `[{"query", "solution": ["GET /search/movie", ...]}]`;
    /// names as `graph show` takes them): also report how many consecutive gold pairs are
    /// dependency edges (recall) and how many dependency edges the paths use (precision).
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// JSON output (one object).
    #[command(flatten)]
    pub json: JsonArg,
}

/// Flags of `graph build`.
#[derive(Debug, Args)]
pub struct GraphBuildArgs {
    /// Similarity threshold Φ: the cosine two docs need for a similarity edge (default:
    /// `[graph] phi` of toolsmith.toml, else the paper's 0.8).
    #[arg(long)]
    pub phi: Option<f32>,
    /// Dependency edges only (no embedding model needed).
    #[arg(long)]
    pub no_similarity: bool,
    /// Which docs the nodes start from and the similarity reads.
    #[command(flatten)]
    pub docs: DocVersionArg,
    /// Which part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// JSON output (the graph's statistics).
    #[command(flatten)]
    pub json: JsonArg,
}

/// Flags of `graph show`.
#[derive(Debug, Args)]
pub struct GraphShowArgs {
    /// The API: its id (`tmdb/get_search_movie`) or a name the catalog knows (`GET /search/movie`).
    pub api: String,
    /// JSON output (node, edges, experiences).
    #[command(flatten)]
    pub json: JsonArg,
}

/// Graph export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// The graph as JSON: nodes and edges with their evidence.
    Json,
    /// Graphviz DOT.
    Dot,
}

/// Flags of `graph export`.
#[derive(Debug, Args)]
pub struct GraphExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Json)]
    pub format: GraphFormat,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

// ---------------------------------------------------------------------------------------------
// `toolsmith synth`.

/// The synthesized sets' subcommands.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// What to do.
    #[command(subcommand)]
    pub what: SynthCommand,
}

/// `synth run`, `list`, `show`, `export`.
#[derive(Debug, Subcommand)]
pub enum SynthCommand {
    /// Make the set NAME (or resume it, when a run of it stopped): sample gold paths (single
    /// APIs, dependency chains, ToolBench's I1/I2/I3 combinations), have the model write
    /// requests for each, run their calls (simulated by default) and keep the solvable ones,
    /// split into `eval` (held out) and `index`. Settings: `[synth]` of toolsmith.toml.
    Run(Box<SynthRunArgs>),
    /// List the stored sets.
    List {
        /// JSON output.
        #[command(flatten)]
        json: JsonArg,
    },
    /// A set's figures and its requests (the eval split unless `--split` says otherwise).
    Show(SynthShowArgs),
    /// Write a set's split as a RestBench or ToolBench query file.
    Export(SynthExportArgs),
}

/// Which requests of a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SynthSplit {
    /// The held-out split: what `--dataset synth:NAME` measures on.
    Eval,
    /// The split synthetic-query expansion may use.
    Index,
    /// The requests the filter dropped, with why.
    Dropped,
}

/// Flags of `synth run`.
#[derive(Debug, Args)]
pub struct SynthRunArgs {
    /// The set's name.
    pub name: String,
    /// Single-API paths (default: `[synth] single`).
    #[arg(long)]
    pub single: Option<usize>,
    /// Dependency chains of 2-3 APIs along the tool graph (default: `[synth] chains`).
    #[arg(long)]
    pub chains: Option<usize>,
    /// Paths of each ToolBench combination: within a tool, a category, across categories
    /// (default: `[synth] combos`).
    #[arg(long)]
    pub combos: Option<usize>,
    /// Requests written per path (default: `[synth] per_path`).
    #[arg(long)]
    pub per_path: Option<usize>,
    /// The share of kept requests held out as `eval` (default: `[synth] eval_share`).
    #[arg(long)]
    pub eval_share: Option<f64>,
    /// The seed of sampling and splitting (default: `[synth] seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Do not ask the model whether the responses answer each request.
    #[arg(long)]
    pub no_answer_check: bool,
    /// Drop a request when more than this share of its content words occur in its gold APIs'
    /// docs (names, descriptions, parameter names): users do not speak the doc's words
    /// (default: `[synth] doc_echo_max`, 0.6).
    #[arg(long)]
    pub doc_echo_max: Option<f64>,
    /// Drop a request when less than this share of its content words occur in its gold APIs'
    /// docs (default: `[synth] doc_echo_min`, 0: off; 0.09 is the tenth percentile of
    /// RestBench TMDB's human queries).
    #[arg(long)]
    pub doc_echo_min: Option<f64>,
    /// Paths worked on at once (default: `[synth] concurrency`).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Print what the set would take (paths, LLM calls, tokens) and stop.
    #[arg(long)]
    pub dry_run: bool,
    /// Only this part of the catalog.
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Where the planned calls run (simulated unless told otherwise).
    #[command(flatten)]
    pub mode: ModeArg,
    /// What the calls may change on a live API.
    #[command(flatten)]
    pub writes: AllowWriteArg,
    /// Model (default: `TOOLSMITH_MODEL`, else `[llm] model`; the writer's role is `queries`).
    #[arg(long)]
    pub model: Option<String>,
    /// LLM response cache.
    #[arg(long, value_enum, default_value_t = LlmCache::ReadWrite)]
    pub cache: LlmCache,
    /// Stop after this many LLM calls (a later run resumes).
    #[arg(long)]
    pub max_llm_calls: Option<u64>,
    /// Stop after this many tokens (a later run resumes).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Flags of `synth show`.
#[derive(Debug, Args)]
pub struct SynthShowArgs {
    /// The set's name.
    pub name: String,
    /// Which requests to list.
    #[arg(long, value_enum, default_value_t = SynthSplit::Eval)]
    pub split: SynthSplit,
    /// JSON output.
    #[command(flatten)]
    pub json: JsonArg,
}

/// Query file formats of `synth export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SynthFormat {
    /// RestGPT's RestBench: `{query, query_id, solution: ["GET /path", ...]}`.
    Restbench,
    /// ToolBench: `{query, query_id, "relevant APIs": [[tool, api], ...], api_list}`.
    Toolbench,
}

/// Flags of `synth export`.
#[derive(Debug, Args)]
pub struct SynthExportArgs {
    /// The set's name.
    pub name: String,
    /// The file format.
    #[arg(long, value_enum, default_value_t = SynthFormat::Restbench)]
    pub format: SynthFormat,
    /// Which split (`eval` or `index`).
    #[arg(long, value_enum, default_value_t = SynthSplit::Eval)]
    pub split: SynthSplit,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}
