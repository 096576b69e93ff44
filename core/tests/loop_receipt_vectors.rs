//! tests/vectors/lifecycle/loop_receipts.json: a loop shadow receipt's label, the vectors the
//! Python and Node suites read too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::shadow::ShadowCandidate;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::{ErrorCode, Naming, Value, VerificationStatus};

mod test_sha256;
use test_sha256::TestSha256;

#[test]
fn receipt_label_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/lifecycle/loop_receipts.json");
    let doc = Value::parse_json(&std::fs::read_to_string(path).unwrap(), ErrorCode::InvalidConfig, "").unwrap();
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("cases") };
    assert!(cases.len() >= 5);
    for case in cases {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let shadow = ShadowCandidate::from_value(case.get("shadow").unwrap(), Naming::Js, 0, &TestSha256).unwrap();
        let options = LoopOptions {
            max_iterations: case.get("maxIterations").and_then(Value::as_f64).map(|n| n as u64),
            task: Some("t-1".into()),
            ..Default::default()
        };
        let mut l = Loop::<u32>::with_shadow(&LoopPolicy::recommended(), options, shadow).unwrap();
        let Some(Value::Array(steps)) = case.get("steps") else { panic!("{name}: steps") };
        for (i, step) in steps.iter().enumerate() {
            let verification = match step.get("verified") {
                Some(Value::Bool(true)) => Some(VerificationStatus::Passed),
                Some(Value::Bool(false)) => Some(VerificationStatus::Failed),
                _ => None,
            };
            let quality = step.get("quality").and_then(Value::as_f64).unwrap();
            let input = StepInput { verification, ..Default::default() };
            let d = l.step(i as u32, quality, input, || "2026-01-01T00:00:00.000Z".into()).unwrap();
            assert!(!d.stop, "{name}: the loop goes on");
        }
        let good = match case.get("good") {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        };
        l.finish(good, "t-1");
        let receipt = l.receipt("t-1").unwrap();
        assert_eq!(receipt.get("label"), case.get("label"), "{name}");
        let stopped = receipt.get("stoppedAt").cloned().unwrap_or(Value::Null);
        assert_eq!(Some(&stopped), case.get("wouldStop"), "{name}");
    }
}
