//! Test doubles for other crates' tests (feature `test-utils`).

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::ApiId;

use crate::canonical::canonical_json;
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::observation::{Observation, Provenance};

/// An executor with canned responses: each API answers with its fixed body
/// (or a body per exact arguments), and every call is recorded.
#[derive(Debug, Default)]
pub struct ScriptedExecutor {
    by_api: HashMap<ApiId, Observation>,
    by_call: HashMap<(ApiId, String), Observation>,
    calls: Mutex<Vec<(ApiId, Value)>>,
}

impl ScriptedExecutor {
    /// An executor that knows no API.
    pub fn new() -> Self {
        Self::default()
    }

    /// `api` answers every call with `body`.
    pub fn respond(mut self, api: ApiId, body: Value) -> Self {
        self.by_api
            .insert(api, Observation::ok_json(body, Provenance::Live));
        self
    }

    /// `api` answers calls with exactly `args` with `observation`.
    pub fn respond_to(mut self, api: ApiId, args: &Value, observation: Observation) -> Self {
        self.by_call
            .insert((api, canonical_json(args)), observation);
        self
    }

    /// Every call made so far, in order.
    pub fn calls(&self) -> Vec<(ApiId, Value)> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

#[async_trait]
impl Executor for ScriptedExecutor {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push((api.clone(), args.clone()));
        }
        self.by_call
            .get(&(api.clone(), canonical_json(args)))
            .or_else(|| self.by_api.get(api))
            .cloned()
            .ok_or_else(|| Error::UnknownApi(api.clone()))
    }
}
