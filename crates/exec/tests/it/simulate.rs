//! The simulator on TMDB: consistency between calls, determinism, and
//! conformance of every simulated response to its API's schema.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::{ApiBook, Executor, FailureKind, Provenance, Simulator, Validated};

fn id(raw: &str) -> ApiId {
    raw.parse().unwrap()
}

/// Arguments for an API: every required parameter, filled by type.
fn required_args(book: &ApiBook, api: &ApiId) -> Value {
    let entry = book.get(api).unwrap();
    let mut args = serde_json::Map::new();
    for p in entry.api.api.params.iter().filter(|p| p.required) {
        let first_choice = p.schema.get("enum").and_then(|e| e.get(0)).cloned();
        let value = match p.schema.get("type").and_then(Value::as_str) {
            _ if first_choice.is_some() => first_choice.unwrap_or_default(),
            Some("integer") => json!(550),
            Some("number") => json!(1.5),
            Some("boolean") => json!(true),
            _ if p.name.ends_with("_id") => json!("52fe4250c3a36847f80149f3"),
            _ => json!("Titanic"),
        };
        args.insert(p.name.clone(), value);
    }
    Value::Object(args)
}

#[tokio::test]
async fn search_then_detail_is_consistent() {
    let sim = Simulator::new(crate::tmdb());
    let search = sim
        .call(&id("tmdb/get_search_movie"), &json!({"query": "Titanic"}))
        .await
        .unwrap();
    assert!(search.is_ok(), "{search:?}");
    assert_eq!(search.provenance, Provenance::Simulated);
    let body = search.body.json().unwrap();
    let results = body["results"].as_array().unwrap();
    assert!(
        (1..=5).contains(&results.len()),
        "{} results",
        results.len()
    );
    for movie in results {
        let title = movie["title"].as_str().unwrap();
        assert!(title.contains("Titanic"), "title {title:?}");
    }
    let first = &results[0];
    let movie_id = first["id"].as_i64().unwrap();
    let detail = sim
        .call(
            &id("tmdb/get_movie_movie_id"),
            &json!({"movie_id": movie_id}),
        )
        .await
        .unwrap();
    assert!(detail.is_ok(), "{detail:?}");
    let movie = detail.body.json().unwrap();
    assert_eq!(movie["id"].as_i64(), Some(movie_id));
    // Fields the search result and the detail share come from the movie's id.
    for field in ["release_date", "popularity", "vote_count", "adult"] {
        assert_eq!(movie[field], first[field], "field {field}");
    }
    let again = sim
        .call(
            &id("tmdb/get_movie_movie_id"),
            &json!({"movie_id": movie_id}),
        )
        .await
        .unwrap();
    assert_eq!(again.body, detail.body);
    let search_again = sim
        .call(&id("tmdb/get_search_movie"), &json!({"query": "Titanic"}))
        .await
        .unwrap();
    assert_eq!(search_again.body, search.body);
    // A fresh simulator over the same catalog answers the same.
    let fresh = Simulator::new(crate::tmdb());
    let fresh_detail = fresh
        .call(
            &id("tmdb/get_movie_movie_id"),
            &json!({"movie_id": movie_id}),
        )
        .await
        .unwrap();
    assert_eq!(fresh_detail.body, detail.body);
}

#[tokio::test]
async fn every_tmdb_response_conforms_to_its_schema() {
    let book = crate::tmdb();
    assert_eq!(book.len(), 54);
    let sim = Simulator::new(Arc::clone(&book));
    let mut ids: Vec<ApiId> = book.ids().cloned().collect();
    ids.sort();
    let mut checked = 0;
    for api in &ids {
        let entry = book.get(api).unwrap();
        let schema = entry.api.api.response_schema.as_ref().unwrap();
        let validator = jsonschema::validator_for(schema).unwrap();
        for args in [required_args(&book, api), {
            let mut a = required_args(&book, api);
            a.as_object_mut()
                .unwrap()
                .insert("page".to_owned(), json!(2));
            a
        }] {
            let obs = sim.call(api, &args).await.unwrap();
            assert!(obs.is_ok(), "{api} {args}: {obs:?}");
            let body = obs.body.json().unwrap();
            let errors: Vec<String> = validator
                .iter_errors(body)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{api} with {args}: {errors:#?}\n{body:#}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 108);
}

#[tokio::test]
async fn arguments_are_checked_before_simulating() {
    let book = crate::tmdb();
    let sim = Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    );
    let obs = sim
        .call(&id("tmdb/get_search_movie"), &json!({"page": 1}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
    assert_eq!(obs.provenance, Provenance::Simulated);
    let text = serde_json::to_string(&obs).unwrap();
    assert!(
        text.contains("query") && text.contains("required"),
        "{text}"
    );
    let obs = sim
        .call(
            &id("tmdb/get_search_movie"),
            &json!({"query": "x", "page": "two"}),
        )
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
    assert!(
        serde_json::to_string(&obs)
            .unwrap()
            .contains("parameter `page`")
    );
    assert!(sim.call(&id("tmdb/nope"), &json!({})).await.is_err());
}

#[tokio::test]
async fn an_api_without_schema_or_example_is_unsupported() {
    use toolsmith_catalog::{Api, ApiEntry, Endpoint, SecurityScheme, Tool};
    let mut book = ApiBook::new();
    let tool = Tool {
        id: "bare".parse().unwrap(),
        name: "bare".to_owned(),
        category: "x".to_owned(),
        base_url: None,
        security: Vec::<SecurityScheme>::new(),
    };
    let api = Api {
        id: id("bare/thing"),
        name: "thing".to_owned(),
        source_name: "thing".to_owned(),
        endpoint: Endpoint::Unlocated { method: None },
        params: Vec::new(),
        request_body: None,
        response_schema: None,
        response_examples: Vec::new(),
    };
    book.insert(tool, ApiEntry { api, doc: None });
    let sim = Simulator::new(Arc::new(book));
    let obs = sim.call(&id("bare/thing"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Unsupported));
    assert!(
        serde_json::to_string(&obs)
            .unwrap()
            .contains("no response schema or example")
    );
}

#[tokio::test]
async fn an_llm_oracle_fills_in_where_there_is_no_schema() {
    use toolsmith_catalog::{Api, ApiEntry, Endpoint, HttpMethod, Param, ParamLocation, Tool};
    use toolsmith_exec::LlmOracle;
    use toolsmith_llm::testing::{Reply, ScriptedLlm};

    let mut book = ApiBook::new();
    let tool = Tool {
        id: "weather".parse().unwrap(),
        name: "weather".to_owned(),
        category: "x".to_owned(),
        base_url: None,
        security: Vec::new(),
    };
    let api = Api {
        id: id("weather/current"),
        name: "current".to_owned(),
        source_name: "current".to_owned(),
        endpoint: Endpoint::Unlocated {
            method: Some(HttpMethod::Get),
        },
        params: vec![Param {
            name: "city".to_owned(),
            location: ParamLocation::Query,
            required: true,
            schema: json!({"type": "string"}),
            description: "City name".to_owned(),
        }],
        request_body: None,
        response_schema: None,
        response_examples: Vec::new(),
    };
    book.insert(tool, ApiEntry { api, doc: None });
    let llm = Arc::new(ScriptedLlm::new([Reply::text(
        "Here you go:\n```json\n{\"city\": \"Oslo\", \"temp_c\": 4}\n```",
    )]));
    let sim = Simulator::new(Arc::new(book)).with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    let obs = sim
        .call(&id("weather/current"), &json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(obs.provenance, Provenance::Invented);
    assert_eq!(obs.body.json(), Some(&json!({"city": "Oslo", "temp_c": 4})));
    let asked = format!("{:?}", llm.requests());
    assert!(
        asked.contains("weather/current") && asked.contains("Oslo"),
        "{asked}"
    );
}
