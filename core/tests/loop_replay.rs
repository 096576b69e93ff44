//! Loop replay and loop presets: the vectors of `tests/vectors/replay/loop_replay.json`
//! (expected values from the independent JS model in `gen_loop_replay.mjs`), a differential
//! check against the live engine, and the new opt-in options at their boundaries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit;
use earlyexit::loops::analytics::{AnalyticsInput, IterationAnalytics};
use earlyexit::loops::replay::{self, replay_loops, replay_run, LoopPolicy};
use earlyexit::loops::{EarlyStoppingConfig, ReturnPolicy, LOOP_PRESETS};
use earlyexit::{EarlyStopping, ErrorCode, IterationResult, Naming, Value, VerificationStatus};

fn parse(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidReplay, "test").unwrap()
}

fn vectors() -> (Value, Vec<Value>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/replay/loop_replay.json");
    let doc = parse(&std::fs::read_to_string(path).unwrap());
    let Some(Value::Array(vectors)) = doc.get("vectors").cloned() else { panic!("no vectors") };
    (doc.get("runSets").cloned().unwrap(), vectors)
}

#[test]
fn every_vector_matches_the_js_model() {
    let (sets, vectors) = vectors();
    assert!(vectors.len() > 50);
    let (mut passed, mut errors) = (0, 0);
    for v in &vectors {
        let name = v.get("name").and_then(Value::as_str).unwrap();
        let runs = match (v.get("runSet"), v.get("runs"), v.get("jsonl")) {
            (Some(set), _, _) => sets.get(set.as_str().unwrap()).cloned().unwrap(),
            (_, Some(runs), _) => runs.clone(),
            (_, _, Some(text)) => text.clone(),
            _ => panic!("{name}: no input"),
        };
        let policy = v.get("policy").cloned().unwrap_or(Value::Null);
        let got = kit::loops::replay::replay_value(&runs, &policy, Naming::Js);
        match (v.get("returns"), v.get("throws"), got) {
            (Some(expected), _, Ok(actual)) => {
                assert_eq!(actual.get("summary"), expected.get("summary"), "{name}: summary");
                assert_eq!(actual.get("runs"), expected.get("runs"), "{name}: runs");
                passed += 1;
            }
            (_, Some(throws), Err(e)) => {
                assert_eq!(Some(e.code()), throws.get("code").and_then(Value::as_str), "{name}: {e}");
                assert_eq!(Some(e.field()), throws.get("field").and_then(Value::as_str), "{name}: {e}");
                assert_eq!(Some(e.kind().as_str()), throws.get("kind").and_then(Value::as_str), "{name}: {e}");
                errors += 1;
            }
            (_, _, other) => panic!("{name}: unexpected {other:?}"),
        }
    }
    println!("loop replay vectors: {passed} replays, {errors} errors");
}

fn run_json(id: &str, qualities: &[(f64, &str)]) -> String {
    let items: Vec<String> = qualities
        .iter()
        .map(|(q, s)| format!(r#"{{"quality_score":{q},"confidence":{},"verification_status":"{s}"}}"#, q / 100.0))
        .collect();
    format!(r#"{{"id":"{id}","iterations":[{}]}}"#, items.join(","))
}

#[test]
fn replayed_decisions_equal_the_live_engine_with_its_analytics() {
    // A deterministic spread of runs: the replay must stop where a live EarlyStopping with an
    // attached IterationAnalytics stops, with the same trigger and reason.
    let mut seed: u64 = 42;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % 1000
    };
    for policy_name in LOOP_PRESETS {
        let policy = LoopPolicy::preset(policy_name).unwrap();
        for r in 0..300 {
            let length = 1 + (next() % 12) as usize;
            let mut q = 0.0f64;
            let mut items = Vec::new();
            for _ in 0..length {
                let roll = next();
                if roll < 350 {
                } else if roll < 750 {
                    q = (q + [0.5, 3.0, 12.5, 25.0][(roll % 4) as usize]).min(100.0);
                } else {
                    q = (q - 5.0).max(0.0);
                }
                let status = if q >= 100.0 || next() < 60 { "passed" } else { "failed" };
                items.push((q, status));
            }
            let text = run_json(&format!("r{r}"), &items);
            let run = &replay::parse_jsonl(&text, Naming::Js).unwrap()[0];
            let outcome = replay_run(run, &policy).unwrap();

            let mut live = EarlyStopping::new(policy.config.clone()).unwrap();
            let mut analytics = policy.analytics.clone().map(|c| IterationAnalytics::new(c).unwrap());
            let mut live_stop = None;
            for (i, item) in run.iterations.iter().enumerate() {
                let o = item.observation;
                let status = o.verification_status;
                let result = IterationResult::new(o.quality_score, o.confidence, status, o.quality_delta);
                live.record(i as u64 + 1, result, || "2026-01-01T00:00:00Z".into()).unwrap();
                let decision = match analytics.as_mut() {
                    Some(a) => {
                        let mut input = AnalyticsInput::new(i as u64 + 1, o.quality_score, status);
                        input.timestamp = Some("2026-01-01T00:00:00Z".into());
                        a.record(input).unwrap();
                        let report = a.detect_diminishing_returns();
                        live.should_stop_with(Some(|| Ok::<_, ()>(report))).unwrap()
                    }
                    None => live.should_stop(),
                };
                if decision.stop {
                    live_stop = Some((i as u64 + 1, decision.trigger, decision.reason, decision.best));
                    break;
                }
            }
            match live_stop {
                Some((at, trigger, reason, best)) => {
                    assert!(outcome.stopped, "{policy_name} r{r}");
                    assert_eq!(outcome.iterations_run, at, "{policy_name} r{r}");
                    assert_eq!(outcome.trigger, trigger, "{policy_name} r{r}");
                    assert_eq!(outcome.reason.as_deref(), Some(reason.as_str()), "{policy_name} r{r}");
                    if policy.returns == ReturnPolicy::Best {
                        assert_eq!(Some(outcome.returned_iteration), best.map(|b| b.0), "{policy_name} r{r}");
                    } else {
                        assert_eq!(outcome.returned_iteration, at);
                    }
                }
                None => {
                    assert!(!outcome.stopped, "{policy_name} r{r}");
                    assert_eq!(outcome.iterations_run, length as u64);
                }
            }
        }
    }
}

#[test]
fn errors_name_the_path_and_line() {
    let good = run_json("a", &[(10.0, "failed")]);
    let text = format!("{good}\n\n{good}\n{}\n", run_json("b", &[(10.0, "failed"), (150.0, "failed")]));
    let e = replay::parse_jsonl(&text, Naming::Snake).unwrap_err();
    assert_eq!(e.code(), "invalid_replay");
    assert_eq!(e.field(), "runs[2].iterations[1].quality_score");
    assert!(e.message().contains("(line 4)"), "{}", e.message());
    let with_bom = format!("\u{feff}{good}\r\n{good}\r\n");
    assert_eq!(replay::parse_jsonl(&with_bom, Naming::Snake).unwrap().len(), 2);
    let e = replay::parse_jsonl("{\"id\": 1,", Naming::Snake).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "runs[0]"));
    // Snake naming in Python: config keys are spelled as the caller spells them.
    let policy = parse(r#"{"config": {"no_improvement_patience": 0}}"#);
    let e = LoopPolicy::from_value(&policy, Naming::Snake).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "config.no_improvement_patience"));
}

#[test]
fn the_simple_rule_stops_at_the_first_pass_or_after_k_without_a_new_best() {
    let text = [
        run_json("pass", &[(10.0, "failed"), (40.0, "passed"), (90.0, "failed")]),
        run_json("flat", &[(50.0, "failed"), (50.0, "failed"), (40.0, "failed"), (60.0, "failed"), (55.0, "failed")]),
    ]
    .join("\n");
    let runs = replay::parse_jsonl(&text, Naming::Js).unwrap();
    let replay = replay_loops(&runs, &LoopPolicy::simple_rule(2)).unwrap();
    assert_eq!(replay.outcomes[0].iterations_run, 2, "a verified pass stops whatever its quality");
    assert_eq!(replay.outcomes[0].returned_iteration, 2);
    assert_eq!(replay.outcomes[0].quality_gap(), 50.0);
    assert_eq!(replay.outcomes[1].iterations_run, 3, "50 equal to the best is no improvement");
    assert_eq!(replay.outcomes[1].trigger.as_str(), "no_improvement");
    assert!(!replay.outcomes[1].premature);
    assert_eq!(replay.summary.iterations_used, 5);
}

#[test]
fn presets_keep_the_seed_default_and_validate() {
    assert_eq!(EarlyStoppingConfig::preset("seed"), Some(EarlyStoppingConfig::default()));
    let recommended = EarlyStoppingConfig::preset("recommended").unwrap();
    recommended.validate().unwrap();
    assert_eq!(recommended.plateau_min_quality, Some(70.0));
    assert_eq!(recommended.no_improvement_patience, Some(5));
    assert!(!recommended.enable_diminishing_returns);
    assert!(EarlyStoppingConfig::preset("fast").is_none());
    let e = EarlyStoppingConfig::preset_value(&Value::string("fast"), "preset").unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_config", "preset"));
    // The preset round-trips through getConfig() and a snapshot.
    let config = recommended.to_value(Naming::Js);
    let again = EarlyStoppingConfig::default().merged(&config, Naming::Js, "config", ErrorCode::InvalidConfig).unwrap();
    assert_eq!(again, recommended);
}

fn engine(config: &str) -> EarlyStopping {
    EarlyStopping::from_config_value(&parse(config), Naming::Js).unwrap()
}

fn record(e: &mut EarlyStopping, i: u64, q: f64) {
    let result = IterationResult::new(q, 0.5, VerificationStatus::Failed, 0.0);
    e.record(i, result, || "2026-01-01T00:00:00Z".into()).unwrap();
}

#[test]
fn no_improvement_fires_exactly_at_its_patience_and_round_trips() {
    let mut e = engine(r#"{"noImprovementPatience": 2, "enablePlateauDetection": false}"#);
    record(&mut e, 1, 40.0);
    record(&mut e, 2, 40.0);
    assert!(!e.should_stop().stop, "one record without a new best");
    record(&mut e, 3, 30.0);
    let d = e.should_stop();
    assert_eq!(d.trigger.as_str(), "no_improvement");
    assert_eq!(d.reason, "No improvement: 2 consecutive iterations without a new best (40 at iteration 1)");
    let snapshot = e.to_snapshot();
    let restored = EarlyStopping::from_snapshot(&snapshot).unwrap();
    assert_eq!(restored.to_snapshot(), snapshot);
    assert_eq!(restored.stopping_details(), e.stopping_details());
}

#[test]
fn the_plateau_quality_gate_lets_a_run_stuck_at_zero_go_on() {
    let mut gated = engine(r#"{"plateauMinQuality": 50, "plateauDeltaSource": "computed"}"#);
    let mut seed = engine(r#"{"plateauDeltaSource": "computed"}"#);
    for i in 1..=3 {
        record(&mut gated, i, 0.0);
        record(&mut seed, i, 0.0);
    }
    assert_eq!(seed.should_stop().trigger.as_str(), "quality_plateau");
    assert!(!gated.should_stop().stop, "three zeros are not a plateau of good work");
    let mut gated = engine(r#"{"plateauMinQuality": 50, "plateauDeltaSource": "computed"}"#);
    for (i, q) in [(1, 49.0), (2, 80.0), (3, 80.0), (4, 80.0)] {
        record(&mut gated, i, q);
        let stop = gated.should_stop().stop;
        assert_eq!(stop, i == 4, "the window must reach the gate entirely (iteration {i})");
    }
}

#[test]
fn new_options_reject_bad_values() {
    for (config, field) in [
        (r#"{"plateauMinQuality": -1}"#, "plateauMinQuality"),
        (r#"{"plateauMinQuality": null}"#, "plateauMinQuality"),
        (r#"{"noImprovementPatience": 0}"#, "noImprovementPatience"),
        (r#"{"noImprovementPatience": 1.5}"#, "noImprovementPatience"),
        (r#"{"noImprovementPatience": "3"}"#, "noImprovementPatience"),
    ] {
        let e = EarlyStopping::from_config_value(&parse(config), Naming::Js).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", field), "{config}");
    }
}

#[test]
fn analytics_record_accepts_an_input_built_in_rust() {
    // `IterationAnalytics::record` used to validate its own output record, whose computed
    // `quality_delta` is not an input key, so every call failed with unknown_option.
    let mut a = IterationAnalytics::new(Default::default()).unwrap();
    for (i, q) in [(1, 40.0), (2, 55.0)] {
        let mut input = AnalyticsInput::new(i, q, VerificationStatus::Failed);
        input.timestamp = Some("2026-01-01T00:00:00Z".into());
        a.record(input).unwrap();
    }
    assert_eq!(a.records()[1].quality_delta, 15.0);
}

#[test]
fn runs_and_policies_built_in_rust_are_validated_before_anything_replays() {
    let text = run_json("a", &[(10.0, "failed"), (20.0, "failed")]);
    let mut runs = replay::parse_jsonl(&text, Naming::Snake).unwrap();
    runs[0].iterations[1].observation.quality_score = f64::NAN;
    let e = replay_loops(&runs, &LoopPolicy::recommended()).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "runs[0].iterations[1].quality_score"));
    runs[0].iterations[1].observation.quality_score = 20.0;
    runs[0].iterations[1].observation.iteration = 7;
    let e = replay_loops(&runs, &LoopPolicy::recommended()).unwrap_err();
    assert_eq!(e.field(), "runs[0].iterations[1].iteration");
    runs[0].iterations[1].observation.iteration = 2;
    let mut policy = LoopPolicy::seed();
    policy.config.plateau_consecutive_count = 1;
    let e = replay_loops(&runs, &policy).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "config.plateau_consecutive_count"));
    let mut policy = LoopPolicy::seed();
    policy.analytics = Some(earlyexit::AnalyticsConfig { consecutive_count_threshold: 0, ..Default::default() });
    assert_eq!(replay_loops(&runs, &policy).unwrap_err().field(), "analytics.consecutive_count_threshold");
    runs[0].iterations.clear();
    assert_eq!(replay_run(&runs[0], &LoopPolicy::seed()).unwrap_err().field(), "run.iterations");
}

#[test]
fn integers_print_as_javascript_prints_them() {
    // The integer fast path of num::push_js_string (replay output is mostly integers),
    // at its edges; expected strings are Node's `String(x)`.
    use earlyexit::kit::num::to_js_string;
    for (x, expected) in [
        (0.0, "0"),
        (-0.0, "0"),
        (7.0, "7"),
        (-5.0, "-5"),
        (100.0, "100"),
        (1e15, "1000000000000000"),
        (9007199254740991.0, "9007199254740991"),
        (-9007199254740991.0, "-9007199254740991"),
        (9007199254740992.0, "9007199254740992"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (4503599627370497.0, "4503599627370497"),
        (66.66666666666667, "66.66666666666667"),
    ] {
        assert_eq!(to_js_string(x), expected, "{x}");
    }
}

#[test]
fn runs_written_one_per_line_from_an_array_name_no_line_in_errors() {
    let good = run_json("a", &[(10.0, "failed")]);
    let text = format!("{good}\n{}", run_json("b", &[(10.0, "failed"), (150.0, "failed")]));
    let e = replay::runs_from_lines(&text, Naming::Js).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_replay", "runs[1].iterations[1].quality_score"));
    assert!(!e.message().contains("line"), "{}", e.message());
    let e = replay::runs_from_lines(&format!("{good}\n5"), Naming::Js).unwrap_err();
    assert_eq!((e.field(), e.message()), ("runs[1]", "runs[1] must be an object, got 5"));
    let fine = format!("{good}\n{}", run_json("b", &[(10.0, "failed"), (15.0, "failed")]));
    assert_eq!(replay::runs_from_lines(&fine, Naming::Js).unwrap().len(), 2);
}
