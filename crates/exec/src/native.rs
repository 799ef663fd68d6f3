//! Built-in tools computed in-process: FuncQA's 13 arithmetic operations.
//!
//! Each operation is an [`Endpoint::Function`] API of the tool `funcqa` that
//! takes one argument, `input`: the list of numbers, as EasyTool's FuncQA
//! tool docs call them (`{"input": [0.89, 8]}` is 0.89 to the power 8).

use std::time::Instant;

use async_trait::async_trait;
use serde_json::{Value, json};
use toolsmith_catalog::{
    ApiId, ApiRecord, Doc, Endpoint, ImportBatch, Param, ParamLocation, ToolId, ToolRecord,
};

use crate::error::{Error, Result};
use crate::observation::{FailureKind, Observation, Provenance};

/// One arithmetic operation of FuncQA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// Sum of all numbers.
    Add,
    /// The first number minus all the others.
    Subtract,
    /// Product of all numbers.
    Multiply,
    /// The first number divided by all the others.
    Divide,
    /// The first number raised to the second (and so on, left to right).
    Power,
    /// Square root of the first number.
    Sqrt,
    /// Base-10 logarithm of the first number, or to the base given second.
    Log,
    /// Natural logarithm of the first number.
    Ln,
    /// Least common multiple of all (integer) numbers.
    Lcm,
    /// Greatest common divisor of all (integer) numbers.
    Gcd,
    /// Remainder of the first number divided by the second.
    Remainder,
    /// Number of ways to choose `k` of `n` items: `choose(n, k)`.
    Choose,
    /// Number of ordered arrangements of `k` of `n` items: `permutate(n, k)`.
    Permutate,
}

impl ArithOp {
    /// All 13, in FuncQA's `func_dict.json` order.
    pub const ALL: [Self; 13] = [
        Self::Add,
        Self::Subtract,
        Self::Multiply,
        Self::Divide,
        Self::Power,
        Self::Sqrt,
        Self::Log,
        Self::Ln,
        Self::Lcm,
        Self::Gcd,
        Self::Remainder,
        Self::Choose,
        Self::Permutate,
    ];

    /// The operation's name (`add`, ..., `permutate`), as in FuncQA's `<add>`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Subtract => "subtract",
            Self::Multiply => "multiply",
            Self::Divide => "divide",
            Self::Power => "power",
            Self::Sqrt => "sqrt",
            Self::Log => "log",
            Self::Ln => "ln",
            Self::Lcm => "lcm",
            Self::Gcd => "gcd",
            Self::Remainder => "remainder",
            Self::Choose => "choose",
            Self::Permutate => "permutate",
        }
    }

    /// The operation with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// What it computes, for its doc.
    pub fn description(self) -> &'static str {
        match self {
            Self::Add => "Adds all the numbers in `input`.",
            Self::Subtract => {
                "Takes the first number in `input` and subtracts each of the others from it."
            }
            Self::Multiply => "Multiplies all the numbers in `input`.",
            Self::Divide => "Divides the first number in `input` by each of the others in turn.",
            Self::Power => "Raises the first number in `input` to the power of the second.",
            Self::Sqrt => "Square root of the single number in `input`.",
            Self::Log => {
                "Base-10 logarithm of the first number in `input`; with a second number, the logarithm to that base."
            }
            Self::Ln => "Natural logarithm of the single number in `input`.",
            Self::Lcm => "Least common multiple of the whole numbers in `input`.",
            Self::Gcd => "Greatest common divisor of the whole numbers in `input`.",
            Self::Remainder => {
                "Remainder of dividing the first whole number in `input` by the second."
            }
            Self::Choose => {
                "Number of ways to choose r items out of n without order: `input` is [n, r]."
            }
            Self::Permutate => {
                "Number of ordered arrangements of r items out of n: `input` is [n, r]."
            }
        }
    }

    fn arity(self) -> (usize, Option<usize>) {
        match self {
            Self::Add | Self::Subtract | Self::Multiply | Self::Divide => (2, None),
            Self::Lcm | Self::Gcd => (2, None),
            Self::Power | Self::Remainder | Self::Choose | Self::Permutate => (2, Some(2)),
            Self::Sqrt | Self::Ln => (1, Some(1)),
            Self::Log => (1, Some(2)),
        }
    }

    /// Applies the operation. `Err` says what is wrong with the input, in
    /// words an agent can act on.
    pub fn apply(self, input: &[f64]) -> std::result::Result<f64, String> {
        let (min, max) = self.arity();
        if input.len() < min || max.is_some_and(|max| input.len() > max) {
            let wanted = match max {
                Some(max) if max == min => format!("exactly {min}"),
                Some(max) => format!("{min} to {max}"),
                None => format!("at least {min}"),
            };
            return Err(format!(
                "`{}` takes {wanted} numbers in `input`, got {}",
                self.name(),
                input.len()
            ));
        }
        let first = input.first().copied().unwrap_or_default();
        let rest = input.get(1..).unwrap_or_default();
        let value = match self {
            Self::Add => input.iter().sum(),
            Self::Subtract => rest.iter().fold(first, |acc, x| acc - x),
            Self::Multiply => input.iter().product(),
            Self::Divide => {
                if rest.contains(&0.0) {
                    return Err("division by zero".to_owned());
                }
                rest.iter().fold(first, |acc, x| acc / x)
            }
            Self::Power => rest.iter().fold(first, |acc, x| acc.powf(*x)),
            Self::Sqrt => {
                if first < 0.0 {
                    return Err("square root of a negative number".to_owned());
                }
                first.sqrt()
            }
            Self::Log => {
                if first <= 0.0 {
                    return Err("logarithm of a number that is not positive".to_owned());
                }
                match rest.first() {
                    Some(base) if *base > 0.0 && *base != 1.0 => first.log(*base),
                    Some(_) => return Err("logarithm base must be positive and not 1".to_owned()),
                    None => first.log10(),
                }
            }
            Self::Ln => {
                if first <= 0.0 {
                    return Err("logarithm of a number that is not positive".to_owned());
                }
                first.ln()
            }
            Self::Lcm | Self::Gcd | Self::Remainder | Self::Choose | Self::Permutate => {
                let ints = whole_numbers(self, input)?;
                integer_op(self, &ints)?
            }
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(format!(
                "`{}` overflowed: the result is not a finite number",
                self.name()
            ))
        }
    }
}

fn whole_numbers(op: ArithOp, input: &[f64]) -> std::result::Result<Vec<u128>, String> {
    input
        .iter()
        .map(|x| {
            if x.fract() == 0.0 && *x >= 0.0 && *x < 1e30 {
                // In range and whole: the cast is exact.
                Ok(*x as u128)
            } else {
                Err(format!(
                    "`{}` takes non-negative whole numbers, got {x}",
                    op.name()
                ))
            }
        })
        .collect()
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn integer_op(op: ArithOp, ints: &[u128]) -> std::result::Result<f64, String> {
    let overflow = || format!("`{}` overflowed", op.name());
    let a = ints.first().copied().unwrap_or_default();
    let b = ints.get(1).copied().unwrap_or_default();
    let value: u128 = match op {
        ArithOp::Gcd => ints.iter().fold(0, |acc, x| gcd(acc, *x)),
        ArithOp::Lcm => {
            let mut acc: u128 = 1;
            for x in ints {
                if *x == 0 {
                    return Ok(0.0);
                }
                acc = (acc / gcd(acc, *x)).checked_mul(*x).ok_or_else(overflow)?;
            }
            acc
        }
        ArithOp::Remainder => {
            if b == 0 {
                return Err("remainder of a division by zero".to_owned());
            }
            a % b
        }
        ArithOp::Choose | ArithOp::Permutate => {
            if b > a {
                return Err(format!(
                    "`{}`: r must not exceed n (got n={a}, r={b})",
                    op.name()
                ));
            }
            let k = if op == ArithOp::Choose {
                b.min(a - b)
            } else {
                b
            };
            let mut acc: u128 = 1;
            for i in 0..k {
                acc = acc.checked_mul(a - i).ok_or_else(overflow)?;
                if op == ArithOp::Choose {
                    acc /= i + 1;
                }
            }
            acc
        }
        _ => return Err(format!("`{}` is not an integer operation", op.name())),
    };
    Ok(value as f64)
}

/// Built-in tools: FuncQA's arithmetic, as a catalog tool and an executor.
#[derive(Clone, Debug)]
pub struct NativeTools {
    tool: ToolId,
}

impl NativeTools {
    /// The tool id of FuncQA's operations.
    pub const FUNCQA: &'static str = "funcqa";

    /// FuncQA's 13 operations as the tool `funcqa`.
    pub fn funcqa() -> Self {
        Self {
            tool: constant_slug(Self::FUNCQA),
        }
    }

    /// The tool's id.
    pub fn tool_id(&self) -> &ToolId {
        &self.tool
    }

    /// The id of one operation's API (`funcqa/add`).
    pub fn api_id(&self, op: ArithOp) -> ApiId {
        ApiId::new(self.tool.clone(), constant_slug(op.name()))
    }

    /// The tool as a catalog record, to import with [`Self::import_batch`].
    pub fn tool_record(&self) -> ToolRecord {
        ToolRecord {
            key: format!("native:{}", self.tool),
            preferred_id: self.tool.clone(),
            name: "FuncQA arithmetic".to_owned(),
            category: "Mathematics".to_owned(),
            base_url: None,
            security: Vec::new(),
            description: Some(
                "Exact arithmetic computed by toolsmith itself: the 13 operations of FuncQA."
                    .to_owned(),
            ),
            aliases: Vec::new(),
            apis: ArithOp::ALL.into_iter().map(api_record).collect(),
        }
    }

    /// A batch holding only this tool, for `Store::import`.
    pub fn import_batch(&self) -> ImportBatch {
        ImportBatch {
            source: format!("native:{}", self.tool),
            tools: vec![self.tool_record()],
            ..ImportBatch::default()
        }
    }

    /// The input schema of one of these tools' APIs, `None` for any other API.
    pub(crate) fn input_schema_of(&self, api: &ApiId) -> Option<Value> {
        (api.tool() == &self.tool && ArithOp::from_name(api.api().as_str()).is_some())
            .then(input_schema)
    }

    /// Computes one call. Synchronous: arithmetic needs no runtime. The
    /// arguments are not checked against the schema here: wrap the tools
    /// in a [`Validated`](crate::Validated) executor for that.
    pub fn call_now(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let op = (api.tool() == &self.tool)
            .then(|| ArithOp::from_name(api.api().as_str()))
            .flatten()
            .ok_or_else(|| Error::UnknownApi(api.clone()))?;
        let numbers: Vec<f64> = args
            .get("input")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let obs = match op.apply(&numbers) {
            Ok(value) => Observation::ok_json(json!({ "result": number(value) }), Provenance::Live),
            Err(message) => {
                Observation::tool_error(FailureKind::BadParameters, message, Provenance::Live)
            }
        };
        Ok(obs.with_latency(start.elapsed()))
    }
}

/// Whole results print as integers (`10626`, not `10626.0`).
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        // Whole and within i64's exact range: the cast is exact.
        let int = value as i64;
        json!(int)
    } else {
        json!(value)
    }
}

/// An id from one of this module's constant names, all valid slugs (the unit
/// tests build every one), so the parse cannot fail on any input.
#[allow(clippy::expect_used)]
fn constant_slug<T: std::str::FromStr>(name: &'static str) -> T
where
    T::Err: std::fmt::Debug,
{
    name.parse().expect("constant names are valid slugs")
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "input": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 1,
                "description": "The numbers to operate on, in order."
            }
        },
        "required": ["input"]
    })
}

fn api_record(op: ArithOp) -> ApiRecord {
    let schema = input_schema();
    let input = schema
        .pointer("/properties/input")
        .cloned()
        .unwrap_or(Value::Null);
    ApiRecord {
        name: constant_slug(op.name()),
        display_name: op.name().to_owned(),
        source_name: op.name().to_owned(),
        endpoint: Endpoint::Function {
            name: op.name().to_owned(),
        },
        params: vec![Param {
            name: "input".to_owned(),
            location: ParamLocation::Body,
            required: true,
            schema: input,
            description: "The numbers to operate on, in order.".to_owned(),
            list_format: Default::default(),
        }],
        request_body: None,
        response_schema: Some(json!({
            "type": "object",
            "properties": {"result": {"type": "number"}},
            "required": ["result"]
        })),
        response_examples: Vec::new(),
        access: Default::default(),
        aliases: vec![format!("<{}>", op.name())],
        doc: Some(Doc::text(op.description())),
    }
}

#[async_trait]
impl crate::executor::Executor for NativeTools {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        self.call_now(api, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations() {
        let close = |op: ArithOp, input: &[f64], want: f64| {
            let got = op.apply(input).unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{op:?}{input:?} = {got}"
            );
        };
        close(ArithOp::Subtract, &[10.0, 3.0, 2.0], 5.0);
        close(ArithOp::Log, &[100.0, 10.0], 2.0);
        close(ArithOp::Log, &[1000.0], 3.0);
        close(ArithOp::Choose, &[5.0, 2.0], 10.0);
        close(ArithOp::Permutate, &[5.0, 3.0], 60.0);
        close(ArithOp::Lcm, &[12.0, 18.0], 36.0);
        assert!(ArithOp::Divide.apply(&[1.0, 0.0]).is_err());
        assert!(ArithOp::Gcd.apply(&[1.5, 3.0]).is_err());
        assert!(
            ArithOp::Sqrt
                .apply(&[1.0, 2.0])
                .unwrap_err()
                .contains("exactly 1")
        );
    }

    #[test]
    fn call_computes_and_refuses_what_it_cannot() {
        let tools = NativeTools::funcqa();
        let api = tools.api_id(ArithOp::Add);
        let obs = tools.call_now(&api, &json!({"input": [1, 2.5]})).unwrap();
        assert_eq!(obs.body.json(), Some(&json!({"result": 3.5})));
        let obs = tools.call_now(&api, &json!({"input": "1,2"})).unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        let other: ApiId = "funcqa/median".parse().unwrap();
        assert!(matches!(
            tools.call_now(&other, &json!({})),
            Err(Error::UnknownApi(_))
        ));
    }
}
