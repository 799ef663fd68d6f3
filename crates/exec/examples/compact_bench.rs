//! Measures what an agent keeps of simulated responses at 1,024 and 2,048 characters,
//! ToolBench's plain cut against structure-aware compaction (`toolsmith_exec::compact`): the
//! share of identity fields (`id`, `name`, `type`, `uri`, ... at any depth) that survive
//! whole, the objects compaction emptied (it must be none), and the outputs that stay JSON.
//!
//! TMDB (RestBench's spec, from the shared data) is always measured; more OpenAPI specs are
//! given as `NAME=PATH` (Spotify's from RestGPT, GitHub's and Stripe's descriptions: bring
//! them locally, never into the repository):
//!
//! `cargo run -p toolsmith-exec --example compact_bench -- spotify=/tmp/spotify_oas.json ...`
//!
//! Besides the identity fields of the whole response (items a list left out count as lost),
//! it reports those of the objects the compacted text still shows: each must keep its own.
//! A plain cut is no longer JSON, so it shows no object whole.
//!
//! Two figures say whether the items of a list are shown alike: the column uniformity (over
//! every list the compacted text shows two objects or more of, the share of the fields the
//! first shown item shows, at any depth, that each other shown item shows too, where its
//! whole item has them) and the image objects (a `url` beside a `height` or `width`) shown
//! without their url (it must be none). One more says how many items a list shows: over the
//! lists of objects the compacted text shows, the share of their items it shows. And one says
//! whether the shown items say their role: over the shown items of lists, the share of their
//! `job`, `department`, `character`, `order` and `role` fields shown.
//!
//! The share of identity fields kept counts a field as kept where its exact `"name":value`
//! appears anywhere in the text: a value many items share (Spotify's `"type":"album"`) counts
//! for all of them once one item shows it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolsmith_catalog::{DocSelector, Endpoint, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::compact::{
    Hints, compact_text_with, emptied_objects, keys_kept, shown_identities_kept,
};
use toolsmith_exec::{ApiBook, BookEntry, Simulator};

/// The budgets measured, in characters.
const BUDGETS: [usize; 2] = [1024, 2048];

/// Arguments for an API: every required parameter filled by type (`round` varies them), and
/// `append_to_response=credits` where the API takes it.
fn args_for(entry: &BookEntry, round: usize) -> Value {
    let mut args = Map::new();
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
    Value::Object(args)
}

/// Counts over one spec's responses at one budget.
#[derive(Default)]
struct Tally {
    responses: usize,
    over_budget: usize,
    /// Responses over the budget by a tenth of it at most.
    within_tenth: usize,
    identity_fields: usize,
    kept_plain: usize,
    kept_compact: usize,
    over_identity_fields: usize,
    over_kept_plain: usize,
    over_kept_compact: usize,
    emptied_objects: usize,
    shown_identities: usize,
    shown_kept_plain: usize,
    shown_kept_compact: usize,
    valid_json_plain: usize,
    valid_json_compact: usize,
    uniform: Uniformity,
}

/// Counts of the fields the first shown item of a list shows that the other shown items show.
#[derive(Default)]
struct Uniformity {
    /// Fields of the first shown item that another shown item's whole item has.
    expected: usize,
    /// Of those, the fields that other shown item shows.
    shown: usize,
    /// Image objects shown without their url.
    images_without_url: usize,
    /// Items of the lists of objects the compacted text shows, in the whole responses.
    list_items: usize,
    /// Of those, the items shown.
    list_items_shown: usize,
    /// Fields of the shown items of a list that say their role ([`ROLE_FIELDS`]), whole.
    role_fields: usize,
    /// Of those, the fields shown.
    role_fields_shown: usize,
}

/// Fields that say a list item's role or place, as measured: a crew member's `job`, a cast
/// member's `character` and billing `order`.
const ROLE_FIELDS: &[&str] = &["job", "department", "character", "order", "role"];

impl Uniformity {
    /// Walks a whole value and its compacted form side by side.
    fn walk(&mut self, whole: &Value, shown: &Value) {
        match (whole, shown) {
            (Value::Object(w), Value::Object(s)) => {
                let sized = w.contains_key("height") || w.contains_key("width");
                if sized && w.get("url").is_some_and(Value::is_string) && !s.contains_key("url") {
                    self.images_without_url += 1;
                }
                for (key, sub) in s {
                    if let Some(full) = w.get(key) {
                        self.walk(full, sub);
                    }
                }
            }
            (Value::Array(w), Value::Array(s)) => {
                let pairs: Vec<(&Value, &Value)> =
                    w.iter().zip(s.iter().filter(|v| !v.is_string())).collect();
                if w.first().is_some_and(Value::is_object) {
                    self.list_items += w.len();
                    self.list_items_shown += pairs.len();
                }
                self.list(&pairs);
                for (full, sub) in &pairs {
                    for field in ROLE_FIELDS.iter().filter(|f| full.get(**f).is_some()) {
                        self.role_fields += 1;
                        self.role_fields_shown += usize::from(sub.get(*field).is_some());
                    }
                }
                for (full, sub) in pairs {
                    self.walk(full, sub);
                }
            }
            _ => {}
        }
    }

    /// Tallies one list's shown items against its first shown item.
    fn list(&mut self, pairs: &[(&Value, &Value)]) {
        let objects = pairs.iter().filter(|(_, s)| s.is_object()).count();
        let Some(((_, first), rest)) = pairs.split_first() else {
            return;
        };
        if objects < 2 || !first.is_object() {
            return;
        }
        let mut columns = BTreeSet::new();
        field_paths(first, &mut Vec::new(), &mut columns);
        for (full, shown) in rest {
            for path in &columns {
                if at_path(full, path).is_some() {
                    self.expected += 1;
                    self.shown += usize::from(at_path(shown, path).is_some());
                }
            }
        }
    }
}

/// The paths of the fields `value` shows, through objects (a list or a scalar ends a path).
fn field_paths(value: &Value, prefix: &mut Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    if let Value::Object(map) = value {
        for (key, sub) in map {
            prefix.push(key.clone());
            if sub.as_object().is_some_and(|m| !m.is_empty()) {
                field_paths(sub, prefix, out);
            } else {
                out.insert(prefix.clone());
            }
            prefix.pop();
        }
    }
}

fn at_path<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

impl Tally {
    fn add(&mut self, body: &Value, text: &str, hints: Hints<'_>, budget: usize) {
        let plain = toolsmith_plumbing::text::truncate_with(text, budget, "...");
        let compacted = compact_text_with(text, hints, budget);
        let (plain_kept, total) = keys_kept(body, &plain);
        let (compact_kept, _) = keys_kept(body, &compacted);
        self.responses += 1;
        self.identity_fields += total;
        self.kept_plain += plain_kept;
        self.kept_compact += compact_kept;
        if text.chars().count() > budget {
            self.over_budget += 1;
            self.within_tenth += usize::from(text.chars().count() <= budget + budget / 10);
            self.over_identity_fields += total;
            self.over_kept_plain += plain_kept;
            self.over_kept_compact += compact_kept;
        }
        if let Ok(envelope) = serde_json::from_str::<Value>(text) {
            self.emptied_objects += emptied_objects(&envelope, &compacted);
            let (kept, total) = shown_identities_kept(&envelope, &compacted);
            self.shown_identities += total;
            self.shown_kept_compact += kept;
            self.shown_kept_plain += shown_identities_kept(&envelope, &plain).0;
            if let Ok(shown) = serde_json::from_str::<Value>(&compacted) {
                self.uniform.walk(&envelope, &shown);
            }
        }
        self.valid_json_plain += usize::from(serde_json::from_str::<Value>(&plain).is_ok());
        self.valid_json_compact += usize::from(serde_json::from_str::<Value>(&compacted).is_ok());
    }

    fn report(&self) -> Value {
        json!({
            "responses": self.responses,
            "responses_over_budget": self.over_budget,
            "responses_over_budget_by_a_tenth_at_most": self.within_tenth,
            "identity_fields": self.identity_fields,
            "kept_share_plain_cut": share(self.kept_plain, self.identity_fields),
            "kept_share_compaction": share(self.kept_compact, self.identity_fields),
            "over_budget_identity_fields": self.over_identity_fields,
            "over_budget_kept_plain_cut": self.over_kept_plain,
            "over_budget_kept_compaction": self.over_kept_compact,
            "over_budget_kept_share_plain_cut": share(self.over_kept_plain, self.over_identity_fields),
            "over_budget_kept_share_compaction": share(self.over_kept_compact, self.over_identity_fields),
            "emptied_objects_compaction": self.emptied_objects,
            "shown_objects_identity_fields_compaction": self.shown_identities,
            "shown_objects_identity_kept_share_compaction": share(self.shown_kept_compact, self.shown_identities),
            "shown_objects_identity_kept_plain_cut": self.shown_kept_plain,
            "valid_json_plain_cut": self.valid_json_plain,
            "valid_json_compaction": self.valid_json_compact,
            "column_uniformity_compaction": share(self.uniform.shown, self.uniform.expected),
            "column_uniformity_fields": self.uniform.expected,
            "image_objects_without_url_compaction": self.uniform.images_without_url,
            "list_items_shown_share_compaction": share(self.uniform.list_items_shown, self.uniform.list_items),
            "list_items_compaction": self.uniform.list_items,
            "role_fields_shown_share_compaction": share(self.uniform.role_fields_shown, self.uniform.role_fields),
            "role_fields_compaction": self.uniform.role_fields,
        })
    }
}

fn share(kept: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        (kept as f64 / of as f64 * 1000.0).round() / 1000.0
    }
}

/// The endpoint compaction is told of: the path template, else the API's name.
fn endpoint(entry: &BookEntry) -> String {
    match &entry.api.api.endpoint {
        Endpoint::Http { path, .. } => path.clone(),
        _ => entry.api.api.name.clone(),
    }
}

/// Every API of the spec at `path`, simulated `rounds` times, measured at each budget.
fn measure(path: &Path, rounds: usize) -> Result<Value, Box<dyn std::error::Error>> {
    let mut store = Store::in_memory()?;
    store.import(
        &read_source(path, &ImportOptions::default())?,
        toolsmith_catalog::Activate::IfNoneActive,
    )?;
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let sim = Simulator::new(Arc::clone(&book));
    let mut ids: Vec<_> = book.ids().cloned().collect();
    ids.sort();
    let mut tallies: Vec<Tally> = BUDGETS.iter().map(|_| Tally::default()).collect();
    for round in 0..rounds {
        for api in &ids {
            let entry = book.get(api).ok_or("missing API")?;
            let args = args_for(entry, round);
            let Some(body) = sim.synthesize(entry, &args) else {
                continue;
            };
            // The observation text as the solvers send it.
            let text = json!({"error": "", "response": body}).to_string();
            let endpoint = endpoint(entry);
            let hints = Hints {
                schema: entry.api.api.response_schema.as_ref(),
                endpoint: Some(&endpoint),
                arguments: Some(&args),
                ..Hints::default()
            };
            for (tally, budget) in tallies.iter_mut().zip(BUDGETS) {
                tally.add(&body, &text, hints, budget);
                if compact_text_with(&text, hints, budget).chars().count() > budget {
                    return Err(format!("{api}: compaction went over {budget}").into());
                }
            }
        }
    }
    let mut report = Map::new();
    report.insert("apis".into(), json!(ids.len()));
    for (tally, budget) in tallies.iter().zip(BUDGETS) {
        report.insert(budget.to_string(), tally.report());
    }
    Ok(Value::Object(report))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data_dir = toolsmith_plumbing::data::data_dir()?;
    let mut specs = vec![(
        "tmdb".to_owned(),
        data_dir.join("restbench-tmdb/restgpt/tmdb_oas.json"),
    )];
    for arg in std::env::args().skip(1) {
        let (name, path) = arg
            .split_once('=')
            .ok_or_else(|| format!("`{arg}`: give specs as NAME=PATH"))?;
        specs.push((name.to_owned(), PathBuf::from(path)));
    }
    let mut report = Map::new();
    for (name, path) in &specs {
        let rounds = if name == "tmdb" { 3 } else { 1 };
        eprintln!("measuring {name} ({})", path.display());
        let measured = measure(path, rounds).map_err(|e| format!("{name}: {e}"))?;
        report.insert(name.clone(), measured);
    }
    let mut out = std::io::stdout().lock();
    std::io::Write::write_all(
        &mut out,
        format!("{:#}\n", Value::Object(report)).as_bytes(),
    )?;
    Ok(())
}
