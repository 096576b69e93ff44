//! Replays loop policies over converted real runs (`examples/real-runs/loops/run.sh` makes
//! the JSONL files) and prints, per dataset, the seed's rules, the simple rule for k = 2..6
//! and the `recommended` preset, then the frontier the preset's knob traces.
//!
//! `cargo run --release -p earlyexit --example replay_loops -- [--split tune|report|all] FILE.jsonl...`

use earlyexit::loops::replay::{parse_jsonl, replay_loops, LoopPolicy, ReplayRun, ReplaySummary};
use earlyexit::{EarlyStoppingConfig, Naming};

fn row(name: &str, s: &ReplaySummary) {
    println!(
        "| {:<26} | {:>4} | {:>5.2} | {:>5.1}% | {:>6.1} | {:>6.1} | {:>5.2} | {:>5.1}% | {:>5.2} | {:>5.1}% |",
        name,
        s.runs,
        s.mean_iterations(),
        s.share_of_available() * 100.0,
        s.returned_quality_sum / s.runs.max(1) as f64,
        s.best_quality_sum / s.runs.max(1) as f64,
        s.mean_quality_gap(),
        s.premature_rate() * 100.0,
        s.wasted_iterations as f64 / s.runs.max(1) as f64,
        s.returned_good as f64 / s.runs.max(1) as f64 * 100.0,
    );
}

/// The replay's aggregates (the policies here are built valid; a refusal is reported).
fn summary(runs: &[ReplayRun], policy: &LoopPolicy) -> ReplaySummary {
    match replay_loops(runs, policy) {
        Ok(replay) => replay.summary,
        Err(e) => {
            eprintln!("replay refused: {e}");
            std::process::exit(1);
        }
    }
}

fn header() {
    println!(
        "| policy                     | runs | iters |  used  | return |  best  |  gap  | prem.  | waste |  good  |"
    );
    println!(
        "|----------------------------|-----:|------:|-------:|-------:|-------:|------:|-------:|------:|-------:|"
    );
}

/// The recommended preset with its knob set to `k`: give up after `k` iterations without a
/// new best, and count a plateau of good work over a window of `k` records (the preset: 5).
fn recommended_with(k: u64) -> LoopPolicy {
    let mut policy = LoopPolicy::recommended();
    policy.config.no_improvement_patience = Some(k);
    policy.config.plateau_consecutive_count = k.max(2);
    policy
}

fn table(title: &str, runs: &[ReplayRun]) {
    println!("\n{title}\n");
    header();
    let seed = LoopPolicy::seed();
    row("seed preset", &summary(runs, &seed));
    for k in 2..=6 {
        row(&format!("simple rule k={k}"), &summary(runs, &LoopPolicy::simple_rule(k)));
    }
    let recommended = LoopPolicy::recommended();
    row("recommended", &summary(runs, &recommended));
}

fn main() {
    let mut split = "report".to_string();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--split" {
            split = args.next().unwrap_or_default();
        } else {
            files.push(arg);
        }
    }
    let mut all: Vec<ReplayRun> = Vec::new();
    let mut per_dataset: Vec<(String, Vec<ReplayRun>)> = Vec::new();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("cannot read {file}: {e}");
                std::process::exit(1);
            }
        };
        let runs = match parse_jsonl(&text, Naming::Snake) {
            Ok(runs) => runs,
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            }
        };
        let runs: Vec<ReplayRun> =
            runs.into_iter().filter(|r| split == "all" || r.split.as_deref() == Some(split.as_str())).collect();
        let name = runs.first().and_then(|r| r.dataset.clone()).unwrap_or_else(|| file.clone());
        all.extend(runs.iter().cloned());
        per_dataset.push((name, runs));
    }
    println!("Loop replay, split `{split}` (columns: mean iterations run, share of recorded iterations run,");
    println!("mean returned quality, mean best reachable quality, mean gap in points, premature stops,");
    println!("mean wasted iterations after the ideal stop, runs whose returned output is good)");
    for (name, runs) in &per_dataset {
        table(&format!("#### {name}"), runs);
    }
    table("#### pooled", &all);
    println!(
        "\nFrontier of the recommended preset's knob (noImprovementPatience = plateauConsecutiveCount = k), pooled:\n"
    );
    header();
    for k in 1..=8 {
        row(&format!("recommended k={k}"), &summary(&all, &recommended_with(k)));
    }
    if std::env::var_os("REPLAY_GRID").is_some() {
        grid(&all);
    }
}

/// The tuning grid (run on the `tune` split): every combination of the preset's plateau
/// window, quality gate and give-up patience, printed beside the simple rule.
fn grid(runs: &[ReplayRun]) {
    println!("\nTuning grid (plateau window, plateau quality gate, patience), pooled:\n");
    header();
    for count in [0u64, 3, 4, 5] {
        for gate in [50.0, 70.0, 90.0] {
            for k in 3..=7 {
                let mut policy = recommended_with(k);
                if count == 0 {
                    policy.config.enable_plateau_detection = false;
                } else {
                    policy.config.plateau_consecutive_count = count;
                }
                policy.config.plateau_min_quality = Some(gate);
                row(&format!("w={count} gate={gate} k={k}"), &summary(runs, &policy));
            }
            if count == 0 {
                break;
            }
        }
    }
    let _ = EarlyStoppingConfig::recommended();
}
