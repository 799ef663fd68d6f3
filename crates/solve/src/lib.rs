//! Solvers: agents that answer a query by calling tools.
//!
//! - [`Toolset`] is what an agent sees: catalog APIs as function tools, plus
//!   `Finish` and optionally `search_tools`;
//! - [`Runtime`] holds the model, the executor and the tracer every agent
//!   shares, and answers each turn's tool calls concurrently, turning unknown
//!   tools, bad arguments and tool errors into observations;
//! - [`React`] (ToolBench's CoT@n), [`Dfsdt`] (depth-first search over agent
//!   states, width 2) and [`ConAgents`] (grounding, execution and observing
//!   agents with iterative calibration) implement [`Solver`];
//! - every [`Run`] ends in a [`Finish`] state with a full trace of
//!   [`TraceEvent`]s, which sinks ([`JsonlSink`], a terminal renderer) receive
//!   as they happen and [`RunStore`] keeps in the SQLite file. Traces are
//!   typed and versioned ([`TRACE_VERSION`]); older ones stay readable
//!   ([`read_jsonl`]).

pub use crate::conagents::ConAgents;
pub use crate::dfsdt::Dfsdt;
pub use crate::error::{Error, Result};
pub use crate::react::React;
pub use crate::run::{Finish, Run};
pub use crate::runtime::{Answered, Runtime, Stop};
pub use crate::settings::{AgentSettings, ConAgentsSettings, DfsdtSettings, ReactSettings};
pub use crate::solver::Solver;
pub use crate::store::RunStore;
pub use crate::toolset::{FINISH, RenderOptions, SEARCH_TOOLS, Toolset};
pub use crate::trace::{
    BacktrackReason, CallOutcome, JsonlSink, Stamped, TRACE_VERSION, TraceEvent, TraceSink, Tracer,
    cut, read_jsonl, render,
};

mod conagents;
mod dfsdt;
mod error;
mod prompts;
mod react;
mod run;
mod runtime;
mod settings;
mod solver;
mod store;
mod toolset;
mod trace;
