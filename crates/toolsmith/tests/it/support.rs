//! Running the binary against a temporary database.

pub(crate) mod model;
pub(crate) mod spec;

use std::path::PathBuf;
use std::process::Output;

/// A temporary folder with a catalog database in it.
pub(crate) struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn db(&self) -> PathBuf {
        self.dir.path().join("toolsmith.db")
    }

    /// Runs `toolsmith --db <tmp>/toolsmith.db ARGS...`.
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
            .arg("--db")
            .arg(self.db())
            .args(args)
            .current_dir(self.dir.path())
            // The user's own endpoint and files must not leak into tests.
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .env_remove("TOOLSMITH_MODEL")
            .env_remove("TOOLSMITH_CONFIG")
            .env_remove("TOOLSMITH_DB")
            .env_remove("TOOLSMITH_EMBEDDER")
            .output()
            .unwrap()
    }

    /// Points this workspace's `toolsmith.toml` at a loopback OpenAI-compatible server.
    pub(crate) fn use_llm(&self, addr: std::net::SocketAddr) {
        std::fs::write(
            self.dir.path().join("toolsmith.toml"),
            format!("[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n"),
        )
        .unwrap();
    }

    /// Points this workspace's `toolsmith.toml` at a loopback embedding endpoint at `addr`
    /// (the `http` embedder, `dims` dimensions), with `method` if given and `extra` lines under
    /// `[retrieve]`.
    pub(crate) fn use_embedder(
        &self,
        addr: std::net::SocketAddr,
        method: Option<&str>,
        dims: usize,
        extra: &str,
    ) {
        let method = method
            .map(|m| format!("method = \"{m}\"\n"))
            .unwrap_or_default();
        std::fs::write(
            self.dir.path().join("toolsmith.toml"),
            format!(
                "[llm]\nbase_url = \"http://{addr}/v1\"\nembedding_model = \"loopback-embed\"\n\n\
                 [retrieve]\n{method}embedder = \"http\"\nembedding_dimensions = {dims}\n{extra}"
            ),
        )
        .unwrap();
    }

    /// A workspace whose model is the loopback server at `addr`.
    pub(crate) fn with_llm(addr: std::net::SocketAddr) -> Self {
        let ws = Self::new();
        ws.use_llm(addr);
        ws
    }

    /// A workspace whose model is the loopback server at `addr` and whose retrieval is BM25,
    /// with `extra_toml` appended to its config.
    pub(crate) fn bm25_with_llm(addr: std::net::SocketAddr, extra_toml: &str) -> Self {
        let ws = Self::with_llm(addr);
        let config = ws.dir.path().join("toolsmith.toml");
        let mut toml = std::fs::read_to_string(&config).unwrap();
        toml.push_str("\n[retrieve]\nmethod = \"bm25\"\n");
        toml.push_str(extra_toml);
        std::fs::write(&config, toml).unwrap();
        ws
    }

    /// [`Self::bm25_with_llm`] with `spec` imported from the file `spec_name` and `queries`
    /// written to `queries.json`; returns the workspace and the query file's path.
    pub(crate) fn bm25_imported(
        addr: std::net::SocketAddr,
        extra_toml: &str,
        (spec_name, spec): (&str, &serde_json::Value),
        queries: &str,
    ) -> (Self, String) {
        let ws = Self::bm25_with_llm(addr, extra_toml);
        ws.write(spec_name, &spec.to_string());
        let queries = ws.write("queries.json", queries);
        ws.ok(&["import", spec_name]);
        (ws, queries)
    }

    /// Writes `text` to the file `name` in the folder; returns its path as an argument.
    pub(crate) fn write(&self, name: &str, text: &str) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }

    /// Imports [`WEATHER_FUNCTION`] (written to `weather.json`) as the tool `weather`.
    pub(crate) fn import_weather(&self) {
        let functions = self.write("weather.json", WEATHER_FUNCTION);
        self.ok(&["import", &functions, "--tool", "weather"]);
    }

    /// A workspace with RestBench's TMDB spec imported whose model is the loopback server at
    /// `addr`.
    pub(crate) fn tmdb_with_llm(addr: std::net::SocketAddr) -> Self {
        let ws = Self::new();
        ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
        ws.use_llm(addr);
        ws
    }

    /// Runs `bench run` over the first 3 queries of `dataset` in the data folder `data_dir`, as
    /// JSON, with `extra` arguments; returns stdout.
    pub(crate) fn bench_run(&self, dataset: &str, data_dir: &str, extra: &[&str]) -> String {
        let mut args = vec![
            "bench",
            "run",
            "--dataset",
            dataset,
            "--limit",
            "3",
            "--json",
            "--data-dir",
            data_dir,
        ];
        args.extend_from_slice(extra);
        self.ok(&args)
    }

    /// Runs `bench run` over the query file `queries`, offering the top 2 retrieved tools, as
    /// JSON, with `extra` arguments; asserts success and returns the run's id and stderr.
    pub(crate) fn bench_run_top2(&self, queries: &str, extra: &[&str]) -> (i64, String) {
        let mut args = vec![
            "bench",
            "run",
            "--dataset",
            queries,
            "--tools",
            "retrieve:2",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let report = json_of(&String::from_utf8(out.stdout).unwrap());
        (report["run"].as_i64().unwrap(), stderr)
    }

    /// The APIs stored run `run` offered its query `q` (`bench show`), sorted.
    pub(crate) fn offered(&self, run: i64, q: usize) -> Vec<String> {
        let one = json_of(&self.ok(&["bench", "show", &run.to_string(), &q.to_string(), "--json"]));
        let mut apis: Vec<String> = one["offered"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect();
        apis.sort();
        apis
    }

    /// Runs and asserts success; returns stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "toolsmith {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// A path in the shared benchmark data (`TOOLSMITH_DATA`, else `../shared/data`), as an argument.
pub(crate) fn shared(relative: &str) -> String {
    toolsmith_catalog::testing::data_path(relative)
        .to_string_lossy()
        .into_owned()
}

/// One OpenAI function, `current_weather(city)`: the weather now in a city.
pub(crate) const WEATHER_FUNCTION: &str = r#"[{"type": "function", "function": {"name": "current_weather",
  "description": "The weather now in a city.",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]"#;

/// The JSON that a command printed; fails showing the output when it is not JSON.
pub(crate) fn json_of(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Serves `app` on a loopback port for the rest of the test; returns its address.
pub(crate) async fn serve_loopback(app: axum::Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A loopback model's chat completion for `request`: one choice holding `message` (an
/// assistant message) ended by `finish_reason`, reporting `prompt` and `completion` tokens.
pub(crate) fn completion(
    request: &serde_json::Value,
    message: serde_json::Value,
    finish_reason: &str,
    (prompt, completion): (u64, u64),
) -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({
        "id": "x", "object": "chat.completion", "model": request["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion},
    }))
}

/// [`completion`] of a plain text answer (`finish_reason` "stop").
pub(crate) fn text_completion(
    request: &serde_json::Value,
    content: impl Into<serde_json::Value>,
    usage: (u64, u64),
) -> axum::Json<serde_json::Value> {
    let message = serde_json::json!({"role": "assistant", "content": content.into()});
    completion(request, message, "stop", usage)
}
