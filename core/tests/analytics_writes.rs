//! upstream's `iterations` is plain data its users write to: a record pushed by hand, a score
//! written afterwards (which leaves the stored deltas as they were), a delta written. The core
//! takes such a history as it is: each stored record keeps its `quality_delta`, which detection
//! and the trajectory read (as upstream's do), in an assignment, a snapshot and a saved
//! summary; a written record is checked as a record (`invalid_result`, named
//! `iterations[i].field`), and a bad one changes nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::kit;
use earlyexit::loops::analytics::AnalyticsRecord;
use earlyexit::{ErrorCode, ErrorKind, IterationAnalytics, Naming, Value};

fn json(text: &str) -> Value {
    Value::parse_json(text, ErrorCode::InvalidConfig, "test").unwrap()
}

fn record(n: u64, q: f64, delta: f64) -> String {
    format!(
        r#"{{"iteration_number":{n},"timestamp":"2026-01-01T00:00:0{n}.000Z","quality_score":{q},"quality_delta":{delta},"verification_status":"passed","reflections":[]}}"#
    )
}

fn analytics(records: &[(f64, f64)]) -> IterationAnalytics {
    let mut a = IterationAnalytics::from_config_value(&Value::Null, Naming::Js).unwrap();
    a.assign("startTime", &Value::string("2026-01-01T00:00:00.000Z"), Naming::Js).unwrap();
    let list: Vec<String> = records.iter().enumerate().map(|(i, (q, d))| record(i as u64 + 1, *q, *d)).collect();
    a.assign("iterations", &json(&format!("[{}]", list.join(","))), Naming::Js).unwrap();
    a
}

#[test]
fn an_assigned_history_keeps_each_stored_delta_and_detection_reads_it() {
    // Scores 60, 95, 96 with the deltas a write of record 2's score left behind (+2, +1):
    // upstream's scan sees |2|/60 and |1|/95, both under 5%: detected at iteration 3.
    let a = analytics(&[(60.0, 0.0), (95.0, 2.0), (96.0, 1.0)]);
    let deltas: Vec<f64> = a.records().iter().map(|r| r.quality_delta).collect();
    assert_eq!(deltas, [0.0, 2.0, 1.0]);
    let report = a.detect_diminishing_returns();
    assert!(report.detected);
    assert_eq!(report.reason, "2 consecutive iterations with <5% improvement");
    // The same scores with the score differences as deltas: no detection.
    assert!(!analytics(&[(60.0, 0.0), (95.0, 35.0), (96.0, 1.0)]).detect_diminishing_returns().detected);
    // The trajectory counts the stored deltas too (two steps of -40: declining).
    assert_eq!(analytics(&[(60.0, 0.0), (61.0, -40.0), (62.0, -40.0)]).trajectory().as_str(), "declining");
}

#[test]
fn a_new_record_takes_its_delta_from_the_stored_previous_score() {
    let mut a = analytics(&[(60.0, 0.0), (95.0, 2.0)]);
    let input = json(r#"{"iteration_number":3,"quality_score":97,"verification_status":"passed"}"#);
    let stored = a.record_value(&input, Naming::Js, "2026-01-01T00:00:03.000Z").unwrap();
    assert_eq!(stored.quality_delta, 2.0);
}

#[test]
fn snapshots_and_saved_summaries_keep_the_stored_deltas() {
    let a = analytics(&[(60.0, 0.0), (95.0, 250.5), (96.0, -3.0)]);
    let restored = IterationAnalytics::from_snapshot(&a.to_snapshot()).unwrap();
    assert_eq!(restored.records(), a.records());
    let mut summary_source = a.clone();
    let summary = summary_source.summary_value("2026-01-02T00:00:00.000Z").unwrap();
    let loaded = IterationAnalytics::from_summary(&summary, &Value::Null, Naming::Js, None, false).unwrap();
    assert_eq!(loaded.records(), a.records());
    // A lone record (Python's pickles of results) reads any finite delta back.
    let value = a.records()[1].to_value();
    assert_eq!(AnalyticsRecord::from_value(&value, "record").unwrap(), a.records()[1]);
}

#[test]
fn a_written_history_is_checked_as_records_and_a_bad_one_changes_nothing() {
    let mut a = analytics(&[(60.0, 0.0), (62.0, 2.0)]);
    let before = a.clone();
    for (given, code, kind, field) in [
        (
            format!("[{},{}]", record(1, 60.0, 0.0), record(2, 101.0, 41.0)),
            ErrorCode::InvalidResult,
            ErrorKind::Range,
            "iterations[1].quality_score",
        ),
        (
            format!("[{}]", record(1, 60.0, 0.0).replace("\"reflections\":[]", "\"confidence\":1,\"reflections\":[]")),
            ErrorCode::UnknownOption,
            ErrorKind::Type,
            "iterations[0].confidence",
        ),
        (
            format!("[{}]", record(1, 60.0, 0.0).replace(",\"quality_delta\":0", "")),
            ErrorCode::InvalidResult,
            ErrorKind::Type,
            "iterations[0].quality_delta",
        ),
        (format!("[{},7]", record(1, 60.0, 0.0)), ErrorCode::InvalidResult, ErrorKind::Type, "iterations[1]"),
        ("\"none\"".to_string(), ErrorCode::InvalidResult, ErrorKind::Type, "iterations"),
    ] {
        let error = a.assign("iterations", &json(&given), Naming::Js).unwrap_err();
        assert_eq!((error.error_code(), error.kind(), error.field()), (code, kind, field), "{given}");
        assert_eq!(a, before);
    }
}

#[test]
fn one_written_record_is_checked_at_its_place() {
    let path = "iterations[4]";
    kit::loops::analytics::check_written_record(&json(&record(5, 70.0, -30.0)), path, Naming::Js).unwrap();
    for (given, code, field) in [
        (
            record(5, 70.0, 1.0).replace("\"passed\"", "\"PASSED\""),
            ErrorCode::InvalidResult,
            "iterations[4].verification_status",
        ),
        (
            record(5, 70.0, 1.0).replace("\"reflections\":[]", "\"reflections\":[\"a\",2]"),
            ErrorCode::InvalidResult,
            "iterations[4].reflections[1]",
        ),
        (record(5, 70.0, 1.0).replace("{", "{\"note\":1,"), ErrorCode::UnknownOption, "iterations[4].note"),
        ("null".to_string(), ErrorCode::InvalidResult, "iterations[4]"),
    ] {
        let error = kit::loops::analytics::check_written_record(&json(&given), path, Naming::Js).unwrap_err();
        assert_eq!((error.error_code(), error.field()), (code, field), "{given}");
    }
}
