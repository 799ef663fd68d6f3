//! `docs gate`, `docs history --rounds` and `docs rollback` on a five-API catalog and a
//! ten-query eval file, ranked by BM25 (no model needed).

use crate::support::Workspace;

/// Five APIs named by operationId, so that only the description (the doc) carries words.
const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "Cinema", "version": "1"}, "paths": {
  "/person/{id}": {"get": {"operationId": "getPerson", "description": "Fetch one record",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "ok"}}}},
  "/tv/popular": {"get": {"operationId": "popularTv", "description": "List popular television shows",
    "responses": {"200": {"description": "ok"}}}},
  "/genre/list": {"get": {"operationId": "genreList", "description": "List the genres",
    "responses": {"200": {"description": "ok"}}}},
  "/company/{id}": {"get": {"operationId": "getCompany", "description": "Get a production company",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "ok"}}}},
  "/search/movie": {"get": {"operationId": "searchMovie", "description": "Find films by their title",
    "responses": {"200": {"description": "ok"}}}}
}}"#;

/// Five queries for the movie search (whose active doc fits them), five for the person
/// (whose active doc does not).
const EVAL: &str = r#"[
 {"query": "films titled Alien", "solution": ["GET /search/movie"]},
 {"query": "which films have the title Heat", "solution": ["GET /search/movie"]},
 {"query": "films whose title is Up", "solution": ["GET /search/movie"]},
 {"query": "title of films like Jaws", "solution": ["GET /search/movie"]},
 {"query": "films by title Rocky", "solution": ["GET /search/movie"]},
 {"query": "biography of the actor Tom Hanks", "solution": ["GET /person/{id}"]},
 {"query": "an actor biography", "solution": ["GET /person/{id}"]},
 {"query": "read an actress biography", "solution": ["GET /person/{id}"]},
 {"query": "the biography of an actor", "solution": ["GET /person/{id}"]},
 {"query": "actress biography and career", "solution": ["GET /person/{id}"]}
]"#;

/// The catalog with `easytool` candidates: worse for the movie search, better for the person,
/// and one for the company that no eval query touches.
pub(crate) fn workspace() -> Workspace {
    let ws = Workspace::new();
    std::fs::write(ws.dir.path().join("cinema.json"), SPEC).unwrap();
    std::fs::write(ws.dir.path().join("eval.json"), EVAL).unwrap();
    ws.ok(&["import", "cinema.json"]);
    for (api, text) in [
        ("cinema/searchmovie", "Returns a structured record"),
        (
            "cinema/getperson",
            "Get the biography of an actor or actress",
        ),
        ("cinema/getcompany", "A production company and its logo"),
    ] {
        ws.ok(&[
            "docs",
            "add",
            api,
            "--label",
            "easytool",
            "--description",
            text,
        ]);
    }
    ws
}

/// `[retrieve]` weights that count the source field in BM25 and dense search.
pub(crate) const SOURCE_WEIGHED: &str =
    "[retrieve.bm25.weights]\nsource = 1.0\n[retrieve.dense.fields]\nsource = 1.0\n";

/// The active version of an API's doc.
fn active(ws: &Workspace, api: &str) -> u64 {
    let out = ws.ok(&["docs", "history", api, "--json"]);
    let history: serde_json::Value = serde_json::from_str(&out).unwrap();
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["active"] == true)
        .and_then(|v| v["version"].as_u64())
        .unwrap()
}

fn gate(ws: &Workspace, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "docs",
        "gate",
        "easytool",
        "--dataset",
        "eval.json",
        "--method",
        "bm25",
        "--json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ws.ok(&args)).unwrap()
}

fn decision<'a>(report: &'a serde_json::Value, api: &str) -> &'a serde_json::Value {
    report["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["api"] == api)
        .unwrap()
}

#[test]
fn the_gate_keeps_a_worse_candidate_and_activates_a_better_one() {
    let ws = workspace();
    let report = gate(&ws, &["--scope", "api"]);
    assert_eq!(report["round"], 1);
    assert_eq!(report["rule"], "sign_test alpha=0.05");

    let movie = decision(&report, "cinema/searchmovie");
    assert_eq!(movie["outcome"], "kept");
    assert_eq!(movie["figures"]["worse"], 5);
    assert_eq!(movie["figures"]["mean_active_rank"], 1.0);
    let person = decision(&report, "cinema/getperson");
    assert_eq!(person["outcome"], "activated");
    assert_eq!(person["figures"]["better"], 5);
    let company = decision(&report, "cinema/getcompany");
    assert_eq!(
        (&company["outcome"], &company["evidence"]),
        (&"kept".into(), &"untested".into())
    );

    assert_eq!(active(&ws, "cinema/searchmovie"), 1);
    assert_eq!(active(&ws, "cinema/getperson"), 2);
    assert_eq!(active(&ws, "cinema/getcompany"), 1);

    // The decision is stored with its figures, and `docs history --rounds` shows it.
    let history = ws.ok(&["docs", "history", "cinema/searchmovie", "--rounds"]);
    assert!(
        history.contains(
            "gate round 1 (active was v1): kept v2 (easytool): 5 queries, 0 better, 5 worse"
        ),
        "{history}"
    );
    assert!(history.contains("p(worse) 0.031"), "{history}");

    // `toolsmith report` has a page of the decisions.
    ws.ok(&["report", "--out", "report"]);
    let page = std::fs::read_to_string(ws.dir.path().join("report/gate.html")).unwrap();
    assert!(
        page.contains("cinema/searchmovie") && page.contains("101.00"),
        "{page}"
    );
    let index = std::fs::read_to_string(ws.dir.path().join("report/index.html")).unwrap();
    assert!(index.contains("gate.html"));
}

/// The source field would put the movie search's imported words ("Find films by their title")
/// beside its worse candidate, which would then rank as well as the active doc: the gate
/// judges docs without it, whatever the config weighs.
#[test]
fn the_gate_keeps_a_worse_candidate_when_the_config_weighs_the_source() {
    let ws = workspace();
    std::fs::write(ws.dir.path().join("toolsmith.toml"), SOURCE_WEIGHED).unwrap();
    let report = gate(&ws, &["--scope", "api"]);
    let movie = decision(&report, "cinema/searchmovie");
    assert_eq!(movie["outcome"], "kept", "{report}");
    assert_eq!(movie["figures"]["worse"], 5, "{report}");
    assert_eq!(active(&ws, "cinema/searchmovie"), 1);
    assert_eq!(
        decision(&report, "cinema/getperson")["outcome"],
        "activated"
    );
}

#[test]
fn by_default_one_decision_covers_the_whole_label() {
    // Five pairs better (the person), five worse (the movie search): no worse on balance, so
    // every candidate is activated, the worse one and the untested one included.
    let ws = workspace();
    let report = gate(&ws, &[]);
    assert_eq!(report["rule"], "sign_test alpha=0.05, per label");
    for api in [
        "cinema/searchmovie",
        "cinema/getperson",
        "cinema/getcompany",
    ] {
        let d = decision(&report, api);
        assert_eq!(d["outcome"], "activated", "{api}: {d}");
        assert_eq!(active(&ws, api), 2, "{api}");
    }
    let movie = decision(&report, "cinema/searchmovie");
    assert_eq!(
        (&movie["figures"]["better"], &movie["figures"]["worse"]),
        (&5.into(), &5.into())
    );
    assert_eq!(
        decision(&report, "cinema/getcompany")["evidence"],
        "untested"
    );

    // One more query the label loses tips the balance: the whole label stays out, the person's
    // better doc too.
    let ws = workspace();
    let mut eval: Vec<serde_json::Value> = serde_json::from_str(EVAL).unwrap();
    eval.push(serde_json::json!({"query": "films named Alien", "solution": ["GET /search/movie"]}));
    std::fs::write(
        ws.dir.path().join("eval.json"),
        serde_json::to_string(&eval).unwrap(),
    )
    .unwrap();
    let report = gate(&ws, &[]);
    for api in [
        "cinema/searchmovie",
        "cinema/getperson",
        "cinema/getcompany",
    ] {
        assert_eq!(decision(&report, api)["outcome"], "kept", "{api}");
        assert_eq!(active(&ws, api), 1, "{api}");
    }
    assert_eq!(decision(&report, "cinema/getperson")["figures"]["worse"], 6);
}

#[test]
fn untested_candidates_follow_the_flag_and_the_margin_rule_follows_the_settings() {
    let ws = workspace();
    // A margin of 200 ranks lets even the worse movie-search doc through.
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[refine.gate]\nrule = \"margin\"\nmargin = 200.0\nscope = \"api\"\n",
    )
    .unwrap();
    let report = gate(&ws, &["--untested", "activate"]);
    assert_eq!(report["rule"], "margin 200");
    assert_eq!(
        decision(&report, "cinema/searchmovie")["outcome"],
        "activated"
    );
    assert_eq!(
        decision(&report, "cinema/getcompany")["outcome"],
        "activated"
    );
    assert_eq!(active(&ws, "cinema/searchmovie"), 2);
    assert_eq!(active(&ws, "cinema/getcompany"), 2);
}

#[test]
fn rollback_restores_the_previous_docs_of_a_round() {
    let ws = workspace();
    gate(&ws, &["--scope", "api"]);
    assert_eq!(active(&ws, "cinema/getperson"), 2);
    let out = ws.ok(&["docs", "rollback"]);
    assert!(out.contains("gate round 1 undone: 1 APIs"), "{out}");
    assert_eq!(active(&ws, "cinema/getperson"), 1);
    assert_eq!(active(&ws, "cinema/searchmovie"), 1);
    // Nothing is left to gate again but the same candidates: a second round is round 2.
    assert_eq!(gate(&ws, &[])["round"], 2);
}

#[test]
fn a_gate_without_candidates_or_eval_set_says_what_is_missing() {
    let ws = workspace();
    let out = ws.run(&["docs", "gate", "draft", "--dataset", "eval.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no API has a `draft` doc"));
    let out = ws.run(&["docs", "gate", "easytool"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name one with --dataset"));
}

/// Views lift their own API against the others, so a label carrying them is decided as a
/// whole: the pairs of every candidate pooled, one outcome for all. Per API, the movie
/// search's candidate (5 of 5 worse) would be kept, as in the test above.
#[test]
fn a_label_with_views_is_decided_as_a_whole() {
    let ws = workspace();
    // These views paraphrase eval requests closely (MiniLM puts some at 0.9 or more): the
    // pooling is under test here, so only identical texts would be left out.
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[refine.gate]\nview_cosine = 1.0\n",
    )
    .unwrap();
    ws.ok(&[
        "docs",
        "add",
        "cinema/searchmovie",
        "--label",
        "views",
        "--description",
        "Returns a structured record",
    ]);
    let person_views = [
        "biography of an actor or actress",
        "an actress biography",
        "the actor biography and career",
    ];
    let mut add = vec![
        "docs",
        "add",
        "cinema/getperson",
        "--label",
        "views",
        "--description",
        "Fetch one record",
    ];
    for view in person_views {
        add.extend_from_slice(&["--query", view]);
    }
    ws.ok(&add);
    let report: serde_json::Value = serde_json::from_str(&ws.ok(&[
        "docs",
        "gate",
        "views",
        "--dataset",
        "eval.json",
        "--method",
        "bm25",
        "--json",
    ]))
    .unwrap();
    let movie = decision(&report, "cinema/searchmovie");
    let person = decision(&report, "cinema/getperson");
    assert_eq!(movie["figures"]["queries"], 10, "{report}");
    assert_eq!(movie["figures"], person["figures"], "one pooled decision");
    assert_eq!(
        (&movie["outcome"], &person["outcome"]),
        (&"activated".into(), &"activated".into()),
        "5 better and 5 worse of 10 pooled pairs is no evidence of worse: {report}"
    );
    assert_eq!(
        active(&ws, "cinema/searchmovie"),
        3,
        "v2 is the easytool candidate"
    );
}

/// Views and synthetic eval requests share a writer: a view that copies eval requests would
/// win the gate by them. Here the person's views copy its five eval requests, and the movie
/// search's candidate is worse on all five of its own: pooled, 5 better and 5 worse would
/// activate both; with the copied requests left out, 5 of 5 worse keeps the active docs.
#[test]
fn a_view_that_copies_eval_requests_does_not_win_the_gate_by_them() {
    let ws = workspace();
    ws.ok(&[
        "docs",
        "add",
        "cinema/searchmovie",
        "--label",
        "copies",
        "--description",
        "Returns a structured record",
    ]);
    let mut add = vec![
        "docs",
        "add",
        "cinema/getperson",
        "--label",
        "copies",
        "--description",
        "Fetch one record",
    ];
    let copied = [
        "biography of the actor Tom Hanks",
        "an actor biography",
        "read an actress biography",
        "the biography of an actor",
        "actress biography and career",
    ];
    for view in copied {
        add.extend_from_slice(&["--query", view]);
    }
    ws.ok(&add);
    let report: serde_json::Value = serde_json::from_str(&ws.ok(&[
        "docs",
        "gate",
        "copies",
        "--dataset",
        "eval.json",
        "--method",
        "bm25",
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["near_views"], 5, "{report}");
    let movie = decision(&report, "cinema/searchmovie");
    assert_eq!(movie["figures"]["queries"], 5, "{report}");
    assert_eq!(
        movie["figures"]["near_views"], 5,
        "stored with the decision"
    );
    assert_eq!(movie["outcome"], "kept", "{report}");
    assert_eq!(decision(&report, "cinema/getperson")["outcome"], "kept");
    assert_eq!(active(&ws, "cinema/getperson"), 1);
    let history = ws.ok(&["docs", "history", "cinema/searchmovie", "--rounds"]);
    assert!(
        history.contains("5 eval queries left out as near-duplicates of views"),
        "{history}"
    );
}
