//! Issue 31, item 4: a response the simulator or a model invented is no evidence. The prompts
//! mark it (or show only its skeleton), a rewrite quoting its values loses those sentences,
//! and `trust` keeps the behaviour from before, byte for byte.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocTarget};
use toolsmith_exec::{Body, Executor, Observation, Provenance};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_refine::{
    Draft, DraftSettings, EasyTool, EasyToolSettings, InventedValues, Method, RefineStore, Round,
    RunSpec, Runner,
};

use crate::draft::{analyzer, explorer, rewriter, spec};
use crate::support::{Recorder, search, store, tools};

/// What the made-up service answers: a title and an id no doc or spec has.
fn body() -> Value {
    json!({"results": [{"id": 27205, "title": "Inception Redux"}]})
}

/// The rewrite quotes both invented values in its first sentence.
const QUOTING: &str =
    "Searches films by title, e.g. \"Inception Redux\" with id 27205. Results list ids and titles.";
const CLEANED: &str = "Results list ids and titles.";

/// Answers every call with the same observation.
struct Fixed(Observation);

#[async_trait::async_trait]
impl Executor for Fixed {
    async fn call(&self, _api: &ApiId, _args: &Value) -> toolsmith_exec::Result<Observation> {
        Ok(self.0.clone())
    }
}

/// One DRAFT round over `search` against a service answering [`body`] with `provenance`.
/// Returns the round, the stored `draft` doc, the analyzer's and the rewriter's prompts.
async fn draft_once(
    provenance: Provenance,
    rule: InventedValues,
) -> (Round, String, String, String) {
    draft_with(body(), QUOTING, provenance, rule).await
}

/// One DRAFT round over `search` against a service answering `answer`, the rewriter writing
/// `rewrite`: as [`draft_once`].
async fn draft_with(
    answer: Value,
    rewrite: &str,
    provenance: Provenance,
    rule: InventedValues,
) -> (Round, String, String, String) {
    let llm = ScriptedLlm::new([
        explorer("Find the movie Dune", json!({"query": "Dune"})),
        analyzer(),
        rewriter(rewrite),
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    let planned = tools(&catalog.lock().unwrap(), &[search()]);
    let settings = DraftSettings {
        max_rounds: 1,
        invented_values: rule,
        ..DraftSettings::PAPER
    };
    let service = Fixed(Observation::ok_json(answer, provenance));
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        Arc::new(service),
        settings,
    )
    .unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    llm.assert_finished();
    let round = refine.rounds(run, &search()).unwrap().remove(0);
    let docs = catalog
        .into_inner()
        .unwrap()
        .doc_history(&DocTarget::Api(search()))
        .unwrap();
    let stored = docs
        .iter()
        .find(|d| d.label.as_str() == "draft")
        .map(|d| d.doc.description.clone())
        .unwrap_or_default();
    let requests = llm.requests();
    let prompt = |i: usize| requests[i].last_message().to_owned();
    (round, stored, prompt(1), prompt(2))
}

#[tokio::test]
async fn the_analyzer_is_told_a_model_invented_the_response_and_a_rewrite_quoting_it_is_cleaned() {
    let (round, stored, analyzer, rewriter) =
        draft_once(Provenance::SimulatedLlm, InventedValues::ShapeOnly).await;
    assert_eq!(
        round.exploration.as_ref().unwrap().provenance,
        Provenance::SimulatedLlm
    );
    assert!(
        analyzer.contains("written by a language model standing in for the service"),
        "{analyzer}"
    );
    assert!(
        analyzer.contains("Inception Redux"),
        "shape_only still shows the values"
    );
    assert!(rewriter.contains("A sentence\nquoting one of its values is deleted"));
    let mut flagged: Vec<&str> = round
        .invented_quotes
        .iter()
        .map(|q| q.value.as_str())
        .collect();
    flagged.sort_unstable();
    assert_eq!(flagged, ["27205", "Inception Redux"]);
    assert!(round.invented_quotes.iter().all(|q| q.removed));
    assert_eq!(round.description, CLEANED);
    assert_eq!(stored, CLEANED, "the stored doc lost the sentence");
}

#[tokio::test]
async fn a_rewrite_using_ordinary_words_an_invented_response_held_keeps_its_sentence() {
    // The words stand-ins reported the filter blocking: `text`, `email`, `m`.
    let answer = json!({"results": [{"id": 27205, "title": "Inception Redux",
        "format": "Text", "contact": "Email", "delivery": "email", "unit": "m"}]});
    let ordinary = "Searches films by title; each result streams as text or by email, sizes in m.";
    let rewrite = format!("{ordinary} The top hit is Inception Redux.");
    let (round, stored, _, _) = draft_with(
        answer,
        &rewrite,
        Provenance::SimulatedLlm,
        InventedValues::ShapeOnly,
    )
    .await;
    let flagged: Vec<&str> = round
        .invented_quotes
        .iter()
        .map(|q| q.value.as_str())
        .collect();
    assert_eq!(flagged, ["Inception Redux"]);
    assert_eq!(stored, ordinary, "only the sentence quoting a title went");
}

#[tokio::test]
async fn under_trust_nothing_changes_the_prompts_equal_a_live_runs_and_quotes_are_only_flagged() {
    let (round, stored, analyzer, rewriter) =
        draft_once(Provenance::SimulatedLlm, InventedValues::Trust).await;
    let (live, _, live_analyzer, live_rewriter) =
        draft_once(Provenance::Live, InventedValues::ShapeOnly).await;
    assert_eq!(
        analyzer, live_analyzer,
        "byte for byte the prompt of evidence"
    );
    assert_eq!(rewriter, live_rewriter);
    assert_eq!(stored, QUOTING);
    assert_eq!(round.invented_quotes.len(), 2);
    assert!(round.invented_quotes.iter().all(|q| !q.removed));
    // A live response's values are evidence: not marked, nothing flagged.
    assert!(!live_analyzer.contains("not returned by the real service"));
    assert!(live.invented_quotes.is_empty());
    assert_eq!(live.description, QUOTING);
}

#[tokio::test]
async fn a_replayed_response_is_evidence_and_a_simulated_one_is_marked_as_from_the_spec() {
    let (replayed, _, analyzer, _) =
        draft_once(Provenance::Replayed, InventedValues::Exclude).await;
    assert!(!analyzer.contains("not returned by the real service"));
    assert!(analyzer.contains("Inception Redux"));
    assert_eq!(replayed.description, QUOTING);
    let (_, _, analyzer, _) = draft_once(Provenance::Simulated, InventedValues::ShapeOnly).await;
    assert!(analyzer.contains("synthesized from the API's specification"));
}

#[tokio::test]
async fn exclude_shows_the_analyzer_only_the_skeleton() {
    let (round, stored, analyzer, rewriter) =
        draft_once(Provenance::SimulatedLlm, InventedValues::Exclude).await;
    for prompt in [&analyzer, &rewriter] {
        assert!(!prompt.contains("Inception Redux"), "{prompt}");
        assert!(!prompt.contains("27205"));
        assert!(prompt.contains(r#"{"results":[{"id":"<integer>","title":"<string>"}]}"#));
    }
    assert!(analyzer.contains("its values are withheld"));
    assert_eq!(
        round.exploration.unwrap().observation,
        r#"{"results":[{"id":"<integer>","title":"<string>"}]}"#,
        "the trial stores what the model was shown"
    );
    assert_eq!(stored, CLEANED);
}

/// EasyTool over a service whose failure a model wrote; returns the retry prompt.
async fn easytool_retry(rule: InventedValues) -> String {
    let failure = Observation {
        body: Body::Json(json!({"message": "title 'Solaris 2099' is not in catalog 4471"})),
        ..Observation::tool_error(
            toolsmith_exec::FailureKind::NotFound,
            "",
            Provenance::SimulatedLlm,
        )
    };
    let llm = ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Rewrite the documentation"),
            Reply::text(
                json!({"description": "Finds movies by title.",
                    "examples": [{"request": "Find Solaris", "arguments": {"query": "Solaris"}}]})
                .to_string(),
            ),
        )
        .with_rule(
            When::last_message_contains("failed when it was executed"),
            Reply::text(
                json!({"request": "Find Alien", "arguments": {"query": "Alien"}}).to_string(),
            ),
        )
        .with_rule(
            When::last_message_contains("Write a short description of the tool"),
            Reply::text(json!({"description": "Movies: films by title."}).to_string()),
        );
    let settings = EasyToolSettings {
        invented_values: rule,
        ..EasyToolSettings::PAPER
    };
    let catalog = Mutex::new(store());
    let planned = tools(&catalog.lock().unwrap(), &[search()]);
    let easytool =
        EasyTool::new(Arc::new(llm.clone()), Arc::new(Fixed(failure)), settings).unwrap();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::EasyTool,
            ..spec()
        })
        .unwrap();
    Runner::new(&easytool, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    let round = refine.rounds(run, &search()).unwrap().remove(0);
    assert!(round.examples.is_empty(), "a failed example is never kept");
    let requests = llm.requests();
    requests
        .iter()
        .map(|r| r.last_message().to_owned())
        .find(|m| m.contains("failed when it was executed"))
        .unwrap()
}

#[tokio::test]
async fn easytools_retry_is_told_an_invented_failure_is_no_evidence_of_its_values() {
    let marked = easytool_retry(InventedValues::ShapeOnly).await;
    assert!(marked.contains("Solaris 2099"));
    assert!(
        marked.contains("copy none of its values into the request"),
        "{marked}"
    );
    let hidden = easytool_retry(InventedValues::Exclude).await;
    assert!(!hidden.contains("Solaris 2099"), "{hidden}");
    assert!(hidden.contains(r#"not_found: {"message":"<string>"}"#));
    let trusted = easytool_retry(InventedValues::Trust).await;
    assert!(!trusted.contains("copy none of its values"));
    assert!(trusted.contains("Result: not_found: {\"message\""));
    assert!(
        trusted.contains("4471\"}\n\nFix the arguments"),
        "{trusted}"
    );
}
