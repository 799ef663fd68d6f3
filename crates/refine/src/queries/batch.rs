//! The batched view writer (`[refine.queries] apis_per_call` above 1): one model request
//! writes the views of a chunk's APIs, the tool shown once and each API after it (a packed
//! chunk shows each of its tools once, with its APIs after it, numbered across the tools),
//! and asks for request texts only (no call arguments). Each API's items are checked on their
//! own (a non-empty string that does not spell out the API's function name) and
//! de-duplicated by cosine as the per-API writer does; a later request goes to the APIs left
//! short only, each shown the requests it has and asked for what it lacks, up to `max_asks`
//! requests per chunk. A packed chunk's follow-up is one request too, for the short APIs of
//! all its tools (a tool with none left short is not shown).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use toolsmith_catalog::{Api, ApiEntry, render};
use toolsmith_llm::{Prompt, Role};

use super::check::spells_name;
use super::dedup::Seen;
use super::doc::step_markdown;
use super::types::{Discarded, Phrasing};
use super::writer::QueryWriter;
use crate::ask::{At, ask, first_message};
use crate::chunking::Chunk;
use crate::error::Result;

/// The batched writer's prompt.
pub(crate) const WRITE_BATCH: Prompt = Prompt::new(
    "queries/write_batch",
    include_str!("../../prompts/queries/write_batch.j2"),
);

/// What the writer kept and dropped for one API, and the model requests that asked for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Views {
    /// The requests kept, at most the count asked for.
    pub(crate) texts: Vec<String>,
    /// What was written for it and not kept.
    pub(crate) discarded: Vec<Discarded>,
    /// Model requests that asked for its views.
    pub(crate) asks: u32,
}

/// One API as a request shows it.
#[derive(Serialize)]
struct ApiCtx {
    /// 1-based, as the prompt numbers the APIs it asks about (across tools).
    number: usize,
    /// Its tool's header, on the first API of each tool of a request about several tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    doc: String,
    want: usize,
    have: Vec<String>,
}

#[derive(Serialize)]
struct StyleCtx {
    phrasing: &'static str,
    guide: &'static str,
}

/// One API's views so far, with the texts its new ones are compared with.
#[derive(Default)]
struct Pending {
    views: Views,
    seen: Seen,
}

/// A chunk's tools as its requests show them: each tool's header, and the tool of each API.
struct Shown {
    headers: Vec<String>,
    /// Per API of the chunk (in order), the index of its tool in `headers`.
    owners: Vec<usize>,
}

impl Shown {
    fn of(chunk: &Chunk) -> Self {
        let headers = chunk
            .tools
            .iter()
            .map(|t| render::tool_header(t).trim().to_owned())
            .collect();
        let owners = chunk
            .tools
            .iter()
            .enumerate()
            .flat_map(|(n, t)| t.apis.iter().map(move |_| n))
            .collect();
        Self { headers, owners }
    }

    /// The prompt's slots for a request about the views `asked` (indices into `apis`) still
    /// lack. When they are of one tool, the tool is shown once before them (the prompt as
    /// before packing); else each tool's header goes with its first API asked about.
    fn ctx(&self, apis: &[ApiEntry], asked: &[usize], pending: &[Pending], count: usize) -> Value {
        let tool_of = |i: usize| self.owners.get(i).copied().unwrap_or_default();
        let first_tool = asked.first().map(|&i| tool_of(i));
        let one_tool = asked.iter().all(|&i| Some(tool_of(i)) == first_tool);
        let mut last_tool = None;
        let shown: Vec<ApiCtx> = asked
            .iter()
            .enumerate()
            .map(|(n, &i)| {
                let owner = tool_of(i);
                let new_tool = !one_tool && last_tool.replace(owner) != Some(owner);
                ApiCtx {
                    number: n + 1,
                    tool: new_tool.then(|| self.header(owner)),
                    doc: step_markdown(&apis[i]).trim().to_owned(),
                    want: count.saturating_sub(pending[i].views.texts.len()),
                    have: pending[i].views.texts.clone(),
                }
            })
            .collect();
        let styles: Vec<StyleCtx> = Phrasing::for_steps(1)
            .into_iter()
            .map(|p| StyleCtx {
                phrasing: p.as_str(),
                guide: p.guide(),
            })
            .collect();
        match first_tool {
            Some(tool) if one_tool => {
                serde_json::json!({ "tool": self.header(tool), "apis": shown, "styles": styles })
            }
            _ => serde_json::json!({ "apis": shown, "styles": styles }),
        }
    }

    fn header(&self, owner: usize) -> String {
        self.headers.get(owner).cloned().unwrap_or_default()
    }
}

impl QueryWriter {
    /// `count` views for each API of `chunk`, one [`Views`] per API in the chunk's order.
    pub(crate) async fn write_views(&self, chunk: &Chunk) -> Result<Vec<Views>> {
        let apis: Vec<ApiEntry> = chunk.apis().cloned().collect();
        let Some(first) = apis.first() else {
            return Ok(Vec::new());
        };
        let at = At {
            api: &first.api.id,
            round: 0,
            what: "batched view writer",
        };
        let shown = Shown::of(chunk);
        let count = self.settings().count;
        let mut pending: Vec<Pending> = apis.iter().map(|_| Pending::default()).collect();
        for _ in 0..self.settings().max_asks {
            let short: Vec<usize> = (0..apis.len())
                .filter(|&i| pending[i].views.texts.len() < count)
                .collect();
            if short.is_empty() {
                break;
            }
            for &i in &short {
                pending[i].views.asks += 1;
            }
            let ctx = shown.ctx(&apis, &short, &pending, count);
            match self.ask_views(&ctx, at).await? {
                Ok(reply) => {
                    self.keep_views(&apis, &short, reply, &mut pending, at)
                        .await?;
                }
                Err(reason) => {
                    tracing::warn!(api = %at.api, %reason, "batched view writer: unusable reply");
                    for &i in &short {
                        let reason = reason.clone();
                        pending[i]
                            .views
                            .discarded
                            .push(Discarded::Unusable { reason });
                    }
                }
            }
        }
        Ok(pending.into_iter().map(|p| p.views).collect())
    }

    /// One model request with `ctx`: the reply's lists by key, or why it was unusable.
    async fn ask_views(
        &self,
        ctx: &Value,
        at: At<'_>,
    ) -> Result<Result<BTreeMap<String, Value>, String>> {
        let reply = ask::<BTreeMap<String, Value>>(
            self.chat(),
            Role::QUERIES,
            &WRITE_BATCH,
            vec![first_message(&WRITE_BATCH, ctx)?],
            self.settings().temperature,
            at,
        )
        .await?;
        Ok(reply.map(|r| r.value))
    }

    /// Checks each API's items, drops the malformed and the near-duplicates of its own, keeps
    /// the rest (at most the count asked for). A key that is no asked API is ignored.
    async fn keep_views(
        &self,
        apis: &[ApiEntry],
        asked: &[usize],
        reply: BTreeMap<String, Value>,
        pending: &mut [Pending],
        at: At<'_>,
    ) -> Result<()> {
        let mut fitting: Vec<(usize, String)> = Vec::new();
        for (key, list) in reply {
            let Some(i) = asked_api(&key, apis, asked) else {
                tracing::warn!(api = %at.api, %key, "batched view writer: a list for no API asked about");
                continue;
            };
            let Value::Array(items) = list else {
                let reason = "not a list of requests".to_owned();
                let item = list;
                pending[i]
                    .views
                    .discarded
                    .push(Discarded::Malformed { item, reason });
                continue;
            };
            for item in items {
                match view_text(&item, &apis[i].api) {
                    Ok(text) => fitting.push((i, text)),
                    Err(reason) => {
                        tracing::warn!(api = %apis[i].api.id, %reason, "batched view writer: malformed item dropped");
                        pending[i]
                            .views
                            .discarded
                            .push(Discarded::Malformed { item, reason });
                    }
                }
            }
        }
        let texts: Vec<String> = fitting.iter().map(|(_, text)| text.clone()).collect();
        let vectors = self.embed(&texts, at).await?;
        let (count, threshold) = (self.settings().count, self.settings().dedup_threshold);
        for ((i, text), vector) in fitting.into_iter().zip(vectors) {
            let api = &mut pending[i];
            if api.views.texts.len() >= count {
                continue;
            }
            if let Some((similar_to, cosine)) =
                api.seen.repeats(&text, vector.as_deref(), threshold)
            {
                api.views.discarded.push(Discarded::NearDuplicate {
                    text,
                    similar_to,
                    cosine,
                });
                continue;
            }
            api.seen.add(&text, vector);
            api.views.texts.push(text);
        }
        Ok(())
    }
}

/// The API (index into `apis`) a reply's key names: its number among the `asked`, or its
/// id or function name.
fn asked_api(key: &str, apis: &[ApiEntry], asked: &[usize]) -> Option<usize> {
    let key = key.trim();
    if let Ok(number) = key.parse::<usize>() {
        return number.checked_sub(1).and_then(|n| asked.get(n)).copied();
    }
    asked.iter().copied().find(|&i| {
        apis.get(i)
            .is_some_and(|a| a.api.id.to_string() == key || a.api.source_name == key)
    })
}

/// The request an item holds, or why it is malformed.
fn view_text(item: &Value, api: &Api) -> Result<String, String> {
    let text = item.as_str().ok_or("not a string")?.trim();
    if text.is_empty() {
        return Err("an empty request".into());
    }
    // The function as the spec names it, or as its id (the heading the prompt shows it by).
    let named =
        spells_name(text, &api.source_name).or_else(|| spells_name(text, api.id.api().as_str()));
    if let Some(name) = named {
        return Err(format!("the request names the function `{name}`"));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolsmith_catalog::ApiEntry;
    use toolsmith_catalog::testing::api_with_inputs;

    use super::{WRITE_BATCH, asked_api, view_text};

    fn ctx() -> serde_json::Value {
        json!({
            "tool": "## Movies (`tmdb`)\nCategory: Media\n\nFilms and the people who make them.",
            "apis": [
                {"number": 1, "doc": "### tmdb/get_search_movie\n`GET /search/movie` (Search)\n\nFind movies by title.", "want": 3, "have": []},
                {"number": 2, "doc": "### tmdb/get_movie_movie_id\n`GET /movie/{movie_id}` (Details)", "want": 1, "have": ["How long is Dune", "who made Alien"]}
            ],
            "styles": [{"phrasing": "terse", "guide": "a few words"},
                       {"phrasing": "conversational", "guide": "a sentence"}]
        })
    }

    /// The batched prompt is pinned byte for byte, so a change to it is a visible decision
    /// (it is in the LLM cache key: a changed prompt is asked again).
    #[test]
    fn the_batched_prompt_renders_byte_identical_to_its_pinned_text() {
        let rendered = WRITE_BATCH.render(&ctx()).unwrap();
        assert_eq!(rendered, include_str!("testdata/write_batch_view.txt"));
    }

    /// A first ask cycles the styles over each API's requests; a follow-up, where an API has
    /// requests already, asks for the styles those use least (a dropped request may be any of
    /// them, so the cycle would not restart where it left off).
    #[test]
    fn a_follow_up_asks_for_the_styles_least_used_so_far() {
        let follow_up = WRITE_BATCH.render(&ctx()).unwrap();
        assert!(follow_up.contains("styles below that its requests so far use least"));
        assert!(!follow_up.contains("starting over after the last"));
        let mut first = ctx();
        first["apis"][1]["have"] = json!([]);
        let first = WRITE_BATCH.render(&first).unwrap();
        assert!(first.contains("the first request in the first style"));
        assert!(!first.contains("use least"));
    }

    fn entry(id: &str, source_name: &str) -> ApiEntry {
        let mut api = api_with_inputs(&[], None);
        api.id = id.parse().unwrap();
        api.source_name = source_name.into();
        ApiEntry { api, doc: None }
    }

    #[test]
    fn a_reply_key_is_an_asked_number_an_id_or_a_function_name() {
        let apis = [
            entry("t/get_a", "get_a"),
            entry("t/get_b", "get_b"),
            entry("t/get_c", "get_c"),
        ];
        // A follow-up asks about the second and third APIs only, numbered 1 and 2.
        let asked = [1, 2];
        assert_eq!(asked_api("1", &apis, &asked), Some(1));
        assert_eq!(asked_api(" 2 ", &apis, &asked), Some(2));
        assert_eq!(asked_api("3", &apis, &asked), None);
        assert_eq!(asked_api("0", &apis, &asked), None);
        assert_eq!(asked_api("t/get_c", &apis, &asked), Some(2));
        assert_eq!(asked_api("get_b", &apis, &asked), Some(1));
        assert_eq!(asked_api("get_a", &apis, &asked), None, "not asked");
    }

    #[test]
    fn an_item_is_a_non_empty_string_not_naming_its_function() {
        let api = entry("t/get_movie_details", "GET /movie/details").api;
        assert_eq!(view_text(&json!(" Dune "), &api).unwrap(), "Dune");
        assert_eq!(view_text(&json!(7), &api).unwrap_err(), "not a string");
        assert_eq!(view_text(&json!(""), &api).unwrap_err(), "an empty request");
        assert!(
            view_text(&json!("use GET_movie_details on Dune"), &api)
                .unwrap_err()
                .contains("`get_movie_details`")
        );
    }

    #[test]
    fn the_batched_prompt_is_strict_about_its_slots() {
        let mut missing = ctx();
        missing.as_object_mut().unwrap().remove("styles");
        assert!(WRITE_BATCH.render(&missing).is_err());
    }
}
