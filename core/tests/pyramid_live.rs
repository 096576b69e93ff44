//! The `fail_fast` and `risk_bounded` policies run live ([`PolicyRun`], [`LiveRun`]): what
//! the result says, that a live run decides as the replay of the same recorded run does,
//! snapshots, and bad input.

use earlyexit::pyramid::policy::{
    LiveRun, OutcomeModel, PolicyConfig, PolicyRun, RunMode, RunOptions, RunPolicy, POLICY_RUN_ENGINE,
};
use earlyexit::pyramid::replay::{replay, Learn, RecordedLayer, RecordedRun, ReplayPolicy};
use earlyexit::{Action, ExitConfig, ExitReason, LayerResult, LayerSpec, Naming, TestPyramidResult, Value, Verdict};

mod policy_vectors;

fn specs(layers: &[(&str, f64)]) -> Vec<LayerSpec> {
    layers.iter().map(|&(name, cost)| LayerSpec { name: name.into(), cost_ms: Some(cost) }).collect()
}

fn result_of(failed: bool, duration_ms: f64) -> LayerResult {
    let mut r = LayerResult::new(if failed { 0.5 } else { 1.0 }, 1.0, 0.0);
    r.duration_ms = Some(duration_ms);
    r
}

/// Runs `run` to the end, each layer failing as `fails` says.
fn drive(run: &mut PolicyRun, fails: &[bool], costs: &[f64]) -> TestPyramidResult {
    while let Action::Run(layer) = run.next() {
        run.submit(layer, result_of(fails[layer], costs[layer])).unwrap();
    }
    run.result().unwrap()
}

fn options(policy: RunPolicy, config: PolicyConfig, model: OutcomeModel) -> RunOptions {
    RunOptions { policy, mode: RunMode::Enforced, config, model, run_id: None, fallback: None, label: None }
}

/// A model that has seen `n` green runs of `names` (in order), with forgetting off.
fn green_history(names: &[(&str, f64)], n: usize) -> OutcomeModel {
    let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
    let mut model = OutcomeModel::new();
    for _ in 0..n {
        let ran: Vec<_> = names
            .iter()
            .map(|&(name, ms)| earlyexit::pyramid::policy::ObservedLayer {
                name: name.into(),
                failed: false,
                duration_ms: Some(ms),
            })
            .collect();
        model.update(&config, &ran).unwrap();
    }
    model
}

#[test]
fn fail_fast_runs_in_order_and_stops_at_the_failing_layer() {
    let layers = [("unit", 10.0), ("integration", 40.0), ("e2e", 90.0)];
    let mut run = PolicyRun::start(RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()), specs(&layers)).unwrap();
    let r = drive(&mut run, &[false, true, false], &[10.0, 40.0, 90.0]);
    assert_eq!(r.layers_executed, [0, 1]);
    assert_eq!((r.exited_early, r.exit_layer, r.exit_reason), (true, 1, ExitReason::LayerFailed));
    assert_eq!((r.skipped_layers, r.confidence, r.speculations.len()), (1, 1.0, 0));
    assert_eq!((r.verified_layers, r.mispredictions, r.compute_saved_ms), (0, 0, Some(90.0)));
    assert_eq!(r.verdict, Verdict::Failed);
    assert_eq!(r.failing_layers.len(), 1);
    assert_eq!(r.layers.len(), 2);
    let report = r.policy.as_ref().unwrap();
    assert_eq!((report.policy, report.mode, report.risk), (RunPolicy::FailFast, RunMode::Enforced, None));
    assert_eq!(report.skipped, [2]);
    // Fail-fast never considers skipping on success.
    assert!(report.steps.iter().all(|s| s.risk.is_none()));
    let ran: Vec<(&str, bool)> = report.ran.iter().map(|l| (l.name.as_str(), l.failed)).collect();
    assert_eq!(ran, [("unit", false), ("integration", true)]);
    // A green run completes: no early exit, every layer ran, the verdict is passed.
    let mut run = PolicyRun::start(RunOptions::new(RunPolicy::FailFast, OutcomeModel::new()), specs(&layers)).unwrap();
    let r = drive(&mut run, &[false; 3], &[10.0, 40.0, 90.0]);
    assert_eq!(
        (r.exited_early, r.exit_layer, r.exit_reason, r.verdict),
        (false, 2, ExitReason::Completed, Verdict::Passed)
    );
    assert_eq!(r.compute_saved_ms, Some(0.0));
}

#[test]
fn risk_bounded_orders_by_the_model_and_skips_within_the_budget() {
    let layers = [("lint", 1.0), ("unit", 10.0), ("e2e", 100.0)];
    let model = green_history(&layers, 800);
    let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
    let mut run =
        PolicyRun::start(options(RunPolicy::RiskBounded, config.clone(), model.clone()), specs(&layers)).unwrap();
    // All equally safe: the cheapest first (highest failure probability per cost).
    assert_eq!(run.next(), Action::Run(0));
    let r = drive(&mut run, &[false; 3], &[1.0, 10.0, 100.0]);
    assert_eq!(r.exit_reason, ExitReason::RiskBounded);
    assert_eq!((r.layers_executed.clone(), r.skipped_layers, r.exit_layer, r.exited_early), (vec![0], 2, 0, true));
    assert_eq!(r.verdict, Verdict::Unverified);
    assert_eq!(r.compute_saved_ms, Some(110.0));
    let report = r.policy.as_ref().unwrap();
    let risk = report.risk.unwrap();
    assert!(risk <= config.risk_budget, "{risk}");
    assert_eq!(r.confidence, 1.0 - risk);
    // One prediction per skipped layer: pass, with the confidence its own bound leaves.
    assert_eq!(r.speculations.len(), 2);
    assert!(r.speculations.iter().all(|s| s.predicted == earlyexit::Outcome::Pass && !s.verified()));
    assert!(r.speculations.iter().all(|s| s.confidence > 1.0 - risk && s.confidence < 1.0));
    assert_eq!(report.skipped, [1, 2]);
    assert_eq!(report.counts.len(), 3);
    assert_eq!(
        (report.counts[2].name.as_str(), report.counts[2].trials, report.counts[2].failures),
        ("e2e", 800.0, 0.0)
    );
    // Reordering: a layer that often fails after a green prefix goes first when it is cheap enough.
    let layers = [("lint", 1.0), ("unit", 10.0), ("e2e", 20.0)];
    let mut model = green_history(&layers, 50);
    let flaky = PolicyConfig { forgetting: 1.0, risk_budget: 0.0, ..PolicyConfig::RISK_BOUNDED };
    for i in 0..50 {
        let ran = [("e2e", i % 2 == 0, 20.0), ("lint", false, 1.0), ("unit", false, 10.0)];
        let ran: Vec<_> = ran
            .iter()
            .map(|&(n, f, d)| earlyexit::pyramid::policy::ObservedLayer {
                name: n.into(),
                failed: f,
                duration_ms: Some(d),
            })
            .collect();
        model.update(&flaky, &ran).unwrap();
    }
    let mut run = PolicyRun::start(options(RunPolicy::RiskBounded, flaky, model), specs(&layers)).unwrap();
    assert_eq!(run.next(), Action::Run(2));
    // e2e: p ~ 0.25 per 20 ms beats lint: p ~ 0.007 per 1 ms.
    let r = drive(&mut run, &[false, false, true], &[1.0, 10.0, 20.0]);
    assert_eq!((r.layers_executed.clone(), r.exit_reason, r.exit_layer), (vec![2], ExitReason::LayerFailed, 2));
}

#[test]
fn every_step_reports_the_bound_it_ran_under() {
    let layers = [("a", 1.0), ("b", 1.0), ("c", 1.0)];
    // Too little history to skip: every step runs, each over the budget.
    let model = green_history(&layers, 30);
    let config = PolicyConfig { forgetting: 1.0, reorder: false, ..PolicyConfig::RISK_BOUNDED };
    let mut run =
        PolicyRun::start(options(RunPolicy::RiskBounded, config.clone(), model.clone()), specs(&layers)).unwrap();
    let r = drive(&mut run, &[false; 3], &[1.0; 3]);
    let report = r.policy.unwrap();
    assert_eq!(r.exit_reason, ExitReason::Completed);
    assert_eq!(report.steps[0].risk, None);
    let names = [["b", "c"].as_slice(), &["c"]];
    for (step, rest) in report.steps[1..].iter().zip(names) {
        let bound = model.skip_risk(&config, rest);
        assert_eq!(step.risk, Some(bound));
        assert!(bound > config.risk_budget);
    }
}

/// A seeded generator of recorded runs (the core has no dependencies, so no proptest).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn recorded_runs(seed: u64, count: usize, profile: &[(&str, f64, f64)]) -> Vec<RecordedRun> {
    let mut rng = Lcg(seed);
    (0..count)
        .map(|r| RecordedRun {
            id: Some(format!("run-{r}")),
            label: None,
            layers: profile
                .iter()
                .map(|&(name, ms, p)| RecordedLayer {
                    name: name.into(),
                    duration_ms: ms + (r % 7) as f64,
                    failed: rng.next() < p,
                    total: None,
                    passed: None,
                    flaky_ratio: None,
                    coverage: None,
                })
                .collect(),
        })
        .collect()
}

/// Per run: the layers run, the reason, the bound at the stop.
type Played = Vec<(Vec<usize>, String, Option<f64>)>;

/// Each run live, the model learning what the result says ran; what the replay would do.
fn live_replay(runs: &[RecordedRun], config: &PolicyConfig, policy: RunPolicy) -> (Played, OutcomeModel) {
    let mut model = OutcomeModel::new();
    let mut out = Vec::new();
    for run in runs {
        let layers: Vec<LayerSpec> =
            run.layers.iter().map(|l| LayerSpec { name: l.name.clone(), cost_ms: Some(l.duration_ms) }).collect();
        let fails: Vec<bool> = run.layers.iter().map(|l| l.failed).collect();
        let costs: Vec<f64> = run.layers.iter().map(|l| l.duration_ms).collect();
        let mut live = PolicyRun::start(options(policy, config.clone(), model.clone()), layers).unwrap();
        let result = drive(&mut live, &fails, &costs);
        let report = result.policy.unwrap();
        model.update(config, &report.ran).unwrap();
        out.push((result.layers_executed, result.exit_reason.as_str().to_string(), report.risk));
    }
    (out, model)
}

#[test]
fn a_live_run_decides_as_the_replay_of_the_same_run() {
    let profiles: [&[(&str, f64, f64)]; 4] = [
        &[("unit", 10.0, 0.2), ("integration", 50.0, 0.002), ("e2e", 300.0, 0.001)],
        &[("cheap", 3.0, 0.0), ("gpu", 900.0, 0.3), ("cpu", 400.0, 0.05)],
        &[("fast", 1.0, 0.3), ("slow", 20.0, 0.02)],
        &[("a", 5.0, 0.01), ("b", 6.0, 0.01), ("c", 7.0, 0.005), ("d", 8.0, 0.0)],
    ];
    let mut risk_bounded_stops = 0;
    for (seed, profile) in profiles.iter().enumerate() {
        let runs = recorded_runs(seed as u64 + 7, 600, profile);
        for (policy, config) in [
            (RunPolicy::FailFast, PolicyConfig::FAIL_FAST),
            (RunPolicy::RiskBounded, PolicyConfig::RISK_BOUNDED),
            (RunPolicy::RiskBounded, PolicyConfig { forgetting: 1.0, risk_budget: 0.05, ..PolicyConfig::RISK_BOUNDED }),
        ] {
            let report =
                replay(&runs, &ReplayPolicy::Policy { config: config.clone(), model: OutcomeModel::new() }, Learn::Ran)
                    .unwrap();
            let (live, model) = live_replay(&runs, &config, policy);
            for (i, (played, (executed, reason, risk))) in report.runs.iter().zip(&live).enumerate() {
                assert_eq!(&played.executed, executed, "profile {seed} run {i}");
                assert_eq!(played.reason, reason, "profile {seed} run {i}");
                assert_eq!(played.risk, *risk, "profile {seed} run {i}");
            }
            assert_eq!(report.model.as_ref(), Some(&model));
            risk_bounded_stops += report.summary.risk_bounded_stops;
        }
    }
    // The comparison covers the stops the bound allows, not only fail-fast ones.
    assert!(risk_bounded_stops > 100, "{risk_bounded_stops}");
}

#[test]
fn snapshots_restore_mid_run_and_results_read_back() {
    let layers = [("lint", 1.0), ("unit", 10.0), ("e2e", 100.0)];
    let model = green_history(&layers, 100);
    let config = PolicyConfig { forgetting: 1.0, risk_budget: 0.05, ..PolicyConfig::RISK_BOUNDED };
    let mut run = PolicyRun::start(options(RunPolicy::RiskBounded, config, model), specs(&layers)).unwrap();
    let Action::Run(first) = run.next() else { panic!("done at start") };
    run.submit(first, result_of(false, 1.0)).unwrap();
    let snapshot = run.to_snapshot();
    assert_eq!(snapshot.get("engine").and_then(Value::as_str), Some(POLICY_RUN_ENGINE));
    let text = snapshot.to_json();
    let restored = PolicyRun::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap();
    assert_eq!(restored, run);
    let live = LiveRun::from_snapshot(&snapshot).unwrap();
    assert_eq!(live, LiveRun::Policy(run.clone()));
    let result = drive(&mut run, &[false; 3], &[1.0, 10.0, 100.0]);
    for naming in [Naming::Js, Naming::Snake] {
        let value = result.to_value(naming);
        assert_eq!(TestPyramidResult::from_value(&value, naming).as_ref(), Ok(&result));
    }
    // An ADR snapshot still restores as an ADR run.
    let adr = LiveRun::start(ExitConfig::DEFAULT, 3, specs(&layers), RunOptions::default()).unwrap();
    assert!(matches!(LiveRun::from_snapshot(&adr.to_snapshot()).unwrap(), LiveRun::Adr(_)));
    // A tampered submission is named by its path in the snapshot.
    let tampered = text.replace(r#""passRate":1"#, r#""passRate":2"#);
    let err = PolicyRun::from_snapshot(&earlyexit::snapshot::parse(&tampered).unwrap()).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_snapshot", "submitted[0].result.passRate"));
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let parse = |t: &str| Value::parse_json(t, earlyexit::ErrorCode::InvalidConfig, "test").unwrap();
    let layers = parse(r#"[{"name":"a"},{"name":"b"}]"#);
    let start = |options: &str| {
        LiveRun::start_value(&Value::Null, &Value::Number(2.0), &layers, &parse(options), &Value::Null, Naming::Js)
    };
    let field = |options: &str| start(options).map(|_| ()).unwrap_err();
    assert_eq!(field(r#"{"mode":"shade"}"#).field(), "mode");
    // The ADR runs in shadow mode too: a policy run (every layer runs).
    assert!(matches!(start(r#"{"mode":"shadow"}"#).unwrap(), LiveRun::Policy(_)));
    assert_eq!(field(r#"{"policy":"fast"}"#).field(), "policy");
    assert_eq!(field(r#"{"model":{"version":1,"engine":"PyramidOutcomeModel","layers":[]}}"#).field(), "model");
    assert!(matches!(start("{}").unwrap(), LiveRun::Adr(_)));
    assert!(matches!(start(r#"{"policy":"fail_fast"}"#).unwrap(), LiveRun::Policy(_)));
    // The exit config and totalLayers are still checked with a policy.
    let bad_total = LiveRun::start_value(
        &Value::Null,
        &Value::Number(0.0),
        &layers,
        &parse(r#"{"policy":"fail_fast"}"#),
        &Value::Null,
        Naming::Js,
    );
    assert_eq!(bad_total.unwrap_err().field(), "totalLayers");
    // Names key the model, so a policy run needs them distinct.
    let twice = parse(r#"[{"name":"a"},{"name":"a"}]"#);
    let err = LiveRun::start_value(
        &Value::Null,
        &Value::Number(2.0),
        &twice,
        &parse(r#"{"policy":"risk_bounded"}"#),
        &Value::Null,
        Naming::Js,
    )
    .unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_config", "layers[1].name"));
    // Submitting anything but the pending layer, or an invalid result, changes nothing.
    let mut run = start(r#"{"policy":"fail_fast"}"#).unwrap();
    let before = run.clone();
    let err = run
        .submit_value(&Value::Number(1.0), &parse(r#"{"passRate":1,"coverage":1,"flakyRatio":0}"#), Naming::Js)
        .unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_step", "layer"));
    let err = run
        .submit_value(&Value::Number(0.0), &parse(r#"{"passRate":-1,"coverage":1,"flakyRatio":0}"#), Naming::Js)
        .unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_layer_result", "layers[0].passRate"));
    assert_eq!(run, before);
    assert_eq!(run.result().unwrap_err().code(), "invalid_step");
}

/// Numbers within a relative 1e-9 (the independent model's special functions are other
/// algorithms); everything else equal.
fn assert_close(got: &Value, want: &Value, what: &str) {
    policy_vectors::assert_close(got, want, what, 1e-9, 1e-3);
}

/// tests/vectors/policy/pyramid_policy.json `live`: sequences of runs through the step API, the
/// model learning what each result says ran; expected values from the independent JS model in
/// tests/vectors/gen_pyramid_policy.mjs.
#[test]
fn live_vectors_match_the_independent_model() {
    for case in &policy_vectors::cases("live") {
        let name = case.get("name").and_then(Value::as_str).unwrap();
        let policy = case.get("policy").unwrap().clone();
        let config = case.get("config").unwrap().clone();
        let preset = PolicyConfig::preset(policy.as_str().unwrap()).unwrap();
        let learn = preset.merged(&config, Naming::Js, "config").unwrap();
        let Some(Value::Array(runs)) = case.get("runs") else { panic!() };
        let Some(Value::Array(expected)) = case.get("expected") else { panic!() };
        let mut model = OutcomeModel::new();
        for (i, (run, want)) in runs.iter().zip(expected).enumerate() {
            let Some(Value::Array(layers)) = run.get("layers") else { panic!() };
            let specs: Vec<Value> = layers
                .iter()
                .map(|l| {
                    Value::object(vec![
                        ("name", l.get("name").unwrap().clone()),
                        ("costMs", l.get("durationMs").unwrap().clone()),
                    ])
                })
                .collect();
            let options = Value::object(vec![
                ("policy", policy.clone()),
                ("model", model.to_value(Naming::Js)),
                ("policyConfig", config.clone()),
            ]);
            let mut live = LiveRun::start_value(
                &Value::Null,
                &Value::Number(layers.len() as f64),
                &Value::Array(specs),
                &options,
                &Value::Null,
                Naming::Js,
            )
            .unwrap();
            while let Action::Run(layer) = live.next() {
                let recorded = &layers[layer];
                let failed = recorded.get("failed") == Some(&Value::Bool(true));
                let result = Value::object(vec![
                    ("passRate", Value::Number(if failed { 0.0 } else { 1.0 })),
                    ("coverage", Value::Number(1.0)),
                    ("flakyRatio", Value::Number(0.0)),
                    ("durationMs", recorded.get("durationMs").unwrap().clone()),
                ]);
                live.submit_value(&Value::Number(layer as f64), &result, Naming::Js).unwrap();
            }
            let result = live.result().unwrap();
            let got = result.to_value(Naming::Js);
            let what = format!("{name} run {i}");
            for key in [
                "layersExecuted",
                "exitReason",
                "exitLayer",
                "exitedEarly",
                "skippedLayers",
                "verdict",
                "confidence",
                "computeSavedMs",
            ] {
                assert_close(got.get(key).unwrap(), want.get(key).unwrap(), &format!("{what}: {key}"));
            }
            let report = got.get("policy").unwrap();
            assert_close(report.get("risk").unwrap(), want.get("risk").unwrap(), &format!("{what}: risk"));
            let steps: Vec<Value> = match report.get("steps") {
                Some(Value::Array(steps)) => steps.iter().map(|s| s.get("risk").unwrap().clone()).collect(),
                _ => panic!(),
            };
            assert_close(&Value::Array(steps), want.get("steps").unwrap(), &format!("{what}: steps"));
            let speculations: Vec<Value> = result.speculations.iter().map(|s| Value::Number(s.confidence)).collect();
            assert_close(
                &Value::Array(speculations),
                want.get("speculations").unwrap(),
                &format!("{what}: speculations"),
            );
            model.update(&learn, &result.policy.unwrap().ran).unwrap();
        }
        assert_close(&model.to_value(Naming::Js), case.get("model").unwrap(), &format!("{name}: model"));
    }
}
