//! How fast is a loop calibration? 500 candidate policies (the family's path) replayed over
//! 15,000 synthetic runs of 10 iterations: the replay's hot path on one core (decisions per
//! second; wall-clock and the thread's CPU time, which a shared machine does not inflate),
//! then the candidates on every core (`evaluate_all_cores`, what the bindings and
//! the command line run). A benchmark prints figures; no test asserts a time.
//!
//! `cargo run --release -p earlyexit-calibrate --example calibration_grid`

use std::time::Instant;

#[path = "../../core/benches/support/cpu_time.rs"]
mod cpu_time;

use earlyexit::loops::replay::{LoopCalibrationPlan, LoopCalibrationRequest, ReplayIteration, ReplayRun};
use earlyexit::loops::Observation;
use earlyexit::VerificationStatus;
use earlyexit_calibrate::{evaluate_all_cores, evaluate_on};

/// xorshift: every run of the benchmark replays the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Runs that mostly climb, sometimes stall at 0 or fall back, and pass now and then.
fn synthetic_runs(runs: usize, length: usize) -> Vec<ReplayRun> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..runs)
        .map(|r| {
            let mut quality: f64 = 0.0;
            let iterations = (0..length)
                .map(|i| {
                    let previous = quality;
                    quality = (quality + (rng.next() * 30.0 - 8.0).round()).clamp(0.0, 100.0);
                    let passed = quality >= 100.0 || rng.next() < 0.02;
                    ReplayIteration {
                        observation: Observation {
                            iteration: i as u64 + 1,
                            quality_score: quality,
                            confidence: quality / 100.0,
                            quality_delta: quality - previous,
                            verification_status: if passed {
                                VerificationStatus::Passed
                            } else {
                                VerificationStatus::Failed
                            },
                        },
                        usage: None,
                        good: None,
                        behavior: None,
                    }
                })
                .collect();
            ReplayRun { id: r.to_string(), dataset: None, split: None, iterations }
        })
        .collect()
}

fn main() {
    let mut request = LoopCalibrationRequest::new(0.025, 0.1);
    // 500 points of the path, duplicates kept: a grid of exactly 500 candidates.
    request.path =
        (0..500).map(|j| (j as f64 / 499.0, earlyexit::kit::loops::replay::family_policy(j as f64 / 499.0))).collect();
    let Ok(plan) = LoopCalibrationPlan::new(synthetic_runs(15_000, 10), request) else {
        eprintln!("calibration refused the synthetic runs");
        std::process::exit(1)
    };
    let best = |f: &dyn Fn() -> Vec<earlyexit::loops::replay::CandidateFigures>| {
        (0..3)
            .map(|_| {
                let start = Instant::now();
                let figures = f();
                (start.elapsed(), figures.iter().map(|x| x.decisions).sum::<u64>())
            })
            .min_by_key(|(t, _)| *t)
            .unwrap_or_default()
    };
    let (one, decisions) = best(&|| evaluate_on(&plan, 1));
    // The same on the thread's CPU time: what one core does, whatever else the machine runs.
    let cpu = (0..3)
        .map(|_| {
            let t0 = cpu_time::now();
            std::hint::black_box(evaluate_on(&plan, 1));
            cpu_time::now() - t0
        })
        .min()
        .unwrap_or_default();
    println!("calibration grid: {} candidates x 15,000 runs = {decisions} loop decisions", plan.candidates());
    println!(
        "  one core:   {:>7.0} ms wall  ({:.1} M decisions/s); {:.0} ms CPU ({:.1} M decisions/s per core)",
        one.as_secs_f64() * 1e3,
        decisions as f64 / one.as_secs_f64() / 1e6,
        cpu.as_secs_f64() * 1e3,
        decisions as f64 / cpu.as_secs_f64() / 1e6
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (every, _) = best(&|| evaluate_all_cores(&plan));
    println!(
        "  {threads} threads:  {:>7.0} ms  ({:.1} M decisions/s)",
        every.as_secs_f64() * 1e3,
        decisions as f64 / every.as_secs_f64() / 1e6
    );
    let start = Instant::now();
    let calibration = plan.finish(evaluate_all_cores(&plan));
    println!("  whole calibration (every core, with the test): {:.0} ms", start.elapsed().as_secs_f64() * 1e3);
    std::hint::black_box(&calibration);
    // The same 500 candidates written as their condition trees (composed candidates): what
    // the tree costs against the config's compiled order, on one core's CPU time.
    let mut trees = LoopCalibrationRequest::new(0.025, 0.1);
    trees.path = (0..500)
        .map(|j| {
            let mut policy = earlyexit::kit::loops::replay::family_policy(j as f64 / 499.0);
            policy.when = Some(earlyexit::loops::StopCondition::from_config(&policy.config));
            (j as f64 / 499.0, policy)
        })
        .collect();
    let Ok(tree_plan) = LoopCalibrationPlan::new(synthetic_runs(15_000, 10), trees) else {
        eprintln!("calibration refused the synthetic runs");
        std::process::exit(1)
    };
    let tree_cpu = (0..3)
        .map(|_| {
            let t0 = cpu_time::now();
            std::hint::black_box(evaluate_on(&tree_plan, 1));
            cpu_time::now() - t0
        })
        .min()
        .unwrap_or_default();
    println!(
        "  as trees, one core: {:.0} ms CPU ({:.1} M decisions/s per core)",
        tree_cpu.as_secs_f64() * 1e3,
        decisions as f64 / tree_cpu.as_secs_f64() / 1e6
    );
}
