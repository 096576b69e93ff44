//! `BehaviorDetector` and `InterventionSystem` (drop-ins for aiwg's `behavior-detector.mjs`
//! and `intervention-system.mjs`): stateless ops, op codes `BD_*` and `IS_*` (260..=272 in
//! `contract::OPS`). The JS layer keeps each object's public fields (`thresholds`,
//! `interventionLog`, `isPaused`, `pauseReason`, the callbacks) as upstream's plain data and
//! hands what an op reads to it; the core checks it there, words every message and writes
//! every answer. "now" is the JS layer's clock (or the caller's `clock` option).
//!
//! Why stateless, and why in the replay module: the wasm package's engines module has a size
//! budget every page pays for, and these objects hold nothing the core must keep between
//! calls, so the wasm build answers them in its second module (loaded on first use in Node;
//! `init({ replay: true })` in a browser), and the engines module links none of their code.
//! The napi addon answers them like any other op.

use earlyexit::kit::loops::behavior::{
    build_strategy_override, build_warning, check_timestamp, import_keeping_log, inject_warning, log_start,
    pause_state, summarize_value,
};
use earlyexit::loops::behavior::{
    self, check_intervention_options, determine_level, text_argument, BehaviorDetector, Detection, Detector,
    Intervention, InterventionLog, Resume, Thresholds,
};
use earlyexit::{ErrorCode, Naming, Result, Value};

use crate::args;
use crate::op::{
    BD_DETECT, BD_NEW, BD_UPDATE, IS_IMPORT, IS_INJECT, IS_INTERVENE, IS_LEVEL, IS_LOG_START, IS_NEW, IS_RESUME,
    IS_STRATEGY, IS_SUMMARY, IS_WARNING,
};

const JS: Naming = Naming::Js;

/// Whether `op` is one of this file's (never without the `replay` feature: the wasm engines
/// module leaves these ops to the replay module, so none of their code is linked into it).
pub fn handles(op: u32) -> bool {
    cfg!(feature = "replay") && (BD_NEW..=IS_IMPORT).contains(&op)
}

fn detection(value: &Value) -> Result<Detection> {
    Detection::from_value(value, "detection", JS, ErrorCode::InvalidDetection)
}

/// The clock's reading (the JS layer's, or the caller's `clock` option), checked.
fn now(value: &Value) -> Result<&str> {
    match value {
        Value::String(text) => check_timestamp(text, "clock").map(|()| text.as_str()),
        // Not text: the type error `clock must be a string, got ...`.
        other => text_argument(other, "clock", false).map(|_| ""),
    }
}

/// `BD_DETECT`'s last argument: 0 is `detect`, 1..=5 the detectors in upstream's order.
fn detector(value: &Value) -> Option<Detector> {
    let index = value.as_f64().unwrap_or(0.0) as usize;
    index.checked_sub(1).and_then(|i| Detector::ALL.get(i).copied())
}

/// Answers one of this file's ops (`None`: nothing to answer).
pub fn exec(op: u32, args: &[Value]) -> Result<Option<Value>> {
    let value = match op {
        BD_NEW => {
            let a = args::BD_NEW::read(args);
            let base = Thresholds::from_value(a.thresholds, "THRESHOLDS", JS)?;
            BehaviorDetector::from_options(base, a.options, JS)?;
            return Ok(None);
        }
        BD_UPDATE => {
            let a = args::BD_UPDATE::read(args);
            let mut detector = BehaviorDetector::new(Thresholds::from_value(a.thresholds, "thresholds", JS)?);
            detector.update_thresholds(a.partial, JS)?;
            return Ok(None);
        }
        BD_DETECT => {
            let a = args::BD_DETECT::read(args);
            behavior::detect_value(a.thresholds, a.history, detector(a.detector), JS)?
        }
        IS_NEW => {
            check_intervention_options(args::IS_NEW::read(args).options, JS)?;
            return Ok(None);
        }
        IS_INTERVENE => {
            let a = args::IS_INTERVENE::read(args);
            let detection = detection(a.detection)?;
            let now = now(a.now)?;
            // Without `detection`: the JS layer puts the caller's own object there, as upstream does.
            Intervention::new(detection, now, "detection")?.to_value(JS, false)
        }
        IS_LEVEL => Value::string(determine_level(&detection(args::IS_LEVEL::read(args).detection)?).as_str()),
        IS_WARNING => Value::String(build_warning(&detection(args::IS_WARNING::read(args).detection)?, "detection")?),
        IS_STRATEGY => {
            let given = detection(args::IS_STRATEGY::read(args).detection)?;
            Value::String(build_strategy_override(&given, "detection")?)
        }
        IS_INJECT => {
            let a = args::IS_INJECT::read(args);
            let prompt = text_argument(a.prompt, "prompt", false)?.unwrap_or_default();
            let warning = text_argument(a.warning, "warning", false)?.unwrap_or_default();
            Value::String(inject_warning(&prompt, &warning))
        }
        IS_RESUME => {
            // `[approvalReason, now, isPaused, pauseReason]` -> false (not paused), or the entry.
            let a = args::IS_RESUME::read(args);
            let reason = text_argument(a.approval_reason, "approvalReason", true)?;
            let (paused, pause_reason) = pause_state(a.is_paused, a.pause_reason, JS)?;
            if !paused {
                return Ok(Some(Value::Bool(false)));
            }
            let mut log = InterventionLog::new();
            log.record_resume(Resume::new(reason, now(a.now)?, pause_reason)?);
            log.entries().first().map_or(Value::Null, |entry| entry.to_value(JS))
        }
        IS_LOG_START => {
            let a = args::IS_LOG_START::read(args);
            let len = a.log_length.as_f64().unwrap_or(0.0) as usize;
            Value::Number(log_start(len, a.limit)? as f64)
        }
        IS_SUMMARY => {
            // The log is the caller's own array (as upstream's): only what the summary reads.
            let a = args::IS_SUMMARY::read(args);
            let (paused, reason) = pause_state(a.is_paused, a.pause_reason, JS)?;
            summarize_value(a.intervention_log, "interventionLog", paused, reason.as_deref())?.to_value(JS)
        }
        _ => {
            debug_assert_eq!(op, IS_IMPORT);
            // `[takeLog, isPaused or null, pauseReason or null]`: what the JS layer takes over
            // (the log as the caller's own array, as upstream takes it).
            let (take_log, is_paused, pause_reason) = import_keeping_log(args::IS_IMPORT::read(args).state, JS)?;
            Value::Array(vec![
                Value::Bool(take_log),
                is_paused.map_or(Value::Null, Value::Bool),
                pause_reason.map_or(Value::Null, Value::String),
            ])
        }
    };
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "replay")]
    fn detect_and_intervene_answer_in_one_call() {
        let history = r#"{"analysis":{"error":"E","completionPercentage":0.1}}"#;
        let thresholds = Thresholds::DEFAULT.to_value(JS).to_json();
        let answer = crate::exec(BD_DETECT, &format!("[{thresholds},[{history},{history},{history}],1]"));
        assert!(answer.starts_with(r#"{"type":"stuck","severity":"high""#), "{answer}");
        let detection = answer;
        let intervention = crate::exec(IS_INTERVENE, &format!(r#"[{detection},"2026-01-01T00:00:00.000Z"]"#));
        assert!(intervention.starts_with(r#"{"level":"redirect","reason":"Loop stuck"#), "{intervention}");
        assert!(!intervention.contains("\"detection\""), "{intervention}");
        let bad = crate::exec(IS_INTERVENE, &format!(r#"[{detection},"yesterday"]"#));
        assert!(bad.starts_with(r#"!{"code":"invalid_config","kind":"range","field":"clock""#), "{bad}");
        let resumed = crate::exec(IS_RESUME, r#"["ok","2026-01-01T00:00:00.000Z",true,"why"]"#);
        assert_eq!(
            resumed,
            r#"{"level":"resume","reason":"ok","timestamp":"2026-01-01T00:00:00.000Z","previousPauseReason":"why"}"#
        );
        assert_eq!(crate::exec(IS_RESUME, r#"["ok","2026-01-01T00:00:00.000Z",false,null]"#), "false");
    }
}
