//! What the store's tests share: runs, receipts and models built through the core.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::shadow::ShadowCandidate;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::{ErrorCode, Naming, Value};

/// A store URL in `dir`.
pub fn url(dir: &std::path::Path, name: &str) -> String {
    format!("sqlite:{}", dir.join(name).display())
}

/// A run of the replay form: `id`, with one iteration per quality.
pub fn run(id: &str, qualities: &[f64]) -> Value {
    let iterations: Vec<String> = qualities
        .iter()
        .map(|q| {
            let status = if *q >= 90.0 { "passed" } else { "failed" };
            format!(r#"{{"quality_score": {q}, "confidence": 0.5, "verification_status": "{status}"}}"#)
        })
        .collect();
    let text = format!(r#"{{"id": "{id}", "dataset": "d", "iterations": [{}]}}"#, iterations.join(", "));
    Value::parse_json(&text, ErrorCode::InvalidReplay, "run").unwrap()
}

/// A loop receipt of run `run_id`, from a shadow candidate that stops at the second iteration.
pub fn receipt(run_id: &str) -> Value {
    let policy =
        Value::parse_json(r#"{"any": [{"condition": "max_iterations", "limit": 2}]}"#, ErrorCode::InvalidConfig, "")
            .unwrap();
    let candidate = ShadowCandidate::from_value(&policy, Naming::Js, 0, &earlyexit_digest::Sha256Hasher).unwrap();
    let options = LoopOptions { max_iterations: Some(4), task: Some("t-1".into()), ..Default::default() };
    let mut l = Loop::with_shadow(&LoopPolicy::recommended(), options, candidate).unwrap();
    for i in 0..4 {
        let input = StepInput { good: (i == 3).then_some(true), ..Default::default() };
        let d =
            l.step(format!("out {i}"), 40.0 + i as f64 * 10.0, input, || "2026-01-01T00:00:00.000Z".into()).unwrap();
        if d.stop {
            break;
        }
    }
    l.finish(None, run_id);
    l.receipt(run_id).unwrap()
}

/// A model that learned build `id` (sequence `seq`) where layer `unit` failed when `failed`.
pub fn model_of(id: &str, seq: u64, failed: bool) -> Value {
    let ran = Value::parse_json(
        &format!(r#"[{{"name": "unit", "failed": {failed}}}, {{"name": "e2e", "failed": false}}]"#),
        ErrorCode::InvalidConfig,
        "ran",
    )
    .unwrap();
    let build =
        Value::parse_json(&format!(r#"{{"id": "{id}", "seq": {seq}}}"#), ErrorCode::InvalidConfig, "build").unwrap();
    earlyexit::kit::pyramid::policy::learn_value(&Value::Null, &ran, &build, Naming::Js).unwrap()
}

/// The model learned from all of `builds` (id, seq, failed), in one process.
pub fn learned_from(builds: &[(String, u64, bool)]) -> Value {
    let mut model = Value::Null;
    for (id, seq, failed) in builds {
        model = earlyexit::kit::pyramid::policy::merge_value(&model, &model_of(id, *seq, *failed)).unwrap();
    }
    model
}
