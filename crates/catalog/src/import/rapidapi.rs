//! RapidAPI/ToolBench tool files: one `<tool>.json`, a `<Category>/<tool>.json`
//! folder tree, or a `.tar.gz` of such a tree read straight from the archive.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolsmith_plumbing::json::sha256_hex;

use crate::error::{Error, Result};
use crate::id::{ApiName, ToolId};
use crate::import::records::{ApiRecord, ImportBatch, ToolRecord, alias};
use crate::import::text::{self, Document, str_at};
use crate::import::{ImportOptions, collect_failures, display_path, member_path};
use crate::model::{Doc, Endpoint, HttpMethod, ListFormat, Param, ParamLocation, SecurityScheme};
use crate::names::{standardize, toolbench_function_name};

/// Reads a tool file, a folder tree or an archive.
pub(crate) fn read(path: &Path, options: &ImportOptions) -> Result<ImportBatch> {
    if path.is_dir() {
        return read_tree(path, options);
    }
    let lower = path.to_string_lossy().to_ascii_lowercase();
    if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
        return read_archive(path, options);
    }
    let doc = text::read_document(path)?;
    let mut batch = read_document(path, &doc, options)?;
    batch.source = display_path(path);
    batch.sha256 = doc.sha256;
    Ok(batch)
}

/// Reads one already-parsed tool file; its category is its folder's name.
pub(crate) fn read_document(
    path: &Path,
    doc: &Document,
    options: &ImportOptions,
) -> Result<ImportBatch> {
    let category = options
        .category
        .clone()
        .unwrap_or_else(|| category_of(path));
    let tool = tool_record(path, &doc.value, &category)?;
    Ok(ImportBatch {
        tools: vec![tool],
        ..ImportBatch::default()
    })
}

fn category_of(path: &Path) -> String {
    path.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "General".to_owned())
}

fn read_tree(root: &Path, options: &ImportOptions) -> Result<ImportBatch> {
    let mut files = Vec::new();
    collect_json_files(root, &mut files)?;
    files.sort();
    let mut batch = ImportBatch {
        source: display_path(root),
        ..ImportBatch::default()
    };
    let mut errors = Vec::new();
    let mut hasher_input = Vec::new();
    for file in files {
        let result = text::read_document(&file).and_then(|doc| {
            hasher_input.extend_from_slice(doc.sha256.as_bytes());
            tool_record(&file, &doc.value, &category_of(&file))
        });
        match result {
            Ok(tool) => batch.tools.push(tool),
            Err(e) => errors.push(e),
        }
    }
    batch.failures = collect_failures(errors, options.keep_going)?;
    batch.sha256 = sha256_hex(&hasher_input);
    Ok(batch)
}

fn collect_json_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_owned(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io {
            path: dir.to_owned(),
            source,
        })?;
        let path = entry.path();
        if path.is_dir() {
            collect_json_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

fn read_archive(path: &Path, options: &ImportOptions) -> Result<ImportBatch> {
    let archive_error = |member: &str, reason: String| Error::Archive {
        path: path.to_owned(),
        member: member.to_owned(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let sha256 = sha256_hex(&bytes);
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    let entries = archive
        .entries()
        .map_err(|e| archive_error("", e.to_string()))?;
    let mut batch = ImportBatch {
        source: display_path(path),
        sha256,
        ..ImportBatch::default()
    };
    let mut errors = Vec::new();
    let mut buf = Vec::new();
    for entry in entries {
        let mut entry = match entry {
            Ok(entry) => entry,
            // A broken stream cannot be resynchronized: stop here.
            Err(e) => {
                errors.push(archive_error("", e.to_string()));
                break;
            }
        };
        let member = entry
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !entry.header().entry_type().is_file() || !member.ends_with(".json") {
            continue;
        }
        buf.clear();
        if let Err(e) = entry.read_to_end(&mut buf) {
            errors.push(archive_error(&member, e.to_string()));
            continue;
        }
        let shown = member_path(path, &member);
        let category = category_of(Path::new(&member));
        let result =
            text::parse_json(&shown, &buf).and_then(|value| tool_record(&shown, &value, &category));
        match result {
            Ok(tool) => batch.tools.push(tool),
            Err(e) => errors.push(e),
        }
    }
    batch.failures = collect_failures(errors, options.keep_going)?;
    Ok(batch)
}

/// The key under which a RapidAPI tool is known across its sources (tool
/// files, query files, DRAFT's tool sets).
pub(crate) fn tool_key(category: &str, tool_name: &str) -> String {
    format!(
        "rapidapi:{}/{}",
        standardize(category),
        standardize(tool_name)
    )
}

/// The id a RapidAPI tool asks for: its slug, or the file's when the name has
/// no usable character.
pub(crate) fn tool_id(path: &Path, tool_name: &str) -> Result<ToolId> {
    ToolId::from_name(tool_name)
        .or_else(|_| {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            ToolId::from_name(&stem).or_else(|_| {
                ToolId::from_name(&format!(
                    "tool {}",
                    sha256_hex(tool_name.as_bytes()).get(..8).unwrap_or("0")
                ))
            })
        })
        .map_err(Error::from)
}

fn tool_record(path: &Path, value: &Value, category: &str) -> Result<ToolRecord> {
    let name = ["tool_name", "title", "name"]
        .iter()
        .map(|k| str_at(value, k).trim())
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_owned();
    if name.is_empty() {
        return Err(Error::bad(path, "#/tool_name", "tool without a name"));
    }
    let list = value
        .get("api_list")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::bad(path, "#/api_list", "no `api_list` list"))?;
    let host = str_at(value, "host").trim();
    let base_url = if host.is_empty() {
        list.iter().find_map(|api| origin(str_at(api, "url")))
    } else {
        Some(format!("https://{host}"))
    };
    let mut names = UniqueNames::default();
    let mut apis = Vec::with_capacity(list.len());
    for (i, raw) in list.iter().enumerate() {
        let at = format!("#/api_list/{i}");
        let api_name = str_at(raw, "name").trim();
        let url = str_at(raw, "url").trim();
        let method = parse_method(path, &at, str_at(raw, "method"))?;
        let endpoint = match (base_url.as_deref(), url) {
            (_, "") => Endpoint::Unlocated {
                method: Some(method),
            },
            (Some(base), url) if url.starts_with(base) => Endpoint::Http {
                method,
                path: normalize_path(&url[base.len()..]),
            },
            (_, url) => Endpoint::Http {
                method,
                path: normalize_path(url_path(url)),
            },
        };
        let params = rapid_params(path, raw, &at, endpoint.path().unwrap_or(""), method)?;
        let response_schema = raw.get("schema").and_then(schema_value);
        apis.push(ApiRecord {
            name: names.unique(api_name, i)?,
            display_name: api_name.to_owned(),
            source_name: toolbench_function_name(&name, api_name),
            endpoint,
            params,
            request_body: None,
            response_schema,
            response_examples: Vec::new(),
            access: Default::default(),
            aliases: vec![
                alias::toolbench_api(&name, api_name),
                toolbench_function_name(&name, api_name),
            ],
            doc: Some(Doc::text(str_at(raw, "description").trim())),
        });
    }
    let description = str_at(value, "tool_description").trim();
    Ok(ToolRecord {
        key: tool_key(category, &name),
        preferred_id: tool_id(path, &name)?,
        category: category.to_owned(),
        security: if host.is_empty() {
            Vec::new()
        } else {
            vec![SecurityScheme::RapidApi {
                host: host.to_owned(),
            }]
        },
        base_url,
        description: Some(description.to_owned()),
        aliases: vec![alias::toolbench_tool(&name)],
        name,
        apis,
    })
}

/// Gives each API of a tool a distinct name (sources repeat names).
#[derive(Default)]
pub(crate) struct UniqueNames(BTreeSet<String>);

impl UniqueNames {
    pub(crate) fn unique(&mut self, raw: &str, index: usize) -> Result<ApiName> {
        let base = ApiName::from_name(raw)
            .map(String::from)
            .unwrap_or_else(|_| format!("api_{}", index + 1));
        let mut name = base.clone();
        let mut n = 2;
        while !self.0.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        Ok(ApiName::try_from(name)?)
    }
}

pub(crate) fn parse_method(path: &Path, at: &str, raw: &str) -> Result<HttpMethod> {
    if raw.trim().is_empty() {
        return Ok(HttpMethod::Get);
    }
    raw.parse()
        .map_err(|e: String| Error::bad(path, format!("{at}/method"), e))
}

fn origin(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let scheme = if url.starts_with("https") {
        "https"
    } else {
        "http"
    };
    let host = rest.split('/').next().filter(|h| !h.is_empty())?;
    Some(format!("{scheme}://{host}"))
}

fn url_path(url: &str) -> &str {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url);
    match rest.find('/') {
        Some(at) if url.contains("://") => &rest[at..],
        _ => rest,
    }
}

fn normalize_path(path: &str) -> String {
    let path = path.split('?').next().unwrap_or("");
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

/// A response schema field: a JSON object with some keyword, or a string holding one.
fn schema_value(raw: &Value) -> Option<Value> {
    let value = match raw {
        Value::String(s) => serde_json::from_str(s).ok()?,
        other => other.clone(),
    };
    let map = value.as_object()?;
    let informative = map.contains_key("properties")
        || map.contains_key("items")
        || map.get("type").is_some_and(|t| t != "object");
    informative.then_some(value)
}

/// Parameters from RapidAPI's `required_parameters` and `optional_parameters`.
pub(crate) fn rapid_params(
    path: &Path,
    api: &Value,
    at: &str,
    url_path: &str,
    method: HttpMethod,
) -> Result<Vec<Param>> {
    let mut params = Vec::new();
    for (key, required) in [
        ("required_parameters", true),
        ("optional_parameters", false),
    ] {
        let Some(list) = api.get(key) else { continue };
        let Some(list) = list.as_array() else {
            return Err(Error::bad(path, format!("{at}/{key}"), "not a list"));
        };
        for (i, raw) in list.iter().enumerate() {
            let name = str_at(raw, "name").trim().to_owned();
            if name.is_empty() {
                return Err(Error::bad(
                    path,
                    format!("{at}/{key}/{i}"),
                    "parameter without a `name`",
                ));
            }
            let location = if url_path.contains(&format!("{{{name}}}")) {
                ParamLocation::Path
            } else if matches!(
                method,
                HttpMethod::Get | HttpMethod::Delete | HttpMethod::Head
            ) {
                ParamLocation::Query
            } else {
                ParamLocation::Body
            };
            let schema = raw
                .get("schema")
                .filter(|s| s.is_object())
                .cloned()
                .unwrap_or_else(|| rapid_type_schema(raw));
            params.push(Param {
                name,
                location,
                required,
                schema,
                description: str_at(raw, "description").trim().to_owned(),
                list_format: ListFormat::Repeat,
            });
        }
    }
    Ok(params)
}

/// JSON Schema for a RapidAPI parameter type (`STRING`, `NUMBER`, `ENUM`, `DATE (YYYY-MM-DD)`, ...).
fn rapid_type_schema(raw: &Value) -> Value {
    let kind = str_at(raw, "type").to_ascii_uppercase();
    let mut schema = match kind.split_whitespace().next().unwrap_or("") {
        "NUMBER" | "INTEGER" | "INT" => json!({"type": "number"}),
        "BOOLEAN" | "BOOL" => json!({"type": "boolean"}),
        "ARRAY" | "LIST" => json!({"type": "array"}),
        "OBJECT" | "JSON" | "DICT" => json!({"type": "object"}),
        "DATE" => json!({"type": "string", "format": "date"}),
        "TIME" => json!({"type": "string", "format": "time"}),
        "BINARY" | "FILE" => json!({"type": "string", "format": "binary"}),
        _ => json!({"type": "string"}),
    };
    if let Some(default) = raw
        .get("default")
        .filter(|d| !d.is_null() && d.as_str() != Some(""))
    {
        schema["default"] = default.clone();
    }
    schema
}
