//! The simulator on TMDB: consistency between calls, determinism, and
//! conformance of every simulated response to its API's schema.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;

use crate::op;
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
    // A full page (`page_items`: 10) that agrees with the totals.
    let total = body["total_results"].as_u64().unwrap();
    assert!(total > 0);
    assert_eq!(results.len() as u64, total.min(10), "{body:#}");
    assert_eq!(body["total_pages"].as_u64().unwrap(), total.div_ceil(10));
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
    // A fresh simulator over the same catalog answers the same calls the same.
    let fresh = Simulator::new(crate::tmdb());
    let fresh_search = fresh
        .call(&id("tmdb/get_search_movie"), &json!({"query": "Titanic"}))
        .await
        .unwrap();
    assert_eq!(fresh_search.body, search.body);
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
        access: Default::default(),
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
            list_format: Default::default(),
        }],
        request_body: None,
        response_schema: None,
        response_examples: Vec::new(),
        access: Default::default(),
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
    assert_eq!(obs.provenance, Provenance::SimulatedLlm);
    assert_eq!(obs.body.json(), Some(&json!({"city": "Oslo", "temp_c": 4})));
    let asked = format!("{:?}", llm.requests());
    assert!(
        asked.contains("weather/current") && asked.contains("Oslo"),
        "{asked}"
    );
}

/// Every key of a JSON value, at any depth.
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn discover_items_satisfy_the_filters_of_the_call() {
    let book = crate::tmdb();
    let sim = Simulator::new(Arc::clone(&book));
    let api = id("tmdb/get_discover_movie");
    let validator = jsonschema::validator_for(
        book.get(&api)
            .unwrap()
            .api
            .api
            .response_schema
            .as_ref()
            .unwrap(),
    )
    .unwrap();
    let args = json!({
        "with_original_language": "ko",
        "vote_average.gte": 7,
        "vote_average.lte": 8.5,
        "primary_release_date.gte": "2021-01-01",
        "with_genres": "28|12",
    });
    let obs = sim.call(&api, &args).await.unwrap();
    let body = obs.body.json().unwrap();
    assert!(validator.is_valid(body), "{body:#}");
    let results = body["results"].as_array().unwrap();
    assert!(!results.is_empty());
    let total = body["total_results"].as_u64().unwrap();
    assert_eq!(results.len() as u64, total.min(10));
    for movie in results {
        assert_eq!(movie["original_language"], "ko", "{movie:#}");
        let vote = movie["vote_average"].as_f64().unwrap();
        assert!((7.0..=8.5).contains(&vote), "{movie:#}");
        let date = movie["release_date"].as_str().unwrap();
        assert!(date >= "2021-01-01", "{movie:#}");
        let genres = movie["genre_ids"].as_array().unwrap();
        assert!(
            genres.contains(&json!(28)) || genres.contains(&json!(12)),
            "{movie:#}"
        );
    }
    // A year filter puts every item in that year.
    let obs = sim
        .call(&api, &json!({"primary_release_year": 1994}))
        .await
        .unwrap();
    for movie in obs.body.json().unwrap()["results"].as_array().unwrap() {
        assert!(
            movie["release_date"].as_str().unwrap().starts_with("1994"),
            "{movie:#}"
        );
    }
}

#[tokio::test]
async fn pages_follow_the_page_size_and_defaults_apply_before_seeding() {
    let sim = Simulator::new(crate::tmdb());
    let api = id("tmdb/get_movie_top_rated");
    let bare = sim.call(&api, &json!({})).await.unwrap();
    let first = sim.call(&api, &json!({"page": 1})).await.unwrap();
    assert_eq!(bare.body, first.body, "no page and page=1 agree");
    let body = first.body.json().unwrap();
    let total = body["total_results"].as_u64().unwrap();
    let pages = body["total_pages"].as_u64().unwrap();
    assert_eq!(pages, total.div_ceil(10));
    assert_eq!(
        body["results"].as_array().unwrap().len() as u64,
        total.min(10)
    );
    let last = sim.call(&api, &json!({"page": pages})).await.unwrap();
    let last = last.body.json().unwrap();
    assert_eq!(
        last["total_results"].as_u64(),
        Some(total),
        "every page agrees"
    );
    assert_eq!(last["page"].as_u64(), Some(pages));
    assert_eq!(
        last["results"].as_array().unwrap().len() as u64,
        total - 10 * (pages - 1)
    );
    let beyond = sim.call(&api, &json!({"page": pages + 1})).await.unwrap();
    assert_eq!(beyond.body.json().unwrap()["results"], json!([]));
}

#[tokio::test]
async fn a_company_detail_carries_the_name_its_search_showed() {
    let sim = Simulator::new(crate::tmdb());
    let search = sim
        .call(
            &id("tmdb/get_search_company"),
            &json!({"query": "Universal Pictures"}),
        )
        .await
        .unwrap();
    let body = search.body.json().unwrap();
    let results = body["results"].as_array().unwrap();
    assert!(results.len() > 1);
    for found in results.iter().take(3) {
        let company_id = found["id"].as_i64().unwrap();
        let detail = sim
            .call(
                &id("tmdb/get_company_company_id"),
                &json!({"company_id": company_id}),
            )
            .await
            .unwrap();
        let company = detail.body.json().unwrap();
        assert_eq!(company["id"].as_i64(), Some(company_id));
        assert_eq!(company["name"], found["name"], "{company:#}");
        assert!(
            company["name"]
                .as_str()
                .unwrap()
                .contains("Universal Pictures")
        );
        assert_eq!(company["logo_path"], found["logo_path"], "{company:#}");
    }
}

#[tokio::test]
async fn entities_draw_values_of_their_own_type() {
    let book = crate::tmdb();
    let sim = Simulator::new(Arc::clone(&book));
    // Names people have in the TMDB examples.
    let mut person_names = Vec::new();
    for api in book.ids() {
        for example in &book.get(api).unwrap().api.api.response_examples {
            if api.to_string().contains("person") {
                let mut found = Vec::new();
                names(example, &mut found);
                person_names.extend(found);
            }
        }
    }
    assert!(!person_names.is_empty());
    for movie_id in [550, 551, 552, 553, 554] {
        let obs = sim
            .call(
                &id("tmdb/get_movie_movie_id_keywords"),
                &json!({"movie_id": movie_id}),
            )
            .await
            .unwrap();
        let mut found = Vec::new();
        names(obs.body.json().unwrap(), &mut found);
        assert!(!found.is_empty());
        for name in found {
            assert!(
                !person_names.contains(&name),
                "keyword named like a person: {name}"
            );
        }
        // A film's title, original title and overview come from one example film.
        let detail = sim
            .call(
                &id("tmdb/get_movie_movie_id"),
                &json!({"movie_id": movie_id}),
            )
            .await
            .unwrap();
        let movie = detail.body.json().unwrap();
        let (title, original) = (&movie["title"], &movie["original_title"]);
        let same_film = book.ids().any(|api| {
            book.get(api)
                .unwrap()
                .api
                .api
                .response_examples
                .iter()
                .any(|ex| has_pair(ex, title, original, &movie["overview"]))
        });
        assert!(same_film, "{title} / {original} / {}", movie["overview"]);
    }
}

fn names(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v.as_str() {
                    Some(s) if k == "name" => out.push(s.to_owned()),
                    _ => names(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| names(v, out)),
        _ => {}
    }
}

/// Whether some object in `value` has this title, original title and overview.
fn has_pair(value: &Value, title: &Value, original: &Value, overview: &Value) -> bool {
    match value {
        Value::Object(map) => {
            (map.get("title") == Some(title)
                && map.get("original_title") == Some(original)
                && map.get("overview") == Some(overview))
                || map.values().any(|v| has_pair(v, title, original, overview))
        }
        Value::Array(items) => items.iter().any(|v| has_pair(v, title, original, overview)),
        _ => false,
    }
}

#[tokio::test]
async fn append_to_response_adds_the_sub_resources() {
    let sim = Simulator::new(crate::tmdb());
    let obs = sim
        .call(
            &id("tmdb/get_movie_movie_id"),
            &json!({"movie_id": 438631, "append_to_response": "credits,images"}),
        )
        .await
        .unwrap();
    let movie = obs.body.json().unwrap();
    assert_eq!(movie["id"], 438631);
    assert_eq!(movie["credits"]["id"], 438631, "{movie:#}");
    assert!(movie["credits"]["cast"].is_array());
    assert!(movie["images"]["backdrops"].is_array() || movie["images"]["posters"].is_array());
    let plain = sim
        .call(&id("tmdb/get_movie_movie_id"), &json!({"movie_id": 438631}))
        .await
        .unwrap();
    assert!(plain.body.json().unwrap().get("credits").is_none());
}

#[tokio::test]
async fn trending_names_its_list_and_follows_the_media_type() {
    let sim = Simulator::new(crate::tmdb());
    let obs = sim
        .call(
            &id("tmdb/get_trending_media_type_time_window"),
            &json!({"media_type": "movie", "time_window": "week"}),
        )
        .await
        .unwrap();
    let body = obs.body.json().unwrap();
    assert!(body.get("").is_none(), "{body:#}");
    let results = body["results"].as_array().unwrap();
    assert_eq!(
        results.len() as u64,
        body["total_results"].as_u64().unwrap().min(10)
    );
    assert!(
        results
            .iter()
            .all(|m| m["id"].is_i64() && m["title"].is_string())
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const WORDS: &[&str] = &["Titanic", "Dune", "Universal", "", "a b", "ü"];

    /// Arguments for an API: the required ones by type, with a page and a
    /// search word from the strategy.
    fn args(book: &ApiBook, api: &ApiId, page: u64, word: &str, pick: usize) -> Value {
        let mut args = required_args(book, api);
        let map = args.as_object_mut().unwrap();
        for p in &book.get(api).unwrap().api.api.params {
            if p.name == "page" {
                map.insert("page".to_owned(), json!(page));
            }
            if p.name == "query" {
                map.insert("query".to_owned(), json!(word));
            }
            if let Some(choices) = p.schema.get("enum").and_then(Value::as_array)
                && !choices.is_empty()
            {
                map.insert(p.name.clone(), choices[pick % choices.len()].clone());
            }
        }
        args
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn no_tmdb_response_has_an_empty_key_or_breaks_its_schema(
            which in 0usize..54, page in 1u64..4, word in 0usize..6, pick in 0usize..4,
        ) {
            let book = crate::tmdb();
            let sim = Simulator::new(Arc::clone(&book));
            let mut ids: Vec<ApiId> = book.ids().cloned().collect();
            ids.sort();
            let api = &ids[which];
            let entry = book.get(api).unwrap();
            let args = args(&book, api, page, WORDS[word], pick);
            let body = sim.synthesize(entry, &args).unwrap();
            let mut all = Vec::new();
            keys(&body, &mut all);
            prop_assert!(!all.iter().any(String::is_empty), "{} {}: {}", api, args, body);
            let schema = entry.api.api.response_schema.as_ref().unwrap();
            let validator = jsonschema::validator_for(schema).unwrap();
            prop_assert!(validator.is_valid(&body), "{} {}: {}", api, args, body);
        }
    }
}

#[test]
fn a_toolenv2404_sample_simulates_without_empty_keys_within_its_schemas() {
    use toolsmith_catalog::testing::data_path;
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
    let mut batch = read_source(
        &data_path("toolbench/toolenv2404/toolenv2404_filtered.tar.gz"),
        &ImportOptions::default(),
    )
    .unwrap();
    // Every 12th tool, until 1,000 APIs: a spread over the categories.
    let mut apis = 0;
    let mut kept = Vec::new();
    for (i, tool) in std::mem::take(&mut batch.tools).into_iter().enumerate() {
        if i % 12 == 0 && apis < 1000 {
            apis += tool.apis.len();
            kept.push(tool);
        }
    }
    batch.tools = kept;
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    assert!(book.len() >= 1000, "{}", book.len());
    let sim = Simulator::new(Arc::clone(&book));
    let (mut checked, mut failures) = (0, Vec::new());
    for api in book.ids() {
        let entry = book.get(api).unwrap();
        let Some(body) = sim.synthesize(entry, &required_args(&book, api)) else {
            continue;
        };
        checked += 1;
        let mut all = Vec::new();
        keys(&body, &mut all);
        if all.iter().any(String::is_empty) {
            failures.push(format!("{api}: empty key in {body}"));
        }
        let Some(schema) = entry.api.api.response_schema.as_ref() else {
            continue;
        };
        // A schema the validator cannot compile says nothing about the body.
        if let Ok(validator) = jsonschema::validator_for(schema)
            && let Some(error) = validator.iter_errors(&body).next()
        {
            failures.push(format!("{api}: {error} at {}", error.instance_path()));
        }
    }
    // Most ToolEnv2404 APIs have no usable schema or example (see sim_bench).
    assert!(checked > 100, "{checked} simulated");
    assert!(
        failures.is_empty(),
        "{} of {checked}: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

/// A small store-and-cloud API written for these tests, in the shapes of
/// Spotify's pages, DigitalOcean's wrapped objects and a REST collection.
fn shop_spec() -> Value {
    let album = json!({"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"}}});
    let pet = json!({"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "status": {"type": "string", "enum": ["available", "sold"]},
        "tag": {"type": "string", "pattern": "^[a-z]{2}-[0-9]{3}$"},
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": "string", "format": "date-time"},
        "min_price": {"type": "number"}, "max_price": {"type": "number"},
        "vet_ip": {"type": "string", "format": "ipv4"},
        "species": {"type": "string", "example": "cat"}}});
    let named = |desc: &str| {
        json!({"type": "object", "properties": {
        "name": {"type": "string", "description": desc}, "slug": {"type": "string"}}})
    };
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    let query = |name: &str| {
        json!({"name": name, "in": "query",
        "schema": {"type": "integer"}})
    };
    let pet_id = json!({"name": "pet_id", "in": "path", "required": true,
        "schema": {"type": "integer"}});
    json!({"openapi": "3.0.0", "info": {"title": "Shop", "version": "1"}, "paths": {
        "/me/albums": {"get": {"parameters": [query("limit"), query("offset")],
            "responses": ok(json!({"type": "object", "properties": {
                "href": {"type": "string"}, "limit": {"type": "integer"},
                "offset": {"type": "integer"}, "total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "added_at": {"type": "string", "format": "date-time"}, "album": album}}}}}))}},
        "/droplets": {"post": {
            "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                "properties": {"name": {"type": "string"}, "region": {"type": "string"}}}}}},
            "responses": ok(json!({"type": "object", "properties": {"droplet": {
                "type": "object", "properties": {"id": {"type": "integer"},
                    "name": {"type": "string"}, "kernel": named("kernel"),
                    "image": named("image"), "region": named("region")}}}}))}},
        "/pets": {
            "get": {"parameters": [query("limit")],
                "responses": ok(json!({"type": "array", "items": pet.clone()}))},
            "post": {"requestBody": {"content": {"application/json": {"schema": pet.clone()}}},
                "responses": {"201": {"description": "created",
                    "content": {"application/json": {"schema": pet.clone()}}}}}},
        "/pets/{pet_id}": {
            "get": {"parameters": [pet_id.clone()], "responses": ok(pet.clone())},
            "patch": {"parameters": [pet_id.clone()],
                "requestBody": {"content": {"application/json": {"schema": pet.clone()}}},
                "responses": ok(pet.clone())},
            "delete": {"parameters": [pet_id], "responses": {"204": {"description": "gone"}}}}
    }})
}

fn shop() -> Arc<ApiBook> {
    crate::book_of(&shop_spec())
}

#[tokio::test]
async fn a_limit_gives_that_many_items_and_the_page_agrees() {
    let book = shop();
    let sim = Simulator::new(Arc::clone(&book));
    let albums = op(&book, "GET", "/me/albums");
    for (limit, offset) in [(3, 0), (1, 0), (7, 14), (40, 0)] {
        let obs = sim
            .call(&albums, &json!({"limit": limit, "offset": offset}))
            .await
            .unwrap();
        let body = obs.body.json().unwrap();
        let items = body["items"].as_array().unwrap();
        assert_eq!(items.len(), limit, "limit {limit}: {body:#}");
        assert_eq!(body["limit"], limit);
        assert_eq!(body["offset"], offset);
        assert!(body["total"].as_u64().unwrap() >= (offset + limit) as u64);
        assert!(items.iter().all(|i| i["album"]["id"].is_string()));
    }
    // A list at the root follows the limit too.
    let pets = op(&book, "GET", "/pets");
    let obs = sim.call(&pets, &json!({"limit": 3})).await.unwrap();
    assert_eq!(obs.body.json().unwrap().as_array().unwrap().len(), 3);
    // A limit beyond max_requested_items is capped there.
    let settings = toolsmith_exec::SimulatorSettings {
        max_requested_items: 10,
        ..Default::default()
    };
    let capped = Simulator::with_settings(Arc::clone(&book), &settings);
    let obs = capped.call(&pets, &json!({"limit": 60})).await.unwrap();
    assert_eq!(obs.body.json().unwrap().as_array().unwrap().len(), 10);
}

#[tokio::test]
async fn an_argument_fills_only_the_field_at_its_level() {
    let book = shop();
    let sim = Simulator::new(Arc::clone(&book));
    let create = op(&book, "POST", "/droplets");
    for name in ["web-1", "db-primary", "example.com"] {
        let args = json!({"name": name, "region": "nyc3"});
        let obs = sim.call(&create, &args).await.unwrap();
        let droplet = &obs.body.json().unwrap()["droplet"];
        assert_eq!(droplet["name"], name, "{droplet:#}");
        for nested in ["kernel", "image", "region"] {
            assert_ne!(droplet[nested]["name"], name, "{nested}: {droplet:#}");
        }
        // `region` is an object in the response, not the argument's text.
        assert!(droplet["region"].is_object());
    }
}

#[tokio::test]
async fn simulated_values_keep_invariants_formats_and_patterns() {
    let book = shop();
    let sim = Simulator::new(Arc::clone(&book));
    let get = op(&book, "GET", "/pets/{pet_id}");
    let schema = book
        .get(&get)
        .unwrap()
        .api
        .api
        .response_schema
        .clone()
        .unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    for pet_id in 1..60 {
        let obs = sim.call(&get, &json!({"pet_id": pet_id})).await.unwrap();
        let pet = obs.body.json().unwrap();
        assert!(validator.is_valid(pet), "{pet:#}");
        assert_eq!(pet["id"], pet_id);
        if let (Some(created), Some(updated)) =
            (pet["created_at"].as_str(), pet["updated_at"].as_str())
        {
            assert!(created <= updated, "{pet:#}");
        }
        if let (Some(lo), Some(hi)) = (pet["min_price"].as_f64(), pet["max_price"].as_f64()) {
            assert!(lo <= hi, "{pet:#}");
        }
        // The documented example is preferred.
        if pet.get("species").is_some() {
            assert_eq!(pet["species"], "cat");
        }
    }
    // Pages: `total` never below the items shown.
    let albums = op(&book, "GET", "/me/albums");
    for offset in 0..20 {
        let obs = sim.call(&albums, &json!({"offset": offset})).await.unwrap();
        let body = obs.body.json().unwrap();
        let shown = body["items"].as_array().unwrap().len() as u64;
        assert!(
            body["total"].as_u64().unwrap() >= shown + offset,
            "{body:#}"
        );
    }
}

#[tokio::test]
async fn a_session_sees_what_it_created_changed_and_deleted() {
    let book = shop();
    let sim = Simulator::new(Arc::clone(&book));
    let (list, create) = (op(&book, "GET", "/pets"), op(&book, "POST", "/pets"));
    let (read, patch) = (
        op(&book, "GET", "/pets/{pet_id}"),
        op(&book, "PATCH", "/pets/{pet_id}"),
    );
    let delete = op(&book, "DELETE", "/pets/{pet_id}");
    let created = sim
        .call(&create, &json!({"name": "Rex", "status": "available"}))
        .await
        .unwrap();
    assert_eq!(created.status, Some(201), "the spec documents 201 Created");
    let created = created.body.json().unwrap().clone();
    assert_eq!(created["name"], "Rex");
    let pet_id = created["id"].as_i64().unwrap();
    let read_back = sim.call(&read, &json!({"pet_id": pet_id})).await.unwrap();
    assert_eq!(read_back.status, Some(200));
    assert_eq!(read_back.body.json().unwrap()["name"], "Rex");
    let listed = sim.call(&list, &json!({})).await.unwrap();
    let names: Vec<&Value> = listed
        .body
        .json()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["name"])
        .collect();
    assert!(names.contains(&&json!("Rex")), "{names:?}");
    sim.call(
        &patch,
        &json!({"pet_id": pet_id, "name": "Rex II", "status": "sold"}),
    )
    .await
    .unwrap();
    let changed = sim.call(&read, &json!({"pet_id": pet_id})).await.unwrap();
    let changed = changed.body.json().unwrap();
    assert_eq!(
        (&changed["name"], &changed["status"]),
        (&json!("Rex II"), &json!("sold"))
    );
    let gone = sim.call(&delete, &json!({"pet_id": pet_id})).await.unwrap();
    assert!(gone.is_ok(), "{gone:?}");
    assert_eq!(
        gone.status,
        Some(204),
        "a DELETE documented without a body answers 204"
    );
    assert_eq!(gone.body, toolsmith_exec::Body::Empty);
    let after = sim.call(&read, &json!({"pet_id": pet_id})).await.unwrap();
    assert_eq!(after.failure(), Some(FailureKind::NotFound), "{after:?}");
    let listed = sim.call(&list, &json!({})).await.unwrap();
    assert!(
        listed
            .body
            .json()
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["id"] != pet_id)
    );
    // Another simulator (another session) never saw any of it.
    let fresh = Simulator::new(Arc::clone(&book));
    let other = fresh.call(&read, &json!({"pet_id": pet_id})).await.unwrap();
    assert!(other.is_ok());
    assert_ne!(other.body.json().unwrap()["name"], "Rex II");
}

/// A simulator that fills values with `llm` behind an LLM cache in `db`.
fn filling(
    book: &Arc<ApiBook>,
    llm: Arc<toolsmith_llm::testing::ScriptedLlm>,
    db: &toolsmith_llm::CacheDb,
) -> Simulator {
    use toolsmith_exec::{Fill, LlmOracle, SimulatorSettings};
    use toolsmith_llm::{CacheMode, CachedChat};
    let cached = CachedChat::new(llm, db.clone(), CacheMode::ReadWrite);
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..Default::default()
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(Arc::new(cached))))
}

#[tokio::test]
async fn an_llm_fills_a_valid_response_once_per_call_and_a_rerun_replays_it() {
    use toolsmith_llm::testing::{Reply, ScriptedLlm};
    let book = crate::tmdb();
    let credits = id("tmdb/get_movie_movie_id_credits");
    let schema = book
        .get(&credits)
        .unwrap()
        .api
        .api
        .response_schema
        .clone()
        .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let reply = json!({"id": 68718, "cast": [{"id": 134, "name": "Jamie Foxx", "character": "Django",
        "credit_id": "52fe47", "order": 0, "cast_id": 1, "profile_path": "/a.jpg"}],
        "crew": [{"id": 138, "name": "Quentin Tarantino", "job": "Director",
        "department": "Directing", "credit_id": "52fe48", "profile_path": "/b.jpg"}]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let db = toolsmith_llm::CacheDb::in_memory().unwrap();
    let sim = filling(&book, Arc::clone(&llm), &db);
    let args = json!({"movie_id": 68718});
    let first = sim.call(&credits, &args).await.unwrap();
    assert!(first.is_ok(), "{first:?}");
    assert_eq!(first.provenance, Provenance::SimulatedLlm);
    let body = first.body.json().unwrap();
    assert!(validator.is_valid(body), "{body:#}");
    assert_eq!(body["crew"][0]["job"], "Director");
    assert_eq!(body["crew"][0]["name"], "Quentin Tarantino");
    assert_eq!(body["id"], 68718);
    // The prompt carried the API, the arguments and the draft to fill.
    let asked = format!("{:?}", llm.requests());
    assert!(asked.contains("get_movie_movie_id_credits") && asked.contains("68718"));
    assert!(asked.contains("Draft response"), "{asked}");
    // The same call again: the session's answer, no second request.
    let again = sim.call(&credits, &args).await.unwrap();
    assert_eq!(again.body, first.body);
    assert_eq!(llm.requests().len(), 1);
    // A fresh session over the same LLM cache replays it without the model.
    let empty = Arc::new(ScriptedLlm::new(Vec::<Reply>::new()));
    let rerun = filling(&book, Arc::clone(&empty), &db);
    let replayed = rerun.call(&credits, &args).await.unwrap();
    assert_eq!(replayed.body, first.body);
    assert_eq!(replayed.provenance, Provenance::SimulatedLlm);
    assert!(empty.requests().is_empty(), "{:?}", empty.requests());
    // The provenance reads `simulated+llm` in a trace.
    let text = serde_json::to_value(&replayed).unwrap();
    assert_eq!(text["provenance"], "simulated+llm");
}

/// A person's `birthday` and `deathday` (strings in TMDB's spec, no format) are dates, not
/// words: a stand-in model found a drafted `deathday` of "meadow".
#[tokio::test]
async fn a_persons_birth_and_death_days_are_drafted_as_dates() {
    let sim = Simulator::new(crate::tmdb());
    let person = id("tmdb/get_person_person_id");
    for person_id in [525, 138, 287] {
        let obs = sim
            .call(&person, &json!({"person_id": person_id}))
            .await
            .unwrap();
        let body = obs.body.json().unwrap();
        for key in ["birthday", "deathday"] {
            let value = &body[key];
            let Some(text) = value.as_str() else {
                assert!(value.is_null(), "{key}: {value}");
                continue;
            };
            let is_date = text.len() == 10
                && text.char_indices().all(|(i, c)| match i {
                    4 | 7 => c == '-',
                    _ => c.is_ascii_digit(),
                });
            assert!(is_date, "{key}: {text:?}");
        }
    }
}

#[tokio::test]
async fn a_filled_response_that_breaks_its_schema_is_repaired_and_an_unusable_one_refused() {
    use toolsmith_llm::testing::{Reply, ScriptedLlm};
    let book = crate::tmdb();
    let person = id("tmdb/get_person_person_id");
    let schema = book
        .get(&person)
        .unwrap()
        .api
        .api
        .response_schema
        .clone()
        .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    // Wrong types beside good values, and an id that is not the one asked for.
    let reply = json!({"id": "nolan", "name": "Christopher Nolan", "popularity": "very",
        "birthday": "1970-07-30", "gender": "male"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(reply.to_string()),
        Reply::text("I cannot help with that."),
        Reply::text("Still no JSON, sorry."),
        Reply::text("none"),
    ]));
    let db = toolsmith_llm::CacheDb::in_memory().unwrap();
    let sim = filling(&book, Arc::clone(&llm), &db);
    let obs = sim.call(&person, &json!({"person_id": 525})).await.unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    let body = obs.body.json().unwrap();
    assert!(validator.is_valid(body), "{body:#}");
    assert_eq!(body["id"], 525, "the id asked for stays");
    assert_eq!(body["name"], "Christopher Nolan", "valid values stay");
    assert_eq!(body["birthday"], "1970-07-30");
    // A reply with no JSON at all, after the repair requests: refused, clearly.
    let refused = sim.call(&person, &json!({"person_id": 138})).await.unwrap();
    assert_eq!(
        refused.failure(),
        Some(FailureKind::UnparsableResponse),
        "{refused:?}"
    );
    assert_eq!(refused.provenance, Provenance::SimulatedLlm);
    let text = serde_json::to_string(&refused).unwrap();
    assert!(
        text.contains("get_person_person_id") && text.contains("no usable response"),
        "{text}"
    );
}

#[tokio::test]
async fn the_llm_sees_the_entities_the_session_showed() {
    use toolsmith_llm::testing::{Reply, ScriptedLlm};
    let book = crate::tmdb();
    let search = id("tmdb/get_search_person");
    let detail = id("tmdb/get_person_person_id");
    let found = json!({"page": 1, "total_results": 1, "total_pages": 1, "results": [
        {"id": 525, "name": "Christopher Nolan", "popularity": 9.1, "adult": false,
         "profile_path": "/n.jpg", "known_for": []}]});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(found.to_string()),
        Reply::text(json!({"id": 525, "name": "Christopher Nolan"}).to_string()),
    ]));
    let db = toolsmith_llm::CacheDb::in_memory().unwrap();
    let sim = filling(&book, Arc::clone(&llm), &db);
    let obs = sim
        .call(&search, &json!({"query": "Christopher Nolan"}))
        .await
        .unwrap();
    assert_eq!(obs.body.json().unwrap()["results"][0]["id"], 525, "{obs:?}");
    sim.call(&detail, &json!({"person_id": 525})).await.unwrap();
    let requests = llm.requests();
    let second = format!("{:?}", requests[1]);
    assert!(
        second.contains("already shown") && second.contains("Christopher Nolan"),
        "{second}"
    );
}

#[tokio::test]
async fn the_llm_is_asked_for_the_count_a_call_requests() {
    use toolsmith_catalog::{Api, ApiEntry, Endpoint, HttpMethod, Param, ParamLocation, Tool};
    use toolsmith_exec::LlmOracle;
    use toolsmith_llm::testing::{Reply, ScriptedLlm};

    let mut book = ApiBook::new();
    let tool = Tool {
        id: "loans".parse().unwrap(),
        name: "loans".to_owned(),
        category: "x".to_owned(),
        base_url: None,
        security: Vec::new(),
    };
    let api = Api {
        id: id("loans/schedule"),
        name: "schedule".to_owned(),
        source_name: "schedule".to_owned(),
        endpoint: Endpoint::Unlocated {
            method: Some(HttpMethod::Get),
        },
        params: vec![Param {
            name: "cnt".to_owned(),
            location: ParamLocation::Query,
            required: true,
            schema: json!({"type": "integer"}),
            description: "Number of installments".to_owned(),
            list_format: Default::default(),
        }],
        request_body: None,
        response_schema: None,
        response_examples: Vec::new(),
        access: Default::default(),
    };
    book.insert(tool, ApiEntry { api, doc: None });
    let rows: Vec<Value> = (1..=60).map(|i| json!({"n": i})).collect();
    let llm = Arc::new(ScriptedLlm::new([Reply::text(
        Value::Array(rows).to_string(),
    )]));
    let sim = Simulator::new(Arc::new(book)).with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    let obs = sim
        .call(&id("loans/schedule"), &json!({"cnt": 60}))
        .await
        .unwrap();
    assert_eq!(obs.body.json().unwrap().as_array().unwrap().len(), 60);
    let asked = format!("{:?}", llm.requests());
    assert!(
        asked.contains("a list holds 60 where the world has that many"),
        "{asked}"
    );
    assert!(!asked.contains("1 to 5"), "{asked}");
}

/// `GET /me/top/{type}` answers a page of `oneOf` artist or track: the argument `type` names
/// the alternative, so `tracks` gets tracks (the first alternative was answered before, so an
/// agent asking for its top tracks got artists and gave up).
#[tokio::test]
async fn an_argument_naming_a_one_of_alternative_picks_it() {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let kind = |k: &str| json!({"type": "string", "enum": [k]});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
      "components": {"schemas": {
        "ArtistObject": {"type": "object", "properties": {"id": {"type": "string"},
            "name": {"type": "string"}, "genres": {"type": "array", "items": {"type": "string"}},
            "type": kind("artist")}},
        "TrackObject": {"type": "object", "properties": {"id": {"type": "string"},
            "name": {"type": "string"}, "duration_ms": {"type": "integer"},
            "type": kind("track")}}}},
      "paths": {"/me/top/{type}": {"get": {"operationId": "top",
        "parameters": [{"name": "type", "in": "path", "required": true,
            "schema": {"type": "string", "enum": ["artists", "tracks"]}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema":
            {"type": "object", "properties": {"items": {"type": "array", "items": {"oneOf": [
                {"$ref": "#/components/schemas/ArtistObject"},
                {"$ref": "#/components/schemas/TrackObject"}]}}}}}}}}}}}});
    let bytes = serde_json::to_vec(&spec).unwrap();
    let batch = read_bytes("music.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let sim = Simulator::new(Arc::clone(&book));
    let top = book.ids().next().unwrap().clone();
    for (asked, kind) in [("tracks", "track"), ("artists", "artist")] {
        let obs = sim.call(&top, &json!({"type": asked})).await.unwrap();
        let body = obs.body.json().unwrap();
        let items = body["items"].as_array().unwrap();
        assert!(!items.is_empty(), "{body:#}");
        assert!(items.iter().all(|i| i["type"] == kind), "{asked}: {body:#}");
    }
}
