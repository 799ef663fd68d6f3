//! The `[mcp]` table of `toolsmith.toml`: MCP servers by name, which
//! `mcp://NAME` addresses refer to.
//!
//! ```toml
//! [mcp]
//! connect_timeout_ms = 10000   # start (or reach) a server and finish the handshake
//! timeout_ms = 30000           # one tools/call, or every page of tools/list
//! max_response_bytes = 1048576 # results are cut beyond this
//!
//! [mcp.servers.files]
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"]
//! env = { LOG_LEVEL = "warn" }        # a stdio server inherits only HOME, LOGNAME, PATH,
//! inherit_env = ["NODE_OPTIONS"]      # SHELL, TERM and USER, plus these and `env`
//! cwd = "/srv"
//!
//! [mcp.servers.tickets]
//! url = "https://tickets.example.com/mcp"
//! bearer_token_env = "TICKETS_TOKEN"   # the variable's name; the token never goes in the file
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;
use toolsmith_exec::{
    McpAddress, McpServer, McpServers, McpSettings, McpTransport, Redactor, Secret,
};

use crate::printer;

/// The `[mcp]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct McpConfig {
    /// Time to start or reach a server and finish the handshake, in ms (default 10,000).
    pub connect_timeout_ms: Option<u64>,
    /// Time for one request, in ms (default 30,000).
    pub timeout_ms: Option<u64>,
    /// Results are cut beyond this many bytes (default 1 MiB).
    pub max_response_bytes: Option<usize>,
    /// Servers by name: `[mcp.servers.NAME]`.
    pub servers: BTreeMap<String, McpServerConfig>,
}

/// One `[mcp.servers.NAME]` table: `command` (a child process on stdio) or
/// `url` (streamable HTTP), not both.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct McpServerConfig {
    /// The program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it (it inherits only HOME, LOGNAME, PATH, SHELL,
    /// TERM, USER and `inherit_env` from toolsmith's environment).
    pub env: BTreeMap<String, String>,
    /// Further variables of toolsmith's environment passed on to it.
    pub inherit_env: Vec<String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// The endpoint of a streamable HTTP server.
    pub url: Option<String>,
    /// The name of the environment variable holding its bearer token.
    pub bearer_token_env: Option<String>,
}

impl McpServerConfig {
    /// The server this table describes, its token read through `lookup`.
    fn resolve(
        &self,
        name: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<McpServer> {
        let transport = match (&self.command, &self.url) {
            (Some(command), None) => {
                if self.bearer_token_env.is_some() {
                    bail!("`bearer_token_env` is for `url` servers; a stdio server takes `env`");
                }
                McpTransport::Stdio {
                    command: command.clone(),
                    args: self.args.clone(),
                    env: self.env.clone(),
                    inherit_env: self.inherit_env.clone(),
                    cwd: self.cwd.clone(),
                }
            }
            (None, Some(url)) => {
                if !self.args.is_empty()
                    || !self.env.is_empty()
                    || !self.inherit_env.is_empty()
                    || self.cwd.is_some()
                {
                    bail!(
                        "`args`, `env`, `inherit_env` and `cwd` are for `command` servers, not `url` ones"
                    );
                }
                let Ok(McpAddress::Http(url)) = format!("mcp+{url}").parse::<McpAddress>() else {
                    bail!("`url = \"{url}\"` is not an http or https URL without credentials");
                };
                let bearer_token = match &self.bearer_token_env {
                    None => None,
                    Some(var) => match lookup(var).filter(|v| !v.is_empty()) {
                        Some(token) => Some(Secret::new(token)),
                        None => {
                            printer::note(format!(
                                "note: MCP server `{name}`: `{var}` is not set; connecting without a token"
                            ));
                            None
                        }
                    },
                };
                McpTransport::Http {
                    url,
                    bearer_token,
                    headers: BTreeMap::new(),
                }
            }
            (Some(_), Some(_)) => bail!("give `command` or `url`, not both"),
            (None, None) => bail!("give `command` (a stdio server) or `url` (streamable HTTP)"),
        };
        Ok(McpServer {
            name: name.to_owned(),
            transport,
        })
    }
}

impl McpConfig {
    /// The client settings: [`McpSettings::default`] with this table's values.
    pub(crate) fn client_settings(&self) -> McpSettings {
        let mut settings = McpSettings::default();
        if let Some(ms) = self.connect_timeout_ms {
            settings.connect_timeout = Duration::from_millis(ms);
        }
        if let Some(ms) = self.timeout_ms {
            settings.timeout = Duration::from_millis(ms);
        }
        if let Some(bytes) = self.max_response_bytes {
            settings.max_response_bytes = bytes;
        }
        settings
    }

    /// The secret values this table configures: `env` values under secret
    /// names (`*KEY*`, `*TOKEN*`...) and the bearer tokens `lookup` finds.
    pub(crate) fn secrets(&self, lookup: impl Fn(&str) -> Option<String>) -> Vec<String> {
        let mut out = Vec::new();
        for table in self.servers.values() {
            out.extend(
                table
                    .env
                    .iter()
                    .filter(|(name, _)| Redactor::is_secret_name(name))
                    .map(|(_, value)| value.clone()),
            );
            out.extend(table.bearer_token_env.as_deref().and_then(&lookup));
        }
        out
    }

    /// Every configured server, tokens read from the environment.
    pub(crate) fn servers_from_env(&self) -> anyhow::Result<McpServers> {
        self.servers(|var| std::env::var(var).ok())
    }

    /// Every configured server, tokens read through `lookup`.
    pub(crate) fn servers(
        &self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> anyhow::Result<McpServers> {
        let mut servers = McpServers::new();
        for (name, table) in &self.servers {
            let server = table
                .resolve(name, &lookup)
                .with_context(|| format!("[mcp.servers.{name}] in the config file"))?;
            servers.insert(server);
        }
        Ok(servers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> McpConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn client_settings_default_and_override() {
        assert_eq!(parse("").client_settings(), McpSettings::default());
        let settings = parse("timeout_ms = 1500\nmax_response_bytes = 10\n").client_settings();
        assert_eq!(settings.timeout, Duration::from_millis(1500));
        assert_eq!(settings.max_response_bytes, 10);
        assert_eq!(
            settings.connect_timeout,
            McpSettings::default().connect_timeout
        );
    }

    #[test]
    fn stdio_and_http_servers_resolve() {
        let config = parse(
            r#"
            [servers.files]
            command = "files-server"
            args = ["--root", "/srv"]
            env = { LOG = "warn" }
            inherit_env = ["NODE_OPTIONS"]
            [servers.tickets]
            url = "https://tickets.example.com/mcp"
            bearer_token_env = "TICKETS_TOKEN"
            "#,
        );
        let servers = config
            .servers(|var| (var == "TICKETS_TOKEN").then(|| "t-123".to_owned()))
            .unwrap();
        assert_eq!(
            config.secrets(|var| (var == "TICKETS_TOKEN").then(|| "t-123".to_owned())),
            ["t-123"]
        );
        let files = servers.get("files").unwrap();
        assert!(
            matches!(&files.transport, McpTransport::Stdio { args, env, inherit_env, .. }
            if args.len() == 2 && env["LOG"] == "warn" && inherit_env == &["NODE_OPTIONS"])
        );
        let tickets = servers.get("tickets").unwrap();
        assert!(
            matches!(&tickets.transport, McpTransport::Http { bearer_token: Some(t), .. }
            if t.expose() == "t-123")
        );
    }

    #[test]
    fn contradictory_tables_say_where() {
        let config = parse("[servers.x]\ncommand = \"a\"\nurl = \"http://h/mcp\"\n");
        let err = format!("{:#}", config.servers(|_| None).unwrap_err());
        assert!(
            err.contains("[mcp.servers.x]") && err.contains("not both"),
            "{err}"
        );
        let config = parse("[servers.y]\n");
        assert!(config.servers(|_| None).is_err());
        for url in ["ftp://h/mcp", "http://user:pw@h/mcp", "not a url"] {
            let config = parse(&format!("[servers.w]\nurl = \"{url}\"\n"));
            let err = format!("{:#}", config.servers(|_| None).unwrap_err());
            assert!(
                err.contains("[mcp.servers.w]") && err.contains(url),
                "{err}"
            );
        }
        assert!(toml::from_str::<McpConfig>("[servers.z]\ntoken = \"secret\"\n").is_err());
    }
}
