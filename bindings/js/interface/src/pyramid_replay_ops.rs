//! Stateless ops of pyramid replay and the risk-bounded policy (batch: one call per replay,
//! calibration, shadow run, decision or model update) and of live policy runs (one call per
//! step, the run's state being its snapshot, which the JS layer hands back). Op codes
//! `PYRAMID_*` (220..229 in `contract::OPS`), kept apart from the engine ops so other
//! features can add theirs without touching these.

use earlyexit::pyramid::policy::{self, LiveRun, PolicyRun, RunOptions, RunPolicy};
use earlyexit::pyramid::replay;
use earlyexit::{ErrorCode, Naming, Result, Value};

use crate::op::{
    PYRAMID_CALIBRATE, PYRAMID_DECIDE, PYRAMID_MODEL_LEARN, PYRAMID_MODEL_LOAD, PYRAMID_MODEL_MERGE,
    PYRAMID_MODEL_STATS, PYRAMID_REPLAY, PYRAMID_RUN_OPTIONS, PYRAMID_RUN_RESTORE, PYRAMID_RUN_RESULT,
    PYRAMID_RUN_START, PYRAMID_RUN_SUBMIT, PYRAMID_SHADOW, PYRAMID_UPDATE,
};

/// Whether `op` is one of this file's (never without the `replay` feature: the wasm engines
/// module leaves these ops to the replay module, so none of their code is linked into it).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay")
        && ((PYRAMID_REPLAY..=PYRAMID_RUN_OPTIONS).contains(&op)
            || (PYRAMID_MODEL_LOAD..=PYRAMID_MODEL_STATS).contains(&op))
}

/// `{state, next}`: a policy run's snapshot and what to do next.
fn step_answer(run: &PolicyRun) -> Value {
    Value::object(vec![("state", run.to_snapshot()), ("next", run.next().to_value())])
}

fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// The host's clock (`Date.now()`, when given) and SHA-256: an artifact policy's expiry and
/// promotion are checked with them.
#[cfg(feature = "replay")]
fn host(clock_ms: Option<i64>) -> earlyexit::artifact::HostServices<'static> {
    earlyexit::artifact::HostServices { clock_ms, sha256: Some(&earlyexit_digest::Sha256Hasher) }
}

/// Without the `replay` feature these ops are never answered (`handles` is false), and no
/// SHA-256 is linked: a promoted artifact would be refused, not trusted.
#[cfg(not(feature = "replay"))]
fn host(clock_ms: Option<i64>) -> earlyexit::artifact::HostServices<'static> {
    earlyexit::artifact::HostServices { clock_ms, sha256: None }
}

/// A model given as JSON text is parsed (code `invalid_snapshot`, field `model`).
fn model_of(value: &Value) -> Result<std::borrow::Cow<'_, Value>> {
    match value {
        Value::String(text) => {
            Value::parse_json(text, ErrorCode::InvalidSnapshot, "model").map(std::borrow::Cow::Owned)
        }
        other => Ok(std::borrow::Cow::Borrowed(other)),
    }
}

/// Answers one of this file's ops.
pub fn exec(op: u32, args: &[Value]) -> Result<Value> {
    match op {
        PYRAMID_REPLAY => replay::replay_value(arg(args, 0), arg(args, 1), Naming::Js),
        PYRAMID_SHADOW => replay::shadow_value(arg(args, 0), arg(args, 1), Naming::Js),
        PYRAMID_CALIBRATE => crate::artifact_ops::calibrate(args),
        PYRAMID_RUN_START => {
            // The host's clock (`Date.now()`), for an artifact policy's expiry.
            let clock = match arg(args, 5) {
                Value::Null => None,
                now => Some(earlyexit::pyramid::replay::now_argument(now)?),
            };
            match LiveRun::start_value_at(
                arg(args, 0),
                arg(args, 1),
                arg(args, 2),
                arg(args, 3),
                arg(args, 4),
                Naming::Js,
                host(clock),
            )? {
                LiveRun::Adr(_) => Ok(Value::Null),
                LiveRun::Policy(run) => Ok(step_answer(&run)),
            }
        }
        PYRAMID_RUN_SUBMIT => {
            let mut run = PolicyRun::from_snapshot(arg(args, 0))?;
            run.submit_value(arg(args, 1), arg(args, 2), Naming::Js)?;
            Ok(step_answer(&run))
        }
        PYRAMID_RUN_RESULT => Ok(PolicyRun::from_snapshot(arg(args, 0))?.result()?.to_value(Naming::Js)),
        PYRAMID_RUN_RESTORE => {
            let snapshot = match arg(args, 0) {
                Value::String(text) => earlyexit::snapshot::parse(text)?,
                other => other.clone(),
            };
            Ok(step_answer(&PolicyRun::from_snapshot(&snapshot)?))
        }
        PYRAMID_RUN_OPTIONS => {
            // The host's clock, as for a run's start: an enforced artifact's expiry.
            let clock = match arg(args, 1) {
                Value::Null => None,
                now => Some(earlyexit::pyramid::replay::now_argument(now)?),
            };
            let options = RunOptions::from_values_at(arg(args, 0), &Value::Null, Naming::Js, host(clock))?;
            Ok(if options.policy == RunPolicy::Adr { Value::Null } else { options.to_value(Naming::Js) })
        }
        PYRAMID_MODEL_LOAD => Ok(policy::history_value(arg(args, 0), arg(args, 1), Naming::Js)?.to_value()),
        PYRAMID_MODEL_MERGE => policy::merge_value(arg(args, 0), arg(args, 1)),
        PYRAMID_MODEL_LEARN => policy::learn_value(arg(args, 0), arg(args, 1), arg(args, 2), Naming::Js),
        PYRAMID_MODEL_STATS => policy::stats_value(arg(args, 0), arg(args, 1), Naming::Js),
        PYRAMID_DECIDE => {
            let model = model_of(arg(args, 0))?;
            replay::decide_value(&model, arg(args, 1), arg(args, 2), arg(args, 3), Naming::Js)
        }
        _ => {
            debug_assert_eq!(op, PYRAMID_UPDATE);
            let model = model_of(arg(args, 0))?;
            replay::update_value(&model, arg(args, 1), arg(args, 2), Naming::Js)
        }
    }
}
