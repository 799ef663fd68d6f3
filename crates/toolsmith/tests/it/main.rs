//! Tests of the `toolsmith` command line, run as a user would run it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should fail loudly

mod anytool_command;
mod architecture;
mod bench_agreement_command;
mod bench_command;
mod bench_matrix_command;
mod catalog_commands;
mod cli_output;
mod docs_gate_command;
mod embed_command;
mod example_api_command;
mod funcqa_command;
mod graph_command;
mod import_url_command;
mod intents_command;
mod judge_offer_command;
mod lint_export_command;
mod llm_config_command;
mod mcp_command;
mod oracle_command;
mod pipeline_command;
mod quickstart_command;
mod refine_command;
mod refine_expnet_command;
mod refine_invented_command;
mod refine_queries_command;
mod report_command;
mod rerank_command;
mod rerank_needs_command;
mod search_command;
mod search_speed_command;
mod serve_command;
mod solve_command;
mod support;
mod synth_command;
mod write_gate_command;
