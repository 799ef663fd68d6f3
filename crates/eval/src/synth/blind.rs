//! The docs a set's writer reads: the imported (`original`) versions only, so no refined or
//! candidate doc's wording can leak into the yardstick that later judges those docs.

use toolsmith_catalog::{Catalog, DocLabel, DocVersion};

/// `catalog` with every tool's and API's doc that is not an `original` version removed: read
/// the catalog with `DocSelector::Label(DocLabel::original())` and pass it here, since that
/// selector falls back to the active doc where no original exists (a doc added by hand). An
/// API left without a doc is shown by its name and parameters alone.
pub fn blind_to_refinement(mut catalog: Catalog) -> Catalog {
    let original = DocLabel::original();
    let keep = |doc: &mut Option<DocVersion>| {
        if doc.as_ref().is_some_and(|d| d.label != original) {
            *doc = None;
        }
    };
    for tool in &mut catalog.tools {
        keep(&mut tool.doc);
        for api in &mut tool.apis {
            keep(&mut api.doc);
        }
    }
    catalog
}
