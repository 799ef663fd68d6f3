//! The calls of every solver attempt of one request, per API: which APIs failed, how often,
//! and which of them leave the pool at a reflection round. Kept across attempts, so the note
//! the agents hear names every API that failed, however many attempts ago.

use std::collections::{BTreeMap, BTreeSet};

use toolsmith_catalog::ApiId;

use crate::finish::Finish;
use crate::run::Run;
use crate::trace::{CallOutcome, TraceEvent};

/// One API's calls so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    ok: usize,
    failed: usize,
}

/// The calls of a request's attempts so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct Failures {
    calls: BTreeMap<ApiId, Counts>,
    /// APIs a give-up named.
    named: BTreeSet<ApiId>,
}

impl Failures {
    /// Adds an attempt's calls; `names` maps its function names to their APIs (a give-up
    /// that names a function or an API marks it failing).
    pub(crate) fn record(&mut self, run: &Run, names: &[(String, ApiId)]) {
        for e in &run.trace {
            if let TraceEvent::ToolCall {
                api: Some(api),
                outcome,
                ..
            } = &e.event
            {
                let counts = self.calls.entry(api.clone()).or_default();
                if *outcome == CallOutcome::Ok {
                    counts.ok += 1;
                } else {
                    counts.failed += 1;
                }
            }
        }
        if run.finish == Finish::GaveUp {
            let reason = run.detail.as_deref().unwrap_or_default();
            for (name, id) in names {
                if reason.contains(name.as_str()) || reason.contains(&id.to_string()) {
                    self.named.insert(id.clone());
                }
            }
        }
    }

    /// The APIs to take out of the pool: most of their calls failed, or a give-up named them.
    pub(crate) fn failing(&self) -> Vec<ApiId> {
        let mut out: BTreeSet<ApiId> = self.named.clone();
        out.extend(
            self.calls
                .iter()
                .filter(|(_, c)| c.failed > c.ok)
                .map(|(api, _)| api.clone()),
        );
        out.into_iter().collect()
    }

    /// What the agents are told: the APIs removed as failing, and those kept although some
    /// of their calls failed, each with its count.
    pub(crate) fn note(&self) -> String {
        let failing = self.failing();
        let count = |api: &ApiId| {
            let c = self.calls.get(api).copied().unwrap_or_default();
            let calls = c.ok + c.failed;
            let mut why = Vec::new();
            if calls > 0 {
                let plural = if calls == 1 { "" } else { "s" };
                why.push(format!("{} of {calls} call{plural} failed", c.failed));
            }
            if self.named.contains(api) {
                why.push("named in a give-up".to_owned());
            }
            format!("{api} ({})", why.join(", "))
        };
        let removed: Vec<String> = failing.iter().map(count).collect();
        let flaky: Vec<String> = self
            .calls
            .iter()
            .filter(|(api, c)| c.failed > 0 && !failing.contains(api))
            .map(|(api, _)| count(api))
            .collect();
        let mut note = if removed.is_empty() {
            "No API has failed so far.".to_owned()
        } else {
            format!("Removed from the pool as failing: {}.", removed.join(", "))
        };
        if !flaky.is_empty() {
            note.push_str(&format!(
                " Kept, though some of their calls failed: {}.",
                flaky.join(", ")
            ));
        }
        note
    }
}

#[cfg(test)]
mod tests {
    use toolsmith_exec::FailureKind;

    use super::*;
    use crate::trace::{Stamped, TraceEvent};

    fn api(s: &str) -> ApiId {
        s.parse().unwrap()
    }

    fn call(id: &str, outcome: CallOutcome) -> Stamped {
        Stamped {
            at_ms: 0,
            event: TraceEvent::ToolCall {
                call_id: "c".to_owned(),
                function: id.replace('/', "_"),
                api: Some(api(id)),
                arguments: serde_json::json!({}),
                outcome,
                provenance: None,
                observation: String::new(),
            },
        }
    }

    fn run(trace: Vec<Stamped>) -> Run {
        Run {
            solver: "dfsdt".to_owned(),
            query: "q".to_owned(),
            finish: Finish::GaveUp,
            answer: None,
            detail: Some("nothing worked".to_owned()),
            trace,
        }
    }

    #[test]
    fn failures_add_up_across_attempts_and_the_note_names_each() {
        let failed = CallOutcome::Failed(FailureKind::ALL[0]);
        let first = run(vec![
            call("m/details", CallOutcome::Ok),
            call("m/details", failed),
            call("m/search", failed),
        ]);
        let second = run(vec![
            call("m/details", failed),
            call("m/search", CallOutcome::Ok),
        ]);
        let mut failures = Failures::default();
        failures.record(&first, &[]);
        assert_eq!(failures.failing(), [api("m/search")]);
        failures.record(&second, &[]);
        // details: 2 of 3 failed; search: 1 of 2, kept.
        assert_eq!(failures.failing(), [api("m/details")]);
        let note = failures.note();
        assert!(
            note.contains("Removed from the pool as failing: m/details (2 of 3 calls failed)"),
            "{note}"
        );
        assert!(
            note.contains(
                "Kept, though some of their calls failed: m/search (1 of 2 calls failed)"
            ),
            "{note}"
        );
        assert_eq!(Failures::default().note(), "No API has failed so far.");
    }
}
