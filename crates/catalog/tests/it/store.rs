//! Doc versions, activation and rollback, atomic imports, persistence.

use toolsmith_catalog::{
    Doc, DocLabel, DocSelector, DocTarget, ImportOptions, NewDoc, Scope, Store, read_source,
};

use crate::data::write_temp;

const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "Pets", "version": "1"},
  "servers": [{"url": "https://pets.example/v1"}],
  "paths": {"/pets/{id}": {"get": {"operationId": "getPet", "description": "Fetch a pet.",
     "parameters": [{"name": "id", "in": "path", "schema": {"type": "integer"}}],
     "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}"#;

fn pets(store: &mut Store) {
    let (_dir, path) = write_temp("pets.json", SPEC);
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
}

#[test]
fn new_versions_append_and_rollback_reactivates() {
    let mut store = Store::in_memory().unwrap();
    pets(&mut store);
    let target: DocTarget = "pets/getpet".parse().unwrap();
    let label: DocLabel = "manual".parse().unwrap();
    let v2 = store
        .add_doc(
            &target,
            NewDoc {
                label,
                source: "test".into(),
                doc: Doc::text("Better words."),
            },
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    assert_eq!((v2.version, v2.active), (2, true));
    assert_eq!(
        store
            .api(&"pets/getpet".parse().unwrap())
            .unwrap()
            .description(),
        "Better words."
    );
    store.activate(&target, 1).unwrap();
    let history = store.doc_history(&target).unwrap();
    assert_eq!(history.len(), 2, "nothing is lost by a rollback");
    assert!(history[0].active && !history[1].active);
    assert!(store.activate(&target, 9).is_err());
}

#[test]
fn reimport_does_not_displace_a_chosen_refinement() {
    let mut store = Store::in_memory().unwrap();
    pets(&mut store);
    let target: DocTarget = "pets/getpet".parse().unwrap();
    store
        .add_doc(
            &target,
            NewDoc {
                label: "draft".parse().unwrap(),
                source: "t".into(),
                doc: Doc::text("Refined."),
            },
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    pets(&mut store);
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(view.tools[0].apis[0].description(), "Refined.");
}

#[test]
fn a_failing_import_leaves_the_store_unchanged() {
    let mut store = Store::in_memory().unwrap();
    pets(&mut store);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("Data")).unwrap();
    std::fs::write(dir.path().join("Data/good.json"), r#"{"tool_name": "Good", "api_list": [{"name": "ping", "url": "https://good.p.rapidapi.com/ping", "method": "GET"}]}"#).unwrap();
    std::fs::write(
        dir.path().join("Data/bad.json"),
        r#"{"tool_name": "Bad", "api_list": [{"#,
    )
    .unwrap();
    let err = read_source(dir.path(), &ImportOptions::default()).unwrap_err();
    assert!(err.to_string().contains("bad.json"), "{err}");
    let before = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
        .api_count();
    assert_eq!(before, 1);
    // With keep_going the good file lands and the bad one is reported.
    let batch = read_source(
        dir.path(),
        &ImportOptions {
            keep_going: true,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let report = store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    assert_eq!(report.apis_added, 1);
    assert_eq!(report.failures.len(), 1);
    assert!(
        report.failures[0].contains("bad.json:1:"),
        "{:?}",
        report.failures
    );
}

#[test]
fn the_store_persists_in_one_file_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("catalog.db");
    {
        let mut store = Store::open(&db).unwrap();
        pets(&mut store);
        assert_eq!(store.schema_version().unwrap(), 4);
    }
    let store = Store::open(&db).unwrap();
    assert_eq!(
        store
            .catalog(&DocSelector::Active, &Scope::default())
            .unwrap()
            .api_count(),
        1
    );
    assert!(dir.path().join("catalog.db-wal").exists() || db.exists());
}

/// Two processes refining one catalog (two `refine` runs, or `refine` beside `serve`) each
/// hold their own connection: a doc write that read before it wrote must not fail with "database
/// is locked" because the other connection committed in between.
#[test]
fn two_connections_write_doc_versions_to_one_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("catalog.db");
    pets(&mut Store::open(&db).unwrap());
    const WRITES: u32 = 60;
    let writers: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|who| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&db).unwrap();
                let target: DocTarget = "pets/getpet".parse().unwrap();
                for i in 0..WRITES {
                    store
                        .add_doc(
                            &target,
                            NewDoc {
                                label: who.parse().unwrap(),
                                source: "test".into(),
                                doc: Doc::text(format!("{who} writer, version {i}.")),
                            },
                            toolsmith_catalog::Activate::IfNoneActive,
                        )
                        .map_err(|e| format!("{who} writer, write {i}: {e}"))?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap().unwrap();
    }
    let history = Store::open(&db)
        .unwrap()
        .doc_history(&"pets/getpet".parse().unwrap())
        .unwrap();
    assert_eq!(
        history.len(),
        1 + 2 * WRITES as usize,
        "every version is kept"
    );
}

#[test]
fn a_docs_synthetic_queries_are_stored_and_a_change_of_queries_alone_is_a_new_version() {
    let mut store = Store::in_memory().unwrap();
    pets(&mut store);
    let target: DocTarget = "pets/getpet".parse().unwrap();
    let with = |queries: &[&str]| NewDoc {
        label: "queries".parse().unwrap(),
        source: "test".into(),
        doc: Doc {
            queries: queries.iter().map(|q| q.to_string()).collect(),
            ..Doc::text("Fetch a pet.")
        },
    };
    let first = store
        .add_doc(
            &target,
            with(&["find pet 7"]),
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    let same = store
        .add_doc(
            &target,
            with(&["find pet 7"]),
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    let changed = store
        .add_doc(
            &target,
            with(&["find pet 7", "what is pet 3 called"]),
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    assert_eq!(first.version, same.version, "identical doc adds nothing");
    assert_eq!(changed.version, first.version + 1);
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let doc = &view.tools[0].apis[0].doc.as_ref().unwrap().doc;
    assert_eq!(doc.queries, ["find pet 7", "what is pet 3 called"]);
    assert_eq!(
        store.doc_history(&target).unwrap()[0].doc.queries,
        Vec::<String>::new()
    );
}
