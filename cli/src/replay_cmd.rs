//! `earlyexit replay loops|pyramids` and `earlyexit calibrate pyramids`: the library's
//! replay and calibration over JSONL files of any size. Replay streams: each line is read,
//! replayed and written out before the next is read (memory bounded by the largest run);
//! the per-run rows wait in an anonymous temporary file until the summary, which the
//! document lists first, is known, so `--json` prints exactly the library's document.
//! Calibration keeps each run's compact record (`RecordedRun::for_calibration`).

use std::io::Write;

use clap::{Args, Subcommand};

use crate::core_api::{self, CalibrationRequest, LoopReplayStream, PyramidReplayStream, Value, NAMING};
use crate::output::{code, with_file, with_flag, Failure};
use crate::state;
// The JSONL reading and the spilled rows live beside (run_lines.rs); the MCP server names
// them through this module.
pub use crate::run_lines::{for_each_run, progress, Rows};

#[derive(Subcommand, Debug)]
pub enum ReplayCommand {
    /// Replay a loop policy over recorded loop runs (one run per line).
    Loops(LoopReplayArgs),
    /// Replay a pyramid policy over recorded pyramid runs (one run per line).
    Pyramids(PyramidReplayArgs),
}

#[derive(Subcommand, Debug)]
pub enum CalibrateCommand {
    /// Calibrate the risk budget of the pyramid policy (Learn-then-Test) on recorded runs.
    Pyramids(CalibrateArgs),
    /// Calibrate a loop policy (Learn-then-Test over the family's path) on recorded loop runs
    /// and write the calibration artifact (`earlyexit loop record --policy FILE` runs it).
    Loops(CalibrateLoopsArgs),
}

#[derive(Args, Debug)]
pub struct CalibrateLoopsArgs {
    /// JSONL files of loop runs, in order (`-` = standard input).
    #[arg(value_name = "FILE", required_unless_present_any = ["plan", "store"])]
    files: Vec<String>,
    /// Calibrate on the runs of this store (sqlite:PATH or postgresql://...) instead of files.
    #[arg(long, value_name = "URL", conflicts_with_all = ["files", "plan"])]
    store: Option<String>,
    /// With --store: only the runs recorded with this label.
    #[arg(long, value_name = "LABEL", requires = "store")]
    run_label: Option<String>,
    /// With --store: only the runs recorded at or after this time (RFC 3339).
    #[arg(long, value_name = "TIME", requires = "store")]
    since: Option<String>,
    /// Print how many tasks a certificate at --risk and --delta needs (with 0 to 3 premature
    /// stops) and read no runs.
    #[arg(long, conflicts_with_all = ["files", "steps", "candidates", "valid_days", "out", "allow_uncertified"])]
    plan: bool,
    /// Exit 0 even when the calibration cannot certify (the artifact is written either way;
    /// without it such a calibration exits 14).
    #[arg(long)]
    allow_uncertified: bool,
    /// The premature-stop rate to certify (0 < risk < 1; default 0.025).
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    risk: Option<String>,
    /// The probability that the certificate is wrong (0 < delta < 1; default 0.1).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: Option<String>,
    /// Points of the family's path (default 100).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    steps: Option<String>,
    /// A JSON file with a path of your own: an array of loop policies (configs or composed
    /// stop policies), most conservative first.
    #[arg(long, value_name = "FILE")]
    candidates: Option<String>,
    /// Days the artifact is trusted (default 90).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    valid_days: Option<String>,
    /// Write the artifact to this file (atomically), or with store:NAME store it under NAME in
    /// the store (--store, else EARLYEXIT_STORE, else sqlite:.earlyexit/store.db); without it
    /// the artifact goes to stdout.
    #[arg(long, value_name = "FILE|store:NAME")]
    out: Option<String>,
}

#[derive(Args, Debug)]
pub struct LoopReplayArgs {
    /// JSONL files of runs, replayed in order as one stream (`-` = standard input).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// The policy: a loop preset name (seed, the default, or recommended).
    #[arg(long, value_name = "NAME", conflicts_with = "policy_file")]
    policy: Option<String>,
    /// The policy as a JSON file: {preset, config, returns, analytics}.
    #[arg(long, value_name = "FILE")]
    policy_file: Option<String>,
    /// No progress bar on stderr.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
pub struct PyramidReplayArgs {
    /// JSONL files of runs, replayed in order as one stream (`-` = standard input).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// default, aggressive, conservative (the ADR's), fail_fast or risk_bounded.
    #[arg(long, value_name = "NAME")]
    policy: Option<String>,
    /// JSON file with a partial config merged over the policy's.
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// JSON file with the outcome model to start from (fail_fast, risk_bounded).
    #[arg(long, value_name = "FILE")]
    model: Option<String>,
    /// What the model learns after each run: ran (the default), all or none.
    #[arg(long, value_name = "WHAT")]
    learn: Option<String>,
    /// Write the model after the replay to this file (atomically).
    #[arg(long, value_name = "FILE")]
    model_out: Option<String>,
    /// No progress bar on stderr.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// JSONL files of pyramid runs, in order (`-` = standard input).
    #[arg(value_name = "FILE", required_unless_present = "store")]
    files: Vec<String>,
    /// Calibrate on the pyramid runs of this store (sqlite:PATH or postgresql://...; those
    /// `runs import --pyramid` added) instead of files.
    #[arg(long, value_name = "URL", conflicts_with = "files")]
    store: Option<String>,
    /// With --store: only the runs recorded with this label.
    #[arg(long, value_name = "LABEL", requires = "store")]
    run_label: Option<String>,
    /// With --store: only the runs recorded at or after this time (RFC 3339).
    #[arg(long, value_name = "TIME", requires = "store")]
    since: Option<String>,
    /// The miss rate among failing runs to certify (0 < risk < 1).
    #[arg(long, value_name = "R", allow_hyphen_values = true)]
    risk: String,
    /// The probability that the certificate is wrong (0 < delta < 1).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    /// risk_bounded (the default) or fail_fast.
    #[arg(long, value_name = "NAME")]
    policy: Option<String>,
    /// JSON file with a partial config merged over the policy's.
    #[arg(long, value_name = "FILE")]
    config: Option<String>,
    /// JSON file with the outcome model to start from.
    #[arg(long, value_name = "FILE")]
    model: Option<String>,
    /// Risk budgets to test, ascending, comma-separated (default 0.001,...,0.2).
    #[arg(long, value_name = "B,B,...", allow_hyphen_values = true)]
    grid: Option<String>,
    /// Share of the runs (first ones) that train the model before testing (default 0.5).
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    warmup: Option<String>,
    /// Write the calibrated model to this file (atomically).
    #[arg(long, value_name = "FILE")]
    model_out: Option<String>,
    /// No progress bar on stderr.
    #[arg(long)]
    quiet: bool,
}

/// Reads the JSON file behind a flag.
fn json_file(path: &str, code_name: &str, field: &str) -> Result<Value, Failure> {
    let text = state::read_input(path)?;
    core_api::parse_json(&text, code_name, field).map_err(|e| with_file(e, path))
}

/// Where a replay or calibration writes its model (`--model-out`, MCP's `model_out`): a
/// function given the document's text, called only when the work completed.
pub type WriteOut<'a> = Option<&'a dyn Fn(&str) -> Result<(), Failure>>;

/// `--model-out FILE` as a [`WriteOut`] (written atomically).
fn model_file(path: &str) -> impl Fn(&str) -> Result<(), Failure> + '_ {
    move |text: &str| state::write_atomic(std::path::Path::new(path), text)
}

/// A replay's answer: the library document's entries in its order; `None` marks where the
/// rows go (`runs`).
pub struct Document {
    /// `(key, value)`, `None` for the rows.
    pub parts: Vec<(&'static str, Option<Value>)>,
    /// The rows.
    pub rows: Rows,
}

impl Document {
    fn get(&self, key: &str) -> Option<&Value> {
        self.parts.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_ref())
    }

    /// Prints the document on stdout, exactly as the library's value prints. A reader that
    /// stops early (`| head`) ends the output quietly.
    fn write_stdout(self) -> Result<(), Failure> {
        match self.write_stdout_inner() {
            Err(Failure::Internal(message)) if message.contains("Broken pipe") => Ok(()),
            other => other,
        }
    }

    fn write_stdout_inner(self) -> Result<(), Failure> {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let io = |e: std::io::Error| Failure::Internal(format!("writing stdout: {e}"));
        let mut rows = Some(self.rows);
        out.write_all(b"{").map_err(io)?;
        for (i, (key, value)) in self.parts.iter().enumerate() {
            if i > 0 {
                out.write_all(b",").map_err(io)?;
            }
            out.write_all(Value::string(*key).to_json().as_bytes()).map_err(io)?;
            out.write_all(b":").map_err(io)?;
            match value {
                Some(v) => out.write_all(v.to_json().as_bytes()).map_err(io)?,
                None => {
                    out.write_all(b"[").map_err(io)?;
                    if let Some(rows) = rows.take() {
                        rows.copy_to(&mut out)?;
                    }
                    out.write_all(b"]").map_err(io)?;
                }
            }
        }
        out.write_all(b"}\n").map_err(io)?;
        out.flush().map_err(io)
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |x| format!("{:.1}%", 100.0 * x))
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

pub fn replay(command: ReplayCommand, json: bool) -> Result<u8, Failure> {
    match command {
        ReplayCommand::Loops(args) => replay_loops(&args, json),
        ReplayCommand::Pyramids(args) => replay_pyramids(&args, json).map(|()| code::GO_ON),
    }
}

/// The library's loop replay document over `files`.
pub fn loop_replay_document(
    files: &[String],
    policy: &Value,
    quiet: bool,
    mut rows: Rows,
    cancelled: &dyn Fn() -> bool,
) -> Result<Document, Failure> {
    let mut stream = LoopReplayStream::from_policy_value(policy, NAMING).map_err(Failure::core)?;
    let bar = progress(files, quiet);
    for_each_run(
        files,
        &bar,
        cancelled,
        |line, path| Ok((core_api::read_loop_run(line, path)?, path.to_string())),
        |(run, path)| {
            let outcome = stream.replay(&run, &path).map_err(Failure::core)?;
            rows.push(core_api::loop_outcome_value(&outcome))
        },
    )?;
    Ok(Document {
        parts: vec![
            ("policy", Some(core_api::loop_policy_value(&stream))),
            ("summary", Some(core_api::loop_summary_value(&stream))),
            ("runs", None),
        ],
        rows,
    })
}

fn replay_loops(args: &LoopReplayArgs, json: bool) -> Result<u8, Failure> {
    let (policy, flag) = match (&args.policy, &args.policy_file) {
        (Some(name), _) => (Value::string(name.as_str()), "--policy"),
        (None, Some(path)) => (json_file(path, "invalid_replay", "policy")?, "--policy-file"),
        (None, None) => (Value::Null, "--policy"),
    };
    // The policy is checked before any file is opened.
    LoopReplayStream::from_policy_value(&policy, NAMING).map_err(|e| with_flag(e, flag))?;
    let rows = if json { Rows::spill()? } else { Rows::Discard };
    let doc = loop_replay_document(&args.files, &policy, args.quiet, rows, &|| false)?;
    if json {
        doc.write_stdout()?;
    } else {
        let s = doc.get("summary").cloned().unwrap_or(Value::Null);
        let s = &s;
        let mut text = format!(
            "runs                   {}\n\
             iterations used        {} of {} ({})\n\
             mean returned quality  {:.2}\n\
             mean best quality      {:.2}\n\
             mean quality gap       {:.2}\n\
             premature stops        {} ({})\n\
             wasted iterations      {}\n\
             returned good          {} (reachable {})\n\
             false passes           {}\n\
             ended without stop     {}\n\
             triggers              ",
            num(s, "runs"),
            num(s, "iterations_used"),
            num(s, "iterations_available"),
            percent(s.get("share_of_available").and_then(Value::as_f64)),
            num(s, "mean_returned_quality"),
            num(s, "mean_best_quality"),
            num(s, "mean_quality_gap"),
            num(s, "premature_stops"),
            percent(s.get("premature_rate").and_then(Value::as_f64)),
            num(s, "wasted_iterations"),
            num(s, "returned_good"),
            num(s, "reachable_good"),
            num(s, "false_passes"),
            num(s, "ended_without_stop"),
        );
        if let Some(Value::Object(triggers)) = s.get("triggers") {
            for (name, n) in triggers {
                if n.as_f64().unwrap_or(0.0) > 0.0 {
                    text.push_str(&format!(" {name} {}", js_num(n)));
                }
            }
        }
        println!("{text}");
    }
    Ok(code::GO_ON)
}

fn js_num(v: &Value) -> String {
    v.as_f64().map_or_else(|| v.to_json(), core_api::js_number)
}

/// The options object of the library's `replayPyramids` from the flags.
pub fn pyramid_options(
    policy: &Option<String>,
    config: &Option<String>,
    model: &Option<String>,
) -> Result<Vec<(&'static str, Value)>, Failure> {
    let mut options = Vec::new();
    if let Some(name) = policy {
        options.push(("policy", Value::string(name.as_str())));
    }
    if let Some(path) = config {
        options.push(("config", json_file(path, "invalid_config", "config")?));
    }
    if let Some(path) = model {
        options.push(("model", json_file(path, "invalid_snapshot", "model")?));
    }
    Ok(options)
}

pub fn option_flag(e: core_api::CoreError) -> Failure {
    let field = e.field().to_string();
    let head = field.split(['.', '[']).next().unwrap_or("");
    match head {
        "policy" => with_flag(e, "--policy"),
        "config" => with_flag(e, "--config"),
        "model" => with_flag(e, "--model"),
        "learn" => with_flag(e, "--learn"),
        "risk" => with_flag(e, "--risk"),
        "delta" => with_flag(e, "--delta"),
        "grid" => with_flag(e, "--grid"),
        "warmup" => with_flag(e, "--warmup"),
        _ => Failure::core(e),
    }
}

/// The library's pyramid replay document over `files`; `model_out` gets the final model
/// (atomically, and only when the replay completed).
pub fn pyramid_replay_document(
    files: &[String],
    options: &Value,
    quiet: bool,
    mut rows: Rows,
    cancelled: &dyn Fn() -> bool,
    model_out: WriteOut,
) -> Result<Document, Failure> {
    let (mut stream, name) = PyramidReplayStream::from_options(options, NAMING).map_err(option_flag)?;
    let bar = progress(files, quiet);
    for_each_run(
        files,
        &bar,
        cancelled,
        |line, path| Ok((core_api::read_pyramid_run(line, path)?, path.to_string())),
        |(run, path)| {
            let replayed = stream.replay_at(&run, &path).map_err(Failure::core)?;
            rows.push(core_api::pyramid_row_value(&replayed))
        },
    )?;
    let model = core_api::pyramid_model_value(&stream);
    if let Some(write) = model_out {
        if cancelled() {
            return Err(Failure::Internal("cancelled".into()));
        }
        write(&model.to_json())?;
    }
    Ok(Document {
        parts: vec![
            ("policy", Some(Value::string(name))),
            ("runs", None),
            ("summary", Some(core_api::pyramid_summary_value(&stream))),
            ("model", Some(model)),
        ],
        rows,
    })
}

fn replay_pyramids(args: &PyramidReplayArgs, json: bool) -> Result<(), Failure> {
    let mut options = pyramid_options(&args.policy, &args.config, &args.model)?;
    if let Some(learn) = &args.learn {
        options.push(("learn", Value::string(learn.as_str())));
    }
    let rows = if json { Rows::spill()? } else { Rows::Discard };
    let model_out = args.model_out.as_deref().map(model_file);
    let doc = pyramid_replay_document(
        &args.files,
        &Value::object(options),
        args.quiet,
        rows,
        &|| false,
        model_out.as_ref().map(|w| w as &dyn Fn(&str) -> Result<(), Failure>),
    )?;
    if json {
        return doc.write_stdout();
    }
    let name = doc.get("policy").and_then(Value::as_str).unwrap_or("").to_string();
    let s = doc.get("summary").cloned().unwrap_or(Value::Null);
    let s = &s;
    let ci = match s.get("falsePassCi") {
        Some(Value::Array(b)) if b.len() == 2 => {
            format!(" [{}, {}]", percent(b.first().and_then(Value::as_f64)), percent(b.get(1).and_then(Value::as_f64)))
        }
        _ => String::new(),
    };
    println!(
        "policy                 {name}\n\
         runs                   {}\n\
         failing runs caught    {} of {} (recall {})\n\
         missed                 {}\n\
         false-pass rate        {}{ci}\n\
         saved nominal          {}\n\
         saved actual           {}\n\
         layers run             {} of {} ({} verified)\n\
         risk-bounded stops     {}",
        num(s, "runs"),
        num(s, "caught"),
        num(s, "failingRuns"),
        percent(s.get("recall").and_then(Value::as_f64)),
        num(s, "missed"),
        percent(s.get("falsePassRate").and_then(Value::as_f64)),
        percent(s.get("savedNominal").and_then(Value::as_f64)),
        percent(s.get("savedActual").and_then(Value::as_f64)),
        num(s, "layersRun"),
        num(s, "layersTotal"),
        num(s, "verifiedLayers"),
        num(s, "riskBoundedStops"),
    );
    Ok(())
}

pub fn calibrate(command: CalibrateCommand, json: bool) -> Result<u8, Failure> {
    let args = match command {
        CalibrateCommand::Pyramids(args) => args,
        CalibrateCommand::Loops(args) => return calibrate_loops(&args, json),
    };
    let options = calibrate_options(&args)?;
    let model_out = args.model_out.as_deref().map(model_file);
    // The store's pyramid runs, oldest first, read as a file of them would be.
    let mut stored = None;
    let mut files = args.files.clone();
    if args.store.is_some() {
        let store = crate::store_open::open_existing(&args.store)?;
        let filter = crate::store_open::filter(&args.run_label, &None, &args.since, None)?;
        let internal = |e: std::io::Error| Failure::Internal(format!("a temporary file for the store's runs: {e}"));
        let mut file = tempfile::NamedTempFile::new().map_err(internal)?;
        {
            let mut out = std::io::BufWriter::new(file.as_file_mut());
            store.pyramid_runs(&filter, |run| {
                use std::io::Write;
                writeln!(out, "{}", run.body).map_err(|e| {
                    core_api::store_rules::store_error(
                        core_api::store_rules::StoreProblem::Io,
                        store.url(),
                        &e.to_string(),
                    )
                })
            })?;
            std::io::Write::flush(&mut out).map_err(internal)?;
        }
        files.insert(0, file.path().display().to_string());
        stored = Some(file);
    }
    let doc = calibrate_document(
        &files,
        &options,
        args.quiet,
        &|| false,
        model_out.as_ref().map(|w| w as &dyn Fn(&str) -> Result<(), Failure>),
    )?;
    drop(stored); // the temporary file of the store's runs, removed
    if json {
        println!("{}", doc.to_json());
    } else {
        let mut text = format!(
            "risk budget            {}\n\
             steps (budget, failing runs, missed, p-value, certified):",
            js_num(doc.get("riskBudget").unwrap_or(&Value::Null))
        );
        if let Some(Value::Array(steps)) = doc.get("steps") {
            for s in steps {
                text.push_str(&format!(
                    "\n  {:<8} {:>6} {:>6}  {:<12.6} {}",
                    js_num(s.get("riskBudget").unwrap_or(&Value::Null)),
                    num(s, "failingRuns"),
                    num(s, "missed"),
                    num(s, "pValue"),
                    s.get("certified").and_then(Value::as_bool).unwrap_or(false)
                ));
            }
        }
        println!("{text}");
    }
    Ok(code::GO_ON)
}

/// The options of the library's `calibratePyramidPolicy` from the flags.
fn calibrate_options(args: &CalibrateArgs) -> Result<Value, Failure> {
    let mut options = pyramid_options(&args.policy, &args.config, &args.model)?;
    options.push(("risk", core_api::number_arg(&args.risk)));
    options.push(("delta", core_api::number_arg(&args.delta)));
    if let Some(grid) = &args.grid {
        options.push(("grid", Value::Array(grid.split(',').map(core_api::number_arg).collect())));
    }
    if let Some(warmup) = &args.warmup {
        options.push(("warmup", core_api::number_arg(warmup)));
    }
    Ok(Value::object(options))
}

/// Checks the options (before any run is read), reads every run's compact record,
/// calibrates, and writes `model_out` (atomically, only when calibration completed).
pub fn calibrate_document(
    files: &[String],
    options: &Value,
    quiet: bool,
    cancelled: &dyn Fn() -> bool,
    model_out: WriteOut,
) -> Result<Value, Failure> {
    let request = CalibrationRequest::from_options(options, NAMING).map_err(option_flag)?;
    let bar = progress(files, quiet);
    let mut runs = Vec::new();
    for_each_run(files, &bar, cancelled, core_api::read_pyramid_run, |run| {
        runs.push(run.for_calibration());
        Ok(())
    })?;
    let doc = request.run(&runs).map_err(Failure::core)?;
    if let Some(write) = model_out {
        if cancelled() {
            return Err(Failure::Internal("cancelled".into()));
        }
        write(&doc.get("model").cloned().unwrap_or(Value::Null).to_json())?;
    }
    Ok(doc)
}

/// `earlyexit calibrate loops`: the runs of every file read whole (a calibration replays each
/// run once per candidate), calibrated on every core; the artifact is written to `--out`
/// (atomically) or printed.
fn calibrate_loops(args: &CalibrateLoopsArgs, json: bool) -> Result<u8, Failure> {
    if args.plan {
        return calibration_plan(args, json);
    }
    let mut options = Vec::new();
    for (key, flag, text) in [
        ("risk", "--risk", &args.risk),
        ("delta", "--delta", &args.delta),
        ("steps", "--steps", &args.steps),
        ("validDays", "--valid-days", &args.valid_days),
    ] {
        if let Some(text) = text {
            options.push((key, core_api::number_arg(text), flag));
        }
    }
    let flag_of = |field: &str| options.iter().find(|(k, _, _)| *k == field).map(|(_, _, f)| *f);
    let mut entries: Vec<(&str, Value)> = options.iter().map(|(k, v, _)| (*k, v.clone())).collect();
    if let Some(path) = &args.candidates {
        entries.push(("candidates", json_file(path, "invalid_config", "candidates")?));
    }
    let options_value = Value::object(entries);
    let mut text = String::new();
    if args.store.is_some() {
        let store = crate::store_open::open_existing(&args.store)?;
        let filter = crate::store_open::filter(&args.run_label, &None, &args.since, None)?;
        text = crate::store_open::runs_text(&store, &filter)?;
    }
    for file in &args.files {
        let part = state::read_input(file)?;
        text.push_str(&part);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    let artifact = core_api::calibrate_loops(&Value::string(text.as_str()), &options_value).map_err(|e| {
        let field = e.field().split(['.', '[']).next().unwrap_or("").to_string();
        match (flag_of(&field), field.as_str(), &args.candidates) {
            (Some(flag), _, _) => with_flag(e, flag),
            (None, "candidates", Some(path)) => with_file(e, path),
            _ => Failure::core(e),
        }
    })?;
    let doc = artifact.to_json();
    match args.out.as_deref().map(|out| (out, crate::store_artifact::name_of(out))) {
        Some((_, Some(name))) => {
            crate::store_artifact::write(&args.store, name, &artifact, "--out")?;
        }
        Some((out, None)) => state::write_atomic(std::path::Path::new(out), &doc)?,
        None => {}
    }
    let body = artifact.get("body");
    if json || args.out.is_none() {
        println!("{doc}");
    } else {
        let message = body.and_then(|b| b.get("message")).and_then(Value::as_str).unwrap_or("");
        println!("{message}");
        if let Some(Value::Array(warnings)) = body.and_then(|b| b.get("warnings")) {
            for w in warnings.iter().filter_map(Value::as_str) {
                println!("warning: {w}");
            }
        }
        println!("artifact written to {}", args.out.as_deref().unwrap_or(""));
    }
    // Written (or printed) either way, so no work is lost: an uncertified artifact carries
    // the most conservative policy and says why (`body.message`, `body.certified`). The exit
    // code tells them apart, so a pipeline does not run an uncertified policy by accident.
    let certified = body.and_then(|b| b.get("certified")).and_then(Value::as_bool) == Some(true);
    if certified || args.allow_uncertified {
        return Ok(code::GO_ON);
    }
    let status = body.and_then(|b| b.get("status")).and_then(Value::as_str).unwrap_or("not_certified");
    let written = match &args.out {
        Some(out) => format!("written to {out}"),
        None => "printed".to_string(),
    };
    eprintln!(
        "earlyexit: calibration not certified ({status}); the artifact was {written} all the same; \
         --allow-uncertified exits 0 on it, `earlyexit calibrate loops --plan` says how many tasks certify"
    );
    Ok(code::UNCERTIFIED)
}

/// `earlyexit calibrate loops --plan`: the tasks a certificate needs at `--risk` and
/// `--delta` (the core's plan), no runs read.
fn calibration_plan(args: &CalibrateLoopsArgs, json: bool) -> Result<u8, Failure> {
    let mut options = Vec::new();
    for (key, text) in [("risk", &args.risk), ("delta", &args.delta)] {
        if let Some(text) = text {
            options.push((key, core_api::number_arg(text)));
        }
    }
    let plan = core_api::calibration_plan(&Value::object(options)).map_err(|e| match e.field() {
        "risk" => with_flag(e, "--risk"),
        "delta" => with_flag(e, "--delta"),
        _ => Failure::core(e),
    })?;
    if json {
        println!("{}", plan.to_json());
        return Ok(code::GO_ON);
    }
    let mut text = format!(
        "tasks needed to certify risk {} at delta {}\n  premature stops   tasks",
        js_num(plan.get("risk").unwrap_or(&Value::Null)),
        js_num(plan.get("delta").unwrap_or(&Value::Null))
    );
    if let Some(Value::Array(rows)) = plan.get("tasksNeeded") {
        for row in rows {
            text.push_str(&format!(
                "\n  {:>15}   {}",
                js_num(row.get("prematureStops").unwrap_or(&Value::Null)),
                js_num(row.get("tasks").unwrap_or(&Value::Null))
            ));
        }
    }
    println!("{text}");
    Ok(code::GO_ON)
}
