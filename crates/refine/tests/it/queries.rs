//! The query writer: count kept, near-duplicates and malformed items dropped, `$from` paths.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiEntry;
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm};
use toolsmith_refine::{
    Discarded, PathStep, Phrasing, QueryWriter, QueryWriterSettings, Voice, WriteRequest,
};

use crate::support::{catalog, details, search, store};

fn entry(id: &toolsmith_catalog::ApiId) -> ApiEntry {
    let store = store();
    catalog(&store)
        .tools
        .into_iter()
        .flat_map(|t| t.apis)
        .find(|a| &a.api.id == id)
        .unwrap()
}

fn reply(requests: Value) -> Reply {
    Reply::text(json!({ "requests": requests }).to_string())
}

fn search_call(query: &str) -> Value {
    json!([{"arguments": {"query": query}}])
}

fn one_step(count: usize) -> WriteRequest {
    WriteRequest {
        steps: vec![PathStep::new(entry(&search()))],
        count,
        phrasings: Vec::new(),
        avoid: Vec::new(),
        voice: Voice::View,
    }
}

#[tokio::test]
async fn returns_count_requests_after_dropping_a_near_duplicate_and_a_malformed_item() {
    let llm = ScriptedLlm::new([
        reply(json!([
            {"text": "Find the film Dune for me", "phrasing": "terse", "calls": search_call("Dune")},
            {"text": "Find the film Dune for me now", "calls": search_call("Dune")},
            {"text": "Look up Alien", "calls": [{"arguments": {"title": "Alien"}}]},
            {"text": "Is there a movie called Heat? My brother swears there is.", "calls": search_call("Heat")},
        ])),
        reply(json!([
            {"text": "I'd like to know about the movie Arrival", "calls": search_call("Arrival")},
        ])),
    ]);
    let writer = QueryWriter::new(
        Arc::new(llm.clone()),
        Some(Arc::new(ScriptedEmbedder::default())),
        QueryWriterSettings::PAPER,
    )
    .unwrap();
    let report = writer.write_report(&one_step(3)).await.unwrap();

    let texts: Vec<&str> = report.queries.iter().map(|q| q.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Find the film Dune for me",
            "Is there a movie called Heat? My brother swears there is.",
            "I'd like to know about the movie Arrival"
        ]
    );
    assert_eq!(report.asks, 2, "the second ask fills the two dropped");
    assert_eq!(report.queries[0].calls[0].api, search());
    assert_eq!(
        report.queries[0].calls[0].arguments,
        json!({"query": "Dune"})
    );
    assert_eq!(report.queries[0].phrasing, Phrasing::Terse);
    assert!(
        report.discarded.iter().any(|d| matches!(d, Discarded::NearDuplicate { text, similar_to, cosine }
            if text == "Find the film Dune for me now" && similar_to == "Find the film Dune for me" && *cosine >= 0.9)),
        "{:?}",
        report.discarded
    );
    assert!(
        report
            .discarded
            .iter()
            .any(|d| matches!(d, Discarded::Malformed { reason, .. }
            if reason.contains("unknown parameter `title`"))),
        "{:?}",
        report.discarded
    );
    let requests = llm.requests();
    assert_eq!(requests[0].role.as_str(), "queries");
    let second = requests[1].last_message();
    assert!(second.contains("Write 1 request(s)"), "{second}");
    assert!(
        second.contains("- Find the film Dune for me\n"),
        "the second ask is shown what was kept: {second}"
    );
    llm.assert_finished();
}

#[tokio::test]
async fn a_multi_step_request_plans_calls_with_from_references() {
    let observed = json!({"results": [{"id": 438631, "title": "Dune"}]});
    let llm = ScriptedLlm::new([reply(json!([
        {"text": "Dune and Alien", "phrasing": "multi_intent", "calls": [
            {"arguments": {"query": "Dune"}},
            {"arguments": {"movie_id": {"$from": 1, "path": ".results[0].id"}}}]},
        {"text": "How long is Dune?", "calls": [
            {"arguments": {"query": "Dune"}},
            {"arguments": {"movie_id": {"$from": 2, "path": ".id"}}}]},
        {"text": "Tell me about Dune", "calls": [{"arguments": {"query": "Dune"}}]},
    ]))]);
    let writer = QueryWriter::new(
        Arc::new(llm.clone()),
        None,
        QueryWriterSettings {
            max_asks: 1,
            ..QueryWriterSettings::PAPER
        },
    )
    .unwrap();
    let req = WriteRequest {
        steps: vec![
            PathStep {
                api: entry(&search()),
                observed: Some(observed),
                fed_by: None,
            },
            PathStep::new(entry(&details())),
        ],
        count: 3,
        phrasings: vec![Phrasing::MultiIntent],
        avoid: Vec::new(),
        voice: Voice::View,
    };
    let report = writer.write_report(&req).await.unwrap();

    assert_eq!(report.queries.len(), 1, "{:?}", report.discarded);
    let query = &report.queries[0];
    assert_eq!(query.phrasing, Phrasing::MultiIntent);
    assert_eq!(query.calls[0].api, search());
    assert_eq!(query.calls[1].api, details());
    assert_eq!(
        query.calls[1].arguments,
        json!({"movie_id": {"$from": 0, "path": ".results[0].id"}}),
        "the prompt's 1-based call number is the 0-based step index"
    );
    let reasons: Vec<String> = report
        .discarded
        .iter()
        .map(|d| match d {
            Discarded::Malformed { reason, .. } => reason.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0].contains("is not an earlier call"), "{reasons:?}");
    assert!(
        reasons[1].contains("1 call(s) for a path of 2"),
        "{reasons:?}"
    );
    let prompt = llm.requests()[0].last_message().to_owned();
    assert!(
        prompt.contains("438631"),
        "the observed response grounds values: {prompt}"
    );
    assert!(prompt.contains("\"$from\""), "{prompt}");
}

#[tokio::test]
async fn an_unusable_reply_and_exact_repeats_lose_nothing_else() {
    let llm = ScriptedLlm::new([
        Reply::text("no JSON here"),
        Reply::text("still none"),
        Reply::text("nor here"),
        reply(json!([
            {"text": "Movies named Heat", "calls": search_call("Heat")},
            {"text": "movies  named heat", "calls": search_call("Heat")},
            {"text": "Search Dune", "calls": search_call("Dune")},
        ])),
    ]);
    let settings = QueryWriterSettings {
        max_asks: 2,
        ..QueryWriterSettings::PAPER
    };
    let writer = QueryWriter::new(Arc::new(llm.clone()), None, settings).unwrap();
    let mut req = one_step(3);
    req.avoid = vec!["search dune".into()];
    let report = writer.write_report(&req).await.unwrap();

    let texts: Vec<&str> = report.queries.iter().map(|q| q.text.as_str()).collect();
    assert_eq!(texts, ["Movies named Heat"]);
    assert_eq!(report.asks, 2);
    assert!(matches!(report.discarded[0], Discarded::Unusable { .. }));
    let repeats: Vec<&str> = report
        .discarded
        .iter()
        .filter_map(|d| match d {
            Discarded::NearDuplicate { similar_to, .. } => Some(similar_to.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(repeats, ["Movies named Heat", "search dune"]);
    llm.assert_finished();
}

#[tokio::test]
async fn views_and_yardstick_requests_are_asked_under_their_own_roles() {
    let one = || reply(json!([{"text": "Find the film Dune", "calls": search_call("Dune")}]));
    let llm = ScriptedLlm::new([one(), one()]);
    let writer = QueryWriter::new(
        Arc::new(llm.clone()),
        Some(Arc::new(ScriptedEmbedder::default())),
        QueryWriterSettings::PAPER,
    )
    .unwrap();
    writer.write(&one_step(1)).await.unwrap();
    let user = WriteRequest {
        voice: Voice::User,
        ..one_step(1)
    };
    writer.write(&user).await.unwrap();
    let roles: Vec<String> = llm
        .requests()
        .iter()
        .map(|r| r.role.as_str().to_owned())
        .collect();
    assert_eq!(roles, ["queries", "synth"]);
}
