//! Live calls over HTTP: the request is built from the arguments as the
//! catalog's parameters say (path, query, header, cookie, JSON body), with
//! the credentials the API's security requirement calls for
//! ([`crate::credentials`]) added, to the tool's base URL host only, with timeouts,
//! retries on 429 and 5xx, and a cap on the response size.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use serde_json::{Map, Value};
use toolsmith_catalog::{ApiId, Endpoint, HttpMethod, Param, ParamLocation, ToolId};
use toolsmith_plumbing::retry::{RetrySettings, is_retryable_status, parse_retry_after};
use toolsmith_plumbing::text::char_prefix;

use crate::credentials::{Credential, Credentials, Selected};
use crate::error::{Error, Result, error_chain};
use crate::executor::{ApiBook, BookEntry, Executor};
use crate::observation::{Body, FailureKind, Observation, Outcome, Provenance};

/// The HTTP executor's knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpSettings {
    /// Time allowed to connect.
    pub connect_timeout: Duration,
    /// Time allowed for a whole request, body included.
    pub timeout: Duration,
    /// Response bodies are cut at this many bytes.
    pub max_response_bytes: usize,
    /// Retries after a 429, a 5xx or a transport failure (timeout, refused connection): the
    /// policy every toolsmith HTTP client shares. By default, [`HttpSettings::RETRY`].
    pub retry: RetrySettings,
}

impl HttpSettings {
    /// The executor's default retry policy: two retries, backoff from 500 ms (drawn between
    /// half and all of it, doubled each time), waits and `Retry-After` capped at 10 s.
    pub const RETRY: RetrySettings = RetrySettings {
        max_retries: 2,
        initial_backoff_ms: 500,
        max_backoff_ms: 10_000,
        max_retry_after_ms: 10_000,
    };
}

impl Default for HttpSettings {
    /// Connect in 5 s, finish in 15 s (ToolBench's client timeout), cut
    /// bodies at 1 MB, retry as [`HttpSettings::RETRY`] says.
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(15),
            max_response_bytes: 1024 * 1024,
            retry: Self::RETRY,
        }
    }
}

/// The wait a response's `Retry-After` header asks for, if it sent a readable one.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    parse_retry_after(
        response
            .headers()
            .get(reqwest::header::RETRY_AFTER)?
            .to_str()
            .ok()?,
    )
}

/// Calls APIs over HTTP.
#[derive(Clone)]
pub struct HttpExecutor {
    book: Arc<ApiBook>,
    client: reqwest::Client,
    credentials: Arc<Credentials>,
    /// The credentials' secrets and their encoded forms, longest first.
    secrets: Arc<Vec<String>>,
    /// Tools already warned about an unset credential.
    warned: Arc<Mutex<HashSet<ToolId>>>,
    settings: HttpSettings,
}

impl fmt::Debug for HttpExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpExecutor")
            .field("apis", &self.book.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The request an API call becomes, before credentials.
#[derive(Debug)]
struct Prepared {
    method: Method,
    url: Url,
    headers: HeaderMap,
    body: Option<Value>,
}

impl HttpExecutor {
    /// An executor over `book` with these credentials and settings.
    pub fn new(
        book: Arc<ApiBook>,
        credentials: Credentials,
        settings: HttpSettings,
    ) -> Result<Self> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                // Follow a redirect only to the host of the original request.
                let origin = attempt.previous().first().map(host_port);
                if attempt.previous().len() > 5 {
                    attempt.error("too many redirects")
                } else if origin == Some(host_port(attempt.url())) {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .build()
            .map_err(|e| Error::HttpClient(e.to_string()))?;
        let mut secrets = credentials.secrets();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Ok(Self {
            book,
            client,
            credentials: Arc::new(credentials),
            secrets: Arc::new(secrets),
            warned: Arc::default(),
            settings,
        })
    }

    fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in self.secrets.iter() {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "***");
            }
        }
        out
    }

    /// The credentials a call of `entry` carries; warns, once per tool, when
    /// it needs one whose variables are unset.
    fn credentials_for(&self, entry: &BookEntry) -> Vec<&Credential> {
        match self.credentials.select(entry) {
            Selected::Send(credentials) => credentials,
            Selected::Missing(variables) => {
                let first = self
                    .warned
                    .lock()
                    .map(|mut w| w.insert(entry.tool.id.clone()))
                    .unwrap_or(false);
                if first {
                    tracing::warn!(
                        tool = %entry.tool.id,
                        "`{}` needs a credential and none is set: set {}",
                        entry.tool.id,
                        variables.join(" and ")
                    );
                }
                Vec::new()
            }
        }
    }

    async fn send(&self, entry: &BookEntry, prepared: &Prepared) -> Observation {
        let start = Instant::now();
        let mut attempt = 0u32;
        let credentials = self.credentials_for(entry);
        let mut url = prepared.url.clone();
        let mut headers = prepared.headers.clone();
        for credential in &credentials {
            if let Err(message) = place_key(credential, &mut url, &mut headers) {
                return Observation::tool_error(
                    FailureKind::Unauthorized,
                    message,
                    Provenance::Live,
                );
            }
        }
        loop {
            let mut request = self
                .client
                .request(prepared.method.clone(), url.clone())
                .headers(headers.clone());
            if let Some(body) = &prepared.body {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.to_string());
            }
            request = authorize(request, &credentials);
            let result = request.send().await;
            let retry_wait = match &result {
                Ok(response) if is_retryable_status(response.status().as_u16()) => {
                    Some(retry_after(response))
                }
                Ok(_) => None,
                Err(err) if err.is_timeout() || err.is_connect() => Some(None),
                Err(_) => None,
            };
            attempt += 1;
            if let Some(retry_after) = retry_wait
                && self.settings.retry.allows_retry_after(attempt)
            {
                let wait = self.settings.retry.delay(attempt, retry_after);
                tracing::debug!(api = %entry.api.api.id, attempt, ?wait, "retrying");
                tokio::time::sleep(wait).await;
                continue;
            }
            let obs = match result {
                Ok(response) => self.read(response).await,
                Err(err) => {
                    let kind = if err.is_timeout() {
                        FailureKind::Timeout
                    } else {
                        FailureKind::Network
                    };
                    let message = self.redact(&error_chain(&err.without_url()));
                    Observation::transport_error(kind, message, Provenance::Live)
                }
            };
            return obs.with_latency(start.elapsed());
        }
    }

    async fn read(&self, mut response: reqwest::Response) -> Observation {
        let status = response.status();
        let code = status.as_u16();
        if status.is_redirection() {
            let target = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("?");
            let mut obs = Observation::transport_error(
                FailureKind::Network,
                format!(
                    "redirect to `{}` refused: only the tool's own host may be contacted",
                    self.redact(target)
                ),
                Provenance::Live,
            );
            obs.status = Some(code);
            return obs;
        }
        let is_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains("json"));
        let declared = response
            .content_length()
            .and_then(|n| usize::try_from(n).ok());
        let cap = self.settings.max_response_bytes;
        let mut raw: Vec<u8> = Vec::new();
        let mut truncated = false;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    raw.extend_from_slice(&chunk);
                    if raw.len() > cap {
                        raw.truncate(cap);
                        truncated = true;
                        break;
                    }
                }
                Ok(None) => break,
                Err(err) => {
                    let kind = if err.is_timeout() {
                        FailureKind::Timeout
                    } else {
                        FailureKind::Network
                    };
                    let mut obs = Observation::transport_error(
                        kind,
                        format!(
                            "reading the response failed: {}",
                            self.redact(&error_chain(&err.without_url()))
                        ),
                        Provenance::Live,
                    );
                    obs.status = Some(code);
                    return obs;
                }
            }
        }
        let bytes = if truncated {
            declared.unwrap_or(raw.len()).max(raw.len())
        } else {
            raw.len()
        };
        let text = self.redact(&String::from_utf8_lossy(&raw));
        let (body, parse_failed) = if text.is_empty() {
            (Body::Empty, false)
        } else if truncated {
            (Body::Text(text.clone()), false)
        } else {
            match serde_json::from_str::<Value>(&text) {
                Ok(v) => (Body::Json(v), false),
                Err(_) => (Body::Text(text.clone()), is_json),
            }
        };
        let outcome = if let Some(kind) = kind_for_status(code) {
            let snippet = char_prefix(&text, 300);
            Outcome::ToolError {
                kind,
                message: format!(
                    "HTTP {code} {}: {snippet}",
                    status.canonical_reason().unwrap_or("")
                ),
            }
        } else if truncated {
            Outcome::ToolError {
                kind: FailureKind::ResponseTooLarge,
                message: format!(
                    "the response is over {cap} bytes; only its first {cap} bytes are kept"
                ),
            }
        } else if parse_failed {
            Outcome::ToolError {
                kind: FailureKind::UnparsableResponse,
                message: "the response says it is JSON but does not parse".to_owned(),
            }
        } else {
            Outcome::Ok
        };
        Observation {
            outcome,
            status: Some(code),
            body,
            bytes,
            truncated,
            latency: Duration::ZERO,
            provenance: Provenance::Live,
        }
    }
}

/// Adds the query and cookie keys of `credential` to the URL and headers;
/// `Err` when a cookie key cannot be a header value.
fn place_key(
    credential: &Credential,
    url: &mut Url,
    headers: &mut HeaderMap,
) -> std::result::Result<(), String> {
    match credential {
        Credential::Query { name, key } => {
            url.query_pairs_mut().append_pair(name, key.expose());
        }
        Credential::Cookie { name, key } => {
            let pair = format!("{name}={}", encode_segment(key.expose()));
            let value = match headers.get(reqwest::header::COOKIE) {
                Some(existing) => format!("{}; {pair}", existing.to_str().unwrap_or_default()),
                None => pair,
            };
            let value = HeaderValue::from_str(&value)
                .map_err(|_| format!("the cookie `{name}` cannot carry its key"))?;
            headers.insert(reqwest::header::COOKIE, value);
        }
        _ => {}
    }
    Ok(())
}

/// Adds the header credentials (bearer, basic, header keys, RapidAPI's);
/// query and cookie keys are placed once by [`place_key`].
fn authorize(
    mut request: reqwest::RequestBuilder,
    credentials: &[&Credential],
) -> reqwest::RequestBuilder {
    for credential in credentials {
        request = match credential {
            Credential::Query { .. } | Credential::Cookie { .. } => request,
            Credential::Bearer(token) => request.bearer_auth(token.expose()),
            Credential::Basic { username, password } => {
                request.basic_auth(username.expose(), Some(password.expose()))
            }
            Credential::Header { name, key } => request.header(name.as_str(), key.expose()),
            Credential::RapidApi { host, key } => request
                .header("X-RapidAPI-Key", key.expose())
                .header("X-RapidAPI-Host", host.as_str()),
        };
    }
    request
}

/// The failure kind of an HTTP status, `None` for success.
pub(crate) fn kind_for_status(status: u16) -> Option<FailureKind> {
    match status {
        200..=299 => None,
        401 => Some(FailureKind::Unauthorized),
        403 => Some(FailureKind::Forbidden),
        404 | 410 => Some(FailureKind::NotFound),
        408 => Some(FailureKind::Timeout),
        429 => Some(FailureKind::RateLimited),
        500..=599 => Some(FailureKind::ServerError),
        _ => Some(FailureKind::BadParameters),
    }
}

fn host_port(url: &Url) -> (String, Option<u16>) {
    (
        url.host_str().unwrap_or_default().to_owned(),
        url.port_or_known_default(),
    )
}

fn method(m: HttpMethod) -> Method {
    match m {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Options => Method::OPTIONS,
    }
}

/// The text form of an argument for a path, query, header or cookie.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Adds a query argument: a list as one key per item, or joined into one value when the
/// spec says so (`explode: false`, a delimited style, Swagger 2's `csv`).
fn query_pairs(query: &mut Vec<(String, String)>, param: &Param, value: &Value) {
    match (value, param.list_format.separator()) {
        (Value::Array(items), None) => {
            query.extend(items.iter().map(|i| (param.name.clone(), text_of(i))));
        }
        (Value::Array(items), Some(separator)) => {
            let joined = items
                .iter()
                .map(text_of)
                .collect::<Vec<_>>()
                .join(separator);
            query.push((param.name.clone(), joined));
        }
        (other, _) => query.push((param.name.clone(), text_of(other))),
    }
}

/// Everything but RFC 3986's unreserved characters.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes everything but RFC 3986's unreserved characters, so an
/// argument can never add a path segment, a query or a host.
fn encode_segment(raw: &str) -> String {
    utf8_percent_encode(raw, NOT_UNRESERVED).to_string()
}

/// Builds the request of a call. `Err` is a message for the agent.
fn prepare(
    entry: &BookEntry,
    args: &Map<String, Value>,
) -> std::result::Result<Prepared, (FailureKind, String)> {
    let api = &entry.api.api;
    let Endpoint::Http { method: m, path } = &api.endpoint else {
        return Err((
            FailureKind::Unsupported,
            format!("`{}` has no HTTP endpoint to call", api.id),
        ));
    };
    let Some(base) = entry.tool.base_url.as_deref() else {
        return Err((
            FailureKind::Unsupported,
            format!("tool `{}` has no base URL to call", entry.tool.id),
        ));
    };
    let base_url = Url::parse(base).map_err(|e| {
        (
            FailureKind::Unsupported,
            format!("tool `{}` has a bad base URL: {e}", entry.tool.id),
        )
    })?;
    let mut path = path.clone();
    let mut query: Vec<(String, String)> = Vec::new();
    let mut headers = HeaderMap::new();
    let mut cookies: Vec<String> = Vec::new();
    let mut body = Map::new();
    for param in &api.params {
        let Some(value) = args.get(&param.name).filter(|v| !v.is_null()) else {
            continue;
        };
        match param.location {
            ParamLocation::Path => {
                path = path.replace(
                    &format!("{{{}}}", param.name),
                    &encode_segment(&text_of(value)),
                );
            }
            ParamLocation::Query => query_pairs(&mut query, param, value),
            ParamLocation::Header => {
                let name = HeaderName::from_bytes(param.name.as_bytes()).map_err(|_| {
                    (
                        FailureKind::BadParameters,
                        format!("`{}` is not a valid header name", param.name),
                    )
                })?;
                let value = HeaderValue::from_str(&text_of(value)).map_err(|_| {
                    (
                        FailureKind::BadParameters,
                        format!("parameter `{}`: not a valid header value", param.name),
                    )
                })?;
                headers.insert(name, value);
            }
            ParamLocation::Cookie => cookies.push(format!(
                "{}={}",
                param.name,
                encode_segment(&text_of(value))
            )),
            ParamLocation::Body => {
                body.insert(param.name.clone(), value.clone());
            }
        }
    }
    if let Some(unfilled) = path
        .split('/')
        .find(|s| s.starts_with('{') && s.ends_with('}'))
    {
        return Err((
            FailureKind::BadParameters,
            format!("path parameter {unfilled} is missing"),
        ));
    }
    if !cookies.is_empty() {
        let value = HeaderValue::from_str(&cookies.join("; ")).map_err(|_| {
            (
                FailureKind::BadParameters,
                "a cookie value is not valid".to_owned(),
            )
        })?;
        headers.insert(reqwest::header::COOKIE, value);
    }
    let joined = format!(
        "{}{}",
        base.trim_end_matches('/'),
        if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        }
    );
    let mut url = Url::parse(&joined).map_err(|e| {
        (
            FailureKind::BadParameters,
            format!("the arguments make a bad URL: {e}"),
        )
    })?;
    if host_port(&url) != host_port(&base_url) {
        return Err((
            FailureKind::Forbidden,
            "the arguments would change the host; refused".to_owned(),
        ));
    }
    if !query.is_empty() {
        url.query_pairs_mut()
            .extend_pairs(query.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    }
    let body = if body.is_empty() {
        args.get("body")
            .filter(|_| api.request_body.is_some())
            .cloned()
    } else {
        Some(Value::Object(body))
    };
    Ok(Prepared {
        method: method(*m),
        url,
        headers,
        body,
    })
}

#[async_trait]
impl Executor for HttpExecutor {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let entry = self.book.entry(api)?;
        let empty = Map::new();
        let prepared = match prepare(entry, args.as_object().unwrap_or(&empty)) {
            Ok(p) => p,
            Err((kind, message)) => {
                return Ok(
                    Observation::tool_error(kind, self.redact(&message), Provenance::Live)
                        .with_latency(start.elapsed()),
                );
            }
        };
        Ok(self.send(entry, &prepared).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cannot_escape() {
        assert_eq!(encode_segment("a/b?c#d@e"), "a%2Fb%3Fc%23d%40e");
        assert_eq!(encode_segment("Tom Hanks"), "Tom%20Hanks");
        assert_eq!(encode_segment("café-1.x_~"), "caf%C3%A9-1.x_~");
    }

    #[test]
    fn statuses() {
        assert_eq!(kind_for_status(200), None);
        assert_eq!(kind_for_status(404), Some(FailureKind::NotFound));
        assert_eq!(kind_for_status(429), Some(FailureKind::RateLimited));
        assert_eq!(kind_for_status(503), Some(FailureKind::ServerError));
        assert_eq!(kind_for_status(422), Some(FailureKind::BadParameters));
    }
}
