//! Replay speed on synthetic runs: `cargo run --release --example pyramid_replay_bench [RUNS]`.
//! Prints runs and layers per second for the ADR's DEFAULT, fail-fast, risk_bounded (learning
//! what ran) and shadow mode, and the time of one calibration. Figures, not assertions.

use earlyexit::pyramid::policy::{OutcomeModel, PolicyConfig};
use earlyexit::pyramid::replay::{
    calibrate, replay, shadow, Learn, RecordedLayer, RecordedRun, ReplayPolicy, DEFAULT_GRID,
};
use earlyexit::ExitConfig;
use std::time::Instant;

fn main() {
    let count: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    // A fixed LCG: the same runs every time.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rand = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let profile = [
        ("lint", 1.0, 0.05),
        ("unit", 10.0, 0.1),
        ("integration", 60.0, 0.01),
        ("contract", 30.0, 0.002),
        ("e2e", 300.0, 0.003),
        ("perf", 600.0, 0.001),
    ];
    let runs: Vec<RecordedRun> = (0..count)
        .map(|i| RecordedRun {
            id: None,
            label: None,
            layers: profile
                .iter()
                .map(|&(name, ms, p)| RecordedLayer {
                    name: name.to_string(),
                    duration_ms: ms * (0.8 + 0.4 * rand()),
                    failed: rand() < p,
                    total: Some(100 + (i % 50) as u64),
                    passed: Some(100),
                    flaky_ratio: None,
                    coverage: None,
                })
                .collect(),
        })
        .collect();
    let layers = count * profile.len();
    let cases: [(&str, ReplayPolicy, Learn); 3] = [
        ("default preset", ReplayPolicy::Adr(ExitConfig::DEFAULT), Learn::None),
        ("fail_fast", ReplayPolicy::Policy { config: PolicyConfig::FAIL_FAST, model: OutcomeModel::new() }, Learn::Ran),
        (
            "risk_bounded",
            ReplayPolicy::Policy { config: PolicyConfig::RISK_BOUNDED, model: OutcomeModel::new() },
            Learn::Ran,
        ),
    ];
    println!("{count} synthetic runs x {} layers", profile.len());
    for (name, policy, learn) in &cases {
        let t = Instant::now();
        let report = replay(&runs, policy, *learn);
        let secs = t.elapsed().as_secs_f64();
        let saved = report.map(|r| r.summary.saved_actual.unwrap_or(0.0)).unwrap_or(f64::NAN);
        println!(
            "{name:>14}: {:8.1} ms  {:10.0} runs/s  {:11.0} layers/s  (saved {:.1}%)",
            secs * 1e3,
            count as f64 / secs,
            layers as f64 / secs,
            saved * 100.0
        );
    }
    let t = Instant::now();
    let _ = shadow(&runs, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new());
    let secs = t.elapsed().as_secs_f64();
    println!("{:>14}: {:8.1} ms  {:10.0} runs/s", "shadow", secs * 1e3, count as f64 / secs);
    let t = Instant::now();
    let c = calibrate(&runs, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new(), 0.01, 0.1, &DEFAULT_GRID, 0.5);
    println!(
        "{:>14}: {:8.1} ms  ({} budgets tested, chose {:?})",
        "calibrate",
        t.elapsed().as_secs_f64() * 1e3,
        c.as_ref().map(|c| c.steps.len()).unwrap_or(0),
        c.map(|c| c.risk_budget).ok()
    );
}
