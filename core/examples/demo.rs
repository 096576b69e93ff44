//! The demo: both engines replayed over the bundled example data in `examples/data/`.
//!
//! `make demo` (or `cargo run --release -p earlyexit --example demo [DATA_DIR]`) prints, for
//! every agent loop in `loops.jsonl`, where `EarlyStopping` (with the built-in
//! `IterationAnalytics` as its diminishing-returns source) stops, which trigger fired and
//! why, how many iterations that saved and which iteration is the best to return; and for
//! every test-pyramid run in `pyramids.jsonl`, what the `PyramidRun` step API ran,
//! verified and skipped, each layer's decision, the mispredictions and `computeSavedMs`.
//!
//! The replay functions are public because `core/tests/demo_data.rs` runs them too and
//! checks every case against the `expect` field of its line, so the data and the demo
//! cannot drift from what the engines do.

use earlyexit::kit::pyramid::classify_outcome;
use earlyexit::loops::DiminishingReturnsReport;
use earlyexit::{
    calculate_quality_signal, Action, CoherenceEarlyExit, EarlyStopping, ErrorCode, ExitConfig, ExitDecision,
    IterationAnalytics, IterationResult, LayerResult, Naming, Outcome, PyramidRun, StoppingDecision, TestPyramidResult,
    Value,
};
use std::convert::Infallible;
use std::path::{Path, PathBuf};

/// Where the bundled data lives (`examples/data/` at the repository root).
pub fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("examples").join("data")
}

/// Reads a JSONL file into one `Value` per non-empty line.
pub fn load_jsonl(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            Value::parse_json(line, ErrorCode::InvalidReplay, "line")
                .map_err(|e| format!("{}:{}: not valid JSON: {}", path.display(), i + 1, e.message()))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Reading the cases
// ---------------------------------------------------------------------------------------

fn field<'a>(case: &'a Value, key: &str) -> Result<&'a Value, String> {
    case.get(key).ok_or_else(|| format!("case {}: missing '{key}'", case_id(case)))
}

fn text<'a>(case: &'a Value, key: &str) -> Result<&'a str, String> {
    field(case, key)?.as_str().ok_or_else(|| format!("case {}: '{key}' must be a string", case_id(case)))
}

fn number(case: &Value, key: &str) -> Result<f64, String> {
    field(case, key)?.as_f64().ok_or_else(|| format!("case {}: '{key}' must be a number", case_id(case)))
}

fn items<'a>(case: &'a Value, key: &str) -> Result<&'a [Value], String> {
    match field(case, key)? {
        Value::Array(items) => Ok(items),
        _ => Err(format!("case {}: '{key}' must be an array", case_id(case))),
    }
}

/// The case's `id` (or `?`).
pub fn case_id(case: &Value) -> &str {
    case.get("id").and_then(Value::as_str).unwrap_or("?")
}

fn core_error(case: &Value, what: &str, e: earlyexit::Error) -> String {
    format!("case {}: {what}: {} ({}, field '{}')", case_id(case), e.message(), e.code(), e.field())
}

// ---------------------------------------------------------------------------------------
// Engine 1: loops
// ---------------------------------------------------------------------------------------

/// What replaying one loop produced.
#[derive(Debug)]
pub struct LoopOutcome {
    /// Quality per iteration, all of them (also those never run).
    pub qualities: Vec<f64>,
    /// The iteration at which the engine said stop (1-based), if it did.
    pub stopped_at: Option<usize>,
    /// The stopping decision, or the last decision when nothing stopped.
    pub decision: StoppingDecision,
    /// `(iteration, quality)` with the highest quality in the whole run, earliest on ties:
    /// what an oracle would have returned.
    pub best_in_run: (usize, f64),
}

impl LoopOutcome {
    /// Iterations the loop ran.
    pub fn ran(&self) -> usize {
        self.stopped_at.unwrap_or(self.qualities.len())
    }

    /// Iterations the stop spared.
    pub fn saved(&self) -> usize {
        self.qualities.len() - self.ran()
    }
}

/// The record the built-in analytics takes: its own fields of an iteration result.
fn analytics_record(iteration: usize, row: &Value) -> Value {
    let mut entries = vec![("iteration_number".to_string(), Value::Number(iteration as f64))];
    for key in ["quality_score", "verification_status", "tokens_used", "token_cost_usd", "execution_time_ms"] {
        if let Some(v) = row.get(key) {
            entries.push((key.to_string(), v.clone()));
        }
    }
    Value::Object(entries)
}

/// Replays one loop: records each iteration into `EarlyStopping` (and into the built-in
/// `IterationAnalytics` when the case attaches one) and asks `should_stop` after each,
/// until it says stop or the recorded iterations run out.
pub fn replay_loop(case: &Value) -> Result<LoopOutcome, String> {
    let config = case.get("config").unwrap_or(&Value::Null);
    let mut engine = EarlyStopping::from_config_value(config, Naming::Js).map_err(|e| core_error(case, "config", e))?;
    let mut analytics = match case.get("analytics") {
        None | Some(Value::Null) => None,
        Some(config) => Some(
            IterationAnalytics::from_config_value(config, Naming::Js).map_err(|e| core_error(case, "analytics", e))?,
        ),
    };
    let rows = items(case, "iterations")?;
    // Every recorded iteration is validated up front, also those after the stop, whose
    // quality the demo shows as what the loop would have produced.
    let mut qualities = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        let result = IterationResult::from_value(row, Naming::Js)
            .map_err(|e| core_error(case, &format!("iteration {}", index + 1), e))?;
        qualities.push(result.quality_score);
    }
    let mut stopped_at = None;
    let mut last = None;
    for (index, row) in rows.iter().enumerate() {
        let iteration = index + 1;
        // Fixed timestamps keep the replay deterministic (the JS API would fill in "now").
        let timestamp = || format!("2026-01-01T00:{:02}:{:02}.000Z", iteration / 60 % 60, iteration % 60);
        engine
            .record_value(&Value::Number(iteration as f64), row, Naming::Js, timestamp)
            .map_err(|e| core_error(case, &format!("iteration {iteration}"), e))?;
        if let Some(analytics) = analytics.as_mut() {
            analytics
                .record_value(&analytics_record(iteration, row), Naming::Js, &timestamp())
                .map_err(|e| core_error(case, &format!("analytics, iteration {iteration}"), e))?;
        }
        let source = analytics
            .as_ref()
            .map(|a| move || Ok::<DiminishingReturnsReport, Infallible>(a.detect_diminishing_returns()));
        let decision = match engine.should_stop_with(source) {
            Ok(decision) => decision,
            Err(never) => match never {},
        };
        let stop = decision.stop;
        last = Some(decision);
        if stop {
            stopped_at = Some(iteration);
            break;
        }
    }
    let decision = last.ok_or_else(|| format!("case {}: no iterations", case_id(case)))?;
    let mut best_in_run = (0, f64::NEG_INFINITY);
    for (index, &quality) in qualities.iter().enumerate() {
        if quality > best_in_run.1 {
            best_in_run = (index + 1, quality); // earliest on ties
        }
    }
    Ok(LoopOutcome { qualities, stopped_at, decision, best_in_run })
}

// ---------------------------------------------------------------------------------------
// Engine 2: test pyramids
// ---------------------------------------------------------------------------------------

/// One layer's part in a replayed pyramid run.
#[derive(Debug)]
pub enum LayerFate {
    /// Run in order; its lambda and the exit decision taken after it.
    Ran { lambda: f64, decision: ExitDecision },
    /// Skipped by the exit, then run by verification: predicted vs observed.
    Verified { predicted: Outcome, actual: Outcome },
    /// Never run: the prediction (if speculation ran) and what the data says it would have been.
    NotRun { predicted: Option<Outcome>, would_have_been: Outcome },
}

/// What replaying one pyramid run produced.
#[derive(Debug)]
pub struct PyramidOutcome {
    /// Layer names, in order.
    pub names: Vec<String>,
    /// Expected cost per layer (ms).
    pub costs: Vec<Option<f64>>,
    /// What happened to each layer.
    pub fates: Vec<LayerFate>,
    /// The assembled `TestPyramidResult`.
    pub result: TestPyramidResult,
}

impl PyramidOutcome {
    /// The exit decision reasons, one per layer run in order.
    pub fn decision_reasons(&self) -> Vec<&'static str> {
        self.fates
            .iter()
            .filter_map(|fate| match fate {
                LayerFate::Ran { decision, .. } => Some(decision.reason.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The preset named by a case (`default`, `aggressive`, `conservative`) with the case's
/// `config` merged over it, as a full config object (which `start_value` and
/// `CoherenceEarlyExit::from_values` merge over the default preset, leaving it as it is).
pub fn exit_config(case: &Value) -> Result<Value, String> {
    let base = match text(case, "preset")? {
        "default" => ExitConfig::DEFAULT,
        "aggressive" => ExitConfig::AGGRESSIVE,
        "conservative" => ExitConfig::CONSERVATIVE,
        other => return Err(format!("case {}: unknown preset '{other}'", case_id(case))),
    };
    let overrides = case.get("config").unwrap_or(&Value::Null);
    let config =
        base.merged(overrides, Naming::Js, "", ErrorCode::InvalidConfig).map_err(|e| core_error(case, "config", e))?;
    Ok(config.to_value(Naming::Js))
}

/// Replays one pyramid run (`"kind": "run"`) through the step API: ask `next()`, hand
/// the layer's recorded result to `submit()`, until `done`; then `result()`.
pub fn replay_pyramid(case: &Value) -> Result<PyramidOutcome, String> {
    let mut run =
        PyramidRun::start_value(&exit_config(case)?, field(case, "totalLayers")?, field(case, "layers")?, Naming::Js)
            .map_err(|e| core_error(case, "start", e))?;
    let results = items(case, "results")?;
    if results.len() != run.layers().len() {
        return Err(format!("case {}: one result per layer expected", case_id(case)));
    }
    let names = run.layers().iter().map(|l| l.name.clone()).collect::<Vec<_>>();
    let costs = run.layers().iter().map(|l| l.cost_ms).collect::<Vec<_>>();
    let mut decisions: Vec<(usize, ExitDecision)> = Vec::new();
    while let Action::Run(layer) | Action::Verify(layer) = run.next() {
        let recorded =
            results.get(layer).ok_or_else(|| format!("case {}: no result for layer {layer}", case_id(case)))?;
        let decision = run
            .submit_value(&Value::Number(layer as f64), recorded, Naming::Js)
            .map_err(|e| core_error(case, &format!("layer {layer}"), e))?;
        if let Some(decision) = decision {
            decisions.push((layer, decision));
        }
    }
    let result = run.result().map_err(|e| core_error(case, "result", e))?;
    let mut fates = Vec::with_capacity(names.len());
    let exit_layer = usize::try_from(result.exit_layer).unwrap_or(0);
    for (index, recorded) in results.iter().enumerate() {
        let fate = if let Some((_, decision)) = decisions.iter().find(|(i, _)| *i == index) {
            let stamped =
                result.layers.get(index).ok_or_else(|| format!("case {}: layer {index} missing", case_id(case)))?;
            LayerFate::Ran { lambda: calculate_quality_signal(stamped).lambda, decision: decision.clone() }
        } else {
            let speculation = index.checked_sub(exit_layer + 1).and_then(|k| result.speculations.get(k));
            match speculation.and_then(|s| s.actual.map(|actual| (s.predicted, actual))) {
                Some((predicted, actual)) => LayerFate::Verified { predicted, actual },
                None => {
                    let parsed = LayerResult::from_value(recorded, Naming::Js, "")
                        .map_err(|e| core_error(case, &format!("layer {index}"), e))?;
                    LayerFate::NotRun {
                        predicted: speculation.map(|s| s.predicted),
                        would_have_been: classify_outcome(&parsed),
                    }
                }
            }
        };
        fates.push(fate);
    }
    Ok(PyramidOutcome { names, costs, fates, result })
}

/// Feeds a hand-made signal (`"kind": "signal"`) to `CoherenceEarlyExit::should_exit`.
pub fn replay_signal(case: &Value) -> Result<ExitDecision, String> {
    let exit = CoherenceEarlyExit::from_values(&exit_config(case)?, field(case, "totalLayers")?, Naming::Js)
        .map_err(|e| core_error(case, "config", e))?;
    exit.should_exit_value(field(case, "signal")?, field(case, "layer")?, Naming::Js)
        .map_err(|e| core_error(case, "signal", e))
}

// ---------------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------------

/// A left-aligned text table; each row may carry note lines printed under it.
struct Table {
    header: Vec<&'static str>,
    rows: Vec<(Vec<String>, Vec<String>)>,
}

impl Table {
    fn new(header: Vec<&'static str>) -> Self {
        Table { header, rows: Vec::new() }
    }

    fn row(&mut self, cells: Vec<String>, notes: Vec<String>) {
        self.rows.push((cells, notes));
    }

    fn print(&self, indent: &str) {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for (cells, _) in &self.rows {
            for (w, cell) in widths.iter_mut().zip(cells) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: Vec<&str>| {
            let padded: Vec<String> =
                cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}", w = *w)).collect::<Vec<_>>();
            println!("{indent}{}", padded.join("  ").trim_end());
        };
        line(self.header.clone());
        line(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str).collect());
        for (cells, notes) in &self.rows {
            line(cells.iter().map(String::as_str).collect());
            for note in notes {
                println!("{indent}    {note}");
            }
        }
    }
}

fn seconds(ms: f64) -> String {
    if ms % 1000.0 == 0.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

fn print_loops(cases: &[Value]) -> Result<(usize, usize), String> {
    println!("ENGINE 1  agent refinement loops: EarlyStopping + the built-in IterationAnalytics");
    println!(
        "          {} loops from examples/data/loops.jsonl. The self-refine/* quality curves are published",
        cases.len()
    );
    println!("          (Madaan et al., Self-Refine, NeurIPS 2023); their verification and confidence are derived");
    println!("          by the rule in examples/data/README.md, not published. Values after '|' were never run.");
    println!();
    let mut table =
        Table::new(vec!["case", "quality per iteration", "stops at", "trigger", "not run", "returns", "best in run"]);
    let (mut ran, mut total) = (0, 0);
    for case in cases {
        let outcome = replay_loop(case)?;
        ran += outcome.ran();
        total += outcome.qualities.len();
        let mut curve: Vec<String> = outcome.qualities.iter().map(|q| earlyexit::kit::num::to_js_string(*q)).collect();
        if outcome.saved() > 0 {
            curve.insert(outcome.ran(), "|".to_string());
        }
        let stops_at = match outcome.stopped_at {
            Some(i) => format!("{i} of {}", outcome.qualities.len()),
            None => "never".to_string(),
        };
        let returns = match outcome.decision.best {
            Some((iteration, quality)) => format!("#{iteration} ({})", earlyexit::kit::num::to_js_string(quality)),
            None => "-".to_string(),
        };
        let (best_iteration, best_quality) = outcome.best_in_run;
        table.row(
            vec![
                case_id(case).to_string(),
                curve.join(" "),
                stops_at,
                outcome.decision.trigger.as_str().to_string(),
                outcome.saved().to_string(),
                returns,
                format!("#{best_iteration} ({})", earlyexit::kit::num::to_js_string(best_quality)),
            ],
            vec![
                case.get("title").and_then(Value::as_str).unwrap_or("").to_string(),
                format!("reason: {}", outcome.decision.reason),
            ],
        );
    }
    table.print("  ");
    println!();
    println!("  'not run': iterations the stop saved. 'returns': the decision's best_iteration (best_quality_score),");
    println!("  the iteration to hand back: highest quality among verified ones reaching minQualityThreshold, else");
    println!(
        "  highest overall. 'best in run': highest quality in the whole recorded run, iterations not run included."
    );
    Ok((ran, total))
}

fn print_pyramids(cases: &[Value]) -> Result<(f64, f64, usize), String> {
    println!("ENGINE 2  test-pyramid early exit (ADR-033): the PyramidRun step API");
    println!("          runs from examples/data/pyramids.jsonl; layer costs 1 s unit, 5 s integration, 30 s e2e,");
    println!("          60 s performance (the ADR's tooling); flakiness shaped on Google's ~1.5% flaky runs and");
    println!("          ~16% of tests with some flakiness (Micco, 2016). Pass rates and coverage are hand-made.");
    let mut summary = Table::new(vec![
        "case",
        "preset",
        "exit",
        "exitReason",
        "ran",
        "verified",
        "not run",
        "mispredicted",
        "computeSavedMs",
    ]);
    let (mut saved_ms, mut nominal_ms, mut mispredictions) = (0.0, 0.0, 0);
    let mut signals = Vec::new();
    for case in cases {
        if case.get("kind").and_then(Value::as_str) == Some("signal") {
            signals.push(case);
            continue;
        }
        let outcome = replay_pyramid(case)?;
        let r = &outcome.result;
        println!();
        println!("  {}  ({} preset)", case_id(case), text(case, "preset")?);
        println!("  {}", case.get("title").and_then(Value::as_str).unwrap_or(""));
        let mut layers = Table::new(vec!["layer", "cost", "what happened", "lambda", "decision / outcome"]);
        for (index, fate) in outcome.fates.iter().enumerate() {
            let name = outcome.names.get(index).cloned().unwrap_or_default();
            let cost = outcome.costs.get(index).copied().flatten().map_or("?".to_string(), seconds);
            let (what, lambda, detail) = match fate {
                LayerFate::Ran { lambda, decision } => (
                    "ran",
                    earlyexit::kit::num::to_js_string(*lambda),
                    format!("{}: {}", decision.reason.as_str(), decision.explanation),
                ),
                LayerFate::Verified { predicted, actual } => {
                    let verdict = if predicted == actual { "correct" } else { "MISPREDICTION" };
                    (
                        "verified",
                        String::new(),
                        format!("predicted {}, actual {}: {verdict}", predicted.as_str(), actual.as_str()),
                    )
                }
                LayerFate::NotRun { predicted, would_have_been } => (
                    "not run",
                    String::new(),
                    match predicted {
                        Some(p) => format!(
                            "predicted {} (unverified; its recorded result says {})",
                            p.as_str(),
                            would_have_been.as_str()
                        ),
                        None => format!("not needed (its recorded result says {})", would_have_been.as_str()),
                    },
                ),
            };
            layers.row(vec![format!("{index} {name}"), cost, what.to_string(), lambda, detail], Vec::new());
        }
        layers.print("    ");
        let not_run = outcome.fates.iter().filter(|fate| matches!(fate, LayerFate::NotRun { .. })).count();
        let nominal: f64 = outcome.costs.iter().map(|c| c.unwrap_or(0.0)).sum();
        let saved = r.compute_saved_ms;
        let saved_text = saved.map_or("null (a never-run layer has no costMs)".to_string(), |ms| {
            format!("{} ({} of {})", earlyexit::kit::num::to_js_string(ms), seconds(ms), seconds(nominal))
        });
        let exit = if r.exited_early {
            let name = outcome.names.get(exit_layer_index(r)).map_or("?", String::as_str);
            format!("exit after layer {} ({name})", r.exit_layer)
        } else {
            "no exit".to_string()
        };
        println!(
            "    => {exit}, exitReason {}; {not_run} of {} layers not run; mispredictions {}; computeSavedMs {saved_text}",
            r.exit_reason.as_str(),
            outcome.names.len(),
            r.mispredictions
        );
        if r.mispredictions > 0 {
            println!(
                "       a verified prediction was wrong: the exit stands in the ADR's result, but the run has a real"
            );
            println!("       failure and mispredictions > 0 says so; treat the change as failed.");
        }
        saved_ms += saved.unwrap_or(0.0);
        nominal_ms += nominal;
        mispredictions += r.mispredictions;
        summary.row(
            vec![
                case_id(case).to_string(),
                text(case, "preset")?.to_string(),
                if r.exited_early { format!("layer {}", r.exit_layer) } else { "none".to_string() },
                r.exit_reason.as_str().to_string(),
                r.layers_executed.len().to_string(),
                r.verified_layers.to_string(),
                not_run.to_string(),
                r.mispredictions.to_string(),
                saved.map_or("null".to_string(), earlyexit::kit::num::to_js_string),
            ],
            Vec::new(),
        );
    }
    println!();
    summary.print("  ");
    for case in signals {
        let decision = replay_signal(case)?;
        println!();
        println!("  {}  ({} preset)", case_id(case), text(case, "preset")?);
        println!("  {}", case.get("title").and_then(Value::as_str).unwrap_or(""));
        println!("    signal: {}", field(case, "signal")?.to_json());
        println!(
            "    CoherenceEarlyExit.should_exit(signal, layer {}) -> canExit {}, confidence {}, {}: {}",
            number(case, "layer")?,
            decision.can_exit,
            earlyexit::kit::num::to_js_string(decision.confidence),
            decision.reason.as_str(),
            decision.explanation
        );
    }
    Ok((saved_ms, nominal_ms, mispredictions))
}

fn exit_layer_index(result: &TestPyramidResult) -> usize {
    usize::try_from(result.exit_layer).unwrap_or(0)
}

fn run(data_dir: &Path) -> Result<(), String> {
    let loops = load_jsonl(&data_dir.join("loops.jsonl"))?;
    let pyramids = load_jsonl(&data_dir.join("pyramids.jsonl"))?;
    let shown = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    println!("earlyexit demo: both engines replayed over the bundled example data ({})", shown.display());
    println!();
    let (ran, total) = print_loops(&loops)?;
    println!();
    let (saved_ms, nominal_ms, mispredictions) = print_pyramids(&pyramids)?;
    println!();
    println!("TOTALS");
    println!("  loops:    {ran} of {total} recorded iterations run, {} not run", total - ran);
    println!(
        "  pyramids: {} of {} nominal test time not run; {mispredictions} misprediction(s) caught by verification",
        seconds(saved_ms),
        seconds(nominal_ms)
    );
    println!();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    println!("DASHBOARD");
    println!("  examples/dashboard/ shows the same data in a browser: quality curves with each iteration's decision,");
    println!("  the stop point and reason with the config editable live, and pyramid runs layer by layer.");
    if repo.join("scripts").join("serve-dashboard.sh").is_file() {
        println!("  Serve it with `scripts/serve-dashboard.sh` (it builds the wasm package when missing), then open");
        println!("  http://127.0.0.1:8000/examples/dashboard/ and pick an example (README.md, browser quick start).");
    } else {
        println!("  README.md (browser quick start) gives the command that serves it.");
    }
    Ok(())
}

fn main() {
    let data_dir = std::env::args_os().nth(1).map_or_else(default_data_dir, PathBuf::from);
    if let Err(message) = run(&data_dir) {
        eprintln!("demo: {message}");
        std::process::exit(1);
    }
}
