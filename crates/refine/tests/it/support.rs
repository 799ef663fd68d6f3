//! A two-API movie catalog, its simulated executor, and a recording observer.

use std::sync::{Arc, Mutex};

use toolsmith_catalog::{
    ApiId, Catalog, DocSelector, ImportOptions, Scope, Store, ToolEntry, read_bytes,
};
use toolsmith_exec::{ApiBook, Executor, Provenance, Simulator, Validated};
use toolsmith_refine::{RefineObserver, Round, RunEnd};

const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1", "description": "Movie data. Pricing: $5 per month. Visit our site at https://movies.example.com"},
  "paths": {
    "/search/movie": {"get": {"summary": "Search movies by title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "Movies", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"results": {"type": "array", "items": {"type": "object",
          "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}}}},
    "/movie/{movie_id}": {"get": {"summary": "Movie details",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "A movie", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}
  }}"#;

pub(crate) fn search() -> ApiId {
    "movies/get_search_movie".parse().unwrap()
}

pub(crate) fn details() -> ApiId {
    "movies/get_movie_movie_id".parse().unwrap()
}

pub(crate) fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("movies.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

pub(crate) fn catalog(store: &Store) -> Catalog {
    store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
}

/// The planned tools with only `apis`.
pub(crate) fn tools(store: &Store, apis: &[ApiId]) -> Vec<ToolEntry> {
    toolsmith_refine::plan(&catalog(store), |id| apis.contains(id))
}

/// The schema simulator behind argument validation: a missing required argument fails.
pub(crate) fn executor(store: &Store) -> Arc<dyn Executor> {
    let book = Arc::new(ApiBook::from_catalog(&catalog(store)));
    Arc::new(Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    ))
}

/// Records the events it is told.
#[derive(Default)]
pub(crate) struct Recorder {
    pub events: Mutex<Vec<String>>,
}

impl RefineObserver for Recorder {
    fn round_finished(&self, api: &ApiId, round: &Round) {
        self.events
            .lock()
            .unwrap()
            .push(format!("round {api} {}", round.round));
    }
    fn api_finished(&self, api: &ApiId, version: Option<u32>) {
        self.events
            .lock()
            .unwrap()
            .push(format!("api {api} {version:?}"));
    }
    fn stopped(&self, end: &RunEnd) {
        self.events
            .lock()
            .unwrap()
            .push(format!("stopped {}", end.as_str()));
    }
}

/// The `queries` doc version of `api` (the views a run stored).
pub(crate) fn queries_doc(store: &Store, api: &ApiId) -> toolsmith_catalog::DocVersion {
    store
        .doc_history(&toolsmith_catalog::DocTarget::Api(api.clone()))
        .unwrap()
        .into_iter()
        .find(|d| d.label.as_str() == "queries")
        .expect("a queries version")
}

/// The views of `api`'s `queries` doc version.
pub(crate) fn queries_of(store: &Store, api: &ApiId) -> Vec<String> {
    queries_doc(store, api).doc.queries
}
