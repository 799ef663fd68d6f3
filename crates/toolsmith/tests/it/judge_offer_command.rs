//! `bench retrieval --judge-offer` over a small kit of APIs (two QR generators among them),
//! the judge a loopback OpenAI-compatible server that reads the offered APIs from the prompt
//! and answers, per request, as a judge would: a QR need served by whichever QR generator is
//! offered, a need left unserved, an API named that was not offered, and a reply that is not
//! JSON at all.

use serde_json::{Value, json};

use crate::support::model::{Prompts, TextModel};
use crate::support::{Workspace, json_of, spec};

/// Six APIs of one tool `kit`; `qr_classic` and `qr_link` do the same job.
fn kit_spec() -> Value {
    let apis = [
        (
            "qr_classic",
            "/qr/classic",
            "Encode text into a square matrix barcode picture",
        ),
        (
            "qr_link",
            "/qr/link",
            "Create a QR code image for a website link",
        ),
        (
            "translate_text",
            "/translate",
            "Translate a text into another language",
        ),
        (
            "weather_forecast",
            "/weather/forecast",
            "Weather forecast of a city for the next days",
        ),
        (
            "currency_convert",
            "/currency/convert",
            "Convert an amount of money from one currency to another",
        ),
        (
            "mail_validate",
            "/mail/validate",
            "Validate an email address",
        ),
    ];
    spec::get_apis("kit", &apis)
}

const QR: &str = "Create a QR code image for my website link";
const TRANSLATE_QR: &str =
    "Translate hello into French and create a QR code image for a website link";
const WEATHER: &str = "Weather forecast for Paris for the next days";
const CURRENCY: &str = "Convert 100 US dollars to euros, an amount of money";

/// The gold path of the QR request names the generator the ranking puts second.
fn query_file() -> String {
    json!([
        {"query": QR, "solution": ["GET /qr/classic"]},
        {"query": TRANSLATE_QR, "solution": ["GET /translate", "GET /qr/link"]},
        {"query": WEATHER, "solution": ["GET /weather/forecast"]},
        {"query": CURRENCY, "solution": ["GET /currency/convert"]},
    ])
    .to_string()
}

/// The request and the API names a judge prompt shows.
fn read_prompt(prompt: &str) -> (String, Vec<String>) {
    let request = prompt
        .split_once("Request:\n")
        .and_then(|(_, rest)| rest.lines().next())
        .unwrap_or_default()
        .to_owned();
    let listed = prompt
        .split_once("Offered APIs")
        .map(|(_, rest)| rest)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| l.strip_prefix("- ")?.split(": ").next())
        .map(str::to_owned)
        .collect();
    (request, listed)
}

/// What the scripted judge answers to a prompt: a reply body (JSON or not).
fn reply_to(prompt: &str) -> String {
    let (request, offered) = read_prompt(prompt);
    let find = |word: &str| -> Value {
        offered
            .iter()
            .find(|name| name.contains(word))
            .map_or(Value::Null, |n| Value::String(n.clone()))
    };
    let reply = match request.as_str() {
        QR => {
            json!({"needs": [{"need": "a QR code for a link", "api": find("qr_")}], "covered": true})
        }
        TRANSLATE_QR => json!({"needs": [
            {"need": "translate a word", "api": find("translate")},
            {"need": "a QR code for a link", "api": find("qr_")}], "covered": true}),
        // Names an API that the offer does not hold, and claims the offer covers the request.
        WEATHER => {
            json!({"needs": [{"need": "a forecast", "api": "kit/weather_pro"}], "covered": true})
        }
        _ => return "I would rather not say.".to_owned(),
    };
    reply.to_string()
}

/// The judge of [`reply_to`].
async fn loopback() -> (std::net::SocketAddr, Prompts) {
    TextModel::new(reply_to, (300, 20)).serve().await
}

/// A workspace with the kit imported, BM25 configured and the judge at `addr`; the query file.
fn kit_workspace(addr: std::net::SocketAddr) -> (Workspace, String) {
    Workspace::bm25_imported(addr, "", ("kit.json", &kit_spec()), &query_file())
}

fn bench_args(queries: &str) -> Vec<&str> {
    vec![
        "bench",
        "retrieval",
        "--dataset",
        queries,
        "--coverage-k",
        "1",
        "--judge-offer",
        "--judged-misses",
        "--offers",
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_judged_offer_sets_the_judge_beside_the_strict_count() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = kit_workspace(addr);
        let args = [bench_args(&queries), vec!["--json"]].concat();
        let report = json_of(&ws.ok(&args));
        let judged = &report["judged_offer"];
        let point = &judged["points"][0];
        assert_eq!(point["k"], 1, "{judged:#}");
        // QR: the other generator is offered, the judge names it (strict miss, judged covered);
        // translate + QR: one need unserved (neither); weather: the named API is not offered
        // (strict only, whatever the reply's own `covered`); currency: no JSON (unjudged).
        assert_eq!(point["judged_only"], 1, "{judged:#}");
        assert_eq!(point["neither"], 1, "{judged:#}");
        assert_eq!(point["strict_only"], 1, "{judged:#}");
        assert_eq!(point["both"], 0, "{judged:#}");
        assert_eq!(point["unjudged"], 1, "{judged:#}");
        assert_eq!(point["strict"], 50.0, "{judged:#}");
        assert_eq!(point["judged"], 25.0, "{judged:#}");
        assert_eq!(
            report["coverage_curve"][0]["expanded"]
                .as_f64()
                .or(report["coverage_curve"][0]["plain"].as_f64()),
            Some(50.0),
            "the strict figure is the curve's: {report:#}"
        );
        let misses = judged["misses"].as_array().unwrap();
        assert_eq!(misses.len(), 1, "{judged:#}");
        assert_eq!(misses[0]["query"], QR);
        assert_eq!(misses[0]["missing"], json!(["kit/qr_classic"]));
        assert_eq!(misses[0]["instead"][0]["api"], "kit/qr_link", "{judged:#}");
        let unjudged = judged["unjudged"].as_array().unwrap();
        assert_eq!(unjudged.len(), 1);
        assert_eq!(unjudged[0]["query"], CURRENCY);
        // One question per query at K=1, the unreadable one asked again twice.
        let prompts = seen.lock().unwrap().clone();
        assert_eq!(prompts.len(), 6, "{prompts:#?}");
        assert_eq!(judged["usage"]["calls"], 6, "{judged:#}");
        assert_eq!(judged["usage"]["prompt_tokens"], 1800, "{judged:#}");
        // With --offers, every offer's verdict is listed beside it.
        let verdicts = judged["verdicts"].as_array().unwrap();
        assert_eq!(verdicts.len(), 4, "{judged:#}");
        assert_eq!(verdicts[0]["query"], QR);
        assert_eq!(verdicts[0]["strict"], false);
        assert_eq!(verdicts[0]["verdict"]["verdict"], "judged", "{judged:#}");
        assert_eq!(verdicts[0]["verdict"]["needs"][0]["api"], "kit/qr_link");
        assert_eq!(verdicts[2]["verdict"]["needs"][0]["served"], "not_offered");
        assert_eq!(verdicts[3]["verdict"]["verdict"], "unjudged");
        // Each prompt lists exactly the APIs `--offers` lists for its query.
        for offer in report["offers"].as_array().unwrap() {
            let query = offer["query"].as_str().unwrap();
            let listed = prompts
                .iter()
                .map(|p| read_prompt(p))
                .find(|(request, _)| request == query)
                .map(|(_, listed)| listed)
                .unwrap_or_else(|| panic!("no judge prompt for {query}"));
            let offered: Vec<String> = offer["apis"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .collect();
            assert_eq!(listed, offered, "{query}");
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_replays_the_judge_from_the_cache() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = kit_workspace(addr);
        let json_args = [bench_args(&queries), vec!["--json"]].concat();
        let first = json_of(&ws.ok(&json_args));
        let asked = seen.lock().unwrap().len();
        assert!(asked > 0);
        let text = ws.ok(&bench_args(&queries));
        assert_eq!(
            seen.lock().unwrap().len(),
            asked,
            "no new question reached the model"
        );
        assert!(
            text.contains("judge: 0 LLM call(s) (6 from the cache)"),
            "{text}"
        );
        assert!(
            text.contains("strict coverage is the benchmark's metric"),
            "{text}"
        );
        assert!(
            text.contains(&format!("judged covered, strict miss @1: {QR}")),
            "{text}"
        );
        assert!(text.contains("-> kit/qr_link"), "{text}");
        assert!(text.contains(&format!("unjudged @1: {CURRENCY}")), "{text}");
        // The cached verdicts are the first run's.
        let again = json_of(&ws.ok(&json_args));
        assert_eq!(
            again["judged_offer"]["points"],
            first["judged_offer"]["points"]
        );
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cut_off_given_twice_is_judged_once() {
    let (addr, seen) = loopback().await;
    tokio::task::spawn_blocking(move || {
        let (ws, queries) = kit_workspace(addr);
        let args = [
            "bench",
            "retrieval",
            "--dataset",
            &queries,
            "--coverage-k",
            "1,2,1",
            "--judge-offer",
            "--json",
        ];
        let report = json_of(&ws.ok(&args));
        let points = report["judged_offer"]["points"].as_array().unwrap();
        let ks: Vec<&Value> = points.iter().map(|p| &p["k"]).collect();
        assert_eq!(ks, [1, 2], "{points:#?}");
        let counted = ["both", "strict_only", "judged_only", "neither", "unjudged"]
            .iter()
            .map(|c| points[0][c].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(counted, 4, "each query once at K=1: {points:#?}");
        // BM25 offers the weather and currency queries one API at either cut-off, so each is
        // asked once: six distinct offers, the unreadable one asked again twice.
        let seen = seen.lock().unwrap();
        let asked: Vec<_> = seen.iter().map(|p| read_prompt(p)).collect();
        assert_eq!(seen.len(), 8, "{asked:#?}");
        let currency = asked.iter().filter(|(q, _)| q == CURRENCY).count();
        assert_eq!(currency, 3, "{asked:#?}");
    })
    .await
    .unwrap();
}

#[test]
fn without_a_model_the_judge_fails_with_how_to_configure_one() {
    let ws = Workspace::new();
    std::fs::write(ws.dir.path().join("kit.json"), kit_spec().to_string()).unwrap();
    std::fs::write(ws.dir.path().join("queries.json"), query_file()).unwrap();
    ws.ok(&["import", "kit.json"]);
    let out = ws.run(&[
        "bench",
        "retrieval",
        "--dataset",
        "queries.json",
        "--coverage-k",
        "1",
        "--judge-offer",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the model that judges offers"), "{err}");
    assert!(err.contains("no LLM is configured"), "{err}");
}

#[test]
fn judged_misses_need_the_judge() {
    let ws = Workspace::new();
    let out = ws.run(&[
        "bench",
        "retrieval",
        "--dataset",
        "toolbench-g2",
        "--coverage-k",
        "20",
        "--judged-misses",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--judge-offer"), "{err}");
}
