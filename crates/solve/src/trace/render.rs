//! The terminal's one-line rendering of events.

use toolsmith_catalog::ApiId;
use toolsmith_exec::Provenance;

use super::event::TraceEvent;

/// Cuts text to at most `max` characters, marking the cut.
pub fn cut(text: &str, max: usize) -> String {
    toolsmith_plumbing::text::truncate_with(text, max, "...")
}

/// A one-line human rendering of an event, for the terminal.
pub fn render(event: &TraceEvent) -> String {
    match event {
        TraceEvent::Started {
            solver,
            query,
            tools,
        } => format!("▶ {solver}: {query} ({} tools)", tools.len()),
        TraceEvent::LlmCall {
            role,
            reply,
            tool_calls,
            prompt_tokens,
            completion_tokens,
            latency_ms,
            cache_hit,
            ..
        } => {
            let said = if reply.is_empty() {
                String::new()
            } else {
                format!(" \"{}\"", cut(&reply.replace('\n', " "), 160))
            };
            format!(
                "  [{role}] {}+{} tokens, {latency_ms} ms{}{said}{}",
                prompt_tokens,
                completion_tokens,
                if *cache_hit { " (cached)" } else { "" },
                if tool_calls.is_empty() {
                    String::new()
                } else {
                    format!(" -> {}", tool_calls.join(", "))
                }
            )
        }
        TraceEvent::ToolCall {
            function,
            outcome,
            provenance,
            observation,
            ..
        } => {
            let from = provenance.map_or("none", Provenance::as_str);
            format!(
                "    {function}: {outcome} [{from}] {}",
                cut(&observation.replace('\n', " "), 200)
            )
        }
        TraceEvent::Retry {
            agent,
            attempt,
            error,
        } => format!("    ↻ {agent} retry {attempt}: {}", cut(error, 200)),
        TraceEvent::Backtrack { depth, reason } => {
            format!("  ↩ backtrack from depth {depth} ({reason})")
        }
        TraceEvent::AgentCreated {
            agent,
            parent,
            level,
            category,
            tools,
        } => {
            let indent = match level {
                crate::anytool::labels::AgentLevel::Meta => "",
                crate::anytool::labels::AgentLevel::Category => "  ",
                crate::anytool::labels::AgentLevel::Tool => "    ",
            };
            let from = parent.map_or_else(String::new, |p| format!(" (from {p})"));
            let scope = if tools.is_empty() {
                category.clone().unwrap_or_default()
            } else {
                tools
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!("  {indent}◆ {level} agent {agent}{from}: {scope}")
        }
        TraceEvent::PoolChanged {
            agent,
            added,
            removed,
            size,
        } => {
            let who = agent.map_or_else(|| "reflection".to_owned(), |a| format!("agent {a}"));
            let list = |ids: &[ApiId]| {
                ids.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if removed.is_empty() {
                format!("  + pool {size}: {who} added {}", list(added))
            } else {
                format!("  - pool {size}: {who} removed {}", list(removed))
            }
        }
        TraceEvent::Seeded {
            apis,
            solvable,
            reason,
        } => {
            let list: Vec<String> = apis.iter().map(ToString::to_string).collect();
            let then = if *solvable {
                "solvable: to the solver without agents"
            } else {
                "not solvable: the agents search on"
            };
            format!(
                "  ⌕ search seeded the pool with {} APIs: {}\n  ⌕ {then} ({})",
                apis.len(),
                list.join(", "),
                cut(reason, 200)
            )
        }
        TraceEvent::PoolTrimmed {
            kept,
            pool,
            whole,
            reason,
        } => {
            let list: Vec<String> = kept.iter().map(ToString::to_string).collect();
            if *whole {
                format!("  ✂ solver gets the whole pool ({pool} APIs): {reason}")
            } else {
                format!(
                    "  ✂ solver gets {} of {pool} pooled APIs ({reason}): {}",
                    kept.len(),
                    list.join(", ")
                )
            }
        }
        TraceEvent::Reflection {
            round,
            reason,
            reactivated,
            ..
        } => format!(
            "⟲ reflection {round}: {}; re-activating {:?}",
            cut(reason, 200),
            reactivated
        ),
        TraceEvent::Judged { verdict, reason } => {
            format!("  ⚖ {verdict:?}: {}", cut(reason, 200))
        }
        TraceEvent::PartTokens { parts, calls, pool } => {
            let each: Vec<String> = parts
                .iter()
                .map(|(part, tokens)| {
                    format!(
                        "{part:?} {tokens} ({} calls)",
                        calls.get(part).copied().unwrap_or(0)
                    )
                })
                .collect();
            format!(
                "  Σ tokens by part: {}; pool {} APIs",
                each.join(", "),
                pool.len()
            )
        }
        TraceEvent::Finished {
            finish,
            answer,
            detail,
            limit,
            ..
        } => {
            let ended = limit.map_or_else(String::new, |l| format!(" [limit: {l}]"));
            match (answer, detail) {
                (Some(answer), _) => format!("■ {}: {answer}", finish.as_str()),
                (None, Some(detail)) => format!("■ {}{ended}: {detail}", finish.as_str()),
                (None, None) => format!("■ {}{ended}", finish.as_str()),
            }
        }
    }
}
