//! The numeric fast path of `runWithEarlyExit` for the JS layer: one zero-argument call per
//! layer over the scratch slots of [`crate::fast`], no native object and no JSON per run.
//!
//! A run's progress is a few numbers (the JS run keeps its own copy between layers, since
//! runners may be async and runs may interleave). [`start`] begins a run, [`submit`] takes
//! one layer's result (pass rate, coverage, flaky ratio, an optional previous lambda) and
//! says what to do next, and [`summary`] gives the numbers of the `TestPyramidResult`. The
//! rules are the core's: the quality signal, `CoherenceEarlyExit::should_exit`, the
//! speculation and its verification, in the order `PyramidRun` applies them. A result the
//! fast check refuses goes to the JSON path for the full typed error.

use earlyexit::kit::pyramid::layer_failed;
use earlyexit::kit::pyramid::{classify_outcome, predict_layer_outcome, verification_count};
use earlyexit::pyramid::ExitConfig;
use earlyexit::pyramid::Outcome;
use earlyexit::pyramid::Verdict;
use earlyexit::pyramid::{calculate_quality_signal, LayerResult};
use earlyexit::{CoherenceEarlyExit, ExitReason};

earlyexit_js_fast::contract_table! {
    /// The test pyramid's slots (within the scratch buffer, below the loop's state), its
    /// actions and answers. The JS run keeps a copy of `BASE..BASE + STATE_LEN`.
    PYRAMID_SLOTS: usize, js "P_";
    /// First slot of the pyramid's region.
    BASE = 112;
    // --- the run's state
    /// The exit config, `EXIT_CONFIG_SLOTS` slots in the ADR's order.
    CONFIG = BASE;
    /// Slots of the exit config.
    EXIT_CONFIG_SLOTS = 8;
    /// `totalLayers`.
    TOTAL_LAYERS = BASE + 8;
    /// How many layers the run has.
    LAYER_COUNT = BASE + 9;
    /// `RUNNING`, `VERIFYING` or `FINISHED`.
    PHASE = BASE + 10;
    /// The layer to run next, or (verifying, finished after an exit) the exit layer.
    LAYER = BASE + 11;
    /// Layers verified so far.
    VERIFY_DONE = BASE + 12;
    /// Layers to verify.
    VERIFY_COUNT = BASE + 13;
    /// The last layer's lambda (NaN before the first layer).
    PREVIOUS_LAMBDA = BASE + 14;
    /// Whether the run exited (0/1).
    EXITED = BASE + 15;
    /// The exit decision's confidence.
    EXIT_CONFIDENCE = BASE + 16;
    /// The exit decision's reason (its index in `EXIT_REASONS`).
    EXIT_REASON = BASE + 17;
    /// The speculations' prediction (its index in `OUTCOMES`).
    PREDICTED = BASE + 18;
    /// The prediction's confidence.
    PREDICTED_CONFIDENCE = BASE + 19;
    /// How many speculations the exit made.
    SPECULATIONS = BASE + 20;
    /// Verified predictions that were wrong.
    MISPREDICTIONS = BASE + 21;
    /// How many of the layers run or verified so far are failing (the verdict's rule).
    FAILING = BASE + 22;
    /// Slots of a run's state.
    STATE_LEN = 24;
    // --- inputs
    /// The layer result's `passRate`.
    IN_PASS_RATE = BASE + 24;
    /// `coverage`.
    IN_COVERAGE = BASE + 25;
    /// `flakyRatio`.
    IN_FLAKY_RATIO = BASE + 26;
    /// `previousLambda` (NaN when the result has none).
    IN_PREVIOUS_LAMBDA = BASE + 27;
    /// The layer the result is for.
    IN_LAYER = BASE + 28;
    // --- outputs
    /// What to do next (`ACTION_*`).
    OUT_ACTION = BASE + 32;
    /// The layer to run or verify.
    OUT_LAYER = BASE + 33;
    /// The `previousLambda` stamped on the submitted result (NaN: none).
    OUT_STAMPED = BASE + 34;
    /// The observed outcome of a verified layer (its index in `OUTCOMES`).
    OUT_ACTUAL = BASE + 35;
    /// Summary: whether the run exited early (0/1).
    OUT_EXITED = BASE + 36;
    /// Summary: the exit layer.
    OUT_EXIT_LAYER = BASE + 37;
    /// Summary: the exit reason (its index in `EXIT_REASONS`).
    OUT_REASON = BASE + 38;
    /// Summary: the confidence.
    OUT_CONFIDENCE = BASE + 39;
    /// Summary: skipped layers.
    OUT_SKIPPED = BASE + 40;
    /// Summary: verified layers.
    OUT_VERIFIED = BASE + 41;
    /// Summary: mispredictions.
    OUT_MISPREDICTIONS = BASE + 42;
    /// Summary: the compute saved (NaN: unknown).
    OUT_SAVED = BASE + 43;
    /// Whether a verified layer's outcome was the predicted one (0/1).
    OUT_CORRECT = BASE + 44;
    /// Whether the submitted layer is failing (0/1): the JS run lists it in `failingLayers`.
    OUT_FAILED = BASE + 45;
    /// The run's verdict (its index in `VERDICTS`).
    OUT_VERDICT = BASE + 46;
    /// Summary: whether the result carries the note `NOTE_NOTHING_SAVED` (0/1).
    OUT_NOTE = BASE + 47;
    /// Each layer's `costMs`, `COST_SLOTS` per layer (`COST_GIVEN`, `COST_MS`).
    COSTS = BASE + 48;
    /// Slots per layer cost.
    COST_SLOTS = 2;
    /// A layer cost's first slot: whether the layer has a `costMs` (0/1).
    COST_GIVEN = 0;
    /// A layer cost's second slot: the `costMs`.
    COST_MS = 1;
    /// Runs with more layers take the JSON path (the costs end below the loop's state).
    MAX_LAYERS = 40;
}

earlyexit_js_fast::contract_table! {
    /// The run's phases (`PHASE`), actions (`OUT_ACTION`, what `submit` answers) and what
    /// `start` answers.
    PYRAMID_CODES: f64, js "P_";
    /// Running layers in order.
    RUNNING = 0.0;
    /// Verifying skipped layers.
    VERIFYING = 1.0;
    /// Finished.
    FINISHED = 2.0;
    /// Run layer `OUT_LAYER`.
    ACTION_RUN = 0.0;
    /// Verify layer `OUT_LAYER`.
    ACTION_VERIFY = 1.0;
    /// The run is done: `summary` gives its numbers.
    ACTION_DONE = 2.0;
    /// The fast check refused the result, or the layer is not the pending one (nothing
    /// changed; the JSON path gives the error).
    ACTION_REFUSED = -1.0;
    /// `start`: the run started.
    START_OK = 0.0;
    /// `start`: a cost is not a finite number >= 0, or too many layers (the JSON path words the error).
    START_REFUSED = 1.0;
}

/// Exit reasons by code, for the JS layer's table.
pub const EXIT_REASONS: [ExitReason; 9] = ExitReason::ALL;
/// Outcomes by code, for the JS layer's table.
pub const OUTCOMES: [Outcome; 3] = [Outcome::Pass, Outcome::Flaky, Outcome::Fail];
/// Verdicts by code, for the JS layer's table.
pub const VERDICTS: [Verdict; 3] = Verdict::ALL;

#[inline(always)]
fn at(s: &[f64], i: usize) -> f64 {
    s.get(i).copied().unwrap_or(f64::NAN)
}

fn put(s: &mut [f64], i: usize, v: f64) {
    if let Some(slot) = s.get_mut(i) {
        *slot = v;
    }
}

/// The exit config as slots.
pub fn config_slots(c: &ExitConfig) -> [f64; EXIT_CONFIG_SLOTS] {
    [
        c.exit_layer as f64,
        c.min_lambda_for_exit,
        c.min_lambda_stability,
        c.max_boundary_concentration,
        c.speculative_tests as f64,
        c.verification_layers as f64,
        f64::from(u8::from(c.adaptive_exit_layer)),
        c.min_confidence,
    ]
}

fn exit_of(s: &[f64]) -> CoherenceEarlyExit {
    let c = |i| at(s, CONFIG + i);
    let config = ExitConfig {
        exit_layer: c(0) as u64,
        min_lambda_for_exit: c(1),
        min_lambda_stability: c(2),
        max_boundary_concentration: c(3),
        speculative_tests: c(4) as u64,
        verification_layers: c(5) as u64,
        adaptive_exit_layer: c(6) != 0.0,
        min_confidence: c(7),
    };
    CoherenceEarlyExit::prevalidated(config, at(s, TOTAL_LAYERS) as u64)
}

fn code_of<T: PartialEq>(table: &[T], item: &T) -> f64 {
    table.iter().position(|x| x == item).unwrap_or(0) as f64
}

/// Starts a run over the config, `totalLayers`, layer count and costs in the slots.
/// Answers 0, or 1 when a cost is not a finite number >= 0 or the costs' sum is not finite
/// (the JSON path words the error: the core's running-total rule).
pub fn start(s: &mut [f64]) -> f64 {
    let count = at(s, LAYER_COUNT) as usize;
    if count > MAX_LAYERS {
        return START_REFUSED;
    }
    let mut total = 0.0;
    for i in 0..count {
        let cost = at(s, COSTS + COST_SLOTS * i + COST_MS);
        if at(s, COSTS + COST_SLOTS * i + COST_GIVEN) != 0.0 {
            total += cost;
            if !(cost.is_finite() && cost >= 0.0 && total.is_finite()) {
                return START_REFUSED;
            }
        }
    }
    for (slot, value) in [
        (PHASE, if count == 0 { FINISHED } else { RUNNING }),
        (LAYER, 0.0),
        (VERIFY_DONE, 0.0),
        (VERIFY_COUNT, 0.0),
        (PREVIOUS_LAMBDA, f64::NAN),
        (EXITED, 0.0),
        (SPECULATIONS, 0.0),
        (MISPREDICTIONS, 0.0),
        (FAILING, 0.0),
    ] {
        put(s, slot, value);
    }
    next_action(s);
    START_OK
}

fn next_action(s: &mut [f64]) {
    let (action, layer) = match at(s, PHASE) {
        RUNNING => (ACTION_RUN, at(s, LAYER)),
        VERIFYING => (ACTION_VERIFY, at(s, LAYER) + 1.0 + at(s, VERIFY_DONE)),
        _ => (ACTION_DONE, 0.0),
    };
    put(s, OUT_ACTION, action);
    put(s, OUT_LAYER, layer);
}

/// Takes the pending layer's result from the input slots and advances the run, as
/// `PyramidRun::submit` does. Answers the next action (0 run, 1 verify, 2 done), or -1
/// when the fast check refused the result or the layer is not the pending one (nothing
/// changed; the JSON path gives the error).
pub fn submit(s: &mut [f64]) -> f64 {
    let in_range = |v: f64, max: f64| v.is_finite() && (0.0..=max).contains(&v);
    let (pass_rate, coverage, flaky_ratio) = (at(s, IN_PASS_RATE), at(s, IN_COVERAGE), at(s, IN_FLAKY_RATIO));
    let given_previous = at(s, IN_PREVIOUS_LAMBDA);
    let pending = at(s, OUT_LAYER);
    if !(in_range(pass_rate, 1.0) && in_range(coverage, 1.0) && in_range(flaky_ratio, 1.0))
        || !(given_previous.is_nan() || in_range(given_previous, 100.0))
        || at(s, PHASE) == FINISHED
        || at(s, IN_LAYER) != pending
    {
        put(s, OUT_ACTION, ACTION_REFUSED);
        return ACTION_REFUSED;
    }
    let mut result = LayerResult::new(pass_rate, coverage, flaky_ratio);
    result.previous_lambda = (!given_previous.is_nan()).then_some(given_previous);
    let count = at(s, LAYER_COUNT) as usize;
    let index = pending as usize;
    put(s, OUT_STAMPED, f64::NAN);
    let failed = layer_failed(&result);
    put(s, OUT_FAILED, f64::from(u8::from(failed)));
    if failed {
        put(s, FAILING, at(s, FAILING) + 1.0);
    }
    if at(s, PHASE) == RUNNING {
        // The previous layer's lambda is stamped on this result (the ADR's executeLayer).
        let previous = at(s, PREVIOUS_LAMBDA);
        if !previous.is_nan() {
            result.previous_lambda = Some(previous);
            put(s, OUT_STAMPED, previous);
        }
        let signal = calculate_quality_signal(&result);
        put(s, PREVIOUS_LAMBDA, signal.lambda);
        let exit = exit_of(s);
        let decision = exit.exit_verdict(&signal, index as u64);
        let remaining = count - index - 1;
        if decision.can_exit {
            put(s, EXITED, 1.0);
            put(s, EXIT_CONFIDENCE, decision.confidence);
            put(s, EXIT_REASON, code_of(&EXIT_REASONS, &decision.reason));
            let speculations = if decision.enable_speculation { remaining } else { 0 };
            let prediction = predict_layer_outcome(decision.confidence);
            put(s, SPECULATIONS, speculations as f64);
            put(s, PREDICTED, code_of(&OUTCOMES, &prediction.predicted));
            put(s, PREDICTED_CONFIDENCE, prediction.confidence);
            let verify = verification_count(speculations, exit.config().verification_layers);
            put(s, VERIFY_COUNT, verify as f64);
            put(s, PHASE, if verify > 0 { VERIFYING } else { FINISHED });
        } else if index + 1 < count {
            put(s, LAYER, (index + 1) as f64);
        } else {
            put(s, PHASE, FINISHED);
        }
    } else {
        let actual = classify_outcome(&result);
        put(s, OUT_ACTUAL, code_of(&OUTCOMES, &actual));
        let correct = code_of(&OUTCOMES, &actual) == at(s, PREDICTED);
        put(s, OUT_CORRECT, f64::from(u8::from(correct)));
        if !correct {
            put(s, MISPREDICTIONS, at(s, MISPREDICTIONS) + 1.0);
        }
        let done = at(s, VERIFY_DONE) + 1.0;
        put(s, VERIFY_DONE, done);
        if done >= at(s, VERIFY_COUNT) {
            put(s, PHASE, FINISHED);
        }
    }
    next_action(s);
    at(s, OUT_ACTION)
}

/// The numbers of the finished run's `TestPyramidResult`, as `PyramidRun::result` computes
/// them (the layers, speculations and executed list are the JS run's own records).
pub fn summary(s: &mut [f64]) -> f64 {
    let count = at(s, LAYER_COUNT) as usize;
    let exited = at(s, EXITED) != 0.0;
    let exit_layer = at(s, LAYER) as usize;
    // Layers not run: after the exit layer, except the verified ones.
    let first_skipped = if exited { exit_layer + 1 + at(s, VERIFY_DONE) as usize } else { count };
    // Layers run or verified: every one before `first_skipped`.
    let verdict = Verdict::of(count, first_skipped, at(s, FAILING) as usize);
    put(s, OUT_VERDICT, code_of(&VERDICTS, &verdict));
    let mut saved = Some(0.0);
    for i in first_skipped..count {
        saved = match (saved, at(s, COSTS + COST_SLOTS * i + COST_GIVEN) != 0.0) {
            (Some(sum), true) => Some(sum + at(s, COSTS + COST_SLOTS * i + COST_MS)),
            _ => None,
        };
    }
    let (exit_layer, reason, confidence, skipped) = if exited {
        (exit_layer as f64, at(s, EXIT_REASON), at(s, EXIT_CONFIDENCE), (count - exit_layer - 1) as f64)
    } else {
        (count as f64 - 1.0, code_of(&EXIT_REASONS, &ExitReason::ForcedContinue), 1.0, 0.0)
    };
    put(s, OUT_EXITED, f64::from(u8::from(exited)));
    put(s, OUT_EXIT_LAYER, exit_layer);
    put(s, OUT_REASON, reason);
    put(s, OUT_CONFIDENCE, confidence);
    put(s, OUT_SKIPPED, skipped);
    put(s, OUT_VERIFIED, at(s, VERIFY_DONE));
    put(s, OUT_MISPREDICTIONS, at(s, MISPREDICTIONS));
    put(s, OUT_SAVED, saved.unwrap_or(f64::NAN));
    // The core's rule (`PyramidRun::result`): an exit that skipped layers, all run to verify them.
    put(s, OUT_NOTE, f64::from(u8::from(exited && skipped > 0.0 && first_skipped >= count)));
    0.0
}
