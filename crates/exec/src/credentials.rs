//! Credentials: the secrets of each tool's security schemes, read from
//! variables, and the choice, per call, of the first alternative of the API's
//! [`SecurityRequirement`] whose secrets are all set.
//!
//! Variables (`<TOOL>` is the tool id in upper case, `<SCHEME>` the spec's
//! scheme name in upper case with other characters as `_`):
//! - API keys and bearer tokens: `TOOLSMITH_KEY_<TOOL>_<SCHEME>`, else
//!   `TOOLSMITH_KEY_<TOOL>` (RapidAPI tools also read `RAPIDAPI_KEY`);
//! - HTTP basic: `TOOLSMITH_USERNAME_<TOOL>[_<SCHEME>]` and
//!   `TOOLSMITH_PASSWORD_<TOOL>[_<SCHEME>]` (both must be set; the password
//!   may be empty).

use std::collections::HashMap;

use base64::Engine as _;
use toolsmith_catalog::{ParamLocation, SecurityRequirement, SecurityScheme, Tool, ToolId};
use toolsmith_plumbing::env;

use crate::executor::BookEntry;

/// A credential: usable, never printed, never serialized (the one shared type).
pub use toolsmith_plumbing::Secret;

/// One scheme's secret, in the form a request carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// `Authorization: Bearer <token>` (HTTP bearer, OAuth2, OpenID Connect).
    Bearer(Secret),
    /// An API key in a header.
    Header {
        /// The header name.
        name: String,
        /// The key.
        key: Secret,
    },
    /// An API key in a query parameter.
    Query {
        /// The parameter name.
        name: String,
        /// The key.
        key: Secret,
    },
    /// An API key in a cookie.
    Cookie {
        /// The cookie name.
        name: String,
        /// The key.
        key: Secret,
    },
    /// HTTP basic: `Authorization: Basic base64(username:password)`.
    Basic {
        /// The user name (often a key itself).
        username: Secret,
        /// The password.
        password: Secret,
    },
    /// RapidAPI's `X-RapidAPI-Key` and `X-RapidAPI-Host` headers.
    RapidApi {
        /// The value of `X-RapidAPI-Host`.
        host: String,
        /// The key.
        key: Secret,
    },
}

impl Credential {
    /// The credential `scheme` calls for, with its secret from `lookup`
    /// (under the names [`variables`] lists), or `None` when a variable is unset.
    pub fn for_scheme(
        tool: &ToolId,
        scheme: &SecurityScheme,
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Option<Self> {
        let first = |names: Vec<String>| names.iter().find_map(|n| lookup(n)).map(Secret::new);
        let [key, user, password] = Variable::ALL.map(|v| first(v.names(tool, scheme)));
        match scheme {
            SecurityScheme::Bearer { .. } => key.map(Self::Bearer),
            SecurityScheme::ApiKey { name, location, .. } => {
                let name = name.clone();
                key.map(|key| match location {
                    ParamLocation::Query => Self::Query { name, key },
                    ParamLocation::Cookie => Self::Cookie { name, key },
                    _ => Self::Header { name, key },
                })
            }
            SecurityScheme::Basic { .. } => Some(Self::Basic {
                username: user?,
                password: password?,
            }),
            SecurityScheme::RapidApi { host } => key.map(|key| Self::RapidApi {
                host: host.clone(),
                key,
            }),
        }
    }

    /// The texts that must never leave the executor: the secrets, and the
    /// encoded form of a basic credential (user names under 8 characters are
    /// ordinary words and are not redacted).
    pub(crate) fn secrets(&self) -> Vec<String> {
        match self {
            Self::Bearer(key)
            | Self::Header { key, .. }
            | Self::Query { key, .. }
            | Self::Cookie { key, .. }
            | Self::RapidApi { key, .. } => vec![key.expose().to_owned()],
            Self::Basic { username, password } => {
                let mut out = vec![password.expose().to_owned(), self.basic_token()];
                if username.expose().chars().count() >= 8 {
                    out.push(username.expose().to_owned());
                }
                out
            }
        }
    }

    /// `base64(username:password)`, for a basic credential (empty otherwise).
    pub(crate) fn basic_token(&self) -> String {
        match self {
            Self::Basic { username, password } => base64::engine::general_purpose::STANDARD
                .encode(format!("{}:{}", username.expose(), password.expose())),
            _ => String::new(),
        }
    }
}

/// The kinds of variable a scheme reads.
#[derive(Clone, Copy)]
enum Variable {
    Key,
    Username,
    Password,
}

impl Variable {
    const ALL: [Self; 3] = [Self::Key, Self::Username, Self::Password];

    /// The names this variable of `scheme` is read from, in order; none when
    /// the scheme does not read it.
    fn names(self, tool: &ToolId, scheme: &SecurityScheme) -> Vec<String> {
        let prefix = match (self, scheme) {
            (Self::Key, SecurityScheme::Basic { .. }) => return Vec::new(),
            (Self::Key, _) => env::TOOLSMITH_KEY_PREFIX,
            (Self::Username, SecurityScheme::Basic { .. }) => env::TOOLSMITH_USERNAME_PREFIX,
            (Self::Password, SecurityScheme::Basic { .. }) => env::TOOLSMITH_PASSWORD_PREFIX,
            _ => return Vec::new(),
        };
        let base = format!("{prefix}{}", tool.as_str().to_ascii_uppercase());
        let mut names = Vec::new();
        match scheme {
            SecurityScheme::ApiKey { scheme, .. }
            | SecurityScheme::Bearer { scheme }
            | SecurityScheme::Basic { scheme } => {
                names.push(format!("{base}_{}", variable_part(scheme)));
                names.push(base);
            }
            SecurityScheme::RapidApi { .. } => {
                names.push(base);
                names.push(env::RAPIDAPI_KEY.to_owned());
            }
        }
        names
    }
}

/// A scheme name as part of a variable name: upper case, other characters as `_`.
fn variable_part(scheme: &str) -> String {
    scheme
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The variables a user sets for `scheme` of `tool`, each group one
/// alternative spelling: `[["TOOLSMITH_KEY_TMDB_APIKEY", "TOOLSMITH_KEY_TMDB"]]`
/// for a key, a username group and a password group for basic.
pub fn variables(tool: &ToolId, scheme: &SecurityScheme) -> Vec<Vec<String>> {
    Variable::ALL
        .iter()
        .map(|v| v.names(tool, scheme))
        .filter(|names| !names.is_empty())
        .collect()
}

/// The requirement of a call: the API's own, or, when its source said
/// nothing, any one of the tool's declared schemes (`None`: no credential).
pub fn requirement_of(
    tool: &Tool,
    entry_security: Option<&SecurityRequirement>,
) -> Option<SecurityRequirement> {
    entry_security.cloned().or_else(|| {
        (!tool.security.is_empty()).then(|| SecurityRequirement {
            alternatives: tool.security.iter().map(|s| vec![s.clone()]).collect(),
        })
    })
}

/// What a call carries, as [`Credentials::select`] chose it.
#[derive(Debug, PartialEq, Eq)]
pub enum Selected<'c> {
    /// These credentials (none when the API needs none).
    Send(Vec<&'c Credential>),
    /// The API needs a credential and no alternative has all its variables
    /// set: these are the variables of its first alternative.
    Missing(Vec<String>),
}

/// Credentials by tool and scheme.
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    /// Set for a whole tool, whatever its APIs require.
    fixed: HashMap<ToolId, Credential>,
    /// Read for each declared scheme.
    by_scheme: HashMap<(ToolId, SecurityScheme), Credential>,
}

impl Credentials {
    /// No credentials.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the credential every call of `tool` carries, whatever its APIs require.
    pub fn insert(&mut self, tool: ToolId, credential: Credential) {
        self.fixed.insert(tool, credential);
    }

    /// The name of the variable holding a tool's key: `TOOLSMITH_KEY_<TOOL>`
    /// (see the module doc for scheme-specific and basic credentials).
    pub fn variable_name(tool: &ToolId) -> String {
        format!(
            "{}{}",
            env::TOOLSMITH_KEY_PREFIX,
            tool.as_str().to_ascii_uppercase()
        )
    }

    /// Credentials for `tools` from a variable lookup (the binary passes the
    /// environment): the secret of each declared scheme whose variables are set.
    pub fn from_lookup<'t>(
        tools: impl IntoIterator<Item = &'t Tool>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let mut credentials = Self::new();
        for tool in tools {
            for scheme in &tool.security {
                if let Some(credential) = Credential::for_scheme(&tool.id, scheme, &lookup) {
                    credentials
                        .by_scheme
                        .insert((tool.id.clone(), scheme.clone()), credential);
                }
            }
        }
        credentials
    }

    /// The credentials a call of `entry`'s API carries: the tool's fixed one,
    /// else the first alternative of its requirement with every secret set
    /// (an alternative asking for nothing only when no other is complete).
    pub fn select(&self, entry: &BookEntry) -> Selected<'_> {
        let tool = &entry.tool;
        if let Some(fixed) = self.fixed.get(&tool.id) {
            return Selected::Send(vec![fixed]);
        }
        let Some(requirement) = requirement_of(tool, entry.api.api.access.security.as_ref()) else {
            return Selected::Send(Vec::new());
        };
        let complete = requirement
            .alternatives
            .iter()
            .filter(|alt| !alt.is_empty())
            .find_map(|alt| {
                alt.iter()
                    .map(|s| self.by_scheme.get(&(tool.id.clone(), s.clone())))
                    .collect::<Option<Vec<_>>>()
            });
        match complete {
            Some(found) => Selected::Send(found),
            None if requirement.is_optional() => Selected::Send(Vec::new()),
            None => Selected::Missing(
                requirement
                    .alternatives
                    .first()
                    .into_iter()
                    .flatten()
                    .flat_map(|s| variables(&tool.id, s))
                    .filter_map(|group| group.into_iter().next())
                    .collect(),
            ),
        }
    }

    /// Every secret held, and encoded forms of them, for redaction.
    pub(crate) fn secrets(&self) -> Vec<String> {
        self.fixed
            .values()
            .chain(self.by_scheme.values())
            .flat_map(Credential::secrets)
            .filter(|s| !s.is_empty())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> ToolId {
        "pet_store".parse().unwrap()
    }

    #[test]
    fn secret_never_prints() {
        let secret = Secret::new("sk-123");
        assert_eq!(format!("{secret:?}"), "Secret(***)");
        let cred = Credential::Bearer(secret);
        assert!(!format!("{cred:?}").contains("sk-123"));
    }

    #[test]
    fn scheme_specific_variables_come_first() {
        let key = SecurityScheme::ApiKey {
            scheme: "api_key".into(),
            name: "X-API-Key".into(),
            location: ParamLocation::Header,
        };
        assert_eq!(
            variables(&tool(), &key),
            [["TOOLSMITH_KEY_PET_STORE_API_KEY", "TOOLSMITH_KEY_PET_STORE"]]
        );
        let basic = SecurityScheme::Basic {
            scheme: "basic".into(),
        };
        assert_eq!(variables(&tool(), &basic).len(), 2);
        let lookup = |n: &str| match n {
            "TOOLSMITH_USERNAME_PET_STORE" => Some("ann".to_owned()),
            "TOOLSMITH_PASSWORD_PET_STORE_BASIC" => Some(String::new()),
            _ => None,
        };
        let cred = Credential::for_scheme(&tool(), &basic, &lookup).unwrap();
        assert_eq!(cred.basic_token(), "YW5uOg==");
        assert_eq!(Credential::for_scheme(&tool(), &key, &lookup), None);
    }
}
