//! The loop engine's options: [`EarlyStoppingConfig`] with upstream's defaults, every key's
//! spellings and checks, and the cross-field rules.

use crate::loops::vocabulary::Budget;
use crate::num;
use crate::value::shape::TypedField;
use crate::value::{self, named_enum, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// Hands every config field, once, to `$callback!` (a `macro_rules!` of the caller), in the
/// order of [`CONFIG_FIELDS`] (upstream's seven in its order, then the opt-in options): one
/// row per field,
///
/// ```text
/// rust_field: RustType, FIELD_NAME_CONST = "camelCaseKey", FieldType expression, "doc line";
/// ```
///
/// The core builds [`CONFIG_FIELDS`], `CONFIG_SCHEMA`, the field name consts and the JS fast
/// path's slot encoding (`to_slots` / `from_slots`, in `earlyexit::kit::loops`) from it;
/// a binding builds its per-field code (the Python getters) from it. A new option is one
/// row here plus its default, reader, writer and rule in this file. Paths in the rows start
/// with `$crate`, so a callback in another crate can use them as they are; the field name
/// consts are `earlyexit::kit::loops::config::FIELD_NAME_CONST`.
#[doc(hidden)]
#[macro_export]
macro_rules! loop_config_fields {
    ($callback:ident) => {
        $callback! {
            high_confidence_threshold: f64, HIGH_CONFIDENCE_THRESHOLD = "highConfidenceThreshold",
                $crate::kit::shape::FieldType::Number,
                "Confidence at or above which a (verified) record stops the loop; 0..=1, default 0.95.";
            plateau_consecutive_count: u64, PLATEAU_CONSECUTIVE_COUNT = "plateauConsecutiveCount",
                $crate::kit::shape::FieldType::Integer,
                "How many most recent records form a plateau; integer >= 2, default 3.";
            plateau_improvement_threshold: f64, PLATEAU_IMPROVEMENT_THRESHOLD = "plateauImprovementThreshold",
                $crate::kit::shape::FieldType::Number,
                "Improvement below which a step counts as flat; 0..=1 (0..=100 points in absolute plateau mode), default 0.02.";
            min_quality_threshold: f64, MIN_QUALITY_THRESHOLD = "minQualityThreshold",
                $crate::kit::shape::FieldType::Number,
                "Quality a high-confidence stop needs; 0..=100, default 70.";
            require_verification: bool, REQUIRE_VERIFICATION = "requireVerification",
                $crate::kit::shape::FieldType::Boolean,
                "Whether a high-confidence stop needs a passed verification; default true.";
            enable_plateau_detection: bool, ENABLE_PLATEAU_DETECTION = "enablePlateauDetection",
                $crate::kit::shape::FieldType::Boolean,
                "Whether the plateau check runs; default true.";
            enable_diminishing_returns: bool, ENABLE_DIMINISHING_RETURNS = "enableDiminishingReturns",
                $crate::kit::shape::FieldType::Boolean,
                "Whether an attached diminishing-returns source is asked; default true.";
            plateau_delta_source: Option<$crate::loops::PlateauDeltaSource>, PLATEAU_DELTA_SOURCE = "plateauDeltaSource",
                $crate::kit::shape::FieldType::Names(&$crate::loops::PlateauDeltaSource::NAMES),
                "Opt-in: where plateau deltas come from, 'reported' (the default) or 'computed'.";
            plateau_mode: Option<$crate::loops::PlateauMode>, PLATEAU_MODE = "plateauMode",
                $crate::kit::shape::FieldType::Names(&$crate::loops::PlateauMode::NAMES),
                "Opt-in: 'relative' (the default) or 'absolute' plateau threshold.";
            min_iterations: Option<u64>, MIN_ITERATIONS = "minIterations",
                $crate::kit::shape::FieldType::Integer,
                "Opt-in warm-up: no quality trigger stops while fewer iterations are recorded; >= 1.";
            max_iterations: Option<u64>, MAX_ITERATIONS = "maxIterations",
                $crate::kit::shape::FieldType::Integer,
                "Opt-in hard limit: stop once this many iterations are recorded; >= 1.";
            max_total_tokens: Option<f64>, MAX_TOTAL_TOKENS = "maxTotalTokens",
                $crate::kit::shape::FieldType::Number,
                "Opt-in budget over the sum of tokens used; finite >= 0.";
            max_total_cost_usd: Option<f64>, MAX_TOTAL_COST_USD = "maxTotalCostUsd",
                $crate::kit::shape::FieldType::Number,
                "Opt-in budget over the sum of token costs in USD; finite >= 0.";
            max_wall_clock_ms: Option<f64>, MAX_WALL_CLOCK_MS = "maxWallClockMs",
                $crate::kit::shape::FieldType::Number,
                "Opt-in budget over the sum of execution times in ms; finite >= 0.";
            regression_tolerance: Option<f64>, REGRESSION_TOLERANCE = "regressionTolerance",
                $crate::kit::shape::FieldType::Number,
                "Opt-in regression guard: points below the best that count as a regression; 0..=100.";
            regression_patience: Option<u64>, REGRESSION_PATIENCE = "regressionPatience",
                $crate::kit::shape::FieldType::Integer,
                "Iterations a regression must last to stop (needs the tolerance); >= 1, default 2.";
            plateau_min_quality: Option<f64>, PLATEAU_MIN_QUALITY = "plateauMinQuality",
                $crate::kit::shape::FieldType::Number,
                "Opt-in: the quality every record of a plateau window must reach; 0..=100.";
            no_improvement_patience: Option<u64>, NO_IMPROVEMENT_PATIENCE = "noImprovementPatience",
                $crate::kit::shape::FieldType::Integer,
                "Opt-in give-up rule: records in a row without a new best quality that stop; >= 1.";
            strict_iterations: Option<bool>, STRICT_ITERATIONS = "strictIterations",
                $crate::kit::shape::FieldType::Boolean,
                "Opt-in resume safety: iteration numbers must increase; a repeated last record is accepted.";
            floor_patience: Option<u64>, FLOOR_PATIENCE = "floorPatience",
                $crate::kit::shape::FieldType::Integer,
                "Opt-in: the no-improvement patience while the best quality is at or below the floor; >= 1.";
            floor_quality: Option<f64>, FLOOR_QUALITY = "floorQuality",
                $crate::kit::shape::FieldType::Number,
                "The floor of the floor patience (needs it); 0..=100, default 0.";
        }
    };
}

/// What the core builds from [`loop_config_fields!`](crate::loop_config_fields).
macro_rules! config_table {
    ($($field:ident: $ty:ty, $name:ident = $camel:literal, $fty:expr, $doc:literal;)*) => {
        /// The config keys' names, one const per key (`loop_config_fields!`).
        pub mod names {
            use crate::value::FieldName;
            $(
                #[doc = $doc]
                pub const $name: FieldName = FieldName::pair(concat!($camel, " ", stringify!($field)));
            )*
        }
        use names::*;

        /// Every config key: upstream's seven in its order, then the opt-in options.
        pub const CONFIG_FIELDS: &[FieldName] = &[$($name),*];

        /// How many slots the JS fast path's config takes (one per key).
        pub const CONFIG_SLOT_COUNT: usize = [$($camel),*].len();

        /// Every config key with its type and doc line, in the order of [`CONFIG_FIELDS`],
        /// for the generator's typed shapes.
        pub const CONFIG_SCHEMA: [TypedField; CONFIG_SLOT_COUNT] = [$(TypedField::new($name, $fty, $doc)),*];

        /// The config as the JS fast path's slots, one per key in the order of
        /// [`CONFIG_FIELDS`] ([`Slot`] tells each type's encoding).
        #[inline]
        pub fn to_slots(c: &EarlyStoppingConfig) -> [f64; CONFIG_SLOT_COUNT] {
            [$(Slot::to_slot(&c.$field)),*]
        }

        /// The config back from [`to_slots`]'s slots.
        #[inline]
        pub fn from_slot_array(slots: &[f64; CONFIG_SLOT_COUNT]) -> EarlyStoppingConfig {
            let [$($field),*] = *slots;
            EarlyStoppingConfig { $($field: <$ty as Slot>::from_slot($field)),* }
        }
    };
}
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

loop_config_fields!(config_table);

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

/// How one config value sits in a slot of the JS fast path (its config is `f64`s the JS
/// layer caches per distinct config): a number as is, a count as a number, a flag 0/1, an
/// unset option as [`OptionSlot::NONE`].
pub trait Slot: Sized {
    /// The value's slot.
    fn to_slot(&self) -> f64;
    /// The value read back from its slot.
    fn from_slot(slot: f64) -> Self;
}

/// The type of an opt-in option (`Option<Self>` in the config): its slot when set, and
/// what the slot holds when it is not.
pub trait OptionSlot: Sized {
    /// The slot of an unset option.
    const NONE: f64;
    /// The slot of a set option.
    fn some_slot(&self) -> f64;
    /// The option read back from its slot (`None` for [`Self::NONE`]).
    fn from_some_slot(slot: f64) -> Option<Self>;
}

impl Slot for f64 {
    #[inline(always)]
    fn to_slot(&self) -> f64 {
        *self
    }
    #[inline(always)]
    fn from_slot(slot: f64) -> Self {
        slot
    }
}

impl Slot for u64 {
    #[inline(always)]
    fn to_slot(&self) -> f64 {
        *self as f64
    }
    #[inline(always)]
    fn from_slot(slot: f64) -> Self {
        slot as u64
    }
}

impl Slot for bool {
    #[inline(always)]
    fn to_slot(&self) -> f64 {
        f64::from(u8::from(*self))
    }
    #[inline(always)]
    fn from_slot(slot: f64) -> Self {
        slot != 0.0
    }
}

impl<T: OptionSlot> Slot for Option<T> {
    #[inline(always)]
    fn to_slot(&self) -> f64 {
        self.as_ref().map_or(T::NONE, T::some_slot)
    }
    #[inline(always)]
    fn from_slot(slot: f64) -> Self {
        T::from_some_slot(slot)
    }
}

/// The config back from [`to_slots`]'s slots; slots missing at the end read as NaN (unset).
#[inline]
pub fn from_slots(slots: &[f64]) -> EarlyStoppingConfig {
    let mut padded = [f64::NAN; CONFIG_SLOT_COUNT];
    let slots = match slots.first_chunk::<CONFIG_SLOT_COUNT>() {
        Some(slots) => slots,
        None => {
            padded.iter_mut().zip(slots).for_each(|(to, from)| *to = *from);
            &padded
        }
    };
    from_slot_array(slots)
}

/// Numbers, counts and flags: an unset option is NaN.
macro_rules! nan_when_unset {
    ($($ty:ty),*) => {$(
        impl OptionSlot for $ty {
            const NONE: f64 = f64::NAN;
            #[inline(always)]
            fn some_slot(&self) -> f64 {
                Slot::to_slot(self)
            }
            #[inline(always)]
            fn from_some_slot(slot: f64) -> Option<Self> {
                (!slot.is_nan()).then(|| Slot::from_slot(slot))
            }
        }
    )*};
}
nan_when_unset!(f64, u64, bool);

/// What a binding hands out for a config value: the value itself, a name for a named
/// enum (its `as_str`), `None` for an unset option.
pub trait Plain {
    /// The plain type (`f64`, `u64`, `bool`, `&'static str`, or an `Option` of one).
    type Out;
    /// The plain value.
    fn plain(&self) -> Self::Out;
}

macro_rules! plain_as_is {
    ($($ty:ty),*) => {$(
        impl Plain for $ty {
            type Out = $ty;
            #[inline(always)]
            fn plain(&self) -> $ty {
                *self
            }
        }
    )*};
}
plain_as_is!(f64, u64, bool);

impl<T: Plain> Plain for Option<T> {
    type Out = Option<T::Out>;
    #[inline(always)]
    fn plain(&self) -> Self::Out {
        self.as_ref().map(Plain::plain)
    }
}

/// The config's named enums: slot 0 is unset, then 1.. in the order of `NAMES`; a binding
/// hands out the name.
macro_rules! named_config_enum {
    ($($ty:ident),*) => {$(
        impl OptionSlot for $ty {
            const NONE: f64 = 0.0;
            #[inline(always)]
            fn some_slot(&self) -> f64 {
                (self.index() + 1) as f64
            }
            #[inline(always)]
            fn from_some_slot(slot: f64) -> Option<Self> {
                (slot as u8 as usize).checked_sub(1).and_then(|i| $ty::ALL.get(i).copied())
            }
        }
        impl Plain for $ty {
            type Out = &'static str;
            #[inline(always)]
            fn plain(&self) -> &'static str {
                self.as_str()
            }
        }
    )*};
}
named_config_enum!(PlateauDeltaSource, PlateauMode);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::LoopPreset;
    use crate::value::shape::FieldType;

    /// A config with every option set, each to a value the slots must carry exactly.
    fn every_option(strict: bool, source: PlateauDeltaSource, mode: PlateauMode) -> EarlyStoppingConfig {
        EarlyStoppingConfig {
            high_confidence_threshold: 0.875,
            plateau_consecutive_count: 7,
            plateau_improvement_threshold: if mode == PlateauMode::Absolute { 12.5 } else { 0.125 },
            min_quality_threshold: 0.0,
            require_verification: false,
            enable_plateau_detection: false,
            enable_diminishing_returns: false,
            plateau_delta_source: Some(source),
            plateau_mode: Some(mode),
            min_iterations: Some(1),
            max_iterations: Some(9_007_199_254_740_991),
            max_total_tokens: Some(1e300),
            max_total_cost_usd: Some(0.1),
            max_wall_clock_ms: Some(0.0),
            regression_tolerance: Some(100.0),
            regression_patience: Some(3),
            plateau_min_quality: Some(55.5),
            no_improvement_patience: Some(4),
            strict_iterations: Some(strict),
            floor_patience: Some(5),
            floor_quality: Some(1e-9),
        }
    }

    #[test]
    fn the_schema_names_every_field_in_order() {
        assert_eq!(CONFIG_SCHEMA.len(), CONFIG_FIELDS.len());
        for (row, name) in CONFIG_SCHEMA.iter().zip(CONFIG_FIELDS) {
            assert_eq!(row.name, *name);
            assert!(!row.nullable, "{}", name.js());
            assert!(!row.doc.is_empty() && !row.doc.contains('\n'), "{}", name.js());
        }
        let config = every_option(true, PlateauDeltaSource::Computed, PlateauMode::Absolute);
        let written = config.to_value(Naming::Js);
        let Value::Object(entries) = &written else { panic!("{written:?}") };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        let names: Vec<&str> = CONFIG_FIELDS.iter().map(|f| f.js()).collect();
        assert_eq!(keys, names, "getConfig writes every key, in the table's order");
        assert_eq!(CONFIG_SCHEMA[8].ty, FieldType::Names(&PlateauMode::NAMES));
        assert_eq!(CONFIG_SCHEMA[7].ty, FieldType::Names(&PlateauDeltaSource::NAMES));
        assert_eq!(CONFIG_SCHEMA[18].name.snake(), "strict_iterations");
    }

    #[test]
    fn the_slots_keep_the_fast_paths_layout() {
        let unset = to_slots(&EarlyStoppingConfig::default());
        assert_eq!(&unset[..9], &[0.95, 3.0, 0.02, 70.0, 1.0, 1.0, 1.0, 0.0, 0.0]);
        assert!(unset[9..].iter().all(|s| s.is_nan()), "{unset:?}");
        let set = to_slots(&every_option(false, PlateauDeltaSource::Reported, PlateauMode::Relative));
        assert_eq!(&set[..10], &[0.875, 7.0, 0.125, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        assert_eq!(set[18], 0.0);
        let set = to_slots(&every_option(true, PlateauDeltaSource::Computed, PlateauMode::Absolute));
        assert_eq!((set[2], set[7], set[8], set[18], set[20]), (12.5, 2.0, 2.0, 1.0, 1e-9));
        assert_eq!(CONFIG_SLOT_COUNT, 21);
    }

    #[test]
    fn every_preset_and_every_option_cross_the_slots() {
        let mut configs: Vec<EarlyStoppingConfig> = LoopPreset::ALL.iter().map(|p| p.config()).collect();
        for strict in [false, true] {
            for source in PlateauDeltaSource::ALL {
                for mode in PlateauMode::ALL {
                    configs.push(every_option(strict, source, mode));
                }
            }
        }
        for config in configs {
            assert_eq!(from_slots(&to_slots(&config)), config);
            config.validate().unwrap();
        }
        // Slots the JS layer never writes read as unset options, as before.
        let short = from_slots(&to_slots(&EarlyStoppingConfig::default())[..9]);
        assert_eq!(short, EarlyStoppingConfig::default());
        assert_eq!(from_slots(&[f64::NAN; 7]).plateau_delta_source, None);
        assert_eq!(PlateauMode::from_some_slot(3.0), None);
    }

    #[test]
    fn bindings_hand_out_names_and_plain_values() {
        let c = every_option(true, PlateauDeltaSource::Computed, PlateauMode::Absolute);
        assert_eq!(c.plateau_mode.plain(), Some("absolute"));
        assert_eq!(c.plateau_delta_source.plain(), Some("computed"));
        assert_eq!(c.floor_patience.plain(), Some(5));
        assert_eq!(EarlyStoppingConfig::default().strict_iterations.plain(), None);
        assert_eq!(c.high_confidence_threshold.plain(), 0.875);
    }
}
