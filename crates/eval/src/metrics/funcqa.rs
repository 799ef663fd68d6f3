//! FuncQA accuracy (ToolkenGPT's arithmetic benchmark, as EasyTool evaluates it): a numeric
//! answer counts as correct within a relative tolerance of 0.1 % of the gold value.

/// The relative tolerance: `|pred - gold| <= 0.001 · |gold|`.
pub const FUNCQA_TOLERANCE: f64 = 0.001;

/// Whether `pred` matches `gold` within [`FUNCQA_TOLERANCE`] of `|gold|`; a gold value of 0
/// needs exactly 0. NaN never matches.
pub fn funcqa_correct(pred: f64, gold: f64) -> bool {
    if gold == 0.0 {
        pred == 0.0
    } else {
        (pred - gold).abs() <= FUNCQA_TOLERANCE * gold.abs()
    }
}

/// Whether an answer text states the gold number: [`extract_number`], then
/// [`funcqa_correct`]. A text with no number is wrong.
pub fn funcqa_answer_correct(answer: &str, gold: f64) -> bool {
    extract_number(answer).is_some_and(|pred| funcqa_correct(pred, gold))
}

/// The number an answer text gives as its result:
/// 1. the first number after the last `=` (`0.89^8 = 0.3936`), else
/// 2. the first number after the last "answer" (any case: `The answer is 5489 dollars`), else
/// 3. the last number in the text (`... so the car keeps 0.3936`).
///
/// Numbers may carry a sign (a `-` not preceded by a letter or digit, so dates are not negative
/// numbers), thousands commas (`20,176,139.4`), a fraction and an exponent (`1.2e-5`). A
/// sentence's final period is not part of the number.
pub fn extract_number(text: &str) -> Option<f64> {
    let numbers = scan_numbers(text);
    let after = |marker: usize| numbers.iter().find(|(at, _)| *at >= marker).map(|n| n.1);
    // ASCII lowercasing keeps byte offsets, so positions in both texts agree.
    text.rfind('=')
        .and_then(after)
        .or_else(|| text.to_ascii_lowercase().rfind("answer").and_then(after))
        .or_else(|| numbers.last().map(|n| n.1))
}

/// Every number in `text` with the byte offset where it starts.
fn scan_numbers(text: &str) -> Vec<(usize, f64)> {
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_number = digit(i) || (bytes[i] == b'.' && digit(i + 1));
        let word_before = i > 0 && bytes[i - 1].is_ascii_alphanumeric();
        if !starts_number || (word_before && !digit(i)) {
            i += 1;
            continue;
        }
        let negative =
            i > 0 && bytes[i - 1] == b'-' && !(i > 1 && bytes[i - 2].is_ascii_alphanumeric());
        let start = if negative { i - 1 } else { i };
        let mut text_num = String::new();
        if negative {
            text_num.push('-');
        }
        // Integer part, with commas that group exactly three digits.
        while digit(i) {
            text_num.push(char::from(bytes[i]));
            i += 1;
            let grouped = (1..=3).all(|k| digit(i + k)) && !digit(i + 4);
            if bytes.get(i) == Some(&b',') && grouped {
                i += 1;
            }
        }
        if bytes.get(i) == Some(&b'.') && digit(i + 1) {
            text_num.push('.');
            i += 1;
            while digit(i) {
                text_num.push(char::from(bytes[i]));
                i += 1;
            }
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(bytes.get(i + 1), Some(b'+' | b'-')));
            if digit(i + 1 + sign) {
                text_num.push('e');
                if sign == 1 {
                    text_num.push(char::from(bytes[i + 1]));
                }
                i += 1 + sign;
                while digit(i) {
                    text_num.push(char::from(bytes[i]));
                    i += 1;
                }
            }
        }
        if let Ok(n) = text_num.parse::<f64>() {
            out.push((start, n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_a_tenth_of_a_percent_of_gold() {
        assert!(funcqa_correct(0.3936, 0.3936));
        // 0.1 % of 1000 is 1: 1001 is in, 1001.5 is out.
        assert!(funcqa_correct(1001.0, 1000.0));
        assert!(funcqa_correct(999.0, 1000.0));
        assert!(!funcqa_correct(1001.5, 1000.0));
        // Negative gold uses |gold|.
        assert!(funcqa_correct(-3.4915, -3.4881));
        assert!(!funcqa_correct(3.4881, -3.4881));
        // Gold 0 needs exactly 0.
        assert!(funcqa_correct(0.0, 0.0));
        assert!(!funcqa_correct(1e-9, 0.0));
        assert!(!funcqa_correct(f64::NAN, 1.0));
    }

    #[test]
    fn numbers_are_extracted_from_answer_texts() {
        let n = |t: &str| extract_number(t);
        assert_eq!(n("0.89^8 = 0.3936 (8 years)"), Some(0.3936));
        assert_eq!(n("The answer is 5489 dollars after 2 years."), Some(5489.0));
        assert_eq!(n("After 8 years the car keeps 0.3936."), Some(0.3936));
        assert_eq!(n("In total 20,176,139.4 people"), Some(20_176_139.4));
        assert_eq!(n("log is -3.4881"), Some(-3.4881));
        assert_eq!(n("roughly 1.2e-5 of it"), Some(1.2e-5));
        assert_eq!(n("values 2, 3 and 4"), Some(4.0));
        assert_eq!(n("on 2020-01-09 it was"), Some(9.0));
        assert_eq!(n(".5 of a pie"), Some(0.5));
        assert_eq!(n("x=-2"), Some(-2.0));
        // Letters glued to digits: the digits still count, a dash after a letter is no sign.
        assert_eq!(n("mp3-4"), Some(4.0));
        assert_eq!(n("no number here"), None);
        assert_eq!(n(""), None);
        assert!(funcqa_answer_correct("The result is 2.2481 m³", 2.2481));
        assert!(!funcqa_answer_correct("I could not compute it", 2.2481));
    }
}
