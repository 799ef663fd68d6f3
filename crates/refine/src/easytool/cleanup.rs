//! EasyTool's deterministic clean-up (§3.1): drop what does not help a model use a tool
//! (hosts and URLs, pricing and plan talk, product ids, marketing and contact boilerplate)
//! and unify the whitespace, before any model reads the doc.

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
    fn a_doc_that_is_all_boilerplate_is_kept_trimmed() {
        assert_eq!(clean("  Subscribe   now!  "), "Subscribe now!");
        assert_eq!(clean("Search  movies\nby title"), "Search movies by title");
    }
}
