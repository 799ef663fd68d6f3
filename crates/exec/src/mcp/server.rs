//! Where an MCP server is: the address a tool's `base_url` carries
//! ([`McpAddress`]), the resolved server with its transport ([`McpServer`]),
//! and the named servers of the config file ([`McpServers`]).
//!
//! Addresses are what the catalog stores, so they never hold a secret: a
//! server that needs a token, environment variables or a working directory
//! is configured by name and stored as `mcp://NAME`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use reqwest::Url;

use crate::credentials::Secret;
use crate::mcp::error::McpError;

/// The address of an MCP server, as a tool's `base_url` carries it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum McpAddress {
    /// `mcp://NAME`: a server configured under that name.
    Named(String),
    /// `mcp+stdio:COMMAND ARGS...`: a child process speaking MCP on its
    /// stdin and stdout (the words split as a POSIX shell would).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// `mcp+http://...` or `mcp+https://...`: a streamable HTTP endpoint
    /// (the URL without the `mcp+` prefix).
    Http(Url),
}

impl McpAddress {
    /// Whether `raw` is meant as an MCP address (`mcp://`, `mcp+...`), valid or not.
    pub fn is_mcp(raw: &str) -> bool {
        raw.starts_with("mcp://") || raw.starts_with("mcp+")
    }

    /// A short name for the server: the configured name, the command's file
    /// name without extension, or the URL's host. Good as a default tool id.
    pub fn default_name(&self) -> String {
        match self {
            Self::Named(name) => name.clone(),
            Self::Stdio { command, .. } => Path::new(command)
                .file_stem()
                .map_or_else(|| command.clone(), |s| s.to_string_lossy().into_owned()),
            Self::Http(url) => url.host_str().unwrap_or("mcp").to_owned(),
        }
    }
}

impl FromStr for McpAddress {
    type Err = McpError;

    fn from_str(raw: &str) -> Result<Self, McpError> {
        let bad = |reason: &str| McpError::BadAddress {
            address: raw.to_owned(),
            reason: reason.to_owned(),
        };
        let raw_trimmed = raw.trim();
        if let Some(name) = raw_trimmed.strip_prefix("mcp://") {
            let name = name.trim_end_matches('/');
            if !is_server_name(name) {
                return Err(bad(
                    "a server name is letters, digits, `_`, `-` and `.` (mcp://NAME)",
                ));
            }
            return Ok(Self::Named(name.to_owned()));
        }
        if let Some(line) = raw_trimmed.strip_prefix("mcp+stdio:") {
            let words = shlex::split(line).ok_or_else(|| bad("unbalanced quotes"))?;
            let mut words = words.into_iter();
            let command = words
                .next()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| bad("no command after `mcp+stdio:`"))?;
            return Ok(Self::Stdio {
                command,
                args: words.collect(),
            });
        }
        if let Some(url) = raw_trimmed.strip_prefix("mcp+") {
            let url = Url::parse(url).map_err(|e| bad(&format!("not a URL: {e}")))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(bad(
                    "the transport is `mcp+http`, `mcp+https` or `mcp+stdio`",
                ));
            }
            if url.host_str().is_none_or(str::is_empty) {
                return Err(bad("the URL has no host"));
            }
            if !url.username().is_empty() || url.password().is_some() {
                return Err(bad(
                    "credentials do not belong in an address; configure the server by name with `bearer_token_env`",
                ));
            }
            return Ok(Self::Http(url));
        }
        Err(bad(
            "expected mcp://NAME, mcp+http://URL, mcp+https://URL or mcp+stdio:COMMAND ARGS",
        ))
    }
}

impl fmt::Display for McpAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Named(name) => write!(f, "mcp://{name}"),
            Self::Stdio { command, args } => {
                let words =
                    std::iter::once(command.as_str()).chain(args.iter().map(String::as_str));
                match shlex::try_join(words) {
                    Ok(line) => write!(f, "mcp+stdio:{line}"),
                    // Only NUL bytes cannot be quoted; show the words unquoted.
                    Err(_) => write!(f, "mcp+stdio:{command} {}", args.join(" ")),
                }
            }
            Self::Http(url) => write!(f, "mcp+{url}"),
        }
    }
}

fn is_server_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The variables a stdio server inherits from the caller's environment
/// unless configured otherwise (what the official MCP SDKs pass on POSIX).
pub const MCP_SAFE_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking MCP on stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for the server. It inherits only
        /// [`MCP_SAFE_ENV`] and `inherit_env` from the caller, as the official
        /// MCP SDKs start stdio servers, so keys and tokens in the caller's
        /// environment do not reach it.
        env: BTreeMap<String, String>,
        /// Further variables passed on from the caller's environment.
        inherit_env: Vec<String>,
        /// Working directory (the caller's when `None`).
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint, e.g. `https://example.com/mcp`.
        url: Url,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<Secret>,
        /// Other headers sent with every request; their values are treated as secrets.
        headers: BTreeMap<String, Secret>,
    },
}

/// One MCP server: a name (for messages, and the default tool id) and how to reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServer {
    /// The server's name.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
}

impl McpServer {
    /// A server run as a child process, in the caller's directory, with
    /// only the [`MCP_SAFE_ENV`] variables of the caller's environment.
    pub fn stdio(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            name: name.into(),
            transport: McpTransport::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                inherit_env: Vec::new(),
                cwd: None,
            },
        }
    }

    /// A server at a streamable HTTP endpoint, without credentials.
    pub fn http(name: impl Into<String>, url: Url) -> Self {
        Self {
            name: name.into(),
            transport: McpTransport::Http {
                url,
                bearer_token: None,
                headers: BTreeMap::new(),
            },
        }
    }

    /// The secrets this server's requests carry, to redact from messages.
    pub(crate) fn secrets(&self) -> Vec<String> {
        match &self.transport {
            McpTransport::Stdio { .. } => Vec::new(),
            McpTransport::Http {
                bearer_token,
                headers,
                ..
            } => bearer_token
                .iter()
                .chain(headers.values())
                .map(|s| s.expose().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }
}

/// The servers known by name (the `[mcp.servers.NAME]` tables of the config
/// file), which `mcp://NAME` addresses refer to.
#[derive(Clone, Debug, Default)]
pub struct McpServers {
    by_name: BTreeMap<String, McpServer>,
}

impl McpServers {
    /// No named servers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a server under its name.
    pub fn insert(&mut self, server: McpServer) {
        self.by_name.insert(server.name.clone(), server);
    }

    /// The server of that name.
    pub fn get(&self, name: &str) -> Option<&McpServer> {
        self.by_name.get(name)
    }

    /// The configured names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// The server an address points to: a named one from this set, or the
    /// one the address spells out (with no extra environment or headers).
    pub fn resolve(&self, address: &McpAddress) -> Result<McpServer, McpError> {
        match address {
            McpAddress::Named(name) => {
                self.get(name)
                    .cloned()
                    .ok_or_else(|| McpError::UnknownServer {
                        name: name.clone(),
                        known: self.names().map(str::to_owned).collect(),
                    })
            }
            McpAddress::Stdio { command, args } => Ok(McpServer::stdio(
                address.default_name(),
                command.clone(),
                args.clone(),
            )),
            McpAddress::Http(url) => Ok(McpServer::http(address.default_name(), url.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_parse_and_print_back() {
        let stdio: McpAddress = "mcp+stdio:npx -y '@scope/server files' --root /tmp"
            .parse()
            .unwrap();
        assert_eq!(
            stdio,
            McpAddress::Stdio {
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@scope/server files".into(),
                    "--root".into(),
                    "/tmp".into()
                ],
            }
        );
        assert_eq!(stdio.default_name(), "npx");
        let again: McpAddress = stdio.to_string().parse().unwrap();
        assert_eq!(again, stdio);

        let http: McpAddress = "mcp+https://tools.example.com:8443/mcp".parse().unwrap();
        assert_eq!(http.to_string(), "mcp+https://tools.example.com:8443/mcp");
        assert_eq!(http.default_name(), "tools.example.com");

        let named: McpAddress = "mcp://github".parse().unwrap();
        assert_eq!(named, McpAddress::Named("github".into()));
        assert_eq!(named.to_string(), "mcp://github");

        let path: McpAddress = "mcp+stdio:/opt/servers/weather.py".parse().unwrap();
        assert_eq!(path.default_name(), "weather");
    }

    #[test]
    fn bad_addresses_say_why() {
        for (raw, why) in [
            ("mcp+stdio:", "no command"),
            ("mcp+stdio:run 'open", "unbalanced quotes"),
            ("mcp+ftp://host/x", "transport"),
            ("mcp+http://user:pw@host/mcp", "credentials"),
            ("mcp://", "server name"),
            ("mcp://a b", "server name"),
            ("https://host/mcp", "expected mcp://NAME"),
        ] {
            let err = raw.parse::<McpAddress>().unwrap_err().to_string();
            assert!(err.contains(why), "{raw}: {err}");
            assert!(err.contains(raw), "{raw}: {err}");
        }
        assert!(McpAddress::is_mcp("mcp+stdio:x") && McpAddress::is_mcp("mcp://x"));
        assert!(!McpAddress::is_mcp("https://api.themoviedb.org/3"));
    }

    #[test]
    fn named_servers_resolve_and_unknown_names_list_the_known_ones() {
        let mut servers = McpServers::new();
        servers.insert(McpServer::stdio("files", "files-server", ["--ro"]));
        let server = servers.resolve(&"mcp://files".parse().unwrap()).unwrap();
        assert_eq!(server.name, "files");
        let err = servers
            .resolve(&"mcp://github".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("`github`") && err.contains("files"), "{err}");
    }

    #[test]
    fn tokens_never_print() {
        let mut server = McpServer::http("s", Url::parse("https://h/mcp").unwrap());
        if let McpTransport::Http { bearer_token, .. } = &mut server.transport {
            *bearer_token = Some(Secret::new("tok-123"));
        }
        assert!(!format!("{server:?}").contains("tok-123"));
        assert_eq!(server.secrets(), vec!["tok-123".to_owned()]);
    }
}
