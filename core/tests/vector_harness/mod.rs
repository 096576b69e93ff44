//! Runs conformance vectors (format: `tests/vectors/README.md`) through the core; shared by
//! `vectors.rs` (every `tests/vectors/*.json`) and `bad_input.rs` (the bad-input matrix).
//! The behaviour engines' vectors run in `behavior` (`behavior.rs` runs all of them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, dead_code)]

pub mod behavior;

use earlyexit::loops::analytics::IterationAnalytics;
use earlyexit::loops::{DiminishingReturnsReport, EarlyStopping};
use earlyexit::pyramid::policy::{LiveRun, RunOptions};
use earlyexit::pyramid::CoherenceEarlyExit;
use earlyexit::pyramid::{self, Speculation};
use earlyexit::pyramid::{calculate_quality_signal, count_quality_partitions, LayerResult};
use earlyexit::pyramid::{Action, PyramidRun};
use earlyexit::{
    kit::{self, num},
    Error, ExitConfig, Naming, Value,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// Decodes `{"$num": "NaN"}` and friends.
pub fn decode(v: Value) -> Value {
    match v {
        Value::Object(entries) => {
            if let [(k, Value::String(s))] = entries.as_slice() {
                if k == "$num" {
                    return Value::Number(match s.as_str() {
                        "NaN" => f64::NAN,
                        "Infinity" => f64::INFINITY,
                        "-Infinity" => f64::NEG_INFINITY,
                        "-0" => -0.0,
                        other => panic!("bad $num {other}"),
                    });
                }
            }
            Value::Object(entries.into_iter().map(|(k, v)| (k, decode(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(decode).collect()),
        other => other,
    }
}

/// Keys the project adds to the seeds' objects (architecture.md, "Exact to the seed").
const LISTED_EXTRAS: &[&str] = &[
    "best_iteration",
    "best_quality_score",
    "budgets",
    "layersExecuted",
    "verifiedLayers",
    "mispredictions",
    "computeSavedMs",
    "verdict",
    "failingLayers",
];

/// Compares `actual` against `expected`: every expected key equal (numbers bit for bit),
/// any extra key a listed one (top level only).
fn compare(expected: &Value, actual: &Value, path: &str, top: bool) -> Result<(), String> {
    match (expected, actual) {
        (Value::Number(e), Value::Number(a)) => {
            if e.to_bits() == a.to_bits() || (e.is_nan() && a.is_nan()) {
                Ok(())
            } else {
                Err(format!("{path}: expected {} got {}", num::to_js_string(*e), num::to_js_string(*a)))
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!("{path}: expected {} items, got {}", e.len(), a.len()));
            }
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                compare(e, a, &format!("{path}[{i}]"), false)?;
            }
            Ok(())
        }
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let Some(av) = actual.get(k) else { return Err(format!("{path}.{k}: missing")) };
                compare(ev, av, &format!("{path}.{k}"), false)?;
            }
            for (k, _) in a {
                if expected.get(k).is_none() && !(top && LISTED_EXTRAS.contains(&k.as_str())) {
                    return Err(format!("{path}.{k}: unexpected extra key"));
                }
            }
            // key order must match the seed's where both have the key
            let order_e: Vec<&String> = e.iter().map(|(k, _)| k).collect();
            let order_a: Vec<&String> = a.iter().map(|(k, _)| k).filter(|k| expected.get(k).is_some()).collect();
            if order_e != order_a {
                return Err(format!("{path}: key order {order_a:?}, expected {order_e:?}"));
            }
            Ok(())
        }
        (e, a) if e == a => Ok(()),
        (e, a) => Err(format!("{path}: expected {} got {}", e.to_json(), a.to_json())),
    }
}

/// What a scripted outside diminishing-returns source answers, one element per call.
struct Script {
    answers: Vec<Value>,
    calls: usize,
}

impl Script {
    fn next(&mut self) -> Result<DiminishingReturnsReport, Error> {
        let answer = self.answers.get(self.calls).cloned().unwrap_or(Value::Null);
        self.calls += 1;
        DiminishingReturnsReport::from_value(&answer, Naming::Js)
    }
}

/// The tests' SHA-256 (RustCrypto's, as the bindings' earlyexit-digest), for the receipt-log
/// vectors and `calibrateLoopPolicy`.
#[path = "../test_sha256/mod.rs"]
mod test_sha256;
use test_sha256::TestSha256;

enum Engine {
    Loop(EarlyStopping, Option<Script>),
    Analytics(IterationAnalytics),
    Exit(CoherenceEarlyExit),
    Speculative(ExitConfig),
    Controller(Value, Value),
    Steps(LiveRun),
    Stateless,
    /// The receipt log's functions (stateless), hashing with RustCrypto's SHA-256 as the
    /// bindings do (earlyexit-digest), so logs chained elsewhere verify here.
    Receipts,
}

impl Engine {
    fn snapshot(&self) -> String {
        match self {
            // The script's call count is not engine state: asking the source is part of a
            // decision even when its answer is rejected (counts are checked via analyticsCalls).
            Engine::Loop(e, _) => e.to_snapshot().to_json(),
            Engine::Analytics(a) => a.to_snapshot().to_json(),
            Engine::Steps(r) => r.to_snapshot().to_json(),
            _ => String::new(),
        }
    }
}

#[derive(Default)]
pub struct Coverage {
    pub triggers: BTreeMap<String, usize>,
    pub exit_reasons: BTreeMap<String, usize>,
    pub templates: BTreeMap<String, usize>,
    pub errors: BTreeMap<String, usize>,
}

impl Coverage {
    fn note(map: &mut BTreeMap<String, usize>, key: &str, seen: &mut Vec<String>) {
        let tagged = format!("{:p}{key}", map as *const _);
        if !seen.contains(&tagged) {
            seen.push(tagged);
            *map.entry(key.to_string()).or_default() += 1;
        }
    }

    fn observe(&mut self, v: &Value, seen: &mut Vec<String>) {
        if let Some(t) = v.get("trigger").and_then(Value::as_str) {
            Self::note(&mut self.triggers, t, seen);
        }
        for key in ["exitReason", "reason"] {
            if let Some(r) = v.get(key).and_then(Value::as_str) {
                if key == "exitReason" || v.get("canExit").is_some() {
                    Self::note(&mut self.exit_reasons, r, seen);
                }
            }
        }
        for key in ["reason", "explanation", "stopping_reason", "selection_reason"] {
            if let Some(s) = v.get(key).and_then(Value::as_str) {
                Self::note(&mut self.templates, &template_of(s), seen);
            }
        }
        match v {
            Value::Object(entries) => entries.iter().for_each(|(_, item)| self.observe(item, seen)),
            Value::Array(items) => items.iter().for_each(|item| self.observe(item, seen)),
            _ => {}
        }
    }
}

/// A string with its numbers replaced by `#`: the template it came from.
fn template_of(s: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in s.chars() {
        let numeric = c.is_ascii_digit() || (in_number && (c == '.' || c == 'e' || c == '+' || c == '-'));
        if numeric || (c == '-' && !in_number && out.ends_with(' ')) {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).cloned().unwrap_or(Value::Null)
}

fn fixed_timestamp() -> String {
    "2026-01-01T00:00:00.000Z".to_string()
}

/// Scripted runners: `layers[i].results` answered in order, counting calls.
struct Runners {
    results: Vec<Vec<Value>>,
    calls: Vec<usize>,
}

impl Runners {
    fn new(layers: &Value) -> Self {
        let Value::Array(items) = layers else { panic!("layers must be an array") };
        let results: Vec<Vec<Value>> = items
            .iter()
            .map(|l| match l.get("results") {
                Some(Value::Array(r)) => r.clone(),
                _ => Vec::new(),
            })
            .collect();
        let calls = vec![0; results.len()];
        Runners { results, calls }
    }

    /// `Err(message)` when the scripted element is `{"$throw": message}`.
    fn call(&mut self, i: usize) -> Result<Value, String> {
        let n = self.calls[i];
        self.calls[i] += 1;
        let v = self.results[i].get(n).cloned().unwrap_or(Value::Null);
        match v.get("$throw") {
            Some(m) => Err(m.as_str().unwrap_or("").to_string()),
            None => Ok(v),
        }
    }
}

/// A call's outcome: a value, a core error, or a runner's own error.
enum Outcome {
    Value(Value),
    Error(Error),
    Thrown(String),
}

fn specs_of(layers: &Value) -> Value {
    let Value::Array(items) = layers else { return layers.clone() };
    Value::Array(
        items
            .iter()
            .map(|l| match l {
                Value::Object(entries) => {
                    Value::Object(entries.iter().filter(|(k, _)| k != "results").cloned().collect())
                }
                other => other.clone(),
            })
            .collect(),
    )
}

fn run_pyramid(config: &Value, total_layers: &Value, layers: &Value, runners: &mut Runners) -> Outcome {
    let mut run = match PyramidRun::start_value(config, total_layers, &specs_of(layers), Naming::Js) {
        Ok(run) => run,
        Err(e) => return Outcome::Error(e),
    };
    loop {
        match run.next() {
            Action::Done => return Outcome::Value(run.result().unwrap().to_value(Naming::Js)),
            Action::Run(i) | Action::Verify(i) => {
                let result = match runners.call(i) {
                    Ok(v) => v,
                    Err(message) => return Outcome::Thrown(message),
                };
                if let Err(e) = run.submit_value(&Value::Number(i as f64), &result, Naming::Js) {
                    return Outcome::Error(e);
                }
            }
        }
    }
}

fn call(engine: &mut Engine, call: &Value) -> Outcome {
    let name = call.get("call").and_then(Value::as_str).unwrap();
    let args: Vec<Value> = match call.get("args") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let ok = |v: Value| Outcome::Value(v);
    let from = |r: Result<Value, Error>| match r {
        Ok(v) => Outcome::Value(v),
        Err(e) => Outcome::Error(e),
    };
    match engine {
        Engine::Loop(es, script) => match name {
            "recordIterationResult" => from(
                es.record_value(&arg(&args, 0), &arg(&args, 1), Naming::Js, fixed_timestamp)
                    .map(|recorded| recorded.to_value().unwrap_or(Value::Null)),
            ),
            "shouldStop" => {
                let source = script.as_mut().map(|s| move || s.next());
                from(es.should_stop_with(source).map(|d| d.to_value()))
            }
            "generateSummary" => {
                let source = script.as_mut().map(|s| move || s.next());
                from(es.generate_summary_with(source).map(|s| s.to_value()))
            }
            "getStoppingReason" => ok(es.stopping_reason().map_or(Value::Null, Value::string)),
            "getStoppingDetails" => ok(es.stopping_details().map_or(Value::Null, |d| d.to_value())),
            "configure" => from(es.configure_value(&arg(&args, 0), Naming::Js).map(|_| Value::Null)),
            "getConfig" => ok(es.config().to_value(Naming::Js)),
            "getIterationHistory" => ok(Value::Array(es.history().iter().map(|r| r.to_value()).collect())),
            "reset" => {
                es.reset();
                ok(Value::Null)
            }
            "toJSON" => ok(es.to_snapshot()),
            "fromJSON" => match restore(&arg(&args, 0), EarlyStopping::from_snapshot) {
                Ok(restored) => {
                    *es = restored;
                    ok(Value::Null)
                }
                Err(e) => Outcome::Error(e),
            },
            other => panic!("unknown EarlyStopping call {other}"),
        },
        Engine::Analytics(a) => match name {
            "recordIteration" => {
                from(a.record_value(&arg(&args, 0), Naming::Js, &fixed_timestamp()).map(|r| r.to_value()))
            }
            "detectDiminishingReturns" => ok(a.detect_diminishing_returns().to_value()),
            "getTrajectory" => ok(Value::string(a.trajectory().as_str())),
            "getOptimalIteration" => match args.first() {
                // A binding passes the argument through the core's check; absent means true.
                Some(given) => from(
                    earlyexit::kit::loops::analytics::verified_only_argument(given, Naming::Js)
                        .map(|verified_only| a.optimal_iteration_value(verified_only)),
                ),
                None => ok(a.optimal_iteration_value(true)),
            },
            "selectBestIteration" => ok(a.select_best_iteration_value()),
            "generateSummary" => from(a.summary_value(&fixed_timestamp())),
            "generateQualityChart" => ok(Value::string(a.quality_chart())),
            "generateReport" => from(a.report_value(&arg(&args, 0), Naming::Js, &fixed_timestamp()).map(Value::String)),
            "formatDuration" => from(IterationAnalytics::format_duration(&arg(&args, 0)).map(Value::String)),
            "fromSummary" => {
                match IterationAnalytics::from_summary(&arg(&args, 0), &arg(&args, 1), Naming::Js, None, true) {
                    Ok(loaded) => {
                        *a = loaded;
                        ok(Value::Null)
                    }
                    Err(e) => Outcome::Error(e),
                }
            }
            "getConfig" => ok(a.config().to_value(Naming::Js)),
            "getRecords" => ok(Value::Array(a.records().iter().map(|r| r.to_value()).collect())),
            "reset" => {
                a.reset();
                ok(Value::Null)
            }
            "toJSON" => ok(a.to_snapshot()),
            "fromJSON" => match restore(&arg(&args, 0), IterationAnalytics::from_snapshot) {
                Ok(restored) => {
                    *a = restored;
                    ok(Value::Null)
                }
                Err(e) => Outcome::Error(e),
            },
            other => panic!("unknown IterationAnalytics call {other}"),
        },
        Engine::Stateless => match name {
            // Only its errors are vectors (the bad-input matrix): the answer is not compared.
            "calibrateLoopPolicy" => {
                let sequential = |plan: &earlyexit::loops::replay::LoopCalibrationPlan| plan.evaluate_all();
                let answer = earlyexit::kit::loops::replay::calibrate_value(
                    &arg(&args, 0),
                    &arg(&args, 1),
                    Naming::Js,
                    &TestSha256,
                    0,
                    &sequential,
                );
                from(answer.map(|_| Value::Null))
            }
            // The loop lifecycle: only errors and the answer's verdict are vectors.
            "promoteLoopPolicy" | "checkLoopDrift" => {
                let (run, key): (LifecycleFn, &str) = if name == "promoteLoopPolicy" {
                    (earlyexit::kit::loops::replay::promote_loop_value, "promoted")
                } else {
                    (earlyexit::kit::loops::replay::loop_drift_value, "status")
                };
                let answer = run(&arg(&args, 0), &arg(&args, 1), &TestSha256, &arg(&args, 2), Naming::Js);
                from(answer.map(|a| {
                    let verdict = a.get(key).cloned().unwrap_or(Value::Null);
                    Value::Object(vec![(key.to_string(), verdict)])
                }))
            }
            "calculateQualitySignal" => from(
                LayerResult::from_value(&arg(&args, 0), Naming::Js, "")
                    .map(|r| calculate_quality_signal(&r).to_value(Naming::Js)),
            ),
            "countQualityPartitions" => from(
                LayerResult::from_value(&arg(&args, 0), Naming::Js, "")
                    .map(|r| Value::Number(f64::from(count_quality_partitions(&r)))),
            ),
            "toFixed" => ok(Value::string(num::to_fixed(
                arg(&args, 0).as_f64().unwrap(),
                arg(&args, 1).as_f64().unwrap() as u32,
            ))),
            "toString" => ok(Value::string(num::to_js_string(arg(&args, 0).as_f64().unwrap()))),
            other => panic!("unknown stateless call {other}"),
        },
        Engine::Receipts => match name {
            "appendReceipts" => {
                let log = match arg(&args, 0) {
                    Value::String(s) => s,
                    Value::Null => String::new(),
                    other => panic!("appendReceipts log {other:?}"),
                };
                let Value::Array(receipts) = arg(&args, 1) else { panic!("appendReceipts receipts") };
                from(earlyexit::receipt_log::append_receipts(&log, &receipts, &TestSha256).map(Value::String))
            }
            "verifyReceipts" => {
                let text = arg(&args, 0);
                ok(earlyexit::receipt_log::verify_receipts(text.as_str().unwrap_or(""), &TestSha256).to_value())
            }
            other => panic!("unknown receipts call {other}"),
        },
        Engine::Exit(exit) => match name {
            "shouldExit" => {
                from(exit.should_exit_value(&arg(&args, 0), &arg(&args, 1), Naming::Js).map(|d| d.to_value(Naming::Js)))
            }
            other => panic!("unknown CoherenceEarlyExit call {other}"),
        },
        Engine::Speculative(config) => match name {
            "speculate" => {
                let confidence = match kit::pyramid::decision_confidence(&arg(&args, 0), Naming::Js) {
                    Ok(c) => c,
                    Err(e) => return Outcome::Error(e),
                };
                // The JS layer passes a list's length (the seed iterates the argument).
                let skipped = match arg(&args, 1) {
                    Value::Array(items) => Value::Number(items.len() as f64),
                    other => other,
                };
                let count = match kit::pyramid::skipped_count(&skipped, Naming::Js) {
                    Ok(n) => n,
                    Err(e) => return Outcome::Error(e),
                };
                match pyramid::speculate(confidence, count) {
                    Ok(s) => ok(Value::Array(s.iter().map(Speculation::to_value).collect())),
                    Err(e) => Outcome::Error(e),
                }
            }
            "verify" => {
                let Value::Array(raw) = arg(&args, 0) else { panic!("speculations must be an array") };
                let mut specs = Vec::new();
                for (i, s) in raw.iter().enumerate() {
                    match Speculation::from_value(s, Naming::Js, &format!("speculations[{i}]")) {
                        Ok(s) => specs.push(s),
                        Err(e) => return Outcome::Error(e),
                    }
                }
                let layers = call.get("layers").cloned().unwrap_or(Value::Array(vec![]));
                let mut runners = Runners::new(&layers);
                let count = kit::pyramid::verification_count(specs.len(), config.verification_layers);
                for (i, spec) in specs.iter_mut().take(count).enumerate() {
                    let result = match runners.call(i) {
                        Ok(v) => v,
                        Err(m) => return Outcome::Thrown(m),
                    };
                    match LayerResult::from_value(&result, Naming::Js, &format!("layers[{i}]")) {
                        Ok(r) => spec.actual = Some(kit::pyramid::classify_outcome(&r)),
                        Err(e) => return Outcome::Error(e),
                    }
                }
                ok(Value::Array(specs.iter().map(Speculation::to_value).collect()))
            }
            other => panic!("unknown SpeculativeExecutor call {other}"),
        },
        Engine::Controller(config, total) => match name {
            "runWithEarlyExit" => {
                let layers = call.get("layers").cloned().unwrap_or(Value::Array(vec![]));
                let mut runners = Runners::new(&layers);
                let outcome = run_pyramid(config, total, &layers, &mut runners);
                if let Some(Value::Array(expected)) = call.get("runnerCalls") {
                    let expected: Vec<usize> = expected.iter().map(|v| v.as_f64().unwrap() as usize).collect();
                    if expected != runners.calls {
                        return Outcome::Thrown(format!("runnerCalls {:?}, expected {expected:?}", runners.calls));
                    }
                }
                outcome
            }
            other => panic!("unknown EarlyExitController call {other}"),
        },
        Engine::Steps(run) => match name {
            "next" => ok(run.next().to_value()),
            "submit" => from(run.submit_value(&arg(&args, 0), &arg(&args, 1), Naming::Js).map(|_| Value::Null)),
            "result" => from(run.result().map(|r| r.to_value(Naming::Js))),
            "toJSON" => ok(run.to_snapshot()),
            "fromJSON" => match restore(&arg(&args, 0), LiveRun::from_snapshot) {
                Ok(restored) => {
                    *run = restored;
                    ok(Value::Null)
                }
                Err(e) => Outcome::Error(e),
            },
            other => panic!("unknown PyramidRun call {other}"),
        },
    }
}

/// `fromJSON` accepts the snapshot object or its JSON text.
fn restore<T>(snapshot: &Value, parse: fn(&Value) -> Result<T, Error>) -> Result<T, Error> {
    match snapshot {
        Value::String(text) => parse(&earlyexit::snapshot::parse(text)?),
        other => parse(other),
    }
}

fn construct(engine: &str, c: &Value) -> Result<Engine, Error> {
    let get = |k: &str| c.get(k).cloned().unwrap_or(Value::Null);
    Ok(match engine {
        "EarlyStopping" => {
            let script = match get("analytics") {
                Value::Null => None,
                Value::Object(_) if c.get("analytics").and_then(|a| a.get("script")).is_some() => {
                    let Some(Value::Array(answers)) = c.get("analytics").and_then(|a| a.get("script")).cloned() else {
                        panic!("script must be an array")
                    };
                    Some(Script { answers, calls: 0 })
                }
                other => return Err(earlyexit::kit::loops::invalid_analytics_source(Naming::Js, &other)),
            };
            let mut engine = EarlyStopping::from_config_value(&get("config"), Naming::Js)?;
            if let Some(policy) = c.get("policy").filter(|p| !matches!(p, Value::Null)) {
                engine.set_policy(Some(earlyexit::LoopPolicy::engine_policy(policy, Naming::Js)?));
            }
            // A shadow candidate (Python's `shadow=`), after the policy as the bindings set it.
            if let Some(shadow) = c.get("shadow").filter(|s| !matches!(s, Value::Null)) {
                let now = clock_ms();
                let candidate =
                    earlyexit::loops::shadow::ShadowCandidate::from_value(shadow, Naming::Js, now, &TestSha256)?;
                engine.set_shadow(Some(candidate))?;
            }
            Engine::Loop(engine, script)
        }
        // upstream's form `(loopId, taskDescription, config)` when the vector gives `loopId`.
        "IterationAnalytics" => Engine::Analytics(IterationAnalytics::construct(
            c.get("loopId"),
            &c.get("taskDescription").cloned().unwrap_or(Value::Other("undefined".into())),
            &get("config"),
            &fixed_timestamp(),
            Naming::Js,
            true,
        )?),
        "calculateQualitySignal" | "jsnum" | "calibrateLoopPolicy" | "loopLifecycle" => Engine::Stateless,
        // The refine loop's constructor (its rows are the constructor's errors): the JS
        // layer's order (options, the shadow candidate, then the policy or artifact).
        "Loop" => {
            open_loop(&get("options"))?;
            Engine::Stateless
        }
        "receipts" => Engine::Receipts,
        "CoherenceEarlyExit" => {
            Engine::Exit(CoherenceEarlyExit::from_values(&get("config"), &get("totalLayers"), Naming::Js)?)
        }
        "SpeculativeExecutor" => Engine::Speculative(ExitConfig::from_value(&get("config"), Naming::Js)?),
        "EarlyExitController" => {
            CoherenceEarlyExit::from_values(&get("config"), &get("totalLayers"), Naming::Js)?;
            RunOptions::from_values_at(&get("options"), &Value::Null, Naming::Js, host())?;
            Engine::Controller(get("config"), get("totalLayers"))
        }
        "PyramidRun" => Engine::Steps(LiveRun::start_value_at(
            &get("config"),
            &get("totalLayers"),
            &get("layers"),
            &get("options"),
            &Value::Null,
            Naming::Js,
            host(),
        )?),
        other => panic!("unknown engine {other}"),
    })
}

/// `promote_loop_value` and `loop_drift_value`: `(artifact, runs, sha256, now, naming)`.
type LifecycleFn = fn(&Value, &Value, &dyn earlyexit::artifact::Sha256, &Value, Naming) -> Result<Value, Error>;

/// The clock, as the bindings read it where a shadow candidate or an artifact may expire.
fn clock_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// `new Loop(options)` as the JS layer opens it (`policy` or `preset`, `artifact`, `shadow`,
/// the rest the loop's options), at the clock's time (an artifact's expiry).
fn open_loop(options: &Value) -> Result<(), Error> {
    use earlyexit::kit::loops::loop_policy;
    use earlyexit::loops::{Loop, LoopOptions};
    let Value::Object(entries) = options else {
        LoopOptions::from_value_named(options, Naming::Js)?;
        return Ok(());
    };
    let pick = |key: &str| entries.iter().find(|(k, _)| k == key).map_or(Value::Null, |(_, v)| v.clone());
    let rest: Vec<(String, Value)> = entries
        .iter()
        .filter(|(k, _)| !["preset", "policy", "artifact", "shadow"].contains(&k.as_str()))
        .cloned()
        .collect();
    let options = LoopOptions::from_value_named(&Value::Object(rest), Naming::Js)?;
    let now = clock_ms();
    let shadow = match pick("shadow") {
        Value::Null => None,
        given => Some(earlyexit::loops::shadow::ShadowCandidate::from_value(&given, Naming::Js, now, &TestSha256)?),
    };
    match pick("artifact") {
        Value::Null => {
            let policy = match pick("policy") {
                Value::Null => pick("preset"),
                given => given,
            };
            let policy = loop_policy(&policy, Naming::Js)?;
            match shadow {
                None => Loop::<u64>::new(&policy, options)?,
                Some(candidate) => Loop::<u64>::with_shadow(&policy, options, candidate)?,
            };
        }
        artifact => {
            let enforced = earlyexit::loops::replay::enforced_from_artifact(&artifact, now, &TestSha256)?;
            Loop::<u64>::from_enforced(enforced, options, shadow)?;
        }
    }
    Ok(())
}

/// What a binding lends the core for an artifact policy: its SHA-256 (the vectors give `now`
/// where an artifact's expiry matters, as a host without a clock would).
fn host() -> earlyexit::artifact::HostServices<'static> {
    earlyexit::artifact::HostServices { clock_ms: None, sha256: Some(&TestSha256) }
}

fn check_throws(expected: &Value, err: &Error) -> Result<(), String> {
    let want = |k: &str| expected.get(k).and_then(Value::as_str);
    if want("code") != Some(err.code())
        || want("field") != Some(err.field())
        || want("kind").is_some_and(|k| k != err.kind().as_str())
    {
        return Err(format!(
            "expected error {:?}/{:?}/{:?}, got {}/{}/{} ({})",
            want("code"),
            want("field"),
            want("kind"),
            err.code(),
            err.field(),
            err.kind().as_str(),
            err.message()
        ));
    }
    Ok(())
}

pub fn run_vector(v: &Value, coverage: &mut Coverage, seen: &mut Vec<String>) -> Result<(), String> {
    let engine_name = v.get("engine").and_then(Value::as_str).unwrap();
    if behavior::handles(engine_name) {
        return behavior::run(v);
    }
    let c = v.get("construct").cloned().unwrap_or(Value::Object(vec![]));
    let mut engine = match construct(engine_name, &c) {
        Ok(e) => e,
        Err(err) => {
            let expected = v.get("throws").ok_or_else(|| format!("constructor failed: {err}"))?;
            *coverage.errors.entry(format!("{} {}", err.code(), err.field())).or_default() += 1;
            return check_throws(expected, &err);
        }
    };
    if v.get("throws").is_some() {
        return Err("constructor was expected to throw".into());
    }
    let Some(Value::Array(calls)) = v.get("calls") else { return Ok(()) };
    for (i, c_call) in calls.iter().enumerate() {
        let before = engine.snapshot();
        let outcome = call(&mut engine, c_call);
        let at = |m: String| format!("call #{i} {}: {m}", c_call.get("call").and_then(Value::as_str).unwrap_or("?"));
        match (outcome, c_call.get("returns"), c_call.get("throws")) {
            (Outcome::Value(actual), expected, None) => {
                coverage.observe(&actual, seen);
                if let Some(expected) = expected {
                    compare(expected, &actual, "", true).map_err(at)?;
                }
            }
            (Outcome::Value(actual), _, Some(_)) => {
                return Err(at(format!("expected an error, got {}", actual.to_json())))
            }
            (Outcome::Error(err), _, Some(expected)) => {
                *coverage.errors.entry(format!("{} {}", err.code(), err.field())).or_default() += 1;
                check_throws(expected, &err).map_err(at)?;
                if engine.snapshot() != before {
                    return Err(at("a rejected call changed the engine".into()));
                }
            }
            (Outcome::Error(err), _, None) => return Err(at(format!("unexpected error {err}"))),
            (Outcome::Thrown(message), _, Some(expected)) => {
                let want = expected.get("message").and_then(Value::as_str);
                if want != Some(message.as_str()) {
                    return Err(at(format!("runner threw {message}, expected {}", expected.to_json())));
                }
            }
            (Outcome::Thrown(message), _, None) => return Err(at(format!("runner error or mismatch: {message}"))),
        }
        if let Some(n) = c_call.get("analyticsCalls").and_then(Value::as_f64) {
            if let Engine::Loop(_, Some(s)) = &engine {
                if s.calls != n as usize {
                    return Err(at(format!("analytics called {} times, expected {n}", s.calls)));
                }
            }
        }
    }
    if let Some(n) = v.get("analyticsCalls").and_then(Value::as_f64) {
        if let Engine::Loop(_, Some(s)) = &engine {
            if s.calls != n as usize {
                return Err(format!("analytics called {} times, expected {n}", s.calls));
            }
        }
    }
    Ok(())
}
