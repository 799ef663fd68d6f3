//! Synthesized sets: sampling, the solvability filter over the simulator, resuming a killed
//! run without asking the writer again, and the eval split as a dataset and an exported file.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::json;
use toolsmith_catalog::{ApiId, Catalog, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_eval::synth::{
    ChainStart, DEFAULT_DOC_ECHO_MAX, DEFAULT_TWO_STEP_SHARE, DropReason, ExportFormat, Fate,
    GoldPath, HUMAN_TMDB_ECHO_P10, PathKind, PathWriter, Phrasing, PlannedCall, SampleSizes,
    SetSpec, Split, SynthObserver, SynthStore, Synthesizer, WriteAsk, WriteError, WrittenQuery,
    doc_echo, eval_dataset, export, sample_paths,
};
use toolsmith_exec::{ApiBook, Mode, Provenance, Simulator, Validated};

const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Films", "version": "1"}, "paths": {
  "/search/film": {"get": {"summary": "Find films by title",
    "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"results": {"type": "array", "minItems": 1, "items": {
        "type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
        "required": ["id", "title"]}}}, "required": ["results"]}}}}}}},
  "/film/{film_id}": {"get": {"summary": "A film's details",
    "parameters": [{"name": "film_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"id": {"type": "integer"}, "overview": {"type": "string"}},
      "required": ["id", "overview"]}}}}}}},
  "/film/{film_id}/cast": {"get": {"summary": "A film's cast",
    "parameters": [{"name": "film_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"cast": {"type": "array", "minItems": 1, "items": {"type": "string"}}},
      "required": ["cast"]}}}}}}}
}}"#;

fn films() -> (Store, Catalog) {
    let batch = read_bytes("films.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (store, catalog)
}

fn ids(catalog: &Catalog) -> Vec<ApiId> {
    catalog.apis().map(|(_, a)| a.api.id.clone()).collect()
}

fn api(catalog: &Catalog, suffix: &str) -> ApiId {
    ids(catalog)
        .into_iter()
        .find(|a| a.to_string().ends_with(suffix))
        .unwrap()
}

fn spec(seed: u64) -> SetSpec {
    SetSpec {
        sizes: SampleSizes {
            single: 2,
            chains: 2,
            combos: 0,
            seed,
            two_step_share: DEFAULT_TWO_STEP_SHARE,
            chain_start: ChainStart::EntityFirst,
        },
        per_path: 2,
        phrasings: Phrasing::ALL.to_vec(),
        eval_share: 0.5,
        dedup_threshold: 0.9,
        mode: Mode::Simulate,
        answer_check: false,
        // The scripted requests spell their APIs' ids; the echo filter has its own tests.
        doc_echo_max: 1.0,
        doc_echo_min: 0.0,
        writer: None,
    }
}

/// Writes, per path, one good request (references resolve) and one broken the way `bad` says.
struct Scripted {
    asks: Mutex<BTreeMap<Vec<ApiId>, usize>>,
    /// A path whose write fails (as a run killed while writing it), until cleared.
    fail_on: Mutex<Option<Vec<ApiId>>>,
    calls: AtomicUsize,
}

impl Scripted {
    fn new() -> Self {
        Self {
            asks: Mutex::new(BTreeMap::new()),
            fail_on: Mutex::new(None),
            calls: AtomicUsize::new(0),
        }
    }
}

fn good_call(api: &ApiId, step: usize) -> PlannedCall {
    let arguments = if api.to_string().contains("search") {
        json!({"query": "Alien"})
    } else if step == 0 {
        json!({"film_id": 42})
    } else {
        json!({"film_id": {"$from": step - 1, "path": if step == 1 { ".results[0].id" } else { ".id" }}})
    };
    PlannedCall {
        api: api.clone(),
        arguments,
    }
}

#[async_trait]
impl PathWriter for Scripted {
    async fn write(&self, ask: &WriteAsk) -> Result<Vec<WrittenQuery>, WriteError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        *self
            .asks
            .lock()
            .unwrap()
            .entry(ask.path.apis.clone())
            .or_default() += 1;
        if self.fail_on.lock().unwrap().as_ref() == Some(&ask.path.apis) {
            return Err(WriteError("the model went away".into()));
        }
        let names: Vec<String> = ask.path.apis.iter().map(ToString::to_string).collect();
        let good: Vec<PlannedCall> = ask
            .path
            .apis
            .iter()
            .enumerate()
            .map(|(i, a)| good_call(a, i))
            .collect();
        // Broken: a single call with a missing required argument fails; a chain's reference
        // points at a field the producer never returns.
        let mut broken = good.clone();
        match broken.last_mut() {
            Some(last) if ask.path.apis.len() > 1 => {
                last.arguments = json!({"film_id": {"$from": 0, "path": ".nothing[0].id"}});
            }
            Some(last) => last.arguments = json!({}),
            None => {}
        }
        Ok(vec![
            WrittenQuery {
                text: format!("good request over {}", names.join(" then ")),
                phrasing: Phrasing::Terse,
                calls: good,
            },
            WrittenQuery {
                text: format!("broken request over {}", names.join(" then ")),
                phrasing: Phrasing::Conversational,
                calls: broken,
            },
        ])
    }
}

struct Quiet;
impl SynthObserver for Quiet {
    fn path_done(&self, _: usize, _: usize) {}
}

fn synthesizer(catalog: &Catalog, writer: Arc<Scripted>) -> Synthesizer {
    let book = Arc::new(ApiBook::from_catalog(catalog));
    Synthesizer {
        writer,
        executor: Arc::new(Validated::new(
            Simulator::new(Arc::clone(&book)),
            book,
            Provenance::Simulated,
        )),
        checker: None,
        embedder: None,
        concurrency: 2,
    }
}

/// search -> details -> cast, search -> cast: what the tool graph's needs say.
fn producers(catalog: &Catalog) -> BTreeMap<ApiId, Vec<ApiId>> {
    let (search, details, cast) = (
        api(catalog, "search_film"),
        api(catalog, "film_id"),
        api(catalog, "cast"),
    );
    BTreeMap::from([
        (details.clone(), vec![search.clone()]),
        (cast, vec![details, search]),
    ])
}

#[test]
fn sampling_is_deterministic_and_chains_follow_dependencies() {
    let (_, catalog) = films();
    let producers = producers(&catalog);
    let sizes = spec(7).sizes;
    let a = sample_paths(&catalog, &producers, &sizes);
    assert_eq!(a, sample_paths(&catalog, &producers, &sizes));
    let singles = a.iter().filter(|p| p.kind == PathKind::Single).count();
    let chains: Vec<&GoldPath> = a.iter().filter(|p| p.kind == PathKind::Chain).collect();
    assert_eq!((singles, chains.len()), (2, 2));
    for chain in chains {
        // Each step is fed by the one before it.
        for w in chain.apis.windows(2) {
            assert!(producers[&w[1]].contains(&w[0]), "{chain:?}");
        }
    }
    // One tool, one category: no within-category or cross-category combinations.
    let mut sizes = sizes;
    sizes.combos = 3;
    let with_combos = sample_paths(&catalog, &producers, &sizes);
    assert!(with_combos.iter().any(|p| p.kind == PathKind::WithinTool));
    assert!(
        with_combos
            .iter()
            .all(|p| !matches!(p.kind, PathKind::WithinCategory | PathKind::CrossCategory))
    );
}

#[test]
fn single_api_requests_go_first_to_apis_that_need_no_looked_up_id() {
    let (_, catalog) = films();
    let producers = producers(&catalog);
    let search = api(&catalog, "search_film");
    let singles_of = |seed, start| {
        let sizes = SampleSizes {
            single: 1,
            chains: 0,
            combos: 0,
            seed,
            two_step_share: DEFAULT_TWO_STEP_SHARE,
            chain_start: start,
        };
        sample_paths(&catalog, &producers, &sizes)
    };
    let mut any_elsewhere = false;
    for seed in 0..20 {
        // Only the search takes what a user knows (a title); the others need its film id.
        assert_eq!(
            singles_of(seed, ChainStart::EntityFirst)[0].apis,
            vec![search.clone()]
        );
        any_elsewhere |= singles_of(seed, ChainStart::Any)[0].apis != vec![search.clone()];
    }
    assert!(
        any_elsewhere,
        "without the preference an id-fed API comes up"
    );
}

#[test]
fn chains_start_at_the_entity_search_and_follow_the_length_mix() {
    let (_, catalog) = films();
    let producers = producers(&catalog);
    let search = api(&catalog, "search_film");
    let chains_of = |seed, start, share, n| {
        let sizes = SampleSizes {
            single: 0,
            chains: n,
            combos: 0,
            seed,
            two_step_share: share,
            chain_start: start,
        };
        sample_paths(&catalog, &producers, &sizes)
    };
    let mut any_elsewhere = false;
    for seed in 0..20 {
        // Three two-step chains exist, two of them from the search: those are picked.
        let picked = chains_of(seed, ChainStart::EntityFirst, 1.0, 2);
        assert_eq!(picked.len(), 2);
        assert!(picked.iter().all(|p| p.apis[0] == search), "{picked:?}");
        let random = chains_of(seed, ChainStart::Any, 1.0, 2);
        any_elsewhere |= random.iter().any(|p| p.apis[0] != search);
    }
    assert!(
        any_elsewhere,
        "without the preference another start comes up"
    );
    let lengths = |paths: Vec<GoldPath>| -> Vec<usize> {
        let mut l: Vec<usize> = paths.iter().map(|p| p.apis.len()).collect();
        l.sort_unstable();
        l
    };
    // 0.7 of 3: two of two APIs, one of three; all three-step when asked, the graph has one.
    assert_eq!(
        lengths(chains_of(1, ChainStart::EntityFirst, 0.7, 3)),
        vec![2, 2, 3]
    );
    assert_eq!(
        lengths(chains_of(1, ChainStart::EntityFirst, 0.0, 3)),
        vec![2, 2, 3]
    );
    assert_eq!(
        lengths(chains_of(1, ChainStart::EntityFirst, 1.0, 3)),
        vec![2, 2, 2]
    );
}

#[tokio::test]
async fn solvable_requests_are_kept_and_unsolvable_ones_dropped_by_reason() {
    let (_, catalog) = films();
    let store = SynthStore::in_memory().unwrap();
    let spec = spec(1);
    let paths = sample_paths(&catalog, &producers(&catalog), &spec.sizes);
    let id = store.create_set("films", &spec, &paths).unwrap();
    let set = store.set("films").unwrap().unwrap();
    assert_eq!(set.id, id);
    let writer = Arc::new(Scripted::new());
    let summary = synthesizer(&catalog, Arc::clone(&writer))
        .run(&store, &set, &catalog, &Quiet)
        .await
        .unwrap();
    assert_eq!(summary.paths_done, paths.len());
    let queries = store.queries(id).unwrap();
    for q in &queries {
        let kept = matches!(q.fate, Fate::Kept { .. });
        assert_eq!(kept, q.text.starts_with("good"), "{q:?}");
        if let Fate::Dropped { reason } = q.fate {
            let expected = if q.path.apis.len() > 1 {
                DropReason::UnresolvedReference
            } else {
                DropReason::CallFailed
            };
            assert_eq!(reason, expected, "{q:?}");
        }
    }
    assert_eq!(summary.kept.values().sum::<usize>(), paths.len());
    assert_eq!(summary.dropped["call_failed"], 2);
    assert_eq!(summary.dropped["unresolved_reference"], 2);
    assert!(store.set("films").unwrap().unwrap().finished_ms.is_some());
}

#[tokio::test]
async fn a_killed_run_resumes_without_asking_again() {
    let (_, catalog) = films();
    let store = SynthStore::in_memory().unwrap();
    let spec = spec(3);
    let paths = sample_paths(&catalog, &producers(&catalog), &spec.sizes);
    store.create_set("films", &spec, &paths).unwrap();
    let set = store.set("films").unwrap().unwrap();
    let writer = Arc::new(Scripted::new());
    *writer.fail_on.lock().unwrap() = Some(paths[1].apis.clone());
    let synth = synthesizer(&catalog, Arc::clone(&writer));
    let first = synth.run(&store, &set, &catalog, &Quiet).await.unwrap();
    assert_eq!(first.paths_done, paths.len() - 1);
    assert!(store.set("films").unwrap().unwrap().finished_ms.is_none());

    *writer.fail_on.lock().unwrap() = None;
    let second = synth.run(&store, &set, &catalog, &Quiet).await.unwrap();
    assert_eq!(second.paths_done, paths.len());
    // Every path was asked once, but the one that failed twice; nothing stored was redone.
    let asks = writer.asks.lock().unwrap().clone();
    for p in &paths {
        let expected = if p.apis == paths[1].apis { 2 } else { 1 };
        assert_eq!(asks[&p.apis], expected, "{p:?}");
    }
    assert_eq!(writer.calls.load(Ordering::SeqCst), paths.len() + 1);
    assert_eq!(store.queries(set.id).unwrap().len(), 2 * paths.len());
}

#[tokio::test]
async fn the_eval_split_loads_as_a_dataset_and_round_trips_through_export() {
    let (catalog_store, catalog) = films();
    let store = SynthStore::in_memory().unwrap();
    let mut spec = spec(5);
    spec.eval_share = 1.0;
    let paths = sample_paths(&catalog, &producers(&catalog), &spec.sizes);
    store.create_set("films", &spec, &paths).unwrap();
    let set = store.set("films").unwrap().unwrap();
    synthesizer(&catalog, Arc::new(Scripted::new()))
        .run(&store, &set, &catalog, &Quiet)
        .await
        .unwrap();
    let eval = store.split(set.id, Split::Eval).unwrap();
    assert_eq!(eval.len(), paths.len());
    assert!(store.split(set.id, Split::Index).unwrap().is_empty());

    let dataset = eval_dataset(&store, "films").unwrap();
    assert_eq!(dataset.name, "synth:films");
    let resolved = dataset.resolve(&catalog_store).unwrap();
    assert_eq!(resolved.skipped, 0);
    let gold: Vec<(String, Vec<ApiId>)> = eval
        .iter()
        .map(|q| (q.text.clone(), q.path.apis.clone()))
        .collect();
    let from_db: Vec<(String, Vec<ApiId>)> = resolved
        .queries
        .iter()
        .map(|q| (q.text.clone(), q.gold.clone()))
        .collect();
    assert_eq!(from_db, gold);

    let (file, unresolvable) = export(&eval, &catalog_store, ExportFormat::Restbench).unwrap();
    assert_eq!(unresolvable, 0);
    assert!(
        file[0]["solution"][0]
            .as_str()
            .unwrap()
            .starts_with("GET /")
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("films.json");
    std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let loaded = toolsmith_eval::load(&path).unwrap();
    let again = loaded.resolve(&catalog_store).unwrap();
    let round: Vec<(String, Vec<ApiId>)> = again
        .queries
        .iter()
        .map(|q| (q.text.clone(), q.gold.clone()))
        .collect();
    assert_eq!(round, gold);
    let ids: Vec<&str> = again.queries.iter().map(|q| q.id.as_str()).collect();
    let stored: Vec<&str> = eval.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, stored);
}

/// A RapidAPI tree of three tools in two categories, as ToolBench ships them.
fn rapidapi_tree() -> (tempfile::TempDir, Store, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    let tool = |category: &str, name: &str, apis: &[&str]| {
        std::fs::create_dir_all(dir.path().join(category)).unwrap();
        let host = name.to_lowercase();
        let list: Vec<serde_json::Value> = apis
            .iter()
            .map(|a| json!({"name": a, "url": format!("https://{host}.p.rapidapi.com/{a}"), "method": "GET",
                "description": format!("{a} of {name}"), "required_parameters": [], "optional_parameters": []}))
            .collect();
        let body = json!({"tool_name": name, "tool_description": name, "api_list": list});
        std::fs::write(
            dir.path().join(category).join(format!("{host}.json")),
            body.to_string(),
        )
        .unwrap();
    };
    tool("Sports", "Scores", &["live scores", "fixtures"]);
    tool("Sports", "Teams", &["team info", "squad"]);
    tool("Weather", "Forecast", &["daily forecast", "alerts"]);
    let batch = toolsmith_catalog::read_source(dir.path(), &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (dir, store, catalog)
}

#[test]
fn toolbench_combinations_export_in_toolbench_format_and_load_back() {
    let (_dir, catalog_store, catalog) = rapidapi_tree();
    let sizes = SampleSizes {
        single: 0,
        chains: 0,
        combos: 3,
        seed: 11,
        two_step_share: DEFAULT_TWO_STEP_SHARE,
        chain_start: ChainStart::Any,
    };
    let paths = sample_paths(&catalog, &BTreeMap::new(), &sizes);
    let tool_of = |a: &ApiId| a.tool().clone();
    let category_of = |a: &ApiId| {
        catalog
            .tools
            .iter()
            .find(|t| &t.tool.id == a.tool())
            .map(|t| t.tool.category.clone())
            .unwrap()
    };
    for kind in [
        PathKind::WithinTool,
        PathKind::WithinCategory,
        PathKind::CrossCategory,
    ] {
        let of_kind: Vec<&GoldPath> = paths.iter().filter(|p| p.kind == kind).collect();
        assert!(!of_kind.is_empty(), "{kind}: {paths:?}");
        for p in of_kind {
            let tools: std::collections::BTreeSet<_> = p.apis.iter().map(tool_of).collect();
            let categories: std::collections::BTreeSet<_> =
                p.apis.iter().map(category_of).collect();
            match kind {
                PathKind::WithinTool => assert_eq!(tools.len(), 1, "{p:?}"),
                PathKind::WithinCategory => {
                    assert_eq!((tools.len(), categories.len()), (p.apis.len(), 1), "{p:?}");
                }
                _ => assert_eq!(categories.len(), p.apis.len(), "{p:?}"),
            }
        }
    }

    let queries: Vec<toolsmith_eval::synth::SynthQuery> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| toolsmith_eval::synth::SynthQuery {
            id: format!("{i}-0"),
            path_idx: i,
            text: format!("request {i}"),
            phrasing: Phrasing::MultiIntent,
            path: p.clone(),
            calls: Vec::new(),
            fate: Fate::Kept {
                split: Split::Eval,
                reference: None,
            },
        })
        .collect();
    let (file, unresolvable) = export(&queries, &catalog_store, ExportFormat::Toolbench).unwrap();
    assert_eq!(unresolvable, 0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synth_g.json");
    std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let loaded = toolsmith_eval::load(&path).unwrap();
    assert!(
        loaded
            .queries
            .iter()
            .all(|q| q.candidates.len() == q.gold.len())
    );
    let resolved = loaded.resolve(&catalog_store).unwrap();
    assert_eq!(resolved.skipped, 0);
    let round: Vec<Vec<ApiId>> = resolved.queries.iter().map(|q| q.gold.clone()).collect();
    let gold: Vec<Vec<ApiId>> = paths.iter().map(|p| p.apis.clone()).collect();
    assert_eq!(round, gold);
}

/// Writes the given requests for the title search, each with the same call.
struct Echoing(Vec<(&'static str, Phrasing)>);

#[async_trait]
impl PathWriter for Echoing {
    async fn write(&self, ask: &WriteAsk) -> Result<Vec<WrittenQuery>, WriteError> {
        let calls = vec![PlannedCall {
            api: ask.path.apis[0].clone(),
            arguments: json!({"query": "Alien"}),
        }];
        Ok(self
            .0
            .iter()
            .map(|(text, phrasing)| WrittenQuery {
                text: (*text).into(),
                phrasing: *phrasing,
                calls: calls.clone(),
            })
            .collect())
    }
}

/// Runs a one-path set of `spec` whose writer writes `writer`'s requests; each request's fate.
async fn fates_of(spec: SetSpec, writer: Echoing) -> (Vec<Fate>, BTreeMap<String, usize>) {
    let (_, catalog) = films();
    let store = SynthStore::in_memory().unwrap();
    let search = api(&catalog, "search_film");
    let paths = vec![GoldPath {
        kind: PathKind::Single,
        apis: vec![search],
    }];
    store.create_set("films", &spec, &paths).unwrap();
    let set = store.set("films").unwrap().unwrap();
    let mut synth = synthesizer(&catalog, Arc::new(Scripted::new()));
    synth.writer = Arc::new(writer);
    let summary = synth.run(&store, &set, &catalog, &Quiet).await.unwrap();
    let fates = store
        .queries(set.id)
        .unwrap()
        .into_iter()
        .map(|q| q.fate)
        .collect();
    (fates, summary.dropped)
}

#[tokio::test]
async fn a_request_in_its_docs_words_is_dropped_as_doc_echo_and_a_users_kept() {
    let mut spec = spec(1);
    spec.doc_echo_max = DEFAULT_DOC_ECHO_MAX;
    let writer = Echoing(vec![
        ("Find films by title: Alien", Phrasing::Terse),
        (
            "that space horror Alien, which year did it come out?",
            Phrasing::Conversational,
        ),
    ]);
    let (fates, dropped) = fates_of(spec, writer).await;
    assert_eq!(
        fates[0],
        Fate::Dropped {
            reason: DropReason::DocEcho
        },
        "{fates:?}"
    );
    assert!(matches!(fates[1], Fate::Kept { .. }), "{fates:?}");
    assert_eq!(dropped["doc_echo"], 1);
}

/// The floor drops a request that paraphrases away every word users share with the docs
/// ("film" here), and keeps one that says it plainly.
#[tokio::test]
async fn a_request_sharing_no_word_with_its_docs_is_dropped_under_the_echo_floor() {
    let mut spec = spec(1);
    spec.doc_echo_max = DEFAULT_DOC_ECHO_MAX;
    spec.doc_echo_min = HUMAN_TMDB_ECHO_P10;
    let writer = Echoing(vec![
        (
            "that space horror Alien, which year did it come out?",
            Phrasing::Conversational,
        ),
        ("when did the film Alien come out?", Phrasing::Terse),
    ]);
    let (fates, dropped) = fates_of(spec, writer).await;
    assert_eq!(
        fates[0],
        Fate::Dropped {
            reason: DropReason::DocEchoLow
        },
        "{fates:?}"
    );
    assert!(matches!(fates[1], Fate::Kept { .. }), "{fates:?}");
    assert_eq!(dropped["doc_echo_low"], 1);
    assert!(!dropped.contains_key("doc_echo"), "{dropped:?}");
}

/// The echo of RestBench TMDB's human queries against the imported docs of their gold APIs
/// (no entity values known, so none are taken out), sorted ascending.
fn human_tmdb_echoes() -> Vec<f64> {
    use toolsmith_eval::Benchmark;
    let store = crate::data::benchmark_store(&Benchmark::RestbenchTmdb);
    let catalog = store
        .catalog(
            &DocSelector::Label(toolsmith_catalog::DocLabel::original()),
            &Scope::default(),
        )
        .unwrap();
    let entries: BTreeMap<ApiId, toolsmith_catalog::ApiEntry> = catalog
        .apis()
        .map(|(_, a)| (a.api.id.clone(), a.clone()))
        .collect();
    let queries = Benchmark::RestbenchTmdb
        .load(&crate::data::data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap()
        .queries;
    let mut echoes: Vec<f64> = queries
        .iter()
        .map(|q| {
            let gold: Vec<_> = q.gold.iter().map(|g| entries[g].clone()).collect();
            doc_echo(&q.text, &gold, &[])
        })
        .collect();
    echoes.sort_by(f64::total_cmp);
    let pct = |p: usize| echoes[(echoes.len() * p / 100).saturating_sub(1)];
    eprintln!(
        "echo of {} human queries: p5 {:.3}, p10 {:.3}, p25 {:.3}, median {:.3}, p75 {:.3}, p90 {:.3}",
        echoes.len(),
        pct(5),
        pct(10),
        pct(25),
        echoes[echoes.len() / 2],
        pct(75),
        pct(90)
    );
    echoes
}

/// The default ceiling is calibrated on real users.
#[test]
fn human_tmdb_queries_pass_the_default_echo_ceiling() {
    let echoes = human_tmdb_echoes();
    let passing = echoes
        .iter()
        .filter(|e| **e <= DEFAULT_DOC_ECHO_MAX)
        .count();
    eprintln!("{passing} pass the ceiling");
    assert_eq!(echoes.len(), 100);
    assert!((88..=95).contains(&passing), "{passing} of 100 pass");
    let below = echoes.iter().filter(|e| **e <= 0.5).count();
    eprintln!("at 0.5: {below} pass");
    assert!(below < 88, "0.5 would do: {below} pass");
}

/// The floor's calibration point is real users' too: about the tenth percentile of their
/// echo, so roughly 90 of the 100 human queries clear it, and it is not zero (it drops
/// something: the paraphrases no user writes). The default floor is off (measured).
#[test]
fn human_tmdb_queries_clear_the_default_echo_floor() {
    let echoes = human_tmdb_echoes();
    let clearing = echoes.iter().filter(|e| **e >= HUMAN_TMDB_ECHO_P10).count();
    let zero = echoes.iter().filter(|e| **e == 0.0).count();
    eprintln!("{clearing} clear the floor {HUMAN_TMDB_ECHO_P10}; {zero} echo nothing");
    assert!(
        zero > 0 && clearing <= echoes.len() - zero,
        "the floor drops what echoes nothing"
    );
    assert!((88..=95).contains(&clearing), "{clearing} of 100 clear it");
    assert_eq!(toolsmith_eval::synth::DEFAULT_DOC_ECHO_MIN, 0.0);
}

#[test]
fn an_echo_floor_above_the_ceiling_is_refused_by_name() {
    let mut s = spec(0);
    s.doc_echo_max = 0.5;
    s.doc_echo_min = 0.6;
    let e = s.validate().unwrap_err();
    assert!(e.contains("doc_echo_min") && e.contains("0.6"), "{e}");
    s.doc_echo_min = HUMAN_TMDB_ECHO_P10;
    assert_eq!(s.validate(), Ok(()));
}
