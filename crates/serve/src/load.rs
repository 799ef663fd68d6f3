//! The load benchmark of `toolsmith bench serve`: N concurrent clients, each searching and
//! then calling what it found over the HTTP API, for a bounded time, on loopback.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadSettings {
    /// The API's base URL (`http://127.0.0.1:PORT`); loopback only.
    pub base_url: String,
    /// A bearer token, when the server wants one.
    pub token: Option<String>,
    /// Concurrent clients.
    pub clients: usize,
    /// How long they run.
    pub duration: Duration,
    /// Search queries, cycled through.
    pub queries: Vec<String>,
    /// Hits per search.
    pub k: usize,
}

/// What the run measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LoadReport {
    /// Clients that ran.
    pub clients: usize,
    /// Time measured, in seconds.
    pub seconds: f64,
    /// Requests answered (searches and calls).
    pub requests: u64,
    /// Searches answered.
    pub searches: u64,
    /// Calls answered.
    pub calls: u64,
    /// Calls whose tool reported a failure (answered correctly, but not `ok`).
    pub tool_failures: u64,
    /// Requests that failed: transport errors and non-2xx statuses.
    pub errors: u64,
    /// The first few errors, for the report.
    pub error_samples: Vec<String>,
    /// Requests per second.
    pub throughput: f64,
    /// Median latency, in milliseconds.
    pub p50_ms: f64,
    /// 99th-percentile latency, in milliseconds.
    pub p99_ms: f64,
}

#[derive(Default)]
struct ClientTally {
    latencies: Vec<Duration>,
    searches: u64,
    calls: u64,
    tool_failures: u64,
    errors: u64,
    samples: Vec<String>,
}

impl ClientTally {
    fn error(&mut self, what: String) {
        self.errors += 1;
        if self.samples.len() < 3 {
            self.samples.push(what);
        }
    }
}

/// Runs the clients to the end of the duration and sums up what they measured.
pub async fn run_load(settings: &LoadSettings) -> Result<LoadReport, reqwest::Error> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(settings.clients)
        .build()?;
    let started = Instant::now();
    let deadline = started + settings.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..settings.clients.max(1) {
        let client = client.clone();
        let settings = settings.clone();
        tasks.spawn(async move { one_client(&client, &settings, n, deadline).await });
    }
    let mut all = ClientTally::default();
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(t) => {
                all.latencies.extend(t.latencies);
                all.searches += t.searches;
                all.calls += t.calls;
                all.tool_failures += t.tool_failures;
                all.errors += t.errors;
                for s in t.samples {
                    if all.samples.len() < 5 {
                        all.samples.push(s);
                    }
                }
            }
            Err(err) => all.error(format!("client task failed: {err}")),
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    all.latencies.sort_unstable();
    let requests = all.searches + all.calls + all.errors;
    Ok(LoadReport {
        clients: settings.clients,
        seconds,
        requests,
        searches: all.searches,
        calls: all.calls,
        tool_failures: all.tool_failures,
        errors: all.errors,
        error_samples: all.samples,
        throughput: if seconds > 0.0 {
            requests as f64 / seconds
        } else {
            0.0
        },
        p50_ms: percentile(&all.latencies, 0.50),
        p99_ms: percentile(&all.latencies, 0.99),
    })
}

/// The `q` quantile (nearest rank) of sorted latencies, in milliseconds.
pub fn percentile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    let i = rank.clamp(1, sorted.len()) - 1;
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

async fn post(
    client: &reqwest::Client,
    settings: &LoadSettings,
    path: &str,
    body: &Value,
    tally: &mut ClientTally,
) -> Option<Value> {
    let mut request = client
        .post(format!("{}{path}", settings.base_url))
        .json(body);
    if let Some(token) = &settings.token {
        request = request.bearer_auth(token);
    }
    let sent = Instant::now();
    let response = request.send().await;
    let outcome = match response {
        Ok(r) if r.status().is_success() => r.json::<Value>().await.map_err(|e| e.to_string()),
        Ok(r) => Err(format!("{path}: HTTP {}", r.status())),
        Err(e) => Err(format!("{path}: {e}")),
    };
    match outcome {
        Ok(v) => {
            tally.latencies.push(sent.elapsed());
            Some(v)
        }
        Err(e) => {
            tally.error(e);
            None
        }
    }
}

async fn one_client(
    client: &reqwest::Client,
    settings: &LoadSettings,
    n: usize,
    deadline: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    let mut i = n;
    while Instant::now() < deadline {
        let Some(query) = settings
            .queries
            .get(i % settings.queries.len().max(1))
            .cloned()
        else {
            break;
        };
        i += 1;
        let Some(found) = post(
            client,
            settings,
            "/v1/search",
            &json!({"query": query, "k": settings.k}),
            &mut tally,
        )
        .await
        else {
            continue;
        };
        tally.searches += 1;
        let Some(hit) = found["results"].as_array().and_then(|r| r.first()) else {
            continue;
        };
        let arguments = arguments_for(&hit["input_schema"]);
        if let Some(reply) = post(
            client,
            settings,
            "/v1/call",
            &json!({"id": hit["id"], "arguments": arguments}),
            &mut tally,
        )
        .await
        {
            tally.calls += 1;
            if reply["ok"] != Value::Bool(true) {
                tally.tool_failures += 1;
            }
        }
    }
    tally
}

/// Arguments that satisfy a schema's required properties (the first enum value, else a value
/// of the declared type), as a client filling in a form would.
pub fn arguments_for(schema: &Value) -> Value {
    let mut args = Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let property = &schema["properties"][name];
        let value = match property["enum"].as_array().and_then(|e| e.first()) {
            Some(first) => first.clone(),
            None => match property["type"].as_str() {
                Some("integer") => json!(1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("1"),
            },
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// This process's resident memory in KiB (`VmRSS` of `/proc/self/status`), where there is one.
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
}
