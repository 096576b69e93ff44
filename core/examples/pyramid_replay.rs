//! Prints the per-dataset pyramid replay table (docs/replay-pyramids.md) from JSONL files
//! written by examples/real-runs/pyramids/convert_lrts.py.
//!
//! `cargo run --release --example pyramid_replay -- DIR [RISK DELTA]` reads every
//! `DIR/<dataset>.tune.jsonl` with its `DIR/<dataset>.report.jsonl`. Per dataset: the ADR's
//! DEFAULT preset and fail-fast replayed on the report runs; the risk-bounded policy
//! calibrated on the tune runs (Learn-then-Test, miss rate <= RISK with probability
//! 1 - DELTA), its model trained on them, then replayed on the report runs learning what it
//! ran. The "reorder only" row is the same policy at budget 0 (never skips on success), to
//! show where the saving comes from.

use earlyexit::pyramid::policy::{OutcomeModel, PolicyConfig};
use earlyexit::pyramid::replay::{
    calibrate, parse_runs_jsonl, replay, summarize, Learn, RecordedRun, ReplayPolicy, ReplaySummary, RunReplay,
    DEFAULT_GRID,
};
use earlyexit::{ExitConfig, Naming};
use std::time::Instant;

fn load(path: &std::path::Path) -> Result<Vec<RecordedRun>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_runs_jsonl(&text, Naming::Js).map_err(|e| format!("{}: {e}", path.display()))
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn row(dataset: &str, policy: &str, s: &ReplaySummary) -> String {
    let ci = s.false_pass_ci.map_or("-".into(), |(lo, hi)| format!("[{:.2}, {:.2}]%", lo * 100.0, hi * 100.0));
    format!(
        "| {dataset} | {policy} | {} | {}/{} | {} | {} | {} | {:.2}% {ci} |",
        s.runs,
        s.caught,
        s.failing_runs,
        pct(s.recall),
        pct(s.saved_nominal),
        pct(s.saved_actual),
        s.false_pass_rate.unwrap_or(0.0) * 100.0,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: pyramid_replay DIR [RISK DELTA]");
        std::process::exit(2);
    };
    let risk: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.005);
    let delta: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".tune.jsonl")).map(String::from))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        eprintln!("no <dataset>.tune.jsonl in {dir}");
        std::process::exit(1);
    }
    println!("| dataset | policy | runs | failing caught | recall | saved nominal | saved actual | false-pass rate [Wilson 95%] |");
    println!("|---|---|---|---|---|---|---|---|");
    let labels = ["default preset", "fail-fast", "risk_bounded, reorder only", "risk_bounded (calibrated)"];
    let mut pooled: Vec<Vec<RunReplay>> = vec![Vec::new(); labels.len()];
    let mut notes = Vec::new();
    let started = Instant::now();
    let mut replayed = 0usize;
    for name in &names {
        let base = std::path::Path::new(dir);
        let (tune, report) =
            match (load(&base.join(format!("{name}.tune.jsonl"))), load(&base.join(format!("{name}.report.jsonl")))) {
                (Ok(t), Ok(r)) => (t, r),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            };
        let policy = PolicyConfig::RISK_BOUNDED;
        let calibration = match calibrate(&tune, &policy, &OutcomeModel::new(), risk, delta, &DEFAULT_GRID, 0.5) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(1);
            }
        };
        let reorder_only = PolicyConfig { risk_budget: 0.0, ..calibration.config.clone() };
        let policies = [
            ReplayPolicy::Adr(ExitConfig::DEFAULT),
            ReplayPolicy::Policy { config: PolicyConfig::FAIL_FAST, model: OutcomeModel::new() },
            ReplayPolicy::Policy { config: reorder_only, model: calibration.model.clone() },
            ReplayPolicy::Policy { config: calibration.config.clone(), model: calibration.model.clone() },
        ];
        for (i, p) in policies.iter().enumerate() {
            match replay(&report, p, Learn::Ran) {
                Ok(r) => {
                    replayed += report.len();
                    println!("{}", row(name, labels.get(i).copied().unwrap_or("?"), &r.summary));
                    if let Some(slot) = pooled.get_mut(i) {
                        slot.extend(r.runs);
                    }
                }
                Err(e) => {
                    eprintln!("{name}: {e}");
                    std::process::exit(1);
                }
            }
        }
        let steps: Vec<String> = calibration
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{}: {}/{} missed, p={:.3}{}",
                    s.risk_budget,
                    s.missed,
                    s.failing_runs,
                    s.p_value,
                    if s.certified { " ok" } else { "" }
                )
            })
            .collect();
        notes.push(format!(
            "{name}: {} tune runs, {} report runs; calibrated budget {} ({})",
            tune.len(),
            report.len(),
            calibration.risk_budget,
            steps.join("; ")
        ));
    }
    for (i, runs) in pooled.iter().enumerate() {
        println!("{}", row("pooled", labels.get(i).copied().unwrap_or("?"), &summarize(runs)));
    }
    println!();
    for n in notes {
        println!("- {n}");
    }
    println!(
        "- calibration: risk {risk}, delta {delta}; {replayed} run replays + calibration in {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
}
