//! Name conventions of the datasets toolsmith reads, ported exactly so that a
//! dataset's tool and API names can be matched against the catalog.
//!
//! ToolBench (and AnyTool, DRAFT, EasyTool after it) derives every tool, API and
//! function name with [`standardize`] and [`change_name`]; RestGPT names an
//! endpoint `GET /movie/{movie_id}`; DRAFT's RestBench files name it
//! `GET_movie_movie_id`. These are written by hand because they must reproduce
//! the reference code bit for bit, quirks included.

/// The longest function name OpenAI-style tool calling accepts; ToolBench keeps
/// the *last* 64 characters of a longer name.
pub const MAX_FUNCTION_NAME: usize = 64;

/// ToolBench's `standardize`: every character outside `[A-Za-z0-9_]`, the CJK
/// block U+4E00..U+9FA5 and `^` becomes `_` (the reference regex lists `^`
/// inside its class, so `^` survives), runs of `_` collapse, the result is
/// lowercased and trimmed of `_`, and a leading digit gets the prefix `get_`.
pub fn standardize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let keep = c.is_ascii_alphanumeric()
            || c == '_'
            || c == '^'
            || ('\u{4e00}'..='\u{9fa5}').contains(&c);
        let c = if keep { c } else { '_' };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    let out = out.to_lowercase();
    let trimmed = out.trim_matches('_');
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        format!("get_{trimmed}")
    } else {
        trimmed.to_owned()
    }
}

/// ToolBench's `change_name`: a few Python keywords and reserved words get the
/// prefix `is_` when they stand alone as a parameter or API name.
pub fn change_name(name: &str) -> String {
    const RESERVED: [&str; 7] = ["from", "class", "return", "false", "true", "id", "and"];
    if RESERVED.contains(&name) {
        format!("is_{name}")
    } else {
        name.to_owned()
    }
}

/// The function name ToolBench gives an API in tool calling:
/// `change_name(standardize(api)) + "_for_" + standardize(tool)`, cut to its
/// last [`MAX_FUNCTION_NAME`] characters.
pub fn toolbench_function_name(tool_name: &str, api_name: &str) -> String {
    let full = format!(
        "{}_for_{}",
        change_name(&standardize(api_name)),
        standardize(tool_name)
    );
    last_chars(&full, MAX_FUNCTION_NAME).to_owned()
}

/// The name toolsmith gives an API in tool calling: ToolBench's
/// `<api>_for_<tool>` when it fits in [`MAX_FUNCTION_NAME`] characters, else a
/// readable short form. `tool` and `api` are catalog slugs (`[a-z0-9_]`).
///
/// Shortening keeps the front of the name (what the API does), unlike
/// ToolBench's cut of the first characters, and stops at the first step that fits:
/// 1. drop the HTTP method word that starts the API name (`get_`);
/// 2. drop a word repeated right after itself (`tv_tv_id` becomes `tv_id`, as
///    paths like `/tv/{tv_id}` produce);
/// 3. otherwise the name loses information, so it ends with a tag of 4 hex
///    digits of the API id's hash that keeps it unique: the tool's words are
///    abbreviated (6, 5, 4, 3 letters, then initials) until the tool part is at
///    most [`SHORT_TOOL`] characters, then the API's words (8 down to 3 letters),
///    then the API part is cut at its end.
///
/// Resolution from a name back to its API goes through the one mapping the
/// caller keeps (the solvers' `Toolset`); the tests check on TMDB and
/// ToolEnv2404 that no two APIs share a name.
pub fn function_name(tool: &str, api: &str) -> String {
    let api = change_name(api);
    let full = format!("{api}_for_{tool}");
    if full.len() <= MAX_FUNCTION_NAME && full.is_ascii() {
        return full;
    }
    let fits = |a: &[String], t: &[String], room: usize| {
        a.join("_").len() + "_for_".len() + t.join("_").len() <= room
    };
    let mut a = words(&api);
    let mut t = words(tool);
    if a.len() > 1
        && a.first()
            .is_some_and(|w| HTTP_METHODS.contains(&w.as_str()))
    {
        a.remove(0);
    }
    if fits(&a, &t, MAX_FUNCTION_NAME) {
        return format!("{}_for_{}", a.join("_"), t.join("_"));
    }
    a.dedup();
    t.dedup();
    if fits(&a, &t, MAX_FUNCTION_NAME) {
        return format!("{}_for_{}", a.join("_"), t.join("_"));
    }
    let tag = toolsmith_plumbing::json::sha256_hex(format!("{tool}/{api}"));
    let tag = tag.get(..4).unwrap_or(&tag);
    let room = MAX_FUNCTION_NAME - 1 - tag.len();
    for len in [6, 5, 4, 3, 1] {
        if fits(&a, &t, room) || t.join("_").len() <= SHORT_TOOL {
            break;
        }
        t = abbreviate(&t, len);
    }
    for len in [8, 6, 5, 4, 3] {
        if fits(&a, &t, room) {
            break;
        }
        a = abbreviate(&a, len);
    }
    let tool_part = t.join("_");
    let tool_part = tool_part
        .get(..SHORT_TOOL.min(tool_part.len()))
        .unwrap_or(&tool_part);
    let api_room = room.saturating_sub(tool_part.len() + "_for_".len());
    let api_part = a.join("_");
    let api_part = api_part
        .get(..api_room.min(api_part.len()))
        .unwrap_or(&api_part);
    format!("{}_for_{tool_part}_{tag}", api_part.trim_end_matches('_'))
}

/// The longest tool part a shortened function name keeps before abbreviating the API.
pub const SHORT_TOOL: usize = 24;

/// The HTTP method words an API name may start with (dropped first when shortening).
const HTTP_METHODS: [&str; 7] = ["get", "post", "put", "patch", "delete", "head", "options"];

/// The `_`-separated words of a slug, ASCII only (non-ASCII characters, which only
/// ToolBench's CJK-keeping names carry, are dropped).
fn words(slug: &str) -> Vec<String> {
    slug.split('_')
        .map(|w| {
            w.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every word cut to its first `len` characters.
fn abbreviate(words: &[String], len: usize) -> Vec<String> {
    words
        .iter()
        .map(|w| w.get(..len.min(w.len())).unwrap_or(w).to_owned())
        .collect()
}

/// DRAFT's RestBench name of an endpoint: the method followed by the path with
/// `/` turned into `_` and braces dropped (`GET /movie/{movie_id}` becomes
/// `GET_movie_movie_id`).
pub fn draft_endpoint_name(method: &str, path: &str) -> String {
    let path: String = path.chars().filter(|c| *c != '{' && *c != '}').collect();
    format!("{}{}", method.to_uppercase(), path.replace('/', "_"))
}

/// RestGPT's name of an endpoint: `GET /movie/{movie_id}`.
pub fn restgpt_endpoint_name(method: &str, path: &str) -> String {
    format!("{} {}", method.to_uppercase(), path)
}

/// A human-typeable identifier made from any name: ASCII letters, digits and
/// `_` only, lowercased, `_` runs collapsed, and `get_` before a leading
/// digit (so it matches [`standardize`] on plain ASCII names).
pub fn slug(raw: &str) -> String {
    let ascii: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    standardize(&ascii)
}

/// The last `n` characters of `s` (not bytes: names may hold CJK characters).
fn last_chars(s: &str, n: usize) -> &str {
    let count = s.chars().count();
    if count <= n {
        return s;
    }
    match s.char_indices().nth(count - n) {
        Some((at, _)) => &s[at..],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standardize_matches_toolbench_on_real_names() {
        let table = [
            (
                "Placeholder text API for your application",
                "placeholder_text_api_for_your_application",
            ),
            ("VIN Decoder_v4", "vin_decoder_v4"),
            ("  __Hello--World__ ", "hello_world"),
            ("4D Dream Dictionary", "get_4d_dream_dictionary"),
            ("Transfermarkt search", "transfermarkt_search"),
            ("a^b", "a^b"),
            ("汉字 api", "汉字_api"),
            ("", ""),
            ("___", ""),
            ("Ünïcode Tool", "n_code_tool"),
        ];
        for (raw, want) in table {
            assert_eq!(standardize(raw), want, "standardize({raw:?})");
        }
    }

    #[test]
    fn change_name_prefixes_reserved_words_only() {
        assert_eq!(change_name("from"), "is_from");
        assert_eq!(change_name("id"), "is_id");
        assert_eq!(change_name("ID"), "ID");
        assert_eq!(change_name("ids"), "ids");
    }

    #[test]
    fn function_names_keep_the_last_64_characters() {
        assert_eq!(
            toolbench_function_name("VIN Decoder_v4", "VIN Decode"),
            "vin_decode_for_vin_decoder_v4"
        );
        assert_eq!(
            toolbench_function_name("Some Tool", "From"),
            "is_from_for_some_tool"
        );
        let long = toolbench_function_name(
            "An Extremely Long Tool Name That Goes On And On",
            "Get the list of all the things in the world",
        );
        assert_eq!(long.chars().count(), MAX_FUNCTION_NAME);
        assert!(long.ends_with("_for_an_extremely_long_tool_name_that_goes_on_and_on"));
    }

    #[test]
    fn long_function_names_keep_their_front() {
        assert_eq!(
            function_name("vin_decoder_v4", "vin_decode"),
            "vin_decode_for_vin_decoder_v4"
        );
        assert_eq!(function_name("t", "from"), "is_from_for_t");
        // Dropping the method (then repeated words) is enough: no tag.
        let api = "get_tv_tv_id_season_season_number_episode_episode_number_images";
        assert_eq!(
            function_name("tmdb", api),
            "tv_id_season_number_episode_number_images_for_tmdb"
        );
        // Beyond that the name is abbreviated and tagged so that it stays unique.
        let tool = "jabatix_loan_services";
        let a = function_name(
            tool,
            "retrievalofriskratiosforloansviaid_companyandgaapatspecificpostingdate",
        );
        let b = function_name(
            tool,
            "retrievalofaccountingtransactionsandrelatedratiosforloansviaid_companyandgaapatspecificpostingdate",
        );
        assert_ne!(a, b);
        for name in [&a, &b] {
            assert!(name.len() <= MAX_FUNCTION_NAME, "{name}");
            assert!(name.starts_with("retrieva"), "{name}");
            assert!(name.contains("_for_jabatix_loan_services_"), "{name}");
        }
        let huge_tool = "a_very_long_tool_name_that_keeps_going_and_going_and_going_forever";
        let name = function_name(huge_tool, "search");
        assert!(
            name.len() <= MAX_FUNCTION_NAME && name.starts_with("search_for_"),
            "{name}"
        );
    }

    #[test]
    fn endpoint_names_follow_restgpt_and_draft() {
        assert_eq!(
            draft_endpoint_name("get", "/movie/{movie_id}/keywords"),
            "GET_movie_movie_id_keywords"
        );
        assert_eq!(
            restgpt_endpoint_name("get", "/search/person"),
            "GET /search/person"
        );
    }

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("GET_movie-movie_id"), "get_movie_movie_id");
        assert_eq!(slug("汉字 api"), "api");
        assert_eq!(slug("2fa"), "get_2fa");
        assert_eq!(slug("a^b"), "a_b");
    }
}
