//! Who may talk to the server: the `Host` a request names (against DNS rebinding), the
//! `Origin` of a browser page on `/mcp`, and the bearer token.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;
use toolsmith_plumbing::Secret;

use crate::api_error::ApiError;

/// Which `Host` headers (and browser `Origin`s on `/mcp`) the server answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPolicy {
    /// Loopback hosts only: a server without a token, so that a page a browser loaded from
    /// elsewhere cannot reach it through a rebound DNS name.
    Loopback,
    /// Loopback hosts and these (`host` matches any port, `host:port` that port only).
    Listed(Vec<String>),
    /// Any host: the server has a token and no list narrows it.
    Any,
}

impl HostPolicy {
    /// The policy of a server with or without a token and with `allowed` extra hosts: a list
    /// narrows a token's "any host" to the loopback hosts and the list.
    pub fn new(has_token: bool, allowed: &[String]) -> Self {
        match (has_token, allowed.is_empty()) {
            (_, false) => Self::Listed(allowed.iter().map(|h| h.to_ascii_lowercase()).collect()),
            (true, true) => Self::Any,
            (false, true) => Self::Loopback,
        }
    }

    /// Whether a request naming `authority` (a `Host` header: `host` or `host:port`) is served.
    pub fn allows_host(&self, authority: &str) -> bool {
        if *self == Self::Any {
            return true;
        }
        let Some((host, port)) = split_authority(authority) else {
            return false;
        };
        if is_loopback(&host) {
            return true;
        }
        match self {
            Self::Listed(list) => list.iter().any(|entry| {
                entry == &host || port.is_some_and(|p| entry == &format!("{host}:{p}"))
            }),
            Self::Any | Self::Loopback => false,
        }
    }

    /// Whether a browser page of `origin` (`scheme://host[:port]`) may use `/mcp`: its host
    /// passes [`allows_host`](Self::allows_host); `null` only when any host is allowed.
    pub fn allows_origin(&self, origin: &str) -> bool {
        if *self == Self::Any {
            return true;
        }
        let Ok(uri) = origin.parse::<Uri>() else {
            return false;
        };
        match (uri.scheme_str(), uri.authority()) {
            (Some("http" | "https"), Some(authority)) => self.allows_host(authority.as_str()),
            _ => false,
        }
    }
}

/// `(host lowercased without brackets, port)` of a `Host` value, or `None` when malformed.
fn split_authority(raw: &str) -> Option<(String, Option<u16>)> {
    let authority: axum::http::uri::Authority = raw.trim().parse().ok()?;
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Some((host, authority.port_u16()))
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The refusal of a request whose `Host` the policy does not allow (`None`: allowed).
pub(crate) fn check_host(policy: &HostPolicy, req: &Request) -> Option<Response> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()));
    match host {
        Some(host) if policy.allows_host(host) => None,
        _ => Some(
            ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_host",
                "this server answers loopback hosts only; serve with a token or \
             `--allowed-host NAME` to be reached by another name",
            )
            .into_response(),
        ),
    }
}

/// The refusal of a request to `/mcp` from a browser page of a foreign `Origin` (`None`:
/// allowed).
pub(crate) fn check_origin(policy: &HostPolicy, req: &Request) -> Option<Response> {
    let origin = req.headers().get(header::ORIGIN)?;
    if origin.to_str().is_ok_and(|o| policy.allows_origin(o)) {
        return None;
    }
    Some(
        ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "requests from this Origin are not allowed",
        )
        .into_response(),
    )
}

/// Whether the request carries the bearer token (scheme matched case-insensitively, as
/// RFC 7235 says; token compared in constant time).
pub(crate) fn authorized(req: &Request, token: &Secret) -> bool {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .unwrap_or_default();
    given.as_bytes().ct_eq(token.expose().as_bytes()).into()
}

/// 401 with `WWW-Authenticate: Bearer`.
pub(crate) fn unauthorized() -> Response {
    let mut response = ApiError::new(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "a valid `Authorization: Bearer <token>` header is required",
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_pass_and_others_need_a_token_or_the_list() {
        let loopback = HostPolicy::new(false, &[]);
        for host in [
            "localhost",
            "localhost:8765",
            "127.0.0.1:1",
            "[::1]:80",
            "LOCALHOST",
        ] {
            assert!(loopback.allows_host(host), "{host}");
        }
        for host in ["evil.example", "evil.example:8765", "10.0.0.2", "", "a b"] {
            assert!(!loopback.allows_host(host), "{host}");
        }
        assert!(HostPolicy::new(true, &[]).allows_host("tools.example.com"));
        let listed = HostPolicy::new(true, &["tools.example.com".into(), "box:9000".into()]);
        assert!(listed.allows_host("tools.example.com:443"));
        assert!(listed.allows_host("box:9000"));
        assert!(!listed.allows_host("box:9001"));
        assert!(!listed.allows_host("other.example.com"));
        assert!(listed.allows_host("127.0.0.1:8765"));
    }

    #[test]
    fn origins_are_checked_by_their_host() {
        let loopback = HostPolicy::Loopback;
        assert!(loopback.allows_origin("http://localhost:3000"));
        assert!(!loopback.allows_origin("https://evil.example"));
        assert!(!loopback.allows_origin("null"));
        assert!(HostPolicy::Any.allows_origin("null"));
    }
}
