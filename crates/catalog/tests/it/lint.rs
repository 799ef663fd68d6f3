//! `lint` on the RestBench TMDB spec: the contradictions a model met in issue 16.

use toolsmith_catalog::lint::{LintKind, effective_schema, lint_catalog};
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_catalog::{export, render};

#[test]
fn lint_finds_the_three_tmdb_contradictions() {
    let catalog = tmdb_catalog();
    let report = lint_catalog(&catalog);
    assert_eq!(report.apis, 54);
    let find = |api: &str, param: &str, kind: LintKind| {
        report
            .findings
            .iter()
            .find(|f| {
                f.api.to_string() == api && f.param.as_deref() == Some(param) && f.kind == kind
            })
            .unwrap_or_else(|| panic!("no {kind} for {api} `{param}`"))
    };
    let status = find(
        "tmdb/get_discover_tv",
        "with_status",
        LintKind::TypeEnumMismatch,
    );
    assert!(status.fixed_at_render, "{status:?}");
    assert!(status.message.contains("string"), "{}", status.message);
    find(
        "tmdb/get_discover_tv",
        "with_type",
        LintKind::TypeEnumMismatch,
    );
    let gte = find(
        "tmdb/get_discover_tv",
        "vote_count.gte",
        LintKind::ContradictoryDescription,
    );
    assert!(gte.message.contains("less than"), "{}", gte.message);
    let release = find(
        "tmdb/get_discover_movie",
        "with_release_type",
        LintKind::ContradictoryDescription,
    );
    assert!(release.message.contains("integer"), "{}", release.message);
    // The correct `.gte` of /discover/movie is not reported.
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.api.to_string() == "tmdb/get_discover_movie"
                && f.param.as_deref() == Some("vote_count.gte")
                && f.kind == LintKind::ContradictoryDescription)
    );
    let counts = report.counts();
    assert_eq!(counts[&LintKind::TypeEnumMismatch], 2, "{counts:?}");
    assert_eq!(
        counts[&LintKind::NoResponseSchema],
        0,
        "every TMDB API has one"
    );
    eprintln!(
        "TMDB lint: {counts:?}; {} of 54 APIs",
        report.apis_with_findings()
    );
}

#[test]
fn enum_types_are_fixed_where_the_model_reads_them() {
    let catalog = tmdb_catalog();
    let (_, discover) = catalog
        .apis()
        .find(|(_, a)| a.api.id.to_string() == "tmdb/get_discover_tv")
        .unwrap();
    let source = discover
        .api
        .params
        .iter()
        .find(|p| p.name == "with_status")
        .unwrap();
    assert_eq!(
        source.schema["type"], "string",
        "the stored spec is unchanged"
    );
    assert_eq!(effective_schema(&source.schema)["type"], "integer");
    let schema = export::input_schema(discover);
    assert_eq!(schema["properties"]["with_status"]["type"], "integer");
    assert!(
        render::param_line(source).contains("(query, integer)"),
        "{}",
        render::param_line(source)
    );
}
