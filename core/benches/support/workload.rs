//! The benchmark workload of issue 7, shared by the bench binaries: agent loops of up to 10
//! iterations with varied scores (so high confidence, plateau and "go on" all occur), and
//! 4-layer test pyramids whose layers sometimes allow an early exit and sometimes do not.
//! Everything is generated up front from a fixed seed, so the timed loops only replay it.

#![allow(dead_code)] // each bench binary uses a part

use earlyexit::{IterationResult, LayerResult, VerificationStatus};

/// Iterations per trajectory, as the seed's own use (a refinement loop of 10).
pub const ITERATIONS: usize = 10;

/// A fixed RFC 3339 timestamp: the host's clock is the binding's cost, not the core's.
pub const TIMESTAMP: &str = "2026-01-01T00:00:00.000Z";

/// A small deterministic generator (64-bit LCG, top bits), enough to vary the scores.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407))
    }

    /// A number in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One iteration's inputs.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub quality_score: f64,
    pub confidence: f64,
    pub verification_status: VerificationStatus,
    pub quality_delta: f64,
}

impl Step {
    pub fn result(&self) -> IterationResult {
        IterationResult::new(self.quality_score, self.confidence, self.verification_status, self.quality_delta)
    }
}

/// `count` trajectories of `ITERATIONS` steps, cycling through four shapes: one that reaches
/// high confidence with verification, one that plateaus, one that keeps improving (never
/// stops under the defaults), and one that is confident but fails verification, then slows.
pub fn trajectories(count: usize, seed: u64) -> Vec<[Step; ITERATIONS]> {
    let mut rng = Lcg::new(seed);
    (0..count)
        .map(|t| {
            let shape = t % 4;
            let mut previous = 0.0;
            std::array::from_fn(|i| {
                let x = i as f64;
                let jitter = rng.next_unit();
                let (score, confidence, status) = match shape {
                    0 => (55.0 + 8.0 * x + 3.0 * jitter, 0.5 + 0.09 * x, VerificationStatus::Passed),
                    1 => (
                        70.0 + 12.0 * (1.0 - (-x).exp()) + 0.5 * jitter,
                        0.6 + 0.02 * jitter,
                        VerificationStatus::Passed,
                    ),
                    2 => (20.0 + 7.5 * x + 2.0 * jitter, 0.3 + 0.04 * x, VerificationStatus::Skipped),
                    _ => (40.0 + 15.0 * (x + 1.0).ln() + jitter, 0.88 + 0.05 * jitter, VerificationStatus::Failed),
                };
                let score: f64 = score.min(100.0);
                let delta = if i == 0 { 0.0 } else { score - previous };
                previous = score;
                Step {
                    quality_score: score,
                    confidence: confidence.min(1.0),
                    verification_status: status,
                    quality_delta: delta,
                }
            })
        })
        .collect()
}

/// `count` pyramids of 4 layer results (pass rate, coverage, flaky ratio): clean runs that
/// exit after the first layer, runs with failures that go on, and flaky ones in between.
pub fn pyramids(count: usize, seed: u64) -> Vec<[LayerResult; 4]> {
    let mut rng = Lcg::new(seed);
    (0..count)
        .map(|p| {
            let shape = p % 3;
            std::array::from_fn(|_| {
                let jitter = rng.next_unit();
                match shape {
                    0 => LayerResult::new(1.0, 0.9 + 0.05 * jitter, 0.0),
                    1 => LayerResult::new(0.7 + 0.2 * jitter, 0.6 + 0.2 * jitter, 0.05),
                    _ => LayerResult::new(0.97 + 0.03 * jitter, 0.8 + 0.1 * jitter, 0.02 + 0.05 * jitter),
                }
            })
        })
        .collect()
}
