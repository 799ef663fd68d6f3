//! Paging totals that follow what the call asks for, and an open object that may be null
//! (totals24). Stand-ins were drafted 8 to 13 results for a discover of one director's
//! films and told to keep them, 44 popular people in all, and told to fill TMDB's
//! `belongs_to_collection` of a film in no collection, which the real API sends as null.
//! A listing the call narrows leaves its total to the model, within a range the prompt
//! states; what is popular keeps thousands; the settled numbers agree with the page
//! whatever the model wrote; a null the schema or the examples allow for an open object
//! is told and kept.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::simulate_matches::{numbers, only_prompt};
use crate::{book_of, filling, op, tmdb};

/// A TMDB film as a list shows it.
fn film(id: u64, title: &str, date: &str) -> Value {
    json!({"adult": false, "id": id, "title": title, "original_title": title,
        "original_language": "en", "overview": format!("{title}, the film."),
        "release_date": date, "genre_ids": [18], "popularity": 30.5,
        "vote_average": 7.9, "vote_count": 12000, "video": false,
        "poster_path": "/p.jpg", "backdrop_path": "/b.jpg"})
}

/// A page of `n` films with the totals a model wrote.
fn page_of(n: u64, page: u64, total: u64, pages: u64) -> Value {
    let results: Vec<Value> = (0..n)
        .map(|i| film(1000 + i, &format!("Film {i}"), "2010-07-16"))
        .collect();
    json!({"page": page, "results": results, "total_results": total, "total_pages": pages})
}

/// A discover of one director's films of one year: the prompt states no page to fill
/// and no total to keep (the draft's are a guess; the number is the model's, within a
/// range), and the model's six films come back as the whole list, six in one page.
#[tokio::test]
async fn a_narrowed_discover_leaves_its_total_to_the_model() {
    let book = tmdb();
    let discover = op(&book, "GET", "/discover/movie");
    let args = json!({"with_crew": "525", "year": 2010, "sort_by": "popularity.desc"});
    // The model kept the draft's two pages of thirteen, or wrote them itself.
    let answer = page_of(6, 1, 13, 2);
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&discover, &args).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(numbers(body), (6, 1, 6), "{body}");
    let said = only_prompt(&llm);
    for fixed in ["make this page hold", "write all"] {
        assert!(!said.contains(fixed), "{fixed}: {said}");
    }
    assert!(
        said.contains("how many there are is yours to decide from the world, from none up to"),
        "{said}"
    );
    assert!(
        said.contains("the draft's totals and its count of items are only a guess"),
        "{said}"
    );
    assert!(said.contains("this page holds 10 of them"), "{said}");
}

/// What is popular, top rated or trending, and a discover with no narrowing argument,
/// keep thousands of results in hundreds of pages, on every call (a third of them were
/// once drafted a few tens), and their fill prompt still asks for a full page.
#[tokio::test]
async fn a_catalog_wide_list_keeps_a_large_total() {
    let book = tmdb();
    let sim = Simulator::new(Arc::clone(&book));
    let lists = [
        ("/movie/popular", json!({})),
        ("/person/popular", json!({})),
        ("/tv/top_rated", json!({})),
        ("/discover/movie", json!({"sort_by": "popularity.desc"})),
    ];
    for (path, base) in lists {
        for page in 1..=6 {
            for language in ["en-US", "fr-FR", "de-DE"] {
                let mut args = base.clone();
                args["page"] = json!(page);
                args["language"] = json!(language);
                let got = sim.call(&op(&book, "GET", path), &args).await.unwrap();
                let (total, pages, shown) = numbers(got.body.json().unwrap());
                let case = format!("{path} {args}: {total} in {pages} pages");
                assert!(total >= 1_000, "{case}");
                assert!(pages >= 100, "{case}");
                assert_eq!(shown, 10, "{case}");
            }
        }
    }
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    let popular = op(&book, "GET", "/movie/popular");
    let got = sim.call(&popular, &json!({})).await.unwrap();
    let (total, _, _) = numbers(got.body.json().unwrap());
    assert!(total >= 1_000, "{total}");
    let said = only_prompt(&llm);
    assert!(said.contains("make this page hold 10 items"), "{said}");
    assert!(!said.contains("yours to decide"), "{said}");
}

/// Whatever totals the model writes, the page's numbers agree after repair: a total
/// below the items shown is raised to them, pages that cannot hold the total are
/// recounted, a page longer than its size is cut to it, and the page number is the
/// call's.
#[tokio::test]
async fn totals_that_disagree_with_the_page_are_made_consistent() {
    let book = tmdb();
    let discover = op(&book, "GET", "/discover/movie");
    let narrowed = json!({"with_crew": "525", "vote_average.gte": 7});
    let popular = op(&book, "GET", "/movie/popular");
    // (api, args, answer, wanted (total, pages, items), wanted page number)
    let cases = [
        // Ten films counted as four, in one page: ten in one page.
        (&discover, &narrowed, page_of(10, 1, 4, 1), (10, 1, 10), 1),
        // Forty counted in two pages of ten: four pages.
        (&discover, &narrowed, page_of(10, 1, 40, 2), (40, 4, 10), 1),
        // Fourteen on a page of ten, marked page 3: the first ten, two pages, page 1.
        (&discover, &narrowed, page_of(14, 3, 14, 1), (14, 2, 10), 1),
        // What is popular, counted 5,000 in three pages: five hundred pages.
        (
            &popular,
            &json!({}),
            page_of(10, 1, 5_000, 3),
            (5_000, 500, 10),
            1,
        ),
        // Popular films counted as three: at least the ten shown.
        (&popular, &json!({}), page_of(10, 1, 3, 1), (10, 1, 10), 1),
    ];
    for (api, args, answer, wanted, page) in cases {
        let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
        let sim = filling(&book, &llm);
        let got = sim.call(api, args).await.unwrap();
        let body = got.body.json().unwrap();
        let case = format!("{api} {args} answered {}: {body}", answer["total_results"]);
        assert_eq!(numbers(body), wanted, "{case}");
        assert_eq!(body["page"], page, "{case}");
        let (total, pages, _) = wanted;
        assert!(pages * 10 >= total, "{case}");
        assert_eq!(body["results"][0]["title"], "Film 0", "{case}");
    }
}

/// TMDB's `belongs_to_collection` (`nullable`, and null in the spec's example) is drafted
/// as an open `{}`: the prompt says it may be null, and the model's null for a film in no
/// collection stays null.
#[tokio::test]
async fn a_nullable_open_object_answered_null_stays_null() {
    let book = tmdb();
    let movie = op(&book, "GET", "/movie/{movie_id}");
    let answer = json!({"id": 278, "title": "The Shawshank Redemption",
        "belongs_to_collection": null, "budget": 25_000_000, "runtime": 142,
        "status": "Released", "release_date": "1994-09-23"});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&movie, &json!({"movie_id": 278})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(body["belongs_to_collection"], Value::Null, "{body}");
    assert_eq!(body["title"], "The Shawshank Redemption");
    let said = only_prompt(&llm);
    let draft = crate::simulate_writes::drafted(&said);
    assert_eq!(draft["belongs_to_collection"], json!({}), "{draft}");
    assert!(
        said.contains("Of these, belongs_to_collection may be null"),
        "{said}"
    );
}

/// A spec whose `/things/{thing_id}` answers a thing with two open objects, both required
/// and neither nullable in the schema; the example shows `extra` as null.
fn things() -> Value {
    let thing = json!({"type": "object", "required": ["id", "name", "extra", "details"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
            "extra": {"type": "object"}, "details": {"type": "object"}}});
    json!({"openapi": "3.0.0", "info": {"title": "Things", "version": "1"},
        "servers": [{"url": "https://things.example"}],
        "paths": {"/things/{thing_id}": {"get": {"summary": "A thing by id.",
            "parameters": [{"name": "thing_id", "in": "path", "required": true,
                "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "the thing", "content": {
                "application/json": {"schema": thing,
                    "example": {"id": 1, "name": "lamp", "extra": null,
                        "details": {"colour": "red"}}}}}}}}}})
}

/// An open object the examples show as null may be null: told so, and the model's null
/// kept, although the schema requires an object there. One that nothing allows to be
/// null is, as before, refilled from the draft, and the prompt names no null for it.
#[tokio::test]
async fn only_an_open_object_that_may_be_null_keeps_a_null() {
    let book = book_of(&things());
    let thing = op(&book, "GET", "/things/{thing_id}");
    let answer = json!({"id": 7, "name": "desk", "extra": null, "details": null});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&thing, &json!({"thing_id": 7})).await.unwrap();
    let body = got.body.json().unwrap();
    let said = only_prompt(&llm);
    let draft = crate::simulate_writes::drafted(&said);
    assert_eq!(draft["extra"], json!({}), "{said}");
    assert_eq!(draft["details"], json!({}), "{said}");
    assert!(said.contains("Of these, extra may be null"), "{said}");
    assert!(!said.contains("details may be null"), "{said}");
    assert_eq!(body["extra"], Value::Null, "{body}");
    assert_eq!(body["details"], json!({}), "{body}");
    assert_eq!(body["name"], "desk");
}

/// The reviews of one show are a collection with one owner: how many there are is the
/// model's to decide, up to tens (a miniseries of 2024 was drafted 46), and its two
/// reviews come back as the whole list.
#[tokio::test]
async fn a_shows_reviews_are_counted_by_the_model() {
    let book = tmdb();
    let reviews = op(&book, "GET", "/tv/{tv_id}/reviews");
    let review = |id: &str, author: &str| {
        json!({"id": id, "author": author, "content": "Tense and well made.",
            "url": format!("https://www.themoviedb.org/review/{id}")})
    };
    let answer = json!({"id": 94997, "page": 1, "results": [review("r1", "ana"),
        review("r2", "ben")], "total_results": 46, "total_pages": 5});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&reviews, &json!({"tv_id": 94997})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(numbers(body), (2, 1, 2), "{body}");
    let said = only_prompt(&llm);
    assert!(
        said.contains("is yours to decide from the world, from none up to 50"),
        "{said}"
    );
    assert!(!said.contains("make this page hold"), "{said}");
}
