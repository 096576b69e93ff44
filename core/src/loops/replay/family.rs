//! The family of loop policies a calibration searches, and its one path, fixed before any
//! outcome is seen: one aggressiveness parameter `a` from 0 (most conservative) to 1 (most
//! aggressive) moves every knob monotonically towards stopping sooner.
//!
//! | knob | at `a` | from `a = 0` to `a = 1` |
//! |---|---|---|
//! | `noImprovementPatience` (no new best) | `round(12 - 11a)` | 12 to 1 |
//! | `floorPatience` (best still at 0) | `round(16 - 15a)` | 16 to 1 (never below the patience above) |
//! | `highConfidenceThreshold` (a verified pass stops at this confidence) | `1 - a`, in hundredths | 1 (full confidence) to 0 (stops at once) |
//! | plateau gate: `plateauConsecutiveCount` records within 1 point, all at or above `plateauMinQuality` | `max(2, round(12 - 10a))`, `round(100 - 30a)` | 12 records at 100 to 2 records at 70 |
//! | `maxIterations` (hard cap) | `round(40 - 30a)` | 40 to 10 |
//!
//! Fixed on the whole path: `requireVerification` (a stop on confidence needs a passed
//! verification), `minQualityThreshold` 0, the plateau measured as the computed score
//! difference in absolute points (threshold 1 point), no diminishing-returns rule, no
//! analytics, `strictIterations`, and the best iteration returned. `steps` points are taken
//! at `a = j / (steps - 1)`; consecutive points that give the same policy count once.

use crate::loops::replay::policy::LoopPolicy;
use crate::loops::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode, ReturnPolicy};

/// The path's resolution when none is given.
pub const DEFAULT_PATH_STEPS: usize = 100;

/// The most points a path may have.
pub const MAX_PATH_STEPS: usize = 100_000;

/// The family's policy at aggressiveness `a` (0..=1; see the module doc).
pub fn family_policy(a: f64) -> LoopPolicy {
    let a = a.clamp(0.0, 1.0);
    let count = |from: f64, to: f64| (from + (to - from) * a).round().max(1.0) as u64;
    let patience = count(12.0, 1.0);
    let floor_patience = count(16.0, 1.0).max(patience);
    LoopPolicy {
        config: EarlyStoppingConfig {
            high_confidence_threshold: ((1.0 - a) * 100.0).round() / 100.0,
            min_quality_threshold: 0.0,
            require_verification: true,
            enable_plateau_detection: true,
            plateau_consecutive_count: count(12.0, 2.0).max(2),
            plateau_improvement_threshold: 1.0,
            plateau_delta_source: Some(PlateauDeltaSource::Computed),
            plateau_mode: Some(PlateauMode::Absolute),
            plateau_min_quality: Some(count(100.0, 70.0) as f64),
            enable_diminishing_returns: false,
            no_improvement_patience: Some(patience),
            floor_patience: Some(floor_patience),
            max_iterations: Some(count(40.0, 10.0)),
            strict_iterations: Some(true),
            ..EarlyStoppingConfig::default()
        },
        returns: ReturnPolicy::Best,
        analytics: None,
        when: None,
    }
}

/// The family's path at `steps` points (>= 1), most conservative first, with each point's
/// aggressiveness; consecutive duplicates are dropped.
pub fn family_path(steps: usize) -> Vec<(f64, LoopPolicy)> {
    let mut path: Vec<(f64, LoopPolicy)> = Vec::new();
    let last = steps.saturating_sub(1).max(1) as f64;
    for j in 0..steps.max(1) {
        let a = if steps <= 1 { 0.0 } else { j as f64 / last };
        let policy = family_policy(a);
        if path.last().is_none_or(|(_, previous)| *previous != policy) {
            path.push((a, policy));
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_moves_towards_stopping_sooner_along_the_path() {
        let path = family_path(DEFAULT_PATH_STEPS);
        assert!(path.len() > 20, "{}", path.len());
        for pair in path.windows(2) {
            let [(_, a), (_, b)] = pair else { continue };
            let (a, b) = (&a.config, &b.config);
            assert!(b.no_improvement_patience <= a.no_improvement_patience);
            assert!(b.floor_patience <= a.floor_patience);
            assert!(b.floor_patience >= b.no_improvement_patience);
            assert!(b.high_confidence_threshold <= a.high_confidence_threshold);
            assert!(b.plateau_consecutive_count <= a.plateau_consecutive_count);
            assert!(b.plateau_min_quality <= a.plateau_min_quality);
            assert!(b.max_iterations <= a.max_iterations);
            assert!(b.validate().is_ok());
        }
        let first = &path.first().map(|p| p.1.config.clone()).unwrap_or_default();
        assert_eq!((first.no_improvement_patience, first.floor_patience), (Some(12), Some(16)));
        let last = &path.last().map(|p| p.1.config.clone()).unwrap_or_default();
        assert_eq!((last.no_improvement_patience, last.high_confidence_threshold), (Some(1), 0.0));
    }
}
