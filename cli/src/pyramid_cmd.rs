//! `earlyexit pyramid start|next|submit|result`: the step API of a `PyramidRun` kept in a
//! state file (its snapshot JSON), which a CI system passes between jobs as an artifact.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::core_api::{self, Action, ErrorCode, ExitConfig, Value, NAMING};
use crate::output::{self, code, with_file, with_flag, Answer, Failure};
use crate::{junit, state};
use earlyexit::pyramid::policy::LiveRun;

#[derive(Subcommand, Debug)]
pub enum PyramidCommand {
    /// Create the state file of a new run and print the first step (exit 0: run it).
    Start(StartArgs),
    /// Print the pending step: exit 0 run the printed layer, 11 verify it, 10 nothing more to run.
    Next(StateArg),
    /// Submit the pending layer's result and print the next step (exit codes as `next`).
    Submit(SubmitArgs),
    /// Print the run's result with its verdict (exit 0 passed, 12 failed, 13 unverified).
    Result(ResultArgs),
}

#[derive(Args, Debug)]
pub struct StateArg {
    /// The state file (the run's snapshot JSON).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
}

#[derive(Args, Debug)]
pub struct StartArgs {
    /// The state file to create.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    #[arg(long, value_name = "NAME", default_value = "default",
        help = format!("The ADR preset: {}", crate::mcp::flag_names("pyramid_start", "preset")))]
    preset: String,
    /// JSON file with a partial exit config (camelCase keys) merged over the preset.
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// A layer, in run order: NAME or NAME=COST_MS (split at the last '='). Repeat per layer.
    #[arg(long = "layer", value_name = "NAME[=COST_MS]", required = true)]
    layers: Vec<String>,
    /// totalLayers of the exit decision (default: the number of --layer).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    total_layers: Option<String>,
    /// Replace an existing state file.
    #[arg(long)]
    force: bool,
    /// Who decides: adr (the preset's exit decision), fail_fast, risk_bounded, or a
    /// calibration artifact's JSON file (enforced only once promoted, else shadow), or
    /// store:NAME, the artifact NAME of the store (--store).
    #[arg(long, value_name = "adr|fail_fast|risk_bounded|ARTIFACT_FILE|store:NAME")]
    policy: Option<String>,
    /// The store of --policy store:NAME (sqlite:PATH or postgresql://...; default the
    /// EARLYEXIT_STORE environment variable, else sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The policy's risk budget (risk_bounded): its config's riskBudget, 0..=1. Over
    /// --policy-config's riskBudget when both are given.
    #[arg(long, value_name = "B", allow_hyphen_values = true)]
    risk_budget: Option<String>,
    /// JSON file with the policy's config (camelCase keys: riskBudget, confidence,
    /// priorFailures, priorPasses, reorder, skipOnSuccess, forgetting).
    #[arg(long, value_name = "FILE")]
    policy_config: Option<String>,
    /// The outcome model's JSON file (fail_fast, risk_bounded).
    #[arg(long, value_name = "FILE")]
    model: Option<String>,
    /// enforced (default) or shadow: every layer runs; where the policy would have exited
    /// is a receipt in the result.
    #[arg(long, value_name = "enforced|shadow")]
    mode: Option<String>,
    /// The run's id in its shadow-mode receipt (a CI build number).
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// The run's label (a branch, a runner pool): in its receipt as runLabel, and the slice
    /// `receipts verify` counts it in.
    #[arg(long, value_name = "LABEL")]
    label: Option<String>,
    /// When an artifact policy's expiry is checked (ms since the epoch or RFC 3339;
    /// default: now). An expired artifact runs in shadow mode and the result says so.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    now: Option<String>,
}

/// The help of a flag giving `pyramid_submit`'s argument `path`: its name, bounds from the
/// tools' table (the core's), then `tail`.
fn submit_help(path: &str, tail: &str) -> String {
    crate::mcp::flag_help("pyramid_submit", path, tail)
}

#[derive(Args, Debug)]
pub struct SubmitArgs {
    /// The state file.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// The layer whose result this is: its index (as `next` prints it) or its name.
    #[arg(value_name = "LAYER")]
    layer: String,
    /// JUnit / xUnit XML reports of the layer (one or more; reruns across them count once).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["pass_rate", "flaky"])]
    junit: Vec<String>,
    /// Cobertura coverage XML (coverage.py's `coverage xml`): its line-rate is the coverage.
    #[arg(long, value_name = "FILE", conflicts_with = "coverage")]
    coverage_xml: Option<String>,
    #[arg(long, value_name = "P", allow_hyphen_values = true, required_unless_present = "junit",
        help = submit_help("result.passRate", " (without --junit)"))]
    pass_rate: Option<String>,
    #[arg(long, value_name = "C", allow_hyphen_values = true,
        help = submit_help("coverage", " (required without --junit and --coverage-xml; with --junit, default 1)"))]
    coverage: Option<String>,
    #[arg(long, value_name = "F", allow_hyphen_values = true, required_unless_present = "junit",
        help = submit_help("result.flakyRatio", " (without --junit)"))]
    flaky: Option<String>,
    /// durationMs of the layer (with --junit it comes from the reports).
    #[arg(long, value_name = "MS", allow_hyphen_values = true, conflicts_with = "junit")]
    duration_ms: Option<String>,
}

#[derive(Args, Debug)]
pub struct ResultArgs {
    /// The state file.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Exit 0, not 13, when the verdict is unverified (layers skipped, none failing).
    #[arg(long)]
    allow_unverified: bool,
    /// Append the result's shadow-mode receipts to this JSONL log (hash-chained; a log that
    /// does not verify is refused).
    #[arg(long, value_name = "FILE")]
    receipts: Option<PathBuf>,
    /// Append the receipts to the receipt log --log of this store (sqlite:PATH or postgresql://...) instead of a
    /// file: one transaction, chained and idempotent by run id as in a file.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The name of the store's receipt log to append to (the store: --store, else
    /// EARLYEXIT_STORE, else sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "NAME", conflicts_with = "receipts")]
    log: Option<String>,
    /// Learn the run (its policy's `ran`) into the store's pyramid outcome model NAME: read,
    /// set-union merge and write in one transaction; needs --build-id and --build-seq.
    #[arg(long, value_name = "NAME", requires_all = ["build_id", "build_seq"])]
    merge_model: Option<String>,
    /// With --merge-model: the build's id (a CI run, `<pr>#<build>`).
    #[arg(long, value_name = "ID", requires = "merge_model")]
    build_id: Option<String>,
    /// With --merge-model: the build's sequence number (a CI run number, its start time).
    #[arg(long, value_name = "N", requires = "merge_model")]
    build_seq: Option<u64>,
}

#[derive(Subcommand, Debug)]
pub enum ReceiptsCommand {
    /// Recompute a receipt log's hash chain: exit 0 when it verifies, 12 where it breaks.
    Verify(VerifyArgs),
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The JSONL receipt log.
    #[arg(value_name = "FILE", required_unless_present = "log", conflicts_with = "log")]
    file: Option<String>,
    /// Verify the log kept in this store (sqlite:PATH or postgresql://...) instead of a file; needs --log.
    #[arg(long, value_name = "URL", requires = "log")]
    store: Option<String>,
    /// The name of the store's receipt log to verify (the store: --store, else
    /// EARLYEXIT_STORE, else sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "NAME")]
    log: Option<String>,
}

/// `earlyexit receipts verify FILE` / `--store URL --log NAME`.
pub fn receipts(command: ReceiptsCommand, json: bool) -> Result<u8, Failure> {
    let ReceiptsCommand::Verify(args) = command;
    let text = match (&args.file, &args.log) {
        (Some(file), _) => state::read_input(file)?,
        (None, Some(log)) => crate::store_open::open_existing(&args.store)?.receipt_log(log)?,
        (None, None) => String::new(),
    };
    let check = earlyexit::receipt_log::verify_receipts(&text, &earlyexit_digest::Sha256Hasher);
    let human = match &check.broken {
        None => {
            let repeated = match check.repeated {
                0 => String::new(),
                n => format!(" ({n} repeated line(s) not counted)"),
            };
            format!(
                "valid: {} receipt(s){repeated}, head {}",
                check.receipts,
                check.head.as_deref().unwrap_or("(empty log)")
            )
        }
        Some(b) => format!(
            "broken at line {} ({}): {}; {} receipt(s) before it verify",
            b.line, b.field, b.reason, check.receipts
        ),
    };
    let exit = if check.valid() { code::GO_ON } else { code::VERDICT_FAILED };
    let answer = Answer { json: output::json(&check.to_value()), human, code: exit };
    output::print(&answer, json)?;
    Ok(answer.code)
}

pub fn run(command: PyramidCommand, json: bool) -> Result<u8, Failure> {
    let answer = match command {
        PyramidCommand::Start(args) => start(&args)?,
        PyramidCommand::Next(args) => next(&args.state)?,
        PyramidCommand::Submit(args) => submit(&args)?,
        PyramidCommand::Result(args) => result(&args)?,
    };
    output::print(&answer, json)?;
    Ok(answer.code)
}

/// What a command that needs the run's state file says when there is none.
const MISSING: &str = "no such state file (create it with `earlyexit pyramid start`)";

fn load(path: &Path, text: &str) -> Result<LiveRun, Failure> {
    let file = path.display().to_string();
    let snapshot = core_api::parse_snapshot(text).map_err(|e| with_file(e, &file))?;
    LiveRun::from_snapshot(&snapshot).map_err(|e| with_file(e, &file))
}

fn load_existing(path: &Path) -> Result<LiveRun, Failure> {
    match state::read(path)? {
        Some(text) => load(path, &text),
        None => Err(Failure::Input { path: path.display().to_string(), message: MISSING.into() }),
    }
}

/// The pending step: `{action, layer, name}` and its exit code.
fn step(run: &LiveRun) -> (Value, String, u8) {
    let action = run.next();
    let mut doc = core_api::action_value(action);
    let (human, exit) = match action {
        Action::Run(i) | Action::Verify(i) => {
            let name = run.layers().get(i).map_or("", |l| l.name.as_str()).to_string();
            if let Value::Object(entries) = &mut doc {
                entries.push(("name".into(), Value::string(name.as_str())));
            }
            let verb = if matches!(action, Action::Run(_)) { "run" } else { "verify" };
            let exit = if matches!(action, Action::Run(_)) { code::GO_ON } else { code::VERIFY };
            (format!("{verb} layer {i} ({name})"), exit)
        }
        Action::Done => ("done: nothing more to run (earlyexit pyramid result)".to_string(), code::STOP),
    };
    (doc, human, exit)
}

fn start(args: &StartArgs) -> Result<Answer, Failure> {
    let preset = ExitConfig::preset_named(&args.preset, "preset").map_err(|e| with_flag(e, "--preset"))?;
    let config = match &args.config {
        None => preset,
        Some(path) => {
            let text = state::read_input(path)?;
            let value = core_api::parse_json(&text, "invalid_config", "config").map_err(|e| with_file(e, path))?;
            // A policy key here would be refused as unknown: name the flag that sets it.
            if let Value::Object(entries) = &value {
                for (key, _) in entries {
                    let instead = if key == "riskBudget" { "--risk-budget" } else { "--policy-config" };
                    if let Some(e) = core_api::policy_key_in_exit_config("config", key, instead) {
                        return Err(with_file(e, path));
                    }
                }
            }
            preset.merged(&value, NAMING, "config", ErrorCode::InvalidConfig).map_err(|e| with_file(e, path))?
        }
    };
    let layers: Vec<Value> = args
        .layers
        .iter()
        .map(|spec| {
            let (name, cost) = match spec.rsplit_once('=') {
                Some((name, cost)) => (name, Some(core_api::number_arg(cost))),
                None => (spec.as_str(), None),
            };
            let mut entries = vec![("name", Value::string(name))];
            if let Some(cost) = cost {
                entries.push(("costMs", cost));
            }
            Value::object(entries)
        })
        .collect();
    let total = match &args.total_layers {
        Some(text) => core_api::number_arg(text),
        None => Value::Number(layers.len() as f64),
    };
    let mut options: Vec<(&str, Value)> = Vec::new();
    if args.store.is_some() && args.policy.as_deref().and_then(crate::store_artifact::name_of).is_none() {
        return Err(Failure::Usage("--store needs --policy store:NAME (an artifact of the store)".into()));
    }
    if let Some(policy) = &args.policy {
        let value = if ["adr", "fail_fast", "risk_bounded"].contains(&policy.as_str()) {
            Value::string(policy.as_str())
        } else if let Some(name) = crate::store_artifact::name_of(policy) {
            crate::store_artifact::read(&args.store, name, "--policy")?
        } else {
            let text = state::read_input(policy)?;
            core_api::parse_json(&text, "invalid_artifact", "artifact").map_err(|e| with_file(e, policy))?
        };
        options.push(("policy", value));
    }
    if let Some(path) = &args.model {
        let text = state::read_input(path)?;
        options
            .push(("model", core_api::parse_json(&text, "invalid_snapshot", "model").map_err(|e| with_file(e, path))?));
    }
    if let Some(config) = policy_config(args)? {
        options.push(("policyConfig", config));
    }
    if let Some(mode) = &args.mode {
        options.push(("mode", Value::string(mode.as_str())));
    }
    if let Some(id) = &args.run_id {
        options.push(("runId", Value::string(id.as_str())));
    }
    if let Some(label) = &args.label {
        options.push(("label", Value::string(label.as_str())));
    }
    if let Some(now) = &args.now {
        options.push(("now", core_api::number_arg(now)));
    }
    let options = if options.is_empty() { Value::Null } else { Value::object(options) };
    let host = earlyexit::artifact::HostServices::new(earlyexit_calibrate::now_ms(), &earlyexit_digest::Sha256Hasher);
    let run = LiveRun::start_value_at(
        &config.to_value(NAMING),
        &total,
        &Value::Array(layers),
        &options,
        &Value::Null,
        NAMING,
        host,
    )
    .map_err(|e| {
        let field = e.field().to_string();
        let flag = if field.starts_with("layers") {
            "--layer"
        } else if field == "policyConfig.riskBudget" && args.risk_budget.is_some() {
            "--risk-budget"
        } else if field.starts_with("policyConfig") {
            "--policy-config"
        } else if field.starts_with("policy") || field == "kind" || field == "schemaVersion" {
            "--policy"
        } else if field.starts_with("model") {
            "--model"
        } else if field == "mode" {
            "--mode"
        } else if field.starts_with("runId") {
            "--run-id"
        } else if field == "label" {
            "--label"
        } else if field == "now" {
            "--now"
        } else {
            "--total-layers"
        };
        with_flag(e, flag)
    })?;
    // `submit` takes a layer by name: a name given twice could not be told apart.
    core_api::check_layer_names(run.layers()).map_err(|e| with_flag(e, "--layer"))?;
    let locked = state::lock(&args.state)?;
    if locked.read()?.is_some() && !args.force {
        return Err(Failure::Usage(format!(
            "{} exists; pass --force to replace it with a new run",
            args.state.display()
        )));
    }
    locked.write_state(&output::json(&run.to_snapshot()))?;
    let (doc, human, exit) = step(&run);
    Ok(Answer { json: output::json(&doc), human, code: exit })
}

/// The policy's config: `--policy-config`'s document, its `riskBudget` set by `--risk-budget`
/// (the core checks both, as it checks a library's `policyConfig`).
fn policy_config(args: &StartArgs) -> Result<Option<Value>, Failure> {
    let mut config = match &args.policy_config {
        None => None,
        Some(path) => {
            let text = state::read_input(path)?;
            Some(core_api::parse_json(&text, "invalid_config", "policyConfig").map_err(|e| with_file(e, path))?)
        }
    };
    if let Some(budget) = &args.risk_budget {
        let budget = core_api::number_arg(budget);
        match &mut config {
            None => config = Some(Value::object(vec![("riskBudget", budget)])),
            Some(Value::Object(entries)) => {
                entries.retain(|(k, _)| k != "riskBudget");
                entries.push(("riskBudget".to_string(), budget));
            }
            // Not an object: the core's error names --policy-config.
            Some(_) => {}
        }
    }
    Ok(config)
}

fn next(path: &Path) -> Result<Answer, Failure> {
    let run = load_existing(path)?;
    let (doc, human, exit) = step(&run);
    Ok(Answer { json: output::json(&doc), human, code: exit })
}

/// The index of the layer `LAYER` names: digits are an index, anything else a name.
fn layer_index(run: &LiveRun, layer: &str) -> Result<Value, Failure> {
    if !layer.is_empty() && layer.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(core_api::number_arg(layer));
    }
    let matches: Vec<usize> =
        run.layers().iter().enumerate().filter(|(_, l)| l.name == layer).map(|(i, _)| i).collect();
    match matches.as_slice() {
        [i] => Ok(Value::Number(*i as f64)),
        [] => Err(Failure::Usage(format!(
            "no layer is named '{layer}' (layers: {})",
            run.layers().iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", ")
        ))),
        _ => Err(Failure::Usage(format!("several layers are named '{layer}': give its index"))),
    }
}

fn submit(args: &SubmitArgs) -> Result<Answer, Failure> {
    // The result first: reading reports takes the time, and a bad one changes nothing.
    let result = if args.junit.is_empty() {
        let mut entries = vec![
            ("passRate", core_api::number_arg(args.pass_rate.as_deref().unwrap_or(""))),
            ("coverage", coverage_value(args)?),
            ("flakyRatio", core_api::number_arg(args.flaky.as_deref().unwrap_or(""))),
        ];
        if let Some(ms) = &args.duration_ms {
            entries.push(("durationMs", core_api::number_arg(ms)));
        }
        Value::object(entries)
    } else {
        let coverage = match &args.coverage {
            Some(text) => match core_api::number_arg(text) {
                Value::Number(n) => Some(n),
                other => {
                    let error = core_api::type_error(ErrorCode::InvalidLayerResult, "coverage", "a number", &other);
                    return Err(with_flag(error, "--coverage"));
                }
            },
            None => None,
        };
        junit::layer_result(&args.junit, args.coverage_xml.as_deref(), coverage)?
    };
    let locked = state::lock_existing(&args.state, MISSING)?;
    let Some(text) = locked.read()? else {
        return Err(Failure::Input { path: args.state.display().to_string(), message: MISSING.into() });
    };
    let mut run = load(&args.state, &text)?;
    let layer = layer_index(&run, &args.layer)?;
    let index = layer.as_f64().unwrap_or(0.0) as usize;
    let decision = run.submit_value(&layer, &result, NAMING).map_err(|e| {
        let flag = flag_of_result_field(e.field(), !args.junit.is_empty());
        match flag {
            Some(flag) => with_flag(e, flag),
            None => Failure::core(e),
        }
    })?;
    locked.write_state(&output::json(&run.to_snapshot()))?;
    let (next_doc, next_human, exit) = step(&run);
    let name = run.layers().get(index).map_or("", |l| l.name.as_str()).to_string();
    let doc = Value::object(vec![
        ("layer", Value::Number(index as f64)),
        ("name", Value::string(name.as_str())),
        ("result", result.clone()),
        ("decision", decision.as_ref().map_or(Value::Null, |d| d.to_value(NAMING))),
        ("next", next_doc),
    ]);
    let mut human = format!(
        "layer {index} ({name}): passRate {}, coverage {}, flakyRatio {}",
        number_text(&result, "passRate"),
        number_text(&result, "coverage"),
        number_text(&result, "flakyRatio")
    );
    if let (Some(total), Some(passed)) = (result.get("total"), result.get("passed")) {
        human.push_str(&format!(
            " ({} of {} tests passed, {} flaky, {} skipped)",
            js(passed),
            js(total),
            result.get("flaky").map_or_else(String::new, js),
            result.get("skipped").map_or_else(String::new, js)
        ));
    }
    if let Some(d) = &decision {
        human.push_str(&format!("\n  exit decision: {}", if d.can_exit { "exit" } else { "continue" }));
        human.push_str(&format!(" ({}, confidence {})", d.reason.as_str(), core_api::js_number(d.confidence)));
    }
    human.push_str(&format!("\n  next: {next_human}"));
    Ok(Answer { json: output::json(&doc), human, code: exit })
}

fn js(v: &Value) -> String {
    v.as_f64().map_or_else(|| v.to_json(), core_api::js_number)
}

fn number_text(result: &Value, key: &str) -> String {
    result.get(key).map_or_else(String::new, js)
}

fn coverage_value(args: &SubmitArgs) -> Result<Value, Failure> {
    match (&args.coverage, &args.coverage_xml) {
        (Some(text), _) => Ok(core_api::number_arg(text)),
        (None, Some(path)) => Ok(Value::Number(junit::read_cobertura(path)?)),
        (None, None) => Err(Failure::Usage("--coverage or --coverage-xml is required without --junit".into())),
    }
}

/// The flag behind a result field the core names (`layers[2].passRate`).
fn flag_of_result_field(field: &str, from_junit: bool) -> Option<&'static str> {
    if field == "layer" {
        return None;
    }
    let last = field.rsplit('.').next().unwrap_or(field);
    match (last, from_junit) {
        (_, true) => Some("--junit"),
        ("passRate", _) => Some("--pass-rate"),
        ("coverage", _) => Some("--coverage"),
        ("flakyRatio", _) => Some("--flaky"),
        ("durationMs", _) => Some("--duration-ms"),
        _ => None,
    }
}

/// One line per layer: a layer's own outcome is `passed` or `failed`; a prediction about a
/// skipped layer is `correct` or `wrong` once verification ran it.
fn layer_lines(run: &LiveRun, result: &core_api::TestPyramidResult) -> String {
    let name = |i: usize| run.layers().get(i).map_or("", |l| l.name.as_str());
    let outcome = |i: usize| if result.failing_layers.iter().any(|f| f.layer == i) { "failed" } else { "passed" };
    let prediction = |i: usize| result.speculations.iter().find(|s| s.layer == Some(i));
    let mut out = String::new();
    for &i in &result.layers_before_exit {
        out.push_str(&format!("\n  layer {i} {}: {}", name(i), outcome(i)));
    }
    for &i in &result.layers_verified {
        out.push_str(&format!("\n  layer {i} {}: {} (verified", name(i), outcome(i)));
        if let Some(s) = prediction(i) {
            let right = if s.correct() == Some(true) { "correct" } else { "wrong" };
            out.push_str(&format!("; prediction {}: {right}", s.predicted.as_str()));
        }
        out.push(')');
    }
    for &i in &result.layers_not_run {
        out.push_str(&format!("\n  layer {i} {}: not run", name(i)));
        if let Some(s) = prediction(i) {
            out.push_str(&format!(" (predicted {}, not checked)", s.predicted.as_str()));
        }
    }
    out
}

fn result(args: &ResultArgs) -> Result<Answer, Failure> {
    let run = load_existing(&args.state)?;
    let result = run.result().map_err(Failure::core)?;
    let value = run.result_value(NAMING).map_err(Failure::core)?;
    let mut appended = None;
    if let Some(log) = &args.receipts {
        let receipts = match result.shadow.as_ref().and_then(|s| s.get("receipts")) {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let locked = state::lock(log)?;
        let text = locked.read()?.unwrap_or_default();
        let lines = earlyexit::receipt_log::append_receipts(&text, &receipts, &earlyexit_digest::Sha256Hasher)
            .map_err(|e| with_file(e, &log.display().to_string()))?;
        // The core leaves out a receipt already in the log (a retried step): nothing to
        // append, nothing written. The write ends the text with its own newline.
        let count = lines.lines().filter(|l| !l.is_empty()).count();
        if count > 0 {
            let whole = text + &lines;
            locked.write(whole.strip_suffix('\n').unwrap_or(&whole))?;
        }
        let why = core_api::no_receipt_reason(result.shadow.as_ref(), receipts.len(), count);
        appended = Some((count, log.display().to_string(), why.map(str::to_string)));
    }
    let stored = crate::store_open::pyramid_result(
        &crate::store_open::ResultToStore {
            store: &args.store,
            log: args.log.as_deref(),
            model: args.merge_model.as_deref(),
            build_id: args.build_id.as_deref(),
            build_seq: args.build_seq,
        },
        result.shadow.as_ref(),
        &value,
    )?;
    if let Some(receipts) = stored.receipts {
        appended = Some(receipts);
    }
    let verdict = result.verdict.as_str();
    let exit = match verdict {
        "failed" => code::VERDICT_FAILED,
        "unverified" if !args.allow_unverified => code::VERDICT_UNVERIFIED,
        _ => code::GO_ON,
    };
    let mut human = format!(
        "verdict: {verdict}; {} ({}), layers run: {:?}",
        result.exit_reason.as_str(),
        if result.exited_early { "exited early" } else { "ran to the end" },
        result.layers_executed
    );
    if !result.failing_layers.is_empty() {
        let names: Vec<String> = result.failing_layers.iter().map(|f| format!("{} ({})", f.layer, f.name)).collect();
        human.push_str(&format!("\n  failing: {}", names.join(", ")));
    }
    human.push_str(&layer_lines(&run, &result));
    if let Some(saved) = result.compute_saved_ms {
        human.push_str(&format!("\n  compute saved: {} ms", core_api::js_number(saved)));
    }
    if let Some(note) = result.note {
        human.push_str(&format!("\n  note: {note}"));
    }
    if let Some(shadow) = &result.shadow {
        let reason = shadow.get("reason").and_then(Value::as_str).unwrap_or("requested");
        human.push_str(&format!("\n  shadow mode ({reason})"));
    }
    if let Some((n, log, why)) = appended {
        human.push_str(&format!("\n  {n} receipt(s) appended to {log}"));
        if let Some(why) = why {
            human.push_str(&format!(" ({why})"));
        }
    }
    if let Some(builds) = stored.model_builds {
        human.push_str(&format!("\n  model {}: {builds} build(s)", args.merge_model.as_deref().unwrap_or("")));
    }
    Ok(Answer { json: output::json(&value), human, code: exit })
}
