//! The loaders on the real benchmark files: query counts as the data README states them,
//! gold names resolving against a catalog built from the benchmark's own sources, and
//! AnyToolBench (not shipped) on an inline sample.

use std::collections::BTreeSet;

use toolsmith_eval::{
    Benchmark, CategorizedApi, DatasetFormat, GoldApi, ReferenceFinish, funcqa_correct, load,
    load_anytoolbench, load_as, load_funcqa, load_tooleval,
};

use crate::data::{benchmark_store, data_dir};

#[test]
fn restgpt_tmdb_has_100_queries_with_trimmed_gold_names() {
    let d = load(&data_dir().join("restbench-tmdb/restgpt/tmdb.json")).unwrap();
    assert_eq!(d.len(), 100);
    assert_eq!(
        d.queries[0].gold,
        vec![
            GoldApi::Named("GET /search/person".into()),
            GoldApi::Named("GET /person/{person_id}/movie_credits".into()),
        ]
    );
    let names: Vec<String> = d
        .queries
        .iter()
        .flat_map(|q| &q.gold)
        .map(ToString::to_string)
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.trim() == n && n.starts_with("GET /")),
        "{names:?}"
    );
    let lengths: usize = d.queries.iter().map(|q| q.gold.len()).sum();
    assert_eq!(
        lengths,
        5 + 66 * 2 + 27 * 3 + 2 * 4,
        "README: lengths 1:5, 2:66, 3:27, 4:2"
    );
}

#[test]
fn draft_restbench_has_100_queries() {
    let path = data_dir().join("restbench-tmdb/draft/TMDB.json");
    let d = load(&path).unwrap();
    assert_eq!(d.len(), 100);
    assert_eq!(d.queries[0].id, "q0");
    assert_eq!(
        d.queries[0].gold[0],
        GoldApi::Named("GET_search_person".into())
    );
    assert_eq!(load_as(&path, DatasetFormat::DraftRestBench).unwrap(), d);
}

#[test]
fn toolbench_files_have_the_stated_counts() {
    let dir = data_dir();
    let g2 = load(&dir.join("toolbench/draft282/G2.json")).unwrap();
    assert_eq!(g2.len(), 199);
    assert_eq!(
        g2.queries[0].gold[0],
        GoldApi::ToolBench {
            tool: "Turkey Postal Codes".into(),
            api: "il".into(),
            category: Some("Logistics".into()),
        }
    );
    for (name, n) in [
        ("G1_instruction", 163),
        ("G1_category", 153),
        ("G1_tool", 158),
        ("G2_instruction", 106),
        ("G2_category", 124),
    ] {
        let path = dir.join(format!(
            "toolbench/stabletoolbench/test_instruction/{name}.json"
        ));
        assert_eq!(load(&path).unwrap().len(), n, "{name}");
    }
    let g1 = Benchmark::ToolbenchG1.load(&dir).unwrap();
    assert_eq!(g1.len(), 163 + 153 + 158);
    assert_eq!(g1.queries[0].id, "G1_instruction/588");
    assert_eq!(Benchmark::ToolbenchG2.load(&dir).unwrap().len(), 106 + 124);
}

#[test]
fn bad_files_are_errors_that_name_the_file() {
    let dir = std::env::temp_dir().join(format!("toolsmith-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("odd.json");
    std::fs::write(&path, r#"[{"query": "hi", "answer": 3}]"#).unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(
        err.contains("odd.json") && err.contains("unknown query format"),
        "{err}"
    );
    std::fs::write(&path, r#"{"query": "hi"}"#).unwrap();
    assert!(load(&path).unwrap_err().to_string().contains("JSON array"));
    assert!(Benchmark::parse("no-such-benchmark").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn restbench_gold_resolves_in_both_name_schemes() {
    let store = benchmark_store(&Benchmark::RestbenchTmdb);
    let restgpt = Benchmark::RestbenchTmdb
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(
        (restgpt.queries.len(), restgpt.skipped),
        (100, 0),
        "{:?}",
        restgpt.unresolved
    );
    // RestGPT's query 98 names `GET /person/{movie_id}/movie_credits`: repaired by shape.
    assert_eq!(restgpt.repaired.len(), 1, "{:?}", restgpt.repaired);
    assert_eq!(
        restgpt.repaired[0].2.to_string(),
        "tmdb/get_person_person_id_movie_credits"
    );
    let draft = load(&data_dir().join("restbench-tmdb/draft/TMDB.json"))
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(draft.queries.len(), 100, "{:?}", draft.unresolved);
    // The same query, the same gold ids, whichever file it came from.
    assert_eq!(restgpt.queries[0].gold, draft.queries[0].gold);
}

#[test]
fn draft282_gold_resolves() {
    let store = benchmark_store(&Benchmark::ToolbenchDraft282);
    let r = Benchmark::ToolbenchDraft282
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(r.queries.len() + r.skipped, 199);
    assert!(
        r.queries.len() >= 190,
        "resolved {} of 199: {:?}",
        r.queries.len(),
        r.unresolved
    );
}

#[test]
fn funcqa_one_hop_has_60_questions_whose_calls_reproduce_the_answers() {
    let items = load_funcqa(&data_dir().join("funcqa/funcqa_oh.json")).unwrap();
    assert_eq!(items.len(), 60, "README: 60 questions");
    assert_eq!(items[0].calls[0].function, "power");
    assert_eq!(items[0].calls[0].arguments, [0.89, 8.0]);
    assert!((items[0].answer - 0.3936).abs() < 1e-12);
    // One answer is stored as the string "546".
    assert!(items.iter().any(|i| i.answer == 546.0));
    let functions: BTreeSet<&str> = items.iter().map(|i| i.calls[0].function.as_str()).collect();
    assert_eq!(functions.len(), 13, "{functions:?}");
    // Recomputing every recorded call with the 13 operators gives the gold answer within
    // FuncQA's tolerance, except two items whose gold value is wrong in the data:
    // lcm(38, 49, 17) is 31654, not 3724, and gcd(144, 126, 112) is 2, not 18.
    let mut wrong = Vec::new();
    for item in &items {
        assert_eq!(item.calls.len(), 1, "one-hop: one call");
        assert!(
            funcqa_correct(item.calls[0].result, item.answer),
            "{item:?}"
        );
        let value = apply(&item.calls[0].function, &item.calls[0].arguments);
        let value = if item.calls[0].negated { -value } else { value };
        if !funcqa_correct(value, item.answer) {
            wrong.push((item.calls[0].function.clone(), value));
        }
    }
    assert_eq!(
        wrong,
        [("lcm".to_owned(), 31654.0), ("gcd".to_owned(), 2.0)]
    );
}

#[test]
fn funcqa_multi_hop_files_load_with_their_call_chains_and_expression_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("funcqa_mh.json");
    // The shape of ToolkenGPT's `funcqa_mh.json`: answers as strings, a `calculation` list,
    // arguments written as expressions and one bracket too many (as in the real file).
    std::fs::write(
        &path,
        r#"[
  {"question": "A company's profit of $535323 falls 3% a year. What is it after 3 years?",
   "answer": "488574.848379",
   "calculation": ["<power>(0.97,3)=0.912673", "<multiply>(535323,0.912673)=488574.848379"]},
  {"question": "A sphere has radius 2.4. What is its volume? (take pi as 3.14)",
   "answer": "57.8765",
   "calculation": ["<power>(2.4,3)=13.824", "<multiply>(13.824,4/3, 3.14)=57.8765"]},
  {"question": "A sphere has surface area 12. What is its volume?",
   "answer": 3.91,
   "calculation": ["<divide>(12,12.56))=0.9554", "<sqrt>(0.9554)=0.9774"]}
]"#,
    )
    .unwrap();
    let items = load_funcqa(&path).unwrap();
    let chains: Vec<Vec<&str>> = items
        .iter()
        .map(|i| i.calls.iter().map(|c| c.function.as_str()).collect())
        .collect();
    assert_eq!(
        chains,
        [
            vec!["power", "multiply"],
            vec!["power", "multiply"],
            vec!["divide", "sqrt"]
        ]
    );
    assert!((items[0].answer - 488_574.848_379).abs() < 1e-6);
    assert!((items[1].calls[1].arguments[1] - 4.0 / 3.0).abs() < 1e-12);
    assert_eq!(items[2].calls[0].arguments, [12.0, 12.56]);
    // Loaded as a benchmark, its gold path is the chain, and its gold answer the number.
    let dataset = toolsmith_eval::load(&path).unwrap();
    assert_eq!(dataset.queries.len(), 3);
    assert_eq!(dataset.queries[0].gold.len(), 2);
    assert_eq!(dataset.queries[2].answer, Some(3.91));
    // A call that cannot be read is named in the error.
    std::fs::write(
        &path,
        r#"[{"question": "q", "answer": 1, "calculation": ["<add>(1,x)=2"]}]"#,
    )
    .unwrap();
    let err = load_funcqa(&path).unwrap_err().to_string();
    assert!(
        err.contains("item 0") && err.contains("<add>(1,x)=2"),
        "{err}"
    );
}

/// FuncQA's 13 operators, for checking the loader's parse of the recorded calls.
fn apply(function: &str, args: &[f64]) -> f64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let ints: Vec<u64> = args.iter().map(|a| *a as u64).collect();
    let (a, b) = (args[0], args.get(1).copied().unwrap_or(0.0));
    let falling = |n: u64, k: u64| (n - k + 1..=n).map(|x| x as f64).product::<f64>();
    match function {
        "add" => args.iter().sum(),
        "subtract" => a - b,
        "multiply" => args.iter().product(),
        "divide" => a / b,
        "power" => a.powf(b),
        "sqrt" => a.sqrt(),
        "log" => a.log10(),
        "ln" => a.ln(),
        "lcm" => ints.iter().fold(1, |l, x| l / gcd(l, *x) * x) as f64,
        "gcd" => ints.iter().fold(0, |g, x| gcd(g, *x)) as f64,
        "remainder" => a % b,
        "choose" => falling(ints[0], ints[1]) / falling(ints[1], ints[1]),
        "permutate" => falling(ints[0], ints[1]),
        other => panic!("unknown FuncQA operator {other}"),
    }
}

#[test]
fn tooleval_default_sets_have_100_queries_each_with_a_reference_run() {
    let dir = data_dir().join("toolbench/tooleval_default_evalset");
    let (mut answered, mut gave_up, mut unfinished) = (0, 0, 0);
    for name in [
        "G1_instruction",
        "G1_category",
        "G1_tool",
        "G2_instruction",
        "G2_category",
    ] {
        let set = load_tooleval(&dir.join(format!("{name}.json"))).unwrap();
        assert_eq!(set.name, name);
        assert_eq!(set.queries.len(), 100, "{name}");
        for q in &set.queries {
            assert!(
                !q.query.is_empty() && !q.offered.is_empty(),
                "{name}/{}",
                q.id
            );
            assert!(q.offered.iter().all(|f| f.name != "Finish"));
            assert_eq!(q.reference.method, "chatgpt_CoT");
            match &q.reference.finish {
                ReferenceFinish::Answer(_) => answered += 1,
                ReferenceFinish::GaveUp => gave_up += 1,
                ReferenceFinish::Unfinished => unfinished += 1,
            }
        }
    }
    // 244 well-formed and 14 cut-short answers, 62 give-ups, 180 runs that never finished.
    assert_eq!((answered, gave_up, unfinished), (258, 62, 180));
    let g1 = load_tooleval(&dir.join("G1_instruction.json")).unwrap();
    let first = &g1.queries[0];
    assert_eq!(first.id, "42700");
    assert!(
        first
            .query
            .starts_with("I'm working on a research project about different car")
    );
    assert_eq!(first.offered.len(), 6);
    assert_eq!(first.offered[0].name, "vin_decode_for_vin_decoder_v4");
    assert_eq!(first.offered[0].parameters["required"][0], "vin");
    assert_eq!(first.reference.calls, ["vin_decode_for_vin_decoder_v4"; 3]);
    assert!(matches!(
        &first.reference.finish,
        ReferenceFinish::Answer(a) if a.starts_with("The decoded information for the VINs")
    ));
    // The format differs from StableToolBench's query files: `load` refuses it.
    assert!(load(&dir.join("G1_instruction.json")).is_err());
}

const ANYTOOL_SAMPLE: &str = r#"[
  {"query": "Find the current EUR to USD rate and a joke about money.",
   "final_answer": "1 EUR = 1.08 USD. Joke: ...",
   "query_id": 17,
   "gt_api_list": [
     {"category_name": "Finance", "tool_name": "Currency Exchange", "api_name": "exchange"},
     {"category_name": "Entertainment", "tool_name": "Jokes by API-Ninjas", "api_name": "v1/jokes"}
   ]},
  {"query": "  What is the weather in Paris? ",
   "final_answer": "Sunny, 21 C.",
   "query_id": "q-2",
   "gt_api_list": [
     {"category_name": "Weather", "tool_name": "WeatherAPI.com", "api_name": "Realtime Weather Api"}
   ]}
]"#;

#[test]
fn anytoolbench_is_read_from_any_path() {
    let dir = std::env::temp_dir().join(format!("toolsmith-eval-atb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("anytoolbench.json");
    std::fs::write(&path, ANYTOOL_SAMPLE).unwrap();
    let queries = load_anytoolbench(&path).unwrap();
    assert_eq!(queries.len(), 2);
    assert_eq!(queries[0].id, "17");
    assert_eq!(queries[0].final_answer, "1 EUR = 1.08 USD. Joke: ...");
    assert_eq!(
        queries[0].gold[1],
        CategorizedApi {
            category: "Entertainment".into(),
            tool: "Jokes by API-Ninjas".into(),
            api: "v1/jokes".into(),
        }
    );
    assert_eq!(queries[1].id, "q-2");
    assert_eq!(queries[1].query, "What is the weather in Paris?");
    // `load` detects the format and keeps queries and gold APIs.
    let dataset = load(&path).unwrap();
    assert_eq!(dataset.len(), 2);
    assert_eq!(
        dataset.queries[0].gold,
        [
            GoldApi::ToolBench {
                tool: "Currency Exchange".into(),
                api: "exchange".into(),
                category: Some("Finance".into()),
            },
            GoldApi::ToolBench {
                tool: "Jokes by API-Ninjas".into(),
                api: "v1/jokes".into(),
                category: Some("Entertainment".into()),
            },
        ]
    );
    assert_eq!(
        load_as(&path, DatasetFormat::AnyToolBench).unwrap(),
        dataset
    );
    // A ground-truth entry without its API name is an error naming the file and the query.
    std::fs::write(
        &path,
        r#"[{"query": "q", "query_id": 3, "gt_api_list": [{"category_name": "A", "tool_name": "B"}]}]"#,
    )
    .unwrap();
    let err = load_anytoolbench(&path).unwrap_err().to_string();
    assert!(
        err.contains("anytoolbench.json") && err.contains("query 3") && err.contains("api_name"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn candidate_lists_are_read_and_resolved_gold_first_as_drafts_files_have_them() {
    let d = load(&data_dir().join("restbench-tmdb/draft/TMDB.json")).unwrap();
    assert!(d.queries.iter().all(|q| q.candidates.len() == 5));
    let store = benchmark_store(&Benchmark::RestbenchTmdb);
    let resolved = d.resolve(&store).unwrap();
    let q = &resolved.queries[0];
    assert_eq!(q.candidates.len(), 5);
    assert_eq!(
        q.candidates[..q.gold.len()],
        q.gold[..],
        "gold APIs come first"
    );
    // RestGPT's file has no candidates; ToolBench's api_list has (tool, api) pairs.
    let restgpt = load(&data_dir().join("restbench-tmdb/restgpt/tmdb.json")).unwrap();
    assert!(restgpt.queries.iter().all(|q| q.candidates.is_empty()));
    let g2 = load(&data_dir().join("toolbench/draft282/G2.json")).unwrap();
    assert!(matches!(
        g2.queries[0].candidates.first(),
        Some(GoldApi::ToolBench { .. })
    ));
}
