//! Ids in the form the spec shows: where a field's examples (or, failing
//! those, most of the tool's example ids) are 22 base62 characters, a drafted
//! id is 22 base62 characters too, not a 12-hex placeholder that gives itself
//! away when a model copies it into an answer. A shape is an optional literal
//! prefix the examples share (`tt` of `tt0137523`), an alphabet and a length.
//! A URI naming a thing by its id keeps the `scheme:kind:id` form its examples share
//! ([`UriShape`]: `spotify:artist:<id>`, where a scheme of the drafter's own,
//! `urn:artist:<id>`, told a model nothing it could use).
//! An id of another registry an example gives (`imdb_id: tt0137523`, `isrc`) is the
//! example's: each entity draws one of its own in that shape ([`like`]), where every
//! film drafted had the example's `imdb_id`.

use super::rng::Rng;

/// Most example ids a tool keeps for its shape.
pub(crate) const MAX_SAMPLES: usize = 256;

/// The characters an id is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Alphabet {
    Digits,
    HexLower,
    HexUpper,
    Lower,
    Upper,
    Lower36,
    Upper36,
    Base62,
}

impl Alphabet {
    /// The alphabet of a non-empty ASCII alphanumeric text.
    fn of(text: &str) -> Self {
        let has = |f: fn(&u8) -> bool| text.as_bytes().iter().any(f);
        let (upper, lower, digit) = (
            has(u8::is_ascii_uppercase),
            has(u8::is_ascii_lowercase),
            has(u8::is_ascii_digit),
        );
        let hex_only = text.bytes().all(|b| b.is_ascii_hexdigit());
        match (upper, lower, digit) {
            (false, false, _) => Self::Digits,
            (true, true, _) => Self::Base62,
            (false, true, true) if hex_only => Self::HexLower,
            (true, false, true) if hex_only => Self::HexUpper,
            (false, true, true) => Self::Lower36,
            (true, false, true) => Self::Upper36,
            (false, true, false) => Self::Lower,
            (true, false, false) => Self::Upper,
        }
    }

    fn chars(self) -> &'static [u8] {
        const BASE62: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        match self {
            Self::Digits => b"0123456789",
            Self::HexLower => b"0123456789abcdef",
            Self::HexUpper => b"0123456789ABCDEF",
            Self::Lower => b"abcdefghijklmnopqrstuvwxyz",
            Self::Upper => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            Self::Lower36 => b"0123456789abcdefghijklmnopqrstuvwxyz",
            Self::Upper36 => b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            Self::Base62 => BASE62,
        }
    }
}

/// How the ids of a field look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IdShape {
    prefix: String,
    alphabet: Alphabet,
    len: usize,
}

impl IdShape {
    /// The shape most of `samples` share, when at least `share` of them (0 to 1) do.
    /// Samples that are not a prefix and letters and digits count against it.
    pub(crate) fn of(samples: &[&str], share: f64) -> Option<Self> {
        let samples: Vec<&str> = samples.iter().copied().filter(|s| !s.is_empty()).collect();
        let prefix = common_prefix(&samples);
        let mut groups: Vec<(Alphabet, usize, usize)> = Vec::new();
        for sample in &samples {
            let rest = sample.get(prefix.len()..).unwrap_or_default();
            if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            let key = (Alphabet::of(rest), rest.len());
            match groups.iter_mut().find(|(a, l, _)| (*a, *l) == key) {
                Some(group) => group.2 += 1,
                None => groups.push((key.0, key.1, 1)),
            }
        }
        let (alphabet, len, count) = groups.into_iter().max_by_key(|g| g.2)?;
        let enough = count as f64 >= share * samples.len() as f64;
        enough.then_some(Self {
            prefix: prefix.to_owned(),
            alphabet,
            len,
        })
    }

    /// A new id of this shape, drawn from `rng` (a number never starts with `0`).
    pub(crate) fn mint(&self, rng: &mut Rng) -> String {
        let chars = self.alphabet.chars();
        let mut out = self.prefix.clone();
        for i in 0..self.len {
            let from = if i == 0 && self.alphabet == Alphabet::Digits && self.len > 1 {
                chars.get(1..).unwrap_or(chars)
            } else {
                chars
            };
            out.push(char::from(
                from.get(rng.index(from.len())).copied().unwrap_or(b'0'),
            ));
        }
        out
    }
}

/// The `scheme:kind:id` form the examples of a field share
/// (`spotify:track:6rqhFgbbKwnb9MLmUQDhG6`): its scheme, and its kind when they all
/// name one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UriShape {
    scheme: String,
    kind: Option<String>,
}

impl UriShape {
    /// The form all of `examples` share, when there is at least one and each is a
    /// `scheme:kind:id` of one scheme (a letter first, then letters and digits), a kind of
    /// letters and an id of letters and digits.
    pub(crate) fn of<'t>(examples: impl IntoIterator<Item = &'t str>) -> Option<Self> {
        let mut shape: Option<Self> = None;
        for example in examples {
            let mut parts = example.trim_end().split(':');
            let (Some(scheme), Some(kind), Some(id), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return None;
            };
            let word = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme.bytes().all(|b| b.is_ascii_alphanumeric())
                && !kind.is_empty()
                && kind.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
                && !id.is_empty()
                && id.bytes().all(|b| b.is_ascii_alphanumeric());
            if !word {
                return None;
            }
            match &mut shape {
                None => {
                    shape = Some(Self {
                        scheme: scheme.to_owned(),
                        kind: Some(kind.to_owned()),
                    });
                }
                Some(known) if known.scheme != scheme => return None,
                Some(known) => {
                    if known.kind.as_deref() != Some(kind) {
                        known.kind = None;
                    }
                }
            }
        }
        shape
    }

    /// The same form for things of any kind: its scheme only.
    pub(crate) fn of_any_kind(self) -> Self {
        Self { kind: None, ..self }
    }

    /// The URI of the thing `id` of kind `kind`, when the examples name that kind or none
    /// (a track's form is no artist's).
    pub(crate) fn uri(&self, kind: &str, id: &str) -> Option<String> {
        let named = self.kind.as_deref().unwrap_or(kind);
        named
            .eq_ignore_ascii_case(kind)
            .then(|| format!("{}:{named}:{id}", self.scheme))
    }
}

/// The letters (and `_`, `-`, `:`) every one of two or more samples starts with; of a
/// single sample, the letters before its digits (`tt` of `tt0137523`).
fn common_prefix<'s>(samples: &[&'s str]) -> &'s str {
    let [first, rest @ ..] = samples else {
        return "";
    };
    if rest.is_empty() {
        let letters = first.bytes().take_while(u8::is_ascii_alphabetic).count();
        let tail = first.get(letters..).unwrap_or_default();
        let numbered = letters > 0 && !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit());
        return if numbered {
            first.get(..letters).unwrap_or_default()
        } else {
            ""
        };
    }
    let shared = rest.iter().fold(first.len(), |n, s| {
        first
            .bytes()
            .zip(s.bytes())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let literal = first
        .bytes()
        .take(shared)
        .take_while(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-' | b':'))
        .count();
    first.get(..literal).unwrap_or_default()
}

/// Whether a field's or parameter's name says it holds an identifier: `id`, `movie_id`,
/// `order-id`, `userId`.
pub(crate) fn names_id(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id" || lower.ends_with("_id") || lower.ends_with("-id") || name.ends_with("Id")
}

/// Names of a thing's ids in registries of others that no `_id` suffix marks (a
/// recording's `isrc`, an album's `upc`).
const EXTERNAL_ID_NAMES: &[&str] = &["isrc", "upc", "ean", "isbn", "issn", "isni"];

/// Whether a field names an id other than the entity's own `id` (`imdb_id`, `isrc`):
/// an example's value of it is the example entity's, so every entity draws its own.
pub(crate) fn names_other_id(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    (names_id(name) && lower != "id") || EXTERNAL_ID_NAMES.contains(&lower.as_str())
}

/// An id in the shape of `example` (`tt` and seven digits for `tt0137523`), drawn from
/// `rng`; `example` itself when it shows no shape.
pub(crate) fn like(example: String, rng: &mut Rng) -> String {
    IdShape::of(&[example.as_str()], 1.0).map_or(example, |shape| shape.mint(rng))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn shapes_follow_the_samples() {
        let base62 = ["2up3OPMp9Tb4dAKM2erWXQ", "5Xt5DXGzch68nYYamXrNxZ", "equal"];
        let shape = IdShape::of(&base62, 0.5).unwrap();
        assert!(IdShape::of(&base62, 0.9).is_none());
        for seed in 0..20 {
            let id = shape.mint(&mut Rng::new(seed));
            assert_eq!(id.len(), 22, "{id}");
            assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
        }
        for samples in [&["tt0137523", "tt1375666"][..], &["tt0137523"][..]] {
            let imdb = IdShape::of(samples, 1.0).unwrap();
            let id = imdb.mint(&mut Rng::new(3));
            assert!(id.starts_with("tt") && id.len() == 9, "{id}");
            assert!(id[2..].bytes().all(|b| b.is_ascii_digit()), "{id}");
        }
        let word = IdShape::of(&["equal"], 1.0).unwrap();
        assert_eq!(word.mint(&mut Rng::new(1)).len(), 5);
        let digits = IdShape::of(&["4871203"], 1.0).unwrap();
        let id = digits.mint(&mut Rng::new(9));
        assert!(id.len() == 7 && !id.starts_with('0') && id.parse::<u64>().is_ok());
        let hex = IdShape::of(&["52fe4250c3a36847f80149f3"], 1.0).unwrap();
        assert_eq!(hex.alphabet, Alphabet::HexLower);
        assert!(IdShape::of(&["spotify:user:abc def"], 1.0).is_none());
        assert!(names_id("playlist_id") && names_id("userId") && !names_id("valid"));
    }

    #[test]
    fn uris_keep_the_form_their_examples_share() {
        let tracks = [
            "spotify:track:6rqhFgbbKwnb9MLmUQDhG6",
            "spotify:track:2takcwOaAZ",
        ];
        let track = UriShape::of(tracks).unwrap();
        assert_eq!(
            track.uri("track", "abc1").as_deref(),
            Some("spotify:track:abc1")
        );
        assert_eq!(track.uri("artist", "abc1"), None, "another kind's form");
        let scheme = track.of_any_kind().uri("artist", "abc1");
        assert_eq!(scheme.as_deref(), Some("spotify:artist:abc1"));
        let mixed = UriShape::of(["spotify:album:2up3OPMp9T", "spotify:episode:512ojhOuo"]);
        let any = mixed.unwrap();
        assert_eq!(
            any.uri("artist", "x9").as_deref(),
            Some("spotify:artist:x9")
        );
        for odd in [
            &["https://api.spotify.com/v1/tracks/1"][..],
            &["spotify:track:1", "deezer:track:2"][..],
            &["12:30:45"][..],
            &[][..],
        ] {
            assert_eq!(UriShape::of(odd.iter().copied()), None, "{odd:?}");
        }
    }
}
