//! Replays the committed corpus of the fuzz target `junit_read` (fuzz/corpus/junit_read/) and
//! its past findings (fuzz/regressions/junit_read/) through the harness the cargo-fuzz target
//! uses (fuzz/harness/junit_read.rs, included here), on the stable toolchain, as the core's
//! tests replay the other targets' corpora (this target needs the reader, which the core
//! cannot link).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../../fuzz/harness/junit_read.rs"]
mod junit_read;

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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(kind).join("junit_read");
    let mut inputs = files(&dir);
    // A fuzzer running on the same corpus meanwhile may delete files it has reduced.
    inputs.retain(|path| path.exists());
    for path in &inputs {
        let Ok(data) = fs::read(path) else { continue };
        let outcome = std::panic::catch_unwind(|| junit_read::run(&data));
        assert!(outcome.is_ok(), "junit_read: {} broke an invariant (see the panic above)", path.display());
    }
    println!("fuzz {kind}: junit_read: replayed {} files", inputs.len());
    inputs.len()
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
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let (mut passed, mut failed, mut flaky, mut skipped, mut reports) = (0, 0, 0, 0, 0);
    for _ in 0..400 {
        let data: Vec<u8> = (0..2048)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
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
