//! Engine 1: should an agent's refinement loop stop? (seed 000, `early-stopping.mjs`)
//!
//! # Order of checks in [`EarlyStopping::should_stop_with`]
//!
//! The seed's order, first stop wins, with the opt-in options (all off by default, so the
//! default output is the seed's) placed deliberately around it:
//! 1. empty history: go on, `'No iterations completed yet'`, confidence 1.0;
//! 2. *hard limits* (opt-in), before any quality trigger because they bound cost whatever
//!    the quality says: budgets (`maxTotalTokens`, `maxTotalCostUsd`, `maxWallClockMs`, in
//!    that order; trigger `budget_exhausted`), then `maxIterations` (`max_iterations`);
//! 3. *warm-up* (opt-in `minIterations`): while fewer iterations are recorded, go on with
//!    `'Warm-up: iteration N of M'`; no quality trigger stops and the outside source is not asked;
//! 4. high confidence on the last record (confidence >= `high_confidence_threshold` and
//!    quality >= `min_quality_threshold`, and with `require_verification` a `passed`
//!    verification; a high-confidence record that is not verified falls through);
//! 5. quality plateau (if enabled) over the last `plateau_consecutive_count` records
//!    (opt-in `plateauDeltaSource`, `plateauMode`);
//! 6. quality regression (opt-in `regressionTolerance`/`regressionPatience`);
//! 7. diminishing returns from an outside source (if enabled and one is attached), asked
//!    only when nothing above stopped (it may be costly, as in the seed);
//! 8. otherwise go on, `'Continuing iteration - no stopping criteria met'`, confidence 0.7.
//!
//! Every decision also carries the best iteration so far (`best_iteration`,
//! `best_quality_score`) and, once a budget is configured, `budgets`.
//!
//! The rules are also offered as stateless functions ([`check_high_confidence`],
//! [`check_plateau`], [`diminishing_returns_decision`]) over [`Observation`]s, so a binding
//! can keep the decision state in a buffer it owns and call the core without a native
//! object per engine (see `performance.md`).

use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::jsnum;
use crate::timestamp;
use crate::value::{self, FieldName, Naming, ObjectReader, Value, MAX_SAFE_INTEGER};

/// The verification outcome an iteration reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VerificationStatus {
    /// Verification ran and passed.
    Passed,
    /// Verification ran and failed.
    Failed,
    /// Verification was not run.
    Skipped,
}

impl VerificationStatus {
    /// The seed's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            VerificationStatus::Passed => "passed",
            VerificationStatus::Failed => "failed",
            VerificationStatus::Skipped => "skipped",
        }
    }

    /// Parses the seed's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "passed" => Some(VerificationStatus::Passed),
            "failed" => Some(VerificationStatus::Failed),
            "skipped" => Some(VerificationStatus::Skipped),
            _ => None,
        }
    }

    /// All statuses, in the seed's order.
    pub const ALL: [&'static str; 3] = ["passed", "failed", "skipped"];
}

/// Which criterion stopped the loop (`'none'` when it goes on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Trigger {
    /// Nothing stopped.
    None,
    /// High confidence (with verification passed, when required).
    HighConfidence,
    /// Quality plateau.
    QualityPlateau,
    /// Diminishing returns reported by the analytics source.
    DiminishingReturns,
    /// Opt-in hard limit `maxIterations` reached.
    MaxIterations,
    /// Opt-in budget (tokens, cost, wall-clock) exceeded.
    BudgetExhausted,
    /// Opt-in regression guard: quality stayed below the best for too long.
    QualityRegression,
}

impl Trigger {
    /// Every trigger, the seed's four first.
    pub const ALL: [Trigger; 7] = [
        Trigger::None,
        Trigger::HighConfidence,
        Trigger::QualityPlateau,
        Trigger::DiminishingReturns,
        Trigger::MaxIterations,
        Trigger::BudgetExhausted,
        Trigger::QualityRegression,
    ];

    /// The seed's spelling (and the options' triggers in the same style).
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::None => "none",
            Trigger::HighConfidence => "high_confidence",
            Trigger::QualityPlateau => "quality_plateau",
            Trigger::DiminishingReturns => "diminishing_returns",
            Trigger::MaxIterations => "max_iterations",
            Trigger::BudgetExhausted => "budget_exhausted",
            Trigger::QualityRegression => "quality_regression",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// The three opt-in budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// Sum of `tokens_used` (`maxTotalTokens`).
    Tokens,
    /// Sum of `token_cost_usd` (`maxTotalCostUsd`).
    CostUsd,
    /// Sum of `execution_time_ms` (`maxWallClockMs`).
    WallClockMs,
}

impl Budget {
    /// `'tokens'`, `'cost_usd'`, `'wall_clock_ms'`.
    pub fn as_str(self) -> &'static str {
        match self {
            Budget::Tokens => "tokens",
            Budget::CostUsd => "cost_usd",
            Budget::WallClockMs => "wall_clock_ms",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [Budget::Tokens, Budget::CostUsd, Budget::WallClockMs].into_iter().find(|b| b.as_str() == s)
    }

    fn index(self) -> usize {
        match self {
            Budget::Tokens => 0,
            Budget::CostUsd => 1,
            Budget::WallClockMs => 2,
        }
    }

    /// The record field the budget sums.
    pub fn field(self) -> &'static str {
        match self {
            Budget::Tokens => "tokens_used",
            Budget::CostUsd => "token_cost_usd",
            Budget::WallClockMs => "execution_time_ms",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------

const HIGH_CONFIDENCE_THRESHOLD: FieldName = FieldName::new("highConfidenceThreshold", "high_confidence_threshold");
const PLATEAU_CONSECUTIVE_COUNT: FieldName = FieldName::new("plateauConsecutiveCount", "plateau_consecutive_count");
const PLATEAU_IMPROVEMENT_THRESHOLD: FieldName =
    FieldName::new("plateauImprovementThreshold", "plateau_improvement_threshold");
const MIN_QUALITY_THRESHOLD: FieldName = FieldName::new("minQualityThreshold", "min_quality_threshold");
const REQUIRE_VERIFICATION: FieldName = FieldName::new("requireVerification", "require_verification");
const ENABLE_PLATEAU_DETECTION: FieldName = FieldName::new("enablePlateauDetection", "enable_plateau_detection");
const ENABLE_DIMINISHING_RETURNS: FieldName = FieldName::new("enableDiminishingReturns", "enable_diminishing_returns");
const PLATEAU_DELTA_SOURCE: FieldName = FieldName::new("plateauDeltaSource", "plateau_delta_source");
const PLATEAU_MODE: FieldName = FieldName::new("plateauMode", "plateau_mode");
const MIN_ITERATIONS: FieldName = FieldName::new("minIterations", "min_iterations");
const MAX_ITERATIONS: FieldName = FieldName::new("maxIterations", "max_iterations");
const MAX_TOTAL_TOKENS: FieldName = FieldName::new("maxTotalTokens", "max_total_tokens");
const MAX_TOTAL_COST_USD: FieldName = FieldName::new("maxTotalCostUsd", "max_total_cost_usd");
const MAX_WALL_CLOCK_MS: FieldName = FieldName::new("maxWallClockMs", "max_wall_clock_ms");
const REGRESSION_TOLERANCE: FieldName = FieldName::new("regressionTolerance", "regression_tolerance");
const REGRESSION_PATIENCE: FieldName = FieldName::new("regressionPatience", "regression_patience");

/// Every config key: the seed's seven in its order, then the opt-in options.
pub const CONFIG_FIELDS: &[FieldName] = &[
    HIGH_CONFIDENCE_THRESHOLD,
    PLATEAU_CONSECUTIVE_COUNT,
    PLATEAU_IMPROVEMENT_THRESHOLD,
    MIN_QUALITY_THRESHOLD,
    REQUIRE_VERIFICATION,
    ENABLE_PLATEAU_DETECTION,
    ENABLE_DIMINISHING_RETURNS,
    PLATEAU_DELTA_SOURCE,
    PLATEAU_MODE,
    MIN_ITERATIONS,
    MAX_ITERATIONS,
    MAX_TOTAL_TOKENS,
    MAX_TOTAL_COST_USD,
    MAX_WALL_CLOCK_MS,
    REGRESSION_TOLERANCE,
    REGRESSION_PATIENCE,
];

/// Where the plateau rule takes each step's change from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlateauDeltaSource {
    /// The caller's `quality_delta` (the seed's behaviour).
    Reported,
    /// This record's quality minus the previous record's.
    Computed,
}

impl PlateauDeltaSource {
    /// `'reported'` or `'computed'`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlateauDeltaSource::Reported => "reported",
            PlateauDeltaSource::Computed => "computed",
        }
    }
}

/// How the plateau rule measures a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlateauMode {
    /// `|delta| / previous quality`, threshold a fraction 0..=1 (the seed's behaviour).
    Relative,
    /// `|delta|` in quality points, threshold 0..=100.
    Absolute,
}

impl PlateauMode {
    /// `'relative'` or `'absolute'`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlateauMode::Relative => "relative",
            PlateauMode::Absolute => "absolute",
        }
    }
}

/// `EarlyStoppingConfig` with the seed's defaults ([`EarlyStoppingConfig::default`]). The
/// options after the seed's seven are opt-in: `None` keeps the seed's behaviour, and only
/// options that were set appear in `getConfig()`.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlyStoppingConfig {
    /// Confidence at or above which a (verified) record stops the loop; 0..=1, default 0.95.
    pub high_confidence_threshold: f64,
    /// How many most recent records form a plateau; integer >= 2, default 3.
    pub plateau_consecutive_count: u64,
    /// Improvement below which a step counts as flat; 0..=1 (0..=100 points in absolute
    /// plateau mode), default 0.02.
    pub plateau_improvement_threshold: f64,
    /// Quality a high-confidence stop needs; 0..=100, default 70.
    pub min_quality_threshold: f64,
    /// Whether a high-confidence stop needs `verification_status == passed`; default true.
    pub require_verification: bool,
    /// Whether the plateau check runs; default true.
    pub enable_plateau_detection: bool,
    /// Whether an attached diminishing-returns source is asked; default true.
    pub enable_diminishing_returns: bool,
    /// Opt-in: where plateau deltas come from (default reported).
    pub plateau_delta_source: Option<PlateauDeltaSource>,
    /// Opt-in: relative or absolute plateau threshold (default relative).
    pub plateau_mode: Option<PlateauMode>,
    /// Opt-in warm-up: no quality trigger stops while fewer iterations are recorded; >= 1.
    pub min_iterations: Option<u64>,
    /// Opt-in hard limit: stop once this many iterations are recorded; >= 1.
    pub max_iterations: Option<u64>,
    /// Opt-in budget over the sum of `tokens_used`; finite >= 0.
    pub max_total_tokens: Option<f64>,
    /// Opt-in budget over the sum of `token_cost_usd`; finite >= 0.
    pub max_total_cost_usd: Option<f64>,
    /// Opt-in budget over the sum of `execution_time_ms`; finite >= 0.
    pub max_wall_clock_ms: Option<f64>,
    /// Opt-in regression guard: points below the best that count as a regression; 0..=100.
    pub regression_tolerance: Option<f64>,
    /// Iterations a regression must last to stop (needs `regression_tolerance`); >= 1, default 2.
    pub regression_patience: Option<u64>,
}

impl Default for EarlyStoppingConfig {
    /// The seed's `DEFAULT_CONFIG`, no option set.
    fn default() -> Self {
        EarlyStoppingConfig {
            high_confidence_threshold: 0.95,
            plateau_consecutive_count: 3,
            plateau_improvement_threshold: 0.02,
            min_quality_threshold: 70.0,
            require_verification: true,
            enable_plateau_detection: true,
            enable_diminishing_returns: true,
            plateau_delta_source: None,
            plateau_mode: None,
            min_iterations: None,
            max_iterations: None,
            max_total_tokens: None,
            max_total_cost_usd: None,
            max_wall_clock_ms: None,
            regression_tolerance: None,
            regression_patience: None,
        }
    }
}

/// Patience of the regression guard when only a tolerance is configured.
pub const DEFAULT_REGRESSION_PATIENCE: u64 = 2;

impl EarlyStoppingConfig {
    /// Checks every value of a config built in Rust (field names in snake_case).
    pub fn validate(&self) -> Result<()> {
        EarlyStoppingConfig::default()
            .merged_at(&self.to_value(Naming::Snake), Naming::Snake, "", "config", ErrorCode::InvalidConfig)
            .map(|_| ())
    }

    /// Merges a partial config object over `self` (the seed's `{...base, ...options}`),
    /// validating every key; `root` names the argument in errors (`config`, `options`).
    /// `null` merges nothing, as spreading `null` does in JavaScript.
    pub fn merged(&self, options: &Value, naming: Naming, root: &str, code: ErrorCode) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(self.clone());
        }
        self.merged_at(options, naming, "", root, code)
    }

    pub(crate) fn merged_at(
        &self,
        options: &Value,
        naming: Naming,
        path: &str,
        root: &str,
        code: ErrorCode,
    ) -> Result<Self> {
        let reader = ObjectReader::new(options, path, root, naming, code)?;
        reader.reject_unknown(CONFIG_FIELDS)?;
        let mut c = self.clone();
        let has = |f: FieldName| reader.get(f).is_some();
        if has(HIGH_CONFIDENCE_THRESHOLD) {
            c.high_confidence_threshold = reader.number(HIGH_CONFIDENCE_THRESHOLD, 0.0, 1.0)?;
        }
        if has(PLATEAU_CONSECUTIVE_COUNT) {
            c.plateau_consecutive_count = reader.integer(PLATEAU_CONSECUTIVE_COUNT, 2, MAX_SAFE_INTEGER)?;
        }
        if has(PLATEAU_IMPROVEMENT_THRESHOLD) {
            // The range depends on the plateau mode, checked below once the mode is known.
            c.plateau_improvement_threshold = reader.number(PLATEAU_IMPROVEMENT_THRESHOLD, 0.0, 100.0)?;
        }
        if has(MIN_QUALITY_THRESHOLD) {
            c.min_quality_threshold = reader.number(MIN_QUALITY_THRESHOLD, 0.0, 100.0)?;
        }
        if has(REQUIRE_VERIFICATION) {
            c.require_verification = reader.boolean(REQUIRE_VERIFICATION)?;
        }
        if has(ENABLE_PLATEAU_DETECTION) {
            c.enable_plateau_detection = reader.boolean(ENABLE_PLATEAU_DETECTION)?;
        }
        if has(ENABLE_DIMINISHING_RETURNS) {
            c.enable_diminishing_returns = reader.boolean(ENABLE_DIMINISHING_RETURNS)?;
        }
        if has(PLATEAU_DELTA_SOURCE) {
            c.plateau_delta_source = Some(match reader.choice(PLATEAU_DELTA_SOURCE, &["reported", "computed"])? {
                "computed" => PlateauDeltaSource::Computed,
                _ => PlateauDeltaSource::Reported,
            });
        }
        if has(PLATEAU_MODE) {
            c.plateau_mode = Some(match reader.choice(PLATEAU_MODE, &["relative", "absolute"])? {
                "absolute" => PlateauMode::Absolute,
                _ => PlateauMode::Relative,
            });
        }
        if has(MIN_ITERATIONS) {
            c.min_iterations = Some(reader.integer(MIN_ITERATIONS, 1, MAX_SAFE_INTEGER)?);
        }
        if has(MAX_ITERATIONS) {
            c.max_iterations = Some(reader.integer(MAX_ITERATIONS, 1, MAX_SAFE_INTEGER)?);
        }
        if has(MAX_TOTAL_TOKENS) {
            c.max_total_tokens = Some(reader.number(MAX_TOTAL_TOKENS, 0.0, f64::MAX)?);
        }
        if has(MAX_TOTAL_COST_USD) {
            c.max_total_cost_usd = Some(reader.number(MAX_TOTAL_COST_USD, 0.0, f64::MAX)?);
        }
        if has(MAX_WALL_CLOCK_MS) {
            c.max_wall_clock_ms = Some(reader.number(MAX_WALL_CLOCK_MS, 0.0, f64::MAX)?);
        }
        if has(REGRESSION_TOLERANCE) {
            c.regression_tolerance = Some(reader.number(REGRESSION_TOLERANCE, 0.0, 100.0)?);
        }
        if has(REGRESSION_PATIENCE) {
            c.regression_patience = Some(reader.integer(REGRESSION_PATIENCE, 1, MAX_SAFE_INTEGER)?);
        }
        // Cross-field rules, reported on the field whose value no longer fits.
        let inconsistent = |field: FieldName, why: &str| {
            let name = value::join_path(path, field.spelled(naming));
            Err(Error::new(code, ErrorKind::Range, name.clone(), [&name, " ", why].concat()))
        };
        if c.plateau_mode != Some(PlateauMode::Absolute) && c.plateau_improvement_threshold > 1.0 {
            let why = "must be a finite number between 0 and 1 (a fraction) unless plateauMode is 'absolute', got ";
            return inconsistent(
                PLATEAU_IMPROVEMENT_THRESHOLD,
                &[why, &jsnum::to_js_string(c.plateau_improvement_threshold)].concat(),
            );
        }
        if let (Some(min), Some(max)) = (c.min_iterations, c.max_iterations) {
            if min > max {
                return inconsistent(MIN_ITERATIONS, "must not exceed maxIterations");
            }
        }
        if c.regression_patience.is_some() && c.regression_tolerance.is_none() {
            return inconsistent(REGRESSION_PATIENCE, "needs regressionTolerance to be set");
        }
        Ok(c)
    }

    /// The config as the seed's `getConfig()` returns it: the seed's keys in its order,
    /// then the opt-in options that are set.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut entries: Vec<(String, Value)> = vec![
            (HIGH_CONFIDENCE_THRESHOLD.spelled(naming).into(), Value::Number(self.high_confidence_threshold)),
            (PLATEAU_CONSECUTIVE_COUNT.spelled(naming).into(), Value::Number(self.plateau_consecutive_count as f64)),
            (PLATEAU_IMPROVEMENT_THRESHOLD.spelled(naming).into(), Value::Number(self.plateau_improvement_threshold)),
            (MIN_QUALITY_THRESHOLD.spelled(naming).into(), Value::Number(self.min_quality_threshold)),
            (REQUIRE_VERIFICATION.spelled(naming).into(), Value::Bool(self.require_verification)),
            (ENABLE_PLATEAU_DETECTION.spelled(naming).into(), Value::Bool(self.enable_plateau_detection)),
            (ENABLE_DIMINISHING_RETURNS.spelled(naming).into(), Value::Bool(self.enable_diminishing_returns)),
        ];
        let options: [(FieldName, Option<Value>); 9] = [
            (PLATEAU_DELTA_SOURCE, self.plateau_delta_source.map(|s| Value::string(s.as_str()))),
            (PLATEAU_MODE, self.plateau_mode.map(|m| Value::string(m.as_str()))),
            (MIN_ITERATIONS, self.min_iterations.map(|n| Value::Number(n as f64))),
            (MAX_ITERATIONS, self.max_iterations.map(|n| Value::Number(n as f64))),
            (MAX_TOTAL_TOKENS, self.max_total_tokens.map(Value::Number)),
            (MAX_TOTAL_COST_USD, self.max_total_cost_usd.map(Value::Number)),
            (MAX_WALL_CLOCK_MS, self.max_wall_clock_ms.map(Value::Number)),
            (REGRESSION_TOLERANCE, self.regression_tolerance.map(Value::Number)),
            (REGRESSION_PATIENCE, self.regression_patience.map(|n| Value::Number(n as f64))),
        ];
        for (field, item) in options {
            if let Some(item) = item {
                entries.push((field.spelled(naming).to_string(), item));
            }
        }
        Value::Object(entries)
    }

    fn budgets(&self) -> [(Budget, Option<f64>); 3] {
        [
            (Budget::Tokens, self.max_total_tokens),
            (Budget::CostUsd, self.max_total_cost_usd),
            (Budget::WallClockMs, self.max_wall_clock_ms),
        ]
    }
}

// ---------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------

const ITERATION_NUMBER: FieldName = FieldName::same("iteration_number");
const QUALITY_SCORE: FieldName = FieldName::same("quality_score");
const CONFIDENCE: FieldName = FieldName::same("confidence");
const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");
const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");
const TIMESTAMP: FieldName = FieldName::same("timestamp");
const TOKENS_USED: FieldName = FieldName::same("tokens_used");
const TOKEN_COST_USD: FieldName = FieldName::same("token_cost_usd");
const EXECUTION_TIME_MS: FieldName = FieldName::same("execution_time_ms");

/// The keys an iteration result may have, in the design page's table order.
pub const RESULT_FIELDS: [FieldName; 9] = [
    QUALITY_SCORE,
    CONFIDENCE,
    VERIFICATION_STATUS,
    QUALITY_DELTA,
    TIMESTAMP,
    TOKENS_USED,
    TOKEN_COST_USD,
    EXECUTION_TIME_MS,
    ITERATION_NUMBER,
];

/// Optional resource figures of one iteration (summed by budgets and analytics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResourceUsage {
    /// Tokens the iteration used; finite, >= 0.
    pub tokens_used: Option<f64>,
    /// Cost in US dollars; finite, >= 0.
    pub token_cost_usd: Option<f64>,
    /// Wall-clock time in milliseconds; finite, >= 0.
    pub execution_time_ms: Option<f64>,
}

impl ResourceUsage {
    fn is_empty(&self) -> bool {
        self.tokens_used.is_none() && self.token_cost_usd.is_none() && self.execution_time_ms.is_none()
    }

    fn read(reader: &ObjectReader<'_>) -> Result<Self> {
        Ok(ResourceUsage {
            tokens_used: reader.opt_number(TOKENS_USED, 0.0, f64::MAX)?,
            token_cost_usd: reader.opt_number(TOKEN_COST_USD, 0.0, f64::MAX)?,
            execution_time_ms: reader.opt_number(EXECUTION_TIME_MS, 0.0, f64::MAX)?,
        })
    }

    fn push_values(&self, out: &mut Vec<(String, Value)>) {
        for (field, value) in [
            (TOKENS_USED, self.tokens_used),
            (TOKEN_COST_USD, self.token_cost_usd),
            (EXECUTION_TIME_MS, self.execution_time_ms),
        ] {
            if let Some(v) = value {
                out.push((field.js.to_string(), Value::Number(v)));
            }
        }
    }
}

/// What an agent reports after one iteration (`IterationResult` in the seed).
#[derive(Clone, Debug, PartialEq)]
pub struct IterationResult {
    /// 0..=100.
    pub quality_score: f64,
    /// 0..=1.
    pub confidence: f64,
    /// passed, failed or skipped.
    pub verification_status: VerificationStatus,
    /// The caller's change from the previous iteration (any finite number).
    pub quality_delta: f64,
    /// RFC 3339; `None` lets [`EarlyStopping::record_value`]'s clock fill it.
    pub timestamp: Option<String>,
    /// Optional resource figures.
    pub usage: ResourceUsage,
    /// If given, must equal the iteration argument.
    pub iteration_number: Option<u64>,
}

impl IterationResult {
    /// A result without timestamp or usage.
    pub fn new(
        quality_score: f64,
        confidence: f64,
        verification_status: VerificationStatus,
        quality_delta: f64,
    ) -> Self {
        IterationResult {
            quality_score,
            confidence,
            verification_status,
            quality_delta,
            timestamp: None,
            usage: ResourceUsage::default(),
            iteration_number: None,
        }
    }

    /// Parses and validates the seed's result object (`result` names it in errors).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        if matches!(value, Value::Null) {
            return Err(Error::new(
                ErrorCode::InvalidResult,
                ErrorKind::Type,
                "result",
                "result must be an object, got null",
            ));
        }
        Self::read(value, naming, "", ErrorCode::InvalidResult)
    }

    fn read(value: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "result", naming, code)?;
        reader.reject_unknown(&RESULT_FIELDS)?;
        let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
        let confidence = reader.number(CONFIDENCE, 0.0, 1.0)?;
        let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::ALL)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        let quality_delta = reader.number(QUALITY_DELTA, f64::MIN, f64::MAX)?;
        let timestamp = match reader.get(TIMESTAMP) {
            None => None,
            Some(v) => {
                let s = reader.string(TIMESTAMP)?;
                if !timestamp::is_rfc3339(s) {
                    return Err(reader.range_error(TIMESTAMP, "an RFC 3339 date-time", v));
                }
                Some(s.to_string())
            }
        };
        let usage = ResourceUsage::read(&reader)?;
        let iteration_number = reader.opt_integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?;
        Ok(IterationResult {
            quality_score,
            confidence,
            verification_status,
            quality_delta,
            timestamp,
            usage,
            iteration_number,
        })
    }

    /// Checks every value of a result built in Rust.
    pub fn validate(&self, iteration: u64) -> Result<()> {
        let range = |name: &str, requirement: String, got: f64| {
            Err(Error::new(
                ErrorCode::InvalidResult,
                ErrorKind::Range,
                name,
                [name, " must be ", &requirement, ", got ", &jsnum::to_js_string(got)].concat(),
            ))
        };
        if value::check_range(self.quality_score, 0.0, 100.0).is_none() {
            return range("quality_score", value::range_text(0.0, 100.0), self.quality_score);
        }
        if value::check_range(self.confidence, 0.0, 1.0).is_none() {
            return range("confidence", value::range_text(0.0, 1.0), self.confidence);
        }
        if !self.quality_delta.is_finite() {
            return range("quality_delta", "a finite number".into(), self.quality_delta);
        }
        if let Some(ts) = &self.timestamp {
            if !timestamp::is_rfc3339(ts) {
                return Err(Error::new(
                    ErrorCode::InvalidResult,
                    ErrorKind::Range,
                    "timestamp",
                    ["timestamp must be an RFC 3339 date-time, got ", &Value::string(ts.as_str()).describe()].concat(),
                ));
            }
        }
        for (name, v) in [
            ("tokens_used", self.usage.tokens_used),
            ("token_cost_usd", self.usage.token_cost_usd),
            ("execution_time_ms", self.usage.execution_time_ms),
        ] {
            if let Some(v) = v {
                if value::check_range(v, 0.0, f64::MAX).is_none() {
                    return range(name, value::range_text(0.0, f64::MAX), v);
                }
            }
        }
        if let Some(n) = self.iteration_number {
            if n != iteration {
                return iteration_mismatch(n, iteration);
            }
        }
        Ok(())
    }
}

fn iteration_mismatch(given: u64, iteration: u64) -> Result<()> {
    Err(Error::new(
        ErrorCode::InvalidResult,
        ErrorKind::Range,
        "iteration_number",
        ["iteration_number must equal the iteration argument (", &iteration.to_string(), "), got ", &given.to_string()]
            .concat(),
    ))
}

/// Checks an iteration number argument (an integer in 1..=2^53-1).
pub fn validate_iteration(iteration: u64) -> Result<()> {
    if (1..=MAX_SAFE_INTEGER).contains(&iteration) {
        Ok(())
    } else {
        value::integer_argument(
            &Value::Number(iteration as f64),
            "iteration",
            ErrorCode::InvalidIteration,
            1,
            MAX_SAFE_INTEGER,
        )
        .map(|_| ())
        .and(Err(Error::new(
            ErrorCode::InvalidIteration,
            ErrorKind::Range,
            "iteration",
            "iteration must be an integer >= 1",
        )))
    }
}

/// The decision-relevant part of a record: what the stateless rules read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// The iteration number.
    pub iteration: u64,
    /// 0..=100.
    pub quality_score: f64,
    /// 0..=1.
    pub confidence: f64,
    /// The caller's delta (the seed's plateau rule reads this, not the score difference).
    pub quality_delta: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
}

impl AsRef<Observation> for Observation {
    fn as_ref(&self) -> &Observation {
        self
    }
}

/// One entry of the history: the seed's six fields plus the optional usage the caller gave.
/// Kept to 64 bytes (plus the timestamp's heap bytes): usage is boxed because it is rare.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationRecord {
    /// Decision-relevant fields.
    pub observation: Observation,
    /// RFC 3339, stored verbatim.
    pub timestamp: Box<str>,
    /// Optional resource figures.
    pub usage: Option<Box<ResourceUsage>>,
}

impl AsRef<Observation> for IterationRecord {
    fn as_ref(&self) -> &Observation {
        &self.observation
    }
}

impl IterationRecord {
    /// The record as the seed's `getIterationHistory()` returns it.
    pub fn to_value(&self) -> Value {
        let o = &self.observation;
        let mut entries = vec![
            ("iteration_number".to_string(), Value::Number(o.iteration as f64)),
            ("quality_score".to_string(), Value::Number(o.quality_score)),
            ("confidence".to_string(), Value::Number(o.confidence)),
            ("verification_status".to_string(), Value::string(o.verification_status.as_str())),
            ("quality_delta".to_string(), Value::Number(o.quality_delta)),
            ("timestamp".to_string(), Value::string(&*self.timestamp)),
        ];
        if let Some(usage) = &self.usage {
            usage.push_values(&mut entries);
        }
        Value::Object(entries)
    }

    fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "record", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let iteration = reader.integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?;
        reader.string(TIMESTAMP)?; // a restored record must carry its timestamp
        let result = IterationResult::read(value, Naming::Snake, path, ErrorCode::InvalidSnapshot)?;
        Ok(make_record(iteration, result, String::new()))
    }
}

fn make_record(iteration: u64, result: IterationResult, fallback_timestamp: String) -> IterationRecord {
    IterationRecord {
        observation: Observation {
            iteration,
            quality_score: result.quality_score,
            confidence: result.confidence,
            quality_delta: result.quality_delta,
            verification_status: result.verification_status,
        },
        timestamp: result.timestamp.unwrap_or(fallback_timestamp).into_boxed_str(),
        usage: (!result.usage.is_empty()).then(|| Box::new(result.usage)),
    }
}

// ---------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------

/// One step of a detected plateau, as the seed's `details.improvements` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlateauStep {
    /// The later record's iteration number.
    pub iteration: u64,
    /// `|delta| / previous quality` (0 when the previous quality is <= 0).
    pub improvement: f64,
    /// The later record's reported delta.
    pub delta: f64,
}

/// What an outside source reported as the detection iteration: the seed copies it verbatim,
/// so an absent key stays absent and `null` stays `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedIteration {
    /// The source's object had no `iteration` key (JS `undefined`).
    Absent,
    /// `iteration: null`.
    Null,
    /// An iteration number.
    At(u64),
}

impl ReportedIteration {
    fn to_value(self) -> Option<Value> {
        match self {
            ReportedIteration::Absent => None,
            ReportedIteration::Null => Some(Value::Null),
            ReportedIteration::At(n) => Some(Value::Number(n as f64)),
        }
    }
}

/// The seed's `details` object of a stopping decision.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum StoppingDetails {
    /// `{confidence, quality_score, verification_status?}` (status only when verification is required).
    HighConfidence {
        /// The record's confidence.
        confidence: f64,
        /// The record's quality.
        quality_score: f64,
        /// The record's verification status, when verification was required.
        verification_status: Option<VerificationStatus>,
    },
    /// `{consecutive_count, improvements, average_quality, threshold}`.
    QualityPlateau {
        /// `plateau_consecutive_count`.
        consecutive_count: u64,
        /// One entry per consecutive pair.
        improvements: Vec<PlateauStep>,
        /// Mean quality over the window.
        average_quality: f64,
        /// `plateau_improvement_threshold`.
        threshold: f64,
    },
    /// `{detected_at_iteration, analytics_reason}`.
    DiminishingReturns {
        /// The source's `iteration`.
        detected_at_iteration: ReportedIteration,
        /// The source's `reason`.
        analytics_reason: String,
    },
    /// `{iterations, max_iterations}` (opt-in `maxIterations`).
    MaxIterations {
        /// Iterations recorded.
        iterations: u64,
        /// The limit.
        max_iterations: u64,
    },
    /// `{budget, limit, observed, records_without_value}` (opt-in budgets).
    BudgetExhausted {
        /// Which budget.
        budget: Budget,
        /// Its limit.
        limit: f64,
        /// The sum over the records that report the field.
        observed: f64,
        /// Records that do not report the field (unknown, not zero).
        records_without_value: u64,
    },
    /// `{best_iteration, best_quality_score, tolerance, patience}` (opt-in regression guard).
    QualityRegression {
        /// The best record's iteration.
        best_iteration: u64,
        /// Its quality.
        best_quality_score: f64,
        /// `regressionTolerance`.
        tolerance: f64,
        /// `regressionPatience`.
        patience: u64,
    },
}

impl StoppingDetails {
    /// The seed's details object.
    pub fn to_value(&self) -> Value {
        match self {
            StoppingDetails::HighConfidence { confidence, quality_score, verification_status } => {
                let mut entries = vec![
                    ("confidence".to_string(), Value::Number(*confidence)),
                    ("quality_score".to_string(), Value::Number(*quality_score)),
                ];
                if let Some(status) = verification_status {
                    entries.push(("verification_status".to_string(), Value::string(status.as_str())));
                }
                Value::Object(entries)
            }
            StoppingDetails::QualityPlateau { consecutive_count, improvements, average_quality, threshold } => {
                Value::object(vec![
                    ("consecutive_count", Value::Number(*consecutive_count as f64)),
                    (
                        "improvements",
                        Value::Array(
                            improvements
                                .iter()
                                .map(|step| {
                                    Value::object(vec![
                                        ("iteration", Value::Number(step.iteration as f64)),
                                        ("improvement", Value::Number(step.improvement)),
                                        ("delta", Value::Number(step.delta)),
                                    ])
                                })
                                .collect(),
                        ),
                    ),
                    ("average_quality", Value::Number(*average_quality)),
                    ("threshold", Value::Number(*threshold)),
                ])
            }
            StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason } => {
                let mut entries = Vec::with_capacity(2);
                if let Some(v) = detected_at_iteration.to_value() {
                    entries.push(("detected_at_iteration".to_string(), v));
                }
                entries.push(("analytics_reason".to_string(), Value::string(analytics_reason.as_str())));
                Value::Object(entries)
            }
            StoppingDetails::MaxIterations { iterations, max_iterations } => Value::object(vec![
                ("iterations", Value::Number(*iterations as f64)),
                ("max_iterations", Value::Number(*max_iterations as f64)),
            ]),
            StoppingDetails::BudgetExhausted { budget, limit, observed, records_without_value } => Value::object(vec![
                ("budget", Value::string(budget.as_str())),
                ("limit", Value::Number(*limit)),
                ("observed", Value::Number(*observed)),
                ("records_without_value", Value::Number(*records_without_value as f64)),
            ]),
            StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience } => {
                Value::object(vec![
                    ("best_iteration", Value::Number(*best_iteration as f64)),
                    ("best_quality_score", Value::Number(*best_quality_score)),
                    ("tolerance", Value::Number(*tolerance)),
                    ("patience", Value::Number(*patience as f64)),
                ])
            }
        }
    }

    fn from_snapshot(value: &Value, path: &str) -> Result<Self> {
        let snapshot_error = |field: &str, what: &str| {
            let field = value::join_path(path, field);
            Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, field.clone(), [&field, " ", what].concat())
        };
        let reader = ObjectReader::new(value, path, "stoppingDetails", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        let f = FieldName::same;
        if reader.get(f("max_iterations")).is_some() {
            reader.reject_unknown(&[f("iterations"), f("max_iterations")])?;
            return Ok(StoppingDetails::MaxIterations {
                iterations: reader.integer(f("iterations"), 1, MAX_SAFE_INTEGER)?,
                max_iterations: reader.integer(f("max_iterations"), 1, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(f("budget")).is_some() {
            reader.reject_unknown(&[f("budget"), f("limit"), f("observed"), f("records_without_value")])?;
            let budget = reader.choice(f("budget"), &["tokens", "cost_usd", "wall_clock_ms"])?;
            return Ok(StoppingDetails::BudgetExhausted {
                budget: Budget::parse(budget).unwrap_or(Budget::Tokens),
                limit: reader.number(f("limit"), 0.0, f64::MAX)?,
                observed: reader.number(f("observed"), 0.0, f64::MAX)?,
                records_without_value: reader.integer(f("records_without_value"), 0, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(f("patience")).is_some() {
            reader.reject_unknown(&[f("best_iteration"), f("best_quality_score"), f("tolerance"), f("patience")])?;
            return Ok(StoppingDetails::QualityRegression {
                best_iteration: reader.integer(f("best_iteration"), 1, MAX_SAFE_INTEGER)?,
                best_quality_score: reader.number(f("best_quality_score"), 0.0, 100.0)?,
                tolerance: reader.number(f("tolerance"), 0.0, 100.0)?,
                patience: reader.integer(f("patience"), 1, MAX_SAFE_INTEGER)?,
            });
        }
        if reader.get(FieldName::same("analytics_reason")).is_some() {
            reader.reject_unknown(&[FieldName::same("detected_at_iteration"), FieldName::same("analytics_reason")])?;
            let detected_at_iteration = match reader.get(FieldName::same("detected_at_iteration")) {
                None => ReportedIteration::Absent,
                Some(Value::Null) => ReportedIteration::Null,
                Some(_) => ReportedIteration::At(reader.integer(
                    FieldName::same("detected_at_iteration"),
                    1,
                    MAX_SAFE_INTEGER,
                )?),
            };
            let analytics_reason = reader.string(FieldName::same("analytics_reason"))?.to_string();
            return Ok(StoppingDetails::DiminishingReturns { detected_at_iteration, analytics_reason });
        }
        if reader.get(FieldName::same("improvements")).is_some() {
            let fields = ["consecutive_count", "improvements", "average_quality", "threshold"].map(FieldName::same);
            reader.reject_unknown(&fields)?;
            let consecutive_count = reader.integer(FieldName::same("consecutive_count"), 2, MAX_SAFE_INTEGER)?;
            let Some(Value::Array(items)) = reader.get(FieldName::same("improvements")) else {
                return Err(snapshot_error("improvements", "must be an array"));
            };
            let mut improvements = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let item_path = value::index_path(&value::join_path(path, "improvements"), i);
                let step =
                    ObjectReader::new(item, &item_path, "improvement", Naming::Snake, ErrorCode::InvalidSnapshot)?;
                step.reject_unknown(&["iteration", "improvement", "delta"].map(FieldName::same))?;
                improvements.push(PlateauStep {
                    iteration: step.integer(FieldName::same("iteration"), 1, MAX_SAFE_INTEGER)?,
                    improvement: step.number(FieldName::same("improvement"), 0.0, f64::MAX)?,
                    delta: step.number(FieldName::same("delta"), f64::MIN, f64::MAX)?,
                });
            }
            return Ok(StoppingDetails::QualityPlateau {
                consecutive_count,
                improvements,
                average_quality: reader.number(FieldName::same("average_quality"), 0.0, 100.0)?,
                threshold: reader.number(FieldName::same("threshold"), 0.0, 1.0)?,
            });
        }
        reader.reject_unknown(&[CONFIDENCE, QUALITY_SCORE, VERIFICATION_STATUS])?;
        let verification_status = match reader.get(VERIFICATION_STATUS) {
            None => None,
            Some(_) => VerificationStatus::parse(reader.choice(VERIFICATION_STATUS, &VerificationStatus::ALL)?),
        };
        Ok(StoppingDetails::HighConfidence {
            confidence: reader.number(CONFIDENCE, 0.0, 1.0)?,
            quality_score: reader.number(QUALITY_SCORE, 0.0, 100.0)?,
            verification_status,
        })
    }
}

/// The best record so far: the highest quality among passed records reaching
/// `min_quality_threshold`, else the highest overall, earliest on ties (a listed extra on
/// every decision, so a loop that stops on a plateau can return its best output).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BestIteration {
    verified: Option<(u64, f64)>,
    overall: Option<(u64, f64)>,
}

impl BestIteration {
    /// Folds one record in (O(1)).
    pub fn observe(&mut self, observation: &Observation, min_quality_threshold: f64) {
        let candidate = (observation.iteration, observation.quality_score);
        if self.overall.is_none_or(|(_, q)| observation.quality_score > q) {
            self.overall = Some(candidate);
        }
        if observation.verification_status == VerificationStatus::Passed
            && observation.quality_score >= min_quality_threshold
            && self.verified.is_none_or(|(_, q)| observation.quality_score > q)
        {
            self.verified = Some(candidate);
        }
    }

    /// Recomputes from a whole history (after `configure()` changes the quality bar).
    pub fn over<R: AsRef<Observation>>(records: &[R], min_quality_threshold: f64) -> Self {
        let mut best = BestIteration::default();
        for record in records {
            best.observe(record.as_ref(), min_quality_threshold);
        }
        best
    }

    /// `(iteration, quality)` of the best record, if any.
    pub fn get(&self) -> Option<(u64, f64)> {
        self.verified.or(self.overall)
    }
}

/// The seed's `StoppingDecision`, plus the best-iteration extras.
#[derive(Clone, Debug, PartialEq)]
pub struct StoppingDecision {
    /// Whether to stop.
    pub stop: bool,
    /// Why, as the seed words it.
    pub reason: String,
    /// Confidence in the decision.
    pub confidence: f64,
    /// Which criterion fired.
    pub trigger: Trigger,
    /// Present on stops (the seed's `details`).
    pub details: Option<StoppingDetails>,
    /// `(iteration, quality)` of the best record so far.
    pub best: Option<(u64, f64)>,
    /// The state of every configured budget (empty when none is configured).
    pub budgets: Vec<BudgetStatus>,
}

/// Where one configured budget stands: listed on every decision once a budget is set, so a
/// budget that cannot be judged (records without the field) says so.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetStatus {
    /// Which budget.
    pub budget: Budget,
    /// Its limit.
    pub limit: f64,
    /// Sum over the records that report the field.
    pub observed: f64,
    /// Records that do not report the field: their use is unknown, not zero.
    pub records_without_value: u64,
    /// `observed > limit`.
    pub exhausted: bool,
}

impl BudgetStatus {
    fn to_value(&self) -> Value {
        Value::object(vec![
            ("budget", Value::string(self.budget.as_str())),
            ("limit", Value::Number(self.limit)),
            ("observed", Value::Number(self.observed)),
            ("records_without_value", Value::Number(self.records_without_value as f64)),
            ("exhausted", Value::Bool(self.exhausted)),
        ])
    }
}

impl StoppingDecision {
    fn go_on(reason: &str, confidence: f64) -> Self {
        StoppingDecision {
            stop: false,
            reason: reason.to_string(),
            confidence,
            trigger: Trigger::None,
            details: None,
            best: None,
            budgets: Vec::new(),
        }
    }

    fn stop(reason: String, confidence: f64, trigger: Trigger, details: StoppingDetails) -> Self {
        StoppingDecision {
            stop: true,
            reason,
            confidence,
            trigger,
            details: Some(details),
            best: None,
            budgets: Vec::new(),
        }
    }

    /// The decision object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        let mut entries = vec![
            ("stop".to_string(), Value::Bool(self.stop)),
            ("reason".to_string(), Value::string(self.reason.as_str())),
            ("confidence".to_string(), Value::Number(self.confidence)),
            ("trigger".to_string(), Value::string(self.trigger.as_str())),
        ];
        if let Some(details) = &self.details {
            entries.push(("details".to_string(), details.to_value()));
        }
        entries.push(("best_iteration".to_string(), Value::opt_number(self.best.map(|b| b.0 as f64))));
        entries.push(("best_quality_score".to_string(), Value::opt_number(self.best.map(|b| b.1))));
        if !self.budgets.is_empty() {
            entries
                .push(("budgets".to_string(), Value::Array(self.budgets.iter().map(BudgetStatus::to_value).collect())));
        }
        Value::Object(entries)
    }
}

/// Reason of a decision on an empty history.
pub const REASON_NO_ITERATIONS: &str = "No iterations completed yet";
/// Reason when no criterion stopped.
pub const REASON_CONTINUE: &str = "Continuing iteration - no stopping criteria met";

/// The seed's `checkHighConfidence`, returning only a stopping decision (its non-stopping
/// answers are thrown away by `shouldStop`).
pub fn check_high_confidence(config: &EarlyStoppingConfig, last: &Observation) -> Option<StoppingDecision> {
    let meets_confidence = last.confidence >= config.high_confidence_threshold;
    let meets_quality = last.quality_score >= config.min_quality_threshold;
    if !(meets_confidence && meets_quality) {
        return None;
    }
    let mut reason = String::from("High confidence (");
    jsnum::push_fixed(&mut reason, last.confidence * 100.0, 1);
    let verification_status = if config.require_verification {
        if last.verification_status != VerificationStatus::Passed {
            return None;
        }
        reason.push_str("%) AND verification passed");
        Some(last.verification_status)
    } else {
        reason.push_str("%) reached");
        None
    };
    Some(StoppingDecision {
        stop: true,
        reason,
        confidence: last.confidence,
        trigger: Trigger::HighConfidence,
        details: Some(StoppingDetails::HighConfidence {
            confidence: last.confidence,
            quality_score: last.quality_score,
            verification_status,
        }),
        best: None,
        budgets: Vec::new(),
    })
}

/// The seed's `checkQualityPlateau` over the history's tail (`history` may be the whole
/// history or just its last `plateau_consecutive_count` records), returning only a stop.
pub fn check_plateau<R: AsRef<Observation>>(config: &EarlyStoppingConfig, history: &[R]) -> Option<StoppingDecision> {
    let required = config.plateau_consecutive_count;
    let required_len = usize::try_from(required).ok()?;
    if history.len() < required_len {
        return None;
    }
    let recent = history.get(history.len() - required_len..)?;
    let mut improvements = Vec::with_capacity(required_len.saturating_sub(1));
    for pair in recent.windows(2) {
        let [prev, curr] = pair else { continue };
        let (prev, curr) = (prev.as_ref(), curr.as_ref());
        let delta = match config.plateau_delta_source {
            Some(PlateauDeltaSource::Computed) => curr.quality_score - prev.quality_score,
            _ => curr.quality_delta,
        };
        let improvement = match config.plateau_mode {
            Some(PlateauMode::Absolute) => delta.abs(),
            _ if prev.quality_score > 0.0 => delta.abs() / prev.quality_score,
            _ => 0.0,
        };
        if improvement >= config.plateau_improvement_threshold {
            return None;
        }
        improvements.push(PlateauStep { iteration: curr.iteration, improvement, delta });
    }
    let sum = recent.iter().fold(0.0, |sum, r| sum + r.as_ref().quality_score);
    let average_quality = sum / recent.len() as f64;
    let mut reason = String::from("Quality plateau detected: ");
    reason.push_str(&required.to_string());
    reason.push_str(" consecutive iterations with <");
    if config.plateau_mode == Some(PlateauMode::Absolute) {
        jsnum::push_js_string(&mut reason, config.plateau_improvement_threshold);
        reason.push_str(" points improvement");
    } else {
        jsnum::push_fixed(&mut reason, config.plateau_improvement_threshold * 100.0, 0);
        reason.push_str("% improvement");
    }
    Some(StoppingDecision {
        stop: true,
        reason,
        confidence: 0.85,
        trigger: Trigger::QualityPlateau,
        details: Some(StoppingDetails::QualityPlateau {
            consecutive_count: required,
            improvements,
            average_quality,
            threshold: config.plateau_improvement_threshold,
        }),
        best: None,
        budgets: Vec::new(),
    })
}

/// What a diminishing-returns source reports (`{detected, iteration, reason}`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiminishingReturnsReport {
    /// Whether diminishing returns were detected.
    pub detected: bool,
    /// Where, as the source reported it.
    pub iteration: ReportedIteration,
    /// The source's explanation.
    pub reason: String,
}

impl DiminishingReturnsReport {
    /// Validates what an outside source returned (code `invalid_analytics`).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(value, "", "detectDiminishingReturns()", naming, ErrorCode::InvalidAnalytics)?;
        let detected = reader.boolean(FieldName::same("detected"))?;
        let iteration = match reader.get(FieldName::same("iteration")) {
            None => ReportedIteration::Absent,
            Some(Value::Null) => ReportedIteration::Null,
            Some(_) => ReportedIteration::At(reader.integer(FieldName::same("iteration"), 1, MAX_SAFE_INTEGER)?),
        };
        let reason = reader.string(FieldName::same("reason"))?.to_string();
        Ok(DiminishingReturnsReport { detected, iteration, reason })
    }

    /// The report as `{detected, iteration, reason}`.
    pub fn to_value(&self) -> Value {
        let mut entries = vec![("detected".to_string(), Value::Bool(self.detected))];
        if let Some(v) = self.iteration.to_value() {
            entries.push(("iteration".to_string(), v));
        }
        entries.push(("reason".to_string(), Value::string(self.reason.as_str())));
        Value::Object(entries)
    }
}

/// The seed's `checkDiminishingReturns` on a report, returning only a stop.
pub fn diminishing_returns_decision(report: &DiminishingReturnsReport) -> Option<StoppingDecision> {
    report.detected.then(|| StoppingDecision {
        stop: true,
        reason: ["Diminishing returns detected: ", &report.reason].concat(),
        confidence: 0.80,
        trigger: Trigger::DiminishingReturns,
        details: Some(StoppingDetails::DiminishingReturns {
            detected_at_iteration: report.iteration,
            analytics_reason: report.reason.clone(),
        }),
        best: None,
        budgets: Vec::new(),
    })
}

// ---------------------------------------------------------------------------------------
// Opt-in options beyond the seed
// ---------------------------------------------------------------------------------------

/// Running totals the opt-in options read, folded in record by record (O(1) per record).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopTally {
    sums: [f64; 3],
    without: [u64; 3],
    peak: Option<(u64, f64)>,
    regression_streak: u64,
}

impl LoopTally {
    /// Folds one record in; `regression_tolerance` is the config's.
    pub fn observe(
        &mut self,
        observation: &Observation,
        usage: Option<&ResourceUsage>,
        regression_tolerance: Option<f64>,
    ) {
        let usage = usage.copied().unwrap_or_default();
        for (i, v) in [usage.tokens_used, usage.token_cost_usd, usage.execution_time_ms].into_iter().enumerate() {
            match (v, self.sums.get_mut(i), self.without.get_mut(i)) {
                (Some(v), Some(sum), _) => *sum += v,
                (None, _, Some(count)) => *count += 1,
                _ => {}
            }
        }
        let q = observation.quality_score;
        let regressed = match (regression_tolerance, self.peak) {
            (Some(tolerance), Some((_, peak))) => q < peak - tolerance,
            _ => false,
        };
        self.regression_streak = if regressed { self.regression_streak + 1 } else { 0 };
        if self.peak.is_none_or(|(_, peak)| q > peak) {
            self.peak = Some((observation.iteration, q));
        }
    }

    /// Checks that folding `usage` in keeps every running total finite. Each value is finite,
    /// but a sum of huge ones can overflow to Infinity, which no snapshot can carry (JSON has
    /// no Infinity) and no budget can honestly report; such a record is refused.
    /// `path` prefixes the field in the error (`history[3]` on restore).
    pub fn check_usage(&self, usage: Option<&ResourceUsage>, path: &str, code: ErrorCode) -> Result<()> {
        let Some(usage) = usage else { return Ok(()) };
        let fields = [
            (TOKENS_USED, usage.tokens_used),
            (TOKEN_COST_USD, usage.token_cost_usd),
            (EXECUTION_TIME_MS, usage.execution_time_ms),
        ];
        for ((field, value), sum) in fields.into_iter().zip(self.sums) {
            if let Some(v) = value {
                if !(sum + v).is_finite() {
                    let name = value::join_path(path, field.js);
                    return Err(Error::new(
                        code,
                        ErrorKind::Range,
                        name.clone(),
                        [
                            &name,
                            " would make the running total overflow: ",
                            &jsnum::to_js_string(sum),
                            " + ",
                            &jsnum::to_js_string(v),
                            " is not a finite number",
                        ]
                        .concat(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Recomputes over a whole history (after `configure()`).
    pub fn over(history: &[IterationRecord], regression_tolerance: Option<f64>) -> Self {
        let mut tally = LoopTally::default();
        for record in history {
            tally.observe(&record.observation, record.usage.as_deref(), regression_tolerance);
        }
        tally
    }

    /// The state of every configured budget.
    pub fn budgets(&self, config: &EarlyStoppingConfig) -> Vec<BudgetStatus> {
        config
            .budgets()
            .into_iter()
            .filter_map(|(budget, limit)| {
                let limit = limit?;
                let observed = self.sums.get(budget.index()).copied().unwrap_or(0.0);
                Some(BudgetStatus {
                    budget,
                    limit,
                    observed,
                    records_without_value: self.without.get(budget.index()).copied().unwrap_or(0),
                    exhausted: observed > limit,
                })
            })
            .collect()
    }
}

/// Opt-in budgets: stop once a sum exceeds its limit (checked in the order tokens, cost,
/// wall clock). Records without the field are unknown: the known sum is a lower bound, so
/// exceeding the limit is certain while staying under it is not (the decision's `budgets`
/// list says how many records were unknown).
pub fn check_budgets(statuses: &[BudgetStatus]) -> Option<StoppingDecision> {
    let hit = statuses.iter().find(|s| s.exhausted)?;
    let mut reason = String::from("Budget exhausted: total ");
    reason.push_str(hit.budget.field());
    reason.push(' ');
    jsnum::push_js_string(&mut reason, hit.observed);
    reason.push_str(" > limit ");
    jsnum::push_js_string(&mut reason, hit.limit);
    if hit.records_without_value > 0 {
        reason.push_str(" (");
        reason.push_str(&hit.records_without_value.to_string());
        reason.push_str(" records without ");
        reason.push_str(hit.budget.field());
        reason.push_str(" not counted)");
    }
    Some(StoppingDecision::stop(
        reason,
        1.0,
        Trigger::BudgetExhausted,
        StoppingDetails::BudgetExhausted {
            budget: hit.budget,
            limit: hit.limit,
            observed: hit.observed,
            records_without_value: hit.records_without_value,
        },
    ))
}

/// Opt-in `maxIterations`: stop once that many iterations are recorded.
pub fn check_max_iterations(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    let max = config.max_iterations?;
    (recorded >= max).then(|| {
        let reason = ["Maximum iterations reached (", &recorded.to_string(), "/", &max.to_string(), ")"].concat();
        StoppingDecision::stop(
            reason,
            1.0,
            Trigger::MaxIterations,
            StoppingDetails::MaxIterations { iterations: recorded, max_iterations: max },
        )
    })
}

/// Opt-in warm-up: while fewer than `minIterations` are recorded, no quality trigger stops.
pub fn warm_up(config: &EarlyStoppingConfig, recorded: u64) -> Option<StoppingDecision> {
    let min = config.min_iterations?;
    (recorded < min).then(|| {
        let reason = ["Warm-up: iteration ", &recorded.to_string(), " of ", &min.to_string()].concat();
        StoppingDecision::go_on(&reason, 1.0)
    })
}

/// Opt-in regression guard: stop once the last `regressionPatience` records each stayed
/// more than `regressionTolerance` points below the best quality seen before them.
pub fn check_regression(config: &EarlyStoppingConfig, tally: &LoopTally) -> Option<StoppingDecision> {
    let tolerance = config.regression_tolerance?;
    let patience = config.regression_patience.unwrap_or(DEFAULT_REGRESSION_PATIENCE);
    let (best_iteration, best_quality_score) = tally.peak?;
    (tally.regression_streak >= patience).then(|| {
        let mut reason = String::from("Quality regression: ");
        reason.push_str(&patience.to_string());
        reason.push_str(" consecutive iterations more than ");
        jsnum::push_js_string(&mut reason, tolerance);
        reason.push_str(" points below the best (");
        jsnum::push_js_string(&mut reason, best_quality_score);
        reason.push_str(" at iteration ");
        reason.push_str(&best_iteration.to_string());
        reason.push(')');
        StoppingDecision::stop(
            reason,
            0.8,
            Trigger::QualityRegression,
            StoppingDetails::QualityRegression { best_iteration, best_quality_score, tolerance, patience },
        )
    })
}

// ---------------------------------------------------------------------------------------
// The owning engine
// ---------------------------------------------------------------------------------------

/// The seed's `generateSummary()`.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // made once per summary; boxing buys nothing
pub enum StoppingSummary {
    /// `{total_iterations: 0, stopped_early: false, reason: 'No iterations completed'}`.
    Empty,
    /// A summary over a non-empty history.
    Full {
        /// History length.
        total_iterations: usize,
        /// The decision the summary made (it calls `shouldStop`).
        decision: StoppingDecision,
        /// The last record.
        last: Observation,
        /// The config at the time.
        config: EarlyStoppingConfig,
    },
}

impl StoppingSummary {
    /// The summary object as the JS API returns it.
    pub fn to_value(&self) -> Value {
        match self {
            StoppingSummary::Empty => Value::object(vec![
                ("total_iterations", Value::Number(0.0)),
                ("stopped_early", Value::Bool(false)),
                ("reason", Value::string("No iterations completed")),
            ]),
            StoppingSummary::Full { total_iterations, decision, last, config } => {
                let mut entries = vec![
                    ("total_iterations".to_string(), Value::Number(*total_iterations as f64)),
                    ("stopped_early".to_string(), Value::Bool(decision.stop)),
                    ("stopping_trigger".to_string(), Value::string(decision.trigger.as_str())),
                    ("stopping_reason".to_string(), Value::string(decision.reason.as_str())),
                    ("stopping_confidence".to_string(), Value::Number(decision.confidence)),
                    ("final_quality".to_string(), Value::Number(last.quality_score)),
                    ("final_confidence".to_string(), Value::Number(last.confidence)),
                    ("final_verification".to_string(), Value::string(last.verification_status.as_str())),
                    ("config".to_string(), config.to_value(Naming::Js)),
                ];
                if let Some(details) = &decision.details {
                    entries.push(("details".to_string(), details.to_value()));
                }
                Value::Object(entries)
            }
        }
    }
}

/// The seed's `EarlyStopping` class: history, config, and the last stopping reason.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlyStopping {
    config: EarlyStoppingConfig,
    history: Vec<IterationRecord>,
    best: BestIteration,
    tally: LoopTally,
    stopping_reason: Option<String>,
    stopping_details: Option<StoppingDetails>,
}

/// Snapshot format version written by [`EarlyStopping::to_snapshot`].
pub const SNAPSHOT_VERSION: u64 = 1;

impl EarlyStopping {
    /// A fresh engine; the config is validated.
    pub fn new(config: EarlyStoppingConfig) -> Result<Self> {
        config.validate()?;
        Ok(EarlyStopping {
            config,
            history: Vec::new(),
            best: BestIteration::default(),
            tally: LoopTally::default(),
            stopping_reason: None,
            stopping_details: None,
        })
    }

    /// A fresh engine from a partial config object (`null` = defaults), as the seed's
    /// constructor merges it over `DEFAULT_CONFIG`.
    pub fn from_config_value(config: &Value, naming: Naming) -> Result<Self> {
        let config = EarlyStoppingConfig::default().merged(config, naming, "config", ErrorCode::InvalidConfig)?;
        Self::new(config)
    }

    /// The seed's `recordIterationResult(iteration, result)` for a result built in Rust; a
    /// missing timestamp is filled by `now`.
    pub fn record(&mut self, iteration: u64, result: IterationResult, now: impl FnOnce() -> String) -> Result<()> {
        validate_iteration(iteration)?;
        result.validate(iteration)?;
        self.tally.check_usage(Some(&result.usage), "", ErrorCode::InvalidResult)?;
        self.push(iteration, result, now);
        Ok(())
    }

    /// The seed's `recordIterationResult(iteration, result)` on host values.
    pub fn record_value(
        &mut self,
        iteration: &Value,
        result: &Value,
        naming: Naming,
        now: impl FnOnce() -> String,
    ) -> Result<()> {
        let iteration =
            value::integer_argument(iteration, "iteration", ErrorCode::InvalidIteration, 1, MAX_SAFE_INTEGER)?;
        let result = IterationResult::from_value(result, naming)?;
        if let Some(n) = result.iteration_number {
            if n != iteration {
                iteration_mismatch(n, iteration)?;
            }
        }
        self.tally.check_usage(Some(&result.usage), "", ErrorCode::InvalidResult)?;
        self.push(iteration, result, now);
        Ok(())
    }

    fn push(&mut self, iteration: u64, result: IterationResult, now: impl FnOnce() -> String) {
        let fallback = if result.timestamp.is_none() { now() } else { String::new() };
        let record = make_record(iteration, result, fallback);
        self.best.observe(&record.observation, self.config.min_quality_threshold);
        self.tally.observe(&record.observation, record.usage.as_deref(), self.config.regression_tolerance);
        self.history.push(record);
    }

    /// `shouldStop()` without a diminishing-returns source.
    pub fn should_stop(&mut self) -> StoppingDecision {
        let result: std::result::Result<StoppingDecision, std::convert::Infallible> = self
            .should_stop_with(None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>);
        match result {
            Ok(decision) => decision,
            Err(never) => match never {},
        }
    }

    /// The seed's `shouldStop()`. `source` is asked (at most once) only when high confidence
    /// and plateau did not stop and `enable_diminishing_returns` is on; its error aborts the
    /// decision and leaves the engine unchanged.
    pub fn should_stop_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let mut decision = self.decide(source)?;
        if decision.stop {
            self.stopping_reason = Some(decision.reason.clone());
            self.stopping_details = decision.details.clone();
        }
        decision.best = self.best.get();
        decision.budgets = self.tally.budgets(&self.config);
        Ok(decision)
    }

    fn decide<E, F>(&self, source: Option<F>) -> std::result::Result<StoppingDecision, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let Some(last) = self.history.last() else {
            return Ok(StoppingDecision::go_on(REASON_NO_ITERATIONS, 1.0));
        };
        let recorded = self.history.len() as u64;
        // Hard limits first: a spent budget or the iteration cap stops whatever the quality.
        if let Some(stop) = check_budgets(&self.tally.budgets(&self.config)) {
            return Ok(stop);
        }
        if let Some(stop) = check_max_iterations(&self.config, recorded) {
            return Ok(stop);
        }
        // Warm-up gates every quality trigger (and the outside source is not asked).
        if let Some(wait) = warm_up(&self.config, recorded) {
            return Ok(wait);
        }
        if let Some(stop) = check_high_confidence(&self.config, &last.observation) {
            return Ok(stop);
        }
        if self.config.enable_plateau_detection {
            if let Some(stop) = check_plateau(&self.config, &self.history) {
                return Ok(stop);
            }
        }
        if let Some(stop) = check_regression(&self.config, &self.tally) {
            return Ok(stop);
        }
        if self.config.enable_diminishing_returns {
            if let Some(source) = source {
                let report = source()?;
                if let Some(stop) = diminishing_returns_decision(&report) {
                    return Ok(stop);
                }
            }
        }
        Ok(StoppingDecision::go_on(REASON_CONTINUE, 0.7))
    }

    /// The seed's `generateSummary()` (it calls `shouldStop`, so it may set the stopping reason).
    pub fn generate_summary_with<E, F>(&mut self, source: Option<F>) -> std::result::Result<StoppingSummary, E>
    where
        F: FnOnce() -> std::result::Result<DiminishingReturnsReport, E>,
    {
        let Some(last) = self.history.last().map(|r| r.observation) else {
            return Ok(StoppingSummary::Empty);
        };
        let decision = self.should_stop_with(source)?;
        Ok(StoppingSummary::Full { total_iterations: self.history.len(), decision, last, config: self.config.clone() })
    }

    /// `generateSummary()` without a diminishing-returns source.
    pub fn generate_summary(&mut self) -> StoppingSummary {
        match self.generate_summary_with(
            None::<fn() -> std::result::Result<DiminishingReturnsReport, std::convert::Infallible>>,
        ) {
            Ok(summary) => summary,
            Err(never) => match never {},
        }
    }

    /// The reason of the last stopping decision (never cleared by a later non-stop).
    pub fn stopping_reason(&self) -> Option<&str> {
        self.stopping_reason.as_deref()
    }

    /// The details of the last stopping decision.
    pub fn stopping_details(&self) -> Option<&StoppingDetails> {
        self.stopping_details.as_ref()
    }

    /// The seed's `configure(options)`: merges a partial config; one bad key changes nothing.
    pub fn configure_value(&mut self, options: &Value, naming: Naming) -> Result<()> {
        let config = self.config.merged(options, naming, "options", ErrorCode::InvalidConfig)?;
        self.set_config(config)
    }

    /// Replaces the config (validated).
    pub fn set_config(&mut self, config: EarlyStoppingConfig) -> Result<()> {
        config.validate()?;
        if config.min_quality_threshold != self.config.min_quality_threshold {
            self.best = BestIteration::over(&self.history, config.min_quality_threshold);
        }
        if config.regression_tolerance != self.config.regression_tolerance {
            self.tally = LoopTally::over(&self.history, config.regression_tolerance);
        }
        self.config = config;
        Ok(())
    }

    /// The current config.
    pub fn config(&self) -> &EarlyStoppingConfig {
        &self.config
    }

    /// Every recorded iteration, oldest first.
    pub fn history(&self) -> &[IterationRecord] {
        &self.history
    }

    /// The seed's `reset()`: clears history and stopping state, keeps the config.
    pub fn reset(&mut self) {
        self.history.clear();
        self.best = BestIteration::default();
        self.tally = LoopTally::default();
        self.stopping_reason = None;
        self.stopping_details = None;
    }

    /// The portable snapshot: `{version, engine, config, history, stoppingReason, stoppingDetails}`.
    pub fn to_snapshot(&self) -> Value {
        Value::object(vec![
            ("version", Value::Number(SNAPSHOT_VERSION as f64)),
            ("engine", Value::string("EarlyStopping")),
            ("config", self.config.to_value(Naming::Js)),
            ("history", Value::Array(self.history.iter().map(IterationRecord::to_value).collect())),
            ("stoppingReason", self.stopping_reason.as_deref().map_or(Value::Null, Value::string)),
            ("stoppingDetails", self.stopping_details.as_ref().map_or(Value::Null, StoppingDetails::to_value)),
        ])
    }

    /// Restores a snapshot, validating everything (code `invalid_snapshot`, field = path).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(
            snapshot,
            "EarlyStopping",
            &["config", "history", "stoppingReason", "stoppingDetails"],
        )?;
        let config_value = reader.get(FieldName::same("config")).unwrap_or(&Value::Null);
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, "config", "config", ErrorCode::InvalidSnapshot)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut engine = EarlyStopping::new(config).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, "config"))?;
        let records = crate::snapshot::array(&reader, "history")?;
        engine.history.reserve(records.len());
        for (i, record) in records.iter().enumerate() {
            let path = value::index_path("history", i);
            let record = IterationRecord::from_snapshot(record, &path)?;
            engine.tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidSnapshot)?;
            engine.best.observe(&record.observation, engine.config.min_quality_threshold);
            engine.tally.observe(&record.observation, record.usage.as_deref(), engine.config.regression_tolerance);
            engine.history.push(record);
        }
        engine.stopping_reason = match reader.get(FieldName::same("stoppingReason")) {
            None | Some(Value::Null) => None,
            Some(_) => Some(reader.string(FieldName::same("stoppingReason"))?.to_string()),
        };
        engine.stopping_details = match reader.get(FieldName::same("stoppingDetails")) {
            None | Some(Value::Null) => None,
            Some(details) => Some(StoppingDetails::from_snapshot(details, "stoppingDetails")?),
        };
        if engine.stopping_reason.is_none() && engine.stopping_details.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "stoppingReason",
                "stoppingReason must be set when stoppingDetails is",
            ));
        }
        Ok(engine)
    }
}

/// Trigger names, for bindings that print or type them.
pub fn trigger_from_str(s: &str) -> Option<Trigger> {
    Trigger::parse(s)
}

/// The error for an `iterationAnalytics` argument that is neither absent nor an object with
/// a `detectDiminishingReturns()` method (bindings check the method; the words are here).
pub fn invalid_analytics_source(naming: Naming, got: &Value) -> Error {
    let (field, method) = match naming {
        Naming::Js => ("iterationAnalytics", "detectDiminishingReturns()"),
        Naming::Snake => ("analytics", "detect_diminishing_returns()"),
    };
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Type,
        field,
        [field, " must be an object with a ", method, " method, got ", &got.describe()].concat(),
    )
}
