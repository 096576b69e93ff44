//! The pyramid verdict (docs/pyramid-verdict.md): a layer that ran or was verified with
//! `passRate < 1` makes the run `failed`, whatever the exit decision says; green layers with
//! a layer skipped unverified are `unverified`; every layer observed and green is `passed`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::pyramid::layer_failed;
use earlyexit::pyramid::{FailingLayer, PyramidRun, TestPyramidResult, Verdict};
use earlyexit::{Action, ExitConfig, LayerResult, LayerSpec, Naming, Value};

const PASS: (f64, f64, f64) = (1.0, 0.95, 0.0);
const RED: (f64, f64, f64) = (0.0, 0.9, 0.0);
const ALMOST: (f64, f64, f64) = (0.995, 0.95, 0.0);
const NAMES: [&str; 5] = ["unit", "integration", "contract", "e2e", "perf"];

/// Drives a run to the end, each layer answering `results[i]`.
fn run(config: ExitConfig, results: &[(f64, f64, f64)]) -> TestPyramidResult {
    let specs = (0..results.len()).map(|i| LayerSpec { name: NAMES[i].into(), cost_ms: Some(10.0) }).collect();
    let mut pyramid = PyramidRun::start(config, results.len().max(1) as u64, specs).unwrap();
    while let Action::Run(i) | Action::Verify(i) = pyramid.next() {
        let (p, c, f) = results[i];
        pyramid.submit(i, LayerResult::new(p, c, f)).unwrap();
    }
    pyramid.result().unwrap()
}

fn failing(layers: &[usize]) -> Vec<FailingLayer> {
    layers.iter().map(|&i| FailingLayer { layer: i, name: NAMES[i].into() }).collect()
}

const NO_EXIT: ExitConfig = ExitConfig { exit_layer: 99, adaptive_exit_layer: false, ..ExitConfig::DEFAULT };

#[test]
fn a_failing_unit_layer_before_a_green_one_is_a_confident_exit_and_a_failed_run() {
    let r = run(ExitConfig::DEFAULT, &[RED, PASS, PASS]);
    assert_eq!(r.exit_reason.as_str(), "confident_exit");
    assert!(r.confidence > 0.9);
    assert_eq!((r.verdict, r.failing_layers), (Verdict::Failed, failing(&[0])));
}

#[test]
fn a_failing_layer_found_by_verification_fails_the_run() {
    let r = run(ExitConfig::AGGRESSIVE, &[PASS, RED, PASS]);
    assert_eq!((r.exited_early, r.exit_layer, r.mispredictions), (true, 0, 1));
    assert_eq!((r.verdict, r.failing_layers), (Verdict::Failed, failing(&[1])));
}

#[test]
fn skipped_unverified_layers_make_a_green_run_unverified() {
    let skip = ExitConfig { exit_layer: 0, verification_layers: 0, ..ExitConfig::DEFAULT };
    let r = run(skip, &[PASS, PASS, PASS]);
    assert_eq!((r.layers_executed.clone(), r.verdict), (vec![0], Verdict::Unverified));
    assert!(r.failing_layers.is_empty());
    let verify_all = ExitConfig { exit_layer: 0, verification_layers: 5, ..ExitConfig::DEFAULT };
    assert_eq!(run(verify_all, &[PASS, PASS, PASS]).verdict, Verdict::Passed, "verified layers count as observed");
    assert_eq!(run(NO_EXIT, &[PASS, PASS, PASS]).verdict, Verdict::Passed);
    assert_eq!(run(NO_EXIT, &[]).verdict, Verdict::Passed, "an empty pyramid: every layer (none) ran");
}

#[test]
fn the_failing_rule_is_pass_rate_below_one_stricter_than_the_adr_grading() {
    assert!(layer_failed(&LayerResult::new(0.999_999, 1.0, 0.0)));
    assert!(!layer_failed(&LayerResult::new(1.0, 0.0, 1.0)), "coverage and flakiness do not fail a green layer");
    let r = run(ExitConfig::AGGRESSIVE, &[PASS, ALMOST, PASS]);
    assert_eq!((r.speculations[0].correct(), r.mispredictions), (Some(true), 0), "graded pass (>= 0.99)");
    assert_eq!((r.verdict, r.failing_layers), (Verdict::Failed, failing(&[1])));
    let all = run(NO_EXIT, &[(0.7, 0.6, 0.2), PASS, RED, ALMOST]);
    assert_eq!(all.failing_layers, failing(&[0, 2, 3]), "every failing layer, in run order");
}

#[test]
fn the_rule_reads_only_what_was_observed_so_any_policy_gets_the_same_answer() {
    assert_eq!(Verdict::of(4, 2, 1), Verdict::Failed);
    assert_eq!(Verdict::of(4, 4, 0), Verdict::Passed);
    assert_eq!(Verdict::of(4, 3, 0), Verdict::Unverified);
    assert_eq!(Verdict::of(0, 0, 0), Verdict::Passed);
    assert_eq!(Verdict::ALL.map(Verdict::as_str), ["failed", "passed", "unverified"]);
}

#[test]
fn the_verdict_survives_a_snapshot_of_a_run_in_progress_and_the_result_readers() {
    let specs: Vec<LayerSpec> = NAMES[..4].iter().map(|n| LayerSpec { name: (*n).into(), cost_ms: None }).collect();
    let results = [PASS, ALMOST, RED, PASS];
    let mut pyramid = PyramidRun::start(NO_EXIT, 4, specs).unwrap();
    for (i, &(p, c, f)) in results.iter().enumerate().take(2) {
        pyramid.submit(i, LayerResult::new(p, c, f)).unwrap();
    }
    let mut restored = PyramidRun::from_snapshot(&pyramid.to_snapshot()).unwrap();
    for (i, &(p, c, f)) in results.iter().enumerate().skip(2) {
        restored.submit(i, LayerResult::new(p, c, f)).unwrap();
        pyramid.submit(i, LayerResult::new(p, c, f)).unwrap();
    }
    let result = restored.result().unwrap();
    assert_eq!(result, pyramid.result().unwrap());
    assert_eq!((result.verdict, result.failing_layers.clone()), (Verdict::Failed, failing(&[1, 2])));
    for naming in [Naming::Js, Naming::Snake] {
        let value = result.to_value(naming);
        assert_eq!(value, restored.result_value(naming).unwrap());
        assert_eq!(TestPyramidResult::from_value(&value, naming).unwrap(), result);
    }
    let js = result.to_value(Naming::Js).to_json();
    assert!(
        js.ends_with(
            r#""verdict":"failed","failingLayers":[{"layer":1,"name":"integration"},{"layer":2,"name":"contract"}],"layersBeforeExit":[0,1,2,3],"layersVerified":[],"layersNotRun":[]}"#
        ),
        "{js}"
    );
    // A tampered value: a verdict that contradicts its failing layers is refused.
    let Value::Object(mut entries) = result.to_value(Naming::Snake) else { panic!() };
    for (k, v) in &mut entries {
        if k == "verdict" {
            *v = Value::string("passed");
        }
    }
    let err = TestPyramidResult::from_value(&Value::Object(entries), Naming::Snake).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "failing_layers"));
}
