//! Times the simulator over the 54 TMDB APIs, and counts how many ToolEnv2404
//! APIs it can serve from a schema or example.
//!
//! `cargo run --release -p toolsmith-exec --example sim_bench [-- --toolenv]`

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::{ApiBook, Simulator};

fn book_of(path: &std::path::Path) -> Result<Arc<ApiBook>, Box<dyn std::error::Error>> {
    let mut store = Store::in_memory()?;
    store.import(
        &read_source(path, &ImportOptions::default())?,
        toolsmith_catalog::Activate::IfNoneActive,
    )?;
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    Ok(Arc::new(ApiBook::from_catalog(&catalog)))
}

fn args_for(book: &ApiBook, api: &toolsmith_catalog::ApiId, round: usize) -> Value {
    let mut args = serde_json::Map::new();
    if let Some(entry) = book.get(api) {
        for p in entry.api.api.params.iter().filter(|p| p.required) {
            let first_choice = p.schema.get("enum").and_then(|e| e.get(0)).cloned();
            let value = match p.schema.get("type").and_then(Value::as_str) {
                _ if first_choice.is_some() => first_choice.unwrap_or_default(),
                Some("integer") => json!(round + 1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                _ => json!(format!("query {round}")),
            };
            args.insert(p.name.clone(), value);
        }
    }
    Value::Object(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data_dir = toolsmith_plumbing::data::data_dir()?;
    let book = book_of(&data_dir.join("restbench-tmdb/restgpt/tmdb_oas.json"))?;
    let sim = Simulator::new(Arc::clone(&book));
    let mut ids: Vec<_> = book.ids().cloned().collect();
    ids.sort();
    let rounds = 200;
    let mut calls = 0usize;
    let mut bytes = 0usize;
    let start = Instant::now();
    for round in 0..rounds {
        for api in &ids {
            let entry = book.get(api).ok_or("missing API")?;
            let body = sim
                .synthesize(entry, &args_for(&book, api, round))
                .ok_or("not simulable")?;
            bytes += body.to_string().len();
            calls += 1;
        }
    }
    let elapsed = start.elapsed();
    let per_call_us = elapsed.as_secs_f64() * 1e6 / f64::from(u32::try_from(calls)?);
    let mean_bytes = bytes / calls;
    // Through the Executor trait as an agent calls it, argument check included.
    let runtime = toolsmith_exec::runtime()?;
    let start = Instant::now();
    let mut checked = 0usize;
    for round in 0..20 {
        for api in &ids {
            let obs = runtime.block_on(toolsmith_exec::Executor::call(
                &sim,
                api,
                &args_for(&book, api, round),
            ))?;
            if obs.is_ok() {
                checked += 1;
            }
        }
    }
    let per_call_checked_us =
        start.elapsed().as_secs_f64() * 1e6 / f64::from(u32::try_from(20 * ids.len())?);
    let report = json!({
        "tmdb_apis": ids.len(),
        "synthesize_calls": calls,
        "synthesize_us_per_call": (per_call_us * 10.0).round() / 10.0,
        "mean_body_bytes": mean_bytes,
        "executor_calls_ok": checked,
        "executor_us_per_call_with_argument_check": (per_call_checked_us * 10.0).round() / 10.0,
    });
    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(&mut out, format!("{report:#}\n").as_bytes())?;

    if std::env::args().any(|a| a == "--toolenv") {
        let start = Instant::now();
        let archive = data_dir.join("toolbench/toolenv2404/toolenv2404_filtered.tar.gz");
        let book = book_of(&archive)?;
        let load = start.elapsed();
        let mut with_schema = 0usize;
        let mut with_example = 0usize;
        let mut simulable = 0usize;
        let mut raw_schema = 0usize;
        for api in book.ids() {
            let Some(entry) = book.get(api) else { continue };
            if entry.api.api.response_schema.is_some() {
                raw_schema += 1;
            }
            if Simulator::can_simulate(entry) {
                simulable += 1;
                if entry.api.api.response_examples.is_empty() {
                    with_schema += 1;
                } else {
                    with_example += 1;
                }
            }
        }
        let sim = Simulator::new(Arc::clone(&book));
        let start = Instant::now();
        let mut served = 0usize;
        let mut tried = 0usize;
        let mut bodies = Vec::new();
        for api in book.ids() {
            let Some(entry) = book.get(api) else { continue };
            if Simulator::can_simulate(entry) {
                tried += 1;
                if let Some(body) = sim.synthesize(entry, &args_for(&book, api, 0)) {
                    served += 1;
                    bodies.push((api.clone(), body));
                }
            }
        }
        let synth_seconds = start.elapsed().as_secs_f64();
        // Conformance of every synthesized body to its API's response schema.
        let (mut conform, mut violate, mut uncompilable) = (0usize, 0usize, 0usize);
        let mut examples = Vec::new();
        for (api, body) in &bodies {
            let Some(schema) = book
                .get(api)
                .and_then(|e| e.api.api.response_schema.as_ref())
            else {
                continue;
            };
            match jsonschema::validator_for(schema) {
                Err(_) => uncompilable += 1,
                Ok(v) => {
                    if v.is_valid(body) {
                        conform += 1;
                    } else {
                        violate += 1;
                        if examples.len() < 5 {
                            let first = v
                                .iter_errors(body)
                                .next()
                                .map(|e| format!("{e} at {}", e.instance_path()))
                                .unwrap_or_default();
                            examples.push(format!("{api}: {first}"));
                        }
                    }
                }
            }
        }
        let report = json!({
            "toolenv_apis": book.len(),
            "load_seconds": load.as_secs_f64(),
            "apis_with_any_response_schema": raw_schema,
            "simulable_apis": simulable,
            "simulable_fraction": (simulable as f64) / (book.len() as f64),
            "simulable_from_schema_only": with_schema,
            "simulable_with_examples": with_example,
            "synthesized": served,
            "synthesize_all_seconds": synth_seconds,
            "tried": tried,
            "conforming": conform,
            "violating": violate,
            "schema_does_not_compile": uncompilable,
            "violation_examples": examples,
        });
        std::io::Write::write_all(&mut out, format!("{report:#}\n").as_bytes())?;
    }
    Ok(())
}
