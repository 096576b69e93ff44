//! How fast is a loop replay? Replays 1,000,000 synthetic iterations (100,000 runs of 10)
//! under the seed's rules (with the built-in analytics attached), the recommended preset and
//! the simple rule, and prints the time per policy. A benchmark prints figures; no test
//! asserts a time.
//!
//! `cargo run --release -p earlyexit --example replay_bench`

use std::time::Instant;

use earlyexit::loops::replay::{parse_jsonl, replay_loops, LoopPolicy, ReplayIteration, ReplayRun};
use earlyexit::loops::Observation;
use earlyexit::{Naming, Value, VerificationStatus};

/// A small deterministic PRNG (xorshift), so every run of the benchmark replays the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn synthetic_runs(runs: usize, length: usize) -> Vec<ReplayRun> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..runs)
        .map(|r| {
            let mut quality: f64 = 0.0;
            let iterations = (0..length)
                .map(|i| {
                    // Mostly climbing, sometimes flat, sometimes falling back: every trigger gets work.
                    let step = (rng.next() * 30.0 - 8.0).round();
                    let previous = quality;
                    quality = (quality + step).clamp(0.0, 100.0);
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

/// The same runs through the binding boundary: JSONL text in, JSON text out.
fn through_text(runs: &[ReplayRun]) {
    let lines: Vec<String> = runs
        .iter()
        .map(|run| {
            let items: Vec<Value> = run
                .iterations
                .iter()
                .map(|it| {
                    let o = it.observation;
                    Value::object(vec![
                        ("quality_score", Value::Number(o.quality_score)),
                        ("confidence", Value::Number(o.confidence)),
                        ("verification_status", Value::string(o.verification_status.as_str())),
                    ])
                })
                .collect();
            Value::object(vec![("id", Value::string(run.id.as_str())), ("iterations", Value::Array(items))]).to_json()
        })
        .collect();
    let text = lines.join("\n");
    let start = Instant::now();
    let parsed = parse_jsonl(&text, Naming::Js);
    let parse = start.elapsed();
    let Ok(parsed) = parsed else { return };
    let Some(policy) = LoopPolicy::preset("recommended") else { return };
    let start = Instant::now();
    let Ok(replay) = replay_loops(&parsed, &policy) else { return };
    let decide = start.elapsed();
    let start = Instant::now();
    let json = replay.to_value(&policy, Naming::Js).to_json();
    let write = start.elapsed();
    println!(
        "through text ({:.1} MB JSONL in, {:.1} MB JSON out): parse {:.1} ms, replay {:.1} ms, write {:.1} ms",
        text.len() as f64 / 1e6,
        json.len() as f64 / 1e6,
        parse.as_secs_f64() * 1e3,
        decide.as_secs_f64() * 1e3,
        write.as_secs_f64() * 1e3
    );
}

fn main() {
    let runs = synthetic_runs(100_000, 10);
    let total: usize = runs.iter().map(|r| r.iterations.len()).sum();
    println!("replaying {total} iterations ({} runs)", runs.len());
    let policies = [
        ("seed (with analytics)", LoopPolicy::preset("seed")),
        ("recommended", LoopPolicy::preset("recommended")),
        ("simple rule k=5", Some(LoopPolicy::simple_rule(5))),
    ];
    for (name, policy) in policies {
        let Some(policy) = policy else { continue };
        // Replay each policy with every decision forced through all recorded iterations too,
        // by disabling stops, so the figure covers the full 1,000,000 decisions.
        let mut never_stops = policy.clone();
        never_stops.config.high_confidence_threshold = 1.0;
        never_stops.config.min_quality_threshold = 100.0;
        never_stops.config.require_verification = true;
        never_stops.config.enable_plateau_detection = true;
        never_stops.config.plateau_improvement_threshold = 0.0;
        never_stops.config.plateau_min_quality = None;
        never_stops.config.no_improvement_patience = None;
        never_stops.analytics = policy.analytics.clone().map(|mut a| {
            a.diminishing_returns_threshold = 0.0;
            a
        });
        for (label, p) in [(name.to_string(), &policy), (format!("{name}, every iteration decided"), &never_stops)] {
            let best = (0..5)
                .map(|_| {
                    let start = Instant::now();
                    let replay = replay_loops(&runs, p);
                    let elapsed = start.elapsed();
                    std::hint::black_box(&replay);
                    (elapsed, replay.map_or(0, |r| r.summary.iterations_used))
                })
                .min_by_key(|(elapsed, _)| *elapsed);
            if let Some((elapsed, used)) = best {
                println!(
                    "{label:<48} {:>8.1} ms  ({used} iterations decided, {:.0} ns each)",
                    elapsed.as_secs_f64() * 1e3,
                    elapsed.as_secs_f64() * 1e9 / used.max(1) as f64
                );
            }
        }
    }
    through_text(&runs);
}
