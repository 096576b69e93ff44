//! Behaviour detectors and graded interventions: drop-ins for aiwg's `behavior-detector.mjs`
//! (stuck loops, oscillation, deviation from the objective, resource burn, regressions) and
//! `intervention-system.mjs` (each detection turned into a log entry, a warning, a redirect,
//! a pause or an abort), "upstream" below. For valid input every detection (type, severity,
//! message, evidence, recommendations) and every intervention (level and text) is
//! upstream's, numbers computed in upstream's order.
//!
//! # Why here
//!
//! The detectors read an agent loop's history, the domain of engine 1 ([`crate::loops`]),
//! and upstream's loop runs them beside its early stopping, as `analytics` stands beside
//! [`crate::loops::EarlyStopping`]. This folder uses only the ground floor (`crate::value`,
//! `crate::num`, `crate::time`) and nothing else of `loops`, so the loop engine can later
//! read detections (a detector as a stop condition) without an import cycle; it does not
//! belong in `pyramid`, and a top-level sibling would split engine 1 in two.
//!
//! # What is the host's
//!
//! The core has no clock, calls nothing back and keeps no pause state: an intervention takes
//! its time as a value ([`Intervention::new`]), and the host (the JS and Python classes, or a
//! Rust caller) reads the clock where upstream does, keeps `isPaused` / `pauseReason`, calls
//! `onPause` / `onAbort` / `onIntervention`, and keeps the log ([`InterventionLog`] holds its
//! rules: the bound, `getLog`, the summary).
//!
//! # Upstream's quirks, and the rulings (`docs/behavior.md` for users)
//!
//! Followed, since upstream's output is well-formed:
//! * a partial `thresholds` object replaces whole groups (shallow merge); a field left out of
//!   a given group is absent, which switches its rule off, except `noProgressIterations`,
//!   whose absence makes the stuck window the whole history (`slice(-undefined)`);
//! * the repeated error is the first with the highest count in `Object.entries` order, which
//!   lists array-index strings (`"404"`) first, ascending, then the others as they occurred;
//! * `getLog(0)` answers everything (`if (limit)`), like `getLog()`;
//! * `testPassToFail`, `scopeCreepRatio` and `costMultiplier` are read by no rule;
//! * a coverage of 0 is unknown (truthiness), a regression's `iteration` is its position in
//!   the window of five, a deviation example without a `number` (or with 0) takes its index;
//! * `importState` takes a pause reason only when it is a non-empty string.
//!
//! Different, since upstream's output is not well-formed there (or it fails):
//! * errors named like a property of `Object.prototype` (`constructor`, `toString`,
//!   `__proto__`, ...) are counted like any other: upstream's counting object inherits those
//!   names and never counts them;
//! * a history holding one object twice: a deviation example reports the entry's own index,
//!   where upstream's `history.indexOf` reports the first;
//! * bad input (a wrong type, NaN, a value out of range, an unknown group, field, detection
//!   type or severity, JS `null` where upstream would compute with it) is a typed error
//!   naming the field, where upstream crashes or computes with it; a stuck detection
//!   redirected without `evidence` is one too (upstream throws reading it).
//!
//! The files, lowest first: `thresholds` < `history` < `detection` < `detect` (the five
//! detectors) < `intervention` (levels and texts) < `log` (the log's rules).

mod detect;
mod detection;
pub(crate) mod history;
pub(crate) mod intervention;
pub(crate) mod log;
mod thresholds;

pub use detect::{
    detect, detect_deviation, detect_oscillation, detect_regression, detect_resource_burn, detect_stuck, Detector,
    HistoryView,
};
pub use detection::{Detection, DetectionType, Severity, DETECTION_FIELDS, EVIDENCE_KEYS};
pub(crate) use history::read_history;
pub use history::{
    BehaviorIteration, ANALYSIS_FIELDS, CONTEXT_FIELDS, ITERATION_FIELDS, MAX_FINGERPRINT_CHARS, PROGRESS_FIELDS,
};
pub use intervention::{determine_level, Effect, Intervention, InterventionLevel, INTERVENTION_LEVELS, LOGGED_ACTION};
pub use log::{
    summarize, InterventionLog, InterventionSummary, LogEntry, Resume, StateImport, LOG_LIMIT, RESUME_LEVEL,
};
pub(crate) use thresholds::group_fields;
pub use thresholds::{
    DeviationThresholds, OscillationThresholds, RegressionThresholds, ResourceThresholds, StuckThresholds, Thresholds,
    THRESHOLD_GROUPS,
};

use crate::value::{concat, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectReader, Result, Value};

/// `detect(history)` or one detector over host values: `thresholds` whole (as a detector
/// holds them), `history` an array of iterations (for `detect`, null or undefined is an
/// empty history, as upstream's `if (!history ...)`). Answers an array of detections for
/// `detect` (`which` is `None`), else a detection or null.
pub fn detect_value(thresholds: &Value, history: &Value, which: Option<Detector>, naming: Naming) -> Result<Value> {
    answer(&Thresholds::from_value(thresholds, "thresholds", naming)?, history, which, naming)
}

fn answer(thresholds: &Thresholds, history: &Value, which: Option<Detector>, naming: Naming) -> Result<Value> {
    let empty = matches!(history, Value::Null) || matches!(history, Value::Other(t) if t == "undefined");
    let history = if empty && which.is_none() { Vec::new() } else { read_history(history, "history", naming)? };
    Ok(match which {
        None => {
            let mut out = Vec::new();
            for detection in detect(&history, thresholds) {
                out.push(detection.to_value(naming));
            }
            Value::Array(out)
        }
        Some(detector) => detector.run(&history, thresholds).map_or(Value::Null, |d| d.to_value(naming)),
    })
}

/// A text argument (`prompt`, `warning`, `approvalReason`): a string, or with `optional`
/// also undefined (`None`; JS `null` is refused, as for every string).
pub fn text_argument(value: &Value, field: &str, optional: bool) -> Result<Option<String>> {
    match value {
        Value::String(s) => Ok(Some(s.clone())),
        Value::Other(t) if optional && t == "undefined" => Ok(None),
        other => {
            let message = concat(&[field, " must be a string, got ", &other.describe()]);
            Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, field, message))
        }
    }
}

/// The callbacks an `InterventionSystem` takes, and the project's `clock`.
pub const INTERVENTION_OPTIONS: [FieldName; 4] = [
    crate::value::field_name!("onIntervention", "on_intervention"),
    crate::value::field_name!("onPause", "on_pause"),
    crate::value::field_name!("onAbort", "on_abort"),
    FieldName::same("clock"),
];

/// Checks an `InterventionSystem`'s options: an object (or null / undefined: none) whose
/// keys are [`INTERVENTION_OPTIONS`], each a function (a host value the binding names
/// `"function"`) or null / undefined (none).
pub fn check_intervention_options(options: &Value, naming: Naming) -> Result<()> {
    if matches!(options, Value::Null) || matches!(options, Value::Other(t) if t == "undefined") {
        return Ok(());
    }
    let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
    reader.reject_unknown(&INTERVENTION_OPTIONS)?;
    for field in INTERVENTION_OPTIONS {
        match reader.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Other(t)) if t == "function" || t == "undefined" => {}
            Some(other) => {
                let path = reader.path_of(field);
                let message = concat(&[&path, " must be a function, got ", &other.describe()]);
                return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, path, message));
            }
        }
    }
    Ok(())
}

/// upstream's `BehaviorDetector`: thresholds and the five detectors over a history.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BehaviorDetector {
    thresholds: Thresholds,
}

impl BehaviorDetector {
    /// A detector with these thresholds ([`Thresholds::DEFAULT`] is upstream's).
    pub fn new(thresholds: Thresholds) -> Self {
        BehaviorDetector { thresholds }
    }

    /// `new BehaviorDetector(options)` over `base` (upstream's `THRESHOLDS`, or what a host
    /// holds under that name): `options` is null / undefined (none) or `{thresholds}`, whose
    /// groups replace `base`'s (see [`Thresholds::merged`]); unknown options are refused.
    pub fn from_options(base: Thresholds, options: &Value, naming: Naming) -> Result<Self> {
        if matches!(options, Value::Null) || matches!(options, Value::Other(t) if t == "undefined") {
            return Ok(BehaviorDetector { thresholds: base });
        }
        let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
        let field = FieldName::same("thresholds");
        reader.reject_unknown(&[field])?;
        let partial = reader.get(field).unwrap_or(&Value::Null);
        Ok(BehaviorDetector { thresholds: base.merged(partial, "thresholds", naming)? })
    }

    /// `getThresholds()`.
    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }

    /// `updateThresholds(partial)`: the groups of `partial` replace this detector's (nothing
    /// changes on an error).
    pub fn update_thresholds(&mut self, partial: &Value, naming: Naming) -> Result<()> {
        self.thresholds = self.thresholds.merged(partial, "thresholds", naming)?;
        Ok(())
    }

    /// `detect(history)`: every detector's detection, in upstream's order.
    pub fn detect(&self, history: &[BehaviorIteration]) -> Vec<Detection> {
        detect(history, &self.thresholds)
    }

    /// One detector (`detectStuck`, ...).
    pub fn run(&self, detector: Detector, history: &[BehaviorIteration]) -> Option<Detection> {
        detector.run(history, &self.thresholds)
    }

    /// `detect(history)` (`which` is `None`) or one detector, over a host value (see
    /// [`detect_value`]).
    pub fn detect_value(&self, history: &Value, which: Option<Detector>, naming: Naming) -> Result<Value> {
        answer(&self.thresholds, history, which, naming)
    }
}
