//! `Loop`, the refine-loop helper of the JS layer (`bindings/js/api/refine.js`): the core's
//! [`Loop`] held by the same native object as an `EarlyStopping`'s stop policy
//! ([`PolicyEngine`](crate::loop_replay::PolicyEngine), in the replay module in wasm, where
//! the policy code and SHA-256 are), driven by the `REFINE_*` ops.
//!
//! The outputs stay in JS: the core's loop keeps a handle per output (a number this object
//! gives each step or restored output), and every answer says which handles are still kept
//! (best, last, completed), so the JS layer holds at most three outputs. The automatic
//! fingerprint is hashed here (`earlyexit-digest`): a string's UTF-8, bytes (sent as the code
//! points 0..=255 of a string), or a JSON value's RFC 8785 canonical JSON, exactly as the
//! Python package hashes them.

use earlyexit::kit::loops::loop_policy;
use earlyexit::loops::{Kept, Loop, LoopOptions, StepInput};
use earlyexit::{ErrorCode, Naming, Value};

use super::{Answer, Failure};
use crate::op::{
    REFINE_FINISH, REFINE_FROM_JSON, REFINE_HISTORY, REFINE_OPEN, REFINE_RECEIPT, REFINE_RUN, REFINE_STEP,
    REFINE_TO_JSON,
};
use crate::wire::arg;

/// Whether `op` is one of this module's (answered by a `PolicyEngine` object only).
pub(crate) fn handles(op: u32) -> bool {
    matches!(
        op,
        REFINE_OPEN
            | REFINE_STEP
            | REFINE_HISTORY
            | REFINE_RUN
            | REFINE_FINISH
            | REFINE_TO_JSON
            | REFINE_FROM_JSON
            | REFINE_RECEIPT
    )
}

/// What a `PolicyEngine` holds when it is a `Loop`: the core's loop over output handles, and
/// the next handle to give.
pub struct RefineLoop {
    inner: Loop<u64>,
    next_handle: u64,
}

/// Whether `value` is plain JSON (no host object or non-finite number inside).
fn is_json(value: &Value) -> bool {
    match value {
        Value::Other(_) => false,
        Value::Number(n) => n.is_finite(),
        Value::Array(items) => items.iter().all(is_json),
        Value::Object(entries) => entries.iter().all(|(_, v)| is_json(v)),
        _ => true,
    }
}

/// The automatic fingerprint of an output as the JS layer sends it: `kind` 1 a JSON value
/// (a string's UTF-8; any other value's canonical JSON, or none when it is not plain JSON),
/// 2 bytes as the code points 0..=255 of a string; anything else none.
fn fingerprint_of(kind: &Value, data: &Value) -> Option<String> {
    match (kind.as_f64(), data) {
        (Some(1.0), Value::String(text)) => Some(earlyexit_digest::sha256_hex(text.as_bytes())),
        (Some(1.0), value) => {
            if !is_json(value) {
                return None;
            }
            earlyexit_digest::value_sha256(value, ErrorCode::InvalidResult, "output").ok()
        }
        (Some(2.0), Value::String(text)) => {
            let mut bytes = Vec::with_capacity(text.len());
            for c in text.chars() {
                bytes.push(u8::try_from(u32::from(c)).ok()?);
            }
            Some(earlyexit_digest::sha256_hex(&bytes))
        }
        _ => None,
    }
}

/// `[iteration, quality, handle]` of a kept output, or null.
fn kept(k: Option<&Kept<u64>>) -> Value {
    match k {
        None => Value::Null,
        Some(k) => Value::Array(vec![
            Value::Number(k.iteration as f64),
            Value::Number(k.quality),
            Value::Number(k.output as f64),
        ]),
    }
}

impl RefineLoop {
    /// What the JS layer mirrors after every change: `[decision or null, best, last,
    /// completed, output]` (each kept output `[iteration, quality, handle]` or null).
    fn state(&self) -> Value {
        let l = &self.inner;
        Value::Array(vec![
            l.decision().map_or(Value::Null, |d| d.to_value()),
            kept(l.best()),
            kept(l.last()),
            kept(l.completed()),
            kept(l.output()),
        ])
    }

    /// `[policy or preset name or null, options, artifact or null, nowMs]`.
    /// The loop, and the reason its shadow runs in shadow when the loop put it there itself
    /// (an artifact not promoted or expired: [`Loop::from_enforced`]).
    fn open(args: &[Value]) -> Result<(Self, Option<String>), Failure> {
        let a = crate::args::REFINE_OPEN::read(args);
        let options = LoopOptions::from_value_named(a.options, Naming::Js)?;
        let now = match a.now_ms {
            Value::Number(n) if n.is_finite() => *n as i64,
            _ => 0,
        };
        let sha256 = &earlyexit_digest::Sha256Hasher;
        let shadow = match a.shadow {
            Value::Null => None,
            given => Some(earlyexit::loops::shadow::ShadowCandidate::from_value(given, Naming::Js, now, sha256)?),
        };
        let inner = match a.artifact {
            Value::Null => {
                let policy = loop_policy(a.policy, Naming::Js)?;
                match shadow {
                    None => Loop::new(&policy, options)?,
                    Some(candidate) => Loop::with_shadow(&policy, options, candidate)?,
                }
            }
            artifact => {
                let enforced = earlyexit::loops::replay::enforced_from_artifact(artifact, now, sha256)?;
                Loop::from_enforced(enforced, options, shadow)?
            }
        };
        let reason = inner.shadow_reason().map(str::to_string);
        Ok((RefineLoop { inner, next_handle: 1 }, reason))
    }

    /// `[step arguments, nowMs, fingerprint kind, output data]` -> `[handle, notice or null,
    /// decision, best, last, completed, output]`.
    fn step(&mut self, args: &[Value]) -> Answer {
        let (quality, mut input) = StepInput::from_value_named(arg(args, 0), Naming::Js)?;
        if input.fingerprint.is_none() {
            input.fingerprint = fingerprint_of(arg(args, 2), arg(args, 3));
        }
        let now = match arg(args, 1) {
            Value::Number(n) if n.is_finite() => *n as i64,
            _ => 0,
        };
        let handle = self.next_handle;
        self.inner.step_named(handle, quality, input, || earlyexit::time::iso_from_millis(now), Naming::Js)?;
        self.next_handle += 1;
        let notice = self.inner.scale_notice().map_or(Value::Null, Value::string);
        let Value::Array(mut state) = self.state() else { return Ok(None) };
        state.insert(0, notice);
        state.insert(0, Value::Number(handle as f64));
        Ok(Some(Value::Array(state)))
    }

    /// `[outputs, [[handle, output], ...]]` -> the loop's JSON value (`invalid_snapshot`
    /// naming `best.output` for an output that is not a JSON value).
    fn to_json(&self, args: &[Value]) -> Answer {
        let a = crate::args::REFINE_TO_JSON::read(args);
        let outputs = match a.outputs {
            Value::Bool(b) => *b,
            other => {
                let code = ErrorCode::InvalidSnapshot;
                return Err(earlyexit::kit::host::type_error(code, "outputs", "a boolean", other).into());
            }
        };
        let given = match a.kept {
            Value::Array(items) => items.as_slice(),
            _ => &[],
        };
        let output = |handle: &u64| {
            given.iter().find_map(|pair| match pair {
                Value::Array(p) if p.first().and_then(Value::as_f64) == Some(*handle as f64) => {
                    p.get(1).filter(|v| is_json(v)).cloned()
                }
                _ => None,
            })
        };
        Ok(Some(self.inner.to_value_named(outputs, output, Naming::Js)?))
    }

    /// `[loop value or its JSON text]` -> `[state, [[handle, output or null], ...]]`.
    fn from_json(args: &[Value]) -> Result<(Self, Value), Failure> {
        let parsed;
        let value = match crate::args::REFINE_FROM_JSON::read(args).snapshot {
            Value::String(text) => {
                parsed = Value::parse_json(text, ErrorCode::InvalidSnapshot, "snapshot")?;
                &parsed
            }
            other => other,
        };
        let outputs = std::cell::RefCell::new(Vec::new());
        let inner = Loop::from_value(value, |_, v| {
            let mut outputs = outputs.borrow_mut();
            let handle = outputs.len() as u64 + 1;
            outputs.push(Value::Array(vec![Value::Number(handle as f64), v.cloned().unwrap_or(Value::Null)]));
            Ok(handle)
        })?;
        let outputs = outputs.into_inner();
        let restored = RefineLoop { inner, next_handle: outputs.len() as u64 + 1 };
        let state = restored.state();
        Ok((restored, Value::Array(vec![state, Value::Array(outputs)])))
    }
}

/// Answers a `REFINE_*` op on a `PolicyEngine`'s loop (`slot`); `REFINE_OPEN` and
/// `REFINE_FROM_JSON` fill the slot. A failed op leaves it as it was.
pub(crate) fn call(slot: &mut Option<RefineLoop>, op: u32, args: &[Value]) -> Answer {
    match op {
        REFINE_OPEN => {
            let (opened, reason) = RefineLoop::open(args)?;
            *slot = Some(opened);
            Ok(Some(reason.map_or(Value::Null, |r| Value::string(r.as_str()))))
        }
        REFINE_FROM_JSON => {
            let (restored, answer) = RefineLoop::from_json(args)?;
            *slot = Some(restored);
            Ok(Some(answer))
        }
        _ => {
            let l = slot.as_mut().ok_or_else(super::not_ready)?;
            match op {
                REFINE_STEP => l.step(args),
                REFINE_HISTORY => {
                    let history = l.inner.history();
                    let mut records = Vec::with_capacity(history.len());
                    for record in history {
                        records.push(record.to_value());
                    }
                    Ok(Some(Value::Array(records)))
                }
                REFINE_RUN => Ok(Some(l.inner.run(crate::args::REFINE_RUN::read(args).id.as_str().unwrap_or("")))),
                REFINE_FINISH => {
                    let a = crate::args::REFINE_FINISH::read(args);
                    let good = match a.good {
                        Value::Null => None,
                        Value::Bool(b) => Some(*b),
                        other => {
                            let code = ErrorCode::InvalidResult;
                            return Err(earlyexit::kit::host::type_error(code, "good", "a boolean", other).into());
                        }
                    };
                    Ok(Some(l.inner.finish(good, a.id.as_str().unwrap_or(""))))
                }
                REFINE_TO_JSON => l.to_json(args),
                REFINE_RECEIPT => {
                    let id = crate::args::REFINE_RECEIPT::read(args).id.as_str().unwrap_or("");
                    Ok(Some(l.inner.receipt(id).unwrap_or(Value::Null)))
                }
                op => Err(super::unknown_op(op)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loop_replay::PolicyEngine;

    fn call(engine: &mut PolicyEngine, op: u32, args: &str) -> String {
        engine.call(op, args)
    }

    /// A loop over handles: `done` stops with `completed` over the cap on the same step, the
    /// kept handles follow the core's rules, and a bad step changes nothing.
    #[test]
    fn a_loop_steps_keeps_handles_and_refuses_bad_input() {
        let mut e = PolicyEngine::new();
        assert_eq!(call(&mut e, REFINE_OPEN, r#"[null,{"scale":1,"maxIterations":2},null,0]"#), "null");
        let first = call(&mut e, REFINE_STEP, r#"[{"quality":0.5,"fingerprint":"a"},0,0,null]"#);
        assert!(first.starts_with("[1,null,{") && first.contains(r#"[1,0.5,1]"#), "{first}");
        let bad = call(&mut e, REFINE_STEP, r#"[{"quality":2},0,0,null]"#);
        assert!(bad.starts_with(r#"!{"code":"invalid_result","kind":"range","field":"quality""#), "{bad}");
        let bad = call(&mut e, REFINE_STEP, r#"[{"quality":0.5,"costUsd":-1},0,0,null]"#);
        assert!(bad.contains(r#""field":"costUsd""#), "{bad}");
        let second = call(&mut e, REFINE_STEP, r#"[{"quality":0.4,"done":true},0,1,"x"]"#);
        assert!(second.starts_with("[2,null,") && second.contains(r#""trigger":"completed""#), "{second}");
        // best stays 1, the output is the completed one (handle 2).
        assert!(second.ends_with(r#"[1,0.5,1],[2,0.4,2],[2,0.4,2],[2,0.4,2]]"#), "{second}");
        let history = call(&mut e, REFINE_HISTORY, "[]");
        let hashed = earlyexit_digest::sha256_hex(b"x");
        assert!(history.contains(&hashed) && history.contains(r#""fingerprint":"a""#), "{history}");
    }

    #[test]
    fn fingerprints_hash_text_bytes_and_json_values() {
        let text = Value::string("héllo");
        assert_eq!(fingerprint_of(&Value::Number(1.0), &text), Some(earlyexit_digest::sha256_hex("héllo".as_bytes())));
        let bytes = Value::string("\u{0}\u{ff}\u{10}");
        assert_eq!(fingerprint_of(&Value::Number(2.0), &bytes), Some(earlyexit_digest::sha256_hex(&[0, 255, 16])));
        assert_eq!(fingerprint_of(&Value::Number(2.0), &Value::string("\u{100}")), None);
        let json =
            Value::parse_json(r#"{"b":1,"a":[true,null]}"#, ErrorCode::InvalidResult, "x").unwrap_or(Value::Null);
        let canonical = earlyexit_digest::sha256_hex(br#"{"a":[true,null],"b":1}"#);
        assert_eq!(fingerprint_of(&Value::Number(1.0), &json), Some(canonical));
        let host = Value::Array(vec![Value::Other("function".into())]);
        assert_eq!(fingerprint_of(&Value::Number(1.0), &host), None);
        assert_eq!(fingerprint_of(&Value::Number(0.0), &text), None);
    }
}
