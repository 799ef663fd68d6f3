//! Judge-based scores of stored runs: pass rate by ToolEval's and AnyTool's rules with judge
//! variance, win rate judged in both orders, and the LLM judge against a scripted model.

use std::sync::Arc;

use toolsmith_eval::testing::{JudgeRequest, ScriptedJudge};
use toolsmith_eval::{
    AnswerStatus, BenchSpec, BenchStore, Benchmark, CallRecord, CallStatus, CalledApi, HelperTool,
    Judge, JudgeCase, JudgeSettings, LlmJudge, LlmJudgeSettings, PassRateSettings, Preference,
    QueryResult, QueryScores, RunId, RunRecord, SolverKind, TaskSolvability, VoteDraws,
    judge_pass_rates, judge_win_rate,
};
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_solve::{Finish, Run};

fn result(query_id: &str, finish: Finish, answer: Option<&str>) -> QueryResult {
    let run = Run {
        solver: "react".into(),
        query: format!("question {query_id}"),
        finish,
        answer: answer.map(str::to_owned),
        detail: None,
        trace: Vec::new(),
    };
    let record = RunRecord::from_run(&run);
    let scores = QueryScores::of(&run, &record, &[], &[], 0);
    QueryResult {
        query_id: query_id.into(),
        run,
        record,
        offered: Vec::new(),
        scores,
    }
}

fn stored_run(store: &BenchStore, results: &[QueryResult]) -> RunId {
    let spec = BenchSpec::new(&Benchmark::RestbenchTmdb, SolverKind::React);
    let id = store.create_run(&spec).unwrap();
    for r in results {
        store.save_result(id, r).unwrap();
    }
    id
}

fn settings(runs: usize) -> JudgeSettings {
    JudgeSettings {
        runs,
        pass: PassRateSettings {
            tooleval_samples: 1,
            anytool_votes: 3,
            draws: VoteDraws::Independent,
        },
        win_rounds: 1,
        seed: 0,
    }
}

#[tokio::test]
async fn pass_rates_by_both_rules_with_judge_variance() {
    use AnswerStatus::{Solved, Unsolved, Unsure};
    use TaskSolvability::{Solvable, Unsolvable};
    let store = BenchStore::in_memory().unwrap();
    let run = stored_run(
        &store,
        &[
            result("q0", Finish::Answered, Some("42")),
            result("q1", Finish::GaveUp, None),
        ],
    );
    // ToolEval's sample i and AnyTool's vote i share the judge's draw i; AnyTool stops at a
    // majority of its 3 votes.
    // Judge run 0. q0: ToolEval Solved; AnyTool's first 2 votes Solved: passes both.
    //              q1 gave up: Unsolved without asking, on an unsolvable task: ToolEval
    //              passes; AnyTool fails it without asking.
    // Judge run 1. q0: Unsolved on a solvable task fails; AnyTool's 2 votes not Solved fail.
    //              q1: solvable: fails both.
    let judge = ScriptedJudge::new()
        .answers([
            Solved, Solved, // run 0
            Unsolved, Unsure, // run 1
        ])
        .solvability([Unsolvable, Solvable, Solvable]);
    let rates = judge_pass_rates(&judge, &store, run, &settings(2))
        .await
        .unwrap();
    assert_eq!((rates.queries, rates.judge_runs), (2, 2));
    // ToolEval: 100% then 0%; AnyTool: 50% then 0%.
    assert!((rates.tooleval.mean - 50.0).abs() < 1e-9);
    assert!((rates.tooleval.std - 70.710_678).abs() < 1e-4);
    assert!((rates.anytool.mean - 25.0).abs() < 1e-9);
    assert!((rates.anytool.std - 35.355_339).abs() < 1e-4);
    assert_eq!(judge.requests().len(), 7);
    // The judge's calls are counted with the run.
    assert_eq!(rates.usage.calls, 7);
    // Stored: the same rates read back, and judging again asks nothing.
    assert_eq!(store.pass_rates(run).unwrap(), Some(rates));
    let again = judge_pass_rates(&judge, &store, run, &settings(2))
        .await
        .unwrap();
    assert_eq!(again, rates);
    assert_eq!(judge.requests().len(), 7);
}

#[tokio::test]
async fn win_rate_is_judged_in_both_orders_with_ties_apart() {
    use Preference::{First, Second};
    let store = BenchStore::in_memory().unwrap();
    let answered = |q: &str| result(q, Finish::Answered, Some("an answer"));
    let reference = stored_run(&store, &[answered("q0"), answered("q1"), answered("q2")]);
    let candidate = stored_run(&store, &[answered("q0"), answered("q1"), answered("q2")]);
    // q0: preferred in both orders (win); q1: the first shown both times (position bias:
    // tie); q2: the reference in both orders (loss).
    let judge = ScriptedJudge::new().preferences([First, Second, First, First, Second, First]);
    let report = judge_win_rate(&judge, &store, candidate, reference, &settings(1))
        .await
        .unwrap();
    assert_eq!(
        (
            report.outcomes.wins,
            report.outcomes.ties,
            report.outcomes.losses
        ),
        (1, 1, 1)
    );
    assert!((report.win_rate - 100.0 / 3.0).abs() < 1e-9);
    assert!((report.tie_rate - 100.0 / 3.0).abs() < 1e-9);
    assert_eq!(report.reference, reference);
    let asked: Vec<JudgeRequest> = judge.requests().into_iter().map(|(r, _)| r).collect();
    assert_eq!(asked, vec![JudgeRequest::Prefer; 6]);
    // Stored: read back without the judge, and not asked again.
    assert_eq!(store.win_rate(candidate, reference).unwrap(), Some(report));
    judge_win_rate(&judge, &store, candidate, reference, &settings(1))
        .await
        .unwrap();
    assert_eq!(judge.requests().len(), 6);
}

#[tokio::test]
async fn a_run_that_alone_passed_wins_without_asking_the_judge() {
    let store = BenchStore::in_memory().unwrap();
    let reference = stored_run(&store, &[result("q0", Finish::StepLimit, None)]);
    let candidate = stored_run(&store, &[result("q0", Finish::Answered, Some("42"))]);
    // Pass labels: the candidate's answer is Solved; the reference never finished.
    let labels = ScriptedJudge::new().answers([AnswerStatus::Solved; 4]);
    judge_pass_rates(&labels, &store, candidate, &settings(1))
        .await
        .unwrap();
    judge_pass_rates(&labels, &store, reference, &settings(1))
        .await
        .unwrap();
    let judge = ScriptedJudge::new();
    let report = judge_win_rate(&judge, &store, candidate, reference, &settings(1))
        .await
        .unwrap();
    assert_eq!(report.outcomes.wins, 1);
    assert!(judge.requests().is_empty());
}

fn record_with_calls() -> RunRecord {
    RunRecord {
        calls: vec![CallRecord {
            api: CalledApi::Known("tmdb/search_movie".parse().unwrap()),
            arguments: serde_json::json!({"query": "Dune"}),
            outcome: CallStatus::Ok,
            observation: r#"{"results": [{"title": "Dune", "year": 2021}]}"#.into(),
            step: None,
        }],
        finish: Finish::Answered,
        answer: Some("Dune came out in 2021.".into()),
    }
}

#[tokio::test]
async fn the_llm_judge_looks_at_the_trajectory_when_the_answer_alone_is_unsure() {
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(r#"{"reason": "plausible", "status": "unsure"}"#),
        Reply::text(r#"{"reason": "the search result backs it", "status": "Solved"}"#),
        Reply::text(r#"{"reason": "clear", "status": "solved"}"#),
        Reply::text(r#"{"reason": "needs an id", "status": "unsolvable"}"#),
        Reply::text(r#"{"reason": "B has the year", "better": "B"}"#),
    ]));
    let judge = LlmJudge::new(llm.clone(), LlmJudgeSettings::PAPER);
    let record = record_with_calls();
    let case = JudgeCase {
        query: "When did Dune come out?",
        offered: &[],
        run: &record,
    };
    assert_eq!(
        judge.answer_status(&case).await.unwrap(),
        AnswerStatus::Solved
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r.role.as_str() == "judge"));
    assert!(
        !requests[0].contains("tmdb/search_movie"),
        "the first look sees the answer only"
    );
    assert!(requests[1].contains("tmdb/search_movie"));
    assert!(requests[1].contains("2021"));
    // A clear first look is final.
    assert_eq!(
        judge.answer_status(&case).await.unwrap(),
        AnswerStatus::Solved
    );
    assert_eq!(llm.requests().len(), 3);
    // The same question asked again is a new draw: another seed, another cache entry.
    let seeds: Vec<Option<u64>> = llm.requests().iter().map(|r| r.sampling.seed).collect();
    assert_eq!(seeds, [Some(0), Some(0), Some(1)]);
    assert_eq!(
        judge
            .task_solvability("Rate movie 0", &["tmdb/movie_rating".parse().unwrap()])
            .await
            .unwrap(),
        TaskSolvability::Unsolvable
    );
    assert!(llm.requests()[3].contains("tmdb/movie_rating"));
    let other = RunRecord {
        answer: Some("Dune is a film.".into()),
        ..record_with_calls()
    };
    assert_eq!(
        judge.prefer(case.query, &other, &record).await.unwrap(),
        Preference::Second
    );
}

#[tokio::test]
async fn an_unreadable_verdict_is_a_judge_error() {
    let llm = Arc::new(ScriptedLlm::new([Reply::text(
        r#"{"reason": "x", "status": "probably"}"#,
    )]));
    let judge = LlmJudge::new(llm, LlmJudgeSettings::PAPER);
    let record = record_with_calls();
    let case = JudgeCase {
        query: "q",
        offered: &[],
        run: &record,
    };
    let err = judge.answer_status(&case).await.unwrap_err();
    assert!(err.to_string().contains("probably"), "{err}");
}

#[tokio::test]
async fn judging_asks_each_question_at_most_as_often_as_a_protocol_needs() {
    use AnswerStatus::Solved;
    use TaskSolvability::Solvable;
    let store = BenchStore::in_memory().unwrap();
    // The papers' protocols: 4 ToolEval samples, 3 AnyTool votes.
    let paper = JudgeSettings::PAPER;
    let run = stored_run(
        &store,
        &[
            result("q0", Finish::Answered, Some("42")),
            result("q1", Finish::GaveUp, None),
        ],
    );
    // A consistent judge: q0 is settled by 2 answer questions (they were 4 + 3), q1 by 3
    // solvability questions (they were 4).
    let judge = ScriptedJudge::new()
        .answers([Solved; 2])
        .solvability([Solvable; 3]);
    let rates = judge_pass_rates(&judge, &store, run, &paper).await.unwrap();
    let asked: Vec<JudgeRequest> = judge.requests().into_iter().map(|(r, _)| r).collect();
    let count = |kind: JudgeRequest| asked.iter().filter(|r| **r == kind).count();
    assert_eq!(count(JudgeRequest::AnswerStatus), 2);
    assert_eq!(count(JudgeRequest::TaskSolvability), 3);
    assert_eq!(rates.usage.calls, 5);
    assert!((rates.tooleval.mean - 50.0).abs() < 1e-9);
    assert!((rates.anytool.mean - 50.0).abs() < 1e-9);
}

#[test]
fn solvability_is_judged_against_anytools_pool_not_the_whole_catalog() {
    use toolsmith_solve::{Stamped, TraceEvent};
    let api = |name: &str| -> toolsmith_catalog::ApiId { format!("t/{name}").parse().unwrap() };
    let mut r = result("q0", Finish::Answered, Some("42"));
    // The run was offered a large catalog; AnyTool's search seeded 2 APIs and an agent added 1.
    r.offered = (0..500).map(|i| api(&format!("api{i}"))).collect();
    let stamped = |event| Stamped { at_ms: 0, event };
    r.run.trace = vec![
        stamped(TraceEvent::Seeded {
            apis: vec![api("a"), api("b")],
            solvable: false,
            reason: String::new(),
        }),
        stamped(TraceEvent::PoolChanged {
            agent: Some(1),
            added: vec![api("b"), api("c")],
            removed: Vec::new(),
            size: 3,
        }),
    ];
    let stored = toolsmith_eval::StoredResult {
        query_id: r.query_id.clone(),
        run: r.run.clone(),
        record: r.record.clone(),
        offered: r.offered.clone(),
        scores: r.scores.clone(),
    };
    assert_eq!(
        toolsmith_eval::solvability_scope(&stored),
        vec![api("a"), api("b"), api("c")]
    );
    // A run without a pool is judged against what it was offered.
    let mut plain = stored;
    plain.run.trace.clear();
    assert_eq!(toolsmith_eval::solvability_scope(&plain).len(), 500);
}

/// A retrieval run that was not offered its gold path is still judged solvable against the
/// gold APIs: a give-up there is a retrieval failure, not a right refusal.
#[test]
fn solvability_scope_holds_the_gold_path_beside_what_was_offered() {
    let api = |name: &str| -> toolsmith_catalog::ApiId { format!("t/{name}").parse().unwrap() };
    let mut r = result("q0", Finish::GaveUp, None);
    r.offered = vec![api("search"), api("other")];
    r.scores.gold = vec![api("search"), api("details")];
    let stored = toolsmith_eval::StoredResult {
        query_id: r.query_id.clone(),
        run: r.run.clone(),
        record: r.record.clone(),
        offered: r.offered.clone(),
        scores: r.scores.clone(),
    };
    assert_eq!(
        toolsmith_eval::solvability_scope(&stored),
        vec![api("search"), api("other"), api("details")]
    );
}

/// The LLM judge under the default settings (ToolEval's 4 samples and AnyTool's 3 votes, one
/// verdict per question and judge run) asks each distinct question once: a clear answer takes
/// 1 call, an unsure one 3 (answer, trajectory, solvability), a give-up 1, a run that never
/// finished none; no request is sent twice, and each query's calls are stored with it.
#[tokio::test]
async fn the_llm_judge_sends_each_question_once_per_query_under_both_rules() {
    let store = BenchStore::in_memory().unwrap();
    let mut unsure = result("q1", Finish::Answered, Some("Dune came out in 1999."));
    unsure.record = RunRecord {
        answer: unsure.record.answer.clone(),
        ..record_with_calls()
    };
    let run = stored_run(
        &store,
        &[
            result("q0", Finish::Answered, Some("42")),
            unsure,
            result("q2", Finish::GaveUp, None),
            result("q3", Finish::StepLimit, None),
        ],
    );
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(r#"{"reason": "complete", "status": "solved"}"#),
        Reply::text(r#"{"reason": "plausible", "status": "unsure"}"#),
        Reply::text(r#"{"reason": "the result says 2021", "status": "unsolved"}"#),
        Reply::text(r#"{"reason": "a search finds it", "status": "solvable"}"#),
        Reply::text(r#"{"reason": "a search finds it", "status": "solvable"}"#),
    ]));
    let judge = LlmJudge::new(llm.clone(), LlmJudgeSettings::PAPER);
    let rates = judge_pass_rates(&judge, &store, run, &JudgeSettings::default())
        .await
        .unwrap();
    let per_query: Vec<(String, u64)> = store
        .judgements(run)
        .unwrap()
        .into_iter()
        .map(|(q, _, j)| (q, j.usage.calls))
        .collect();
    assert_eq!(
        per_query,
        [
            ("q0".to_owned(), 1),
            ("q1".to_owned(), 3),
            ("q2".to_owned(), 1),
            ("q3".to_owned(), 0)
        ]
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 5);
    let mut sent: Vec<(String, Option<u64>)> = requests
        .iter()
        .map(|r| {
            let text: Vec<&str> = r.messages.iter().map(|m| m.text()).collect();
            (text.concat(), r.sampling.seed)
        })
        .collect();
    sent.sort();
    sent.dedup();
    assert_eq!(sent.len(), 5, "a request was sent twice");
    assert_eq!(rates.usage.calls, 5);
    // Only q0 passes, by both rules.
    assert!((rates.tooleval.mean - 25.0).abs() < 1e-9);
    assert!((rates.anytool.mean - 25.0).abs() < 1e-9);
}

/// The trajectory prompt of an answer the first look left unsure.
async fn trajectory_prompt(record: &RunRecord) -> String {
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(r#"{"reason": "plausible", "status": "unsure"}"#),
        Reply::text(r#"{"reason": "backed", "status": "solved"}"#),
    ]));
    let judge = LlmJudge::new(llm.clone(), LlmJudgeSettings::PAPER);
    let case = JudgeCase {
        query: "When was The Shawshank Redemption released?",
        offered: &[],
        run: record,
    };
    judge.answer_status(&case).await.unwrap();
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    requests[1].messages.iter().map(|m| m.text()).collect()
}

/// `read_result`, the solver's helper for a cut observation, is shown to the judge as that
/// helper, not as a tool that does not exist; so is one in a run stored before helpers had a
/// kind of their own. A name the solver made up still reads "no such tool".
#[tokio::test]
async fn the_judge_is_told_read_result_is_the_solvers_helper() {
    let read = |api: CalledApi| CallRecord {
        api,
        arguments: serde_json::json!({"handle": "r1", "jq_filter": ".release_date"}),
        outcome: CallStatus::Ok,
        observation: r#""1994-09-23""#.into(),
        step: None,
    };
    let mut record = record_with_calls();
    record.calls.extend([
        read(CalledApi::Helper(HelperTool::ReadResult)),
        read(CalledApi::Unknown("read_result".into())),
        CallRecord {
            outcome: CallStatus::Failed,
            ..read(CalledApi::Unknown("get_release".into()))
        },
    ]);
    let prompt = trajectory_prompt(&record).await;
    assert_eq!(
        prompt
            .matches("read_result (not an API: the solver's helper")
            .count(),
        2,
        "{prompt}"
    );
    assert!(!prompt.contains("read_result (no such tool)"), "{prompt}");
    assert!(prompt.contains("get_release (no such tool)"), "{prompt}");
}

/// An observation longer than the judge's cut keeps the value the final answer cites, even
/// far past the cut; the query and the final answer are shown whole.
#[tokio::test]
async fn the_judge_sees_the_cited_value_past_the_observation_cut() {
    let overview = "A banker is sentenced to life in Shawshank. ".repeat(40);
    let observation = format!(
        r#"{{"id": 278, "overview": "{overview}", "release_date": "1994-09-23", "runtime": 142}}"#
    );
    let answer = format!(
        "The Shawshank Redemption (id 278) was released on 1994-09-23. {}",
        "It is a drama. ".repeat(60)
    );
    let record = RunRecord {
        calls: vec![CallRecord {
            api: CalledApi::Known("tmdb/movie_details".parse().unwrap()),
            arguments: serde_json::json!({"movie_id": 278}),
            outcome: CallStatus::Ok,
            observation: observation.clone(),
            step: None,
        }],
        finish: Finish::Answered,
        answer: Some(answer.clone()),
    };
    let limit = LlmJudgeSettings::PAPER.observation_chars;
    assert!(observation.find("1994-09-23").unwrap() > limit);
    let prompt = trajectory_prompt(&record).await;
    assert!(
        prompt.contains(r#""release_date": "1994-09-23""#),
        "{prompt}"
    );
    assert!(prompt.contains(&answer), "the answer is whole");
    assert!(prompt.contains("When was The Shawshank Redemption released?"));
    assert!(prompt.contains("[...]"), "{prompt}");
    // The observation stays near the cut: the prompt is far shorter than the observation.
    let shown_line = prompt
        .lines()
        .find(|l| l.contains("tmdb/movie_details"))
        .unwrap();
    assert!(shown_line.chars().count() < limit + 200, "{shown_line}");
}
