//! The simulator's drafts take the shapes the spec shows: a search answers only
//! the result types it was asked for, and ids are minted in the form the spec's
//! examples give them.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};

use crate::{book_of, op};

fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A catalog search in the shape of a music service's: one paged list per result type.
fn search_spec() -> Value {
    let page = |kind: &str| {
        json!({"type": "object", "properties": {"total": {"type": "integer"},
            "limit": {"type": "integer"}, "offset": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "type": {"type": "string", "enum": [kind]}}}}}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Records", "version": "1"}, "paths": {
        "/search": {"get": {"parameters": [
            {"name": "q", "in": "query", "required": true, "schema": {"type": "string"}},
            {"name": "type", "in": "query", "required": true, "explode": false,
                "schema": {"type": "array", "items": {"type": "string",
                    "enum": ["album", "artist", "track", "show", "category"]}}},
            {"name": "include", "in": "query", "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "schema": {"type": "integer"}}],
            "responses": ok(json!({"type": "object", "properties": {
                "href": {"type": "string"}, "albums": page("album"),
                "artists": page("artist"), "tracks": page("track"), "shows": page("show"),
                "categories": page("category")}}))}}
    }})
}

fn keys(body: &Value) -> BTreeSet<String> {
    body.as_object().unwrap().keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[tokio::test]
async fn a_search_drafts_only_the_result_types_it_names() {
    let book = book_of(&search_spec());
    let search = op(&book, "GET", "/search");
    let sim = Simulator::new(Arc::clone(&book));
    let all = set(&["href", "albums", "artists", "tracks", "shows", "categories"]);
    let cases = [
        (
            json!({"q": "Doxy", "type": "track"}),
            set(&["href", "tracks"]),
        ),
        (
            json!({"q": "Doxy", "type": "album, Artist"}),
            set(&["href", "albums", "artists"]),
        ),
        (
            json!({"q": "Doxy", "type": ["show"]}),
            set(&["href", "shows"]),
        ),
        (
            json!({"q": "Doxy", "type": "category"}),
            set(&["href", "categories"]),
        ),
        // A free comma-separated list names parts too, when each value names one.
        (
            json!({"q": "Doxy", "type": "nothing", "include": "tracks,albums"}),
            set(&["href", "tracks", "albums"]),
        ),
        // Values that name no part, and a lone free value (a search term), change nothing.
        (json!({"q": "Doxy", "type": "podcast"}), all.clone()),
        (json!({"q": "tracks", "type": "nothing"}), all.clone()),
        (
            json!({"q": "Doxy", "type": "nothing", "include": "tracks,lyrics"}),
            all.clone(),
        ),
    ];
    for (args, want) in cases {
        let body = sim.synthesize(book.get(&search).unwrap(), &args).unwrap();
        assert_eq!(keys(&body), want, "{args}: {body}");
        let obs = sim.call(&search, &args).await.unwrap();
        assert_eq!(keys(obs.body.json().unwrap()), want, "{args}");
    }
    // The model filling a `type=track` search is shown only the tracks.
    let llm = Arc::new(
        ScriptedLlm::new(Vec::<Reply>::new()).with_rule(
            When::role("simulator"),
            Reply::text(
                json!({"href": "h", "tracks": {"total": 1, "limit": 20, "offset": 0,
            "items": [{"id": "t1", "name": "Doxy", "type": "track"}]}})
                .to_string(),
            ),
        ),
    );
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    let filled = Simulator::with_settings(Arc::clone(&book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    let obs = filled
        .call(&search, &json!({"q": "Doxy", "type": "track"}))
        .await
        .unwrap();
    assert_eq!(keys(obs.body.json().unwrap()), set(&["href", "tracks"]));
    let prompt = format!("{:?}", llm.requests()[0]);
    assert!(prompt.contains("tracks"), "{prompt}");
    assert!(
        !prompt.contains("albums") && !prompt.contains("artists"),
        "{prompt}"
    );
}

/// An album catalog whose example ids are 22 base62 characters, as a music service's.
fn albums_spec() -> Value {
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let album = json!({"type": "object", "properties": {
        "id": {"type": "string", "example": "4aawyAB9vmqN3uQ7FjRGTy"},
        "name": {"type": "string"}, "artists": {"type": "array", "items": artist}}});
    let track = json!({"type": "object", "properties": {
        "id": {"type": "string", "example": "1301WleyT98MSxVHPZCA6M"},
        "name": {"type": "string"}}});
    let id_param = |name: &str| {
        json!({"name": name, "in": "path", "required": true,
        "schema": {"type": "string"}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Albums", "version": "1"}, "paths": {
        "/albums": {"get": {"responses": ok(json!({"type": "object", "properties": {
            "items": {"type": "array", "items": album.clone()}}}))}},
        "/albums/{album_id}": {"get": {"parameters": [id_param("album_id")],
            "responses": ok(album)}},
        "/tracks/{track_id}": {"get": {"parameters": [id_param("track_id")],
            "responses": ok(track)}}
    }})
}

/// Every string at a key named `id` in `value`.
fn ids_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if key == "id"
                    && let Some(id) = v.as_str()
                {
                    out.push(id.to_owned());
                }
                ids_in(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| ids_in(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn ids_take_the_base62_shape_the_examples_show_and_keep_it() {
    let book = book_of(&albums_spec());
    let list = op(&book, "GET", "/albums");
    let one = op(&book, "GET", "/albums/{album_id}");
    let sim = Simulator::new(Arc::clone(&book));
    let session = sim.fork_for(Some("my albums")).unwrap();
    let listed = session.call(&list, &json!({})).await.unwrap();
    let listed = listed.body.json().unwrap().clone();
    let mut ids = Vec::new();
    ids_in(&listed, &mut ids);
    assert!(ids.len() >= 2, "{listed}");
    // Albums (their own example) and artists (no example: the tool's shape) alike.
    for id in &ids {
        assert!(
            id.len() == 22 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{id} in {listed}"
        );
    }
    let distinct: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "{listed}");
    // The same call gives the same ids, in this session and in another.
    let again = session.call(&list, &json!({})).await.unwrap();
    assert_eq!(again.body.json(), Some(&listed));
    let other = sim.fork_for(Some("my albums")).unwrap();
    let elsewhere = other.call(&list, &json!({})).await.unwrap();
    assert_eq!(elsewhere.body.json(), Some(&listed));
    // An album read by the id its listing showed keeps that id and name.
    let first = &listed["items"][0];
    let read = session
        .call(&one, &json!({"album_id": first["id"]}))
        .await
        .unwrap();
    let read = read.body.json().unwrap();
    assert_eq!(read["id"], first["id"]);
    assert_eq!(read["name"], first["name"]);
    // The draft the filling model is shown carries those ids.
    let llm = Arc::new(
        ScriptedLlm::new(Vec::<Reply>::new())
            .with_rule(When::role("simulator"), Reply::text(listed.to_string())),
    );
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    Simulator::with_settings(Arc::clone(&book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())))
        .call(&list, &json!({}))
        .await
        .unwrap();
    let prompt = format!("{:?}", llm.requests()[0]);
    assert!(prompt.contains(first["id"].as_str().unwrap()), "{prompt}");
}

/// People whose ids are integers, with an external id the examples write as digits.
fn people_spec() -> Value {
    let credit = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}}});
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "external_id": {"type": "string"},
        "known_for": {"type": "array", "items": credit}}});
    let example = json!({"results": [
        {"id": 500, "name": "Tom Cruise", "external_id": "4871203",
            "known_for": [{"id": 954, "title": "Mission: Impossible"}]},
        {"id": 1245, "name": "Scarlett Johansson", "external_id": "9120755",
            "known_for": [{"id": 1771, "title": "Captain America"}]}]});
    json!({"openapi": "3.0.0", "info": {"title": "People", "version": "1"}, "paths": {
        "/search/person": {"get": {"parameters": [{"name": "query", "in": "query",
            "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": {
                    "results": {"type": "array", "items": person}}},
                "example": example}}}}}}
    }})
}

#[tokio::test]
async fn ids_follow_integer_examples() {
    let book = book_of(&people_spec());
    let search = op(&book, "GET", "/search/person");
    let sim = Simulator::new(Arc::clone(&book));
    let mut externals = BTreeSet::new();
    let mut count = 0;
    for query in ["Tom", "Ann", "Lee"] {
        let obs = sim.call(&search, &json!({"query": query})).await.unwrap();
        let body = obs.body.json().unwrap();
        for person in body["results"].as_array().unwrap() {
            assert!(person["id"].is_u64(), "{person}");
            for credit in person["known_for"].as_array().unwrap() {
                assert!(credit["id"].is_u64(), "{credit}");
            }
            let external = person["external_id"].as_str().unwrap();
            assert!(
                external.len() == 7 && external.bytes().all(|b| b.is_ascii_digit()),
                "{external}"
            );
            externals.insert(external.to_owned());
            count += 1;
        }
    }
    // Minted in the examples' shape, not the examples copied onto every person.
    assert!(count >= 3);
    assert_eq!(externals.len(), count, "{externals:?}");
}
