//! Calibration artifacts and shadow-mode receipts: stateless ops (`RECEIPTS_*`, `ARTIFACT_*`,
//! `LOOP_PROMOTE`, `LOOP_DRIFT`: 280..=289 in
//! `contract::OPS`), hashed with `earlyexit-digest` (SHA-256 over RFC 8785 canonical JSON),
//! the same crate every binding and the command line use. Only the replay module links them
//! (feature `replay`): the wasm engines module stays without a hash function.

use earlyexit::{Result, Value};

use crate::op::{LOOP_DRIFT, RECEIPTS_VERIFY};

/// Whether `op` is one of this file's (never without the `replay` feature).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (RECEIPTS_VERIFY..=LOOP_DRIFT).contains(&op)
}

/// Answers one of this file's ops.
#[cfg(feature = "replay")]
pub fn exec(op: u32, args: &[Value]) -> Result<Value> {
    use earlyexit::kit::host::type_error;
    use earlyexit::receipt_log::{append_receipts, verify_receipts};
    use earlyexit::ErrorCode;
    use earlyexit_digest::Sha256Hasher;

    use crate::args;
    use crate::op::{ARTIFACT_PROMOTE, LOOP_PROMOTE, RECEIPTS_APPEND};

    // The receipt log's JSONL text (`null` for a new log when appending).
    let text = |given: &Value, field: &str| -> Result<String> {
        match given {
            Value::String(s) => Ok(s.clone()),
            Value::Null if op == RECEIPTS_APPEND => Ok(String::new()),
            other => Err(type_error(ErrorCode::InvalidReceipt, field, "a string (JSONL text)", other)),
        }
    };
    use earlyexit::kit::pyramid::replay::{drift_value, promote_value};
    use earlyexit::Naming;
    match op {
        RECEIPTS_VERIFY => {
            Ok(verify_receipts(&text(args::RECEIPTS_VERIFY::read(args).text, "text")?, &Sha256Hasher).to_value())
        }
        crate::op::ARTIFACT_DRIFT => {
            let a = args::ARTIFACT_DRIFT::read(args);
            drift_value(a.artifact, a.runs, &Sha256Hasher, a.now, Naming::Js)
        }
        ARTIFACT_PROMOTE => {
            let a = args::ARTIFACT_PROMOTE::read(args);
            promote_value(a.artifact, a.audit_runs, &Sha256Hasher, a.now, Naming::Js)
        }
        LOOP_PROMOTE => {
            let a = args::LOOP_PROMOTE::read(args);
            earlyexit::kit::loops::replay::promote_loop_value(
                a.artifact,
                a.audit_runs,
                &Sha256Hasher,
                a.now,
                Naming::Js,
            )
        }
        LOOP_DRIFT => {
            let a = args::LOOP_DRIFT::read(args);
            earlyexit::kit::loops::replay::loop_drift_value(a.artifact, a.runs, &Sha256Hasher, a.now, Naming::Js)
        }
        _ => {
            let a = args::RECEIPTS_APPEND::read(args);
            let log = text(a.log, "log")?;
            let receipts = match a.receipts {
                Value::Array(items) => items.as_slice(),
                other => return Err(type_error(ErrorCode::InvalidReceipt, "receipts", "an array of receipts", other)),
            };
            append_receipts(&log, receipts, &Sha256Hasher).map(Value::String)
        }
    }
}

/// Without the replay module's feature no op is this file's ([`handles`] says so).
#[cfg(not(feature = "replay"))]
pub fn exec(_op: u32, args: &[Value]) -> Result<Value> {
    Ok(crate::wire::arg(args, 0).clone())
}

/// `calibratePyramidPolicy` with its artifact (op `PYRAMID_CALIBRATE`: `[runs, options, now]`).
#[cfg(feature = "replay")]
pub fn calibrate(args: &[Value]) -> Result<Value> {
    let a = crate::args::PYRAMID_CALIBRATE::read(args);
    earlyexit::kit::pyramid::replay::calibrate_artifact_value(
        a.runs,
        a.options,
        earlyexit::Naming::Js,
        &earlyexit_digest::Sha256Hasher,
        a.now,
    )
}

/// Without the replay module's feature calibration is not this module's.
#[cfg(not(feature = "replay"))]
pub fn calibrate(args: &[Value]) -> Result<Value> {
    Ok(crate::wire::arg(args, 0).clone())
}
