//! How numbers are read off the wire, so that the server takes exactly what `/openapi.json`
//! describes: a JSON Schema `integer` is any number without a fractional part (`28.0` is one),
//! and an optional one may be `null` (the same as leaving it out).

use serde::{Deserialize, Deserializer, de::Error as _};
use serde_json::Number;

/// The whole number `n` stands for, if it is one that fits a `usize`.
fn whole(n: &Number) -> Option<usize> {
    if let Some(u) = n.as_u64() {
        return usize::try_from(u).ok();
    }
    let f = n.as_f64()?;
    // `-0.0` is zero; 2^64 and beyond (or any fraction) is not a usize.
    if f.fract() != 0.0 || !(0.0..18_446_744_073_709_551_616.0).contains(&f) {
        return None;
    }
    // In range and whole: the cast is exact.
    usize::try_from(f as u64).ok()
}

/// An optional count in a JSON body: absent or `null` is `None`; `28` and `28.0` are 28;
/// a negative number, a fraction or anything else is an error.
pub(crate) fn optional_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    match Option::<Number>::deserialize(d)? {
        None => Ok(None),
        Some(n) => whole(&n)
            .map(Some)
            .ok_or_else(|| D::Error::custom(format!("{n} is not a whole number of 0 or more"))),
    }
}

/// The most a paging parameter (`offset`, `limit`) may be: what the document gives as its
/// `maximum`.
pub(crate) const MAX_PAGING: u32 = u32::MAX;

/// A paging parameter of a query string, at most [`MAX_PAGING`].
pub(crate) fn paging<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = u32::deserialize(d)?;
    usize::try_from(n).map_err(D::Error::custom)
}

/// An optional paging parameter of a query string, at most [`MAX_PAGING`].
pub(crate) fn optional_paging<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    paging(d).map(Some)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Body {
        #[serde(default, deserialize_with = "super::optional_count")]
        k: Option<usize>,
    }

    fn k(body: serde_json::Value) -> Result<Option<usize>, serde_json::Error> {
        serde_json::from_value::<Body>(body).map(|b| b.k)
    }

    #[test]
    fn counts_are_whole_numbers_or_null() {
        assert_eq!(k(json!({})).unwrap(), None);
        assert_eq!(k(json!({"k": null})).unwrap(), None);
        assert_eq!(k(json!({"k": 28})).unwrap(), Some(28));
        assert_eq!(k(json!({"k": 28.0})).unwrap(), Some(28));
        assert_eq!(k(json!({"k": -0.0})).unwrap(), Some(0));
        assert_eq!(k(json!({"k": 1e3})).unwrap(), Some(1000));
        for bad in [
            json!(2.5),
            json!(-1),
            json!(-3.0),
            json!(1e20),
            json!("3"),
            json!(true),
        ] {
            assert!(k(json!({ "k": bad })).is_err(), "{bad} is refused");
        }
    }
}
