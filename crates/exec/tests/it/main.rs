//! Integration tests of toolsmith-exec. Real data is read from the shared
//! data folder (`toolsmith_catalog::testing`: `TOOLSMITH_DATA`, by default
//! `../shared/data` beside the repository); servers are started on loopback
//! by the tests.

// clippy.toml allows these inside #[test] functions; the helpers here are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod auth;
mod compact;
mod compact_nested_ids;
mod compact_ranked;
mod compact_roles;
mod compact_views;
mod funcqa;
mod gate;
mod http;
mod mcp;
mod replay;
mod sandbox;
mod simulate;
mod simulate_drafts;
mod simulate_drafts22;
mod simulate_drafts23;
mod simulate_drafts25;
mod simulate_facts;
mod simulate_findings;
mod simulate_fixes;
mod simulate_issue27;
mod simulate_matches;
mod simulate_names;
mod simulate_neutral;
mod simulate_oneof;
mod simulate_pages;
mod simulate_plausible;
mod simulate_recall;
mod simulate_references;
mod simulate_reports;
mod simulate_session;
mod simulate_shapes;
mod simulate_shared;
mod simulate_totals;
mod simulate_world;
mod simulate_writes;

use std::sync::Arc;

use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_exec::{ApiBook, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::ScriptedLlm;

/// The TMDB spec as an API book.
pub fn tmdb() -> Arc<ApiBook> {
    Arc::new(ApiBook::from_catalog(&tmdb_catalog()))
}

/// The API book of an OpenAPI document given as JSON.
pub fn book_of(spec: &Value) -> Arc<ApiBook> {
    book_of_all(std::slice::from_ref(spec))
}

/// The API book of several OpenAPI documents (one tool each).
pub fn book_of_all(specs: &[Value]) -> Arc<ApiBook> {
    use toolsmith_catalog::{Activate, DocSelector, ImportOptions, Scope, Store, read_bytes};
    let mut store = Store::in_memory().unwrap();
    for (i, spec) in specs.iter().enumerate() {
        let bytes = serde_json::to_vec(spec).unwrap();
        let file = format!("spec{i}.json");
        let batch = read_bytes(file.as_ref(), &bytes, &ImportOptions::default()).unwrap();
        store.import(&batch, Activate::IfNoneActive).unwrap();
    }
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(ApiBook::from_catalog(&catalog))
}

/// The operation at `METHOD path`.
pub fn op(book: &ApiBook, method: &str, path: &str) -> ApiId {
    book.ids()
        .find(|id| {
            let api = &book.get(id).unwrap().api.api;
            api.endpoint.method().map(|m| m.to_string()) == Some(method.to_owned())
                && api.endpoint.path() == Some(path)
        })
        .cloned()
        .unwrap_or_else(|| panic!("no {method} {path}"))
}

/// A simulator whose values `llm` fills.
pub fn filling(book: &Arc<ApiBook>, llm: &Arc<ScriptedLlm>) -> Simulator {
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())))
}

/// The text of the `i`-th request `llm` was sent.
pub fn prompt(llm: &ScriptedLlm, i: usize) -> String {
    llm.requests()[i].messages[0].text().to_owned()
}

/// The text of every request `llm` was sent, in order.
pub fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests()
        .iter()
        .map(|r| r.messages[0].text().to_owned())
        .collect()
}
