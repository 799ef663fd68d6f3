//! What an unknown API id's error suggests (`call`, `show`): the closest ids of the catalog.

use toolsmith_catalog::{ApiId, DocSelector, Store};
use toolsmith_retrieve::{Bm25Index, Filter, Retriever as _};

use crate::context::Context;
use crate::retrieval;

/// Ids suggested for an unknown one.
const CLOSEST: usize = 3;

/// The error for an API id the catalog does not hold, naming the closest ids: the nearest by
/// edit distance, then the APIs BM25 ranks first for the id's words, as `serve` suggests them.
pub(crate) fn unknown_api(ctx: &Context, store: &Store, id: &ApiId) -> anyhow::Error {
    let words: String = id
        .to_string()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let closest = (|| -> anyhow::Result<Vec<String>> {
        let corpus = retrieval::corpus(
            store,
            &DocSelector::Active,
            retrieval::SourceField::configured(ctx)?,
        )?;
        // A typo first (edit distance on the id), then BM25 over the id's words fills up.
        let mut ids = toolsmith_catalog::closest_ids(
            &id.to_string(),
            corpus.docs().iter().map(|d| &d.api),
            CLOSEST,
        );
        if ids.len() < CLOSEST {
            let index = Bm25Index::build(corpus, ctx.config()?.retrieve.settings().bm25);
            let hits =
                ctx.runtime()?
                    .block_on(index.search(&words, CLOSEST, &Filter::default()))?;
            for hit in hits {
                if ids.len() < CLOSEST && !ids.contains(&hit.api) {
                    ids.push(hit.api);
                }
            }
        }
        Ok(ids.into_iter().map(|api| api.to_string()).collect())
    })();
    match closest {
        Ok(ids) if !ids.is_empty() => anyhow::anyhow!(
            "no API `{id}` in the catalog; closest: {} (see `toolsmith tools`)",
            ids.join(", ")
        ),
        _ => anyhow::anyhow!("no API `{id}` in the catalog (see `toolsmith tools`)"),
    }
}
