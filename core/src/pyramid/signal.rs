//! A test layer's result and the quality signal computed from it (ADR-033,
//! `calculateQualitySignal` and `countQualityPartitions`).

use crate::value::field_name;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const PASS_RATE: FieldName = field_name!("passRate", "pass_rate");
const COVERAGE: FieldName = FieldName::same("coverage");
const FLAKY_RATIO: FieldName = field_name!("flakyRatio", "flaky_ratio");
const PREVIOUS_LAMBDA: FieldName = field_name!("previousLambda", "previous_lambda");
const NAME: FieldName = FieldName::same("name");
const DURATION_MS: FieldName = field_name!("durationMs", "duration_ms");
const TOTAL: FieldName = FieldName::same("total");
const PASSED: FieldName = FieldName::same("passed");
const FAILED: FieldName = FieldName::same("failed");
const FLAKY: FieldName = FieldName::same("flaky");

/// The keys of a `LayerResult` the core reads; any other key is kept as the runner gave it.
pub const LAYER_RESULT_FIELDS: [FieldName; 10] =
    [PASS_RATE, COVERAGE, FLAKY_RATIO, PREVIOUS_LAMBDA, NAME, DURATION_MS, TOTAL, PASSED, FAILED, FLAKY];

/// Raw test counts a runner may report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestCounts {
    /// Tests run.
    pub total: Option<u64>,
    /// Tests passed.
    pub passed: Option<u64>,
    /// Tests failed.
    pub failed: Option<u64>,
    /// Tests that were flaky.
    pub flaky: Option<u64>,
}

/// A key of a runner's result object: one the core knows (index into
/// [`LAYER_RESULT_FIELDS`]) or one it keeps untouched.
#[derive(Clone, Debug, PartialEq)]
enum LayerKey {
    Known(usize),
    Extra(String),
}

/// `LayerResult {passRate, coverage, flakyRatio, previousLambda?}` plus the optional name,
/// duration and counts, and whatever else the runner returned (kept in its order, since
/// the ADR's controller spreads the runner's object into the result).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerResult {
    /// Share of tests passing, 0..=1.
    pub pass_rate: f64,
    /// Coverage, 0..=1.
    pub coverage: f64,
    /// Share of flaky tests, 0..=1.
    pub flaky_ratio: f64,
    /// The previous layer's lambda, 0..=100.
    pub previous_lambda: Option<f64>,
    /// Layer name.
    pub name: Option<String>,
    /// What running the layer cost, ms.
    pub duration_ms: Option<f64>,
    /// Raw counts.
    pub counts: TestCounts,
    entries: Vec<(LayerKey, Value)>,
}

impl LayerResult {
    /// The closed range of `passRate`, `coverage` and `flakyRatio`, `(min, max)`: the one the
    /// reader checks, which hosts also describe (the MCP server's schemas).
    pub const FRACTION_RANGE: (f64, f64) = (0.0, 1.0);

    /// A result with just the three rates.
    pub fn new(pass_rate: f64, coverage: f64, flaky_ratio: f64) -> Self {
        LayerResult {
            pass_rate,
            coverage,
            flaky_ratio,
            previous_lambda: None,
            name: None,
            duration_ms: None,
            counts: TestCounts::default(),
            entries: Vec::new(),
        }
    }

    /// Parses and validates a runner's result (code `invalid_layer_result`; `path` prefixes
    /// field names, e.g. `layers[2]`).
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        Self::read(value, naming, path, ErrorCode::InvalidLayerResult)
    }

    pub(crate) fn read(value: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "layerResult", naming, code)?;
        // Other keys are kept as the runner gave them; a known field under both spellings is
        // refused (one of them would be kept as an extra, and a snapshot, written in camelCase,
        // would hold the field twice).
        reader.reject_both_spellings(&LAYER_RESULT_FIELDS)?;
        let (low, high) = Self::FRACTION_RANGE;
        let pass_rate = reader.number(PASS_RATE, low, high)?;
        let coverage = reader.number(COVERAGE, low, high)?;
        let flaky_ratio = reader.number(FLAKY_RATIO, low, high)?;
        let previous_lambda = reader.opt_number(PREVIOUS_LAMBDA, 0.0, 100.0)?;
        let name = reader.opt_string(NAME)?.map(str::to_string);
        let duration_ms = reader.opt_number(DURATION_MS, 0.0, f64::MAX)?;
        let counts = TestCounts {
            total: reader.opt_integer(TOTAL, 0, MAX_SAFE_INTEGER)?,
            passed: reader.opt_integer(PASSED, 0, MAX_SAFE_INTEGER)?,
            failed: reader.opt_integer(FAILED, 0, MAX_SAFE_INTEGER)?,
            flaky: reader.opt_integer(FLAKY, 0, MAX_SAFE_INTEGER)?,
        };
        counts.check(naming, path, code)?;
        let Value::Object(raw) = value else {
            return Err(Error::new(code, ErrorKind::Type, path, "not an object"));
        };
        // A repeated key (only a value built in Rust can hold one) keeps its last value at
        // its first position, as JSON text would; found in linear time, so a result with a
        // million extra keys costs a million steps, not half a trillion.
        let mut unique = raw.clone();
        value::dedupe_last_wins(&mut unique, &mut 0);
        let mut entries: Vec<(LayerKey, Value)> = Vec::with_capacity(unique.len());
        for (key, item) in unique.iter_mut() {
            let slot = match LAYER_RESULT_FIELDS.iter().position(|f| reader.spells(f, key)) {
                Some(i) => LayerKey::Known(i),
                None => LayerKey::Extra(std::mem::take(key)),
            };
            entries.push((slot, std::mem::replace(item, Value::Null)));
        }
        Ok(LayerResult { pass_rate, coverage, flaky_ratio, previous_lambda, name, duration_ms, counts, entries })
    }

    /// Checks a result built in Rust.
    pub fn validate(&self) -> Result<()> {
        let value = self.to_value(Naming::Snake);
        Self::read(&value, Naming::Snake, "", ErrorCode::InvalidLayerResult).map(|_| ())
    }

    /// Sets `previousLambda` as the controller stamps it (in place if the runner gave one).
    pub(crate) fn stamp_previous_lambda(&mut self, lambda: f64) {
        self.previous_lambda = Some(lambda);
        let slot = LayerKey::Known(3);
        if self.entries.is_empty() {
            return; // built in Rust: `to_value` lists the typed fields
        }
        match self.entries.iter_mut().find(|(k, _)| *k == slot) {
            Some(existing) => existing.1 = Value::Number(lambda),
            None => self.entries.push((slot, Value::Number(lambda))),
        }
    }

    /// The result object, keys spelled for `naming` and in the runner's order (a result
    /// built in Rust lists the known keys in the ADR's order).
    pub fn to_value(&self, naming: Naming) -> Value {
        if !self.entries.is_empty() {
            let mut o = ObjectBuilder::new();
            for (key, item) in &self.entries {
                let name = match key {
                    LayerKey::Known(i) => LAYER_RESULT_FIELDS.get(*i).map_or("", |f| f.spelled(naming)),
                    LayerKey::Extra(k) => k,
                };
                o.value(name, item.clone());
            }
            return o.build();
        }
        let mut entries = ObjectBuilder::new();
        entries
            .number(PASS_RATE.spelled(naming), self.pass_rate)
            .number(COVERAGE.spelled(naming), self.coverage)
            .number(FLAKY_RATIO.spelled(naming), self.flaky_ratio);
        entries.some_number(PREVIOUS_LAMBDA.spelled(naming), self.previous_lambda);
        if let Some(name) = &self.name {
            entries.string(NAME.spelled(naming), name);
        }
        let count = |n: Option<u64>| n.map(|n| n as f64);
        entries
            .some_number(DURATION_MS.spelled(naming), self.duration_ms)
            .some_number(TOTAL.spelled(naming), count(self.counts.total))
            .some_number(PASSED.spelled(naming), count(self.counts.passed))
            .some_number(FAILED.spelled(naming), count(self.counts.failed))
            .some_number(FLAKY.spelled(naming), count(self.counts.flaky))
            .build()
    }

    /// Keys the runner returned that the core does not read, with their values.
    pub fn extra_entries(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().filter_map(|(k, v)| match k {
            LayerKey::Extra(name) => Some((name.as_str(), v)),
            LayerKey::Known(_) => None,
        })
    }
}

impl TestCounts {
    fn check(&self, naming: Naming, path: &str, code: ErrorCode) -> Result<()> {
        let inconsistent = |field: FieldName, rule: &str| {
            let name = value::join_path(path, field.spelled(naming));
            Err(Error::new(code, ErrorKind::Range, name.clone(), value::concat(&[&name, " is inconsistent: ", rule])))
        };
        if let (Some(total), Some(passed)) = (self.total, self.passed) {
            if passed.saturating_add(self.failed.unwrap_or(0)) > total {
                return inconsistent(PASSED, "passed + failed must not exceed total");
            }
        }
        if let (Some(total), Some(failed)) = (self.total, self.failed) {
            if failed > total {
                return inconsistent(FAILED, "failed must not exceed total");
            }
        }
        if let (Some(total), Some(flaky)) = (self.total, self.flaky) {
            if flaky > total {
                return inconsistent(FLAKY, "flaky must not exceed total");
            }
        }
        Ok(())
    }
}

/// ADR-033's `QualitySignal`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QualitySignal {
    /// min(pass rate, coverage, 1 - flaky ratio) in percent.
    pub lambda: f64,
    /// The previous layer's lambda (`previousLambda || lambda`).
    pub lambda_prev: f64,
    /// How many of the three lambdas lie within 60..=80.
    pub boundary_edges: u32,
    /// Mean of the shortfalls above 0.1.
    pub boundary_concentration: f64,
    /// `countQualityPartitions` (0..=3).
    pub partition_count: u32,
    /// Always 0 in the ADR.
    pub flags: u32,
}

const LAMBDA: FieldName = FieldName::same("lambda");
const LAMBDA_PREV: FieldName = field_name!("lambdaPrev", "lambda_prev");
const BOUNDARY_EDGES: FieldName = field_name!("boundaryEdges", "boundary_edges");
const BOUNDARY_CONCENTRATION: FieldName = field_name!("boundaryConcentration", "boundary_concentration");
const PARTITION_COUNT: FieldName = field_name!("partitionCount", "partition_count");
const FLAGS: FieldName = FieldName::same("flags");

impl QualitySignal {
    /// The signal object.
    pub fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .number(LAMBDA.spelled(naming), self.lambda)
            .number(LAMBDA_PREV.spelled(naming), self.lambda_prev)
            .number(BOUNDARY_EDGES.spelled(naming), f64::from(self.boundary_edges))
            .number(BOUNDARY_CONCENTRATION.spelled(naming), self.boundary_concentration)
            .number(PARTITION_COUNT.spelled(naming), f64::from(self.partition_count))
            .number(FLAGS.spelled(naming), f64::from(self.flags))
            .build()
    }

    /// Parses a (possibly hand-made) signal for `shouldExit` (code `invalid_signal`).
    /// `boundaryEdges`, `partitionCount` and `flags` are optional: the decision does not read them.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(value, "", "signal", naming, ErrorCode::InvalidSignal)?;
        reader.reject_unknown(&[
            LAMBDA,
            LAMBDA_PREV,
            BOUNDARY_EDGES,
            BOUNDARY_CONCENTRATION,
            PARTITION_COUNT,
            FLAGS,
        ])?;
        let small = |n: Option<u64>| n.and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
        Ok(QualitySignal {
            lambda: reader.number(LAMBDA, 0.0, 100.0)?,
            lambda_prev: reader.number(LAMBDA_PREV, 0.0, 100.0)?,
            boundary_edges: small(reader.opt_integer(BOUNDARY_EDGES, 0, 3)?),
            boundary_concentration: reader.number(BOUNDARY_CONCENTRATION, 0.0, 1.0)?,
            partition_count: small(reader.opt_integer(PARTITION_COUNT, 0, 3)?),
            flags: small(reader.opt_integer(FLAGS, 0, u64::from(u32::MAX))?),
        })
    }

    /// Checks a signal built in Rust.
    pub fn validate(&self) -> Result<()> {
        Self::from_value(&self.to_value(Naming::Snake), Naming::Snake).map(|_| ())
    }
}

/// JavaScript's `Math.min` on two non-NaN numbers: -0 is smaller than +0.
fn js_min(a: f64, b: f64) -> f64 {
    if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// The reference's `countQualityPartitions`: (passRate < 0.9) + (coverage < 0.7) + (flakyRatio > 0.05).
pub fn count_quality_partitions(result: &LayerResult) -> u32 {
    u32::from(result.pass_rate < 0.9) + u32::from(result.coverage < 0.7) + u32::from(result.flaky_ratio > 0.05)
}

/// ADR-033's `calculateQualitySignal`, computed in the ADR's order so results are bit-identical.
pub fn calculate_quality_signal(result: &LayerResult) -> QualitySignal {
    let pass_rate_lambda = result.pass_rate * 100.0;
    let coverage_lambda = result.coverage * 100.0;
    let stability_lambda = (1.0 - result.flaky_ratio) * 100.0;
    let lambda = js_min(js_min(pass_rate_lambda, coverage_lambda), stability_lambda);
    const THRESHOLD: f64 = 70.0;
    const MARGIN: f64 = 10.0;
    let near_boundary = |l: f64| u32::from((THRESHOLD - MARGIN..=THRESHOLD + MARGIN).contains(&l));
    let boundary_edges =
        near_boundary(pass_rate_lambda) + near_boundary(coverage_lambda) + near_boundary(stability_lambda);
    let mut sum = 0.0;
    let mut issues = 0u32;
    for shortfall in [1.0 - result.pass_rate, 1.0 - result.coverage, result.flaky_ratio] {
        if shortfall > 0.1 {
            sum += shortfall;
            issues += 1;
        }
    }
    let boundary_concentration = if issues > 0 { sum / f64::from(issues) } else { 0.0 };
    // `previousLambda || lambda`: an absent, zero (or -0) previous lambda falls back to lambda.
    let lambda_prev = match result.previous_lambda {
        Some(p) if p != 0.0 => p,
        _ => lambda,
    };
    QualitySignal {
        lambda,
        lambda_prev,
        boundary_edges,
        boundary_concentration,
        partition_count: count_quality_partitions(result),
        flags: 0,
    }
}
