//! A benchmark query and its gold APIs as the file names them, below the loaders of each
//! dataset that build them.

use serde::Serialize;
use toolsmith_catalog::names::standardize;
use toolsmith_catalog::{ApiId, Store};

use crate::error::Result;

/// One benchmark query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Query {
    /// The file's query id, or the position in the file (from 0) when it has none. Queries
    /// merged from several files are prefixed with the file's stem (`G1_tool/394`).
    pub id: String,
    /// What the user asks.
    pub text: String,
    /// The APIs a correct solution calls, as the file names them, in the file's order.
    pub gold: Vec<GoldApi>,
    /// The candidate APIs the file offers with the query (`api_list` of DRAFT's RestBench and
    /// of ToolBench files), in the file's order; empty when the file has none. DRAFT's TMDB
    /// file lists the gold APIs first: shuffle before showing them to a model.
    pub candidates: Vec<GoldApi>,
    /// The gold answer, for datasets scored by their answer (FuncQA's number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<f64>,
}

/// A gold API as a dataset names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum GoldApi {
    /// A name the catalog resolves on its own: `GET /search/person` (RestGPT) or
    /// `GET_search_person` (DRAFT).
    Named(String),
    /// A ToolBench API: the tool's and the API's names as RapidAPI spells them.
    ToolBench {
        /// The tool name (`TheClique`).
        tool: String,
        /// The API name (`Transfermarkt search`).
        api: String,
        /// The tool's RapidAPI category (`Sports`), when the file gives it: it tells apart
        /// same-named tools of several categories (ToolEnv2404 has `👋 Demo Project` in 36).
        #[serde(skip_serializing_if = "Option::is_none")]
        category: Option<String>,
    },
}

impl std::fmt::Display for GoldApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Named(name) => f.write_str(name),
            Self::ToolBench {
                tool,
                api,
                category: None,
            } => write!(f, "{tool} / {api}"),
            Self::ToolBench {
                tool,
                api,
                category: Some(category),
            } => write!(f, "{tool} / {api} ({category})"),
        }
    }
}

impl GoldApi {
    /// The catalog APIs this name refers to (empty when none). A ToolBench name that
    /// matches several APIs keeps those whose tool is in its category: the same tool name
    /// exists in several categories. A single match is kept whatever its category (a few
    /// tools moved category between the query files and the catalog).
    pub fn resolve(&self, store: &Store) -> Result<Vec<ApiId>> {
        Ok(match self {
            Self::Named(name) => store.resolve_api(name)?,
            Self::ToolBench {
                tool,
                api,
                category,
            } => {
                let found = store.resolve_toolbench_api(tool, api)?;
                match category {
                    Some(category) if found.len() > 1 => in_category(store, found, category)?,
                    _ => found,
                }
            }
        })
    }
}

/// The APIs among `found` whose tool's category is `category` (compared as ToolBench
/// standardizes names, so `Video_Images` and `Video & Images` agree).
fn in_category(store: &Store, found: Vec<ApiId>, category: &str) -> Result<Vec<ApiId>> {
    let wanted = standardize(category);
    let mut kept = Vec::with_capacity(1);
    for id in found {
        if standardize(&store.tool(id.tool())?.category) == wanted {
            kept.push(id);
        }
    }
    Ok(kept)
}
