//! The ADR's exit decision in shadow mode (policy `adr`, mode `shadow`): every layer runs;
//! the first layer after which the ADR's controller would have exited is a receipt that
//! agrees with what the enforced run over the same results does (its exit layer, its
//! predictions, the layers it verifies and those it never runs), labelled as
//! docs/test-exit.md defines, chained and counted by the receipt log, and read back strictly.

use earlyexit::kit::pyramid::policy::no_receipt_reason;
use earlyexit::pyramid::policy::{LiveRun, RunMode, RunOptions};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::{Action, ExitConfig, LayerResult, LayerSpec, PyramidRun, TestPyramidResult, Value};

mod test_sha256;
use test_sha256::TestSha256;

const NAMES: [&str; 6] = ["unit", "integration", "e2e", "perf", "smoke", "canary"];

fn specs(n: usize) -> Vec<LayerSpec> {
    (0..n).map(|i| LayerSpec { name: NAMES[i].into(), cost_ms: Some(10.0 * (i + 1) as f64) }).collect()
}

fn shadow_options(run_id: &str) -> RunOptions {
    RunOptions { mode: RunMode::Shadow, run_id: Some(run_id.into()), ..RunOptions::default() }
}

/// A layer's result: `pass_rate`, coverage 0.95, no flakes.
fn result(pass_rate: f64) -> LayerResult {
    LayerResult::new(pass_rate, 0.95, 0.0)
}

fn drive(run: &mut LiveRun, rates: &[f64]) -> TestPyramidResult {
    while let Action::Run(layer) | Action::Verify(layer) = run.next() {
        run.submit(layer, result(rates[layer])).unwrap();
    }
    run.result().unwrap()
}

fn shadow(config: ExitConfig, rates: &[f64]) -> TestPyramidResult {
    let mut run = LiveRun::start(config, rates.len() as u64, specs(rates.len()), shadow_options("b1")).unwrap();
    assert!(matches!(run, LiveRun::Policy(_)), "the ADR's shadow run is a policy run (the replay module's)");
    drive(&mut run, rates)
}

fn enforced(config: ExitConfig, rates: &[f64]) -> TestPyramidResult {
    let mut run = LiveRun::Adr(PyramidRun::start(config, rates.len() as u64, specs(rates.len())).unwrap());
    drive(&mut run, rates)
}

fn receipts(result: &TestPyramidResult) -> Vec<Value> {
    match result.shadow.as_ref().and_then(|s| s.get("receipts")) {
        Some(Value::Array(items)) => items.clone(),
        other => panic!("a shadow value expected: {other:?}"),
    }
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or_else(|| panic!("{key} in {}", v.to_json()))
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_else(|| panic!("{key} in {}", v.to_json()))
}

fn items<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    match v.get(key) {
        Some(Value::Array(items)) => items,
        _ => panic!("{key} in {}", v.to_json()),
    }
}

/// The receipt agrees with the enforced run over the same results.
fn agrees_with_enforced(config: ExitConfig, rates: &[f64]) -> Value {
    let full = shadow(config.clone(), rates);
    let adr = enforced(config, rates);
    assert!(!full.exited_early);
    assert_eq!(full.layers_executed, (0..rates.len()).collect::<Vec<_>>(), "every layer runs, in order");
    assert_eq!(
        (full.exit_reason.as_str(), full.skipped_layers, full.compute_saved_ms),
        ("forced_continue", 0, Some(0.0))
    );
    assert!(full.policy.is_none());
    let got = receipts(&full);
    assert_eq!(got.len(), 1, "the enforced run exited, so the shadow run has its receipt");
    let receipt = got[0].clone();
    assert!(adr.exited_early);
    assert_eq!(num(&receipt, "layer") as i64, adr.exit_layer);
    assert_eq!(text(&receipt, "policy"), "adr");
    assert_eq!(text(&receipt, "exitReason"), adr.exit_reason.as_str());
    assert_eq!(num(&receipt.get("decision").unwrap().clone(), "confidence"), adr.confidence);
    let predicted: Vec<(usize, String, String, f64)> = items(&receipt, "speculations")
        .iter()
        .map(|s| (num(s, "layer") as usize, text(s, "name").into(), text(s, "predicted").into(), num(s, "confidence")))
        .collect();
    let expected: Vec<(usize, String, String, f64)> = adr
        .speculations
        .iter()
        .map(|s| (s.layer.unwrap(), s.name.clone().unwrap(), s.predicted.as_str().into(), s.confidence))
        .collect();
    assert_eq!(predicted, expected, "the enforced run's predictions, each naming its layer");
    let verified: Vec<usize> = items(&receipt, "verification").iter().map(|v| num(v, "layer") as usize).collect();
    assert_eq!(verified, adr.layers_verified, "the layers the enforced run verifies");
    let never: Vec<usize> = items(&receipt, "skipped")
        .iter()
        .filter(|s| s.get("verified") == Some(&Value::Bool(false)))
        .map(|s| num(s, "layer") as usize)
        .collect();
    assert_eq!(never, adr.layers_not_run, "the layers the enforced run never runs");
    assert_eq!(receipt.get("computeSavedMs").and_then(Value::as_f64), adr.compute_saved_ms);
    receipt
}

#[test]
fn a_green_run_is_a_correct_skip_that_agrees_with_the_enforced_run() {
    let receipt = agrees_with_enforced(ExitConfig::DEFAULT, &[1.0; 5]);
    assert_eq!(text(&receipt, "label"), "correct_skip");
    assert_eq!(receipt.get("firstMissedFailure"), Some(&Value::Null));
    assert_eq!(receipt.get("runId").and_then(Value::as_str), Some("b1"));
    // The default preset exits after unit and verifies the next two: saves perf and smoke.
    assert_eq!((num(&receipt, "layer"), num(&receipt, "computeSavedMs")), (0.0, 90.0));
}

#[test]
fn a_failure_verification_never_runs_is_a_false_pass() {
    let receipt = agrees_with_enforced(ExitConfig::DEFAULT, &[1.0, 1.0, 1.0, 1.0, 0.5]);
    assert_eq!(text(&receipt, "label"), "false_pass");
    let missed = receipt.get("firstMissedFailure").unwrap();
    assert_eq!((num(missed, "layer"), text(missed, "name")), (4.0, "smoke"));
    // The enforced run declares that red build unverified-green: no failure observed.
    assert_eq!(enforced(ExitConfig::DEFAULT, &[1.0, 1.0, 1.0, 1.0, 0.5]).verdict.as_str(), "unverified");
}

#[test]
fn a_failure_the_enforced_run_sees_is_a_needless_run() {
    // Verification would have run integration: the enforced run is red by itself.
    let receipt = agrees_with_enforced(ExitConfig::DEFAULT, &[1.0, 0.5, 1.0, 1.0, 0.5]);
    assert_eq!(text(&receipt, "label"), "needless_run");
    assert_eq!(receipt.get("firstMissedFailure"), Some(&Value::Null));
    let verification = items(&receipt, "verification");
    assert_eq!(
        (text(&verification[0], "outcome"), verification[0].get("correct")),
        ("fail", Some(&Value::Bool(false)))
    );
    // A layer run before the exit failed (0.995: the signal still allows the exit).
    let receipt = agrees_with_enforced(ExitConfig::DEFAULT, &[0.995, 1.0, 1.0, 1.0, 1.0]);
    assert_eq!(text(&receipt, "label"), "needless_run");
    assert_eq!(items(&receipt, "failingLayers").len(), 1);
}

#[test]
fn without_speculation_nothing_is_verified() {
    let config = ExitConfig { verification_layers: 0, ..ExitConfig::DEFAULT };
    let receipt = agrees_with_enforced(config, &[1.0, 1.0, 0.5]);
    assert_eq!(items(&receipt, "verification").len(), 0);
    assert_eq!(text(&receipt, "label"), "false_pass");
}

#[test]
fn no_would_be_exit_writes_no_receipt_and_says_why() {
    // Coverage 0.5: lambda 50, under the default's 80: the ADR never exits.
    let mut run = LiveRun::start(ExitConfig::DEFAULT, 3, specs(3), shadow_options("b2")).unwrap();
    while let Action::Run(layer) = run.next() {
        run.submit(layer, LayerResult::new(1.0, 0.5, 0.0)).unwrap();
    }
    let full = run.result().unwrap();
    assert!(receipts(&full).is_empty());
    let why = no_receipt_reason(full.shadow.as_ref(), 0, 0).unwrap();
    assert!(why.contains("would not have exited"), "{why}");
    // An exit allowed only after the last layer skips nothing: no receipt either.
    assert!(receipts(&shadow(ExitConfig::DEFAULT, &[1.0])).is_empty());
}

#[test]
fn the_run_snapshots_and_restores_mid_way() {
    let rates = [1.0, 1.0, 0.5, 1.0];
    let mut run = LiveRun::start(ExitConfig::AGGRESSIVE, 4, specs(4), shadow_options("b3")).unwrap();
    run.submit(0, result(1.0)).unwrap();
    run.submit(1, result(1.0)).unwrap();
    let snapshot = run.to_snapshot();
    assert_eq!(snapshot.get("engine").and_then(Value::as_str), Some("PyramidPolicyRun"));
    assert_eq!(snapshot.get("totalLayers").and_then(Value::as_f64), Some(4.0));
    let mut back = LiveRun::from_snapshot(
        &Value::parse_json(&snapshot.to_json(), earlyexit::ErrorCode::InvalidSnapshot, "s").unwrap(),
    )
    .unwrap();
    assert_eq!(back, run);
    assert_eq!(drive(&mut back, &rates), drive(&mut run, &rates));
    // A snapshot without its exit config or totalLayers, or whose ADR is enforced, or a
    // policy's that keeps them, is refused naming the key (nothing silently defaults).
    let refused = |snapshot: Value, field: &str| {
        let e = LiveRun::from_snapshot(&snapshot).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_snapshot", field), "{}", e.message());
    };
    let without = |key: &str| match &snapshot {
        Value::Object(entries) => Value::Object(entries.iter().filter(|(k, _)| k != key).cloned().collect()),
        _ => unreachable!(),
    };
    refused(without("config"), "config");
    refused(without("totalLayers"), "totalLayers");
    refused(with(&snapshot, &["options", "mode"], Value::string("enforced")), "options.mode");
    refused(with(&snapshot, &["options", "policy"], Value::string("fail_fast")), "config");
    refused(with(&snapshot, &["totalLayers"], Value::Number(0.0)), "totalLayers");
}

#[test]
fn receipts_chain_with_the_policies_and_are_counted_under_adr() {
    let sha = TestSha256;
    let mut log = String::new();
    for (id, rates) in [("a", [1.0; 5]), ("b", [1.0, 1.0, 1.0, 1.0, 0.5]), ("c", [1.0, 0.5, 1.0, 1.0, 1.0])] {
        let mut run = LiveRun::start(ExitConfig::DEFAULT, 5, specs(5), shadow_options(id)).unwrap();
        let receipts = receipts(&drive(&mut run, &rates));
        log.push_str(&append_receipts(&log, &receipts, &sha).unwrap());
    }
    let check = verify_receipts(&log, &sha);
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!(check.receipts, 3);
    let report = check.to_value();
    let slices = items(&report, "slices");
    assert_eq!(text(&slices[0], "slice"), "adr");
    let rates = report.get("rates").unwrap();
    let false_pass = rates.get("falsePass").unwrap();
    assert_eq!((num(false_pass, "count"), num(false_pass, "of")), (1.0, 2.0));
    assert!(matches!(false_pass.get("wilson"), Some(Value::Array(w)) if w.len() == 2));
    // The same receipt again appends nothing (a retried step).
    let mut run = LiveRun::start(ExitConfig::DEFAULT, 5, specs(5), shadow_options("a")).unwrap();
    assert_eq!(append_receipts(&log, &receipts(&drive(&mut run, &[1.0; 5])), &sha).unwrap(), "");
}

/// `receipt` with the member `key` replaced by `to`, or with `key` of its `list[index]`.
fn with(receipt: &Value, path: &[&str], to: Value) -> Value {
    fn go(v: &mut Value, path: &[&str], to: Value) {
        match (v, path) {
            (Value::Object(entries), [key]) => entries.iter_mut().find(|(k, _)| k == key).unwrap().1 = to,
            (Value::Object(entries), [key, rest @ ..]) => {
                go(&mut entries.iter_mut().find(|(k, _)| k == key).unwrap().1, rest, to)
            }
            (Value::Array(items), [index, rest @ ..]) => go(&mut items[index.parse::<usize>().unwrap()], rest, to),
            (v, _) => panic!("cannot edit {v:?} at {path:?}"),
        }
    }
    let mut out = receipt.clone();
    go(&mut out, path, to);
    out
}

#[test]
fn a_receipt_that_contradicts_itself_is_refused_naming_the_field() {
    let sha = TestSha256;
    let receipt = agrees_with_enforced(ExitConfig::DEFAULT, &[1.0; 5]);
    let refused = |bad: Value, field: &str| {
        let e = append_receipts("", &[bad], &sha).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_receipt", field), "{}", e.message());
    };
    refused(with(&receipt, &["label"], Value::string("false_pass")), "receipts[0].label");
    refused(with(&receipt, &["decision", "confidence"], Value::Number(0.5)), "receipts[0].decision");
    refused(with(&receipt, &["signal", "lambda"], Value::Number(50.0)), "receipts[0].decision");
    refused(with(&receipt, &["signal", "lambda"], Value::Number(500.0)), "receipts[0].signal.lambda");
    refused(with(&receipt, &["skipped", "0", "verified"], Value::Bool(false)), "receipts[0].skipped[0].verified");
    refused(with(&receipt, &["skipped", "0", "layer"], Value::Number(3.0)), "receipts[0].skipped[0].layer");
    refused(with(&receipt, &["speculations"], Value::Array(vec![])), "receipts[0].speculations");
    refused(
        with(&receipt, &["verification", "0", "correct"], Value::Bool(false)),
        "receipts[0].verification[0].correct",
    );
    refused(with(&receipt, &["computeSavedMs"], Value::Number(1.0)), "receipts[0].computeSavedMs");
    refused(
        with(&receipt, &["config", "verificationLayers"], Value::Number(-1.0)),
        "receipts[0].config.verificationLayers",
    );
    refused(with(&receipt, &["totalLayers"], Value::Number(0.0)), "receipts[0].totalLayers");
    refused(with(&receipt, &["layer"], Value::Number(1.0)), "receipts[0].layer");
    refused(with(&receipt, &["exitReason"], Value::string("risk_bounded")), "receipts[0].exitReason");
    // A receipt edited into another label stays consistent only if every part agrees.
    let missed = with(&receipt, &["skipped", "3", "actual"], Value::string("fail"));
    refused(missed.clone(), "receipts[0].firstMissedFailure");
}
