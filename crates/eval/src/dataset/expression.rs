//! A small arithmetic reader for the numbers a dataset records as expressions (FuncQA's
//! `4/3`, `12*2.0933`): numbers, unary minus, `+ - * /` with the usual precedence, and
//! brackets. Nothing else is accepted.

/// The value of `text`, or `None` when it is not such an expression (or divides by zero).
pub(crate) fn evaluate(text: &str) -> Option<f64> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut reader = Reader { chars, at: 0 };
    let value = reader.sum()?;
    (reader.at == reader.chars.len() && value.is_finite()).then_some(value)
}

/// Recursive descent over the expression's characters (spaces removed).
struct Reader {
    chars: Vec<char>,
    at: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// `product (('+' | '-') product)*`
    fn sum(&mut self) -> Option<f64> {
        let mut value = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Some(value)
    }

    /// `factor (('*' | '/') factor)*`
    fn product(&mut self) -> Option<f64> {
        let mut value = self.factor()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            let rhs = self.factor()?;
            value = if op == '*' {
                value * rhs
            } else if rhs == 0.0 {
                return None;
            } else {
                value / rhs
            };
        }
        Some(value)
    }

    /// `'-' factor | '(' sum ')' | number`
    fn factor(&mut self) -> Option<f64> {
        match self.peek()? {
            '-' => {
                self.at += 1;
                self.factor().map(|v| -v)
            }
            '+' => {
                self.at += 1;
                self.factor()
            }
            '(' => {
                self.at += 1;
                let value = self.sum()?;
                (self.peek()? == ')').then(|| self.at += 1)?;
                Some(value)
            }
            _ => self.number(),
        }
    }

    /// Digits with an optional fraction and exponent (`1.5e-3`).
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.at += 1;
        }
        if self.at > start && matches!(self.peek(), Some('e' | 'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.at += 1;
            }
            let digits = self.at;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.at += 1;
            }
            if self.at == digits {
                self.at = mark;
            }
        }
        let text: String = self.chars[start..self.at].iter().collect();
        text.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_follow_precedence_and_refuse_anything_else() {
        assert_eq!(evaluate("2.75"), Some(2.75));
        assert_eq!(evaluate(" -3.5 "), Some(-3.5));
        assert_eq!(evaluate("1/2"), Some(0.5));
        assert_eq!(evaluate("2+3*4"), Some(14.0));
        assert_eq!(evaluate("(2+3)*4"), Some(20.0));
        assert_eq!(evaluate("12*2.0933"), Some(12.0 * 2.0933));
        assert_eq!(evaluate("1.5e-3"), Some(0.0015));
        for bad in ["", "x", "1/0", "2+", "(1", "1)", "4/3/", "2^3", "1,5"] {
            assert_eq!(evaluate(bad), None, "{bad}");
        }
    }
}
