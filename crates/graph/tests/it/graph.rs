//! The graph on RestBench's TMDB catalog (54 APIs), whose relations are known.

use std::collections::{BTreeMap, BTreeSet};

use toolsmith_catalog::testing::{data_path, tmdb_catalog};
use toolsmith_catalog::{ApiId, Catalog};
use toolsmith_graph::{
    BuildInfo, Edge, EdgeKey, EdgeKind, Evidence, Experience, GraphSettings, GraphStore, Rule,
    build_graph, embed_docs, sample_edges, updated_weight,
};
use toolsmith_llm::testing::ScriptedEmbedder;

/// `GET /movie/{movie_id}` -> the catalog's id.
fn by_path(catalog: &Catalog) -> BTreeMap<String, ApiId> {
    catalog
        .apis()
        .filter_map(|(_, a)| {
            let path = a.api.endpoint.path()?;
            let method = a.api.endpoint.method()?.as_str();
            Some((format!("{method} {path}"), a.api.id.clone()))
        })
        .collect()
}

fn dep<'a>(edges: &'a [Edge], from: &ApiId, to: &ApiId) -> Option<&'a Edge> {
    edges
        .iter()
        .find(|e| e.kind == EdgeKind::Dependency && &e.from == from && &e.to == to)
}

#[test]
fn tmdb_search_to_details_chains_are_dependency_edges() {
    let catalog = tmdb_catalog();
    let ids = by_path(&catalog);
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let api = |p: &str| {
        ids.get(p)
            .unwrap_or_else(|| panic!("{p} not in TMDB"))
            .clone()
    };
    let expect = [
        (
            "GET /search/movie",
            "GET /movie/{movie_id}",
            "movie_id",
            Rule::PathEntity,
        ),
        (
            "GET /search/movie",
            "GET /movie/{movie_id}/credits",
            "movie_id",
            Rule::PathEntity,
        ),
        (
            "GET /search/person",
            "GET /person/{person_id}",
            "person_id",
            Rule::PathEntity,
        ),
        (
            "GET /person/popular",
            "GET /person/{person_id}",
            "person_id",
            Rule::PathEntity,
        ),
        (
            "GET /movie/{movie_id}/credits",
            "GET /person/{person_id}",
            "person_id",
            Rule::ExampleValue,
        ),
        (
            "GET /person/{person_id}/movie_credits",
            "GET /movie/{movie_id}",
            "movie_id",
            Rule::PathEntity,
        ),
        (
            "GET /tv/{tv_id}",
            "GET /network/{network_id}",
            "network_id",
            Rule::ContainerEntity,
        ),
        (
            "GET /movie/{movie_id}",
            "GET /company/{company_id}",
            "company_id",
            Rule::ContainerEntity,
        ),
        (
            "GET /movie/{movie_id}/similar",
            "GET /movie/{movie_id}/reviews",
            "movie_id",
            Rule::SameEntityList,
        ),
    ];
    for (from, to, param, rule) in expect {
        let edge = dep(&graph.edges, &api(from), &api(to))
            .unwrap_or_else(|| panic!("no dependency edge {from} -> {to}"));
        let Evidence::Dependency { feeds } = &edge.evidence else {
            panic!("{from} -> {to} has no dependency evidence")
        };
        assert!(
            feeds.iter().any(|f| f.param == param && f.rule == rule),
            "{from} -> {to}: expected {param} by {rule:?}, got {feeds:?}"
        );
        assert!((edge.strength - feeds[0].rule.strength()).abs() < 1e-6);
        assert_eq!(edge.weight, 1.0, "edges start at the paper's weight 1");
    }
    // The feeding field is named: results[].id of the search feeds movie_id.
    let edge = dep(
        &graph.edges,
        &api("GET /search/movie"),
        &api("GET /movie/{movie_id}"),
    )
    .unwrap();
    let Evidence::Dependency { feeds } = &edge.evidence else {
        unreachable!()
    };
    assert_eq!(feeds[0].field, "results[].id");
    // Echoes and wrong entities feed nothing.
    for (from, to) in [
        ("GET /movie/{movie_id}", "GET /movie/{movie_id}/credits"),
        ("GET /search/person", "GET /movie/{movie_id}"),
        ("GET /search/movie", "GET /person/{person_id}"),
        ("GET /movie/{movie_id}/credits", "GET /credit/{credit_id}"),
    ] {
        let _ = dep(&graph.edges, &api(from), &api(to));
        if from != "GET /movie/{movie_id}/credits" {
            assert!(
                dep(&graph.edges, &api(from), &api(to)).is_none(),
                "unexpected {from} -> {to}"
            );
        }
    }
    // A list named after another kind of thing the paths name holds that thing's ids, not
    // the path's: the genre list's `genres[].id` and the latest show's `seasons[].id` are no
    // show ids (the latest show's own top-level `id` is).
    for from in ["GET /genre/tv/list", "GET /genre/movie/list"] {
        for to in ["GET /tv/{tv_id}", "GET /movie/{movie_id}"] {
            assert!(
                dep(&graph.edges, &api(from), &api(to)).is_none(),
                "unexpected {from} -> {to}"
            );
        }
    }
    let latest = dep(
        &graph.edges,
        &api("GET /tv/latest"),
        &api("GET /tv/{tv_id}"),
    )
    .expect("the latest show's id feeds tv_id");
    let Evidence::Dependency { feeds } = &latest.evidence else {
        unreachable!()
    };
    assert!(
        feeds.iter().all(|f| f.field == "id"),
        "only the top-level id: {feeds:?}"
    );
    // The season number of a show feeds the season endpoints by name.
    let season = dep(
        &graph.edges,
        &api("GET /tv/{tv_id}"),
        &api("GET /tv/{tv_id}/season/{season_number}"),
    )
    .expect("tv details feed season_number");
    assert!(season.params().any(|p| p == "season_number"));
    // Needs: /movie/{movie_id}/credits needs movie_id, search first among equals.
    let needs = graph.needs();
    let credits = &needs[&api("GET /movie/{movie_id}/credits")];
    assert_eq!(credits.len(), 1);
    assert_eq!(credits[0].param, "movie_id");
    let search = credits[0]
        .producers
        .iter()
        .find(|p| p.api == api("GET /search/movie"))
        .expect("search/movie produces movie_id");
    assert!(search.lookup, "a search takes the user's words");
    assert!(
        credits[0].producers.iter().any(|p| !p.lookup),
        "lists produce ids too"
    );
    assert_eq!(graph.nodes.len(), 54);
    assert!(graph.nodes.iter().all(|n| !n.insight.is_empty()));
}

/// Dependency edges against the consecutive API pairs of RestBench's gold paths.
#[test]
fn tmdb_dependency_edges_against_gold_pairs() {
    let catalog = tmdb_catalog();
    let ids = by_path(&catalog);
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let raw = std::fs::read_to_string(data_path("restbench-tmdb/restgpt/tmdb.json")).unwrap();
    let queries: Vec<serde_json::Value> = serde_json::from_str(&raw).unwrap();
    let mut gold: BTreeSet<(ApiId, ApiId)> = BTreeSet::new();
    let mut pairs = 0usize;
    let mut covered = 0usize;
    let edges: BTreeSet<(ApiId, ApiId)> = graph
        .edges_of_kind(EdgeKind::Dependency)
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    for q in &queries {
        let path: Vec<ApiId> = q["solution"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| ids.get(s.as_str()?.trim()).cloned())
            .collect();
        for w in path.windows(2) {
            if w[0] != w[1] {
                pairs += 1;
                let pair = (w[0].clone(), w[1].clone());
                covered += usize::from(edges.contains(&pair));
                gold.insert(pair);
            }
        }
    }
    let hit = gold.iter().filter(|p| edges.contains(p)).count();
    let precision = hit as f64 / edges.len() as f64;
    let recall = hit as f64 / gold.len() as f64;
    eprintln!(
        "TMDB dependency edges: {} edges, {} distinct gold pairs ({pairs} occurrences): precision {:.1}%, recall {:.1}% distinct, {:.1}% of occurrences",
        edges.len(),
        gold.len(),
        100.0 * precision,
        100.0 * recall,
        100.0 * covered as f64 / pairs as f64
    );
    for p in gold.iter().filter(|p| !edges.contains(p)) {
        eprintln!("  missed {} -> {}", p.0, p.1);
    }
    assert!(recall >= 0.6, "recall {recall}");
}

#[tokio::test]
async fn similarity_edges_from_an_embedder() {
    let catalog = tmdb_catalog();
    let mut docs: Vec<(ApiId, String)> = catalog
        .apis()
        .map(|(_, a)| (a.api.id.clone(), a.description().to_owned()))
        .collect();
    // Two APIs with the same text are as similar as can be.
    let twin = docs[1].1.clone();
    docs[0].1 = twin;
    let vectors = embed_docs(&ScriptedEmbedder::default(), &docs)
        .await
        .unwrap();
    assert_eq!(vectors.len(), 54);
    let graph = build_graph(&catalog, Some(&vectors), &GraphSettings::PAPER);
    let (a, b) = (&docs[0].0, &docs[1].0);
    let sim: Vec<&Edge> = graph.edges_of_kind(EdgeKind::Similarity).collect();
    assert!(
        sim.iter()
            .any(|e| (&e.from, &e.to) == (a.min(b), a.max(b)) && e.strength > 0.999),
        "identical docs are joined"
    );
    assert!(sim.iter().all(|e| e.strength >= 0.8 && e.from < e.to));
    let none = build_graph(
        &catalog,
        Some(&vectors),
        &GraphSettings {
            phi: 1.01,
            ..GraphSettings::PAPER
        },
    );
    assert_eq!(none.edges_of_kind(EdgeKind::Similarity).count(), 0);
}

#[test]
fn store_round_trip_with_experiences() {
    let catalog = tmdb_catalog();
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let mut store = GraphStore::in_memory().unwrap();
    assert!(store.build_info().unwrap().is_none());
    let info = BuildInfo {
        phi: Some(0.8),
        embedder: None,
        docs: "active".into(),
        built_at_ms: 7,
    };
    store.replace(&graph, &info).unwrap();
    let loaded = store.load().unwrap();
    assert_eq!(loaded.nodes, graph.nodes);
    assert_eq!(loaded.edges.len(), graph.edges.len());
    let mut sorted = loaded.clone();
    sorted.sort();
    assert_eq!(sorted.edges, graph.edges);
    assert_eq!(store.build_info().unwrap(), Some(info.clone()));

    let edge = graph
        .edges_of_kind(EdgeKind::Dependency)
        .next()
        .unwrap()
        .clone();
    let key = EdgeKey::of(&edge);
    let exp = Experience {
        iteration: 1,
        query: "Who plays in Dune?".into(),
        label: vec![edge.from.clone(), edge.to.clone()],
        answer: vec![edge.to.clone()],
        correct: false,
        trace: serde_json::json!({"steps": 1}),
    };
    store.add_experience(&key, &exp).unwrap();
    store.set_weight(&key, 0.25).unwrap();
    store
        .set_insight(&edge.to, "Needs an id from a search first.")
        .unwrap();
    let got = store.experiences_of(&edge.to).unwrap();
    assert_eq!(got, vec![(key.clone(), exp)]);
    let reloaded = store.load().unwrap();
    let stored = reloaded
        .edges
        .iter()
        .find(|e| EdgeKey::of(e) == key)
        .unwrap();
    assert_eq!(stored.weight, 0.25);
    assert_eq!(
        reloaded.node(&edge.to).unwrap().insight,
        "Needs an id from a search first."
    );
    // Removing the edge drops its experiences; an unknown edge is an error naming it.
    assert!(store.remove_edge(&key).unwrap());
    assert!(store.experiences_of(&edge.to).unwrap().is_empty());
    let err = store.set_weight(&key, 0.5).unwrap_err().to_string();
    assert!(err.contains("no dependency edge"), "{err}");
    // Rebuilding replaces everything.
    store.replace(&graph, &info).unwrap();
    assert_eq!(store.load().unwrap().edges.len(), graph.edges.len());
}

#[test]
fn sampling_is_proportional_to_weight_and_weights_become_error_rates() {
    let catalog = tmdb_catalog();
    let mut graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let mut deps: Vec<Edge> = graph
        .edges_of_kind(EdgeKind::Dependency)
        .take(3)
        .cloned()
        .collect();
    deps[0].weight = 3.0;
    deps[1].weight = 1.0;
    deps[2].weight = 0.0;
    graph.edges = deps.clone();
    let mut first = [0usize; 3];
    let trials = 4000;
    for seed in 0..trials {
        let drawn = sample_edges(&graph.edges, EdgeKind::Dependency, 1, seed);
        let i = deps.iter().position(|e| e == drawn[0]).unwrap();
        first[i] += 1;
    }
    let share = first[0] as f64 / trials as f64;
    assert!(
        (share - 0.75).abs() < 0.03,
        "weight 3 of 4 drawn first {share}"
    );
    assert_eq!(
        first[2], 0,
        "a zero-weight edge is never drawn before a positive one"
    );
    // max_try bounds the draw; the same seed draws the same edges.
    assert_eq!(
        sample_edges(&graph.edges, EdgeKind::Dependency, 2, 9).len(),
        2
    );
    assert_eq!(
        sample_edges(&graph.edges, EdgeKind::Dependency, 3, 9),
        sample_edges(&graph.edges, EdgeKind::Dependency, 3, 9)
    );
    assert!(sample_edges(&graph.edges, EdgeKind::Similarity, 3, 9).is_empty());
    assert_eq!(updated_weight(1.0, 3, 4), 0.25);
    assert_eq!(updated_weight(1.0, 4, 4), 0.0);
    assert_eq!(updated_weight(0.4, 0, 0), 0.4);
}

/// Functions with no response schema (as most RapidAPI tools): the name fallback links a
/// search or list to the ids and names it plausibly returns, weaker than any schema rule.
#[test]
fn without_response_schemas_names_and_descriptions_give_weaker_edges() {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let f = |name: &str, description: &str, params: &[&str]| {
        let props: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|p| ((*p).to_owned(), serde_json::json!({"type": "string"})))
            .collect();
        serde_json::json!({"type": "function", "function": {"name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": params}}})
    };
    let functions = serde_json::Value::Array(vec![
        f("search_videos", "Find videos by keyword", &["query"]),
        f("video_details", "Details of one video", &["video_id"]),
        f("get_messages", "The inbox", &[]),
        f("view_message", "Read one message", &["id"]),
        f("get_languages", "Supported languages", &[]),
        f("translate", "Translate a text", &["text", "language"]),
        f("get_weather", "Weather of a city", &["city"]),
        // Creating gives the new item's id; reading or transforming one gives none.
        f("upload_image", "Upload an image", &[]),
        f("image_features", "Features of one image", &["image_id"]),
        f(
            "create_image_frame",
            "Make a frame from image data",
            &["image_data"],
        ),
        f("get_image_frame", "One frame of a stored image", &["name"]),
        // A description that mentions videos does not make a session list a video source.
        f("get_sessions", "Sessions of your videos", &[]),
        // An API about one message (it takes its `id`) lists replies, not messages.
        f("message_replies", "Replies to a message", &["id"]),
        // A count names what it counts; an API about one message lists none of its kind.
        f("total_messages", "How many messages there are", &[]),
        f("get_message_languages", "Languages of one message", &["id"]),
    ]);
    let bytes = serde_json::to_vec(&functions).unwrap();
    let batch = read_bytes("media.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let id = |n: &str| -> ApiId { format!("media/{n}").parse().unwrap() };
    let edges: Vec<(String, String, Rule, f32)> = graph
        .edges_of_kind(EdgeKind::Dependency)
        .map(|e| {
            let Evidence::Dependency { feeds } = &e.evidence else {
                unreachable!()
            };
            (
                e.from.to_string(),
                e.to.to_string(),
                feeds[0].rule,
                e.strength,
            )
        })
        .collect();
    let has = |from: &str, to: &str, rule: Rule| {
        edges.iter().any(|(f, t, r, _)| {
            f == &id(from).to_string() && t == &id(to).to_string() && *r == rule
        })
    };
    assert!(
        has("search_videos", "video_details", Rule::NamedEntity),
        "{edges:?}"
    );
    assert!(
        has("get_messages", "view_message", Rule::NamedList),
        "{edges:?}"
    );
    assert!(
        has("get_languages", "translate", Rule::NamedList),
        "{edges:?}"
    );
    assert!(
        has("upload_image", "image_features", Rule::NamedEntity),
        "{edges:?}"
    );
    assert!(
        has("get_messages", "message_replies", Rule::NamedList),
        "{edges:?}"
    );
    // Listing messages (or languages: the bare-id rule goes by the consumer's name) feeds the
    // `id` of an API about one message; that API feeds no `language` of its own.
    assert!(
        has("get_messages", "get_message_languages", Rule::NamedList),
        "{edges:?}"
    );
    assert!(
        has("get_languages", "get_message_languages", Rule::NamedList),
        "{edges:?}"
    );
    assert_eq!(edges.len(), 7, "nothing else is linked: {edges:?}");
    // Every name-derived edge is weaker than the weakest schema rule.
    assert!(
        edges
            .iter()
            .all(|(_, _, _, s)| *s < Rule::SameEntityList.strength())
    );
    // The evidence says where it came from.
    let e = dep(&graph.edges, &id("search_videos"), &id("video_details")).unwrap();
    assert_eq!(e.params().collect::<Vec<_>>(), ["video_id"]);
}

/// Spotify's shapes: bare `{id}` path parameters, a search answering lists of several kinds
/// (`albums.items[].id`), nested objects that are not the API's own (`owner.id`), enum and
/// free-text parameters sharing names with every response (`type`, `name`), and PUT/DELETE
/// APIs without a response.
#[test]
fn bare_ids_kinds_of_search_results_nested_owners_and_plain_names() {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let spec = serde_json::json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
    "paths": {
      "/search": {"get": {"summary": "Search albums and artists",
        "parameters": [{"name": "q", "in": "query", "required": true, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
          "type": "object", "properties": {
            "albums": {"type": "object", "properties": {"items": {"type": "array", "items": {
              "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                "type": {"type": "string"}}}}}},
            "artists": {"type": "object", "properties": {"items": {"type": "array", "items": {
              "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}}}
          }}}}}}}},
      "/albums/{id}": {"get": {"summary": "An album",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}},
      "/artists/{id}": {"get": {"summary": "An artist",
        "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}},
      "/users/{user_id}/playlists": {"post": {"summary": "Create a playlist",
        "parameters": [{"name": "user_id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
          "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}},
        "responses": {"201": {"description": "ok", "content": {"application/json": {"schema": {
          "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
            "owner": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}}}}},
      "/playlists/{playlist_id}/tracks": {"post": {"summary": "Add tracks to a playlist",
        "parameters": [{"name": "playlist_id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"201": {"description": "ok"}}}},
      "/me/top/{type}": {"get": {"summary": "Your top artists or tracks",
        "parameters": [{"name": "type", "in": "path", "required": true,
          "schema": {"type": "string", "enum": ["artists", "tracks"]}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
          "type": "object", "properties": {"items": {"type": "array", "items": {
            "type": "object", "properties": {"type": {"type": "string"}}}}}}}}}}}},
      "/me/following": {"put": {"summary": "Follow artists or users",
        "parameters": [{"name": "ids", "in": "query", "required": true, "schema": {"type": "string"}}],
        "responses": {"204": {"description": "done"}}}}
    }});
    let bytes = serde_json::to_vec(&spec).unwrap();
    let batch = read_bytes("music.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let ids = by_path(&catalog);
    let api = |p: &str| ids.get(p).unwrap_or_else(|| panic!("{p}")).clone();
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let edges: Vec<String> = graph
        .edges_of_kind(EdgeKind::Dependency)
        .map(|e| format!("{} -> {} {:?}", e.from, e.to, e.evidence))
        .collect();
    for (from, to, field) in [
        ("GET /search", "GET /albums/{id}", "albums.items[].id"),
        ("GET /search", "GET /artists/{id}", "artists.items[].id"),
        (
            "POST /users/{user_id}/playlists",
            "POST /playlists/{playlist_id}/tracks",
            "id",
        ),
    ] {
        let e = dep(&graph.edges, &api(from), &api(to))
            .unwrap_or_else(|| panic!("no {from} -> {to}: {edges:#?}"));
        let Evidence::Dependency { feeds } = &e.evidence else {
            unreachable!()
        };
        let fields: Vec<&str> = feeds.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            fields,
            [field],
            "{from} -> {to}: the owner's id is no playlist's"
        );
        assert_eq!(feeds[0].rule.strength(), e.strength);
    }
    // Nothing feeds the enum `type` nor the free-text `name`; the PUT feeds nothing.
    assert_eq!(edges.len(), 3, "{edges:#?}");
}

/// Spotify's `GET /me`: a path that names no entity, an operation named after the user, and
/// a top-level `id` that creating a playlist for that user needs.
#[test]
fn the_current_users_profile_feeds_the_user_id() {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let spec = serde_json::json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
    "paths": {
      "/me": {"get": {"operationId": "get-current-users-profile",
        "summary": "Get the current user's profile",
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
          "type": "object", "properties": {"id": {"type": "string"},
            "display_name": {"type": "string"}}}}}}}}},
      "/users/{user_id}/playlists": {"post": {"operationId": "create-playlist",
        "parameters": [{"name": "user_id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"201": {"description": "ok"}}}}
    }});
    let bytes = serde_json::to_vec(&spec).unwrap();
    let batch = read_bytes("music.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let ids = by_path(&catalog);
    let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
    let e = dep(
        &graph.edges,
        &ids["GET /me"],
        &ids["POST /users/{user_id}/playlists"],
    )
    .expect("GET /me feeds user_id");
    let Evidence::Dependency { feeds } = &e.evidence else {
        unreachable!()
    };
    assert_eq!(feeds[0].field, "id");
    assert_eq!(feeds[0].rule, toolsmith_graph::Rule::NamedEntity);
}

#[test]
fn gold_pairs_count_linked_reversed_and_used_edges() {
    let id = |s: &str| -> ApiId { format!("t/{s}").parse().unwrap() };
    let edge = |from: &str, to: &str| Edge {
        kind: EdgeKind::Dependency,
        from: id(from),
        to: id(to),
        weight: 1.0,
        strength: 1.0,
        evidence: Evidence::Dependency { feeds: Vec::new() },
    };
    let graph = toolsmith_graph::Graph {
        nodes: Vec::new(),
        edges: vec![
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "a"),
            edge("b", "d"),
        ],
    };
    // Consecutive: a->b, b->c, a->c (the repeat a, a is no pair); ordered adds nothing new.
    let paths = vec![
        vec![id("a"), id("b"), id("c")],
        vec![id("a"), id("a"), id("c")],
    ];
    let g = graph.gold_pairs(&paths);
    assert_eq!((g.paths, g.pairs, g.pairs_linked), (2, 3, 2));
    assert_eq!(g.pairs_reversed, 1, "a -> c is only linked as c -> a");
    assert_eq!((g.edges, g.edges_consecutive, g.edges_ordered), (4, 2, 2));
    assert!((g.recall - 2.0 / 3.0).abs() < 1e-9);
    assert!((g.precision_consecutive - 0.5).abs() < 1e-9);
    // An ordered pair that is not consecutive counts for the looser precision only.
    let g = graph.gold_pairs(&[vec![id("b"), id("x"), id("d")]]);
    assert_eq!(
        (g.edges_consecutive, g.edges_ordered, g.pairs_linked),
        (0, 1, 0)
    );
}
