//! The owning engine's portable snapshot: `{version, engine, config, history,
//! stoppingReason, stoppingDetails}`, then `policy` (the stop policy, in its normalized
//! JSON form) and `policyArtifact` (the digest of the calibration artifact it came from)
//! only when the engine has them, so a default snapshot is unchanged. Written, read back and
//! normalized.

use crate::loops::config::EarlyStoppingConfig;
use crate::loops::details::StoppingDetails;
use crate::loops::engine::EarlyStopping;
use crate::loops::policy::StopPolicy;
use crate::loops::records::IterationRecord;
use crate::loops::replay::LoopPolicy;
use crate::loops::state::{fold, LoopTally};
use crate::value::{self, FieldName, Naming, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// Snapshot format version written by [`EarlyStopping::to_snapshot`].
pub const SNAPSHOT_VERSION: u64 = 1;

/// The `engine` name of this engine's snapshot.
pub const SNAPSHOT_ENGINE: &str = "EarlyStopping";

impl EarlyStopping {
    /// The portable snapshot: `{version, engine, config, history, stoppingReason,
    /// stoppingDetails}`, plus `policy` and `policyArtifact` when set.
    pub fn to_snapshot(&self) -> Value {
        self.normalized(self.policy().map(StopPolicy::to_value))
    }

    /// What `EarlyStopping::new(config)?.to_snapshot()` gives for a valid `config`, without
    /// building an engine (the JS layer caches a fresh engine's snapshot once).
    pub fn fresh_snapshot(config: &EarlyStoppingConfig) -> Value {
        snapshot_value(config, &[], None, None)
    }

    /// Restores a snapshot, validating everything (code `invalid_snapshot`, field = path;
    /// the policy's as `policy.any[1].patience`).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let (mut engine, policy) = Self::read_snapshot(snapshot)?;
        if let Some(policy) = policy {
            engine.set_policy(Some(LoopPolicy::engine_policy_as(policy, Naming::Js, ErrorCode::InvalidSnapshot)?));
        }
        let EarlyStopping { config, history, counters, window, .. } = &mut engine;
        for record in history.iter() {
            fold(config, counters, window, record.observation, record.usage.as_deref());
        }
        Ok(engine)
    }

    /// The snapshot [`from_snapshot`](Self::from_snapshot) then
    /// [`to_snapshot`](Self::to_snapshot) give (validated, normalized), without folding the
    /// history into a decision state: for bindings that keep the loop's state themselves
    /// (the JS layer's `EarlyStopping.fromJSON`), so the size-budgeted WebAssembly module
    /// needs none of the owning engine's state code. The `policy` key is passed on as
    /// given: that binding reads it with [`restored_policy_value`](crate::loops::policy::restored_policy_value)
    /// (the policy reader lives in the replay module, not in the engines module).
    pub fn normalize_snapshot(snapshot: &Value) -> Result<Value> {
        Self::read_snapshot(snapshot).map(|(engine, policy)| engine.normalized(policy.cloned()))
    }

    /// [`normalize_snapshot`](Self::normalize_snapshot) of a snapshot given whole: the
    /// value read is freed before the normalized one is built, so at most one of the two
    /// trees (each up to 16 times the snapshot's text) is alive at a time, which keeps a
    /// snapshot at the size limits within a WebAssembly instance's memory.
    pub fn normalize_snapshot_owned(snapshot: Value) -> Result<Value> {
        let (engine, policy) = Self::read_snapshot(&snapshot)?;
        let policy = policy.cloned();
        drop(snapshot);
        Ok(engine.normalized(policy))
    }

    /// The snapshot with `policy` as its policy key (if any).
    fn normalized(&self, policy: Option<Value>) -> Value {
        let mut snapshot = snapshot_value(
            &self.config,
            &self.history,
            self.stopping_reason.as_deref(),
            self.stopping_details.as_ref(),
        );
        add_policy(&mut snapshot, policy, self.policy_artifact.as_deref());
        snapshot
    }

    /// Reads and validates a snapshot into an engine whose counters and window are still
    /// empty (the callers above fold the history in, or only write it back out), and the
    /// snapshot's policy as given (not read yet).
    fn read_snapshot(snapshot: &Value) -> Result<(Self, Option<&Value>)> {
        let reader = crate::snapshot::open(snapshot, SNAPSHOT_ENGINE, &SNAPSHOT_FIELDS)?;
        let config_value = reader.get(FieldName::same("config")).unwrap_or(&Value::Null);
        let config = EarlyStoppingConfig::default()
            .merged_at(config_value, Naming::Js, "config", "config", ErrorCode::InvalidSnapshot)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut engine = EarlyStopping::fresh(config);
        let records = crate::snapshot::array(&reader, FieldName::same("history"))?;
        engine.history.reserve(records.len());
        // The usage sums so far, as the engine's tally would hold them: a record that would
        // make one overflow is refused (`record_value` refuses it too).
        let mut tally = LoopTally::default();
        for (i, record) in records.iter().enumerate() {
            let path = value::index_path("history", i);
            let record = IterationRecord::from_snapshot(record, &path)?;
            tally.check_usage(record.usage.as_deref(), &path, ErrorCode::InvalidSnapshot)?;
            tally.observe(&record.observation, record.usage.as_deref(), None);
            engine.history.push(record);
        }
        engine.stopping_reason = match reader.get(FieldName::same("stoppingReason")) {
            None | Some(Value::Null) => None,
            Some(_) => Some(reader.string(FieldName::same("stoppingReason"))?.to_string()),
        };
        engine.stopping_details = match reader.get(FieldName::same("stoppingDetails")) {
            None | Some(Value::Null) => None,
            Some(details) => Some(StoppingDetails::from_snapshot(details, "stoppingDetails")?),
        };
        if engine.stopping_reason.is_none() && engine.stopping_details.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "stoppingReason",
                "stoppingReason must be set when stoppingDetails is",
            ));
        }
        // `null` is "none" for both optional keys, as for stoppingReason.
        engine.policy_artifact = match reader.get(POLICY_ARTIFACT) {
            None | Some(Value::Null) => None,
            Some(_) => {
                let digest = reader.string(POLICY_ARTIFACT)?;
                if !crate::artifact::is_sha256_hex(digest) {
                    return Err(Error::new(
                        ErrorCode::InvalidSnapshot,
                        ErrorKind::Range,
                        "policyArtifact",
                        "policyArtifact must be a SHA-256 digest (64 lowercase hex digits)",
                    ));
                }
                Some(digest.to_string())
            }
        };
        Ok((engine, reader.get(POLICY).filter(|p| !matches!(p, Value::Null))))
    }
}

/// Adds the optional keys: `policy` (its JSON form), then `policyArtifact`.
fn add_policy(snapshot: &mut Value, policy: Option<Value>, artifact: Option<&str>) {
    if let Value::Object(entries) = snapshot {
        if let Some(policy) = policy {
            entries.push((POLICY.js().to_string(), policy));
        }
        if let Some(digest) = artifact {
            entries.push((POLICY_ARTIFACT.js().to_string(), Value::string(digest)));
        }
    }
}

/// The portable snapshot of an engine's parts (see [`EarlyStopping::to_snapshot`]).
fn snapshot_value(
    config: &EarlyStoppingConfig,
    history: &[IterationRecord],
    stopping_reason: Option<&str>,
    stopping_details: Option<&StoppingDetails>,
) -> Value {
    Value::object(vec![
        ("version", Value::Number(SNAPSHOT_VERSION as f64)),
        ("engine", Value::string(SNAPSHOT_ENGINE)),
        ("config", config.to_value(Naming::Js)),
        ("history", value::array_of(history, IterationRecord::to_value)),
        ("stoppingReason", stopping_reason.map_or(Value::Null, Value::string)),
        ("stoppingDetails", stopping_details.map_or(Value::Null, StoppingDetails::to_value)),
    ])
}

const POLICY: FieldName = FieldName::same("policy");

const POLICY_ARTIFACT: FieldName = FieldName::same("policyArtifact");

/// The keys of this engine's snapshot (the last two only when set).
const SNAPSHOT_FIELDS: [FieldName; 8] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    FieldName::same("history"),
    FieldName::same("stoppingReason"),
    FieldName::same("stoppingDetails"),
    POLICY,
    POLICY_ARTIFACT,
];
