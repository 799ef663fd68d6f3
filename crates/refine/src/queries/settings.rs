//! The query writer's knobs, also `[refine.queries]` of `toolsmith.toml`.

use serde::{Deserialize, Serialize};

use crate::chunking::Chunking;
use crate::error::{Error, Result};

/// The query writer's knobs. `Default` is Re-Invoke's run where the paper states one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueryWriterSettings {
    /// Requests written per API by `refine --method queries` (Re-Invoke: about 10).
    pub count: usize,
    /// A request whose cosine with a kept (or an avoided) request reaches this is dropped as a
    /// near-duplicate (DRAFT's diversity threshold phi, 0.9).
    pub dedup_threshold: f32,
    /// Sampling temperature of the writer's calls (Re-Invoke states none; EasyTool's 0.7, so
    /// that repeated asks differ).
    pub temperature: f32,
    /// Model requests per path at most: a later one asks for what de-duplication and
    /// malformed items left missing, shown the requests kept so far.
    pub max_asks: u32,
    /// Characters of an observed response shown to the model.
    pub max_observation_chars: usize,
    /// APIs whose views `refine --method queries` asks for in one model request. 1 (the
    /// default) asks per API, each request with its call's arguments checked against the
    /// API's parameters. More groups each tool's APIs, sorted by id, into fixed chunks of up
    /// to this many: one request shows the tool once and each API of the chunk, and asks for
    /// the request texts only (no arguments), so the model calls fall by about this factor
    /// for large tools (small tools share requests only with `pack_tools`).
    /// The chunks do not depend on which APIs are finished, so a resumed run asks the same
    /// prompts again and the response cache answers them.
    pub apis_per_call: usize,
    /// With `apis_per_call` above 1, whether the APIs of small tools share a request: the
    /// partial chunks (a tool's last one, or a tool smaller than `apis_per_call`) are merged
    /// in tool-id order while the merged chunk holds at most `apis_per_call` APIs, its request
    /// showing each of its tools once with that tool's APIs after it. A tool's APIs are cut
    /// as without it. Off by default (each tool's chunks as before): how packing tools
    /// changes the views' quality is not measured yet.
    pub pack_tools: bool,
}

impl QueryWriterSettings {
    /// Re-Invoke (Chen et al., EMNLP 2024): 10 synthetic requests per tool, one API per
    /// request; DRAFT's cosine threshold 0.9 for near-duplicates; observations cut at DRAFT's
    /// 2,048 characters.
    pub const PAPER: Self = Self {
        count: 10,
        dedup_threshold: 0.9,
        temperature: 0.7,
        max_asks: 3,
        max_observation_chars: 2048,
        apis_per_call: 1,
        pack_tools: false,
    };

    /// How the batched writer cuts a run's APIs into chunks.
    pub(crate) fn chunking(&self) -> Chunking {
        Chunking {
            size: self.apis_per_call,
            pack_tools: self.pack_tools,
        }
    }

    /// Refuses values no run can use.
    pub fn validate(&self) -> Result<()> {
        if self.count == 0 {
            return Err(setting("count", "must be at least 1"));
        }
        if self.apis_per_call == 0 {
            return Err(setting("apis_per_call", "must be at least 1"));
        }
        if self.max_asks == 0 {
            return Err(setting("max_asks", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.dedup_threshold) {
            return Err(setting("dedup_threshold", "must be within 0..=1"));
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return Err(setting("temperature", "must be within 0..=2"));
        }
        Ok(())
    }
}

impl Default for QueryWriterSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

fn setting(field: &'static str, reason: &str) -> Error {
    Error::Setting {
        field,
        reason: reason.to_owned(),
    }
}
