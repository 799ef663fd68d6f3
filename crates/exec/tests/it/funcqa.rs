//! FuncQA: every one of the 60 one-hop questions, computed by the built-in tool.

use serde_json::{Value, json};
use toolsmith_catalog::{Endpoint, Store};
use toolsmith_exec::{ArithOp, Executor, FailureKind, NativeTools};

/// Two `func` strings of the dataset disagree with their own question and
/// recorded answer; the question's numbers give the recorded answer.
const DATASET_TYPOS: &[(&str, &str)] = &[
    // "cycles every 38 days, ... 49 days, ... 28 days": 17 in the func is a typo.
    ("<lcm>(38, 49, 17)=3724", "<lcm>(38, 49, 28)=3724"),
    // "144 chocolates, 126 lollipops, and 108 gummy bears": 112 is a typo.
    ("<gcd>(144, 126, 112)=18", "<gcd>(144, 126, 108)=18"),
];

/// Parses `[-]<op>(a, b, ...)=value`.
fn parse_func(func: &str) -> (bool, ArithOp, Vec<f64>, f64) {
    let (call, value) = func.split_once('=').unwrap();
    let negated = call.starts_with('-');
    let call = call.trim_start_matches('-');
    let name = call.trim_start_matches('<').split('>').next().unwrap();
    let args = call.split_once('(').unwrap().1.trim_end_matches(')');
    let numbers = args
        .split(',')
        .map(|a| a.trim().parse::<f64>().unwrap())
        .collect();
    (
        negated,
        ArithOp::from_name(name).unwrap(),
        numbers,
        value.trim().parse().unwrap(),
    )
}

#[tokio::test]
async fn all_sixty_questions_reproduce_their_values() {
    let path = toolsmith_catalog::testing::data_path("funcqa/funcqa_oh.json");
    let questions: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(questions.len(), 60);
    let tools = NativeTools::funcqa();
    let mut checked = 0;
    for q in &questions {
        let recorded = q["func"].as_str().unwrap();
        let func = DATASET_TYPOS
            .iter()
            .find(|(typo, _)| *typo == recorded)
            .map_or(recorded, |(_, fixed)| *fixed);
        let (negated, op, numbers, want) = parse_func(func);
        let obs = tools
            .call(&tools.api_id(op), &json!({ "input": numbers }))
            .await
            .unwrap();
        assert!(obs.is_ok(), "{func}: {obs:?}");
        let got = obs.body.json().unwrap()["result"].as_f64().unwrap();
        let got = if negated { -got } else { got };
        assert!(
            (got - want).abs() <= 0.001 * want.abs(),
            "{func}: computed {got}, recorded {want}"
        );
        checked += 1;
    }
    assert_eq!(checked, 60);
}

#[tokio::test]
async fn the_typos_really_are_typos() {
    let tools = NativeTools::funcqa();
    for (typo, _) in DATASET_TYPOS {
        let (_, op, numbers, want) = parse_func(typo);
        let obs = tools
            .call(&tools.api_id(op), &json!({ "input": numbers }))
            .await
            .unwrap();
        let got = obs.body.json().unwrap()["result"].as_f64().unwrap();
        assert!(
            (got - want).abs() > 0.001 * want,
            "{typo} is not a typo after all"
        );
    }
}

#[test]
fn imports_into_the_catalog_as_function_apis() {
    let tools = NativeTools::funcqa();
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &tools.import_batch(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let entry = store.api(&tools.api_id(ArithOp::Permutate)).unwrap();
    assert_eq!(
        entry.api.endpoint,
        Endpoint::Function {
            name: "permutate".to_owned()
        }
    );
    assert!(entry.description().contains("arrangements"));
    let schema = toolsmith_catalog::export::input_schema(&entry);
    assert_eq!(schema["required"], json!(["input"]));
}

#[tokio::test]
async fn bad_input_is_a_bad_parameters_observation() {
    let tools = NativeTools::funcqa();
    let obs = tools
        .call(&tools.api_id(ArithOp::Divide), &json!({"input": [1, 0]}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
    let obs = tools
        .call(&tools.api_id(ArithOp::Choose), &json!({"input": [3]}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
}
