//! The detectors' thresholds: upstream's `THRESHOLDS` (five groups of two), how a partial
//! object replaces whole groups, and their validation.
//!
//! Upstream builds a detector's thresholds as `{ ...THRESHOLDS, ...options.thresholds }`, and
//! `updateThresholds(t)` as `{ ...this.thresholds, ...t }`: a shallow merge, so a group given
//! in part (`{stuck: {sameErrorCount: 2}}`) replaces the whole group and its other field is
//! then absent. Upstream's rules read an absent field as `undefined`, and every comparison
//! with `undefined` is false, so an absent field switches its rule off, with one exception:
//! `stuck.noProgressIterations` is a window, `history.slice(-undefined)`, which is the whole
//! history. Each field here is an `Option` for that reason, and the rules read `None` as
//! upstream reads `undefined` (see the detectors).

use crate::value::{
    concat, field_name, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder, ObjectReader, Result, Value,
    MAX_SAFE_INTEGER,
};

/// `thresholds.stuck`: a loop is stuck when the same error comes back this often within the
/// window, with progress flat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StuckThresholds {
    /// `sameErrorCount` (3): how often one error must occur in the window (integer >= 1;
    /// absent: the rule never fires).
    pub same_error_count: Option<u64>,
    /// `noProgressIterations` (5): the window, the last this many iterations (integer >= 1;
    /// absent: the whole history, as upstream's `slice(-undefined)`).
    pub no_progress_iterations: Option<u64>,
}

/// `thresholds.oscillation`: undo/redo cycles over the last six iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OscillationThresholds {
    /// `undoRedoCycles` (2): cycles needed to report (integer >= 1; absent: never).
    pub undo_redo_cycles: Option<u64>,
    /// `fileChurnThreshold` (0.8): the share of an iteration's files that a later one must
    /// change back for a cycle (0..=1; absent: no step counts).
    pub file_churn_threshold: Option<f64>,
}

/// `thresholds.deviation`: drift of the recent work from the first iteration's objective.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviationThresholds {
    /// `objectiveSimilarity` (0.5): an iteration whose learnings share less than this share
    /// of the objective's words deviates (0..=1; absent: none does).
    pub objective_similarity: Option<f64>,
    /// `scopeCreepRatio` (1.5): kept and validated, read by no rule (as upstream).
    pub scope_creep_ratio: Option<f64>,
}

/// `thresholds.resource`: iterations used against the first iteration's `maxIterations`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResourceThresholds {
    /// `costMultiplier` (2.0): kept and validated, read by no rule (as upstream).
    pub cost_multiplier: Option<f64>,
    /// `iterationMultiplier` (2.0): the ratio of iterations used to the estimate that reports
    /// (finite >= 0; absent: never).
    pub iteration_multiplier: Option<f64>,
}

/// `thresholds.regression`: tests passing to failing, coverage drops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegressionThresholds {
    /// `testPassToFail` (true): kept and validated, read by no rule: upstream checks tests
    /// whatever it says, and so does this.
    pub test_pass_to_fail: Option<bool>,
    /// `coverageDropPercent` (10): a coverage drop of at least this many points is a
    /// regression (0..=100; absent: drops are not checked).
    pub coverage_drop_percent: Option<f64>,
}

/// The thresholds of a `BehaviorDetector`: upstream's five groups.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Stuck loops.
    pub stuck: StuckThresholds,
    /// Oscillation.
    pub oscillation: OscillationThresholds,
    /// Deviation from the objective.
    pub deviation: DeviationThresholds,
    /// Resource burn.
    pub resource: ResourceThresholds,
    /// Regressions.
    pub regression: RegressionThresholds,
}

/// The groups' names, in upstream's order.
pub const THRESHOLD_GROUPS: [&str; 5] = ["stuck", "oscillation", "deviation", "resource", "regression"];

const SAME_ERROR_COUNT: FieldName = field_name!("sameErrorCount", "same_error_count");
const NO_PROGRESS_ITERATIONS: FieldName = field_name!("noProgressIterations", "no_progress_iterations");
const UNDO_REDO_CYCLES: FieldName = field_name!("undoRedoCycles", "undo_redo_cycles");
const FILE_CHURN_THRESHOLD: FieldName = field_name!("fileChurnThreshold", "file_churn_threshold");
const OBJECTIVE_SIMILARITY: FieldName = field_name!("objectiveSimilarity", "objective_similarity");
const SCOPE_CREEP_RATIO: FieldName = field_name!("scopeCreepRatio", "scope_creep_ratio");
const COST_MULTIPLIER: FieldName = field_name!("costMultiplier", "cost_multiplier");
const ITERATION_MULTIPLIER: FieldName = field_name!("iterationMultiplier", "iteration_multiplier");
const TEST_PASS_TO_FAIL: FieldName = field_name!("testPassToFail", "test_pass_to_fail");
const COVERAGE_DROP_PERCENT: FieldName = field_name!("coverageDropPercent", "coverage_drop_percent");

/// Group `i`'s two fields (in [`THRESHOLD_GROUPS`]' order).
pub(crate) fn group_fields(i: usize) -> [FieldName; 2] {
    GROUP_FIELDS.get(i).copied().unwrap_or(GROUP_FIELDS[0])
}

/// The fields of each group, in [`THRESHOLD_GROUPS`]' order (each group's in upstream's).
const GROUP_FIELDS: [[FieldName; 2]; 5] = [
    [SAME_ERROR_COUNT, NO_PROGRESS_ITERATIONS],
    [UNDO_REDO_CYCLES, FILE_CHURN_THRESHOLD],
    [OBJECTIVE_SIMILARITY, SCOPE_CREEP_RATIO],
    [COST_MULTIPLIER, ITERATION_MULTIPLIER],
    [TEST_PASS_TO_FAIL, COVERAGE_DROP_PERCENT],
];

impl Thresholds {
    /// Upstream's `THRESHOLDS`.
    pub const DEFAULT: Thresholds = Thresholds {
        stuck: StuckThresholds { same_error_count: Some(3), no_progress_iterations: Some(5) },
        oscillation: OscillationThresholds { undo_redo_cycles: Some(2), file_churn_threshold: Some(0.8) },
        deviation: DeviationThresholds { objective_similarity: Some(0.5), scope_creep_ratio: Some(1.5) },
        resource: ResourceThresholds { cost_multiplier: Some(2.0), iteration_multiplier: Some(2.0) },
        regression: RegressionThresholds { test_pass_to_fail: Some(true), coverage_drop_percent: Some(10.0) },
    };

    /// These thresholds with the groups `partial` gives in place of their own, as upstream's
    /// `{ ...this.thresholds, ...partial }` merges them: a group given replaces the whole
    /// group (a field it leaves out is then absent), a group not given is kept. `partial` is
    /// an object of groups, or null / undefined (nothing changes). Unknown groups and fields
    /// are refused (`unknown_option`); errors name `root.group.field` (`thresholds.stuck.sameErrorCount`).
    pub fn merged(&self, partial: &Value, root: &str, naming: Naming) -> Result<Thresholds> {
        if matches!(partial, Value::Null) || matches!(partial, Value::Other(t) if t == "undefined") {
            return Ok(*self);
        }
        let reader = ObjectReader::new(partial, root, root, naming, ErrorCode::InvalidConfig)?;
        let groups = THRESHOLD_GROUPS.map(FieldName::same);
        reader.reject_unknown(&groups)?;
        let mut out = *self;
        for (i, group) in groups.iter().enumerate() {
            let Some(value) = reader.get(*group) else { continue };
            // An undefined group (JS `{stuck: undefined}`) is an absent one.
            if matches!(value, Value::Other(t) if t == "undefined") {
                continue;
            }
            let path = reader.path_of(*group);
            let fields = ObjectReader::new(value, &path, &path, naming, ErrorCode::InvalidConfig)?;
            fields.reject_unknown(&group_fields(i))?;
            out.read_group(i, &fields)?;
        }
        Ok(out)
    }

    /// Group `i`'s fields (in [`THRESHOLD_GROUPS`]' order) from `fields`, in place of this
    /// group's own; a field absent there is absent here.
    pub(crate) fn read_group(&mut self, i: usize, fields: &ObjectReader<'_>) -> Result<()> {
        let out = self;
        let [first, second] = group_fields(i);
        let count = |f| fields.opt_integer(f, 1, MAX_SAFE_INTEGER);
        let fraction = |f| fields.opt_number(f, 0.0, 1.0);
        let ratio = |f| fields.opt_number(f, 0.0, f64::MAX);
        match i {
            0 => {
                out.stuck = StuckThresholds { same_error_count: count(first)?, no_progress_iterations: count(second)? }
            }
            1 => {
                out.oscillation =
                    OscillationThresholds { undo_redo_cycles: count(first)?, file_churn_threshold: fraction(second)? }
            }
            2 => {
                out.deviation =
                    DeviationThresholds { objective_similarity: fraction(first)?, scope_creep_ratio: ratio(second)? }
            }
            3 => {
                out.resource =
                    ResourceThresholds { cost_multiplier: ratio(first)?, iteration_multiplier: ratio(second)? }
            }
            _ => {
                let test_pass_to_fail = match fields.get(first) {
                    None => None,
                    Some(_) => Some(fields.boolean(first)?),
                };
                let coverage_drop_percent = fields.opt_number(second, 0.0, 100.0)?;
                out.regression = RegressionThresholds { test_pass_to_fail, coverage_drop_percent };
            }
        }
        Ok(())
    }

    /// Group `i` for a stop condition: the fields `fields` gives, each other field at
    /// upstream's default (unlike [`Thresholds::merged`], which replaces whole groups).
    pub(crate) fn condition_group(i: usize, fields: &ObjectReader<'_>) -> Result<Thresholds> {
        let mut out = Thresholds::DEFAULT;
        out.read_group(i, fields)?;
        let d = Thresholds::DEFAULT;
        let t = &mut out;
        match i {
            0 => {
                t.stuck.same_error_count = t.stuck.same_error_count.or(d.stuck.same_error_count);
                t.stuck.no_progress_iterations = t.stuck.no_progress_iterations.or(d.stuck.no_progress_iterations);
            }
            1 => {
                t.oscillation.undo_redo_cycles = t.oscillation.undo_redo_cycles.or(d.oscillation.undo_redo_cycles);
                t.oscillation.file_churn_threshold =
                    t.oscillation.file_churn_threshold.or(d.oscillation.file_churn_threshold);
            }
            2 => {
                t.deviation.objective_similarity =
                    t.deviation.objective_similarity.or(d.deviation.objective_similarity);
                t.deviation.scope_creep_ratio = t.deviation.scope_creep_ratio.or(d.deviation.scope_creep_ratio);
            }
            3 => {
                t.resource.cost_multiplier = t.resource.cost_multiplier.or(d.resource.cost_multiplier);
                t.resource.iteration_multiplier = t.resource.iteration_multiplier.or(d.resource.iteration_multiplier);
            }
            _ => {
                t.regression.test_pass_to_fail = t.regression.test_pass_to_fail.or(d.regression.test_pass_to_fail);
                t.regression.coverage_drop_percent =
                    t.regression.coverage_drop_percent.or(d.regression.coverage_drop_percent);
            }
        }
        Ok(out)
    }

    /// Group `i`'s fields that are present, as `(snake_case key, value)`.
    pub(crate) fn group_entries(&self, i: usize, naming: Naming) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        let values = self.group_values();
        if let Some(values) = values.get(i) {
            for (field, value) in group_fields(i).iter().zip(values) {
                if let Some(value) = value {
                    out.push((field.spelled(naming), value.clone()));
                }
            }
        }
        out
    }

    fn group_values(&self) -> [[Option<Value>; 2]; 5] {
        let count = |n: Option<u64>| n.map(|n| n as f64);
        [
            [
                count(self.stuck.same_error_count).map(Value::Number),
                count(self.stuck.no_progress_iterations).map(Value::Number),
            ],
            [
                count(self.oscillation.undo_redo_cycles).map(Value::Number),
                self.oscillation.file_churn_threshold.map(Value::Number),
            ],
            [
                self.deviation.objective_similarity.map(Value::Number),
                self.deviation.scope_creep_ratio.map(Value::Number),
            ],
            [self.resource.cost_multiplier.map(Value::Number), self.resource.iteration_multiplier.map(Value::Number)],
            [
                self.regression.test_pass_to_fail.map(Value::Bool),
                self.regression.coverage_drop_percent.map(Value::Number),
            ],
        ]
    }

    /// Thresholds read whole from `value` (every group required: a detector's `thresholds`
    /// as the JS layer hands it back), errors under `root`.
    pub fn from_value(value: &Value, root: &str, naming: Naming) -> Result<Thresholds> {
        let reader = ObjectReader::new(value, root, root, naming, ErrorCode::InvalidConfig)?;
        for group in THRESHOLD_GROUPS {
            if reader.get(FieldName::same(group)).is_none() {
                let path = reader.path_of(FieldName::same(group));
                let message = concat(&[&path, " must be an object, got nothing (missing)"]);
                return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, path, message));
            }
        }
        Thresholds::DEFAULT.merged(value, root, naming)
    }

    /// `getThresholds()`: each group with the fields it has, keys spelled for `naming`.
    pub fn to_value(&self, naming: Naming) -> Value {
        let groups = self.group_values();
        let mut out = ObjectBuilder::new();
        for ((name, fields), values) in THRESHOLD_GROUPS.iter().zip(GROUP_FIELDS).zip(groups) {
            let mut group = ObjectBuilder::new();
            for (field, value) in fields.iter().zip(values) {
                if let Some(value) = value {
                    group.value(field.spelled(naming), value);
                }
            }
            out.value(name, group.build());
        }
        out.build()
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        Value::parse_json(text, ErrorCode::InvalidConfig, "t").unwrap_or(Value::Null)
    }

    #[test]
    fn a_partial_group_replaces_the_whole_group() {
        let merged = Thresholds::DEFAULT
            .merged(&parse(r#"{"stuck":{"sameErrorCount":2}}"#), "thresholds", Naming::Js)
            .unwrap_or_default();
        assert_eq!(merged.stuck, StuckThresholds { same_error_count: Some(2), no_progress_iterations: None });
        assert_eq!(merged.oscillation, Thresholds::DEFAULT.oscillation);
        let text = merged.to_value(Naming::Js).to_json();
        assert!(text.starts_with(r#"{"stuck":{"sameErrorCount":2},"oscillation":{"undoRedoCycles":2"#), "{text}");
    }

    #[test]
    fn bad_values_name_their_path() {
        let cases = [
            (r#"{"stuk":{}}"#, "unknown_option", "thresholds.stuk"),
            (r#"{"stuck":{"sameErrorCnt":2}}"#, "unknown_option", "thresholds.stuck.sameErrorCnt"),
            (r#"{"stuck":{"sameErrorCount":0}}"#, "invalid_config", "thresholds.stuck.sameErrorCount"),
            (
                r#"{"oscillation":{"fileChurnThreshold":1.5}}"#,
                "invalid_config",
                "thresholds.oscillation.fileChurnThreshold",
            ),
            (r#"{"regression":{"testPassToFail":1}}"#, "invalid_config", "thresholds.regression.testPassToFail"),
            (r#"{"stuck":null}"#, "invalid_config", "thresholds.stuck"),
            ("5", "invalid_config", "thresholds"),
        ];
        for (text, code, field) in cases {
            let error = Thresholds::DEFAULT.merged(&parse(text), "thresholds", Naming::Js).err();
            assert_eq!(error.as_ref().map(|e| (e.code(), e.field())), Some((code, field)), "{text}");
        }
        let snake =
            Thresholds::DEFAULT.merged(&parse(r#"{"stuck":{"same_error_count":-1}}"#), "thresholds", Naming::Snake);
        assert_eq!(snake.err().map(|e| e.field().to_string()).as_deref(), Some("thresholds.stuck.same_error_count"));
    }
}
