//! What shadow mode costs a loop: the time per iteration of `Loop::step` with a shadow
//! candidate against the same loop without one (the target is under 1.5x), and how many loop
//! receipts per second `append_receipts` chains (SHA-256 over each receipt's canonical JSON)
//! and `verify_receipts` checks. Medians of 7 rounds.
//!
//! `cargo run --release -p earlyexit-digest --example loop_shadow_bench [-- --quick]`

use std::time::Instant;

use earlyexit::loops::replay::LoopPolicy;
use earlyexit::loops::shadow::ShadowCandidate;
use earlyexit::loops::{Loop, LoopOptions, StepInput};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::{Naming, Value};
use earlyexit_digest::Sha256Hasher;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `runs` loops of `iterations` steps; nanoseconds per step.
/// The candidate is the enforced policy itself (`recommended`, without the cap), so it decides
/// at every iteration the loop runs (it fires exactly when the loop stops): the worst case.
fn steps(runs: usize, iterations: u64, shadow: bool) -> f64 {
    let candidate =
        ShadowCandidate::from_value(&Value::string("recommended"), Naming::Js, 0, &Sha256Hasher).expect("preset");
    let start = Instant::now();
    let mut steps_taken = 0u64;
    for r in 0..runs {
        let options = LoopOptions { max_iterations: Some(iterations), ..Default::default() };
        let policy = LoopPolicy::recommended();
        let mut l: Loop<u64> = if shadow {
            Loop::with_shadow(&policy, options, candidate.clone()).expect("capped")
        } else {
            Loop::new(&policy, options).expect("valid")
        };
        for i in 0..iterations {
            let quality = 30.0 + ((i * 7 + r as u64) % 50) as f64;
            let input = StepInput { confidence: Some(0.5), ..Default::default() };
            steps_taken += 1;
            let d = l.step(i, quality, input, || "2026-01-01T00:00:00.000Z".into()).expect("valid step");
            if std::hint::black_box(d).stop {
                break;
            }
        }
    }
    start.elapsed().as_nanos() as f64 / (steps_taken as f64).max(1.0)
}

fn receipts(n: usize) -> Vec<Value> {
    let candidate = ShadowCandidate::from_value(&Value::string("seed"), Naming::Js, 0, &Sha256Hasher).expect("preset");
    (0..n)
        .map(|i| {
            let options = LoopOptions { max_iterations: Some(6), ..Default::default() };
            let mut l: Loop<u64> =
                Loop::with_shadow(&LoopPolicy::recommended(), options, candidate.clone()).expect("capped");
            for k in 0..6u64 {
                let input = StepInput { confidence: Some(0.9), good: Some(k == 3), ..Default::default() };
                l.step(k, 60.0 + k as f64, input, || "2026-01-01T00:00:00.000Z".into()).expect("valid");
            }
            l.receipt(&format!("run-{i}")).expect("shadow")
        })
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (rounds, runs, n) = if quick { (3, 200, 1_000) } else { (7, 2_000, 10_000) };
    let iterations = 50;
    let mut plain = Vec::new();
    let mut shadowed = Vec::new();
    for _ in 0..rounds {
        plain.push(steps(runs, iterations, false));
        shadowed.push(steps(runs, iterations, true));
    }
    let (p, s) = (median(plain), median(shadowed));
    println!(
        "loop step, recommended with a cap, {runs} runs x {iterations} iterations: {p:.0} ns/iteration enforced, \
         {s:.0} ns with recommended in shadow deciding every iteration ({:.2}x, target < 1.5x)",
        s / p
    );
    let batch = receipts(n);
    let mut append = Vec::new();
    let mut verify = Vec::new();
    let mut log = String::new();
    for _ in 0..rounds {
        let start = Instant::now();
        log = append_receipts("", &batch, &Sha256Hasher).expect("appends");
        append.push(n as f64 / start.elapsed().as_secs_f64());
        let start = Instant::now();
        let check = verify_receipts(&log, &Sha256Hasher);
        assert!(check.valid() && check.receipts == n);
        verify.push(n as f64 / start.elapsed().as_secs_f64());
    }
    println!(
        "loop receipts: {:.0} appended/s, {:.0} verified/s ({n} receipts, {:.0} bytes each)",
        median(append),
        median(verify),
        log.len() as f64 / n as f64
    );
}
