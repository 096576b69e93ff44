//! The native interface under earlyexit's shared JS layer (`bindings/js/api/`).
//!
//! Both JS packages, `earlyexit` (napi-rs) and `earlyexit-wasm` (wasm-bindgen), export
//! exactly this: a class `NativeEngine` with `call(op, args)` and a free function
//! `exec(op, args)`, where arguments arrive as one array in the [`wire`] format and the
//! answer goes back as one string; and the numeric fast path of `EarlyStopping`
//! ([`fast`]: zero-argument calls over a shared buffer of f64 slots), so the two bindings
//! are a few lines each and cannot drift apart. Every rule, every string and every error
//! comes from the core; this crate only converts and dispatches. Nothing here calls back
//! into JS: where the core needs the outside diminishing-returns source, the fast path
//! answers a code and the JS layer asks the source itself, then decides again with its
//! report (the core decides whether to ask, so the source is asked exactly when the seed
//! asks it). The test pyramid is driven the same way through the core's step API.

pub use earlyexit_js_fast::fast;
pub mod analytics_text_ops;
pub mod artifact_ops;
pub mod behavior_ops;
pub mod contract;
pub mod fast_pyramid;
pub mod host_messages;
pub mod junit_ops;
pub mod loop_replay;
pub mod pyramid_replay_ops;
#[cfg(feature = "replay")]
pub mod refine_ops;
pub mod wire;

use earlyexit::loops::{self, DiminishingReturnsReport};
use earlyexit::pyramid::{self, calculate_quality_signal, LayerResult, PyramidRun, QualitySignal, Speculation};
use earlyexit::{
    kit::{self, host},
    snapshot, CoherenceEarlyExit, EarlyStopping, EarlyStoppingConfig, Error, ErrorCode, ExitConfig, IterationAnalytics,
    Naming, Value,
};

pub use contract::{args, op};

/// What one native object holds. A JS wrapper owns exactly one.
#[derive(Default)]
enum Slot {
    #[default]
    Empty,
    Analytics(Box<IterationAnalytics>),
    Exit(CoherenceEarlyExit),
    Executor(ExitConfig),
    Run(Box<PyramidRun>),
}

/// The native object behind each stateful JS class (`new NativeEngine()`, then a `*_NEW`
/// or `*_FROM_JSON` op fills it).
#[derive(Default)]
pub struct Engine {
    slot: Slot,
}

/// Why a call did not produce a value.
enum Failure {
    Core(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

type Answer = Result<Option<Value>, Failure>;

fn finish(answer: Answer) -> String {
    match answer {
        Ok(None) => String::new(),
        Ok(Some(Value::String(s))) => wire::encode_str(&s),
        Ok(Some(value)) => wire::encode(&value),
        Err(Failure::Core(error)) => wire::encode_error(&error),
    }
}

/// The ops whose first argument is a batch of runs: the limits on values then apply to each
/// run, never to the whole batch (a replay of any size stays possible).
fn batch_op(op: u32) -> bool {
    op == op::LOOP_REPLAY || op == op::LOOP_CALIBRATE || (op::PYRAMID_REPLAY..=op::PYRAMID_CALIBRATE).contains(&op)
}

#[inline(never)] // three callers: one copy
fn args_of(op: u32, text: &str) -> Result<Vec<Value>, Failure> {
    match wire::decode(text, batch_op(op))? {
        Value::Array(items) => Ok(items),
        _ => Err(Failure::Core(host::mismatch(host::Mismatch::Arguments))),
    }
}

fn report_of(value: &Value) -> Result<DiminishingReturnsReport, Failure> {
    DiminishingReturnsReport::from_value(value, Naming::Js).map_err(Failure::Core)
}

/// `fromJSON` takes the snapshot object or its JSON text.
fn snapshot_of(value: &Value) -> Result<std::borrow::Cow<'_, Value>, Error> {
    match value {
        Value::String(text) => snapshot::parse(text).map(std::borrow::Cow::Owned),
        other => Ok(std::borrow::Cow::Borrowed(other)),
    }
}

fn not_ready() -> Failure {
    Failure::Core(host::mismatch(host::Mismatch::Engine))
}

fn layer_path(i: usize) -> String {
    wire::concat(&["layers[", &earlyexit::kit::num::uint_string(i as u64), "]"])
}

fn index_of(value: &Value) -> usize {
    value.as_f64().filter(|n| *n >= 0.0 && n.fract() == 0.0).map_or(0, |n| n as usize)
}

fn speculations_of(value: &Value) -> Result<Vec<Speculation>, Error> {
    let Value::Array(items) = value else { return Ok(Vec::new()) };
    // One per skipped layer, as `speculate` makes them.
    earlyexit::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "speculations")?;
    // A plain loop: `collect` into a `Result` instantiates its own shunt adapters.
    let mut speculations = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = wire::concat(&["speculations[", &earlyexit::kit::num::uint_string(i as u64), "]"]);
        speculations.push(Speculation::from_value(item, Naming::Js, &path)?);
    }
    Ok(speculations)
}

fn outcome_of(name: &str) -> pyramid::Outcome {
    match name {
        "pass" => pyramid::Outcome::Pass,
        "flaky" => pyramid::Outcome::Flaky,
        _ => pyramid::Outcome::Fail,
    }
}

fn array<T>(items: &[T], f: impl Fn(&T) -> Value) -> Value {
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        values.push(f(item));
    }
    Value::Array(values)
}

/// A plain loop instead of one `map(..).collect()` per call site (each is its own code).
fn numbers(items: &[f64]) -> Value {
    array(items, |&n| Value::Number(n))
}

/// Answers a stateless op.
pub fn exec(op: u32, args: &str) -> String {
    finish(exec_inner(op, args))
}

fn exec_inner(op: u32, text: &str) -> Answer {
    let args = args_of(op, text)?;
    let value = match op {
        op::HELLO => Value::object(vec![("contract", Value::Number(f64::from(contract::FINGERPRINT)))]),
        op::SIGNAL => {
            let result = LayerResult::from_value(args::SIGNAL::read(&args).layer_result, Naming::Js, "")?;
            calculate_quality_signal(&result).to_value(Naming::Js)
        }
        op::PRESETS => {
            array(&[ExitConfig::DEFAULT, ExitConfig::AGGRESSIVE, ExitConfig::CONSERVATIVE], |c| c.to_value(Naming::Js))
        }
        op::ANALYTICS_SOURCE_ERROR => {
            return Err(Failure::Core(kit::loops::invalid_analytics_source(
                Naming::Js,
                args::ANALYTICS_SOURCE_ERROR::read(&args).got,
            )))
        }
        op if analytics_text_ops::handles(op) => return Ok(analytics_text_ops::exec(op, &args)?),
        op if behavior_ops::handles(op) => return Ok(behavior_ops::exec(op, &args)?),
        op::RUNNER_ERROR => {
            let a = args::RUNNER_ERROR::read(&args);
            return Err(Failure::Core(kit::pyramid::invalid_runner(Naming::Js, index_of(a.index), a.got)));
        }
        op if pyramid_replay_ops::handles(op) => pyramid_replay_ops::exec(op, &args)?,
        op if artifact_ops::handles(op) => artifact_ops::exec(op, &args)?,
        op if junit_ops::handles(op) => junit_ops::exec(op, &args)?,
        op if loop_replay::handles(op) => return loop_replay::exec(op, &args),
        op::ES_CONFIG_CHECK => {
            // The base (a config validated before, or null for the defaults), then the
            // partial config or options over it; errors name the argument's root.
            let a = args::ES_CONFIG_CHECK::read(&args);
            let root = if a.root.as_str() == Some("options") { "options" } else { "config" };
            let base = EarlyStoppingConfig::default().merged(a.base, Naming::Js, "config", ErrorCode::InvalidConfig)?;
            config_answer(base.merged(a.config, Naming::Js, root, ErrorCode::InvalidConfig)?)
        }
        op::ES_RECORD_CHECK => {
            let a = args::ES_RECORD_CHECK::read(&args);
            let (iteration, result) = kit::loops::record_from_value(a.iteration, a.result, Naming::Js)?;
            // The engine's `strictIterations` and last record (validated when it was recorded),
            // judged first as the owning engine judges them: an accepted re-record answers
            // what the call returns and adds nothing.
            let strict = a.strict_iterations.as_bool() == Some(true);
            let last = match a.last_record {
                Value::Null => None,
                record => Some(earlyexit::IterationRecord::from_value(record, "last")?),
            };
            // An accepted re-record: what `recordIterationResult` returns (`{duplicate: true}`).
            if let Some(answer) =
                kit::loops::check_iteration_order(strict, last.as_ref(), iteration, &result)?.to_value()
            {
                return Ok(Some(answer));
            }
            // The engine's usage totals, when given: a record that would make one overflow is
            // refused, as the owning engine refuses it (its snapshot could not be restored).
            if let Value::Array(sums) = a.usage_totals {
                let mut tally = loops::LoopTally::default();
                for (slot, sum) in tally.sums.iter_mut().zip(sums) {
                    *slot = sum.as_f64().unwrap_or(0.0);
                }
                tally.check_usage(Some(&result.usage), "", ErrorCode::InvalidResult)?;
            }
            // A missing timestamp stays empty: the JS layer fills in its clock's time, as
            // on the fast path (an empty timestamp is never valid, so this is unambiguous).
            kit::loops::record_of(iteration, result, String::new).to_value()
        }
        op::ES_REPORT_CHECK => {
            report_of(args::ES_REPORT_CHECK::read(&args).report)?;
            return Ok(None);
        }
        op::ES_HISTORY_CHECK => return history_check(&args),
        op::PR_RESULT_CHECK => {
            let a = args::PR_RESULT_CHECK::read(&args);
            LayerResult::from_value(a.result, Naming::Js, &layer_path(index_of(a.layer_index)))?;
            return Ok(None);
        }
        op::EXIT_CONTROLLER_CHECK => {
            let a = args::EXIT_CONTROLLER_CHECK::read(&args);
            let exit = CoherenceEarlyExit::from_values(a.config, a.total_layers, Naming::Js)?;
            Value::Array(vec![
                exit.config().to_value(Naming::Js),
                Value::Number(exit.total_layers() as f64),
                numbers(&fast_pyramid::config_slots(exit.config())),
            ])
        }
        op::HOST_ERROR if index_of(args::HOST_ERROR::read(&args).problem) < host::Problem::ALL.len() => {
            let a = args::HOST_ERROR::read(&args);
            let problem = host::Problem::ALL.get(index_of(a.problem)).copied().unwrap_or(host::Problem::Cycle);
            let code = a.code.as_str().and_then(ErrorCode::from_name).unwrap_or(ErrorCode::InvalidConfig);
            let path = a.path.as_str().unwrap_or("");
            return Err(Failure::Core(host::problem(problem, code, path, a.got)));
        }
        op::LAYER_KEY_CHECK => {
            let a = args::LAYER_KEY_CHECK::read(&args);
            let path = ["layers[", &earlyexit::kit::num::uint_string(index_of(a.layer_index) as u64), "]"].concat();
            let key = a.key.as_str().unwrap_or_default();
            kit::pyramid::check_layer_key(key, Naming::Js, &path, false)?;
            return Ok(None);
        }
        op::RUN_OPTIONS_CHECK => {
            host::run_options(args::RUN_OPTIONS_CHECK::read(&args).options, Naming::Js)?;
            return Ok(None);
        }
        op::ES_SNAPSHOT_CHECK => {
            // Owned, so the text, then the tree read from it, are freed as soon as they are
            // read (a snapshot at the size limits must fit a WebAssembly instance): `snapshot`,
            // the one argument, taken out of the list rather than read (`args::ES_SNAPSHOT_CHECK`).
            let mut args = args;
            let snapshot = match args.get_mut(0).map(|a| std::mem::replace(a, Value::Null)) {
                Some(Value::String(text)) => snapshot::parse(&text)?,
                other => other.unwrap_or(Value::Null),
            };
            EarlyStopping::normalize_snapshot_owned(snapshot)?
        }
        _ => return Err(unknown_op(op)),
    };
    Ok(Some(value))
}

/// `ES_HISTORY_CHECK`: records written to `iterationHistory` from outside.
fn history_check(args: &[Value]) -> Answer {
    let a = args::ES_HISTORY_CHECK::read(args);
    let mut sums = [0.0; 3];
    if let Value::Array(given) = a.usage_totals {
        for (slot, sum) in sums.iter_mut().zip(given) {
            *slot = sum.as_f64().unwrap_or(0.0);
        }
    }
    let first = index_of(a.first_index);
    let root = a.first_index.as_str();
    let path = |i: usize| root.map_or_else(|| kit::loops::history_path(first + i), str::to_string);
    kit::loops::check_history(a.records, path, sums)?;
    Ok(None)
}

/// The merged config and its slots for the fast path.
fn config_answer(config: EarlyStoppingConfig) -> Value {
    let slots = numbers(&fast::config_slots(&config));
    Value::Array(vec![config.to_value(Naming::Js), slots])
}

fn unknown_op(op: u32) -> Failure {
    Failure::Core(host::mismatch(host::Mismatch::Op(op)))
}

impl Engine {
    /// An empty native object.
    pub fn new() -> Self {
        Engine::default()
    }

    /// Answers an op on this object. A failed op leaves the object as it was.
    pub fn call(&mut self, op: u32, args: &str) -> String {
        finish(self.call_inner(op, args))
    }

    fn call_inner(&mut self, op: u32, text: &str) -> Answer {
        let args = args_of(op, text)?;
        match op {
            op::IA_NEW => {
                let a = args::IA_NEW::read(&args);
                let upstream = a.upstream.as_bool() == Some(true);
                let analytics = IterationAnalytics::construct(
                    upstream.then_some(a.loop_id),
                    a.task_description,
                    a.config,
                    a.now.as_str().unwrap_or_default(),
                    Naming::Js,
                    a.files.as_bool() == Some(true),
                )?;
                let persist = analytics.persists();
                self.slot = Slot::Analytics(Box::new(analytics));
                Ok(Some(Value::Bool(persist)))
            }
            op::IA_FROM_JSON => {
                let snapshot = snapshot_of(args::IA_FROM_JSON::read(&args).snapshot)?;
                self.slot = Slot::Analytics(Box::new(IterationAnalytics::from_snapshot(&snapshot)?));
                Ok(None)
            }
            op::CE_NEW => {
                let a = args::CE_NEW::read(&args);
                self.slot = Slot::Exit(CoherenceEarlyExit::from_values(a.config, a.total_layers, Naming::Js)?);
                Ok(None)
            }
            op::SX_NEW => {
                self.slot = Slot::Executor(ExitConfig::from_value(args::SX_NEW::read(&args).config, Naming::Js)?);
                Ok(None)
            }
            op::PR_START => {
                let a = args::PR_START::read(&args);
                let run = PyramidRun::start_value(a.config, a.total_layers, a.layers, Naming::Js)?;
                self.slot = Slot::Run(Box::new(run));
                Ok(None)
            }
            op::PR_FROM_JSON => {
                let snapshot = snapshot_of(args::PR_FROM_JSON::read(&args).snapshot)?;
                // A policy run's snapshot is restored by `PYRAMID_RUN_RESTORE` (the replay
                // module in the wasm package): say so, and leave the object empty.
                if snapshot.get("engine").and_then(Value::as_str) == Some(pyramid::policy::POLICY_RUN_ENGINE) {
                    return Ok(Some(Value::string(pyramid::policy::POLICY_RUN_ENGINE)));
                }
                self.slot = Slot::Run(Box::new(PyramidRun::from_snapshot(&snapshot)?));
                Ok(None)
            }
            _ => match &mut self.slot {
                Slot::Analytics(a) => analytics_op(a, op, &args),
                Slot::Exit(exit) => exit_op(exit, op, &args),
                Slot::Executor(config) => executor_op(config, op, &args),
                Slot::Run(run) => run_op(run, op, &args),
                Slot::Empty => Err(not_ready()),
            },
        }
    }
}

fn analytics_op(a: &mut IterationAnalytics, op: u32, args: &[Value]) -> Answer {
    let value = match op {
        op::IA_RECORD => {
            let given = args::IA_RECORD::read(args);
            a.record_value(given.record, Naming::Js, given.now.as_str().unwrap_or_default())?.to_value()
        }
        op::IA_DETECT => a.detect_diminishing_returns().to_value(),
        op::IA_TRAJECTORY => Value::string(a.trajectory().as_str()),
        // The chosen record's index (or null): the JS layer answers its own record object,
        // which upstream's `iterations` holds, so a write to it is a write to the history.
        op::IA_OPTIMAL => {
            let given = args::IA_OPTIMAL::read(args).verified_only;
            let verified_only = earlyexit::kit::loops::analytics::verified_only_argument(given, Naming::Js)?;
            index_value(a.optimal_iteration(verified_only))
        }
        op::IA_SELECT => {
            let selection = a.select_best_iteration();
            Value::Array(vec![index_value(selection.selected), Value::String(selection.reason)])
        }
        op::IA_SETTLE => {
            a.settle_end_time(args::IA_SETTLE::read(args).now.as_str().unwrap_or_default())?;
            Value::string(a.end_time().unwrap_or_default())
        }
        op::IA_SAVE => {
            let given = args::IA_SAVE::read(args);
            a.settle_end_time(given.now.as_str().unwrap_or_default())?;
            let from = given.from.as_f64().unwrap_or(0.0) as usize;
            Value::Array(vec![
                a.summary_head(),
                a.records_value(from),
                a.summary_tail(),
                Value::Number(a.records().len() as f64),
            ])
        }
        op::IA_CONFIG => a.config().to_value(Naming::Js),
        op::IA_RECORDS => array(a.records(), |r| r.to_value()),
        op::IA_RESET => {
            a.reset();
            return Ok(None);
        }
        op::IA_TO_JSON => a.to_snapshot(),
        _ => return Err(not_ready()),
    };
    Ok(Some(value))
}

/// A record's index, or null.
fn index_value(index: Option<usize>) -> Value {
    index.map_or(Value::Null, |i| Value::Number(i as f64))
}

fn exit_op(exit: &CoherenceEarlyExit, op: u32, args: &[Value]) -> Answer {
    let value = match op {
        op::CE_SHOULD_EXIT => {
            let a = args::CE_SHOULD_EXIT::read(args);
            exit.should_exit_value(a.signal, a.layer, Naming::Js)?.to_value(Naming::Js)
        }
        op::CE_ADAPTIVE => {
            let signal = QualitySignal::from_value(args::CE_ADAPTIVE::read(args).signal, Naming::Js)?;
            Value::Number(exit.adaptive_exit_layer(&signal) as f64)
        }
        op::CE_CONFIG => {
            Value::Array(vec![exit.config().to_value(Naming::Js), Value::Number(exit.total_layers() as f64)])
        }
        _ => return Err(not_ready()),
    };
    Ok(Some(value))
}

fn executor_op(config: &ExitConfig, op: u32, args: &[Value]) -> Answer {
    let value = match op {
        op::SX_SPECULATE => {
            let a = args::SX_SPECULATE::read(args);
            let confidence = kit::pyramid::decision_confidence(a.decision, Naming::Js)?;
            let count = kit::pyramid::skipped_count(a.skipped_count, Naming::Js)?;
            array(&pyramid::speculate(confidence, count)?, Speculation::to_value)
        }
        op::SX_PREDICT => {
            let confidence = kit::pyramid::decision_confidence(args::SX_PREDICT::read(args).decision, Naming::Js)?;
            kit::pyramid::predict_layer_outcome(confidence).to_value()
        }
        op::SX_VERIFY_COUNT => {
            let speculations = speculations_of(args::SX_VERIFY_COUNT::read(args).speculations)?;
            Value::Number(kit::pyramid::verification_count(speculations.len(), config.verification_layers) as f64)
        }
        op::SX_CLASSIFY => {
            let a = args::SX_CLASSIFY::read(args);
            let index = index_of(a.index);
            let result = LayerResult::from_value(a.layer_result, Naming::Js, &layer_path(index))?;
            Value::string(kit::pyramid::classify_outcome(&result).as_str())
        }
        op::SX_VERIFIED => {
            let a = args::SX_VERIFIED::read(args);
            let mut speculations = speculations_of(a.speculations)?;
            if let Value::Array(outcomes) = a.outcomes {
                for (speculation, outcome) in speculations.iter_mut().zip(outcomes) {
                    speculation.actual = Some(outcome_of(outcome.as_str().unwrap_or("fail")));
                }
            }
            array(&speculations, Speculation::to_value)
        }
        op::SX_CONFIG => config.to_value(Naming::Js),
        _ => return Err(not_ready()),
    };
    Ok(Some(value))
}

fn run_op(run: &mut PyramidRun, op: u32, args: &[Value]) -> Answer {
    let value = match op {
        op::PR_NEXT => run.next().to_value(),
        op::PR_SUBMIT => {
            let a = args::PR_SUBMIT::read(args);
            run.submit_value(a.layer, a.result, Naming::Js)?;
            return Ok(None);
        }
        op::PR_RESULT => run.result_value(Naming::Js)?,
        op::PR_TO_JSON => run.to_snapshot(),
        _ => return Err(not_ready()),
    };
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_answer_the_core_s_errors_and_normalized_values() {
        let record = r#"[1,{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":0},0]"#;
        assert!(exec(op::ES_RECORD_CHECK, record).contains(r#""timestamp":"""#));
        let bad = exec(op::ES_REPORT_CHECK, r#"[{"detected":"yes","reason":"x"}]"#);
        assert!(bad.starts_with(r#"!{"code":"invalid_analytics","kind":"type","field":"detected""#), "{bad}");
        let config = exec(op::ES_CONFIG_CHECK, r#"[null,{"minIterations":2},"config"]"#);
        assert!(config.starts_with(r#"~[{"highConfidenceThreshold":0.95"#), "{config}");
        let unknown = exec(op::ES_CONFIG_CHECK, r#"[null,{"plateauCount":2},"options"]"#);
        assert!(unknown.starts_with(r#"!{"code":"unknown_option""#), "{unknown}");
        let controller = exec(op::EXIT_CONTROLLER_CHECK, r#"[{"minConfidence":0.9},3]"#);
        assert!(controller.starts_with(r#"[{"exitLayer":1,"#), "{controller}");
        assert!(controller.ends_with(r#""minConfidence":0.9},3,[1,80,0.85,0.5,4,2,1,0.9]]"#), "{controller}");
        let layers = exec(op::EXIT_CONTROLLER_CHECK, "[null,0]");
        assert!(layers.starts_with(r#"!{"code":"invalid_config","kind":"range","field":"totalLayers""#), "{layers}");
    }

    #[test]
    fn errors_and_unknown_ops_are_answers_not_panics() {
        let mut engine = Engine::new();
        assert!(engine.call(op::IA_RECORD, "[]").starts_with("!{"));
        assert!(engine.call(999, "[]").starts_with("!{"));
        assert!(engine.call(op::IA_NEW, "not json").starts_with("!{"));
        assert!(exec(999, "[]").starts_with("!{"));
        assert!(exec(op::SIGNAL, r#"[{"passRate":{"\u0000":"NaN"},"coverage":1,"flakyRatio":0}]"#)
            .starts_with(r#"!{"code":"invalid_layer_result","kind":"range","field":"passRate""#));
    }
}
