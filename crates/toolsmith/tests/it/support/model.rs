//! Loopback models the tests script: serving a handler with its state, reading the prompt of a
//! request, and the replies several tests give alike.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::{MethodRouter, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::{completion, serve_loopback, text_completion};

/// The prompts a loopback model was sent, in order.
pub(crate) type Prompts = Arc<Mutex<Vec<String>>>;

/// Serves `route` at `path` with a fresh `S` as its state; returns the address and that state,
/// which the handler fills (prompts seen, calls counted) for the test to read.
pub(crate) async fn serve_with_state<S>(path: &str, route: MethodRouter<S>) -> (SocketAddr, S)
where
    S: Default + Clone + Send + Sync + 'static,
{
    let state = S::default();
    let app = Router::new().route(path, route).with_state(state.clone());
    (serve_loopback(app).await, state)
}

/// The text of a chat request's first message: the prompt of a one-message call.
pub(crate) fn prompt_of(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// An agent's turn that calls `Finish` at once with `final_answer` (10 prompt and 5
/// completion tokens).
pub(crate) fn finish_turn(request: &Value, final_answer: &str) -> Json<Value> {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_finish", "type": "function", "function": {"name": "Finish",
        "arguments": json!({"return_type": "give_answer", "final_answer": final_answer}).to_string()}}]});
    completion(request, message, "tool_calls", (10, 5))
}

/// A model whose every agent turn finishes at once with "an answer"; counts its calls.
pub(crate) async fn finishing_agent() -> (SocketAddr, Arc<Mutex<usize>>) {
    async fn finish(calls: State<Arc<Mutex<usize>>>, Json(request): Json<Value>) -> Json<Value> {
        *calls.lock().unwrap() += 1;
        finish_turn(&request, "an answer")
    }
    serve_with_state("/v1/chat/completions", post(finish)).await
}

/// A scripted model that answers each prompt with the text `reply(prompt)`, reporting `usage`
/// tokens, and records the prompts; with `finish_agents`, it also finishes each agent turn at
/// once with "done" (not recorded), for tests that read what a bench run offered the agent.
#[derive(Clone, Copy)]
pub(crate) struct TextModel {
    reply: fn(&str) -> String,
    usage: (u64, u64),
    finish_agents: bool,
}

impl TextModel {
    /// The model of `reply` and `usage`, expecting no agent turns.
    pub(crate) const fn new(reply: fn(&str) -> String, usage: (u64, u64)) -> Self {
        Self {
            reply,
            usage,
            finish_agents: false,
        }
    }

    /// This model, finishing each agent turn at once.
    pub(crate) const fn finishing_agents(self) -> Self {
        Self {
            finish_agents: true,
            ..self
        }
    }

    /// The reply to one chat `request`, its prompt added to `seen`.
    pub(crate) fn answer(self, seen: &Prompts, request: &Value) -> Json<Value> {
        if self.finish_agents && request.get("tools").is_some() {
            return finish_turn(request, "done");
        }
        let prompt = prompt_of(request);
        let content = (self.reply)(&prompt);
        seen.lock().unwrap().push(prompt);
        text_completion(request, content, self.usage)
    }

    /// Serves this model on a loopback port; returns its address and the prompts it is sent.
    pub(crate) async fn serve(self) -> (SocketAddr, Prompts) {
        let chat = move |seen: State<Prompts>, Json(request): Json<Value>| async move {
            self.answer(&seen, &request)
        };
        serve_with_state("/v1/chat/completions", post(chat)).await
    }
}

/// Serves an OpenAI-compatible `/v1/embeddings` on a loopback port whose vector of a text is
/// `embed(text)`; returns its address and every text it was asked to embed, in order.
pub(crate) async fn embedding_model(embed: fn(&str) -> Vec<f32>) -> (SocketAddr, Prompts) {
    let embeddings = move |seen: State<Prompts>, Json(request): Json<Value>| async move {
        let inputs: Vec<String> = match &request["input"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().unwrap_or_default().to_owned())
                .collect(),
            _ => Vec::new(),
        };
        seen.lock().unwrap().extend(inputs.iter().cloned());
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": embed(text)}))
            .collect();
        Json(
            json!({"object": "list", "model": request["model"], "data": data,
            "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
        )
    };
    serve_with_state("/v1/embeddings", post(embeddings)).await
}
