//! Shadow mode, live: every layer runs, the point where the policy would have exited is a
//! receipt with its label, and the receipt log's hash chain finds a deleted, reordered or
//! edited line.

use earlyexit::pyramid::policy::{
    ObservedLayer, OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy,
};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::{Action, LayerResult, LayerSpec, Naming, Value, Verdict};

mod test_sha256;
use test_sha256::TestSha256;

const LAYERS: [(&str, f64); 3] = [("unit", 10.0), ("integration", 40.0), ("e2e", 90.0)];

fn green_history(n: usize) -> OutcomeModel {
    let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
    let mut model = OutcomeModel::new();
    for _ in 0..n {
        let ran: Vec<ObservedLayer> = LAYERS
            .iter()
            .map(|&(name, ms)| ObservedLayer { name: name.into(), failed: false, duration_ms: Some(ms) })
            .collect();
        model.update(&config, &ran).unwrap();
    }
    model
}

fn shadow_run(policy: RunPolicy, model: OutcomeModel, fails: [bool; 3]) -> earlyexit::TestPyramidResult {
    labelled_run(policy, model, fails, None, "build-7")
}

fn labelled_run(
    policy: RunPolicy,
    model: OutcomeModel,
    fails: [bool; 3],
    label: Option<&str>,
    run_id: &str,
) -> earlyexit::TestPyramidResult {
    let config = PolicyConfig { reorder: false, ..PolicyConfig::preset(policy.as_str()).unwrap() };
    let options = RunOptions {
        policy,
        mode: RunMode::Shadow,
        config,
        model,
        run_id: Some(run_id.into()),
        fallback: None,
        label: label.map(str::to_string),
    };
    let specs = LAYERS.iter().map(|&(name, cost)| LayerSpec { name: name.into(), cost_ms: Some(cost) }).collect();
    let mut run = PolicyRun::start(options, specs).unwrap();
    let mut order = Vec::new();
    while let Action::Run(layer) = run.next() {
        order.push(layer);
        let mut r = LayerResult::new(if fails[layer] { 0.5 } else { 1.0 }, 1.0, 0.0);
        r.duration_ms = Some(LAYERS[layer].1 + 1.0);
        run.submit(layer, r).unwrap();
    }
    let result = run.result().unwrap();
    assert_eq!(order.len(), 3, "shadow mode runs every layer");
    assert_eq!(result.layers_executed.len(), 3);
    assert!(!result.exited_early);
    result
}

fn receipts(result: &earlyexit::TestPyramidResult) -> Vec<Value> {
    match result.shadow.as_ref().and_then(|s| s.get("receipts")) {
        Some(Value::Array(items)) => items.clone(),
        other => panic!("no receipts: {other:?}"),
    }
}

#[test]
fn a_green_exit_that_holds_is_a_correct_skip() {
    let result = shadow_run(RunPolicy::RiskBounded, green_history(400), [false; 3]);
    let receipts = receipts(&result);
    assert_eq!(receipts.len(), 1);
    let r = &receipts[0];
    assert_eq!(r.get("label").and_then(Value::as_str), Some("correct_skip"));
    assert_eq!(r.get("exitReason").and_then(Value::as_str), Some("risk_bounded"));
    assert_eq!(r.get("runId").and_then(Value::as_str), Some("build-7"));
    assert_eq!(r.get("firstMissedFailure"), Some(&Value::Null));
    let risk = r.get("signal").and_then(|s| s.get("risk")).and_then(Value::as_f64).unwrap();
    assert!(risk <= 0.05, "{risk}");
    let Some(Value::Array(skipped)) = r.get("skipped") else { panic!() };
    let saved: f64 = skipped.iter().filter_map(|s| s.get("costMs").and_then(Value::as_f64)).sum();
    assert_eq!(r.get("computeSavedMs").and_then(Value::as_f64), Some(saved));
    assert_eq!(result.verdict, Verdict::Passed);
    let labels = result.shadow.as_ref().and_then(|s| s.get("labels")).unwrap();
    assert_eq!(labels.get("correctSkip").and_then(Value::as_f64), Some(1.0));
}

#[test]
fn a_green_exit_over_a_failing_layer_is_a_false_pass_naming_it() {
    let result = shadow_run(RunPolicy::RiskBounded, green_history(400), [false, false, true]);
    let r = &receipts(&result)[0];
    assert_eq!(r.get("label").and_then(Value::as_str), Some("false_pass"));
    let missed = r.get("firstMissedFailure").unwrap();
    assert_eq!(missed.get("name").and_then(Value::as_str), Some("e2e"));
    // The layers really ran: the build is red and says so.
    assert_eq!(result.verdict, Verdict::Failed);
}

#[test]
fn fail_fast_after_a_failure_is_a_needless_run_and_no_exit_no_receipt() {
    let result = shadow_run(RunPolicy::FailFast, OutcomeModel::new(), [true, false, false]);
    let r = &receipts(&result)[0];
    assert_eq!(r.get("label").and_then(Value::as_str), Some("needless_run"));
    assert_eq!(r.get("layerName").and_then(Value::as_str), Some("unit"));
    let result = shadow_run(RunPolicy::RiskBounded, OutcomeModel::new(), [false; 3]);
    assert!(receipts(&result).is_empty(), "an unseen model never exits");
}

#[test]
fn a_shadow_run_snapshot_restores_its_receipt() {
    let config = PolicyConfig { reorder: false, ..PolicyConfig::RISK_BOUNDED };
    let options = RunOptions {
        policy: RunPolicy::RiskBounded,
        mode: RunMode::Shadow,
        config,
        model: green_history(400),
        run_id: None,
        fallback: Some("the artifact is not promoted".into()),
        label: Some("release/2.1".into()),
    };
    let specs: Vec<LayerSpec> = LAYERS.iter().map(|&(n, c)| LayerSpec { name: n.into(), cost_ms: Some(c) }).collect();
    let mut run = PolicyRun::start(options, specs).unwrap();
    while let Action::Run(layer) = run.next() {
        run.submit(layer, LayerResult::new(1.0, 1.0, 0.0)).unwrap();
    }
    let back = PolicyRun::from_snapshot(&run.to_snapshot()).unwrap();
    assert_eq!(back.result().unwrap(), run.result().unwrap());
    // The run's user label survives the snapshot and is in its receipt.
    let receipt = back.shadow_receipt().unwrap().to_value();
    assert_eq!(receipt.get("runLabel").and_then(Value::as_str), Some("release/2.1"));
    let value = run.result().unwrap().to_value(Naming::Snake);
    assert_eq!(earlyexit::TestPyramidResult::from_value(&value, Naming::Snake).unwrap(), run.result().unwrap());
}

fn log_of(n: usize) -> String {
    let mut log = String::new();
    for i in 0..n {
        let fails = [false, false, i % 2 == 1];
        // Each run its own id: a log holds one receipt per run.
        let result = labelled_run(RunPolicy::RiskBounded, green_history(400), fails, None, &format!("build-{i}"));
        log.push_str(&append_receipts(&log, &receipts(&result), &TestSha256).unwrap());
    }
    log
}

#[test]
fn an_appended_log_verifies_and_counts_labels() {
    let log = log_of(4);
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!(check.receipts, 4);
    assert_eq!(check.labels, vec![("correct_skip".to_string(), 2), ("false_pass".to_string(), 2)]);
    // False passes among green exits, with the Wilson interval; one slice (the policy).
    let report = check.to_value();
    let fp = report.get("rates").and_then(|r| r.get("falsePass")).unwrap();
    assert_eq!((fp.get("count").and_then(Value::as_f64), fp.get("of").and_then(Value::as_f64)), (Some(2.0), Some(4.0)));
    assert_eq!(fp.get("rate").and_then(Value::as_f64), Some(0.5));
    let Some(Value::Array(slices)) = report.get("slices") else { panic!() };
    assert_eq!(slices[0].get("slice").and_then(Value::as_str), Some("risk_bounded"));
    let last = log.lines().last().and_then(|l| Value::parse_json(l, earlyexit::ErrorCode::InvalidReceipt, "l").ok());
    assert_eq!(check.head.as_deref(), last.as_ref().and_then(|v| v.get("sha256")).and_then(Value::as_str));
    assert!(verify_receipts("", &TestSha256).valid());
}

#[test]
fn a_deleted_reordered_or_edited_line_breaks_the_chain_there() {
    let log = log_of(4);
    let lines: Vec<&str> = log.lines().collect();
    let join = |ls: &[&str]| ls.join("\n") + "\n";
    let broken_at = |text: &str| verify_receipts(text, &TestSha256).broken.map(|b| (b.line, b.field));
    // Deleted: line 2 is gone, so the new line 2 points at a receipt that is not there.
    assert_eq!(broken_at(&join(&[lines[0], lines[2], lines[3]])), Some((2, "prevHash".to_string())));
    // Deleted first line.
    assert_eq!(broken_at(&join(&[lines[1], lines[2], lines[3]])), Some((1, "prevHash".to_string())));
    // Reordered.
    assert_eq!(broken_at(&join(&[lines[0], lines[2], lines[1], lines[3]])), Some((2, "prevHash".to_string())));
    // Edited: a false pass relabelled.
    let edited = lines[1].replacen("\"false_pass\"", "\"correct_skip\"", 1);
    assert_ne!(edited, lines[1]);
    assert_eq!(broken_at(&join(&[lines[0], &edited, lines[2], lines[3]])), Some((2, "sha256".to_string())));
    // Not JSON.
    assert_eq!(broken_at(&join(&[lines[0], "{oops", lines[2]])).map(|b| b.0), Some(2));
    // Nothing is appended to a broken log.
    let err = append_receipts(&join(&[lines[1]]), &[], &TestSha256).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_receipt", "log.line 1"));
}

#[test]
fn receipts_with_chain_fields_or_of_the_wrong_type_are_refused() {
    let err = append_receipts("", &[Value::Number(1.0)], &TestSha256).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_receipt", "receipts[0]"));
    let with_hash = Value::object(vec![("sha256", Value::string("x"))]);
    let err = append_receipts("", &[with_hash], &TestSha256).unwrap_err();
    assert_eq!(err.field(), "receipts[0].sha256");
}

#[test]
fn the_report_gives_rates_per_label_slice() {
    let mut log = String::new();
    // main: 3 green exits, one a false pass; release: 2 correct skips; one run unlabelled.
    for (i, (fails_e2e, label)) in [
        (false, Some("main")),
        (true, Some("main")),
        (false, Some("release")),
        (false, Some("main")),
        (false, Some("release")),
        (true, None),
    ]
    .into_iter()
    .enumerate()
    {
        let run_id = format!("build-{i}");
        let result =
            labelled_run(RunPolicy::RiskBounded, green_history(400), [false, false, fails_e2e], label, &run_id);
        log.push_str(&append_receipts(&log, &receipts(&result), &TestSha256).unwrap());
    }
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid(), "{:?}", check.broken);
    let report = check.to_value();
    let Some(Value::Array(slices)) = report.get("labelSlices") else { panic!("{report:?}") };
    assert_eq!(slices.len(), 2, "the unlabelled receipt is in no label slice");
    let main = &slices[0];
    assert_eq!(main.get("runLabel").and_then(Value::as_str), Some("main"));
    assert_eq!(main.get("receipts").and_then(Value::as_f64), Some(3.0));
    let fp = main.get("rates").and_then(|r| r.get("falsePass")).unwrap();
    assert_eq!((fp.get("count").and_then(Value::as_f64), fp.get("of").and_then(Value::as_f64)), (Some(1.0), Some(3.0)));
    let Some(Value::Array(wilson)) = fp.get("wilson") else { panic!() };
    let (lo, hi) = (wilson[0].as_f64().unwrap(), wilson[1].as_f64().unwrap());
    assert!(lo < 1.0 / 3.0 && 1.0 / 3.0 < hi, "{lo} {hi}");
    let release = slices[1].get("rates").and_then(|r| r.get("falsePass")).unwrap();
    assert_eq!(release.get("rate").and_then(Value::as_f64), Some(0.0));
    // Without labels the key is there, empty.
    assert_eq!(verify_receipts(&log_of(2), &TestSha256).to_value().get("labelSlices"), Some(&Value::Array(vec![])));
}

#[test]
fn a_receipt_whose_report_fields_have_the_wrong_type_is_reported_not_counted() {
    let result = labelled_run(RunPolicy::RiskBounded, green_history(400), [false; 3], Some("main"), "build-7");
    let good = receipts(&result);
    for (field, bad) in [
        ("runLabel", Value::Number(5.0)),
        ("runLabel", Value::string("")),
        ("label", Value::string("maybe")),
        ("label", Value::Bool(true)),
        ("policy", Value::Array(vec![])),
    ] {
        let Value::Object(mut entries) = good[0].clone() else { panic!() };
        for (k, v) in entries.iter_mut() {
            if k == field {
                *v = bad.clone();
            }
        }
        let receipt = Value::Object(entries.clone());
        // Appending it is refused, naming the field.
        let err = append_receipts("", std::slice::from_ref(&receipt), &TestSha256).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_receipt", format!("receipts[0].{field}").as_str()));
        // A log line carrying it (correctly chained) breaks the report there.
        entries.push(("prevHash".into(), Value::Null));
        let hash = earlyexit::artifact::digest(
            &Value::Object(entries.clone()),
            &TestSha256,
            earlyexit::ErrorCode::InvalidReceipt,
            "r",
        )
        .unwrap();
        entries.push(("sha256".into(), Value::string(hash)));
        let check = verify_receipts(&(Value::Object(entries).to_json() + "\n"), &TestSha256);
        let broken = check.broken.expect("reported");
        assert_eq!((broken.line, broken.field.as_str(), check.receipts), (1, field, 0), "{}", broken.reason);
    }
}
