//! BehaviorDetector and InterventionSystem vectors (`tests/vectors/behavior/behavior.json`)
//! through the core's Rust API, with a host written here the way the bindings write theirs
//! (the clock answers each call's `now`, the pause state, the log and the callback counts are
//! kept here). Shared by `behavior.rs` (every vector) and `bad_input.rs` (matrix rows that
//! name one).

use std::collections::BTreeMap;

use earlyexit::kit::loops::behavior::{build_strategy_override, build_warning, export_state, inject_warning};
use earlyexit::loops::behavior::{
    check_intervention_options, determine_level, text_argument, BehaviorDetector, Detection, Detector, Intervention,
    InterventionLevel, InterventionLog, Resume, StateImport, Thresholds,
};
use earlyexit::{Error, ErrorCode, Naming, Value};

const JS: Naming = Naming::Js;

/// Whether `engine` is one of this module's.
pub fn handles(engine: &str) -> bool {
    engine == "BehaviorDetector" || engine == "InterventionSystem"
}

pub fn detection(value: &Value) -> Result<Detection, Error> {
    Detection::from_value(value, "detection", JS, ErrorCode::InvalidDetection)
}

/// The host side of `InterventionSystem`, as the bindings keep it.
#[derive(Default)]
pub struct Host {
    log: InterventionLog,
    paused: bool,
    reason: Option<String>,
    callbacks: BTreeMap<&'static str, f64>,
}

impl Host {
    pub fn call(&mut self, call: &str, args: &[Value], now: &str) -> Result<Value, Error> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Other("undefined".into()));
        Ok(match call {
            "intervene" => {
                let intervention = Intervention::new(detection(&arg(0))?, now, "detection")?;
                match intervention.level() {
                    InterventionLevel::Pause => {
                        self.paused = true;
                        self.reason = intervention.reason.clone();
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
            "buildWarning" => Value::string(build_warning(&detection(&arg(0))?, "detection")?),
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

pub fn detector_call(detector: &mut BehaviorDetector, call: &str, args: &[Value]) -> Result<Value, Error> {
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

fn check_error(at: &str, error: &Error, throws: &Value) -> Result<(), String> {
    let expected = (throws.get("code").and_then(Value::as_str), throws.get("field").and_then(Value::as_str));
    let kind = throws.get("kind").and_then(Value::as_str);
    if (Some(error.code()), Some(error.field()), Some(error.kind().as_str())) == (expected.0, expected.1, kind) {
        Ok(())
    } else {
        Err(format!("{at}: expected {throws:?}, got {} at {} ({})", error.code(), error.field(), error.kind().as_str()))
    }
}

/// Runs one behaviour vector: every answer and error as the vector gives it, the state
/// unchanged after a refused call, the callback counts. Answers the first mismatch.
pub fn run(v: &Value) -> Result<(), String> {
    let options = v.get("construct").and_then(|c| c.get("options")).cloned().unwrap_or(Value::Null);
    let engine = v.get("engine").and_then(Value::as_str).unwrap_or("");
    let built = match engine {
        "BehaviorDetector" => BehaviorDetector::from_options(Thresholds::DEFAULT, &options, JS).map(Some),
        _ => check_intervention_options(&options, JS).map(|()| None),
    };
    let mut detector = match (built, v.get("throws")) {
        (Err(e), Some(throws)) => return check_error("constructor", &e, throws),
        (Err(e), None) => return Err(format!("constructor: {e}")),
        (Ok(_), Some(_)) => return Err("the constructor did not throw".into()),
        (Ok(d), None) => d,
    };
    let mut host = Host::default();
    let Some(Value::Array(calls)) = v.get("calls") else { return Ok(()) };
    for (i, c) in calls.iter().enumerate() {
        let call = c.get("call").and_then(Value::as_str).unwrap_or("");
        let at = format!("call {i} ({call})");
        let args = match c.get("args") {
            Some(Value::Array(args)) => args.clone(),
            _ => Vec::new(),
        };
        let now = c.get("now").and_then(Value::as_str).unwrap_or("");
        let state = |d: &Option<BehaviorDetector>, h: &Host| match d {
            Some(d) => d.thresholds().to_value(JS),
            None => export_state(&h.log, h.paused, h.reason.as_deref(), JS),
        };
        let before = state(&detector, &host);
        let got = match detector.as_mut() {
            Some(d) => detector_call(d, call, &args),
            None => host.call(call, &args, now),
        };
        match (got, c.get("throws")) {
            (Err(e), Some(throws)) => {
                check_error(&at, &e, throws)?;
                if state(&detector, &host) != before {
                    return Err(format!("{at}: a refused call changed the state"));
                }
            }
            (Err(e), None) => return Err(format!("{at}: {e}")),
            (Ok(actual), Some(_)) => return Err(format!("{at}: expected an error, got {actual:?}")),
            (Ok(actual), None) => {
                let expected = c.get("returns").cloned().unwrap_or(Value::Other("undefined".into()));
                if actual != expected {
                    return Err(format!("{at}: expected {}, got {}", expected.to_json(), actual.to_json()));
                }
            }
        }
    }
    if let Some(Value::Object(expected)) = v.get("callbacks") {
        for (callback, count) in expected {
            let got = host.callbacks.get(callback.as_str()).copied().unwrap_or(0.0);
            if Some(got) != count.as_f64() {
                return Err(format!("{callback}: called {got} times, expected {count:?}"));
            }
        }
    }
    Ok(())
}
