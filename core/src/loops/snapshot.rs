//! The owning engine's portable snapshot: `{version, engine, config, history,
//! stoppingReason, stoppingDetails}`, then `policy` (the stop policy, in its normalized
//! JSON form) and `policyArtifact` (the digest of the calibration artifact it came from)
//! only when the engine has them, so a default snapshot is unchanged. Written, read back and
//! normalized.

use crate::loops::candidate::ShadowCandidate;
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
        let shadow = self.shadow.as_ref().map(|s| s.candidate().to_value());
        self.normalized(self.policy().map(StopPolicy::to_value), shadow)
    }

    /// What `EarlyStopping::new(config)?.to_snapshot()` gives for a valid `config`, without
    /// building an engine (the JS layer caches a fresh engine's snapshot once).
    pub fn fresh_snapshot(config: &EarlyStoppingConfig) -> Value {
        snapshot_value(config, &[], None, None)
    }

    /// Restores a snapshot, validating everything (code `invalid_snapshot`, field = path;
    /// the policy's as `policy.any[1].patience`).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let (mut engine, policy, shadow) = Self::read_snapshot(snapshot)?;
        if let Some(policy) = policy {
            engine.set_policy(Some(LoopPolicy::engine_policy_as(policy, Naming::Js, ErrorCode::InvalidSnapshot)?));
        }
        let EarlyStopping { config, history, counters, window, .. } = &mut engine;
        for record in history.iter() {
            fold(config, counters, window, record.observation, record.usage.as_deref());
        }
        // The shadow candidate is read here, not in `read_snapshot`: the normalizing path
        // (the JS layer's `fromJSON`) passes it on as given, so the size-budgeted WebAssembly
        // engines module needs no policy reader for it.
        if let Some(candidate) = shadow {
            let candidate = ShadowCandidate::from_snapshot(candidate, SHADOW_KEY.js())?;
            engine.set_shadow(Some(candidate)).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        }
        Ok(engine)
    }

    /// The snapshot [`from_snapshot`](Self::from_snapshot) then
    /// [`to_snapshot`](Self::to_snapshot) give (validated, normalized), without folding the
    /// history into a decision state: for bindings that keep the loop's state themselves
    /// (the JS layer's `EarlyStopping.fromJSON`), so the size-budgeted WebAssembly module
    /// needs none of the owning engine's state code. The `policy` key is passed on as
    /// given: that binding reads it with `restored_policy_value`
    /// (the policy reader lives in the replay module, not in the engines module).
    pub fn normalize_snapshot(snapshot: &Value) -> Result<Value> {
        Self::read_snapshot(snapshot)
            .map(|(engine, policy, shadow)| engine.normalized(policy.cloned(), shadow.cloned()))
    }

    /// [`normalize_snapshot`](Self::normalize_snapshot) of a snapshot given whole: the
    /// value read is freed before the normalized one is built, so at most one of the two
    /// trees (each up to 16 times the snapshot's text) is alive at a time, which keeps a
    /// snapshot at the size limits within a WebAssembly instance's memory.
    pub fn normalize_snapshot_owned(snapshot: Value) -> Result<Value> {
        let (engine, policy, shadow) = Self::read_snapshot(&snapshot)?;
        let (policy, shadow) = (policy.cloned(), shadow.cloned());
        drop(snapshot);
        Ok(engine.normalized(policy, shadow))
    }

    /// The snapshot with `policy` as its policy key (if any).
    fn normalized(&self, policy: Option<Value>, shadow: Option<Value>) -> Value {
        let mut snapshot = snapshot_value(
            &self.config,
            &self.history,
            self.stopping_reason.as_deref(),
            self.stopping_details.as_ref(),
        );
        add_policy(&mut snapshot, policy, self.policy_artifact.as_deref());
        if let (Some(shadow), Value::Object(entries)) = (shadow, &mut snapshot) {
            entries.push((SHADOW_KEY.js().to_string(), shadow));
        }
        snapshot
    }

    /// Reads and validates a snapshot into an engine whose counters and window are still
    /// empty (the callers above fold the history in, or only write it back out), and the
    /// snapshot's policy as given (not read yet).
    fn read_snapshot(snapshot: &Value) -> Result<(Self, Option<&Value>, Option<&Value>)> {
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
        check_strict_history(&reader, &engine)?;
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
        // The shadow candidate, as given: read (and its state replayed from the history) when
        // the engine is built, in `from_snapshot`.
        let shadow = reader.get(SHADOW_KEY).filter(|c| !matches!(c, Value::Null));
        Ok((engine, reader.get(POLICY).filter(|p| !matches!(p, Value::Null)), shadow))
    }
}

/// Where `strictIterations` checking begins in `history` as a snapshot states it: the
/// smallest index from which on each record's iteration is greater than the one before it (the
/// rule a strict engine applies to each new record: see
/// `check_iteration_order`), `0` when the whole
/// history follows it. A loop may turn `strictIterations` on after records that do not
/// increase (`configure`); its snapshot then states this index as `strictIterationsFrom`
/// (and only then: a history that increases throughout has no such key), so it restores,
/// while a snapshot whose history repeats or goes back after that point does not.
pub fn strict_iterations_from(history: &[IterationRecord]) -> usize {
    history.windows(2).rposition(repeats).map_or(0, |i| i + 2)
}

/// Whether the second of two records does not follow the first under `strictIterations`.
fn repeats(pair: &[IterationRecord]) -> bool {
    matches!(pair, [before, record] if record.observation.iteration <= before.observation.iteration)
}

/// Reads `strictIterationsFrom` (absent or `null`: `0`; otherwise an integer between 0 and
/// the history's length, and only with `strictIterations` on) and checks the history from
/// there as a strict engine records it: each record's iteration greater than the one before
/// it (`invalid_snapshot`, naming `history[i].iteration_number`).
fn check_strict_history(reader: &crate::value::ObjectReader<'_>, engine: &EarlyStopping) -> Result<()> {
    let history = &engine.history;
    let from = match reader.get(STRICT_FROM) {
        None | Some(Value::Null) => 0,
        Some(given) => {
            let from =
                value::integer_argument(given, STRICT_FROM.js(), ErrorCode::InvalidSnapshot, 0, history.len() as u64)?;
            if !engine.config.strict() {
                return Err(Error::new(
                    ErrorCode::InvalidSnapshot,
                    ErrorKind::Range,
                    STRICT_FROM.js(),
                    "strictIterationsFrom is only written with config.strictIterations true",
                ));
            }
            usize::try_from(from).unwrap_or(usize::MAX)
        }
    };
    if !engine.config.strict() {
        return Ok(());
    }
    let start = from.saturating_sub(1);
    if let Some(i) = history.get(start..).and_then(|h| h.windows(2).position(repeats)) {
        let path = value::concat(&[&value::index_path("history", start + i + 1), ".iteration_number"]);
        let message = value::concat(&[&path, " must be greater than the one before it (strictIterations)"]);
        return Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, &path, message));
    }
    Ok(())
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
    let mut snapshot = Value::object(vec![
        ("version", Value::Number(SNAPSHOT_VERSION as f64)),
        ("engine", Value::string(SNAPSHOT_ENGINE)),
        ("config", config.to_value(Naming::Js)),
        ("history", value::array_of(history, IterationRecord::to_value)),
        ("stoppingReason", stopping_reason.map_or(Value::Null, Value::string)),
        ("stoppingDetails", stopping_details.map_or(Value::Null, StoppingDetails::to_value)),
    ]);
    // Only when strict checking began after records that do not increase (see
    // `strict_iterations_from`), so every other snapshot is unchanged.
    let from = if config.strict() { strict_iterations_from(history) } else { 0 };
    if let (true, Value::Object(entries)) = (from > 0, &mut snapshot) {
        entries.push((STRICT_FROM.js().to_string(), Value::Number(from as f64)));
    }
    snapshot
}

const POLICY: FieldName = FieldName::same("policy");

const POLICY_ARTIFACT: FieldName = FieldName::same("policyArtifact");

/// The shadow candidate (`{name, policy, artifactSha256}`), in shadow mode only.
const SHADOW_KEY: FieldName = FieldName::same("shadow");

/// Where `strictIterations` checking begins in the history (see [`strict_iterations_from`]).
const STRICT_FROM: FieldName = FieldName::same(STRICT_ITERATIONS_FROM);

/// The optional snapshot key that says where `strictIterations` checking begins (written by
/// the JS layer's `toJSON` too).
pub const STRICT_ITERATIONS_FROM: &str = "strictIterationsFrom";

/// The keys of this engine's snapshot (the last three only when set).
const SNAPSHOT_FIELDS: [FieldName; 10] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    FieldName::same("history"),
    FieldName::same("stoppingReason"),
    FieldName::same("stoppingDetails"),
    STRICT_FROM,
    POLICY,
    POLICY_ARTIFACT,
    SHADOW_KEY,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::{IterationResult, VerificationStatus};

    fn engine(strict: bool, iterations: &[u64]) -> EarlyStopping {
        let config = EarlyStoppingConfig { strict_iterations: Some(strict), ..EarlyStoppingConfig::default() };
        let mut engine = EarlyStopping::fresh(config);
        for &i in iterations {
            let result = IterationResult::new(50.0 + i as f64, 0.5, VerificationStatus::Failed, 1.0);
            let _ = engine.record(i, result, || "2026-01-01T00:00:00.000Z".to_string());
        }
        engine
    }

    fn with_key(snapshot: &Value, key: &str, value: Option<Value>) -> Value {
        let mut snapshot = snapshot.clone();
        if let Value::Object(entries) = &mut snapshot {
            entries.retain(|(k, _)| k != key);
            if let Some(value) = value {
                entries.push((key.to_string(), value));
            }
        }
        snapshot
    }

    fn refused(snapshot: &Value) -> Option<(String, String)> {
        EarlyStopping::from_snapshot(snapshot).err().map(|e| (e.code().to_string(), e.field().to_string()))
    }

    #[test]
    fn a_strict_history_that_repeats_an_iteration_is_refused() {
        let strict = engine(true, &[1, 2]).to_snapshot();
        // The history of a loop that recorded 1, 2, 2 without the option, claimed as strict.
        let loose = engine(false, &[1, 2, 2]).to_snapshot();
        let edited = with_key(&loose, "config", strict.get("config").cloned());
        let want = Some(("invalid_snapshot".to_string(), "history[2].iteration_number".to_string()));
        assert_eq!(refused(&edited), want);
        assert_eq!(EarlyStopping::normalize_snapshot(&edited).err().map(|e| e.field().to_string()), want.map(|w| w.1));
        // Going back is refused too; without the option the same history restores.
        let back = with_key(&engine(false, &[3, 1]).to_snapshot(), "config", strict.get("config").cloned());
        assert_eq!(refused(&back).map(|e| e.1).as_deref(), Some("history[1].iteration_number"));
        assert!(EarlyStopping::from_snapshot(&loose).is_ok());
        // A strict history that increases has no key: the snapshot is unchanged.
        assert!(strict.get(STRICT_ITERATIONS_FROM).is_none());
        assert!(loose.get(STRICT_ITERATIONS_FROM).is_none());
    }

    #[test]
    fn a_loop_made_strict_after_repeated_records_round_trips() {
        let mut later = engine(false, &[1, 2, 1, 1]);
        let on = Value::object(vec![("strictIterations", Value::Bool(true))]);
        assert!(later.configure_value(&on, Naming::Js).is_ok());
        let result = IterationResult::new(60.0, 0.5, VerificationStatus::Failed, 1.0);
        assert!(later.record(5, result, || "2026-01-01T00:00:01.000Z".to_string()).is_ok());
        let snapshot = later.to_snapshot();
        assert_eq!(snapshot.get(STRICT_ITERATIONS_FROM), Some(&Value::Number(4.0)));
        let restored = EarlyStopping::from_snapshot(&snapshot);
        assert_eq!(restored.as_ref().map(EarlyStopping::to_snapshot).ok(), Some(snapshot.clone()));
        assert_eq!(EarlyStopping::normalize_snapshot(&snapshot).ok(), Some(snapshot.clone()));
        // The restored loop keeps the engine's rule: 5 again with another result is refused.
        let mut restored = restored.unwrap_or_else(|_| engine(true, &[]));
        let again = IterationResult::new(61.0, 0.5, VerificationStatus::Failed, 1.0);
        assert!(restored.record(5, again, String::new).is_err());
        // Checking from an earlier index finds the repeat; from the end, nothing to check.
        let earlier = with_key(&snapshot, STRICT_ITERATIONS_FROM, Some(Value::Number(3.0)));
        assert_eq!(refused(&earlier).map(|e| e.1).as_deref(), Some("history[3].iteration_number"));
        let absent = with_key(&snapshot, STRICT_ITERATIONS_FROM, None);
        assert_eq!(refused(&absent).map(|e| e.1).as_deref(), Some("history[2].iteration_number"));
        assert!(EarlyStopping::from_snapshot(&with_key(&snapshot, STRICT_ITERATIONS_FROM, Some(Value::Number(5.0))))
            .is_ok());
        assert!(EarlyStopping::from_snapshot(&with_key(&snapshot, STRICT_ITERATIONS_FROM, Some(Value::Null))).is_err());
    }

    #[test]
    fn the_key_is_an_integer_within_the_history_and_only_with_the_option() {
        let strict = engine(true, &[1, 2]).to_snapshot();
        let cases = [
            (Value::string("1"), "type"),
            (Value::Bool(true), "type"),
            (Value::Number(-1.0), "range"),
            (Value::Number(1.5), "range"),
            (Value::Number(3.0), "range"),
            (Value::Number(f64::NAN), "range"),
        ];
        for (value, kind) in cases {
            let snapshot = with_key(&strict, STRICT_ITERATIONS_FROM, Some(value.clone()));
            let error = EarlyStopping::from_snapshot(&snapshot).err();
            let got = error.map(|e| (e.code().to_string(), e.field().to_string(), e.kind() == ErrorKind::Type));
            assert_eq!(
                got,
                Some(("invalid_snapshot".into(), STRICT_ITERATIONS_FROM.into(), kind == "type")),
                "{value:?}"
            );
        }
        for from in [0.0, 1.0, 2.0] {
            assert!(EarlyStopping::from_snapshot(&with_key(
                &strict,
                STRICT_ITERATIONS_FROM,
                Some(Value::Number(from))
            ))
            .is_ok());
        }
        let loose = engine(false, &[1, 2]).to_snapshot();
        let error =
            EarlyStopping::from_snapshot(&with_key(&loose, STRICT_ITERATIONS_FROM, Some(Value::Number(1.0)))).err();
        assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some(STRICT_ITERATIONS_FROM));
    }
}
