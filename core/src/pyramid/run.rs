//! One pyramid run as a sans-IO state machine ([`PyramidRun`]): the host asks what to do
//! next, runs it, and submits the outcome; the run snapshots and restores at any step.

use crate::pyramid::exit::{total_layers_argument, CoherenceEarlyExit, ExitConfig, ExitDecision, ExitReason};
use crate::pyramid::result::{
    layer_failed, Action, FailingLayer, LayerSpec, ResultView, TestPyramidResult, Verdict, NOTE_NOTHING_SAVED,
};
use crate::pyramid::signal::{calculate_quality_signal, LayerResult, LAYER_RESULT_FIELDS};
use crate::pyramid::speculation::{classify_outcome, predict_layer_outcome, verification_count, Speculation};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

#[derive(Clone, Debug, PartialEq)]
enum Phase {
    /// Waiting for layer `next`'s result.
    Running { next: usize },
    /// After an exit at `exit_layer`: verifying skipped layers; `done` of `count` so far.
    Verifying { decision: ExitDecision, exit_layer: usize, speculations: Vec<Speculation>, done: usize, count: usize },
    /// Finished: the exit (if any) and its speculations.
    Finished { exit: Option<(usize, ExitDecision)>, speculations: Vec<Speculation> },
}

/// One pyramid run, driven step by step by the host: ask [`PyramidRun::next`] what to do,
/// run that layer, [`PyramidRun::submit`] its result, until [`Action::Done`].
///
/// A green unit layer with a clear quality signal lets the ADR's default config skip the
/// layers after it; the skipped layer is predicted, verified, and the run answers:
///
/// ```
/// use earlyexit::{Action, ExitConfig, LayerResult, LayerSpec, PyramidRun, Verdict};
///
/// let layers = ["unit", "integration", "e2e"].map(|name| LayerSpec { name: name.into(), cost_ms: Some(1000.0) });
/// let mut run = PyramidRun::start(ExitConfig::DEFAULT, 3, layers.to_vec())?;
/// loop {
///     let layer = match run.next() {
///         Action::Run(layer) | Action::Verify(layer) => layer,
///         Action::Done => break,
///     };
///     // The host runs `layer` here (any runner, sync or async) and reports its result.
///     run.submit(layer, LayerResult::new(1.0, 0.95, 0.0))?;
/// }
/// let result = run.result()?;
/// assert!(result.exited_early);
/// assert_eq!(result.layers_executed, [0, 1, 2]); // 1 and 2 ran to verify their predictions
/// assert_eq!(result.verdict, Verdict::Passed);
/// # Ok::<(), earlyexit::Error>(())
/// ```
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
        LayerSpec::check_cost_total(&layers, Naming::Snake)?;
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

    /// The index of the one layer called `name` (a host that lets its caller name a layer:
    /// code `invalid_step`, field `layer`, when no layer or several are called so).
    pub fn layer_named(&self, name: &str) -> Result<usize> {
        layer_named(&self.layers, name)
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
                        // One prediction per skipped layer, each naming its layer.
                        let prediction = predict_layer_outcome(decision.confidence);
                        let mut speculations = Vec::with_capacity(remaining);
                        for (layer, spec) in self.layers.iter().enumerate().skip(next + 1) {
                            speculations.push(prediction.clone().about(layer, &spec.name));
                        }
                        speculations
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
            layers_before_exit: view.layers_before_exit.to_vec(),
            layers_verified: view.layers_verified.to_vec(),
            layers_not_run: view.layers_not_run,
            note: view.note,
            policy: None,
            shadow: None,
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
        let mut layers_not_run = Vec::new();
        for (i, layer) in self.layers.iter().enumerate() {
            // `any`, not `contains`: slice::contains instantiates its own specialized search (~0.2 KB of wasm).
            #[allow(clippy::manual_contains)]
            let was_run = self.executed.iter().any(|&ran| ran == i);
            if !was_run {
                layers_not_run.push(i);
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
        // The layers run before the exit come first in `executed`, one result each; the
        // verified ones follow.
        let (layers_before_exit, layers_verified) = self.executed.split_at(self.results.len().min(self.executed.len()));
        let note = (exited_early && skipped_layers > 0 && layers_not_run.is_empty()).then_some(NOTE_NOTHING_SAVED);
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
            layers_before_exit,
            layers_verified,
            layers_not_run,
            note,
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
        let total_layers = total_layers_argument(get("totalLayers"), "totalLayers", ErrorCode::InvalidSnapshot)?;
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
pub(crate) fn at_result_path(err: Error) -> Error {
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
pub(crate) fn to_js_keys(result: &Value, naming: Naming) -> Value {
    match (naming, result) {
        (Naming::Snake, Value::Object(entries)) => {
            let mut o = ObjectBuilder::new();
            for (k, v) in entries {
                let key = LAYER_RESULT_FIELDS.iter().find(|f| f.snake() == k).map_or(k.as_str(), |f| f.js());
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
    LayerSpec::check_cost_total(&specs, naming)?;
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

/// The index of the one layer of `layers` called `name` (code `invalid_step`, field `layer`,
/// when no layer or several are called so): [`PyramidRun::layer_named`], and a policy run's.
pub(crate) fn layer_named(layers: &[LayerSpec], name: &str) -> Result<usize> {
    let mut found = layers.iter().enumerate().filter(|(_, l)| l.name == name).map(|(i, _)| i);
    match (found.next(), found.next()) {
        (Some(i), None) => Ok(i),
        _ => Err(Error::new(
            ErrorCode::InvalidStep,
            ErrorKind::Range,
            "layer",
            value::concat(&["layer must name exactly one layer of the run, got '", name, "'"]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_is_found_by_its_name() {
        let specs = ["unit", "e2e"].map(|n| LayerSpec { name: n.into(), cost_ms: None }).to_vec();
        let run = PyramidRun::start(ExitConfig::DEFAULT, 2, specs).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.layer_named("e2e"), Ok(1));
        let e = run.layer_named("E2E").unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_step", "layer"));
        assert_eq!(e.message(), "layer must name exactly one layer of the run, got 'E2E'");
    }
}
