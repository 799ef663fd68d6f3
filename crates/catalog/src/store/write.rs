//! Writing to the store: landing an import batch in one transaction, and
//! appending or activating doc versions.

use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

use super::Store;
use crate::error::{Error, Result};
use crate::id::{ApiId, DocLabel, DocTarget, ToolId};
use crate::import::records::alias;
use crate::import::{ApiRecord, ImportBatch, RefDoc, RefTarget, ToolRecord};
use crate::model::{Doc, DocVersion, Endpoint};
use crate::names::slug;
use toolsmith_plumbing::sqlite::{now_ms, write_transaction};

/// What an import changed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    /// The source read.
    pub source: String,
    /// Tools created.
    pub tools_added: usize,
    /// Tools already there and changed by this import.
    pub tools_updated: usize,
    /// Tools already there, imported again with nothing changed.
    pub tools_unchanged: usize,
    /// APIs created.
    pub apis_added: usize,
    /// APIs already there and changed by this import.
    pub apis_updated: usize,
    /// APIs already there, imported again with nothing changed.
    pub apis_unchanged: usize,
    /// New doc versions stored.
    pub docs_added: usize,
    /// Docs identical to the stored version of the same label (not stored again).
    pub docs_unchanged: usize,
    /// Refined docs attached to a tool or API.
    pub refs_matched: usize,
    /// Names in a refined-doc file that match nothing in the catalog.
    pub refs_unmatched: Vec<String>,
    /// Files skipped because they failed (with `keep_going`).
    pub failures: Vec<String>,
}

/// A doc to append as a new version.
#[derive(Clone, Debug)]
pub struct NewDoc {
    /// Its label.
    pub label: DocLabel,
    /// What produced it (a file, a method run, `manual`).
    pub source: String,
    /// The doc.
    pub doc: Doc,
}

/// Whether a doc a caller stores becomes the one agents see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activate {
    /// Always: it replaces the active doc.
    Always,
    /// Only when nothing is active yet (a first doc); otherwise the active doc stays.
    IfNoneActive,
}

impl From<bool> for Activate {
    /// A command-line switch: `--activate` is [`Activate::Always`].
    fn from(on: bool) -> Self {
        if on { Self::Always } else { Self::IfNoneActive }
    }
}

impl From<Activate> for Policy {
    fn from(activate: Activate) -> Self {
        match activate {
            Activate::Always => Self::Always,
            Activate::IfNoneActive => Self::IfNoneActive,
        }
    }
}

/// When a newly stored doc becomes the active one (an import also refreshes its own label).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Always.
    Always,
    /// When nothing is active, or the active version has the same label (a
    /// re-import refreshes its own docs but not a refinement the user chose).
    IfSameLabelActive,
    /// Never (unless nothing at all is active).
    IfNoneActive,
}

impl Store {
    /// Lands a batch: all of it, or (on any error) none of it. `activate_refs` says whether
    /// the batch's refined docs become active.
    pub fn import(&mut self, batch: &ImportBatch, activate_refs: Activate) -> Result<ImportReport> {
        let mut report = ImportReport {
            source: batch.source.clone(),
            failures: batch.failures.iter().map(ToString::to_string).collect(),
            ..ImportReport::default()
        };
        let tx = write_transaction(&mut self.conn).map_err(Error::store("starting an import"))?;
        let format = batch.format.map(|f| f.as_str()).unwrap_or("unknown");
        tx.execute(
            "INSERT INTO sources (path, format, sha256, imported_at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![batch.source, format, batch.sha256, now_ms()],
        )
        .map_err(Error::store("recording the source"))?;
        let source_id = tx.last_insert_rowid();
        for tool in &batch.tools {
            import_tool(&tx, tool, source_id, &batch.source, &mut report)?;
        }
        let policy = Policy::from(activate_refs);
        for doc in &batch.ref_docs {
            match resolve_ref(&tx, &doc.target)? {
                Some(target) => {
                    report.refs_matched += 1;
                    let new = NewDoc {
                        label: doc.label.clone(),
                        source: batch.source.clone(),
                        doc: doc.doc.clone(),
                    };
                    count(append_doc(&tx, &target, &new, policy)?, &mut report);
                }
                None => report.refs_unmatched.push(describe_ref(doc)),
            }
        }
        tx.commit().map_err(Error::store("committing the import"))?;
        Ok(report)
    }

    /// Appends a doc version to a tool or API; `activate` says whether agents see it.
    pub fn add_doc(
        &mut self,
        target: &DocTarget,
        doc: NewDoc,
        activate: Activate,
    ) -> Result<DocVersion> {
        let tx = write_transaction(&mut self.conn).map_err(Error::store("starting a doc write"))?;
        ensure_target(&tx, target)?;
        let key = target.to_string();
        let policy = Policy::from(activate);
        let appended = append_doc(&tx, &key, &doc, policy)?;
        let version = match appended {
            Appended::New(v) | Appended::Unchanged(v) => v,
        };
        tx.commit().map_err(Error::store("committing a doc"))?;
        self.doc_history(target)?
            .into_iter()
            .find(|d| d.version == version)
            .ok_or_else(|| Error::Corrupt(format!("{target}: doc version {version} vanished")))
    }

    /// Makes an earlier (or later) doc version the active one: rollback without loss.
    pub fn activate(&mut self, target: &DocTarget, version: u32) -> Result<()> {
        let key = target.to_string();
        let doc_id: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM docs WHERE target = ?1 AND version = ?2",
                params![key, version],
                |r| r.get(0),
            )
            .optional()
            .map_err(Error::store(format!("finding {key} version {version}")))?;
        let doc_id = doc_id.ok_or_else(|| Error::UnknownDocVersion {
            target: target.clone(),
            version,
        })?;
        self.conn
            .execute(
                "INSERT INTO active_docs (target, doc_id) VALUES (?1, ?2) ON CONFLICT(target) DO UPDATE SET doc_id = excluded.doc_id",
                params![key, doc_id],
            )
            .map_err(Error::store(format!("activating {key} version {version}")))?;
        Ok(())
    }
}

fn ensure_target(tx: &Transaction<'_>, target: &DocTarget) -> Result<()> {
    let (sql, id, missing) = match target {
        DocTarget::Tool(id) => (
            "SELECT 1 FROM tools WHERE id = ?1",
            id.to_string(),
            Error::UnknownTool(id.clone()),
        ),
        DocTarget::Api(id) => (
            "SELECT 1 FROM apis WHERE id = ?1",
            id.to_string(),
            Error::UnknownApi(id.clone()),
        ),
    };
    let found: Option<i64> = tx
        .query_row(sql, [id], |r| r.get(0))
        .optional()
        .map_err(Error::store("looking up a doc target"))?;
    found.map(|_| ()).ok_or(missing)
}

fn describe_ref(doc: &RefDoc) -> String {
    match &doc.target {
        RefTarget::Tool(name) => format!("tool {name}"),
        RefTarget::Api(names) => format!("API {}", names.join(" | ")),
    }
}

fn count(appended: Appended, report: &mut ImportReport) {
    match appended {
        Appended::New(_) => report.docs_added += 1,
        Appended::Unchanged(_) => report.docs_unchanged += 1,
    }
}

fn import_tool(
    tx: &Transaction<'_>,
    tool: &ToolRecord,
    source_id: i64,
    source: &str,
    report: &mut ImportReport,
) -> Result<()> {
    let existing: Option<String> = tx
        .prepare_cached("SELECT id FROM tools WHERE key = ?1")
        .and_then(|mut s| s.query_row([&tool.key], |r| r.get(0)).optional())
        .map_err(Error::store(format!("looking up tool {}", tool.key)))?;
    let security =
        serde_json::to_string(&tool.security).map_err(|e| Error::Corrupt(e.to_string()))?;
    // `Some(changed)` for a tool already there; it counts as updated when its row, an API or
    // a doc of it changed.
    let mut row_changed = None;
    let before = (report.apis_added, report.apis_updated, report.docs_added);
    let id = match existing {
        Some(id) => {
            // Only a real change counts as an update; the source is recorded either way.
            let changed = tx
                .prepare_cached(
                    "UPDATE tools SET name = ?2, category = ?3, base_url = COALESCE(?4, base_url),
                     security = CASE WHEN ?5 = '[]' THEN security ELSE ?5 END WHERE id = ?1
                     AND (name IS NOT ?2 OR category IS NOT ?3 OR base_url IS NOT COALESCE(?4, base_url)
                          OR security IS NOT (CASE WHEN ?5 = '[]' THEN security ELSE ?5 END))",
                )
                .and_then(|mut s| s.execute(params![id, tool.name, tool.category, tool.base_url, security]))
                .map_err(Error::store(format!("updating tool {id}")))?;
            tx.prepare_cached("UPDATE tools SET source_id = ?2 WHERE id = ?1")
                .and_then(|mut s| s.execute(params![id, source_id]))
                .map_err(Error::store(format!("updating tool {id}")))?;
            row_changed = Some(changed > 0);
            ToolId::try_from(id)?
        }
        None => {
            let id = free_tool_id(tx, tool)?;
            tx.prepare_cached(
                "INSERT INTO tools (id, key, name, category, base_url, security, source_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| s.execute(params![id.as_str(), tool.key, tool.name, tool.category, tool.base_url, security, source_id]))
            .map_err(Error::store(format!("adding tool {id}")))?;
            report.tools_added += 1;
            id
        }
    };
    for name in tool.aliases.iter().chain([&tool.name, &id.to_string()]) {
        add_alias(tx, name, "tool", id.as_str())?;
    }
    if let Some(description) = tool.description.as_deref().filter(|d| !d.is_empty()) {
        let doc = NewDoc {
            label: DocLabel::original(),
            source: source.to_owned(),
            doc: Doc::text(description),
        };
        count(
            append_doc(
                tx,
                &DocTarget::Tool(id.clone()).to_string(),
                &doc,
                Policy::IfSameLabelActive,
            )?,
            report,
        );
    }
    let mut next_ordinal: i64 = tx
        .prepare_cached("SELECT COALESCE(MAX(ordinal) + 1, 0) FROM apis WHERE tool_id = ?1")
        .and_then(|mut s| s.query_row([id.as_str()], |r| r.get(0)))
        .map_err(Error::store(format!("counting APIs of {id}")))?;
    for api in &tool.apis {
        let api_id = ApiId::new(id.clone(), api.name.clone());
        match import_api(tx, &api_id, api, next_ordinal)? {
            Landed::Added => {
                report.apis_added += 1;
                next_ordinal += 1;
            }
            Landed::Updated => report.apis_updated += 1,
            Landed::Unchanged => report.apis_unchanged += 1,
        }
        for name in api
            .aliases
            .iter()
            .chain([&api.source_name, &api_id.to_string()])
        {
            add_alias(tx, name, "api", &api_id.to_string())?;
        }
        if let Some(doc) = &api.doc {
            let doc = NewDoc {
                label: DocLabel::original(),
                source: source.to_owned(),
                doc: doc.clone(),
            };
            count(
                append_doc(
                    tx,
                    &DocTarget::Api(api_id).to_string(),
                    &doc,
                    Policy::IfSameLabelActive,
                )?,
                report,
            );
        }
    }
    let after = (report.apis_added, report.apis_updated, report.docs_added);
    match row_changed {
        Some(changed) if changed || after != before => report.tools_updated += 1,
        Some(_) => report.tools_unchanged += 1,
        None => {}
    }
    Ok(())
}

/// The preferred id if free, else one qualified by category, else numbered.
fn free_tool_id(tx: &Transaction<'_>, tool: &ToolRecord) -> Result<ToolId> {
    let taken = |id: &str| -> Result<bool> {
        tx.prepare_cached("SELECT 1 FROM tools WHERE id = ?1")
            .and_then(|mut s| s.exists([id]))
            .map_err(Error::store("checking a tool id"))
    };
    let preferred = tool.preferred_id.to_string();
    if !taken(&preferred)? {
        return Ok(tool.preferred_id.clone());
    }
    let qualified = format!("{preferred}__{}", slug(&tool.category));
    let mut candidate = qualified.clone();
    let mut n = 2;
    while taken(&candidate)? {
        candidate = format!("{qualified}_{n}");
        n += 1;
    }
    Ok(ToolId::try_from(candidate)?)
}

/// What storing one API did.
enum Landed {
    Added,
    Updated,
    Unchanged,
}

/// Inserts or updates one API. A less informative source (one without a URL or
/// response schema) never erases what a richer one stored.
fn import_api(tx: &Transaction<'_>, id: &ApiId, api: &ApiRecord, ordinal: i64) -> Result<Landed> {
    let existing: Option<(String, String)> = tx
        .prepare_cached("SELECT endpoint, params FROM apis WHERE id = ?1")
        .and_then(|mut s| {
            s.query_row([id.to_string()], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
        })
        .map_err(Error::store(format!("looking up API {id}")))?;
    let endpoint = json(&api.endpoint)?;
    let params_json = json(&api.params)?;
    let request_body = api.request_body.as_ref().map(|v| v.to_string());
    let response_schema = api.response_schema.as_ref().map(|v| v.to_string());
    let examples = json(&api.response_examples)?;
    let access = json(&api.access)?;
    match existing {
        Some((old_endpoint, old_params)) => {
            let old: Endpoint = serde_json::from_str(&old_endpoint)
                .map_err(|e| Error::Corrupt(format!("API {id}: endpoint: {e}")))?;
            let keep_old = matches!(api.endpoint, Endpoint::Unlocated { .. })
                && !matches!(old, Endpoint::Unlocated { .. });
            let (endpoint, params_json) = if keep_old {
                (old_endpoint, old_params)
            } else {
                (endpoint, params_json)
            };
            let changed = tx.prepare_cached(
                "UPDATE apis SET name = ?2, source_name = ?3, endpoint = ?4, params = ?5,
                 request_body = COALESCE(?6, request_body), response_schema = COALESCE(?7, response_schema),
                 response_examples = CASE WHEN ?8 = '[]' THEN response_examples ELSE ?8 END,
                 access = CASE WHEN ?9 = '{}' THEN access ELSE ?9 END WHERE id = ?1
                 AND (name IS NOT ?2 OR source_name IS NOT ?3 OR endpoint IS NOT ?4 OR params IS NOT ?5
                      OR request_body IS NOT COALESCE(?6, request_body)
                      OR response_schema IS NOT COALESCE(?7, response_schema)
                      OR response_examples IS NOT (CASE WHEN ?8 = '[]' THEN response_examples ELSE ?8 END)
                      OR access IS NOT (CASE WHEN ?9 = '{}' THEN access ELSE ?9 END))",
            )
            .and_then(|mut s| s.execute(params![id.to_string(), api.display_name, api.source_name, endpoint, params_json, request_body, response_schema, examples, access]))
            .map_err(Error::store(format!("updating API {id}")))?;
            Ok(if changed > 0 {
                Landed::Updated
            } else {
                Landed::Unchanged
            })
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO apis (id, tool_id, ordinal, name, source_name, endpoint, params, request_body, response_schema, response_examples, access)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .and_then(|mut s| s.execute(params![id.to_string(), id.tool().as_str(), ordinal, api.display_name, api.source_name, endpoint, params_json, request_body, response_schema, examples, access]))
            .map_err(Error::store(format!("adding API {id}")))?;
            Ok(Landed::Added)
        }
    }
}

fn json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Corrupt(e.to_string()))
}

fn add_alias(tx: &Transaction<'_>, name: &str, kind: &str, target: &str) -> Result<()> {
    let name = alias::normalize(name);
    if name.is_empty() {
        return Ok(());
    }
    tx.prepare_cached("INSERT OR IGNORE INTO aliases (alias, kind, target) VALUES (?1, ?2, ?3)")
        .and_then(|mut s| s.execute(params![name, kind, target]))
        .map_err(Error::store(format!("recording alias {name}")))?;
    Ok(())
}

/// The doc target (`tool:ID` or `api:ID`) a refined doc names, if exactly one matches.
fn resolve_ref(tx: &Transaction<'_>, target: &RefTarget) -> Result<Option<String>> {
    let (names, kind, prefix) = match target {
        RefTarget::Tool(name) => (std::slice::from_ref(name), "tool", "tool:"),
        RefTarget::Api(names) => (names.as_slice(), "api", "api:"),
    };
    for name in names {
        let hits: Vec<String> = tx
            .prepare_cached("SELECT target FROM aliases WHERE alias = ?1 AND kind = ?2")
            .and_then(|mut s| {
                s.query_map(params![alias::normalize(name), kind], |r| r.get(0))?
                    .collect()
            })
            .map_err(Error::store(format!("resolving {name}")))?;
        if let [only] = hits.as_slice() {
            return Ok(Some(format!("{prefix}{only}")));
        }
    }
    Ok(None)
}

enum Appended {
    New(u32),
    Unchanged(u32),
}

/// Appends a doc version unless the latest one with the same label says the same.
fn append_doc(
    tx: &Transaction<'_>,
    target: &str,
    new: &NewDoc,
    policy: Policy,
) -> Result<Appended> {
    let examples =
        serde_json::to_string(&new.doc.examples).map_err(|e| Error::Corrupt(e.to_string()))?;
    let queries =
        serde_json::to_string(&new.doc.queries).map_err(|e| Error::Corrupt(e.to_string()))?;
    let latest: Option<(i64, u32, String, String, String)> = tx
        .prepare_cached("SELECT id, version, description, examples, queries FROM docs WHERE target = ?1 AND label = ?2 ORDER BY version DESC LIMIT 1")
        .and_then(|mut s| s.query_row(params![target, new.label.as_str()], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).optional())
        .map_err(Error::store(format!("reading docs of {target}")))?;
    let (doc_id, appended) = match latest {
        Some((id, version, description, old_examples, old_queries))
            if description == new.doc.description
                && old_examples == examples
                && old_queries == queries =>
        {
            (id, Appended::Unchanged(version))
        }
        _ => {
            let version: u32 = tx
                .prepare_cached("SELECT COALESCE(MAX(version), 0) + 1 FROM docs WHERE target = ?1")
                .and_then(|mut s| s.query_row([target], |r| r.get(0)))
                .map_err(Error::store(format!("numbering docs of {target}")))?;
            tx.prepare_cached(
                "INSERT INTO docs (target, version, label, source, created_at_ms, description, examples, queries) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut s| s.execute(params![target, version, new.label.as_str(), new.source, now_ms(), new.doc.description, examples, queries]))
            .map_err(Error::store(format!("storing a doc of {target}")))?;
            (tx.last_insert_rowid(), Appended::New(version))
        }
    };
    let active_label: Option<Option<String>> = tx
        .prepare_cached("SELECT d.label FROM active_docs a LEFT JOIN docs d ON d.id = a.doc_id WHERE a.target = ?1")
        .and_then(|mut s| s.query_row([target], |r| r.get(0)).optional())
        .map_err(Error::store(format!("reading the active doc of {target}")))?;
    let activate = match (policy, active_label) {
        (_, None) => true,
        (Policy::Always, _) => true,
        (Policy::IfSameLabelActive, Some(label)) => label.as_deref() == Some(new.label.as_str()),
        (Policy::IfNoneActive, Some(_)) => false,
    };
    if activate {
        tx.prepare_cached("INSERT INTO active_docs (target, doc_id) VALUES (?1, ?2) ON CONFLICT(target) DO UPDATE SET doc_id = excluded.doc_id")
            .and_then(|mut s| s.execute(params![target, doc_id]))
            .map_err(Error::store(format!("activating a doc of {target}")))?;
    }
    Ok(appended)
}
