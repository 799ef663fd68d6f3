//! The example library API's query set (`crates/testbed/assets/library_queries.json`, the
//! quickstart's benchmark): RestGPT's format, every gold API one of the spec's.

use std::path::Path;

use toolsmith_catalog::{ImportOptions, Store, read_source};
use toolsmith_eval::load;

#[test]
fn every_example_query_has_a_gold_path_of_one_to_four_apis_of_the_library_spec() {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testbed/assets");
    let dataset = load(&assets.join("library_queries.json")).unwrap();
    assert!(dataset.len() >= 20, "{} queries", dataset.len());
    assert!(
        dataset
            .queries
            .iter()
            .all(|q| (1..=4).contains(&q.gold.len()))
    );

    let mut store = Store::in_memory().unwrap();
    let spec = read_source(
        &assets.join("library_openapi.json"),
        &ImportOptions::default(),
    )
    .unwrap();
    store
        .import(&spec, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let resolution = dataset.resolve(&store).unwrap();
    assert!(
        resolution.unresolved.is_empty(),
        "{:?}",
        resolution.unresolved
    );
    assert_eq!(resolution.queries.len(), dataset.len());
    // Calls with side effects are part of the set: borrowing and returning.
    let names: Vec<String> = resolution
        .queries
        .iter()
        .flat_map(|q| q.gold.iter().map(ToString::to_string))
        .collect();
    assert!(
        names.iter().any(|n| n.ends_with("/create_loan")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.ends_with("/return_loan")),
        "{names:?}"
    );
}
