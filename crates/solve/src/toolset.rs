//! The tools an agent sees: catalog APIs rendered as function tools, plus the
//! `Finish` tool, optionally the `search_tools` meta-tool, and `read_result` once an
//! observation was cut (see `crate::results`).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::{ApiEntry, ApiId, export};
use toolsmith_llm::ToolSpec;

use crate::names::{FINISH, SEARCH_TOOLS};
use crate::results::{Shelf, read_result_spec};

/// How API docs are rendered into tool descriptions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Append the doc's usage examples (DRAFT's) to the description.
    pub include_examples: bool,
}

/// Two APIs whose function names are the same: the second is not offered, since a call by
/// that name could not say which one it meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameClash {
    /// The function name.
    pub name: String,
    /// The API offered under it.
    pub offered: ApiId,
    /// The API left out.
    pub skipped: ApiId,
}

impl std::fmt::Display for NameClash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is not offered: its function name `{}` is already {}'s",
            self.skipped, self.name, self.offered
        )
    }
}

/// What [`Toolset::add`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Added {
    /// The API is now offered.
    New,
    /// The API was offered already (adding it again changes nothing).
    Present,
    /// Another API has its function name; it was left out ([`Toolset::clashes`] keeps it).
    Clash(NameClash),
}

/// The function tools offered to an agent, each mapped back to its API.
#[derive(Clone, Debug, Default)]
pub struct Toolset {
    apis: Vec<(ApiId, ToolSpec)>,
    by_name: HashMap<String, ApiId>,
    /// APIs left out because their function name was taken.
    clashes: Vec<NameClash>,
    search_tool: bool,
    /// `search_tools` calls made so far in the run.
    searches: usize,
    /// A search beyond the run's search budget was asked for.
    over_search_budget: bool,
    /// Whole texts of the run's cut observations, for `read_result` (shared by clones).
    results: Arc<Shelf>,
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

    /// Adds one API. Adding one already there does nothing; an API whose function name
    /// another API has is left out and reported (returned, and kept in [`Toolset::clashes`]).
    pub fn add(&mut self, entry: &ApiEntry, options: &RenderOptions) -> Added {
        let name = export::function_name(&entry.api.id);
        if let Some(offered) = self.by_name.get(&name) {
            if *offered == entry.api.id {
                return Added::Present;
            }
            let clash = NameClash {
                name,
                offered: offered.clone(),
                skipped: entry.api.id.clone(),
            };
            tracing::warn!(%clash, "duplicate function name");
            if !self.clashes.contains(&clash) {
                self.clashes.push(clash.clone());
            }
            return Added::Clash(clash);
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
        Added::New
    }

    /// The APIs left out so far because another API had their function name.
    pub fn clashes(&self) -> &[NameClash] {
        &self.clashes
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

    /// Every tool spec: the APIs, `search_tools` if on, `read_result` once an observation
    /// was cut, and `Finish`.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = self.api_specs();
        if self.search_tool {
            specs.push(search_tools_spec());
        }
        if !self.results.is_empty() {
            specs.push(read_result_spec());
        }
        specs.push(finish_spec());
        specs
    }

    /// The whole texts of the run's cut observations.
    pub(crate) fn shelf(&self) -> &Shelf {
        &self.results
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

    fn entry(id: &str) -> ApiEntry {
        let api: toolsmith_catalog::Api = serde_json::from_value(json!({
            "id": id, "name": id, "source_name": id,
            "endpoint": {"kind": "function", "name": id},
            "params": [], "request_body": null, "response_schema": null, "response_examples": []
        }))
        .unwrap();
        ApiEntry { api, doc: None }
    }

    #[test]
    fn a_second_api_with_a_taken_function_name_is_reported_not_silently_dropped() {
        // `c` of tool `a_for_b` and `c_for_a` of tool `b` are both `c_for_a_for_b`.
        let first = entry("a_for_b/c");
        let second = entry("b/c_for_a");
        let options = RenderOptions::default();
        let mut set = Toolset::default();
        assert_eq!(set.add(&first, &options), Added::New);
        assert_eq!(set.add(&first, &options), Added::Present);
        let Added::Clash(clash) = set.add(&second, &options) else {
            panic!("the clash is reported");
        };
        assert_eq!(clash.name, "c_for_a_for_b");
        assert_eq!(clash.offered, first.api.id);
        assert_eq!(clash.skipped, second.api.id);
        assert_eq!(
            clash.to_string(),
            "b/c_for_a is not offered: its function name `c_for_a_for_b` is already a_for_b/c's"
        );
        set.add(&second, &options);
        assert_eq!(set.clashes(), [clash], "kept once");
        assert_eq!(set.len(), 1);
        let built = Toolset::new(&[first.clone(), second], &options);
        assert_eq!(built.clashes().len(), 1);
        assert_eq!(built.resolve("c_for_a_for_b"), Some(&first.api.id));
    }
}
