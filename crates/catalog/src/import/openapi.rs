//! OpenAPI 3.0/3.1 and Swagger 2.0 importer. No maintained crate reads all
//! three alike, so this walks the document as JSON: paths and methods,
//! path- and operation-level parameters, request bodies, the success
//! response's schema and examples, servers and security schemes.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::id::{ApiName, ToolId};
use crate::import::ImportOptions;
use crate::import::records::{ApiRecord, ImportBatch, ToolRecord};
use crate::import::schema::Resolver;
use crate::import::security::Requirements;
use crate::import::text::{pointer_escape, str_at};
use crate::model::{Doc, Endpoint, HttpMethod, ListFormat, Param, ParamLocation, SecurityScheme};
use crate::names::{draft_endpoint_name, restgpt_endpoint_name};

/// The OpenAPI extension naming the toolsmith tool a spec describes (written by our exporter).
pub(crate) const X_TOOL: &str = "x-toolsmith-tool";
/// The OpenAPI extension holding an operation's real path when its key was disambiguated.
pub(crate) const X_PATH: &str = "x-toolsmith-path";
/// The OpenAPI extension naming the tool's category.
pub(crate) const X_CATEGORY: &str = "x-toolsmith-category";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Swagger2,
    OpenApi3,
}

pub(crate) fn read(path: &Path, spec: &Value, options: &ImportOptions) -> Result<ImportBatch> {
    let dialect = dialect(path, spec)?;
    let resolver = Resolver::new(spec, path);
    let info = spec.get("info").cloned().unwrap_or(Value::Null);

    let tool_name = options
        .tool
        .clone()
        .or_else(|| info.get(X_TOOL).and_then(Value::as_str).map(str::to_owned))
        .or_else(|| tool_name_from_title(str_at(&info, "title")))
        .unwrap_or_else(|| tool_name_from_file(path));
    let id =
        ToolId::from_name(&tool_name).map_err(|e| Error::bad(path, "#/info", e.to_string()))?;
    let category = options
        .category
        .clone()
        .or_else(|| {
            info.get(X_CATEGORY)
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "General".to_owned());
    let title = str_at(&info, "title").trim();
    let description = [str_at(&info, "description").trim(), title]
        .into_iter()
        .find(|s| !s.is_empty())
        .map(str::to_owned);

    let schemes = security_schemes(dialect, spec);
    let requirements = Requirements::new(spec, &schemes);
    let mut apis: Vec<ApiRecord> = Vec::new();
    let mut seen: BTreeMap<ApiName, String> = BTreeMap::new();
    let paths = spec
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::bad(path, "#/paths", "no `paths` object"))?;
    for (route, item) in paths {
        let item_at = format!("#/paths/{}", pointer_escape(route));
        let (item, _) = resolver.deref(item, &item_at)?;
        let shared = item.get("parameters");
        for method in HttpMethod::ALL {
            let key = method.as_str().to_ascii_lowercase();
            let Some(op) = item.get(&key) else { continue };
            let at = format!("{item_at}/{key}");
            // Multi-file specs (DigitalOcean's) make whole operations references.
            let (op, _) = resolver.deref(op, &at)?;
            let site = OperationSite {
                method,
                route,
                op,
                shared,
                at: &at,
            };
            let mut api = operation(&resolver, dialect, site)?;
            api.access.security = requirements.of(op);
            if let Some(first) = seen.insert(api.name.clone(), at.clone()) {
                return Err(Error::bad(
                    path,
                    &at,
                    format!(
                        "duplicate operation `{}`: also defined at {first}",
                        api.source_name
                    ),
                ));
            }
            apis.push(api);
        }
    }

    let tool = ToolRecord {
        key: format!("openapi:{id}"),
        preferred_id: id,
        name: if title.is_empty() || title.eq_ignore_ascii_case("api") {
            tool_name.clone()
        } else {
            title.to_owned()
        },
        category,
        base_url: base_url(dialect, spec),
        security: schemes,
        description,
        aliases: vec![tool_name],
        apis,
    };
    Ok(ImportBatch {
        tools: vec![tool],
        ..ImportBatch::default()
    })
}

fn dialect(path: &Path, spec: &Value) -> Result<Dialect> {
    if let Some(v) = spec.get("swagger") {
        return match v.as_str() {
            Some(v) if v.starts_with("2.") => Ok(Dialect::Swagger2),
            _ => Err(Error::bad(
                path,
                "#/swagger",
                format!("unsupported Swagger version {v}"),
            )),
        };
    }
    match spec.get("openapi").and_then(Value::as_str) {
        Some(v) if v.starts_with("3.") => Ok(Dialect::OpenApi3),
        Some(v) => Err(Error::bad(
            path,
            "#/openapi",
            format!("unsupported OpenAPI version {v}"),
        )),
        None => Err(Error::bad(
            path,
            "#",
            "neither `openapi` nor `swagger` version field",
        )),
    }
}

/// Words that say nothing about which API a title names, dropped from its ends.
const GENERIC_TITLE_WORDS: [&str; 22] = [
    "a",
    "an",
    "the",
    "my",
    "api",
    "apis",
    "rest",
    "restful",
    "openapi",
    "swagger",
    "spec",
    "specification",
    "service",
    "server",
    "example",
    "sample",
    "demo",
    "test",
    "untitled",
    "documentation",
    "docs",
    "version",
];

/// The tool name a spec's `info.title` gives, when it is specific: its slug without
/// generic words or version numbers at either end (`Example Library` -> `library`,
/// `Swagger Petstore - OpenAPI 3.0` -> `petstore`). `None` for titles such as TMDB's
/// `API`, or ones shorter than three characters, so the file or URL name is used.
fn tool_name_from_title(title: &str) -> Option<String> {
    let slug = crate::names::slug(title);
    let words: Vec<&str> = slug.split('_').filter(|w| !w.is_empty()).collect();
    let filler = |w: &&str| {
        GENERIC_TITLE_WORDS.contains(w)
            || w.chars().all(|c| c.is_ascii_digit())
            || w.strip_prefix('v')
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let start = words.iter().position(|w| !filler(w))?;
    let end = words.iter().rposition(|w| !filler(w))?;
    let name = words.get(start..=end)?.join("_");
    (name.len() >= 3).then_some(name)
}

/// `tmdb_oas.json` -> `tmdb`; `petstore.openapi.yaml` -> `petstore`; for a URL, its last
/// path segment (`https://host/specs/petstore.json` -> `petstore`), or its host when that
/// segment is generic (`https://example.com/openapi.json` -> `example_com`).
fn tool_name_from_file(path: &Path) -> String {
    let text = path.to_string_lossy();
    if let Some((_, rest)) = text.split_once("://") {
        let rest = rest.split(['?', '#']).next().unwrap_or_default();
        let host = rest.split('/').next().unwrap_or_default();
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let host = host.split(':').next().unwrap_or(host);
        let last = rest
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default();
        let stem = if last == rest { "" } else { last };
        let name = tool_name_from_file(Path::new(stem));
        let generic = [
            "api", "openapi", "swagger", "spec", "index", "docs", "v1", "v2", "v3",
        ];
        return if generic.contains(&name.to_ascii_lowercase().as_str()) && !host.is_empty() {
            host.to_owned()
        } else {
            name
        };
    }

    let stem = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut stem = stem.split('.').next().unwrap_or_default().to_owned();
    for suffix in [
        "_oas", "-oas", "_openapi", "-openapi", "_swagger", "-swagger", "_spec", "-spec",
    ] {
        if let Some(s) = stem.strip_suffix(suffix) {
            stem = s.to_owned();
        }
    }
    if stem.is_empty() {
        "api".to_owned()
    } else {
        stem
    }
}

/// One operation of a spec where the importer meets it: its method and route, its object,
/// the parameters its path item shares with the other operations, and its JSON pointer.
#[derive(Clone, Copy)]
struct OperationSite<'a> {
    method: HttpMethod,
    route: &'a str,
    op: &'a Value,
    shared: Option<&'a Value>,
    at: &'a str,
}

fn operation(
    resolver: &Resolver<'_>,
    dialect: Dialect,
    site: OperationSite<'_>,
) -> Result<ApiRecord> {
    let OperationSite {
        method,
        route,
        op,
        shared,
        at,
    } = site;
    let path = resolver.path();
    // Our exporter keys a second API on one method and path `{path}#{api}` and keeps the
    // real path here, so an exported spec imports back to the same endpoints.
    let route = op.get(X_PATH).and_then(Value::as_str).unwrap_or(route);
    let operation_id = str_at(op, "operationId").trim();
    let restgpt = restgpt_endpoint_name(method.as_str(), route);
    let source_name = if operation_id.is_empty() {
        restgpt.clone()
    } else {
        operation_id.to_owned()
    };
    let name_source = if operation_id.is_empty() {
        format!("{}{}", method.as_str(), route)
    } else {
        operation_id.to_owned()
    };
    let name = ApiName::from_name(&name_source).map_err(|e| Error::bad(path, at, e.to_string()))?;

    // Operation-level parameters override path-level ones with the same name and location.
    let mut params: Vec<Param> = Vec::new();
    let mut request_body: Option<Value> = None;
    let mut form: Vec<Param> = Vec::new();
    let item_at = at.rsplit_once('/').map_or(at, |(item, _)| item);
    let lists = [
        (shared, format!("{item_at}/parameters")),
        (op.get("parameters"), format!("{at}/parameters")),
    ];
    for (list, list_at) in lists {
        let Some(list) = list else { continue };
        let items = list
            .as_array()
            .ok_or_else(|| Error::bad(path, &list_at, "`parameters` is not a list"))?;
        for (i, raw) in items.iter().enumerate() {
            let param_at = format!("{list_at}/{i}");
            let (raw, _) = resolver.deref(raw, &param_at)?;
            match parameter(resolver, dialect, raw, &param_at)? {
                ParamOrBody::Param(p) => {
                    let target = if p.location == ParamLocation::Body {
                        &mut form
                    } else {
                        &mut params
                    };
                    target.retain(|q| !(q.name == p.name && q.location == p.location));
                    target.push(p);
                }
                ParamOrBody::Body(schema) => request_body = Some(schema),
            }
        }
    }
    if let Some(body) = op.get("requestBody") {
        let body_at = format!("{at}/requestBody");
        let (body, _) = resolver.deref(body, &body_at)?;
        if let Some((media, media_at)) =
            pick_media(body.get("content"), &format!("{body_at}/content"))
            && let Some(schema) = media.get("schema")
        {
            request_body = Some(resolver.schema(schema, &format!("{media_at}/schema"))?);
        }
        if let (Some(schema), true) = (&request_body, is_set(body.get("required"))) {
            // Remember that the body as a whole is required.
            let mut schema = schema.clone();
            if let Value::Object(map) = &mut schema {
                map.insert(crate::repair::BODY_REQUIRED.to_owned(), Value::Bool(true));
            }
            request_body = Some(schema);
        }
    }
    if !form.is_empty() {
        request_body = Some(form_schema(&form));
    }
    params.extend(form);
    if let Some(schema) = &request_body {
        params.extend(body_params(schema, &params));
    }

    let (response_schema, response_examples) = success_response(resolver, dialect, op, at)?;
    let summary = str_at(op, "summary").trim();
    let description = str_at(op, "description").trim();
    let doc_text = if description.is_empty() {
        summary
    } else {
        description
    };

    let mut aliases = vec![
        source_name.clone(),
        restgpt,
        draft_endpoint_name(method.as_str(), route),
        name.to_string(),
    ];
    aliases.dedup();
    Ok(ApiRecord {
        display_name: if summary.is_empty() {
            source_name.clone()
        } else {
            summary.to_owned()
        },
        name,
        source_name,
        endpoint: Endpoint::Http {
            method,
            path: route.to_owned(),
        },
        params,
        request_body,
        response_schema,
        response_examples,
        access: Default::default(),
        aliases,
        doc: Some(Doc::text(doc_text)),
    })
}

enum ParamOrBody {
    Param(Param),
    Body(Value),
}

fn parameter(
    resolver: &Resolver<'_>,
    dialect: Dialect,
    raw: &Value,
    at: &str,
) -> Result<ParamOrBody> {
    let path = resolver.path();
    let name = str_at(raw, "name").to_owned();
    if name.is_empty() {
        return Err(Error::bad(path, at, "parameter without a `name`"));
    }
    let location = match str_at(raw, "in") {
        "path" => ParamLocation::Path,
        "query" => ParamLocation::Query,
        "header" => ParamLocation::Header,
        "cookie" => ParamLocation::Cookie,
        "formData" if dialect == Dialect::Swagger2 => ParamLocation::Body,
        "body" if dialect == Dialect::Swagger2 => {
            let schema = raw
                .get("schema")
                .ok_or_else(|| Error::bad(path, at, "body parameter without a `schema`"))?;
            return Ok(ParamOrBody::Body(
                resolver.schema(schema, &format!("{at}/schema"))?,
            ));
        }
        other => {
            return Err(Error::bad(
                path,
                at,
                format!("parameter `{name}` has unknown location `{other}`"),
            ));
        }
    };
    let schema = match (raw.get("schema"), raw.get("content")) {
        (Some(schema), _) => resolver.schema(schema, &format!("{at}/schema"))?,
        (None, Some(content)) => match pick_media(Some(content), &format!("{at}/content")) {
            Some((media, media_at)) => match media.get("schema") {
                Some(schema) => resolver.schema(schema, &format!("{media_at}/schema"))?,
                None => json!({}),
            },
            None => json!({}),
        },
        // Swagger 2.0 (and sloppy 3.x) put the schema keywords on the parameter itself.
        (None, None) => {
            let keys = [
                "type",
                "format",
                "items",
                "enum",
                "default",
                "minimum",
                "maximum",
                "pattern",
                "minLength",
                "maxLength",
            ];
            let map: Map<String, Value> = keys
                .iter()
                .filter_map(|k| raw.get(*k).map(|v| ((*k).to_owned(), v.clone())))
                .collect();
            resolver.schema(&Value::Object(map), at)?
        }
    };
    let required = location == ParamLocation::Path || is_set(raw.get("required"));
    // Many specs (Spotify's among them) describe a parameter only inside its schema.
    let description = [str_at(raw, "description"), str_at(&schema, "description")]
        .into_iter()
        .map(str::trim)
        .find(|d| !d.is_empty())
        .unwrap_or_default()
        .to_owned();
    Ok(ParamOrBody::Param(Param {
        name,
        location,
        required,
        schema,
        description,
        list_format: list_format(raw, dialect, location),
    }))
}

/// Whether a spec's flag is set ([`crate::repair::flag`]: a boolean or `"true"` as text).
fn is_set(value: Option<&Value>) -> bool {
    value.and_then(crate::repair::flag).unwrap_or(false)
}

/// How a query parameter's list value goes on the wire: OpenAPI 3's `style` and `explode`
/// (`form` explodes by default, the delimited styles do not), or Swagger 2's
/// `collectionFormat` (whose default is `csv`).
fn list_format(raw: &Value, dialect: Dialect, location: ParamLocation) -> ListFormat {
    if location != ParamLocation::Query {
        return ListFormat::Repeat;
    }
    let explode = raw.get("explode").and_then(crate::repair::flag);
    match dialect {
        Dialect::Swagger2 => match str_at(raw, "collectionFormat") {
            "multi" => ListFormat::Repeat,
            "ssv" => ListFormat::Space,
            "pipes" => ListFormat::Pipe,
            _ => ListFormat::Comma,
        },
        Dialect::OpenApi3 => match (str_at(raw, "style"), explode) {
            ("spaceDelimited", Some(true)) | ("pipeDelimited", Some(true)) => ListFormat::Repeat,
            ("spaceDelimited", _) => ListFormat::Space,
            ("pipeDelimited", _) => ListFormat::Pipe,
            ("" | "form", Some(false)) => ListFormat::Comma,
            _ => ListFormat::Repeat,
        },
    }
}

/// The top-level properties of an object body, offered as `body` parameters
/// so that agents can fill them like any other argument.
fn body_params(schema: &Value, existing: &[Param]) -> Vec<Param> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .filter(|(name, _)| {
            !existing
                .iter()
                .any(|p| p.location == ParamLocation::Body && &p.name == *name)
        })
        .map(|(name, prop)| Param {
            name: name.clone(),
            location: ParamLocation::Body,
            required: required.contains(&name.as_str()),
            description: str_at(prop, "description").trim().to_owned(),
            schema: prop.clone(),
            list_format: ListFormat::Repeat,
        })
        .collect()
}

fn form_schema(form: &[Param]) -> Value {
    let properties: Map<String, Value> = form
        .iter()
        .map(|p| (p.name.clone(), p.schema.clone()))
        .collect();
    let required: Vec<&str> = form
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    json!({ "type": "object", "properties": properties, "required": required })
}

/// The JSON media type of a `content` map, else its first one.
fn pick_media<'v>(content: Option<&'v Value>, at: &str) -> Option<(&'v Value, String)> {
    let content = content?.as_object()?;
    let (mime, media) = content
        .iter()
        .find(|(mime, _)| mime.starts_with("application/json"))
        .or_else(|| content.iter().find(|(mime, _)| mime.contains("json")))
        .or_else(|| content.iter().next())?;
    Some((media, format!("{at}/{}", pointer_escape(mime))))
}

/// Schema and examples of the first success response (`200`, `201`, ..., `2XX`, then `default`).
fn success_response(
    resolver: &Resolver<'_>,
    dialect: Dialect,
    op: &Value,
    at: &str,
) -> Result<(Option<Value>, Vec<Value>)> {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return Ok((None, Vec::new()));
    };
    let mut codes: Vec<&String> = responses.keys().filter(|c| c.starts_with('2')).collect();
    codes.sort();
    let Some(code) = codes
        .first()
        .copied()
        .or_else(|| responses.keys().find(|c| c.as_str() == "default"))
    else {
        return Ok((None, Vec::new()));
    };
    let response_at = format!("{at}/responses/{}", pointer_escape(code));
    let Some(raw) = responses.get(code) else {
        return Ok((None, Vec::new()));
    };
    let (response, _) = resolver.deref(raw, &response_at)?;
    let mut examples = Vec::new();
    let schema = match dialect {
        Dialect::Swagger2 => {
            if let Some(map) = response.get("examples").and_then(Value::as_object) {
                examples.extend(
                    map.iter()
                        .filter(|(m, _)| m.contains("json"))
                        .map(|(_, v)| v.clone()),
                );
            }
            match response.get("schema") {
                Some(s) => Some(resolver.schema(s, &format!("{response_at}/schema"))?),
                None => None,
            }
        }
        Dialect::OpenApi3 => {
            match pick_media(response.get("content"), &format!("{response_at}/content")) {
                Some((media, media_at)) => {
                    if let Some(example) = media.get("example") {
                        examples.push(example.clone());
                    }
                    if let Some(map) = media.get("examples").and_then(Value::as_object) {
                        for (name, example) in map {
                            let example_at =
                                format!("{media_at}/examples/{}", pointer_escape(name));
                            let (example, _) = resolver.deref(example, &example_at)?;
                            if let Some(value) = example.get("value") {
                                examples.push(value.clone());
                            }
                        }
                    }
                    match media.get("schema") {
                        Some(s) => Some(resolver.schema(s, &format!("{media_at}/schema"))?),
                        None => None,
                    }
                }
                None => None,
            }
        }
    };
    let body_less = match dialect {
        Dialect::Swagger2 => response.get("schema").is_none(),
        Dialect::OpenApi3 => response
            .get("content")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty),
    };
    let schema = match (schema, code.parse::<u16>()) {
        (None, Ok(status @ (202 | 204 | 205))) if body_less && examples.is_empty() => {
            Some(crate::lint::no_content_schema(status))
        }
        // A documented 201/202/...: the simulator and exports answer with it, not 200.
        (Some(Value::Object(mut schema)), Ok(status @ 201..=299)) => {
            schema.insert(crate::lint::SUCCESS_STATUS.to_owned(), status.into());
            Some(Value::Object(schema))
        }
        (schema, _) => schema,
    };
    if let Some(example) = schema.as_ref().and_then(|s| s.get("example"))
        && examples.is_empty()
    {
        examples.push(example.clone());
    }
    Ok((schema, examples))
}

fn base_url(dialect: Dialect, spec: &Value) -> Option<String> {
    match dialect {
        Dialect::Swagger2 => {
            let host = spec.get("host").and_then(Value::as_str)?;
            let scheme = spec
                .get("schemes")
                .and_then(Value::as_array)
                .and_then(|s| s.first())
                .and_then(Value::as_str)
                .unwrap_or("https");
            Some(format!(
                "{scheme}://{host}{}",
                str_at(spec, "basePath").trim_end_matches('/')
            ))
        }
        Dialect::OpenApi3 => {
            let server = spec.get("servers")?.as_array()?.first()?;
            let mut url = str_at(server, "url").trim().to_owned();
            if let Some(vars) = server.get("variables").and_then(Value::as_object) {
                for (name, var) in vars {
                    url = url.replace(&format!("{{{name}}}"), str_at(var, "default"));
                }
            }
            (!url.is_empty()).then(|| url.trim_end_matches('/').to_owned())
        }
    }
}

fn security_schemes(dialect: Dialect, spec: &Value) -> Vec<SecurityScheme> {
    let schemes = match dialect {
        Dialect::Swagger2 => spec.get("securityDefinitions"),
        Dialect::OpenApi3 => spec.pointer("/components/securitySchemes"),
    };
    let Some(schemes) = schemes.and_then(Value::as_object) else {
        return Vec::new();
    };
    schemes
        .iter()
        .filter_map(|(scheme, def)| {
            let scheme = scheme.clone();
            match (
                str_at(def, "type"),
                str_at(def, "scheme").to_ascii_lowercase().as_str(),
            ) {
                ("apiKey", _) => {
                    let location = match str_at(def, "in") {
                        "query" => ParamLocation::Query,
                        "cookie" => ParamLocation::Cookie,
                        _ => ParamLocation::Header,
                    };
                    Some(SecurityScheme::ApiKey {
                        scheme,
                        name: str_at(def, "name").to_owned(),
                        location,
                    })
                }
                ("http", "basic") | ("basic", _) => Some(SecurityScheme::Basic { scheme }),
                ("http", _) | ("oauth2", _) | ("openIdConnect", _) => {
                    Some(SecurityScheme::Bearer { scheme })
                }
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specific_titles_name_the_tool_and_generic_ones_do_not() {
        assert_eq!(
            tool_name_from_title("Example Library").as_deref(),
            Some("library")
        );
        assert_eq!(
            tool_name_from_title("Swagger Petstore - OpenAPI 3.0").as_deref(),
            Some("petstore")
        );
        assert_eq!(tool_name_from_title("TMDB API v3").as_deref(), Some("tmdb"));
        for generic in ["API", "", "REST API", "OpenAPI spec", "x", "My API v2"] {
            assert_eq!(tool_name_from_title(generic), None, "{generic:?}");
        }
    }

    /// Spotify's OpenAPI description writes its flags as text (`"required": "true"`,
    /// `"explode": "false"`): they mean what the booleans do. Its search's `type` is a list
    /// sent comma-separated (`type=album,track`), not repeated.
    #[test]
    fn flags_written_as_text_are_flags() {
        let spec = serde_json::json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
            "paths": {"/search": {"get": {"parameters": [
                {"name": "q", "in": "query", "required": "true", "schema": {"type": "string"}},
                {"name": "type", "in": "query", "required": "true", "explode": "false",
                    "schema": {"type": "array", "items": {"type": "string"}}},
                {"name": "market", "in": "query", "required": "false",
                    "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}}}});
        let batch = read(Path::new("music.json"), &spec, &ImportOptions::default()).unwrap();
        let params = &batch.tools[0].apis[0].params;
        let required: Vec<(&str, bool)> = params
            .iter()
            .map(|p| (p.name.as_str(), p.required))
            .collect();
        assert_eq!(required, [("q", true), ("type", true), ("market", false)]);
        assert_eq!(params[1].list_format, ListFormat::Comma);
    }

    #[test]
    fn urls_are_named_by_their_file_or_host() {
        let name = |s: &str| tool_name_from_file(Path::new(s));
        assert_eq!(name("tmdb_oas.json"), "tmdb");
        assert_eq!(name("https://host.example/specs/petstore.json"), "petstore");
        assert_eq!(
            name("https://api.example.com/openapi.json?v=2"),
            "api.example.com"
        );
        assert_eq!(name("http://user@127.0.0.1:8080/swagger.yaml"), "127.0.0.1");
    }
}
