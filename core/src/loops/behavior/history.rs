//! What the detectors read of a loop's history: one [`BehaviorIteration`] per entry, read
//! from upstream's iteration objects (`{number, analysis: {...}, context: {...}}`) with typed
//! errors naming the field (`history[3].analysis.completionPercentage`, code
//! `invalid_result`).
//!
//! The history is the loop's own record of its iterations, which holds much more than the
//! detectors read (upstream passes its whole iteration objects), so keys the detectors do
//! not read are ignored, at every level. A field they read must have its type and range.
//! Absent means unknown, as upstream reads it. JS `null` is absent too wherever upstream
//! reads `null` as it reads `undefined` (its `x || fallback` and `?.`); it is refused for
//! `completionPercentage` (upstream subtracts it: `null` would count as 0) and
//! `testsPassing` (upstream tests it against `undefined`: `null` would count as failing).

use crate::value::shape::{self, FieldType, TypedField};
use crate::value::{
    concat, field_name, index_path, join_path, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder,
    ObjectReader, Result, Value, MAX_SAFE_INTEGER,
};

/// What the detectors read of one iteration of the history. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BehaviorIteration {
    /// `number`: the iteration's number (integer >= 0; upstream's `number || index` uses the
    /// entry's index when it is 0 or absent).
    pub number: Option<u64>,
    /// `analysis.failureClass`: the class of the iteration's failure.
    pub failure_class: Option<String>,
    /// `analysis.error`: the iteration's error (read when `failureClass` is absent or empty).
    pub error: Option<String>,
    /// `analysis.blockers`: what blocked the iteration.
    pub blockers: Option<Vec<String>>,
    /// `analysis.completionPercentage`: how complete the task is (finite, 0..=100; upstream's
    /// rules compare it as a fraction: 0.02 of progress per iteration, 0.5 done).
    pub completion_percentage: Option<f64>,
    /// `analysis.artifactsModified`: the files the iteration changed, as given.
    pub artifacts_modified: Option<Vec<String>>,
    /// `analysis.learnings`: what the iteration learned (compared with the objective).
    pub learnings: Option<String>,
    /// `analysis.testsPassing`: whether the tests passed.
    pub tests_passing: Option<bool>,
    /// `analysis.coveragePercent`: test coverage in percent (finite, 0..=100; 0 reads as
    /// unknown, as upstream's truthiness test reads it).
    pub coverage_percent: Option<f64>,
    /// `context.objective`: the task's objective (read from the first iteration).
    pub objective: Option<String>,
    /// `context.maxIterations`: the iteration budget (integer >= 1; read from the first
    /// iteration; absent: 10, as upstream).
    pub max_iterations: Option<u64>,
    /// `fingerprint` (a result's field, not an `analysis` one): a hash of what the iteration
    /// produced, at most [`MAX_FINGERPRINT_CHARS`] characters; what the `unchanged` and
    /// `revisit` conditions compare.
    pub fingerprint: Option<String>,
    /// `completed` (a result's field): the loop's own completion signal, which the
    /// `completed` condition reads.
    pub completed: Option<bool>,
}

/// The longest `fingerprint` a record takes, in characters (Unicode scalar values).
pub const MAX_FINGERPRINT_CHARS: usize = 256;

const NUMBER: FieldName = FieldName::same("number");
const ANALYSIS: FieldName = FieldName::same("analysis");
const CONTEXT: FieldName = FieldName::same("context");
const FAILURE_CLASS: FieldName = field_name!("failureClass", "failure_class");
const ERROR: FieldName = FieldName::same("error");
const BLOCKERS: FieldName = FieldName::same("blockers");
const COMPLETION_PERCENTAGE: FieldName = field_name!("completionPercentage", "completion_percentage");
const ARTIFACTS_MODIFIED: FieldName = field_name!("artifactsModified", "artifacts_modified");
const LEARNINGS: FieldName = FieldName::same("learnings");
const TESTS_PASSING: FieldName = field_name!("testsPassing", "tests_passing");
const COVERAGE_PERCENT: FieldName = field_name!("coveragePercent", "coverage_percent");
const OBJECTIVE: FieldName = FieldName::same("objective");
const MAX_ITERATIONS: FieldName = field_name!("maxIterations", "max_iterations");
const FINGERPRINT: FieldName = FieldName::same("fingerprint");
const COMPLETED: FieldName = FieldName::same("completed");

/// The progress fields a result may hold beside the analysis ones (never in a history's
/// `analysis`): `fingerprint` and `completed`.
pub const PROGRESS_FIELDS: [FieldName; 2] = [FINGERPRINT, COMPLETED];

/// The fields the detectors read: of an entry, of its `analysis`, of its `context`.
pub const ITERATION_FIELDS: [FieldName; 3] = [NUMBER, ANALYSIS, CONTEXT];
/// The fields of `analysis` the detectors read.
pub const ANALYSIS_FIELDS: [FieldName; 8] = [
    FAILURE_CLASS,
    ERROR,
    BLOCKERS,
    COMPLETION_PERCENTAGE,
    ARTIFACTS_MODIFIED,
    LEARNINGS,
    TESTS_PASSING,
    COVERAGE_PERCENT,
];
/// The fields of `context` the detectors read.
pub const CONTEXT_FIELDS: [FieldName; 2] = [OBJECTIVE, MAX_ITERATIONS];

const CODE: ErrorCode = ErrorCode::InvalidResult;

/// A fingerprint's one rule: at most [`MAX_FINGERPRINT_CHARS`] characters (`path` names the
/// field in the error).
#[inline(always)]
fn check_fingerprint(text: &str, path: impl FnOnce() -> String, code: ErrorCode) -> Result<()> {
    // Each character is at least one byte: a short text needs no count (not in WebAssembly,
    // whose engines module's size is budgeted).
    #[cfg(not(target_arch = "wasm32"))]
    if text.len() <= MAX_FINGERPRINT_CHARS {
        return Ok(());
    }
    let count = text.chars().count();
    if count <= MAX_FINGERPRINT_CHARS {
        return Ok(());
    }
    let path = path();
    let message = concat(&[
        &path,
        " must be a string of at most ",
        &crate::num::uint_string(MAX_FINGERPRINT_CHARS as u64),
        " characters, got ",
        &crate::num::uint_string(count as u64),
    ]);
    Err(Error::new(code, ErrorKind::Range, path, message))
}

/// Absent, `null` or `undefined`: what upstream reads as missing.
fn missing(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Other(t)) => t == "undefined",
        Some(_) => false,
    }
}

/// `Some(reader)` over the object at `field`, `None` when it is missing.
fn nested<'a>(
    outer: &ObjectReader<'a>,
    field: FieldName,
    path: &'a str,
    naming: Naming,
) -> Result<Option<ObjectReader<'a>>> {
    let value = outer.get(field);
    if missing(value) {
        return Ok(None);
    }
    ObjectReader::new(value.unwrap_or(&Value::Null), path, path, naming, CODE).map(Some)
}

fn opt_string(reader: &ObjectReader<'_>, field: FieldName) -> Result<Option<String>> {
    if missing(reader.get(field)) {
        return Ok(None);
    }
    reader.string(field).map(|s| Some(s.to_string()))
}

fn strings(reader: &ObjectReader<'_>, field: FieldName, code: ErrorCode) -> Result<Option<Vec<String>>> {
    let value = reader.get(field);
    if missing(value) {
        return Ok(None);
    }
    let path = reader.path_of(field);
    let Some(Value::Array(items)) = value else {
        let got = value.map_or_else(String::new, Value::describe);
        let message = concat(&[&path, " must be an array of strings, got ", &got]);
        return Err(Error::new(code, ErrorKind::Type, path, message));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => out.push(s.clone()),
            other => {
                let at = index_path(&path, i);
                let message = concat(&[&at, " must be a string, got ", &other.describe()]);
                return Err(Error::new(code, ErrorKind::Type, at, message));
            }
        }
    }
    Ok(Some(out))
}

/// A number field where JS `null` is refused (upstream would compute with it).
fn opt_number_no_null(reader: &ObjectReader<'_>, field: FieldName, min: f64, max: f64) -> Result<Option<f64>> {
    match reader.get(field) {
        None => Ok(None),
        Some(Value::Other(t)) if t == "undefined" => Ok(None),
        Some(_) => reader.number(field, min, max).map(Some),
    }
}

fn opt_number(reader: &ObjectReader<'_>, field: FieldName, min: f64, max: f64) -> Result<Option<f64>> {
    if missing(reader.get(field)) {
        return Ok(None);
    }
    reader.number(field, min, max).map(Some)
}

fn opt_integer(reader: &ObjectReader<'_>, field: FieldName, min: u64) -> Result<Option<u64>> {
    if missing(reader.get(field)) {
        return Ok(None);
    }
    reader.integer(field, min, MAX_SAFE_INTEGER).map(Some)
}

impl BehaviorIteration {
    /// The closed range of `completion_percentage` and `coverage_percent`, `(min, max)`: the
    /// one the reader checks, which hosts also describe (the MCP server's schemas).
    pub const PERCENT_RANGE: (f64, f64) = (0.0, 100.0);

    /// Reads one history entry at `path` (`history[3]`).
    pub fn from_value(value: &Value, path: &str, naming: Naming) -> Result<BehaviorIteration> {
        let entry = ObjectReader::new(value, path, path, naming, CODE)?;
        entry.reject_both_spellings(&ITERATION_FIELDS)?;
        let mut out = BehaviorIteration { number: opt_integer(&entry, NUMBER, 0)?, ..BehaviorIteration::default() };
        let analysis_path = join_path(path, ANALYSIS.spelled(naming));
        if let Some(analysis) = nested(&entry, ANALYSIS, &analysis_path, naming)? {
            analysis.reject_both_spellings(&ANALYSIS_FIELDS)?;
            out.read_analysis(&analysis, CODE)?;
        }
        let context_path = join_path(path, CONTEXT.spelled(naming));
        if let Some(context) = nested(&entry, CONTEXT, &context_path, naming)? {
            context.reject_both_spellings(&CONTEXT_FIELDS)?;
            out.objective = opt_string(&context, OBJECTIVE)?;
            out.max_iterations = opt_integer(&context, MAX_ITERATIONS, 1)?;
        }
        Ok(out)
    }

    /// Reads the fields of [`ANALYSIS_FIELDS`] from `analysis` (errors with `code`).
    fn read_analysis(&mut self, analysis: &ObjectReader<'_>, code: ErrorCode) -> Result<()> {
        self.failure_class = opt_string(analysis, FAILURE_CLASS)?;
        self.error = opt_string(analysis, ERROR)?;
        self.blockers = strings(analysis, BLOCKERS, code)?;
        self.completion_percentage =
            opt_number_no_null(analysis, COMPLETION_PERCENTAGE, Self::PERCENT_RANGE.0, Self::PERCENT_RANGE.1)?;
        self.artifacts_modified = strings(analysis, ARTIFACTS_MODIFIED, code)?;
        self.learnings = opt_string(analysis, LEARNINGS)?;
        self.tests_passing = match analysis.get(TESTS_PASSING) {
            None => None,
            Some(Value::Other(t)) if t == "undefined" => None,
            Some(_) => Some(analysis.boolean(TESTS_PASSING)?),
        };
        self.coverage_percent = opt_number(analysis, COVERAGE_PERCENT, Self::PERCENT_RANGE.0, Self::PERCENT_RANGE.1)?;
        Ok(())
    }

    /// The behaviour fields an iteration result of the loop engine may hold, typed: those of
    /// [`ANALYSIS_FIELDS`] then [`PROGRESS_FIELDS`], flat beside its other keys and spelled
    /// snake_case in every language, as its other keys are (`failure_class`, `tests_passing`,
    /// ...). Each may be absent (unknown); `nullable` ones take `null` for unknown too. A
    /// record echoes those given, in this order (never `null`). The bindings' shapes of
    /// both are generated from it.
    pub const RESULT_TYPES: [TypedField; 10] = [
        TypedField::nullable(FieldName::same("failure_class"), FieldType::Text, "The failure's class, when it failed."),
        TypedField::nullable(ERROR, FieldType::Text, "The error message, when it failed."),
        TypedField::nullable(BLOCKERS, FieldType::Texts, "What blocks progress."),
        TypedField::new(FieldName::same("completion_percentage"), FieldType::Number, "0..100."),
        TypedField::nullable(
            FieldName::same("artifacts_modified"),
            FieldType::Texts,
            "The files the iteration changed.",
        ),
        TypedField::nullable(LEARNINGS, FieldType::Text, "What the iteration learned."),
        TypedField::new(FieldName::same("tests_passing"), FieldType::Boolean, "Whether the tests pass."),
        TypedField::nullable(
            FieldName::same("coverage_percent"),
            FieldType::Number,
            "0..100 (0 reads as unknown, as upstream).",
        ),
        TypedField::nullable(
            FINGERPRINT,
            FieldType::Text,
            "At most 256 characters: what the `unchanged` and `revisit` conditions compare.",
        ),
        TypedField::nullable(
            COMPLETED,
            FieldType::Boolean,
            "The loop's own completion signal (the `completed` condition).",
        ),
    ];

    /// The fields of [`BehaviorIteration::RESULT_TYPES`], as the result's reader takes them.
    pub fn result_fields() -> [FieldName; 10] {
        // Evaluated at compile time: the doc lines stay out of the binaries.
        const FIELDS: [FieldName; 10] = shape::names(BehaviorIteration::RESULT_TYPES);
        FIELDS
    }

    /// Reads the analysis fields an iteration result holds flat ([`BehaviorIteration::result_fields`];
    /// the caller refuses other keys), with the rules of a history's `analysis`: absent (or
    /// `null`, except for `completion_percentage` and `tests_passing`) is unknown. `None` when
    /// the result holds none of them. Errors name `path.field` with `code`.
    pub fn from_result(value: &Value, path: &str, code: ErrorCode) -> Result<Option<BehaviorIteration>> {
        let reader = ObjectReader::new(value, path, "result", Naming::Snake, code)?;
        let mut out = BehaviorIteration::default();
        out.read_analysis(&reader, code)?;
        out.read_progress(&reader, code)?;
        Ok((!out.is_unknown()).then_some(out))
    }

    /// Reads `fingerprint` (a string of at most [`MAX_FINGERPRINT_CHARS`] characters) and
    /// `completed` (a boolean); `null` is absent.
    fn read_progress(&mut self, reader: &ObjectReader<'_>, code: ErrorCode) -> Result<()> {
        if let Some(text) = opt_string(reader, FINGERPRINT)? {
            check_fingerprint(&text, || reader.path_of(FINGERPRINT), code)?;
            self.fingerprint = Some(text);
        }
        self.completed = match reader.get(COMPLETED) {
            None | Some(Value::Null) => None,
            Some(Value::Other(t)) if t == "undefined" => None,
            Some(_) => Some(reader.boolean(COMPLETED)?),
        };
        Ok(())
    }

    /// Checks the fields as [`BehaviorIteration::from_result`] reads them from a result
    /// (errors name the field as it does, with `code`). Strings, lists of strings and
    /// booleans take any value, so only the fingerprint's length and the percentages' ranges
    /// can fail; the percentages go through the reader itself (they are rare on the hot
    /// path), the rest is checked here without building a value.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn check_result_fields(&self, code: ErrorCode) -> Result<()> {
        if self.completion_percentage.is_some() || self.coverage_percent.is_some() {
            let mut o = ObjectBuilder::new();
            self.push_result_fields(&mut o);
            return BehaviorIteration::from_result(&o.build(), "", code).map(|_| ());
        }
        match &self.fingerprint {
            Some(text) => check_fingerprint(text, || FINGERPRINT.snake().to_string(), code),
            None => Ok(()),
        }
    }

    /// The snake_case name of the first analysis field (in [`ANALYSIS_FIELDS`]' order) in
    /// which `self` and `other` differ (numbers compared as numbers).
    pub fn first_difference(&self, other: &BehaviorIteration) -> Option<&'static str> {
        let field = if self.failure_class != other.failure_class {
            FAILURE_CLASS
        } else if self.error != other.error {
            ERROR
        } else if self.blockers != other.blockers {
            BLOCKERS
        } else if self.completion_percentage != other.completion_percentage {
            COMPLETION_PERCENTAGE
        } else if self.artifacts_modified != other.artifacts_modified {
            ARTIFACTS_MODIFIED
        } else if self.learnings != other.learnings {
            LEARNINGS
        } else if self.tests_passing != other.tests_passing {
            TESTS_PASSING
        } else if self.coverage_percent != other.coverage_percent {
            COVERAGE_PERCENT
        } else if self.fingerprint != other.fingerprint {
            FINGERPRINT
        } else if self.completed != other.completed {
            COMPLETED
        } else {
            return None;
        };
        Some(field.snake())
    }

    /// Whether no analysis field is known (the iteration number and context aside).
    pub fn is_unknown(&self) -> bool {
        self.failure_class.is_none()
            && self.error.is_none()
            && self.blockers.is_none()
            && self.completion_percentage.is_none()
            && self.artifacts_modified.is_none()
            && self.learnings.is_none()
            && self.tests_passing.is_none()
            && self.coverage_percent.is_none()
            && self.fingerprint.is_none()
            && self.completed.is_none()
    }

    /// Writes the known analysis fields flat, snake_case, in [`ANALYSIS_FIELDS`]' order (the
    /// form [`BehaviorIteration::from_result`] reads).
    pub(crate) fn push_result_fields(&self, out: &mut ObjectBuilder) {
        let list = |items: &[String]| Value::Array(items.iter().map(|s| Value::String(s.clone())).collect());
        if let Some(v) = &self.failure_class {
            out.string(FAILURE_CLASS.snake(), v);
        }
        if let Some(v) = &self.error {
            out.string(ERROR.snake(), v);
        }
        if let Some(v) = &self.blockers {
            out.value(BLOCKERS.snake(), list(v));
        }
        out.some_number(COMPLETION_PERCENTAGE.snake(), self.completion_percentage);
        if let Some(v) = &self.artifacts_modified {
            out.value(ARTIFACTS_MODIFIED.snake(), list(v));
        }
        if let Some(v) = &self.learnings {
            out.string(LEARNINGS.snake(), v);
        }
        if let Some(v) = self.tests_passing {
            out.boolean(TESTS_PASSING.snake(), v);
        }
        out.some_number(COVERAGE_PERCENT.snake(), self.coverage_percent);
        if let Some(v) = &self.fingerprint {
            out.string(FINGERPRINT.snake(), v);
        }
        if let Some(v) = self.completed {
            out.boolean(COMPLETED.snake(), v);
        }
    }

    /// upstream's `analysis.failureClass || analysis.error || ''`.
    pub fn error_message(&self) -> &str {
        match (self.failure_class.as_deref(), self.error.as_deref()) {
            (Some(class), _) if !class.is_empty() => class,
            (_, Some(error)) => error,
            _ => "",
        }
    }
}

/// Reads a whole history (an array of iterations) at `root` (`history`).
pub fn read_history(value: &Value, root: &str, naming: Naming) -> Result<Vec<BehaviorIteration>> {
    let Value::Array(items) = value else {
        let message = concat(&[root, " must be an array of iterations, got ", &value.describe()]);
        return Err(Error::new(CODE, ErrorKind::Type, root, message));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        out.push(BehaviorIteration::from_value(item, &index_path(root, i), naming)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, naming: Naming) -> Result<Vec<BehaviorIteration>> {
        let value = Value::parse_json(text, ErrorCode::InvalidResult, "history").unwrap_or(Value::Null);
        read_history(&value, "history", naming)
    }

    #[test]
    fn reads_what_the_detectors_read_and_ignores_the_rest() {
        let history = read(
            r#"[{"number":3,"output":"x","analysis":{"failureClass":"","error":"E1","blockers":["b"],
                "completionPercentage":0.5,"qualityScore":7,"testsPassing":true},"context":{"objective":"o","maxIterations":4}},
               {"analysis":null,"context":null}]"#,
            Naming::Js,
        )
        .unwrap_or_default();
        assert_eq!(history.len(), 2);
        assert_eq!(history[0].error_message(), "E1");
        assert_eq!(history[0].max_iterations, Some(4));
        assert_eq!(history[1], BehaviorIteration::default());
    }

    #[test]
    fn the_typed_result_fields_are_the_analysis_then_the_progress_fields() {
        let typed: Vec<&str> = BehaviorIteration::RESULT_TYPES.iter().map(|f| f.name.snake()).collect();
        let read: Vec<&str> = ANALYSIS_FIELDS.iter().chain(&PROGRESS_FIELDS).map(FieldName::snake).collect();
        assert_eq!(typed, read);
        // Each is spelled snake_case in every language, and the writer writes them in order.
        assert!(BehaviorIteration::RESULT_TYPES.iter().all(|f| f.name.js() == f.name.snake()));
        // A result giving every field, each a value of its type.
        let given: Vec<String> = BehaviorIteration::RESULT_TYPES
            .iter()
            .map(|f| {
                let value = match f.ty {
                    FieldType::Number | FieldType::Integer => "5",
                    FieldType::Boolean => "true",
                    FieldType::Text | FieldType::Names(_) => "\"x\"",
                    FieldType::Texts => "[\"x\"]",
                };
                format!("\"{}\":{value}", f.name.snake())
            })
            .collect();
        let full = format!("{{{}}}", given.join(","));
        let value = Value::parse_json(&full, ErrorCode::InvalidResult, "result").unwrap_or(Value::Null);
        let behavior = BehaviorIteration::from_result(&value, "", CODE).ok().flatten().unwrap_or_default();
        let mut o = ObjectBuilder::new();
        behavior.push_result_fields(&mut o);
        let Value::Object(entries) = o.build() else { unreachable!() };
        assert_eq!(entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), typed);
        let types = BehaviorIteration::RESULT_TYPES;
        assert!(entries
            .iter()
            .zip(types)
            .all(|((_, v), t)| t.holds(v) && TypedField { nullable: false, ..t }.holds(v)));
        let doc = BehaviorIteration::RESULT_TYPES.iter().find(|f| f.name == FINGERPRINT).map(|f| f.doc);
        assert!(doc.unwrap_or("").contains(&MAX_FINGERPRINT_CHARS.to_string()));
        // A nullable field reads `null` as unknown; the others refuse it.
        for field in BehaviorIteration::RESULT_TYPES {
            let text = format!(r#"{{"{}":null}}"#, field.name.snake());
            let value = Value::parse_json(&text, ErrorCode::InvalidResult, "result").unwrap_or(Value::Null);
            let read = BehaviorIteration::from_result(&value, "", CODE);
            assert_eq!(read.is_ok(), field.nullable, "{text}");
        }
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"[{"analysis":{"completionPercentage":null}}]"#, "history[0].analysis.completionPercentage", "type"),
            (r#"[{},{"analysis":{"completionPercentage":101}}]"#, "history[1].analysis.completionPercentage", "range"),
            (r#"[{"analysis":{"testsPassing":null}}]"#, "history[0].analysis.testsPassing", "type"),
            (r#"[{"analysis":{"blockers":["a",3]}}]"#, "history[0].analysis.blockers[1]", "type"),
            (r#"[{"context":{"maxIterations":0}}]"#, "history[0].context.maxIterations", "range"),
            (r#"[{"number":1.5}]"#, "history[0].number", "range"),
            (r#"[{"analysis":[]}]"#, "history[0].analysis", "type"),
            (r#"[5]"#, "history[0]", "type"),
            (r#"{}"#, "history", "type"),
        ];
        for (text, field, kind) in cases {
            let error = read(text, Naming::Js).err();
            assert_eq!(error.as_ref().map(|e| (e.field(), e.kind().as_str())), Some((field, kind)), "{text}");
            assert_eq!(error.map(|e| e.code()), Some("invalid_result"));
        }
        let snake = read(r#"[{"analysis":{"completion_percentage":2e3}}]"#, Naming::Snake).err();
        assert_eq!(snake.map(|e| e.field().to_string()).as_deref(), Some("history[0].analysis.completion_percentage"));
    }
}
