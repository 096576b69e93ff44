//! Structured generators shared by the fuzz targets: numbers, strings, timestamps and
//! whole `Value` trees drawn from `arbitrary::Unstructured`, biased towards the values the
//! core treats specially (range ends, NaN, the infinities, -0, 2^53, known keys) so short
//! inputs already reach deep states, while every byte pattern stays reachable.

use arbitrary::{Result, Unstructured};
use earlyexit::{Naming, Value};

/// Every key the engines read, in both spellings, plus the snapshot keys: a fuzzer that
/// picks keys from here hits known fields far more often than random text would. The loop
/// config's keys come from the core's table (`CONFIG_FIELDS`), then [`OTHER_KEYS`].
pub fn keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        let config = earlyexit::loops::CONFIG_FIELDS.iter().flat_map(|f| [f.js(), f.snake()]);
        config.chain(OTHER_KEYS.iter().copied()).collect()
    })
}

/// The keys of [`keys`] after the loop config's.
const OTHER_KEYS: &[&str] = &[
    "iteration_number",
    "quality_score",
    "confidence",
    "verification_status",
    "quality_delta",
    "timestamp",
    "tokens_used",
    "token_cost_usd",
    "execution_time_ms",
    "diminishing_returns_threshold",
    "diminishingReturnsThreshold",
    "consecutive_count_threshold",
    "consecutiveCountThreshold",
    "quality_threshold",
    "qualityThreshold",
    "selection_criteria",
    "selectionCriteria",
    "exitLayer",
    "exit_layer",
    "minLambdaForExit",
    "min_lambda_for_exit",
    "minLambdaStability",
    "min_lambda_stability",
    "maxBoundaryConcentration",
    "max_boundary_concentration",
    "speculativeTests",
    "speculative_tests",
    "verificationLayers",
    "verification_layers",
    "adaptiveExitLayer",
    "adaptive_exit_layer",
    "minConfidence",
    "min_confidence",
    "passRate",
    "pass_rate",
    "coverage",
    "flakyRatio",
    "flaky_ratio",
    "previousLambda",
    "previous_lambda",
    "name",
    "durationMs",
    "duration_ms",
    "costMs",
    "cost_ms",
    "run",
    "total",
    "passed",
    "failed",
    "flaky",
    "version",
    "engine",
    "config",
    "history",
    "records",
    "stoppingReason",
    "stoppingDetails",
    "totalLayers",
    "layers",
    "submitted",
    "layer",
    "result",
    "detected",
    "iteration",
    "reason",
    "trigger",
    "analytics_reason",
    "detected_at_iteration",
    "consecutive_count",
    "improvements",
    "average_quality",
    "threshold",
    "__proto__",
    "",
];

/// Strings the engines compare against.
pub const WORDS: &[&str] = &[
    "passed",
    "failed",
    "skipped",
    "reported",
    "computed",
    "relative",
    "absolute",
    "highest_quality_verified",
    "highest_quality",
    "most_recent_above_threshold",
    "EarlyStopping",
    "IterationAnalytics",
    "PyramidRun",
    "none",
    "high_confidence",
    "quality_plateau",
    "diminishing_returns",
    "max_iterations",
    "budget_exhausted",
    "quality_regression",
    "NaN",
    "Infinity",
    "1",
    "",
    "\u{0}",
    "\u{FFFD}",
    "é",
    "2024-02-29T12:00:00Z",
];

/// A number biased towards the edges the core checks.
pub fn number(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=19)? {
        0 => 0.0,
        1 => -0.0,
        2 => 1.0,
        3 => f64::NAN,
        4 => f64::INFINITY,
        5 => f64::NEG_INFINITY,
        6 | 7 => f64::from_bits(u.arbitrary()?),
        8 => f64::from(u.int_in_range(0u32..=100)?),
        9 => unit(u)?,
        10 => 100.0 * unit(u)?,
        11 => 9_007_199_254_740_991.0,
        12 => 9_007_199_254_740_992.0,
        13 => f64::MAX,
        14 => f64::MIN_POSITIVE,
        15 => 5e-324,
        16 => -f64::from(u.int_in_range(0u32..=100)?),
        17 => u.arbitrary::<i64>()? as f64,
        18 => *u.choose(&[1e21, 1e-7, 0.1, 0.5, 2.5, 1.005, 100.0000001, 1e300, -1e-300])?,
        _ => f64::from(u.arbitrary::<u16>()?) / 64.0,
    })
}

/// A number in 0..=1 with fine resolution (valid rates and confidences).
pub fn unit(u: &mut Unstructured) -> Result<f64> {
    Ok(f64::from(u.arbitrary::<u32>()?) / f64::from(u32::MAX))
}

/// An arbitrary short string, sometimes a known word or key.
pub fn string(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => (*u.choose(WORDS)?).to_string(),
        1 => (*u.choose(keys())?).to_string(),
        2 => timestamp(u)?,
        _ => {
            let len = u.int_in_range(0usize..=24)?;
            let mut s = String::new();
            for _ in 0..len {
                s.push(u.arbitrary::<char>()?);
            }
            s
        }
    })
}

/// An object key: usually a known one.
pub fn key(u: &mut Unstructured) -> Result<String> {
    if u.ratio(7u8, 8u8)? {
        Ok((*u.choose(keys())?).to_string())
    } else {
        string(u)
    }
}

/// A date-time string: mostly RFC 3339 shaped with arbitrary (sometimes invalid) parts.
pub fn timestamp(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0u8..=4)? {
        0 => earlyexit::time::iso_from_millis(u.arbitrary()?),
        1 => earlyexit::time::iso_from_millis(u.int_in_range(-62_167_219_200_000i64..=253_402_300_799_999)?),
        2 | 3 => {
            let part = |u: &mut Unstructured, max: u32| -> Result<u32> { u.int_in_range(0..=max) };
            let (y, mo, d, h, mi, s) =
                (part(u, 9999)?, part(u, 13)?, part(u, 32)?, part(u, 24)?, part(u, 60)?, part(u, 61)?);
            let t = *u.choose(&["T", "t", " "])?;
            let frac = *u.choose(&["", ".5", ".123456789", "."])?;
            let zone = *u.choose(&["Z", "z", "+01:00", "-23:59", "+24:00", "", "+0100"])?;
            format!("{y:04}-{mo:02}-{d:02}{t}{h:02}:{mi:02}:{s:02}{frac}{zone}")
        }
        _ => u.arbitrary::<String>()?,
    })
}

/// Either spelling.
pub fn naming(u: &mut Unstructured) -> Result<Naming> {
    Ok(if u.arbitrary()? { Naming::Js } else { Naming::Snake })
}

/// An arbitrary value tree, at most `depth` levels deep, object keys unique (as every host
/// object's are).
pub fn value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let max = if depth == 0 { 5u8 } else { 7u8 };
    Ok(match u.int_in_range(0u8..=max)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 | 3 => Value::Number(number(u)?),
        4 => Value::String(string(u)?),
        5 => Value::Other((*u.choose(&["function", "symbol", "bigint", "object"])?).to_string()),
        6 => {
            let len = u.int_in_range(0usize..=6)?;
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(value(u, depth - 1)?);
            }
            Value::Array(items)
        }
        _ => {
            let len = u.int_in_range(0usize..=6)?;
            let mut entries = Vec::with_capacity(len);
            for _ in 0..len {
                let k = key(u)?;
                let v = value(u, depth - 1)?;
                set(&mut entries, k, v);
            }
            Value::Object(entries)
        }
    })
}

/// Renames keys with `rename`, keeping keys unique as a host object would (the last value
/// wins, at the first position): renaming can make two keys equal.
pub fn renamed(entries: Vec<(String, Value)>, rename: impl Fn(String) -> String) -> Value {
    let mut out = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        set(&mut out, rename(k), v);
    }
    Value::Object(out)
}

/// Sets a key as a JavaScript object does: the last value wins, at the first position.
pub fn set(entries: &mut Vec<(String, Value)>, key: String, value: Value) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => entries.push((key, value)),
    }
}

/// A field value: mostly one `valid` makes, sometimes any value; `None` = leave it out.
pub fn field(u: &mut Unstructured, valid: impl FnOnce(&mut Unstructured) -> Result<Value>) -> Result<Option<Value>> {
    Ok(match u.int_in_range(0u8..=23)? {
        0 => None,
        1 => Some(value(u, 1)?),
        _ => Some(valid(u)?),
    })
}

/// A field name and the maker of its valid values.
pub type Field = (&'static str, fn(&mut Unstructured) -> Result<Value>);

/// An object with the given fields (each through [`field`]) and sometimes an extra key.
pub fn object(u: &mut Unstructured, fields: &[Field]) -> Result<Value> {
    let mut entries = Vec::new();
    for (name, valid) in fields {
        if let Some(v) = field(u, valid)? {
            set(&mut entries, (*name).to_string(), v);
        }
    }
    if u.ratio(1u8, 8u8)? {
        let k = key(u)?;
        let v = value(u, 1)?;
        set(&mut entries, k, v);
    }
    Ok(Value::Object(entries))
}

/// Valid-value makers for [`object`].
pub mod valid {
    use super::*;

    pub fn unit(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(super::unit(u)?))
    }
    pub fn percent(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(100.0 * super::unit(u)?))
    }
    pub fn points(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(f64::from(u.int_in_range(0u8..=100)?)))
    }
    pub fn finite(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(f64::from(u.arbitrary::<i16>()?) / 8.0))
    }
    pub fn amount(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(f64::from(u.arbitrary::<u16>()?) / 4.0))
    }
    pub fn count(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Number(f64::from(u.int_in_range(0u8..=12)?)))
    }
    pub fn boolean(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::Bool(u.arbitrary()?))
    }
    pub fn status(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::string(*u.choose(&["passed", "failed", "skipped"])?))
    }
    pub fn timestamp(u: &mut Unstructured) -> Result<Value> {
        if u.ratio(7u8, 8u8)? {
            let ms = u.int_in_range(0i64..=4_102_444_800_000)?;
            return Ok(Value::String(earlyexit::time::iso_from_millis(ms)));
        }
        Ok(Value::String(super::timestamp(u)?))
    }
    pub fn text(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::String(super::string(u)?))
    }
    /// One name of a core name list.
    pub fn name(u: &mut Unstructured, names: &[&'static str]) -> Result<Value> {
        Ok(Value::string(*u.choose(names)?))
    }
    pub fn criteria(u: &mut Unstructured) -> Result<Value> {
        Ok(Value::string(*u.choose(&["highest_quality_verified", "highest_quality", "most_recent_above_threshold"])?))
    }
}

/// Compares two values with numbers equal only when their bits are (NaN equals NaN):
/// an in-memory snapshot must come back exactly.
pub fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| identical(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && identical(va, vb))
        }
        _ => a == b,
    }
}
