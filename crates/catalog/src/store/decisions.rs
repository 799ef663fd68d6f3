//! The doc decisions of the activation gate: per round and API, the candidate version, the
//! version active before, whether the candidate became active, by which rule, and the figures
//! the rule read. A round lands in one transaction with the activations it decided, so what
//! the store says was decided is what agents see; a round rolls back in one call.

use rusqlite::{OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};

use super::Store;
use crate::error::{Error, Result};
use crate::id::{ApiId, DocLabel};
use toolsmith_plumbing::sqlite::{now_ms, write_transaction};

/// What the gate did with a candidate doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionOutcome {
    /// The candidate became the active doc.
    Activated,
    /// The active doc stayed.
    Kept,
}

impl DecisionOutcome {
    /// The outcome's stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Activated => "activated",
            Self::Kept => "kept",
        }
    }

    fn parse(raw: &str) -> Result<Self> {
        match raw {
            "activated" => Ok(Self::Activated),
            "kept" => Ok(Self::Kept),
            other => Err(Error::Corrupt(format!(
                "unknown decision outcome `{other}`"
            ))),
        }
    }
}

/// What a decision rested on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// Eval queries touching the API were ranked with both docs.
    Measured,
    /// No eval query touches the API: the `--untested` policy decided.
    Untested,
}

impl Evidence {
    /// The evidence's stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Untested => "untested",
        }
    }

    fn parse(raw: &str) -> Result<Self> {
        match raw {
            "measured" => Ok(Self::Measured),
            "untested" => Ok(Self::Untested),
            other => Err(Error::Corrupt(format!(
                "unknown decision evidence `{other}`"
            ))),
        }
    }
}

/// A decision to store (and apply) in a gate round.
#[derive(Clone, Debug, PartialEq)]
pub struct NewDecision {
    /// The API whose doc was judged.
    pub api: ApiId,
    /// The candidate's label.
    pub label: DocLabel,
    /// The candidate's version.
    pub candidate: u32,
    /// What was decided.
    pub outcome: DecisionOutcome,
    /// What it rested on.
    pub evidence: Evidence,
    /// The rule as text (`sign_test alpha=0.05`).
    pub rule: String,
    /// The figures the rule read (the gate's own shape; the store keeps them as they are).
    pub figures: serde_json::Value,
}

/// A stored decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DocDecision {
    /// The gate round (one `docs gate` or `refine --gate`), counting from 1.
    pub round: u32,
    /// The API.
    pub api: ApiId,
    /// The candidate's label.
    pub label: DocLabel,
    /// The candidate's version.
    pub candidate: u32,
    /// The version active before the round (`None` when none was).
    pub previous: Option<u32>,
    /// What was decided.
    pub outcome: DecisionOutcome,
    /// What it rested on.
    pub evidence: Evidence,
    /// The rule.
    pub rule: String,
    /// The figures the rule read.
    pub figures: serde_json::Value,
    /// When it was decided, in Unix milliseconds.
    pub created_at_ms: i64,
}

/// An API whose doc a rollback switched back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// The API.
    pub api: ApiId,
    /// The version active again.
    pub version: u32,
}

const COLUMNS: &str =
    "round, target, label, candidate, previous, outcome, evidence, rule, figures, created_at_ms";

impl Store {
    /// Stores a gate round's decisions and activates the candidates it accepted, in one
    /// transaction. Returns the round's number.
    pub fn record_gate_round(&mut self, decisions: &[NewDecision]) -> Result<u32> {
        let tx =
            write_transaction(&mut self.conn).map_err(Error::store("starting a gate round"))?;
        let round: u32 = tx
            .query_row(
                "SELECT COALESCE(MAX(round), 0) + 1 FROM doc_decisions",
                [],
                |r| r.get(0),
            )
            .map_err(Error::store("numbering the gate round"))?;
        let now = now_ms();
        for d in decisions {
            let key = format!("api:{}", d.api);
            let previous = active_version(&tx, &key)?;
            let figures = serde_json::to_string(&d.figures)
                .map_err(|e| Error::Corrupt(format!("the figures of {}: {e}", d.api)))?;
            tx.execute(
                &format!("INSERT INTO doc_decisions ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
                params![round, key, d.label.as_str(), d.candidate, previous, d.outcome.as_str(),
                    d.evidence.as_str(), d.rule, figures, now],
            )
            .map_err(Error::store(format!("storing the decision on {key}")))?;
            if d.outcome == DecisionOutcome::Activated {
                set_active(&tx, &key, d.candidate)?;
            }
        }
        tx.commit()
            .map_err(Error::store("committing the gate round"))?;
        Ok(round)
    }

    /// Every decision on an API, oldest round first.
    pub fn doc_decisions(&self, api: &ApiId) -> Result<Vec<DocDecision>> {
        self.read_decisions(
            "WHERE target = ?1 ORDER BY round, id",
            &format!("api:{api}"),
        )
    }

    /// Every decision of every round, oldest first (the report's page).
    pub fn all_doc_decisions(&self) -> Result<Vec<DocDecision>> {
        self.read_decisions("WHERE ?1 = ?1 ORDER BY round, id", "")
    }

    /// The decisions of a round (the latest when `None`); empty when there is none.
    pub fn gate_round(&self, round: Option<u32>) -> Result<Vec<DocDecision>> {
        let round = match round {
            Some(r) => r,
            None => self
                .conn
                .query_row(
                    "SELECT COALESCE(MAX(round), 0) FROM doc_decisions",
                    [],
                    |r| r.get(0),
                )
                .map_err(Error::store("finding the latest gate round"))?,
        };
        self.read_decisions("WHERE round = ?1 ORDER BY id", &round.to_string())
    }

    /// Undoes a gate round: every API it switched to its candidate, and that still shows the
    /// candidate, shows its previous version again. APIs switched since are left alone.
    pub fn roll_back_gate_round(&mut self, round: u32) -> Result<Vec<Restored>> {
        let decisions = self.gate_round(Some(round))?;
        let tx = write_transaction(&mut self.conn).map_err(Error::store("starting a rollback"))?;
        let mut restored = Vec::new();
        for d in decisions {
            let key = format!("api:{}", d.api);
            let (DecisionOutcome::Activated, Some(previous)) = (d.outcome, d.previous) else {
                continue;
            };
            if active_version(&tx, &key)? == Some(d.candidate) {
                set_active(&tx, &key, previous)?;
                restored.push(Restored {
                    api: d.api,
                    version: previous,
                });
            }
        }
        tx.commit()
            .map_err(Error::store("committing the rollback"))?;
        Ok(restored)
    }

    fn read_decisions(&self, filter: &str, arg: &str) -> Result<Vec<DocDecision>> {
        self.conn
            .prepare(&format!("SELECT {COLUMNS} FROM doc_decisions {filter}"))
            .and_then(|mut s| {
                s.query_map([arg], raw_decision)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(Error::store("reading doc decisions"))?
            .into_iter()
            .map(RawDecision::into_decision)
            .collect()
    }
}

/// The version active for `key`, if any.
fn active_version(tx: &Transaction<'_>, key: &str) -> Result<Option<u32>> {
    tx.query_row(
        "SELECT d.version FROM active_docs a JOIN docs d ON d.id = a.doc_id WHERE a.target = ?1",
        [key],
        |r| r.get(0),
    )
    .optional()
    .map_err(Error::store(format!("reading the active doc of {key}")))
}

/// Makes `version` of `key` the active doc.
fn set_active(tx: &Transaction<'_>, key: &str, version: u32) -> Result<()> {
    let changed = tx
        .execute(
            "INSERT INTO active_docs (target, doc_id)
             SELECT target, id FROM docs WHERE target = ?1 AND version = ?2
             ON CONFLICT(target) DO UPDATE SET doc_id = excluded.doc_id",
            params![key, version],
        )
        .map_err(Error::store(format!("activating {key} version {version}")))?;
    if changed == 0 {
        return Err(Error::Corrupt(format!(
            "{key} has no doc version {version}"
        )));
    }
    Ok(())
}

struct RawDecision {
    round: u32,
    target: String,
    label: String,
    candidate: u32,
    previous: Option<u32>,
    outcome: String,
    evidence: String,
    rule: String,
    figures: String,
    created_at_ms: i64,
}

fn raw_decision(r: &Row<'_>) -> rusqlite::Result<RawDecision> {
    Ok(RawDecision {
        round: r.get(0)?,
        target: r.get(1)?,
        label: r.get(2)?,
        candidate: r.get(3)?,
        previous: r.get(4)?,
        outcome: r.get(5)?,
        evidence: r.get(6)?,
        rule: r.get(7)?,
        figures: r.get(8)?,
        created_at_ms: r.get(9)?,
    })
}

impl RawDecision {
    fn into_decision(self) -> Result<DocDecision> {
        let api = self.target.strip_prefix("api:").unwrap_or(&self.target);
        Ok(DocDecision {
            round: self.round,
            api: api.parse()?,
            label: self.label.parse()?,
            candidate: self.candidate,
            previous: self.previous,
            outcome: DecisionOutcome::parse(&self.outcome)?,
            evidence: Evidence::parse(&self.evidence)?,
            rule: self.rule,
            figures: serde_json::from_str(&self.figures)
                .map_err(|e| Error::Corrupt(format!("the figures of {}: {e}", self.target)))?,
            created_at_ms: self.created_at_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Activate, Doc, DocTarget, ImportOptions, NewDoc, read_bytes};

    fn store_with_candidate() -> (Store, ApiId) {
        let spec = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
          "paths": {"/search/movie": {"get": {"summary": "Search movies",
            "responses": {"200": {"description": "ok"}}}}}}"#;
        let batch =
            read_bytes("movies.json".as_ref(), spec, &ImportOptions::default()).expect("spec");
        let mut store = Store::in_memory().expect("store");
        store
            .import(&batch, Activate::IfNoneActive)
            .expect("import");
        let api: ApiId = "movies/get_search_movie".parse().expect("id");
        let doc = NewDoc {
            label: "easytool".parse().expect("label"),
            source: "test".to_owned(),
            doc: Doc::text("Find movies by their title".to_owned()),
        };
        store
            .add_doc(&DocTarget::Api(api.clone()), doc, Activate::IfNoneActive)
            .expect("candidate");
        (store, api)
    }

    fn decision(api: &ApiId, outcome: DecisionOutcome) -> NewDecision {
        NewDecision {
            api: api.clone(),
            label: "easytool".parse().expect("label"),
            candidate: 2,
            outcome,
            evidence: Evidence::Measured,
            rule: "sign_test alpha=0.05".to_owned(),
            figures: serde_json::json!({"queries": 3}),
        }
    }

    fn active(store: &Store, api: &ApiId) -> u32 {
        let history = store
            .doc_history(&DocTarget::Api(api.clone()))
            .expect("history");
        history
            .iter()
            .find(|v| v.active)
            .map(|v| v.version)
            .unwrap_or(0)
    }

    #[test]
    fn a_round_stores_its_decisions_and_activates_only_what_it_accepted() {
        let (mut store, api) = store_with_candidate();
        let round = store
            .record_gate_round(&[decision(&api, DecisionOutcome::Kept)])
            .expect("round");
        assert_eq!((round, active(&store, &api)), (1, 1));
        let round = store
            .record_gate_round(&[decision(&api, DecisionOutcome::Activated)])
            .expect("round");
        assert_eq!((round, active(&store, &api)), (2, 2));
        let stored = store.doc_decisions(&api).expect("decisions");
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[1].previous, Some(1));
        assert_eq!(stored[1].outcome, DecisionOutcome::Activated);
        assert_eq!(stored[1].figures["queries"], 3);
        assert_eq!(store.gate_round(None).expect("latest")[0].round, 2);
    }

    #[test]
    fn rolling_back_a_round_restores_the_previous_doc() {
        let (mut store, api) = store_with_candidate();
        let round = store
            .record_gate_round(&[decision(&api, DecisionOutcome::Activated)])
            .expect("round");
        assert_eq!(active(&store, &api), 2);
        let restored = store.roll_back_gate_round(round).expect("rollback");
        assert_eq!(
            restored,
            vec![Restored {
                api: api.clone(),
                version: 1
            }]
        );
        assert_eq!(active(&store, &api), 1);
        // A second rollback finds nothing left to undo.
        assert!(store.roll_back_gate_round(round).expect("again").is_empty());
    }
}
