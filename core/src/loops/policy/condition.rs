//! Stop conditions as values: [`StopCondition`] (each check of the engine with its own
//! settings, and the combinators `any`, `all`, `k_of`, `not_before`), its one JSON form
//! (read with typed errors naming the path, written back so that it reads back equal), and
//! the tree a config stands for ([`StopCondition::from_config`]).

use crate::loops::behavior::{group_fields, Detector, InterventionLevel, Thresholds, CONTEXT_FIELDS};
use crate::loops::config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, DEFAULT_REGRESSION_PATIENCE};
use crate::loops::vocabulary::{Budget, Trigger};
use crate::value::{self, named_enum, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

named_enum! {
    /// The kinds of leaf condition: the code a fired condition reports.
    pub enum ConditionKind {
        /// High confidence (and quality, and verification when required) on the last record.
        HighConfidence = "high_confidence",
        /// A quality plateau over the last `count` records.
        QualityPlateau = "quality_plateau",
        /// The attached diminishing-returns source reports a detection.
        DiminishingReturns = "diminishing_returns",
        /// The sum of `tokens_used` exceeds `limit`.
        MaxTotalTokens = "max_total_tokens",
        /// The sum of `token_cost_usd` exceeds `limit`.
        MaxTotalCostUsd = "max_total_cost_usd",
        /// The sum of `execution_time_ms` exceeds `limit`.
        MaxWallClockMs = "max_wall_clock_ms",
        /// `limit` iterations are recorded.
        MaxIterations = "max_iterations",
        /// Quality stayed more than `tolerance` points below the best for `patience` records.
        QualityRegression = "quality_regression",
        /// `patience` records in a row brought no new best quality.
        NoImprovement = "no_improvement",
        /// No new best for `patience` records while the best is at or below `floor`
        /// (`above_patience` above it): the config's `floorPatience` rule.
        FloorPatience = "floor_patience",
        /// The stuck-loop detector (`BehaviorDetector.detectStuck`) over its window.
        Stuck = "stuck",
        /// The oscillation detector over the last six records.
        Oscillation = "oscillation",
        /// The deviation detector (the objective against the last three records' learnings).
        Deviation = "deviation",
        /// The resource-burn detector (records against the expected `max_iterations`).
        ResourceBurn = "resource_burn",
        /// The detector of test and coverage regressions over the last five records
        /// (upstream's `detectRegression`; distinct from `quality_regression`).
        TestRegression = "test_regression",
        /// The last record reports the loop's completion (`completed: true`).
        Completed = "completed",
        /// The last `k + 1` records carry the same `fingerprint`.
        Unchanged = "unchanged",
        /// The last record's `fingerprint` equals that of one of the `window - 1` records
        /// before the one just before it.
        Revisit = "revisit",
    }
}

impl ConditionKind {
    /// The trigger a decision names when this condition stops the loop.
    pub fn trigger(self) -> Trigger {
        match self {
            ConditionKind::HighConfidence => Trigger::HighConfidence,
            ConditionKind::QualityPlateau => Trigger::QualityPlateau,
            ConditionKind::DiminishingReturns => Trigger::DiminishingReturns,
            ConditionKind::MaxTotalTokens | ConditionKind::MaxTotalCostUsd | ConditionKind::MaxWallClockMs => {
                Trigger::BudgetExhausted
            }
            ConditionKind::MaxIterations => Trigger::MaxIterations,
            ConditionKind::QualityRegression => Trigger::QualityRegression,
            ConditionKind::NoImprovement | ConditionKind::FloorPatience => Trigger::NoImprovement,
            // An abort-level detection names `behavior_abort` (see `StoppingDetails::Behavior`).
            ConditionKind::Stuck
            | ConditionKind::Oscillation
            | ConditionKind::Deviation
            | ConditionKind::ResourceBurn
            | ConditionKind::TestRegression => Trigger::BehaviorPause,
            ConditionKind::Completed => Trigger::Completed,
            ConditionKind::Unchanged => Trigger::Unchanged,
            ConditionKind::Revisit => Trigger::Revisit,
        }
    }

    /// The behaviour detector a detector condition runs (`None` for the other kinds).
    pub fn detector(self) -> Option<Detector> {
        Some(match self {
            ConditionKind::Stuck => Detector::Stuck,
            ConditionKind::Oscillation => Detector::Oscillation,
            ConditionKind::Deviation => Detector::Deviation,
            ConditionKind::ResourceBurn => Detector::ResourceBurn,
            ConditionKind::TestRegression => Detector::Regression,
            _ => return None,
        })
    }

    fn budget(self) -> Option<Budget> {
        match self {
            ConditionKind::MaxTotalTokens => Some(Budget::Tokens),
            ConditionKind::MaxTotalCostUsd => Some(Budget::CostUsd),
            ConditionKind::MaxWallClockMs => Some(Budget::WallClockMs),
            _ => None,
        }
    }
}

/// A behaviour detector as a stop condition: the detector, its thresholds (only its own
/// group is read), the loop's context it reads, and the lowest intervention level at which
/// it stops the loop (below it, a detection is reported without stopping).
#[derive(Clone, Debug, PartialEq)]
pub struct BehaviorCondition {
    /// Which detector.
    pub detector: Detector,
    /// Its thresholds group (the others stay upstream's and are not read).
    pub thresholds: Thresholds,
    /// The lowest level that stops (default `pause`).
    pub stop_at: InterventionLevel,
    /// Deviation: the loop's objective (upstream's `context.objective`; absent: empty).
    pub objective: Option<String>,
    /// Resource burn: the expected iterations (upstream's `context.maxIterations`; absent: 10).
    pub max_iterations: Option<u64>,
}

impl BehaviorCondition {
    /// How many of the last records the condition reads (besides the first and the count).
    pub fn window(&self) -> u64 {
        self.detector.window(&self.thresholds).unwrap_or(1)
    }
}

/// A stop condition: a check with its settings, or a combination of conditions. Evaluated
/// lazily, children in order ([`crate::loops::policy`]).
#[derive(Clone, Debug, PartialEq)]
pub enum StopCondition {
    /// Confidence >= `threshold` and quality >= `min_quality` on the last record, and (with
    /// `require_verification`) a `passed` verification.
    HighConfidence {
        /// 0..=1 (default 0.95).
        threshold: f64,
        /// 0..=100 (default 70).
        min_quality: f64,
        /// Default true.
        require_verification: bool,
    },
    /// Every step over the last `count` records moved by less than `threshold`.
    QualityPlateau {
        /// Records in the window, >= 2 (default 3).
        count: u64,
        /// A fraction 0..=1 (relative mode, default 0.02) or points 0..=100 (absolute).
        threshold: f64,
        /// Where each step's change comes from (default the reported `quality_delta`).
        delta_source: PlateauDeltaSource,
        /// Relative (default) or absolute steps.
        mode: PlateauMode,
        /// A window holding a record below this quality is no plateau.
        min_quality: Option<f64>,
    },
    /// The attached diminishing-returns source reports a detection (asked at most once per
    /// decision, and only when evaluation reaches this condition).
    DiminishingReturns,
    /// The sum of a usage field exceeds `limit` (records without the field are unknown).
    Budget {
        /// Which sum.
        budget: Budget,
        /// Finite, >= 0.
        limit: f64,
    },
    /// `limit` iterations are recorded.
    MaxIterations {
        /// >= 1.
        limit: u64,
    },
    /// The last `patience` records each stayed more than `tolerance` points below the best
    /// quality seen before them.
    QualityRegression {
        /// Points, 0..=100.
        tolerance: f64,
        /// >= 1 (default 2).
        patience: u64,
    },
    /// The last `patience` records each failed to beat the best quality seen before them.
    NoImprovement {
        /// >= 1.
        patience: u64,
    },
    /// While the best quality so far is at or below `floor`, the last `patience` records each
    /// failed to beat the best before them; above it, the last `above_patience` (never when
    /// `None`). The config's `floorPatience`, `floorQuality` and `noImprovementPatience`.
    FloorPatience {
        /// >= 1.
        patience: u64,
        /// 0..=100 (default 0).
        floor: f64,
        /// >= 1 (default: none, no stop above the floor).
        above_patience: Option<u64>,
    },
    /// A behaviour detector (`stuck`, `oscillation`, `deviation`, `resource_burn`,
    /// `test_regression`): fires when its detection's intervention level is at least
    /// `stop_at`; a milder detection is reported in the decision's `interventions`.
    Behavior(Box<BehaviorCondition>),
    /// Fires when one child fires (the first that fires ends the evaluation).
    Any(Vec<StopCondition>),
    /// Fires when every child fires (the first that does not ends the evaluation).
    All(Vec<StopCondition>),
    /// Fires when `k` of the children fire (evaluated in order until `k` fired or too few
    /// are left).
    KOf {
        /// 1..=children.
        k: u64,
        /// The children.
        of: Vec<StopCondition>,
    },
    /// The last record reports `completed: true`.
    Completed,
    /// Records t-k..t all carry the same fingerprint (a record without one equals nothing).
    Unchanged {
        /// >= 1.
        k: u64,
    },
    /// Record t's fingerprint equals that of a record among t-window..t-2.
    Revisit {
        /// >= 2.
        window: u64,
    },
    /// A gate: before `iterations` records, `then` is not evaluated and does not fire (the
    /// decision reads 'Warm-up: iteration N of M' when nothing else fires).
    NotBefore {
        /// >= 1.
        iterations: u64,
        /// The gated condition.
        then: Box<StopCondition>,
    },
}

// The keys of the JSON form (snake_case in every language).
const ANY: &str = "any";
const ALL: &str = "all";
const K_OF: &str = "k_of";
const OF: &str = "of";
const NOT_BEFORE: &str = "not_before";
const THEN: &str = "then";
const CONDITION: &str = "condition";
const THRESHOLD: &str = "threshold";
const MIN_QUALITY: &str = "min_quality";
const REQUIRE_VERIFICATION: &str = "require_verification";
const COUNT: &str = "count";
const DELTA_SOURCE: &str = "delta_source";
const MODE: &str = "mode";
const LIMIT: &str = "limit";
const TOLERANCE: &str = "tolerance";
const PATIENCE: &str = "patience";
const FLOOR: &str = "floor";
const ABOVE_PATIENCE: &str = "above_patience";
const STOP_AT: &str = "stop_at";
const K: &str = "k";
const WINDOW: &str = "window";

/// The keys that open a combinator, in the order the JSON form's documentation lists them.
pub const COMBINATOR_KEYS: [&str; 4] = [ANY, ALL, K_OF, NOT_BEFORE];

impl StopCondition {
    /// High confidence with upstream's defaults (0.95, 70 points, verification required).
    pub fn high_confidence() -> Self {
        StopCondition::HighConfidence { threshold: 0.95, min_quality: 70.0, require_verification: true }
    }

    /// A plateau with upstream's defaults (3 records, < 2% relative steps, reported deltas).
    pub fn quality_plateau() -> Self {
        StopCondition::QualityPlateau {
            count: 3,
            threshold: 0.02,
            delta_source: PlateauDeltaSource::Reported,
            mode: PlateauMode::Relative,
            min_quality: None,
        }
    }

    /// No new best for `patience` records.
    pub fn no_improvement(patience: u64) -> Self {
        StopCondition::NoImprovement { patience }
    }

    /// `limit` iterations.
    pub fn max_iterations(limit: u64) -> Self {
        StopCondition::MaxIterations { limit }
    }

    /// The loop's own completion signal (`completed: true` on the last record).
    pub fn completed() -> Self {
        StopCondition::Completed
    }

    /// The last `k + 1` records carry one fingerprint (`k` >= 1; checked when read from JSON).
    pub fn unchanged(k: u64) -> Self {
        StopCondition::Unchanged { k }
    }

    /// The last record's fingerprint was seen among the `window` records before it, the
    /// one just before aside (`window` >= 2; checked when read from JSON).
    pub fn revisit(window: u64) -> Self {
        StopCondition::Revisit { window }
    }

    /// The leaf's kind (`None` for a combinator).
    pub fn kind(&self) -> Option<ConditionKind> {
        Some(match self {
            StopCondition::HighConfidence { .. } => ConditionKind::HighConfidence,
            StopCondition::QualityPlateau { .. } => ConditionKind::QualityPlateau,
            StopCondition::DiminishingReturns => ConditionKind::DiminishingReturns,
            StopCondition::Budget { budget: Budget::Tokens, .. } => ConditionKind::MaxTotalTokens,
            StopCondition::Budget { budget: Budget::CostUsd, .. } => ConditionKind::MaxTotalCostUsd,
            StopCondition::Budget { budget: Budget::WallClockMs, .. } => ConditionKind::MaxWallClockMs,
            StopCondition::MaxIterations { .. } => ConditionKind::MaxIterations,
            StopCondition::QualityRegression { .. } => ConditionKind::QualityRegression,
            StopCondition::NoImprovement { .. } => ConditionKind::NoImprovement,
            StopCondition::FloorPatience { .. } => ConditionKind::FloorPatience,
            StopCondition::Completed => ConditionKind::Completed,
            StopCondition::Unchanged { .. } => ConditionKind::Unchanged,
            StopCondition::Revisit { .. } => ConditionKind::Revisit,
            StopCondition::Behavior(b) => match b.detector {
                Detector::Stuck => ConditionKind::Stuck,
                Detector::Oscillation => ConditionKind::Oscillation,
                Detector::Deviation => ConditionKind::Deviation,
                Detector::ResourceBurn => ConditionKind::ResourceBurn,
                Detector::Regression => ConditionKind::TestRegression,
            },
            _ => return None,
        })
    }

    /// The tree a config stands for: the engine's order of checks (`loops` module doc) as
    /// conditions. Evaluated, it decides exactly as the config does.
    pub fn from_config(config: &EarlyStoppingConfig) -> Self {
        let mut hard = Vec::new();
        for (budget, limit) in config.budgets() {
            if let Some(limit) = limit {
                hard.push(StopCondition::Budget { budget, limit });
            }
        }
        if let Some(limit) = config.max_iterations {
            hard.push(StopCondition::MaxIterations { limit });
        }
        let mut quality = vec![StopCondition::HighConfidence {
            threshold: config.high_confidence_threshold,
            min_quality: config.min_quality_threshold,
            require_verification: config.require_verification,
        }];
        if config.enable_plateau_detection {
            quality.push(StopCondition::QualityPlateau {
                count: config.plateau_consecutive_count,
                threshold: config.plateau_improvement_threshold,
                delta_source: config.plateau_delta_source.unwrap_or(PlateauDeltaSource::Reported),
                mode: config.plateau_mode.unwrap_or(PlateauMode::Relative),
                min_quality: config.plateau_min_quality,
            });
        }
        if let Some(tolerance) = config.regression_tolerance {
            let patience = config.regression_patience.unwrap_or(DEFAULT_REGRESSION_PATIENCE);
            quality.push(StopCondition::QualityRegression { tolerance, patience });
        }
        match (config.floor_patience, config.no_improvement_patience) {
            (Some(patience), above_patience) => quality.push(StopCondition::FloorPatience {
                patience,
                floor: config.floor_quality.unwrap_or(0.0),
                above_patience,
            }),
            (None, Some(patience)) => quality.push(StopCondition::NoImprovement { patience }),
            (None, None) => {}
        }
        if config.enable_diminishing_returns {
            quality.push(StopCondition::DiminishingReturns);
        }
        let quality = StopCondition::Any(quality);
        hard.push(match config.min_iterations {
            Some(iterations) => StopCondition::NotBefore { iterations, then: Box::new(quality) },
            None => quality,
        });
        match hard.len() {
            1 => hard.pop().unwrap_or(StopCondition::Any(Vec::new())),
            _ => StopCondition::Any(hard),
        }
    }

    /// The engine config a leaf's rule reads (its settings over upstream's defaults).
    pub(crate) fn leaf_config(&self) -> EarlyStoppingConfig {
        let mut c = EarlyStoppingConfig::default();
        match self {
            StopCondition::HighConfidence { threshold, min_quality, require_verification } => {
                c.high_confidence_threshold = *threshold;
                c.min_quality_threshold = *min_quality;
                c.require_verification = *require_verification;
            }
            StopCondition::QualityPlateau { count, threshold, delta_source, mode, min_quality } => {
                c.plateau_consecutive_count = *count;
                c.plateau_improvement_threshold = *threshold;
                c.plateau_delta_source = Some(*delta_source);
                c.plateau_mode = Some(*mode);
                c.plateau_min_quality = *min_quality;
            }
            StopCondition::Budget { budget: Budget::Tokens, limit } => c.max_total_tokens = Some(*limit),
            StopCondition::Budget { budget: Budget::CostUsd, limit } => c.max_total_cost_usd = Some(*limit),
            StopCondition::Budget { budget: Budget::WallClockMs, limit } => c.max_wall_clock_ms = Some(*limit),
            StopCondition::MaxIterations { limit } => c.max_iterations = Some(*limit),
            StopCondition::QualityRegression { tolerance, patience } => {
                c.regression_tolerance = Some(*tolerance);
                c.regression_patience = Some(*patience);
            }
            StopCondition::NoImprovement { patience } => c.no_improvement_patience = Some(*patience),
            StopCondition::FloorPatience { patience, floor, above_patience } => {
                c.floor_patience = Some(*patience);
                c.floor_quality = Some(*floor);
                c.no_improvement_patience = *above_patience;
            }
            _ => {}
        }
        c
    }

    /// The condition's children (none for a leaf).
    pub fn children(&self) -> &[StopCondition] {
        match self {
            StopCondition::Any(of) | StopCondition::All(of) | StopCondition::KOf { of, .. } => of,
            StopCondition::NotBefore { then, .. } => std::slice::from_ref(then),
            _ => &[],
        }
    }

    /// Reads a condition at `path` (errors name it: `policy.any[1].patience`). A leaf is
    /// its kind's name (settings at their defaults) or `{condition, ...settings}`; a
    /// combinator is `{any: [...]}`, `{all: [...]}`, `{k_of: k, of: [...]}` or
    /// `{not_before: n, then: condition}`.
    pub fn from_value(value: &Value, path: &str, code: ErrorCode) -> Result<Self> {
        Self::read(value, path, code, 0)
    }

    fn read(value: &Value, path: &str, code: ErrorCode, depth: usize) -> Result<Self> {
        if depth > MAX_DEPTH {
            let message =
                value::concat(&[path, " nests conditions deeper than ", &crate::num::uint_string(MAX_DEPTH as u64)]);
            return Err(Error::new(code, ErrorKind::Range, path, message));
        }
        if let Value::String(name) = value {
            let kind = kind_named(name, value, path, code)?;
            return leaf(kind, None, path, code);
        }
        let reader = ObjectReader::new(value, path, path, Naming::Snake, code)?;
        let children = |key: &str| -> Result<Vec<StopCondition>> {
            let at = value::join_path(path, key);
            let items = value::nonempty_array(value.get(key), &at, code, "an array of conditions", "condition")?;
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(Self::read(item, &value::index_path(&at, i), code, depth + 1)?);
            }
            Ok(out)
        };
        if value.get(ANY).is_some() {
            reader.reject_unknown(&[FieldName::same(ANY)])?;
            return Ok(StopCondition::Any(children(ANY)?));
        }
        if value.get(ALL).is_some() {
            reader.reject_unknown(&[FieldName::same(ALL)])?;
            return Ok(StopCondition::All(children(ALL)?));
        }
        if value.get(K_OF).is_some() {
            reader.reject_unknown(&[FieldName::same(K_OF), FieldName::same(OF)])?;
            let of = children(OF)?;
            let k = reader.integer(FieldName::same(K_OF), 1, of.len() as u64)?;
            return Ok(StopCondition::KOf { k, of });
        }
        if value.get(NOT_BEFORE).is_some() {
            reader.reject_unknown(&[FieldName::same(NOT_BEFORE), FieldName::same(THEN)])?;
            let iterations = reader.integer(FieldName::same(NOT_BEFORE), 1, MAX_SAFE_INTEGER)?;
            let at = value::join_path(path, THEN);
            let then = Self::read(value.get(THEN).unwrap_or(&Value::Null), &at, code, depth + 1)?;
            return Ok(StopCondition::NotBefore { iterations, then: Box::new(then) });
        }
        let Some(name) = value.get(CONDITION) else {
            let message = value::concat(&[
                path,
                " must be a condition's name or an object with one of 'condition', '",
                &value::join(&COMBINATOR_KEYS, "', '"),
                "'",
            ]);
            return Err(Error::new(code, ErrorKind::Type, path, message));
        };
        let kind = kind_named_at(name, &value::join_path(path, CONDITION), code)?;
        leaf(kind, Some(&reader), path, code)
    }

    /// The JSON form (leaves with every setting, so it reads back equal).
    pub fn to_value(&self) -> Value {
        let list = |of: &[StopCondition]| value::array_of(of, StopCondition::to_value);
        let mut o = ObjectBuilder::new();
        match self {
            StopCondition::Any(of) => o.value(ANY, list(of)),
            StopCondition::All(of) => o.value(ALL, list(of)),
            StopCondition::KOf { k, of } => o.number(K_OF, *k as f64).value(OF, list(of)),
            StopCondition::NotBefore { iterations, then } => {
                o.number(NOT_BEFORE, *iterations as f64).value(THEN, then.to_value())
            }
            leaf => {
                o.string(CONDITION, leaf.kind().map_or("", ConditionKind::as_str));
                match leaf {
                    StopCondition::HighConfidence { threshold, min_quality, require_verification } => o
                        .number(THRESHOLD, *threshold)
                        .number(MIN_QUALITY, *min_quality)
                        .boolean(REQUIRE_VERIFICATION, *require_verification),
                    StopCondition::QualityPlateau { count, threshold, delta_source, mode, min_quality } => o
                        .number(COUNT, *count as f64)
                        .number(THRESHOLD, *threshold)
                        .string(DELTA_SOURCE, delta_source.as_str())
                        .string(MODE, mode.as_str())
                        .some_number(MIN_QUALITY, *min_quality),
                    StopCondition::Budget { limit, .. } => o.number(LIMIT, *limit),
                    StopCondition::MaxIterations { limit } => o.number(LIMIT, *limit as f64),
                    StopCondition::QualityRegression { tolerance, patience } => {
                        o.number(TOLERANCE, *tolerance).number(PATIENCE, *patience as f64)
                    }
                    StopCondition::NoImprovement { patience } => o.number(PATIENCE, *patience as f64),
                    StopCondition::FloorPatience { patience, floor, above_patience } => o
                        .number(PATIENCE, *patience as f64)
                        .number(FLOOR, *floor)
                        .some_number(ABOVE_PATIENCE, above_patience.map(|p| p as f64)),
                    StopCondition::Unchanged { k } => o.number(K, *k as f64),
                    StopCondition::Revisit { window } => o.number(WINDOW, *window as f64),
                    StopCondition::Behavior(b) => {
                        for (key, value) in b.thresholds.group_entries(b.detector as usize, Naming::Snake) {
                            o.value(key, value);
                        }
                        if let Some(objective) = &b.objective {
                            o.string(CONTEXT_FIELDS[0].snake(), objective);
                        }
                        o.some_number(CONTEXT_FIELDS[1].snake(), b.max_iterations.map(|n| n as f64))
                            .string(STOP_AT, b.stop_at.as_str())
                    }
                    _ => &mut o,
                }
            }
        };
        o.build()
    }
}

/// How deep conditions may nest (a bound on the evaluator's recursion).
pub const MAX_DEPTH: usize = 32;

fn kind_named_at(name: &Value, path: &str, code: ErrorCode) -> Result<ConditionKind> {
    match name {
        Value::String(text) => kind_named(text, name, path, code),
        other => Err(Error::new(
            code,
            ErrorKind::Type,
            path,
            value::concat(&[path, " must be a string, got ", &other.describe()]),
        )),
    }
}

fn kind_named(text: &str, got: &Value, path: &str, code: ErrorCode) -> Result<ConditionKind> {
    ConditionKind::parse(text).ok_or_else(|| {
        Error::new(
            code,
            ErrorKind::Range,
            path,
            value::concat(&[
                path,
                " must be one of '",
                &value::join(&ConditionKind::NAMES, "', '"),
                "', got ",
                &got.describe(),
            ]),
        )
    })
}

/// A leaf of `kind` with its settings from `reader` (`None`: a bare name, every setting at
/// its default; a setting without a default is then missing).
fn leaf(kind: ConditionKind, reader: Option<&ObjectReader<'_>>, path: &str, code: ErrorCode) -> Result<StopCondition> {
    const fn f(name: &'static str) -> FieldName {
        FieldName::same(name)
    }
    let mut known: Vec<FieldName> = match kind {
        ConditionKind::HighConfidence => vec![f(CONDITION), f(THRESHOLD), f(MIN_QUALITY), f(REQUIRE_VERIFICATION)],
        ConditionKind::QualityPlateau => {
            vec![f(CONDITION), f(COUNT), f(THRESHOLD), f(DELTA_SOURCE), f(MODE), f(MIN_QUALITY)]
        }
        ConditionKind::DiminishingReturns | ConditionKind::Completed => vec![f(CONDITION)],
        ConditionKind::Unchanged => vec![f(CONDITION), f(K)],
        ConditionKind::Revisit => vec![f(CONDITION), f(WINDOW)],
        ConditionKind::MaxTotalTokens
        | ConditionKind::MaxTotalCostUsd
        | ConditionKind::MaxWallClockMs
        | ConditionKind::MaxIterations => vec![f(CONDITION), f(LIMIT)],
        ConditionKind::QualityRegression => vec![f(CONDITION), f(TOLERANCE), f(PATIENCE)],
        ConditionKind::NoImprovement => vec![f(CONDITION), f(PATIENCE)],
        ConditionKind::FloorPatience => vec![f(CONDITION), f(PATIENCE), f(FLOOR), f(ABOVE_PATIENCE)],
        ConditionKind::Stuck
        | ConditionKind::Oscillation
        | ConditionKind::Deviation
        | ConditionKind::ResourceBurn
        | ConditionKind::TestRegression => vec![f(CONDITION), f(STOP_AT)],
    };
    if let Some(detector) = kind.detector() {
        known.extend(group_fields(detector as usize));
        match detector {
            Detector::Deviation => known.push(CONTEXT_FIELDS[0]),
            Detector::ResourceBurn => known.push(CONTEXT_FIELDS[1]),
            _ => {}
        }
    }
    let empty = Value::Object(Vec::new());
    let bare;
    let r = match reader {
        Some(r) => {
            r.reject_unknown(&known)?;
            r
        }
        None => {
            bare = ObjectReader::new(&empty, path, path, Naming::Snake, code)?;
            &bare
        }
    };
    let has = |name: &'static str| r.get(f(name)).is_some();
    let number_or = |name: &'static str, min: f64, max: f64, default: f64| -> Result<f64> {
        if has(name) {
            r.number(f(name), min, max)
        } else {
            Ok(default)
        }
    };
    if let Some(detector) = kind.detector() {
        return behavior_leaf(detector, r);
    }
    Ok(match kind {
        ConditionKind::HighConfidence => StopCondition::HighConfidence {
            threshold: number_or(THRESHOLD, 0.0, 1.0, 0.95)?,
            min_quality: number_or(MIN_QUALITY, 0.0, 100.0, 70.0)?,
            require_verification: if has(REQUIRE_VERIFICATION) { r.boolean(f(REQUIRE_VERIFICATION))? } else { true },
        },
        ConditionKind::QualityPlateau => {
            let mode = if has(MODE) { r.choice(f(MODE), &PlateauMode::NAMES)? } else { "relative" };
            let mode = PlateauMode::parse(mode).unwrap_or(PlateauMode::Relative);
            let max = if mode == PlateauMode::Absolute { 100.0 } else { 1.0 };
            let source =
                if has(DELTA_SOURCE) { r.choice(f(DELTA_SOURCE), &PlateauDeltaSource::NAMES)? } else { "reported" };
            StopCondition::QualityPlateau {
                count: if has(COUNT) { r.integer(f(COUNT), 2, MAX_SAFE_INTEGER)? } else { 3 },
                threshold: number_or(THRESHOLD, 0.0, max, 0.02)?,
                delta_source: PlateauDeltaSource::parse(source).unwrap_or(PlateauDeltaSource::Reported),
                mode,
                min_quality: r.opt_number(f(MIN_QUALITY), 0.0, 100.0)?,
            }
        }
        ConditionKind::DiminishingReturns => StopCondition::DiminishingReturns,
        ConditionKind::MaxTotalTokens | ConditionKind::MaxTotalCostUsd | ConditionKind::MaxWallClockMs => {
            StopCondition::Budget {
                budget: kind.budget().unwrap_or(Budget::Tokens),
                limit: r.number(f(LIMIT), 0.0, f64::MAX)?,
            }
        }
        ConditionKind::MaxIterations => {
            StopCondition::MaxIterations { limit: r.integer(f(LIMIT), 1, MAX_SAFE_INTEGER)? }
        }
        ConditionKind::QualityRegression => StopCondition::QualityRegression {
            tolerance: r.number(f(TOLERANCE), 0.0, 100.0)?,
            patience: if has(PATIENCE) {
                r.integer(f(PATIENCE), 1, MAX_SAFE_INTEGER)?
            } else {
                DEFAULT_REGRESSION_PATIENCE
            },
        },
        ConditionKind::NoImprovement => {
            StopCondition::NoImprovement { patience: r.integer(f(PATIENCE), 1, MAX_SAFE_INTEGER)? }
        }
        ConditionKind::FloorPatience => StopCondition::FloorPatience {
            patience: r.integer(f(PATIENCE), 1, MAX_SAFE_INTEGER)?,
            floor: number_or(FLOOR, 0.0, 100.0, 0.0)?,
            above_patience: if has(ABOVE_PATIENCE) {
                Some(r.integer(f(ABOVE_PATIENCE), 1, MAX_SAFE_INTEGER)?)
            } else {
                None
            },
        },
        ConditionKind::Completed => StopCondition::Completed,
        ConditionKind::Unchanged => StopCondition::Unchanged { k: r.integer(f(K), 1, MAX_SAFE_INTEGER)? },
        ConditionKind::Revisit => StopCondition::Revisit { window: r.integer(f(WINDOW), 2, MAX_SAFE_INTEGER)? },
        _ => StopCondition::DiminishingReturns, // detector conditions are read above
    })
}

/// A detector condition's settings: its thresholds group (each field at upstream's default
/// when absent; a stuck condition must give its window, `no_progress_iterations`), the
/// context it reads (`objective`, `max_iterations`) and `stop_at`.
fn behavior_leaf(detector: Detector, r: &ObjectReader<'_>) -> Result<StopCondition> {
    let group = detector as usize;
    if detector == Detector::Stuck {
        // A bounded window: the drop-in's absent window (the whole history) is refused here.
        r.integer(group_fields(group)[1], 1, MAX_SAFE_INTEGER)?;
    }
    let thresholds = Thresholds::condition_group(group, r)?;
    let stop_at = match r.get(FieldName::same(STOP_AT)) {
        None => InterventionLevel::Pause,
        Some(_) => {
            let name = r.choice(FieldName::same(STOP_AT), &InterventionLevel::NAMES)?;
            InterventionLevel::parse(name).unwrap_or(InterventionLevel::Pause)
        }
    };
    let objective = match (detector, r.get(CONTEXT_FIELDS[0])) {
        (Detector::Deviation, Some(_)) => Some(r.string(CONTEXT_FIELDS[0])?.to_string()),
        _ => None,
    };
    let max_iterations = match detector {
        Detector::ResourceBurn => r.opt_integer(CONTEXT_FIELDS[1], 1, MAX_SAFE_INTEGER)?,
        _ => None,
    };
    Ok(StopCondition::Behavior(Box::new(BehaviorCondition {
        detector,
        thresholds,
        stop_at,
        objective,
        max_iterations,
    })))
}
