//! The catalog store: one SQLite file in WAL mode, schema migrations versioned
//! from the start, and every write in a transaction.

mod decisions;
mod handle;
mod migrations;
mod read;
mod write;

pub use decisions::{DecisionOutcome, DocDecision, Evidence, NewDecision, Restored};
pub use handle::Store;
pub use read::{ApiEntry, Catalog, DocSelector, Scope, ToolEntry};
pub use write::{Activate, ImportReport, NewDoc};
