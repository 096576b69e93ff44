//! A pyramid policy's lifecycle: calibration's artifact, the drift check (fresh, expired,
//! drifted and why) and promotion on an audit split (exact Clopper-Pearson bound).

use earlyexit::artifact::Artifact;
use earlyexit::kit::pyramid::replay::{clopper_pearson_upper, drift_value, promote_value};
use earlyexit::pyramid::replay::{parse_runs, read_pyramid_artifact, CalibrationRequest};
use earlyexit::{Naming, Value};

mod test_sha256;
use test_sha256::TestSha256;

const JAN_1: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const DAY: i64 = 86_400_000;

/// `n` runs of unit/integration/e2e; unit fails every `unit_every`-th run, e2e every
/// `e2e_every`-th (never when 0); `offset` shifts the pattern.
fn runs(n: usize, unit_every: usize, e2e_every: usize, offset: usize) -> Value {
    let items = (0..n)
        .map(|i| {
            let i = i + offset;
            let layer = |name: &str, ms: f64, failed: bool| {
                Value::object(vec![
                    ("name", Value::string(name)),
                    ("durationMs", Value::Number(ms)),
                    ("failed", Value::Bool(failed)),
                ])
            };
            Value::object(vec![(
                "layers",
                Value::Array(vec![
                    layer("unit", 10.0, unit_every > 0 && i % unit_every == 0),
                    layer("integration", 40.0, false),
                    layer("e2e", 90.0, e2e_every > 0 && i % e2e_every == 3),
                ]),
            )])
        })
        .collect();
    Value::Array(items)
}

fn calibrated() -> Value {
    let options = Value::object(vec![
        ("risk", Value::Number(0.2)),
        ("delta", Value::Number(0.1)),
        ("createdAt", Value::string("2026-01-01T00:00:00Z")),
    ]);
    let request = CalibrationRequest::from_options(&options, Naming::Js).unwrap();
    let parsed = parse_runs(&runs(600, 5, 97, 0), Naming::Js).unwrap();
    request.run_with_artifact(&parsed, &TestSha256, JAN_1).unwrap()
}

#[test]
fn calibration_answers_its_figures_and_a_valid_artifact() {
    let answer = calibrated();
    for key in
        ["riskBudget", "config", "steps", "model", "kind", "schemaVersion", "certificate", "corpusSha256", "body"]
    {
        assert!(answer.get(key).is_some(), "{key}");
    }
    assert_eq!(answer.get("expiresAt").and_then(Value::as_str), Some("2026-01-31T00:00:00.000Z"));
    let artifact = read_pyramid_artifact(&answer, &TestSha256).unwrap();
    assert_eq!(artifact.policy, "risk_bounded");
    assert_eq!(artifact.config.risk_budget, answer.get("riskBudget").and_then(Value::as_f64).unwrap());
    let steps = match answer.get("steps") {
        Some(Value::Array(s)) => s.len(),
        _ => 0,
    };
    assert_eq!(artifact.artifact.certificate.hypotheses.len(), steps);
    // The envelope alone (what to_json keeps) reads back the same.
    let text = artifact.artifact.to_json();
    assert_eq!(Artifact::parse(&text).unwrap(), artifact.artifact);
    // The same corpus hashes the same; another one does not.
    let again = calibrated();
    assert_eq!(again.get("corpusSha256"), answer.get("corpusSha256"));
}

#[test]
fn drift_says_fresh_expired_or_drifted_and_why() {
    let artifact = calibrated();
    let status = |runs: &Value, now: i64| {
        drift_value(&artifact, runs, &TestSha256, &Value::Number(now as f64), Naming::Js).unwrap()
    };
    let fresh = status(&runs(100, 5, 97, 600), JAN_1 + DAY);
    assert_eq!(fresh.get("status").and_then(Value::as_str), Some("fresh"), "{fresh:?}");
    let expired = status(&runs(100, 5, 97, 600), JAN_1 + 31 * DAY);
    assert_eq!(expired.get("status").and_then(Value::as_str), Some("expired"));
    // unit now fails in every other run: outside its interval.
    let drifted = status(&runs(100, 2, 97, 600), JAN_1 + DAY);
    assert_eq!(drifted.get("status").and_then(Value::as_str), Some("drifted"));
    let Some(Value::Array(reasons)) = drifted.get("reasons") else { panic!() };
    assert_eq!(reasons[0].get("kind").and_then(Value::as_str), Some("failure_rate"));
    assert_eq!(reasons[0].get("stage").and_then(Value::as_str), Some("unit"));
    // A new stage set.
    let renamed = Value::Array(vec![Value::object(vec![(
        "layers",
        Value::Array(vec![Value::object(vec![
            ("name", Value::string("lint")),
            ("durationMs", Value::Number(1.0)),
            ("failed", Value::Bool(false)),
        ])]),
    )])]);
    let set = status(&renamed, JAN_1 + DAY);
    let Some(Value::Array(reasons)) = set.get("reasons") else { panic!() };
    assert_eq!(reasons[0].get("kind").and_then(Value::as_str), Some("stage_set"));
}

#[test]
fn promotion_certifies_on_a_disjoint_audit_and_records_it() {
    let artifact = calibrated();
    let answer =
        promote_value(&artifact, &runs(400, 5, 97, 600), &TestSha256, &Value::Number((JAN_1 + DAY) as f64), Naming::Js)
            .unwrap();
    let audit = answer.get("audit").unwrap();
    let (trials, events) = (
        audit.get("failingRuns").and_then(Value::as_f64).unwrap() as u64,
        audit.get("falsePasses").and_then(Value::as_f64).unwrap() as u64,
    );
    let upper = audit.get("upperBound").and_then(Value::as_f64).unwrap();
    assert_eq!(upper, clopper_pearson_upper(events, trials, 0.1));
    let promoted = answer.get("promoted").and_then(Value::as_bool).unwrap();
    assert_eq!(promoted, upper <= 0.2, "{answer:?}");
    assert!(promoted, "this audit split certifies: {answer:?}");
    let recorded = Artifact::from_value(answer.get("artifact").unwrap()).unwrap();
    assert_eq!(recorded.promotion.is_some(), promoted);
    // The calibration corpus itself is not an audit split.
    let err =
        promote_value(&artifact, &runs(600, 5, 97, 0), &TestSha256, &Value::Number((JAN_1 + DAY) as f64), Naming::Js)
            .unwrap_err();
    assert_eq!(err.field(), "auditRuns");
    // An expired artifact is not promoted.
    let late = promote_value(
        &artifact,
        &runs(400, 5, 97, 600),
        &TestSha256,
        &Value::string("2026-02-10T00:00:00Z"),
        Naming::Js,
    )
    .unwrap();
    assert_eq!(late.get("promoted"), Some(&Value::Bool(false)));
}

#[test]
fn clopper_pearson_matches_closed_forms() {
    // k = 0: upper = 1 - delta^(1/n).
    for n in [1u64, 10, 59, 300] {
        let want = 1.0 - 0.05f64.powf(1.0 / n as f64);
        assert!((clopper_pearson_upper(0, n, 0.05) - want).abs() < 1e-12, "{n}");
    }
    // k = n - 1: upper = (1 - delta)^(1/n).
    let want = 0.9f64.powf(1.0 / 10.0);
    assert!((clopper_pearson_upper(9, 10, 0.1) - want).abs() < 1e-12);
    assert_eq!(clopper_pearson_upper(0, 0, 0.1), 1.0);
}

#[test]
fn artifacts_that_are_not_pyramid_policies_are_refused_by_path() {
    let mut artifact = calibrated();
    if let Value::Object(entries) = &mut artifact {
        for (k, v) in entries.iter_mut() {
            if k == "kind" {
                *v = Value::string("loop");
            }
        }
    }
    let err = read_pyramid_artifact(&artifact, &TestSha256).err().unwrap();
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "kind"));
    let err = read_pyramid_artifact(&Value::string("{"), &TestSha256).err().unwrap();
    assert_eq!(err.code(), "invalid_artifact");
}

/// A live run of `policy` a day into the artifacts' validity (an enforced artifact needs the
/// time), by `now` in its options: [`live_at`] without a host clock.
fn live_result(policy: &Value, extra: Vec<(&str, Value)>) -> earlyexit::TestPyramidResult {
    let mut options = vec![("now", Value::Number((JAN_1 + DAY) as f64))];
    options.extend(extra);
    live_at(policy, options, None)
}

#[test]
fn an_artifact_as_the_policy_runs_in_shadow_until_promoted() {
    let artifact = calibrated();
    let r = live_result(&artifact, vec![]);
    let shadow = r.shadow.expect("not promoted: shadow");
    let reason = shadow.get("reason").and_then(Value::as_str).unwrap();
    assert!(reason.contains("not promoted"), "{reason}");
    assert_eq!(r.layers_executed.len(), 3);
    // Asked for shadow: the reason is the request.
    let asked = live_result(&artifact, vec![("mode", Value::string("shadow"))]);
    assert_eq!(asked.shadow.unwrap().get("reason").and_then(Value::as_str), Some("requested"));
    // A promoted artifact is enforced: no shadow key.
    let answer =
        promote_value(&artifact, &runs(400, 5, 97, 600), &TestSha256, &Value::Number((JAN_1 + DAY) as f64), Naming::Js)
            .unwrap();
    if answer.get("promoted") == Some(&Value::Bool(true)) {
        let promoted = answer.get("artifact").unwrap();
        assert!(live_result(promoted, vec![]).shadow.is_none());
    }
    // As JSON text too; and policyConfig cannot override the calibrated config.
    let text = Value::string(read_pyramid_artifact(&artifact, &TestSha256).unwrap().artifact.to_json());
    assert!(live_result(&text, vec![]).shadow.is_some());
    let bad = Value::object(vec![("policy", artifact.clone()), ("policyConfig", Value::object(vec![]))]);
    let err = earlyexit::pyramid::policy::RunOptions::from_values(&bad, &Value::Null, Naming::Js).unwrap_err();
    assert_eq!(err.field(), "policyConfig");
}

#[test]
fn a_promoted_policy_that_meets_a_false_pass_is_demoted_by_the_drift_check() {
    let artifact = calibrated();
    let answer =
        promote_value(&artifact, &runs(400, 5, 97, 600), &TestSha256, &Value::Number((JAN_1 + DAY) as f64), Naming::Js)
            .unwrap();
    let promoted = answer.get("artifact").unwrap().clone();
    let now = Value::Number((JAN_1 + 2 * DAY) as f64);
    // Recent runs where e2e fails after green unit and integration: the promoted policy skips it.
    let recent = runs(200, 5, 4, 601);
    let drift = drift_value(&promoted, &recent, &TestSha256, &now, Naming::Js).unwrap();
    assert_eq!(drift.get("status").and_then(Value::as_str), Some("drifted"), "{drift:?}");
    let Some(Value::Array(reasons)) = drift.get("reasons") else { panic!() };
    assert!(reasons.iter().any(|r| r.get("kind").and_then(Value::as_str) == Some("false_pass")), "{reasons:?}");
    // The artifact to run with now is demoted: a live run with it is in shadow mode again.
    let demoted = drift.get("artifact").unwrap();
    assert_eq!(demoted.get("promotion"), Some(&Value::Null));
    let r = live_result(demoted, vec![]);
    assert!(r
        .shadow
        .and_then(|s| s.get("reason").and_then(Value::as_str).map(str::to_string))
        .unwrap()
        .contains("not promoted"));
    // Fresh recent runs keep the promotion.
    let fresh = drift_value(&promoted, &runs(100, 5, 0, 600), &TestSha256, &now, Naming::Js).unwrap();
    assert_eq!(fresh.get("status").and_then(Value::as_str), Some("fresh"), "{fresh:?}");
    assert_ne!(fresh.get("artifact").and_then(|a| a.get("promotion")), Some(&Value::Null));
}

/// `runs(...)` with each run labelled by `label(i)` (`None`: no label).
fn labelled(runs: Value, label: impl Fn(usize) -> Option<&'static str>) -> Value {
    let Value::Array(items) = runs else { panic!() };
    let items = items
        .into_iter()
        .enumerate()
        .map(|(i, run)| match (run, label(i)) {
            (Value::Object(mut entries), Some(l)) => {
                entries.push(("label".into(), Value::string(l)));
                Value::Object(entries)
            }
            (run, _) => run,
        })
        .collect();
    Value::Array(items)
}

fn calibrated_on(corpus: &Value) -> Value {
    let options = Value::object(vec![
        ("risk", Value::Number(0.2)),
        ("delta", Value::Number(0.1)),
        ("createdAt", Value::string("2026-01-01T00:00:00Z")),
    ]);
    let request = CalibrationRequest::from_options(&options, Naming::Js).unwrap();
    request.run_with_artifact(&parse_runs(corpus, Naming::Js).unwrap(), &TestSha256, JAN_1).unwrap()
}

fn slices(artifact: &Value) -> Vec<Value> {
    match artifact.get("body").and_then(|b| b.get("slices")) {
        Some(Value::Array(s)) => s.clone(),
        _ => panic!("no slices"),
    }
}

#[test]
fn labelled_runs_give_one_slice_per_label_beside_the_stage_sets() {
    let branch = |i: usize| Some(if i % 3 == 0 { "release" } else { "main" });
    let artifact = calibrated_on(&labelled(runs(600, 5, 97, 0), branch));
    let slices = slices(&artifact);
    // One stage set, then main and release in first-seen order (run 0 is release).
    assert_eq!(slices.len(), 3, "{slices:?}");
    assert!(slices[0].get("stages").is_some());
    assert_eq!(slices[1].get("label").and_then(Value::as_str), Some("release"));
    assert_eq!(slices[2].get("label").and_then(Value::as_str), Some("main"));
    assert_eq!(slices[1].get("runs").and_then(Value::as_f64), Some(200.0));
    // In release (i % 3 == 0): unit fails in the 40 runs i % 15 == 0, e2e in runs 3, 294 and
    // 585 (i % 97 == 3), 585 being one of the 40.
    assert_eq!(slices[1].get("failingRuns").and_then(Value::as_f64), Some(42.0));
    assert!(matches!(slices[1].get("failureInterval"), Some(Value::Array(_))));
    // The labels are part of the calibration corpus (its digest); the decisions are not.
    let plain = calibrated();
    assert_ne!(artifact.get("corpusSha256"), plain.get("corpusSha256"));
    assert_eq!(artifact.get("riskBudget"), plain.get("riskBudget"));
    assert_eq!(self::slices(&plain).len(), 1, "no label, no label slice");
    // An artifact's label slices are read as runs' labels are.
    let text = artifact.to_json().replacen("\"label\":\"release\"", "\"label\":\"\"", 1);
    let err = read_pyramid_artifact(&Value::string(text), &TestSha256).err().unwrap();
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "body.slices[1].label"));
}

#[test]
fn drift_is_checked_per_label_slice() {
    let branch = |i: usize| Some(if i % 2 == 0 { "main" } else { "release" });
    let artifact = calibrated_on(&labelled(runs(600, 5, 97, 0), branch));
    let now = Value::Number((JAN_1 + DAY) as f64);
    let drift = |recent: &Value| drift_value(&artifact, recent, &TestSha256, &now, Naming::Js).unwrap();
    let fresh = drift(&labelled(runs(100, 5, 97, 600), branch));
    assert_eq!(fresh.get("status").and_then(Value::as_str), Some("fresh"), "{fresh:?}");
    // A label calibration never saw.
    let unseen = drift(&labelled(runs(100, 5, 97, 600), |_| Some("feature/x")));
    assert_eq!(unseen.get("status").and_then(Value::as_str), Some("drifted"));
    let Some(Value::Array(reasons)) = unseen.get("reasons") else { panic!() };
    assert_eq!(reasons[0].get("kind").and_then(Value::as_str), Some("label"), "{reasons:?}");
    assert_eq!(reasons[0].get("label").and_then(Value::as_str), Some("feature/x"));
    // release's builds now fail every time (unit on every run), main's as before: release
    // drifts by its failure rate; each stage set and the labels seen are known.
    let recent = labelled(runs(60, 0, 0, 600), |_| Some("main"));
    let Value::Array(mut all) = recent else { panic!() };
    let Value::Array(failing) = labelled(runs(60, 1, 0, 600), |_| Some("release")) else { panic!() };
    all.extend(failing);
    let moved = drift(&Value::Array(all));
    let Some(Value::Array(reasons)) = moved.get("reasons") else { panic!() };
    let kinds: Vec<_> = reasons.iter().map(|r| r.get("kind").and_then(Value::as_str).unwrap()).collect();
    let release = reasons.iter().find(|r| r.get("label").and_then(Value::as_str) == Some("release")).unwrap();
    assert_eq!(release.get("kind").and_then(Value::as_str), Some("label_failure_rate"), "{kinds:?}");
    let message = release.get("message").and_then(Value::as_str).unwrap();
    assert!(message.starts_with("label 'release': failing runs 60 of 60 recent runs (1)"), "{message}");
}

#[test]
fn labels_are_validated_where_runs_and_live_runs_take_them() {
    for (label, kind) in [
        (Value::Number(3.0), "type"),
        (Value::string(""), "range"),
        (Value::string("   "), "range"),
        (Value::string("a\nb"), "range"),
        (Value::string("x".repeat(129)), "range"),
    ] {
        let corpus = Value::Array(vec![Value::object(vec![
            (
                "layers",
                Value::Array(vec![Value::object(vec![
                    ("durationMs", Value::Number(1.0)),
                    ("failed", Value::Bool(false)),
                ])]),
            ),
            ("label", label.clone()),
        ])]);
        let err = parse_runs(&corpus, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_replay", "runs[0].label", kind));
        let options = Value::object(vec![("policy", Value::string("fail_fast")), ("label", label)]);
        let err = earlyexit::pyramid::policy::RunOptions::from_values(&options, &Value::Null, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_config", "label", kind));
    }
    let longest = Value::string("é".repeat(128));
    let options = Value::object(vec![("policy", Value::string("fail_fast")), ("label", longest)]);
    assert!(earlyexit::pyramid::policy::RunOptions::from_values(&options, &Value::Null, Naming::Js).is_ok());
}

fn promoted() -> Value {
    let answer = promote_value(
        &calibrated(),
        &runs(400, 5, 97, 600),
        &TestSha256,
        &Value::Number((JAN_1 + DAY) as f64),
        Naming::Js,
    )
    .unwrap();
    assert_eq!(answer.get("promoted"), Some(&Value::Bool(true)));
    answer.get("artifact").unwrap().clone()
}

fn live_at(policy: &Value, extra: Vec<(&str, Value)>, clock: Option<i64>) -> earlyexit::TestPyramidResult {
    use earlyexit::pyramid::policy::LiveRun;
    use earlyexit::{Action, LayerResult};
    let mut options = vec![("policy", policy.clone())];
    options.extend(extra);
    let layers = Value::Array(
        ["unit", "integration", "e2e"]
            .iter()
            .map(|n| Value::object(vec![("name", Value::string(*n)), ("costMs", Value::Number(10.0))]))
            .collect(),
    );
    let mut run = LiveRun::start_value_at(
        &Value::Null,
        &Value::Number(3.0),
        &layers,
        &Value::object(options),
        &Value::Null,
        Naming::Js,
        earlyexit::artifact::HostServices { clock_ms: clock, sha256: Some(&TestSha256) },
    )
    .unwrap();
    while let Action::Run(layer) = run.next() {
        run.submit(layer, LayerResult::new(1.0, 1.0, 0.0)).unwrap();
    }
    let back = LiveRun::from_snapshot(&run.to_snapshot()).unwrap();
    assert_eq!(back.result().unwrap(), run.result().unwrap(), "the fallback survives the snapshot");
    run.result().unwrap()
}

#[test]
fn an_expired_enforced_artifact_runs_in_shadow_and_says_when_it_expired() {
    let promoted = promoted();
    let reason = |r: earlyexit::TestPyramidResult| {
        r.shadow.and_then(|s| s.get("reason").and_then(Value::as_str).map(str::to_string))
    };
    // Before the expiry (2026-01-31T00:00:00.000Z): enforced, by `now` or by the host clock.
    assert_eq!(reason(live_at(&promoted, vec![("now", Value::Number((JAN_1 + DAY) as f64))], None)), None);
    assert_eq!(reason(live_at(&promoted, vec![], Some(JAN_1 + 29 * DAY))), None);
    // At or after it: shadow, saying when it expired and the time it was checked at.
    let at_now = reason(live_at(&promoted, vec![("now", Value::string("2026-02-02T00:00:00Z"))], None)).unwrap();
    assert_eq!(
        at_now,
        "the artifact expired at 2026-01-31T00:00:00.000Z (now 2026-02-02T00:00:00.000Z): running in shadow mode (calibrate again)"
    );
    let by_clock = reason(live_at(&promoted, vec![], Some(JAN_1 + 30 * DAY))).unwrap();
    assert!(by_clock.contains("expired at 2026-01-31T00:00:00.000Z (now 2026-01-31T00:00:00.000Z)"), "{by_clock}");
    // `now` given wins over the clock.
    assert_eq!(reason(live_at(&promoted, vec![("now", Value::Number(JAN_1 as f64))], Some(JAN_1 + 40 * DAY))), None);
    // Asked for shadow: the reason is the request, expired or not.
    let asked = live_at(&promoted, vec![("mode", Value::string("shadow"))], Some(JAN_1 + 40 * DAY));
    assert_eq!(reason(asked).as_deref(), Some("requested"));
    // An expired artifact that was never promoted says it expired (the reason to calibrate).
    let plain = reason(live_at(&calibrated(), vec![], Some(JAN_1 + 40 * DAY))).unwrap();
    assert!(plain.starts_with("the artifact expired at"), "{plain}");
}

#[test]
fn now_is_checked_and_read_only_with_an_artifact() {
    use earlyexit::pyramid::policy::RunOptions;
    let check =
        |options: Vec<(&str, Value)>| RunOptions::from_values(&Value::object(options), &Value::Null, Naming::Js);
    let err = check(vec![("policy", Value::string("fail_fast")), ("now", Value::Number(1.0))]).unwrap_err();
    assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_config", "now", "range"));
    let err = check(vec![("now", Value::Number(1.0))]).unwrap_err();
    assert_eq!(err.field(), "now");
    for (bad, kind) in
        [(Value::string("tomorrow"), "range"), (Value::Number(1.5), "range"), (Value::Bool(true), "type")]
    {
        let err = check(vec![("policy", calibrated()), ("now", bad)]).unwrap_err();
        assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_config", "now", kind));
    } // No clock and no `now`: an enforced artifact is refused rather than enforced unchecked;
      // shadow mode needs no time.
    let err = check(vec![("policy", calibrated())]).unwrap_err();
    assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_config", "now", "type"));
    assert!(err.message().contains("expiry"), "{}", err.message());
    assert!(check(vec![("policy", calibrated()), ("mode", Value::string("shadow"))]).is_ok());
}

/// `doc` with the value at `path` (object keys) replaced by `new` (added when missing).
fn with(doc: &Value, path: &[&str], new: Value) -> Value {
    let mut out = doc.clone();
    let mut at = &mut out;
    for (i, key) in path.iter().enumerate() {
        let Value::Object(entries) = at else { panic!("{key} is not in an object") };
        if i + 1 == path.len() {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = new,
                None => entries.push(((*key).to_string(), new)),
            }
            return out;
        }
        at = &mut entries.iter_mut().find(|(k, _)| k == key).unwrap().1;
    }
    out
}

/// The run options' error for `policy` (a live run a day in, with the host's SHA-256).
fn refused(policy: &Value) -> earlyexit::Error {
    let options = Value::object(vec![("policy", policy.clone()), ("now", Value::Number((JAN_1 + DAY) as f64))]);
    let host = earlyexit::artifact::HostServices { clock_ms: None, sha256: Some(&TestSha256) };
    earlyexit::pyramid::policy::RunOptions::from_values_at(&options, &Value::Null, Naming::Js, host).unwrap_err()
}

#[test]
fn a_promotion_is_the_artifacts_own_and_its_figures_hold() {
    let promoted = promoted();
    let promotion = promoted.get("promotion").unwrap().clone();
    assert!(promotion.get("artifactSha256").and_then(Value::as_str).is_some_and(|d| d.len() == 64));
    assert_eq!(promoted.get("schemaVersion").and_then(Value::as_f64), Some(2.0));
    // Another artifact (calibrated on other runs), unpromoted, with this promotion pasted in.
    let other = calibrated_on(&labelled(runs(600, 5, 97, 0), |_| Some("main")));
    let pasted = with(&other, &["promotion"], promotion.clone());
    let err = refused(&pasted);
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "policy.promotion.artifactSha256"), "{}", err.message());
    let err = read_pyramid_artifact(&pasted, &TestSha256).err().unwrap();
    assert_eq!(err.field(), "promotion.artifactSha256");
    let now = Value::Number((JAN_1 + 2 * DAY) as f64);
    let err = drift_value(&pasted, &runs(10, 5, 97, 600), &TestSha256, &now, Naming::Js).unwrap_err();
    assert_eq!(err.field(), "promotion.artifactSha256");
    // The promoted artifact edited afterwards (its risk raised): the digest no longer matches.
    let edited = with(&promoted, &["risk"], Value::Number(0.3));
    assert_eq!(refused(&edited).field(), "policy.promotion.artifactSha256");
    // A promotion whose upper bound exceeds the risk (0.2).
    let high = with(&promoted, &["promotion", "upperBound"], Value::Number(0.99));
    let err = refused(&high);
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "policy.promotion.upperBound"), "{}", err.message());
    // Without the host's SHA-256 a promotion cannot be checked: refused, not trusted.
    let options = Value::object(vec![("policy", promoted.clone()), ("now", Value::Number((JAN_1 + DAY) as f64))]);
    let err = earlyexit::pyramid::policy::RunOptions::from_values(&options, &Value::Null, Naming::Js).unwrap_err();
    assert_eq!(err.field(), "policy.promotion", "{}", err.message());
    // Promoting again records the digest of the artifact without its earlier promotion.
    let again = promote_value(&promoted, &runs(400, 5, 97, 600), &TestSha256, &now, Naming::Js).unwrap();
    assert_eq!(
        again.get("artifact").and_then(|a| a.get("promotion")).and_then(|p| p.get("artifactSha256")),
        promotion.get("artifactSha256")
    );
}

#[test]
fn the_copies_of_a_policy_in_an_artifact_must_agree_with_its_certificate() {
    let answer = calibrated();
    let budget = answer.get("riskBudget").and_then(Value::as_f64).unwrap();
    assert!(budget > 0.0 && budget < 0.99, "{budget}");
    // The envelope's budget raised above the certified one (0.99 against the certificate's).
    let raised = with(&answer, &["policy", "config", "riskBudget"], Value::Number(0.99));
    let err = refused(&raised);
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "policy.policy.config.riskBudget"), "{}", err.message());
    let envelope = read_pyramid_artifact(&answer, &TestSha256).unwrap().artifact.to_value();
    let err =
        read_pyramid_artifact(&with(&envelope, &["policy", "config", "riskBudget"], Value::Number(0.99)), &TestSha256)
            .err()
            .unwrap();
    assert_eq!(err.field(), "policy.config.riskBudget");
    // A more conservative budget is covered by the certificate.
    assert!(read_pyramid_artifact(
        &with(&envelope, &["policy", "config", "riskBudget"], Value::Number(0.0)),
        &TestSha256
    )
    .is_ok());
    // The answer's copies beside the envelope.
    for (path, new, field) in [
        (vec!["riskBudget"], Value::Number(0.99), "riskBudget"),
        (vec!["config", "reorder"], Value::Bool(false), "config.reorder"),
        (vec!["steps"], Value::Array(vec![]), "steps"),
    ] {
        let err = read_pyramid_artifact(&with(&answer, &path, new), &TestSha256).err().unwrap();
        assert_eq!((err.code(), err.field()), ("invalid_artifact", field), "{}", err.message());
    }
    let Some(Value::Array(steps)) = answer.get("steps") else { panic!() };
    let flipped = with(&steps[0], &["certified"], Value::Bool(!steps[0].get("certified").unwrap().as_bool().unwrap()));
    let mut all = steps.clone();
    all[0] = flipped;
    let err = read_pyramid_artifact(&with(&answer, &["steps"], Value::Array(all)), &TestSha256).err().unwrap();
    assert_eq!(err.field(), "steps[0].certified", "{}", err.message());
}
