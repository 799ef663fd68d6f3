//! [`OfferJudge`]: whether the APIs offered for a request serve every one of its needs, as a
//! model reads them.
//!
//! Offered-path coverage counts an offer as covering a request only when it holds the exact
//! gold APIs. A benchmark's gold path names one of many interchangeable APIs (ToolBench's QR
//! code requests have dozens of QR generators in ToolEnv2404), so an offer holding another
//! one serves the user as well and still counts as a miss. This judge asks the model (role
//! `judge`, `prompts/judge_offer.j2`) to split the request into needs and name, for each, the
//! offered API that serves it or none. The verdict is recomputed from those needs: a name not
//! in the offer counts as none, and the model's own `covered` is not read. A reply that stays
//! unreadable after the usual repairs is [`OfferVerdict::Unjudged`], never an error.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_llm::{
    Budget, ChatModel, ChatRequest, Message, Prompt, Role, Sampling, StructuredSettings, ask_json,
};
use toolsmith_retrieve::Corpus;

use crate::error::{Error, Result};
use crate::judge::JudgeUsage;
use crate::llm_judge::LlmJudgeSettings;

/// The prompt asking which offered API serves each need of a request.
pub const JUDGE_OFFER_PROMPT: Prompt = Prompt::new(
    "eval/judge_offer",
    include_str!("../prompts/judge_offer.j2"),
);

/// Which offered API serves one need, as the judge said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "served", content = "api", rename_all = "snake_case")]
pub enum Served {
    /// This offered API serves it.
    By(ApiId),
    /// No offered API serves it.
    Not,
    /// The judge named something that is not in the offer (counted as [`Served::Not`]).
    NotOffered(String),
}

/// One need of a request and what serves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JudgedNeed {
    /// The need, in the judge's words.
    pub need: String,
    /// The offered API the judge named for it, if any.
    #[serde(flatten)]
    pub served: Served,
}

impl JudgedNeed {
    /// The offered API serving this need, if the judge named one.
    pub fn api(&self) -> Option<&ApiId> {
        match &self.served {
            Served::By(api) => Some(api),
            Served::Not | Served::NotOffered(_) => None,
        }
    }
}

/// The judge's reading of one offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum OfferVerdict {
    /// The request's needs (at least one), each with what serves it.
    Judged {
        /// The needs, in the judge's order.
        needs: Vec<JudgedNeed>,
    },
    /// No usable reply: why.
    Unjudged {
        /// What was wrong with the reply.
        reason: String,
    },
}

impl OfferVerdict {
    /// Whether every need has an offered API; `None` when unjudged.
    pub fn covered(&self) -> Option<bool> {
        match self {
            Self::Judged { needs } => Some(needs.iter().all(|n| n.api().is_some())),
            Self::Unjudged { .. } => None,
        }
    }
}

/// One offered API as the judge sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShownApi {
    /// Its id, which the judge names it by.
    pub name: String,
    /// The corpus's one-line summary of it (name and the description's start), as result
    /// lists and the reranker show it.
    pub about: String,
}

/// The reply asked for: `{"needs": [{"need", "api"}], "covered"}`; `covered` is not read.
#[derive(Deserialize)]
struct Reply {
    needs: Vec<NeedReply>,
}

#[derive(Deserialize)]
struct NeedReply {
    #[serde(default)]
    need: String,
    #[serde(default)]
    api: Value,
}

/// Asks a chat model whether an offer serves a request, need by need.
pub struct OfferJudge {
    llm: Arc<dyn ChatModel>,
    meter: Arc<Budget>,
    settings: LlmJudgeSettings,
    corpus: Arc<Corpus>,
}

impl OfferJudge {
    /// A judge asking `llm` (requests carry the role `judge`, sampled as `settings` say),
    /// describing offered APIs from `corpus`. Its own meter counts what it spends.
    pub fn new(llm: Arc<dyn ChatModel>, settings: LlmJudgeSettings, corpus: Arc<Corpus>) -> Self {
        let (llm, meter) = crate::llm_judge::metered(llm);
        Self {
            llm,
            meter,
            settings,
            corpus,
        }
    }

    /// The offered APIs as the prompt lists them, in the offer's order.
    pub fn shown(&self, offered: &[ApiId]) -> Vec<ShownApi> {
        offered
            .iter()
            .map(|api| ShownApi {
                name: api.to_string(),
                about: self
                    .corpus
                    .position(api)
                    .and_then(|i| self.corpus.doc(i as usize))
                    .map(toolsmith_retrieve::CorpusDoc::summary)
                    .unwrap_or_default(),
            })
            .collect()
    }

    /// The judge's verdict on `offered` for `request`. `Err` only when the model could not be
    /// asked (an endpoint failure); an unreadable reply is [`OfferVerdict::Unjudged`].
    pub async fn judge(&self, request: &str, offered: &[ApiId]) -> Result<OfferVerdict> {
        let text = JUDGE_OFFER_PROMPT
            .render(&json!({"request": request, "apis": self.shown(offered)}))
            .map_err(judge_err)?;
        let req = ChatRequest::new(Role::JUDGE, vec![Message::user(text)])
            .with_prompt(&JUDGE_OFFER_PROMPT)
            .with_query(request)
            .with_sampling(Sampling {
                temperature: self.settings.temperature,
                max_tokens: self.settings.max_tokens,
                seed: Some(0),
                ..Sampling::default()
            });
        let structured = StructuredSettings {
            max_repairs: self.settings.max_repairs,
            ..StructuredSettings::default()
        };
        match ask_json::<Reply, _>(self.llm.as_ref(), req, &structured).await {
            Ok(reply) => Ok(verdict(reply.value, offered)),
            Err(toolsmith_llm::Error::Structured { reason, .. }) => {
                Ok(OfferVerdict::Unjudged { reason })
            }
            Err(e) => Err(judge_err(e)),
        }
    }

    /// What this judge has spent so far (cache hits apart).
    pub fn usage(&self) -> JudgeUsage {
        let total = self.meter.ledger().total;
        JudgeUsage {
            calls: total.calls.saturating_sub(total.cache_hits),
            cache_hits: total.cache_hits,
            prompt_tokens: total.prompt_tokens,
            completion_tokens: total.completion_tokens,
        }
    }
}

fn judge_err(e: impl std::fmt::Display) -> Error {
    Error::Judge {
        message: format!("judging an offer: {e}"),
    }
}

/// The verdict of a parsed reply: each named API matched against the offer.
fn verdict(reply: Reply, offered: &[ApiId]) -> OfferVerdict {
    if reply.needs.is_empty() {
        return OfferVerdict::Unjudged {
            reason: "the judge listed no need".to_owned(),
        };
    }
    let needs = reply
        .needs
        .into_iter()
        .map(|n| JudgedNeed {
            need: n.need.trim().to_owned(),
            served: served(&n.api, offered),
        })
        .collect();
    OfferVerdict::Judged { needs }
}

/// What a reply's `api` value names: an offered API (its id, read leniently: case, quotes,
/// backticks, a copied `: description` tail), none (`null`, `""`, `"none"`), or something
/// not offered.
fn served(api: &Value, offered: &[ApiId]) -> Served {
    let raw = match api {
        Value::Null => return Served::Not,
        Value::String(s) => s.as_str(),
        other => return Served::NotOffered(other.to_string()),
    };
    let name = raw
        .trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '`')
        .trim();
    if matches!(
        name.to_ascii_lowercase().as_str(),
        "" | "null" | "none" | "n/a"
    ) {
        return Served::Not;
    }
    let head = name.split([':', ' ']).next().unwrap_or(name);
    offered
        .iter()
        .find(|id| {
            let id = id.to_string();
            id.eq_ignore_ascii_case(name) || id.eq_ignore_ascii_case(head)
        })
        .map_or_else(
            || Served::NotOffered(raw.to_owned()),
            |id| Served::By(id.clone()),
        )
}

#[cfg(test)]
mod tests {
    use toolsmith_llm::testing::{Reply as Scripted, ScriptedLlm};
    use toolsmith_retrieve::{CorpusDoc, Field};

    use super::*;

    fn ids(names: &[&str]) -> Vec<ApiId> {
        names.iter().map(|n| n.parse().unwrap()).collect()
    }

    fn judge_with(replies: Vec<&str>) -> (OfferJudge, Arc<ScriptedLlm>) {
        let llm = Arc::new(ScriptedLlm::new(replies.into_iter().map(Scripted::text)));
        let docs = ["qr/generate", "mail/send", "mail/check"].map(|id| {
            let api: ApiId = id.parse().unwrap();
            let mut fields: [String; Field::COUNT] = Default::default();
            for (i, field) in Field::ALL.iter().enumerate() {
                match field {
                    Field::ApiName => fields[i] = id.to_owned(),
                    Field::ApiDescription => fields[i] = format!("does {id}"),
                    _ => {}
                }
            }
            CorpusDoc {
                tool: api.tool().clone(),
                api,
                category: "misc".to_owned(),
                fields,
            }
        });
        let corpus = Arc::new(Corpus::from_docs(docs));
        let judge = OfferJudge::new(
            Arc::clone(&llm) as Arc<dyn ChatModel>,
            LlmJudgeSettings::PAPER,
            corpus,
        );
        (judge, llm)
    }

    #[test]
    fn names_are_matched_leniently_and_unknown_ones_count_as_none() {
        let offered = ids(&["qr/generate", "mail/send"]);
        let by = |s: &str| served(&Value::String(s.to_owned()), &offered);
        assert_eq!(by(" `QR/Generate` "), Served::By(offered[0].clone()));
        assert_eq!(
            by("mail/send: Sends a mail"),
            Served::By(offered[1].clone())
        );
        assert_eq!(by("None"), Served::Not);
        assert_eq!(served(&Value::Null, &offered), Served::Not);
        assert_eq!(
            by("mail/check"),
            Served::NotOffered("mail/check".to_owned())
        );
    }

    #[tokio::test]
    async fn covered_is_recomputed_from_the_needs_not_read_from_the_reply() {
        let reply = r#"{"needs": [{"need": "a QR code", "api": "qr/generate"},
            {"need": "check an address", "api": "mail/check"}], "covered": true}"#;
        let (judge, llm) = judge_with(vec![reply]);
        let verdict = judge
            .judge(
                "make a QR code and check my address",
                &ids(&["qr/generate", "mail/send"]),
            )
            .await
            .unwrap();
        assert_eq!(verdict.covered(), Some(false), "{verdict:?}");
        let prompt = llm.requests()[0].messages[0].text().to_owned();
        assert!(prompt.contains("- qr/generate: "), "{prompt}");
        assert!(
            !prompt.contains("mail/check"),
            "only the offer is listed: {prompt}"
        );
        assert_eq!(llm.requests()[0].role.as_str(), Role::JUDGE);
        let json = serde_json::to_value(&verdict).unwrap();
        assert_eq!(json["needs"][1]["served"], "not_offered", "{json}");
    }

    #[tokio::test]
    async fn an_unreadable_reply_after_the_repairs_is_unjudged() {
        let (judge, llm) = judge_with(vec!["sure!", "still no json", "nope"]);
        let verdict = judge
            .judge("anything", &ids(&["qr/generate"]))
            .await
            .unwrap();
        assert!(
            matches!(verdict, OfferVerdict::Unjudged { .. }),
            "{verdict:?}"
        );
        assert_eq!(verdict.covered(), None);
        assert_eq!(llm.requests().len(), 3, "asked once, repaired twice");
        assert_eq!(judge.usage().calls, 3);
    }
}
