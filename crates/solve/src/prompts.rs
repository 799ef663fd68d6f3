//! The one place solver prompts are named. Wording lives in `prompts/*.j2`.

use serde::Serialize;
use toolsmith_llm::{Prompt, ToolSpec};

use crate::settings::AgentSettings;
use crate::trace::cut;

pub(crate) const AGENT_SYSTEM: Prompt = Prompt::new(
    "solve/agent_system",
    include_str!("../prompts/agent_system.j2"),
);
pub(crate) const DFSDT_DIVERSITY: Prompt = Prompt::new(
    "solve/dfsdt_diversity",
    include_str!("../prompts/dfsdt_diversity.j2"),
);
pub(crate) const GROUNDING: Prompt = Prompt::new(
    "solve/conagents_grounding",
    include_str!("../prompts/conagents_grounding.j2"),
);
pub(crate) const GROUNDING_USER: Prompt = Prompt::new(
    "solve/conagents_grounding_user",
    include_str!("../prompts/conagents_grounding_user.j2"),
);
pub(crate) const EXECUTION: Prompt = Prompt::new(
    "solve/conagents_execution",
    include_str!("../prompts/conagents_execution.j2"),
);
pub(crate) const OBSERVING: Prompt = Prompt::new(
    "solve/conagents_observing",
    include_str!("../prompts/conagents_observing.j2"),
);

/// A tool as prompts list it: name and a description cut to 300 characters.
#[derive(Serialize)]
pub(crate) struct ToolLine {
    name: String,
    description: String,
}

pub(crate) fn tool_lines(specs: &[ToolSpec]) -> Vec<ToolLine> {
    specs
        .iter()
        .map(|s| ToolLine {
            name: s.name.clone(),
            description: cut(&s.description.replace('\n', " "), 300),
        })
        .collect()
}

/// The date an agent prompt states as today (`Monday, 2026-11-30`: the weekday too, for "this
/// week" and "airing today"), none under the paper's protocol ([`AgentSettings::stated_today`]).
pub(crate) fn stated_today(settings: &AgentSettings) -> Option<String> {
    settings
        .stated_today()
        .map(|date| date.strftime("%A, %Y-%m-%d").to_string())
}
