//! AnyToolBench (AnyTool, Du et al. 2024): queries spanning APIs of 2-5 RapidAPI categories,
//! each with a reference answer and its ground-truth APIs. The project ships no copy; this
//! reads the file from wherever the user keeps it.
//!
//! File format: a JSON array of
//! `{query, final_answer, query_id, gt_api_list: [{category_name, tool_name, api_name}]}`.
//! [`load`](crate::load) also reads it (as [`DatasetFormat::AnyToolBench`](crate::DatasetFormat)),
//! keeping only the queries and gold APIs.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dataset::query::GoldApi;
use crate::dataset::read::{bad, read_items};
use crate::error::Result;

/// One AnyToolBench query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnyToolQuery {
    /// The file's query id.
    pub id: String,
    /// What the user asks.
    pub query: String,
    /// The reference answer.
    pub final_answer: String,
    /// The ground-truth APIs, in the file's order.
    pub gold: Vec<CategorizedApi>,
}

/// A RapidAPI API named with its category, as AnyToolBench lists ground truth.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CategorizedApi {
    /// The RapidAPI category (`Finance`).
    #[serde(rename = "category_name")]
    pub category: String,
    /// The tool's name.
    #[serde(rename = "tool_name")]
    pub tool: String,
    /// The API's name.
    #[serde(rename = "api_name")]
    pub api: String,
}

impl CategorizedApi {
    /// The same API as the other loaders name a ToolBench gold API (tool, API and category).
    pub fn gold(&self) -> GoldApi {
        GoldApi::ToolBench {
            tool: self.tool.clone(),
            api: self.api.clone(),
            category: Some(self.category.clone()),
        }
    }
}

/// The field that marks an AnyToolBench file.
pub(crate) const GT_API_LIST: &str = "gt_api_list";

/// The ground-truth list of one item, or why it cannot be read.
pub(crate) fn gold_list(item: &Value) -> std::result::Result<Vec<CategorizedApi>, String> {
    let list = item
        .get(GT_API_LIST)
        .ok_or_else(|| format!("no `{GT_API_LIST}`"))?;
    serde_json::from_value(list.clone()).map_err(|e| format!("bad `{GT_API_LIST}`: {e}"))
}

/// Reads an AnyToolBench file.
pub fn load_anytoolbench(path: &Path) -> Result<Vec<AnyToolQuery>> {
    read_items(path)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let text = |name: &str| item.get(name).and_then(Value::as_str).map(str::trim);
            let query = text("query")
                .ok_or_else(|| bad(path, format!("query {i}: no `query` text")))?
                .to_owned();
            let id = match item.get("query_id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => i.to_string(),
            };
            let gold = gold_list(item).map_err(|e| bad(path, format!("query {id}: {e}")))?;
            Ok(AnyToolQuery {
                final_answer: text("final_answer").unwrap_or_default().to_owned(),
                id,
                query,
                gold,
            })
        })
        .collect()
}
