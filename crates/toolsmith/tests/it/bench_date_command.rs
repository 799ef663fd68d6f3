//! `bench run` fixes the date of its world when it starts: the agent's system prompt and the
//! simulator's fill prompts state that one date, the run's spec stores it, and a resumed run
//! keeps it whatever `[exec.simulate] today` says by then.

use serde_json::Value;

use crate::bench_command::{Seen, tmdb_agent};
use crate::support::{Workspace, json_of, shared};

/// Writes the workspace's config: its loopback model, an LLM-filled simulator at `today`.
fn simulate_at(ws: &Workspace, today: &str) {
    let path = ws.dir.path().join("toolsmith.toml");
    let config = std::fs::read_to_string(&path).unwrap();
    let model = config.split("\n[exec.simulate]").next().unwrap();
    let simulate = format!("\n[exec.simulate]\nfill = \"llm\"\ntoday = \"{today}\"\n");
    std::fs::write(&path, format!("{model}{simulate}")).unwrap();
}

/// `bench run` over the first `limit` RestBench TMDB queries, resuming `resume` if given.
fn bench_run(ws: &Workspace, limit: &str, resume: Option<&str>) -> Value {
    let data = shared("restbench-tmdb/..");
    let mut args = vec![
        "bench",
        "run",
        "--limit",
        limit,
        "--json",
        "--data-dir",
        &data,
    ];
    match resume {
        Some(id) => args.extend(["--resume", id]),
        None => args.extend(["--dataset", "restbench-tmdb"]),
    }
    json_of(&ws.ok(&args))
}

/// The agent's system prompts and the simulator's fill prompts among the requests `seen` got
/// from index `from` on.
fn prompts(seen: &Seen, from: usize) -> (Vec<String>, Vec<String>) {
    let requests = seen.lock().unwrap();
    let (agent, simulator): (Vec<&Value>, Vec<&Value>) = requests[from..]
        .iter()
        .partition(|r| r.get("tools").is_some());
    let system = |r: &&Value| {
        r["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    let whole = |r: &&Value| r["messages"].to_string();
    (
        agent.iter().map(system).collect(),
        simulator.iter().map(whole).collect(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_and_the_simulator_share_the_date_the_run_started_with() {
    let (ws, seen) = tmdb_agent().await;
    simulate_at(&ws, "2026-01-15");
    let (ws, first) = tokio::task::spawn_blocking(move || {
        let first = bench_run(&ws, "1", None);
        (ws, first)
    })
    .await
    .unwrap();
    assert_eq!(
        first["spec"]["today"], "2026-01-15",
        "the run stored its date"
    );
    let (agent, simulator) = prompts(&seen, 0);
    assert!(!agent.is_empty() && !simulator.is_empty());
    for prompt in &agent {
        assert!(
            prompt.contains("Today is Thursday, 2026-01-15."),
            "the agent was told the run's date: {prompt}"
        );
    }
    for prompt in &simulator {
        assert!(
            prompt.contains("Today's date: 2026-01-15."),
            "the simulator answered as of the run's date: {prompt}"
        );
    }

    // The setting moves on; the resumed run keeps the date it began with.
    simulate_at(&ws, "2031-01-02");
    let before = seen.lock().unwrap().len();
    let resumed = tokio::task::spawn_blocking(move || bench_run(&ws, "2", Some("1")))
        .await
        .unwrap();
    assert_eq!(resumed["summary"]["queries"], 2);
    assert_eq!(resumed["spec"]["today"], "2026-01-15");
    let (agent, simulator) = prompts(&seen, before);
    assert!(!agent.is_empty() && !simulator.is_empty());
    for prompt in agent.iter().chain(&simulator) {
        assert!(prompt.contains("2026-01-15"), "{prompt}");
        assert!(!prompt.contains("2031"), "{prompt}");
    }
}
