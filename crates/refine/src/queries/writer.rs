//! The [`QueryWriter`]: one path's requests, asked for, checked and de-duplicated.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_llm::{ChatModel, Embedder, Prompt, Role};
use toolsmith_plumbing::text::truncate_chars;

use super::check;
use super::dedup::Seen;
use super::doc::step_markdown;
use super::settings::QueryWriterSettings;
use super::types::{Discarded, Phrasing, Voice, WriteReport, WriteRequest, WrittenQuery};
use crate::ask::{At, ask, first_message};
use crate::error::{Error, Result};

/// The writer's prompt.
pub(crate) const WRITE: Prompt = Prompt::new(
    "queries/write",
    include_str!("../../prompts/queries/write.j2"),
);

/// The model role of a voice's calls: [`Role::QUERIES`] for views, [`Role::SYNTH`] for the
/// yardstick's requests (so `[llm] role_models` can put them on different models).
fn role_of(voice: Voice) -> &'static str {
    match voice {
        Voice::View => Role::QUERIES,
        Voice::User => Role::SYNTH,
    }
}

/// Writes requests with a chat model, de-duplicating them with an embedder when given one.
#[derive(Clone)]
pub struct QueryWriter {
    llm: Arc<dyn ChatModel>,
    embedder: Option<Arc<dyn Embedder>>,
    settings: QueryWriterSettings,
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    requests: Vec<Value>,
}

#[derive(Serialize)]
struct StepCtx {
    index: usize,
    doc: String,
    observed: String,
    /// 1-based, as the prompt numbers calls.
    fed_by: Option<usize>,
}

#[derive(Serialize)]
struct SlotCtx {
    phrasing: &'static str,
    guide: &'static str,
}

impl QueryWriter {
    /// A writer with `settings` (checked).
    pub fn new(
        llm: Arc<dyn ChatModel>,
        embedder: Option<Arc<dyn Embedder>>,
        settings: QueryWriterSettings,
    ) -> Result<Self> {
        settings.validate()?;
        Ok(Self {
            llm,
            embedder,
            settings,
        })
    }

    /// Its settings.
    pub fn settings(&self) -> &QueryWriterSettings {
        &self.settings
    }

    /// The chat model it asks.
    pub(super) fn chat(&self) -> &dyn ChatModel {
        self.llm.as_ref()
    }

    /// Up to `req.count` distinct requests answered by `req.steps`' calls.
    pub async fn write(&self, req: &WriteRequest) -> Result<Vec<WrittenQuery>> {
        Ok(self.write_report(req).await?.queries)
    }

    /// As [`write`](Self::write), with what was dropped and the asks it took.
    pub async fn write_report(&self, req: &WriteRequest) -> Result<WriteReport> {
        let first = req.steps.first().ok_or_else(|| Error::Setting {
            field: "steps",
            reason: "a path needs at least one API".into(),
        })?;
        let at = At {
            api: &first.api.api.id,
            round: 0,
            what: "query writer",
        };
        let phrasings = if req.phrasings.is_empty() {
            Phrasing::for_steps(req.steps.len())
        } else {
            req.phrasings.clone()
        };
        let mut seen = Seen::default();
        let avoid_vectors = self.embed(&req.avoid, at).await?;
        for (text, vector) in req.avoid.iter().zip(avoid_vectors) {
            seen.add(text, vector);
        }
        let mut report = WriteReport::default();
        while report.queries.len() < req.count && report.asks < self.settings.max_asks {
            report.asks += 1;
            let start = report.queries.len();
            let slots: Vec<Phrasing> = (start..req.count)
                .map(|i| phrasings[i % phrasings.len()])
                .collect();
            let mut avoid = req.avoid.clone();
            avoid.extend(report.queries.iter().map(|q| q.text.clone()));
            let items = match self.ask(req, &slots, &avoid, at).await? {
                Ok(items) => items,
                Err(reason) => {
                    tracing::warn!(api = %at.api, %reason, "query writer: unusable reply");
                    report.discarded.push(Discarded::Unusable { reason });
                    continue;
                }
            };
            self.keep(req, &slots, items, &mut seen, &mut report, at)
                .await?;
        }
        Ok(report)
    }

    /// One model request for `slots.len()` requests: the reply's items, or why it was unusable.
    async fn ask(
        &self,
        req: &WriteRequest,
        slots: &[Phrasing],
        avoid: &[String],
        at: At<'_>,
    ) -> Result<Result<Vec<Value>, String>> {
        let ctx = serde_json::json!({
            "steps": self.steps_ctx(req),
            "slots": slots.iter().map(|p| SlotCtx { phrasing: p.as_str(), guide: p.guide() }).collect::<Vec<_>>(),
            "avoid": avoid,
            "user_voice": req.voice == Voice::User,
        });
        let reply = ask::<Reply>(
            self.llm.as_ref(),
            role_of(req.voice),
            &WRITE,
            vec![first_message(&WRITE, &ctx)?],
            self.settings.temperature,
            at,
        )
        .await?;
        Ok(reply.map(|r| r.value.requests))
    }

    fn steps_ctx(&self, req: &WriteRequest) -> Vec<StepCtx> {
        req.steps
            .iter()
            .enumerate()
            .map(|(i, step)| StepCtx {
                index: i + 1,
                doc: step_markdown(&step.api).trim().to_owned(),
                fed_by: step.fed_by.filter(|f| *f < i).map(|f| f + 1),
                observed: step
                    .observed
                    .as_ref()
                    .map(|v| {
                        truncate_chars(&v.to_string(), self.settings.max_observation_chars)
                            .to_string()
                    })
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// Checks each item, drops the malformed and the near-duplicates, keeps the rest (at most
    /// the count asked for).
    async fn keep(
        &self,
        req: &WriteRequest,
        slots: &[Phrasing],
        items: Vec<Value>,
        seen: &mut Seen,
        report: &mut WriteReport,
        at: At<'_>,
    ) -> Result<()> {
        let mut fitting = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let planned = slots
                .get(i)
                .or(slots.last())
                .copied()
                .unwrap_or(Phrasing::Terse);
            match check::written(&item, &req.steps, planned) {
                Ok(query) => fitting.push(query),
                Err(reason) => {
                    tracing::warn!(api = %at.api, %reason, "query writer: malformed item dropped");
                    report.discarded.push(Discarded::Malformed { item, reason });
                }
            }
        }
        let texts: Vec<String> = fitting.iter().map(|q| q.text.clone()).collect();
        let vectors = self.embed(&texts, at).await?;
        for (query, vector) in fitting.into_iter().zip(vectors) {
            if report.queries.len() >= req.count {
                break;
            }
            let threshold = self.settings.dedup_threshold;
            if let Some((similar_to, cosine)) =
                seen.repeats(&query.text, vector.as_deref(), threshold)
            {
                tracing::debug!(api = %at.api, text = %query.text, %similar_to, cosine, "near-duplicate request dropped");
                report.discarded.push(Discarded::NearDuplicate {
                    text: query.text,
                    similar_to,
                    cosine,
                });
                continue;
            }
            seen.add(&query.text, vector);
            report.queries.push(query);
        }
        Ok(())
    }

    /// One vector per text with an embedder; `None` each without.
    pub(super) async fn embed(
        &self,
        texts: &[String],
        at: At<'_>,
    ) -> Result<Vec<Option<Vec<f32>>>> {
        let Some(embedder) = &self.embedder else {
            return Ok(vec![None; texts.len()]);
        };
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let vectors = embedder.embed(texts).await.map_err(|source| Error::Llm {
            api: at.api.clone(),
            round: at.round,
            what: "embedding the requests",
            source: Box::new(source),
        })?;
        Ok(vectors.into_iter().map(Some).collect())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::WRITE;

    #[test]
    fn the_prompt_renders_one_and_several_steps_strictly() {
        let slot = json!({"phrasing": "terse", "guide": "g"});
        let one = WRITE
            .render(&json!({"steps": [{"index": 1, "doc": "D", "observed": "", "fed_by": null}], "slots": [slot], "avoid": [], "user_voice": false}))
            .unwrap();
        assert!(
            one.contains("JSON") && one.contains("this one call"),
            "{one}"
        );
        assert!(!one.contains("$from"), "{one}");
        let two = WRITE
            .render(&json!({"steps": [{"index": 1, "doc": "D", "observed": "{}", "fed_by": null}, {"index": 2, "doc": "E", "observed": "", "fed_by": 1}],
                "slots": [slot], "avoid": ["old"], "user_voice": false}))
            .unwrap();
        assert!(two.contains("$from") && two.contains("- old"), "{two}");
        assert!(
            WRITE.render(&json!({"steps": []})).is_err(),
            "slots are strict"
        );
    }

    /// The views' prompt is pinned byte for byte: revising the user voice (for `synth`) must
    /// not change what `refine --method queries` asks.
    #[test]
    fn the_view_voice_renders_byte_identical_to_its_pinned_text() {
        let rendered = WRITE
            .render(&json!({
                "steps": [{"index": 1, "doc": "GET /search/movie: find movies by title", "observed": "{\"results\": [{\"id\": 1}]}", "fed_by": null},
                          {"index": 2, "doc": "GET /movie/{id}/credits: the cast", "observed": "", "fed_by": 1}],
                "slots": [{"phrasing": "terse", "guide": "a few words"},
                          {"phrasing": "conversational", "guide": "a sentence"}],
                "avoid": ["who starred in Alien"],
                "user_voice": false}))
            .unwrap();
        assert_eq!(rendered, include_str!("testdata/write_view.txt"));
    }

    #[test]
    fn the_prompt_claims_a_dependency_only_where_a_step_is_fed_and_speaks_as_its_voice() {
        let slot = json!({"phrasing": "terse", "guide": "g"});
        let steps = |fed: serde_json::Value| {
            json!([{"index": 1, "doc": "D", "observed": "", "fed_by": null},
                   {"index": 2, "doc": "E", "observed": "", "fed_by": fed}])
        };
        let render = |fed, user: bool| {
            WRITE
                .render(
                    &json!({"steps": steps(fed), "slots": [slot], "avoid": [], "user_voice": user}),
                )
                .unwrap()
        };
        let independent = render(json!(null), false);
        assert!(!independent.contains("takes a value"), "{independent}");
        assert!(
            independent.contains("no call needs another's result"),
            "{independent}"
        );
        let fed = render(json!(1), false);
        assert!(fed.contains("Call 2 (takes a value from call 1):"), "{fed}");
        assert!(!fed.contains("never seen"), "{fed}");
        let user = render(json!(1), true);
        assert!(user.contains("never seen the documentation"), "{user}");
        assert!(user.contains("never the steps"), "{user}");
        assert!(user.contains("plain, common words"), "{user}");
        assert!(!fed.contains("plain, common words"), "{fed}");
    }
}
