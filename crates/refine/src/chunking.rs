//! How a method that writes for several APIs in one model request cuts a run into chunks:
//! each planned tool's APIs, sorted by id, in consecutive chunks of up to `size`; with
//! `pack_tools`, the partial chunks (a tool's last one, or the whole of a small tool) then
//! merged greedily in tool-id order while the merged chunk stays within `size`. A chunk
//! depends only on the run's planned APIs, never on which of them an earlier attempt
//! finished, so a resumed run asks the very same prompts (and the response cache answers).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use toolsmith_catalog::{ApiEntry, ApiId, ToolEntry};
use toolsmith_plumbing::sqlite::lock;

/// How a run's APIs are grouped into model requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Chunking {
    /// APIs per chunk at most (0 reads as 1).
    pub(crate) size: usize,
    /// Whether the partial chunks of different tools are merged.
    pub(crate) pack_tools: bool,
}

/// The APIs one model request covers: its tools in id order, each holding only the chunk's
/// APIs, sorted by id. Unpacked, a chunk has one tool.
#[derive(Clone, Debug)]
pub(crate) struct Chunk {
    pub(crate) tools: Vec<ToolEntry>,
}

impl Chunk {
    /// The chunk's APIs, tool after tool.
    pub(crate) fn apis(&self) -> impl Iterator<Item = &ApiEntry> {
        self.tools.iter().flat_map(|t| t.apis.iter())
    }

    /// The API that names the chunk (its first).
    pub(crate) fn key(&self) -> Option<&ApiId> {
        self.apis().next().map(|a| &a.api.id)
    }

    fn len(&self) -> usize {
        self.tools.iter().map(|t| t.apis.len()).sum()
    }
}

/// Each planned API's chunk.
type ChunkPlan = HashMap<ApiId, Arc<Chunk>>;

/// The run's planned tools, shared by every job of the run, and the chunk plans cut from
/// them: each cut once, the first time a job asks for its chunk under that chunking.
#[derive(Default)]
pub(crate) struct PlannedTools {
    tools: Vec<Arc<ToolEntry>>,
    plans: Mutex<HashMap<Chunking, Arc<ChunkPlan>>>,
}

impl PlannedTools {
    /// The plan of `tools` (the run's tools with only its APIs).
    pub(crate) fn new(tools: Vec<Arc<ToolEntry>>) -> Self {
        Self {
            tools,
            plans: Mutex::default(),
        }
    }

    /// The chunk `api` belongs to under `chunking`; `None` when `api` is not planned.
    pub(crate) fn chunk_of(&self, api: &ApiId, chunking: Chunking) -> Option<Arc<Chunk>> {
        let plan = Arc::clone(
            lock(&self.plans)
                .entry(chunking)
                .or_insert_with(|| Arc::new(index(cut(&self.tools, chunking)))),
        );
        plan.get(api).cloned()
    }
}

impl fmt::Debug for PlannedTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannedTools")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

/// The chunks of `tools` under `chunking`, in tool-id order.
fn cut(tools: &[Arc<ToolEntry>], chunking: Chunking) -> Vec<Chunk> {
    let size = chunking.size.max(1);
    let mut sorted: Vec<&ToolEntry> = tools.iter().map(Arc::as_ref).collect();
    sorted.sort_by(|a, b| a.tool.id.cmp(&b.tool.id));
    let mut chunks = Vec::new();
    // The packed chunk still open to the next tool's partial chunk.
    let mut open: Option<Chunk> = None;
    for tool in sorted {
        let mut apis: Vec<&ApiEntry> = tool.apis.iter().collect();
        apis.sort_by(|a, b| a.api.id.cmp(&b.api.id));
        for part in apis.chunks(size) {
            let chunk = Chunk {
                tools: vec![ToolEntry {
                    tool: tool.tool.clone(),
                    doc: tool.doc.clone(),
                    apis: part.iter().map(|a| (*a).clone()).collect(),
                }],
            };
            if !chunking.pack_tools || part.len() == size {
                chunks.push(chunk);
                continue;
            }
            match open.as_mut() {
                Some(packed) if packed.len() + part.len() <= size => {
                    packed.tools.extend(chunk.tools);
                }
                _ => chunks.extend(open.replace(chunk)),
            }
        }
    }
    chunks.extend(open);
    chunks
}

fn index(chunks: Vec<Chunk>) -> ChunkPlan {
    let mut plan = ChunkPlan::new();
    for chunk in chunks.into_iter().map(Arc::new) {
        for api in chunk.apis() {
            plan.insert(api.api.id.clone(), Arc::clone(&chunk));
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use toolsmith_catalog::testing::api_with_inputs;
    use toolsmith_catalog::{ApiEntry, Tool, ToolEntry};

    use super::{Chunking, PlannedTools};

    fn tool(id: &str, apis: usize) -> Arc<ToolEntry> {
        let apis = (0..apis)
            .map(|n| {
                let mut api = api_with_inputs(&[], None);
                api.id = format!("{id}/api_{n}").parse().unwrap();
                ApiEntry { api, doc: None }
            })
            .collect();
        let tool = Tool {
            id: id.parse().unwrap(),
            name: id.to_uppercase(),
            category: "Test".into(),
            base_url: None,
            security: Vec::new(),
        };
        Arc::new(ToolEntry {
            tool,
            doc: None,
            apis,
        })
    }

    /// Each API's chunk as `tool/api` names, tool by tool, in the plan's tool order.
    fn chunks(tools: &[Arc<ToolEntry>], size: usize, pack_tools: bool) -> Vec<Vec<String>> {
        let planned = PlannedTools::new(tools.to_vec());
        let chunking = Chunking { size, pack_tools };
        let mut seen: Vec<Vec<String>> = Vec::new();
        for tool in tools {
            for api in &tool.apis {
                let chunk = planned.chunk_of(&api.api.id, chunking).unwrap();
                let names: Vec<String> = chunk.apis().map(|a| a.api.id.to_string()).collect();
                if !seen.contains(&names) {
                    seen.push(names);
                }
            }
        }
        seen
    }

    #[test]
    fn packing_merges_the_partial_chunks_of_consecutive_tools_while_they_fit() {
        // Planned out of order: the cut sorts by tool id.
        let tools = [tool("c", 4), tool("a", 2), tool("b", 1), tool("d", 7)];
        let packed = chunks(&tools, 5, true);
        assert_eq!(
            packed,
            [
                vec!["c/api_0", "c/api_1", "c/api_2", "c/api_3"],
                vec!["a/api_0", "a/api_1", "b/api_0"],
                vec!["d/api_0", "d/api_1", "d/api_2", "d/api_3", "d/api_4"],
                vec!["d/api_5", "d/api_6"],
            ]
        );
        // d's last two join no chunk: c's four fill the open one past five.
        let unpacked = chunks(&tools, 5, false);
        assert_eq!(unpacked.len(), 5, "{unpacked:?}");
        assert!(unpacked.contains(&vec!["b/api_0".to_owned()]));
    }

    #[test]
    fn a_packed_chunk_holds_each_tool_once_with_its_apis() {
        let tools = [tool("a", 2), tool("b", 1)];
        let planned = PlannedTools::new(tools.to_vec());
        let chunking = Chunking {
            size: 5,
            pack_tools: true,
        };
        let chunk = planned
            .chunk_of(&"b/api_0".parse().unwrap(), chunking)
            .unwrap();
        let shape: Vec<(String, usize)> = chunk
            .tools
            .iter()
            .map(|t| (t.tool.name.clone(), t.apis.len()))
            .collect();
        assert_eq!(shape, [("A".to_owned(), 2), ("B".to_owned(), 1)]);
        assert_eq!(chunk.key().unwrap().to_string(), "a/api_0");
        assert!(
            planned
                .chunk_of(&"z/api_0".parse().unwrap(), chunking)
                .is_none()
        );
    }
}
