//! Per-run accounting and limits: [`Budget`] is the shared meter (put it in an `Arc`),
//! [`UsageLedger`] the serializable totals per role, per query and per run, and [`Metered`] the
//! [`ChatModel`] wrapper that checks the budget before each call and records it after.
//!
//! Only calls that reached a model count against the limits; cache hits are recorded in the
//! ledger (as `cache_hits`, with their tokens under `cached_*`) but cost nothing. The call that
//! crosses the token limit completes; the next one is refused with [`BudgetExhausted`], so a run
//! stops cleanly between calls and never mid-answer.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::chat::{ChatModel, ChatRequest, ChatResponse, Usage};
use crate::error::Result;
use crate::role::Role;

pub use crate::limits::{BudgetExhausted, BudgetLimit, BudgetLimits, BudgetUsed};

/// Tokens and calls of one slice of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Calls answered, cache hits included.
    pub calls: u64,
    /// Calls answered from the cache.
    pub cache_hits: u64,
    /// Prompt tokens of calls that reached a model.
    pub prompt_tokens: u64,
    /// Completion tokens of calls that reached a model.
    pub completion_tokens: u64,
    /// Prompt tokens of cache hits (what the run would have cost uncached, minus the above).
    pub cached_prompt_tokens: u64,
    /// Completion tokens of cache hits.
    pub cached_completion_tokens: u64,
    /// Calls whose tokens were counted locally, the server having sent no `usage`.
    pub estimated_calls: u64,
}

impl UsageTotals {
    fn add(&mut self, usage: &Usage, cache_hit: bool) {
        self.calls = self.calls.saturating_add(1);
        if cache_hit {
            self.cache_hits = self.cache_hits.saturating_add(1);
            self.cached_prompt_tokens = self
                .cached_prompt_tokens
                .saturating_add(usage.prompt_tokens);
            self.cached_completion_tokens = self
                .cached_completion_tokens
                .saturating_add(usage.completion_tokens);
        } else {
            self.prompt_tokens = self.prompt_tokens.saturating_add(usage.prompt_tokens);
            self.completion_tokens = self
                .completion_tokens
                .saturating_add(usage.completion_tokens);
        }
        if usage.estimated {
            self.estimated_calls = self.estimated_calls.saturating_add(1);
        }
    }

    /// Prompt plus completion tokens that reached a model.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// Usage per role, per query and for the whole run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageLedger {
    /// The whole run.
    pub total: UsageTotals,
    /// Per [`Role`].
    pub by_role: BTreeMap<Role, UsageTotals>,
    /// Per query ([`ChatRequest::query`]); untagged calls are not listed here.
    pub by_query: BTreeMap<String, UsageTotals>,
}

impl UsageLedger {
    /// Records one answered call.
    pub fn record(&mut self, role: &Role, query: Option<&str>, usage: &Usage, cache_hit: bool) {
        self.total.add(usage, cache_hit);
        self.by_role
            .entry(role.clone())
            .or_default()
            .add(usage, cache_hit);
        if let Some(q) = query {
            self.by_query
                .entry(q.to_owned())
                .or_default()
                .add(usage, cache_hit);
        }
    }
}

/// A run's shared meter: limits, what was spent against them, and the [`UsageLedger`].
/// Share it with `Arc<Budget>` between every model of the run.
#[derive(Debug, Default)]
pub struct Budget {
    limits: BudgetLimits,
    calls: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    ledger: Mutex<UsageLedger>,
}

impl Budget {
    /// A budget with these limits.
    pub fn new(limits: BudgetLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// A meter with no limits.
    pub fn unlimited() -> Self {
        Self::default()
    }

    /// The limits.
    pub fn limits(&self) -> BudgetLimits {
        self.limits
    }

    /// What has been spent.
    pub fn used(&self) -> BudgetUsed {
        BudgetUsed {
            calls: self.calls.load(Ordering::SeqCst),
            prompt_tokens: self.prompt_tokens.load(Ordering::SeqCst),
            completion_tokens: self.completion_tokens.load(Ordering::SeqCst),
        }
    }

    /// A copy of the ledger.
    pub fn ledger(&self) -> UsageLedger {
        match self.ledger.lock() {
            Ok(ledger) => ledger.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Reserves one call, or says which limit is reached. Concurrent callers never overshoot
    /// the call limit.
    pub fn start_call(&self) -> Result<(), BudgetExhausted> {
        if let Some(max) = self.limits.max_tokens
            && self.used().tokens() >= max
        {
            return Err(BudgetExhausted {
                limit: BudgetLimit::Tokens(max),
                used: self.used(),
            });
        }
        let reserved = self
            .calls
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |calls| {
                match self.limits.max_calls {
                    Some(max) if calls >= max => None,
                    _ => Some(calls.saturating_add(1)),
                }
            });
        match (reserved, self.limits.max_calls) {
            (Err(_), Some(max)) => Err(BudgetExhausted {
                limit: BudgetLimit::Calls(max),
                used: self.used(),
            }),
            _ => Ok(()),
        }
    }

    /// Gives back a reserved call that cost nothing (a cache hit).
    fn refund_call(&self) {
        let _ = self
            .calls
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| {
                Some(c.saturating_sub(1))
            });
    }

    /// Records an answered call: charges its tokens unless it was a cache hit, and adds it to
    /// the ledger.
    pub fn record(&self, role: &Role, query: Option<&str>, usage: &Usage, cache_hit: bool) {
        if !cache_hit {
            self.prompt_tokens
                .fetch_add(usage.prompt_tokens, Ordering::SeqCst);
            self.completion_tokens
                .fetch_add(usage.completion_tokens, Ordering::SeqCst);
        }
        let mut ledger = match self.ledger.lock() {
            Ok(ledger) => ledger,
            Err(poisoned) => poisoned.into_inner(),
        };
        ledger.record(role, query, usage, cache_hit);
    }
}

/// A [`ChatModel`] that charges every call to a [`Budget`] and records it in its ledger.
/// Put it outermost (around the cache) so cache hits are seen as such.
#[derive(Clone, Debug)]
pub struct Metered<M> {
    inner: M,
    budget: std::sync::Arc<Budget>,
}

impl<M> Metered<M> {
    /// Wraps `inner`, charging `budget`.
    pub fn new(inner: M, budget: std::sync::Arc<Budget>) -> Self {
        Self { inner, budget }
    }

    /// The shared budget.
    pub fn budget(&self) -> &std::sync::Arc<Budget> {
        &self.budget
    }
}

#[async_trait]
impl<M: ChatModel> ChatModel for Metered<M> {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        self.budget.start_call()?;
        let response = self.inner.chat(req).await?;
        if response.cache_hit {
            self.budget.refund_call();
        }
        self.budget.record(
            &req.role,
            req.query.as_deref(),
            &response.usage,
            response.cache_hit,
        );
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
    use super::*;

    fn usage(p: u64, c: u64) -> Usage {
        Usage {
            prompt_tokens: p,
            completion_tokens: c,
            estimated: false,
        }
    }

    #[test]
    fn call_limit_refuses_the_next_call() {
        let b = Budget::new(BudgetLimits {
            max_calls: Some(2),
            max_tokens: None,
        });
        assert!(b.start_call().is_ok());
        assert!(b.start_call().is_ok());
        let err = b.start_call().unwrap_err();
        assert_eq!(err.limit, BudgetLimit::Calls(2));
        assert_eq!(err.used.calls, 2);
    }

    #[test]
    fn token_limit_lets_the_crossing_call_finish() {
        let b = Budget::new(BudgetLimits {
            max_calls: None,
            max_tokens: Some(100),
        });
        b.start_call().unwrap();
        b.record(&Role::agent(), Some("q1"), &usage(80, 30), false);
        let err = b.start_call().unwrap_err();
        assert_eq!(err.limit, BudgetLimit::Tokens(100));
        assert_eq!(err.used.tokens(), 110);
        assert!(err.to_string().contains("110 tokens"), "{err}");
    }

    #[test]
    fn ledger_groups_by_role_and_query_and_separates_cache_hits() {
        let b = Budget::unlimited();
        b.record(&Role::agent(), Some("q1"), &usage(10, 5), false);
        b.record(&Role::new("judge"), Some("q1"), &usage(7, 1), true);
        b.record(&Role::agent(), None, &usage(1, 1), false);
        let l = b.ledger();
        assert_eq!(l.total.calls, 3);
        assert_eq!(l.total.cache_hits, 1);
        assert_eq!(l.total.tokens(), 17);
        assert_eq!(l.total.cached_prompt_tokens, 7);
        assert_eq!(l.by_role[&Role::agent()].calls, 2);
        assert_eq!(l.by_query["q1"].calls, 2);
        assert_eq!(b.used().tokens(), 17);
        let json = serde_json::to_string(&l).unwrap();
        let back: UsageLedger = serde_json::from_str(&json).unwrap();
        assert_eq!(back, l);
    }
}
