//! The LLM answers of `/v1/solve` runs, kept in memory under a cap: a remote client sends
//! tasks of its own choosing, so caching them in the db (`llm_cache`, as `solve` and the
//! benchmarks do) would let it grow the file without bound. The newest
//! `[serve] solve_cache_entries` answers are kept, the least recently used dropped first.

use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use hashlink::LruCache;
use serde_json::json;
use toolsmith_llm::{ChatModel, ChatRequest, ChatResponse, Role};
use toolsmith_plumbing::json::{canonical_json, sha256_hex};

/// `inner` with its answers kept in a bounded in-memory LRU (never on disk).
pub(super) struct MemoChat<M> {
    inner: M,
    /// `None` when the cap is 0: every request goes to `inner`.
    answers: Option<Mutex<LruCache<String, ChatResponse>>>,
}

impl<M: ChatModel> MemoChat<M> {
    /// Keeps at most `entries` answers of `inner` (0: none).
    pub(super) fn new(inner: M, entries: usize) -> Self {
        Self {
            inner,
            answers: (entries > 0).then(|| Mutex::new(LruCache::new(entries))),
        }
    }

    /// Answers held now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.answers.as_ref().map_or(0, |a| {
            a.lock().unwrap_or_else(PoisonError::into_inner).len()
        })
    }

    /// The request's key: the model that answers it and everything sent.
    fn key(&self, req: &ChatRequest) -> String {
        let model = self.inner.model_for(&req.role);
        sha256_hex(canonical_json(&json!({"model": model, "request": req})))
    }
}

#[async_trait]
impl<M: ChatModel> ChatModel for MemoChat<M> {
    async fn chat(&self, req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        let Some(answers) = &self.answers else {
            return self.inner.chat(req).await;
        };
        let key = self.key(req);
        let hit = answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(mut hit) = hit {
            hit.cache_hit = true;
            return Ok(hit);
        }
        let response = self.inner.chat(req).await?;
        answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, response.clone());
        Ok(response)
    }

    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn model_for(&self, role: &Role) -> &str {
        self.inner.model_for(role)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use toolsmith_llm::{FinishReason, Message, Usage};

    use super::*;

    /// Answers every request with its last message, counting the requests it got.
    #[derive(Default)]
    struct Echo(AtomicUsize);

    #[async_trait]
    impl ChatModel for Echo {
        async fn chat(&self, req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(ChatResponse {
                content: Some(req.last_message().to_owned()),
                tool_calls: Vec::new(),
                finish_reason: FinishReason::Stop,
                usage: Usage::default(),
                cache_hit: false,
                model: "echo".to_owned(),
                raw: String::new(),
            })
        }
        fn model_name(&self) -> &str {
            "echo"
        }
    }

    fn ask(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::User(text.to_owned())],
            ..ChatRequest::default()
        }
    }

    #[tokio::test]
    async fn answers_are_kept_up_to_the_cap_the_least_recent_dropped_first() {
        let memo = MemoChat::new(Echo::default(), 3);
        for i in 0..10 {
            let answer = memo.chat(&ask(&format!("task {i}"))).await.unwrap();
            assert_eq!(answer.text(), format!("task {i}"));
            assert!(!answer.cache_hit);
        }
        assert_eq!(memo.len(), 3, "10 unique tasks, 3 kept");
        assert_eq!(memo.inner.0.load(Ordering::SeqCst), 10);
        // The newest is answered from memory; the oldest was dropped and is asked again.
        assert!(memo.chat(&ask("task 9")).await.unwrap().cache_hit);
        assert_eq!(memo.inner.0.load(Ordering::SeqCst), 10);
        assert!(!memo.chat(&ask("task 0")).await.unwrap().cache_hit);
        assert_eq!(memo.inner.0.load(Ordering::SeqCst), 11);
        assert_eq!(memo.len(), 3);
    }

    #[tokio::test]
    async fn a_cap_of_zero_keeps_nothing() {
        let memo = MemoChat::new(Echo::default(), 0);
        memo.chat(&ask("same")).await.unwrap();
        assert!(!memo.chat(&ask("same")).await.unwrap().cache_hit);
        assert_eq!(memo.inner.0.load(Ordering::SeqCst), 2);
        assert_eq!(memo.len(), 0);
    }
}
