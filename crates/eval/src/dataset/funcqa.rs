//! FuncQA one-hop (ToolkenGPT; EasyTool evaluates on it): arithmetic word problems, each
//! answered by one call of one of 13 operators.
//!
//! File format (`funcqa/funcqa_oh.json` and any file like it): a JSON array of
//! `{question, answer, func}` where `answer` is a number (one item has it as a numeric string)
//! and `func` records the solving call, `<power>(0.89, 8)=0.3936`, possibly negated
//! (`-<ln>(0.5)=0.6931`).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::dataset::{bad, read_items};
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
    /// The call that solves it.
    pub call: FuncQaCall,
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
    /// Reads `[-]<name>(a, b, ...)=result`; `None` when the text has another shape.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let (negated, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let rest = rest.strip_prefix('<')?;
        let (function, rest) = rest.split_once('>')?;
        let rest = rest.trim_start().strip_prefix('(')?;
        let (args, rest) = rest.split_once(')')?;
        let result = rest.trim_start().strip_prefix('=')?.trim().parse().ok()?;
        let arguments = args
            .split(',')
            .map(|a| a.trim().parse::<f64>().ok())
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

/// Whether a file's first item looks like FuncQA's (`question`, `answer` and `func`).
pub(crate) fn looks_like(item: &Value) -> bool {
    ["question", "answer", "func"]
        .iter()
        .all(|f| item.get(f).is_some())
}

impl FuncQaItem {
    /// The item as a benchmark query: its gold path is the one solving call (an API of the
    /// built-in tool `funcqa`), its gold answer the number.
    pub fn to_query(&self) -> crate::dataset::Query {
        crate::dataset::Query {
            id: self.id.clone(),
            text: self.question.clone(),
            gold: vec![crate::dataset::GoldApi::Named(format!(
                "{FUNCQA_TOOL}/{}",
                self.call.function
            ))],
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
        .map(|(i, item)| {
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
            let func = field("func")?.as_str().unwrap_or_default();
            let call = FuncQaCall::parse(func)
                .ok_or_else(|| bad(path, format!("item {i}: cannot read `func` {func:?}")))?;
            Ok(FuncQaItem {
                id: i.to_string(),
                question,
                answer,
                call,
            })
        })
        .collect()
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
        for bad in [
            "power(2, 3)=8",
            "<power>(2, x)=8",
            "<power>(2, 3)",
            "<>(1)=1",
            "",
        ] {
            assert_eq!(FuncQaCall::parse(bad), None, "{bad}");
        }
    }
}
