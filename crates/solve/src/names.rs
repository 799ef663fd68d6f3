//! The names of the tools every toolset may offer besides the catalog's APIs (a leaf: the
//! toolset, the runtime and the trace all name them).

/// Name of the tool that ends a run.
pub const FINISH: &str = "Finish";
/// Name of the meta-tool that searches the catalog for more tools.
pub const SEARCH_TOOLS: &str = "search_tools";
/// Name of the tool that reads the rest of a cut observation.
pub const READ_RESULT: &str = "read_result";
