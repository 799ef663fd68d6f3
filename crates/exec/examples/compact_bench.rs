//! Measures what an agent keeps of TMDB's simulated responses at ToolBench's
//! 1,024 characters: the share of ids and names that survive whole, with
//! ToolBench's plain cut against structure-aware compaction
//! (`toolsmith_exec::compact`), and how many outputs stay valid JSON.
//!
//! `cargo run -p toolsmith-exec --example compact_bench [-- BUDGET]`

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::compact::{compact_text, keys_kept};
use toolsmith_exec::{ApiBook, Simulator};

/// Arguments for an API: every required parameter, filled by type, and
/// `append_to_response=credits` where the API takes it.
fn args_for(book: &ApiBook, api: &toolsmith_catalog::ApiId, round: usize) -> Value {
    let mut args = serde_json::Map::new();
    if let Some(entry) = book.get(api) {
        for p in &entry.api.api.params {
            let first_choice = p.schema.get("enum").and_then(|e| e.get(0)).cloned();
            let value = match p.schema.get("type").and_then(Value::as_str) {
                _ if first_choice.is_some() => first_choice.unwrap_or_default(),
                Some("integer") => json!(550 + round),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                _ if p.name == "append_to_response" => json!("credits"),
                _ => json!(["Titanic", "Dune", "Universal"][round % 3]),
            };
            if p.required || p.name == "append_to_response" {
                args.insert(p.name.clone(), value);
            }
        }
    }
    Value::Object(args)
}

fn share(kept: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        (kept as f64 / of as f64 * 1000.0).round() / 1000.0
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let budget: usize = std::env::args()
        .nth(1)
        .map(|b| b.parse())
        .transpose()?
        .unwrap_or(1024);
    let data_dir = toolsmith_plumbing::data::data_dir()?;
    let mut store = Store::in_memory()?;
    let path = data_dir.join("restbench-tmdb/restgpt/tmdb_oas.json");
    store.import(&read_source(&path, &ImportOptions::default())?, false)?;
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let sim = Simulator::new(Arc::clone(&book));
    let mut ids: Vec<_> = book.ids().cloned().collect();
    ids.sort();
    // [all responses, responses over the budget]: ids and names, kept by the
    // plain cut, kept by compaction; responses, valid JSON of each.
    let mut keys = [[0usize; 3]; 2];
    let mut outputs = [[0usize; 3]; 2];
    for round in 0..3 {
        for api in &ids {
            let entry = book.get(api).ok_or("missing API")?;
            let body = sim
                .synthesize(entry, &args_for(&book, api, round))
                .ok_or("not simulable")?;
            // The observation text as the solvers send it.
            let text = json!({"error": "", "response": body}).to_string();
            let plain = toolsmith_plumbing::text::truncate_with(&text, budget, "...");
            let schema = entry.api.api.response_schema.as_ref();
            let compacted = compact_text(&text, schema, budget);
            if compacted.chars().count() > budget {
                return Err(format!("{api}: compaction went over the budget").into());
            }
            let (plain_kept, total) = keys_kept(&body, &plain);
            let (compact_kept, _) = keys_kept(&body, &compacted);
            let over = text.chars().count() > budget;
            for (slot, counts) in keys.iter_mut().enumerate() {
                if slot == 1 && !over {
                    continue;
                }
                counts[0] += total;
                counts[1] += plain_kept;
                counts[2] += compact_kept;
                let out = &mut outputs[slot];
                out[0] += 1;
                out[1] += usize::from(serde_json::from_str::<Value>(&plain).is_ok());
                out[2] += usize::from(serde_json::from_str::<Value>(&compacted).is_ok());
            }
        }
    }
    let report = json!({
        "budget_chars": budget,
        "responses": outputs[0][0],
        "responses_over_budget": outputs[1][0],
        "ids_and_names": keys[0][0],
        "kept_share_plain_cut": share(keys[0][1], keys[0][0]),
        "kept_share_compaction": share(keys[0][2], keys[0][0]),
        "over_budget_ids_and_names": keys[1][0],
        "over_budget_kept_share_plain_cut": share(keys[1][1], keys[1][0]),
        "over_budget_kept_share_compaction": share(keys[1][2], keys[1][0]),
        "valid_json_plain_cut": outputs[0][1],
        "valid_json_compaction": outputs[0][2],
    });
    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(&mut out, format!("{report:#}\n").as_bytes())?;
    Ok(())
}
