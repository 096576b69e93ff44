//! Runs every conformance vector in `tests/vectors/*.json` through the core and prints the
//! coverage table (vectors per trigger, exit reason, string template and bad-input row).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod vector_harness;

use earlyexit::{ErrorCode, Value};
use std::path::PathBuf;
use vector_harness::{decode, run_vector, vectors_dir, Coverage};

#[test]
fn every_vector_passes() {
    let dir = vectors_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        // The bad-input matrix is a table of its own, run by bad_input.rs.
        .filter(|p| p.file_name().is_some_and(|n| n != "bad_input.json"))
        .collect();
    files.sort();
    let mut coverage = Coverage::default();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let doc = decode(Value::parse_json(&text, ErrorCode::InvalidReplay, "vectors").unwrap());
        let Some(Value::Array(vectors)) = doc.get("vectors") else { panic!("{file:?} has no vectors") };
        for v in vectors {
            if let Some(Value::Array(only)) = v.get("only") {
                if !only.iter().any(|o| o.as_str() == Some("rust")) {
                    skipped += 1;
                    continue;
                }
            }
            let mut seen = Vec::new();
            match run_vector(v, &mut coverage, &mut seen) {
                Ok(()) => passed += 1,
                Err(m) => {
                    failed += 1;
                    let name = v.get("name").and_then(Value::as_str).unwrap_or("?");
                    failures.push(format!("{}: {name}: {m}", file.file_name().unwrap().to_string_lossy()));
                }
            }
        }
    }
    println!("\nconformance vectors: {passed} passed, {failed} failed, {skipped} not for rust");
    for (title, map) in [
        ("trigger", &coverage.triggers),
        ("exit reason", &coverage.exit_reasons),
        ("string template", &coverage.templates),
        ("bad-input row", &coverage.errors),
    ] {
        println!("  {title}:");
        for (k, n) in map {
            println!("    {n:5}  {k}");
        }
    }
    for f in failures.iter().take(40) {
        println!("FAIL {f}");
    }
    assert!(passed >= 300, "expected at least 300 vectors, ran {passed}");
    assert_eq!(failed, 0, "{} vectors failed", failed);
    // The seed's four, then the opt-in options' three (tests/vectors/loop_options.json).
    for t in [
        "none",
        "high_confidence",
        "quality_plateau",
        "diminishing_returns",
        "max_iterations",
        "budget_exhausted",
        "quality_regression",
    ] {
        assert!(coverage.triggers.get(t).copied().unwrap_or(0) > 0, "no vector hits trigger {t}");
    }
    for r in [
        "forced_continue",
        "lambda_too_low",
        "lambda_unstable",
        "boundaries_concentrated",
        "insufficient_confidence",
        "confident_exit",
    ] {
        assert!(coverage.exit_reasons.get(r).copied().unwrap_or(0) > 0, "no vector hits exit reason {r}");
    }
}
