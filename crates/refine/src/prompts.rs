//! The one place the prompt files are referenced. Each file documents its inputs and the JSON
//! it expects back; [`Prompt`] renders strictly and names itself in the cache key.

use toolsmith_llm::Prompt;

/// DRAFT's explorer: a request and the call arguments serving it.
pub(crate) const EXPLORER: Prompt = Prompt::new(
    "draft/explorer",
    include_str!("../prompts/draft/explorer.j2"),
);
/// DRAFT's explorer, asked again after the diversity check.
pub(crate) const TOO_SIMILAR: Prompt = Prompt::new(
    "draft/too_similar",
    include_str!("../prompts/draft/too_similar.j2"),
);
/// DRAFT's analyzer: suggestions from one trial.
pub(crate) const ANALYZER: Prompt = Prompt::new(
    "draft/analyzer",
    include_str!("../prompts/draft/analyzer.j2"),
);
/// DRAFT's rewriter: the next description and exploration direction.
pub(crate) const REWRITER: Prompt = Prompt::new(
    "draft/rewriter",
    include_str!("../prompts/draft/rewriter.j2"),
);
/// A tool's description from its APIs (both methods).
pub(crate) const TOOL: Prompt = Prompt::new("refine/tool", include_str!("../prompts/tool.j2"));
/// EasyTool: a concise API instruction with usage scenarios.
pub(crate) const EASYTOOL_API: Prompt =
    Prompt::new("easytool/api", include_str!("../prompts/easytool/api.j2"));
/// EasyTool: one failed usage example, regenerated with its error.
pub(crate) const EASYTOOL_RETRY: Prompt = Prompt::new(
    "easytool/retry",
    include_str!("../prompts/easytool/retry.j2"),
);

/// ToolExpNet trial: contrastive requests for a similarity edge.
pub(crate) const EXPNET_SIMILAR: Prompt = Prompt::new(
    "expnet/similar",
    include_str!("../prompts/expnet/similar.j2"),
);
/// ToolExpNet trial: requests needing both ends of a dependency edge.
pub(crate) const EXPNET_DEPENDENT: Prompt = Prompt::new(
    "expnet/dependent",
    include_str!("../prompts/expnet/dependent.j2"),
);
/// ToolExpNet actor: picks the functions for one request.
pub(crate) const EXPNET_ACTOR: Prompt =
    Prompt::new("expnet/actor", include_str!("../prompts/expnet/actor.j2"));
/// ToolExpNet reflection: a node's structured insight.
pub(crate) const EXPNET_INSIGHT: Prompt = Prompt::new(
    "expnet/insight",
    include_str!("../prompts/expnet/insight.j2"),
);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_prompt_renders_with_its_documented_inputs() {
        let trial = json!({"query": "q", "arguments": "{}", "defaults": "{\"page\":1}", "undocumented": "{\"region\":\"US\"}", "ok": true, "observation": "o", "invented": "llm", "skeleton": true, "status_only": true});
        let cases = [
            (
                EXPLORER,
                json!({"doc": "d", "direction": "", "explored": ["a"]}),
            ),
            (
                TOO_SIMILAR,
                json!({"query": "q", "similar_to": "p", "cosine": 0.95}),
            ),
            (
                ANALYZER,
                json!({"doc": "d", "trial": trial, "history": ["h"], "findings": ["f"]}),
            ),
            (
                REWRITER,
                json!({"doc": "d", "trial": trial, "suggestions": "s", "history": [], "max_chars": 1200}),
            ),
            (
                TOOL,
                json!({"name": "n", "description": "", "apis": [{"name": "a", "description": "b"}]}),
            ),
            (
                EASYTOOL_API,
                json!({"doc": "d", "tool": "t", "count": 1, "findings": []}),
            ),
            (
                EASYTOOL_RETRY,
                json!({"doc": "d", "request": "r", "arguments": "{}", "error": "e", "invented": "spec", "skeleton": false}),
            ),
            (
                EXPNET_SIMILAR,
                json!({"a": "x/a", "a_doc": "d", "b": "x/b", "b_doc": "e", "count": 2}),
            ),
            (
                EXPNET_DEPENDENT,
                json!({"from": "x/a", "from_doc": "d", "to": "x/b", "to_doc": "e", "params": ["id"], "count": 2}),
            ),
            (
                EXPNET_ACTOR,
                json!({"tools": [{"id": "x/a", "description": "d"}], "query": "q"}),
            ),
            (
                EXPNET_INSIGHT,
                json!({"api": "x/a", "insight": "i", "neighbours": [{"api": "x/b", "relation": "similar", "insight": "j"}],
                    "experiences": [{"query": "q", "label": ["x/a"], "answer": ["x/b"], "correct": false}]}),
            ),
        ];
        for (prompt, ctx) in cases {
            let text = prompt.render(&ctx).unwrap();
            assert!(text.contains("JSON"), "{}: {text}", prompt.name());
            assert!(!text.contains("{{"), "{}", prompt.name());
        }
        assert!(
            EXPLORER.render(&json!({"doc": "d"})).is_err(),
            "slots are strict"
        );
    }

    #[test]
    fn a_made_up_error_body_is_named_no_evidence_only_when_it_is_one() {
        let ctx = |status_only: bool| {
            let trial = json!({"query": "q", "arguments": "{}", "defaults": "", "undocumented": "", "ok": true, "observation": "o",
                "invented": "spec", "skeleton": false, "status_only": status_only});
            json!({"doc": "d", "trial": trial, "history": [], "findings": [], "suggestions": "s", "max_chars": 300})
        };
        for prompt in [ANALYZER, REWRITER] {
            let marked = prompt.render(&ctx(true)).unwrap();
            assert!(marked.contains("only an error or a"), "{marked}");
            let plain = prompt.render(&ctx(false)).unwrap();
            assert!(!plain.contains("only an error or a"), "{plain}");
        }
        let analyzer = ANALYZER.render(&ctx(false)).unwrap();
        assert!(analyzer.contains("as if it\nsucceeded"), "{analyzer}");
    }
}
