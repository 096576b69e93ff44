//! A stop policy for a binding that keeps the loop's history itself (the JS layer): the
//! policy checked once ([`engine_policy_value`]), then a native [`PolicyDecider`] holding
//! the parsed policy, the merged config and the state for the engine's lifetime, each
//! decision sending only the new records. [`policy_step_value`] is the same decision in one
//! stateless call, the state crossing as a small JSON value of O(the policy's windows).

use crate::loops::behavior::{BehaviorIteration, MAX_FINGERPRINT_CHARS};
use crate::loops::config::EarlyStoppingConfig;
use crate::loops::details::DiminishingReturnsReport;
use crate::loops::policy::condition::StopCondition;
use crate::loops::policy::evaluate::PolicyState;
use crate::loops::policy::stop::{tree_of, StopPolicy};
use crate::loops::presets::ReturnPolicy;
use crate::loops::records::{IterationResult, Observation};
use crate::loops::state::{BestIteration, LoopTally};
use crate::loops::vocabulary::VerificationStatus;
use crate::value::{self, Naming, ObjectBuilder, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const STATE: ErrorCode = ErrorCode::InvalidSnapshot;

impl StopPolicy {
    /// Reads the form [`StopPolicy::to_value`] writes: `{returns, any | all | k_of | not_before}`.
    pub fn from_tree_value(value: &Value, code: ErrorCode) -> Result<Self> {
        let returns = match value.get("returns").and_then(Value::as_str) {
            Some(name) => ReturnPolicy::parse(name),
            None => Some(ReturnPolicy::Last),
        };
        match (tree_of(value, code)?, returns) {
            (Some(when), Some(returns)) => Ok(StopPolicy { when, returns }),
            _ => Err(Error::new(code, ErrorKind::Type, "policy", "policy must be a checked stop policy")),
        }
    }
}

/// Checks a policy in the one JSON form (see `LoopPolicy::from_value`) as the engine takes it
/// (`invalid_config`, fields under `policy`) and answers its normalized form
/// (`{returns, any: [...]}`), which [`policy_step_value`] reads.
pub fn engine_policy_value(policy: &Value, naming: Naming) -> Result<Value> {
    Ok(crate::loops::replay::LoopPolicy::engine_policy(policy, naming)?.to_value())
}

/// [`engine_policy_value`] for an engine restored from a snapshot: `restored` is the
/// snapshot's `policy` key as [`EarlyStopping::normalize_snapshot`](crate::EarlyStopping::normalize_snapshot)
/// passed it on (`null`: none; errors `invalid_snapshot` under `policy`), `given` the
/// policy given with the snapshot (`null`: none). Answers the normalized policy the engine
/// decides under, or `null`, by [`restored_policy`](crate::loops::policy::restored_policy).
pub fn restored_policy_value(given: &Value, restored: &Value, naming: Naming) -> Result<Value> {
    use crate::loops::replay::LoopPolicy;
    let restored = match restored {
        Value::Null => None,
        policy => Some(LoopPolicy::engine_policy_as(policy, Naming::Js, ErrorCode::InvalidSnapshot)?),
    };
    let given = match given {
        Value::Null => None,
        policy => Some(LoopPolicy::engine_policy(policy, naming)?),
    };
    Ok(crate::loops::policy::restored_policy(restored, given)?.map_or(Value::Null, |p| p.to_value()))
}

/// A stop policy's decisions for a binding that keeps the history itself (the JS layer's
/// `EarlyStopping`): the normalized policy and the merged config are read once, and the
/// state lives here for the engine's lifetime, so a decision costs the new records' fold
/// and the tree's evaluation, O(the conditions' windows), never a parse of the policy.
#[derive(Clone, Debug)]
pub struct PolicyDecider {
    policy: StopPolicy,
    config: EarlyStoppingConfig,
    state: PolicyState,
}

impl PolicyDecider {
    /// A fresh decider over a normalized `policy` (from [`engine_policy_value`]) and a
    /// `config` merged over the defaults (`invalid_config` naming the field).
    pub fn from_values(policy: &Value, config: &Value) -> Result<Self> {
        let policy = StopPolicy::from_tree_value(policy, ErrorCode::InvalidConfig)?;
        let config = EarlyStoppingConfig::default().merged(config, Naming::Js, "config", ErrorCode::InvalidConfig)?;
        let state = policy.state();
        Ok(PolicyDecider { policy, config, state })
    }

    /// How many records the state holds.
    pub fn recorded(&self) -> u64 {
        self.state.recorded
    }

    /// One decision: `records` (the history's records not folded yet, as the engine stores
    /// them) are checked, all of them, then folded in, then the tree decides. `report`:
    /// `null` when the source was not asked, else what it answered; `source`: whether one
    /// is attached. Answers the decision, or `{need_source: true}` when the decision reaches
    /// a `diminishing_returns` condition and the source must be asked (then call again with
    /// its answer and no records). A bad record or report changes nothing.
    pub fn step_value(&mut self, records: &Value, report: &Value, source: bool) -> Result<Value> {
        let mut results = Vec::new();
        if let Value::Array(records) = records {
            results.reserve(records.len());
            for (i, record) in records.iter().enumerate() {
                let result = IterationResult::from_value(record, Naming::Snake)
                    .map_err(|e| e.nested(ErrorCode::InvalidResult, &value::index_path("records", i)))?;
                results.push(result);
            }
        }
        let given = match report {
            Value::Null => None,
            report => Some(DiminishingReturnsReport::from_value(report, Naming::Js)?),
        };
        let min_quality = self.config.min_quality_threshold;
        for result in results {
            let observation = Observation {
                iteration: result.iteration_number.unwrap_or(self.state.recorded + 1),
                quality_score: result.quality_score,
                confidence: result.confidence,
                quality_delta: result.quality_delta,
                verification_status: result.verification_status,
            };
            self.state.observe(observation, Some(&result.usage), result.behavior.as_deref(), min_quality);
        }
        struct NeedSource;
        let (policy, config, state) = (&self.policy, &self.config, &self.state);
        let decided = match given {
            Some(report) => policy.decide(config, state, Some(move || Ok::<_, NeedSource>(report))),
            None if source => policy.decide(config, state, Some(|| Err(NeedSource))),
            None => {
                policy.decide(config, state, None::<fn() -> std::result::Result<DiminishingReturnsReport, NeedSource>>)
            }
        };
        Ok(match decided {
            Ok(decision) => decision.to_value(),
            Err(NeedSource) => Value::object(vec![("need_source", Value::Bool(true))]),
        })
    }
}

/// One decision under a normalized `policy` (from [`engine_policy_value`]), stateless: `state`
/// (`null` for a fresh one) takes in `records`, then the tree decides, as
/// [`PolicyDecider::step_value`] does. Answers `{state, decision}`, or `{state, need_source:
/// true}` (then call again with the source's answer and the returned state, no records).
/// A binding that can hold a native object uses [`PolicyDecider`] instead (no parse per decision).
pub fn policy_step_value(
    policy: &Value,
    config: &Value,
    state: &Value,
    records: &Value,
    report: &Value,
    source: bool,
) -> Result<Value> {
    let mut decider = PolicyDecider::from_values(policy, config)?;
    if !matches!(state, Value::Null) {
        decider.state = PolicyState::from_value(state, &decider.policy.when)?;
    }
    let answer = decider.step_value(records, report, source)?;
    let mut o = ObjectBuilder::new();
    o.value("state", decider.state.to_value());
    match answer.get("need_source") {
        Some(need) => o.value("need_source", need.clone()),
        None => o.value("decision", answer),
    };
    Ok(o.build())
}

fn pair(p: Option<(u64, f64)>) -> Value {
    p.map_or(Value::Null, |(i, q)| Value::Array(vec![Value::Number(i as f64), Value::Number(q)]))
}

fn numbers(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|v| Value::Number(*v)).collect())
}

impl PolicyState {
    /// The state as a small JSON value (O(the policy's windows)).
    pub fn to_value(&self) -> Value {
        let mut window = Vec::with_capacity(self.window.len());
        for o in &self.window {
            window.push(numbers(&[
                o.iteration as f64,
                o.quality_score,
                o.confidence,
                o.quality_delta,
                o.verification_status.index() as f64,
            ]));
        }
        let mut streaks = Vec::with_capacity(self.streaks.len());
        for (t, s) in &self.streaks {
            streaks.push(numbers(&[*t, *s as f64]));
        }
        let t = &self.tally;
        let mut o = ObjectBuilder::new();
        o.number("recorded", self.recorded as f64)
            .value("best", Value::Array(vec![pair(self.best.verified), pair(self.best.overall)]))
            .value("sums", numbers(&t.sums))
            .value("without", numbers(&t.without.map(|n| n as f64)))
            .value("peak", pair(t.peak))
            .number("since_peak", t.since_peak as f64)
            .value("streaks", Value::Array(streaks))
            .value("window", Value::Array(window));
        if self.behavior_capacity() > 0 {
            // Only with detector conditions: the first record's and the window's behaviour fields.
            let entry = |b: &BehaviorIteration| {
                let mut e = ObjectBuilder::new();
                e.some_number("number", b.number.map(|n| n as f64));
                b.push_result_fields(&mut e);
                e.build()
            };
            let recent = self.behavior.iter().map(entry).collect();
            o.value("behavior_first", self.behavior_first.as_ref().map_or(Value::Null, entry))
                .value("behavior", Value::Array(recent));
        }
        if let Some(p) = &self.progress {
            // Only with progress conditions: the run of equal fingerprints and the last ones.
            let recent = p
                .recent
                .iter()
                .map(|(n, f)| {
                    let fingerprint = f.as_deref().map_or(Value::Null, Value::string);
                    Value::Array(vec![Value::Number(*n as f64), fingerprint])
                })
                .collect();
            o.value("progress", numbers(&[p.run as f64, p.run_start as f64, f64::from(u8::from(p.completed))]))
                .value("fingerprints", Value::Array(recent));
        }
        o.build()
    }

    /// Reads a state [`PolicyState::to_value`] wrote for the policy `when`
    /// (`invalid_snapshot` naming the field on anything else).
    pub fn from_value(value: &Value, when: &StopCondition) -> Result<Self> {
        let bad = |field: &str| {
            Error::new(STATE, ErrorKind::Range, field, value::concat(&["policy state: ", field, " is not as written"]))
        };
        let number = |v: Option<&Value>, field: &str| {
            v.and_then(Value::as_f64).filter(|n| n.is_finite()).ok_or_else(|| bad(field))
        };
        let count = |v: Option<&Value>, field: &str| {
            number(v, field).and_then(|n| value::check_integer(n, 0, value::MAX_SAFE_INTEGER).ok_or_else(|| bad(field)))
        };
        let list = |v: Option<&Value>, field: &str| match v {
            Some(Value::Array(items)) => Ok(items.clone()),
            _ => Err(bad(field)),
        };
        let pair_of = |v: Option<&Value>, field: &str| -> Result<Option<(u64, f64)>> {
            match v {
                Some(Value::Null) => Ok(None),
                Some(Value::Array(p)) if p.len() == 2 => Ok(Some((count(p.first(), field)?, number(p.get(1), field)?))),
                _ => Err(bad(field)),
            }
        };
        let mut state = PolicyState::new(when);
        state.recorded = count(value.get("recorded"), "recorded")?;
        let best = list(value.get("best"), "best")?;
        state.best = BestIteration { verified: pair_of(best.first(), "best")?, overall: pair_of(best.get(1), "best")? };
        let sums = list(value.get("sums"), "sums")?;
        let without = list(value.get("without"), "without")?;
        let mut tally = LoopTally::default();
        for i in 0..3 {
            if let (Some(sum), Some(n)) = (tally.sums.get_mut(i), tally.without.get_mut(i)) {
                *sum = number(sums.get(i), "sums")?;
                *n = count(without.get(i), "without")?;
            }
        }
        tally.peak = pair_of(value.get("peak"), "peak")?;
        tally.since_peak = count(value.get("since_peak"), "since_peak")?;
        state.tally = tally;
        let streaks = list(value.get("streaks"), "streaks")?;
        if streaks.len() != state.streaks.len() {
            return Err(bad("streaks"));
        }
        for (slot, item) in state.streaks.iter_mut().zip(&streaks) {
            let Value::Array(p) = item else { return Err(bad("streaks")) };
            if number(p.first(), "streaks")? != slot.0 {
                return Err(bad("streaks"));
            }
            slot.1 = count(p.get(1), "streaks")?;
        }
        let window = list(value.get("window"), "window")?;
        if window.len() > state.window_capacity() {
            return Err(bad("window"));
        }
        for item in &window {
            let Value::Array(o) = item else { return Err(bad("window")) };
            let status = count(o.get(4), "window")?;
            let observation = Observation {
                iteration: count(o.first(), "window")?,
                quality_score: number(o.get(1), "window")?,
                confidence: number(o.get(2), "window")?,
                quality_delta: number(o.get(3), "window")?,
                verification_status: *VerificationStatus::ALL.get(status as usize).ok_or_else(|| bad("window"))?,
            };
            state.window.push_back(observation);
        }
        if state.behavior_capacity() > 0 {
            let entry = |v: &Value, field: &str| -> Result<BehaviorIteration> {
                let mut b = BehaviorIteration::from_result(v, field, STATE)?.unwrap_or_default();
                b.number = Some(count(v.get("number"), field)?);
                Ok(b)
            };
            state.behavior_first = match value.get("behavior_first") {
                Some(Value::Null) => None,
                Some(v) => Some(entry(v, "behavior_first")?),
                None => return Err(bad("behavior_first")),
            };
            let recent = list(value.get("behavior"), "behavior")?;
            if recent.len() > 2 * state.behavior_capacity() {
                return Err(bad("behavior"));
            }
            for item in &recent {
                state.behavior.push(entry(item, "behavior")?);
            }
        }
        if let Some(progress) = &mut state.progress {
            let numbers = list(value.get("progress"), "progress")?;
            progress.run = count(numbers.first(), "progress")?;
            progress.run_start = count(numbers.get(1), "progress")?;
            progress.completed = match count(numbers.get(2), "progress")? {
                0 => false,
                1 => true,
                _ => return Err(bad("progress")),
            };
            let recent = list(value.get("fingerprints"), "fingerprints")?;
            if recent.len() > progress.capacity() {
                return Err(bad("fingerprints"));
            }
            for item in &recent {
                let Value::Array(p) = item else { return Err(bad("fingerprints")) };
                let fingerprint = match p.get(1) {
                    Some(Value::Null) => None,
                    Some(Value::String(f)) if f.chars().count() <= MAX_FINGERPRINT_CHARS => Some(Box::from(f.as_str())),
                    _ => return Err(bad("fingerprints")),
                };
                progress.recent.push_back((count(p.first(), "fingerprints")?, fingerprint));
            }
        }
        Ok(state)
    }
}
