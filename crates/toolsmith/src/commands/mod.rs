//! One module per command. Each takes the [`Context`] and its parsed flags and returns an
//! exit code; none imports another (shared pieces live in `retrieval`, `executor`, ...).
//! A command builds its job, runs it and prints one report (`printer::report`); a family
//! with several parts is a folder whose parts import neither each other nor their parent.

mod bench;
mod bench_runs;
mod call;
mod docs;
mod env;
mod example_api;
mod export;
mod graph;
mod import;
mod index;
mod jq_sandbox;
mod lint;
mod quickstart;
mod refine;
mod report;
mod search;
mod serve;
mod show;
mod solve;
mod stats;
mod synth;
mod tools;

use std::process::ExitCode;

use crate::cli::{BenchCommand, Cli, Command, GraphCommand, SynthCommand};
use crate::context::Context;

/// Runs the chosen command.
pub(crate) fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let ctx = Context::new(&cli.global);
    match cli.command {
        Command::Import(args) => import::run(&ctx, &args),
        Command::Tools(args) => tools::run(&ctx, &args),
        Command::Show(args) => show::run(&ctx, &args),
        Command::Export(args) => export::run(&ctx, &args),
        Command::Stats(args) => stats::run(&ctx, &args),
        Command::Lint(args) => lint::run(&ctx, &args),
        Command::Docs(args) => docs::run(&ctx, &args),
        Command::Refine(args) => refine::run(&ctx, &args),
        Command::Index(args) => index::run(&ctx, &args),
        Command::Search(args) => search::run(&ctx, &args),
        Command::Bench(args) => match &args.what {
            BenchCommand::Run(a) => bench_runs::run(&ctx, a),
            BenchCommand::List { json } => bench_runs::list(&ctx, json.json),
            BenchCommand::Show(a) => bench_runs::show(&ctx, a),
            BenchCommand::Compare(a) => bench_runs::compare(&ctx, a),
            BenchCommand::Matrix(a) => bench_runs::matrix(&ctx, a),
            BenchCommand::Retrieval(a) => bench::retrieval(&ctx, a),
            BenchCommand::Agreement(a) => bench::agreement(&ctx, a),
            BenchCommand::SearchSpeed(a) => bench::speed(&ctx, a),
            BenchCommand::Serve(a) => bench::serve_load(&ctx, a),
            BenchCommand::Embed(a) => bench::embed(&ctx, a),
        },
        Command::Report(args) => report::run(&ctx, &args),
        Command::Call(args) => call::run(&ctx, &args),
        Command::ExampleApi(args) => example_api::run(&args),
        Command::Quickstart(args) => quickstart::run(&ctx, &args),
        Command::Solve(args) => solve::run(&ctx, &args),
        Command::Graph(args) => match &args.what {
            GraphCommand::Build(a) => graph::build(&ctx, a),
            GraphCommand::Show(a) => graph::show(&ctx, a),
            GraphCommand::Export(a) => graph::export(&ctx, a),
            GraphCommand::Stats(a) => graph::stats(&ctx, a),
        },
        Command::Synth(args) => match &args.what {
            SynthCommand::Run(a) => synth::run(&ctx, a),
            SynthCommand::List { json } => synth::list(&ctx, json.json),
            SynthCommand::Show(a) => synth::show(&ctx, a),
            SynthCommand::Export(a) => synth::export(&ctx, a),
        },
        Command::Env(args) => env::run(&ctx, &args),
        Command::JqSandbox(args) => Ok(jq_sandbox::run(&args)),
        Command::Serve(args) => serve::run(&ctx, &args),
    }
}
