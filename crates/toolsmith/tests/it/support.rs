//! Running the binary against a temporary database.

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
