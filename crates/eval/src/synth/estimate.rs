//! The `--dry-run` estimate: LLM calls and tokens a set would take, from its paths' docs.

use std::collections::BTreeMap;

use serde::Serialize;
use toolsmith_catalog::{ApiId, Catalog};

use super::path::GoldPath;
use super::spec::SetSpec;

/// Tokens of the writer's instructions around the docs (our prompt's size, rounded up).
const WRITER_INSTRUCTIONS: usize = 600;
/// Tokens a written request with its planned call takes, per step.
const PER_STEP_OUTPUT: usize = 80;
/// Tokens of the answer check's prompt besides the responses, and of its reply.
const CHECK_PROMPT: usize = 250;
const CHECK_REPLY: usize = 60;
/// Tokens assumed per response shown to the answer check.
const PER_RESPONSE: usize = 400;

/// What a set would cost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// Paths to write for.
    pub paths: usize,
    /// Requests the writer is asked for.
    pub requests: usize,
    /// LLM calls: one per path to the writer, one per request to the answer check when on.
    pub llm_calls: usize,
    /// Prompt tokens, about.
    pub prompt_tokens: usize,
    /// Completion tokens, about.
    pub completion_tokens: usize,
}

/// The estimate for writing `paths` (over `catalog`'s docs) as `spec` says. Tokens are
/// counted as characters / 4.
pub fn estimate(paths: &[GoldPath], catalog: &Catalog, spec: &SetSpec) -> Estimate {
    let doc_tokens: BTreeMap<&ApiId, usize> = catalog
        .apis()
        .map(|(_, a)| {
            let chars = serde_json::to_string(&a.api.params).map_or(0, |s| s.len())
                + a.description().len()
                + a.api.name.len();
            (&a.api.id, chars / 4)
        })
        .collect();
    let mut out = Estimate {
        paths: paths.len(),
        ..Estimate::default()
    };
    for path in paths {
        let docs: usize = path.apis.iter().filter_map(|a| doc_tokens.get(a)).sum();
        out.requests += spec.per_path;
        out.llm_calls += 1;
        out.prompt_tokens += WRITER_INSTRUCTIONS + docs;
        out.completion_tokens += spec.per_path * PER_STEP_OUTPUT * path.apis.len();
        if spec.answer_check {
            out.llm_calls += spec.per_path;
            out.prompt_tokens += spec.per_path * (CHECK_PROMPT + PER_RESPONSE * path.apis.len());
            out.completion_tokens += spec.per_path * CHECK_REPLY;
        }
    }
    out
}
