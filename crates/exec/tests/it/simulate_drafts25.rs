//! What stand-in models filling the simulator's drafts on TMDB and Spotify reported (round
//! 25), fixed: a placeholder of the draft that the model copied back into its answer is
//! repaired from the whole draft, and drafts no longer pass junk off as facts: genre ids
//! no genre has, a country repeated, a URI of the drafter's own form, a birthday every
//! person shares and a death before it. The specs are written for these tests; their
//! values are made up.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator, canonical_json};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::simulate_writes::drafted;
use crate::{book_of, filling, op, prompt};

/// A `200` response of `schema`, with `example` where given.
fn ok(schema: &Value, example: Option<Value>) -> Value {
    let mut content = json!({"schema": schema});
    if let Some(example) = example {
        content["example"] = example;
    }
    json!({"200": {"description": "ok", "content": {"application/json": content}}})
}

/// A `GET` at `path` (whose one path parameter is `param`, when given) answering `schema`.
fn get(param: Option<(&str, &str)>, schema: &Value, example: Option<Value>) -> Value {
    let parameters: Vec<Value> = param
        .into_iter()
        .map(|(name, kind)| {
            json!({"name": name, "in": "path", "required": true, "schema": {"type": kind}})
        })
        .collect();
    json!({"get": {"parameters": parameters, "responses": ok(schema, example)}})
}

/// An OpenAPI document of `paths`.
fn spec(title: &str, paths: Value) -> Value {
    json!({"openapi": "3.0.0", "info": {"title": title, "version": "1"},
        "servers": [{"url": "https://films.example/3"}], "paths": paths})
}

/// A text that may be null.
fn nullable_text() -> Value {
    json!({"type": "string", "nullable": true})
}

/// A film in TMDB's shape, and the genre list, whose example names four genres.
fn films_spec(film_example: Option<Value>) -> Value {
    let film = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}, "overview": {"type": "string"},
        "poster_path": {"type": "string"}, "backdrop_path": {"type": "string"},
        "genre_ids": {"type": "array", "items": {"type": "integer"}}}});
    let genres = json!({"type": "object", "properties": {"genres": {"type": "array",
        "items": {"type": "object", "properties": {"id": {"type": "integer"},
            "name": {"type": "string"}}}}}});
    let genre_list = json!({"genres": [{"id": 18, "name": "Drama"},
        {"id": 35, "name": "Comedy"}, {"id": 53, "name": "Thriller"},
        {"id": 10402, "name": "Music"}]});
    spec(
        "Films",
        json!({
            "/movie/{movie_id}": get(Some(("movie_id", "integer")), &film, film_example),
            "/genre/movie/list": get(None, &genres, Some(genre_list)),
        }),
    )
}

/// The fill model copied the draft's `/placeholder-2.jpg` back as a film's backdrop, and it
/// reached the agent (stand-ins z1-z5: four observations). A placeholder in an answer is a
/// break though the schema admits it: the whole draft's value at that place replaces it,
/// in what the call returns and in what the session keeps, and the model's own values stay.
#[tokio::test]
async fn a_placeholder_the_model_copied_back_is_repaired_from_the_whole_draft() {
    let example = json!({"id": 9001, "title": "The Quiet Orchard",
        "overview": "Two sisters tend an orchard through a long drought.",
        "poster_path": "/qR7mWk2LpZx.jpg", "backdrop_path": "/bT4nVs8HhJe.jpg",
        "genre_ids": [18]});
    let book = book_of(&films_spec(Some(example)));
    let film = op(&book, "GET", "/movie/{movie_id}");
    let args = json!({"movie_id": 4242});
    let whole = Simulator::new(Arc::clone(&book))
        .call(&film, &args)
        .await
        .unwrap();
    let whole = whole.body.json().unwrap().clone();
    let answer = json!({"id": 4242, "title": "Harvest Moon", "overview": "<overview>",
        "poster_path": "/placeholder-1.jpg", "backdrop_path": "/placeholder-2.jpg",
        "genre_ids": [18, 35]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&film, &args).await.unwrap();
    let shown = drafted(&prompt(&llm, 0));
    assert_eq!(shown["poster_path"], "/placeholder-1.jpg", "{shown:#}");
    assert_eq!(shown["backdrop_path"], "/placeholder-2.jpg", "{shown:#}");
    assert_eq!(shown["overview"], "<overview>", "{shown:#}");
    let body = got.body.json().unwrap();
    assert_eq!(body["title"], "Harvest Moon", "the model's own value stays");
    assert_eq!(body["genre_ids"], json!([18, 35]));
    for key in ["poster_path", "backdrop_path", "overview"] {
        assert_eq!(body[key], whole[key], "{key}: {body:#}");
    }
    let text = canonical_json(body);
    assert!(
        !text.contains("placeholder-") && !text.contains("<overview"),
        "{text}"
    );
    // The session keeps the repaired answer: the same call again shows it, unasked.
    let again = sim.call(&film, &args).await.unwrap();
    assert_eq!(again.body.json().unwrap(), body);
    assert_eq!(llm.requests().len(), 1);
}

/// A film's `genre_ids` were drawn as random integers (`[765, 355, 740]`), ids of no genre
/// a model could look up, though the genre list's examples name the real ones: the ids of
/// a list of a kind's ids come from the ids the examples give things of that kind.
#[tokio::test]
async fn a_films_genre_ids_are_ids_the_examples_give_genres() {
    let book = book_of(&films_spec(None));
    let sim = Simulator::new(Arc::clone(&book));
    let film = op(&book, "GET", "/movie/{movie_id}");
    let genres = [18, 35, 53, 10402];
    let mut drawn = 0;
    for movie_id in 1..=8 {
        let got = sim
            .call(&film, &json!({"movie_id": movie_id}))
            .await
            .unwrap();
        let body = got.body.json().unwrap();
        let ids = body["genre_ids"].as_array().expect("genre ids");
        drawn += ids.len();
        for id in ids {
            assert!(
                id.as_i64().is_some_and(|id| genres.contains(&id)),
                "{id} is no genre's: {body}"
            );
        }
        let distinct: HashSet<String> = ids.iter().map(Value::to_string).collect();
        assert_eq!(distinct.len(), ids.len(), "no genre twice: {body}");
    }
    assert!(drawn > 0, "the films have genres");
}

/// A person in TMDB's shape, whose example was born in 1994 and is alive.
fn people_spec() -> Value {
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "birthday": nullable_text(),
        "deathday": nullable_text(), "place_of_birth": {"type": "string"}}});
    let example = json!({"id": 77, "name": "Mara Ellison", "birthday": "1994-03-07",
        "deathday": null, "place_of_birth": "Leeds, England"});
    spec(
        "People",
        json!({"/person/{person_id}": get(Some(("person_id", "integer")), &person,
            Some(example))}),
    )
}

/// Every person's draft carried the example's birthday (`1963-12-18`, 19 drafts of runs y
/// and z), and some a deathday before it. A date an example gives is drawn anew for each
/// person, and a person dies after their birth.
#[tokio::test]
async fn people_have_birthdays_of_their_own_and_die_after_them() {
    let book = book_of(&people_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let person = op(&book, "GET", "/person/{person_id}");
    let mut birthdays = HashSet::new();
    for person_id in 1..=12 {
        let args = json!({"person_id": person_id});
        let got = sim.call(&person, &args).await.unwrap();
        let body = got.body.json().unwrap();
        let born = body["birthday"].as_str().expect("a birthday");
        assert_ne!(born, "1994-03-07", "the example's birthday: {body}");
        assert_eq!(born.len(), 10, "a date: {born}");
        if let Some(died) = body["deathday"].as_str() {
            assert!(died >= born, "died before birth: {body}");
        }
        birthdays.insert(born.to_owned());
        // One person keeps one birthday.
        let again = Simulator::new(Arc::clone(&book)).call(&person, &args).await;
        assert_eq!(again.unwrap().body.json().unwrap()["birthday"], born);
    }
    assert!(birthdays.len() > 1, "{birthdays:?}");
}

/// A TV show in TMDB's shape, with no examples.
fn shows_spec() -> Value {
    let show = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"},
        "origin_country": {"type": "array", "items": {"type": "string"}},
        "first_air_date": {"type": "string"}, "last_air_date": {"type": "string"}}});
    spec(
        "Shows",
        json!({"/tv/{tv_id}": get(Some(("tv_id", "integer")), &show, None)}),
    )
}

/// A show's `origin_country` was drafted `["US","US","US","US"]` (33 drafts of runs y and
/// z), and its last air date before its first: a list of codes repeats none, and a show
/// ends after it starts.
#[tokio::test]
async fn a_shows_countries_repeat_none_and_it_ends_after_it_starts() {
    let book = book_of(&shows_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let show = op(&book, "GET", "/tv/{tv_id}");
    for tv_id in 1..=12 {
        let got = sim.call(&show, &json!({"tv_id": tv_id})).await.unwrap();
        let body = got.body.json().unwrap();
        let countries = body["origin_country"].as_array().expect("countries");
        assert!(!countries.is_empty(), "{body}");
        let distinct: HashSet<String> = countries.iter().map(Value::to_string).collect();
        assert_eq!(
            distinct.len(),
            countries.len(),
            "a country repeated: {body}"
        );
        let first = body["first_air_date"].as_str().expect("a first air date");
        let last = body["last_air_date"].as_str().expect("a last air date");
        assert!(first <= last, "it ended before it started: {body}");
    }
}

/// A track and its artists in Spotify's shape: the track's `uri` has an example (of
/// another track than its `id`'s example), the artist's none.
fn tracks_spec() -> Value {
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "type": {"type": "string", "enum": ["artist"]},
        "uri": {"type": "string"}}});
    let track = json!({"type": "object", "properties": {
        "id": {"type": "string", "example": "3n3Ppam7vgaVa1iaRUc9Lp"},
        "name": {"type": "string"}, "type": {"type": "string", "enum": ["track"]},
        "uri": {"type": "string", "example": "spotify:track:6rqhFgbbKwnb9MLmUQDhG6"},
        "artists": {"type": "array", "items": artist}}});
    spec(
        "Music",
        json!({"/tracks/{id}": get(Some(("id", "string")), &track, None)}),
    )
}

/// Spotify URIs were drafted `urn:artist:<id>`, a form of the drafter's own, and a track's
/// as the example's URI, another track's: a URI keeps the `scheme:kind:id` form its
/// examples share (the tool's, where it has none of its own), with its own kind and id.
#[tokio::test]
async fn a_uri_keeps_the_form_of_its_examples_with_its_own_id() {
    let book = book_of(&tracks_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let track = op(&book, "GET", "/tracks/{id}");
    for id in ["4uLU6hMCjMI75M1A2tKUQC", "0VjIjW4GlUZAMYd2vXMi3b"] {
        let got = sim.call(&track, &json!({"id": id})).await.unwrap();
        let body = got.body.json().unwrap();
        assert_eq!(body["uri"], format!("spotify:track:{id}"), "{body:#}");
        let artists = body["artists"].as_array().expect("artists");
        assert!(!artists.is_empty(), "{body:#}");
        for artist in artists {
            let own = artist["id"].as_str().expect("an artist id");
            assert_eq!(artist["uri"], format!("spotify:artist:{own}"), "{body:#}");
        }
    }
}
