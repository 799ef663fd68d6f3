//! Turns one item of the model's reply into a [`WrittenQuery`], or says why it does not fit
//! the path: every step gets exactly one call, with documented parameters only, every
//! required one, and a `$from` value pointing to an earlier step.

use serde_json::{Map, Value};
use toolsmith_catalog::Api;

use super::types::{PathStep, Phrasing, PlannedCall, WrittenQuery};

/// The item, or why it is malformed. `planned` is the phrasing its slot asked for.
pub(crate) fn written(
    item: &Value,
    steps: &[PathStep],
    planned: Phrasing,
) -> Result<WrittenQuery, String> {
    let text = item
        .get("text")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or("no \"text\"")?;
    let calls = item
        .get("calls")
        .and_then(Value::as_array)
        .ok_or("no \"calls\" list")?;
    if calls.len() != steps.len() {
        return Err(format!(
            "{} call(s) for a path of {}",
            calls.len(),
            steps.len()
        ));
    }
    let mut planned_calls = Vec::with_capacity(steps.len());
    for (index, (call, step)) in calls.iter().zip(steps).enumerate() {
        let api = &step.api.api;
        let arguments = call
            .get("arguments")
            .unwrap_or(call)
            .as_object()
            .ok_or_else(|| format!("call {}: arguments are not an object", index + 1))?;
        let arguments = checked_arguments(api, arguments, index)
            .map_err(|reason| format!("call {} ({}): {reason}", index + 1, api.id))?;
        planned_calls.push(PlannedCall {
            api: api.id.clone(),
            arguments: Value::Object(arguments),
        });
    }
    if let Some(named) = names_an_api(text, steps) {
        return Err(format!("the request names the function `{named}`"));
    }
    let phrasing = item
        .get("phrasing")
        .and_then(|p| serde_json::from_value::<Phrasing>(p.clone()).ok())
        .unwrap_or(planned);
    Ok(WrittenQuery {
        text: text.to_owned(),
        phrasing,
        calls: planned_calls,
    })
}

/// The arguments with each `$from` reference made 0-based, or what is wrong with them.
fn checked_arguments(
    api: &Api,
    arguments: &Map<String, Value>,
    index: usize,
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for (name, value) in arguments {
        // An open body's fields cannot be checked (`Api::documents_input`).
        if api.documents_input(name) == Some(false) {
            return Err(format!("unknown parameter `{name}`"));
        }
        out.insert(name.clone(), reference(value, index)?);
    }
    if let Some(missing) = api
        .params
        .iter()
        .find(|p| p.required && !out.contains_key(&p.name))
    {
        return Err(format!("required parameter `{}` missing", missing.name));
    }
    Ok(out)
}

/// A `{"$from": n, "path": p}` value with `n` (1-based in the prompt) made the 0-based index
/// of an earlier step; any other value as it is.
fn reference(value: &Value, index: usize) -> Result<Value, String> {
    let Some(from) = value.as_object().and_then(|o| o.get("$from")) else {
        return Ok(value.clone());
    };
    let step = from
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (1..=index).contains(n))
        .ok_or_else(|| format!("`$from` {from} is not an earlier call"))?;
    let path = value
        .get("path")
        .and_then(Value::as_str)
        .filter(|p| p.starts_with('.'))
        .ok_or("`$from` without a jq \"path\" such as .results[0].id")?;
    Ok(serde_json::json!({"$from": step - 1, "path": path}))
}

/// The identifier of a step's API the text spells out, if it does (a user would not).
fn names_an_api<'a>(text: &str, steps: &'a [PathStep]) -> Option<&'a str> {
    steps
        .iter()
        .find_map(|s| spells_name(text, &s.api.api.source_name))
}

/// `name` when `text` spells it out and it is a name with an underscore, longer than three
/// characters: a word a person would not write.
pub(crate) fn spells_name<'a>(text: &str, name: &'a str) -> Option<&'a str> {
    (name.contains('_') && name.len() > 3 && text.to_lowercase().contains(&name.to_lowercase()))
        .then_some(name)
}
