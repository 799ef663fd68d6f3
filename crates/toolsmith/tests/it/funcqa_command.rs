//! `toolsmith bench run --dataset funcqa` end to end: ReAct over the 13 built-in FuncQA tools
//! against a loopback LLM that calls each question's operation and answers with its result
//! (wrong on purpose for the third question); the accuracy, the calls counted, the judged pass
//! rates (`--judge`, the judge on its own model role) and the win rate of `bench compare`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, completion, json_of, serve_loopback, shared};

/// FuncQA's questions and their solving calls (`<power>(0.89, 8)=0.3936`).
type Funcs = Arc<HashMap<String, String>>;

fn call(name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_0", "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}}]})
}

fn text(content: Value) -> Value {
    json!({"role": "assistant", "content": content.to_string()})
}

/// The first number in a JSON value.
fn first_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Array(items) => items.iter().find_map(first_number),
        Value::Object(map) => map.values().find_map(first_number),
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .as_ref()
            .and_then(first_number),
        _ => None,
    }
}

async fn chat(funcs: axum::extract::State<Funcs>, Json(request): Json<Value>) -> Json<Value> {
    let model = &request["model"];
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let all: String = messages
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if model == "judge-model" {
        let verdict = if all.contains("Assistant A") {
            json!({"reason": "same", "better": "tie"})
        } else if all.contains("Tools offered:") {
            json!({"reason": "the tools compute it", "status": "solvable"})
        } else if all.contains("The answer is 7.") {
            json!({"reason": "wrong number", "status": "unsolved"})
        } else {
            json!({"reason": "a number as asked", "status": "solved"})
        };
        return completion(&request, text(verdict), "stop", (100, 10));
    }
    let question = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    let tool_result = messages.iter().rev().find(|m| m["role"] == "tool");
    let Some(result) = tool_result else {
        // First step: call the question's operation with its numbers.
        let func = funcs
            .iter()
            .find(|(q, _)| question.contains(q.as_str()))
            .map(|(_, f)| f.clone())
            .unwrap_or_default();
        let (name, rest) = func
            .trim_start_matches('-')
            .trim_start_matches('<')
            .split_once('>')
            .unwrap();
        let args: Vec<f64> = rest
            .trim_start_matches('(')
            .split(')')
            .next()
            .unwrap()
            .split(',')
            .map(|a| a.trim().parse().unwrap())
            .collect();
        let call = call(&format!("{name}_for_funcqa"), json!({"input": args}));
        return completion(&request, call, "stop", (100, 10));
    };
    let number = first_number(&result["content"]).unwrap();
    let answer = if question.contains("cube") {
        "The answer is 7.".to_owned()
    } else {
        format!("The answer is {number}.")
    };
    let finish = call(
        "Finish",
        json!({"return_type": "give_answer", "final_answer": answer}),
    );
    completion(&request, finish, "stop", (100, 10))
}

#[tokio::test(flavor = "multi_thread")]
async fn funcqa_runs_scores_accuracy_and_is_judged() {
    let file = shared("funcqa/funcqa_oh.json");
    let items: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let funcs: Funcs = Arc::new(
        items
            .iter()
            .map(|i| {
                (
                    i["question"].as_str().unwrap().trim().to_owned(),
                    i["func"].as_str().unwrap().to_owned(),
                )
            })
            .collect(),
    );
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(funcs);
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             role_models = {{ judge = \"judge-model\" }}\n\n\
             [prices]\nprompt_per_million = 1.0\ncompletion_per_million = 2.0\n"
        ),
    )
    .unwrap();
    let data = shared("funcqa/..");
    tokio::task::spawn_blocking(move || {
        let run = |extra: &[&str]| json_of(&ws.bench_run("funcqa", &data, extra));
        let first = run(&["--name", "a", "--judge"]);
        let summary = &first["summary"];
        assert_eq!(summary["queries"], 3);
        // Two answers within 0.1% of the gold number, the third wrong.
        let accuracy = summary["accuracy"].as_f64().unwrap();
        assert!((accuracy - 200.0 / 3.0).abs() < 1e-9, "accuracy {accuracy}");
        assert_eq!(
            summary["cp"], 100.0,
            "each question's one call is its gold path"
        );
        assert_eq!(summary["calls"]["executed"], 3);
        assert_eq!(summary["calls"]["rejected"], 0);
        // 6 agent calls of 110 tokens: 600 prompt and 60 completion tokens at 1 and 2 per million
        // (0.00072), and the judge's 4 calls (0.00048).
        let cost = summary["cost"].as_f64().unwrap();
        assert!((cost - 0.0012).abs() < 1e-12, "cost {cost}");
        // The judge: Solved twice, Unsolved on a solvable task once, by both rules.
        let judged = &first["judged"];
        assert_eq!(judged["judge_runs"], 1);
        for rule in ["tooleval", "anytool"] {
            let mean = judged[rule]["mean"].as_f64().unwrap();
            assert!((mean - 200.0 / 3.0).abs() < 1e-9, "{rule} {mean}");
        }
        // Judging asked each question once: 1 answer question for each solved query (ToolEval's
        // 4 samples and AnyTool's 3 votes read its verdict), 1 answer and 1 solvability
        // question for the wrong one.
        assert_eq!(judged["usage"]["calls"], 4, "{judged}");
        // The run's cost counts judging: 4 judge calls of 110 tokens add 0.00048.
        let judging = summary["judging_cost"].as_f64().unwrap();
        assert!((judging - 0.00048).abs() < 1e-12, "judging cost {judging}");
        // The human table shows the same, with CP and the verdicts side by side: the wrong
        // answer followed the gold path, so CP and the judges disagree on it.
        let shown = ws.ok(&["bench", "show", "1"]);
        assert!(shown.contains("accuracy%"), "{shown}");
        assert!(shown.contains("pass% ToolEval"), "{shown}");
        assert!(shown.contains("protocol toolsmith"), "{shown}");
        assert!(
            shown.contains("judging took 4 LLM calls (0 from the cache), 440 tokens, cost 0.0005 (in the cost column)"),
            "{shown}"
        );
        assert!(shown.contains("pass AnyTool"), "{shown}");
        assert!(
            shown.contains(
                "CP vs ToolEval: disagree on 1 of 3 queries (CP only: 1, ToolEval only: 0)"
            ),
            "{shown}"
        );
        // One query: its gold answer next to the run's.
        let query = ws.ok(&["bench", "show", "1", "2"]);
        assert!(
            query.contains("gold answer: 2.2481 (the run's answer does not match it)"),
            "{query}"
        );
        assert!(query.contains("gold path: funcqa/power"), "{query}");

        // A second run (from the LLM cache), and its win rate against the first: the judge
        // calls every pair a tie, in both orders.
        let second = run(&["--name", "b", "--protocol", "paper"]);
        assert_eq!(second["run"], 2);
        assert_eq!(second["spec"]["protocol"], "paper");
        assert_eq!(first["spec"]["protocol"], "toolsmith");
        let compared = json_of(&ws.ok(&[
            "bench",
            "compare",
            "1",
            "2",
            "--win-rate-against",
            "1",
            "--json",
        ]));
        let rows = compared["judged"].as_array().unwrap();
        assert!(rows[0].get("win_rate").is_none());
        assert_eq!(rows[1]["win_rate"]["outcomes"]["ties"], 3);
        assert_eq!(rows[1]["win_rate"]["win_rate"], 0.0);
        assert_eq!(rows[1]["win_rate"]["tie_rate"], 100.0);
        assert!(compared["runs"].as_array().is_some_and(|r| r.len() == 2));
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_multi_hop_funcqa_file_runs_and_shows_its_gold_answer() {
    let ws = Workspace::new();
    let file = ws.dir.path().join("funcqa_mh.json");
    let profit = "A company had a profit of $ 535323 this year. If the profit decreases by 3% every year, what will the profit be after 3 years?";
    let power = "Raise 0.89 to the power 8.";
    // FuncQA's multi-hop shape: a `calculation` list, answers as strings.
    std::fs::write(
        &file,
        json!([
            {"question": power, "answer": "0.3936", "calculation": ["<power>(0.89, 8)=0.3936"]},
            {"question": profit, "answer": "488574.848379",
             "calculation": ["<power>(0.97,3)=0.912673", "<multiply>(535323,0.912673)=488574.848379"]}
        ])
        .to_string(),
    )
    .unwrap();
    // The loopback model makes each question's first call and answers with its result: right
    // for the one-call question, wrong (an intermediate value) for the two-call one.
    let funcs: Funcs = Arc::new(HashMap::from([
        (power.to_owned(), "<power>(0.89, 8)=0.3936".to_owned()),
        (profit.to_owned(), "<power>(0.97,3)=0.912673".to_owned()),
    ]));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(funcs);
    let addr = serve_loopback(app).await;
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!("[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n"),
    )
    .unwrap();
    let path = file.to_string_lossy().into_owned();
    tokio::task::spawn_blocking(move || {
        let out = json_of(&ws.ok(&["bench", "run", "--dataset", &path, "--json"]));
        let summary = &out["summary"];
        assert_eq!(summary["queries"], 2);
        assert_eq!(summary["accuracy"], 50.0, "{summary}");
        // The two-call question's gold path is its chain: one call of it is not CP.
        assert_eq!(summary["cp"], 50.0, "{summary}");
        let query = ws.ok(&["bench", "show", "1", "1"]);
        assert!(
            query.contains("gold path: funcqa/power -> funcqa/multiply"),
            "{query}"
        );
        assert!(query.contains("gold answer: 488574.848379"), "{query}");
    })
    .await
    .unwrap();
}
