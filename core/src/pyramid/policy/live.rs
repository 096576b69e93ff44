//! The policy, live: [`PolicyRun`] drives one pyramid run by the `fail_fast` or
//! `risk_bounded` policy through the same step API as the ADR's [`PyramidRun`], and
//! [`LiveRun`] is either, chosen by the run's [`RunOptions`].
//!
//! Each step is the replay's step ([`OutcomeModel::step`]): a live run decides exactly as a
//! replay of its recorded outcomes with the same model does. What the result's ADR fields
//! mean for a policy run (`exitLayer`, `skippedLayers`, `speculations`, `exitReason`, ...)
//! is in `docs/test-exit.md`; [`PolicyReport`] says why.

use crate::artifact::HostServices;
use crate::pyramid::exit::total_layers_argument;
use crate::pyramid::policy::adr_shadow::{AdrReceipt, AdrShadow, AdrSkippedLayer};
use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::model::{check_layer_list, ObservedLayer, PlannedLayer, PolicyDecision, StopReason};
use crate::pyramid::policy::options::{RunMode, RunOptions, RunPolicy};
use crate::pyramid::policy::report::{LayerCounts, PolicyReport, PolicyStep};
use crate::pyramid::policy::shadow::{shadow_value, shadow_value_of, ShadowReceipt, SkippedLayer};
use crate::pyramid::run::{at_result_path, to_js_keys};
use crate::pyramid::{
    calculate_quality_signal, classify_outcome, layer_failed, parse_layers, Action, CoherenceEarlyExit, ExitConfig,
    ExitDecision, ExitReason, FailingLayer, LayerResult, LayerSpec, Outcome, PyramidRun, Speculation,
    TestPyramidResult, Verdict,
};
use crate::value::{self, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// The `engine` of a policy run's snapshot.
pub const POLICY_RUN_ENGINE: &str = "PyramidPolicyRun";

/// One pyramid run decided by the `fail_fast` or `risk_bounded` policy, driven step by step
/// like a [`PyramidRun`]: [`PolicyRun::next`] says which layer to run (the model's order
/// with `reorder`), [`PolicyRun::submit`] feeds its result, until [`Action::Done`] (a layer
/// failed, the bound allowed skipping the rest, or every layer ran).
///
/// ```
/// use earlyexit::pyramid::policy::{PolicyRun, RunOptions, RunPolicy, OutcomeModel};
/// use earlyexit::{Action, LayerResult, LayerSpec, Verdict};
///
/// let layers = ["unit", "e2e"].map(|name| LayerSpec { name: name.into(), cost_ms: Some(10.0) });
/// let mut run = PolicyRun::start(RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()), layers.to_vec())?;
/// while let Action::Run(layer) = run.next() {
///     let pass_rate = if layer == 0 { 0.5 } else { 1.0 }; // unit fails
///     run.submit(layer, LayerResult::new(pass_rate, 1.0, 0.0))?;
/// }
/// let result = run.result()?;
/// assert_eq!((result.exit_reason.as_str(), result.skipped_layers), ("layer_failed", 1));
/// assert_eq!(result.verdict, Verdict::Failed);
/// # Ok::<(), earlyexit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyRun {
    options: RunOptions,
    layers: Vec<LayerSpec>,
    planned: Vec<PlannedLayer>,
    /// The results of the layers run, in run order (copies of what the runners returned).
    results: Vec<LayerResult>,
    /// `(layer, failed)` per layer run, in run order.
    outcomes: Vec<(usize, bool)>,
    done: Vec<bool>,
    submissions: Vec<(usize, Value)>,
    decision: PolicyDecision,
    /// Shadow mode: the first point where the policy would have exited.
    would_exit: Option<WouldExit>,
    /// The ADR's exit decision in shadow mode (policy `adr`): its decider and would-be exit.
    adr: Option<Box<AdrShadow>>,
}

/// Where a shadow-mode run's policy would have exited: after `after` layers ran, for
/// `reason`, skipping `remaining` (the layers not run yet then).
#[derive(Clone, Debug, PartialEq)]
struct WouldExit {
    after: usize,
    reason: StopReason,
    risk: Option<f64>,
    remaining: Vec<usize>,
}

impl PolicyRun {
    /// Starts a run of `options.policy` (`fail_fast` or `risk_bounded`) over `layers`, whose
    /// names must be distinct (they key the model).
    pub fn start(options: RunOptions, layers: Vec<LayerSpec>) -> Result<Self> {
        if options.policy == RunPolicy::Adr {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                "policy",
                "policy 'adr' runs as a PyramidRun (LiveRun::start chooses)",
            ));
        }
        crate::limits::check_layer_count(layers.len(), ErrorCode::InvalidConfig, "layers")?;
        LayerSpec::check_cost_total(&layers, Naming::Snake)?;
        let planned: Vec<PlannedLayer> =
            layers.iter().map(|l| PlannedLayer { name: l.name.clone(), cost_ms: l.cost_ms }).collect();
        // `decide` validates the knobs and the layers (names distinct, costs >= 0); with no
        // outcome yet its answer is the step's.
        let decision = options.model.decide(&options.config, &planned, &[])?;
        Ok(Self::fresh(options, layers, planned, decision, None))
    }

    /// A run before its first layer: no results, no submissions, no would-be exit.
    fn fresh(
        options: RunOptions,
        layers: Vec<LayerSpec>,
        planned: Vec<PlannedLayer>,
        decision: PolicyDecision,
        adr: Option<Box<AdrShadow>>,
    ) -> Self {
        let done = vec![false; layers.len()];
        PolicyRun {
            options,
            layers,
            planned,
            results: Vec::new(),
            outcomes: Vec::new(),
            done,
            submissions: Vec::new(),
            decision,
            would_exit: None,
            adr,
        }
    }

    /// Starts the ADR's exit decision in shadow mode (`options.policy` `adr`, `options.mode`
    /// `shadow`) over `layers`: every layer runs in order; the first layer after which the
    /// ADR's controller would have exited becomes the run's receipt.
    pub fn start_adr_shadow(exit: CoherenceEarlyExit, options: RunOptions, layers: Vec<LayerSpec>) -> Result<Self> {
        if options.policy != RunPolicy::Adr || options.mode != RunMode::Shadow {
            let message = "start_adr_shadow runs policy 'adr' in mode 'shadow' (LiveRun::start chooses)";
            return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "mode", message));
        }
        // The layers as the ADR's own run checks them (count, costs).
        PyramidRun::start(exit.config().clone(), exit.total_layers(), layers.clone())?;
        let planned = layers.iter().map(|l| PlannedLayer { name: l.name.clone(), cost_ms: l.cost_ms }).collect();
        let decision = if layers.is_empty() {
            PolicyDecision::Stop { reason: StopReason::Completed, risk: None }
        } else {
            PolicyDecision::Run { layer: 0, risk: None }
        };
        Ok(Self::fresh(options, layers, planned, decision, Some(Box::new(AdrShadow { exit, would_exit: None }))))
    }

    /// The run's options.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// The layers as given.
    pub fn layers(&self) -> &[LayerSpec] {
        &self.layers
    }

    /// What to do next (does not advance anything): run a layer, or done.
    pub fn next(&self) -> Action {
        match self.decision {
            PolicyDecision::Run { layer, .. } => Action::Run(layer),
            PolicyDecision::Stop { .. } => Action::Done,
        }
    }

    /// Whether the run is finished.
    pub fn is_done(&self) -> bool {
        matches!(self.decision, PolicyDecision::Stop { .. })
    }

    /// Feeds the pending layer's result (host value; field paths are `layers[i].passRate`).
    pub fn submit_value(&mut self, layer: &Value, result: &Value, naming: Naming) -> Result<()> {
        let index = value::integer_argument(layer, "layer", ErrorCode::InvalidStep, 0, value::MAX_SAFE_INTEGER)?;
        let index = usize::try_from(index).unwrap_or(usize::MAX);
        self.check_pending(index)?;
        let parsed = LayerResult::from_value(result, naming, &value::index_path("layers", index))?;
        self.check_costs(index, &parsed, naming)?;
        self.apply(index, parsed);
        self.submissions.push((index, to_js_keys(result, naming)));
        Ok(())
    }

    /// Feeds a result built in Rust.
    pub fn submit(&mut self, layer: usize, result: LayerResult) -> Result<()> {
        self.check_pending(layer)?;
        let as_value = result.to_value(Naming::Js);
        let parsed = LayerResult::from_value(&as_value, Naming::Js, &value::index_path("layers", layer))
            .map_err(|e| e.nested(ErrorCode::InvalidLayerResult, ""))?;
        self.check_costs(layer, &parsed, Naming::Snake)?;
        self.apply(layer, parsed);
        self.submissions.push((layer, as_value));
        Ok(())
    }

    /// What a layer cost, as the receipt counts it: its result's `durationMs` once it ran,
    /// else its `costMs`. Their sum must stay finite (the receipt's `computeSavedMs` sums
    /// some of them): a duration that would make it overflow is refused, naming
    /// `layers[i].durationMs`, and nothing changes.
    fn check_costs(&self, index: usize, result: &LayerResult, naming: Naming) -> Result<()> {
        let Some(duration) = result.duration_ms else { return Ok(()) };
        let mut costs: Vec<f64> = self.layers.iter().map(|l| l.cost_ms.unwrap_or(0.0)).collect();
        for (&(layer, _), ran) in self.outcomes.iter().zip(&self.results) {
            if let (Some(slot), Some(d)) = (costs.get_mut(layer), ran.duration_ms) {
                *slot = d;
            }
        }
        if let Some(slot) = costs.get_mut(index) {
            *slot = 0.0;
        }
        // The others' sum is finite: every earlier check summed them with this layer's cost.
        let others: f64 = costs.iter().sum();
        if (others + duration).is_finite() {
            return Ok(());
        }
        let spelling = if naming == Naming::Js { "durationMs" } else { "duration_ms" };
        let field = value::concat(&[&value::index_path("layers", index), ".", spelling]);
        value::add_to_total(others, duration, &field, ErrorCode::InvalidLayerResult).map(|_| ())
    }

    fn check_pending(&self, index: usize) -> Result<()> {
        match self.decision {
            PolicyDecision::Stop { .. } => {
                Err(Error::new(ErrorCode::InvalidStep, ErrorKind::Range, "layer", "the run is done; nothing to submit"))
            }
            PolicyDecision::Run { layer, .. } if layer != index => Err(Error::new(
                ErrorCode::InvalidStep,
                ErrorKind::Range,
                "layer",
                value::concat(&[
                    "the pending action is to run layer ",
                    &crate::num::uint_string(layer as u64),
                    ", not layer ",
                    &crate::num::uint_string(index as u64),
                ]),
            )),
            PolicyDecision::Run { .. } => Ok(()),
        }
    }

    fn apply(&mut self, index: usize, mut result: LayerResult) {
        if let Some(adr) = self.adr.as_mut() {
            // The ADR's run, never exiting: each layer in order, `previousLambda` stamped
            // from layer 1 on, the decision asked after each.
            if let Some(previous) = index.checked_sub(1).and_then(|p| self.results.get(p)) {
                result.stamp_previous_lambda(calculate_quality_signal(previous).lambda);
            }
            adr.observe(index, self.layers.len(), calculate_quality_signal(&result));
            self.outcomes.push((index, layer_failed(&result)));
            if let Some(slot) = self.done.get_mut(index) {
                *slot = true;
            }
            self.results.push(result);
            self.decision = if index + 1 < self.layers.len() {
                PolicyDecision::Run { layer: index + 1, risk: None }
            } else {
                PolicyDecision::Stop { reason: StopReason::Completed, risk: None }
            };
            return;
        }
        self.outcomes.push((index, layer_failed(&result)));
        if let Some(slot) = self.done.get_mut(index) {
            *slot = true;
        }
        self.results.push(result);
        let (config, model) = (&self.options.config, &self.options.model);
        self.decision = model.step(config, &self.planned, &self.outcomes, &self.done);
        if self.options.mode == RunMode::Shadow {
            self.shadow_continue();
        }
    }

    /// Shadow mode: where the policy stops with layers left, record the first such point
    /// and run on (after a failure in pyramid order, else in the policy's own order).
    fn shadow_continue(&mut self) {
        let PolicyDecision::Stop { reason, risk } = self.decision else { return };
        let remaining: Vec<usize> =
            (0..self.done.len()).filter(|&i| !self.done.get(i).copied().unwrap_or(true)).collect();
        let Some(&first) = remaining.first() else { return };
        if self.would_exit.is_none() {
            self.would_exit =
                Some(WouldExit { after: self.outcomes.len(), reason, risk, remaining: remaining.clone() });
        }
        let layer = if reason == StopReason::LayerFailed {
            first
        } else {
            let running_on = PolicyConfig { skip_on_success: false, ..self.options.config.clone() };
            match self.options.model.step(&running_on, &self.planned, &self.outcomes, &self.done) {
                PolicyDecision::Run { layer, .. } => layer,
                PolicyDecision::Stop { .. } => first,
            }
        };
        self.decision = PolicyDecision::Run { layer, risk: None };
    }

    /// Shadow mode: the receipt of the point where the policy would have exited (`None` in
    /// enforced mode, or when it would not have exited before the end).
    pub fn shadow_receipt(&self) -> Option<ShadowReceipt> {
        if self.adr.is_some() {
            return None;
        }
        let exit = self.would_exit.as_ref()?;
        let (config, model) = (&self.options.config, &self.options.model);
        let level = 1.0 - (1.0 - config.confidence) / exit.remaining.len().max(1) as f64;
        let skipped = self
            .outcomes
            .iter()
            .zip(&self.results)
            .skip(exit.after)
            .filter_map(|(&(layer, failed), result)| {
                let spec = self.layers.get(layer)?;
                let green = exit.reason == StopReason::RiskBounded;
                Some(SkippedLayer {
                    layer,
                    name: spec.name.clone(),
                    predicted: if green { "pass" } else { "fail" },
                    confidence: green.then(|| 1.0 - model.failure_bound(config, &spec.name, level)),
                    failed,
                    cost_ms: result.duration_ms.or(spec.cost_ms),
                })
            })
            .collect();
        let last = exit.after.checked_sub(1).and_then(|k| self.outcomes.get(k)).map(|&(layer, _)| layer);
        Some(ShadowReceipt {
            run_id: self.options.run_id.clone(),
            run_label: self.options.label.clone(),
            after: exit.after,
            layer: last.and_then(|l| self.layers.get(l).map(|spec| (l, spec.name.clone()))),
            policy: self.options.policy,
            config: config.clone(),
            reason: exit.reason,
            risk: exit.risk,
            skipped,
        })
    }

    /// The ADR in shadow mode: the receipt of the layer after which its controller would have
    /// exited (`None` for another policy, or when it would not have exited with layers left).
    pub fn adr_receipt(&self) -> Option<AdrReceipt> {
        let adr = self.adr.as_ref()?;
        let exit = adr.would_exit.as_ref()?;
        let mut receipt = AdrReceipt {
            run_id: self.options.run_id.clone(),
            run_label: self.options.label.clone(),
            layer: (exit.layer, self.layers.get(exit.layer).map_or_else(String::new, |l| l.name.clone())),
            config: adr.exit.config().clone(),
            total_layers: adr.exit.total_layers(),
            signal: exit.signal,
            decision: exit.decision.clone(),
            failing_before_exit: Vec::new(),
            skipped: Vec::new(),
        };
        // Layers run in pyramid order: the k-th result is layer k's.
        for (layer, (result, spec)) in self.results.iter().zip(&self.layers).enumerate() {
            let failed = layer_failed(result);
            if layer <= exit.layer {
                if failed {
                    receipt.failing_before_exit.push(FailingLayer { layer, name: spec.name.clone() });
                }
                continue;
            }
            receipt.skipped.push(AdrSkippedLayer {
                layer,
                name: spec.name.clone(),
                verified: false,
                failed,
                outcome: classify_outcome(result),
                cost_ms: result.duration_ms.or(spec.cost_ms),
            });
        }
        let verified = receipt.verified_count();
        for skipped in receipt.skipped.iter_mut().take(verified) {
            skipped.verified = true;
        }
        Some(receipt)
    }

    /// The receipt document of a shadow run (either kind: the ADR's or a policy's), `None`
    /// when the policy would not have exited with layers left, or in enforced mode.
    pub fn receipt_value(&self) -> Option<Value> {
        match &self.adr {
            Some(_) => self.adr_receipt().map(|r| r.to_value()),
            None => self.shadow_receipt().map(|r| r.to_value()),
        }
    }

    /// The result of the ADR's shadow run: the ADR's result for a run that never exited
    /// (every layer ran in order), with the `shadow` key.
    fn adr_result(&self) -> TestPyramidResult {
        let executed: Vec<usize> = self.outcomes.iter().map(|&(layer, _)| layer).collect();
        let failing_layers: Vec<FailingLayer> = self
            .outcomes
            .iter()
            .filter(|&&(_, failed)| failed)
            .filter_map(|&(layer, _)| self.layers.get(layer).map(|l| FailingLayer { layer, name: l.name.clone() }))
            .collect();
        let receipt = self.adr_receipt().map(|r| (r.to_value(), r.label(), r.compute_saved_ms()));
        TestPyramidResult {
            layers: self.results.clone(),
            exited_early: false,
            exit_layer: self.layers.len() as i64 - 1,
            exit_reason: ExitReason::ForcedContinue,
            confidence: 1.0,
            speculations: Vec::new(),
            skipped_layers: 0,
            layers_executed: executed.clone(),
            verified_layers: 0,
            mispredictions: 0,
            compute_saved_ms: Some(0.0),
            verdict: Verdict::of(self.layers.len(), executed.len(), failing_layers.len()),
            failing_layers,
            layers_before_exit: executed,
            layers_verified: Vec::new(),
            layers_not_run: Vec::new(),
            note: None,
            policy: None,
            shadow: Some(shadow_value_of(receipt, self.options.fallback.as_deref())),
        }
    }

    /// The bound on P(some layer not run yet fails | what ran passed) after the first `ran`
    /// outcomes, as the step computes it (`None` where the step does not consider skipping).
    fn bound_after(&self, ran: usize) -> Option<f64> {
        let config = &self.options.config;
        if !config.skip_on_success || ran == 0 || config.risk_budget <= 0.0 {
            return None;
        }
        let prefix = self.outcomes.get(..ran).unwrap_or(&[]);
        let names: Vec<&str> = (0..self.layers.len())
            .filter(|i| !prefix.iter().any(|&(layer, _)| layer == *i))
            .filter_map(|i| self.layers.get(i).map(|l| l.name.as_str()))
            .collect();
        Some(self.options.model.skip_risk(config, &names))
    }

    /// The result: the ADR's fields as a policy run gives them (`docs/test-exit.md`), the
    /// verdict, and the [`PolicyReport`] under `policy`; an `invalid_step` error before the
    /// run is done.
    pub fn result(&self) -> Result<TestPyramidResult> {
        let PolicyDecision::Stop { reason, risk } = self.decision else {
            return Err(Error::new(
                ErrorCode::InvalidStep,
                ErrorKind::Range,
                "result",
                "the run is not done yet: call next() and submit the pending layer",
            ));
        };
        if self.adr.is_some() {
            return Ok(self.adr_result());
        }
        let (config, model) = (&self.options.config, &self.options.model);
        let executed: Vec<usize> = self.outcomes.iter().map(|&(layer, _)| layer).collect();
        let skipped: Vec<usize> = (0..self.layers.len()).filter(|i| !executed.contains(i)).collect();
        let mut compute_saved_ms = Some(0.0);
        for layer in skipped.iter().filter_map(|&i| self.layers.get(i)) {
            compute_saved_ms = compute_saved_ms.zip(layer.cost_ms).map(|(sum, cost)| sum + cost);
        }
        // A risk-bounded stop predicts every skipped layer to pass, each with the confidence
        // its own bound leaves at the stop's (Bonferroni) level.
        let mut speculations = Vec::new();
        if reason == StopReason::RiskBounded {
            let level = 1.0 - (1.0 - config.confidence) / skipped.len().max(1) as f64;
            for (index, layer) in skipped.iter().filter_map(|&i| self.layers.get(i).map(|l| (i, l))) {
                let confidence = 1.0 - model.failure_bound(config, &layer.name, level);
                let prediction =
                    Speculation { predicted: Outcome::Pass, confidence, actual: None, layer: None, name: None };
                speculations.push(prediction.about(index, &layer.name));
            }
        }
        let failing_layers: Vec<FailingLayer> = self
            .outcomes
            .iter()
            .filter(|&&(_, failed)| failed)
            .filter_map(|&(layer, _)| self.layers.get(layer).map(|l| FailingLayer { layer, name: l.name.clone() }))
            .collect();
        let steps = (0..executed.len())
            .zip(&executed)
            .map(|(k, &layer)| PolicyStep { layer, risk: self.bound_after(k) })
            .collect();
        let counts = (0..self.layers.len())
            .zip(&self.layers)
            .map(|(layer, spec)| {
                let stats = model.layer(&spec.name);
                LayerCounts {
                    layer,
                    name: spec.name.clone(),
                    trials: stats.map_or(0.0, |s| s.trials),
                    failures: stats.map_or(0.0, |s| s.failures),
                    cost_ms: stats.and_then(|s| s.cost_ms),
                }
            })
            .collect();
        let ran = self
            .outcomes
            .iter()
            .zip(&self.results)
            .filter_map(|(&(layer, failed), result)| {
                let name = self.layers.get(layer)?.name.clone();
                Some(ObservedLayer { name, failed, duration_ms: result.duration_ms })
            })
            .collect();
        let report = PolicyReport {
            policy: self.options.policy,
            mode: self.options.mode,
            config: config.clone(),
            risk,
            steps,
            skipped: skipped.clone(),
            counts,
            ran,
        };
        Ok(TestPyramidResult {
            layers: self.results.clone(),
            exited_early: !skipped.is_empty(),
            exit_layer: executed.last().map_or(-1, |&l| l as i64),
            exit_reason: match reason {
                StopReason::LayerFailed => ExitReason::LayerFailed,
                StopReason::RiskBounded => ExitReason::RiskBounded,
                StopReason::Completed => ExitReason::Completed,
            },
            confidence: risk.map_or(1.0, |r| 1.0 - r),
            speculations,
            skipped_layers: skipped.len(),
            layers_executed: executed.clone(),
            verified_layers: 0,
            mispredictions: 0,
            compute_saved_ms,
            verdict: Verdict::of(self.layers.len(), executed.len(), failing_layers.len()),
            failing_layers,
            // A policy never verifies: every layer it ran ran before its stop.
            layers_before_exit: executed.clone(),
            layers_verified: Vec::new(),
            layers_not_run: skipped.clone(),
            note: None,
            policy: Some(report),
            shadow: (self.options.mode == RunMode::Shadow)
                .then(|| shadow_value(self.shadow_receipt().as_ref(), self.options.fallback.as_deref())),
        })
    }

    /// `{version, engine: "PyramidPolicyRun", options, layers, submitted: [{layer, result}]}`:
    /// the run as its inputs (the model included), so restoring replays them through every check.
    /// The ADR's shadow run also keeps its exit `config` and `totalLayers` (after `options`).
    pub fn to_snapshot(&self) -> Value {
        let mut entries = vec![
            ("version", Value::Number(crate::snapshot::VERSION as f64)),
            ("engine", Value::string(POLICY_RUN_ENGINE)),
            ("options", self.options.to_value(Naming::Js)),
        ];
        if let Some(adr) = &self.adr {
            entries.push(("config", adr.exit.config().to_value(Naming::Js)));
            entries.push(("totalLayers", Value::Number(adr.exit.total_layers() as f64)));
        }
        entries.push(("layers", value::array_of(&self.layers, |l| l.to_value(Naming::Js))));
        entries.push((
            "submitted",
            value::array_of(&self.submissions, |(i, r)| {
                ObjectBuilder::new().number("layer", *i as f64).value("result", r.clone()).build()
            }),
        ));
        Value::object(entries)
    }

    /// Restores a snapshot by replaying its submissions (code `invalid_snapshot`).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        let reader = crate::snapshot::open(snapshot, POLICY_RUN_ENGINE, &SNAPSHOT_FIELDS)?;
        let get = |k: &'static str| reader.get(FieldName::same(k)).unwrap_or(&Value::Null);
        let nest = |e: Error| e.nested(ErrorCode::InvalidSnapshot, "options");
        let options = RunOptions::from_values(get("options"), &Value::Null, Naming::Js).map_err(nest)?;
        let adr = options.policy == RunPolicy::Adr;
        if adr && options.mode != RunMode::Shadow {
            let message = "options.policy 'adr' runs in a policy run's snapshot only in mode 'shadow'";
            return Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, "options.mode", message));
        }
        for key in ["config", "totalLayers"] {
            let given = reader.get(FieldName::same(key)).is_some();
            if !adr && given {
                let message = value::concat(&[key, " is kept only by the ADR's shadow run (options.policy 'adr')"]);
                return Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Range, key, message));
            }
            if adr && !given {
                let message = value::concat(&[key, " is required in the ADR's shadow run's snapshot"]);
                return Err(Error::new(ErrorCode::InvalidSnapshot, ErrorKind::Type, key, message));
            }
        }
        let layers = parse_layers(get("layers"), Naming::Js).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        let mut run = if adr {
            let config = ExitConfig::DEFAULT
                .merged(get("config"), Naming::Js, "config", ErrorCode::InvalidSnapshot)
                .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
            let total_layers = total_layers_argument(get("totalLayers"), "totalLayers", ErrorCode::InvalidSnapshot)?;
            let exit =
                CoherenceEarlyExit::new(config, total_layers).map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
            PolicyRun::start_adr_shadow(exit, options, layers)
        } else {
            PolicyRun::start(options, layers)
        }
        .map_err(|e| e.nested(ErrorCode::InvalidSnapshot, ""))?;
        for (i, submission) in crate::snapshot::array(&reader, FieldName::same("submitted"))?.iter().enumerate() {
            let path = value::index_path("submitted", i);
            let entry = ObjectReader::new(submission, &path, "submission", Naming::Js, ErrorCode::InvalidSnapshot)?;
            entry.reject_unknown(&[FieldName::same("layer"), FieldName::same("result")])?;
            let layer = entry.get(FieldName::same("layer")).unwrap_or(&Value::Null);
            let result = entry.get(FieldName::same("result")).unwrap_or(&Value::Null);
            run.submit_value(layer, result, Naming::Js)
                .map_err(|e| at_result_path(e).nested(ErrorCode::InvalidSnapshot, &path))?;
        }
        Ok(run)
    }
}

const SNAPSHOT_FIELDS: [FieldName; 7] = [
    FieldName::same("version"),
    FieldName::same("engine"),
    FieldName::same("options"),
    FieldName::same("config"),
    FieldName::same("totalLayers"),
    FieldName::same("layers"),
    FieldName::same("submitted"),
];

/// A live pyramid run decided by any policy: the ADR's [`PyramidRun`] (policy `adr`, the
/// default) or a [`PolicyRun`], with one step API.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveRun {
    /// The ADR's exit decision with the run's exit config.
    Adr(PyramidRun),
    /// The `fail_fast` or `risk_bounded` policy.
    Policy(PolicyRun),
}

impl LiveRun {
    /// A run of `layers` as `options` say: the ADR's (over `config`, `total_layers`) or the
    /// policy's. The exit config and `total_layers` are validated either way.
    pub fn start(config: ExitConfig, total_layers: u64, layers: Vec<LayerSpec>, options: RunOptions) -> Result<Self> {
        if options.policy == RunPolicy::Adr && options.mode == RunMode::Shadow {
            let exit = CoherenceEarlyExit::new(config, total_layers)?;
            return PolicyRun::start_adr_shadow(exit, options, layers).map(LiveRun::Policy);
        }
        if options.policy == RunPolicy::Adr {
            return PyramidRun::start(config, total_layers, layers).map(LiveRun::Adr);
        }
        CoherenceEarlyExit::new(config, total_layers)?;
        PolicyRun::start(options, layers).map(LiveRun::Policy)
    }

    /// `start` on host values: the exit config (partial, over the default), `totalLayers`,
    /// the layer list, and the run options `{policy, mode, model, policyConfig}` (`options`,
    /// a controller's, with `overrides`, the run's own, replacing key by key).
    pub fn start_value(
        config: &Value,
        total_layers: &Value,
        layers: &Value,
        options: &Value,
        overrides: &Value,
        naming: Naming,
    ) -> Result<Self> {
        Self::start_value_at(config, total_layers, layers, options, overrides, naming, HostServices::default())
    }

    /// [`LiveRun::start_value`] with the host's clock (milliseconds since the Unix epoch: the
    /// time an artifact policy's expiry is checked at when the options give no `now`) and
    /// SHA-256 (which checks an artifact's promotion) ([`RunOptions::from_values_at`]).
    pub fn start_value_at(
        config: &Value,
        total_layers: &Value,
        layers: &Value,
        options: &Value,
        overrides: &Value,
        naming: Naming,
        host: HostServices<'_>,
    ) -> Result<Self> {
        let exit = CoherenceEarlyExit::from_values(config, total_layers, naming)?;
        let options = RunOptions::from_values_at(options, overrides, naming, host)?;
        let specs = parse_layers(layers, naming)?;
        if options.policy == RunPolicy::Adr && options.mode == RunMode::Shadow {
            return PolicyRun::start_adr_shadow(exit, options, specs).map(LiveRun::Policy);
        }
        if options.policy == RunPolicy::Adr {
            return PyramidRun::start(exit.config().clone(), exit.total_layers(), specs).map(LiveRun::Adr);
        }
        PolicyRun::start(options, specs).map(LiveRun::Policy)
    }

    /// What to do next.
    pub fn next(&self) -> Action {
        match self {
            LiveRun::Adr(run) => run.next(),
            LiveRun::Policy(run) => run.next(),
        }
    }

    /// Whether the run is finished.
    pub fn is_done(&self) -> bool {
        match self {
            LiveRun::Adr(run) => run.is_done(),
            LiveRun::Policy(run) => run.is_done(),
        }
    }

    /// The layers as given.
    pub fn layers(&self) -> &[LayerSpec] {
        match self {
            LiveRun::Adr(run) => run.layers(),
            LiveRun::Policy(run) => run.layers(),
        }
    }

    /// The index of the one layer called `name` (code `invalid_step`, field `layer`, when no
    /// layer or several are called so).
    pub fn layer_named(&self, name: &str) -> Result<usize> {
        crate::pyramid::run::layer_named(self.layers(), name)
    }

    /// Feeds the pending layer's result (host value); the ADR's exit decision for a run
    /// layer of an ADR run, `None` otherwise.
    pub fn submit_value(&mut self, layer: &Value, result: &Value, naming: Naming) -> Result<Option<ExitDecision>> {
        match self {
            LiveRun::Adr(run) => run.submit_value(layer, result, naming),
            LiveRun::Policy(run) => run.submit_value(layer, result, naming).map(|()| None),
        }
    }

    /// Feeds a result built in Rust.
    pub fn submit(&mut self, layer: usize, result: LayerResult) -> Result<Option<ExitDecision>> {
        match self {
            LiveRun::Adr(run) => run.submit(layer, result),
            LiveRun::Policy(run) => run.submit(layer, result).map(|()| None),
        }
    }

    /// The result (an `invalid_step` error before the run is done).
    pub fn result(&self) -> Result<TestPyramidResult> {
        match self {
            LiveRun::Adr(run) => run.result(),
            LiveRun::Policy(run) => run.result(),
        }
    }

    /// The result as a value.
    pub fn result_value(&self, naming: Naming) -> Result<Value> {
        match self {
            LiveRun::Adr(run) => run.result_value(naming),
            LiveRun::Policy(run) => run.result().map(|r| r.to_value(naming)),
        }
    }

    /// The run's snapshot (`PyramidRun` or `PyramidPolicyRun`).
    pub fn to_snapshot(&self) -> Value {
        match self {
            LiveRun::Adr(run) => run.to_snapshot(),
            LiveRun::Policy(run) => run.to_snapshot(),
        }
    }

    /// Restores either kind of snapshot (by its `engine`).
    pub fn from_snapshot(snapshot: &Value) -> Result<Self> {
        if snapshot.get("engine").and_then(Value::as_str) == Some(POLICY_RUN_ENGINE) {
            return PolicyRun::from_snapshot(snapshot).map(LiveRun::Policy);
        }
        PyramidRun::from_snapshot(snapshot).map(LiveRun::Adr)
    }
}

/// The rule a policy run applies to its layers, for a host that addresses layers by name
/// whatever the policy (the command line's `pyramid submit NAME`): names unique, costs
/// finite and >= 0; errors name `layers[i].name` or `layers[i].costMs` (`invalid_config`).
pub fn check_layer_specs(layers: &[LayerSpec]) -> Result<()> {
    let layers: Vec<(&str, Option<f64>)> = layers.iter().map(|l| (l.name.as_str(), l.cost_ms)).collect();
    check_layer_list("layers", ".costMs", &layers)
}
