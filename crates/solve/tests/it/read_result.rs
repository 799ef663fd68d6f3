//! `read_result`: a cut observation read in full by a scripted ReAct run (pages and jq), and
//! never offered under the paper's protocol.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::JqSandbox;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_solve::{
    AgentSettings, CallOutcome, Finish, Protocol, READ_RESULT, React, ReactSettings, Run, Solver,
    TraceEvent,
};

use crate::support::*;

/// A search answer far over the 1,024-character limit: 12 albums with nested artists.
fn long_answer() -> Value {
    let items: Vec<Value> = (0..12)
        .map(|i| {
            json!({"added_at": "2023-01-05T10:00:00Z",
                   "album": {"id": format!("al{i}"), "name": format!("Album \"{i}\" é"),
                             "artists": [{"id": format!("ar{i}"), "name": format!("Artist {i}")}],
                             "label": "Some Label", "release_date": "2020-03-20"}})
        })
        .collect();
    json!({"items": items, "total": 12})
}

/// The observation text the runtime keeps whole (ToolBench's envelope).
fn whole() -> String {
    json!({"error": "", "response": long_answer()}).to_string()
}

/// Runs ReAct over `replies` after a first search whose answer is cut.
async fn run(replies: Vec<Reply>, settings: AgentSettings) -> (Run, Arc<ScriptedLlm>) {
    run_with(replies, settings, None).await
}

/// [`run`] with `read_result`'s jq filters running in `jq`.
async fn run_with(
    replies: Vec<Reply>,
    settings: AgentSettings,
    jq: Option<Arc<JqSandbox>>,
) -> (Run, Arc<ScriptedLlm>) {
    let fx = fixture();
    let mut script = vec![Reply::tool_call(SEARCH, args(json!({"query": "albums"})))];
    script.extend(replies);
    let llm = Arc::new(ScriptedLlm::new(script));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), long_answer()));
    let mut runtime = runtime(llm.clone(), tools, fx.book);
    runtime.settings = settings;
    runtime.jq = jq;
    let react = ReactSettings {
        max_depth: 60,
        ..ReactSettings::PAPER
    };
    let run = React::new(runtime, react)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    (run, llm)
}

/// The observations of the run's calls of `function`, in order.
fn observations(run: &Run, function: &str) -> Vec<(String, CallOutcome)> {
    run.trace
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::ToolCall {
                function: f,
                observation,
                outcome,
                ..
            } if f == function => Some((observation.clone(), *outcome)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_cut_observation_is_read_in_full_page_by_page() {
    let whole = whole();
    let total = whole.chars().count();
    // A page holds the limit less 120 characters of the text.
    let offsets: Vec<usize> = (0..total).step_by(1024 - 120).collect();
    assert!(offsets.len() >= 2, "the answer must need several pages");
    let mut replies: Vec<Reply> = offsets
        .iter()
        .map(|o| Reply::tool_call(READ_RESULT, args(json!({"handle": "r1", "offset": o}))))
        .collect();
    replies.push(Reply::tool_call("Finish", answer("Album \"11\" é")));
    let (run, llm) = run(replies, AgentSettings::default()).await;
    assert_eq!(run.finish, Finish::Answered);
    let (first, _) = &observations(&run, SEARCH)[0];
    assert!(first.chars().count() <= 1024, "{first}");
    let shown: Value = serde_json::from_str(first).unwrap();
    assert_eq!(shown["cut"]["handle"], "r1", "{first}");
    assert_eq!(shown["cut"]["total_chars"], total);
    assert_eq!(shown["response"]["items"][0]["album"]["id"], "al0");
    let mut read = String::new();
    for (page, outcome) in observations(&run, READ_RESULT) {
        assert_eq!(outcome, CallOutcome::Ok, "{page}");
        assert!(page.chars().count() <= 1024);
        read.push_str(page.split_once('\n').unwrap().1);
    }
    assert_eq!(
        read, whole,
        "the pages put together are the whole observation"
    );
    // The tool is offered once something was cut, not before.
    let offered = |i: usize| {
        llm.requests()[i]
            .tools
            .iter()
            .any(|t| t.name == READ_RESULT)
    };
    assert!(!offered(0) && offered(1));
}

#[tokio::test]
async fn a_jq_filter_reads_what_compaction_left_out() {
    let jq = Arc::new(JqSandbox::new(env!(
        "CARGO_BIN_EXE_toolsmith-solve-sandbox"
    )));
    let filter = "[.response.items[].album.name]";
    let replies = vec![
        Reply::tool_call(
            READ_RESULT,
            args(json!({"handle": "r1", "jq_filter": filter})),
        ),
        Reply::tool_call(READ_RESULT, args(json!({"handle": "r9", "offset": 0}))),
        Reply::tool_call("Finish", answer("12 albums")),
    ];
    let (run, _) = run_with(replies, AgentSettings::default(), Some(jq)).await;
    let reads = observations(&run, READ_RESULT);
    let names: Value = serde_json::from_str(&reads[0].0).unwrap();
    let expected: Vec<String> = (0..12).map(|i| format!("Album \"{i}\" é")).collect();
    assert_eq!(names["response"], json!(expected), "{}", reads[0].0);
    assert!(
        reads[1]
            .0
            .contains("no cut observation has the handle `r9`")
    );
    assert_eq!(reads[1].1, CallOutcome::Rejected);
}

/// A filter's output over the plain limit (12 albums with their artists, about 1,400
/// characters) comes back whole: the agent asked for exactly that slice.
#[tokio::test]
async fn a_jq_slice_over_the_plain_limit_comes_back_whole() {
    let jq = Arc::new(JqSandbox::new(env!(
        "CARGO_BIN_EXE_toolsmith-solve-sandbox"
    )));
    let filter = "[.response.items[].album | {id, name, artists, release_date}]";
    let replies = vec![
        Reply::tool_call(
            READ_RESULT,
            args(json!({"handle": "r1", "jq_filter": filter})),
        ),
        Reply::tool_call("Finish", answer("12 albums")),
    ];
    let (run, _) = run_with(replies, AgentSettings::default(), Some(jq)).await;
    let reads = observations(&run, READ_RESULT);
    let text = &reads[0].0;
    assert!(
        text.chars().count() > 1024,
        "the slice is over the plain limit"
    );
    let shown: Value = serde_json::from_str(text).unwrap();
    assert!(shown.get("cut").is_none(), "{text}");
    let albums = shown["response"].as_array().unwrap();
    assert_eq!(albums.len(), 12);
    assert_eq!(albums[11]["artists"][0]["id"], "ar11");
}

#[tokio::test]
async fn without_the_runtimes_jq_sandbox_a_filter_is_refused_and_pages_still_read() {
    let replies = vec![
        Reply::tool_call(
            READ_RESULT,
            args(json!({"handle": "r1", "jq_filter": ".response"})),
        ),
        Reply::tool_call(READ_RESULT, args(json!({"handle": "r1", "offset": 0}))),
        Reply::tool_call("Finish", answer("x")),
    ];
    let (run, _) = run(replies, AgentSettings::default()).await;
    let reads = observations(&run, READ_RESULT);
    assert!(
        reads[0]
            .0
            .contains("jq filters are not available in this run"),
        "{}",
        reads[0].0
    );
    assert_eq!(reads[0].1, CallOutcome::Rejected);
    assert!(
        reads[1].0.starts_with(r#"{"handle":"r1","#),
        "{}",
        reads[1].0
    );
    assert_eq!(reads[1].1, CallOutcome::Ok);
}

#[tokio::test]
async fn the_paper_protocol_cuts_plainly_and_offers_no_reader() {
    let replies = vec![
        Reply::tool_call(READ_RESULT, args(json!({"handle": "r1"}))),
        Reply::tool_call("Finish", answer("x")),
    ];
    let settings = AgentSettings::default().with_protocol(Protocol::Paper);
    let (run, llm) = run(replies, settings).await;
    let (first, _) = &observations(&run, SEARCH)[0];
    assert!(
        first.ends_with("...") && !first.contains("\"cut\""),
        "{first}"
    );
    let reads = observations(&run, READ_RESULT);
    assert_eq!(reads[0].1, CallOutcome::UnknownTool);
    assert!(
        llm.requests()
            .iter()
            .all(|r| r.tools.iter().all(|t| t.name != READ_RESULT))
    );
}

/// The system prompt of a request to the model.
fn system_of(request: &toolsmith_llm::ChatRequest) -> &str {
    match request.messages.first() {
        Some(toolsmith_llm::Message::System(text)) => text,
        other => panic!("the first message is not a system prompt: {other:?}"),
    }
}

/// Every function a request offers is named in its system prompt: the APIs, `read_result`
/// and `Finish` in its list of functions, `Finish` in its instructions too.
fn assert_lists_what_it_offers(requests: &[toolsmith_llm::ChatRequest]) {
    for (i, request) in requests.iter().enumerate() {
        let system = system_of(request);
        for tool in &request.tools {
            let listed = system.contains(&format!("- {}: ", tool.name));
            let named = listed && (tool.name != "Finish" || system.contains("call Finish"));
            assert!(named, "request {i} offers {} unlisted: {system}", tool.name);
        }
        let offered = request.tools.iter().any(|t| t.name == READ_RESULT);
        assert_eq!(
            system.contains(&format!("- {READ_RESULT}: ")),
            offered,
            "request {i}: {system}"
        );
    }
}

#[tokio::test]
async fn the_system_prompt_lists_read_result_once_it_is_offered() {
    let replies = vec![
        Reply::tool_call(READ_RESULT, args(json!({"handle": "r1", "offset": 0}))),
        Reply::tool_call("Finish", answer("12 albums")),
    ];
    let (run, llm) = run(replies, AgentSettings::default()).await;
    assert_eq!(run.finish, Finish::Answered);
    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[1].tools.iter().any(|t| t.name == READ_RESULT));
    assert_lists_what_it_offers(&requests);
}

#[tokio::test]
async fn dfsdt_lists_read_result_in_its_system_prompt_once_it_is_offered() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(json!({"query": "albums"}))),
        Reply::tool_call(READ_RESULT, args(json!({"handle": "r1", "offset": 0}))),
        Reply::tool_call("Finish", answer("12 albums")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), long_answer()));
    let run = toolsmith_solve::Dfsdt::new(
        runtime(llm.clone(), tools, fx.book),
        toolsmith_solve::DfsdtSettings::PAPER,
    )
    .solve("q", fx.toolset)
    .await
    .unwrap();
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    let requests = llm.requests();
    assert!(requests[1].tools.iter().any(|t| t.name == READ_RESULT));
    assert_lists_what_it_offers(&requests);
}

/// The fields a call selects (`fields=release_date`) are shown in every item its compacted
/// observation shows, however deep: the runtime gives compaction the call's arguments.
#[tokio::test]
async fn the_fields_a_call_selects_are_kept_when_its_observation_is_compacted() {
    let fx = fixture();
    let script = vec![
        Reply::tool_call(
            SEARCH,
            args(json!({"query": "albums", "fields": "release_date"})),
        ),
        Reply::tool_call("Finish", answer("2020")),
    ];
    let llm = Arc::new(ScriptedLlm::new(script));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), long_answer()));
    let runtime = runtime(llm, tools, fx.book);
    let run = React::new(runtime, ReactSettings::PAPER)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    let (first, outcome) = &observations(&run, SEARCH)[0];
    assert_eq!(*outcome, CallOutcome::Ok, "{first}");
    let shown: Value = serde_json::from_str(first).unwrap();
    assert_eq!(shown["cut"]["handle"], "r1", "{first}");
    let items: Vec<&Value> = shown["response"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v.is_object())
        .collect();
    assert!(items.len() >= 2, "{first}");
    for item in items {
        assert_eq!(item["album"]["release_date"], "2020-03-20", "{first}");
    }
}

/// An observation a little over the limit is compacted without slack; with a slack of 10% it
/// is shown whole, and one further over is still compacted.
#[tokio::test]
async fn an_observation_within_the_slack_is_shown_whole() {
    // A search answer whose observation text is `chars` characters long.
    let answer_of = |chars: usize| {
        let bare = json!({"error": "", "response": {"results": [{"id": 1, "title": ""}]}});
        let pad = chars - bare.to_string().chars().count();
        json!({"results": [{"id": 1, "title": "x".repeat(pad)}]})
    };
    let first_observation = |chars: usize, slack: usize| async move {
        let fx = fixture();
        let script = vec![
            Reply::tool_call(SEARCH, args(json!({"query": "x"}))),
            Reply::tool_call("Finish", answer("x")),
        ];
        let llm = Arc::new(ScriptedLlm::new(script));
        let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), answer_of(chars)));
        let mut runtime = runtime(llm, tools, fx.book);
        runtime.settings.observation_slack_percent = slack;
        let run = React::new(runtime, ReactSettings::PAPER)
            .solve("q", fx.toolset)
            .await
            .unwrap();
        observations(&run, SEARCH)[0].0.clone()
    };
    let whole = |text: &str| !text.contains("\"cut\"") && text.chars().count() > 1024;
    let shown = first_observation(1090, 0).await;
    assert!(!whole(&shown) && shown.chars().count() <= 1024, "{shown}");
    let shown = first_observation(1090, 10).await;
    assert!(whole(&shown), "{shown}");
    assert_eq!(shown.chars().count(), 1090);
    let shown = first_observation(1200, 10).await;
    assert!(!whole(&shown) && shown.chars().count() <= 1024, "{shown}");
}

/// The first observation of a run under `settings` whose search answers `chars` characters
/// (as the observation's text).
async fn first_observation_of(chars: usize, settings: AgentSettings) -> String {
    let bare = json!({"error": "", "response": {"results": [{"id": 1, "title": ""}]}});
    let pad = chars - bare.to_string().chars().count();
    let result = json!({"results": [{"id": 1, "title": "x".repeat(pad)}]});
    let fx = fixture();
    let script = vec![
        Reply::tool_call(SEARCH, args(json!({"query": "x"}))),
        Reply::tool_call("Finish", answer("x")),
    ];
    let llm = Arc::new(ScriptedLlm::new(script));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), result));
    let mut runtime = runtime(llm, tools, fx.book);
    runtime.settings = settings;
    let run = React::new(runtime, ReactSettings::PAPER)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    observations(&run, SEARCH)[0].0.clone()
}

/// A result of 1.3k characters is shown whole by default (cutting it saves less than reading
/// the rest would cost), and cut plainly under the paper's protocol; one of 2.5k is still cut.
#[tokio::test]
async fn a_small_result_over_the_limit_is_shown_whole_unless_the_protocol_is_the_papers() {
    let shown = first_observation_of(1300, AgentSettings::default()).await;
    assert_eq!(shown.chars().count(), 1300, "{shown}");
    assert!(!shown.contains("\"cut\""), "{shown}");
    let paper = AgentSettings::default().with_protocol(Protocol::Paper);
    let shown = first_observation_of(1300, paper).await;
    // ToolBench's cut: the first 1,024 characters, then `...`.
    assert!(
        shown.chars().count() == 1024 + 3 && shown.ends_with("..."),
        "{shown}"
    );
    let shown = first_observation_of(2500, AgentSettings::default()).await;
    assert!(
        shown.chars().count() <= 1024 && shown.contains("\"cut\""),
        "{shown}"
    );
}
