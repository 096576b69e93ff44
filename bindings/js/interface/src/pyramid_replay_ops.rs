//! Stateless ops of pyramid replay and the risk-bounded policy (batch: one call per replay,
//! calibration, shadow run, decision or model update) and of live policy runs (one call per
//! step, the run's state being its snapshot, which the JS layer hands back). Op codes
//! `PYRAMID_*` (220..229 in `contract::OPS`), kept apart from the engine ops so other
//! features can add theirs without touching these.

use earlyexit::kit;
use earlyexit::pyramid::policy::{LiveRun, PolicyRun, RunMode, RunOptions, RunPolicy};
use earlyexit::{ErrorCode, Naming, Result, Value};

use crate::args;
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
        PYRAMID_REPLAY => {
            let a = args::PYRAMID_REPLAY::read(args);
            kit::pyramid::replay::replay_value(a.runs, a.options, Naming::Js)
        }
        PYRAMID_SHADOW => {
            let a = args::PYRAMID_SHADOW::read(args);
            kit::pyramid::replay::shadow_value(a.runs, a.options, Naming::Js)
        }
        PYRAMID_CALIBRATE => crate::artifact_ops::calibrate(args),
        PYRAMID_RUN_START => {
            // The host's clock (`Date.now()`), for an artifact policy's expiry.
            let a = args::PYRAMID_RUN_START::read(args);
            let clock = match a.clock {
                Value::Null => None,
                now => Some(earlyexit::kit::pyramid::replay::now_argument(now)?),
            };
            match LiveRun::start_value_at(
                a.config,
                a.total_layers,
                a.layers,
                a.options,
                a.run_options,
                Naming::Js,
                host(clock),
            )? {
                LiveRun::Adr(_) => Ok(Value::Null),
                LiveRun::Policy(run) => Ok(step_answer(&run)),
            }
        }
        PYRAMID_RUN_SUBMIT => {
            let a = args::PYRAMID_RUN_SUBMIT::read(args);
            let mut run = PolicyRun::from_snapshot(a.state)?;
            run.submit_value(a.layer, a.result, Naming::Js)?;
            Ok(step_answer(&run))
        }
        PYRAMID_RUN_RESULT => {
            Ok(PolicyRun::from_snapshot(args::PYRAMID_RUN_RESULT::read(args).state)?.result()?.to_value(Naming::Js))
        }
        PYRAMID_RUN_RESTORE => {
            let snapshot = match args::PYRAMID_RUN_RESTORE::read(args).snapshot {
                Value::String(text) => earlyexit::snapshot::parse(text)?,
                other => other.clone(),
            };
            Ok(step_answer(&PolicyRun::from_snapshot(&snapshot)?))
        }
        PYRAMID_RUN_OPTIONS => {
            // The host's clock, as for a run's start: an enforced artifact's expiry.
            let a = args::PYRAMID_RUN_OPTIONS::read(args);
            let clock = match a.clock {
                Value::Null => None,
                now => Some(earlyexit::kit::pyramid::replay::now_argument(now)?),
            };
            let options = RunOptions::from_values_at(a.options, &Value::Null, Naming::Js, host(clock))?;
            // The ADR enforced runs in the engines module (null); in shadow mode it is a policy run.
            let engines = options.policy == RunPolicy::Adr && options.mode == RunMode::Enforced;
            Ok(if engines { Value::Null } else { options.to_value(Naming::Js) })
        }
        PYRAMID_MODEL_LOAD => {
            let a = args::PYRAMID_MODEL_LOAD::read(args);
            Ok(kit::pyramid::policy::history_value(a.model, a.options, Naming::Js)?.to_value())
        }
        PYRAMID_MODEL_MERGE => {
            let a = args::PYRAMID_MODEL_MERGE::read(args);
            kit::pyramid::policy::merge_value(a.model, a.other)
        }
        PYRAMID_MODEL_LEARN => {
            let a = args::PYRAMID_MODEL_LEARN::read(args);
            kit::pyramid::policy::learn_value(a.model, a.ran, a.build, Naming::Js)
        }
        PYRAMID_MODEL_STATS => {
            let a = args::PYRAMID_MODEL_STATS::read(args);
            kit::pyramid::policy::stats_value(a.model, a.config, Naming::Js)
        }
        PYRAMID_DECIDE => {
            let a = args::PYRAMID_DECIDE::read(args);
            let model = model_of(a.model)?;
            kit::pyramid::replay::decide_value(&model, a.layers, a.outcomes, a.options, Naming::Js)
        }
        _ => {
            debug_assert_eq!(op, PYRAMID_UPDATE);
            let a = args::PYRAMID_UPDATE::read(args);
            let model = model_of(a.model)?;
            kit::pyramid::replay::update_value(&model, a.ran, a.options, Naming::Js)
        }
    }
}
