//! Token statistics of docs with OpenAI's real tokenizers (cl100k_base,
//! o200k_base; tables built into tiktoken-rs, so this works offline).

use serde::Serialize;
use tiktoken_rs::CoreBPE;

use crate::error::Result;
use crate::render;
use crate::store::Catalog;

/// An OpenAI tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// GPT-3.5 / GPT-4.
    Cl100kBase,
    /// GPT-4o and later.
    O200kBase,
}

impl Encoding {
    /// Both encodings.
    pub const ALL: [Self; 2] = [Self::Cl100kBase, Self::O200kBase];

    /// The encoding's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cl100kBase => "cl100k_base",
            Self::O200kBase => "o200k_base",
        }
    }
}

/// Counts tokens with one encoding. Its table is built once per process
/// (tiktoken-rs's own singletons).
#[derive(Clone, Copy)]
pub struct TokenCounter {
    bpe: &'static CoreBPE,
}

impl TokenCounter {
    /// The counter for an encoding (builds its table on first use, about a
    /// second). Never fails today: the tables are compiled into tiktoken-rs.
    pub fn new(encoding: Encoding) -> Result<Self> {
        let bpe = match encoding {
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        };
        Ok(Self { bpe })
    }

    /// Number of tokens in `text` (special tokens counted as text).
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

/// Token counts of a catalog's docs, as rendered for a model ([`render`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TokenStats {
    /// The encoding counted with.
    pub encoding: &'static str,
    /// Number of tools.
    pub tools: usize,
    /// Number of APIs.
    pub apis: usize,
    /// Tokens of everything (tool docs and API docs).
    pub total: usize,
    /// Mean tokens of one tool's whole doc (its description and all its APIs).
    pub mean_per_tool: f64,
    /// Mean tokens of one API's doc.
    pub mean_per_api: f64,
    /// Largest API doc.
    pub max_per_api: usize,
    /// Tokens of the APIs' full spec records (endpoint, parameters with their
    /// schemas, response schema, description) as compact JSON: the raw
    /// documentation a model would read without a rendering step.
    pub spec_total: usize,
    /// Mean of those per API.
    pub spec_mean_per_api: f64,
    /// Tokens per API, by id.
    pub per_api: Vec<(String, usize)>,
    /// Tokens per tool, by id.
    pub per_tool: Vec<(String, usize)>,
}

impl TokenStats {
    /// Counts the docs of `catalog`.
    pub fn compute(catalog: &Catalog, encoding: Encoding) -> Result<Self> {
        let counter = TokenCounter::new(encoding)?;
        let mut stats = Self {
            encoding: encoding.as_str(),
            ..Self::default()
        };
        for tool in &catalog.tools {
            // A tool's doc is its header plus its APIs' docs: count each API once
            // and add them up (BPE merges across the joins are too rare to matter).
            let header = render::tool_header(tool);
            let mut tool_tokens = counter.count(&header);
            for api in &tool.apis {
                let n = counter.count(&render::api_markdown(api));
                let spec = serde_json::json!({"api": &api.api, "description": api.description()});
                stats.spec_total += counter.count(&spec.to_string());
                stats.max_per_api = stats.max_per_api.max(n);
                stats.per_api.push((api.api.id.to_string(), n));
                tool_tokens += n;
            }
            stats.per_tool.push((tool.tool.id.to_string(), tool_tokens));
            stats.total += tool_tokens;
        }
        stats.tools = stats.per_tool.len();
        stats.apis = stats.per_api.len();
        let api_total: usize = stats.per_api.iter().map(|(_, n)| n).sum();
        stats.mean_per_tool = mean(stats.total, stats.tools);
        stats.mean_per_api = mean(api_total, stats.apis);
        stats.spec_mean_per_api = mean(stats.spec_total, stats.apis);
        Ok(stats)
    }
}

fn mean(sum: usize, n: usize) -> f64 {
    if n == 0 { 0.0 } else { sum as f64 / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_known_tokenizations() {
        let cl = TokenCounter::new(Encoding::Cl100kBase).unwrap();
        assert_eq!(cl.count("hello world"), 2);
        assert_eq!(cl.count(""), 0);
        let o2 = TokenCounter::new(Encoding::O200kBase).unwrap();
        assert_eq!(o2.count("hello world"), 2);
    }
}
