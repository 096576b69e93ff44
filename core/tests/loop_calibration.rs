//! Learn-then-Test calibration of loop policies: a small corpus whose certificate is checked
//! by hand, the honesty rules (too few tasks, nothing certifiable, repeated ids, mixed
//! families), bad input, and the frontier agreeing with the replay figure for figure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit::loops::replay::{family_path, min_tasks};
use earlyexit::loops::replay::{
    calibrate_loop_policy, replay_loops, CalibrationStatus, LoopCalibrationPlan, LoopCalibrationRequest, LoopPolicy,
    ReplayIteration, ReplayRun,
};
use earlyexit::loops::Observation;
use earlyexit::{ErrorCode, Naming, Value, VerificationStatus};

mod test_sha256;
use test_sha256::TestSha256;

fn run(id: &str, dataset: Option<&str>, qualities: &[f64]) -> ReplayRun {
    let mut previous = None;
    let iterations = qualities
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let delta = previous.map_or(0.0, |p| q - p);
            previous = Some(q);
            let passed = q >= 100.0;
            ReplayIteration {
                observation: Observation {
                    iteration: i as u64 + 1,
                    quality_score: q,
                    confidence: q / 100.0,
                    quality_delta: delta,
                    verification_status: if passed { VerificationStatus::Passed } else { VerificationStatus::Failed },
                },
                usage: None,
                good: Some(passed),
                behavior: None,
            }
        })
        .collect();
    ReplayRun { id: id.into(), dataset: dataset.map(Into::into), split: None, iterations }
}

/// 100 tasks: 94 pass at once, 4 pass on the 4th iteration after three zeros, 2 on the 3rd
/// after two zeros. The simple rule with patience k stops the first kind prematurely when
/// k <= 2 and the second when k <= 1.
fn hand_corpus() -> Vec<ReplayRun> {
    let mut runs = Vec::new();
    for i in 0..94 {
        runs.push(run(&format!("once-{i}"), None, &[100.0]));
    }
    for i in 0..4 {
        runs.push(run(&format!("late4-{i}"), None, &[0.0, 0.0, 0.0, 100.0]));
    }
    for i in 0..2 {
        runs.push(run(&format!("late3-{i}"), None, &[0.0, 0.0, 100.0]));
    }
    runs
}

fn simple_path(ks: &[u64]) -> Vec<(f64, LoopPolicy)> {
    ks.iter().enumerate().map(|(i, &k)| (i as f64, LoopPolicy::simple_rule(k))).collect()
}

fn request(risk: f64, delta: f64, path: Vec<(f64, LoopPolicy)>) -> LoopCalibrationRequest {
    LoopCalibrationRequest { risk, delta, path, family: false, valid_days: 30 }
}

#[test]
fn the_certificate_of_a_small_corpus_checks_by_hand() {
    let c = calibrate_loop_policy(&hand_corpus(), &request(0.05, 0.1, simple_path(&[4, 3, 2, 1]))).unwrap();
    let premature: Vec<u64> = c.frontier.iter().map(|r| r.figures.premature_tasks).collect();
    assert_eq!(premature, [0, 0, 4, 6]);
    // p = P(Binomial(100, 0.05) <= k): 0.95^100 for k = 0, 0.43598... for k = 4.
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(c.frontier[0].p_value, 0.005_920_529_220_333_997_5), "{}", c.frontier[0].p_value);
    assert!(close(c.frontier[1].p_value, 0.005_920_529_220_333_997_5));
    assert!(close(c.frontier[2].p_value, 0.435_981_300_685_710_06), "{}", c.frontier[2].p_value);
    assert!(close(c.frontier[3].p_value, 0.766_013_984_014_828_8), "{}", c.frontier[3].p_value);
    let tested: Vec<(bool, bool)> = c.frontier.iter().map(|r| (r.tested, r.rejected)).collect();
    // Fixed sequence: k = 4, 3 rejected; k = 2 not, so k = 1 is never tested.
    assert_eq!(tested, [(true, true), (true, true), (true, false), (false, false)]);
    assert_eq!((c.status, c.chosen, c.tasks), (CalibrationStatus::Certified, 1, 100));
    assert_eq!(c.policy, LoopPolicy::simple_rule(3));
    let value = c.to_value();
    assert_eq!(value.get("certified"), Some(&Value::Bool(true)));
    let hypotheses = value.get("certificate").and_then(|v| v.get("hypotheses")).unwrap();
    let Value::Array(hypotheses) = hypotheses else { panic!() };
    assert_eq!(hypotheses.len(), 3, "only the tested hypotheses");
}

#[test]
fn too_few_tasks_certify_nothing_and_say_so() {
    assert_eq!(min_tasks(0.025, 0.1), 91);
    assert_eq!(min_tasks(0.1, 0.1), 22);
    let runs: Vec<ReplayRun> = (0..90).map(|i| run(&i.to_string(), None, &[0.0, 100.0])).collect();
    let c = calibrate_loop_policy(&runs, &LoopCalibrationRequest::new(0.025, 0.1)).unwrap();
    assert_eq!(c.status, CalibrationStatus::TooFewRuns);
    assert!(!c.certified());
    assert!(c.frontier.iter().all(|r| !r.tested));
    assert_eq!(c.policy, family_path(100)[0].1, "the most conservative policy");
    assert!(c.message().contains("needs at least 91"), "{}", c.message());
    // One more task and no premature stop: certified.
    let mut runs = runs;
    runs.push(run("90", None, &[0.0, 100.0]));
    let c = calibrate_loop_policy(&runs, &LoopCalibrationRequest::new(0.025, 0.1)).unwrap();
    assert_eq!(c.status, CalibrationStatus::Certified);
}

#[test]
fn a_path_whose_first_policy_fails_returns_it_uncertified() {
    // Every late run is stopped prematurely by k = 1: 6 of 100 at risk 0.03 is not certified.
    let c = calibrate_loop_policy(&hand_corpus(), &request(0.03, 0.1, simple_path(&[1, 2]))).unwrap();
    assert_eq!((c.status, c.chosen), (CalibrationStatus::NotCertified, 0));
    assert!(!c.frontier[1].tested);
    assert!(c.message().starts_with("cannot certify"), "{}", c.message());
}

#[test]
fn repeated_ids_count_as_one_task() {
    let mut runs = hand_corpus();
    // The late tasks again: 106 runs, still 100 tasks; a task is premature if any run is.
    runs.extend(hand_corpus().into_iter().skip(94));
    let c = calibrate_loop_policy(&runs, &request(0.05, 0.1, simple_path(&[2]))).unwrap();
    assert_eq!((c.runs, c.tasks), (106, 100));
    assert_eq!((c.frontier[0].figures.premature_runs, c.frontier[0].figures.premature_tasks), (8, 4));
    assert!(c.warnings.iter().any(|w| w.contains("repeat task ids")), "{:?}", c.warnings);
}

#[test]
fn mixed_families_are_warned_about() {
    let mut runs = Vec::new();
    for i in 0..40 {
        runs.push(run(&i.to_string(), Some("easy"), &[100.0]));
        runs.push(run(&i.to_string(), Some("hard"), &[0.0, 0.0, 100.0]));
    }
    let c = calibrate_loop_policy(&runs, &LoopCalibrationRequest::new(0.1, 0.1)).unwrap();
    assert_eq!(c.tasks, 80, "the dataset is part of a task's key");
    assert!(c.warnings.iter().any(|w| w.contains("more than one task family")), "{:?}", c.warnings);
    let same: Vec<ReplayRun> =
        (0..80).map(|i| run(&i.to_string(), Some(["a", "b"][i % 2]), &[0.0, 0.0, 100.0])).collect();
    let c = calibrate_loop_policy(&same, &LoopCalibrationRequest::new(0.1, 0.1)).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // No run ever good: refused (no premature stop can be observed).
    let never: Vec<ReplayRun> = (0..80).map(|i| run(&i.to_string(), None, &[0.0, 50.0])).collect();
    let err = calibrate_loop_policy(&never, &LoopCalibrationRequest::new(0.1, 0.1)).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_replay", "runs"));
}

#[test]
fn the_frontier_is_the_replay_figure_for_figure() {
    let mut runs = hand_corpus();
    runs.push(run("climb", None, &[10.0, 30.0, 30.0, 60.0, 60.0, 60.0, 90.0, 90.0]));
    let req = LoopCalibrationRequest::new(0.05, 0.1);
    let c = calibrate_loop_policy(&runs, &req).unwrap();
    assert_eq!(c.frontier.len(), req.path.len());
    for row in &c.frontier {
        let s = replay_loops(&runs, &row.policy).unwrap().summary;
        assert_eq!(row.figures.iterations_used, s.iterations_used);
        assert_eq!(row.figures.premature_runs, s.premature_stops);
        assert_eq!(row.figures.returned_good, s.returned_good);
        assert_eq!(row.figures.returned_quality_sum, s.returned_quality_sum);
    }
    // Candidates evaluated in any order (as threads would) give the same answer.
    let plan = LoopCalibrationPlan::new(runs.clone(), req.clone()).unwrap();
    let mut figures: Vec<_> = (0..plan.candidates()).rev().map(|i| (i, plan.evaluate(i).unwrap())).collect();
    figures.sort_by_key(|f| f.0);
    assert_eq!(plan.finish(figures.into_iter().map(|f| f.1).collect()).unwrap(), c);
}

#[test]
fn bad_requests_are_typed_errors_naming_the_field() {
    let runs = hand_corpus();
    for (risk, delta, field) in
        [(0.0, 0.1, "risk"), (1.0, 0.1, "risk"), (f64::NAN, 0.1, "risk"), (0.1, 0.0, "delta"), (0.1, 1.5, "delta")]
    {
        let err = calibrate_loop_policy(&runs, &LoopCalibrationRequest::new(risk, delta)).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_config", field), "{risk} {delta}");
    }
    let err = calibrate_loop_policy(&runs, &request(0.1, 0.1, Vec::new())).unwrap_err();
    assert_eq!(err.field(), "candidates");
    assert_eq!(calibrate_loop_policy(&[], &LoopCalibrationRequest::new(0.1, 0.1)).unwrap_err().field(), "runs");
    let options = |json: &str| {
        let v = Value::parse_json(json, ErrorCode::InvalidConfig, "options").unwrap();
        LoopCalibrationRequest::from_options(&v, Naming::Js)
    };
    assert_eq!(options(r#"{"candidates": []}"#).unwrap().path.len(), 0);
    assert_eq!(options(r#"{"steps": 0}"#).unwrap_err().field(), "steps");
    assert_eq!(options(r#"{"risk": "0.1"}"#).unwrap_err().field(), "risk");
    assert_eq!(options(r#"{"riks": 0.1}"#).unwrap_err().field(), "riks");
    assert_eq!(
        options(r#"{"candidates": [{"config": {"floorQuality": 3}}]}"#).unwrap_err().field(),
        "candidates[0].config.floorQuality"
    );
    assert_eq!(options(r#"{"candidates": "seed"}"#).unwrap_err().field(), "candidates");
    // A composed tree is a candidate (the engines built from the artifact run it); a bad one
    // names its path.
    let tree = options(r#"{"candidates": ["seed", {"preset": "seed", "any": ["high_confidence"]}]}"#).unwrap();
    assert!(tree.path[1].1.when.is_some());
    let bad = options(r#"{"candidates": ["seed", {"any": [{"condition": "no_improvement", "patience": 0}]}]}"#);
    let bad = bad.unwrap_err();
    assert_eq!(
        (bad.code(), bad.field(), bad.kind().as_str()),
        ("invalid_config", "candidates[1].any[0].patience", "range")
    );
    let ok = options(r#"{"risk": 0.1, "delta": 0.05, "candidates": ["seed", "recommended"]}"#).unwrap();
    assert_eq!((ok.risk, ok.delta, ok.path.len(), ok.family), (0.1, 0.05, 2, false));
}

#[test]
fn the_artifact_is_the_shared_envelope_and_loads_back_as_the_policy() {
    use earlyexit::artifact::{Artifact, ArtifactKind};
    use earlyexit::kit::loops::replay::calibrate_value;
    use earlyexit::loops::replay::policy_from_artifact;
    let runs = hand_corpus();
    let array = Value::Array(
        runs.iter()
            .map(|r| earlyexit::kit::loops::replay::corpus_value(std::slice::from_ref(r)))
            .map(|v| match v {
                Value::Array(mut a) => a.remove(0),
                other => other,
            })
            .collect(),
    );
    let options = Value::parse_json(
        r#"{"risk": 0.05, "delta": 0.1, "validDays": 30, "candidates": [
            {"config": {"highConfidenceThreshold": 0, "minQualityThreshold": 0, "enablePlateauDetection": false,
             "enableDiminishingReturns": false, "noImprovementPatience": 4}, "returns": "best", "analytics": false},
            {"config": {"highConfidenceThreshold": 0, "minQualityThreshold": 0, "enablePlateauDetection": false,
             "enableDiminishingReturns": false, "noImprovementPatience": 3}, "returns": "best", "analytics": false},
            {"config": {"highConfidenceThreshold": 0, "minQualityThreshold": 0, "enablePlateauDetection": false,
             "enableDiminishingReturns": false, "noImprovementPatience": 2}, "returns": "best", "analytics": false}]}"#,
        ErrorCode::InvalidConfig,
        "options",
    )
    .unwrap();
    let now = 1_767_225_600_000; // 2026-01-01T00:00:00.000Z
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    let value = calibrate_value(&array, &options, Naming::Js, &TestSha256, now, &sequential).unwrap();
    let artifact = Artifact::from_value(&value).unwrap();
    assert_eq!(artifact.kind, ArtifactKind::Loop);
    assert_eq!(
        (artifact.created_at.as_str(), artifact.expires_at.as_str()),
        ("2026-01-01T00:00:00.000Z", "2026-01-31T00:00:00.000Z")
    );
    let events: Vec<(u64, u64, bool)> =
        artifact.certificate.hypotheses.iter().map(|h| (h.trials, h.events, h.rejected)).collect();
    assert_eq!(events, [(100, 0, true), (100, 0, true), (100, 4, false)]);
    assert_eq!(artifact.body.get("certified"), Some(&Value::Bool(true)));
    // The same runs as JSONL text digest alike.
    let text = match &array {
        Value::Array(items) => items.iter().map(Value::to_json).collect::<Vec<_>>().join("\n"),
        _ => unreachable!(),
    };
    let again =
        calibrate_value(&Value::string(text.as_str()), &options, Naming::Js, &TestSha256, now, &sequential).unwrap();
    assert_eq!(again.get("corpusSha256"), value.get("corpusSha256"));
    // Loads back as the chosen policy (k = 3), from the value or its text.
    let policy = policy_from_artifact(&value, now, &TestSha256).unwrap();
    assert_eq!(policy, LoopPolicy::simple_rule(3));
    assert_eq!(policy_from_artifact(&Value::string(value.to_json().as_str()), now, &TestSha256).unwrap(), policy);
    // An engine enforces it only once promoted: unpromoted, it enforces the calibration's most
    // conservative policy (k = 4) and runs the calibrated one (k = 3) in shadow.
    let engine = earlyexit::EarlyStopping::from_calibration(&value, now, &TestSha256).unwrap();
    assert_eq!(engine.config().no_improvement_patience, Some(4));
    assert_eq!(engine.shadow().map(|s| &s.candidate().policy), Some(&policy));
    assert!(engine.shadow_reason().is_some_and(|r| r.contains("not promoted")));
    // Expired, or of the other kind: refused, naming the field.
    let expired = policy_from_artifact(&value, now + 30 * 86_400_000, &TestSha256).unwrap_err();
    assert_eq!((expired.code(), expired.field()), ("invalid_artifact", "expiresAt"));
    let pyramid = Value::string(value.to_json().replace(r#""kind":"loop""#, r#""kind":"pyramid""#).as_str());
    assert_eq!(policy_from_artifact(&pyramid, now, &TestSha256).unwrap_err().field(), "kind");
    // A pyramid calibration answer (the envelope and its figures, e.g. `riskBudget`): the kind.
    let answer = value.to_json().replace(r#""kind":"loop""#, r#""riskBudget":0.01,"kind":"pyramid""#);
    let err = policy_from_artifact(&Value::string(answer.as_str()), now, &TestSha256).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "kind"), "{err}");
    let bad =
        Value::string(value.to_json().replace(r#""noImprovementPatience":3"#, r#""noImprovementPatience":0"#).as_str());
    assert_eq!(
        policy_from_artifact(&bad, now, &TestSha256).unwrap_err().field(),
        "policy.config.noImprovementPatience"
    );
}

/// Composed candidates: the family's configs written as their condition trees calibrate to
/// the very same certificate and frontier (one mechanism), and the artifact holds the chosen
/// tree, which `from_calibration` runs as the engine's stop policy.
#[test]
fn composed_candidates_calibrate_as_their_configs_and_the_engine_runs_the_tree() {
    use earlyexit::kit::loops::replay::calibrate_value;
    use earlyexit::loops::replay::policy_from_artifact;
    use earlyexit::loops::StopCondition;
    let runs = hand_corpus();
    let array = Value::Array(
        runs.iter()
            .map(|r| earlyexit::kit::loops::replay::corpus_value(std::slice::from_ref(r)))
            .map(|v| match v {
                Value::Array(mut a) => a.remove(0),
                other => other,
            })
            .collect(),
    );
    let path = |tree: bool| {
        let candidates = (2..=4)
            .rev()
            .map(|k| {
                let mut policy = LoopPolicy::simple_rule(k);
                if tree {
                    policy.when = Some(StopCondition::from_config(&policy.config));
                }
                policy.to_value(Naming::Js)
            })
            .collect();
        Value::object(vec![
            ("risk", Value::Number(0.05)),
            ("delta", Value::Number(0.1)),
            ("candidates", Value::Array(candidates)),
        ])
    };
    let now = 1_767_225_600_000;
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    let configs = calibrate_value(&array, &path(false), Naming::Js, &TestSha256, now, &sequential).unwrap();
    let trees = calibrate_value(&array, &path(true), Naming::Js, &TestSha256, now, &sequential).unwrap();
    assert_eq!(trees.get("certificate"), configs.get("certificate"));
    let frontier = |v: &Value| v.get("body").and_then(|b| b.get("frontier")).unwrap().to_json();
    assert!(frontier(&trees).contains(r#""any":["#), "{}", frontier(&trees));
    let chosen = policy_from_artifact(&trees, now, &TestSha256).unwrap();
    assert_eq!(chosen.config, LoopPolicy::simple_rule(3).config);
    let tree = chosen.when.clone().unwrap();
    assert_eq!(tree, StopCondition::from_config(&chosen.config));
    assert!(trees.get("policy").and_then(|p| p.get("any")).is_some());
    // Unpromoted, the engine enforces the most conservative tree (k = 4), the chosen one in shadow.
    let mut engine = earlyexit::EarlyStopping::from_calibration(&trees, now, &TestSha256).unwrap();
    let conservative = {
        let mut policy = LoopPolicy::simple_rule(4);
        policy.when = Some(StopCondition::from_config(&policy.config));
        policy
    };
    assert_eq!(engine.policy().map(|p| &p.when), conservative.when.as_ref());
    assert_eq!(engine.shadow().and_then(|s| s.candidate().policy.when.as_ref()), Some(&tree));
    let config_only = earlyexit::EarlyStopping::from_calibration(&configs, now, &TestSha256).unwrap();
    assert!(config_only.policy().is_none());
    // The engine decides under the tree: its decisions list what fired (k = 4: at the fifth).
    for i in 1..=5 {
        let r = earlyexit::IterationResult::new(10.0, 0.1, VerificationStatus::Failed, 0.0);
        engine.record(i, r, || "2026-01-01T00:00:00.000Z".into()).unwrap();
    }
    let decision = engine.should_stop();
    assert!(decision.stop && decision.fired.is_some(), "{decision:?}");
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

/// The hand corpus's first `n` runs calibrated on the simple rule k = 4, 3, 2 (risk 0.05,
/// delta 0.1) at 2026-01-01, as the artifact value.
fn hand_artifact(n: usize) -> Value {
    let runs = &hand_corpus()[..n];
    let array = earlyexit::kit::loops::replay::corpus_value(runs);
    let candidates = Value::Array((2..=4).rev().map(|k| LoopPolicy::simple_rule(k).to_value(Naming::Js)).collect());
    let options =
        Value::object(vec![("risk", Value::Number(0.05)), ("delta", Value::Number(0.1)), ("candidates", candidates)]);
    let sequential = |plan: &LoopCalibrationPlan| plan.evaluate_all();
    earlyexit::kit::loops::replay::calibrate_value(
        &array,
        &options,
        Naming::Js,
        &TestSha256,
        1_767_225_600_000,
        &sequential,
    )
    .unwrap()
}

#[test]
fn a_loop_artifacts_copies_and_flags_must_agree_with_its_policy_and_certificate() {
    use earlyexit::loops::replay::policy_from_artifact;
    let now = 1_767_225_600_000;
    let check = |artifact: &Value| policy_from_artifact(artifact, now, &TestSha256);
    let certified = hand_artifact(100);
    assert_eq!(certified.get("body").and_then(|b| b.get("status")).and_then(Value::as_str), Some("certified"));
    assert!(check(&certified).is_ok());
    // The envelope's policy no longer the body's (and the chosen frontier row's): refused,
    // naming the envelope's field, the one that would run.
    let Some(Value::Object(config)) = certified.get("policy").and_then(|p| p.get("config")) else { panic!() };
    let (key, _) = config.iter().find(|(k, _)| k == "maxIterations" || k == "noImprovementPatience").unwrap();
    let tampered = with(&certified, &["policy", "config", key.as_str()], Value::Number(1000.0));
    let err = check(&tampered).unwrap_err();
    let field = format!("policy.config.{key}");
    assert_eq!((err.code(), err.field()), ("invalid_artifact", field.as_str()), "{}", err.message());
    assert!(err.message().contains("body.policy"), "{}", err.message());
    let err = earlyexit::EarlyStopping::from_calibration(&tampered, now, &TestSha256).unwrap_err();
    assert_eq!(err.field(), field);
    // The body's copies of the risk and delta, and its certified flag and status.
    for (path, new, field) in [
        (vec!["body", "risk"], Value::Number(0.5), "body.risk"),
        (vec!["body", "delta"], Value::Number(0.5), "body.delta"),
        (vec!["body", "certified"], Value::Bool(false), "body.certified"),
        (vec!["body", "status"], Value::string("too_few_runs"), "body.status"),
        (vec!["body", "certificate", "certified"], Value::Bool(false), "body.certificate.certified"),
    ] {
        let err = check(&with(&certified, &path, new)).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_artifact", field), "{}", err.message());
    }
    // `certified: true` on an artifact with too few runs.
    let few = hand_artifact(10);
    assert_eq!(few.get("body").and_then(|b| b.get("status")).and_then(Value::as_str), Some("too_few_runs"));
    assert!(check(&few).is_ok());
    let claimed =
        with(&with(&few, &["body", "certified"], Value::Bool(true)), &["body", "status"], Value::string("certified"));
    let err = check(&claimed).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_artifact", "body.certified"), "{}", err.message());
    // A promotion (of another artifact) pasted into a loop artifact.
    let upper = earlyexit::artifact::clopper_pearson_upper(0, 50, 0.1);
    let promotion = Value::object(vec![
        ("promotedAt", Value::string("2026-01-02T00:00:00Z")),
        ("auditCorpusSha256", Value::string("b".repeat(64))),
        ("auditRuns", Value::Number(50.0)),
        ("trials", Value::Number(50.0)),
        ("events", Value::Number(0.0)),
        ("upperBound", Value::Number(upper)),
        ("method", Value::string("clopper-pearson")),
        ("artifactSha256", Value::string("c".repeat(64))),
    ]);
    let pasted = with(&certified, &["promotion"], promotion.clone());
    assert_eq!(check(&pasted).unwrap_err().field(), "promotion.artifactSha256");
    let own = earlyexit::artifact::Artifact::from_value(&certified).unwrap().unpromoted_sha256(&TestSha256).unwrap();
    let promoted = with(&pasted, &["promotion", "artifactSha256"], Value::string(own));
    assert!(check(&promoted).is_ok());
}
