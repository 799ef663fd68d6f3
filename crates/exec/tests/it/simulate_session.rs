//! One session, one world (issue 27): the account's owner is one user, whichever of
//! their profile and their own things the session shows first; calls made together
//! are answered one after the other, the later seeing what the earlier showed, while
//! other sessions go on meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolsmith_exec::{
    ApiBook, Executor, Fill, OracleAsk, ResponseOracle, Simulator, SimulatorSettings,
};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A `200` response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A Spotify-shaped music API written for these tests: the current user's profile, their
/// playlists (each with an `owner`), and any user's profile.
fn music_spec() -> Value {
    let user = json!({"type": "object", "properties": {"id": {"type": "string"},
        "display_name": {"type": "string"}, "uri": {"type": "string"},
        "href": {"type": "string"}, "type": {"type": "string"}}});
    let playlist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "owner": user}});
    let page = json!({"type": "object", "properties": {"href": {"type": "string"},
        "items": {"type": "array", "items": playlist}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
        "total": {"type": "integer"}}});
    let query = |name: &str| json!({"name": name, "in": "query", "schema": {"type": "integer"}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.music.example/v1"}],
        "paths": {
            "/me": {"get": {"summary": "Get Current User's Profile", "responses": ok(user.clone())}},
            "/search": {"get": {"summary": "Search for playlists by name",
                "parameters": [{"name": "q", "in": "query", "required": true,
                    "schema": {"type": "string"}}],
                "responses": ok(json!({"type": "object", "properties": {"playlists": page}}))}},
            "/me/playlists": {"get": {"summary": "Get Current User's Playlists",
                "parameters": [query("limit"), query("offset")], "responses": ok(page)}},
            "/users/{user_id}/playlists": {"post": {"summary": "Create Playlist",
                "description": "Creates a playlist for a user. Needs user_id (the current \
                    user's id, from the current-user profile call) and a name.",
                "parameters": [{"name": "user_id", "in": "path", "required": true,
                    "schema": {"type": "string"}}],
                "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}}},
                "responses": {"201": {"description": "created",
                    "content": {"application/json": {"schema": playlist.clone()}}}}}},
            "/users/{user_id}": {"get": {"summary": "Get User's Profile",
                "parameters": [{"name": "user_id", "in": "path", "required": true,
                    "schema": {"type": "string"}}],
                "responses": ok(user)}}}})
}

/// The owners of the playlists of a `/me/playlists` page.
fn owners(page: &Value) -> Vec<Value> {
    let items = page["items"].as_array().unwrap();
    assert!(!items.is_empty(), "{page:#}");
    items.iter().map(|p| p["owner"].clone()).collect()
}

/// The current user's profile, as the simulator answers `GET /me`.
async fn profile<E: Executor + ?Sized>(sim: &E, book: &ApiBook) -> Value {
    let me = sim.call(&op(book, "GET", "/me"), &json!({})).await.unwrap();
    me.body.json().unwrap().clone()
}

/// Asserts that every owner is the user `me` (id, name and links).
fn all_owned_by(owners: &[Value], me: &Value) {
    let id = me["id"].as_str().unwrap();
    for owner in owners {
        assert_eq!(owner["id"], me["id"], "{owner:#} is not {me:#}");
        assert_eq!(owner["display_name"], me["display_name"], "{owner:#}");
        assert!(owner["uri"].as_str().unwrap().contains(id), "{owner:#}");
    }
}

/// The user's playlists shown first fix who the user is: the profile read next is
/// their owner.
#[tokio::test]
async fn the_profile_is_the_owner_of_the_playlists_shown_before() {
    let book = book_of(&music_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let playlists = sim
        .call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 5}))
        .await
        .unwrap();
    let owners = owners(playlists.body.json().unwrap());
    let me = profile(&sim, &book).await;
    all_owned_by(&owners, &me);
}

/// The profile shown first fixes who the user is: their playlists read next are theirs;
/// another user's profile is that user's.
#[tokio::test]
async fn the_playlists_read_after_the_profile_are_owned_by_it() {
    let book = book_of(&music_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let me = profile(&sim, &book).await;
    let playlists = sim
        .call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 5}))
        .await
        .unwrap();
    all_owned_by(&owners(playlists.body.json().unwrap()), &me);
    let other = sim
        .call(
            &op(&book, "GET", "/users/{user_id}"),
            &json!({"user_id": "zed"}),
        )
        .await
        .unwrap();
    assert_eq!(other.body.json().unwrap()["id"], "zed");
}

/// With a model filling the values: the owner it gave the playlists is told to the
/// profile's fill, and the profile keeps that user whatever the model writes.
#[tokio::test]
async fn a_filled_profile_agrees_with_the_owner_the_model_gave_the_playlists() {
    let book = book_of(&music_spec());
    let owner = json!({"id": "jdoe", "display_name": "Jo Doe",
        "uri": "spotify:user:jdoe", "href": "https://api.music.example/v1/users/jdoe",
        "type": "user"});
    let page = json!({"href": "x", "limit": 2, "offset": 0, "next": null, "total": 2,
        "items": [{"id": "p1", "name": "Road trip", "owner": owner},
                  {"id": "p2", "name": "Focus", "owner": owner}]});
    let stranger = json!({"id": "u999", "display_name": "Someone Else",
        "uri": "spotify:user:u999", "href": "https://api.music.example/v1/users/u999",
        "type": "user"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(page.to_string()),
        Reply::text(stranger.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 2}))
        .await
        .unwrap();
    let me = profile(&sim, &book).await;
    assert_eq!(
        (&me["id"], &me["display_name"]),
        (&json!("jdoe"), &json!("Jo Doe")),
        "{me:#}"
    );
    assert_eq!(me["uri"], "spotify:user:jdoe", "{me:#}");
    let asked = llm.requests()[1].messages[0].text().to_owned();
    assert!(
        asked.contains(r#"{"current_user":{"display_name":"Jo Doe","id":"jdoe"}}"#),
        "{asked}"
    );
    assert!(
        asked.contains(r#""id":"jdoe""#),
        "the draft carries the user: {asked}"
    );
}

/// A call whose doc says where an input comes from ("the current user's id, from the
/// profile call") is not about the current user: the playlist it creates keeps an id of
/// its own and is not stamped with its owner's (Spotify's create-playlist under EasyTool's
/// doc once answered a playlist whose id was the user's).
#[tokio::test]
async fn a_created_playlist_is_not_the_user_its_doc_names() {
    let book = book_of(&music_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let me = profile(&sim, &book).await;
    let created = sim
        .call(
            &op(&book, "POST", "/users/{user_id}/playlists"),
            &json!({"user_id": me["id"], "name": "Love Taylor"}),
        )
        .await
        .unwrap();
    let playlist = created.body.json().unwrap();
    assert_eq!(playlist["name"], "Love Taylor", "{playlist:#}");
    assert_ne!(playlist["id"], me["id"], "{playlist:#}");
}

/// A user of the music API, as a model writes one.
fn user(id: &str, name: &str) -> Value {
    json!({"id": id, "display_name": name, "uri": format!("spotify:user:{id}"),
        "href": format!("https://api.music.example/v1/users/{id}"), "type": "user"})
}

/// A search that shows the playlist the task names as the user's own fixes who the user
/// is: the profile read next is that playlist's owner, whatever the model writes, and a
/// later search's fill is told the user (Spotify's "Append ... to my 'My Rock' playlist",
/// where the profile named another user and the agent found only strangers' playlists).
/// A public playlist whose name merely occurs in the task ("Rock") says nothing of whose
/// it is; only the quoted name does.
#[tokio::test]
async fn the_owner_of_the_thing_the_task_calls_the_users_own_is_the_user() {
    let book = book_of(&music_spec());
    let found = |items: Value| {
        json!({"playlists": {"href": "x", "limit": 2, "offset": 0,
        "next": null, "total": 2, "items": items}})
    };
    let search = found(json!([
        {"id": "p9", "name": "Rock", "owner": user("u9", "Sam Taylor")},
        {"id": "p1", "name": "My Rock", "owner": user("alex", "Alex Morgan")}]));
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(search.to_string()),
        Reply::text(user("chris", "Chris Walker").to_string()),
        Reply::text(found(json!([])).to_string()),
    ]));
    let sim = filling(&book, &llm)
        .fork_for(Some("Append a song to my 'My Rock' playlist"))
        .unwrap();
    let searching = op(&book, "GET", "/search");
    sim.call(&searching, &json!({"q": "My Rock"}))
        .await
        .unwrap();
    let me = profile(&*sim, &book).await;
    assert_eq!(
        (&me["id"], &me["display_name"]),
        (&json!("alex"), &json!("Alex Morgan")),
        "{me:#}"
    );
    sim.call(&searching, &json!({"q": "rock"})).await.unwrap();
    let asked = llm.requests()[2].messages[0].text().to_owned();
    assert!(
        asked.contains(r#"{"current_user":{"display_name":"Alex Morgan","id":"alex"}}"#),
        "{asked}"
    );

    // Without a task naming it, a search fixes no one: the profile is the model's.
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(search.to_string()),
        Reply::text(user("chris", "Chris Walker").to_string()),
    ]));
    let sim = filling(&book, &llm)
        .fork_for(Some("Find rock playlists"))
        .unwrap();
    sim.call(&searching, &json!({"q": "rock"})).await.unwrap();
    assert_eq!(profile(&*sim, &book).await["id"], "chris");
}

/// An artist and their albums, written for these tests.
fn artists_spec() -> Value {
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "followers": {"type": "object",
            "properties": {"total": {"type": "integer"}}}}});
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let id = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "paths": {
            "/artists/{id}": {"get": {"parameters": id, "responses": ok(artist)}},
            "/artists/{id}/albums": {"get": {"parameters": id,
                "responses": ok(json!({"type": "object", "properties": {
                    "items": {"type": "array", "items": album}}}))}}}})
}

/// Two calls of one session made together: the second is answered after the first, and
/// its fill prompt lists what the first showed (the artist's name and followers).
#[tokio::test]
async fn calls_made_together_are_answered_in_turn() {
    let book = book_of(&artists_spec());
    let artist = json!({"id": "a1", "name": "The Beatles", "followers": {"total": 4321}});
    // The model takes a moment, so that the second call arrives while the first waits.
    let llm = Arc::new(
        ScriptedLlm::new([Reply::text(artist.to_string()), Reply::text("{}")])
            .with_delay(Duration::from_millis(5)),
    );
    let sim = filling(&book, &llm)
        .fork_for(Some("Who are the Beatles?"))
        .unwrap();
    let args = json!({"id": "a1"});
    let (detail, albums) = (
        op(&book, "GET", "/artists/{id}"),
        op(&book, "GET", "/artists/{id}/albums"),
    );
    let (first, second) = tokio::join!(sim.call(&detail, &args), sim.call(&albums, &args));
    assert_eq!(first.unwrap().body.json(), Some(&artist));
    assert!(second.unwrap().is_ok());
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let asked = requests[1].messages[0].text();
    assert!(
        asked.contains(r#""followers.total":4321"#) && asked.contains("The Beatles"),
        "{asked}"
    );
}

/// An oracle whose first request waits until a second one arrives (up to a deadline that
/// only guards against a hang), answering `{}` (the draft) to both.
#[derive(Default)]
struct Rendezvous {
    asked: AtomicUsize,
    second: Notify,
}

#[async_trait]
impl ResponseOracle for Rendezvous {
    async fn respond(&self, _ask: &OracleAsk<'_>) -> Result<Value, String> {
        if self.asked.fetch_add(1, Ordering::SeqCst) == 0 {
            tokio::time::timeout(Duration::from_secs(20), self.second.notified())
                .await
                .map_err(|_| "no second request came while the first waited".to_owned())?;
        } else {
            self.second.notify_one();
        }
        Ok(json!({}))
    }
}

/// Sessions do not wait for one another: a call of one session is answered while a call
/// of another is still being filled; nor do the unrelated callers sharing the simulator
/// itself (a refiner's APIs, refined concurrently).
#[tokio::test]
async fn other_sessions_are_answered_meanwhile() {
    let book = book_of(&artists_spec());
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    let api = op(&book, "GET", "/artists/{id}");
    let (a1, b2) = (json!({"id": "a1"}), json!({"id": "b2"}));
    for forked in [true, false] {
        let oracle = Arc::new(Rendezvous::default());
        let sim: Arc<dyn Executor> = Arc::new(
            Simulator::with_settings(Arc::clone(&book), &settings).with_oracle(oracle.clone()),
        );
        let (one, two) = if forked {
            (
                sim.fork_for(Some("one")).unwrap(),
                sim.fork_for(Some("two")).unwrap(),
            )
        } else {
            (Arc::clone(&sim), sim)
        };
        let (a, b) = tokio::join!(one.call(&api, &a1), two.call(&api, &b2));
        assert!(a.unwrap().is_ok() && b.unwrap().is_ok(), "forked: {forked}");
        assert_eq!(oracle.asked.load(Ordering::SeqCst), 2);
    }
}

/// A Spotify-shaped player written for these tests: the user's devices, and what plays
/// on which device.
fn player_spec() -> Value {
    let device = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "is_active": {"type": "boolean"},
        "type": {"type": "string"}}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "paths": {
            "/me/player/devices": {"get": {"summary": "Get Available Devices",
                "responses": ok(json!({"type": "object", "properties": {
                    "devices": {"type": "array", "items": device}}}))}},
            "/me/player": {"get": {"summary": "Get Playback State",
                "responses": ok(json!({"type": "object", "properties": {
                    "device": device, "is_playing": {"type": "boolean"}}}))}}}})
}

/// The user's devices listed a call ago are recalled by the player's call, which names
/// no device: the active device it reports can be the one listed.
#[tokio::test]
async fn the_player_is_told_the_devices_listed_before() {
    let book = book_of(&player_spec());
    let devices = json!({"devices": [
        {"id": "d1", "name": "Kitchen speaker", "is_active": true, "type": "Speaker"},
        {"id": "d2", "name": "Jo's phone", "is_active": false, "type": "Smartphone"}]});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(devices.to_string()),
        Reply::text("{}"),
    ]));
    let sim = filling(&book, &llm)
        .fork_for(Some("What is playing?"))
        .unwrap();
    let (listed, player) = (
        op(&book, "GET", "/me/player/devices"),
        op(&book, "GET", "/me/player"),
    );
    let none = json!({});
    let (first, second) = tokio::join!(sim.call(&listed, &none), sim.call(&player, &none));
    assert!(first.unwrap().is_ok() && second.unwrap().is_ok());
    let asked = llm.requests()[1].messages[0].text().to_owned();
    for device in [r#""id":"d1""#, "Kitchen speaker", "Jo's phone"] {
        assert!(asked.contains(device), "{device}: {asked}");
    }
}
