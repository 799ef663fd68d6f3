//! A cut view keeps the ids of the entities nested in its items (an album's `artists[].id`,
//! which the next call takes), ranks opaque version tokens (`snapshot_id`) below content such
//! as a playlist's `tracks.total`, and shows no empty list or object. The fixtures are
//! Spotify-shaped, written from the shapes the stand-in models were shown, with invented
//! values.

use serde_json::{Value, json};
use toolsmith_exec::compact::{Hints, compact_with, emptied_objects, left_out};

/// The default budget of a view.
const BUDGET: usize = 1024;

/// A 22-character Spotify-like id, distinct per `kind` and `i`.
fn spotify_id(kind: char, i: usize) -> String {
    format!("{kind}{i:02}hK3wQ9zLm2Vb7Xc4Tn8Rp")
        .chars()
        .take(22)
        .collect()
}

/// The markets a Spotify object is available in (a long list of codes).
fn markets() -> Vec<&'static str> {
    vec![
        "AD", "AE", "AG", "AL", "AM", "AO", "AR", "AT", "AU", "AZ", "BA", "BB", "BD", "BE", "BF",
        "BG", "BH", "BI", "BJ", "BN", "BO", "BR", "BS", "BT", "BW", "BY", "BZ", "CA", "CD", "CG",
    ]
}

/// Spotify's three sizes of an image of the entity `id`.
fn images(id: &str) -> Value {
    let sizes = [640, 300, 64].iter().map(|s| {
        json!({"height": s, "width": s, "url": format!("https://i.scdn.co/image/ab67616d0000{s}{id}")})
    });
    Value::Array(sizes.collect())
}

/// A simplified artist, as Spotify nests it in albums and tracks.
fn artist(id: &str, name: &str) -> Value {
    json!({
        "external_urls": {"spotify": format!("https://open.spotify.com/artist/{id}")},
        "href": format!("https://api.spotify.com/v1/artists/{id}"),
        "id": id, "name": name, "type": "artist", "uri": format!("spotify:artist:{id}")
    })
}

/// `GET /search?type=album`: a page of three simplified albums (the shape of the stand-ins'
/// "Mojito" search).
fn album_search() -> Value {
    let items: Vec<Value> = (0..3)
        .map(|i| {
            let id = spotify_id('A', i);
            json!({
                "album_type": if i == 0 { "single" } else { "compilation" },
                "artists": [artist(&spotify_id('R', i), &format!("Performer {i}"))],
                "available_markets": markets(),
                "external_urls": {"spotify": format!("https://open.spotify.com/album/{id}")},
                "href": format!("https://api.spotify.com/v1/albums/{id}"), "id": id,
                "images": images(&id),
                "name": format!("Lagoon Song {i}"),
                "release_date": format!("201{i}-06-12"), "release_date_precision": "day",
                "total_tracks": 1 + i, "type": "album", "uri": format!("spotify:album:{id}")
            })
        })
        .collect();
    json!({"error": "", "response": {"albums": {
        "href": "https://api.spotify.com/v1/search?query=lagoon&type=album&offset=0&limit=5",
        "items": items, "limit": 5, "next": null, "offset": 0, "previous": null, "total": 3}}})
}

/// `GET /me/playlists`: a page of simplified playlists, each with a long `snapshot_id` and its
/// `tracks: {href, total}`.
fn playlists(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            let id = spotify_id('P', i);
            json!({
                "collaborative": false, "description": format!("Songs for day {i}"),
                "external_urls": {"spotify": format!("https://open.spotify.com/playlist/{id}")},
                "href": format!("https://api.spotify.com/v1/playlists/{id}"), "id": id,
                "images": [], "name": format!("Mix {i}"),
                "owner": {"display_name": "Robin", "id": "robin.k",
                          "href": "https://api.spotify.com/v1/users/robin.k", "type": "user",
                          "uri": "spotify:user:robin.k",
                          "external_urls": {"spotify": "https://open.spotify.com/user/robin.k"}},
                "public": true,
                "snapshot_id": format!("MTcsZDQ1ZjE4YzA5NjRkOGE3ZTc2YmQzYjA0NjU0MmY3ZWE0{i}Mjc2"),
                "tracks": {"href": format!("https://api.spotify.com/v1/playlists/{id}/tracks"),
                           "total": 10 + 7 * i},
                "type": "playlist", "uri": format!("spotify:playlist:{id}")
            })
        })
        .collect();
    json!({"error": "", "response": {
        "href": "https://api.spotify.com/v1/me/playlists?offset=0&limit=20", "items": items,
        "limit": 20, "next": null, "offset": 0, "previous": null, "total": n}})
}

/// `GET /artists/{id}/related-artists`: artists without images, with followers and genres.
fn related_artists(n: usize) -> Value {
    let artists: Vec<Value> = (0..n)
        .map(|i| {
            let id = spotify_id('R', i);
            let mut one = artist(&id, &format!("Band {i}"));
            let map = one.as_object_mut().unwrap();
            map.insert("images".into(), json!([]));
            map.insert("genres".into(), json!(["indie pop", "dream pop"]));
            map.insert("followers".into(), json!({"href": null, "total": 1200 + i}));
            map.insert("popularity".into(), json!(40 + i));
            one
        })
        .collect();
    json!({"error": "", "response": {"artists": artists}})
}

/// The view of `value` for `endpoint` and `task` at the default budget.
fn view(value: &Value, endpoint: &str, task: &str) -> (String, Value) {
    view_in(value, endpoint, task, BUDGET)
}

/// The view of `value` for `endpoint` and `task` in `room` characters: it fits, stays JSON and
/// empties no object.
fn view_in(value: &Value, endpoint: &str, task: &str, room: usize) -> (String, Value) {
    let hints = Hints {
        endpoint: Some(endpoint),
        task: Some(task),
        ..Hints::default()
    };
    let text = compact_with(value, hints, room);
    assert!(text.chars().count() <= room, "{text}");
    assert_eq!(emptied_objects(value, &text), 0, "{text}");
    (text.clone(), serde_json::from_str(&text).unwrap())
}

/// The objects of a compacted list (not its note of items left out).
fn shown(list: &Value) -> Vec<&Value> {
    list.as_array()
        .map(|items| items.iter().filter(|v| v.is_object()).collect())
        .unwrap_or_default()
}

/// Rooms a view is given: the default budget, and what is left of it beside the `cut` note a
/// solver adds (about 700 characters for the stand-ins' search page).
const ROOMS: [usize; 3] = [BUDGET, 768, 700];

#[test]
fn a_searched_albums_artists_keep_their_ids() {
    let value = album_search();
    assert!(value.to_string().chars().count() > 3 * BUDGET);
    for room in ROOMS {
        let (text, back) = view_in(
            &value,
            "/search",
            "Follow the artist of the album Lagoon Song 0",
            room,
        );
        let albums = shown(&back["response"]["albums"]["items"]);
        assert_eq!(albums.len(), 3, "{text}");
        for (i, album) in albums.iter().enumerate() {
            let artists = shown(&album["artists"]);
            assert!(!artists.is_empty(), "{text}");
            assert_eq!(
                artists[0]["id"],
                json!(spotify_id('R', i)),
                "{room}: {text}"
            );
            assert_eq!(
                artists[0]["name"],
                json!(format!("Performer {i}")),
                "{text}"
            );
        }
        let out = left_out(&value.to_string(), &text);
        assert!(out.fields.iter().all(|f| !f.ends_with(".id")), "{out}");
    }
}

#[test]
fn a_playlists_track_count_comes_before_its_snapshot_id() {
    let value = playlists(6);
    let (text, back) = view(
        &value,
        "/me/playlists",
        "How many tracks are in my playlist Mix 2?",
    );
    let items = shown(&back["response"]["items"]);
    assert!(!items.is_empty(), "{text}");
    for item in &items {
        assert!(item["tracks"]["total"].is_u64(), "{text}");
    }
    let with_snapshot = items.iter().filter(|i| i.get("snapshot_id").is_some());
    let with_total = items.iter().filter(|i| i["tracks"]["total"].is_u64());
    assert!(with_total.count() >= with_snapshot.count(), "{text}");
}

#[test]
fn a_playlists_snapshot_id_is_not_kept_as_identity() {
    let value = playlists(6);
    let (text, back) = view(&value, "/me/playlists", "Add a song to my playlist Mix 2");
    let items = shown(&back["response"]["items"]);
    assert!(items.len() >= 2, "{text}");
    assert!(
        items.iter().all(|i| i.get("snapshot_id").is_none()),
        "{text}"
    );
    assert!(items.iter().all(|i| i["id"].is_string()), "{text}");
}

#[test]
fn an_artist_without_images_shows_no_images() {
    let value = related_artists(6);
    let (text, back) = view(
        &value,
        "/artists/{id}/related-artists",
        "Who is like Band 0?",
    );
    assert!(
        text.chars().count() < value.to_string().chars().count(),
        "{text}"
    );
    let artists = shown(&back["response"]["artists"]);
    assert!(!artists.is_empty(), "{text}");
    for artist in artists {
        assert!(artist.get("images").is_none(), "{text}");
        assert!(artist["id"].is_string(), "{text}");
    }
    // An empty list says nothing, so leaving it out is not news to the agent.
    let out = left_out(&value.to_string(), &text);
    assert!(out.fields.iter().all(|f| !f.contains("images")), "{out}");
}
