//! What the analytics records: what `recordIteration` takes ([`AnalyticsInput`]) and the
//! record it keeps ([`AnalyticsRecord`]), written and read back.

use crate::loops::analytics::config::date_time;
use crate::loops::{ResourceUsage, VerificationStatus};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const ITERATION_NUMBER: FieldName = FieldName::same("iteration_number");

const TIMESTAMP: FieldName = FieldName::same("timestamp");

const QUALITY_SCORE: FieldName = FieldName::same("quality_score");

const QUALITY_DELTA: FieldName = FieldName::same("quality_delta");

const VERIFICATION_STATUS: FieldName = FieldName::same("verification_status");

const OUTPUT_SNAPSHOT_PATH: FieldName = FieldName::same("output_snapshot_path");

const REFLECTIONS: FieldName = FieldName::same("reflections");

/// A record's keys, in upstream's record order (the order of the object literal upstream's
/// `recordIteration` builds, where an absent field is a key holding `undefined`).
pub const RECORD_FIELDS: [FieldName; 10] = [
    ITERATION_NUMBER,
    TIMESTAMP,
    QUALITY_SCORE,
    QUALITY_DELTA,
    FieldName::same("tokens_used"),
    FieldName::same("token_cost_usd"),
    FieldName::same("execution_time_ms"),
    VERIFICATION_STATUS,
    OUTPUT_SNAPSHOT_PATH,
    REFLECTIONS,
];

/// A record's `output_snapshot_path`: upstream copies whatever it was given; a string, `null`
/// (aiwg's own callers pass it) or nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum SnapshotPath {
    /// Not given (the key is absent from the record).
    #[default]
    Absent,
    /// Given as `null`.
    Null,
    /// A path.
    Path(String),
}

/// One analytics record, as upstream's `recordIteration` builds it (`quality_delta` is
/// computed when recorded, not reported).
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsRecord {
    /// The iteration number.
    pub iteration_number: u64,
    /// When it was recorded: RFC 3339, the caller's or the binding's clock.
    pub timestamp: String,
    /// 0..=100.
    pub quality_score: f64,
    /// This score minus the previous one when recorded (0 for the first); a stored record
    /// (a snapshot, a saved summary, an assigned history) keeps the delta it holds.
    pub quality_delta: f64,
    /// Optional resource figures.
    pub usage: ResourceUsage,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
    /// Where the iteration's output was saved, if given.
    pub output_snapshot_path: SnapshotPath,
    /// Reflection notes (empty when none were given).
    pub reflections: Vec<String>,
}

impl AnalyticsRecord {
    /// The record as `recordIteration` returns it, upstream's keys in its order; absent
    /// optional fields are absent (upstream's `undefined`).
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.number("iteration_number", self.iteration_number as f64)
            .string("timestamp", &self.timestamp)
            .number("quality_score", self.quality_score)
            .number("quality_delta", self.quality_delta)
            .some_number("tokens_used", self.usage.tokens_used)
            .some_number("token_cost_usd", self.usage.token_cost_usd)
            .some_number("execution_time_ms", self.usage.execution_time_ms)
            .string("verification_status", self.verification_status.as_str());
        match &self.output_snapshot_path {
            SnapshotPath::Absent => {}
            SnapshotPath::Null => {
                o.value("output_snapshot_path", Value::Null);
            }
            SnapshotPath::Path(p) => {
                o.string("output_snapshot_path", p);
            }
        }
        let reflections = value::array_of(&self.reflections, |r| Value::string(r.as_str()));
        o.value("reflections", reflections).build()
    }
}

impl AnalyticsRecord {
    /// Reads a record as [`AnalyticsRecord::to_value`] writes it (the analytics snapshot's
    /// record fields; `quality_delta` is required and kept as written: a stored record's
    /// delta is its own, any finite number, as in a saved summary).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let (input, quality_delta) =
            AnalyticsInput::read(value, Naming::Snake, path, Some(ErrorCode::InvalidSnapshot))?;
        let quality_delta = quality_delta.unwrap_or_default();
        let AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage,
            timestamp,
            output_snapshot_path,
            reflections,
        } = input;
        Ok(AnalyticsRecord {
            iteration_number,
            timestamp: timestamp.unwrap_or_default(),
            quality_score,
            quality_delta,
            usage,
            verification_status,
            output_snapshot_path,
            reflections,
        })
    }
}

/// What `recordIteration` takes.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyticsInput {
    /// Integer >= 1.
    pub iteration_number: u64,
    /// 0..=100.
    pub quality_score: f64,
    /// Verification outcome.
    pub verification_status: VerificationStatus,
    /// Optional resource figures (finite, >= 0).
    pub usage: ResourceUsage,
    /// RFC 3339; `None` lets the binding's clock fill it (the core has none).
    pub timestamp: Option<String>,
    /// Where the iteration's output was saved.
    pub output_snapshot_path: SnapshotPath,
    /// Reflection notes.
    pub reflections: Vec<String>,
}

impl AnalyticsInput {
    /// A record with the three required fields and nothing else.
    pub fn new(iteration_number: u64, quality_score: f64, verification_status: VerificationStatus) -> Self {
        AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage: ResourceUsage::default(),
            timestamp: None,
            output_snapshot_path: SnapshotPath::Absent,
            reflections: Vec::new(),
        }
    }

    /// The input as a `recordIteration` argument.
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.number("iteration_number", self.iteration_number as f64);
        if let Some(t) = &self.timestamp {
            o.string("timestamp", t);
        }
        o.number("quality_score", self.quality_score)
            .some_number("tokens_used", self.usage.tokens_used)
            .some_number("token_cost_usd", self.usage.token_cost_usd)
            .some_number("execution_time_ms", self.usage.execution_time_ms)
            .string("verification_status", self.verification_status.as_str());
        match &self.output_snapshot_path {
            SnapshotPath::Absent => {}
            SnapshotPath::Null => {
                o.value("output_snapshot_path", Value::Null);
            }
            SnapshotPath::Path(p) => {
                o.string("output_snapshot_path", p);
            }
        }
        if !self.reflections.is_empty() {
            o.value("reflections", value::array_of(&self.reflections, |r| Value::string(r.as_str())));
        }
        o.build()
    }

    /// Parses and validates a `recordIteration` argument. `quality_delta` may be given (as
    /// upstream's records carry it) and must be a finite number; it is recomputed, as
    /// upstream does.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        Ok(Self::read(value, naming, "", None)?.0)
    }

    /// Reads a record; `stored` = a stored record (in a snapshot, a saved summary, or put
    /// into upstream's `iterations` by its user), whose problems are that code
    /// (`invalid_snapshot`, or `invalid_result` for a write), and whose `timestamp`,
    /// `quality_delta` and `reflections` are required. Returns the input and the
    /// `quality_delta` given, if any.
    pub(crate) fn read(
        value: &Value,
        naming: Naming,
        path: &str,
        stored: Option<ErrorCode>,
    ) -> Result<(Self, Option<f64>)> {
        let code = stored.unwrap_or(ErrorCode::InvalidResult);
        let stored = stored.is_some();
        let reader = ObjectReader::new(value, path, "record", naming, code)?;
        reader.reject_unknown(&RECORD_FIELDS)?;
        let iteration_number = match value.get(ITERATION_NUMBER.js()) {
            Some(n) if !stored => {
                value::integer_argument(n, "iteration_number", ErrorCode::InvalidIteration, 1, MAX_SAFE_INTEGER)?
            }
            _ if !stored => {
                return Err(Error::new(
                    ErrorCode::InvalidIteration,
                    ErrorKind::Type,
                    "iteration_number",
                    "iteration_number must be an integer, got nothing (missing)",
                ))
            }
            _ => reader.integer(ITERATION_NUMBER, 1, MAX_SAFE_INTEGER)?,
        };
        let quality_score = reader.number(QUALITY_SCORE, 0.0, 100.0)?;
        let status = reader.choice(VERIFICATION_STATUS, &VerificationStatus::NAMES)?;
        let verification_status = VerificationStatus::parse(status).unwrap_or(VerificationStatus::Skipped);
        // The same three optional figures, read as an iteration result reads them (one copy).
        let usage = ResourceUsage::read(&reader)?;
        let output_snapshot_path = match reader.get(OUTPUT_SNAPSHOT_PATH) {
            None => SnapshotPath::Absent,
            Some(Value::Null) => SnapshotPath::Null,
            Some(_) => SnapshotPath::Path(reader.string(OUTPUT_SNAPSHOT_PATH)?.to_string()),
        };
        let reflections = match reader.get(REFLECTIONS) {
            None if !stored => Vec::new(),
            other => string_list(other, &reader.path_of(REFLECTIONS), code)?,
        };
        let quality_delta = if stored || reader.get(QUALITY_DELTA).is_some() {
            Some(reader.number(QUALITY_DELTA, f64::MIN, f64::MAX)?)
        } else {
            None
        };
        let timestamp = if stored || reader.get(TIMESTAMP).is_some() {
            Some(date_time(&reader, TIMESTAMP)?.to_string())
        } else {
            None
        };
        let input = AnalyticsInput {
            iteration_number,
            quality_score,
            verification_status,
            usage,
            timestamp,
            output_snapshot_path,
            reflections,
        };
        Ok((input, quality_delta))
    }
}

/// An array of strings (`reflections`), each element's error named by its index.
fn string_list(value: Option<&Value>, path: &str, code: ErrorCode) -> Result<Vec<String>> {
    let type_error = |field: &str, expected: &str, got: Option<&Value>| {
        let got = got.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
        Error::new(code, ErrorKind::Type, field, value::concat(&[field, " must be ", expected, ", got ", &got]))
    };
    let Some(Value::Array(items)) = value else {
        return Err(type_error(path, "an array of strings", value));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::String(s) => out.push(s.clone()),
            other => return Err(type_error(&value::index_path(path, i), "a string", Some(other))),
        }
    }
    Ok(out)
}

/// Checks one record written into upstream's `iterations` (pushed, assigned by index, or a
/// field of one changed): a record as a summary lists it, problems `invalid_result` (an
/// unknown key `unknown_option`) named `path.field` (`iterations[3].quality_score`).
pub fn check_written_record(record: &Value, path: &str, naming: Naming) -> Result<()> {
    AnalyticsInput::read(record, naming, path, Some(ErrorCode::InvalidResult)).map(|_| ())
}
