//! Criterion benchmarks of the core (issue 7): `cargo bench -p earlyexit --bench core`.
//!
//! * `loop/record_and_decide`: one `record` + `should_stop` pair, the engine reset when the
//!   decision says stop or after 10 records, as a refinement loop uses it (target: <= 100 ns);
//! * `loop/trajectory`: the seed's workload, a fresh engine, up to 10 pairs (stopping when
//!   the decision says so), then `generate_summary`;
//! * `loop/decision_at_history/N`: `should_stop` alone with N records already recorded, for
//!   N = 10 and 1,000,000 (the rules read the last window only, so both should be equal);
//! * `pyramid/run`: a 4-layer `PyramidRun` driven to its result;
//! * `reference/reason_string`: one `String` of a go-on reason made and dropped, for scale.
//!
//! Every figure is the benchmarking thread's CPU time (support/cpu_time.rs), so that other
//! processes on a shared machine do not stretch the samples.
//!
//! `scripts/bench.sh` reads the medians and spreads from `criterion/*/new/estimates.json` in
//! its target dir. criterion is a dev-dependency only under `--cfg earlyexit_bench` (see
//! core/Cargo.toml), so without that flag this file is a stub that says how to run it.

#[cfg(not(earlyexit_bench))]
fn main() {
    eprintln!("the criterion benches need RUSTFLAGS=\"--cfg earlyexit_bench\": run scripts/bench.sh (make bench)");
}

#[cfg(earlyexit_bench)]
#[path = "support/workload.rs"]
mod workload;

#[cfg(earlyexit_bench)]
#[path = "support/cpu_time.rs"]
mod cpu_time;

#[cfg(earlyexit_bench)]
mod benches {

    use std::hint::black_box;
    use std::time::Duration;

    use crate::cpu_time;

    use criterion::{criterion_group, Bencher, BenchmarkId, Criterion};
    use earlyexit::{Action, EarlyStopping, EarlyStoppingConfig, ExitConfig, LayerSpec, PyramidRun};

    use crate::workload::{self, ITERATIONS, TIMESTAMP};

    fn now() -> String {
        TIMESTAMP.to_string()
    }

    /// `Bencher::iter` timed with the thread's CPU time instead of the wall clock.
    fn on_cpu<O>(b: &mut Bencher<'_>, mut routine: impl FnMut() -> O) {
        b.iter_custom(|iters| {
            let start = cpu_time::now();
            for _ in 0..iters {
                black_box(routine());
            }
            cpu_time::now() - start
        })
    }

    fn engine() -> EarlyStopping {
        match EarlyStopping::new(EarlyStoppingConfig::default()) {
            Ok(engine) => engine,
            Err(e) => panic!("default config rejected: {e:?}"),
        }
    }

    fn record_and_decide(c: &mut Criterion) {
        let trajectories = workload::trajectories(1024, 7);
        c.bench_function("loop/record_and_decide", |b| {
            b.iter_custom(|iters| {
                // As a loop uses it: record and decide until the decision says stop (or 10
                // iterations), then `reset` for the next trajectory. One iteration = one pair.
                let mut es = engine();
                let (mut trajectory, mut step) = (0usize, 0usize);
                let start = cpu_time::now();
                for _ in 0..iters {
                    let steps = &trajectories[trajectory];
                    if es.record(step as u64 + 1, steps[step].result(), now).is_err() {
                        panic!("valid record rejected");
                    }
                    step += 1;
                    if es.should_stop().stop || step == ITERATIONS {
                        es.reset();
                        step = 0;
                        trajectory = (trajectory + 1) % trajectories.len();
                    }
                }
                cpu_time::now() - start
            })
        });
    }

    fn trajectory(c: &mut Criterion) {
        let trajectories = workload::trajectories(1024, 11);
        let mut next = 0usize;
        c.bench_function("loop/trajectory", |b| {
            on_cpu(b, || {
                let steps = &trajectories[next % trajectories.len()];
                next += 1;
                let mut es = engine();
                for (i, step) in steps.iter().enumerate() {
                    if es.record(i as u64 + 1, step.result(), now).is_err() {
                        panic!("valid record rejected");
                    }
                    if es.should_stop().stop {
                        break;
                    }
                }
                black_box(es.generate_summary())
            })
        });
    }

    fn decision_at_history(c: &mut Criterion) {
        let mut group = c.benchmark_group("loop/decision_at_history");
        let steps: Vec<_> = workload::trajectories(1024, 13).iter().flatten().copied().collect();
        for size in [10usize, 1_000_000] {
            let mut es = engine();
            for i in 0..size {
                // Keep improving so no record stops the loop: the decision reads every rule.
                let mut step = steps[i % steps.len()];
                step.confidence = 0.3;
                step.quality_delta = 50.0;
                if es.record(i as u64 + 1, step.result(), now).is_err() {
                    panic!("valid record rejected");
                }
            }
            group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, _| on_cpu(b, || es.should_stop()));
        }
        group.finish();
    }

    /// A decision under a stop policy: the seed config's own tree (what composition costs
    /// over the config's fixed order) and a composed tree of 8 conditions, none of which fires
    /// (every condition is evaluated), at histories of 10 and 1,000,000: O(the conditions'
    /// windows), not O(history). (A condition that fires costs its reason string and path.)
    fn policy_decision(c: &mut Criterion) {
        let mut group = c.benchmark_group("loop/policy_decision");
        let steps: Vec<_> = workload::trajectories(1024, 13).iter().flatten().copied().collect();
        let composed = earlyexit::StopCondition::from_value(
            &earlyexit::Value::parse_json(
                r#"{"any": [{"condition": "max_total_tokens", "limit": 1e15}, {"condition": "max_iterations", "limit": 9007199254740991},
                    {"not_before": 3, "then": {"any": ["high_confidence",
                        {"all": [{"condition": "quality_plateau", "count": 5}, {"condition": "no_improvement", "patience": 4}]},
                        {"k_of": 2, "of": [{"condition": "quality_regression", "tolerance": 100}, {"condition": "quality_plateau", "count": 3, "mode": "absolute", "threshold": 1}, "diminishing_returns"]}]}}]}"#,
                earlyexit::ErrorCode::InvalidConfig,
                "policy",
            )
            .unwrap_or(earlyexit::Value::Null),
            "",
            earlyexit::ErrorCode::InvalidConfig,
        );
        let Ok(composed) = composed else { panic!("valid policy rejected") };
        let trees = [
            ("seed_tree", earlyexit::StopCondition::from_config(&EarlyStoppingConfig::default())),
            ("composed", composed),
        ];
        for (name, when) in trees {
            for size in [10usize, 1_000_000] {
                let mut es = engine();
                es.set_policy(Some(earlyexit::StopPolicy {
                    when: when.clone(),
                    returns: earlyexit::ReturnPolicy::Last,
                }));
                for i in 0..size {
                    let mut step = steps[i % steps.len()];
                    step.confidence = 0.3;
                    step.quality_delta = 50.0;
                    if es.record(i as u64 + 1, step.result(), now).is_err() {
                        panic!("valid record rejected");
                    }
                }
                group.bench_with_input(BenchmarkId::new(name, size), &size, |b, _| on_cpu(b, || es.should_stop()));
            }
        }
        group.finish();
    }

    /// A decision under a stop policy with behaviour detector conditions (all five, none of
    /// which fires, beside `max_iterations`) over records that carry behaviour fields, at
    /// histories of 10 and 1,000,000: O(the conditions' windows), not O(history). The
    /// policy's state is folded directly (the engine's history of a million records with
    /// their fields would only cost memory here).
    fn behavior_policy_decision(c: &mut Criterion) {
        use earlyexit::loops::behavior::BehaviorIteration;
        use earlyexit::loops::Observation;
        let mut group = c.benchmark_group("loop/behavior_policy_decision");
        let when = earlyexit::StopCondition::from_value(
            &earlyexit::Value::parse_json(
                r#"{"any": [{"condition": "stuck", "no_progress_iterations": 5}, "oscillation",
                    {"condition": "deviation", "objective": "make the parser fast"},
                    {"condition": "resource_burn", "max_iterations": 9007199254740991}, "test_regression",
                    {"condition": "max_iterations", "limit": 9007199254740991}]}"#,
                earlyexit::ErrorCode::InvalidConfig,
                "policy",
            )
            .unwrap_or(earlyexit::Value::Null),
            "",
            earlyexit::ErrorCode::InvalidConfig,
        );
        let Ok(when) = when else { panic!("valid policy rejected") };
        let policy = earlyexit::StopPolicy { when, returns: earlyexit::ReturnPolicy::Last };
        let config = EarlyStoppingConfig::default();
        for size in [10u64, 1_000_000] {
            let mut state = policy.state();
            for i in 1..=size {
                // Distinct errors, new files, learnings on the objective, tests passing:
                // every detector reads its window and none detects.
                let behavior = BehaviorIteration {
                    error: Some(format!("E{}", i % 7)),
                    completion_percentage: Some((i % 100) as f64),
                    artifacts_modified: Some(vec![format!("src/f{i}.rs")]),
                    learnings: Some("made the parser fast".to_string()),
                    tests_passing: Some(true),
                    coverage_percent: Some(80.0),
                    ..BehaviorIteration::default()
                };
                let observation = Observation {
                    iteration: i,
                    quality_score: 50.0,
                    confidence: 0.3,
                    quality_delta: 50.0,
                    verification_status: earlyexit::VerificationStatus::Failed,
                };
                policy.observe(&mut state, observation, None, Some(&behavior), config.min_quality_threshold);
            }
            let none = None::<fn() -> Result<earlyexit::DiminishingReturnsReport, ()>>;
            if policy.decide(&config, &state, none).map(|d| d.stop) != Ok(false) {
                panic!("a detector fired in the benchmark's workload");
            }
            group.bench_with_input(BenchmarkId::new("detectors", size), &size, |b, _| {
                on_cpu(b, || policy.decide(&config, &state, None::<fn() -> Result<_, ()>>))
            });
        }
        group.finish();
    }

    fn pyramid(c: &mut Criterion) {
        let pyramids = workload::pyramids(999, 17);
        let names = ["unit", "integration", "contract", "e2e"];
        let costs = [2_000.0, 30_000.0, 45_000.0, 240_000.0];
        let specs: Vec<LayerSpec> = names
            .iter()
            .zip(costs)
            .map(|(name, cost)| LayerSpec { name: (*name).to_string(), cost_ms: Some(cost) })
            .collect();
        let mut next = 0usize;
        c.bench_function("pyramid/run", |b| {
            on_cpu(b, || {
                let results = &pyramids[next % pyramids.len()];
                next += 1;
                let Ok(mut run) = PyramidRun::start(ExitConfig::default(), 4, specs.clone()) else {
                    panic!("valid pyramid rejected");
                };
                while let Action::Run(layer) | Action::Verify(layer) = run.next() {
                    if run.submit(layer, results[layer].clone()).is_err() {
                        panic!("valid layer result rejected");
                    }
                }
                black_box(run.result())
            })
        });
    }

    /// For scale: what one heap allocation costs here. A go-on decision allocates its reason
    /// (`StoppingDecision::reason` is a `String`), a record its timestamp.
    fn reference(c: &mut Criterion) {
        c.bench_function("reference/reason_string", |b| {
            on_cpu(b, || String::from(black_box(earlyexit::loops::REASON_CONTINUE)))
        });
    }

    fn config() -> Criterion {
        // `--quick` (scripts/bench.sh --quick) passes shorter times on the command line, which
        // override these defaults.
        Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3))
    }

    criterion_group! {
        name = benches;
        config = config();
        targets = record_and_decide, trajectory, decision_at_history, policy_decision, behavior_policy_decision, pyramid, reference
    }
}

#[cfg(earlyexit_bench)]
criterion::criterion_main!(benches::benches);
