//! The lifecycle figures of docs/replay-pyramids.md ("Shadow mode and promotion on real
//! runs") from the JSONL files of examples/real-runs/pyramids/convert_lrts.py.
//!
//! `cargo run --release -p earlyexit-digest --example pyramid_lifecycle -- DIR [RISK DELTA]`.
//! Per dataset (and pooled): the risk-bounded policy calibrated on the tune runs (with its
//! artifact); the report runs split in build order, the first half the audit split that
//! decides the promotion, the second half run live in shadow mode (every layer runs, the
//! model learns each full run) for the receipts by label; beside it the ADR's DEFAULT
//! preset, fail-fast and the calibrated policy replayed on the same second half.

use earlyexit::pyramid::policy::ObservedLayer;
use earlyexit::pyramid::policy::{OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy};
use earlyexit::pyramid::replay::{calibrate, DEFAULT_GRID};
use earlyexit::pyramid::replay::{
    calibration_artifact, clopper_pearson_upper, parse_runs_jsonl, replay, summarize, ArtifactRequest, Learn,
    RecordedRun, ReplayPolicy, ReplaySummary, RunReplay,
};
use earlyexit::{Action, ExitConfig, LayerSpec, Naming};
use earlyexit_digest::Sha256Hasher;

fn load(path: &std::path::Path) -> Vec<RecordedRun> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_runs_jsonl(&text, Naming::Js).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn row(dataset: &str, policy: &str, s: &ReplaySummary, extra: &str) -> String {
    let ci = s.false_pass_ci.map_or("-".into(), |(lo, hi)| format!("[{:.2}, {:.2}]%", lo * 100.0, hi * 100.0));
    format!(
        "| {dataset} | {policy} | {} | {} | {} | {} | {:.2}% {ci} | {extra} |",
        s.runs,
        pct(s.recall),
        pct(s.saved_nominal),
        pct(s.saved_actual),
        s.false_pass_rate.unwrap_or(0.0) * 100.0,
    )
}

/// Labels of the shadow receipts: (correct skip, false pass, needless run, runs without one).
fn shadow_labels(config: &PolicyConfig, model: &OutcomeModel, runs: &[RecordedRun]) -> [usize; 4] {
    let mut model = model.clone();
    let mut counts = [0usize; 4];
    for run in runs {
        let options = RunOptions {
            policy: RunPolicy::RiskBounded,
            mode: RunMode::Shadow,
            config: config.clone(),
            model: model.clone(),
            run_id: run.id.clone(),
            fallback: None,
            label: run.label.clone(),
        };
        let specs =
            run.layers.iter().map(|l| LayerSpec { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect();
        let mut live = PolicyRun::start(options, specs).expect("a valid run");
        while let Action::Run(i) = live.next() {
            live.submit(i, run.layers[i].layer_result()).expect("a valid result");
        }
        let label = live.shadow_receipt().map(|r| r.label().as_str());
        let slot = match label {
            Some("correct_skip") => 0,
            Some("false_pass") => 1,
            Some("needless_run") => 2,
            _ => 3,
        };
        counts[slot] += 1;
        let all: Vec<ObservedLayer> = run
            .layers
            .iter()
            .map(|l| ObservedLayer { name: l.name.clone(), failed: l.failed, duration_ms: Some(l.duration_ms) })
            .collect();
        model.update(config, &all).expect("learns");
    }
    counts
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("usage: pyramid_lifecycle DIR [RISK DELTA]");
    let risk: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.005);
    let delta: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.1);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a directory")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".tune.jsonl")).map(String::from))
        .collect();
    names.sort();
    println!("| dataset | policy | runs | recall | saved nominal | saved actual | false-pass rate [Wilson 95%] | promotion / receipts |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut pooled: Vec<Vec<RunReplay>> = vec![Vec::new(); 3];
    let mut pooled_labels = [0usize; 4];
    let (mut pooled_trials, mut pooled_events) = (0u64, 0u64);
    for name in &names {
        let base = std::path::Path::new(dir);
        let tune = load(&base.join(format!("{name}.tune.jsonl")));
        let report = load(&base.join(format!("{name}.report.jsonl")));
        let c = calibrate(&tune, &PolicyConfig::RISK_BOUNDED, &OutcomeModel::new(), risk, delta, &DEFAULT_GRID, 0.5)
            .expect("calibrates");
        let request = ArtifactRequest {
            policy: "risk_bounded",
            risk,
            delta,
            warmup: 0.5,
            created_at: "2026-01-01T00:00:00Z".into(),
            expires_at: "2026-02-01T00:00:00Z".into(),
        };
        let artifact = calibration_artifact(&c, &tune, &request, &Sha256Hasher).expect("an artifact");
        let (audit, later) = report.split_at(report.len() / 2);
        let audit_replay =
            replay(audit, &ReplayPolicy::Policy { config: c.config.clone(), model: c.model.clone() }, Learn::Ran)
                .expect("replays");
        let (trials, events) = (audit_replay.summary.failing_runs as u64, audit_replay.summary.missed as u64);
        pooled_trials += trials;
        pooled_events += events;
        let upper = clopper_pearson_upper(events, trials, delta);
        let promoted = trials > 0 && upper <= risk;
        // The model after the audit split, as a deployment would carry it on.
        let model = audit_replay.model.unwrap_or_else(|| c.model.clone());
        let labels = shadow_labels(&c.config, &model, later);
        for (slot, n) in pooled_labels.iter_mut().zip(labels) {
            *slot += n;
        }
        let policies = [
            ("default preset", ReplayPolicy::Adr(ExitConfig::DEFAULT), String::new()),
            ("fail-fast", ReplayPolicy::Policy { config: PolicyConfig::FAIL_FAST, model: OutcomeModel::new() }, String::new()),
            (
                "risk_bounded (calibrated)",
                ReplayPolicy::Policy { config: c.config.clone(), model: model.clone() },
                format!(
                    "budget {}; audit {events}/{trials} missed, upper {:.3}: {}; receipts {} correct skip, {} false pass, {} needless run, {} no exit",
                    c.risk_budget,
                    upper,
                    if promoted { "promoted" } else { "stays in shadow" },
                    labels[0],
                    labels[1],
                    labels[2],
                    labels[3]
                ),
            ),
        ];
        for (i, (label, policy, extra)) in policies.iter().enumerate() {
            let r = replay(later, policy, Learn::Ran).expect("replays");
            println!("{}", row(name, label, &r.summary, extra));
            pooled[i].extend(r.runs);
        }
        eprintln!("{name}: corpus {} ({} tune runs)", artifact.corpus_sha256, tune.len());
    }
    let upper = clopper_pearson_upper(pooled_events, pooled_trials, delta);
    for (i, label) in ["default preset", "fail-fast", "risk_bounded (calibrated)"].iter().enumerate() {
        let extra = if i == 2 {
            format!(
                "audit {pooled_events}/{pooled_trials} missed, upper {upper:.3}; receipts {} correct skip, {} false pass, {} needless run, {} no exit",
                pooled_labels[0], pooled_labels[1], pooled_labels[2], pooled_labels[3]
            )
        } else {
            String::new()
        };
        println!("{}", row("pooled", label, &summarize(&pooled[i]), &extra));
    }
}
