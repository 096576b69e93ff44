//! The streaming entry points (a host reading a JSONL file line by line, or several files)
//! answer exactly what the whole-text entry points answer: the same runs, outcomes, summary,
//! model and errors.

use earlyexit::kit;
use earlyexit::pyramid::replay::PyramidReplayStream;
use earlyexit::value::jsonl::JsonlLines;
use earlyexit::{pyramid, LoopReplayStream, Naming, Value};

fn loop_text() -> String {
    let mut text = String::from("\u{feff}");
    for run in 0..40u32 {
        let mut iterations = Vec::new();
        for i in 0..(3 + run % 9) {
            let q = ((run * 7 + i * 13) % 100) as f64;
            let status = if q > 80.0 { "passed" } else { "failed" };
            iterations.push(format!(
                r#"{{"quality_score": {q}, "confidence": {c}, "verification_status": "{status}", "tokens_used": {t}}}"#,
                c = q / 100.0,
                t = 10 * i
            ));
        }
        text.push_str(&format!("{{\"id\": \"r{run}\", \"iterations\": [{}]}}\r\n", iterations.join(", ")));
        if run % 5 == 0 {
            text.push_str("\n   \n");
        }
    }
    text
}

fn pyramid_text() -> String {
    let mut text = String::new();
    for run in 0..30u32 {
        let layers: Vec<String> = (0..4u32)
            .map(|j| {
                let failed = (run + j) % 7 == 0;
                format!(r#"{{"name": "l{j}", "durationMs": {}, "failed": {failed}}}"#, 100 * (j + 1) + run)
            })
            .collect();
        text.push_str(&format!("{{\"id\": \"p{run}\", \"layers\": [{}]}}\n", layers.join(", ")));
    }
    text
}

/// Feeds `text` as `parts` files split at line boundaries.
fn lines_of(text: &str, parts: usize) -> Vec<Vec<String>> {
    let all: Vec<&str> = text.split('\n').collect();
    let per = all.len().div_ceil(parts);
    all.chunks(per).map(|c| c.iter().map(|l| l.to_string()).collect()).collect()
}

#[test]
fn loop_stream_equals_whole_text() {
    let text = loop_text();
    for policy in ["seed", "recommended"] {
        let policy_value = Value::string(policy);
        let whole = kit::loops::replay::replay_value(&Value::string(text.clone()), &policy_value, Naming::Js).unwrap();
        let mut stream = LoopReplayStream::from_policy_value(&policy_value, Naming::Js).unwrap();
        let mut lines = JsonlLines::new();
        let mut runs = Vec::new();
        for line in text.split('\n') {
            if let Some((run, path)) = lines
                .line(line, |l, p| Ok((kit::loops::replay::read_run_line(l, Naming::Js, p)?, p.to_string())))
                .unwrap()
            {
                runs.push(stream.replay(&run, &path).unwrap().to_value());
            }
        }
        let streamed = Value::object(vec![
            ("policy", stream.policy().to_value(Naming::Js)),
            ("summary", stream.summary().to_value()),
            ("runs", Value::Array(runs)),
        ]);
        assert_eq!(streamed.to_json(), whole.to_json(), "policy {policy}");
    }
}

#[test]
fn pyramid_stream_equals_whole_text() {
    let text = pyramid_text();
    for policy in ["default", "fail_fast", "risk_bounded"] {
        let options = Value::object(vec![("policy", Value::string(policy))]);
        let whole = kit::pyramid::replay::replay_value(&Value::string(text.clone()), &options, Naming::Js).unwrap();
        let (mut stream, name) = PyramidReplayStream::from_options(&options, Naming::Js).unwrap();
        let mut lines = JsonlLines::new();
        let mut rows = Vec::new();
        for file in lines_of(&text, 3) {
            lines.start_text();
            for line in file {
                if let Some(run) =
                    lines.line(&line, |l, p| kit::pyramid::replay::read_run_line(l, Naming::Js, p)).unwrap()
                {
                    rows.push(kit::pyramid::replay::run_value(&stream.replay(&run).unwrap(), Naming::Js));
                }
            }
        }
        let streamed = Value::object(vec![
            ("policy", Value::string(name)),
            ("runs", Value::Array(rows)),
            ("summary", kit::pyramid::replay::summary_value(&stream.summary(), Naming::Js)),
            ("model", stream.model().map_or(Value::Null, |m| m.to_value(Naming::Js))),
        ]);
        assert_eq!(streamed.to_json(), whole.to_json(), "policy {policy}");
    }
}

#[test]
fn stream_errors_name_the_run_and_its_line() {
    let text = "\n{\"id\": \"a\", \"iterations\": [{\"quality_score\": 1, \"confidence\": 1, \"verification_status\": \"passed\"}]}\n{oops\n";
    let whole = kit::loops::replay::replay_value(&Value::string(text), &Value::Null, Naming::Js).unwrap_err();
    let mut lines = JsonlLines::new();
    let mut error = None;
    for line in text.split('\n') {
        if let Err(e) = lines.line(line, |l, p| kit::loops::replay::read_run_line(l, Naming::Js, p)) {
            error = Some(e);
            break;
        }
    }
    let error = error.unwrap();
    assert_eq!((error.code(), error.field(), error.message()), (whole.code(), whole.field(), whole.message()));
    assert!(error.message().starts_with("runs[1] (line 3): "), "{}", error.message());
    // Bytes that are not UTF-8 are named with the run and its line.
    let mut lines = JsonlLines::new();
    let e = lines
        .line_bytes(b"{\"id\": \"\xff\"}", |l, p| kit::loops::replay::read_run_line(l, Naming::Js, p))
        .unwrap_err();
    assert_eq!(e.code(), "invalid_replay");
    assert!(e.message().starts_with("runs[0] (line 1): runs[0] is not UTF-8 text"), "{}", e.message());
}

#[test]
fn calibration_request_equals_calibrate_value() {
    let text = pyramid_text();
    let options = Value::object(vec![("risk", Value::Number(0.2)), ("delta", Value::Number(0.2))]);
    let whole = kit::pyramid::replay::calibrate_value(&Value::string(text.clone()), &options, Naming::Js).unwrap();
    let request = pyramid::replay::CalibrationRequest::from_options(&options, Naming::Js).unwrap();
    let runs: Vec<_> = pyramid::replay::parse_runs_jsonl(&text, Naming::Js)
        .unwrap()
        .into_iter()
        .map(pyramid::replay::RecordedRun::for_calibration)
        .collect();
    assert_eq!(request.run(&runs).unwrap().to_json(), whole.to_json());
}
