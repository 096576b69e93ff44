//! A detection ([`Detection`]): what a detector found (upstream's `Detection` typedef:
//! `type`, `severity`, `message`, `evidence`, `recommendations`), and the reading of one
//! handed to the intervention system (code `invalid_detection`).
//!
//! `evidence` is upstream's supporting data, free-form: each detector writes its own keys
//! (listed in `docs/behavior.md`), and a detection built by hand may carry any. It is kept
//! with upstream's (camelCase) keys; with snake_case names its top-level keys that upstream
//! spells in camelCase are spelled in snake_case (`repeated_error`), nested keys being the
//! same in both.

use crate::value::{
    concat, index_path, key, named_enum, Error, ErrorCode, ErrorKind, FieldName, Key, Naming, ObjectBuilder,
    ObjectReader, Result, Value,
};

named_enum! {
    /// What a detector found (`detection.type`), in upstream's order of checks.
    pub enum DetectionType {
        /// The same error again and again with no progress.
        Stuck = "stuck",
        /// Undo/redo of the same files.
        Oscillation = "oscillation",
        /// Recent work drifting from the objective.
        Deviation = "deviation",
        /// More iterations than estimated.
        ResourceBurn = "resource_burn",
        /// Tests passing to failing, coverage drops.
        Regression = "regression",
    }
}

named_enum! {
    /// How serious a detection is (`detection.severity`).
    pub enum Severity {
        /// Logged only (no detector reports it; a detection built by hand may).
        Low = "low",
        /// Worth a warning.
        Medium = "medium",
        /// Needs a change of course.
        High = "high",
        /// Needs a human, or an abort.
        Critical = "critical",
    }
}

/// One detection: upstream's `Detection`.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// `type`.
    pub kind: DetectionType,
    /// `severity`.
    pub severity: Severity,
    /// `message`: a sentence for humans.
    pub message: String,
    /// `evidence`: the supporting data, upstream's keys (see the module docs); every
    /// detector writes it, a detection built by hand may leave it out.
    pub evidence: Option<Value>,
    /// `recommendations`: suggested actions; every detector writes them.
    pub recommendations: Option<Vec<String>>,
}

/// The evidence keys the detectors write whose spellings differ (the others, `occurrences`,
/// `efficiency`, `regressions` and every nested key, are the same in both).
pub const EVIDENCE_KEYS: [Key; 12] = [
    key!("repeatedError", "repeated_error"),
    key!("avgProgressRate", "avg_progress_rate"),
    key!("recentBlockers", "recent_blockers"),
    key!("undoRedoCycles", "undo_redo_cycles"),
    key!("recentFileChanges", "recent_file_changes"),
    key!("originalObjective", "original_objective"),
    key!("deviationExamples", "deviation_examples"),
    key!("averageSimilarity", "average_similarity"),
    key!("estimatedIterations", "estimated_iterations"),
    key!("actualIterations", "actual_iterations"),
    key!("iterationRatio", "iteration_ratio"),
    key!("completionPercent", "completion_percent"),
];

const TYPE: FieldName = FieldName::same("type");
const SEVERITY: FieldName = FieldName::same("severity");
const MESSAGE: FieldName = FieldName::same("message");
const EVIDENCE: FieldName = FieldName::same("evidence");
const RECOMMENDATIONS: FieldName = FieldName::same("recommendations");
/// A detection's keys, in upstream's order.
pub const DETECTION_FIELDS: [FieldName; 5] = [TYPE, SEVERITY, MESSAGE, EVIDENCE, RECOMMENDATIONS];

/// `evidence` with its top-level keys respelled from `from` to `to` (see [`EVIDENCE_KEYS`]).
fn respelled(evidence: &Value, from: Naming, to: Naming) -> Value {
    match evidence {
        Value::Object(entries) if from != to => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let spelled = EVIDENCE_KEYS.iter().find(|key| key.spelled(from) == k).map(|key| key.spelled(to));
                out.push((spelled.unwrap_or(k).to_string(), v.clone()));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// A type error with `code` at `path`: "path must be `expected`, got ...".
fn type_error(code: ErrorCode, path: &str, expected: &str, got: Option<&Value>) -> Error {
    let got = got.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
    Error::new(code, ErrorKind::Type, path, concat(&[path, " must be ", expected, ", got ", &got]))
}

/// Refuses host values with no JSON form (functions, `undefined` in an array) inside `value`.
fn check_plain(value: &Value, path: &str, code: ErrorCode) -> Result<()> {
    match value {
        Value::Other(_) => Err(type_error(code, path, "a JSON value", Some(value))),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_plain(item, &index_path(path, i), code)?;
            }
            Ok(())
        }
        Value::Object(entries) => {
            for (k, item) in entries {
                check_plain(item, &concat(&[path, ".", k]), code)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// An array of strings at `path`.
pub(crate) fn string_list(value: &Value, path: &str, code: ErrorCode) -> Result<Vec<String>> {
    let Value::Array(items) = value else { return Err(type_error(code, path, "an array of strings", Some(value))) };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => out.push(s.clone()),
            other => return Err(type_error(code, &index_path(path, i), "a string", Some(other))),
        }
    }
    Ok(out)
}

impl Detection {
    /// Reads a detection at `root` (`detection`; inside a log, `interventionLog[2].detection`)
    /// with `code`: `type` and `severity` must be upstream's (a typo would silently log),
    /// `message` a string; `evidence`, if given, an object whose `repeatedError` (a string or
    /// null), `occurrences` (a finite number >= 0) and `originalObjective` (a string), which
    /// the interventions read, have their types; `recommendations`, if given, strings.
    pub fn from_value(value: &Value, root: &str, naming: Naming, code: ErrorCode) -> Result<Detection> {
        let reader = ObjectReader::new(value, root, root, naming, code)?;
        reader.reject_unknown(&DETECTION_FIELDS)?;
        let kind = reader.choice(TYPE, &DetectionType::NAMES)?;
        let severity = reader.choice(SEVERITY, &Severity::NAMES)?;
        let message = reader.string(MESSAGE)?.to_string();
        let evidence = match reader.get(EVIDENCE) {
            None => None,
            Some(value) => Some(Detection::read_evidence(value, &reader.path_of(EVIDENCE), naming, code)?),
        };
        let recommendations = match reader.get(RECOMMENDATIONS) {
            None => None,
            Some(value) => Some(string_list(value, &reader.path_of(RECOMMENDATIONS), code)?),
        };
        Ok(Detection {
            kind: DetectionType::parse(kind).unwrap_or(DetectionType::Stuck),
            severity: Severity::parse(severity).unwrap_or(Severity::Low),
            message,
            evidence,
            recommendations,
        })
    }

    fn read_evidence(value: &Value, path: &str, naming: Naming, code: ErrorCode) -> Result<Value> {
        let Value::Object(_) = value else { return Err(type_error(code, path, "an object", Some(value))) };
        check_plain(value, path, code)?;
        let evidence = respelled(value, naming, Naming::Js);
        if let Value::Object(entries) = &evidence {
            for (i, (k, _)) in entries.iter().enumerate() {
                if entries.iter().skip(i + 1).any(|(other, _)| other == k) {
                    let field =
                        EVIDENCE_KEYS.iter().find(|key| key.js == k).map_or(k.as_str(), |key| key.spelled(naming));
                    let at = concat(&[path, ".", field]);
                    let message = concat(&[&at, " is given twice; give it once"]);
                    return Err(Error::new(code, ErrorKind::Type, at, message));
                }
            }
        }
        let at = |key: &Key| concat(&[path, ".", key.spelled(naming)]);
        let [repeated, ..] = EVIDENCE_KEYS;
        match evidence.get(repeated.js) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => return Err(type_error(code, &at(&repeated), "a string or null", Some(other))),
        }
        if let Some(occurrences) = evidence.get("occurrences") {
            let at = concat(&[path, ".occurrences"]);
            match occurrences {
                Value::Number(n) if n.is_finite() && *n >= 0.0 => {}
                Value::Number(_) => {
                    let message = concat(&[&at, " must be a finite number >= 0, got ", &occurrences.describe()]);
                    return Err(Error::new(code, ErrorKind::Range, at, message));
                }
                other => return Err(type_error(code, &at, "a number", Some(other))),
            }
        }
        let objective = EVIDENCE_KEYS[5];
        match evidence.get(objective.js) {
            None | Some(Value::String(_)) => {}
            Some(other) => return Err(type_error(code, &at(&objective), "a string", Some(other))),
        }
        Ok(evidence)
    }

    /// The evidence with its keys spelled for `naming` (see the module docs).
    pub fn evidence_value(&self, naming: Naming) -> Option<Value> {
        self.evidence.as_ref().map(|e| respelled(e, Naming::Js, naming))
    }

    /// The detection as upstream's object: `{type, severity, message, evidence,
    /// recommendations}` (the last two when present).
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut out = ObjectBuilder::new();
        out.string("type", self.kind.as_str())
            .string("severity", self.severity.as_str())
            .string("message", &self.message);
        if let Some(evidence) = self.evidence_value(naming) {
            out.value("evidence", evidence);
        }
        if let Some(recommendations) = &self.recommendations {
            let mut items = Vec::with_capacity(recommendations.len());
            for r in recommendations {
                items.push(Value::String(r.clone()));
            }
            out.value("recommendations", Value::Array(items));
        }
        out.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, naming: Naming) -> Result<Detection> {
        let value = Value::parse_json(text, ErrorCode::InvalidDetection, "detection").unwrap_or(Value::Null);
        Detection::from_value(&value, "detection", naming, ErrorCode::InvalidDetection)
    }

    #[test]
    fn round_trips_in_both_spellings() {
        let text = r#"{"type":"stuck","severity":"high","message":"m","evidence":{"repeatedError":"E","occurrences":3,"mine":{"a":1}},"recommendations":["r"]}"#;
        let detection = read(text, Naming::Js).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(detection.to_value(Naming::Js).to_json(), text);
        let snake = detection.to_value(Naming::Snake);
        assert_eq!(snake.get("evidence").and_then(|e| e.get("repeated_error")).and_then(Value::as_str), Some("E"));
        assert_eq!(read(&snake.to_json(), Naming::Snake).ok(), Some(detection));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"type":"stuk","severity":"high","message":"m"}"#, "detection.type", "range"),
            (r#"{"type":"stuck","severity":"warning","message":"m"}"#, "detection.severity", "range"),
            (r#"{"type":"stuck","severity":"high"}"#, "detection.message", "type"),
            (r#"{"type":"stuck","severity":"high","message":"m","evidence":null}"#, "detection.evidence", "type"),
            (
                r#"{"type":"stuck","severity":"high","message":"m","evidence":{"repeatedError":4}}"#,
                "detection.evidence.repeatedError",
                "type",
            ),
            (
                r#"{"type":"stuck","severity":"high","message":"m","evidence":{"occurrences":-1}}"#,
                "detection.evidence.occurrences",
                "range",
            ),
            (
                r#"{"type":"stuck","severity":"high","message":"m","recommendations":[1]}"#,
                "detection.recommendations[0]",
                "type",
            ),
            (r#"{"type":"stuck","severity":"high","message":"m","extra":1}"#, "detection.extra", "type"),
        ];
        for (text, field, kind) in cases {
            let error = read(text, Naming::Js).err();
            assert_eq!(error.as_ref().map(|e| (e.field(), e.kind().as_str())), Some((field, kind)), "{text}");
        }
    }
}
