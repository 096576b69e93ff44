//! Stateless ops of pyramid replay and the risk-bounded policy (batch: one call per replay,
//! calibration, shadow run, decision or model update). Op codes `PYRAMID_*` (220..229 in
//! `contract::OPS`), kept apart from the engine ops so other features can add theirs
//! without touching these.

use earlyexit::pyramid::replay;
use earlyexit::{ErrorCode, Naming, Result, Value};

use crate::op::{PYRAMID_CALIBRATE, PYRAMID_DECIDE, PYRAMID_REPLAY, PYRAMID_SHADOW, PYRAMID_UPDATE};

/// Whether `op` is one of this file's (never without the `replay` feature: the wasm engines
/// module leaves these ops to the replay module, so none of their code is linked into it).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (PYRAMID_REPLAY..=PYRAMID_UPDATE).contains(&op)
}

fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
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
        PYRAMID_CALIBRATE => replay::calibrate_value(arg(args, 0), arg(args, 1), Naming::Js),
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
