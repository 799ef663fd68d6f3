//! Calls of one step of different kinds give one thing one id (brief share25, stand-ins y4
//! and y1: Twin Peaks' credits and Mulholland Drive's gave David Lynch two person ids;
//! Breaking Bad's `similar` and `recommendations` gave one show two). Neither call names
//! the thing by an argument or a search text, so the answer is matched after the fill: an
//! entity of a kind the session showed once under that label takes the shown id, unless
//! the call passes its id or the answer holds two of that name.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::Executor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{filling, op};

/// The ids of the objects named `name` in the list `field` of `body`.
fn ids_named(body: &Value, field: &str, name: &str) -> Vec<Value> {
    body[field]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["name"] == name)
        .map(|p| p["id"].clone())
        .collect()
}

/// The bodies `sim` answers `calls` with, one after the other.
async fn bodies<'a>(
    sim: &dyn Executor,
    calls: impl IntoIterator<Item = (&'a ApiId, Value)>,
) -> Vec<Value> {
    let mut bodies = Vec::new();
    for (api, args) in calls {
        let got = sim.call(api, &args).await.unwrap();
        bodies.push(
            got.body
                .json()
                .cloned()
                .unwrap_or_else(|| panic!("{got:?}")),
        );
    }
    bodies
}

#[tokio::test]
async fn a_director_shown_by_a_films_credits_keeps_his_id_in_a_shows_credits() {
    let book = crate::tmdb();
    let film_credits = op(&book, "GET", "/movie/{movie_id}/credits");
    let show_credits = op(&book, "GET", "/tv/{tv_id}/credits");
    let person = op(&book, "GET", "/person/{person_id}");
    let film = json!({"id": 1018,
        "cast": [{"id": 21, "name": "Naomi Watts", "character": "Betty Elms"}],
        "crew": [{"id": 11, "name": "David Lynch", "job": "Director", "department": "Directing"}]});
    // The second fill writes Lynch under another id, as stand-in y4's did.
    let show = json!({"id": 1920,
        "cast": [{"id": 6677, "name": "Kyle MacLachlan", "character": "Dale Cooper"}],
        "crew": [
            {"id": 5123, "name": "David Lynch", "job": "Director", "department": "Directing"},
            {"id": 5123, "name": "David Lynch", "job": "Writer", "department": "Writing"},
            {"id": 7231, "name": "Mark Frost", "job": "Writer", "department": "Writing"}]});
    let asked_for = json!({"id": 5123, "name": "David Lynch", "birthday": "1946-01-20"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(film.to_string()),
        Reply::text(show.to_string()),
        Reply::text(asked_for.to_string()),
    ]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    let bodies = bodies(
        sim.as_ref(),
        [
            (&film_credits, json!({"movie_id": 1018})),
            (&show_credits, json!({"tv_id": 1920})),
            // The agent asks for person 5123 by id: that person keeps it.
            (&person, json!({"person_id": 5123})),
        ],
    )
    .await;
    assert_eq!(llm.requests().len(), 3);
    assert_eq!(ids_named(&bodies[0], "crew", "David Lynch"), [json!(11)]);
    assert_eq!(
        ids_named(&bodies[1], "crew", "David Lynch"),
        [json!(11), json!(11)],
        "{}",
        bodies[1]
    );
    assert_eq!(ids_named(&bodies[1], "crew", "Mark Frost"), [json!(7231)]);
    assert_eq!(
        ids_named(&bodies[1], "cast", "Kyle MacLachlan"),
        [json!(6677)]
    );
    assert_eq!(bodies[2]["id"], 5123, "{}", bodies[2]);
}

#[tokio::test]
async fn a_show_shown_once_keeps_its_id_in_a_list_but_namesakes_are_not_merged() {
    let book = crate::tmdb();
    let similar = op(&book, "GET", "/tv/{tv_id}/similar");
    let recommended = op(&book, "GET", "/tv/{tv_id}/recommendations");
    let page = |shows: Value| {
        let n = shows.as_array().map_or(0, Vec::len);
        json!({"page": 1, "total_results": n, "total_pages": 1, "results": shows})
    };
    let first = page(json!([
        {"id": 1396, "name": "Breaking Bad", "first_air_date": "2008-01-20"},
        {"id": 2316, "name": "The Office", "first_air_date": "2005-03-24"}]));
    // The second list gives Breaking Bad another id, and holds two shows called
    // "The Office" (the British one and the American one) with no dates.
    let second = page(json!([
        {"id": 8888, "name": "Breaking Bad", "first_air_date": "2008-01-20"},
        {"id": 2996, "name": "The Office"},
        {"id": 7777, "name": "The Office"},
        {"id": 4607, "name": "Lost", "first_air_date": "2004-09-22"}]));
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(first.to_string()),
        Reply::text(second.to_string()),
    ]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    let bodies = bodies(
        sim.as_ref(),
        [
            (&similar, json!({"tv_id": 60059})),
            (&recommended, json!({"tv_id": 60059})),
        ],
    )
    .await;
    let listed = &bodies[1];
    assert_eq!(
        ids_named(listed, "results", "Breaking Bad"),
        [json!(1396)],
        "{listed}"
    );
    assert_eq!(
        ids_named(listed, "results", "The Office"),
        [json!(2996), json!(7777)],
        "{listed}"
    );
    assert_eq!(ids_named(listed, "results", "Lost"), [json!(4607)]);
}
