//! The tool model: category -> tool -> API, and the documentation attached to each.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::id::{ApiId, DocLabel, ToolId};

/// A tool: a group of APIs with one provider, base URL and description, such
/// as TMDB or one RapidAPI tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Catalog identifier.
    pub id: ToolId,
    /// The name the source gives the tool (`The Movie Database`, `VIN Decoder_v4`).
    pub name: String,
    /// The category it is filed under (ToolBench's 49 RapidAPI categories, or
    /// whatever the importer was told).
    pub category: String,
    /// Where its APIs are served, e.g. `https://api.themoviedb.org/3`.
    pub base_url: Option<String>,
    /// How callers authenticate (recorded from the spec; never a secret).
    pub security: Vec<SecurityScheme>,
}

/// One callable operation: an HTTP endpoint or a function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Api {
    /// Catalog identifier (`tool/api`).
    pub id: ApiId,
    /// The human name the source uses (`Get Details`, ToolBench's `api_name`).
    pub name: String,
    /// The source's own identifier of the operation (`operationId`,
    /// `vin_decode_for_vin_decoder_v4`, a function name), kept for matching.
    pub source_name: String,
    /// How the API is reached.
    pub endpoint: Endpoint,
    /// Parameters, each with its JSON Schema.
    pub params: Vec<Param>,
    /// JSON Schema of the request body, when the operation takes one.
    pub request_body: Option<Value>,
    /// JSON Schema of a successful response, when the source has one.
    pub response_schema: Option<Value>,
    /// Recorded example responses from the source.
    pub response_examples: Vec<Value>,
    /// What calling it takes and does: its credentials, whether it only reads (absent in
    /// APIs serialized before it existed: nothing declared).
    #[serde(default)]
    pub access: Access,
}

/// What the source says about calling an API: the credentials it asks for and
/// whether it changes anything. Facts the source does not state stay unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// The credentials it asks for; `None` when the source does not say
    /// (callers then fall back to the tool's declared schemes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityRequirement>,
    /// Whether it only reads, as the source declares (MCP's `readOnlyHint`).
    #[serde(default, skip_serializing_if = "Effects::is_unknown")]
    pub effects: Effects,
}

/// An API's security requirement, as OpenAPI's `security` states it: any one
/// alternative will do, and each alternative is a set of schemes sent together.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityRequirement {
    /// The alternatives in the spec's order. No alternative: nothing is
    /// needed; an empty alternative: credentials are optional.
    pub alternatives: Vec<Vec<SecurityScheme>>,
}

impl SecurityRequirement {
    /// Whether some alternative asks for no credential at all.
    pub fn is_optional(&self) -> bool {
        self.alternatives.is_empty() || self.alternatives.iter().any(Vec::is_empty)
    }
}

/// Whether an API changes state, as its source declares it (HTTP methods say
/// it on their own; MCP tools say it in their annotations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effects {
    /// The source does not say.
    #[default]
    Unknown,
    /// It only reads (`readOnlyHint: true`).
    ReadOnly,
    /// It may change state (`readOnlyHint: false`).
    Writes,
}

impl Effects {
    /// Whether the source says nothing.
    pub fn is_unknown(&self) -> bool {
        *self == Self::Unknown
    }
}

/// How an API is reached.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Endpoint {
    /// An HTTP operation: method and path template relative to the tool's base URL.
    Http {
        /// The HTTP method.
        method: HttpMethod,
        /// Path template such as `/movie/{movie_id}`.
        path: String,
    },
    /// An HTTP operation whose source names the method but no URL (ToolBench
    /// query files, DRAFT's `Initial.json`): callable only in simulation.
    Unlocated {
        /// The HTTP method, when the source gives one.
        method: Option<HttpMethod>,
    },
    /// A function called by name (OpenAI function tools, MCP tools, built-ins).
    Function {
        /// The function's name as its provider knows it.
        name: String,
    },
}

impl Endpoint {
    /// The HTTP method, for HTTP operations.
    pub fn method(&self) -> Option<HttpMethod> {
        match self {
            Self::Http { method, .. } => Some(*method),
            Self::Unlocated { method } => *method,
            Self::Function { .. } => None,
        }
    }

    /// The path template, for located HTTP operations.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::Http { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// An HTTP method toolsmith can call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
#[allow(missing_docs)]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
    Options,
}

impl HttpMethod {
    /// The method in upper case, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
            Self::Head => "HEAD",
            Self::Options => "OPTIONS",
        }
    }

    /// All methods an OpenAPI path item may hold, in the spec's order.
    pub const ALL: [Self; 7] = [
        Self::Get,
        Self::Put,
        Self::Post,
        Self::Delete,
        Self::Options,
        Self::Head,
        Self::Patch,
    ];
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for HttpMethod {
    type Err = String;
    fn from_str(raw: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(raw.trim()))
            .ok_or_else(|| format!("unknown HTTP method `{raw}`"))
    }
}

/// One parameter of an API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Name on the wire.
    pub name: String,
    /// Where the value goes in the request.
    pub location: ParamLocation,
    /// Whether a call must supply it.
    pub required: bool,
    /// JSON Schema of the value (type, enum, default, format, ...).
    pub schema: Value,
    /// The source's description of the parameter.
    pub description: String,
    /// How a list value is written on the wire (query parameters only).
    #[serde(default, skip_serializing_if = "ListFormat::is_repeat")]
    pub list_format: ListFormat,
}

/// How a list argument of a query parameter is written on the wire: OpenAPI 3's
/// `style`/`explode`, or Swagger 2's `collectionFormat`. A server that expects `ids=1,2`
/// reads `ids=1&ids=2` as one id, so the spec's choice must reach the request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListFormat {
    /// One key per item, `ids=1&ids=2` (`form` with `explode: true`, OpenAPI 3's default;
    /// Swagger 2's `multi`).
    #[default]
    Repeat,
    /// One key, items joined by commas, `ids=1,2` (`form` with `explode: false`; Swagger 2's
    /// `csv`, its default).
    Comma,
    /// Items joined by spaces (`spaceDelimited`; Swagger 2's `ssv`).
    Space,
    /// Items joined by `|` (`pipeDelimited`; Swagger 2's `pipes`).
    Pipe,
}

impl ListFormat {
    /// Whether this is the default, one key per item (left out of stored JSON).
    pub fn is_repeat(&self) -> bool {
        *self == Self::Repeat
    }

    /// The separator joining the items into one value, `None` for one key per item.
    pub fn separator(self) -> Option<&'static str> {
        match self {
            Self::Repeat => None,
            Self::Comma => Some(","),
            Self::Space => Some(" "),
            Self::Pipe => Some("|"),
        }
    }
}

/// Where a parameter's value goes in the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum ParamLocation {
    Path,
    Query,
    Header,
    Cookie,
    /// A top-level property of a JSON request body, or a function argument.
    Body,
}

impl ParamLocation {
    /// The name OpenAPI gives the location.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
            Self::Header => "header",
            Self::Cookie => "cookie",
            Self::Body => "body",
        }
    }
}

/// A security scheme the spec declares: how to authenticate, never the secret.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SecurityScheme {
    /// An API key in a header, query parameter or cookie.
    ApiKey {
        /// The scheme's name in the spec.
        scheme: String,
        /// Header, query parameter or cookie name.
        name: String,
        /// Where the key goes.
        location: ParamLocation,
    },
    /// `Authorization: Bearer <token>` (HTTP bearer, OAuth2 or OpenID Connect).
    Bearer {
        /// The scheme's name in the spec.
        scheme: String,
    },
    /// HTTP basic authentication.
    Basic {
        /// The scheme's name in the spec.
        scheme: String,
    },
    /// RapidAPI's `X-RapidAPI-Key` and `X-RapidAPI-Host` headers.
    RapidApi {
        /// The value of `X-RapidAPI-Host`.
        host: String,
    },
}

/// A description and usage examples: what a doc version holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// The description an LLM reads.
    pub description: String,
    /// Worked examples of calling the API.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<UsageExample>,
    /// Synthetic user requests the API answers (Re-Invoke's views of the doc): retrieval
    /// indexes each as a view of the API; agents are not shown them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<String>,
}

impl Doc {
    /// A doc with a description and no examples.
    pub fn text(description: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            examples: Vec::new(),
            queries: Vec::new(),
        }
    }
}

/// One worked example of calling an API: a user need and the call that meets it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageExample {
    /// The user's request or scenario the call answers.
    pub query: String,
    /// The arguments of the call.
    pub arguments: Value,
    /// The call written out when the source gives it (a URL, `GET /movie/456`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
}

/// One stored version of a doc, with its history metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocVersion {
    /// Version number, counting from 1 per tool or API.
    pub version: u32,
    /// Where this version came from.
    pub label: DocLabel,
    /// What produced it: a file path, a method and run, `manual`, ...
    pub source: String,
    /// When it was stored, in Unix milliseconds.
    pub created_at_ms: i64,
    /// Whether it is the version agents see.
    pub active: bool,
    /// The doc itself.
    pub doc: Doc,
}
