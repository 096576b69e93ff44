//! Calibration artifacts and shadow-mode receipts: stateless ops (`RECEIPTS_*`, 280..=289 in
//! `contract::OPS`), hashed with `earlyexit-digest` (SHA-256 over RFC 8785 canonical JSON),
//! the same crate every binding and the command line use. Only the replay module links them
//! (feature `replay`): the wasm engines module stays without a hash function.

use earlyexit::{Result, Value};

use crate::op::{RECEIPTS_APPEND, RECEIPTS_VERIFY};

/// Whether `op` is one of this file's (never without the `replay` feature).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (RECEIPTS_VERIFY..=RECEIPTS_APPEND).contains(&op)
}

fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// Answers one of this file's ops.
#[cfg(feature = "replay")]
pub fn exec(op: u32, args: &[Value]) -> Result<Value> {
    use earlyexit::artifact::{append_receipts, verify_receipts};
    use earlyexit::host::type_error;
    use earlyexit::ErrorCode;
    use earlyexit_digest::Sha256Hasher;

    let text = |i: usize, field: &str| -> Result<String> {
        match arg(args, i) {
            Value::String(s) => Ok(s.clone()),
            Value::Null if i == 0 && op == RECEIPTS_APPEND => Ok(String::new()),
            other => Err(type_error(ErrorCode::InvalidReceipt, field, "a string (JSONL text)", other)),
        }
    };
    match op {
        RECEIPTS_VERIFY => Ok(verify_receipts(&text(0, "text")?, &Sha256Hasher).to_value()),
        _ => {
            let log = text(0, "log")?;
            let receipts = match arg(args, 1) {
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
    Ok(arg(args, 0).clone())
}
