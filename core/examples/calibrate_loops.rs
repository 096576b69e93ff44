//! Calibrates loop policies on converted real runs (`examples/real-runs/loops/run.sh` makes
//! the JSONL files): per dataset, pooled by source and pooled over all, the policy is
//! calibrated on the `tune` half (Learn-then-Test, docs/replay.md "Calibrated policies") at
//! each risk asked, then replayed on the `report` half beside the seed's rules, the
//! `recommended` preset and the simple rule k = 2..6. `SPLITS=n` also repeats the
//! calibration over n random halves (by task) and counts how often the report half's
//! premature rate exceeds the risk, and exceeds it beyond sampling error.
//!
//! `cargo run --release -p earlyexit --example calibrate_loops -- FILE.jsonl...`

use earlyexit::kit::num::stats::binomial_cdf;
use earlyexit::loops::replay::{
    calibrate_loop_policy, parse_jsonl, replay_loops, LoopCalibrationRequest, LoopPolicy, ReplayRun, ReplaySummary,
};
use earlyexit::Naming;

fn row(name: &str, s: &ReplaySummary) {
    let runs = s.runs.max(1) as f64;
    println!(
        "| {:<34} | {:>4} | {:>5.2} | {:>5.1}% | {:>5.2} | {:>5.1}% | {:>5.1}% |",
        name,
        s.runs,
        s.mean_iterations(),
        s.share_of_available() * 100.0,
        s.mean_quality_gap(),
        s.premature_rate() * 100.0,
        s.returned_good as f64 / runs * 100.0,
    );
}

fn summary(runs: &[ReplayRun], policy: &LoopPolicy) -> ReplaySummary {
    replay_loops(runs, policy).map(|r| r.summary).unwrap_or_else(|e| {
        eprintln!("replay refused: {e}");
        std::process::exit(1)
    })
}

fn split(runs: &[ReplayRun], name: &str) -> Vec<ReplayRun> {
    runs.iter().filter(|r| r.split.as_deref() == Some(name)).cloned().collect()
}

fn table(title: &str, runs: &[ReplayRun], risks: &[f64], delta: f64) {
    let (tune, report) = (split(runs, "tune"), split(runs, "report"));
    println!("\n#### {title} (tune {} runs, report {} runs)\n", tune.len(), report.len());
    println!("| policy (report half)               | runs | iters |  used  |  gap  | prem.  |  good  |");
    println!("|------------------------------------|-----:|------:|-------:|------:|-------:|-------:|");
    row("seed preset", &summary(&report, &LoopPolicy::seed()));
    row("recommended", &summary(&report, &LoopPolicy::recommended()));
    for k in 2..=6 {
        row(&format!("simple rule k={k}"), &summary(&report, &LoopPolicy::simple_rule(k)));
    }
    for &risk in risks {
        match calibrate_loop_policy(&tune, &LoopCalibrationRequest::new(risk, delta)) {
            Ok(c) => {
                let label =
                    format!("calibrated r={risk} {} #{}", if c.certified() { "ok" } else { "NOT CERT." }, c.chosen);
                row(&label, &summary(&report, &c.policy));
                if !c.certified() {
                    println!("|   {} |", c.message());
                }
                for w in &c.warnings {
                    println!("|   warning: {w} |");
                }
            }
            Err(e) => println!("| calibrated r={risk}: {e} |"),
        }
    }
}

/// xorshift, so repeated splits are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn repeated(title: &str, runs: &[ReplayRun], risk: f64, delta: f64, splits: usize) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut certified, mut above, mut beyond, mut rate_sum) = (0, 0, 0, 0.0);
    for _ in 0..splits {
        let (mut tune, mut report) = (Vec::new(), Vec::new());
        for run in runs {
            if rng.next() % 2 == 0 {
                tune.push(run.clone());
            } else {
                report.push(run.clone());
            }
        }
        let Ok(c) = calibrate_loop_policy(&tune, &LoopCalibrationRequest::new(risk, delta)) else { continue };
        if !c.certified() {
            continue;
        }
        certified += 1;
        let s = summary(&report, &c.policy);
        rate_sum += s.premature_rate();
        above += usize::from(s.premature_rate() > risk);
        // Beyond sampling error: P(Binomial(n, risk) >= k) < 0.05 on the report half.
        let k = s.premature_stops;
        let tail = if k == 0 { 1.0 } else { 1.0 - binomial_cdf(k - 1, s.runs, risk) };
        beyond += usize::from(tail < 0.05);
    }
    println!(
        "| {title:<22} | {risk:>5} | {splits:>6} | {certified:>9} | {:>6.2}% | {above:>10} | {beyond:>13} |",
        if certified == 0 { 0.0 } else { rate_sum / certified as f64 * 100.0 }
    );
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let mut all: Vec<ReplayRun> = Vec::new();
    let mut per_dataset: Vec<(String, Vec<ReplayRun>)> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(1)
        });
        let runs = parse_jsonl(&text, Naming::Snake).unwrap_or_else(|e| {
            eprintln!("{file}: {e}");
            std::process::exit(1)
        });
        let name = runs.first().and_then(|r| r.dataset.clone()).unwrap_or_else(|| file.clone());
        all.extend(runs.iter().cloned());
        per_dataset.push((name, runs));
    }
    let delta = 0.1;
    let risks = [0.025, 0.05, 0.1];
    println!("Calibrated on the tune half (delta {delta}), replayed on the report half. Columns: mean");
    println!("iterations run, share of recorded iterations run, mean gap (points), premature stops,");
    println!("runs whose returned output is good. `#j` = the chosen point of the family's path.");
    for (name, runs) in &per_dataset {
        table(name, runs, &risks, delta);
    }
    let mut sources: Vec<(String, Vec<ReplayRun>)> = Vec::new();
    for (name, runs) in &per_dataset {
        let source = name.split('-').next().unwrap_or(name).to_string();
        match sources.iter_mut().find(|s| s.0 == source) {
            Some(s) => s.1.extend(runs.iter().cloned()),
            None => sources.push((source, runs.clone())),
        }
    }
    for (name, runs) in &sources {
        table(&format!("{name} (pooled source)"), runs, &risks, delta);
    }
    table("pooled", &all, &risks, delta);
    let splits: usize = std::env::var("SPLITS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if splits > 0 {
        println!("\nRepeated random halves: calibrate on one, replay on the other (certified splits only).\n");
        println!("| runs                   |  risk | splits | certified | mean prem. | prem. > risk | beyond error |");
        println!("|------------------------|------:|-------:|----------:|-----------:|-------------:|--------------:|");
        for risk in [0.025, 0.05, 0.1] {
            repeated("pooled", &all, risk, delta, splits);
            for (name, runs) in &sources {
                repeated(&format!("{name} (source)"), runs, risk, delta, splits);
            }
        }
    }
}
