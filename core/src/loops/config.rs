//! The loop engine's options: [`EarlyStoppingConfig`] with upstream's defaults, every key's
//! spellings and checks, and the cross-field rules.

use crate::loops::vocabulary::Budget;
use crate::num;
use crate::value::{
    self, field_name, named_enum, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER,
};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const HIGH_CONFIDENCE_THRESHOLD: FieldName = field_name!("highConfidenceThreshold", "high_confidence_threshold");

const PLATEAU_CONSECUTIVE_COUNT: FieldName = field_name!("plateauConsecutiveCount", "plateau_consecutive_count");

const PLATEAU_IMPROVEMENT_THRESHOLD: FieldName =
    field_name!("plateauImprovementThreshold", "plateau_improvement_threshold");

const MIN_QUALITY_THRESHOLD: FieldName = field_name!("minQualityThreshold", "min_quality_threshold");

const REQUIRE_VERIFICATION: FieldName = field_name!("requireVerification", "require_verification");

const ENABLE_PLATEAU_DETECTION: FieldName = field_name!("enablePlateauDetection", "enable_plateau_detection");

const ENABLE_DIMINISHING_RETURNS: FieldName = field_name!("enableDiminishingReturns", "enable_diminishing_returns");

const PLATEAU_DELTA_SOURCE: FieldName = field_name!("plateauDeltaSource", "plateau_delta_source");

const PLATEAU_MODE: FieldName = field_name!("plateauMode", "plateau_mode");

const MIN_ITERATIONS: FieldName = field_name!("minIterations", "min_iterations");

const MAX_ITERATIONS: FieldName = field_name!("maxIterations", "max_iterations");

const MAX_TOTAL_TOKENS: FieldName = field_name!("maxTotalTokens", "max_total_tokens");

const MAX_TOTAL_COST_USD: FieldName = field_name!("maxTotalCostUsd", "max_total_cost_usd");

const MAX_WALL_CLOCK_MS: FieldName = field_name!("maxWallClockMs", "max_wall_clock_ms");

const REGRESSION_TOLERANCE: FieldName = field_name!("regressionTolerance", "regression_tolerance");

const REGRESSION_PATIENCE: FieldName = field_name!("regressionPatience", "regression_patience");

const PLATEAU_MIN_QUALITY: FieldName = field_name!("plateauMinQuality", "plateau_min_quality");

const NO_IMPROVEMENT_PATIENCE: FieldName = field_name!("noImprovementPatience", "no_improvement_patience");

const STRICT_ITERATIONS: FieldName = field_name!("strictIterations", "strict_iterations");

const FLOOR_PATIENCE: FieldName = field_name!("floorPatience", "floor_patience");

const FLOOR_QUALITY: FieldName = field_name!("floorQuality", "floor_quality");

/// Every config key: upstream's seven in its order, then the opt-in options.
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
    PLATEAU_MIN_QUALITY,
    NO_IMPROVEMENT_PATIENCE,
    STRICT_ITERATIONS,
    FLOOR_PATIENCE,
    FLOOR_QUALITY,
];

named_enum! {
    /// Where the plateau rule takes each step's change from.
    pub enum PlateauDeltaSource {
        /// The caller's `quality_delta` (upstream's behaviour).
        Reported = "reported",
        /// This record's quality minus the previous record's.
        Computed = "computed",
    }
}

named_enum! {
    /// How the plateau rule measures a step.
    pub enum PlateauMode {
        /// `|delta| / previous quality`, threshold a fraction 0..=1 (upstream's behaviour).
        Relative = "relative",
        /// `|delta|` in quality points, threshold 0..=100.
        Absolute = "absolute",
    }
}

/// `EarlyStoppingConfig` with upstream's defaults ([`EarlyStoppingConfig::default`]). The
/// options after upstream's seven are opt-in: `None` keeps upstream's behaviour, and only
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
    /// Opt-in quality gate of the plateau rule: a window whose lowest quality is below this
    /// is not a plateau of good work (a run stuck at 0 is not done, it is failing); 0..=100.
    pub plateau_min_quality: Option<f64>,
    /// Opt-in give-up rule: stop (trigger `no_improvement`) once this many records in a row
    /// brought no new best quality; integer >= 1.
    pub no_improvement_patience: Option<u64>,
    /// Opt-in resume safety: iteration numbers must increase, and re-recording the last
    /// iteration with the same result is accepted without changing anything (see
    /// `check_iteration_order`); `None` and `Some(false)` keep upstream's behaviour.
    pub strict_iterations: Option<bool>,
    /// Opt-in give-up rule for runs stuck low: while the best quality so far is at or below
    /// `floor_quality`, the no-improvement rule counts to this patience instead of
    /// `no_improvement_patience` (a run exploring at 0 may deserve more, or less, time);
    /// integer >= 1.
    pub floor_patience: Option<u64>,
    /// The floor of `floor_patience` (needs it); 0..=100, default 0.
    pub floor_quality: Option<f64>,
}

impl Default for EarlyStoppingConfig {
    /// Upstream's `DEFAULT_CONFIG`, no option set.
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
            plateau_min_quality: None,
            no_improvement_patience: None,
            floor_patience: None,
            floor_quality: None,
            strict_iterations: None,
        }
    }
}

/// Patience of the regression guard when only a tolerance is configured.
pub const DEFAULT_REGRESSION_PATIENCE: u64 = 2;

impl EarlyStoppingConfig {
    /// Whether `strictIterations` is on (set and `true`).
    pub fn strict(&self) -> bool {
        self.strict_iterations == Some(true)
    }

    /// Checks every value of a config built in Rust (field names in snake_case).
    pub fn validate(&self) -> Result<()> {
        EarlyStoppingConfig::default()
            .merged_at(&self.to_value(Naming::Snake), Naming::Snake, "", "config", ErrorCode::InvalidConfig)
            .map(|_| ())
    }

    /// Merges a partial config object over `self` (upstream's `{...base, ...options}`),
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
            // Two names: one comparison tells them apart.
            let source = reader.choice(PLATEAU_DELTA_SOURCE, &PlateauDeltaSource::NAMES)?;
            c.plateau_delta_source = Some(if source == PlateauDeltaSource::Computed.as_str() {
                PlateauDeltaSource::Computed
            } else {
                PlateauDeltaSource::Reported
            });
        }
        if has(PLATEAU_MODE) {
            let mode = reader.choice(PLATEAU_MODE, &PlateauMode::NAMES)?;
            c.plateau_mode = Some(if mode == PlateauMode::Absolute.as_str() {
                PlateauMode::Absolute
            } else {
                PlateauMode::Relative
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
        if has(PLATEAU_MIN_QUALITY) {
            c.plateau_min_quality = Some(reader.number(PLATEAU_MIN_QUALITY, 0.0, 100.0)?);
        }
        if has(NO_IMPROVEMENT_PATIENCE) {
            c.no_improvement_patience = Some(reader.integer(NO_IMPROVEMENT_PATIENCE, 1, MAX_SAFE_INTEGER)?);
        }
        if has(STRICT_ITERATIONS) {
            c.strict_iterations = Some(reader.boolean(STRICT_ITERATIONS)?);
        }
        if has(FLOOR_PATIENCE) {
            c.floor_patience = Some(reader.integer(FLOOR_PATIENCE, 1, MAX_SAFE_INTEGER)?);
        }
        if has(FLOOR_QUALITY) {
            c.floor_quality = Some(reader.number(FLOOR_QUALITY, 0.0, 100.0)?);
        }
        // Cross-field rules, reported on a key this call gave (the error must name what the
        // caller can fix here): the first key of the pair when it was given, else the second,
        // which no longer fits the value already configured.
        let inconsistent = |field: FieldName, why: &str| {
            let name = value::join_path(path, field.spelled(naming));
            Err(Error::new(code, ErrorKind::Range, name.clone(), value::concat(&[&name, " ", why])))
        };
        if c.plateau_mode != Some(PlateauMode::Absolute) && c.plateau_improvement_threshold > 1.0 {
            let threshold = num::to_js_string(c.plateau_improvement_threshold);
            if has(PLATEAU_IMPROVEMENT_THRESHOLD) || !has(PLATEAU_MODE) {
                let why = value::concat(&[
                    "must be a finite number between 0 and 1 (a fraction) unless ",
                    PLATEAU_MODE.spelled(naming),
                    " is 'absolute', got ",
                    &threshold,
                ]);
                return inconsistent(PLATEAU_IMPROVEMENT_THRESHOLD, &why);
            }
            let why = value::concat(&[
                "'relative' needs ",
                PLATEAU_IMPROVEMENT_THRESHOLD.spelled(naming),
                " between 0 and 1 (a fraction), which is ",
                &threshold,
            ]);
            return inconsistent(PLATEAU_MODE, &why);
        }
        if let (Some(min), Some(max)) = (c.min_iterations, c.max_iterations) {
            if min > max {
                if has(MIN_ITERATIONS) || !has(MAX_ITERATIONS) {
                    return inconsistent(
                        MIN_ITERATIONS,
                        &value::concat(&[
                            "must not exceed ",
                            MAX_ITERATIONS.spelled(naming),
                            " (",
                            &num::uint_string(max),
                            ")",
                        ]),
                    );
                }
                return inconsistent(
                    MAX_ITERATIONS,
                    &value::concat(&[
                        "must not be below ",
                        MIN_ITERATIONS.spelled(naming),
                        " (",
                        &num::uint_string(min),
                        ")",
                    ]),
                );
            }
        }
        if c.regression_patience.is_some() && c.regression_tolerance.is_none() {
            let why = value::concat(&["needs ", REGRESSION_TOLERANCE.spelled(naming), " to be set"]);
            return inconsistent(REGRESSION_PATIENCE, &why);
        }
        if c.floor_quality.is_some() && c.floor_patience.is_none() {
            let why = value::concat(&["needs ", FLOOR_PATIENCE.spelled(naming), " to be set"]);
            return inconsistent(FLOOR_QUALITY, &why);
        }
        Ok(c)
    }

    /// The config as upstream's `getConfig()` returns it: upstream's keys in its order,
    /// then the opt-in options that are set.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut o = ObjectBuilder::new();
        o.number(HIGH_CONFIDENCE_THRESHOLD.spelled(naming), self.high_confidence_threshold)
            .number(PLATEAU_CONSECUTIVE_COUNT.spelled(naming), self.plateau_consecutive_count as f64)
            .number(PLATEAU_IMPROVEMENT_THRESHOLD.spelled(naming), self.plateau_improvement_threshold)
            .number(MIN_QUALITY_THRESHOLD.spelled(naming), self.min_quality_threshold)
            .boolean(REQUIRE_VERIFICATION.spelled(naming), self.require_verification)
            .boolean(ENABLE_PLATEAU_DETECTION.spelled(naming), self.enable_plateau_detection)
            .boolean(ENABLE_DIMINISHING_RETURNS.spelled(naming), self.enable_diminishing_returns);
        if let Some(source) = self.plateau_delta_source {
            o.string(PLATEAU_DELTA_SOURCE.spelled(naming), source.as_str());
        }
        if let Some(mode) = self.plateau_mode {
            o.string(PLATEAU_MODE.spelled(naming), mode.as_str());
        }
        let count = |n: Option<u64>| n.map(|n| n as f64);
        o.some_number(MIN_ITERATIONS.spelled(naming), count(self.min_iterations))
            .some_number(MAX_ITERATIONS.spelled(naming), count(self.max_iterations))
            .some_number(MAX_TOTAL_TOKENS.spelled(naming), self.max_total_tokens)
            .some_number(MAX_TOTAL_COST_USD.spelled(naming), self.max_total_cost_usd)
            .some_number(MAX_WALL_CLOCK_MS.spelled(naming), self.max_wall_clock_ms)
            .some_number(REGRESSION_TOLERANCE.spelled(naming), self.regression_tolerance)
            .some_number(REGRESSION_PATIENCE.spelled(naming), count(self.regression_patience))
            .some_number(PLATEAU_MIN_QUALITY.spelled(naming), self.plateau_min_quality)
            .some_number(NO_IMPROVEMENT_PATIENCE.spelled(naming), count(self.no_improvement_patience));
        if let Some(strict) = self.strict_iterations {
            o.boolean(STRICT_ITERATIONS.spelled(naming), strict);
        }
        o.some_number(FLOOR_PATIENCE.spelled(naming), count(self.floor_patience))
            .some_number(FLOOR_QUALITY.spelled(naming), self.floor_quality);
        o.build()
    }

    #[inline]
    pub(crate) fn budgets(&self) -> [(Budget, Option<f64>); 3] {
        [
            (Budget::Tokens, self.max_total_tokens),
            (Budget::CostUsd, self.max_total_cost_usd),
            (Budget::WallClockMs, self.max_wall_clock_ms),
        ]
    }
}
