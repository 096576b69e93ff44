//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the same harness the
//! cargo-fuzz targets use (fuzz/harness/, included here), on the stable toolchain: every
//! input the fuzzer kept, and every past finding (fuzz/regressions/<target>/), must run
//! without a panic or a broken invariant.

#[path = "../../fuzz/harness/mod.rs"]
mod harness;

#[path = "../../fuzz/harness/replay.rs"]
mod replay;

use replay::pseudo_random;

fn replay_all(kind: &str) -> usize {
    let total = harness::TARGETS.iter().map(|(name, run)| replay::replay(kind, name, *run)).sum();
    println!("fuzz {kind}: replayed {total} files in all");
    total
}

#[test]
fn corpora_replay_cleanly() {
    let total = replay_all("corpus");
    assert!(total >= harness::TARGETS.len(), "the committed corpora are missing ({total} files)");
}

#[test]
fn past_findings_stay_fixed() {
    replay_all("regressions");
}

/// The generators reach deep states from random bytes (not just the first error): engines
/// with several records and pyramid runs that finish. Guards the harness against a change
/// that would make every fuzz input bounce off validation.
#[test]
fn harness_reaches_deep_states() {
    let (mut longest_history, mut analytics_records, mut finished_runs) = (0, 0, 0);
    for seed in 0..300u64 {
        let data = pseudo_random(seed + 1, 4096);
        let mut u = arbitrary::Unstructured::new(&data);
        if let Ok((engine, analytics)) = harness::loop_ops::build(&mut u) {
            longest_history = longest_history.max(engine.history().len());
            analytics_records = analytics_records.max(analytics.records().len());
        }
        let mut u = arbitrary::Unstructured::new(&data);
        if let Ok(mut run) = harness::pyramid_run::start(&mut u) {
            let _ = harness::pyramid_run::steps(&mut u, &mut run);
            finished_runs += usize::from(run.is_done() && !run.layers().is_empty());
        }
    }
    println!("harness depth: longest history {longest_history}, analytics records {analytics_records}, finished runs {finished_runs}/300");
    assert!(longest_history >= 5, "loop engines stay shallow: {longest_history}");
    assert!(analytics_records >= 2, "analytics stays empty: {analytics_records}");
    assert!(finished_runs >= 10, "pyramid runs rarely finish: {finished_runs}");
}
