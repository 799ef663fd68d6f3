//! Hiding credentials in URLs before they reach an error or a log.

/// The URL without user, password or query string, for errors and logs.
pub(crate) fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            // Both only fail for URLs that cannot have credentials, which then have none.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => {
            let no_query = url.split(['?', '#']).next().unwrap_or_default();
            match no_query.split_once("://") {
                Some((scheme, rest)) => match rest.split_once('@') {
                    Some((_, host)) => format!("{scheme}://{host}"),
                    None => no_query.to_owned(),
                },
                None => no_query.to_owned(),
            }
        }
    }
}
