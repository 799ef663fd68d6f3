//! The source's description beside a refined doc ([`Field::Source`]): a rewrite adds words for
//! search but, with the source's weight above 0, never takes the spec's own words away; at
//! weight 0 (the default) everything ranks as before.

use std::sync::Arc;

use toolsmith_catalog::testing::tmdb_store;
use toolsmith_catalog::{ApiId, Catalog, DocLabel, DocSelector, Scope, Store};
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseIndex, DenseRetriever, DenseSettings, Explanation, Field,
    FieldWeights, Filter, Hit, RetrieveSettings, Retriever,
};

use crate::views::{add_active_doc, backends, corpus};

/// TMDB's words for `GET /movie/{movie_id}` (as imported) that its refined description drops.
const DETAILS_QUERY: &str = "primary information about a movie";
/// A rewrite of the details API's description that keeps none of the words above.
const DETAILS_REWRITE: &str = "Look up one film by its numeric id: title, runtime, budget, genres.";

/// Adds and activates a `draft` doc version of the API at `path` with `description`.
fn refine(store: &mut Store, path: &str, description: &str) -> ApiId {
    add_active_doc(store, path, "draft", |doc| {
        description.clone_into(&mut doc.description);
    })
}

fn view(store: &Store, selector: &DocSelector) -> Catalog {
    store.catalog(selector, &Scope::default()).unwrap()
}

/// The active docs' corpus with the original descriptions beside them.
fn with_source(store: &Store) -> Arc<Corpus> {
    let original = view(store, &DocSelector::Label(DocLabel::original()));
    Arc::new(Corpus::from_catalog_with_source(
        &view(store, &DocSelector::Active),
        &original,
    ))
}

fn bm25(corpus: Arc<Corpus>, source: f32) -> Bm25Index {
    let weights = FieldWeights {
        source,
        ..Bm25Settings::DEFAULT_WEIGHTS
    };
    Bm25Index::build(
        corpus,
        Bm25Settings {
            weights,
            ..Bm25Settings::default()
        },
    )
}

async fn top(retriever: &dyn Retriever, query: &str) -> Vec<Hit> {
    retriever
        .search(query, 10, &Filter::default())
        .await
        .unwrap()
}

#[test]
fn the_source_field_holds_the_imported_description_only_where_the_chosen_doc_rewrote_it() {
    let mut store = tmdb_store();
    // The original docs chosen: nothing to add, every source field empty.
    let plain = with_source(&store);
    assert_eq!(plain.len(), 54);
    assert!(
        plain
            .docs()
            .iter()
            .all(|d| d.field(Field::Source).is_empty())
    );
    assert_eq!(
        plain.docs(),
        corpus(&store).docs(),
        "the same corpus as before"
    );
    let api = refine(&mut store, "GET /movie/{movie_id}", DETAILS_REWRITE);
    let refined = with_source(&store);
    let doc = refined.docs().iter().find(|d| d.api == api).unwrap();
    assert_eq!(doc.field(Field::ApiDescription), DETAILS_REWRITE);
    assert!(
        doc.field(Field::Source)
            .starts_with("Get the primary information about a movie."),
        "{doc:?}"
    );
    let others = refined.docs().iter().filter(|d| d.api != api);
    assert!(others.clone().all(|d| d.field(Field::Source).is_empty()));
    // A refined doc that kept the description word for word adds nothing either.
    let kept = view(&store, &DocSelector::Label(DocLabel::original()))
        .apis()
        .find(|(_, a)| a.api.id == api)
        .map(|(_, a)| a.description().to_owned())
        .unwrap();
    refine(&mut store, "GET /movie/{movie_id}", &kept);
    assert!(
        with_source(&store)
            .docs()
            .iter()
            .all(|d| d.field(Field::Source).is_empty())
    );
}

/// The source is read (a second pass over the catalog) only when BM25 or dense weighs it.
#[test]
fn the_settings_weigh_the_source_only_when_bm25_or_dense_gives_it_a_weight() {
    let default = RetrieveSettings::default();
    assert!(!default.weighs_source(), "off by default");
    let mut bm25 = default;
    bm25.bm25.weights.source = 1.0;
    assert!(bm25.weighs_source());
    let mut dense = default;
    dense.dense.fields.source = 0.5;
    assert!(dense.weighs_source());
}

#[tokio::test]
async fn bm25_finds_a_refined_api_by_its_source_words_only_when_the_source_counts() {
    let mut store = tmdb_store();
    let api = refine(&mut store, "GET /movie/{movie_id}", DETAILS_REWRITE);
    let refined = with_source(&store);
    let on = top(&bm25(refined.clone(), 1.0), DETAILS_QUERY).await;
    assert_eq!(on[0].api, api, "{on:?}");
    let off = top(&bm25(refined.clone(), 0.0), DETAILS_QUERY).await;
    assert_ne!(off[0].api, api, "{off:?}");
    // Weight 0 ranks exactly as a corpus without the field (today's).
    let today = corpus(&store);
    for query in [DETAILS_QUERY, "film runtime and budget", "popular tv shows"] {
        let before = top(&bm25(today.clone(), 0.0), query).await;
        assert_eq!(top(&bm25(refined.clone(), 0.0), query).await, before);
        let default = Bm25Index::build(refined.clone(), Bm25Settings::default());
        assert_eq!(top(&default, query).await, before, "the default is off");
    }
    // The explanation names the field the words matched in.
    let why = bm25(refined, 1.0)
        .explain(DETAILS_QUERY, &[api], 10, &Filter::default())
        .await
        .unwrap();
    let Some(Some(Explanation::Bm25(e))) = why.first() else {
        panic!("{why:?}")
    };
    let primary = e.terms.iter().find(|t| t.term == "primary").unwrap();
    let fields: Vec<Field> = primary.fields.iter().map(|f| f.field).collect();
    assert_eq!(fields, [Field::Source]);
}

fn dense_settings(base: DenseSettings, source: f32) -> DenseSettings {
    DenseSettings {
        fields: FieldWeights {
            source,
            ..DenseSettings::DEFAULT_FIELDS
        },
        ..base
    }
}

async fn dense_top(index: DenseIndex, query: &str) -> Vec<Hit> {
    let embedder = ScriptedEmbedder::new(index.dimensions());
    top(
        &DenseRetriever::new(Arc::new(index), Arc::new(embedder)),
        query,
    )
    .await
}

#[tokio::test]
async fn dense_embeds_the_source_as_a_view_that_raises_the_api_on_every_backend() {
    let mut store = tmdb_store();
    let plain = corpus(&store);
    let api = refine(&mut store, "GET /movie/{movie_id}", DETAILS_REWRITE);
    let refined = with_source(&store);
    let doc = refined
        .docs()
        .iter()
        .find(|d| d.api == api)
        .unwrap()
        .clone();
    let embedder = ScriptedEmbedder::new(256);
    for (name, base) in backends() {
        let on = dense_settings(base, 1.0);
        let before = embedder.texts_embedded();
        let index = DenseIndex::build(refined.clone(), &embedder, on)
            .await
            .unwrap();
        assert_eq!(
            embedder.texts_embedded() - before,
            55,
            "{name}: 54 docs, 1 view"
        );
        assert_eq!(index.views(), 1, "{name}");
        // The doc's own text is the refined one: the source is not mixed into it.
        let own = on.embedded_text(&doc);
        assert!(
            own.contains(DETAILS_REWRITE) && !own.contains("primary"),
            "{own}"
        );
        let hits = dense_top(index, DETAILS_QUERY).await;
        assert_eq!(hits[0].api, api, "{name}: {hits:?}");
        let source = doc.source_text(&on.fields).unwrap();
        let cosine =
            toolsmith_retrieve::dot(&embedder.vector(DETAILS_QUERY), &embedder.vector(&source));
        assert!((hits[0].score - cosine).abs() < 1e-5, "{name}: {hits:?}");
        // Off: no view, and the same vectors and ranking as a corpus without the field.
        let off = DenseIndex::build(refined.clone(), &embedder, dense_settings(base, 0.0))
            .await
            .unwrap();
        assert_eq!(off.views(), 0, "{name}");
        let today = DenseIndex::build(corpus(&store), &embedder, base)
            .await
            .unwrap();
        assert_eq!(off.matrix(), today.matrix(), "{name}");
        let hits = dense_top(off, DETAILS_QUERY).await;
        assert_ne!(hits[0].api, api, "{name}: {hits:?}");
        if name != "hnsw" {
            assert_eq!(hits, dense_top(today, DETAILS_QUERY).await, "{name}");
        }
    }
    // The original docs chosen: no source view, whatever the weight.
    let index = DenseIndex::build(
        plain,
        &embedder,
        dense_settings(DenseSettings::default(), 1.0),
    )
    .await
    .unwrap();
    assert_eq!(index.views(), 0);
}

#[tokio::test]
async fn a_refresh_keeps_rows_and_source_views_aligned_when_another_api_is_refined() {
    let mut store = tmdb_store();
    let details = refine(&mut store, "GET /movie/{movie_id}", DETAILS_REWRITE);
    let embedder = ScriptedEmbedder::new(256);
    let settings = dense_settings(DenseSettings::default(), 1.0);
    let first = DenseIndex::build(with_source(&store), &embedder, settings)
        .await
        .unwrap();
    assert_eq!(embedder.texts_embedded(), 55);
    // A second API is rewritten: only its new doc text is embedded; its source view is the
    // text its doc had, whose vector is reused.
    let reviews = refine(
        &mut store,
        "GET /movie/{movie_id}/reviews",
        "What audiences wrote about a film, page by page.",
    );
    let refreshed = first.refresh(with_source(&store), &embedder).await.unwrap();
    assert_eq!(embedder.texts_embedded(), 56);
    assert_eq!(refreshed.views(), 2);
    // The same rows, in the same order, as an index built from scratch.
    let fresh = DenseIndex::build(with_source(&store), &ScriptedEmbedder::new(256), settings)
        .await
        .unwrap();
    assert_eq!(refreshed.matrix(), fresh.matrix());
    let hits = dense_top(refreshed.clone(), DETAILS_QUERY).await;
    assert_eq!(hits[0].api, details, "{hits:?}");
    let hits = dense_top(refreshed.clone(), "the user reviews for a movie").await;
    assert_eq!(hits[0].api, reviews, "{hits:?}");
    // The details API gets its description back: its source view is dropped.
    let original = view(&store, &DocSelector::Label(DocLabel::original()))
        .apis()
        .find(|(_, a)| a.api.id == details)
        .map(|(_, a)| a.description().to_owned())
        .unwrap();
    refine(&mut store, "GET /movie/{movie_id}", &original);
    let third = refreshed
        .refresh(with_source(&store), &embedder)
        .await
        .unwrap();
    assert_eq!(third.views(), 1);
    assert_eq!(
        embedder.texts_embedded(),
        56,
        "the doc's text is its former source view's: reused, nothing embedded"
    );
    let fresh = DenseIndex::build(with_source(&store), &ScriptedEmbedder::new(256), settings)
        .await
        .unwrap();
    assert_eq!(third.matrix(), fresh.matrix());
}
