//! [`Loop`]: the refine loop an agent is written with, over the engine. It counts the
//! iterations, maps the caller's scores (0..=1 or 0..=100) to the engine's 0..=100, computes
//! each `quality_delta` ([`EarlyStopping::implied_quality_delta`]), stops on the loop's own
//! completion signal before its policy, and keeps only the outputs it may hand back (the
//! best, the last and the completed one: O(1) memory in outputs).
//!
//! The policy is wrapped as `any: [completed, <the policy's tree>, max_iterations]`, so a
//! `done` record stops with trigger `completed` whatever the policy, winning over a cap
//! reached on the same record, and the engine's own rules (the best iteration, snapshots)
//! hold unchanged. Outputs are generic: a binding keeps its own handles (`T`), and converts
//! them to and from JSON values for a snapshot.

use crate::loops::behavior::BehaviorIteration;
use crate::loops::decision::StoppingDecision;
use crate::loops::engine::EarlyStopping;
use crate::loops::policy::{StopCondition, StopPolicy};
use crate::loops::presets::ReturnPolicy;
use crate::loops::records::{IterationRecord, IterationResult, ResourceUsage};
use crate::loops::replay::LoopPolicy;
use crate::loops::shadow::{LoopShadow, RunNames, ShadowCandidate};
use crate::loops::vocabulary::{Trigger, VerificationStatus};
use crate::num;
use crate::value::{self, field_name, FieldName, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The scales a loop's scores may be given on: the engine's 0..=100, or 0..=1.
pub const LOOP_SCALES: [f64; 2] = [100.0, 1.0];

/// The notice a loop gives once when its scale looks wrong: the first 3 scores on the
/// default scale 100 are all <= 1 and one of them is not an integer.
pub const SCALE_NOTICE: &str = "Loop: the first 3 quality scores are all <= 1 and not all integers, but the loop's \
     scale is 100 (0..=100): pass scale=1 if scores are on 0..=1, or every rule will read them as near 0";

/// The policy a loop decides by, as a binding hands it over: `null` = the `recommended`
/// preset; else a preset name or a policy object as the engines take them (`invalid_config`
/// naming the path under `policy`; an unknown key is `unknown_option`).
pub fn loop_policy(value: &Value, naming: Naming) -> Result<LoopPolicy> {
    if matches!(value, Value::Null) {
        return Ok(LoopPolicy::recommended());
    }
    LoopPolicy::engine_loop_policy(value, naming)
}

/// A loop's settings besides its policy.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopOptions {
    /// The caller's score scale: 100 (the engine's, default) or 1.
    pub scale: f64,
    /// A cap on the iterations (>= 1), checked after the policy.
    pub max_iterations: Option<u64>,
    /// The task's id: a run's `id` (repeated runs of one task pass the same).
    pub task: Option<String>,
    /// A run's `dataset`.
    pub dataset: Option<String>,
    /// The caller's label for this run (kept in the snapshot).
    pub run_label: Option<String>,
}

impl Default for LoopOptions {
    fn default() -> Self {
        LoopOptions { scale: 100.0, max_iterations: None, task: None, dataset: None, run_label: None }
    }
}

/// One iteration's inputs besides its output and quality. `confidence` `None` records 0 (so
/// `high_confidence` cannot fire without one); `files` is recorded as `artifacts_modified`,
/// `done` as `completed: true`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepInput {
    /// 0..=1.
    pub confidence: Option<f64>,
    /// The verification outcome (`skipped` when not given).
    pub verification: Option<VerificationStatus>,
    /// The loop's own completion signal.
    pub done: bool,
    /// The iteration's ground truth, when known (a run's per-iteration `good`).
    pub good: Option<bool>,
    /// Tokens, cost, time.
    pub usage: ResourceUsage,
    /// The iteration's error.
    pub error: Option<String>,
    /// The files the iteration changed.
    pub files: Option<Vec<String>>,
    /// The iteration's fingerprint (at most 256 characters).
    pub fingerprint: Option<String>,
}

/// An output the loop kept, with its iteration and quality on the caller's scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept<T> {
    /// The iteration that produced it.
    pub iteration: u64,
    /// Its quality, on the caller's scale.
    pub quality: f64,
    /// The output.
    pub output: T,
}

/// The refine loop (see the module doc).
#[derive(Clone, Debug)]
pub struct Loop<T> {
    engine: EarlyStopping,
    returns: ReturnPolicy,
    options: LoopOptions,
    goods: Vec<(u64, bool)>,
    best: Option<Kept<T>>,
    last: Option<Kept<T>>,
    completed: Option<Kept<T>>,
    decision: Option<StoppingDecision>,
}

const SCALE: &str = "scale";
const QUALITY: &str = "quality";
const MAX_ITERATIONS: &str = "max_iterations";

fn config_error(field: &str, kind: ErrorKind, message: String) -> Error {
    Error::new(ErrorCode::InvalidConfig, kind, field, message)
}

/// The names a step's arguments have (`tokens`, not `tokens_used`): errors from the record
/// are renamed so they name what the caller passed.
fn step_field(field: &str, naming: Naming) -> &str {
    let js = matches!(naming, Naming::Js);
    match field {
        "quality_score" => QUALITY,
        "tokens_used" => "tokens",
        "token_cost_usd" => {
            if js {
                "costUsd"
            } else {
                "cost_usd"
            }
        }
        "execution_time_ms" => {
            if js {
                "timeMs"
            } else {
                "time_ms"
            }
        }
        "artifacts_modified" => "files",
        "verification_status" => "verified",
        "completed" => "done",
        other => other,
    }
}

fn renamed(e: Error, naming: Naming) -> Error {
    let field = e.field();
    let (head, tail) = match field.find('[') {
        Some(i) => field.split_at(i),
        None => (field, ""),
    };
    let name = step_field(head, naming);
    if name == head {
        return e;
    }
    let new_field = value::concat(&[name, tail]);
    let message = e.message().replacen(field, &new_field, 1);
    Error::new(e.error_code(), e.kind(), new_field, message)
}

impl<T: Clone> Loop<T> {
    /// A loop deciding by `policy` (a preset, a policy or an artifact's, as the engines take
    /// them) with `options`: `scale` must be 100 or 1 and `max_iterations` >= 1
    /// (`invalid_config` naming it).
    pub fn new(policy: &LoopPolicy, options: LoopOptions) -> Result<Self> {
        if !LOOP_SCALES.contains(&options.scale) {
            let message = value::concat(&["scale must be 100 or 1, got ", &num::to_js_string(options.scale)]);
            return Err(config_error(SCALE, ErrorKind::Range, message));
        }
        if let Some(limit) = options.max_iterations {
            if !(1..=MAX_SAFE_INTEGER).contains(&limit) {
                let message =
                    value::concat(&["max_iterations must be an integer >= 1, got ", &num::uint_string(limit)]);
                return Err(config_error(MAX_ITERATIONS, ErrorKind::Range, message));
            }
        }
        let mut engine = EarlyStopping::new(policy.config.clone())?;
        let inner = policy.stop_policy();
        let mut when = vec![StopCondition::Completed, inner.when];
        if let Some(limit) = options.max_iterations {
            when.push(StopCondition::MaxIterations { limit });
        }
        engine.set_policy(Some(StopPolicy { when: StopCondition::Any(when), returns: inner.returns }));
        Ok(Loop {
            engine,
            returns: inner.returns,
            options,
            goods: Vec::new(),
            best: None,
            last: None,
            completed: None,
            decision: None,
        })
    }

    /// A loop deciding by `policy` with `candidate` in shadow beside it: the candidate decides
    /// at every step (the decision's `would_stop`), never stops the loop, and the run's
    /// receipt ([`Loop::receipt`]) says how its stop would have turned out. The enforced
    /// policy (with `max_iterations`) must hold a hard cap (`invalid_config` naming `shadow`).
    pub fn with_shadow(policy: &LoopPolicy, options: LoopOptions, candidate: ShadowCandidate) -> Result<Self> {
        let mut looped = Self::new(policy, options)?;
        looped.engine.set_shadow(Some(candidate))?;
        Ok(looped)
    }

    /// The shadow candidate's state, in shadow mode.
    pub fn shadow(&self) -> Option<&LoopShadow> {
        self.engine.shadow()
    }

    /// A loop enforcing a loop calibration artifact as [`enforced_from_artifact`] reads it:
    /// its calibrated policy, or its calibration's most conservative with the calibrated one
    /// in shadow ([`Loop::shadow_reason`] says why). `shadow`, a candidate the caller gives,
    /// is refused beside an artifact whose calibrated policy already runs in shadow
    /// (`invalid_config` naming `shadow`).
    ///
    /// [`enforced_from_artifact`]: crate::loops::replay::enforced_from_artifact
    pub fn from_enforced(
        enforced: crate::loops::replay::EnforcedArtifact,
        options: LoopOptions,
        shadow: Option<ShadowCandidate>,
    ) -> Result<Self> {
        let candidate = match (enforced.shadow, shadow) {
            (Some(_), Some(_)) => return Err(crate::loops::shadow::shadow_taken()),
            (auto, given) => auto.or(given),
        };
        let mut looped = Self::new(&enforced.policy, options)?;
        looped.engine.set_shadow(candidate)?;
        Ok(looped)
    }

    /// Why the shadow candidate runs in shadow rather than enforced, when the loop put it
    /// there itself (see [`Loop::from_enforced`]).
    pub fn shadow_reason(&self) -> Option<&str> {
        self.engine.shadow_reason()
    }

    /// The receipt of the run so far (shadow mode only; `None` otherwise), called `run_id`:
    /// where the candidate would have stopped and how that turned out (see
    /// [`crate::loops::shadow`]). Call it after [`Loop::finish`] so that `good` counts.
    pub fn receipt(&self, run_id: &str) -> Option<Value> {
        let shadow = self.engine.shadow()?;
        let names = RunNames {
            run_id: Some(run_id),
            task: self.options.task.as_deref(),
            dataset: self.options.dataset.as_deref(),
            run_label: self.options.run_label.as_deref(),
        };
        Some(shadow.receipt(self.engine.history(), &self.goods, &names).to_value())
    }

    /// Records the SHA-256 of the calibration artifact the policy came from (the engine
    /// snapshot's `policyArtifact`).
    pub fn set_policy_artifact(&mut self, sha256: Option<String>) -> Result<()> {
        self.engine.set_policy_artifact(sha256)
    }

    /// Maps a score on the caller's scale to the engine's 0..=100 (`invalid_result` naming
    /// `quality` when it is off the scale).
    pub fn engine_quality(&self, quality: f64) -> Result<f64> {
        if value::check_range(quality, 0.0, self.options.scale).is_none() {
            let message = value::concat(&[
                "quality must be a number in ",
                &value::range_text(0.0, self.options.scale),
                " (the loop's scale), got ",
                &num::to_js_string(quality),
            ]);
            return Err(Error::new(ErrorCode::InvalidResult, ErrorKind::Range, QUALITY, message));
        }
        Ok(if self.options.scale == 1.0 { quality * 100.0 } else { quality })
    }

    /// Records one iteration (numbered for the caller) and decides. `now` fills the record's
    /// timestamp. A bad input is an error naming the step's argument and changes nothing.
    pub fn step(
        &mut self,
        output: T,
        quality: f64,
        input: StepInput,
        now: impl FnOnce() -> String,
    ) -> Result<&StoppingDecision> {
        self.step_named(output, quality, input, now, Naming::Snake)
    }

    /// [`Loop::step`] with errors naming the step's arguments in `naming`'s spelling (JS:
    /// `costUsd`, `timeMs`).
    pub fn step_named(
        &mut self,
        output: T,
        quality: f64,
        input: StepInput,
        now: impl FnOnce() -> String,
        naming: Naming,
    ) -> Result<&StoppingDecision> {
        let mapped = self.engine_quality(quality)?;
        let iteration = self.engine.history().last().map_or(1, |r| r.observation.iteration.saturating_add(1));
        let delta = self.engine.implied_quality_delta(Some(iteration), mapped);
        let mut result = IterationResult::new(
            mapped,
            input.confidence.unwrap_or(0.0),
            input.verification.unwrap_or(VerificationStatus::Skipped),
            delta,
        );
        result.usage = input.usage;
        let behavior = BehaviorIteration {
            error: input.error,
            artifacts_modified: input.files,
            fingerprint: input.fingerprint,
            completed: input.done.then_some(true),
            ..BehaviorIteration::default()
        };
        if !behavior.is_unknown() {
            result.behavior = Some(Box::new(behavior));
        }
        self.engine.record(iteration, result, now).map_err(|e| renamed(e, naming))?;
        if let Some(good) = input.good {
            self.goods.push((iteration, good));
        }
        let decision = self.engine.should_stop();
        let kept = Kept { iteration, quality, output };
        if decision.best.is_some_and(|(i, _)| i == iteration) {
            self.best = Some(kept.clone());
        }
        if input.done {
            self.completed = Some(kept.clone());
        }
        self.last = Some(kept);
        Ok(self.decision.insert(decision))
    }

    /// [`SCALE_NOTICE`] right after the third step when the scale looks wrong (so once).
    pub fn scale_notice(&self) -> Option<&'static str> {
        let history = self.engine.history();
        if self.options.scale != 100.0 || history.len() != 3 {
            return None;
        }
        let q = |r: &IterationRecord| r.observation.quality_score;
        let small = history.iter().all(|r| q(r) <= 1.0);
        let fractional = history.iter().any(|r| q(r).fract() != 0.0);
        (small && fractional).then_some(SCALE_NOTICE)
    }

    /// The best output so far (the engine's `best_iteration` rule).
    pub fn best(&self) -> Option<&Kept<T>> {
        self.best.as_ref()
    }

    /// The last output.
    pub fn last(&self) -> Option<&Kept<T>> {
        self.last.as_ref()
    }

    /// The output of the last iteration that reported `done`.
    pub fn completed(&self) -> Option<&Kept<T>> {
        self.completed.as_ref()
    }

    /// What the loop hands back: the completed iteration's output on a `completed` stop,
    /// else the policy's `returns` (the best, or the last).
    pub fn output(&self) -> Option<&Kept<T>> {
        if self.decision.as_ref().is_some_and(|d| d.stop && d.trigger == Trigger::Completed) {
            if let Some(kept) = &self.completed {
                return Some(kept);
            }
        }
        match self.returns {
            ReturnPolicy::Best => self.best.as_ref().or(self.last.as_ref()),
            ReturnPolicy::Last => self.last.as_ref(),
        }
    }

    /// The last decision (`None` before the first step).
    pub fn decision(&self) -> Option<&StoppingDecision> {
        self.decision.as_ref()
    }

    /// The recorded iterations.
    pub fn history(&self) -> &[IterationRecord] {
        self.engine.history()
    }

    /// The engine the loop decides with.
    pub fn engine(&self) -> &EarlyStopping {
        &self.engine
    }

    /// The loop's settings.
    pub fn options(&self) -> &LoopOptions {
        &self.options
    }

    /// The run in the replay and calibration JSONL form: `{"id": task or `id`, "dataset"
    /// (when given), "iterations": [...]}`, each iteration's fields as recorded (without its
    /// number and timestamp) plus `good` where known.
    pub fn run(&self, id: &str) -> Value {
        let mut iterations = Vec::with_capacity(self.engine.history().len());
        let mut goods = self.goods.iter().peekable();
        for record in self.engine.history() {
            let Value::Object(mut entries) = record.to_value() else { continue };
            entries.retain(|(k, _)| k != "iteration_number" && k != "timestamp");
            let n = record.observation.iteration;
            let mut good = None;
            while let Some((i, g)) = goods.peek() {
                if *i > n {
                    break;
                }
                if *i == n {
                    good = Some(*g);
                }
                goods.next();
            }
            if let Some(good) = good {
                entries.push(("good".to_string(), Value::Bool(good)));
            }
            iterations.push(Value::Object(entries));
        }
        let mut o = ObjectBuilder::new();
        o.string("id", self.options.task.as_deref().unwrap_or(id));
        if let Some(dataset) = &self.options.dataset {
            o.string("dataset", dataset);
        }
        o.value("iterations", Value::Array(iterations));
        o.build()
    }

    /// Closes the run: with `good`, sets it on the iteration [`Loop::output`] came from;
    /// returns the finished run ([`Loop::run`]).
    pub fn finish(&mut self, good: Option<bool>, id: &str) -> Value {
        if let (Some(good), Some(iteration)) = (good, self.output().map(|k| k.iteration)) {
            match self.goods.iter_mut().find(|(i, _)| *i == iteration) {
                Some(slot) => slot.1 = good,
                None => {
                    self.goods.push((iteration, good));
                    self.goods.sort_by_key(|(i, _)| *i);
                }
            }
        }
        self.run(id)
    }

    /// The loop as one JSON value: the engine's snapshot, the settings, the ground truths,
    /// the last decision and the kept outputs, each converted by `output` (`None` for an
    /// output that is not a JSON value: an `invalid_snapshot` error naming `best.output`,
    /// `last.output` or `completed.output`; `outputs` false leaves them out).
    pub fn to_value(&self, outputs: bool, output: impl Fn(&T) -> Option<Value>) -> Result<Value> {
        self.to_value_named(outputs, output, Naming::Snake)
    }

    /// [`Loop::to_value`], its error naming the way to leave outputs out in `naming`'s API
    /// (`toJSON({ outputs: false })` in JS).
    pub fn to_value_named(&self, outputs: bool, output: impl Fn(&T) -> Option<Value>, naming: Naming) -> Result<Value> {
        let mut o = ObjectBuilder::new();
        o.value("engine", self.engine.to_snapshot()).number(SCALE, self.options.scale);
        o.some_number(MAX_ITERATIONS, self.options.max_iterations.map(|n| n as f64));
        for (key, v) in
            [("task", &self.options.task), ("dataset", &self.options.dataset), ("run_label", &self.options.run_label)]
        {
            if let Some(v) = v {
                o.string(key, v);
            }
        }
        let goods =
            self.goods.iter().map(|(i, g)| Value::Array(vec![Value::Number(*i as f64), Value::Bool(*g)])).collect();
        o.value("goods", Value::Array(goods));
        if let Some(d) = &self.decision {
            o.value("decision", d.to_value());
        }

        for (key, kept) in [("best", &self.best), ("last", &self.last), ("completed", &self.completed)] {
            let Some(kept) = kept else { continue };
            let mut k = ObjectBuilder::new();
            k.number("iteration", kept.iteration as f64).number(QUALITY, kept.quality);
            if outputs {
                let Some(v) = output(&kept.output) else {
                    let field = value::concat(&[key, ".output"]);
                    let hint = match naming {
                        Naming::Js => " is not a JSON value (toJSON({ outputs: false }) leaves outputs out)",
                        Naming::Snake => " is not a JSON value (to_json(outputs=False) leaves outputs out)",
                    };
                    let message = value::concat(&[&field, hint]);
                    return Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Type, field, message));
                };
                k.value("output", v);
            }
            o.value(key, k.build());
        }
        Ok(o.build())
    }

    /// Reads a loop [`Loop::to_value`] wrote (`invalid_snapshot` naming the field); `output`
    /// converts each kept output back, given its key (`best`, `last`, `completed`) and its
    /// value (`None` when the snapshot left outputs out).
    pub fn from_value(value: &Value, output: impl Fn(&str, Option<&Value>) -> Result<T>) -> Result<Self> {
        const CODE: ErrorCode = ErrorCode::InvalidSnapshot;
        const FIELDS: [FieldName; 11] = FieldName::same_all([
            "engine",
            SCALE,
            MAX_ITERATIONS,
            "task",
            "dataset",
            "run_label",
            "goods",
            "decision",
            "best",
            "last",
            "completed",
        ]);
        let r = ObjectReader::new(value, "", "loop", Naming::Snake, CODE)?;
        r.reject_unknown(&FIELDS)?;
        let [engine, scale, max_iterations, task, dataset, run_label, goods, decision, best, last, completed] = FIELDS;
        let engine = EarlyStopping::from_snapshot(r.get(engine).unwrap_or(&Value::Null))
            .map_err(|e| e.nested(CODE, "engine"))?;
        let scale = r.number(scale, 0.0, 100.0)?;
        if !LOOP_SCALES.contains(&scale) {
            let message = value::concat(&["scale must be 100 or 1, got ", &num::to_js_string(scale)]);
            return Err(Error::new(CODE, ErrorKind::Range, SCALE, message));
        }
        let options = LoopOptions {
            scale,
            max_iterations: r.opt_integer(max_iterations, 1, MAX_SAFE_INTEGER)?,
            task: r.opt_string(task)?.map(str::to_string),
            dataset: r.opt_string(dataset)?.map(str::to_string),
            run_label: r.opt_string(run_label)?.map(str::to_string),
        };
        let mut good_list = Vec::new();
        if let Some(Value::Array(items)) = r.get(goods) {
            for (i, item) in items.iter().enumerate() {
                let at = value::index_path("goods", i);
                let pair = match item {
                    Value::Array(p) => match (p.first().and_then(Value::as_f64), p.get(1)) {
                        (Some(n), Some(Value::Bool(g))) => {
                            value::check_integer(n, 1, MAX_SAFE_INTEGER).map(|n| (n, *g))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let Some(pair) = pair else {
                    let message = value::concat(&[&at, " must be [iteration, good]"]);
                    return Err(Error::new(CODE, ErrorKind::Type, at, message));
                };
                good_list.push(pair);
            }
        }
        let decision = match r.get(decision) {
            None => None,
            Some(d) => Some(StoppingDecision::from_value(d, "decision")?),
        };
        let returns = engine.policy().map_or(ReturnPolicy::Last, |p| p.returns);
        let kept = |field: FieldName, key: &str| -> Result<Option<Kept<T>>> {
            let Some(v) = r.get(field) else { return Ok(None) };
            let path = r.path_of(field);
            let k = ObjectReader::new(v, &path, &path, Naming::Snake, CODE)?;
            k.reject_unknown(&FieldName::same_all(["iteration", QUALITY, "output"]))?;
            let iteration = k.integer(FieldName::same("iteration"), 1, MAX_SAFE_INTEGER)?;
            let quality = k.number(FieldName::same(QUALITY), 0.0, scale)?;
            Ok(Some(Kept { iteration, quality, output: output(key, k.get(FieldName::same("output")))? }))
        };
        Ok(Loop {
            returns,
            goods: good_list,
            best: kept(best, "best")?,
            last: kept(last, "last")?,
            completed: kept(completed, "completed")?,
            decision,
            engine,
            options,
        })
    }
}

const STEP_FIELDS: [FieldName; 11] = [
    FieldName::same(QUALITY),
    FieldName::same("confidence"),
    FieldName::same("verified"),
    FieldName::same("done"),
    FieldName::same("good"),
    FieldName::same("tokens"),
    field_name!("costUsd", "cost_usd"),
    field_name!("timeMs", "time_ms"),
    FieldName::same("error"),
    FieldName::same("files"),
    FieldName::same("fingerprint"),
];

impl StepInput {
    /// Reads a step's arguments as a binding hands them over (`{quality, confidence,
    /// verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint}`, `null`
    /// = not given): `verified` is `true` (`passed`), `false` (`failed`), `null` (`skipped`)
    /// or a status name. Errors name the argument (`invalid_result`). Returns the quality
    /// (on the caller's scale, checked by [`Loop::step`]) and the rest.
    pub fn from_value(value: &Value) -> Result<(f64, StepInput)> {
        StepInput::from_value_named(value, Naming::Snake)
    }

    /// [`StepInput::from_value`] with the arguments spelled in `naming` (JS: `costUsd`,
    /// `timeMs`), errors naming them so.
    pub fn from_value_named(value: &Value, naming: Naming) -> Result<(f64, StepInput)> {
        const CODE: ErrorCode = ErrorCode::InvalidResult;
        let r = ObjectReader::new(value, "", "step", naming, CODE)?;
        r.reject_unknown(&STEP_FIELDS)?;
        let [quality, confidence, verified, done, good, tokens, cost_usd, time_ms, error, files, fingerprint] =
            STEP_FIELDS;
        let given = |f: FieldName| r.get(f).filter(|v| !matches!(v, Value::Null)).is_some();
        let quality = r.number(quality, f64::MIN, f64::MAX)?;
        let verification = match r.get(verified) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(true)) => Some(VerificationStatus::Passed),
            Some(Value::Bool(false)) => Some(VerificationStatus::Failed),
            Some(_) => VerificationStatus::parse(r.choice(verified, &VerificationStatus::NAMES)?),
        };
        let text = |f: FieldName| -> Result<Option<String>> {
            if given(f) {
                Ok(Some(r.string(f)?.to_string()))
            } else {
                Ok(None)
            }
        };
        let files = if given(files) {
            let path = r.path_of(files);
            let Some(Value::Array(items)) = r.get(files) else {
                let got = r.get(files).map_or_else(String::new, Value::describe);
                let message = value::concat(&[&path, " must be a list of strings, got ", &got]);
                return Err(Error::new(CODE, ErrorKind::Type, path, message));
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let Value::String(s) = item else {
                    let at = value::index_path(&path, i);
                    let message = value::concat(&[&at, " must be a string, got ", &item.describe()]);
                    return Err(Error::new(CODE, ErrorKind::Type, at, message));
                };
                out.push(s.clone());
            }
            Some(out)
        } else {
            None
        };
        let input = StepInput {
            confidence: if given(confidence) { Some(r.number(confidence, 0.0, 1.0)?) } else { None },
            verification,
            done: if given(done) { r.boolean(done)? } else { false },
            good: if given(good) { Some(r.boolean(good)?) } else { None },
            usage: ResourceUsage {
                tokens_used: if given(tokens) { Some(r.number(tokens, 0.0, f64::MAX)?) } else { None },
                token_cost_usd: if given(cost_usd) { Some(r.number(cost_usd, 0.0, f64::MAX)?) } else { None },
                execution_time_ms: if given(time_ms) { Some(r.number(time_ms, 0.0, f64::MAX)?) } else { None },
            },
            error: text(error)?,
            files,
            fingerprint: text(fingerprint)?,
        };
        Ok((quality, input))
    }
}

const OPTION_FIELDS: [FieldName; 6] = [
    FieldName::same(SCALE),
    field_name!("maxIterations", "max_iterations"),
    FieldName::same("task"),
    FieldName::same("dataset"),
    field_name!("runLabel", "run_label"),
    field_name!("fingerprintOf", "fingerprint_of"),
];

impl LoopOptions {
    /// Reads a loop's options as a binding hands them over (`{scale, max_iterations, task,
    /// dataset, run_label, fingerprint_of}`, `null` = the default; `fingerprint_of` is only
    /// checked to be a function, as the host sends one): `scale` 100 or 1, `max_iterations` an
    /// integer >= 1, the others strings (`run_label` of 1 to 256 characters, as a store's
    /// names); `invalid_config` naming the option.
    pub fn from_value(value: &Value) -> Result<Self> {
        LoopOptions::from_value_named(value, Naming::Snake)
    }

    /// [`LoopOptions::from_value`] with the options spelled in `naming` (JS: `maxIterations`,
    /// `runLabel`), errors naming them so.
    pub fn from_value_named(value: &Value, naming: Naming) -> Result<Self> {
        const CODE: ErrorCode = ErrorCode::InvalidConfig;
        let r = ObjectReader::new(value, "", "options", naming, CODE)?;
        r.reject_unknown(&OPTION_FIELDS)?;
        let [scale, max_iterations, task, dataset, run_label, fingerprint_of] = OPTION_FIELDS;
        let given = |f: FieldName| r.get(f).filter(|v| !matches!(v, Value::Null)).is_some();
        // The binding keeps the function; here only its kind is checked (a host's function
        // crosses as the host type `function`).
        if let Some(v) = r.get(fingerprint_of).filter(|v| !matches!(v, Value::Null)) {
            if !matches!(v, Value::Other(kind) if kind == "function") {
                let path = r.path_of(fingerprint_of);
                let message = value::concat(&[&path, " must be a function, got ", &v.describe()]);
                return Err(config_error(&path, ErrorKind::Type, message));
            }
        }
        let text = |f: FieldName| -> Result<Option<String>> {
            if given(f) {
                Ok(Some(r.string(f)?.to_string()))
            } else {
                Ok(None)
            }
        };
        let scale = if given(scale) { r.number(scale, f64::MIN, f64::MAX)? } else { 100.0 };
        if !LOOP_SCALES.contains(&scale) {
            let message = value::concat(&["scale must be 100 or 1, got ", &num::to_js_string(scale)]);
            return Err(config_error(SCALE, ErrorKind::Range, message));
        }
        // The label a store selects the run by (and its receipt's `runLabel`): 1 to 256
        // characters, as every store name; refused here, not when the run is stored.
        let label = text(run_label)?;
        if let Some(label) = &label {
            crate::host::store::check_store_name(&r.path_of(run_label), label)?;
        }
        Ok(LoopOptions {
            scale,
            max_iterations: if given(max_iterations) {
                Some(r.integer(max_iterations, 1, MAX_SAFE_INTEGER)?)
            } else {
                None
            },
            task: text(task)?,
            dataset: text(dataset)?,
            run_label: label,
        })
    }
}
