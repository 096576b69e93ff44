//! The receipt log's rules beyond the hash chain: one receipt per run (a retried step appends
//! nothing; another body for the same run is refused), no blank lines, and a receipt that
//! contradicts itself (a label its own outcomes do not make, an index outside it, a number
//! out of range, a key stated twice) is refused by `append_receipts` and breaks
//! `verify_receipts` at its line.

use earlyexit::artifact::digest;
use earlyexit::pyramid::policy::{
    ObservedLayer, OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy,
};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::value::JsonReading;
use earlyexit::{Action, ErrorCode, LayerResult, LayerSpec, Value};

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

/// The receipt of a finished shadow run of `policy` over three layers, `fails` saying which
/// fail, called `run_id`.
fn receipt_of(policy: RunPolicy, fails: [bool; 3], run_id: &str) -> Value {
    let options = RunOptions {
        policy,
        mode: RunMode::Shadow,
        config: PolicyConfig { reorder: false, ..PolicyConfig::preset(policy.as_str()).unwrap() },
        model: green_history(400),
        run_id: Some(run_id.into()),
        fallback: None,
        label: None,
    };
    let specs = LAYERS.iter().map(|&(name, cost)| LayerSpec { name: name.into(), cost_ms: Some(cost) }).collect();
    let mut run = PolicyRun::start(options, specs).unwrap();
    while let Action::Run(layer) = run.next() {
        run.submit(layer, LayerResult::new(if fails[layer] { 0.5 } else { 1.0 }, 1.0, 0.0)).unwrap();
    }
    match run.result().unwrap().shadow.as_ref().and_then(|s| s.get("receipts")) {
        Some(Value::Array(items)) if items.len() == 1 => items[0].clone(),
        other => panic!("one receipt expected: {other:?}"),
    }
}

fn green(run_id: &str) -> Value {
    receipt_of(RunPolicy::RiskBounded, [false; 3], run_id)
}

/// `receipt` with `path` (keys and indices, `.`-separated) set to `to` (`None` removes it).
fn edited(receipt: &Value, path: &[&str], to: Option<Value>) -> Value {
    fn go(v: &mut Value, path: &[&str], to: Option<Value>) {
        match (v, path) {
            (Value::Object(entries), [key]) => match to {
                Some(to) => match entries.iter_mut().find(|(k, _)| k == key) {
                    Some(slot) => slot.1 = to,
                    None => entries.push(((*key).to_string(), to)),
                },
                None => entries.retain(|(k, _)| k != key),
            },
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

/// One log line carrying `body`, chained after `prev`, with a correct hash.
fn line(body: &Value, prev: Option<&str>) -> String {
    let Value::Object(mut entries) = body.clone() else { panic!() };
    entries.push(("prevHash".into(), prev.map_or(Value::Null, Value::string)));
    let hash = digest(&Value::Object(entries.clone()), &TestSha256, ErrorCode::InvalidReceipt, "r").unwrap();
    entries.push(("sha256".into(), Value::string(hash)));
    Value::Object(entries).to_json()
}

fn append(log: &str, receipts: &[Value]) -> earlyexit::Result<String> {
    append_receipts(log, receipts, &TestSha256)
}

#[test]
fn a_retried_step_appends_its_receipt_once() {
    let receipt = green("build-41");
    let mut log = String::new();
    for _ in 0..3 {
        log.push_str(&append(&log, std::slice::from_ref(&receipt)).unwrap());
    }
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(!log.contains("\n\n") && log.ends_with('\n'));
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!((check.receipts, check.repeated), (1, 0));
    // Twice in one call: once.
    assert_eq!(append("", &[receipt.clone(), receipt.clone()]).unwrap().lines().count(), 1);
    // Nothing to append: nothing written, not even a newline.
    assert_eq!(append(&log, &[]).unwrap(), "");
    assert_eq!(append("", &[]).unwrap(), "");
    // Receipts without a run id name no run: each is appended.
    let anonymous = edited(&receipt, &["runId"], Some(Value::Null));
    assert_eq!(append("", &[anonymous.clone(), anonymous]).unwrap().lines().count(), 2);
}

#[test]
fn another_receipt_for_a_run_in_the_log_is_refused() {
    let log = append("", &[green("build-41")]).unwrap();
    let other = receipt_of(RunPolicy::RiskBounded, [false, false, true], "build-41");
    let err = append(&log, &[green("build-42"), other.clone()]).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_receipt", "receipts[1].runId"), "{}", err.message());
    assert!(err.message().contains("line 1"), "{}", err.message());
    // The same run under another policy is another receipt.
    let fail_fast = receipt_of(RunPolicy::FailFast, [true, false, false], "build-41");
    assert_eq!(append(&log, &[fail_fast]).unwrap().lines().count(), 1);
    // Within one call too.
    let err = append("", &[green("b"), edited(&green("b"), &["layerName"], Some(Value::string("x")))]).unwrap_err();
    assert_eq!(err.field(), "receipts[1].runId");
}

#[test]
fn verify_counts_a_repeated_receipt_once_and_breaks_at_a_conflicting_one() {
    // A log written before the rule: the same receipt three times, chained.
    let receipt = green("build-41");
    let first = line(&receipt, None);
    let hash_of = |l: &str| {
        Value::parse_json(l, ErrorCode::InvalidReceipt, "l")
            .unwrap()
            .get("sha256")
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    };
    let second = line(&receipt, Some(&hash_of(&first)));
    let third = line(&receipt, Some(&hash_of(&second)));
    let log = format!("{first}\n\n{second}\n{third}\n");
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid(), "{:?}", check.broken);
    assert_eq!((check.receipts, check.repeated), (1, 2));
    assert_eq!(check.labels, vec![("correct_skip".to_string(), 1)]);
    assert_eq!(check.to_value().get("repeated").and_then(Value::as_f64), Some(2.0));
    // Appending to it leaves the repeat out and chains after the last line.
    assert_eq!(append(&log, &[receipt]).unwrap(), "");
    // A second, different receipt of the run breaks the log there.
    let other = receipt_of(RunPolicy::RiskBounded, [false, false, true], "build-41");
    let conflicting = format!("{first}\n{}\n", line(&other, Some(&hash_of(&first))));
    let broken = verify_receipts(&conflicting, &TestSha256).broken.expect("broken");
    assert_eq!((broken.line, broken.field.as_str()), (2, "runId"), "{}", broken.reason);
    let err = append(&conflicting, &[]).unwrap_err();
    assert_eq!(err.field(), "log.line 2");
}

#[test]
fn lines_to_a_log_without_a_final_newline_start_a_new_line() {
    let log = append("", &[green("a")]).unwrap();
    let cut = log.trim_end();
    let more = append(cut, &[green("b")]).unwrap();
    assert!(more.starts_with('\n') && !more.starts_with("\n\n"), "{more:?}");
    let whole = format!("{cut}{more}");
    let check = verify_receipts(&whole, &TestSha256);
    assert!(check.valid() && check.receipts == 2, "{:?}", check.broken);
}

#[test]
fn every_receipt_the_core_writes_reads_back() {
    let receipts = [
        receipt_of(RunPolicy::RiskBounded, [false; 3], "a"),
        receipt_of(RunPolicy::RiskBounded, [false, false, true], "b"),
        receipt_of(RunPolicy::FailFast, [true, false, false], "c"),
        receipt_of(RunPolicy::FailFast, [false, true, true], "d"),
    ];
    let labels: Vec<&str> = receipts.iter().map(|r| r.get("label").unwrap().as_str().unwrap()).collect();
    assert_eq!(labels, ["correct_skip", "false_pass", "needless_run", "needless_run"]);
    let log = append("", &receipts).unwrap();
    let check = verify_receipts(&log, &TestSha256);
    assert!(check.valid() && check.receipts == 4, "{:?}", check.broken);
}

/// Each contradiction: refused by `append_receipts` naming the field, and a log line carrying
/// it (hash recomputed) breaks `verify_receipts` there, naming the same field.
#[test]
fn a_receipt_that_contradicts_itself_is_refused_and_breaks_the_log() {
    let good = green("build-41");
    let false_pass = receipt_of(RunPolicy::RiskBounded, [false, false, true], "build-41");
    let red = receipt_of(RunPolicy::FailFast, [true, false, false], "build-41");
    let cases: Vec<(&str, Value)> = vec![
        // A false pass relabelled: the skipped layer failed and firstMissedFailure says so.
        ("label", edited(&false_pass, &["label"], Some(Value::string("correct_skip")))),
        // The failure hidden as well: firstMissedFailure must name it.
        (
            "firstMissedFailure",
            edited(
                &edited(&false_pass, &["label"], Some(Value::string("correct_skip"))),
                &["firstMissedFailure"],
                Some(Value::Null),
            ),
        ),
        ("layer", edited(&good, &["layer"], Some(Value::Number(50.0)))),
        ("skipped[0].layer", edited(&good, &["skipped", "0", "layer"], Some(Value::Number(50.0)))),
        ("skipped[0].layer", edited(&good, &["skipped", "0", "layer"], Some(good.get("layer").unwrap().clone()))),
        ("computeSavedMs", edited(&good, &["computeSavedMs"], Some(Value::Number(1e308)))),
        ("signal.risk", edited(&good, &["signal", "risk"], Some(Value::Number(-0.1)))),
        ("skipped[0].confidence", edited(&good, &["skipped", "0", "confidence"], Some(Value::Number(1.5)))),
        ("skipped[0].predicted", edited(&good, &["skipped", "0", "predicted"], Some(Value::string("fail")))),
        ("skipped[0].confidence", edited(&red, &["skipped", "0", "confidence"], Some(Value::Number(0.9)))),
        ("label", edited(&red, &["label"], Some(Value::string("correct_skip")))),
        ("thresholds.riskBudget", edited(&good, &["thresholds", "riskBudget"], Some(Value::Number(0.5)))),
        ("config.riskBudget", edited(&good, &["config", "riskBudget"], Some(Value::Number(2.0)))),
        ("layersRun", edited(&good, &["layersRun"], Some(Value::Number(-1.0)))),
        ("receiptVersion", edited(&good, &["receiptVersion"], Some(Value::Number(2.0)))),
        ("kind", edited(&good, &["kind"], Some(Value::string("loop")))),
        ("skipped", edited(&good, &["skipped"], None)),
        ("skipped", edited(&good, &["skipped"], Some(Value::Array(vec![])))),
        ("bogus", edited(&good, &["bogus"], Some(Value::Number(1.0)))),
    ];
    for (field, bad) in cases {
        let err = append("", std::slice::from_ref(&bad)).unwrap_err();
        assert_eq!(
            (err.code(), err.field()),
            ("invalid_receipt", format!("receipts[0].{field}").as_str()),
            "{}",
            err.message()
        );
        let check = verify_receipts(&format!("{}\n", line(&bad, None)), &TestSha256);
        let broken = check.broken.unwrap_or_else(|| panic!("{field}: verified"));
        assert_eq!((broken.line, broken.field.as_str(), check.receipts), (1, field, 0), "{}", broken.reason);
    }
}

#[test]
fn skipped_costs_whose_sum_overflows_are_refused() {
    let mut three = edited(&green("x"), &["layersRun"], Some(Value::Number(1.0)));
    let skipped = |layer: f64, name: &str| {
        Value::object(vec![
            ("layer", Value::Number(layer)),
            ("name", Value::string(name)),
            ("predicted", Value::string("pass")),
            ("confidence", Value::Number(0.99)),
            ("actual", Value::string("pass")),
            ("costMs", Value::Number(1e308)),
        ])
    };
    three = edited(&three, &["skipped"], Some(Value::Array(vec![skipped(1.0, "integration"), skipped(2.0, "e2e")])));
    three = edited(&three, &["layer"], Some(Value::Number(0.0)));
    three = edited(&three, &["layerName"], Some(Value::string("unit")));
    three = edited(&three, &["computeSavedMs"], Some(Value::Null));
    let err = append("", &[three]).unwrap_err();
    assert_eq!(err.field(), "receipts[0].skipped[1].costMs", "{}", err.message());
    assert!(err.message().contains("running total"), "{}", err.message());
}

#[test]
fn a_line_that_states_a_key_twice_breaks_the_log() {
    let false_pass = receipt_of(RunPolicy::RiskBounded, [false, false, true], "build-41");
    let honest = line(&false_pass, None);
    // The hash covers JSON.parse's reading (the last `label`), so only the repeat betrays it.
    let forged = honest.replacen("\"label\":\"false_pass\"", "\"label\":\"correct_skip\",\"label\":\"false_pass\"", 1);
    assert_ne!(forged, honest);
    assert!(verify_receipts(&format!("{honest}\n"), &TestSha256).valid());
    let broken = verify_receipts(&format!("{forged}\n"), &TestSha256).broken.expect("broken");
    assert_eq!(broken.line, 1);
    assert!(broken.reason.contains("'label'") && broken.reason.contains("repeated"), "{}", broken.reason);
    assert_eq!(append(&format!("{forged}\n"), &[]).unwrap_err().field(), "log.line 1");
}

#[test]
fn the_json_reader_refuses_repeated_keys_only_when_asked() {
    let unique = JsonReading::DOCUMENT.refusing_repeated_keys();
    let text = r#"{"a":1,"b":{"c":2,"c":3}}"#;
    // By default, JSON.parse's rule: the last value wins.
    let read = Value::parse_json(text, ErrorCode::InvalidReceipt, "t").unwrap();
    assert_eq!(read.get("b").and_then(|b| b.get("c")).and_then(Value::as_f64), Some(3.0));
    let err = Value::parse_json_as(text, ErrorCode::InvalidReceipt, "t", unique).unwrap_err();
    assert!(err.message().contains("'c'"), "{}", err.message());
    assert_eq!(err.field(), "t");
    // A large object (past the pairwise check): found by sorting.
    let keys: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
    let big = format!("{{{},\"k57\":0}}", keys.join(","));
    assert!(Value::parse_json(&big, ErrorCode::InvalidReceipt, "t").is_ok());
    let err = Value::parse_json_as(&big, ErrorCode::InvalidReceipt, "t", unique).unwrap_err();
    assert!(err.message().contains("'k57'"), "{}", err.message());
    let distinct = format!("{{{}}}", keys.join(","));
    assert!(Value::parse_json_as(&distinct, ErrorCode::InvalidReceipt, "t", unique).is_ok());
}
