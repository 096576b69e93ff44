//! The per-project report of docs/lrts-report.md from the JSONL files of
//! examples/real-runs/pyramids/convert_lrts.py: `make replay` (examples/real-runs/pyramids/run.sh)
//! writes the page with this program's output.
//!
//! `cargo run --release -p earlyexit-digest --example pyramid_lifecycle -- DIR [RISK DELTA]`.
//! Per dataset (and pooled), with the same settings for every dataset: the risk-bounded policy
//! calibrated on the tune runs (with its artifact); the report runs split in build order, the
//! first half the audit split that decides the promotion, the second half replayed by the
//! ADR's DEFAULT preset, fail-fast and the calibrated policy, and run live in shadow mode by
//! each of them (every layer runs; the policy's model learns each full run),
//! their receipts appended to one hash-chained log that `verify_receipts` counts by label and
//! by run label (the dataset).

use earlyexit::artifact::ReceiptCheck;
use earlyexit::kit::num::stats::wilson_interval;
use earlyexit::kit::pyramid::replay::clopper_pearson_upper;
use earlyexit::pyramid::policy::ObservedLayer;
use earlyexit::pyramid::policy::{LiveRun, OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy};
use earlyexit::pyramid::replay::{calibrate, DEFAULT_GRID};
use earlyexit::pyramid::replay::{
    calibration_artifact, parse_runs_jsonl, replay, summarize, ArtifactRequest, Learn, RecordedRun, ReplayPolicy,
    ReplaySummary, RunReplay,
};
use earlyexit::receipt_log::{append_receipts, verify_receipts};
use earlyexit::{Action, ExitConfig, LayerSpec, Naming, Value};
use earlyexit_digest::Sha256Hasher;

fn load(path: &std::path::Path) -> Vec<RecordedRun> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_runs_jsonl(&text, Naming::Js).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{:.1}%", v * 100.0))
}

/// `k/n = r% [lo, hi]%` with the Wilson 95% interval (`n/a` without cases).
fn rate(k: usize, n: usize) -> String {
    match wilson_interval(k as u64, n as u64) {
        Some((lo, hi)) => {
            format!("{k}/{n} = {:.2}% [{:.2}, {:.2}]%", k as f64 / n as f64 * 100.0, lo * 100.0, hi * 100.0)
        }
        None => format!("{k}/{n}: n/a"),
    }
}

/// A report table row: the replay's figures, then the promotion and receipts columns.
fn row(policy: &str, s: &ReplaySummary, promotion: &str, receipts: &str) -> String {
    format!(
        "| {policy} | {} | {} | {} | {} | {} | {} | {} | {promotion} | {receipts} |",
        s.runs,
        s.failing_runs,
        pct(s.recall),
        pct(s.saved_nominal),
        pct(s.saved_actual),
        rate(s.missed, s.failing_runs),
        rate(s.missed, s.declared_green),
    )
}

const HEADER: &str = "| policy | runs | failing | recall | compute saved, nominal | compute saved, actual | false-pass rate (missed / failing) [Wilson 95%] | per green declaration (missed / declared green) [Wilson 95%] | promotion on the audit split | shadow receipts by label |\n|---|---|---|---|---|---|---|---|---|---|";

/// Receipt counts by label: `correct skip a, false pass b, needless run c; d runs without one`.
fn labels_text(labels: &[(String, usize)], runs: usize) -> String {
    let count = |l: &str| labels.iter().find(|(k, _)| k == l).map_or(0, |(_, n)| *n);
    let with: usize = labels.iter().map(|(_, n)| n).sum();
    format!(
        "correct skip {}, false pass {}, needless run {}; {} runs without a would-be exit",
        count("correct_skip"),
        count("false_pass"),
        count("needless_run"),
        runs - with
    )
}

/// Runs `runs` live in shadow mode with `policy` (the model learning each full run) and
/// appends their receipts, labelled with `label`, to `log`.
fn shadow_log(
    policy: RunPolicy,
    config: &PolicyConfig,
    model: &OutcomeModel,
    runs: &[RecordedRun],
    label: &str,
    log: &mut String,
) {
    let mut model = model.clone();
    for run in runs {
        let options = RunOptions {
            policy,
            mode: RunMode::Shadow,
            config: config.clone(),
            model: model.clone(),
            run_id: run.id.clone(),
            fallback: None,
            label: Some(label.to_string()),
        };
        let specs =
            run.layers.iter().map(|l| LayerSpec { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect();
        let mut live = PolicyRun::start(options, specs).expect("a valid run");
        while let Action::Run(i) = live.next() {
            live.submit(i, run.layers[i].layer_result()).expect("a valid result");
        }
        let receipts: Vec<Value> = live.shadow_receipt().map(|r| r.to_value()).into_iter().collect();
        let lines = append_receipts(log, &receipts, &Sha256Hasher).expect("appends");
        log.push_str(&lines);
        let all: Vec<ObservedLayer> = run
            .layers
            .iter()
            .map(|l| ObservedLayer { name: l.name.clone(), failed: l.failed, duration_ms: Some(l.duration_ms) })
            .collect();
        model.update(config, &all).expect("learns");
    }
}

/// Runs `runs` live with the ADR's exit decision (the DEFAULT preset) in shadow mode and
/// appends their receipts, labelled with `label`, to `log`.
fn adr_shadow_log(runs: &[RecordedRun], label: &str, log: &mut String) {
    for run in runs {
        let options = RunOptions {
            mode: RunMode::Shadow,
            run_id: run.id.clone(),
            label: Some(label.to_string()),
            ..RunOptions::default()
        };
        let specs: Vec<LayerSpec> =
            run.layers.iter().map(|l| LayerSpec { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect();
        let total = specs.len() as u64;
        let mut live = LiveRun::start(ExitConfig::DEFAULT, total, specs, options).expect("a valid run");
        while let Action::Run(i) = live.next() {
            live.submit(i, run.layers[i].layer_result()).expect("a valid result");
        }
        let LiveRun::Policy(live) = live else { unreachable!("the ADR's shadow run is a policy run") };
        let receipts: Vec<Value> = live.receipt_value().into_iter().collect();
        let lines = append_receipts(log, &receipts, &Sha256Hasher).expect("appends");
        log.push_str(&lines);
    }
}

/// The verified log's labels of one run label (the dataset), or of every receipt.
fn labels_of(check: &ReceiptCheck, run_label: Option<&str>) -> Vec<(String, usize)> {
    match run_label {
        None => check.labels.clone(),
        Some(l) => check.run_labels.iter().find(|(k, _)| k == l).map_or_else(Vec::new, |(_, labels)| labels.clone()),
    }
}

struct Dataset {
    name: String,
    tune: usize,
    budget: f64,
    audit: (u64, u64),
    audit_runs: usize,
    upper: f64,
    promoted: bool,
    later: usize,
    summaries: [ReplaySummary; 3],
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
    let mut pooled: Vec<Vec<RunReplay>> = vec![Vec::new(); 3];
    let (mut pooled_trials, mut pooled_events, mut pooled_later) = (0u64, 0u64, 0usize);
    let (mut adr_log, mut ff_log, mut rb_log) = (String::new(), String::new(), String::new());
    let mut datasets = Vec::new();
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
        pooled_later += later.len();
        let upper = clopper_pearson_upper(events, trials, delta);
        let promoted = trials > 0 && upper <= risk;
        // The model after the audit split, as a deployment would carry it on.
        let model = audit_replay.model.unwrap_or_else(|| c.model.clone());
        adr_shadow_log(later, name, &mut adr_log);
        shadow_log(RunPolicy::FailFast, &PolicyConfig::FAIL_FAST, &OutcomeModel::new(), later, name, &mut ff_log);
        shadow_log(RunPolicy::RiskBounded, &c.config, &model, later, name, &mut rb_log);
        let policies = [
            ReplayPolicy::Adr(ExitConfig::DEFAULT),
            ReplayPolicy::Policy { config: PolicyConfig::FAIL_FAST, model: OutcomeModel::new() },
            ReplayPolicy::Policy { config: c.config.clone(), model: model.clone() },
        ];
        let summaries = policies.map(|policy| replay(later, &policy, Learn::Ran).expect("replays"));
        let summaries = summaries.map(|r| {
            let summary = r.summary.clone();
            (summary, r.runs)
        });
        let mut out = Vec::new();
        for ((summary, runs), pool) in summaries.into_iter().zip(pooled.iter_mut()) {
            pool.extend(runs);
            out.push(summary);
        }
        let Ok(summaries) = <[ReplaySummary; 3]>::try_from(out) else { unreachable!("three policies") };
        eprintln!("{name}: corpus {} ({} tune runs)", artifact.corpus_sha256, tune.len());
        datasets.push(Dataset {
            name: name.clone(),
            tune: tune.len(),
            budget: c.risk_budget,
            audit: (trials, events),
            audit_runs: audit.len(),
            upper,
            promoted,
            later: later.len(),
            summaries,
        });
    }
    let adr = verify_receipts(&adr_log, &Sha256Hasher);
    let ff = verify_receipts(&ff_log, &Sha256Hasher);
    let rb = verify_receipts(&rb_log, &Sha256Hasher);
    assert!(adr.valid() && ff.valid() && rb.valid(), "the receipt logs verify");

    let na_promotion = "n/a (1)";
    let decision = |events: u64, trials: u64, upper: f64, promoted: bool| {
        format!(
            "{}: {events}/{trials} failing audit runs missed, Clopper-Pearson upper bound {upper:.3} {} risk {risk}",
            if promoted { "promoted" } else { "stays in shadow" },
            if promoted { "<=" } else { ">" },
        )
    };
    println!("# Test exit on the public LRTS builds: per-project report");
    println!();
    println!("<!-- Generated by `make replay` (examples/real-runs/pyramids/run.sh and");
    println!("     digest/examples/pyramid_lifecycle.rs); do not edit by hand. -->");
    println!();
    println!("Regenerate with `make replay DATA=<dir>`, `<dir>` the folder that holds the public runs");
    println!("(`<dir>/lrts`). The public LRTS CI builds (lrtsuser/LRTS, MIT) are converted");
    println!("as [replay-pyramids.md](replay-pyramids.md#on-real-runs) says (a dataset is one project's");
    println!("builds in build order, a layer one CI stage). Every dataset is run with the same settings,");
    println!("tuned on none: `risk_bounded` is calibrated on the dataset's tune runs at risk {risk}, delta");
    println!("{delta} (the budgets {:?}; the first half of the tune runs warms the model). The report", DEFAULT_GRID);
    println!("runs split in build order: the earlier half is the **audit split** that decides the promotion");
    println!("(exact Clopper-Pearson upper bound of missed / failing at confidence 1 - delta, within the");
    println!("risk: docs/test-exit.md), and the later half is what every column reports on: replayed by");
    println!("each policy, and run live in shadow mode (every layer runs; the model learns each full build)");
    println!("for the receipts, appended to one hash-chained log per policy and counted by");
    println!("`verify_receipts`. Rates and their denominators are those of");
    println!("[test-exit.md](test-exit.md#rates-and-their-denominators); each with its Wilson 95% interval.");
    println!();
    println!("* (1) No promotion for a preset: promotion certifies a calibration artifact's risk budget");
    println!("  on the audit split. The ADR's preset and plain fail-fast are not calibrated (fail-fast");
    println!("  never skips on success, so it cannot declare a failing build green), so there is");
    println!("  nothing to promote.");
    println!("* The ADR's receipts are those of its exit decision in shadow mode: a receipt where the");
    println!("  decision would have exited with layers left; `correct_skip` when every skipped layer passed,");
    println!("  `false_pass` when a layer its verification would not have run failed while everything it");
    println!("  would have run passed, `needless_run` when a layer it would have run (before the exit, or in");
    println!("  verification) failed, so the rest could not change the verdict (docs/test-exit.md).");
    for d in &datasets {
        println!();
        println!("## {}", d.name);
        println!();
        println!(
            "{} tune runs; {} report runs: {} audit, {} reported. Calibrated budget: {}.",
            d.tune,
            d.audit_runs + d.later,
            d.audit_runs,
            d.later,
            d.budget
        );
        println!();
        println!("{HEADER}");
        let (trials, events) = d.audit;
        let adr_labels = labels_text(&labels_of(&adr, Some(&d.name)), d.later);
        let ff_labels = labels_text(&labels_of(&ff, Some(&d.name)), d.later);
        let rb_labels = labels_text(&labels_of(&rb, Some(&d.name)), d.later);
        println!("{}", row("ADR default preset", &d.summaries[0], na_promotion, &adr_labels));
        println!("{}", row("fail-fast", &d.summaries[1], na_promotion, &ff_labels));
        println!(
            "{}",
            row(
                &format!("risk_bounded (budget {})", d.budget),
                &d.summaries[2],
                &decision(events, trials, d.upper, d.promoted),
                &rb_labels
            )
        );
    }
    println!();
    println!("## pooled");
    println!();
    println!(
        "Every dataset's reported runs together ({pooled_later} runs); the promotion column pools the audit \
         splits' counts (each dataset's own decision is above)."
    );
    println!();
    println!("{HEADER}");
    let upper = clopper_pearson_upper(pooled_events, pooled_trials, delta);
    let promoted = pooled_trials > 0 && upper <= risk;
    println!(
        "{}",
        row(
            "ADR default preset",
            &summarize(&pooled[0]),
            na_promotion,
            &labels_text(&labels_of(&adr, None), pooled_later)
        )
    );
    println!(
        "{}",
        row("fail-fast", &summarize(&pooled[1]), na_promotion, &labels_text(&labels_of(&ff, None), pooled_later))
    );
    println!(
        "{}",
        row(
            "risk_bounded (per dataset)",
            &summarize(&pooled[2]),
            &decision(pooled_events, pooled_trials, upper, promoted),
            &labels_text(&labels_of(&rb, None), pooled_later)
        )
    );
    println!();
    println!("### Shadow receipts by run label");
    println!();
    println!("The pooled logs label each run with its dataset (`label`, the receipt's `runLabel`);");
    println!("`verify_receipts` answers these per label slice (`labelSlices`):");
    println!();
    println!("| policy | run label | receipts | correct skip | false pass | needless run | false passes / green exits [Wilson 95%] | needless runs / receipts [Wilson 95%] |");
    println!("|---|---|---|---|---|---|---|---|");
    for (policy, check) in [("ADR default preset", &adr), ("fail-fast", &ff), ("risk_bounded", &rb)] {
        for d in &datasets {
            // A dataset none of whose runs had a would-be exit has no receipt in the log.
            let none = Vec::new();
            let label = &d.name;
            let labels = check.run_labels.iter().find(|(l, _)| l == label).map_or(&none, |(_, labels)| labels);
            let count = |l: &str| labels.iter().find(|(k, _)| k == l).map_or(0, |(_, n)| *n);
            let total: usize = labels.iter().map(|(_, n)| n).sum();
            let (correct, false_pass, needless) = (count("correct_skip"), count("false_pass"), count("needless_run"));
            println!(
                "| {policy} | {label} | {total} | {correct} | {false_pass} | {needless} | {} | {} |",
                rate(false_pass, correct + false_pass),
                rate(needless, total)
            );
        }
    }
}
