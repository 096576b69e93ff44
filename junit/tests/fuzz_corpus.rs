//! Replays the committed corpus of the fuzz target `junit_read` (fuzz/corpus/junit_read/) and
//! its past findings (fuzz/regressions/junit_read/) through the harness the cargo-fuzz target
//! uses (fuzz/harness/junit_read.rs, included here), on the stable toolchain, as the core's
//! tests replay the other targets' corpora (this target needs the reader, which the core
//! cannot link).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../../fuzz/harness/junit_read.rs"]
mod junit_read;

#[path = "../../fuzz/harness/replay.rs"]
mod replay;

fn replay(kind: &str) -> usize {
    replay::replay(kind, "junit_read", junit_read::run)
}

#[test]
fn corpus_replays_cleanly() {
    assert!(replay("corpus") >= 10, "the committed corpus of junit_read is missing");
}

#[test]
fn past_findings_stay_fixed() {
    replay("regressions");
}

/// A small deterministic byte stream (xorshift): the generated-report mode reaches reports
/// with tests of every outcome, so its comparison with the reference is not vacuous.
#[test]
fn generated_reports_reach_every_outcome() {
    let (mut passed, mut failed, mut flaky, mut skipped, mut reports) = (0, 0, 0, 0, 0);
    for seed in 0..400u64 {
        let data = replay::pseudo_random(0x9e37_79b9_7f4a_7c15 + seed, 2048);
        if let Some(c) = junit_read::generated_counts(&data) {
            reports += 1;
            passed += c.passed;
            failed += c.failed;
            flaky += c.flaky;
            skipped += c.skipped;
        }
    }
    println!("generated: {reports} readings, tests passed {passed}, failed {failed}, flaky {flaky}, skipped {skipped}");
    assert!(reports >= 100 && passed > 0 && failed > 0 && flaky > 0 && skipped > 0);
}
