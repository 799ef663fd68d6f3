//! Strings that match a schema's `pattern`: the regex is parsed (with
//! `regex-syntax`) and walked, each choice drawn from the simulator's seeded
//! generator, so the same seed gives the same string. Unbounded repeats
//! stop after a few rounds, and the whole string stays short.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::rng::Rng;

/// Extra rounds an unbounded repeat (`*`, `+`, `{2,}`) takes at most.
const OPEN_REPEAT: u32 = 3;
/// The longest string drawn.
const MAX_CHARS: usize = 64;

/// A string matching `pattern`, or `None` when the pattern does not parse
/// (look-arounds and back-references, which JSON Schema allows) or cannot
/// be met within the bounds.
pub(crate) fn matching(pattern: &str, rng: &mut Rng) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(pattern)
        .ok()?;
    let mut out = String::new();
    draw(&hir, rng, &mut out).then_some(out)
}

/// Appends a string of `hir` to `out`; false when it cannot (an empty
/// class, or past the length bound).
fn draw(hir: &Hir, rng: &mut Rng, out: &mut String) -> bool {
    if out.chars().count() > MAX_CHARS {
        return false;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => true,
        HirKind::Literal(literal) => match std::str::from_utf8(&literal.0) {
            Ok(text) => {
                out.push_str(text);
                true
            }
            Err(_) => false,
        },
        HirKind::Class(class) => match pick(class, rng) {
            Some(c) => {
                out.push(c);
                true
            }
            None => false,
        },
        HirKind::Repetition(rep) => {
            let extra = match rep.max {
                Some(max) => max.saturating_sub(rep.min).min(OPEN_REPEAT * 2),
                None => OPEN_REPEAT,
            };
            let rounds = rep.min + u32::try_from(rng.below(u64::from(extra) + 1)).unwrap_or(0);
            (0..rounds).all(|_| draw(&rep.sub, rng, out))
        }
        HirKind::Capture(capture) => draw(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().all(|p| draw(p, rng, out)),
        HirKind::Alternation(alts) => alts
            .get(rng.index(alts.len()))
            .is_some_and(|alt| draw(alt, rng, out)),
    }
}

/// One character of a class, preferring printable ASCII letters and digits
/// where the class has them (so `.` and `[^/]` give readable text).
fn pick(class: &Class, rng: &mut Rng) -> Option<char> {
    let ranges: Vec<(u32, u32)> = match class {
        Class::Unicode(u) => u
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect(),
        Class::Bytes(b) => b
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end().min(0x7f))))
            .filter(|(lo, hi)| lo <= hi)
            .collect(),
    };
    let readable: Vec<(u32, u32)> = [(0x30, 0x39), (0x41, 0x5a), (0x61, 0x7a)]
        .iter()
        .flat_map(|(lo, hi)| {
            ranges
                .iter()
                .map(move |(a, b)| ((*a).max(*lo), (*b).min(*hi)))
                .filter(|(a, b)| a <= b)
        })
        .collect();
    let pool = if readable.is_empty() {
        &ranges
    } else {
        &readable
    };
    let (lo, hi) = *pool.get(rng.index(pool.len()))?;
    let offset = u32::try_from(rng.below(u64::from(hi - lo) + 1)).unwrap_or(0);
    char::from_u32(lo + offset).or_else(|| char::from_u32(lo))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn drawn_strings_match_their_patterns() {
        let patterns = [
            r"^[a-z0-9-]{3,12}$",
            r"^\d{4}-\d{2}-\d{2}$",
            r"^[A-Z]{2}\d{6}$",
            r"^(sfo|nyc|ams)[1-3]$",
            r"^[0-9a-f]{8}-[0-9a-f]{4}$",
            r"^s-[0-9]+vcpu-[0-9]+gb$",
            r"^[^/]+$",
        ];
        for pattern in patterns {
            for seed in 0..20 {
                let text = matching(pattern, &mut Rng::new(seed)).unwrap();
                let schema = serde_json::json!({"type": "string", "pattern": pattern});
                let validator = jsonschema::validator_for(&schema).unwrap();
                assert!(
                    validator.is_valid(&serde_json::Value::String(text.clone())),
                    "{pattern}: {text:?}"
                );
            }
        }
        assert!(matching(r"(?=a)b", &mut Rng::new(1)).is_none());
    }
}
