//! The analytics' portable snapshot: `{version, engine, config, loopId, taskDescription,
//! startTime, endTime, records}`, written and read back.

use crate::loops::analytics::config::{date_time, AnalyticsConfig, END_TIME, START_TIME};
use crate::loops::analytics::engine::{IterationAnalytics, LOOP_ID, TASK_DESCRIPTION};
use crate::loops::analytics::records::{AnalyticsInput, AnalyticsRecord};
use crate::value::{self, FieldName, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

impl IterationAnalytics {
    /// `{version, engine: "IterationAnalytics", config, loopId, taskDescription, startTime,
    /// endTime, records}` (the loop's names and times null where unset).
    pub fn to_snapshot(&self) -> Value {
        let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::string);
        Value::object(vec![
            ("version", Value::Number(crate::snapshot::VERSION as f64)),
            ("engine", Value::string("IterationAnalytics")),
            ("config", self.config.to_value(Naming::Js)),
            ("loopId", text(&self.loop_id)),
            ("taskDescription", text(&self.task_description)),
            ("startTime", text(&self.start_time)),
            ("endTime", text(&self.end_time)),
            ("records", value::array_of(&self.records, AnalyticsRecord::to_value)),
        ])
    }

    /// Restores a snapshot; the derived state is recomputed, and each stored
    /// `quality_delta` must equal the recomputed one. A restored object never saves by itself.
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, "IterationAnalytics", &SNAPSHOT_FIELDS)?;
        let config = AnalyticsConfig::default()
            .merged(
                reader.get(FieldName::same("config")).unwrap_or(&Value::Null),
                Naming::Js,
                "config",
                ErrorCode::InvalidSnapshot,
            )
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut analytics = Self::fresh(config);
        let optional_string = |field: FieldName, time: bool| -> Result<Option<String>> {
            match reader.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(_) if time => Ok(Some(date_time(&reader, field)?.to_string())),
                Some(_) => Ok(Some(reader.string(field)?.to_string())),
            }
        };
        analytics.loop_id = optional_string(LOOP_ID, false)?;
        analytics.task_description = optional_string(TASK_DESCRIPTION, false)?;
        analytics.start_time = optional_string(START_TIME, true)?;
        analytics.end_time = optional_string(END_TIME, true)?;
        let records = reader.get(FieldName::same("records"));
        analytics.load_records(records, "records", Naming::Snake, ErrorCode::InvalidSnapshot)?;
        Ok(analytics)
    }

    /// Replaces the records with stored ones (as a summary or a snapshot lists them; errors
    /// name `path[i].field`, with `code`), folding each in under the current config. Each
    /// keeps its `quality_delta`: upstream's records are plain data that its users may change
    /// (a score written afterwards leaves the deltas as they were), and its detection and
    /// trajectory read the stored deltas, so a saved summary may hold any finite ones. On an
    /// error the records are left half read: callers work on an object they discard then (a
    /// restore, or a copy).
    pub(super) fn load_records(
        &mut self,
        value: Option<&Value>,
        path: &str,
        naming: Naming,
        code: ErrorCode,
    ) -> Result<()> {
        let Some(Value::Array(items)) = value else {
            let got = value.map_or_else(|| "nothing (missing)".to_string(), Value::describe);
            return Err(Error::new(
                code,
                ErrorKind::Type,
                path,
                value::concat(&[path, " must be an array, got ", &got]),
            ));
        };
        self.reset();
        for (i, item) in items.iter().enumerate() {
            let (input, stored_delta) = AnalyticsInput::read(item, naming, &value::index_path(path, i), Some(code))?;
            let timestamp = input.timestamp.clone().unwrap_or_default();
            self.push(input, timestamp, stored_delta);
        }
        Ok(())
    }
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 8] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    LOOP_ID,
    TASK_DESCRIPTION,
    START_TIME,
    END_TIME,
    FieldName::same("records"),
];
