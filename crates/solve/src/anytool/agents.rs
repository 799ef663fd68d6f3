//! The hierarchical API retriever: meta, category and tool agents with their own function
//! sets (the paper's Table 8) and histories, running as tokio tasks bounded by a semaphore,
//! filling one shared candidate pool.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use toolsmith_catalog::{ApiId, ToolId};
use toolsmith_llm::{Message, ToolCall, ToolSpec};

use super::hierarchy::{Hierarchy, Relevance, rank};
use super::labels::{AgentLevel, AgentStatus};
use super::settings::AnyToolSettings;
use crate::runtime::{Runtime, Stop};
use crate::trace::{TraceEvent, cut};

/// The role of the tool agents' solvability checks.
pub(crate) const CHECK_ROLE: &str = "anytool_check";

/// The role of the search stage's solvability check (of the seeded pool).
pub(crate) const SEARCH_ROLE: &str = "anytool_search";

/// One agent: where it sits, what it manages, what it has said.
#[derive(Clone, Debug)]
pub(crate) struct Agent {
    pub(crate) level: AgentLevel,
    pub(crate) status: AgentStatus,
    pub(crate) tools: Vec<ToolId>,
    pub(crate) messages: Vec<Message>,
    pub(crate) rounds: usize,
    /// Entries its category listings show (`listing_cut`, widened by reflection).
    pub(crate) listing_cut: usize,
}

/// The candidate pool, capped.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    pub(crate) apis: Vec<ApiId>,
}

/// Everything the agents share.
pub(crate) struct Shared {
    pub(crate) runtime: Runtime,
    pub(crate) hierarchy: Arc<Hierarchy>,
    pub(crate) relevance: Option<Relevance>,
    pub(crate) settings: AnyToolSettings,
    pub(crate) query: String,
    pub(crate) agents: Mutex<Vec<Agent>>,
    pub(crate) pool: Mutex<Pool>,
    /// Set when a check said solvable, the pool filled up, or the budget ran out.
    pub(crate) stop: AtomicBool,
    /// Why the budget or model stopped the search, first reason kept.
    pub(crate) halt: Mutex<Option<Stop>>,
    pub(crate) permits: Semaphore,
    pub(crate) handles: Mutex<Vec<JoinHandle<()>>>,
    /// Per API, the pooled-or-not APIs a tool graph says produce the ids it needs.
    pub(crate) producers: Mutex<BTreeMap<ApiId, Vec<ApiId>>>,
    /// What the last check that said solvable named as needed (`trim_pool`).
    pub(crate) needed: Mutex<Option<Vec<String>>>,
}

const BOOTSTRAP: &str = "You are one agent in a team that finds the APIs needed to answer a user's request, \
searching a large catalog organized as categories, tools and APIs. Use only your functions. Explore, hand \
work to the agents you can create, and call finish_search when your part is done or nothing relevant is left.";

fn function(name: &str, description: &str, properties: Value, required: &[&str]) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters: json!({"type": "object", "properties": properties, "required": required}),
    }
}

fn string_list(what: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": what})
}

/// The functions of each level (Table 8 of the paper).
pub(crate) fn functions(level: AgentLevel) -> Vec<ToolSpec> {
    let finish = function("finish_search", "End your search.", json!({}), &[]);
    let descriptions = function(
        "get_tool_descriptions",
        "Describe tools.",
        json!({"tools": string_list("tool ids")}),
        &["tools"],
    );
    let in_category = function(
        "get_tools_in_category",
        "List the tools of a category.",
        json!({"category": {"type": "string"}}),
        &["category"],
    );
    match level {
        AgentLevel::Meta => vec![
            function(
                "list_categories",
                "List the categories with some of their tools.",
                json!({}),
                &[],
            ),
            in_category,
            descriptions,
            function(
                "create_category_agent",
                "Start an agent that searches one category.",
                json!({"category": {"type": "string"}}),
                &["category"],
            ),
            finish,
        ],
        AgentLevel::Category => vec![
            in_category,
            descriptions,
            function(
                "create_tool_agent",
                "Start an agent that picks APIs from a few tools (at most 5).",
                json!({"tools": string_list("tool ids, at most 5")}),
                &["tools"],
            ),
            finish,
        ],
        AgentLevel::Tool => vec![
            function(
                "get_apis_in_tool",
                "List the APIs of one of your tools.",
                json!({"tool": {"type": "string"}}),
                &["tool"],
            ),
            function(
                "get_api_details",
                "Describe APIs and their parameters.",
                json!({"apis": string_list("API ids (tool/api)")}),
                &["apis"],
            ),
            function(
                "add_apis_to_pool",
                "Add APIs to the candidate pool the solver will use.",
                json!({"apis": string_list("API ids (tool/api)")}),
                &["apis"],
            ),
            function(
                "check_if_solvable",
                "Ask whether the request can be answered with the pool as it is now.",
                json!({}),
                &[],
            ),
            finish,
        ],
    }
}

impl Shared {
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    pub(crate) fn halt(&self, stop: Stop) {
        if let Ok(mut halt) = self.halt.lock()
            && halt.is_none()
        {
            *halt = Some(stop);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    pub(crate) fn pool(&self) -> Vec<ApiId> {
        self.pool.lock().map(|p| p.apis.clone()).unwrap_or_default()
    }

    fn set_status(&self, id: usize, status: AgentStatus) {
        if let Ok(mut agents) = self.agents.lock()
            && let Some(agent) = agents.get_mut(id)
        {
            agent.status = status;
        }
    }

    /// Creates an agent (not started) and records it; `note` ends its first message.
    pub(crate) fn create(
        &self,
        level: AgentLevel,
        parent: Option<usize>,
        category: Option<String>,
        tools: Vec<ToolId>,
        note: Option<String>,
    ) -> usize {
        let named: Vec<String> = tools.iter().map(ToString::to_string).collect();
        let opening = match level {
            AgentLevel::Meta => format!(
                "Request: {}\nYou are the meta agent: pick the categories worth searching.",
                self.query
            ),
            AgentLevel::Category => format!(
                "Request: {}\nYou are the agent of category: {}. Pick the tools worth searching.",
                self.query,
                category.as_deref().unwrap_or("")
            ),
            AgentLevel::Tool => format!(
                "Request: {}\nYou are the agent of tools: {}. Add the APIs that help to the pool, then check \
                 whether the request is solvable.",
                self.query,
                named.join(", ")
            ),
        };
        let opening = match note {
            Some(note) => format!("{opening}\n{note}"),
            None => opening,
        };
        // A category agent's tools are its category's; the trace names the category.
        let traced = if level == AgentLevel::Tool {
            tools.clone()
        } else {
            Vec::new()
        };
        let agent = Agent {
            level,
            status: AgentStatus::Active,
            tools,
            messages: vec![Message::system(BOOTSTRAP), Message::user(opening)],
            rounds: 0,
            listing_cut: self.settings.listing_cut,
        };
        let id = match self.agents.lock() {
            Ok(mut agents) => {
                agents.push(agent);
                agents.len() - 1
            }
            Err(_) => 0,
        };
        self.runtime.tracer.emit(TraceEvent::AgentCreated {
            agent: id,
            parent,
            level,
            category,
            tools: traced,
        });
        id
    }

    /// Starts an agent as a task.
    pub(crate) fn spawn(self: &Arc<Self>, id: usize) {
        let shared = Arc::clone(self);
        let handle = tokio::spawn(async move { shared.run(id).await });
        if let Ok(mut handles) = self.handles.lock() {
            handles.push(handle);
        }
    }

    /// Waits until every started agent (and every agent they started) has stopped.
    pub(crate) async fn join(&self) {
        loop {
            let handles: Vec<JoinHandle<()>> = match self.handles.lock() {
                Ok(mut handles) => handles.drain(..).collect(),
                Err(_) => Vec::new(),
            };
            if handles.is_empty() {
                return;
            }
            for handle in handles {
                let _ = handle.await;
            }
        }
    }

    /// One agent's loop: ask, carry out its function calls, until it finishes, runs out of
    /// rounds, or the search stops.
    async fn run(self: Arc<Self>, id: usize) {
        loop {
            if self.stopped() {
                self.set_status(id, AgentStatus::Paused);
                return;
            }
            let Some((level, messages, rounds)) = self
                .agents
                .lock()
                .ok()
                .and_then(|a| a.get(id).map(|a| (a.level, a.messages.clone(), a.rounds)))
            else {
                return;
            };
            if rounds >= self.settings.max_agent_rounds {
                self.set_status(id, AgentStatus::OutOfRounds);
                return;
            }
            let response = {
                let Ok(_permit) = self.permits.acquire().await else {
                    return;
                };
                self.runtime
                    .ask(level.role(), messages, functions(level), &self.query)
                    .await
            };
            let response = match response {
                Ok(r) => r,
                Err(stop) => {
                    self.set_status(id, AgentStatus::Paused);
                    self.halt(stop);
                    return;
                }
            };
            let mut added = vec![response.to_message()];
            let mut finished = false;
            if response.tool_calls.is_empty() {
                added.push(Message::user("Call one of your functions."));
            }
            for call in &response.tool_calls {
                let (content, done) = self.carry_out(id, level, call).await;
                finished |= done;
                added.push(Message::tool(call.id.clone(), content));
            }
            if let Ok(mut agents) = self.agents.lock()
                && let Some(agent) = agents.get_mut(id)
            {
                agent.messages.extend(added);
                agent.rounds += 1;
                if finished {
                    agent.status = AgentStatus::Finished;
                }
            }
            if finished {
                return;
            }
        }
    }

    async fn carry_out(
        self: &Arc<Self>,
        id: usize,
        level: AgentLevel,
        call: &ToolCall,
    ) -> (String, bool) {
        let args: Value = call.parsed_arguments().unwrap_or(Value::Null);
        let list = |key: &str| -> Vec<String> {
            args.get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let offered = functions(level).iter().any(|f| f.name == call.name);
        if !offered {
            return (
                format!("No such function: {}. Use only your functions.", call.name),
                false,
            );
        }
        let content = match call.name.as_str() {
            "finish_search" => return ("search finished".to_owned(), true),
            "list_categories" => self.list_categories(),
            "get_tools_in_category" => self.tools_in_category(id, &text("category")),
            "get_tool_descriptions" => self.tool_descriptions(&list("tools")),
            "create_category_agent" => {
                let category = text("category");
                match self.hierarchy.category(&category) {
                    Some((name, tools)) => {
                        let child = self.create(
                            AgentLevel::Category,
                            Some(id),
                            Some(name.to_owned()),
                            tools.to_vec(),
                            None,
                        );
                        self.spawn(child);
                        format!("created agent {child} for category {name}")
                    }
                    None => format!("No category `{category}`; call list_categories."),
                }
            }
            "create_tool_agent" => self.create_tool_agent(id, &list("tools")),
            "get_apis_in_tool" => self.apis_in_tool(id, &text("tool")),
            "get_api_details" => self.api_details(&list("apis")),
            "add_apis_to_pool" => self.add_to_pool(id, &list("apis")),
            "check_if_solvable" => self.check_solvable().await,
            _ => format!("No such function: {}.", call.name),
        };
        (content, false)
    }

    /// A reflection round's wider listing for a category `agent` (`reflection_widen`): its cut
    /// multiplied, and the line naming the tools that adds, or None when nothing is added (no
    /// search assistance, no widening, or its category fits in the cut already).
    pub(crate) fn widen(&self, agent: &mut Agent) -> Option<String> {
        let relevance = self.relevance.as_ref()?;
        if self.settings.reflection_widen <= 1 || agent.tools.len() <= agent.listing_cut {
            return None;
        }
        let category = agent
            .tools
            .first()
            .and_then(|t| self.hierarchy.tool(t))
            .map(|t| t.category.clone())?;
        let before = rank(
            &agent.tools,
            Some(relevance),
            |r, t| r.tool(t),
            agent.listing_cut,
        );
        let wider = agent
            .listing_cut
            .saturating_mul(self.settings.reflection_widen);
        let added: Vec<String> = rank(&agent.tools, Some(relevance), |r, t| r.tool(t), wider)
            .into_iter()
            .filter(|t| !before.contains(t))
            .map(|t| t.to_string())
            .collect();
        agent.listing_cut = wider;
        if added.is_empty() {
            return None;
        }
        Some(format!(
            "More tools of category {category}, the next {} by relevance: {}",
            added.len(),
            added.join(", ")
        ))
    }

    fn list_categories(&self) -> String {
        let cats: Vec<(String, Vec<ToolId>)> = self
            .hierarchy
            .categories()
            .map(|(c, t)| (c.to_owned(), t.to_vec()))
            .collect();
        let cut_at = self.settings.listing_cut;
        let shown = rank(
            &cats,
            self.relevance.as_ref(),
            |r, (c, _)| r.category(c),
            cut_at,
        );
        // The paper's meta agent sees the categories and asks for their tools; with search
        // assistance each line also names the category's most relevant tools.
        let lines: Vec<String> = shown
            .iter()
            .map(|(c, tools)| match self.relevance.as_ref() {
                Some(relevance) if self.settings.listing_tools > 0 => {
                    let top = rank(
                        tools,
                        Some(relevance),
                        |r, t| r.tool(t),
                        self.settings.listing_tools,
                    );
                    let names: Vec<String> = top.iter().map(ToString::to_string).collect();
                    format!("{c} ({} tools): {}", tools.len(), names.join(", "))
                }
                _ => format!("{c} ({} tools)", tools.len()),
            })
            .collect();
        lines.join("\n")
    }

    fn tools_in_category(&self, id: usize, category: &str) -> String {
        let cut = self
            .agents
            .lock()
            .ok()
            .and_then(|a| a.get(id).map(|a| a.listing_cut))
            .unwrap_or(self.settings.listing_cut);
        match self.hierarchy.category(category) {
            Some((_, tools)) => {
                let shown = rank(tools, self.relevance.as_ref(), |r, t| r.tool(t), cut);
                let mut listing = shown
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                // With a tool graph: the tools that produce the ids the listed tools need.
                let producers: Vec<String> = self
                    .relevance
                    .as_ref()
                    .map(|r| r.producers_of(&shown))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(producer, consumer)| {
                        let category = self
                            .hierarchy
                            .tool(&producer)
                            .map_or("", |t| t.category.as_str());
                        format!("{producer} (category {category}; feeds {consumer})")
                    })
                    .collect();
                if !producers.is_empty() {
                    listing.push_str(&format!(
                        "\nTools that produce ids these need: {}",
                        producers.join(", ")
                    ));
                }
                listing
            }
            None => format!("No category `{category}`."),
        }
    }

    fn tool_descriptions(&self, tools: &[String]) -> String {
        tools
            .iter()
            .map(|t| match self.hierarchy.find_tool(t) {
                Some(tool) => format!(
                    "{}: {} ({} APIs)",
                    tool.id,
                    cut(&tool.description, 300),
                    tool.apis.len()
                ),
                None => format!("{t}: no such tool"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn create_tool_agent(self: &Arc<Self>, id: usize, tools: &[String]) -> String {
        let max = self.settings.tools_per_agent;
        if tools.is_empty() {
            return "Name at least one tool.".to_owned();
        }
        if tools.len() > max {
            return format!(
                "A tool agent manages at most {max} tools; you named {}. Split them.",
                tools.len()
            );
        }
        let mut found = Vec::new();
        for t in tools {
            match self.hierarchy.find_tool(t) {
                Some(tool) => found.push(tool.id.clone()),
                None => return format!("No tool `{t}`."),
            }
        }
        let category = self.hierarchy.tool(&found[0]).map(|t| t.category.clone());
        let child = self.create(AgentLevel::Tool, Some(id), category, found, None);
        self.spawn(child);
        format!("created agent {child}")
    }

    fn apis_in_tool(&self, id: usize, tool: &str) -> String {
        let own = self
            .agents
            .lock()
            .ok()
            .and_then(|a| a.get(id).map(|a| a.tools.clone()))
            .unwrap_or_default();
        match self.hierarchy.find_tool(tool) {
            Some(node) if own.contains(&node.id) => node
                .apis
                .iter()
                .map(|a| format!("{}: {}", a.api.id, cut(a.description(), 120)))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(node) => format!("{} is not one of your tools.", node.id),
            None => format!("No tool `{tool}`."),
        }
    }

    fn api_details(&self, apis: &[String]) -> String {
        apis.iter()
            .map(|a| {
                match a
                    .parse::<ApiId>()
                    .ok()
                    .and_then(|id| self.hierarchy.api(&id))
                {
                    Some((_, entry)) => {
                        let params: Vec<String> = entry
                            .api
                            .params
                            .iter()
                            .map(|p| format!("{}{}", p.name, if p.required { "*" } else { "" }))
                            .collect();
                        format!(
                            "{}: {} params: {}",
                            entry.api.id,
                            cut(entry.description(), 400),
                            params.join(", ")
                        )
                    }
                    None => format!("{a}: no such API"),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn add_to_pool(&self, id: usize, apis: &[String]) -> String {
        let mut unknown = Vec::new();
        let mut ids = Vec::new();
        for a in apis {
            match a
                .parse::<ApiId>()
                .ok()
                .filter(|id| self.hierarchy.api(id).is_some())
            {
                Some(api) => ids.push(api),
                None => unknown.push(a.clone()),
            }
        }
        let (added, size, full) = match self.pool.lock() {
            Ok(mut pool) => {
                let mut added = Vec::new();
                for api in ids {
                    if pool.apis.len() >= self.settings.pool_cap {
                        break;
                    }
                    if !pool.apis.contains(&api) {
                        pool.apis.push(api.clone());
                        added.push(api);
                    }
                }
                let size = pool.apis.len();
                (added, size, size >= self.settings.pool_cap)
            }
            Err(_) => (Vec::new(), 0, false),
        };
        if !added.is_empty() {
            self.runtime.tracer.emit(TraceEvent::PoolChanged {
                agent: Some(id),
                added: added.clone(),
                removed: Vec::new(),
                size,
            });
        }
        if full {
            self.stop.store(true, Ordering::SeqCst);
        }
        let mut said = format!("added {} APIs; the pool holds {size}", added.len());
        if full {
            said.push_str(" and is full");
        }
        if !unknown.is_empty() {
            said.push_str(&format!("; unknown: {}", unknown.join(", ")));
        }
        said
    }

    async fn check_solvable(&self) -> String {
        match self.ask_solvable(CHECK_ROLE).await {
            Ok(check) if check.solvable => {
                self.keep_needed(check.needed);
                self.stop.store(true, Ordering::SeqCst);
                "True".to_owned()
            }
            Ok(_) => "False".to_owned(),
            Err(stop) => {
                self.halt(stop);
                "False".to_owned()
            }
        }
    }

    /// Keeps what a check that said solvable named as needed, for the solver's first attempt.
    pub(crate) fn keep_needed(&self, needed: Option<Vec<String>>) {
        if let Ok(mut kept) = self.needed.lock() {
            *kept = needed;
        }
    }

    /// Asks (as `role`) whether the pool as it is now answers the request: the verdict, its
    /// reason and (with `trim_pool`) the APIs it needs; an empty pool is not.
    pub(crate) async fn ask_solvable(&self, role: &str) -> Result<Check, Stop> {
        let pool = self.pool();
        if pool.is_empty() {
            return Ok(Check {
                solvable: false,
                reason: "the pool is empty".to_owned(),
                needed: None,
            });
        }
        let chars = self.settings.check_doc_chars;
        let listing: Vec<String> = pool
            .iter()
            .map(|id| match self.hierarchy.api(id) {
                Some((_, entry)) if chars > 0 => {
                    // One line per API: a description's own line breaks would split it.
                    let description: Vec<&str> = entry.description().split_whitespace().collect();
                    format!("{id}: {}", cut(&description.join(" "), chars))
                }
                _ => format!("{id}: "),
            })
            .collect();
        let trim = self.settings.trim_pool;
        let instructions = if trim {
            "Decide whether the listed APIs are enough to fully answer the request. Reply YES or NO on \
             the first line. After YES, write a line starting with NEEDED: and the ids of the listed APIs \
             the answer needs, separated by commas. Then one short reason."
        } else {
            "Decide whether the listed APIs are enough to fully answer the request. Reply YES or NO on \
             the first line, then one short reason."
        };
        let messages = vec![
            Message::system(instructions),
            Message::user(format!(
                "Request: {}\n\nAPIs:\n{}",
                self.query,
                listing.join("\n")
            )),
        ];
        let response = {
            let Ok(_permit) = self.permits.acquire().await else {
                return Ok(Check {
                    solvable: false,
                    reason: "the search was shut down".to_owned(),
                    needed: None,
                });
            };
            self.runtime
                .ask(role, messages, Vec::new(), &self.query)
                .await?
        };
        Ok(Check::parse(response.text(), trim))
    }
}

/// What a solvability check said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Check {
    /// Whether the pool is enough.
    pub(crate) solvable: bool,
    /// Its reason.
    pub(crate) reason: String,
    /// The ids it named on its `NEEDED:` line (when asked and it wrote one), as written.
    pub(crate) needed: Option<Vec<String>>,
}

impl Check {
    /// Reads a reply: YES or NO on the first line, with `named` a `NEEDED:` line of
    /// comma-separated ids, the rest the reason.
    pub(crate) fn parse(reply: &str, named: bool) -> Self {
        let mut lines = reply.trim().lines();
        let solvable = lines
            .next()
            .is_some_and(|l| l.trim().to_ascii_lowercase().starts_with("yes"));
        let mut needed = None;
        let mut reason: Vec<&str> = Vec::new();
        for line in lines {
            let trimmed = line.trim();
            let head = trimmed.get(..7).map(str::to_ascii_lowercase);
            if named && head.as_deref() == Some("needed:") {
                let ids: Vec<String> = trimmed
                    .get(7..)
                    .unwrap_or("")
                    .split(',')
                    .map(|id| {
                        id.trim()
                            .trim_matches(|c| c == '`' || c == '"' || c == '\'')
                            .to_owned()
                    })
                    .filter(|id| !id.is_empty())
                    .collect();
                needed.get_or_insert_with(Vec::new).extend(ids);
            } else {
                reason.push(trimmed);
            }
        }
        Self {
            solvable,
            reason: reason.join(" ").trim().to_owned(),
            needed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Check;

    #[test]
    fn a_check_reply_gives_its_verdict_names_and_reason() {
        let check = Check::parse(
            "YES\nNeeded: `movies/search_movie`, movies/get_movie ,\nthe search and the details",
            true,
        );
        assert!(check.solvable);
        assert_eq!(
            check.needed,
            Some(vec![
                "movies/search_movie".to_owned(),
                "movies/get_movie".to_owned()
            ])
        );
        assert_eq!(check.reason, "the search and the details");
        // Not asked for names: a NEEDED line is just part of the reason.
        let check = Check::parse("yes, enough\nNEEDED: movies/get_movie", false);
        assert!(check.solvable);
        assert_eq!(check.needed, None);
        assert_eq!(check.reason, "NEEDED: movies/get_movie");
        let check = Check::parse("NO\nmissing the year", true);
        assert!(!check.solvable);
        assert_eq!(check.needed, None);
    }
}
