//! Target `loop_ops`: arbitrary sequences of loop-stopping calls on one `EarlyStopping`
//! with an `IterationAnalytics` beside it (records, configure with any keys and values
//! including the opt-in options, shouldStop with and without a diminishing-returns source,
//! summary, reset, snapshot/restore).
//!
//! Invariants: nothing panics; a call that returns an error leaves the engine exactly as it
//! was; a successful record adds exactly one history entry; a snapshot restores to an equal
//! engine, in memory and through its JSON text.

use super::gen::{self, valid};
use arbitrary::{Result, Unstructured};
use earlyexit::kit::loops::{from_slots, to_slots, CONFIG_SCHEMA};
use earlyexit::kit::shape::FieldType;
use earlyexit::loops::ResourceUsage;
use earlyexit::{
    DiminishingReturnsReport, EarlyStopping, EarlyStoppingConfig, Error, ErrorCode, IterationAnalytics,
    IterationResult, Naming, Recorded, Value, VerificationStatus,
};

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = drive(&mut u); // running out of input just ends the sequence
}

const RESULT_FIELDS: &[gen::Field] = &[
    ("quality_score", valid::percent),
    ("confidence", valid::unit),
    ("verification_status", valid::status),
    ("quality_delta", valid::finite),
    ("timestamp", valid::timestamp),
    ("tokens_used", valid::amount),
    ("token_cost_usd", valid::amount),
    ("execution_time_ms", valid::amount),
];

const ANALYTICS_CONFIG_FIELDS: &[gen::Field] = &[
    ("diminishing_returns_threshold", valid::unit),
    ("consecutive_count_threshold", valid::count),
    ("quality_threshold", valid::points),
    ("selection_criteria", valid::criteria),
];

const ANALYTICS_RECORD_FIELDS: &[gen::Field] = &[
    ("quality_score", valid::percent),
    ("verification_status", valid::status),
    ("tokens_used", valid::amount),
    ("token_cost_usd", valid::amount),
    ("execution_time_ms", valid::amount),
    ("timestamp", valid::timestamp),
    ("output_snapshot_path", valid::text),
    ("quality_delta", valid::finite),
];

/// The clock reading the harness hands the analytics (the core has none).
const NOW: &str = "2026-01-01T00:00:00.000Z";

/// A config object in either spelling: a random subset of the keys of the core's table
/// (`CONFIG_SCHEMA`), each mostly valid for its type, and sometimes an extra key.
pub fn config_object(u: &mut Unstructured, naming: Naming) -> Result<Value> {
    let mut entries = Vec::new();
    for row in &CONFIG_SCHEMA {
        let value = gen::field(u, |u| match row.ty {
            // 0..=1 fits every number option; the rest probe their upper ranges.
            FieldType::Number => *u.choose(&[valid::unit, valid::unit, valid::points, valid::amount])?,
            FieldType::Integer => valid::count,
            FieldType::Boolean => valid::boolean,
            FieldType::Names(names) => return valid::name(u, names),
            FieldType::Text | FieldType::Texts => valid::text,
        }(u))?;
        if let Some(value) = value {
            gen::set(&mut entries, row.name.spelled(naming).to_string(), value);
        }
    }
    if u.ratio(1u8, 8u8)? {
        let (key, value) = (gen::key(u)?, gen::value(u, 1)?);
        gen::set(&mut entries, key, value);
    }
    Ok(Value::Object(entries))
}

fn opt<T>(u: &mut Unstructured, f: impl FnOnce(&mut Unstructured) -> Result<T>) -> Result<Option<T>> {
    Ok(if u.arbitrary()? { Some(f(u)?) } else { None })
}

/// A config built in Rust from random slots of the fast path's encoding (the core's table
/// gives each slot's type): any numbers at all (validation must catch the bad ones), each
/// opt-in option set half the time, counts mostly 0..=6.
fn typed_config(u: &mut Unstructured) -> Result<EarlyStoppingConfig> {
    let unset = to_slots(&EarlyStoppingConfig::default());
    let mut slots = unset;
    for ((slot, row), unset) in slots.iter_mut().zip(&CONFIG_SCHEMA).zip(unset) {
        let option = unset.is_nan() || matches!(row.ty, FieldType::Names(_));
        if option && !u.arbitrary::<bool>()? {
            continue;
        }
        *slot = match row.ty {
            FieldType::Number => gen::number(u)?,
            FieldType::Integer if u.ratio(1u8, 8u8)? => u.arbitrary::<u64>()? as f64,
            FieldType::Integer => f64::from(u.int_in_range(0u8..=6)?),
            FieldType::Boolean => f64::from(u8::from(u.arbitrary::<bool>()?)),
            FieldType::Names(names) => (u.choose_index(names.len())? + 1) as f64,
            FieldType::Text | FieldType::Texts => f64::NAN,
        };
    }
    Ok(from_slots(&slots))
}

fn status(u: &mut Unstructured) -> Result<VerificationStatus> {
    Ok(*u.choose(&[VerificationStatus::Passed, VerificationStatus::Failed, VerificationStatus::Skipped])?)
}

/// A result built in Rust with any numbers.
fn typed_result(u: &mut Unstructured, iteration: u64) -> Result<IterationResult> {
    let mut result = IterationResult::new(gen::number(u)?, gen::number(u)?, status(u)?, gen::number(u)?);
    result.timestamp = opt(u, gen::timestamp)?;
    result.usage = ResourceUsage {
        tokens_used: opt(u, gen::number)?,
        token_cost_usd: opt(u, gen::number)?,
        execution_time_ms: opt(u, gen::number)?,
    };
    result.iteration_number = opt(u, |u| Ok(if u.ratio(3u8, 4u8)? { iteration } else { u.arbitrary()? }))?;
    Ok(result)
}

/// The next iteration number most of the time; sometimes any value at all.
fn iteration_value(u: &mut Unstructured, next: u64) -> Result<Value> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => gen::value(u, 1)?,
        1 => Value::Number(gen::number(u)?),
        _ => Value::Number(next as f64),
    })
}

/// A fixed clock for records without a timestamp (what a binding's clock returns).
fn clock(u: &mut Unstructured) -> Result<String> {
    Ok(earlyexit::time::iso_from_millis(u.int_in_range(0i64..=4_102_444_800_000)?))
}

/// Asserts that a failed call changed nothing and reports a well-formed error.
fn unchanged(before: &EarlyStopping, after: &EarlyStopping, error: &Error, what: &str) {
    assert!(before == after, "{what} failed ({error:?}) but changed the engine");
    assert!(!error.message().is_empty(), "{what}: error without a message: {error:?}");
}

/// The snapshot invariant: in memory and through JSON text, the engine comes back equal.
pub fn check_snapshot(engine: &EarlyStopping) {
    let snapshot = engine.to_snapshot();
    let restored = EarlyStopping::from_snapshot(&snapshot)
        .unwrap_or_else(|e| panic!("a snapshot the engine wrote was rejected: {e:?}\n{}", snapshot.to_json()));
    assert!(restored == *engine, "restored engine differs\n{}", snapshot.to_json());
    assert!(gen::identical(&restored.to_snapshot(), &snapshot), "re-snapshot differs");
    let text = snapshot.to_json();
    let parsed =
        earlyexit::snapshot::parse(&text).unwrap_or_else(|e| panic!("snapshot JSON unreadable: {e:?}\n{text}"));
    let from_text =
        EarlyStopping::from_snapshot(&parsed).unwrap_or_else(|e| panic!("snapshot JSON text rejected: {e:?}\n{text}"));
    assert!(from_text == *engine, "engine restored from JSON text differs\n{text}");
    assert_eq!(from_text.to_snapshot().to_json(), text, "JSON text of the restored engine differs");
}

/// The analytics snapshot invariant.
pub fn check_analytics_snapshot(analytics: &IterationAnalytics) {
    let snapshot = analytics.to_snapshot();
    let restored = IterationAnalytics::from_snapshot(&snapshot)
        .unwrap_or_else(|e| panic!("an analytics snapshot was rejected: {e:?}\n{}", snapshot.to_json()));
    assert!(restored == *analytics, "restored analytics differs\n{}", snapshot.to_json());
    let text = snapshot.to_json();
    let parsed = earlyexit::snapshot::parse(&text).unwrap_or_else(|e| panic!("analytics JSON unreadable: {e:?}"));
    let from_text = IterationAnalytics::from_snapshot(&parsed)
        .unwrap_or_else(|e| panic!("analytics JSON text rejected: {e:?}\n{text}"));
    assert!(from_text == *analytics, "analytics restored from JSON text differs\n{text}");
}

/// Builds an engine pair from the input and applies a sequence of calls (also used by the
/// snapshot target to make valid snapshots to mutate).
pub fn build(u: &mut Unstructured) -> Result<(EarlyStopping, IterationAnalytics)> {
    let mut engine = EarlyStopping::new(EarlyStoppingConfig::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut analytics = IterationAnalytics::new(Default::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let _ = steps(u, &mut engine, &mut analytics);
    Ok((engine, analytics))
}

fn drive(u: &mut Unstructured) -> Result<()> {
    let naming = gen::naming(u)?;
    let config = config_object(u, naming)?;
    let mut engine = match EarlyStopping::from_config_value(&config, naming) {
        Ok(engine) => engine,
        Err(_) => EarlyStopping::new(EarlyStoppingConfig::default()).unwrap_or_else(|e| panic!("{e:?}")),
    };
    let analytics_config = gen::object(u, ANALYTICS_CONFIG_FIELDS)?;
    let mut analytics = match IterationAnalytics::from_config_value(&analytics_config, Naming::Snake) {
        Ok(analytics) => analytics,
        Err(_) => IterationAnalytics::new(Default::default()).unwrap_or_else(|e| panic!("{e:?}")),
    };
    let result = steps(u, &mut engine, &mut analytics);
    check_snapshot(&engine);
    check_analytics_snapshot(&analytics);
    result
}

fn steps(u: &mut Unstructured, engine: &mut EarlyStopping, analytics: &mut IterationAnalytics) -> Result<()> {
    let count = u.int_in_range(0usize..=64)?;
    for _ in 0..count {
        step(u, engine, analytics)?;
    }
    Ok(())
}

/// A record call that succeeded added one entry, or (an accepted re-record under
/// `strictIterations`) changed nothing at all.
fn recorded_as_said(before: &EarlyStopping, engine: &EarlyStopping, recorded: Recorded) {
    match recorded {
        Recorded::Added => assert_eq!(engine.history().len(), before.history().len() + 1, "record added not one entry"),
        Recorded::Duplicate => assert_eq!(engine, before, "a re-record reported as a duplicate changed the engine"),
    }
}

/// A diminishing-returns report as an outside source returns it: mostly well formed.
fn report_value(u: &mut Unstructured) -> Result<Value> {
    const FIELDS: &[gen::Field] = &[("detected", valid::boolean), ("iteration", valid::count), ("reason", valid::text)];
    gen::object(u, FIELDS)
}

fn step(u: &mut Unstructured, engine: &mut EarlyStopping, analytics: &mut IterationAnalytics) -> Result<()> {
    let next = engine.history().len() as u64 + 1;
    match u.int_in_range(0u8..=13)? {
        0..=3 => {
            // recordIterationResult on host values
            let naming = gen::naming(u)?;
            let iteration = iteration_value(u, next)?;
            let result = if u.ratio(1u8, 16u8)? { gen::value(u, 2)? } else { gen::object(u, RESULT_FIELDS)? };
            let now = clock(u)?;
            let before = engine.clone();
            match engine.record_value(&iteration, &result, naming, || now) {
                Ok(recorded) => recorded_as_said(&before, engine, recorded),
                Err(e) => unchanged(&before, engine, &e, "record_value"),
            }
        }
        4 => {
            // record on a Rust-built result with any numbers
            let iteration = if u.ratio(7u8, 8u8)? { next } else { u.arbitrary()? };
            let result = typed_result(u, iteration)?;
            let now = clock(u)?;
            let before = engine.clone();
            match engine.record(iteration, result, || now) {
                Ok(recorded) => recorded_as_said(&before, engine, recorded),
                Err(e) => unchanged(&before, engine, &e, "record"),
            }
        }
        5 => {
            // configure with any keys and values
            let naming = gen::naming(u)?;
            let options = match u.int_in_range(0u8..=7)? {
                0 => gen::value(u, 2)?,
                _ => config_object(u, naming)?,
            };
            let before = engine.clone();
            match engine.configure_value(&options, naming) {
                Ok(()) => assert_eq!(engine.history(), before.history(), "configure changed the history"),
                Err(e) => unchanged(&before, engine, &e, "configure_value"),
            }
        }
        6 => {
            let config = typed_config(u)?;
            let before = engine.clone();
            if let Err(e) = engine.set_config(config) {
                unchanged(&before, engine, &e, "set_config");
            }
        }
        7 => {
            let decision = engine.should_stop();
            let _ = decision.to_value().to_json();
            if decision.stop {
                assert_eq!(engine.stopping_reason(), Some(decision.reason.as_str()));
            }
        }
        8 => {
            // shouldStop with the built-in analytics as the diminishing-returns source
            let source = analytics.clone();
            let decision: std::result::Result<_, Error> =
                engine.should_stop_with(Some(|| Ok(source.detect_diminishing_returns())));
            let decision = decision.unwrap_or_else(|e| panic!("an infallible source failed: {e:?}"));
            let _ = decision.to_value().to_json();
        }
        9 => {
            // shouldStop with an outside source returning any value (its error must change nothing)
            let report = report_value(u)?;
            let naming = gen::naming(u)?;
            let before = engine.clone();
            match engine.should_stop_with(Some(|| DiminishingReturnsReport::from_value(&report, naming))) {
                Ok(decision) => {
                    let _ = decision.to_value().to_json();
                }
                Err(e) => {
                    assert_eq!(e.error_code(), ErrorCode::InvalidAnalytics, "{e:?}");
                    unchanged(&before, engine, &e, "should_stop_with");
                }
            }
        }
        10 => {
            let summary = if u.arbitrary()? {
                engine.generate_summary()
            } else {
                let source = analytics.clone();
                let summary: std::result::Result<_, Error> =
                    engine.generate_summary_with(Some(|| Ok(source.detect_diminishing_returns())));
                summary.unwrap_or_else(|e| panic!("an infallible source failed: {e:?}"))
            };
            let _ = summary.to_value().to_json();
        }
        11 => check_snapshot(engine),
        12 => {
            if u.ratio(1u8, 4u8)? {
                engine.reset();
                assert!(engine.history().is_empty() && engine.stopping_reason().is_none());
            } else {
                check_analytics_snapshot(analytics);
            }
        }
        _ => {
            // the analytics object beside the engine: records, queries, reset
            let record = if u.ratio(1u8, 16u8)? {
                gen::value(u, 2)?
            } else {
                let Value::Object(mut entries) = gen::object(u, ANALYTICS_RECORD_FIELDS)? else { unreachable!() };
                let number = iteration_value(u, analytics.records().len() as u64 + 1)?;
                entries.insert(0, ("iteration_number".to_string(), number));
                Value::Object(entries)
            };
            let before = analytics.clone();
            let outcome = if u.ratio(1u8, 4u8)? {
                // the Rust-typed entry, any numbers
                let next = analytics.records().len() as u64 + 1;
                let mut input = earlyexit::loops::analytics::AnalyticsInput::new(
                    if u.ratio(7u8, 8u8)? { next } else { u.arbitrary()? },
                    gen::number(u)?,
                    status(u)?,
                );
                input.usage = ResourceUsage {
                    tokens_used: opt(u, gen::number)?,
                    token_cost_usd: opt(u, gen::number)?,
                    execution_time_ms: opt(u, gen::number)?,
                };
                input.timestamp = Some(NOW.to_string());
                let valid = input.quality_score.is_finite()
                    && (0.0..=100.0).contains(&input.quality_score)
                    && (1..=9_007_199_254_740_991).contains(&input.iteration_number)
                    && [input.usage.tokens_used, input.usage.token_cost_usd, input.usage.execution_time_ms]
                        .iter()
                        .all(|v| v.is_none_or(|v| v.is_finite() && v >= 0.0));
                let outcome = analytics.record(input).map(|_| ());
                assert_eq!(outcome.is_ok(), valid, "typed analytics record: {outcome:?}");
                outcome
            } else {
                analytics.record_value(&record, Naming::Snake, NOW).map(|_| ())
            };
            match outcome {
                Ok(()) => assert_eq!(analytics.records().len(), before.records().len() + 1),
                Err(e) => assert!(before == *analytics, "analytics record failed ({e:?}) but changed state"),
            }
            match u.int_in_range(0u8..=5)? {
                0 => {
                    let _ = analytics.detect_diminishing_returns().to_value().to_json();
                }
                1 => {
                    let _ = analytics.trajectory();
                }
                2 => {
                    let _ = analytics.optimal_iteration_value(u.arbitrary()?).to_json();
                }
                3 => {
                    let _ = analytics.select_best_iteration_value().to_json();
                }
                4 => {
                    let _ = analytics.summary_value(NOW).map(|s| s.to_json());
                    let _ = analytics.report(NOW, NOW);
                    let _ = analytics.quality_chart();
                }
                _ => {
                    if u.ratio(1u8, 8u8)? {
                        analytics.reset();
                    }
                }
            }
        }
    }
    Ok(())
}
