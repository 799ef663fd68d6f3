//! Whether a synthetic yardstick and the docs it judges were written by one model.
//!
//! A synthetic eval set rates docs that its own writer model rewrote too well: on RestBench
//! TMDB (hybrid NDCG@10, stand-in model), docs the set's writer wrote scored 70.5 on its set
//! against 57.3 on the human queries, while docs another model wrote moved within 2 points.
//! `synth` stores the model of role `synth` with the set, and `refine` the model of its
//! method's writing role with the run; the gate and `bench agreement` say when the two match.

use toolsmith_catalog::DocLabel;
use toolsmith_eval::Benchmark;
use toolsmith_eval::synth::SynthStore;
use toolsmith_refine::RefineStore;

use crate::context::Context;

/// The model that wrote both the eval set `dataset` (a `synth:NAME` set) and the newest
/// refinement run writing `label`'s docs, when both are recorded and the same.
pub(crate) fn shared_writer(
    ctx: &Context,
    dataset: &str,
    label: &DocLabel,
) -> anyhow::Result<Option<String>> {
    let Some(set_writer) = set_writer(ctx, dataset)? else {
        return Ok(None);
    };
    Ok(label_writer(ctx, label)?.filter(|writer| *writer == set_writer))
}

/// The writer recorded with a synthesized set, if `dataset` names one.
fn set_writer(ctx: &Context, dataset: &str) -> anyhow::Result<Option<String>> {
    let Ok(Benchmark::Synth(name)) = Benchmark::parse(dataset) else {
        return Ok(None);
    };
    let sets = SynthStore::open(ctx.db())?;
    Ok(sets.set(&name)?.and_then(|set| set.spec.writer))
}

/// The writer recorded with the newest refinement run whose method writes `label`.
fn label_writer(ctx: &Context, label: &DocLabel) -> anyhow::Result<Option<String>> {
    let runs = RefineStore::open(ctx.db())?.runs()?;
    Ok(runs
        .into_iter()
        .filter(|run| run.spec.method.label() == *label)
        .find_map(|run| run.spec.writer))
}

/// The caution printed beside a figure that a shared writer may inflate.
pub(crate) fn caution(model: &str, label: &DocLabel, dataset: &str) -> String {
    format!(
        "caution: the `{label}` docs and {dataset} were written by the same model ({model}); \
         a yardstick rates its own writer's docs too well (docs/gate.md). Write the set with \
         another model: `[llm] role_models = {{ synth = \"...\" }}`"
    )
}
