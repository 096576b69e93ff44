//! Results that explain themselves (docs/test-exit.md): `layersBeforeExit`,
//! `layersVerified` and `layersNotRun` split the pyramid's layers; each prediction names its
//! layer; a run whose verification covered every skipped layer says it saved nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::pyramid::{PyramidRun, TestPyramidResult, NOTE_NOTHING_SAVED};
use earlyexit::{Action, ExitConfig, LayerResult, LayerSpec, Naming, Value};

const NAMES: [&str; 5] = ["unit", "integration", "contract", "e2e", "perf"];

fn run(config: ExitConfig, count: usize) -> TestPyramidResult {
    let specs = (0..count).map(|i| LayerSpec { name: NAMES[i].into(), cost_ms: Some(10.0) }).collect();
    let mut pyramid = PyramidRun::start(config, count as u64, specs).unwrap();
    while let Action::Run(i) | Action::Verify(i) = pyramid.next() {
        pyramid.submit(i, LayerResult::new(1.0, 0.95, 0.0)).unwrap();
    }
    pyramid.result().unwrap()
}

#[test]
fn three_layers_under_the_default_preset_exit_verify_both_and_say_nothing_was_saved() {
    let r = run(ExitConfig::DEFAULT, 3);
    assert_eq!((r.exited_early, r.skipped_layers, r.compute_saved_ms), (true, 2, Some(0.0)));
    assert_eq!(
        (r.layers_before_exit.clone(), r.layers_verified.clone(), r.layers_not_run.clone()),
        (vec![0], vec![1, 2], vec![])
    );
    assert_eq!(r.note, Some(NOTE_NOTHING_SAVED));
    let about: Vec<(Option<usize>, Option<String>)> =
        r.speculations.iter().map(|s| (s.layer, s.name.clone())).collect();
    assert_eq!(about, [(Some(1), Some("integration".into())), (Some(2), Some("contract".into()))]);
    let value = r.to_value(Naming::Js);
    let Value::Object(entries) = &value else { panic!("an object") };
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys[13..], ["layersBeforeExit", "layersVerified", "layersNotRun", "note"]);
    assert_eq!(
        value.get("speculations").map(Value::to_json).as_deref(),
        Some(
            r#"[{"predicted":"pass","confidence":0.98,"verified":true,"actual":"pass","correct":true,"layer":1,"name":"integration"},{"predicted":"pass","confidence":0.98,"verified":true,"actual":"pass","correct":true,"layer":2,"name":"contract"}]"#
        )
    );
    assert_eq!(TestPyramidResult::from_value(&value, Naming::Js), Ok(r.clone()));
    assert_eq!(TestPyramidResult::from_value(&r.to_value(Naming::Snake), Naming::Snake), Ok(r));
}

#[test]
fn five_layers_leave_some_unrun_and_have_no_note() {
    let r = run(ExitConfig::DEFAULT, 5);
    assert_eq!(
        (r.layers_before_exit.clone(), r.layers_verified.clone(), r.layers_not_run.clone()),
        (vec![0], vec![1, 2], vec![3, 4])
    );
    assert_eq!((r.note, r.compute_saved_ms), (None, Some(20.0)));
    assert_eq!(r.speculations.iter().map(|s| s.layer).collect::<Vec<_>>(), [Some(1), Some(2), Some(3), Some(4)]);
    assert!(r.to_value(Naming::Js).get("note").is_none());
}

#[test]
fn a_run_without_an_exit_ran_every_layer_before_it() {
    let config = ExitConfig { exit_layer: 99, adaptive_exit_layer: false, ..ExitConfig::DEFAULT };
    let r = run(config, 3);
    assert_eq!(
        (r.layers_before_exit.clone(), r.layers_verified.clone(), r.layers_not_run.clone(), r.note),
        (vec![0, 1, 2], vec![], vec![], None)
    );
}

#[test]
fn a_result_whose_lists_disagree_with_layers_executed_is_refused() {
    let value = run(ExitConfig::DEFAULT, 3).to_value(Naming::Js);
    let Value::Object(mut entries) = value else { panic!() };
    for (k, v) in entries.iter_mut() {
        if k == "layersVerified" {
            *v = Value::Array(vec![Value::Number(2.0), Value::Number(1.0)]);
        }
    }
    let error = TestPyramidResult::from_value(&Value::Object(entries.clone()), Naming::Js).unwrap_err();
    assert_eq!((error.code(), error.field()), ("invalid_snapshot", "layersBeforeExit"));
    for (k, v) in entries.iter_mut() {
        if k == "layersVerified" {
            *v = Value::Array(vec![Value::Number(1.0), Value::Number(2.0)]);
        }
        if k == "note" {
            *v = Value::string("made up");
        }
    }
    let error = TestPyramidResult::from_value(&Value::Object(entries), Naming::Js).unwrap_err();
    assert_eq!((error.code(), error.field()), ("invalid_snapshot", "note"));
}
