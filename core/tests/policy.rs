//! Composed stop policies: every config is a condition tree that decides exactly as the
//! config does (same decisions, same calls to the outside source), the JSON form reads back
//! equal and names the path of a bad value, and the combinators fire as documented.

use std::cell::Cell;

use earlyexit::loops::policy::{decide_policy, PolicyState, StopCondition, StopPolicy};
use earlyexit::loops::replay::runs_from_value;
use earlyexit::loops::replay::{replay_loops, LoopPolicy};
use earlyexit::loops::{ConditionKind, ReportedIteration};
use earlyexit::{
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, ErrorCode, IterationResult, Naming, Trigger, Value,
    VerificationStatus,
};

const NOW: fn() -> String = || "2026-01-01T00:00:00.000Z".to_string();

mod test_rng;
use test_rng::Rng;

fn configs() -> Vec<EarlyStoppingConfig> {
    let base = EarlyStoppingConfig::default();
    vec![
        base.clone(),
        EarlyStoppingConfig::recommended(),
        EarlyStoppingConfig {
            min_iterations: Some(3),
            max_iterations: Some(9),
            max_total_tokens: Some(900.0),
            max_wall_clock_ms: Some(4000.0),
            regression_tolerance: Some(5.0),
            regression_patience: Some(2),
            no_improvement_patience: Some(4),
            plateau_min_quality: Some(50.0),
            ..base.clone()
        },
        EarlyStoppingConfig {
            require_verification: false,
            enable_plateau_detection: false,
            max_total_cost_usd: Some(0.5),
            regression_tolerance: Some(1.0),
            ..base.clone()
        },
        EarlyStoppingConfig {
            plateau_consecutive_count: 5,
            plateau_improvement_threshold: 2.0,
            plateau_mode: Some(earlyexit::loops::PlateauMode::Absolute),
            plateau_delta_source: Some(earlyexit::loops::PlateauDeltaSource::Computed),
            enable_diminishing_returns: false,
            min_iterations: Some(2),
            ..base.clone()
        },
        // The floor patience rule: its own patience while the best is at or below the floor,
        // longer and shorter than the no-improvement patience above it, and alone.
        EarlyStoppingConfig {
            no_improvement_patience: Some(2),
            floor_patience: Some(5),
            floor_quality: Some(45.0),
            ..base.clone()
        },
        EarlyStoppingConfig {
            no_improvement_patience: Some(6),
            floor_patience: Some(2),
            floor_quality: Some(40.0),
            enable_plateau_detection: false,
            ..base.clone()
        },
        EarlyStoppingConfig { floor_patience: Some(3), floor_quality: Some(50.0), ..base },
    ]
}

fn result(rng: &mut Rng, previous: f64) -> IterationResult {
    let quality = (previous + rng.below(21) as f64 - 8.0).clamp(0.0, 100.0);
    let status =
        [VerificationStatus::Passed, VerificationStatus::Failed, VerificationStatus::Skipped][rng.below(3) as usize];
    let mut r = IterationResult::new(quality, rng.below(101) as f64 / 100.0, status, quality - previous);
    if rng.below(4) != 0 {
        r.usage.tokens_used = Some(rng.below(200) as f64);
    }
    if rng.below(3) != 0 {
        r.usage.token_cost_usd = Some(rng.below(10) as f64 / 100.0);
        r.usage.execution_time_ms = Some(rng.below(900) as f64);
    }
    r
}

/// The tree of each config decides exactly as the config: same decision object (but the
/// `fired` key), and the outside source asked at the same decisions.
#[test]
fn every_config_is_a_tree_that_decides_the_same() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for config in configs() {
        for _ in 0..60 {
            let mut plain = EarlyStopping::new(config.clone()).unwrap();
            let mut composed = EarlyStopping::new(config.clone()).unwrap();
            composed.set_policy(Some(StopPolicy::from_config(&config)));
            let (plain_calls, composed_calls) = (Cell::new(0), Cell::new(0));
            let mut previous = rng.below(60) as f64;
            for iteration in 1..=14 {
                let r = result(&mut rng, previous);
                previous = r.quality_score;
                plain.record(iteration, r.clone(), NOW).unwrap();
                composed.record(iteration, r, NOW).unwrap();
                let detected = rng.below(5) == 0;
                let report = move || DiminishingReturnsReport {
                    detected,
                    iteration: ReportedIteration::At(iteration),
                    reason: "flat".into(),
                };
                let a = plain
                    .should_stop_with(Some(|| {
                        plain_calls.set(plain_calls.get() + 1);
                        Ok::<_, ()>(report())
                    }))
                    .unwrap();
                let b = composed
                    .should_stop_with(Some(|| {
                        composed_calls.set(composed_calls.get() + 1);
                        Ok::<_, ()>(report())
                    }))
                    .unwrap();
                let fired = b.fired.clone().unwrap();
                assert_eq!(fired.len(), usize::from(b.stop), "{fired:?}");
                if let Some(first) = fired.first() {
                    assert_eq!(first.condition.trigger(), b.trigger);
                    assert_eq!(first.reason, b.reason);
                }
                assert_eq!(a, earlyexit::StoppingDecision { fired: None, ..b }, "{config:?} at {iteration}");
                assert_eq!(plain_calls.get(), composed_calls.get(), "{config:?} at {iteration}");
            }
        }
    }
}

/// Without a policy a decision has no `fired` key; with one, it lists what fired.
#[test]
fn fired_appears_only_under_a_policy() {
    let mut engine = EarlyStopping::new(EarlyStoppingConfig::default()).unwrap();
    engine.record(1, IterationResult::new(90.0, 0.99, VerificationStatus::Passed, 90.0), NOW).unwrap();
    let plain = engine.should_stop().to_value();
    assert!(plain.get("fired").is_none());
    engine.set_policy(Some(StopPolicy::from_config(&EarlyStoppingConfig::default())));
    let composed = engine.should_stop().to_value();
    assert_eq!(
        composed.get("fired").unwrap().to_json(),
        r#"[{"condition":"high_confidence","path":"any[0]","reason":"High confidence (99.0%) AND verification passed","details":{"confidence":0.99,"quality_score":90,"verification_status":"passed"}}]"#
    );
    let Value::Object(mut entries) = composed else { panic!() };
    entries.pop();
    assert_eq!(Value::Object(entries), plain);
}

fn policy(json: &str) -> LoopPolicy {
    LoopPolicy::from_value(&Value::parse_json(json, ErrorCode::InvalidReplay, "policy").unwrap(), Naming::Js).unwrap()
}

fn engine_with(json: &str, qualities: &[f64]) -> EarlyStopping {
    let mut engine = EarlyStopping::new(EarlyStoppingConfig::default()).unwrap();
    let value = Value::parse_json(json, ErrorCode::InvalidConfig, "policy").unwrap();
    engine.set_policy(Some(LoopPolicy::engine_policy(&value, Naming::Js).unwrap()));
    let mut previous = 0.0;
    for (i, q) in qualities.iter().enumerate() {
        let r = IterationResult::new(*q, 0.5, VerificationStatus::Failed, q - previous);
        previous = *q;
        engine.record(i as u64 + 1, r, NOW).unwrap();
    }
    engine
}

/// `all` fires only when every child fires, and lists each; `k_of` needs k; `not_before`
/// gates with the warm-up reason.
#[test]
fn combinators_fire_as_documented() {
    let flat = [80.0, 80.0, 80.0, 80.0];
    let all =
        r#"{"all": [{"condition": "quality_plateau", "count": 3}, {"condition": "no_improvement", "patience": 3}]}"#;
    let decision = engine_with(all, &flat).should_stop();
    assert!(decision.stop);
    assert_eq!(decision.trigger, Trigger::QualityPlateau);
    let fired = decision.fired.unwrap();
    let kinds: Vec<_> = fired.iter().map(|f| (f.condition, f.path.as_str())).collect();
    assert_eq!(kinds, [(ConditionKind::QualityPlateau, "all[0]"), (ConditionKind::NoImprovement, "all[1]")]);
    assert_eq!(
        decision.reason,
        "Quality plateau detected: 3 consecutive iterations with <2% improvement AND No improvement: 3 consecutive iterations without a new best (80 at iteration 1)"
    );
    // One record short of the patience: the plateau alone does not stop an `all`.
    let decision = engine_with(all, &flat[..3]).should_stop();
    assert!(!decision.stop);
    assert_eq!(decision.fired, Some(vec![]));

    let k_of = r#"{"k_of": 2, "of": ["high_confidence", {"condition": "max_iterations", "limit": 2}, {"condition": "no_improvement", "patience": 1}]}"#;
    let decision = engine_with(k_of, &[70.0, 60.0]).should_stop();
    assert!(decision.stop);
    let paths: Vec<_> = decision.fired.unwrap().iter().map(|f| f.path.clone()).collect();
    assert_eq!(paths, ["of[1]", "of[2]"]);
    assert!(!engine_with(k_of, &[70.0, 75.0]).should_stop().stop);

    let gated = r#"{"not_before": 4, "then": {"any": [{"condition": "no_improvement", "patience": 1}]}}"#;
    let decision = engine_with(gated, &[70.0, 60.0]).should_stop();
    assert_eq!((decision.stop, decision.reason.as_str()), (false, "Warm-up: iteration 2 of 4"));
    let decision = engine_with(gated, &[70.0, 60.0, 50.0, 40.0]).should_stop();
    assert_eq!((decision.stop, decision.trigger), (true, Trigger::NoImprovement));
    assert_eq!(decision.fired.unwrap()[0].path, "then.any[0]");
}

/// An outside source is asked only when evaluation reaches a `diminishing_returns` condition,
/// and at most once per decision.
#[test]
fn the_source_is_asked_lazily() {
    let calls = Cell::new(0);
    let tree = r#"{"any": [{"condition": "max_iterations", "limit": 2}, {"all": ["diminishing_returns", "diminishing_returns"]}]}"#;
    let mut engine = engine_with(tree, &[70.0]);
    let source = || {
        calls.set(calls.get() + 1);
        Ok::<_, ()>(DiminishingReturnsReport { detected: true, iteration: ReportedIteration::Null, reason: "r".into() })
    };
    let decision = engine.should_stop_with(Some(source)).unwrap();
    assert_eq!((decision.stop, calls.get()), (true, 1));
    assert_eq!(decision.fired.unwrap().len(), 2);
    engine.record(2, IterationResult::new(70.0, 0.5, VerificationStatus::Failed, 0.0), NOW).unwrap();
    let decision = engine.should_stop_with(Some(source)).unwrap();
    assert_eq!((decision.trigger, calls.get()), (Trigger::MaxIterations, 1));
}

/// The JSON form reads back equal (the policy value and back), for trees and presets.
#[test]
fn the_json_form_round_trips() {
    let trees = [
        r#"{"preset": "recommended", "any": ["high_confidence", {"condition": "quality_plateau", "count": 4, "mode": "absolute", "threshold": 1.5, "min_quality": 60}]}"#,
        r#"{"returns": "best", "all": [{"condition": "max_total_tokens", "limit": 10}, {"k_of": 1, "of": [{"condition": "quality_regression", "tolerance": 3}]}]}"#,
        r#"{"not_before": 3, "then": {"any": [{"condition": "max_wall_clock_ms", "limit": 5}, {"condition": "max_total_cost_usd", "limit": 0.5}, "diminishing_returns"]}}"#,
        r#"{"preset": "seed"}"#,
        r#"{"preset": "recommended", "config": {"minIterations": 2}, "analytics": true}"#,
        r#"{"any": [{"condition": "floor_patience", "patience": 5, "floor": 40, "above_patience": 2}, {"condition": "floor_patience", "patience": 3}]}"#,
        r#"{"preset": "seed", "config": {"floorPatience": 4, "floorQuality": 30, "noImprovementPatience": 2}}"#,
    ];
    for json in trees {
        let read = policy(json);
        for naming in [Naming::Js, Naming::Snake] {
            let written = read.to_value(naming);
            assert_eq!(LoopPolicy::from_value(&written, naming), Ok(read.clone()), "{json}");
        }
        let when = read.stop_policy().when;
        let again = StopCondition::from_value(&when.to_value(), "", ErrorCode::InvalidReplay).unwrap();
        assert_eq!(again, when);
    }
}

/// Bad input names the path of the bad value, under the argument's code; nothing changes.
#[test]
fn bad_policies_name_the_path() {
    let cases = [
        (
            r#"{"any": ["high_confidence", {"condition": "no_improvement", "patience": 0}]}"#,
            "policy.any[1].patience",
            "range",
        ),
        (r#"{"any": ["high_confidence", {"condition": "no_improvement"}]}"#, "policy.any[1].patience", "type"),
        (r#"{"any": []}"#, "policy.any", "range"),
        (r#"{"any": ["plateau"]}"#, "policy.any[0]", "range"),
        (r#"{"k_of": 3, "of": ["high_confidence", "diminishing_returns"]}"#, "policy.k_of", "range"),
        (r#"{"not_before": 2}"#, "policy.then", "type"),
        (
            r#"{"all": [{"condition": "quality_plateau", "mode": "relative", "threshold": 2}]}"#,
            "policy.all[0].threshold",
            "range",
        ),
        (r#"{"all": [{"condition": "quality_plateau", "patience": 2}]}"#, "policy.all[0].patience", "type"),
        (r#"{"all": [{"any": ["high_confidence"], "extra": 1}]}"#, "policy.all[0].extra", "type"),
        (r#"{"any": ["high_confidence"], "analytics": true}"#, "policy.analytics", "range"),
        (r#"{"anyy": ["high_confidence"]}"#, "policy.anyy", "type"),
        (r#"{"any": [{"condition": "floor_patience", "patience": 2, "floor": 101}]}"#, "policy.any[0].floor", "range"),
        (
            r#"{"any": [{"condition": "floor_patience", "patience": 2, "above_patience": 0}]}"#,
            "policy.any[0].above_patience",
            "range",
        ),
    ];
    for (json, field, kind) in cases {
        let value = Value::parse_json(json, ErrorCode::InvalidConfig, "policy").unwrap();
        let error = LoopPolicy::engine_policy(&value, Naming::Js).unwrap_err();
        // An unknown key is `unknown_option`, as in a config; every other error names the
        // policy's own code.
        let unknown = error.message().contains("unknown option");
        let code = if unknown { "unknown_option" } else { "invalid_config" };
        assert_eq!((error.field(), error.kind().as_str(), error.code()), (field, kind, code), "{json}: {error:?}");
    }
    let deep = format!("{}\"high_confidence\"{}", "{\"any\": [".repeat(40), "]}".repeat(40));
    let value = Value::parse_json(&deep, ErrorCode::InvalidReplay, "policy").unwrap();
    assert_eq!(LoopPolicy::from_value(&value, Naming::Js).unwrap_err().code(), "invalid_replay");
}

/// A replay under the tree of a preset replays exactly as the preset; a composed tree
/// changes where runs stop.
#[test]
fn replay_takes_composed_policies() {
    let mut rng = Rng(42);
    let mut runs = Vec::new();
    for r in 0..40 {
        let mut items = Vec::new();
        let mut q = rng.below(50) as f64;
        for _ in 0..(3 + rng.below(15)) {
            q = (q + rng.below(15) as f64 - 5.0).clamp(0.0, 100.0);
            let status = if rng.below(6) == 0 { "passed" } else { "failed" };
            items.push(format!(
                r#"{{"quality_score": {q}, "confidence": {}, "verification_status": "{status}", "tokens_used": {}}}"#,
                rng.below(100) as f64 / 100.0,
                rng.below(500)
            ));
        }
        runs.push(format!(r#"{{"id": "r{r}", "iterations": [{}]}}"#, items.join(",")));
    }
    let runs = Value::parse_json(&format!("[{}]", runs.join(",")), ErrorCode::InvalidReplay, "runs").unwrap();
    let runs = runs_from_value(&runs, Naming::Snake).unwrap();
    for preset in ["seed", "recommended"] {
        let plain = LoopPolicy::preset(preset).unwrap();
        let tree = LoopPolicy { when: Some(plain.stop_policy().when), ..plain.clone() };
        assert_eq!(replay_loops(&runs, &plain).unwrap(), replay_loops(&runs, &tree).unwrap(), "{preset}");
    }
    // The calibration family's policies set the floor patience rule: their trees replay alike.
    for a in [0.0, 0.4, 0.8, 1.0] {
        let plain = earlyexit::kit::loops::replay::family_policy(a);
        let tree = LoopPolicy { when: Some(plain.stop_policy().when), ..plain.clone() };
        assert_eq!(replay_loops(&runs, &plain).unwrap(), replay_loops(&runs, &tree).unwrap(), "family {a}");
    }
    let composed = policy(
        r#"{"returns": "best", "any": [{"condition": "max_total_tokens", "limit": 1000}, {"all": [{"condition": "no_improvement", "patience": 2}, {"condition": "max_iterations", "limit": 4}]}]}"#,
    );
    let replay = replay_loops(&runs, &composed).unwrap();
    assert!(replay.outcomes.iter().any(|o| o.trigger == Trigger::BudgetExhausted));
    assert!(replay.outcomes.iter().any(|o| o.trigger == Trigger::NoImprovement));
    assert!(replay.outcomes.iter().all(|o| !o.stopped || o.trigger != Trigger::NoImprovement || o.iterations_run >= 4));
}

/// A decision reads O(the tree's windows): the state keeps the longest plateau's count of
/// observations, however long the loop.
#[test]
fn the_state_is_bounded_by_the_windows() {
    let when = StopCondition::from_value(
        &Value::parse_json(
            r#"{"any": [{"condition": "quality_plateau", "count": 7}, "quality_plateau", {"condition": "quality_regression", "tolerance": 2}, {"condition": "quality_regression", "tolerance": 2, "patience": 5}]}"#,
            ErrorCode::InvalidReplay,
            "policy",
        )
        .unwrap(),
        "",
        ErrorCode::InvalidReplay,
    )
    .unwrap();
    let mut state = PolicyState::new(&when);
    let mut engine = EarlyStopping::new(EarlyStoppingConfig::default()).unwrap();
    for i in 1..=10_000u64 {
        let q = (i % 97) as f64;
        engine.record(i, IterationResult::new(q, 0.5, VerificationStatus::Failed, 1.0), NOW).unwrap();
        state.observe(engine.history()[i as usize - 1].observation, None, None, 70.0);
    }
    assert_eq!((state.window.len(), state.window_capacity(), state.streaks.len()), (7, 7, 1));
    let none = None::<fn() -> Result<DiminishingReturnsReport, ()>>;
    assert!(decide_policy(&when, &state, none).is_ok());
}

/// The stateless step (what the JS layer calls) decides as the engine does, the state
/// crossing as JSON, and asks for the source exactly when the engine asks it.
#[test]
fn the_stateless_step_decides_as_the_engine() {
    use earlyexit::kit::loops::policy::{engine_policy_value, policy_step_value};
    let mut rng = Rng(7);
    for config in configs() {
        let policy = engine_policy_value(
            &Value::parse_json(r#"{"preset": "seed"}"#, ErrorCode::InvalidConfig, "policy").unwrap(),
            Naming::Js,
        )
        .unwrap();
        let stop_policy = StopPolicy::from_config(&config);
        let normalized = stop_policy.to_value();
        assert!(policy.get("any").is_some());
        let config_value = config.to_value(Naming::Js);
        let mut engine = EarlyStopping::new(config.clone()).unwrap();
        engine.set_policy(Some(stop_policy));
        let mut state = Value::Null;
        let mut previous = 50.0;
        for iteration in 1..=12 {
            let r = result(&mut rng, previous);
            previous = r.quality_score;
            engine.record(iteration, r, NOW).unwrap();
            let record = engine.history()[iteration as usize - 1].to_value();
            let Value::Object(mut entries) = record else { panic!() };
            entries.retain(|(k, _)| k != "timestamp");
            let records = Value::Array(vec![Value::Object(entries)]);
            let detected = iteration % 4 == 0;
            let report = DiminishingReturnsReport { detected, iteration: ReportedIteration::Null, reason: "x".into() };
            let asked = Cell::new(false);
            let expected = engine
                .should_stop_with(Some(|| {
                    asked.set(true);
                    Ok::<_, ()>(report.clone())
                }))
                .unwrap();
            let answer = policy_step_value(&normalized, &config_value, &state, &records, &Value::Null, true).unwrap();
            state = answer.get("state").unwrap().clone();
            let decision = if answer.get("need_source").is_some() {
                assert!(asked.get());
                let again =
                    policy_step_value(&normalized, &config_value, &state, &Value::Null, &report.to_value(), true)
                        .unwrap();
                again.get("decision").unwrap().clone()
            } else {
                assert!(!asked.get());
                answer.get("decision").unwrap().clone()
            };
            assert_eq!(decision, expected.to_value(), "{config:?} at {iteration}");
        }
    }
}

/// README.md's Rust quick start, as written there.
#[test]
fn the_readme_rust_example_runs() -> Result<(), earlyexit::Error> {
    use earlyexit::{StopCondition as When, StopPolicy};
    let mut stopper = EarlyStopping::new(EarlyStoppingConfig::default())?;
    for (i, (score, delta)) in [(82.6, 0.0), (82.4, -0.2), (82.5, 0.1)].into_iter().enumerate() {
        let result = IterationResult::new(score, 0.9, earlyexit::VerificationStatus::Passed, delta);
        stopper.record(i as u64 + 1, result, || "2026-01-01T00:00:00.000Z".to_string())?;
    }
    assert_eq!(stopper.should_stop().trigger, Trigger::QualityPlateau); // the default checks
    let when =
        When::Any(vec![When::max_iterations(10), When::All(vec![When::quality_plateau(), When::no_improvement(3)])]);
    stopper.set_policy(Some(StopPolicy { when, returns: earlyexit::ReturnPolicy::Best }));
    assert!(!stopper.should_stop().stop);
    assert_eq!(stopper.should_stop().best, Some((1, 82.6)));
    stopper.record(4, IterationResult::new(82.5, 0.9, VerificationStatus::Passed, 0.0), NOW)?;
    assert_eq!(stopper.should_stop().fired.map(|f| f.len()), Some(2));
    Ok(())
}

/// A snapshot carries the policy (a new key only then), restores it, names a bad one's
/// path, and a given policy that contradicts the snapshot's is refused.
#[test]
fn snapshots_carry_the_policy() {
    let json = r#"{"returns": "best", "any": [{"condition": "max_iterations", "limit": 3}, "high_confidence"]}"#;
    let mut engine = engine_with(json, &[50.0, 60.0]);
    let snapshot = engine.to_snapshot();
    let expected = engine.policy().map(StopPolicy::to_value);
    assert_eq!(snapshot.get("policy"), expected.as_ref());
    let mut restored = EarlyStopping::from_snapshot(&snapshot).unwrap();
    assert_eq!(restored.policy(), engine.policy());
    assert_eq!(restored.should_stop(), engine.should_stop());
    // Normalizing passes the policy on as given (the JS layer reads it with the policy ops).
    assert_eq!(EarlyStopping::normalize_snapshot(&snapshot).unwrap(), snapshot);
    // No policy, no key: a default snapshot is the document it always was.
    let plain = EarlyStopping::new(EarlyStoppingConfig::default()).unwrap().to_snapshot();
    assert!(plain.get("policy").is_none() && plain.get("policyArtifact").is_none());
    // The same policy given again is kept; another is refused and changes nothing.
    let same = policy(json).stop_policy();
    restored.adopt_policy(Some(same)).unwrap();
    let other = policy(r#"{"any": [{"condition": "max_iterations", "limit": 4}]}"#).stop_policy();
    let err = restored.adopt_policy(Some(other)).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "policy"));
    assert_eq!(restored.policy(), engine.policy());
    let mut fresh = EarlyStopping::from_snapshot(&plain).unwrap();
    fresh.adopt_policy(Some(policy(json).stop_policy())).unwrap();
    assert_eq!(fresh.policy(), engine.policy());
    // A bad policy in a snapshot: invalid_snapshot at its path.
    let Value::Object(mut entries) = snapshot.clone() else { panic!("object") };
    if let Some(entry) = entries.iter_mut().find(|(k, _)| k == "policy") {
        entry.1 = Value::parse_json(
            r#"{"any": [{"condition": "no_improvement", "patience": 0}]}"#,
            ErrorCode::InvalidConfig,
            "",
        )
        .unwrap();
    }
    let err = EarlyStopping::from_snapshot(&Value::Object(entries.clone())).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "policy.any[0].patience"));
    // `null` is no policy (and no digest), as a missing key is.
    let mut nulls = plain.clone();
    if let Value::Object(entries) = &mut nulls {
        entries.push(("policy".into(), Value::Null));
        entries.push(("policyArtifact".into(), Value::Null));
    }
    let restored = EarlyStopping::from_snapshot(&nulls).unwrap();
    assert!(restored.policy().is_none() && restored.policy_artifact().is_none());
    assert_eq!(EarlyStopping::normalize_snapshot(&nulls).unwrap(), plain);
    // The artifact's digest is kept, and must be one.
    engine.set_policy_artifact(Some("ab".repeat(32))).unwrap();
    let kept = EarlyStopping::from_snapshot(&engine.to_snapshot()).unwrap();
    assert_eq!(kept.policy_artifact(), Some("ab".repeat(32).as_str()));
    entries.push(("policyArtifact".to_string(), Value::string("AB")));
    let err = EarlyStopping::from_snapshot(&Value::Object(entries)).unwrap_err();
    assert_eq!(err.code(), "invalid_snapshot");
    assert!(engine.set_policy_artifact(Some("xyz".into())).is_err());
}
