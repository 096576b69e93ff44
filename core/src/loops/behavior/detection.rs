//! A detection ([`Detection`]): what a detector found (upstream's `Detection` typedef:
//! `type`, `severity`, `message`, `evidence`, `recommendations`), and the reading of one
//! handed to the intervention system (code `invalid_detection`).
//!
//! A detection handed in is read as upstream's intervention system reads it, and refused only
//! where upstream would break on it: `determineLevel` reads `severity` and `type` and takes
//! its default branch for any other text (a type it does not know, no severity: log), so any
//! text is a type or a severity; `message` may be left out (the intervention then has no
//! `reason`) except where a warning quotes it; keys upstream never reads are kept as they
//! are. What is refused: a type that is not text or is missing (upstream's summary would count
//! it under `"undefined"`), a severity or message that is not text, and the fields
//! upstream's texts read with a shape that breaks them (see [`Detection::from_value`]).
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
    /// `type`: one of [`DetectionType`]'s names for every detector's detection; a detection
    /// built by hand may carry any text (upstream's texts then take their default branch).
    pub kind: String,
    /// `severity`: one of [`Severity`]'s names for every detector's detection; a detection
    /// built by hand may carry any text or none (then it is logged, as upstream's default).
    pub severity: Option<String>,
    /// `message`: a sentence for humans; every detector writes it, a detection built by hand
    /// may leave it out (its intervention then has no `reason`).
    pub message: Option<String>,
    /// `evidence`: the supporting data, upstream's keys (see the module docs); every
    /// detector writes it, a detection built by hand may leave it out.
    pub evidence: Option<Value>,
    /// `recommendations`: suggested actions; every detector writes them.
    pub recommendations: Option<Vec<String>>,
    /// The keys upstream never reads, as given (JSON values), in the caller's order.
    pub others: Vec<(String, Value)>,
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
    /// The type, when it is one of upstream's five.
    pub fn detection_type(&self) -> Option<DetectionType> {
        DetectionType::parse(&self.kind)
    }

    /// The severity, when it is one of upstream's four.
    pub fn severity_level(&self) -> Option<Severity> {
        self.severity.as_deref().and_then(Severity::parse)
    }

    /// Reads a detection at `root` (`detection`; inside a log, `interventionLog[2].detection`)
    /// with `code`, as upstream's intervention system reads it (see the module docs): `type`
    /// text (any: one upstream does not know takes its default branch); `severity` text or
    /// absent (or null: upstream's default, log); `message` text or absent; `evidence`, if
    /// given and not null, an object whose `repeatedError` (a string or null), `occurrences`
    /// (a finite number >= 0) and `originalObjective` (a string), which the interventions
    /// read, have their types; `recommendations`, if given and not null, strings; any other
    /// key is kept as it is (a JSON value).
    pub fn from_value(value: &Value, root: &str, naming: Naming, code: ErrorCode) -> Result<Detection> {
        let reader = ObjectReader::new(value, root, root, naming, code)?;
        let Value::Object(entries) = value else { return Err(type_error(code, root, "an object", Some(value))) };
        let text = |field: FieldName, required: bool| -> Result<Option<String>> {
            match reader.get(field) {
                None if !required => Ok(None),
                Some(Value::Null) if !required && field != MESSAGE => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                other => Err(type_error(code, &reader.path_of(field), "a string", other)),
            }
        };
        let kind = text(TYPE, true)?.unwrap_or_default();
        let severity = text(SEVERITY, false)?;
        let message = text(MESSAGE, false)?;
        let evidence = match reader.get(EVIDENCE) {
            None | Some(Value::Null) => None,
            Some(value) => Some(Detection::read_evidence(value, &reader.path_of(EVIDENCE), naming, code)?),
        };
        let recommendations = match reader.get(RECOMMENDATIONS) {
            None | Some(Value::Null) => None,
            Some(value) => Some(string_list(value, &reader.path_of(RECOMMENDATIONS), code)?),
        };
        let mut others = Vec::new();
        for (k, v) in entries {
            // A null evidence or recommendations is none, kept as given (upstream hands back
            // the caller's object).
            let null_kept =
                matches!(v, Value::Null) && (reader.spells(&EVIDENCE, k) || reader.spells(&RECOMMENDATIONS, k));
            if null_kept || !DETECTION_FIELDS.iter().any(|f| reader.spells(f, k)) {
                check_plain(v, &concat(&[root, ".", k]), code)?;
                others.push((k.clone(), v.clone()));
            }
        }
        Ok(Detection { kind, severity, message, evidence, recommendations, others })
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
    /// recommendations}` (each but the type when present), then the other keys as given.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut out = ObjectBuilder::new();
        out.string("type", &self.kind);
        if let Some(severity) = &self.severity {
            out.string("severity", severity);
        }
        if let Some(message) = &self.message {
            out.string("message", message);
        }
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
        for (k, v) in &self.others {
            out.value(k, v.clone());
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
    fn reads_what_upstream_reads_and_keeps_the_rest() {
        // upstream's own tests: any text as the type or severity, no severity, no message.
        let loose =
            read(r#"{"type":"info","owner":"ci","seen":[1,{"a":null}]}"#, Naming::Js).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((loose.kind.as_str(), loose.severity.as_deref(), loose.message.as_deref()), ("info", None, None));
        assert_eq!((loose.detection_type(), loose.severity_level()), (None, None));
        assert_eq!(loose.to_value(Naming::Js).to_json(), r#"{"type":"info","owner":"ci","seen":[1,{"a":null}]}"#);
        let any = read(r#"{"severity":"warning","type":"any","evidence":null,"recommendations":null}"#, Naming::Snake)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (any.severity.as_deref(), any.evidence.is_none(), any.recommendations.is_none()),
            (Some("warning"), true, true)
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"severity":"high","message":"m"}"#, "detection.type", "type"),
            (r#"{"type":5,"severity":"high","message":"m"}"#, "detection.type", "type"),
            (r#"{"type":"stuck","severity":3,"message":"m"}"#, "detection.severity", "type"),
            (r#"{"type":"stuck","severity":"high","message":null}"#, "detection.message", "type"),
            (r#"{"type":"stuck","severity":"high","message":"m","evidence":[]}"#, "detection.evidence", "type"),
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
        ];
        for (text, field, kind) in cases {
            let error = read(text, Naming::Js).err();
            assert_eq!(error.as_ref().map(|e| (e.field(), e.kind().as_str())), Some((field, kind)), "{text}");
        }
    }
}
