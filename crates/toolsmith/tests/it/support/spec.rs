//! Small OpenAPI specs the tests import.

use serde_json::{Value, json};

/// An OpenAPI spec titled `title` (server `https://<title>.example`) of GET APIs, one per
/// `(operationId, path, summary)`, each taking a required query parameter `q`.
pub(crate) fn get_apis(title: &str, apis: &[(&str, &str, &str)]) -> Value {
    let paths: serde_json::Map<String, Value> = apis
        .iter()
        .map(|(op, path, summary)| {
            let get = json!({"get": {"operationId": op, "summary": summary,
                "parameters": [{"name": "q", "in": "query", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}});
            ((*path).to_owned(), get)
        })
        .collect();
    json!({"openapi": "3.0.0", "info": {"title": title, "version": "1"},
        "servers": [{"url": format!("https://{title}.example")}], "paths": paths})
}

/// One GET API of [`get_apis`]: `(operationId, path, summary)`.
pub(crate) type Api = (&'static str, &'static str, &'static str);

/// A small `city` API ([`get_apis`]) whose requests mix air and mail words, in this order: the
/// air quality, air forecast and city report APIs; `mail_send`, `mail_inbox`, then
/// `more_mail`; the status API `service_uptime`, summarized as `uptime` (how many words it
/// shares with a request is what a test is about); `search_movie`, `movie_credits`, then
/// `more_film`.
pub(crate) fn city(uptime: &'static str, more_mail: &[Api], more_film: &[Api]) -> Value {
    let mut apis: Vec<Api> = vec![
        (
            "air_quality",
            "/air/quality",
            "The latest air quality report of a city",
        ),
        (
            "air_forecast",
            "/air/forecast",
            "Air quality forecast of a city for the next days",
        ),
        (
            "city_report",
            "/city/report",
            "The latest report on a city: population and air quality",
        ),
        (
            "mail_send",
            "/mail/send",
            "Send a message through a mail provider's API",
        ),
        (
            "mail_inbox",
            "/mail/inbox",
            "Read the inbox of an account at a mail provider's API",
        ),
    ];
    apis.extend_from_slice(more_mail);
    apis.push(("service_uptime", "/service/uptime", uptime));
    apis.push((
        "search_movie",
        "/search/movie",
        "Search movies by their title",
    ));
    apis.push((
        "movie_credits",
        "/movie/credits",
        "The cast and crew of a movie",
    ));
    apis.extend_from_slice(more_film);
    get_apis("city", &apis)
}
