//! Target `pyramid_run`: arbitrary runs through the `PyramidRun` state machine: start with
//! any config, layer count and layer list; then next / submit (host values or Rust-built
//! results, for the pending layer or any other) / result / snapshot in any order.
//!
//! Invariants: nothing panics; a failed call leaves the run exactly as it was; the run
//! only ever asks for layers that exist, in increasing order; `result()` succeeds exactly
//! when the run is done and its accounting adds up; a snapshot restores to the same run.

use super::gen::{self, valid};
use arbitrary::{Result, Unstructured};
use earlyexit::pyramid::TestCounts;
use earlyexit::{
    Action, ErrorCode, ExitConfig, LayerResult, LayerSpec, Naming, PyramidRun, QualitySignal, Speculation, Value,
};

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u);
}

const EXIT_CONFIG_FIELDS: &[gen::Field] = &[
    ("exitLayer", valid::count),
    ("minLambdaForExit", valid::points),
    ("minLambdaStability", valid::unit),
    ("maxBoundaryConcentration", valid::unit),
    ("speculativeTests", valid::count),
    ("verificationLayers", valid::count),
    ("adaptiveExitLayer", valid::boolean),
    ("minConfidence", valid::unit),
];

fn high_rate(u: &mut Unstructured) -> Result<Value> {
    // Mostly rates near 1, so runs reach the exit and verification phases.
    Ok(Value::Number(if u.ratio(3u8, 4u8)? { 1.0 - gen::unit(u)? / 16.0 } else { gen::unit(u)? }))
}

fn low_rate(u: &mut Unstructured) -> Result<Value> {
    Ok(Value::Number(if u.ratio(3u8, 4u8)? { gen::unit(u)? / 16.0 } else { gen::unit(u)? }))
}

const RESULT_FIELDS: &[gen::Field] = &[
    ("passRate", high_rate),
    ("coverage", high_rate),
    ("flakyRatio", low_rate),
    ("previousLambda", valid::percent),
    ("name", valid::text),
    ("durationMs", valid::amount),
    ("total", valid::count),
    ("passed", valid::count),
    ("failed", valid::count),
    ("flaky", valid::count),
];

/// A layer result object in the given spelling; rarely any value at all.
pub fn result_value(u: &mut Unstructured, naming: Naming) -> Result<Value> {
    if u.ratio(1u8, 24u8)? {
        return gen::value(u, 2);
    }
    let Value::Object(entries) = gen::object(u, RESULT_FIELDS)? else { unreachable!() };
    let snake = |k: &str| match k {
        "passRate" => "pass_rate".to_string(),
        "flakyRatio" => "flaky_ratio".to_string(),
        "previousLambda" => "previous_lambda".to_string(),
        "durationMs" => "duration_ms".to_string(),
        other => other.to_string(),
    };
    Ok(gen::renamed(entries, |k| if naming == Naming::Snake { snake(&k) } else { k }))
}

fn typed_result(u: &mut Unstructured) -> Result<LayerResult> {
    let mut result = LayerResult::new(gen::number(u)?, gen::number(u)?, gen::number(u)?);
    if u.arbitrary()? {
        result.previous_lambda = Some(gen::number(u)?);
    }
    if u.arbitrary()? {
        result.name = Some(gen::string(u)?);
    }
    if u.arbitrary()? {
        result.duration_ms = Some(gen::number(u)?);
    }
    if u.arbitrary()? {
        let mut count =
            || -> Result<Option<u64>> { Ok(if u.arbitrary()? { Some(u.int_in_range(0..=12)?) } else { None }) };
        result.counts = TestCounts { total: count()?, passed: count()?, failed: count()?, flaky: count()? };
    }
    Ok(result)
}

fn layers_value(u: &mut Unstructured, naming: Naming) -> Result<Value> {
    if u.ratio(1u8, 16u8)? {
        return gen::value(u, 2);
    }
    let count = u.int_in_range(0usize..=8)?;
    let mut layers = Vec::with_capacity(count);
    for i in 0..count {
        const FIELDS: &[gen::Field] = &[("name", valid::text), ("costMs", valid::amount), ("run", valid::text)];
        let Value::Object(entries) = gen::object(u, FIELDS)? else { unreachable!() };
        let snake = naming == Naming::Snake;
        let Value::Object(mut entries) =
            gen::renamed(entries, |k| if snake && k == "costMs" { "cost_ms".to_string() } else { k })
        else {
            unreachable!()
        };
        if u.ratio(7u8, 8u8)? {
            gen::set(&mut entries, "name".to_string(), Value::String(format!("layer{i}")));
        }
        layers.push(Value::Object(entries));
    }
    Ok(Value::Array(layers))
}

/// Starts a run from the input (any config, any layers), falling back to a valid one when
/// the input's is rejected. Also used by the snapshot target.
pub fn start(u: &mut Unstructured) -> Result<PyramidRun> {
    let naming = gen::naming(u)?;
    let started = if u.ratio(3u8, 4u8)? {
        let Value::Object(entries) = gen::object(u, EXIT_CONFIG_FIELDS)? else { unreachable!() };
        let config = gen::renamed(entries, |k| {
            if naming == Naming::Snake {
                earlyexit::pyramid::EXIT_CONFIG_FIELDS
                    .iter()
                    .find(|f| f.js() == k)
                    .map_or(k.clone(), |f| f.snake().to_string())
            } else {
                k
            }
        });
        let total = match u.int_in_range(0u8..=7)? {
            0 => gen::value(u, 1)?,
            _ => Value::Number(f64::from(u.int_in_range(1u8..=8)?)),
        };
        let layers = layers_value(u, naming)?;
        PyramidRun::start_value(&config, &total, &layers, naming)
    } else {
        let config = ExitConfig {
            exit_layer: if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=8)? },
            min_lambda_for_exit: gen::number(u)?,
            min_lambda_stability: gen::number(u)?,
            max_boundary_concentration: gen::number(u)?,
            speculative_tests: if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=8)? },
            verification_layers: if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=8)? },
            adaptive_exit_layer: u.arbitrary()?,
            min_confidence: gen::number(u)?,
        };
        let total = if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=8)? };
        let count = u.int_in_range(0usize..=8)?;
        let mut layers = Vec::with_capacity(count);
        for _ in 0..count {
            layers.push(LayerSpec {
                name: gen::string(u)?,
                cost_ms: if u.arbitrary()? { Some(gen::number(u)?) } else { None },
            });
        }
        PyramidRun::start(config, total, layers)
    };
    Ok(match started {
        Ok(run) => run,
        Err(e) => {
            assert!(!e.message().is_empty());
            let layers =
                (0..u.int_in_range(1usize..=6)?).map(|i| LayerSpec { name: format!("l{i}"), cost_ms: Some(1.0) });
            let config = u.choose(&[ExitConfig::DEFAULT, ExitConfig::AGGRESSIVE, ExitConfig::CONSERVATIVE])?.clone();
            PyramidRun::start(config, 4, layers.collect()).unwrap_or_else(|e| panic!("valid start rejected: {e:?}"))
        }
    })
}

/// Everything observable about a run, for "nothing changed" comparisons (NaN-safe: extra
/// keys a runner returned may hold any value).
fn fingerprint(run: &PyramidRun) -> Value {
    let result = run.result().map_or(Value::Null, |r| r.to_value(Naming::Js));
    Value::Array(vec![run.to_snapshot(), run.next().to_value(), result])
}

/// The run's own consistency.
pub fn check_consistent(run: &PyramidRun) {
    let layers = run.layers().len();
    match run.next() {
        Action::Run(i) | Action::Verify(i) => {
            assert!(i < layers, "next() asks for layer {i} of {layers}");
            assert!(!run.is_done());
            assert!(run.result().is_err(), "result() before the run is done");
        }
        Action::Done => {
            assert!(run.is_done());
            let result = run.result().unwrap_or_else(|e| panic!("result() of a finished run failed: {e:?}"));
            let executed = &result.layers_executed;
            assert!(executed.windows(2).all(|w| w[0] < w[1]), "layers executed out of order: {executed:?}");
            assert!(executed.iter().all(|&i| i < layers), "executed a layer that does not exist: {executed:?}");
            if result.exited_early {
                let exit =
                    usize::try_from(result.exit_layer).unwrap_or_else(|_| panic!("exit layer {}", result.exit_layer));
                assert_eq!(exit + 1 + result.skipped_layers, layers, "skipped layers do not add up");
                assert!(result.verified_layers <= result.skipped_layers);
                assert!(result.mispredictions <= result.verified_layers);
                assert_eq!(result.layers.len(), exit + 1);
                assert_eq!(executed.len(), exit + 1 + result.verified_layers);
                let c = result.confidence;
                assert!((run.exit().config().min_confidence..=1.0).contains(&c), "exited with confidence {c}");
                assert!(result.speculations.iter().all(|s| (0.0..=1.0).contains(&s.confidence)));
            } else {
                assert_eq!(result.skipped_layers, 0);
                assert_eq!(executed.len(), layers);
            }
            if let Some(saved) = result.compute_saved_ms {
                assert!(saved >= 0.0, "negative compute saved: {saved}");
            }
            let _ = result.to_value(Naming::Js).to_json();
            let _ = result.to_value(Naming::Snake).to_json();
        }
    }
}

/// Whether a value survives JSON text unchanged (finite non-negative-zero numbers, no host-only values).
fn json_clean(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_finite() && !(*n == 0.0 && n.is_sign_negative()),
        Value::Other(_) => false,
        Value::Array(items) => items.iter().all(json_clean),
        Value::Object(entries) => entries.iter().all(|(_, v)| json_clean(v)),
        _ => true,
    }
}

/// The snapshot invariant for runs.
pub fn check_snapshot(run: &PyramidRun) {
    let snapshot = run.to_snapshot();
    let restored = PyramidRun::from_snapshot(&snapshot)
        .unwrap_or_else(|e| panic!("a snapshot the run wrote was rejected: {e:?}\n{}", snapshot.to_json()));
    assert!(gen::identical(&fingerprint(&restored), &fingerprint(run)), "restored run differs\n{}", snapshot.to_json());
    let text = snapshot.to_json();
    let parsed = earlyexit::snapshot::parse(&text).unwrap_or_else(|e| panic!("snapshot JSON unreadable: {e:?}"));
    let from_text =
        PyramidRun::from_snapshot(&parsed).unwrap_or_else(|e| panic!("snapshot JSON text rejected: {e:?}\n{text}"));
    assert_eq!(from_text.to_snapshot().to_json(), text, "JSON text of the restored run differs");
    assert_eq!(from_text.next(), run.next());
    if json_clean(&snapshot) {
        assert!(from_text == *run, "run restored from JSON text differs\n{text}");
    }
}

fn drive(u: &mut Unstructured) -> Result<()> {
    let mut run = start(u)?;
    let result = steps(u, &mut run);
    check_consistent(&run);
    check_snapshot(&run);
    result
}

/// Applies a sequence of calls (also used by the snapshot target).
pub fn steps(u: &mut Unstructured, run: &mut PyramidRun) -> Result<()> {
    let count = u.int_in_range(0usize..=48)?;
    for _ in 0..count {
        step(u, run)?;
        check_consistent(run);
    }
    Ok(())
}

fn pending(run: &PyramidRun) -> usize {
    match run.next() {
        Action::Run(i) | Action::Verify(i) => i,
        Action::Done => run.layers().len(),
    }
}

fn step(u: &mut Unstructured, run: &mut PyramidRun) -> Result<()> {
    let before = fingerprint(run);
    let executed_before = run.result().map(|r| r.layers_executed.len()).ok();
    match u.int_in_range(0u8..=10)? {
        0..=4 => {
            let naming = gen::naming(u)?;
            let layer = match u.int_in_range(0u8..=15)? {
                0 => gen::value(u, 1)?,
                1 => Value::Number(gen::number(u)?),
                2 => Value::Number(f64::from(u.int_in_range(0u8..=9)?)),
                _ => Value::Number(pending(run) as f64),
            };
            let result = result_value(u, naming)?;
            let was_run = matches!(run.next(), Action::Run(_));
            match run.submit_value(&layer, &result, naming) {
                Ok(decision) => {
                    assert_eq!(decision.is_some(), was_run, "a decision comes back exactly for run layers");
                    if let Some(d) = decision {
                        let _ = d.to_value(naming).to_json();
                    }
                }
                Err(e) => {
                    assert!(!e.message().is_empty());
                    assert!(
                        gen::identical(&before, &fingerprint(run)),
                        "submit_value failed ({e:?}) but changed the run"
                    );
                }
            }
        }
        5 | 6 => {
            let layer = if u.ratio(7u8, 8u8)? { pending(run) } else { u.arbitrary()? };
            let result = typed_result(u)?;
            if let Err(e) = run.submit(layer, result) {
                assert!(gen::identical(&before, &fingerprint(run)), "submit failed ({e:?}) but changed the run");
            }
        }
        7 => {
            let _ = run.next().to_value().to_json();
            let _ = run.result().map(|r| r.to_value(Naming::Snake).to_json());
            let _ = run.verification_results().len();
            assert!(gen::identical(&before, &fingerprint(run)), "a query changed the run");
        }
        8 => check_snapshot(run),
        9 => stateless(u, run)?,
        _ => {
            // Replace the run by its restored snapshot and go on from there.
            if let Ok(restored) = PyramidRun::from_snapshot(&run.to_snapshot()) {
                *run = restored;
            }
        }
    }
    if let Some(n) = executed_before {
        assert_eq!(run.result().map(|r| r.layers_executed.len()).ok(), Some(n), "a finished run changed");
    }
    Ok(())
}

/// The stateless pyramid entries beside the run: a layer result's quality signal must be
/// accepted by the core's own signal validation (and round-trip), `shouldExit` on any
/// signal and layer, and speculation objects handed back by a host.
fn stateless(u: &mut Unstructured, run: &PyramidRun) -> Result<()> {
    let naming = gen::naming(u)?;
    let mut signal = match LayerResult::from_value(&result_value(u, naming)?, naming, "layers[0]") {
        Ok(result) => {
            let computed = earlyexit::calculate_quality_signal(&result);
            let value = computed.to_value(naming);
            let parsed = QualitySignal::from_value(&value, naming)
                .unwrap_or_else(|e| panic!("the core rejects its own signal {}: {e:?}", value.to_json()));
            assert!(gen::identical(&parsed.to_value(naming), &value), "signal round trip changed {}", value.to_json());
            value
        }
        Err(_) => gen::value(u, 2)?,
    };
    if u.ratio(1u8, 3u8)? {
        if let Value::Object(entries) = &mut signal {
            if !entries.is_empty() {
                let i = u.choose_index(entries.len())?;
                entries[i].1 = gen::value(u, 1)?;
            }
        }
    }
    let layer = match u.int_in_range(0u8..=5)? {
        0 => gen::value(u, 1)?,
        _ => Value::Number(f64::from(u.int_in_range(0u8..=9)?)),
    };
    match run.exit().should_exit_value(&signal, &layer, naming) {
        Ok(decision) => {
            // A refusal reports the seed's figure (a hand-made signal can make stability, and
            // so that confidence, negative); an exit's confidence is a weighted mean in 0..=1.
            if decision.can_exit {
                let c = decision.confidence;
                assert!((run.exit().config().min_confidence..=1.0).contains(&c), "exit with confidence {c}");
            }
            let _ = decision.to_value(naming).to_json();
        }
        Err(e) => assert!(
            matches!(e.error_code(), ErrorCode::InvalidSignal | ErrorCode::UnknownOption),
            "shouldExit error {e:?}"
        ),
    }
    let speculation = if u.arbitrary()? {
        gen::value(u, 2)?
    } else {
        const FIELDS: &[gen::Field] = &[
            ("predicted", outcome),
            ("confidence", valid::unit),
            ("verified", valid::boolean),
            ("actual", outcome),
            ("correct", valid::boolean),
        ];
        gen::object(u, FIELDS)?
    };
    if let Ok(parsed) = Speculation::from_value(&speculation, naming, "speculations[0]") {
        let again = Speculation::from_value(&parsed.to_value(), naming, "speculations[0]")
            .unwrap_or_else(|e| panic!("the core rejects its own speculation: {e:?}"));
        assert_eq!(again, parsed);
    }
    Ok(())
}

fn outcome(u: &mut Unstructured) -> Result<Value> {
    Ok(Value::string(*u.choose(&["pass", "flaky", "fail"])?))
}
