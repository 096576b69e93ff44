//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the same harness the
//! cargo-fuzz targets use (fuzz/harness/, included here), on the stable toolchain: every
//! input the fuzzer kept, and every past finding (fuzz/regressions/<target>/), must run
//! without a panic or a broken invariant.

#[path = "../../fuzz/harness/mod.rs"]
mod harness;

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn replay(kind: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(kind);
    let mut total = 0;
    for (name, run) in harness::TARGETS {
        let mut inputs = files(&root.join(name));
        // A fuzzer running on the same corpus meanwhile may delete files it has reduced.
        inputs.retain(|path| path.exists());
        for path in &inputs {
            let Ok(data) = fs::read(path) else { continue };
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{name}: {} broke an invariant (see the panic above)", path.display());
        }
        println!("fuzz {kind}: {name}: replayed {} files", inputs.len());
        total += inputs.len();
    }
    println!("fuzz {kind}: replayed {total} files in all");
    total
}

#[test]
fn corpora_replay_cleanly() {
    let total = replay("corpus");
    assert!(total >= harness::TARGETS.len(), "the committed corpora are missing ({total} files)");
}

#[test]
fn past_findings_stay_fixed() {
    replay("regressions");
}

/// A small deterministic byte stream (xorshift), so the depth check needs no corpus.
fn pseudo_random(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
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
