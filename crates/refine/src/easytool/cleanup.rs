//! EasyTool's deterministic clean-up (§3.1): drop what does not help a model use a tool
//! (hosts and URLs, pricing and plan talk, product ids, marketing and contact boilerplate)
//! and unify the whitespace, before any model reads the doc; then fix what lint finds and
//! can fix mechanically ([`fix_lint`]).

use toolsmith_catalog::Api;
use toolsmith_catalog::lint::unknown_params_named;

/// Phrases that mark a sentence as pricing, plans or boilerplate (matched lowercased).
const DROP_SENTENCES_WITH: &[&str] = &[
    "pricing",
    "per month",
    "/month",
    "per year",
    "free plan",
    "free tier",
    "paid plan",
    "premium plan",
    "subscribe",
    "subscription",
    "sign up",
    "contact us",
    "contact me",
    "email us",
    "visit our",
    "for more information",
    "for more info",
    "check out our",
    "customer support",
    "feel free to",
    "don't hesitate",
    "do not hesitate",
    "enjoy!",
    "happy coding",
    "best api",
    "world's leading",
];

/// Top-level domains of bare host names (`api.example.com`).
const HOST_SUFFIXES: &[&str] = &[".com", ".io", ".net", ".org", ".dev", ".app", ".co", ".ai"];

/// Shortest token taken for a product id (a UUID or a long hex or digit run).
const MIN_ID_CHARS: usize = 16;

/// The text with URLs, hosts, product ids and pricing or boilerplate sentences removed. A
/// text that would become empty is returned trimmed instead (it has nothing else to say).
pub(crate) fn clean(text: &str) -> String {
    let kept: Vec<String> = sentences(text)
        .into_iter()
        .filter(|s| {
            let lower = s.to_lowercase();
            !DROP_SENTENCES_WITH.iter().any(|p| lower.contains(p)) && !has_price(&lower)
        })
        .map(|s| {
            s.split_whitespace()
                .filter(|t| !is_url_or_host(t) && !is_product_id(t))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect();
    let cleaned = kept.join(" ");
    if cleaned.is_empty() {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        cleaned
    }
}

/// `text` with what lint finds and can fix without a model fixed: a parameter the API does
/// not have, named where it has one of the same name up to case and separators
/// (`vote_count_gte` for `vote_count.gte`), takes the real name; a sentence naming a
/// parameter that matches none is dropped (a model would send it and fail); an empty
/// description becomes the API's name.
pub(crate) fn fix_lint(api: &Api, text: &str) -> String {
    let mut text = text.to_owned();
    for name in unknown_params_named(api, &text) {
        if let Some(real) = api.params.iter().find(|p| loose(&p.name) == loose(&name)) {
            text = replace_word(&text, &name, &real.name);
        }
    }
    let unknown = unknown_params_named(api, &text);
    if !unknown.is_empty() {
        let kept: Vec<String> = sentences(&text)
            .into_iter()
            .filter(|s| unknown_params_named(api, s).is_empty())
            .collect();
        if !kept.is_empty() {
            text = kept.join(" ");
        }
    }
    if text.trim().is_empty() {
        return api.name.trim().to_owned();
    }
    text
}

/// A parameter name without case or separators.
fn loose(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// `text` with every whole-word `from` replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_owned();
    }
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest.get(..at).and_then(|s| s.chars().next_back());
        let after = rest.get(at + from.len()..).and_then(|s| s.chars().next());
        // A trailing `.` ends a sentence, not the name.
        let after_ok = match after {
            Some('.') => rest
                .get(at + from.len() + 1..)
                .and_then(|s| s.chars().next())
                .is_none_or(|c| !is_word(c)),
            Some(c) => !is_word(c),
            None => true,
        };
        let end = at + from.len();
        out.push_str(rest.get(..at).unwrap_or_default());
        if !before.is_some_and(is_word) && after_ok {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        rest = rest.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Sentences, cut after `.`, `!` or `?` followed by whitespace, and at line breaks.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut current = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            current.push(c);
            if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|n| n.is_whitespace()) {
                out.push(std::mem::take(&mut current).trim().to_owned());
            }
        }
        if !current.trim().is_empty() {
            out.push(current.trim().to_owned());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// A currency sign followed by a digit (`$9.99`, `€5`).
fn has_price(lower: &str) -> bool {
    let chars: Vec<char> = lower.chars().collect();
    chars
        .windows(2)
        .any(|w| matches!(w[0], '$' | '€' | '£') && w[1].is_ascii_digit())
}

fn is_url_or_host(token: &str) -> bool {
    let t =
        token.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';' | '"' | '\'' | '<' | '>'));
    let t = t.trim_end_matches('.').to_lowercase();
    t.contains("://")
        || t.starts_with("www.")
        || (t.contains('.')
            && !t.contains(' ')
            && HOST_SUFFIXES
                .iter()
                .any(|s| t.ends_with(s) || t.contains(&format!("{s}/"))))
}

fn is_product_id(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    t.len() >= MIN_ID_CHARS
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_hosts_urls_prices_ids_and_boilerplate_but_keeps_the_function() {
        let doc = "Get the current price of a stock by its ticker. Host: stocks.p.rapidapi.com \
                   Docs at https://example.com/docs. Pricing: $9.99 per month for the pro plan! \
                   Product 3f2b9c1e-8d4a-4e55-9a0b-2c7d1e9f0a11 is ours.\n\
                   For more information, contact us at support@example.com. Enjoy!";
        let cleaned = clean(doc);
        assert_eq!(
            cleaned,
            "Get the current price of a stock by its ticker. Host: Docs at Product is ours."
        );
    }

    #[test]
    fn near_miss_parameter_names_are_corrected_and_unknown_ones_dropped() {
        let api: Api = serde_json::from_value(serde_json::json!({
            "id": "movies/discover", "name": "Discover movies", "source_name": "discover",
            "endpoint": {"kind": "function", "name": "discover"},
            "params": [{"name": "vote_count.gte", "location": "query", "required": false,
                        "schema": {"type": "integer"}, "description": ""}],
            "request_body": null, "response_schema": null, "response_examples": []
        }))
        .unwrap();
        let fixed = fix_lint(
            &api,
            "Discovers movies. Set the `vote_count_gte` parameter to a minimum. \
             Use the `lang` parameter for a language.",
        );
        assert_eq!(
            fixed,
            "Discovers movies. Set the `vote_count.gte` parameter to a minimum."
        );
        assert!(unknown_params_named(&api, &fixed).is_empty());
        assert_eq!(fix_lint(&api, ""), "Discover movies");
        assert_eq!(
            replace_word("a_b a_bc xa_b a_b.", "a_b", "c"),
            "c a_bc xa_b c."
        );
    }

    #[test]
    fn a_doc_that_is_all_boilerplate_is_kept_trimmed() {
        assert_eq!(clean("  Subscribe   now!  "), "Subscribe now!");
        assert_eq!(clean("Search  movies\nby title"), "Search movies by title");
    }
}
