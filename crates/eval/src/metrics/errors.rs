//! The error taxonomy of a failed run, after EasyTool (§5, tool-name and parameter errors,
//! following Zhang et al. 2023) and ToolExpNet (§5.2, incomplete invocation, dependency
//! neglect, tool misselection), plus the two ways a run can stop without an answer.
//!
//! [`classify`] reads a [`RunRecord`] against the query's gold path and two relations the
//! harness supplies: which APIs are easily confused ([`TaxonomyContext::similar`], e.g.
//! ToolExpNet's similarity edges or a retriever's nearest neighbours) and which API consumes an
//! id another produces ([`TaxonomyContext::depends_on`]). A run may show several kinds; the
//! primary one is the first by [`ErrorKind`]'s order.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::ApiId;

use toolsmith_solve::Finish;

use crate::run::{CallRecord, CallStatus, CalledApi, RunRecord};

/// A kind of failure, in priority order: [`Diagnosis::primary`] is the first present.
///
/// Mistakes seen in the calls made come before mistakes inferred from calls missing, and the
/// way a run stopped comes last, since the earlier kinds usually explain it. Among the calls
/// made, a made-up API comes first; dependency neglect precedes parameter errors because an
/// invented id is the usual cause of a refused argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A call named an API that does not exist (EasyTool's tool-name error).
    ToolName,
    /// A call consumed an id without calling the API that produces it first, or passed an id
    /// that neither the query nor any earlier observation contained (ToolExpNet).
    DependencyNeglect,
    /// A call was refused for its arguments (EasyTool's parameter error).
    Parameter,
    /// A call would have changed a live API the user did not open to writes, and was
    /// refused before it was made (toolsmith's own kind: a policy, not the model's mistake
    /// in naming or filling a call).
    NotAllowed,
    /// A gold API was not called but an API easily confused with it was (ToolExpNet).
    ToolMisselection,
    /// A gold API was not called, and nothing similar stood in for it (ToolExpNet).
    IncompleteInvocation,
    /// The run hit a call, token or step budget.
    BudgetExhausted,
    /// The run gave up.
    GaveUp,
}

impl ErrorKind {
    /// Stable snake_case name, for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolName => "tool_name",
            Self::DependencyNeglect => "dependency_neglect",
            Self::Parameter => "parameter",
            Self::NotAllowed => "not_allowed",
            Self::ToolMisselection => "tool_misselection",
            Self::IncompleteInvocation => "incomplete_invocation",
            Self::BudgetExhausted => "budget_exhausted",
            Self::GaveUp => "gave_up",
        }
    }
}

/// What [`classify`] compares a run against.
#[derive(Clone, Copy, Debug)]
pub struct TaxonomyContext<'a> {
    /// The user's query: ids it states need no producer.
    pub query: &'a str,
    /// The gold path.
    pub gold: &'a [ApiId],
    /// Pairs of APIs easily confused with each other (order within a pair does not matter).
    pub similar: &'a [(ApiId, ApiId)],
    /// `(consumer, producer)` pairs: the consumer takes an id that the producer returns
    /// (`movie_credits` needs the `movie_id` that `search_movie` finds).
    pub depends_on: &'a [(ApiId, ApiId)],
}

/// The kinds of failure found in one run, in priority order, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    /// Kinds found, sorted by priority.
    pub kinds: Vec<ErrorKind>,
}

impl Diagnosis {
    /// The first kind by priority; `None` when nothing was found (a run the judge failed for
    /// its answer alone, ToolExpNet's "others").
    pub fn primary(&self) -> Option<ErrorKind> {
        self.kinds.first().copied()
    }

    /// Whether `kind` was found.
    pub fn has(&self, kind: ErrorKind) -> bool {
        self.kinds.contains(&kind)
    }
}

/// Whether a parameter name denotes an id: `id`, `ids`, `*_id`, `*_ids`, `*Id`, `*ID`, `*Ids`.
fn is_id_param(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(lower.as_str(), "id" | "ids")
        || lower.ends_with("_id")
        || lower.ends_with("_ids")
        || ["Id", "ID", "Ids"].iter().any(|s| name.ends_with(s))
}

/// The id values a call passes, as text (`550` for a number), from its top-level arguments.
fn id_values(call: &CallRecord) -> Vec<String> {
    let mut out = Vec::new();
    let Some(args) = call.arguments.as_object() else {
        return out;
    };
    let mut push = |v: &Value| match v {
        Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_owned()),
        Value::Number(n) => out.push(n.to_string()),
        _ => {}
    };
    for (name, value) in args {
        if !is_id_param(name) {
            continue;
        }
        match value {
            Value::Array(items) => items.iter().for_each(&mut push),
            scalar => push(scalar),
        }
    }
    out
}

/// Whether the call at `index` neglects a dependency (see [`ErrorKind::DependencyNeglect`]).
fn neglects_dependency(run: &RunRecord, index: usize, ctx: &TaxonomyContext<'_>) -> bool {
    let Some(call) = run.calls.get(index) else {
        return false;
    };
    let CalledApi::Known(api) = &call.api else {
        return false;
    };
    let earlier = run.calls.get(..index).unwrap_or_default();
    let ids = id_values(call);
    let seen_before = |id: &String| {
        ctx.query.contains(id.as_str())
            || earlier.iter().any(|c| c.observation.contains(id.as_str()))
    };
    if !ids.iter().all(seen_before) {
        return true;
    }
    let producers: Vec<&ApiId> = ctx
        .depends_on
        .iter()
        .filter(|(consumer, _)| consumer == api)
        .map(|(_, producer)| producer)
        .collect();
    let producer_called = earlier
        .iter()
        .any(|c| matches!(&c.api, CalledApi::Known(a) if producers.contains(&a)));
    let user_gave_ids = !ids.is_empty() && ids.iter().all(|id| ctx.query.contains(id.as_str()));
    !producers.is_empty() && !producer_called && !user_gave_ids
}

fn similar(ctx: &TaxonomyContext<'_>, a: &ApiId, b: &ApiId) -> bool {
    ctx.similar
        .iter()
        .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
}

/// The kinds of failure a run shows:
/// - [`ToolName`](ErrorKind::ToolName): a call of an unknown name;
/// - [`DependencyNeglect`](ErrorKind::DependencyNeglect): a call passing an id argument
///   (`id`, `*_id`, `*Id`, ...) whose value appears neither in the query nor in any earlier
///   observation, or a call of an API with producers in `depends_on` when none of them was
///   called before it and the query did not state its ids;
/// - [`Parameter`](ErrorKind::Parameter): a call refused for its arguments;
/// - [`NotAllowed`](ErrorKind::NotAllowed): a write refused by the user's allow-list;
/// - [`ToolMisselection`](ErrorKind::ToolMisselection) /
///   [`IncompleteInvocation`](ErrorKind::IncompleteInvocation): a gold API never called, with
///   / without a non-gold API similar to it among the calls;
/// - [`BudgetExhausted`](ErrorKind::BudgetExhausted) (budget or step limit) and
///   [`GaveUp`](ErrorKind::GaveUp) from how the run ended.
pub fn classify(run: &RunRecord, ctx: &TaxonomyContext<'_>) -> Diagnosis {
    let mut kinds = Vec::new();
    for (i, call) in run.calls.iter().enumerate() {
        if matches!(call.api, CalledApi::Unknown(_)) {
            kinds.push(ErrorKind::ToolName);
        }
        match call.outcome {
            CallStatus::InvalidParameters => kinds.push(ErrorKind::Parameter),
            CallStatus::NotAllowed => kinds.push(ErrorKind::NotAllowed),
            CallStatus::Ok | CallStatus::Failed => {}
        }
        if neglects_dependency(run, i, ctx) {
            kinds.push(ErrorKind::DependencyNeglect);
        }
    }
    let called = run.api_path();
    for gold in ctx.gold.iter().filter(|g| !called.contains(g)) {
        let stand_in = called
            .iter()
            .any(|c| !ctx.gold.contains(c) && similar(ctx, gold, c));
        kinds.push(if stand_in {
            ErrorKind::ToolMisselection
        } else {
            ErrorKind::IncompleteInvocation
        });
    }
    match run.finish {
        Finish::GaveUp => kinds.push(ErrorKind::GaveUp),
        Finish::BudgetExhausted | Finish::StepLimit => {
            kinds.push(ErrorKind::BudgetExhausted);
        }
        Finish::Answered | Finish::Error => {}
    }
    kinds.sort();
    kinds.dedup();
    Diagnosis { kinds }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(s: &str) -> ApiId {
        s.parse().unwrap_or_else(|e| unreachable!("{e}"))
    }

    fn call(api: &str, args: Value, outcome: CallStatus, observation: &str) -> CallRecord {
        CallRecord {
            api: CalledApi::Known(id(api)),
            arguments: args,
            outcome,
            observation: observation.to_owned(),
            step: None,
        }
    }

    fn run(calls: Vec<CallRecord>, finish: Finish) -> RunRecord {
        RunRecord {
            calls,
            finish,
            answer: (finish == Finish::Answered).then(|| "an answer".to_owned()),
        }
    }

    struct Fixture {
        gold: Vec<ApiId>,
        similar: Vec<(ApiId, ApiId)>,
        depends_on: Vec<(ApiId, ApiId)>,
    }

    /// "Who directed Titanic?": gold search_movie -> movie_credits; movie_details is easily
    /// confused with movie_credits; credits and details both need search_movie's id.
    fn titanic() -> Fixture {
        Fixture {
            gold: vec![id("tmdb/search_movie"), id("tmdb/movie_credits")],
            similar: vec![(id("tmdb/movie_credits"), id("tmdb/movie_details"))],
            depends_on: vec![
                (id("tmdb/movie_credits"), id("tmdb/search_movie")),
                (id("tmdb/movie_details"), id("tmdb/search_movie")),
            ],
        }
    }

    fn diagnose(f: &Fixture, query: &str, r: &RunRecord) -> Diagnosis {
        classify(
            r,
            &TaxonomyContext {
                query,
                gold: &f.gold,
                similar: &f.similar,
                depends_on: &f.depends_on,
            },
        )
    }

    const Q: &str = "Who directed Titanic?";
    const OK: CallStatus = CallStatus::Ok;

    fn search() -> CallRecord {
        call(
            "tmdb/search_movie",
            json!({"query": "Titanic"}),
            OK,
            r#"{"results": [{"id": 597}]}"#,
        )
    }

    #[test]
    fn a_clean_run_has_no_error() {
        let f = titanic();
        let r = run(
            vec![
                search(),
                call("tmdb/movie_credits", json!({"movie_id": 597}), OK, "{}"),
            ],
            Finish::Answered,
        );
        let d = diagnose(&f, Q, &r);
        assert_eq!(d.kinds, []);
        assert_eq!(d.primary(), None);
    }

    #[test]
    fn an_invented_id_is_dependency_neglect() {
        let f = titanic();
        // Credits called straight away with a made-up id: no producer, id seen nowhere.
        let r = run(
            vec![call(
                "tmdb/movie_credits",
                json!({"movie_id": 1234}),
                CallStatus::InvalidParameters,
                "not found",
            )],
            Finish::Answered,
        );
        let d = diagnose(&f, Q, &r);
        assert_eq!(
            d.kinds,
            [
                ErrorKind::DependencyNeglect,
                ErrorKind::Parameter,
                ErrorKind::IncompleteInvocation
            ]
        );
        assert_eq!(d.primary(), Some(ErrorKind::DependencyNeglect));
        // The producer was called but its id was ignored for another one: still neglect.
        let r = run(
            vec![
                search(),
                call("tmdb/movie_credits", json!({"movie_id": "598"}), OK, "{}"),
            ],
            Finish::Answered,
        );
        assert_eq!(diagnose(&f, Q, &r).kinds, [ErrorKind::DependencyNeglect]);
    }

    #[test]
    fn an_id_stated_in_the_query_needs_no_producer() {
        let f = titanic();
        let r = run(
            vec![call(
                "tmdb/movie_credits",
                json!({"movie_id": 597}),
                OK,
                "{}",
            )],
            Finish::Answered,
        );
        // Only the skipped search is reported, as an incomplete invocation.
        assert_eq!(
            diagnose(&f, "Who directed movie 597?", &r).kinds,
            [ErrorKind::IncompleteInvocation]
        );
        // Without the id in the query the same run neglects the dependency.
        assert!(diagnose(&f, Q, &r).has(ErrorKind::DependencyNeglect));
    }

    #[test]
    fn a_similar_api_instead_of_the_gold_one_is_misselection() {
        let f = titanic();
        let r = run(
            vec![
                search(),
                call("tmdb/movie_details", json!({"movie_id": 597}), OK, "{}"),
            ],
            Finish::Answered,
        );
        let d = diagnose(&f, Q, &r);
        assert_eq!(d.kinds, [ErrorKind::ToolMisselection]);
        assert_eq!(d.primary(), Some(ErrorKind::ToolMisselection));
    }

    #[test]
    fn unknown_names_repeated_calls_and_endings() {
        let f = titanic();
        let made_up = CallRecord {
            api: CalledApi::Unknown("get_director".into()),
            arguments: json!({"title": "Titanic"}),
            outcome: CallStatus::Failed,
            observation: "no such tool".into(),
            step: None,
        };
        // A made-up name, the search repeated, then the budget ran out.
        let r = run(vec![made_up, search(), search()], Finish::BudgetExhausted);
        let d = diagnose(&f, Q, &r);
        assert_eq!(
            d.kinds,
            [
                ErrorKind::ToolName,
                ErrorKind::IncompleteInvocation,
                ErrorKind::BudgetExhausted
            ]
        );
        assert_eq!(d.primary(), Some(ErrorKind::ToolName));
        // A step limit counts as a budget; giving up is its own kind.
        let r = run(vec![search()], Finish::StepLimit);
        assert!(diagnose(&f, Q, &r).has(ErrorKind::BudgetExhausted));
        let r = run(vec![], Finish::GaveUp);
        assert_eq!(
            diagnose(&f, Q, &r).kinds,
            [ErrorKind::IncompleteInvocation, ErrorKind::GaveUp]
        );
    }

    #[test]
    fn a_run_that_never_answered_with_gold_of_length_one() {
        let f = Fixture {
            gold: vec![id("tmdb/search_movie")],
            similar: vec![],
            depends_on: vec![],
        };
        let r = run(vec![search()], Finish::Error);
        // The call was right; nothing in the taxonomy explains an LLM failure.
        assert_eq!(diagnose(&f, Q, &r).primary(), None);
    }

    #[test]
    fn a_refused_write_is_its_own_kind() {
        let f = titanic();
        let r = run(
            vec![
                search(),
                call(
                    "tmdb/movie_credits",
                    json!({"movie_id": 597}),
                    CallStatus::NotAllowed,
                    "not allowed",
                ),
            ],
            Finish::Answered,
        );
        let d = diagnose(&f, Q, &r);
        assert_eq!(d.kinds, [ErrorKind::NotAllowed]);
        assert!(!d.has(ErrorKind::Parameter));
        assert_eq!(ErrorKind::NotAllowed.as_str(), "not_allowed");
    }

    #[test]
    fn id_parameters_by_name() {
        for name in [
            "id",
            "movie_id",
            "person_ids",
            "movieId",
            "playlistID",
            "trackIds",
        ] {
            assert!(is_id_param(name), "{name}");
        }
        for name in ["query", "paid", "video", "identity"] {
            assert!(!is_id_param(name), "{name}");
        }
        assert_eq!(ErrorKind::ToolMisselection.as_str(), "tool_misselection");
    }
}
