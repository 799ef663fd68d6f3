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

/// The number an answer text gives as its result.
///
/// Text in brackets (`(535323 x 0.97^3)`, `[rounded]`) is a working, not the result, and is
/// read only when nothing outside brackets is a number; a number right after `^` or `**` is an
/// exponent (`m^2`, `0.97^3`), never the result; `4.5 x 10^3` is read as 4500. Of what is
/// left, the result is:
/// 1. after the last "answer" (any case): the first stated number (below) after it, else the
///    first number after it (`The answer is 5489 dollars`);
/// 2. else the last stated number: one introduced by `=`, `≈`, `~`, `:`, a verb such as
///    "is", "be", "equals", "gives", or an approximation ("about", "approximately",
///    "roughly"), possibly through a few filler words (`will be about $488,574.85`,
///    `is equal to 12`, `a total of 1836`);
/// 3. else the last number (`... so the car keeps 0.3936`).
///
/// Numbers may carry a sign (a `-` not preceded by a letter or digit, so dates are not negative
/// numbers), thousands commas (`20,176,139.4`), a fraction and an exponent (`1.2e-5`). A
/// sentence's final period is not part of the number.
pub fn extract_number(text: &str) -> Option<f64> {
    let outside = blank_brackets(text);
    let numbers: Vec<Scanned> = scan_numbers(&outside)
        .into_iter()
        .filter(|n| !n.exponent)
        .collect();
    if numbers.is_empty() {
        // Only a bracketed working holds a number: read it as it is.
        return scan_numbers(text)
            .iter()
            .rfind(|n| !n.exponent)
            .map(|n| n.value);
    }
    let stated = |n: &Scanned| is_stated(&outside[..n.start]);
    // ASCII lowercasing keeps byte offsets, so positions in both texts agree.
    let answer_at = outside.to_ascii_lowercase().rfind("answer");
    let after_answer = answer_at.and_then(|at| {
        let after: Vec<&Scanned> = numbers.iter().filter(|n| n.start >= at).collect();
        after
            .iter()
            .find(|n| stated(n))
            .or_else(|| after.first())
            .map(|n| n.value)
    });
    after_answer
        .or_else(|| numbers.iter().rfind(|n| stated(n)).map(|n| n.value))
        .or_else(|| numbers.last().map(|n| n.value))
}

/// Words that state a result when a number follows them.
const RESULT_CUES: &[&str] = &[
    "is",
    "be",
    "are",
    "was",
    "were",
    "equals",
    "equal",
    "makes",
    "gives",
    "yields",
    "get",
    "gets",
    "becomes",
    "become",
    "total",
    "totals",
    "result",
    "answer",
    "about",
    "approximately",
    "approx",
    "roughly",
    "around",
    "nearly",
    "almost",
    "exactly",
];

/// Words that may stand between a cue and its number.
const FILLERS: &[&str] = &["to", "a", "an", "of", "only", "just", "then", "now"];

/// Whether the text before a number ends with a result cue: a symbol (`=`, `≈`, `~`, `:`) or
/// a [`RESULT_CUES`] word, with at most three [`FILLERS`] and a currency sign between.
fn is_stated(before: &str) -> bool {
    let mut rest = before.trim_end_matches(|c: char| c.is_whitespace() || "$€£".contains(c));
    for _ in 0..4 {
        if rest.ends_with(['=', '≈', '~', ':']) {
            return true;
        }
        let word_start = rest.rfind(|c: char| !c.is_alphabetic()).map_or(0, |at| {
            at + rest[at..].chars().next().map_or(1, char::len_utf8)
        });
        let word = rest[word_start..].to_lowercase();
        if RESULT_CUES.contains(&word.as_str()) {
            return true;
        }
        if !FILLERS.contains(&word.as_str()) {
            return false;
        }
        rest = rest[..word_start].trim_end();
    }
    false
}

/// `text` with everything inside round or square brackets (the brackets included) blanked
/// to spaces of the same byte length, so offsets stay those of `text`.
fn blank_brackets(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let inside = depth > 0 || matches!(c, '(' | '[');
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if inside || matches!(c, ')' | ']') {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// One number found in a text.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scanned {
    /// Byte offset where it starts (its sign included).
    start: usize,
    /// Its value (times `10^k` when written `x 10^k`).
    value: f64,
    /// It follows `^` or `**`: an exponent.
    exponent: bool,
}

/// Every number in `text`, in order.
fn scan_numbers(text: &str) -> Vec<Scanned> {
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
            let (value, end) = times_power_of_ten(text, i, n);
            i = end;
            out.push(Scanned {
                start,
                value,
                exponent: follows_power(&text[..start]),
            });
        }
    }
    out
}

/// Whether a number preceded by `before` is an exponent (`^2`, `** 3`).
fn follows_power(before: &str) -> bool {
    let before = before.trim_end();
    before.ends_with('^') || before.ends_with("**")
}

/// `value` times `10^k` when the text at `end` reads ` x 10^k` (or `×`, `*`, `**`), with the
/// offset after it; else `value` and `end` unchanged.
fn times_power_of_ten(text: &str, end: usize, value: f64) -> (f64, usize) {
    let rest = &text[end..];
    let trimmed = rest.trim_start();
    let Some(after_times) = ["x", "×", "*"]
        .iter()
        .find_map(|t| trimmed.strip_prefix(t))
        .map(str::trim_start)
    else {
        return (value, end);
    };
    let Some(after_ten) = after_times.strip_prefix("10") else {
        return (value, end);
    };
    let Some(exp_text) = ["^", "**"]
        .iter()
        .find_map(|p| after_ten.trim_start().strip_prefix(p))
        .map(str::trim_start)
    else {
        return (value, end);
    };
    let digits = exp_text
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .count();
    match exp_text[..digits].parse::<i32>() {
        Ok(k) => (value * 10f64.powi(k), text.len() - exp_text.len() + digits),
        Err(_) => (value, end),
    }
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
        assert_eq!(n("0.89^8"), Some(0.89));
        assert_eq!(n("on 2020-01-09 it was"), Some(9.0));
        assert_eq!(n(".5 of a pie"), Some(0.5));
        assert_eq!(n("x=-2"), Some(-2.0));
        // Letters glued to digits: the digits still count, a dash after a letter is no sign.
        assert_eq!(n("mp3-4"), Some(4.0));
        assert_eq!(n("no number here"), None);
        assert_eq!(n(""), None);
        assert!(funcqa_answer_correct("The result is 2.2481 m³", 2.2481));
        assert!(funcqa_answer_correct("The result is 2.2481 m^3", 2.2481));
        assert!(!funcqa_answer_correct("I could not compute it", 2.2481));
    }

    #[test]
    fn the_stated_result_wins_over_workings_exponents_and_units() {
        // FuncQA multi-hop answers scored wrong by reading the last number.
        assert!(funcqa_answer_correct(
            "the profit will be about $488,574.85 (535323 x 0.97^3)",
            488_574.848_379
        ));
        assert!(funcqa_answer_correct(
            "the new patio area is about 92.25 m^2",
            92.256
        ));
        let n = |t: &str| extract_number(t);
        assert_eq!(n("The area is 92.256 m^2."), Some(92.256));
        assert_eq!(n("It is ≈ 0.0045 [21 choose 5 = 20349]"), Some(0.0045));
        assert_eq!(
            n("sqrt(47.4) = 6.885, + 2*1.36 = 9.605, squared = 92.256"),
            Some(92.256)
        );
        assert_eq!(
            n("The side is 6.885 m, the new side 9.605 m, so the new area is 92.256 m^2"),
            Some(92.256)
        );
        assert_eq!(
            n("It will take approximately 20.39 years at 3.4% a year"),
            Some(20.39)
        );
        assert_eq!(
            n("You need a total of 1,836 apples for 612 students"),
            Some(1836.0)
        );
        assert_eq!(n("The answer is 27, the square root of 729."), Some(27.0));
        assert_eq!(n("Answer: 0.3111 (5799465 / 18643560)"), Some(0.3111));
        assert_eq!(n("The volume is 5.79 x 10^1 cubic units"), Some(57.9));
        assert_eq!(n("About 1.7e6 people (387659 * 1.03^50)"), Some(1.7e6));
        assert_eq!(n("The pH equals 3.5"), Some(3.5));
        assert_eq!(n("x ≈ -0.1393"), Some(-0.1393));
        assert_eq!(
            n("Raising 1.06938 to the 3rd power gives 1.223"),
            Some(1.223)
        );
        assert_eq!(n("log(log(a+b)) is -0.1393"), Some(-0.1393));
        // Only a bracketed number: it is still read.
        assert_eq!(n("(42)"), Some(42.0));
        // A stated result early and a plain mention later: the stated one.
        assert_eq!(
            n("The profit is $1,556,750.90 after 5 years at 23.8%"),
            Some(1_556_750.9)
        );
        assert!(!funcqa_answer_correct(
            "the new patio area is about 92.25 m^2",
            2.0
        ));
    }
}
