//! What stand-in models filling the simulator on TMDB and Spotify reported (round 21),
//! fixed.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A small music API in Spotify's shapes (paging objects composed with `allOf`, a search
/// answering a page per asked type, the user's own lists under `/me`), written for these
/// tests.
fn music() -> Value {
    let paging = json!({"type": "object", "required": ["href", "items", "limit", "next",
        "offset", "previous", "total"], "properties": {
        "href": {"type": "string"}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
        "previous": {"type": "string", "nullable": true}, "total": {"type": "integer"}}});
    let page_of = |item: Value| {
        json!({"allOf": [{"$ref": "#/components/schemas/Paging"},
        {"type": "object", "properties": {"items": {"type": "array", "items": item}}}]})
    };
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "release_date": {"type": "string"},
        "total_tracks": {"type": "integer"}}});
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "duration_ms": {"type": "integer"}}});
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    let limit = json!({"name": "limit", "in": "query", "schema": {"type": "integer",
        "default": 20, "minimum": 0, "maximum": 50}});
    let offset = json!({"name": "offset", "in": "query", "schema": {"type": "integer",
        "default": 0}});
    let path_id = |name: &str| {
        json!({"name": name, "in": "path", "required": true,
        "schema": {"type": "string"}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://music.example/v1"}],
        "components": {"schemas": {"Paging": paging}},
        "paths": {
        "/search": {"get": {"parameters": [
            {"name": "q", "in": "query", "required": "true", "schema": {"type": "string"}},
            {"name": "type", "in": "query", "required": "true", "explode": "false",
                "schema": {"type": "array", "items": {"type": "string",
                "enum": ["album", "artist", "track"]}}},
            limit.clone(), offset.clone()],
            "responses": ok(json!({"type": "object", "properties": {
                "albums": page_of(album.clone()), "artists": page_of(artist.clone()),
                "tracks": page_of(track.clone())}}))}},
        "/me/albums": {"get": {"parameters": [limit.clone(), offset.clone()],
            "responses": ok(page_of(json!({"type": "object", "properties": {
                "added_at": {"type": "string"}, "album": album.clone()}})))}},
        "/playlists/{playlist_id}": {"get": {
            "parameters": [path_id("playlist_id"), {"name": "fields", "in": "query",
                "schema": {"type": "string"}, "description": "Filters for the query: a \
                comma-separated list of the fields to return. If omitted, all fields are \
                returned."}],
            "responses": ok(json!({"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "description": {"type": "string"}, "snapshot_id": {"type": "string"},
                "owner": {"type": "object", "properties": {"id": {"type": "string"},
                    "display_name": {"type": "string"}}},
                "tracks": {"type": "object", "properties": {"href": {"type": "string"},
                    "total": {"type": "integer"}}}}}))},
            "put": {"parameters": [path_id("playlist_id")],
                "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}}},
                "responses": {"200": {"description": "Playlist updated"}}}},
        "/playlists/{playlist_id}/tracks": {"get": {
            "parameters": [path_id("playlist_id"), limit.clone(), offset.clone()],
            "responses": ok(page_of(json!({"type": "object", "properties": {
                "added_at": {"type": "string"}, "track": track.clone()}})))},
            "delete": {"parameters": [path_id("playlist_id")],
                "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                    "properties": {"tracks": {"type": "array", "items": {"type": "object",
                        "properties": {"uri": {"type": "string"}}}}}}}}},
                "responses": ok(json!({"type": "object", "properties": {
                    "snapshot_id": {"type": "string"}}}))}},
        "/browse/new-releases": {"get": {"parameters": [limit, offset],
            "responses": ok(json!({"type": "object", "properties": {
                "albums": page_of(album)}}))}}
    }})
}

fn book() -> Arc<ApiBook> {
    book_of(&music())
}

/// The text of every request the model received.
pub(crate) fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| format!("{r:?}")).collect()
}

/// The draft a fill prompt (as recorded by [`prompts`]) shows.
pub(crate) fn drafted(prompt: &str) -> Value {
    let draft = prompt
        .split("Draft response:\\n")
        .nth(1)
        .and_then(|rest| rest.split("\\n").next())
        .expect("a draft in the prompt")
        .replace("\\\"", "\"");
    serde_json::from_str(&draft).expect("the draft is JSON")
}

/// The paging numbers of the pages (`albums`, `tracks`) in the draft a fill prompt shows.
fn drafted_totals(prompt: &str) -> Vec<u64> {
    let draft = drafted(prompt);
    let pages = draft.as_object().expect("an object");
    pages.values().filter_map(|p| p["total"].as_u64()).collect()
}

/// A search by name drafts a few pages' worth of results, not thousands: the model filling
/// it saw 9,168 albums for "Mojito". Spotify writes its search's `q` as `"required": "true"`,
/// which the importer read as optional, so the search was taken for a catalog-wide list.
#[tokio::test]
async fn a_search_by_name_is_drafted_with_a_few_pages_of_results() {
    let book = book();
    let search = op(&book, "GET", "/search");
    let llm = Arc::new(ScriptedLlm::new(
        (0..6).map(|_| Reply::text("{}")).collect::<Vec<_>>(),
    ));
    let sim = filling(&book, &llm);
    for q in [
        "Mojito",
        "Maroon 5",
        "Miles Davis",
        "Bohemian Rhapsody",
        "Abbey Road",
        "Doxy",
    ] {
        let args = json!({"q": q, "type": ["album", "artist"]});
        sim.call(&search, &args).await.unwrap();
    }
    let prompts = prompts(&llm);
    assert_eq!(prompts.len(), 6);
    for prompt in &prompts {
        let totals = drafted_totals(prompt);
        assert_eq!(totals.len(), 2, "{prompt}");
        assert!(totals.iter().all(|t| *t <= 60), "{totals:?}");
    }
}

/// The call's own page of a body: the root, or its one page (`albums` of new releases).
fn own_page(body: &Value) -> &Value {
    if body.get("items").is_some() {
        body
    } else {
        body.as_object()
            .and_then(|m| m.values().find(|v| v.get("items").is_some()))
            .expect("a page")
    }
}

/// A page claiming `total` results, showing `n` items (from `offset`).
fn page(total: u64, offset: u64, n: u64) -> Value {
    let items: Vec<Value> = (offset..offset + n)
        .map(|i| {
            json!({"added_at": "2024-01-01", "album": {"id": format!("a{i}"),
            "name": format!("Album {i}")}, "track": {"id": format!("t{i}"),
            "name": format!("Track {i}")}})
        })
        .collect();
    json!({"items": items, "total": total, "limit": 20, "offset": offset, "href": "",
        "next": null, "previous": null})
}

/// The user's own saved albums count tens, in the draft the model is shown and in the
/// answer (a model's 3,184 is held to the bound), while a catalog-wide list (new releases)
/// keeps the thousands the model gave it.
#[tokio::test]
async fn the_users_own_list_counts_tens_and_a_catalog_list_its_thousands() {
    let book = book();
    let saved = op(&book, "GET", "/me/albums");
    let releases = op(&book, "GET", "/browse/new-releases");
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(page(3184, 0, 20).to_string()),
        Reply::text(page(3184, 40, 20).to_string()),
        Reply::text(json!({"albums": page(9000, 0, 20)}).to_string()),
    ]));
    let sim = filling(&book, &llm);
    let calls = [
        (&saved, json!({})),
        (&saved, json!({"offset": 40})),
        (&releases, json!({})),
    ];
    let mut totals = Vec::new();
    for (api, args) in calls {
        let got = sim.call(api, &args).await.unwrap();
        totals.push(
            own_page(got.body.json().unwrap())["total"]
                .as_u64()
                .unwrap(),
        );
    }
    let prompts = prompts(&llm);
    for prompt in &prompts[..2] {
        let drafted = drafted_page_total(prompt);
        assert!(
            (1..=60).contains(&drafted),
            "drafted {drafted} saved albums"
        );
    }
    assert_eq!(totals, [50, 60, 9000], "{totals:?}");
}

/// The total of the page a fill prompt's draft shows (its root's, or its one page's).
fn drafted_page_total(prompt: &str) -> u64 {
    own_page(&drafted(prompt))["total"]
        .as_u64()
        .expect("a total")
}

/// A playlist the session showed with 34 tracks lists 34 tracks: its tracks' draft counts
/// them (20 on the first page, 14 on the second) and a model's 8,485 is held to them; once
/// tracks are removed, the count is forgotten (the next read tells the new one).
#[tokio::test]
async fn a_playlist_shown_with_34_tracks_lists_34() {
    let book = book();
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let tracks = op(&book, "GET", "/playlists/{playlist_id}/tracks");
    let remove = op(&book, "DELETE", "/playlists/{playlist_id}/tracks");
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(
            json!({"id": "p1", "name": "Road trip", "snapshot_id": "MTAsZDVm",
            "tracks": {"href": "", "total": 34}})
            .to_string(),
        ),
        Reply::text(page(8485, 0, 20).to_string()),
        Reply::text(page(8485, 20, 20).to_string()),
        Reply::text(json!({"snapshot_id": "MTEsYWJj"}).to_string()),
        Reply::text(page(8485, 0, 20).to_string()),
    ]));
    let sim = filling(&book, &llm);
    let p1 = json!({"playlist_id": "p1"});
    sim.call(&read, &p1).await.unwrap();
    let first = sim.call(&tracks, &p1).await.unwrap();
    let second = sim
        .call(&tracks, &json!({"playlist_id": "p1", "offset": 20}))
        .await
        .unwrap();
    let body = |o: &toolsmith_exec::Observation| o.body.json().cloned().unwrap();
    let (first, second) = (body(&first), body(&second));
    assert_eq!(first["total"], 34, "{first}");
    assert_eq!(second["total"], 34);
    assert_eq!(second["items"].as_array().map(Vec::len), Some(14));
    let prompts = prompts(&llm);
    assert_eq!(drafted_page_total(&prompts[1]), 34);
    assert_eq!(drafted_page_total(&prompts[2]), 34);
    assert!(prompts[2].contains("\\\"offset\\\":20"), "{}", prompts[2]);
    sim.call(
        &remove,
        &json!({"playlist_id": "p1", "tracks": [{"uri": "t1"}]}),
    )
    .await
    .unwrap();
    let after = sim.call(&tracks, &p1).await.unwrap();
    assert_eq!(
        body(&after)["total"],
        50,
        "a count from before the removal is no fact"
    );
}

/// A playlist read after its tracks were removed shows the new `snapshot_id` the removal
/// answered, in the draft its model is shown and in the answer, though the model copies
/// the one it was read with before; a change answering no body moves it on too.
#[tokio::test]
async fn a_removal_moves_the_playlist_to_a_new_snapshot() {
    let book = book();
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let remove = op(&book, "DELETE", "/playlists/{playlist_id}/tracks");
    let rename = op(&book, "PUT", "/playlists/{playlist_id}");
    let old = "MTAsZDVmZDQ2OWE5";
    let playlist = json!({"id": "p1", "name": "Road trip", "snapshot_id": old,
        "tracks": {"href": "", "total": 34}});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(playlist.to_string()),
        Reply::text(json!({"snapshot_id": old}).to_string()),
        Reply::text(playlist.to_string()),
        // The rename documents no body: it is answered without the model.
        Reply::text(playlist.to_string()),
    ]));
    let sim = filling(&book, &llm);
    let p1 = json!({"playlist_id": "p1"});
    let snapshot = |o: &toolsmith_exec::Observation| o.body.json().unwrap()["snapshot_id"].clone();
    assert_eq!(snapshot(&sim.call(&read, &p1).await.unwrap()), old);
    let removed = sim
        .call(
            &remove,
            &json!({"playlist_id": "p1", "tracks": [{"uri": "t1"}]}),
        )
        .await
        .unwrap();
    let new = snapshot(&removed);
    assert_ne!(new, old);
    let again = sim.call(&read, &p1).await.unwrap();
    assert_eq!(snapshot(&again), new, "{again:?}");
    let prompts = prompts(&llm);
    let new_text = new.as_str().unwrap();
    assert!(
        prompts[2].contains(new_text) && !prompts[2].contains(old),
        "{}",
        prompts[2]
    );
    sim.call(
        &rename,
        &json!({"playlist_id": "p1", "name": "Road trip 2"}),
    )
    .await
    .unwrap();
    let renamed = snapshot(&sim.call(&read, &p1).await.unwrap());
    assert!(renamed != new && renamed != old, "{renamed}");
}

/// A read naming the fields it wants (`fields=...`, Spotify's filter) answers only those,
/// while the session keeps the whole playlist (a later read without the filter shows it).
#[tokio::test]
async fn a_fields_filter_keeps_only_the_fields_it_names() {
    let book = book();
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let playlist = json!({"id": "p1", "name": "Road trip", "description": "Songs",
        "snapshot_id": "MTAsZDVm", "owner": {"id": "u1", "display_name": "Ann"},
        "tracks": {"href": "", "total": 34}});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(playlist.to_string()),
        Reply::text(playlist.to_string()),
    ]));
    let sim = filling(&book, &llm);
    let args = json!({"playlist_id": "p1", "fields": "name,owner.display_name,tracks(total)"});
    let got = sim.call(&read, &args).await.unwrap();
    assert_eq!(
        got.body.json().unwrap(),
        &json!({"name": "Road trip", "owner": {"display_name": "Ann"},
            "tracks": {"total": 34}})
    );
    let whole = sim
        .call(&read, &json!({"playlist_id": "p1"}))
        .await
        .unwrap();
    assert_eq!(whole.body.json().unwrap()["description"], "Songs");
}

/// TMDB types `next_episode_to_air` only as `{"nullable": true}`; its twin
/// `last_episode_to_air` is an episode. The draft of a show drew a word there, which the
/// filling model kept: it is now an episode, as its twin is.
#[tokio::test]
async fn an_untyped_field_takes_the_shape_of_its_twin() {
    let book = crate::tmdb();
    let show = op(&book, "GET", "/tv/{tv_id}");
    let sim = toolsmith_exec::Simulator::new(Arc::clone(&book));
    for id in [1399, 1396, 66732] {
        let got = sim.call(&show, &json!({"tv_id": id})).await.unwrap();
        let next = &got.body.json().unwrap()["next_episode_to_air"];
        assert!(
            next.get("episode_number").is_some_and(Value::is_number)
                && next.get("air_date").is_some_and(Value::is_string),
            "{next}"
        );
    }
}

/// TMDB documents trending as films only; trending TV is drafted with a show's keys (`name`,
/// `first_air_date`), as the tool's own lists of shows give them, and trending films keep
/// a film's.
#[tokio::test]
async fn trending_tv_is_drafted_with_a_shows_keys() {
    let book = crate::tmdb();
    let trending = op(&book, "GET", "/trending/{media_type}/{time_window}");
    let sim = toolsmith_exec::Simulator::new(Arc::clone(&book));
    let first = |media: &str| {
        let args = json!({"media_type": media, "time_window": "week"});
        let sim = sim.clone();
        let trending = trending.clone();
        async move {
            let got = sim.call(&trending, &args).await.unwrap();
            got.body.json().unwrap()["results"][0].clone()
        }
    };
    let show = first("tv").await;
    assert!(
        show.get("name").is_some() && show.get("first_air_date").is_some(),
        "{show}"
    );
    assert!(
        show.get("title").is_none() && show.get("release_date").is_none(),
        "{show}"
    );
    let film = first("movie").await;
    assert!(
        film.get("title").is_some() && film.get("name").is_none(),
        "{film}"
    );
}

/// A search whose `q` description names a field of the results (Spotify's mentions
/// popularity), and a playlist's tracks with a fields selector whose description names
/// `track` and `total`: neither is a filter on what the items hold.
fn described_search() -> Value {
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    let page = |item: Value| {
        json!({"type": "object", "properties": {"href": {"type": "string"},
        "limit": {"type": "integer"}, "offset": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "total": {"type": "integer"},
        "items": {"type": "array", "items": item}}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://music.example/v1"}],
        "paths": {
        "/search": {"get": {"parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}},
            {"name": "q", "in": "query", "required": true, "schema": {"type": "string",
                "description": "Search words. The tag:hipster filter keeps albums of the \
                lowest popularity."}}],
            "responses": ok(json!({"type": "object", "properties": {"albums": page(json!(
                {"type": "object", "properties": {"id": {"type": "string"},
                "name": {"type": "string"}, "popularity": {"type": "integer"}}}))}}))}},
        "/playlists/{playlist_id}/tracks": {"get": {"parameters": [
            {"name": "playlist_id", "in": "path", "required": true,
                "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}},
            {"name": "fields", "in": "query", "schema": {"type": "string"}, "description":
                "The fields to return, e.g. total,items(track(name))."}],
            "responses": ok(page(json!({"type": "object", "properties": {
                "added_at": {"type": "string"}, "track": {"type": "object", "properties": {
                    "id": {"type": "string"}, "name": {"type": "string"}}}}})))}}
    }})
}

/// Stand-ins filling Spotify saw `"popularity": "album:Mojito"` and `"track": "total"`: the
/// search words and the fields selector were read as item filters and forced into the
/// fields their descriptions name, whatever the type.
#[tokio::test]
async fn search_words_and_a_fields_selector_never_fill_item_fields() {
    let book = book_of(&described_search());
    let sim = toolsmith_exec::Simulator::new(Arc::clone(&book));
    let search = op(&book, "GET", "/search");
    let got = sim
        .call(&search, &json!({"q": "album:Mojito"}))
        .await
        .unwrap();
    let items = got.body.json().unwrap()["albums"]["items"].clone();
    let items = items.as_array().expect("a list of albums");
    assert!(!items.is_empty());
    for item in items {
        assert!(item["popularity"].is_u64(), "{item}");
    }
    let tracks = op(&book, "GET", "/playlists/{playlist_id}/tracks");
    let got = sim
        .call(
            &tracks,
            &json!({"playlist_id": "p1", "fields": "total,items(track(name))"}),
        )
        .await
        .unwrap();
    let items = got.body.json().unwrap()["items"].clone();
    for item in items.as_array().expect("a list of items") {
        assert!(item["track"].is_object(), "{item}");
    }
}
