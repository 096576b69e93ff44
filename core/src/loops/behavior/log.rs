//! The intervention log's rules: upstream keeps the last [`LOG_LIMIT`] interventions (a
//! resumption is appended without trimming, as upstream appends it), `getLog(limit)`
//! answers the last `limit` (everything for 0, null or none: upstream's `if (limit)`), and
//! `getSummary()` counts by level and by detection type. The pause state and the callbacks
//! are the host's (the JS and Python classes keep them); the core reads them where a
//! summary or an exported state shows them.
//!
//! Entries read back (`importState`, a log the JS layer hands over) are checked as upstream
//! writes them (code `invalid_snapshot`, fields named `interventionLog[2].level`).

use crate::value::{
    concat, field_name, index_path, Error, ErrorCode, ErrorKind, FieldName, Naming, ObjectBuilder, ObjectReader,
    Result, Value, MAX_SAFE_INTEGER,
};

use super::detection::Detection;
use super::intervention::{check_timestamp, Effect, Intervention, InterventionLevel};

/// How many interventions upstream's log keeps.
pub const LOG_LIMIT: usize = 100;

/// The level of a resumption entry (upstream's `resume()` logs it).
pub const RESUME_LEVEL: &str = "resume";

/// A resumption: `{level: 'resume', reason, timestamp, previousPauseReason}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Resume {
    /// `reason`: why resuming was approved (absent when `resume()` was given none).
    pub reason: Option<String>,
    /// `timestamp`: when.
    pub timestamp: String,
    /// `previousPauseReason`: the pause reason it ended (null when there was none).
    pub previous_pause_reason: Option<String>,
}

/// One entry of the intervention log.
#[derive(Clone, Debug, PartialEq)]
pub enum LogEntry {
    /// An intervention.
    Intervention(Intervention),
    /// A resumption after a pause.
    Resume(Resume),
}

const LEVEL: FieldName = FieldName::same("level");
const REASON: FieldName = FieldName::same("reason");
const DETECTION: FieldName = FieldName::same("detection");
const TIMESTAMP: FieldName = FieldName::same("timestamp");
const ACTION: FieldName = FieldName::same("action");
const WARNING: FieldName = FieldName::same("warning");
const STRATEGY_OVERRIDE: FieldName = field_name!("strategyOverride", "strategy_override");
const REQUIRES_APPROVAL: FieldName = field_name!("requiresApproval", "requires_approval");
const ABORT_REASON: FieldName = field_name!("abortReason", "abort_reason");
const PREVIOUS_PAUSE_REASON: FieldName = field_name!("previousPauseReason", "previous_pause_reason");
const INTERVENTION_LOG: FieldName = field_name!("interventionLog", "intervention_log");
const IS_PAUSED: FieldName = field_name!("isPaused", "is_paused");
const PAUSE_REASON: FieldName = field_name!("pauseReason", "pause_reason");

const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// A string or null at `field` (required).
fn string_or_null(reader: &ObjectReader<'_>, field: FieldName) -> Result<Option<String>> {
    match reader.get(field) {
        Some(Value::Null) => Ok(None),
        _ => reader.string(field).map(|s| Some(s.to_string())),
    }
}

impl Resume {
    /// A resumption at `timestamp` (RFC 3339), ending a pause for `previous_pause_reason`.
    pub fn new(reason: Option<String>, timestamp: &str, previous_pause_reason: Option<String>) -> Result<Resume> {
        check_timestamp(timestamp, "timestamp")?;
        Ok(Resume { reason, timestamp: timestamp.to_string(), previous_pause_reason })
    }
}

impl LogEntry {
    /// The entry's level: an intervention's, or `resume`.
    pub fn level_name(&self) -> &'static str {
        match self {
            LogEntry::Intervention(i) => i.level().as_str(),
            LogEntry::Resume(_) => RESUME_LEVEL,
        }
    }

    /// The detection intervened on (none for a resumption).
    pub fn detection(&self) -> Option<&Detection> {
        match self {
            LogEntry::Intervention(i) => Some(&i.detection),
            LogEntry::Resume(_) => None,
        }
    }

    /// upstream's object for the entry.
    pub fn to_value(&self, naming: Naming) -> Value {
        match self {
            LogEntry::Intervention(i) => i.to_value(naming, true),
            LogEntry::Resume(r) => {
                let mut out = ObjectBuilder::new();
                out.string("level", RESUME_LEVEL);
                if let Some(reason) = &r.reason {
                    out.string("reason", reason);
                }
                out.string("timestamp", &r.timestamp);
                let previous = r.previous_pause_reason.as_deref().map_or(Value::Null, Value::string);
                out.value(PREVIOUS_PAUSE_REASON.spelled(naming), previous);
                out.build()
            }
        }
    }

    /// Reads an entry as upstream writes it, at `path` (`interventionLog[2]`).
    pub fn from_value(value: &Value, path: &str, naming: Naming) -> Result<LogEntry> {
        let reader = ObjectReader::new(value, path, path, naming, CODE)?;
        let mut levels: Vec<&str> = InterventionLevel::NAMES.to_vec();
        levels.push(RESUME_LEVEL);
        let level = reader.choice(LEVEL, &levels)?;
        let Some(level) = InterventionLevel::parse(level) else {
            reader.reject_unknown(&[LEVEL, REASON, TIMESTAMP, PREVIOUS_PAUSE_REASON])?;
            let reason = reader.opt_string(REASON)?.map(str::to_string);
            let timestamp = reader.string(TIMESTAMP)?;
            check_timestamp(timestamp, &reader.path_of(TIMESTAMP)).map_err(|e| e.nested(CODE, ""))?;
            let previous_pause_reason = string_or_null(&reader, PREVIOUS_PAUSE_REASON)?;
            return Ok(LogEntry::Resume(Resume { reason, timestamp: timestamp.to_string(), previous_pause_reason }));
        };
        let own: &[FieldName] = match level {
            InterventionLevel::Log => &[ACTION],
            InterventionLevel::Warn => &[WARNING],
            InterventionLevel::Redirect => &[STRATEGY_OVERRIDE],
            InterventionLevel::Pause => &[REQUIRES_APPROVAL],
            InterventionLevel::Abort => &[REQUIRES_APPROVAL, ABORT_REASON],
        };
        let mut known = vec![LEVEL, REASON, DETECTION, TIMESTAMP];
        known.extend_from_slice(own);
        reader.reject_unknown(&known)?;
        // Absent when the detection has no message (upstream's `reason: undefined`).
        let reason = reader.opt_string(REASON)?.map(str::to_string);
        let detection_value = reader.get(DETECTION).unwrap_or(&Value::Null);
        let detection_path = reader.path_of(DETECTION);
        let detection = match detection_value {
            Value::Null => {
                let message = concat(&[&detection_path, " must be an object, got ", &detection_value.describe()]);
                return Err(Error::new(CODE, ErrorKind::Type, detection_path, message));
            }
            value => Detection::from_value(value, &detection_path, naming, CODE)?,
        };
        let timestamp = reader.string(TIMESTAMP)?.to_string();
        check_timestamp(&timestamp, &reader.path_of(TIMESTAMP)).map_err(|e| e.nested(CODE, ""))?;
        let text = |field| reader.string(field).map(str::to_string);
        let effect = match level {
            InterventionLevel::Log => Effect::Log { action: text(ACTION)? },
            InterventionLevel::Warn => Effect::Warn { warning: text(WARNING)? },
            InterventionLevel::Redirect => Effect::Redirect { strategy_override: text(STRATEGY_OVERRIDE)? },
            InterventionLevel::Pause => Effect::Pause { requires_approval: reader.boolean(REQUIRES_APPROVAL)? },
            InterventionLevel::Abort => Effect::Abort {
                requires_approval: reader.boolean(REQUIRES_APPROVAL)?,
                abort_reason: reader.opt_string(ABORT_REASON)?.map(str::to_string),
            },
        };
        Ok(LogEntry::Intervention(Intervention { reason, detection, timestamp, effect }))
    }
}

/// `getLog(limit)`: the index of the first entry answered out of `len`. `limit` is a
/// positive integer (the last `limit` entries), or 0, null or absent (everything: upstream's
/// `if (limit)`); anything else is refused (`invalid_config`, field `limit`).
pub fn log_start(len: usize, limit: &Value) -> Result<usize> {
    let limit = match limit {
        Value::Null => 0,
        Value::Other(t) if t == "undefined" => 0,
        Value::Number(n) if n.is_finite() && n.fract() == 0.0 && *n >= 0.0 && *n <= MAX_SAFE_INTEGER as f64 => {
            *n as u64
        }
        Value::Number(_) => {
            let message = concat(&["limit must be an integer >= 0, got ", &limit.describe()]);
            return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "limit", message));
        }
        other => {
            let message = concat(&["limit must be an integer, got ", &other.describe()]);
            return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Type, "limit", message));
        }
    };
    Ok(if limit == 0 { 0 } else { len.saturating_sub(usize::try_from(limit).unwrap_or(usize::MAX)) })
}

/// upstream's `getSummary()`: `{total, byLevel, byType, isPaused, pauseReason}`.
#[derive(Clone, Debug, PartialEq)]
pub struct InterventionSummary {
    /// `total`: entries in the log.
    pub total: u64,
    /// `byLevel`: entries per level (`resume` included), in the order levels first occur.
    pub by_level: Vec<(String, u64)>,
    /// `byType`: interventions per detection type, in the order types first occur.
    pub by_type: Vec<(String, u64)>,
    /// `isPaused`: the host's pause state.
    pub is_paused: bool,
    /// `pauseReason`: the host's pause reason.
    pub pause_reason: Option<String>,
}

fn count(counts: &mut Vec<(String, u64)>, name: &str) {
    match counts.iter_mut().find(|(n, _)| n == name) {
        Some((_, c)) => *c += 1,
        None => counts.push((name.to_string(), 1)),
    }
}

fn counts_value(counts: &[(String, u64)]) -> Value {
    let mut out = Vec::with_capacity(counts.len());
    for (name, c) in counts {
        out.push((name.clone(), Value::Number(*c as f64)));
    }
    Value::Object(out)
}

/// The counts of a summary read back (`byLevel`, `byType`): names and non-negative integers.
fn counts_of(reader: &ObjectReader<'_>, field: FieldName) -> Result<Vec<(String, u64)>> {
    let path = reader.path_of(field);
    let Some(Value::Object(entries)) = reader.get(field) else {
        let got = reader.get(field).map_or_else(|| "nothing (missing)".to_string(), Value::describe);
        let message = concat(&[&path, " must be an object, got ", &got]);
        return Err(Error::new(CODE, ErrorKind::Type, path, message));
    };
    let mut out = Vec::with_capacity(entries.len());
    for (name, count) in entries {
        let at = concat(&[&path, ".", name]);
        let count = crate::value::integer_argument(count, &at, CODE, 0, MAX_SAFE_INTEGER)?;
        out.push((name.clone(), count));
    }
    Ok(out)
}

impl InterventionSummary {
    /// A summary read back from [`InterventionSummary::to_value`]'s object (Python's pickles).
    pub fn from_value(value: &Value, naming: Naming) -> Result<InterventionSummary> {
        let reader = ObjectReader::new(value, "", "summary", naming, CODE)?;
        let (by_level, by_type) = (field_name!("byLevel", "by_level"), field_name!("byType", "by_type"));
        reader.reject_unknown(&[FieldName::same("total"), by_level, by_type, IS_PAUSED, PAUSE_REASON])?;
        Ok(InterventionSummary {
            total: reader.integer(FieldName::same("total"), 0, MAX_SAFE_INTEGER)?,
            by_level: counts_of(&reader, by_level)?,
            by_type: counts_of(&reader, by_type)?,
            is_paused: reader.boolean(IS_PAUSED)?,
            pause_reason: string_or_null(&reader, PAUSE_REASON)?,
        })
    }

    /// upstream's object, keys spelled for `naming`.
    pub fn to_value(&self, naming: Naming) -> Value {
        let snake = naming == Naming::Snake;
        let mut out = ObjectBuilder::new();
        out.number("total", self.total as f64)
            .value(if snake { "by_level" } else { "byLevel" }, counts_value(&self.by_level))
            .value(if snake { "by_type" } else { "byType" }, counts_value(&self.by_type))
            .boolean(IS_PAUSED.spelled(naming), self.is_paused)
            .value(PAUSE_REASON.spelled(naming), self.pause_reason.as_deref().map_or(Value::Null, Value::string));
        out.build()
    }
}

/// upstream's log: entries oldest first, at most [`LOG_LIMIT`] after each intervention.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterventionLog {
    entries: Vec<LogEntry>,
}

impl InterventionLog {
    /// An empty log.
    pub fn new() -> Self {
        InterventionLog::default()
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Appends an intervention, then keeps the last [`LOG_LIMIT`] entries (upstream's order).
    pub fn record(&mut self, intervention: Intervention) {
        self.entries.push(LogEntry::Intervention(intervention));
        if self.entries.len() > LOG_LIMIT {
            self.entries.drain(..self.entries.len() - LOG_LIMIT);
        }
    }

    /// Appends a resumption (not trimmed: upstream trims only when it intervenes).
    pub fn record_resume(&mut self, resume: Resume) {
        self.entries.push(LogEntry::Resume(resume));
    }

    /// `getLog(limit)` (see [`log_start`]).
    pub fn tail(&self, limit: &Value) -> Result<&[LogEntry]> {
        let start = log_start(self.entries.len(), limit)?;
        Ok(self.entries.get(start..).unwrap_or_default())
    }

    /// Empties the log (`clearLog()`, `reset()`).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// `getSummary()` of these entries with the host's pause state.
    pub fn summary(&self, is_paused: bool, pause_reason: Option<&str>) -> InterventionSummary {
        summarize(&self.entries, is_paused, pause_reason)
    }

    /// The entries as upstream's objects.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut out = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            out.push(entry.to_value(naming));
        }
        Value::Array(out)
    }

    /// Reads a log (an array of entries) at `path` (`interventionLog`), kept whole (upstream
    /// trims at its next intervention).
    pub fn from_value(value: &Value, path: &str, naming: Naming) -> Result<InterventionLog> {
        let Value::Array(items) = value else {
            let message = concat(&[path, " must be an array of log entries, got ", &value.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, path, message));
        };
        let mut entries = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            entries.push(LogEntry::from_value(item, &index_path(path, i), naming)?);
        }
        Ok(InterventionLog { entries })
    }
}

/// `getSummary()` over `entries`.
pub fn summarize(entries: &[LogEntry], is_paused: bool, pause_reason: Option<&str>) -> InterventionSummary {
    let mut by_level = Vec::new();
    let mut by_type = Vec::new();
    for entry in entries {
        count(&mut by_level, entry.level_name());
        if let Some(detection) = entry.detection() {
            count(&mut by_type, &detection.kind);
        }
    }
    InterventionSummary {
        total: entries.len() as u64,
        by_level,
        by_type,
        is_paused,
        pause_reason: pause_reason.map(str::to_string),
    }
}

/// `getSummary()` over a log as a host holds it, entries as the caller left them (the JS
/// drop-in keeps upstream's plain array, which callers may fill themselves): reads only what
/// upstream's summary reads, each entry's `level` (text) and, when the entry has a
/// `detection` (absent or null: none), its `type` (text); anything else in an entry is not
/// read. Refused (`invalid_snapshot`): a log that is not an array, an entry that is not an
/// object, a level or type that is missing or not text, a detection that is not an object
/// (upstream would break on the first two and count the others under `"undefined"`).
pub fn summarize_value(
    log: &Value,
    path: &str,
    is_paused: bool,
    pause_reason: Option<&str>,
) -> Result<InterventionSummary> {
    let Value::Array(items) = log else {
        let message = concat(&[path, " must be an array of log entries, got ", &log.describe()]);
        return Err(Error::new(CODE, ErrorKind::Type, path, message));
    };
    let text_at = |value: Option<&Value>, at: String| match value {
        Some(Value::String(s)) => Ok(s.clone()),
        other => {
            let got = other.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            let message = concat(&[&at, " must be a string, got ", &got]);
            Err(Error::new(CODE, ErrorKind::Type, at, message))
        }
    };
    let (mut by_level, mut by_type) = (Vec::new(), Vec::new());
    for (i, item) in items.iter().enumerate() {
        let at = index_path(path, i);
        let Value::Object(_) = item else {
            let message = concat(&[&at, " must be an object, got ", &item.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, at, message));
        };
        count(&mut by_level, &text_at(item.get("level"), concat(&[&at, ".level"]))?);
        match item.get("detection") {
            None | Some(Value::Null) => {}
            Some(detection @ Value::Object(_)) => {
                count(&mut by_type, &text_at(detection.get("type"), concat(&[&at, ".detection.type"]))?);
            }
            Some(other) => {
                let field = concat(&[&at, ".detection"]);
                let message = concat(&[&field, " must be an object or null, got ", &other.describe()]);
                return Err(Error::new(CODE, ErrorKind::Type, field, message));
            }
        }
    }
    Ok(InterventionSummary {
        total: items.len() as u64,
        by_level,
        by_type,
        is_paused,
        pause_reason: pause_reason.map(str::to_string),
    })
}

/// The host's pause state as its public fields hold it (`isPaused`, a boolean;
/// `pauseReason`, a string, null or undefined), checked (`invalid_snapshot`).
pub fn pause_state(is_paused: &Value, pause_reason: &Value, naming: Naming) -> Result<(bool, Option<String>)> {
    let paused = match is_paused {
        Value::Bool(b) => *b,
        other => {
            let field = IS_PAUSED.spelled(naming);
            let message = concat(&[field, " must be a boolean, got ", &other.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, field, message));
        }
    };
    let reason = match pause_reason {
        // undefined: a pause for a detection without a message (upstream's `pauseReason`).
        Value::Null => None,
        Value::Other(t) if t == "undefined" => None,
        Value::String(s) => Some(s.clone()),
        other => {
            let field = PAUSE_REASON.spelled(naming);
            let message = concat(&[field, " must be a string or null, got ", &other.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, field, message));
        }
    };
    Ok((paused, reason))
}

/// What `importState(state)` takes over, as upstream takes it: the log when given (an array,
/// even empty), `isPaused` when given, `pauseReason` only when it is a non-empty string
/// (upstream's `if (state.pauseReason)`; a null or empty reason leaves the current one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateImport {
    /// The log to take over.
    pub log: Option<InterventionLog>,
    /// The pause flag to take over.
    pub is_paused: Option<bool>,
    /// The pause reason to take over.
    pub pause_reason: Option<String>,
}

impl StateImport {
    /// Reads `state` (`{interventionLog, isPaused, pauseReason}`, each optional; unknown keys
    /// refused; code `invalid_snapshot`, fields named from the state's root).
    pub fn from_value(state: &Value, naming: Naming) -> Result<StateImport> {
        let reader = ObjectReader::new(state, "", "state", naming, CODE)?;
        reader.reject_unknown(&[INTERVENTION_LOG, IS_PAUSED, PAUSE_REASON])?;
        let log = match reader.get(INTERVENTION_LOG) {
            None => None,
            Some(value) => Some(InterventionLog::from_value(value, &reader.path_of(INTERVENTION_LOG), naming)?),
        };
        let is_paused = match reader.get(IS_PAUSED) {
            None => None,
            Some(_) => Some(reader.boolean(IS_PAUSED)?),
        };
        let pause_reason = match reader.get(PAUSE_REASON) {
            None => None,
            Some(_) => string_or_null(&reader, PAUSE_REASON)?.filter(|r| !r.is_empty()),
        };
        Ok(StateImport { log, is_paused, pause_reason })
    }
}

/// What `importState(state)` takes over for a host that keeps the log as the caller's own
/// array (the JS drop-in, as upstream): `(take the log, isPaused, pauseReason)`, read as
/// [`StateImport::from_value`] reads them except the log's entries, which upstream does not
/// read when it imports (the log must be an array: upstream's next intervention pushes onto it).
pub fn import_keeping_log(state: &Value, naming: Naming) -> Result<(bool, Option<bool>, Option<String>)> {
    let reader = ObjectReader::new(state, "", "state", naming, CODE)?;
    let take_log = match reader.get(INTERVENTION_LOG) {
        None => false,
        Some(Value::Array(_)) => true,
        Some(other) => {
            let path = reader.path_of(INTERVENTION_LOG);
            let message = concat(&[&path, " must be an array of log entries, got ", &other.describe()]);
            return Err(Error::new(CODE, ErrorKind::Type, path, message));
        }
    };
    let mut flags = state.clone();
    if let Value::Object(entries) = &mut flags {
        entries.retain(|(k, _)| !reader.spells(&INTERVENTION_LOG, k));
    }
    let read = StateImport::from_value(&flags, naming)?;
    Ok((take_log, read.is_paused, read.pause_reason))
}

/// `exportState()`: `{interventionLog, isPaused, pauseReason}`, keys spelled for `naming`.
pub fn export_state(log: &InterventionLog, is_paused: bool, pause_reason: Option<&str>, naming: Naming) -> Value {
    let mut out = ObjectBuilder::new();
    out.value(INTERVENTION_LOG.spelled(naming), log.to_value(naming))
        .boolean(IS_PAUSED.spelled(naming), is_paused)
        .value(PAUSE_REASON.spelled(naming), pause_reason.map_or(Value::Null, Value::string));
    out.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::behavior::detection::{DetectionType, Severity};

    fn intervention(severity: Severity) -> Intervention {
        let detection = Detection {
            kind: DetectionType::Regression.as_str().to_string(),
            severity: Some(severity.as_str().to_string()),
            message: Some("m".to_string()),
            evidence: None,
            recommendations: None,
            others: Vec::new(),
        };
        Intervention::new(detection, "2026-01-01T00:00:00.000Z", "detection").unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_log_keeps_the_last_hundred_and_counts() {
        let mut log = InterventionLog::new();
        for i in 0..150 {
            log.record(intervention(if i % 2 == 0 { Severity::Low } else { Severity::Critical }));
        }
        log.record_resume(
            Resume::new(None, "2026-01-01T00:00:00Z", Some("p".into())).unwrap_or_else(|e| panic!("{e}")),
        );
        assert_eq!(log.entries().len(), 101);
        let summary = log.summary(false, None).to_value(Naming::Js).to_json();
        assert_eq!(
            summary,
            r#"{"total":101,"byLevel":{"log":50,"abort":50,"resume":1},"byType":{"regression":100},"isPaused":false,"pauseReason":null}"#
        );
        assert_eq!(log.tail(&Value::Number(0.0)).map(<[_]>::len).ok(), Some(101));
        assert_eq!(log.tail(&Value::Number(3.0)).map(<[_]>::len).ok(), Some(3));
        assert_eq!(log.tail(&Value::Number(-1.0)).err().map(|e| e.field().to_string()).as_deref(), Some("limit"));
        let back = InterventionLog::from_value(&log.to_value(Naming::Snake), "interventionLog", Naming::Snake);
        assert_eq!(back.as_ref().ok(), Some(&log));
    }
}
