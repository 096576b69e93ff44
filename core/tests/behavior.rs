//! The behaviour detectors and interventions against `tests/vectors/behavior/behavior.json`
//! (expected values from aiwg's `behavior-detector.mjs` and `intervention-system.mjs`, and
//! the hand-written errors and differences): every vector, through the core's Rust API, with
//! a host written here the way the bindings write theirs (the clock answers the vector's
//! `now`, the pause state and the log are kept here). Prints how often each detection type
//! and each intervention level occurred.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod vector_harness;

use std::collections::BTreeMap;

use earlyexit::loops::behavior::{
    build_strategy_override, build_warning, check_intervention_options, determine_level, export_state, inject_warning,
    text_argument, BehaviorDetector, Detection, Detector, Intervention, InterventionLevel, InterventionLog, Resume,
    StateImport, Thresholds,
};
use earlyexit::{Error, ErrorCode, Naming, Value};
use vector_harness::{decode, vectors_dir};

const JS: Naming = Naming::Js;

fn vectors() -> Vec<Value> {
    let path = vectors_dir().join("behavior").join("behavior.json");
    let text = std::fs::read_to_string(path).unwrap();
    let doc = decode(Value::parse_json(&text, ErrorCode::InvalidReplay, "vectors").unwrap());
    let Some(Value::Array(vectors)) = doc.get("vectors").cloned() else { panic!("no vectors") };
    vectors
}

fn detection(value: &Value) -> Result<Detection, Error> {
    Detection::from_value(value, "detection", JS, ErrorCode::InvalidDetection)
}

/// The host side of `InterventionSystem`, as the bindings keep it.
#[derive(Default)]
struct Host {
    log: InterventionLog,
    paused: bool,
    reason: Option<String>,
    callbacks: BTreeMap<&'static str, f64>,
}

impl Host {
    fn call(&mut self, call: &str, args: &[Value], now: &str) -> Result<Value, Error> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Other("undefined".into()));
        Ok(match call {
            "intervene" => {
                let intervention = Intervention::new(detection(&arg(0))?, now, "detection")?;
                match intervention.level() {
                    InterventionLevel::Pause => {
                        self.paused = true;
                        self.reason = Some(intervention.reason.clone());
                        *self.callbacks.entry("onPause").or_default() += 1.0;
                    }
                    InterventionLevel::Abort => *self.callbacks.entry("onAbort").or_default() += 1.0,
                    _ => {}
                }
                let value = intervention.to_value(JS, true);
                self.log.record(intervention);
                *self.callbacks.entry("onIntervention").or_default() += 1.0;
                value
            }
            "determineLevel" => Value::string(determine_level(&detection(&arg(0))?).as_str()),
            "buildWarning" => Value::string(build_warning(&detection(&arg(0))?)),
            "buildStrategyOverride" => Value::string(build_strategy_override(&detection(&arg(0))?, "detection")?),
            "injectWarning" => {
                let prompt = text_argument(&arg(0), "prompt", false)?.unwrap_or_default();
                let warning = text_argument(&arg(1), "warning", false)?.unwrap_or_default();
                Value::string(inject_warning(&prompt, &warning))
            }
            "resume" => {
                let reason = text_argument(&arg(0), "approvalReason", true)?;
                if !self.paused {
                    return Ok(Value::Bool(false));
                }
                self.log.record_resume(Resume::new(reason, now, self.reason.take())?);
                self.paused = false;
                Value::Bool(true)
            }
            "getPauseStatus" => Value::object(vec![
                ("isPaused", Value::Bool(self.paused)),
                ("reason", self.reason.clone().map_or(Value::Null, Value::String)),
            ]),
            "getLog" => {
                let entries = self.log.tail(&arg(0))?;
                Value::Array(entries.iter().map(|e| e.to_value(JS)).collect())
            }
            "getSummary" => self.log.summary(self.paused, self.reason.as_deref()).to_value(JS),
            "exportState" => export_state(&self.log, self.paused, self.reason.as_deref(), JS),
            "importState" => {
                let state = StateImport::from_value(&arg(0), JS)?;
                if let Some(log) = state.log {
                    self.log = log;
                }
                if let Some(paused) = state.is_paused {
                    self.paused = paused;
                }
                if let Some(reason) = state.pause_reason {
                    self.reason = Some(reason);
                }
                return Ok(Value::Other("undefined".into()));
            }
            "clearLog" => {
                self.log.clear();
                return Ok(Value::Other("undefined".into()));
            }
            "reset" => {
                *self = Host { callbacks: std::mem::take(&mut self.callbacks), ..Host::default() };
                return Ok(Value::Other("undefined".into()));
            }
            other => panic!("unknown call {other}"),
        })
    }
}

fn detector_call(detector: &mut BehaviorDetector, call: &str, args: &[Value]) -> Result<Value, Error> {
    let history = args.first().cloned().unwrap_or(Value::Other("undefined".into()));
    let which = |d| detector.detect_value(&history, Some(d), JS);
    match call {
        "detect" => detector.detect_value(&history, None, JS),
        "detectStuck" => which(Detector::Stuck),
        "detectOscillation" => which(Detector::Oscillation),
        "detectDeviation" => which(Detector::Deviation),
        "detectResourceBurn" => which(Detector::ResourceBurn),
        "detectRegression" => which(Detector::Regression),
        "getThresholds" => Ok(detector.thresholds().to_value(JS)),
        "updateThresholds" => detector.update_thresholds(&history, JS).map(|()| Value::Other("undefined".into())),
        other => panic!("unknown call {other}"),
    }
}

fn check_error(name: &str, error: &Error, throws: &Value) {
    let expected = (throws.get("code").and_then(Value::as_str), throws.get("field").and_then(Value::as_str));
    assert_eq!((Some(error.code()), Some(error.field())), expected, "{name}: {error}");
    assert_eq!(Some(error.kind().as_str()), throws.get("kind").and_then(Value::as_str), "{name}: {error}");
}

#[test]
fn every_behavior_vector_matches_the_reference() {
    let vectors = vectors();
    assert!(vectors.len() > 250, "{} vectors", vectors.len());
    let (mut passed, mut skipped) = (0, 0);
    let mut types: BTreeMap<String, u32> = BTreeMap::new();
    let mut levels: BTreeMap<String, u32> = BTreeMap::new();
    for v in &vectors {
        let name = v.get("name").and_then(Value::as_str).unwrap();
        if let Some(Value::Array(only)) = v.get("only") {
            if !only.iter().any(|o| o.as_str() == Some("rust")) {
                skipped += 1;
                continue;
            }
        }
        let options = v.get("construct").and_then(|c| c.get("options")).cloned().unwrap_or(Value::Null);
        let engine = v.get("engine").and_then(Value::as_str).unwrap();
        let built = match engine {
            "BehaviorDetector" => BehaviorDetector::from_options(Thresholds::DEFAULT, &options, JS).map(Some),
            _ => check_intervention_options(&options, JS).map(|()| None),
        };
        let mut detector = match (built, v.get("throws")) {
            (Err(e), Some(throws)) => {
                check_error(name, &e, throws);
                passed += 1;
                continue;
            }
            (Err(e), None) => panic!("{name}: {e}"),
            (Ok(_), Some(_)) => panic!("{name}: the constructor did not throw"),
            (Ok(d), None) => d,
        };
        let mut host = Host::default();
        for (i, c) in v
            .get("calls")
            .and_then(|c| match c {
                Value::Array(calls) => Some(calls),
                _ => None,
            })
            .unwrap()
            .iter()
            .enumerate()
        {
            let call = c.get("call").and_then(Value::as_str).unwrap();
            let args = match c.get("args") {
                Some(Value::Array(args)) => args.clone(),
                _ => Vec::new(),
            };
            let now = c.get("now").and_then(Value::as_str).unwrap_or("");
            let got = match detector.as_mut() {
                Some(d) => detector_call(d, call, &args),
                None => host.call(call, &args, now),
            };
            match (got, c.get("returns"), c.get("throws")) {
                (Err(e), _, Some(throws)) => check_error(&format!("{name} call {i}"), &e, throws),
                (Err(e), _, None) => panic!("{name} call {i} ({call}): {e}"),
                (Ok(actual), _, Some(_)) => panic!("{name} call {i} ({call}): expected an error, got {actual:?}"),
                (Ok(actual), expected, None) => {
                    let expected = expected.cloned().unwrap_or(Value::Other("undefined".into()));
                    assert_eq!(actual, expected, "{name} call {i} ({call})");
                    if call.starts_with("detect") {
                        let found = match &actual {
                            Value::Array(items) => items.clone(),
                            Value::Null => Vec::new(),
                            one => vec![one.clone()],
                        };
                        for d in found {
                            *types.entry(d.get("type").and_then(Value::as_str).unwrap().to_string()).or_default() += 1;
                        }
                    }
                    if call == "intervene" {
                        let from = c.get("from").and_then(Value::as_str).unwrap_or("direct");
                        let level = actual.get("level").and_then(Value::as_str).unwrap();
                        *levels.entry(format!("{level} ({from})")).or_default() += 1;
                    }
                }
            }
        }
        if let Some(Value::Object(expected)) = v.get("callbacks") {
            for (callback, count) in expected {
                let got = host.callbacks.get(callback.as_str()).copied().unwrap_or(0.0);
                assert_eq!(Some(got), count.as_f64(), "{name}: {callback} calls");
            }
        }
        passed += 1;
    }
    println!("behavior vectors: {passed} passed, {skipped} skipped (not for rust)");
    println!("detections by type: {types:?}");
    println!("intervention levels: {levels:?}");
    for t in ["stuck", "oscillation", "deviation", "resource_burn", "regression"] {
        assert!(types.contains_key(t), "no {t} detection");
    }
    for level in ["warn", "redirect", "pause", "abort"] {
        assert!(levels.contains_key(&format!("{level} (detector)")), "no {level} from a detection");
    }
    assert!(levels.contains_key("log (direct)"), "no log level");
}
