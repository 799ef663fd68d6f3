//! FuncQA (ToolkenGPT; EasyTool evaluates on it): arithmetic word problems over 13 operators,
//! one-hop (one call) and multi-hop (a chain of calls).
//!
//! File formats, a JSON array of either shape (both may appear in one file):
//! - one-hop (`funcqa/funcqa_oh.json`): `{question, answer, func}` where `func` records the
//!   solving call, `<power>(0.89, 8)=0.3936`, possibly negated (`-<ln>(0.5)=0.6931`);
//! - multi-hop (ToolkenGPT's `funcqa_mh.json`): `{question, answer, calculation}` where
//!   `calculation` lists the calls in order (`["<power>(0.97,3)=0.912673", ...]`).
//!
//! `answer` is a number or a numeric string. An argument may be an arithmetic expression
//! (`<multiply>(13.824,4/3, 3.14)=57.8765`), and the recorded calls carry the file's own slips
//! (`<divide>(12,12.56))=0.9554`, one `)` too many), which are read as meant.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::dataset::read::{bad, read_items};
use crate::error::Result;

/// One FuncQA question.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FuncQaItem {
    /// Position in the file, from 0 (the file has no ids).
    pub id: String,
    /// The word problem.
    pub question: String,
    /// The gold number.
    pub answer: f64,
    /// The calls that solve it, in order (one for a one-hop question).
    pub calls: Vec<FuncQaCall>,
}

/// The solving call recorded with a FuncQA item.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FuncQaCall {
    /// The operator's name without brackets (`power`, `lcm`, ...).
    pub function: String,
    /// Its arguments, in order.
    pub arguments: Vec<f64>,
    /// Whether the result is negated (`-<log>(...)`).
    pub negated: bool,
    /// The result the file states.
    pub result: f64,
}

impl FuncQaCall {
    /// Reads `[-]<name>(a, b, ...)=result`, each argument a number or an arithmetic
    /// expression of numbers (`4/3`, `12*2.0933`); stray closing brackets before `=` are
    /// ignored. `None` when the text has another shape.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (negated, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let rest = rest.strip_prefix('<')?;
        let (function, rest) = rest.split_once('>')?;
        let rest = rest.trim_start().strip_prefix('(')?;
        let (args, result) = rest.rsplit_once('=')?;
        let args = args.trim_end().strip_suffix(')')?;
        let args = args.trim_end_matches(|c: char| c == ')' || c.is_whitespace());
        let result = super::expression::evaluate(result)?;
        let arguments = args
            .split(',')
            .map(super::expression::evaluate)
            .collect::<Option<Vec<_>>>()?;
        let valid_name = !function.is_empty()
            && function
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        valid_name.then(|| Self {
            function: function.to_owned(),
            arguments,
            negated,
            result,
        })
    }
}

/// Reads a FuncQA file.
pub fn load_funcqa(path: &Path) -> Result<Vec<FuncQaItem>> {
    parse_items(path, &read_items(path)?)
}

/// The tool of FuncQA's operations in the catalog (`toolsmith_exec::NativeTools::FUNCQA`).
pub(crate) const FUNCQA_TOOL: &str = "funcqa";

/// Whether a file's first item looks like FuncQA's (`question`, `answer`, and `func` or
/// `calculation`).
pub(crate) fn looks_like(item: &Value) -> bool {
    ["question", "answer"].iter().all(|f| item.get(f).is_some())
        && (item.get(FUNC).is_some() || item.get(CALCULATION).is_some())
}

/// The one-hop file's field for the solving call.
const FUNC: &str = "func";
/// The multi-hop file's field for the solving calls.
const CALCULATION: &str = "calculation";

impl FuncQaItem {
    /// The item as a benchmark query: its gold path is the solving calls in order (APIs of
    /// the built-in tool `funcqa`), its gold answer the number.
    pub fn to_query(&self) -> crate::dataset::query::Query {
        crate::dataset::query::Query {
            id: self.id.clone(),
            text: self.question.clone(),
            gold: self
                .calls
                .iter()
                .map(|c| {
                    crate::dataset::query::GoldApi::Named(format!("{FUNCQA_TOOL}/{}", c.function))
                })
                .collect(),
            candidates: Vec::new(),
            answer: Some(self.answer),
        }
    }
}

/// Reads FuncQA items already parsed as JSON.
pub(crate) fn parse_items(path: &Path, items: &[Value]) -> Result<Vec<FuncQaItem>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_item(path, i, item))
        .collect()
}

/// Reads item `i`: one-hop (`func`) or multi-hop (`calculation`).
fn parse_item(path: &Path, i: usize, item: &Value) -> Result<FuncQaItem> {
    let field = |name: &str| {
        item.get(name)
            .ok_or_else(|| bad(path, format!("item {i}: no `{name}`")))
    };
    let question = field("question")?
        .as_str()
        .ok_or_else(|| bad(path, format!("item {i}: `question` is not text")))?
        .trim()
        .to_owned();
    let answer = match field("answer")? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| bad(path, format!("item {i}: `answer` is not a number")))?;
    let recorded: Vec<&str> = match (item.get(FUNC), item.get(CALCULATION)) {
        (Some(func), _) => vec![func.as_str().unwrap_or_default()],
        (None, Some(Value::Array(steps))) => steps
            .iter()
            .map(|s| s.as_str().unwrap_or_default())
            .collect(),
        (None, Some(_)) => {
            return Err(bad(path, format!("item {i}: `calculation` is not a list")));
        }
        (None, None) => {
            return Err(bad(path, format!("item {i}: no `func` or `calculation`")));
        }
    };
    if recorded.is_empty() {
        return Err(bad(path, format!("item {i}: `calculation` is empty")));
    }
    let calls = recorded
        .iter()
        .map(|text| {
            FuncQaCall::parse(text)
                .ok_or_else(|| bad(path, format!("item {i}: cannot read the call {text:?}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(FuncQaItem {
        id: i.to_string(),
        question,
        answer,
        calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_parsed_with_sign_and_spacing_variants() {
        assert_eq!(
            FuncQaCall::parse("<power>(0.89, 8)=0.3936"),
            Some(FuncQaCall {
                function: "power".into(),
                arguments: vec![0.89, 8.0],
                negated: false,
                result: 0.3936,
            })
        );
        let c = FuncQaCall::parse("-<ln>(0.5)=0.6931");
        assert_eq!(
            c.as_ref().map(|c| (c.negated, c.arguments.len())),
            Some((true, 1))
        );
        let c = FuncQaCall::parse("<gcd>(6644,7248,906)=302");
        assert_eq!(c.map(|c| c.arguments), Some(vec![6644.0, 7248.0, 906.0]));
        // Expressions as arguments, and the multi-hop file's extra bracket.
        let c = FuncQaCall::parse("<multiply>(13.824,4/3, 3.14)=57.8765");
        let args = c.map(|c| c.arguments).unwrap_or_default();
        assert!((args[1] - 4.0 / 3.0).abs() < 1e-12 && args.len() == 3);
        let c = FuncQaCall::parse("<divide>(12,12.56))=0.9554");
        assert_eq!(c.map(|c| c.arguments), Some(vec![12.0, 12.56]));
        let c = FuncQaCall::parse("<log>(0.0003162)=-3.5");
        assert_eq!(c.map(|c| c.result), Some(-3.5));
        let c = FuncQaCall::parse("<multiply>(12*2.0933)=25.12");
        assert_eq!(c.map(|c| c.arguments.len()), Some(1));
        for bad in [
            "power(2, 3)=8",
            "<power>(2, 3/)=8",
            "<power>(2, x)=8",
            "<power>(2, 3)",
            "<>(1)=1",
            "",
        ] {
            assert_eq!(FuncQaCall::parse(bad), None, "{bad}");
        }
    }
}
