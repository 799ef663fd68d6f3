//! A value the schema allows in several shapes (stand-ins u1, u2, u4): TMDB's person search
//! lists what each person is `known_for` as films or shows (`oneOf` of a film and a show,
//! told apart by `media_type`). The draft takes the film's shape; the fill prompt tells the
//! model an item may instead take the show's keys, and the model's show comes back to the
//! agent as a show, not forced into a film's `title` and `release_date`.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::Executor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A film API in TMDB's shapes: a person search whose people are known for films or
/// shows, each a `$ref` to its own component with a `media_type` discriminator.
fn people_spec() -> Value {
    let kind = |k: &str| json!({"type": "string", "enum": [k]});
    let film = json!({"type": "object", "required": ["media_type"], "properties": {
        "id": {"type": "integer"}, "title": {"type": "string"},
        "original_title": {"type": "string"}, "release_date": {"type": "string"},
        "video": {"type": "boolean"}, "overview": {"type": "string"},
        "vote_average": {"type": "number"}, "media_type": kind("movie")}});
    let show = json!({"type": "object", "required": ["media_type"], "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "original_name": {"type": "string"}, "first_air_date": {"type": "string"},
        "origin_country": {"type": "array", "items": {"type": "string"}},
        "overview": {"type": "string"}, "vote_average": {"type": "number"},
        "media_type": kind("tv")}});
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "known_for": {"type": "array", "items": {"oneOf": [
            {"$ref": "#/components/schemas/movie-with-media_type"},
            {"$ref": "#/components/schemas/tv-with-media_type"}]}}}});
    let search = json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": person},
        "total_results": {"type": "integer"}, "total_pages": {"type": "integer"}}});
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "components": {"schemas": {"movie-with-media_type": film, "tv-with-media_type": show}},
        "paths": {"/search/person": {"get": {"parameters": [{"name": "query", "in": "query",
            "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json":
                {"schema": search}}}}}}}})
}

/// The fill prompt of a person search names the keys of the show an item may be instead
/// of a film, and lets the answer use them.
#[tokio::test]
async fn the_fill_prompt_names_the_other_shape_of_a_known_for_item() {
    let book = book_of(&people_spec());
    let search = op(&book, "GET", "/search/person");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    sim.call(&search, &json!({"query": "Jeremy Clarkson"}))
        .await
        .unwrap();
    let requests = llm.requests();
    let prompt = requests[0].messages[0].text();
    let line = prompt
        .lines()
        .find(|l| l.contains("`known_for`") && l.contains("first_air_date"))
        .unwrap_or_else(|| panic!("no other shape of `known_for` told: {prompt}"));
    for key in ["`name`", "`original_name`", "`origin_country`", r#""tv""#] {
        assert!(line.contains(key), "{key} missing: {line}");
    }
    // What the film has and the show lacks, so the model knows what a show leaves out.
    assert!(
        line.contains("`title`") && line.contains("`release_date`"),
        "{line}"
    );
    // The keys both shapes share are no news.
    assert!(!line.contains("`overview`"), "{line}");
    // The rule against new keys makes room for them.
    let rule = prompt
        .lines()
        .find(|l| l.contains("add no keys"))
        .unwrap_or_else(|| panic!("no rule on keys: {prompt}"));
    assert!(rule.contains("other shape"), "{rule}");
}

/// A scripted answer with a film and a show among what a person is known for reaches the
/// agent with the show whole: its `name`, `first_air_date` and `media_type: "tv"`, and no
/// film's `title` or `release_date` forced onto it.
#[tokio::test]
async fn a_show_among_known_for_films_stays_a_show() {
    let book = book_of(&people_spec());
    let search = op(&book, "GET", "/search/person");
    let film = json!({"id": 214, "media_type": "movie", "title": "Ice Age", "overview": "Herd.",
        "original_title": "Ice Age", "release_date": "2002-03-10", "video": false,
        "vote_average": 7.3});
    let show = json!({"id": 1433, "media_type": "tv", "name": "Top Gear",
        "original_name": "Top Gear", "first_air_date": "2002-10-20",
        "origin_country": ["GB"], "overview": "Cars.", "vote_average": 8.1});
    // A show the model gave the film's discriminator, and one it gave none: the keys say
    // what each is.
    let mislabelled = json!({"id": 2, "media_type": "movie", "name": "The Grand Tour",
        "first_air_date": "2016-11-18", "origin_country": ["GB"]});
    let unlabelled = json!({"id": 3, "name": "Clarkson's Farm",
        "first_air_date": "2021-06-11"});
    let answer = json!({"page": 1, "total_results": 1, "total_pages": 1, "results": [
        {"id": 3710, "name": "Jeremy Clarkson",
         "known_for": [film, show, mislabelled, unlabelled]}]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    let got = sim
        .call(&search, &json!({"query": "Jeremy Clarkson"}))
        .await
        .unwrap();
    let body = got.body.json().unwrap();
    let known = body["results"][0]["known_for"].as_array().unwrap();
    assert_eq!(known.len(), 4, "{body:#}");
    assert_eq!(known[0], film, "{body:#}");
    assert_eq!(known[1], show, "{body:#}");
    for (item, name) in known[1..]
        .iter()
        .zip(["Top Gear", "The Grand Tour", "Clarkson's Farm"])
    {
        assert_eq!(item["media_type"], "tv", "{body:#}");
        assert_eq!(item["name"], name, "{body:#}");
        assert!(item["first_air_date"].is_string(), "{body:#}");
        assert!(item.get("title").is_none(), "{body:#}");
        assert!(item.get("release_date").is_none(), "{body:#}");
    }
}
