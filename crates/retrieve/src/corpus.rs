//! The corpus: one document per API, cut into the fields an index may use, with the tool and
//! category kept as small integers so filters cost a comparison per document.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::{ApiEntry, ApiId, Catalog, ToolEntry, ToolId};
use toolsmith_plumbing::text::truncate_with;

pub use crate::field::Field;
use crate::retriever::Filter;

/// How much each field of an API's document counts. A weight multiplies the field's term
/// frequencies and length in BM25 (BM25F-style); a weight of 0 leaves the field out. The dense
/// index embeds the fields whose weight is above 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FieldWeights {
    /// The tool's name (`TheClique`, `tmdb`).
    pub tool_name: f32,
    /// The API's name and, for HTTP APIs, its method and path (`Get Details GET /movie/{movie_id}`).
    pub api_name: f32,
    /// The tool's description.
    pub tool_description: f32,
    /// The API's description (from the chosen doc version).
    pub api_description: f32,
    /// Parameter names and descriptions.
    pub params: f32,
    /// The user requests of the doc's usage examples (DRAFT's refined docs have one per API).
    pub examples: f32,
    /// The field names of the API's response (schema and examples): what it returns, so "the
    /// genre of a show" finds the details API whose response has `genres` though its
    /// description never says so.
    pub returns: f32,
    /// The doc version's synthetic user requests (Re-Invoke's views; written by `refine`),
    /// one a line. BM25 counts them like the usage examples; the dense index embeds each as a
    /// vector of its own (see `DenseSettings::views`), not in the doc's text.
    pub queries: f32,
    /// The API's description as imported ([`Field::Source`]), present only when the chosen
    /// doc version rewrote it: BM25 counts it like the other fields; the dense index embeds
    /// it as one more view of the API (the doc's text with the source description in place of
    /// the chosen one, see [`CorpusDoc::source_text`]), never inside the doc's own vector.
    /// Off (0) by default ([`crate::SOURCE_WEIGHT`] says why, with what it measured).
    pub source: f32,
}

impl FieldWeights {
    /// Every field once, except [`FieldWeights::source`] (off: it repeats the description's
    /// role, and is turned on by name when measured).
    pub const ALL: Self = Self {
        tool_name: 1.0,
        api_name: 1.0,
        tool_description: 1.0,
        api_description: 1.0,
        params: 1.0,
        examples: 1.0,
        returns: 1.0,
        queries: 1.0,
        source: 0.0,
    };

    /// The weights of each field, in [`Field`] order.
    pub fn get(&self, field: Field) -> f32 {
        match field {
            Field::ToolName => self.tool_name,
            Field::ApiName => self.api_name,
            Field::ToolDescription => self.tool_description,
            Field::ApiDescription => self.api_description,
            Field::Params => self.params,
            Field::Examples => self.examples,
            Field::Returns => self.returns,
            Field::Queries => self.queries,
            Field::Source => self.source,
        }
    }
}

/// A weight table as written in a config: the fields it names, each `None` where it is silent.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenWeights {
    tool_name: Option<f32>,
    api_name: Option<f32>,
    tool_description: Option<f32>,
    api_description: Option<f32>,
    params: Option<f32>,
    examples: Option<f32>,
    returns: Option<f32>,
    queries: Option<f32>,
    source: Option<f32>,
}

/// Reads a weight table over `base`: a field the table leaves out keeps `base`'s weight, so
/// `[retrieve.bm25.weights] source = 0.0` changes that one weight and no other (a table read
/// as a whole would give every field it does not name the weight 1).
pub(crate) fn weights_over<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
    base: FieldWeights,
) -> Result<FieldWeights, D::Error> {
    let w = WrittenWeights::deserialize(deserializer)?;
    Ok(FieldWeights {
        tool_name: w.tool_name.unwrap_or(base.tool_name),
        api_name: w.api_name.unwrap_or(base.api_name),
        tool_description: w.tool_description.unwrap_or(base.tool_description),
        api_description: w.api_description.unwrap_or(base.api_description),
        params: w.params.unwrap_or(base.params),
        examples: w.examples.unwrap_or(base.examples),
        returns: w.returns.unwrap_or(base.returns),
        queries: w.queries.unwrap_or(base.queries),
        source: w.source.unwrap_or(base.source),
    })
}

impl Default for FieldWeights {
    /// [`FieldWeights::ALL`].
    fn default() -> Self {
        Self::ALL
    }
}

/// One API as the indexes see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CorpusDoc {
    /// The API.
    pub api: ApiId,
    /// Its tool.
    pub tool: ToolId,
    /// The tool's category.
    pub category: String,
    /// The text of each field, in [`Field::ALL`] order.
    pub fields: [String; Field::COUNT],
}

impl CorpusDoc {
    /// The text of one field.
    pub fn field(&self, field: Field) -> &str {
        let i = Field::ALL.iter().position(|f| *f == field).unwrap_or(0);
        self.fields.get(i).map_or("", String::as_str)
    }

    fn field_mut(&mut self, field: Field) -> Option<&mut String> {
        let i = Field::ALL.iter().position(|f| *f == field)?;
        self.fields.get_mut(i)
    }

    /// The fields with weight above 0 (but [`Field::Source`]), joined by `. `: what the dense
    /// index embeds.
    pub fn text(&self, weights: &FieldWeights) -> String {
        self.text_with_description(weights, self.field(Field::ApiDescription))
    }

    /// The doc's text as [`CorpusDoc::text`] gives it but with the API's description as
    /// imported ([`Field::Source`]) in place of the chosen one: the dense index's source view.
    /// `None` when the source's weight is 0 or the chosen doc kept the source's description
    /// (the field is then empty).
    pub fn source_text(&self, weights: &FieldWeights) -> Option<String> {
        let source = self.field(Field::Source).trim();
        (weights.source > 0.0 && !source.is_empty())
            .then(|| self.text_with_description(weights, source))
    }

    fn text_with_description(&self, weights: &FieldWeights, description: &str) -> String {
        Field::ALL
            .iter()
            .zip(&self.fields)
            .filter(|(f, _)| f.in_doc_text() && weights.get(**f) > 0.0)
            .map(|(f, text)| match f {
                Field::ApiDescription => description.trim(),
                _ => text.trim(),
            })
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join(". ")
    }

    /// The doc's synthetic user requests ([`Field::Queries`], one a line), each a view the
    /// dense index embeds on its own; none for most docs.
    pub fn views(&self) -> impl Iterator<Item = &str> {
        self.field(Field::Queries)
            .lines()
            .map(str::trim)
            .filter(|q| !q.is_empty())
    }

    /// A one-line summary for result lists: the API's name (and path) and its description.
    pub fn summary(&self) -> String {
        let name = self.field(Field::ApiName);
        let description = self.field(Field::ApiDescription).replace('\n', " ");
        let description = description.trim();
        let mut line = format!("{}: {name}", self.tool);
        if !description.is_empty() {
            line.push_str(" - ");
            line.push_str(&truncate_with(description, SUMMARY_CHARS, "..."));
        }
        line
    }
}

/// Characters of description kept in [`CorpusDoc::summary`].
const SUMMARY_CHARS: usize = 160;

/// Every API of a catalog view, in catalog order.
#[derive(Clone, Debug, Default)]
pub struct Corpus {
    docs: Vec<CorpusDoc>,
    doc_tool: Vec<u32>,
    doc_category: Vec<u32>,
    tools: HashMap<ToolId, u32>,
    categories: HashMap<String, u32>,
}

/// A [`Filter`] resolved against a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Allowed {
    /// Every document.
    All,
    /// Documents of this category and/or tool.
    Only {
        category: Option<u32>,
        tool: Option<u32>,
    },
    /// No document (the filter names a category or tool the corpus lacks).
    Nothing,
}

impl Corpus {
    /// The corpus of a catalog view (one doc version per tool and API, as the view chose).
    pub fn from_catalog(catalog: &Catalog) -> Self {
        let mut corpus = Self::default();
        for (tool, api) in catalog.apis() {
            corpus.push(document(tool, api));
        }
        corpus
    }

    /// The corpus of the `chosen` catalog view with each API's description from `original`
    /// (the view of the `original` doc versions; APIs paired by id) in [`Field::Source`]
    /// wherever the chosen doc's description differs from it; where it is the same (the
    /// chosen doc is the original, or kept its description), or the API has no original
    /// description, the field is empty, so nothing counts twice.
    pub fn from_catalog_with_source(chosen: &Catalog, original: &Catalog) -> Self {
        let originals: HashMap<&ApiId, &str> = original
            .apis()
            .map(|(_, api)| (&api.api.id, api.description()))
            .collect();
        let mut corpus = Self::default();
        for (tool, api) in chosen.apis() {
            let mut doc = document(tool, api);
            let source = originals.get(&api.api.id).map_or("", |s| s.trim());
            if source != api.description().trim()
                && let Some(slot) = doc.field_mut(Field::Source)
            {
                source.clone_into(slot);
            }
            corpus.push(doc);
        }
        corpus
    }

    /// A corpus of ready-made documents.
    pub fn from_docs(docs: impl IntoIterator<Item = CorpusDoc>) -> Self {
        let mut corpus = Self::default();
        for doc in docs {
            corpus.push(doc);
        }
        corpus
    }

    fn push(&mut self, doc: CorpusDoc) {
        let next = u32::try_from(self.tools.len()).unwrap_or(u32::MAX);
        let tool = *self.tools.entry(doc.tool.clone()).or_insert(next);
        let next = u32::try_from(self.categories.len()).unwrap_or(u32::MAX);
        let category = *self
            .categories
            .entry(doc.category.to_lowercase())
            .or_insert(next);
        self.doc_tool.push(tool);
        self.doc_category.push(category);
        self.docs.push(doc);
    }

    /// Number of APIs.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The documents, in order.
    pub fn docs(&self) -> &[CorpusDoc] {
        &self.docs
    }

    /// Document `i`.
    pub fn doc(&self, i: usize) -> Option<&CorpusDoc> {
        self.docs.get(i)
    }

    /// The index of `api`'s document (a scan: for explaining a few APIs, not for search).
    pub fn position(&self, api: &ApiId) -> Option<u32> {
        let i = self.docs.iter().position(|d| &d.api == api)?;
        u32::try_from(i).ok()
    }

    /// The first `n` documents as a corpus of their own (for scaling measurements).
    pub fn prefix(&self, n: usize) -> Self {
        Self::from_docs(self.docs.iter().take(n).cloned())
    }

    pub(crate) fn allowed(&self, filter: &Filter) -> Allowed {
        if filter.category.is_none() && filter.tool.is_none() {
            return Allowed::All;
        }
        let category = match &filter.category {
            Some(c) => match self.categories.get(&c.to_lowercase()) {
                Some(&id) => Some(id),
                None => return Allowed::Nothing,
            },
            None => None,
        };
        let tool = match &filter.tool {
            Some(t) => match self.tools.get(t) {
                Some(&id) => Some(id),
                None => return Allowed::Nothing,
            },
            None => None,
        };
        Allowed::Only { category, tool }
    }

    /// Whether document `i` passes a resolved filter.
    pub(crate) fn passes(&self, i: usize, allowed: Allowed) -> bool {
        match allowed {
            Allowed::All => true,
            Allowed::Nothing => false,
            Allowed::Only { category, tool } => {
                category.is_none_or(|c| self.doc_category.get(i) == Some(&c))
                    && tool.is_none_or(|t| self.doc_tool.get(i) == Some(&t))
            }
        }
    }
}

fn document(tool: &ToolEntry, api: &ApiEntry) -> CorpusDoc {
    let a = &api.api;
    let mut api_name = a.name.clone();
    if let (Some(method), Some(path)) = (a.endpoint.method(), a.endpoint.path()) {
        api_name.push_str(&format!(" {method} {path}"));
    }
    let params = a
        .params
        .iter()
        .map(|p| {
            if p.description.is_empty() {
                p.name.clone()
            } else {
                format!("{}: {}", p.name, p.description)
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    let examples = api
        .doc
        .as_ref()
        .map(|d| {
            d.doc
                .examples
                .iter()
                .map(|e| e.query.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    CorpusDoc {
        api: a.id.clone(),
        tool: tool.tool.id.clone(),
        category: tool.tool.category.clone(),
        fields: [
            tool.tool.name.clone(),
            api_name,
            tool.doc
                .as_ref()
                .map(|d| d.doc.description.clone())
                .unwrap_or_default(),
            api.description().to_owned(),
            params,
            examples,
            returns(a),
            queries(api),
            String::new(),
        ],
    }
}

/// The doc version's synthetic requests, one a line (a line break inside one becomes a space,
/// so each stays one view).
fn queries(api: &ApiEntry) -> String {
    api.doc
        .as_ref()
        .map(|d| {
            d.doc
                .queries
                .iter()
                .map(|q| q.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|q| !q.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Distinct field names of a response read at most (a long schema adds nothing past them).
const MAX_RETURN_FIELDS: usize = 80;
/// Schema and example levels followed at most (local `$ref`s included, bounded on cycles).
const MAX_RETURN_DEPTH: usize = 6;

/// The field names of an API's response schema and examples, in the order first seen, with
/// `_` as a space (`first_air_date` -> `first air date`): the [`Field::Returns`] text.
fn returns(api: &toolsmith_catalog::Api) -> String {
    let mut names: Vec<String> = Vec::new();
    if let Some(schema) = &api.response_schema {
        schema_keys(schema, schema, &mut names, 0);
    }
    for example in &api.response_examples {
        example_keys(example, &mut names, 0);
    }
    names.join(" ")
}

fn push_key(key: &str, names: &mut Vec<String>) {
    let words = key.replace(['_', '-'], " ");
    if names.len() < MAX_RETURN_FIELDS && !names.contains(&words) {
        names.push(words);
    }
}

fn schema_keys(root: &Value, schema: &Value, names: &mut Vec<String>, depth: usize) {
    if depth > MAX_RETURN_DEPTH || names.len() >= MAX_RETURN_FIELDS {
        return;
    }
    // A local `$ref` (`#/components/schemas/Show`).
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => match r.strip_prefix('#').map(|p| root.pointer(p)) {
            Some(Some(target)) => target,
            _ => return,
        },
        None => schema,
    };
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for key in props.keys() {
            push_key(key, names);
        }
        for value in props.values() {
            schema_keys(root, value, names, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        schema_keys(root, items, names, depth + 1);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for part in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            schema_keys(root, part, names, depth + 1);
        }
    }
}

fn example_keys(value: &Value, names: &mut Vec<String>, depth: usize) {
    if depth > MAX_RETURN_DEPTH || names.len() >= MAX_RETURN_FIELDS {
        return;
    }
    match value {
        Value::Object(map) => {
            for key in map.keys() {
                push_key(key, names);
            }
            for v in map.values() {
                example_keys(v, names, depth + 1);
            }
        }
        // The first element stands for the list.
        Value::Array(items) => {
            if let Some(first) = items.first() {
                example_keys(first, names, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::FieldWeights;
    use crate::{Bm25Settings, DenseSettings};

    #[test]
    fn a_weight_table_changes_only_the_weights_it_names() {
        let bm25: Bm25Settings =
            serde_json::from_value(json!({"weights": {"source": 0.0}})).unwrap();
        let expected = FieldWeights {
            source: 0.0,
            ..Bm25Settings::DEFAULT_WEIGHTS
        };
        assert_eq!(bm25.weights, expected);
        let dense: DenseSettings =
            serde_json::from_value(json!({"fields": {"params": 1.0}})).unwrap();
        let expected = FieldWeights {
            params: 1.0,
            ..DenseSettings::DEFAULT_FIELDS
        };
        assert_eq!(dense.fields, expected);
        let silent: Bm25Settings = serde_json::from_value(json!({})).unwrap();
        assert_eq!(silent, Bm25Settings::default());
        let typo = serde_json::from_value::<Bm25Settings>(json!({"weights": {"sauce": 1.0}}));
        assert!(typo.unwrap_err().to_string().contains("sauce"));
    }
}
