//! The command line's flags and subcommands. Doc comments here are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands::env::EnvArgs;
use crate::commands::solve::SolveArgs;
use crate::commands::{bench::BenchArgs, index::IndexArgs, search::SearchArgs};
use crate::commands::{call::CallArgs, example_api::ExampleApiArgs, jq_sandbox::JqSandboxArgs};
use crate::commands::{
    docs::DocsArgs, export::ExportArgs, import::ImportArgs, show::ShowArgs, stats::StatsArgs,
    tools::ToolsArgs,
};
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

/// Options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The catalog database (one SQLite file).
    #[arg(long, global = true, env = env::DB, default_value = "toolsmith.db")]
    pub db: PathBuf,
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
    /// Doc versions: history, activate (rollback), add.
    Docs(DocsArgs),
    /// Embed every API's doc once and keep the vectors in the catalog database.
    Index(IndexArgs),
    /// Find the APIs that fit a query (BM25, embeddings, or both).
    Search(SearchArgs),
    /// Measure retrieval quality (NDCG, recall) or search speed.
    Bench(BenchArgs),
    /// Call one API (live, recorded, replayed or simulated) and print the observation as JSON.
    Call(CallArgs),
    /// Serve the example library API (authors, books, loans) for the quickstart.
    ExampleApi(ExampleApiArgs),
    /// The tool environment: how calls were answered (live, replayed, simulated), per tool.
    Env(EnvArgs),
    /// Answer a query by calling tools with an agent (ReAct, DFSDT, ConAgents).
    Solve(SolveArgs),
    /// Internal: the jq sandbox's child process.
    #[command(name = "__jq-sandbox", hide = true)]
    JqSandbox(JqSandboxArgs),
}
