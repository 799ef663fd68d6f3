//! A set as other tools read it: the eval split as a [`Dataset`] (`--dataset synth:NAME`), and
//! RestBench's (RestGPT's `solution` list) or ToolBench's (`relevant APIs`) query files.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};
use toolsmith_catalog::{ApiEntry, ApiId, DocSelector, Scope, Store, ToolEntry};

use super::store::{Split, SynthQuery, SynthStore};
use crate::dataset::{Dataset, GoldApi, Query};
use crate::error::{Error, Result};

/// The file formats a set is exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// RestGPT's RestBench: `{query, query_id, solution: ["GET /path", ...]}`.
    Restbench,
    /// ToolBench: `{query, query_id, "relevant APIs": [[tool, api], ...], api_list}`.
    Toolbench,
}

/// The eval split of the set `name` as a dataset named `synth:NAME`, gold APIs named by id.
pub fn eval_dataset(store: &SynthStore, name: &str) -> Result<Dataset> {
    let set = store.set(name)?.ok_or_else(|| {
        Error::BadSpec(format!(
            "no synthesized set `{name}` in this database: see `toolsmith synth list`"
        ))
    })?;
    let queries = store
        .split(set.id, Split::Eval)?
        .into_iter()
        .map(|q| Query {
            gold: q
                .path
                .apis
                .iter()
                .map(|a| GoldApi::Named(a.to_string()))
                .collect(),
            id: q.id,
            text: q.text,
            candidates: Vec::new(),
            answer: None,
        })
        .collect();
    Ok(Dataset {
        name: format!("synth:{name}"),
        queries,
    })
}

/// `queries` as a JSON array in `format`, and how many gold names will not resolve back to
/// their API in `catalog` (ToolBench's names exist only for tools imported from ToolBench).
pub fn export(
    queries: &[SynthQuery],
    catalog: &Store,
    format: ExportFormat,
) -> Result<(Value, usize)> {
    let view = catalog.catalog(&DocSelector::Active, &Scope::default())?;
    let entries: BTreeMap<&ApiId, (&ToolEntry, &ApiEntry)> =
        view.apis().map(|(t, a)| (&a.api.id, (t, a))).collect();
    let mut unresolvable = 0;
    let mut items = Vec::with_capacity(queries.len());
    for q in queries {
        let mut names = Vec::with_capacity(q.path.apis.len());
        for api in &q.path.apis {
            let (tool, entry) = entries
                .get(api)
                .ok_or_else(|| Error::BadSpec(format!("{api} is not in the catalog")))?;
            let (name, resolves) = match format {
                ExportFormat::Restbench => restbench_name(catalog, entry)?,
                ExportFormat::Toolbench => {
                    let (t, a) = (&tool.tool.name, &entry.api.name);
                    let back = catalog.resolve_toolbench_api(t, a)?;
                    (json!([t, a]), back == [api.clone()])
                }
            };
            unresolvable += usize::from(!resolves);
            names.push(name);
        }
        items.push(match format {
            ExportFormat::Restbench => {
                json!({"query": q.text, "query_id": q.id, "solution": names})
            }
            ExportFormat::Toolbench => {
                let api_list: Vec<Value> = q
                    .path
                    .apis
                    .iter()
                    .filter_map(|a| entries.get(a))
                    .map(|(t, e)| {
                        json!({"category_name": t.tool.category, "tool_name": t.tool.name,
                               "api_name": e.api.name})
                    })
                    .collect();
                json!({"query": q.text, "query_id": q.id, "relevant APIs": names, "api_list": api_list})
            }
        });
    }
    Ok((Value::Array(items), unresolvable))
}

/// RestBench's name of an API: `METHOD /path` when that names it alone in the catalog, else
/// its id (which always does).
fn restbench_name(catalog: &Store, entry: &ApiEntry) -> Result<(Value, bool)> {
    let api = &entry.api;
    if let (Some(method), Some(path)) = (api.endpoint.method(), api.endpoint.path()) {
        let name = format!("{method} {path}");
        if catalog.resolve_api(&name)? == [api.id.clone()] {
            return Ok((Value::String(name), true));
        }
    }
    let back = catalog.resolve_api(&api.id.to_string())?;
    Ok((Value::String(api.id.to_string()), back == [api.id.clone()]))
}
