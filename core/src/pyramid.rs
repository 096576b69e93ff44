//! The test-pyramid controller as a sans-IO state machine (ADR-033's
//! `EarlyExitController.runWithEarlyExit`, turned inside out).
//!
//! The host asks [`PyramidRun::next`] what to do, runs that layer itself (sync, async,
//! in another CI job), and feeds the outcome back with [`PyramidRun::submit`]. The core
//! never calls into the host, so runner errors, async runners and cancellation stay where
//! they belong, and every run is its own value.
//!
//! Order of actions, as the ADR's loop does it: run layers 0, 1, ... in order; after each,
//! compute the quality signal (with `previousLambda` = the previous layer's lambda) and
//! ask [`CoherenceEarlyExit::should_exit`]. On an exit with speculation enabled and layers
//! left, predict every skipped layer and verify the first `verificationLayers` of them, in
//! order, one `Verify` action each. Then `Done`.
//!
//! # The verdict
//!
//! Every result says whether the build is red, green or not known to be either
//! ([`Verdict`]), from what the run observed and nothing else, so the same rule holds for
//! any policy that decides which layers run: a layer that ran or was verified is *failing*
//! when some of its tests did not pass, `passRate < 1` ([`layer_failed`]; the runner reports
//! the rate after its own flaky retries). Then the verdict is `failed` when some observed
//! layer is failing, else `passed` when every layer was observed, else `unverified` (no
//! failure seen, but a layer was skipped without being run). The ADR's 0.99 threshold
//! ([`classify_outcome`]) only grades a prediction; it never makes a red layer green here.
//! The rule and its reasons are written out for users in `docs/pyramid-verdict.md`.

use crate::exit_decision::{CoherenceEarlyExit, ExitConfig, ExitDecision, ExitReason};
use crate::signal::{calculate_quality_signal, LayerResult};
use crate::speculation::{classify_outcome, verification_count, Speculation};
use crate::value::field_name;
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// A layer as the controller knows it before running it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSpec {
    /// Layer name.
    pub name: String,
    /// Expected cost in ms (what makes savings computable for layers that never run).
    pub cost_ms: Option<f64>,
}

impl LayerSpec {
    /// Parses `{name, costMs?}` (a `run` key is allowed and ignored: the host owns runners).
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "layer", naming, ErrorCode::InvalidConfig)?;
        let cost = field_name!("costMs", "cost_ms");
        reader.reject_both_spellings(&[cost])?;
        let name = reader.string(FieldName::same("name"))?.to_string();
        let cost_ms = reader.opt_number(cost, 0.0, f64::MAX)?;
        Ok(LayerSpec { name, cost_ms })
    }

    fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .string("name", &self.name)
            .some_number(field_name!("costMs", "cost_ms").spelled(naming), self.cost_ms)
            .build()
    }
}

/// What the host should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Run layer `i` and submit its result.
    Run(usize),
    /// Run skipped layer `i` to verify its prediction, and submit its result.
    Verify(usize),
    /// Nothing left; `result()` is ready.
    Done,
}

impl Action {
    /// `{action: 'run'|'verify', layer: i}` or `{action: 'done'}`.
    pub fn to_value(self) -> Value {
        let mut o = ObjectBuilder::new();
        match self {
            Action::Run(i) => o.string("action", "run").number("layer", i as f64),
            Action::Verify(i) => o.string("action", "verify").number("layer", i as f64),
            Action::Done => o.string("action", "done"),
        }
        .build()
    }
}

/// Whether an observed layer result is failing: some of its tests did not pass
/// (`passRate < 1`). `passRate` is what the runner reports after its own retries of flaky
/// tests, so a test that passed on retry counts as passed (and shows in `flakyRatio`); a
/// failure that is still there after the retries is a failure, flaky or not. Stricter than
/// the ADR's 0.99 grading of predictions ([`classify_outcome`]): every layer graded `fail`
/// or `flaky` is failing, and so is a layer graded `pass` with `0.99 <= passRate < 1`.
pub fn layer_failed(result: &LayerResult) -> bool {
    result.pass_rate < 1.0
}

/// A run's verdict: is the build red, green, or not known to be either?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A layer that ran or was verified is failing ([`layer_failed`]).
    Failed,
    /// Every layer ran or was verified, and none is failing (an empty pyramid too).
    Passed,
    /// No observed layer is failing, but some layers were skipped without being run.
    Unverified,
}

impl Verdict {
    /// Every verdict, in the order of their codes (the JS fast path's table).
    pub const ALL: [Verdict; 3] = [Verdict::Failed, Verdict::Passed, Verdict::Unverified];

    /// `failed`, `passed` or `unverified`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Failed => "failed",
            Verdict::Passed => "passed",
            Verdict::Unverified => "unverified",
        }
    }

    /// The verdict of a run over `layer_count` layers that observed (ran or verified)
    /// `observed` distinct layers, `failing` of them failing. Only what was observed
    /// counts, so the rule is the same whichever policy chose the layers.
    pub fn of(layer_count: usize, observed: usize, failing: usize) -> Verdict {
        if failing > 0 {
            Verdict::Failed
        } else if observed >= layer_count {
            Verdict::Passed
        } else {
            Verdict::Unverified
        }
    }
}

/// A failing layer that ran or was verified: its index and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FailingLayer {
    /// The layer's index in the pyramid.
    pub layer: usize,
    /// The layer's name.
    pub name: String,
}

impl FailingLayer {
    /// `{layer, name}` (the same keys in every language).
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new().number("layer", self.layer as f64).string("name", &self.name).build()
    }
}

/// ADR-033's `TestPyramidResult` plus the honest-accounting fields.
#[derive(Clone, Debug, PartialEq)]
pub struct TestPyramidResult {
    /// The results of the layers run before the exit (copies, `previousLambda` stamped).
    pub layers: Vec<LayerResult>,
    /// Whether the run exited early.
    pub exited_early: bool,
    /// The exit layer (`layers.length - 1` when no exit, so -1 for an empty pyramid).
    pub exit_layer: i64,
    /// The exit decision's reason (`forced_continue` when no exit).
    pub exit_reason: ExitReason,
    /// The exit decision's confidence (1.0 when no exit).
    pub confidence: f64,
    /// One prediction per skipped layer when speculation ran.
    pub speculations: Vec<Speculation>,
    /// Layers after the exit, including those verification then ran.
    pub skipped_layers: usize,
    /// Indices actually run, in run order, verification included.
    pub layers_executed: Vec<usize>,
    /// How many predictions verification checked.
    pub verified_layers: usize,
    /// How many verified predictions were wrong.
    pub mispredictions: usize,
    /// Summed `costMs` of layers never run; `None` when one of them has no cost.
    pub compute_saved_ms: Option<f64>,
    /// Whether the build is red, green or not known to be either (see [`Verdict`]).
    pub verdict: Verdict,
    /// The failing layers that ran or were verified, in the order they ran.
    pub failing_layers: Vec<FailingLayer>,
}

impl TestPyramidResult {
    /// The result object; `naming` spells the keys of the layer results (the ADR's
    /// top-level keys are camelCase in every language's JSON).
    pub fn to_value(&self, naming: Naming) -> Value {
        ResultView {
            layers: &self.layers,
            exited_early: self.exited_early,
            exit_layer: self.exit_layer,
            exit_reason: self.exit_reason,
            confidence: self.confidence,
            speculations: &self.speculations,
            skipped_layers: self.skipped_layers,
            layers_executed: &self.layers_executed,
            verified_layers: self.verified_layers,
            mispredictions: self.mispredictions,
            compute_saved_ms: self.compute_saved_ms,
            verdict: self.verdict,
            failing_layers: self.failing_layers.clone(),
        }
        .to_value(naming)
    }
}

/// A [`TestPyramidResult`] borrowing the run's lists: [`PyramidRun::result`] copies it out,
/// [`PyramidRun::result_value`] writes it as a value without copying the layer results
/// first (which kept a deep clone of every result in the WebAssembly module).
struct ResultView<'a> {
    layers: &'a [LayerResult],
    exited_early: bool,
    exit_layer: i64,
    exit_reason: ExitReason,
    confidence: f64,
    speculations: &'a [Speculation],
    skipped_layers: usize,
    layers_executed: &'a [usize],
    verified_layers: usize,
    mispredictions: usize,
    compute_saved_ms: Option<f64>,
    verdict: Verdict,
    failing_layers: Vec<FailingLayer>,
}

impl ResultView<'_> {
    fn to_value(&self, naming: Naming) -> Value {
        let key = |js: &'static str, snake: &'static str| if naming == Naming::Js { js } else { snake };
        ObjectBuilder::new()
            .value("layers", value::array_of(self.layers, |l| l.to_value(naming)))
            .boolean(key("exitedEarly", "exited_early"), self.exited_early)
            .number(key("exitLayer", "exit_layer"), self.exit_layer as f64)
            .string(key("exitReason", "exit_reason"), self.exit_reason.as_str())
            .number("confidence", self.confidence)
            .value("speculations", value::array_of(self.speculations, Speculation::to_value))
            .number(key("skippedLayers", "skipped_layers"), self.skipped_layers as f64)
            .value(
                key("layersExecuted", "layers_executed"),
                value::array_of(self.layers_executed, |&i| Value::Number(i as f64)),
            )
            .number(key("verifiedLayers", "verified_layers"), self.verified_layers as f64)
            .number("mispredictions", self.mispredictions as f64)
            .opt_number(key("computeSavedMs", "compute_saved_ms"), self.compute_saved_ms)
            .string("verdict", self.verdict.as_str())
            .value(
                key("failingLayers", "failing_layers"),
                value::array_of(&self.failing_layers, FailingLayer::to_value),
            )
            .build()
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// Waiting for layer `next`'s result.
    Running { next: usize },
    /// After an exit at `exit_layer`: verifying skipped layers; `done` of `count` so far.
    Verifying { decision: ExitDecision, exit_layer: usize, speculations: Vec<Speculation>, done: usize, count: usize },
    /// Finished: the exit (if any) and its speculations.
    Finished { exit: Option<(usize, ExitDecision)>, speculations: Vec<Speculation> },
}

/// One pyramid run, driven step by step by the host.
#[derive(Clone, Debug, PartialEq)]
pub struct PyramidRun {
    exit: CoherenceEarlyExit,
    layers: Vec<LayerSpec>,
    results: Vec<LayerResult>,
    verification_results: Vec<LayerResult>,
    executed: Vec<usize>,
    /// The layers run or verified whose result is failing ([`layer_failed`]), in run order.
    failing: Vec<usize>,
    submissions: Vec<(usize, Value)>,
    phase: Phase,
}

impl PyramidRun {
    /// `start(config, totalLayers, layers)`.
    pub fn start(config: ExitConfig, total_layers: u64, layers: Vec<LayerSpec>) -> Result<Self> {
        let exit = CoherenceEarlyExit::new(config, total_layers)?;
        crate::limits::check_layer_count(layers.len(), ErrorCode::InvalidConfig, "layers")?;
        for (i, layer) in layers.iter().enumerate() {
            if let Some(cost) = layer.cost_ms {
                if value::check_range(cost, 0.0, f64::MAX).is_none() {
                    let field = value::concat(&[&value::index_path("layers", i), ".cost_ms"]);
                    return Err(Error::new(
                        ErrorCode::InvalidConfig,
                        ErrorKind::Range,
                        field.clone(),
                        value::concat(&[&field, " must be a finite number >= 0"]),
                    ));
                }
            }
        }
        Ok(Self::with(exit, layers))
    }

    fn with(exit: CoherenceEarlyExit, layers: Vec<LayerSpec>) -> Self {
        let phase = if layers.is_empty() {
            Phase::Finished { exit: None, speculations: Vec::new() }
        } else {
            Phase::Running { next: 0 }
        };
        PyramidRun {
            exit,
            layers,
            results: Vec::new(),
            verification_results: Vec::new(),
            executed: Vec::new(),
            failing: Vec::new(),
            submissions: Vec::new(),
            phase,
        }
    }

    /// `start` on host values: a partial config merged over the default, `totalLayers`
    /// (integer >= 1) and the layer list (`[{name, costMs?, run?}]`).
    pub fn start_value(config: &Value, total_layers: &Value, layers: &Value, naming: Naming) -> Result<Self> {
        let exit = CoherenceEarlyExit::from_values(config, total_layers, naming)?;
        let specs = parse_layers(layers, naming)?;
        Ok(Self::with(exit, specs))
    }

    /// The layers as given.
    pub fn layers(&self) -> &[LayerSpec] {
        &self.layers
    }

    /// The exit decider.
    pub fn exit(&self) -> &CoherenceEarlyExit {
        &self.exit
    }

    /// What to do next (does not advance anything).
    pub fn next(&self) -> Action {
        match &self.phase {
            Phase::Running { next } => Action::Run(*next),
            Phase::Verifying { exit_layer, done, .. } => Action::Verify(exit_layer + 1 + done),
            Phase::Finished { .. } => Action::Done,
        }
    }

    /// Whether the run is finished.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Finished { .. })
    }

    /// Feeds the result of the pending action's layer (host value; field paths are
    /// `layers[i].passRate`). Returns the exit decision when the layer was a run layer.
    pub fn submit_value(&mut self, layer: &Value, result: &Value, naming: Naming) -> Result<Option<ExitDecision>> {
        let index = value::integer_argument(layer, "layer", ErrorCode::InvalidStep, 0, value::MAX_SAFE_INTEGER)?;
        let index = usize::try_from(index).unwrap_or(usize::MAX);
        self.check_pending(index)?;
        let path = value::index_path("layers", index);
        let parsed = LayerResult::from_value(result, naming, &path)?;
        let decision = self.apply(index, parsed);
        // Kept in the caller's spelling so a snapshot replays exactly what was submitted.
        self.submissions.push((index, to_js_keys(result, naming)));
        Ok(decision)
    }

    /// Feeds a result built in Rust.
    pub fn submit(&mut self, layer: usize, result: LayerResult) -> Result<Option<ExitDecision>> {
        self.check_pending(layer)?;
        let as_value = result.to_value(Naming::Js);
        let path = value::index_path("layers", layer);
        let parsed = LayerResult::from_value(&as_value, Naming::Js, &path)
            .map_err(|e| e.nested(ErrorCode::InvalidLayerResult, ""))?;
        let decision = self.apply(layer, parsed);
        self.submissions.push((layer, as_value));
        Ok(decision)
    }

    fn check_pending(&self, index: usize) -> Result<()> {
        let expected = match self.next() {
            Action::Run(i) | Action::Verify(i) => i,
            Action::Done => {
                return Err(Error::new(
                    ErrorCode::InvalidStep,
                    ErrorKind::Range,
                    "layer",
                    "the run is done; nothing to submit",
                ))
            }
        };
        if index != expected {
            let what = if matches!(self.next(), Action::Verify(_)) { "verify" } else { "run" };
            return Err(Error::new(
                ErrorCode::InvalidStep,
                ErrorKind::Range,
                "layer",
                value::concat(&[
                    "the pending action is to ",
                    what,
                    " layer ",
                    &crate::num::uint_string(expected as u64),
                    ", not layer ",
                    &crate::num::uint_string(index as u64),
                ]),
            ));
        }
        Ok(())
    }

    fn apply(&mut self, index: usize, mut result: LayerResult) -> Option<ExitDecision> {
        self.executed.push(index);
        if layer_failed(&result) {
            self.failing.push(index);
        }
        match std::mem::replace(&mut self.phase, Phase::Running { next: 0 }) {
            Phase::Running { next } => {
                if let Some(previous) = next.checked_sub(1).and_then(|p| self.results.get(p)) {
                    let lambda = calculate_quality_signal(previous).lambda;
                    result.stamp_previous_lambda(lambda);
                }
                let signal = calculate_quality_signal(&result);
                let decision = self.exit.should_exit(&signal, next as u64);
                self.results.push(result);
                let remaining = self.layers.len() - next - 1;
                self.phase = if decision.can_exit {
                    let speculations = if decision.enable_speculation && remaining > 0 {
                        // `remaining` < the layer count, which `start` bounded.
                        crate::speculation::predictions(decision.confidence, remaining)
                    } else {
                        Vec::new()
                    };
                    let count = verification_count(speculations.len(), self.exit.config().verification_layers);
                    if count > 0 {
                        Phase::Verifying { decision: decision.clone(), exit_layer: next, speculations, done: 0, count }
                    } else {
                        Phase::Finished { exit: Some((next, decision.clone())), speculations }
                    }
                } else if next + 1 < self.layers.len() {
                    Phase::Running { next: next + 1 }
                } else {
                    Phase::Finished { exit: None, speculations: Vec::new() }
                };
                Some(decision)
            }
            Phase::Verifying { decision, exit_layer, mut speculations, done, count } => {
                if let Some(speculation) = speculations.get_mut(done) {
                    speculation.actual = Some(classify_outcome(&result));
                }
                self.verification_results.push(result);
                self.phase = if done + 1 < count {
                    Phase::Verifying { decision, exit_layer, speculations, done: done + 1, count }
                } else {
                    Phase::Finished { exit: Some((exit_layer, decision)), speculations }
                };
                None
            }
            finished @ Phase::Finished { .. } => {
                self.phase = finished;
                None
            }
        }
    }

    /// The layer results the verification ran, in order.
    pub fn verification_results(&self) -> &[LayerResult] {
        &self.verification_results
    }

    /// ADR-033's `TestPyramidResult` with the honest-accounting fields; an `invalid_step`
    /// error before the run is done.
    pub fn result(&self) -> Result<TestPyramidResult> {
        let view = self.result_view()?;
        Ok(TestPyramidResult {
            layers: view.layers.to_vec(),
            exited_early: view.exited_early,
            exit_layer: view.exit_layer,
            exit_reason: view.exit_reason,
            confidence: view.confidence,
            speculations: view.speculations.to_vec(),
            skipped_layers: view.skipped_layers,
            layers_executed: view.layers_executed.to_vec(),
            verified_layers: view.verified_layers,
            mispredictions: view.mispredictions,
            compute_saved_ms: view.compute_saved_ms,
            verdict: view.verdict,
            failing_layers: view.failing_layers,
        })
    }

    /// `result()` as the value [`TestPyramidResult::to_value`] gives, without copying it first.
    pub fn result_value(&self, naming: Naming) -> Result<Value> {
        self.result_view().map(|view| view.to_value(naming))
    }

    fn result_view(&self) -> Result<ResultView<'_>> {
        let Phase::Finished { exit, speculations } = &self.phase else {
            return Err(Error::new(
                ErrorCode::InvalidStep,
                ErrorKind::Range,
                "result",
                "the run is not done yet: call next() and submit the pending layer",
            ));
        };
        // `executed` is short (one entry per layer run): a lookup per layer, not a `vec![false; n]`
        // of flags (its specialized fill code is ~0.3 KB of WebAssembly).
        let mut compute_saved_ms = Some(0.0);
        for (i, layer) in self.layers.iter().enumerate() {
            // `any`, not `contains`: slice::contains instantiates its own specialized search (~0.2 KB of wasm).
            #[allow(clippy::manual_contains)]
            let was_run = self.executed.iter().any(|&ran| ran == i);
            if !was_run {
                compute_saved_ms = match (compute_saved_ms, layer.cost_ms) {
                    (Some(sum), Some(cost)) => Some(sum + cost),
                    _ => None,
                };
            }
        }
        let verified_layers = speculations.iter().filter(|s| s.verified()).count();
        let mispredictions = speculations.iter().filter(|s| s.correct() == Some(false)).count();
        let (exited_early, exit_layer, exit_reason, confidence, skipped_layers) = match exit {
            Some((layer, decision)) => {
                (true, *layer as i64, decision.reason, decision.confidence, self.layers.len() - layer - 1)
            }
            None => (false, self.layers.len() as i64 - 1, ExitReason::ForcedContinue, 1.0, 0),
        };
        let mut failing_layers = Vec::with_capacity(self.failing.len());
        for &layer in &self.failing {
            let name = self.layers.get(layer).map_or_else(String::new, |l| l.name.clone());
            failing_layers.push(FailingLayer { layer, name });
        }
        let verdict = Verdict::of(self.layers.len(), self.executed.len(), failing_layers.len());
        Ok(ResultView {
            layers: &self.results,
            exited_early,
            exit_layer,
            exit_reason,
            confidence,
            speculations,
            skipped_layers,
            layers_executed: &self.executed,
            verified_layers,
            mispredictions,
            compute_saved_ms,
            verdict,
            failing_layers,
        })
    }

    /// `{version, engine: "PyramidRun", config, totalLayers, layers, submitted: [{layer, result}]}`:
    /// the run as its inputs, so restoring replays them through every check.
    pub fn to_snapshot(&self) -> Value {
        Value::object(vec![
            ("version", Value::Number(crate::snapshot::VERSION as f64)),
            ("engine", Value::string("PyramidRun")),
            ("config", self.exit.config().to_value(Naming::Js)),
            ("totalLayers", Value::Number(self.exit.total_layers() as f64)),
            ("layers", value::array_of(&self.layers, |l| l.to_value(Naming::Js))),
            (
                "submitted",
                value::array_of(&self.submissions, |(i, r)| {
                    ObjectBuilder::new().number("layer", *i as f64).value("result", r.clone()).build()
                }),
            ),
        ])
    }

    /// Restores a snapshot by replaying its submissions (code `invalid_snapshot`).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, "PyramidRun", &SNAPSHOT_FIELDS)?;
        let get = |k: &'static str| reader.get(FieldName::same(k)).unwrap_or(&Value::Null);
        // Each part is checked where it sits in the document, so errors carry its path.
        let config = ExitConfig::DEFAULT
            .merged(get("config"), Naming::Js, "config", ErrorCode::InvalidSnapshot)
            .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let total_layers =
            crate::exit_decision::total_layers_argument(get("totalLayers"), "totalLayers", ErrorCode::InvalidSnapshot)?;
        let layers = parse_layers(get("layers"), Naming::Js).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut run = PyramidRun::with(
            // Both were just checked (`merged`, `total_layers_argument`), as `new` would check them.
            CoherenceEarlyExit::prevalidated(config, total_layers),
            layers,
        );
        for (i, submission) in crate::snapshot::array(&reader, FieldName::same("submitted"))?.iter().enumerate() {
            let path = value::index_path("submitted", i);
            let entry = ObjectReader::new(submission, &path, "submission", Naming::Js, ErrorCode::InvalidSnapshot)?;
            let layer = entry.get(FieldName::same("layer")).unwrap_or(&Value::Null);
            let result = entry.get(FieldName::same("result")).unwrap_or(&Value::Null);
            run.submit_value(layer, result, Naming::Js)
                .map_err(|e| at_result_path(e).nested(ErrorCode::InvalidSnapshot, &path))?;
        }
        Ok(run)
    }
}

/// `submit` names a bad result's fields as the live API sees them (`layers[2].passRate`);
/// inside a snapshot that value sits at `submitted[k].result.passRate`, so the error must
/// say so (the caller fixes the document, not a runner).
fn at_result_path(err: Error) -> Error {
    let field = err.field();
    // Byte scans, not `split_once` / `replacen`: those pull std's substring searchers
    // (~1.5 KB) into the size-budgeted WebAssembly module for this one error path.
    let Some(rest) =
        field.strip_prefix("layers[").and_then(|r| r.bytes().position(|b| b == b']').and_then(|end| r.get(end + 1..)))
    else {
        return err;
    };
    let renamed = value::concat(&["result", rest]);
    let message = value::replace_first(err.message(), field, &renamed);
    Error::new(err.error_code(), err.kind(), renamed, message)
}

/// Translates the known keys of a snake_case result object to the JS spelling (snapshots
/// are written in one spelling whatever language made them).
fn to_js_keys(result: &Value, naming: Naming) -> Value {
    match (naming, result) {
        (Naming::Snake, Value::Object(entries)) => {
            let mut o = ObjectBuilder::new();
            for (k, v) in entries {
                let key =
                    crate::signal::LAYER_RESULT_FIELDS.iter().find(|f| f.snake() == k).map_or(k.as_str(), |f| f.js());
                o.value(key, v.clone());
            }
            o.build()
        }
        _ => result.clone(),
    }
}

/// The error for a layer whose runner cannot be called (JS: `run` is not a function;
/// Python: not callable). Bindings check callability in their language; the words are here.
pub fn invalid_runner(naming: Naming, index: usize, got: &Value) -> Error {
    let field = value::concat(&[&value::index_path("layers", index), ".run"]);
    let expected = match naming {
        Naming::Js => "a function",
        Naming::Snake => "callable",
    };
    Error::new(
        ErrorCode::InvalidConfig,
        ErrorKind::Type,
        field.clone(),
        value::concat(&[&field, " must be ", expected, ", got ", &got.describe()]),
    )
}

/// Parses the layer list of `start` / `runWithEarlyExit`.
pub fn parse_layers(layers: &Value, naming: Naming) -> Result<Vec<LayerSpec>> {
    let Value::Array(items) = layers else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "layers",
            value::concat(&["layers must be an array, got ", &layers.describe()]),
        ));
    };
    crate::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "layers")?;
    // A plain loop: collecting an iterator of `Result`s instantiates ~0.9 KB of adapters.
    let mut specs = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        specs.push(LayerSpec::from_value(item, naming, &value::index_path("layers", i))?);
    }
    Ok(specs)
}

/// The keys of this engine's snapshot.
const SNAPSHOT_FIELDS: [FieldName; 6] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("config"),
    FieldName::same("totalLayers"),
    FieldName::same("layers"),
    FieldName::same("submitted"),
];
