//! The opt-in loop options beyond the seed: each fires exactly at its boundary and not one
//! step before, combinations resolve in the documented order, and bad values are rejected.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::EarlyStopping;
use earlyexit::{Naming, Value};

fn engine(config: &str) -> EarlyStopping {
    let config = Value::parse_json(config, earlyexit::ErrorCode::InvalidConfig, "config").unwrap();
    EarlyStopping::from_config_value(&config, Naming::Js).unwrap()
}

fn record(e: &mut EarlyStopping, iteration: u64, json: &str) {
    let result = Value::parse_json(json, earlyexit::ErrorCode::InvalidResult, "result").unwrap();
    e.record_value(&Value::Number(iteration as f64), &result, Naming::Js, || "2026-01-01T00:00:00.000Z".into())
        .unwrap();
}

fn plain(q: f64, delta: f64) -> String {
    format!(r#"{{"quality_score":{q},"confidence":0.5,"verification_status":"failed","quality_delta":{delta}}}"#)
}

/// A result whose usage `field` (`tokens_used`, `token_cost_usd`, `execution_time_ms`) is `value`.
fn with_usage(q: f64, field: &str, value: f64) -> String {
    format!(
        r#"{{"quality_score":{q},"confidence":0.5,"verification_status":"failed","quality_delta":10,"{field}":{value}}}"#
    )
}

fn with_tokens(q: f64, tokens: f64) -> String {
    with_usage(q, "tokens_used", tokens)
}

/// The engine its JSON snapshot restores to.
fn round_trip(e: &EarlyStopping) -> EarlyStopping {
    let text = e.to_snapshot().to_json();
    EarlyStopping::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap()
}

#[test]
fn default_config_output_has_no_option_keys() {
    let e = engine("{}");
    let config = e.config().to_value(Naming::Js);
    let Value::Object(entries) = config else { panic!() };
    assert_eq!(entries.len(), 7, "only the seed's keys");
}

#[test]
fn max_iterations_fires_exactly_at_the_limit() {
    let mut e = engine(r#"{"maxIterations": 3, "enablePlateauDetection": false}"#);
    record(&mut e, 1, &plain(10.0, 10.0));
    record(&mut e, 2, &plain(30.0, 20.0));
    assert!(!e.should_stop().stop, "one step before the limit");
    record(&mut e, 3, &plain(60.0, 30.0));
    let d = e.should_stop();
    assert!(d.stop);
    assert_eq!(d.trigger.as_str(), "max_iterations");
    assert_eq!(d.reason, "Maximum iterations reached (3/3)");
    assert_eq!(d.confidence, 1.0);
}

#[test]
fn budget_fires_once_the_sum_exceeds_the_limit_not_when_it_equals_it() {
    let mut e = engine(r#"{"maxTotalTokens": 1000}"#);
    record(&mut e, 1, &with_tokens(10.0, 600.0));
    record(&mut e, 2, &with_tokens(20.0, 400.0));
    let d = e.should_stop();
    assert!(!d.stop, "1000 == limit is not exhausted");
    assert_eq!(d.budgets.len(), 1);
    assert_eq!(d.budgets[0].observed, 1000.0);
    record(&mut e, 3, &with_tokens(30.0, 1.0));
    let d = e.should_stop();
    assert_eq!(d.trigger.as_str(), "budget_exhausted");
    assert_eq!(d.reason, "Budget exhausted: total tokens_used 1001 > limit 1000");
    let details = d.to_value();
    assert_eq!(details.get("details").unwrap().get("budget").unwrap().as_str(), Some("tokens"));
}

#[test]
fn a_record_without_the_field_is_unknown_not_zero() {
    let mut e = engine(r#"{"maxTotalTokens": 100}"#);
    record(&mut e, 1, &with_tokens(10.0, 60.0));
    record(&mut e, 2, &plain(20.0, 10.0));
    let d = e.should_stop();
    assert!(!d.stop);
    assert_eq!(d.budgets[0].records_without_value, 1, "the decision says the budget cannot be fully judged");
    record(&mut e, 3, &with_tokens(30.0, 50.0));
    let d = e.should_stop();
    assert!(d.stop);
    assert!(d.reason.ends_with("(1 records without tokens_used not counted)"), "{}", d.reason);
}

#[test]
fn warm_up_gates_quality_triggers_but_not_hard_limits() {
    // A high-confidence verified first record would stop the seed at once.
    let verified = r#"{"quality_score":95,"confidence":0.99,"verification_status":"passed","quality_delta":0}"#;
    let mut e = engine(r#"{"minIterations": 2}"#);
    record(&mut e, 1, verified);
    let d = e.should_stop();
    assert!(!d.stop);
    assert_eq!(d.reason, "Warm-up: iteration 1 of 2");
    record(&mut e, 2, verified);
    assert_eq!(e.should_stop().trigger.as_str(), "high_confidence", "fires exactly at minIterations");

    let mut capped = engine(r#"{"minIterations": 5, "maxIterations": 5, "maxTotalTokens": 10}"#);
    record(&mut capped, 1, &with_tokens(95.0, 11.0));
    assert_eq!(capped.should_stop().trigger.as_str(), "budget_exhausted", "hard limits ignore warm-up");
}

#[test]
fn budget_wins_over_plateau_in_the_same_step() {
    let mut e = engine(r#"{"maxTotalTokens": 100}"#);
    for i in 1..=3 {
        let json = format!(
            r#"{{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":0,"tokens_used":{}}}"#,
            if i == 3 { 90 } else { 10 }
        );
        record(&mut e, i, &json);
    }
    // Both a plateau (three flat records) and the budget (110 > 100) hold: hard limits first.
    assert_eq!(e.should_stop().trigger.as_str(), "budget_exhausted");
}

#[test]
fn computed_deltas_ignore_the_callers_delta() {
    // The caller claims big deltas; the scores are flat.
    let mut seed = engine("{}");
    let mut computed = engine(r#"{"plateauDeltaSource": "computed"}"#);
    for i in 1..=3 {
        record(&mut seed, i, &plain(50.0, 25.0));
        record(&mut computed, i, &plain(50.0, 25.0));
    }
    assert!(!seed.should_stop().stop, "the seed trusts the reported delta");
    let d = computed.should_stop();
    assert_eq!(d.trigger.as_str(), "quality_plateau");
}

#[test]
fn absolute_plateau_counts_points() {
    let mut e = engine(r#"{"plateauMode": "absolute", "plateauImprovementThreshold": 2}"#);
    record(&mut e, 1, &plain(50.0, 0.0));
    record(&mut e, 2, &plain(52.0, 2.0));
    record(&mut e, 3, &plain(53.0, 1.0));
    assert!(!e.should_stop().stop, "a 2-point step is not below 2 points");
    record(&mut e, 4, &plain(54.0, 1.0));
    let d = e.should_stop();
    assert_eq!(d.trigger.as_str(), "quality_plateau");
    assert_eq!(d.reason, "Quality plateau detected: 3 consecutive iterations with <2 points improvement");
}

#[test]
fn regression_fires_after_patience_iterations_below_the_best() {
    let mut e = engine(r#"{"regressionTolerance": 5, "regressionPatience": 2, "enablePlateauDetection": false}"#);
    record(&mut e, 1, &plain(80.0, 0.0));
    record(&mut e, 2, &plain(74.0, -6.0));
    assert!(!e.should_stop().stop, "one iteration below is not enough");
    record(&mut e, 3, &plain(75.0, 1.0)); // exactly 5 below is not "more than" 5
    assert!(!e.should_stop().stop);
    record(&mut e, 4, &plain(70.0, -5.0));
    assert!(!e.should_stop().stop, "streak restarted at iteration 3");
    record(&mut e, 5, &plain(60.0, -10.0));
    let d = e.should_stop();
    assert_eq!(d.trigger.as_str(), "quality_regression");
    assert_eq!(
        d.reason,
        "Quality regression: 2 consecutive iterations more than 5 points below the best (80 at iteration 1)"
    );
    assert_eq!(d.best, Some((1, 80.0)), "the decision hands back the best iteration");
}

#[test]
fn bad_option_values_are_rejected_with_code_and_field() {
    for (config, field) in [
        (r#"{"maxIterations": 0}"#, "maxIterations"),
        (r#"{"maxIterations": 2.5}"#, "maxIterations"),
        (r#"{"minIterations": "3"}"#, "minIterations"),
        (r#"{"minIterations": 4, "maxIterations": 3}"#, "minIterations"),
        (r#"{"maxTotalTokens": -1}"#, "maxTotalTokens"),
        (r#"{"maxTotalCostUsd": null}"#, "maxTotalCostUsd"),
        (r#"{"plateauMode": "percent"}"#, "plateauMode"),
        (r#"{"plateauDeltaSource": true}"#, "plateauDeltaSource"),
        (r#"{"plateauImprovementThreshold": 5}"#, "plateauImprovementThreshold"),
        (r#"{"regressionPatience": 3}"#, "regressionPatience"),
        (r#"{"regressionTolerance": 101}"#, "regressionTolerance"),
    ] {
        let value = Value::parse_json(config, earlyexit::ErrorCode::InvalidConfig, "config").unwrap();
        let err = EarlyStopping::from_config_value(&value, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_config", field), "{config}: {}", err.message());
    }
    let snake = Value::parse_json(r#"{"max_iterations": 0}"#, earlyexit::ErrorCode::InvalidConfig, "c").unwrap();
    assert_eq!(EarlyStopping::from_config_value(&snake, Naming::Snake).unwrap_err().field(), "max_iterations");
}

#[test]
fn options_survive_a_snapshot_round_trip() {
    let mut e = engine(
        r#"{"maxTotalTokens": 100, "regressionTolerance": 5, "plateauMode": "absolute", "plateauImprovementThreshold": 3}"#,
    );
    record(&mut e, 1, &with_tokens(80.0, 30.0));
    record(&mut e, 2, &with_tokens(70.0, 30.0));
    let mut restored = round_trip(&e);
    assert_eq!(restored, e);
    record(&mut e, 3, &with_tokens(60.0, 50.0));
    record(&mut restored, 3, &with_tokens(60.0, 50.0));
    assert_eq!(e.should_stop(), restored.should_stop());
}

#[test]
fn a_stop_on_an_absolute_plateau_survives_a_snapshot_round_trip() {
    // The details' threshold is in points (here 2): restoring it must not demand a fraction.
    let mut e = engine(r#"{"plateauMode": "absolute", "plateauImprovementThreshold": 2}"#);
    record(&mut e, 1, &plain(50.0, 0.0));
    record(&mut e, 2, &plain(51.0, 1.0));
    record(&mut e, 3, &plain(51.5, 0.5));
    assert_eq!(e.should_stop().trigger.as_str(), "quality_plateau");
    let restored = round_trip(&e);
    assert_eq!(restored, e);
}

#[test]
fn each_budget_stops_above_its_limit_and_names_itself() {
    for (option, field, name) in [
        ("maxTotalTokens", "tokens_used", "tokens"),
        ("maxTotalCostUsd", "token_cost_usd", "cost_usd"),
        ("maxWallClockMs", "execution_time_ms", "wall_clock_ms"),
    ] {
        let mut e = engine(&format!(r#"{{"{option}": 8}}"#));
        record(&mut e, 1, &with_usage(10.0, field, 5.0));
        record(&mut e, 2, &with_usage(20.0, field, 3.0));
        assert!(!e.should_stop().stop, "{option}: equal to the limit goes on");
        record(&mut e, 3, &with_usage(30.0, field, 0.5));
        let d = e.should_stop();
        assert_eq!(d.trigger.as_str(), "budget_exhausted", "{option}");
        assert_eq!(d.reason, format!("Budget exhausted: total {field} 8.5 > limit 8"));
        let details = d.to_value();
        let details = details.get("details").unwrap();
        assert_eq!(details.get("budget").unwrap().as_str(), Some(name));
        assert_eq!(details.get("observed").unwrap().as_f64(), Some(8.5));
    }
}

#[test]
fn tokens_are_checked_before_cost_in_the_same_step() {
    let mut e = engine(r#"{"maxTotalCostUsd": 0.01, "maxTotalTokens": 10}"#);
    record(
        &mut e,
        1,
        r#"{"quality_score":10,"confidence":0.5,"verification_status":"failed","quality_delta":0,"tokens_used":11,"token_cost_usd":0.02}"#,
    );
    let d = e.should_stop();
    assert_eq!(d.to_value().get("details").unwrap().get("budget").unwrap().as_str(), Some("tokens"));
    assert_eq!(d.budgets.len(), 2, "both budgets are listed");
    assert!(d.budgets.iter().all(|b| b.exhausted));
}

#[test]
fn warm_up_blocks_plateau_and_regression_but_not_max_iterations() {
    let mut e = engine(r#"{"minIterations": 4, "regressionTolerance": 5, "regressionPatience": 1}"#);
    record(&mut e, 1, &plain(80.0, 0.0));
    record(&mut e, 2, &plain(60.0, 0.0));
    record(&mut e, 3, &plain(60.0, 0.0));
    let d = e.should_stop();
    assert_eq!((d.stop, d.reason.as_str()), (false, "Warm-up: iteration 3 of 4"), "plateau and regression both hold");
    record(&mut e, 4, &plain(60.0, 0.0));
    assert_eq!(e.should_stop().trigger.as_str(), "quality_plateau", "plateau before regression once warm");

    let mut capped = engine(r#"{"minIterations": 2, "maxIterations": 2}"#);
    record(&mut capped, 1, &plain(50.0, 0.0));
    assert!(capped.should_stop().reason.starts_with("Warm-up"));
    record(&mut capped, 2, &plain(50.0, 0.0));
    assert_eq!(capped.should_stop().trigger.as_str(), "max_iterations");
}

#[test]
fn a_configure_that_breaks_a_cross_field_rule_changes_nothing() {
    let mut e = engine(r#"{"minIterations": 3, "plateauMode": "absolute", "plateauImprovementThreshold": 4}"#);
    record(&mut e, 1, &plain(50.0, 0.0));
    let before = e.clone();
    for (options, field) in [
        (r#"{"maxIterations": 2}"#, "maxIterations"),
        (r#"{"plateauMode": "relative"}"#, "plateauMode"),
        (r#"{"maxTotalTokens": 5, "regressionPatience": 2}"#, "regressionPatience"),
    ] {
        let value = Value::parse_json(options, earlyexit::ErrorCode::InvalidConfig, "options").unwrap();
        let err = e.configure_value(&value, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_config", field), "{options}");
        assert_eq!(e, before, "{options} changed the engine");
    }
}

#[test]
fn seed_equivalent_options_decide_as_the_defaults() {
    let mut seed = engine("{}");
    let mut explicit = engine(r#"{"plateauDeltaSource": "reported", "plateauMode": "relative", "minIterations": 1}"#);
    for (i, (q, d)) in [(50.0, 0.0), (50.5, 0.5), (50.6, 0.1), (70.0, 19.4)].into_iter().enumerate() {
        record(&mut seed, i as u64 + 1, &plain(q, d));
        record(&mut explicit, i as u64 + 1, &plain(q, d));
        assert_eq!(seed.should_stop(), explicit.should_stop());
    }
}

// ---------------------------------------------------------------------------------------
// strictIterations: resume safety (docs/loop-options.md "Resume safety")

use earlyexit::loops::{IterationResult, Recorded, VerificationStatus};

fn try_record(e: &mut EarlyStopping, iteration: u64, json: &str) -> earlyexit::Result<Recorded> {
    let result = Value::parse_json(json, earlyexit::ErrorCode::InvalidResult, "result").unwrap();
    e.record_value(&Value::Number(iteration as f64), &result, Naming::Js, || "2026-05-05T05:05:05.000Z".into())
}

#[test]
fn without_strict_iterations_any_numbers_are_recorded_as_the_seed_records_them() {
    let mut e = engine("{}");
    for i in [5, 3, 5] {
        assert_eq!(try_record(&mut e, i, &plain(50.0, 0.0)).unwrap(), Recorded::Added);
    }
    assert_eq!(e.history().iter().map(|r| r.observation.iteration).collect::<Vec<_>>(), [5, 3, 5]);
}

#[test]
fn strict_iterations_refuse_an_earlier_number_and_change_nothing() {
    let mut e = engine(r#"{"strictIterations": true}"#);
    assert_eq!(try_record(&mut e, 5, &plain(50.0, 0.0)).unwrap(), Recorded::Added);
    let before = e.clone();
    let err = try_record(&mut e, 3, &plain(50.0, 0.0)).unwrap_err();
    assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_iteration", "iteration", "range"));
    assert_eq!(
        err.message(),
        "iteration must be greater than the last recorded iteration (5) or repeat it with the same result, got 3"
    );
    assert_eq!(e, before);
    assert_eq!(try_record(&mut e, 6, &plain(50.0, 0.0)).unwrap(), Recorded::Added);
}

#[test]
fn a_re_record_of_the_last_iteration_is_a_duplicate_only_with_the_same_caller_given_fields() {
    let mut e = engine(r#"{"strictIterations": true, "maxTotalTokens": 100}"#);
    let given = r#"{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":0,"tokens_used":60,"timestamp":"2026-01-01T00:00:00Z"}"#;
    try_record(&mut e, 1, given).unwrap();
    let before = e.clone();
    assert_eq!(try_record(&mut e, 1, given).unwrap(), Recorded::Duplicate);
    // -0 is 0; iteration_number repeats the argument; an omitted timestamp is not compared.
    let same = r#"{"quality_score":50,"confidence":0.5,"verification_status":"failed","quality_delta":-0,"tokens_used":60,"iteration_number":1}"#;
    assert_eq!(try_record(&mut e, 1, same).unwrap(), Recorded::Duplicate);
    assert_eq!(e, before, "a duplicate changes nothing");
    for (changed, field) in [
        (given.replace("\"quality_score\":50", "\"quality_score\":51"), "quality_score"),
        (given.replace("\"confidence\":0.5", "\"confidence\":0.6"), "confidence"),
        (given.replace("\"failed\"", "\"skipped\""), "verification_status"),
        (given.replace("\"quality_delta\":0", "\"quality_delta\":1"), "quality_delta"),
        (given.replace(",\"tokens_used\":60", ""), "tokens_used"),
        (given.replace("\"tokens_used\":60", "\"tokens_used\":60,\"token_cost_usd\":0"), "token_cost_usd"),
        (given.replace("T00:00:00Z", "T00:00:00.000Z"), "timestamp"),
    ] {
        let err = try_record(&mut e, 1, &changed).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_iteration", "iteration"), "{field}");
        assert!(err.message().ends_with(&format!("got 1 with a different {field}")), "{}", err.message());
    }
    assert_eq!(e, before, "a refused re-record changes nothing");
    assert_eq!(e.should_stop().budgets[0].observed, 60.0, "the tokens counted once");
}

#[test]
fn a_clock_filled_timestamp_is_matched_by_an_omitted_one_or_by_the_value_the_clock_gave() {
    let mut e = engine(r#"{"strictIterations": true}"#);
    try_record(&mut e, 1, &plain(50.0, 0.0)).unwrap();
    assert_eq!(&*e.history()[0].timestamp, "2026-05-05T05:05:05.000Z");
    assert_eq!(try_record(&mut e, 1, &plain(50.0, 0.0)).unwrap(), Recorded::Duplicate);
    let with_clock = plain(50.0, 0.0).replace('}', r#","timestamp":"2026-05-05T05:05:05.000Z"}"#);
    assert_eq!(try_record(&mut e, 1, &with_clock).unwrap(), Recorded::Duplicate);
    let other = plain(50.0, 0.0).replace('}', r#","timestamp":"2026-05-05T05:05:06.000Z"}"#);
    assert_eq!(try_record(&mut e, 1, &other).unwrap_err().code(), "invalid_iteration");
}

#[test]
fn the_resume_recipe_counts_a_re_recorded_iteration_once() {
    // record, then snapshot; the process dies; restore, then re-record the last iteration.
    let mut e = engine(r#"{"strictIterations": true, "maxTotalTokens": 100}"#);
    try_record(&mut e, 1, &with_tokens(50.0, 40.0)).unwrap();
    try_record(&mut e, 2, &with_tokens(60.0, 40.0)).unwrap();
    let mut resumed = round_trip(&e);
    assert_eq!(resumed.config().strict_iterations, Some(true));
    assert_eq!(try_record(&mut resumed, 2, &with_tokens(60.0, 40.0)).unwrap(), Recorded::Duplicate);
    let decision = resumed.should_stop();
    assert!(!decision.stop);
    assert_eq!(decision.budgets[0].observed, 80.0);
    assert_eq!(resumed, round_trip(&e));
    // The seed's default counts the re-record twice and stops on tokens never spent.
    let mut loose = engine(r#"{"maxTotalTokens": 100}"#);
    try_record(&mut loose, 1, &with_tokens(50.0, 40.0)).unwrap();
    try_record(&mut loose, 2, &with_tokens(60.0, 40.0)).unwrap();
    let mut loose = round_trip(&loose);
    assert_eq!(try_record(&mut loose, 2, &with_tokens(60.0, 40.0)).unwrap(), Recorded::Added);
    assert_eq!(loose.should_stop().trigger.as_str(), "budget_exhausted");
}

#[test]
fn the_typed_record_path_and_the_recommended_preset_enforce_it_too() {
    let mut e = EarlyStopping::new(earlyexit::EarlyStoppingConfig::recommended()).unwrap();
    assert_eq!(e.config().strict_iterations, Some(true));
    let result = || IterationResult::new(40.0, 0.5, VerificationStatus::Failed, 0.0);
    let now = || "2026-01-01T00:00:00.000Z".to_string();
    assert_eq!(e.record(4, result(), now).unwrap(), Recorded::Added);
    assert!(e.record(4, result(), now).unwrap().is_duplicate());
    assert_eq!(e.record(3, result(), now).unwrap_err().code(), "invalid_iteration");
    assert_eq!(e.history().len(), 1);
    assert_eq!(Recorded::Duplicate.to_value().map(|v| v.to_json()).as_deref(), Some(r#"{"duplicate":true}"#));
    assert_eq!(Recorded::Added.to_value(), None);
}

#[test]
fn strict_iterations_is_a_boolean_listed_last_in_get_config() {
    let e = engine(r#"{"strictIterations": false, "maxIterations": 3}"#);
    let Value::Object(entries) = e.config().to_value(Naming::Js) else { panic!() };
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(&keys[7..], ["maxIterations", "strictIterations"]);
    for bad in [r#"{"strictIterations": 1}"#, r#"{"strictIterations": "true"}"#, r#"{"strictIterations": null}"#] {
        let config = Value::parse_json(bad, earlyexit::ErrorCode::InvalidConfig, "config").unwrap();
        let err = EarlyStopping::from_config_value(&config, Naming::Js).unwrap_err();
        assert_eq!((err.code(), err.field(), err.kind().as_str()), ("invalid_config", "strictIterations", "type"));
    }
}

/// `floorPatience`: while the best so far is at or below the floor, the give-up rule counts
/// to its own patience; once a record rises above the floor, `noImprovementPatience` takes over.
#[test]
fn floor_patience_applies_only_while_the_best_is_at_or_below_the_floor() {
    let base = r#"{"enablePlateauDetection": false, "noImprovementPatience": 2, "floorPatience": 4"#;
    let mut e = engine(&format!("{base}}}"));
    // Stuck at 0: records 2..5 bring no new best; the floor patience (4) stops at record 5.
    for i in 1..=4 {
        record(&mut e, i, &plain(0.0, 0.0));
        assert!(!e.should_stop().stop, "record {i}: the floor patience has not run out");
    }
    record(&mut e, 5, &plain(0.0, 0.0));
    let d = e.should_stop();
    assert_eq!((d.stop, d.trigger.as_str()), (true, "no_improvement"));
    // Above the floor: the ordinary patience (2).
    let mut e = engine(&format!("{base}}}"));
    record(&mut e, 1, &plain(0.0, 0.0));
    record(&mut e, 2, &plain(40.0, 40.0));
    record(&mut e, 3, &plain(40.0, 0.0));
    assert!(!e.should_stop().stop);
    record(&mut e, 4, &plain(40.0, 0.0));
    assert!(e.should_stop().stop, "two records without a new best above the floor");
    // A higher floor covers the 40s too.
    let mut e = engine(&format!(r#"{base}, "floorQuality": 50}}"#));
    for (i, q) in [(1, 0.0), (2, 40.0), (3, 40.0), (4, 40.0), (5, 40.0)] {
        record(&mut e, i, &plain(q, 0.0));
        assert!(!e.should_stop().stop, "record {i}");
    }
    record(&mut e, 6, &plain(40.0, 0.0));
    assert!(e.should_stop().stop);
    assert_eq!(e.config().to_value(Naming::Js).get("floorQuality"), Some(&Value::Number(50.0)));
}

#[test]
fn floor_quality_needs_floor_patience() {
    let config = Value::parse_json(r#"{"floorQuality": 10}"#, earlyexit::ErrorCode::InvalidConfig, "config").unwrap();
    let err = EarlyStopping::from_config_value(&config, Naming::Js).unwrap_err();
    assert_eq!(err.field(), "floorQuality");
    let config = Value::parse_json(r#"{"floorPatience": 0}"#, earlyexit::ErrorCode::InvalidConfig, "config").unwrap();
    assert_eq!(EarlyStopping::from_config_value(&config, Naming::Js).unwrap_err().field(), "floorPatience");
}
