//! The host layer of loop calibration. The core's calibration is single-threaded and
//! deterministic: it prepares the runs once ([`LoopCalibrationPlan`]) and evaluates each
//! candidate policy as a pure function of its index. This crate spreads the candidates over
//! every core (threads live here, never in the core; on WebAssembly one thread does all),
//! and gives the core the SHA-256 of `earlyexit-digest` and the clock, so every binding and
//! the command line calibrate alike: the answer does not depend on how many threads ran.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![warn(missing_docs)]

use earlyexit::kit::loops::replay::calibrate_value;
use earlyexit::loops::replay::{CandidateFigures, LoopCalibrationPlan};
use earlyexit::{Naming, Result, Value};
use earlyexit_digest::Sha256Hasher;

/// Every candidate's figures, in path order, computed on up to `threads` threads (candidates
/// dealt round-robin: the conservative end of a path replays longer runs than the aggressive
/// end, so contiguous chunks would not balance).
pub fn evaluate_on(plan: &LoopCalibrationPlan, threads: usize) -> Vec<CandidateFigures> {
    let n = plan.candidates();
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 || cfg!(target_arch = "wasm32") {
        return plan.evaluate_all();
    }
    let mut parts: Vec<Vec<(usize, CandidateFigures)>> = Vec::with_capacity(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..n).step_by(threads).filter_map(|i| plan.evaluate(i).map(|f| (i, f))).collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            // A worker cannot panic (the core denies panics); a lost part would be caught by
            // `finish`, which checks that every candidate has its figures.
            parts.push(handle.join().unwrap_or_default());
        }
    });
    let mut all: Vec<(usize, CandidateFigures)> = parts.into_iter().flatten().collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, f)| f).collect()
}

/// Every candidate's figures on every core this machine has.
pub fn evaluate_all_cores(plan: &LoopCalibrationPlan) -> Vec<CandidateFigures> {
    evaluate_on(plan, std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// Milliseconds since the Unix epoch, from the system clock (0 if it is before 1970).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `calibrate_loop_policy` for a binding: `runs` (an array of run objects or JSONL text),
/// `options` (`{risk?, delta?, steps?, candidates?, validDays?}`), on every core, stamped
/// at `now_ms`; answers the calibration artifact (kind `"loop"`) as a value.
pub fn calibrate_loops(runs: &Value, options: &Value, naming: Naming, now_ms: i64) -> Result<Value> {
    calibrate_value(runs, options, naming, &Sha256Hasher, now_ms, &evaluate_all_cores)
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use earlyexit::loops::replay::{LoopCalibrationRequest, ReplayIteration, ReplayRun};
    use earlyexit::loops::Observation;
    use earlyexit::VerificationStatus;

    fn runs() -> Vec<ReplayRun> {
        (0..150)
            .map(|r| {
                let iterations = (0..(r % 7 + 1))
                    .map(|i| {
                        let q = if i == r % 7 && r % 3 == 0 { 100.0 } else { ((r * 13 + i * 7) % 90) as f64 };
                        ReplayIteration {
                            observation: Observation {
                                iteration: i as u64 + 1,
                                quality_score: q,
                                confidence: q / 100.0,
                                quality_delta: 0.0,
                                verification_status: if q >= 100.0 {
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

    #[test]
    fn threads_change_nothing_but_the_time() {
        let plan = LoopCalibrationPlan::new(runs(), LoopCalibrationRequest::new(0.1, 0.1));
        let Ok(plan) = plan else { panic!("plan refused") };
        let one = plan.evaluate_all();
        for threads in [2, 3, 8] {
            assert_eq!(evaluate_on(&plan, threads), one, "{threads} threads");
        }
        assert_eq!(one.len(), plan.candidates());
    }

    #[test]
    fn the_binding_entry_answers_a_loop_artifact() {
        let text: Vec<String> = match earlyexit::kit::loops::replay::corpus_value(&runs()) {
            Value::Array(items) => items.iter().map(Value::to_json).collect(),
            _ => Vec::new(),
        };
        let value = calibrate_loops(&Value::string(text.join("\n").as_str()), &Value::Null, Naming::Snake, 0);
        let Ok(value) = value else { panic!("{value:?}") };
        assert_eq!(value.get("kind"), Some(&Value::string("loop")));
        assert_eq!(value.get("createdAt"), Some(&Value::string("1970-01-01T00:00:00.000Z")));
        let digest = value.get("corpusSha256").and_then(Value::as_str).unwrap_or("");
        assert!(earlyexit::artifact::is_sha256_hex(digest), "{digest}");
    }
}
