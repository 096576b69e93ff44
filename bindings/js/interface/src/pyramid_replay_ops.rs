//! Stateless ops of pyramid replay and the risk-bounded policy (batch: one call per replay,
//! calibration, shadow run, decision or model update). Op codes 220..229, kept apart from
//! the engine ops so other features can add theirs without touching these.

use earlyexit::pyramid::replay;
use earlyexit::{ErrorCode, Naming, Result, Value};

/// `[runs, options]` -> replay report.
pub const REPLAY: u32 = 220;
/// `[runs, options]` -> shadow report.
pub const SHADOW: u32 = 221;
/// `[runs, options]` -> calibration.
pub const CALIBRATE: u32 = 222;
/// `[model, layers, outcomes, options]` -> decision.
pub const DECIDE: u32 = 223;
/// `[model, ran, options]` -> model document.
pub const UPDATE: u32 = 224;

/// Whether `op` is one of this file's (never without the `replay` feature: the wasm engines
/// module leaves these ops to the replay module, so none of their code is linked into it).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (REPLAY..=UPDATE).contains(&op)
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
        REPLAY => replay::replay_value(arg(args, 0), arg(args, 1), Naming::Js),
        SHADOW => replay::shadow_value(arg(args, 0), arg(args, 1), Naming::Js),
        CALIBRATE => replay::calibrate_value(arg(args, 0), arg(args, 1), Naming::Js),
        DECIDE => {
            let model = model_of(arg(args, 0))?;
            replay::decide_value(&model, arg(args, 1), arg(args, 2), arg(args, 3), Naming::Js)
        }
        _ => {
            let model = model_of(arg(args, 0))?;
            replay::update_value(&model, arg(args, 1), arg(args, 2), Naming::Js)
        }
    }
}
