//! What a cut view keeps for the next call, and what order it keeps: a playlist's tracks keep
//! the locator a next call takes (`uri`) before album-level numbers (`disc_number`), and a
//! copyright is not shown as a bare type code; "the first movie similar to X" keeps the API's
//! order, where "the first movie X directed" ranks by date. The fixtures are Spotify- and
//! TMDB-shaped with invented values.

use serde_json::{Value, json};
use toolsmith_exec::compact::{Hints, compact_with, emptied_objects};

/// The default budget of a view.
const BUDGET: usize = 1024;

/// The view of `value` at [`BUDGET`] for `hints`, parsed: it fits, stays JSON, empties no
/// object.
fn view(value: &Value, hints: Hints<'_>) -> (String, Value) {
    let text = compact_with(value, hints, BUDGET);
    assert!(text.chars().count() <= BUDGET, "{text}");
    assert_eq!(emptied_objects(value, &text), 0, "{text}");
    let back = serde_json::from_str(&text).unwrap();
    (text, back)
}

/// The objects of the list `value[field]`, the note aside.
fn objects(value: &Value, field: &str) -> Vec<Value> {
    value[field]
        .as_array()
        .unwrap_or_else(|| panic!("no list {field}: {value}"))
        .iter()
        .filter(|v| v.is_object())
        .cloned()
        .collect()
}

/// A Spotify object's links: its page, its API address and its locator.
fn links(kind: &str, id: &str) -> Value {
    json!({"external_urls": {"spotify": format!("https://open.spotify.com/{kind}/{id}")},
           "href": format!("https://api.spotify.com/v1/{kind}s/{id}"), "id": id,
           "type": kind, "uri": format!("spotify:{kind}:{id}")})
}

/// A 22-character Spotify-like id.
fn spotify_id(prefix: &str, i: usize) -> String {
    format!("{prefix}{i:02}Qz7WmKx3RtVb9Ln4Hc2J")[..22].to_owned()
}

/// `GET /playlists/{playlist_id}/tracks`: eight playlist items, each a track with its album
/// and artists, in Spotify's shape.
fn playlist_tracks() -> Value {
    let items: Vec<Value> = (0..8)
        .map(|i| {
            let mut artist = links("artist", &spotify_id("ar", i));
            artist["name"] = json!(format!("Invented Band {i}"));
            let mut album = links("album", &spotify_id("al", i));
            let images: Vec<Value> = [640, 300, 64]
                .iter()
                .map(|s| json!({"height": s, "url": format!("https://i.scdn.co/image/ab67616d0000{i:02}{s:04}"), "width": s}))
                .collect();
            for (field, value) in [
                ("album_type", json!("album")),
                ("artists", json!([artist.clone()])),
                ("available_markets", json!(["US", "GB", "DE", "FR", "JP"])),
                ("images", json!(images)),
                ("name", json!(format!("Made-up Record {i}"))),
                ("release_date", json!(format!("20{:02}-03-1{}", 10 + i, i % 10))),
                ("release_date_precision", json!("day")),
                ("total_tracks", json!(10 + i)),
            ] {
                album[field] = value;
            }
            let mut track = links("track", &spotify_id("tr", i));
            for (field, value) in [
                ("album", album),
                ("artists", json!([artist])),
                ("available_markets", json!(["US", "GB", "DE", "FR", "JP"])),
                ("disc_number", json!(1)),
                ("duration_ms", json!(200_000 + 1_000 * i)),
                ("explicit", json!(false)),
                ("external_ids", json!({"isrc": format!("USXX1{i:06}")})),
                ("is_local", json!(false)),
                ("name", json!(format!("Invented Song {i}"))),
                ("popularity", json!(60 + i)),
                ("preview_url", Value::Null),
                ("track_number", json!(i % 4 + 1)),
            ] {
                track[field] = value;
            }
            let mut added_by = links("user", "quietlistener");
            added_by.as_object_mut().unwrap().remove("name");
            json!({"added_at": format!("2024-0{}-0{}T10:00:00Z", i % 9 + 1, i % 9 + 1),
                   "added_by": added_by, "is_local": false, "track": track})
        })
        .collect();
    let base = "https://api.spotify.com/v1/playlists/pl00Qz7WmKx3RtVb9Ln4Hc/tracks";
    json!({"error": "", "response": {"href": format!("{base}?offset=0&limit=8"), "items": items,
           "limit": 8, "next": format!("{base}?offset=8&limit=8"), "offset": 0,
           "previous": null, "total": 23}})
}

#[test]
fn a_playlists_shown_tracks_keep_their_uri_before_their_disc_number() {
    let value = playlist_tracks();
    for task in [
        None,
        Some("Make a new playlist from the songs of my Road Trip playlist"),
    ] {
        let hints = Hints {
            endpoint: Some("/playlists/{playlist_id}/tracks"),
            task,
            ..Hints::default()
        };
        let (text, back) = view(&value, hints);
        let items = objects(&back["response"], "items");
        assert!(items.len() >= 2, "{text}");
        for (i, item) in items.iter().enumerate() {
            let whole = &value["response"]["items"][i]["track"];
            assert_eq!(item["track"]["uri"], whole["uri"], "{text}");
        }
    }
}

/// `GET /artists/{id}/top-tracks` as a stand-in simulator answered it: ten tracks, each on
/// disc 1 of its album, without play counts or durations.
fn top_tracks() -> Value {
    let tracks: Vec<Value> = playlist_tracks()["response"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(playlist_tracks()["response"]["items"].as_array().unwrap())
        .take(10)
        .enumerate()
        .map(|(i, item)| {
            let mut track = item["track"].clone();
            let id = spotify_id("tt", i);
            track["id"] = json!(id);
            track["uri"] = json!(format!("spotify:track:{id}"));
            track["name"] = json!(format!("Top Song {i}"));
            let map = track.as_object_mut().unwrap();
            for field in [
                "duration_ms",
                "popularity",
                "explicit",
                "is_local",
                "external_ids",
            ] {
                map.remove(field);
            }
            track
        })
        .collect();
    json!({"error": "", "response": {"tracks": tracks}})
}

#[test]
fn an_artists_top_tracks_show_their_number_and_uri_before_the_disc_they_are_on() {
    let value = top_tracks();
    let task = "Make a playlist of the top songs of Invented Band";
    let hints = Hints {
        endpoint: Some("/artists/{id}/top-tracks"),
        task: Some(task),
        ..Hints::default()
    };
    let (text, back) = view(&value, hints);
    let tracks = objects(&back["response"], "tracks");
    assert!(tracks.len() >= 2, "{text}");
    for (i, track) in tracks.iter().enumerate() {
        let whole = &value["response"]["tracks"][i];
        // The disc every track is on is never shown without the track's uri, and the track's
        // number on its album comes first.
        assert!(
            track.get("disc_number").is_none() || track["uri"] == whole["uri"],
            "{text}"
        );
        assert_eq!(track["track_number"], whole["track_number"], "{text}");
    }
}

#[test]
fn a_copyright_is_not_shown_as_a_bare_type_code() {
    let albums: Vec<Value> = (0..6)
        .map(|i| {
            let mut album = playlist_tracks()["response"]["items"][i]["track"]["album"].clone();
            album["copyrights"] = json!([{"text": format!("(C) 20{i:02} Invented Label"), "type": "C"},
                                         {"text": format!("(P) 20{i:02} Invented Label"), "type": "P"}]);
            album["label"] = json!("Invented Label");
            json!({"added_at": "2024-05-01T10:00:00Z", "album": album})
        })
        .collect();
    let value = json!({"error": "", "response": {"items": albums, "limit": 6, "next": null,
                        "offset": 0, "previous": null, "total": 6}});
    let hints = Hints {
        endpoint: Some("/me/albums"),
        ..Hints::default()
    };
    let (text, _) = view(&value, hints);
    assert!(!text.contains(r#"{"type":"C"}"#), "{text}");
    assert!(!text.contains(r#"{"type":"P"}"#), "{text}");
}

/// A TMDB page of `n` movies (`GET /movie/{movie_id}/similar`, or a person's crew credits with
/// `job`), most popular last and released in no order: movie `i` came out in `YEARS[i % 7]`.
fn movies(n: usize, job: Option<&str>) -> Vec<Value> {
    const YEARS: [usize; 7] = [2004, 1998, 2012, 2001, 2009, 1995, 2017];
    (0..n)
        .map(|i| {
            let mut movie = json!({
                "adult": false, "backdrop_path": format!("/bk{i}abcdefghijklmnop.jpg"),
                "genre_ids": [18, 10749], "id": 4100 + i, "original_language": "en",
                "original_title": format!("Invented Film {i}"),
                "overview": "Two strangers meet on a long voyage and nothing goes to plan. ".repeat(2),
                "popularity": 10.0 + i as f64, "poster_path": format!("/ps{i}qrstuvwxyzabcd.jpg"),
                "release_date": format!("{}-05-1{}", YEARS[i % 7], i % 10),
                "title": format!("Invented Film {i}"), "video": false,
                "vote_average": 6.5, "vote_count": 300 + i
            });
            if let Some(job) = job {
                movie["job"] = json!(job);
                movie["department"] = json!("Directing");
                movie["credit_id"] = json!(format!("52fe4{i:03}c3a36847f8"));
            }
            movie
        })
        .collect()
}

/// The ids of the shown objects of `list`, and its note.
fn ids_and_note(list: &Value) -> (Vec<i64>, String) {
    let items = list.as_array().unwrap();
    let ids = items.iter().filter_map(|i| i["id"].as_i64()).collect();
    let note = items.iter().filter_map(Value::as_str).next_back();
    (ids, note.unwrap_or_default().to_owned())
}

#[test]
fn the_first_movie_similar_to_another_keeps_the_apis_order() {
    let value = json!({"error": "", "response": {"page": 1, "results": movies(20, None),
                        "total_pages": 2, "total_results": 40}});
    let hints = Hints {
        endpoint: Some("/movie/{movie_id}/similar"),
        task: Some("give me some reviews of the first movie that is similar to Titanic"),
        thought: Some(
            "The most popular Titanic (1997) has id 597; I will get movies similar to it.",
        ),
        ..Hints::default()
    };
    let (text, back) = view(&value, hints);
    let (ids, note) = ids_and_note(&back["response"]["results"]);
    assert!(ids.len() >= 2 && ids.len() < 20, "{text}");
    let first: Vec<i64> = (0..ids.len()).map(|k| 4100 + k as i64).collect();
    assert_eq!(ids, first, "{text}");
    assert_eq!(note, format!("… {} more items left out", 20 - ids.len()));
}

#[test]
fn the_first_movie_a_director_made_still_ranks_by_release_date() {
    let value = json!({"error": "", "response": {"cast": [], "crew": movies(20, Some("Director")),
                        "id": 525}});
    let hints = Hints {
        endpoint: Some("/person/{person_id}/movie_credits"),
        task: Some("What was the first movie Nolan directed?"),
        ..Hints::default()
    };
    let (text, back) = view(&value, hints);
    let (ids, note) = ids_and_note(&back["response"]["crew"]);
    assert!(!ids.is_empty(), "{text}");
    // Credits 5, 12 and 19 came out in 1995, 12 first (on the 12th of May).
    assert_eq!(ids[..3], [4112, 4105, 4119], "{text}");
    assert!(note.contains("earliest release_date"), "{note}");
}
