//! The candidate pool the solver gets: trimmed to what the solvability check named, and
//! compared between attempts.

use toolsmith_catalog::ApiId;

use super::agents::Shared;
use crate::trace::TraceEvent;

/// The pool for the solver's first attempt with `trim_pool`: the APIs the check that ended the
/// search named, in pool order, with the pooled producers they need (transitively); the whole
/// pool when it named none or any API not in the pool. Traced as [`TraceEvent::PoolTrimmed`].
pub(super) fn trimmed(shared: &Shared) -> Vec<ApiId> {
    let pool = shared.pool();
    let named = shared.needed.lock().ok().and_then(|n| n.clone());
    let (kept, why) = match named {
        None => (pool.clone(), "the check named no APIs".to_owned()),
        Some(named) if named.is_empty() => (pool.clone(), "the check named no APIs".to_owned()),
        Some(named) => {
            let unknown: Vec<&String> = named
                .iter()
                .filter(|n| n.parse::<ApiId>().ok().is_none_or(|id| !pool.contains(&id)))
                .collect();
            if unknown.is_empty() {
                let mut want: Vec<ApiId> = Vec::new();
                for id in named.iter().filter_map(|n| n.parse::<ApiId>().ok()) {
                    if !want.contains(&id) {
                        want.push(id);
                    }
                }
                let base = want.len();
                let links = shared
                    .producers
                    .lock()
                    .map(|l| l.clone())
                    .unwrap_or_default();
                let mut i = 0;
                while let Some(api) = want.get(i).cloned() {
                    i += 1;
                    for producer in links.get(&api).into_iter().flatten() {
                        if pool.contains(producer) && !want.contains(producer) {
                            want.push(producer.clone());
                        }
                    }
                }
                let producers = want.len() - base;
                let kept: Vec<ApiId> = pool.iter().filter(|a| want.contains(a)).cloned().collect();
                let why = format!(
                    "the check named {} of {} pooled APIs{}",
                    base,
                    pool.len(),
                    if producers > 0 {
                        format!(" (+{producers} producers they need)")
                    } else {
                        String::new()
                    }
                );
                (kept, why)
            } else {
                let unknown: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
                (
                    pool.clone(),
                    format!(
                        "the check named APIs not in the pool: {}",
                        unknown.join(", ")
                    ),
                )
            }
        }
    };
    let whole = kept.len() == pool.len();
    shared.runtime.tracer.emit(TraceEvent::PoolTrimmed {
        kept: kept.clone(),
        pool: pool.len(),
        whole,
        reason: why,
    });
    kept
}

/// Whether two API lists hold the same APIs.
pub(super) fn same_apis(a: &[ApiId], b: &[ApiId]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort();
    a.dedup();
    b.sort();
    b.dedup();
    a == b
}
