//! Compaction of observations: identities kept at every depth, no object emptied, and the
//! content an API exists to return kept, on hand-written fixtures of Spotify's, TMDB's and a
//! weather API's shapes, on generated nested JSON, and on simulated responses.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolsmith_catalog::{DocSelector, Endpoint, ImportOptions, Scope, Store, read_bytes};
use toolsmith_exec::compact::{Hints, compact_with, emptied_objects, is_key_field};
use toolsmith_exec::{ApiBook, Simulator};

fn hints(endpoint: &str) -> Hints<'_> {
    Hints {
        endpoint: Some(endpoint),
        ..Hints::default()
    }
}

/// A Spotify track, as nested as the real one.
fn track(i: usize) -> Value {
    json!({
        "artists": [{"external_urls": {"spotify": format!("https://open.spotify.com/artist/ar{i}")},
                     "href": format!("https://api.spotify.com/v1/artists/ar{i}"),
                     "id": format!("ar{i}"), "name": format!("Artist {i}"), "type": "artist",
                     "uri": format!("spotify:artist:ar{i}")}],
        "available_markets": ["AD", "AE", "AR", "AT", "AU", "BE", "BG", "BH", "BO", "BR", "CA"],
        "disc_number": 1, "duration_ms": 215_000 + i, "explicit": false,
        "external_urls": {"spotify": format!("https://open.spotify.com/track/tr{i}")},
        "href": format!("https://api.spotify.com/v1/tracks/tr{i}"),
        "id": format!("tr{i}"), "name": format!("Track {i}"), "preview_url": null,
        "track_number": i + 1, "type": "track", "uri": format!("spotify:track:tr{i}")
    })
}

/// A Spotify album with its tracks and images.
fn album(i: usize) -> Value {
    json!({
        "album_type": "album",
        "artists": [{"id": format!("ar{i}"), "name": format!("Artist {i}"), "type": "artist",
                     "uri": format!("spotify:artist:ar{i}")}],
        "available_markets": ["AD", "AE", "AR", "AT", "AU", "BE", "BG", "BH", "BO", "BR"],
        "copyrights": [{"text": "(C) 2020 Some Label Records", "type": "C"}],
        "external_ids": {"upc": "00602537518357"},
        "external_urls": {"spotify": format!("https://open.spotify.com/album/al{i}")},
        "genres": [], "href": format!("https://api.spotify.com/v1/albums/al{i}"),
        "id": format!("al{i}"),
        "images": [{"height": 640, "url": format!("https://i.scdn.co/image/al{i}640"), "width": 640},
                   {"height": 300, "url": format!("https://i.scdn.co/image/al{i}300"), "width": 300}],
        "label": "Some Label", "name": format!("Album number {i}"), "popularity": 61,
        "release_date": "2020-03-20", "release_date_precision": "day",
        "total_tracks": 3, "tracks": {"href": format!("https://api.spotify.com/v1/albums/al{i}/tracks"),
            "items": [track(i * 10), track(i * 10 + 1), track(i * 10 + 2)],
            "limit": 50, "next": null, "offset": 0, "previous": null, "total": 3},
        "type": "album", "uri": format!("spotify:album:al{i}")
    })
}

/// `GET /me/albums`: a page of saved albums, each `{added_at, album}`.
fn saved_albums(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| json!({"added_at": "2023-01-05T10:00:00Z", "album": album(i)}))
        .collect();
    json!({"href": "https://api.spotify.com/v1/me/albums?offset=0&limit=20", "items": items,
           "limit": 20, "next": "https://api.spotify.com/v1/me/albums?offset=20&limit=20",
           "offset": 0, "previous": null, "total": 53})
}

/// The observation envelope the solvers send.
fn observation(response: Value) -> Value {
    json!({"error": "", "response": response})
}

#[test]
fn a_saved_album_page_keeps_each_shown_album_id_and_name() {
    let value = observation(saved_albums(20));
    for budget in [1024, 2048] {
        let text = compact_with(&value, hints("/me/albums"), budget);
        assert!(text.chars().count() <= budget, "{budget}: {text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        let items = back["response"]["items"].as_array().unwrap();
        let shown: Vec<&Value> = items.iter().filter(|v| v.is_object()).collect();
        assert!(shown.len() >= 3, "{budget}: {text}");
        for (i, item) in shown.iter().enumerate() {
            assert_eq!(item["album"]["id"], json!(format!("al{i}")), "{text}");
            assert_eq!(item["album"]["name"], json!(format!("Album number {i}")));
        }
        let note = items.last().unwrap().as_str().unwrap();
        assert_eq!(note, format!("… {} more items left out", 20 - shown.len()));
        assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    }
}

#[test]
fn currently_playing_keeps_the_track_not_just_the_error_field() {
    let value = observation(json!({
        "context": {"external_urls": {"spotify": "https://open.spotify.com/playlist/pl1"},
                    "href": "https://api.spotify.com/v1/playlists/pl1", "type": "playlist",
                    "uri": "spotify:playlist:pl1"},
        "timestamp": 1_700_000_000_000_u64, "progress_ms": 42_000, "is_playing": true,
        "item": {"album": album(7), "artists": [{"id": "ar7", "name": "Artist 7"}],
                 "id": "tr70", "name": "Track 70", "type": "track", "uri": "spotify:track:tr70",
                 "duration_ms": 215_070, "popularity": 55},
        "currently_playing_type": "track",
        "actions": {"disallows": {"resuming": true, "skipping_prev": true}}
    }));
    let text = compact_with(&value, hints("/me/player/currently-playing"), 1024);
    let back: Value = serde_json::from_str(&text).unwrap();
    let item = &back["response"]["item"];
    assert_eq!(
        (&item["id"], &item["name"]),
        (&json!("tr70"), &json!("Track 70")),
        "{text}"
    );
    assert_eq!(item["album"]["id"], "al7", "{text}");
    assert_eq!(back["response"]["context"]["uri"], "spotify:playlist:pl1");
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

#[test]
fn an_images_endpoint_keeps_its_image_paths() {
    let image = |i: usize| {
        json!({"aspect_ratio": 1.778, "file_path": format!("/img{i:02}abcdefghijklmnopqrstu.jpg"),
               "height": 1080, "iso_639_1": null, "vote_average": 5.3, "vote_count": 4, "width": 1920})
    };
    let value = observation(json!({
        "id": 794046,
        "backdrops": (0..15).map(image).collect::<Vec<_>>(),
        "posters": (15..30).map(image).collect::<Vec<_>>(),
    }));
    let text = compact_with(&value, hints("/collection/{collection_id}/images"), 1024);
    let back: Value = serde_json::from_str(&text).unwrap();
    for list in ["backdrops", "posters"] {
        let shown = back["response"][list].as_array().unwrap();
        let paths = shown.iter().filter(|i| i["file_path"].is_string()).count();
        assert!(paths >= 3, "{list}: {text}");
    }
    assert_eq!(back["response"]["id"], 794046);
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

#[test]
fn a_forecast_keeps_its_days_with_their_main_and_weather_blocks() {
    let days: Vec<Value> = (0..40)
        .map(|i| {
            json!({"dt": 1_700_000_000 + i * 10_800,
                   "main": {"temp": 281.5, "feels_like": 279.1, "temp_min": 280.0, "temp_max": 282.3,
                            "pressure": 1017, "humidity": 81},
                   "weather": [{"id": 500, "main": "Rain", "description": "light rain", "icon": "10d"}],
                   "clouds": {"all": 90}, "wind": {"speed": 4.6, "deg": 240},
                   "dt_txt": "2023-11-20 12:00:00"})
        })
        .collect();
    let value = observation(json!({"cod": "200", "cnt": 40, "list": days,
        "city": {"id": 2643743, "name": "London", "country": "GB"}}));
    // Days are shown alike: each with its weather block and its time; where the budget
    // allows, each with its `main` block too (not the first day alone).
    for budget in [1024, 2048, 4096] {
        let text = compact_with(&value, hints("/data/2.5/forecast"), budget);
        let back: Value = serde_json::from_str(&text).unwrap();
        let shown = shown_items(&back["response"]["list"]);
        assert!(shown.len() >= 10, "{budget}: {text}");
        let fields: Vec<&String> = shown[0].as_object().unwrap().keys().collect();
        for (i, day) in shown.iter().enumerate() {
            assert_eq!(day["weather"][0]["id"], 500, "{text}");
            assert!(day["dt"] == 1_700_000_000 + i * 10_800 || day["dt_txt"].is_string());
            assert_eq!(day.as_object().unwrap().keys().collect::<Vec<_>>(), fields);
            if budget == 4096 {
                assert_eq!(day["main"]["temp"], 281.5, "{text}");
            }
        }
        assert_eq!(back["response"]["city"]["name"], "London");
        assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    }
}

/// Nested JSON of the shapes APIs answer: objects with ids and names among other fields,
/// lists of them, strings of any length.
fn nested() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "id", "name", "type", "uri", "overview", "items", "album", "data", "count", "meta", "url",
        "tags", "owner_id", "status",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-zé \"\\\\]{0,60}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 120, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|fields| {
                Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn compaction_fits_stays_json_and_never_empties_an_object(
        value in nested(),
        budget in 400usize..2048,
    ) {
        let value = observation(value);
        let text = compact_with(&value, hints("/things/{id}"), budget);
        prop_assert!(text.chars().count() <= budget, "{} > {budget}", text.chars().count());
        let back: Value = serde_json::from_str(&text).unwrap();
        prop_assert!(back.is_object(), "{text}");
        prop_assert_eq!(emptied_objects(&value, &text), 0, "{}", text);
    }

    #[test]
    fn spotify_pages_fit_stay_json_keep_image_urls_and_never_empty_an_object(
        kind in 0usize..4,
        n in 1usize..25,
        budget in 200usize..3000,
    ) {
        let (whole, endpoint) = match kind {
            0 => (recently_played(n), "/me/player/recently-played"),
            1 => (artist_albums(n), "/artists/{id}/albums"),
            2 => (saved_albums(n), "/me/albums"),
            _ => (playback_state(), "/me/player"),
        };
        let value = observation(whole);
        let text = compact_with(&value, hints(endpoint), budget);
        prop_assert!(text.chars().count() <= budget, "{} > {budget}", text.chars().count());
        let back: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(emptied_objects(&value, &text), 0, "{}", text);
        if back.is_object() {
            let mut lost = Vec::new();
            images_without_url(&value, &back, "", &mut lost);
            prop_assert!(lost.is_empty(), "{lost:?} in {text}");
        }
    }
}

/// A small spec of Spotify's shapes: saved albums and the track playing now.
const SPOTIFY: &str = include_str!("spotify_fixture.json");

fn spotify() -> Arc<ApiBook> {
    let batch = read_bytes(
        Path::new("spotify.json"),
        SPOTIFY.as_bytes(),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(ApiBook::from_catalog(&catalog))
}

/// Every simulated response of `book`, compacted at 1,024 and 2,048 characters: within the
/// budget, JSON, with no object emptied. Returns how many were over 1,024 characters.
fn check_simulated(book: &Arc<ApiBook>) -> usize {
    let sim = Simulator::new(Arc::clone(book));
    let mut over = 0;
    for api in book.ids() {
        let entry = book.get(api).unwrap();
        let mut args = serde_json::Map::new();
        for p in entry.api.api.params.iter().filter(|p| p.required) {
            let value = match p.schema.get("type").and_then(Value::as_str) {
                Some("integer") => json!(550),
                _ => json!("Titanic"),
            };
            args.insert(p.name.clone(), value);
        }
        let Some(body) = sim.synthesize(entry, &Value::Object(args)) else {
            continue;
        };
        let value = observation(body);
        let endpoint = match &entry.api.api.endpoint {
            Endpoint::Http { path, .. } => path.clone(),
            _ => entry.api.api.name.clone(),
        };
        let hints = Hints {
            schema: entry.api.api.response_schema.as_ref(),
            endpoint: Some(&endpoint),
            ..Hints::default()
        };
        over += usize::from(value.to_string().chars().count() > 1024);
        for budget in [1024, 2048] {
            let text = compact_with(&value, hints, budget);
            assert!(text.chars().count() <= budget, "{api}: {text}");
            let back: Value = serde_json::from_str(&text).unwrap();
            assert!(
                back["response"].is_object() || back["response"].is_array(),
                "{api}: {text}"
            );
            assert_eq!(
                emptied_objects(&value, &text),
                0,
                "{api} at {budget}: {text}"
            );
        }
    }
    over
}

#[test]
fn simulated_tmdb_and_spotify_responses_are_never_emptied() {
    assert!(check_simulated(&crate::tmdb()) > 5);
    assert!(check_simulated(&spotify()) >= 2);
}

/// Country codes, as long as the `available_markets` of a real Spotify track.
fn markets() -> Vec<String> {
    (0..180)
        .map(|i| {
            let a = char::from(b'A' + u8::try_from(i / 26).unwrap());
            let b = char::from(b'A' + u8::try_from(i % 26).unwrap());
            format!("{a}{b}")
        })
        .collect()
}

/// An artist as a track or an album names it.
fn artist(id: &str, name: &str) -> Value {
    json!({"external_urls": {"spotify": format!("https://open.spotify.com/artist/{id}")},
           "href": format!("https://api.spotify.com/v1/artists/{id}"),
           "id": id, "name": name, "type": "artist", "uri": format!("spotify:artist:{id}")})
}

/// `GET /me/player/currently-playing`, shaped as Spotify answers it: a track with its album
/// (images, markets, artists) and artists, beside a device, a context and a map of the
/// playback actions that are disallowed.
fn currently_playing() -> Value {
    let album = json!({
        "album_type": "album", "total_tracks": 12, "available_markets": markets(),
        "external_urls": {"spotify": "https://open.spotify.com/album/4aawyAB9vmqN3uQ7FjRGTy"},
        "href": "https://api.spotify.com/v1/albums/4aawyAB9vmqN3uQ7FjRGTy",
        "id": "4aawyAB9vmqN3uQ7FjRGTy", "name": "Global Warming",
        "images": ([640, 300, 64].iter().map(|s| json!({"url": format!("https://i.scdn.co/image/ab67616d0000b273{s}"), "height": s, "width": s})).collect::<Vec<_>>()),
        "release_date": "2012-11-16", "release_date_precision": "day",
        "restrictions": {"reason": "market"},
        "type": "album", "uri": "spotify:album:4aawyAB9vmqN3uQ7FjRGTy",
        "artists": [artist("0TnOYISbd1XYRBk9myaseg", "Pitbull")],
    });
    let item = json!({
        "album": album,
        "artists": [artist("0TnOYISbd1XYRBk9myaseg", "Pitbull"),
                    artist("7bXgB6jMjp9ATFy66eO08Z", "Chris Brown")],
        "available_markets": markets(), "disc_number": 1, "duration_ms": 237_120,
        "explicit": false, "external_ids": {"isrc": "USJAY1200117"},
        "external_urls": {"spotify": "https://open.spotify.com/track/6OmhkSOpvYBokMKQxpIGx2"},
        "href": "https://api.spotify.com/v1/tracks/6OmhkSOpvYBokMKQxpIGx2",
        "id": "6OmhkSOpvYBokMKQxpIGx2", "is_playable": true, "linked_from": {},
        "restrictions": {"reason": "explicit"}, "name": "International Love",
        "popularity": 74, "preview_url": "https://p.scdn.co/mp3-preview/0123456789abcdef",
        "track_number": 4, "type": "track", "uri": "spotify:track:6OmhkSOpvYBokMKQxpIGx2",
        "is_local": false,
    });
    let disallows: serde_json::Map<String, Value> = [
        "interrupting_playback",
        "pausing",
        "resuming",
        "seeking",
        "skipping_next",
        "skipping_prev",
        "toggling_repeat_context",
        "toggling_shuffle",
        "toggling_repeat_track",
        "transferring_playback",
    ]
    .iter()
    .enumerate()
    .map(|(i, k)| ((*k).to_owned(), json!(i % 3 == 0)))
    .collect();
    json!({
        "device": {"id": "5fbb3ba6aa454b5534c4ba43a8c7e8e45a63ad0e", "is_active": true,
                   "is_private_session": false, "is_restricted": false,
                   "name": "Kitchen speaker", "type": "Speaker", "volume_percent": 59,
                   "supports_volume": true},
        "repeat_state": "off", "shuffle_state": false,
        "context": {"type": "playlist",
                    "href": "https://api.spotify.com/v1/playlists/37i9dQZF1DXcBWIGoYBM5M",
                    "external_urls": {"spotify": "https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M"},
                    "uri": "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"},
        "timestamp": 1_700_000_000_000_u64, "progress_ms": 42_000, "is_playing": true,
        "item": item, "currently_playing_type": "track",
        "actions": {"disallows": disallows},
    })
}

/// Objects of `whole` with identity fields that are missing in `shown`, by path: a
/// sub-object dropped whole left the agent nothing of the entity it names.
fn lost_entities(whole: &Value, shown: &Value, path: &str, out: &mut Vec<String>) {
    let names_entity = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.keys().any(|k| is_key_field(k)))
    };
    match (whole, shown) {
        (Value::Object(w), Value::Object(s)) => {
            for (key, sub) in w {
                let here = format!("{path}.{key}");
                match s.get(key) {
                    Some(kept) => lost_entities(sub, kept, &here, out),
                    None if names_entity(sub) => out.push(here),
                    None => {}
                }
            }
        }
        (Value::Array(w), Value::Array(s)) => {
            for (i, (a, b)) in w
                .iter()
                .zip(s.iter().filter(|v| !v.is_string()))
                .enumerate()
            {
                lost_entities(a, b, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn currently_playing_keeps_the_identities_of_the_track_album_and_artists_first() {
    let value = observation(currently_playing());
    let text = compact_with(&value, hints("/me/player/currently-playing"), 1024);
    assert!(text.chars().count() <= 1024, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let item = &back["response"]["item"];
    assert_eq!(item["id"], "6OmhkSOpvYBokMKQxpIGx2", "{text}");
    assert_eq!(item["name"], "International Love", "{text}");
    assert_eq!(item["album"]["id"], "4aawyAB9vmqN3uQ7FjRGTy", "{text}");
    assert_eq!(item["album"]["name"], "Global Warming", "{text}");
    assert_eq!(item["artists"][0]["id"], "0TnOYISbd1XYRBk9myaseg", "{text}");
    assert_eq!(item["artists"][0]["name"], "Pitbull", "{text}");
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    // Maps of flags and metadata may go; no object that names an entity may.
    let mut lost = Vec::new();
    lost_entities(&value, &back, "", &mut lost);
    assert!(lost.is_empty(), "{lost:?}: {text}");
    // The flags come last: the map of disallowed actions is at its least form, or left out
    // (a trimmed view, which keeps both of the track's artists, leaves maps of flags out).
    let disallows = back["response"]["actions"]["disallows"].as_object();
    assert!(disallows.is_none_or(|d| d.len() == 1), "{text}");
    let artists = back["response"]["item"]["artists"].as_array().unwrap();
    assert_eq!(artists.len(), 2, "{text}");
}

/// A 22-character Spotify id, distinct per `kind` and `i`.
fn spotify_id(kind: char, i: usize) -> String {
    format!("{kind}{i:02}xQ7pLmN3vR8sT1wY5zA9b")
        .chars()
        .take(22)
        .collect()
}

/// Spotify's three sizes of an image: each object is its url and two sizes.
fn images(id: &str) -> Value {
    json!([640, 300, 64]
        .iter()
        .map(|s| json!({"height": s, "url": format!("https://i.scdn.co/image/ab67616d0000{s}{id}"), "width": s}))
        .collect::<Vec<_>>())
}

/// A simplified album, as Spotify's album lists and tracks show it.
fn simple_album(i: usize) -> Value {
    let id = spotify_id('A', i);
    json!({
        "album_type": "album", "total_tracks": 10 + i,
        "available_markets": ["AD", "AE", "AR", "AT"],
        "external_urls": {"spotify": format!("https://open.spotify.com/album/{id}")},
        "href": format!("https://api.spotify.com/v1/albums/{id}"), "id": id,
        "images": images(&id), "name": format!("Album title number {i}"),
        "release_date": format!("20{:02}-0{}-1{}", 10 + i, 1 + i % 9, i % 10),
        "release_date_precision": "day", "type": "album", "uri": format!("spotify:album:{id}"),
        "artists": [artist(&spotify_id('R', i), &format!("Singer {i}"))], "album_group": "album",
    })
}

/// `GET /me/player/recently-played`: items of `{track, played_at, context}`.
fn recently_played(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            let id = spotify_id('T', i);
            let playlist = spotify_id('P', i % 3);
            json!({
                "track": {
                    "album": simple_album(i),
                    "artists": [artist(&spotify_id('R', i), &format!("Singer {i}"))],
                    "available_markets": ["AD", "AE", "AR", "AT"], "disc_number": 1,
                    "duration_ms": 200_000 + i, "explicit": i % 2 == 0,
                    "external_ids": {"isrc": format!("USUM7{i:07}")},
                    "external_urls": {"spotify": format!("https://open.spotify.com/track/{id}")},
                    "href": format!("https://api.spotify.com/v1/tracks/{id}"), "id": id,
                    "is_local": false, "name": format!("Song {i}"), "popularity": 40 + i,
                    "preview_url": null, "track_number": 1 + i % 7, "type": "track",
                    "uri": format!("spotify:track:{id}"),
                },
                "played_at": format!("2025-11-{:02}T1{}:04:05.123Z", 1 + i, i % 10),
                "context": {"type": "playlist",
                    "href": format!("https://api.spotify.com/v1/playlists/{playlist}"),
                    "external_urls": {"spotify": format!("https://open.spotify.com/playlist/{playlist}")},
                    "uri": format!("spotify:playlist:{playlist}")},
            })
        })
        .collect();
    json!({"items": items, "next": "https://api.spotify.com/v1/me/player/recently-played?before=1",
           "cursors": {"after": "1762000000000", "before": "1761000000000"},
           "limit": n, "href": "https://api.spotify.com/v1/me/player/recently-played?limit=20"})
}

/// `GET /artists/{id}/albums`: a page of simplified albums.
fn artist_albums(n: usize) -> Value {
    json!({"href": "https://api.spotify.com/v1/artists/R00/albums?offset=0&limit=20",
           "items": (0..n).map(simple_album).collect::<Vec<_>>(), "limit": 20,
           "next": "https://api.spotify.com/v1/artists/R00/albums?offset=20&limit=20",
           "offset": 0, "previous": null, "total": n})
}

/// `GET /me/player`: the playback state, about 2.7 kB, with a device whose small settings
/// (its volume) sit beside a whole track.
fn playback_state() -> Value {
    let album = simple_album(3);
    let disallows: serde_json::Map<String, Value> = ["pausing", "skipping_prev", "seeking"]
        .iter()
        .map(|k| ((*k).to_owned(), json!(true)))
        .collect();
    let id = spotify_id('T', 3);
    json!({
        "device": {"id": "5fbb3ba6aa454b5534c4ba43a8c7e8e45a63ad0e", "is_active": true,
                   "is_private_session": false, "is_restricted": false,
                   "name": "Kitchen speaker", "type": "Speaker", "volume_percent": 59},
        "repeat_state": "off", "shuffle_state": false, "smart_shuffle": false,
        "context": {"type": "playlist",
                    "href": "https://api.spotify.com/v1/playlists/37i9dQZF1DXcBWIGoYBM5M",
                    "external_urls": {"spotify": "https://open.spotify.com/playlist/37i9dQZF1DXcBWIGoYBM5M"},
                    "uri": "spotify:playlist:37i9dQZF1DXcBWIGoYBM5M"},
        "timestamp": 1_762_000_000_000_u64, "progress_ms": 42_000, "is_playing": true,
        "item": {"album": album, "artists": [artist(&spotify_id('R', 3), "Singer 3")],
                 "available_markets": ["AD", "AE", "AR", "AT", "AU", "BE", "BG", "BH", "BO",
                     "BR", "CA", "CH", "CL", "CO", "CR", "CY", "CZ", "DE", "DK", "DO"],
                 "disc_number": 1,
                 "duration_ms": 237_120, "explicit": false,
                 "external_ids": {"isrc": "USUM71200117"},
                 "external_urls": {"spotify": format!("https://open.spotify.com/track/{id}")},
                 "href": format!("https://api.spotify.com/v1/tracks/{id}"), "id": id,
                 "is_local": false, "name": "Song 3", "popularity": 74,
                 "preview_url": "https://p.scdn.co/mp3-preview/0123456789abcdef",
                 "track_number": 4, "type": "track", "uri": format!("spotify:track:{id}")},
        "currently_playing_type": "track",
        "actions": {"disallows": disallows},
    })
}

/// The objects of a compacted list that stand for items (not its note of items left out).
fn shown_items(list: &Value) -> Vec<&Value> {
    list.as_array()
        .map(|items| items.iter().filter(|v| v.is_object()).collect())
        .unwrap_or_default()
}

#[test]
fn every_shown_recently_played_item_shows_when_it_played_and_what() {
    let whole = recently_played(20);
    let value = observation(whole.clone());
    for budget in [1024, 2048] {
        let text = compact_with(&value, hints("/me/player/recently-played"), budget);
        assert!(text.chars().count() <= budget, "{budget}: {text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        let shown = shown_items(&back["response"]["items"]);
        // Each item's core (its track's id and name, its album's and artists' names, its
        // context's kind) and its date take some 200 characters: four items fit 1,024, eight
        // fit 2,048.
        assert!(shown.len() >= budget / 256, "{budget}: {text}");
        for (item, full) in shown.iter().zip(whole["items"].as_array().unwrap()) {
            assert_eq!(item["played_at"], full["played_at"], "{budget}: {text}");
            assert_eq!(item["track"]["id"], full["track"]["id"], "{budget}: {text}");
            assert_eq!(
                item["track"]["name"], full["track"]["name"],
                "{budget}: {text}"
            );
            let artists = shown_items(&item["track"]["artists"]);
            assert!(!artists.is_empty(), "{budget}: {text}");
            for (a, f) in artists
                .iter()
                .zip(full["track"]["artists"].as_array().unwrap())
            {
                assert_eq!(a["name"], f["name"], "{budget}: {text}");
            }
        }
        assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    }
}

#[test]
fn every_shown_album_of_a_page_shows_its_release_date() {
    let whole = artist_albums(20);
    let value = observation(whole.clone());
    let text = compact_with(&value, hints("/artists/{id}/albums"), 2048);
    assert!(text.chars().count() <= 2048, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let shown = shown_items(&back["response"]["items"]);
    assert!(shown.len() >= 3, "{text}");
    for (album, full) in shown.iter().zip(whole["items"].as_array().unwrap()) {
        assert_eq!(album["id"], full["id"], "{text}");
        assert_eq!(album["release_date"], full["release_date"], "{text}");
    }
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

/// Paths of the image objects (a `url` beside sizes) that `shown` shows without their url.
fn images_without_url(whole: &Value, shown: &Value, path: &str, out: &mut Vec<String>) {
    match (whole, shown) {
        (Value::Object(w), Value::Object(s)) => {
            if w.contains_key("url") && w.contains_key("height") && !s.contains_key("url") {
                out.push(path.to_owned());
            }
            for (key, sub) in s {
                if let Some(full) = w.get(key) {
                    images_without_url(full, sub, &format!("{path}.{key}"), out);
                }
            }
        }
        (Value::Array(w), Value::Array(s)) => {
            let kept = s.iter().filter(|v| !v.is_string());
            for (i, (a, b)) in w.iter().zip(kept).enumerate() {
                images_without_url(a, b, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn image_objects_that_are_shown_keep_their_url() {
    let cases = [
        (observation(artist_albums(20)), "/artists/{id}/albums"),
        (
            observation(recently_played(20)),
            "/me/player/recently-played",
        ),
        (observation(playback_state()), "/me/player"),
        (observation(simple_album(1)), "/albums/{id}"),
    ];
    let mut images_shown = 0;
    for (value, endpoint) in &cases {
        for budget in [600, 1024, 2048] {
            let text = compact_with(value, hints(endpoint), budget);
            let back: Value = serde_json::from_str(&text).unwrap();
            let mut lost = Vec::new();
            images_without_url(value, &back, "", &mut lost);
            assert!(
                lost.is_empty(),
                "{endpoint} at {budget}: {lost:?} in {text}"
            );
            images_shown += text.matches("i.scdn.co/image").count();
        }
    }
    // Not vacuous: some images are shown.
    assert!(images_shown > 0);
}

#[test]
fn a_playback_state_keeps_the_device_volume() {
    let value = observation(playback_state());
    let size = value.to_string().chars().count();
    assert!((2_500..3_000).contains(&size), "{size}");
    let text = compact_with(&value, hints("/me/player"), 2048);
    assert!(text.chars().count() <= 2048, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let device = &back["response"]["device"];
    assert_eq!(device["volume_percent"], 59, "{text}");
    assert_eq!(device["is_active"], true, "{text}");
    assert_eq!(back["response"]["item"]["id"], spotify_id('T', 3), "{text}");
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

#[test]
fn a_recently_played_page_shows_four_items_or_more_at_the_default_budget() {
    // Each item's core (its track's id and name, its album's and artists' names, its context)
    // is small enough that several items show when and what was played at 1,024.
    let whole = recently_played(20);
    let value = observation(whole.clone());
    let text = compact_with(&value, hints("/me/player/recently-played"), 1024);
    assert!(text.chars().count() <= 1024, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let shown = shown_items(&back["response"]["items"]);
    assert!(shown.len() >= 4, "{} items: {text}", shown.len());
    for (item, full) in shown.iter().zip(whole["items"].as_array().unwrap()) {
        assert_eq!(item["played_at"], full["played_at"], "{text}");
        assert_eq!(item["track"]["name"], full["track"]["name"], "{text}");
        let artists = shown_items(&item["track"]["artists"]);
        let names: Vec<&Value> = artists.iter().map(|a| &a["name"]).collect();
        let full_names: Vec<&Value> = full["track"]["artists"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| &a["name"])
            .collect();
        assert_eq!(names, full_names, "{text}");
    }
    let note = back["response"]["items"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(
        note.as_str().unwrap(),
        format!("… {} more items left out", 20 - shown.len())
    );
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

#[test]
fn an_artists_albums_page_shows_five_albums_or_more_at_the_default_budget() {
    let whole = artist_albums(20);
    let value = observation(whole.clone());
    let text = compact_with(&value, hints("/artists/{id}/albums"), 1024);
    assert!(text.chars().count() <= 1024, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let shown = shown_items(&back["response"]["items"]);
    assert!(shown.len() >= 5, "{} albums: {text}", shown.len());
    for (album, full) in shown.iter().zip(whole["items"].as_array().unwrap()) {
        assert_eq!(album["name"], full["name"], "{text}");
        assert_eq!(album["release_date"], full["release_date"], "{text}");
    }
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
}

/// `GET /me/albums` as Spotify answers it: three saved albums, each a whole album with its
/// tracks (`tracks.items`), images, copyrights and markets.
const SAVED_ALBUMS: &str = include_str!("spotify_saved_albums.json");

/// `GET /recommendations` as Spotify answers it: three seeds and ten whole tracks, each with
/// its album (images, artists) and artists.
const RECOMMENDATIONS: &str = include_str!("spotify_recommendations.json");

fn fixture(text: &str) -> Value {
    observation(serde_json::from_str(text).unwrap())
}

/// Budgets from what a cut note leaves of the default 1,024 characters up to the default.
fn noted_budgets() -> impl Iterator<Item = usize> {
    (700..=1024).step_by(20)
}

#[test]
fn saved_albums_show_every_album_before_any_albums_tracks() {
    let value = fixture(SAVED_ALBUMS);
    let whole = value["response"]["items"].as_array().unwrap();
    for budget in noted_budgets() {
        let text = compact_with(&value, hints("/me/albums"), budget);
        assert!(text.chars().count() <= budget, "{budget}: {text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        let shown = shown_items(&back["response"]["items"]);
        // Not one album with its first track's locators: all three, by id and name.
        assert_eq!(shown.len(), 3, "{budget}: {text}");
        for (item, full) in shown.iter().zip(whole) {
            assert_eq!(item["album"]["id"], full["album"]["id"], "{budget}: {text}");
            assert_eq!(item["album"]["name"], full["album"]["name"], "{text}");
        }
        assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    }
}

#[test]
fn recommendations_show_several_tracks_with_their_artists_before_a_seeds_details() {
    let value = fixture(RECOMMENDATIONS);
    let whole = value["response"]["tracks"].as_array().unwrap();
    let task = "Recommend me some tracks with the same genre of the music currently playing";
    let hints = Hints {
        task: Some(task),
        ..hints("/recommendations")
    };
    for budget in noted_budgets() {
        let text = compact_with(&value, hints, budget);
        assert!(text.chars().count() <= budget, "{budget}: {text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        let tracks = shown_items(&back["response"]["tracks"]);
        assert!(tracks.len() >= 3, "{budget}: {text}");
        for (track, full) in tracks.iter().zip(whole) {
            assert_eq!(track["id"], full["id"], "{budget}: {text}");
            assert_eq!(track["name"], full["name"], "{budget}: {text}");
            let artist = &track["artists"][0]["name"];
            assert_eq!(artist, &full["artists"][0]["name"], "{budget}: {text}");
        }
        // A seed shows what it is, not its pool sizes.
        for seed in shown_items(&back["response"]["seeds"]) {
            assert!(seed.get("afterFilteringSize").is_none(), "{budget}: {text}");
        }
        assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    }
}

#[test]
fn a_request_that_adds_items_somewhere_shows_each_shown_items_own_uri() {
    let value = fixture(RECOMMENDATIONS);
    let whole = value["response"]["tracks"].as_array().unwrap();
    let with = |task| Hints {
        task: Some(task),
        ..hints("/recommendations")
    };
    for task in [
        "Add some tracks like the one playing to my playlist",
        "Queue three songs like this one",
    ] {
        for budget in noted_budgets() {
            let text = compact_with(&value, with(task), budget);
            assert!(text.chars().count() <= budget, "{budget}: {text}");
            let back: Value = serde_json::from_str(&text).unwrap();
            let tracks = shown_items(&back["response"]["tracks"]);
            // Fewer tracks, each with what the next call takes.
            assert!(tracks.len() >= 2, "{task} at {budget}: {text}");
            for (track, full) in tracks.iter().zip(whole) {
                assert_eq!(track["uri"], full["uri"], "{task} at {budget}: {text}");
                // A nested entity's uri, which restates its id, is not what the call adds.
                assert!(track["album"].get("uri").is_none(), "{text}");
            }
            assert_eq!(emptied_objects(&value, &text), 0, "{text}");
        }
    }
}
