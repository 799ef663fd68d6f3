//! The tools an agent sees: catalog APIs rendered as function tools, plus the
//! `Finish` tool and, optionally, the `search_tools` meta-tool.

use std::collections::HashMap;

use serde_json::{Value, json};
use toolsmith_catalog::{ApiEntry, ApiId, export};
use toolsmith_llm::ToolSpec;

/// Name of the tool that ends a run.
pub const FINISH: &str = "Finish";
/// Name of the meta-tool that searches the catalog for more tools.
pub const SEARCH_TOOLS: &str = "search_tools";

/// How API docs are rendered into tool descriptions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Append the doc's usage examples (DRAFT's) to the description.
    pub include_examples: bool,
}

/// The function tools offered to an agent, each mapped back to its API.
#[derive(Clone, Debug, Default)]
pub struct Toolset {
    apis: Vec<(ApiId, ToolSpec)>,
    by_name: HashMap<String, ApiId>,
    search_tool: bool,
    /// `search_tools` calls made so far in the run.
    searches: usize,
    /// A search beyond the run's search budget was asked for.
    over_search_budget: bool,
}

impl Toolset {
    /// Tools for these APIs, in this order.
    pub fn new(entries: &[ApiEntry], options: &RenderOptions) -> Self {
        let mut set = Self::default();
        for entry in entries {
            set.add(entry, options);
        }
        set
    }

    /// Adds one API (again adding one already there does nothing).
    pub fn add(&mut self, entry: &ApiEntry, options: &RenderOptions) {
        let name = export::function_name(&entry.api.id);
        if self.by_name.contains_key(&name) {
            return;
        }
        let mut description = entry.description().to_owned();
        if description.is_empty() {
            description = entry.api.name.clone();
        }
        if options.include_examples
            && let Some(doc) = &entry.doc
        {
            for example in &doc.doc.examples {
                description.push_str(&format!(
                    "\nExample: {} -> {}",
                    example.query, example.arguments
                ));
            }
        }
        let spec = ToolSpec {
            name: name.clone(),
            description,
            parameters: export::input_schema(entry),
        };
        self.by_name.insert(name, entry.api.id.clone());
        self.apis.push((entry.api.id.clone(), spec));
    }

    /// Also offer `search_tools`, so the agent can find more tools itself.
    pub fn with_search_tool(mut self) -> Self {
        self.search_tool = true;
        self
    }

    /// Whether `search_tools` is offered.
    pub fn has_search_tool(&self) -> bool {
        self.search_tool
    }

    /// How many `search_tools` calls the run has made.
    pub fn searches(&self) -> usize {
        self.searches
    }

    /// Whether the model asked for a search beyond the run's search budget.
    pub fn over_search_budget(&self) -> bool {
        self.over_search_budget
    }

    /// Counts a search; `within` is whether it fits the budget.
    pub(crate) fn note_search(&mut self, within: bool) {
        self.searches += 1;
        if !within {
            self.over_search_budget = true;
        }
    }

    /// The API ids offered.
    pub fn api_ids(&self) -> impl Iterator<Item = &ApiId> {
        self.apis.iter().map(|(id, _)| id)
    }

    /// Number of API tools.
    pub fn len(&self) -> usize {
        self.apis.len()
    }

    /// Whether no API tool is offered.
    pub fn is_empty(&self) -> bool {
        self.apis.is_empty()
    }

    /// The API tools only.
    pub fn api_specs(&self) -> Vec<ToolSpec> {
        self.apis.iter().map(|(_, spec)| spec.clone()).collect()
    }

    /// Every tool spec: the APIs, `search_tools` if on, and `Finish`.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.api_specs();
        if self.search_tool {
            specs.push(search_tools_spec());
        }
        specs.push(finish_spec());
        specs
    }

    /// The API a function name stands for: exact, else the one whose name
    /// ends with it (ToolBench matches by suffix, since models drop prefixes).
    pub fn resolve(&self, function: &str) -> Option<&ApiId> {
        if let Some(id) = self.by_name.get(function) {
            return Some(id);
        }
        let function = function.rsplit('.').next().unwrap_or(function);
        let mut matches = self
            .by_name
            .iter()
            .filter(|(name, _)| name.ends_with(function) || function.ends_with(name.as_str()));
        match (matches.next(), matches.next()) {
            (Some((_, id)), None) => Some(id),
            _ => None,
        }
    }

    /// The spec of an API tool.
    pub fn spec(&self, api: &ApiId) -> Option<&ToolSpec> {
        self.apis
            .iter()
            .find(|(id, _)| id == api)
            .map(|(_, spec)| spec)
    }
}

/// ToolBench's `Finish`: `return_type` is `give_answer` (with `final_answer`)
/// or `give_up_and_restart` (with a `reason` naming what failed).
pub(crate) fn finish_spec() -> ToolSpec {
    ToolSpec {
        name: FINISH.to_owned(),
        description: "Call this when you are done: with return_type `give_answer` and the complete final answer, or with `give_up_and_restart` and the reason (which tools failed) when the task cannot be solved this way.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "return_type": {"type": "string", "enum": ["give_answer", "give_up_and_restart"]},
                "final_answer": {"type": "string", "description": "The answer to the user's query (with give_answer)."},
                "reason": {"type": "string", "description": "Why you give up, naming the failing tools (with give_up_and_restart)."}
            },
            "required": ["return_type"]
        }),
    }
}

/// The `search_tools` meta-tool.
pub(crate) fn search_tools_spec() -> ToolSpec {
    ToolSpec {
        name: SEARCH_TOOLS.to_owned(),
        description:
            "Search the tool catalog for tools that can help; the tools found become callable."
                .to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What the tool should do."}},
            "required": ["query"]
        }),
    }
}

/// What a `Finish` call says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FinishCall {
    /// The final answer.
    Answer(String),
    /// Give up this branch (and, in DFSDT, its parent).
    GiveUp(String),
    /// Malformed `Finish` arguments: the message to show the model.
    Invalid(String),
}

/// Reads a `Finish` call's arguments, tolerating the usual slips.
pub(crate) fn parse_finish(raw: &str) -> FinishCall {
    let value: Value = match toolsmith_llm::extract_json(raw) {
        Ok(v) => v,
        Err(e) => {
            return FinishCall::Invalid(format!("Finish arguments are not a JSON object: {e}"));
        }
    };
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match text("return_type").as_deref() {
        Some("give_answer") => match text("final_answer").filter(|a| !a.trim().is_empty()) {
            Some(answer) => FinishCall::Answer(answer),
            None => FinishCall::Invalid("give_answer needs a non-empty `final_answer`".to_owned()),
        },
        Some("give_up_and_restart") => FinishCall::GiveUp(text("reason").unwrap_or_default()),
        Some(other) => FinishCall::Invalid(format!(
            "unknown return_type `{other}`: use give_answer or give_up_and_restart"
        )),
        None => FinishCall::Invalid("Finish must have a `return_type`".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_calls_are_read_leniently() {
        assert_eq!(
            parse_finish(r#"{"return_type": "give_answer", "final_answer": "42"}"#),
            FinishCall::Answer("42".into())
        );
        assert_eq!(
            parse_finish(r#"{'return_type': 'give_up_and_restart', 'reason': 'x failed'}"#),
            FinishCall::GiveUp("x failed".into())
        );
        assert!(matches!(
            parse_finish(r#"{"return_type": "give_answer"}"#),
            FinishCall::Invalid(_)
        ));
        assert!(matches!(parse_finish("nonsense"), FinishCall::Invalid(_)));
    }
}
