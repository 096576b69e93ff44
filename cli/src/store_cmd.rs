//! `earlyexit runs list|export|import|check --store URL`: the run store from a shell
//! (docs/store.md). The store's rules are the core's and `earlyexit-store`'s; this module
//! reads flags and files and prints.

use std::io::Write;

use clap::{Args, Subcommand};

use crate::core_api::{self, store_rules, CoreError, ErrorCode, ReplayRun, Value};
use crate::output::{code, Answer, Failure};
use crate::replay_cmd;
use crate::store_open::{filter, open, open_existing};
use earlyexit_store::{RunFilter, RunMeta, Store};

#[derive(Subcommand, Debug)]
pub enum RunsCommand {
    /// List the stored runs (one line each: run id, label, recorded at, the run's id, iterations).
    List(SelectArgs),
    /// Write the stored runs as JSONL, the form replay and calibration read.
    Export(ExportArgs),
    /// Add the runs of JSONL files (the replay form) in one transaction: all or none.
    Import(ImportArgs),
    /// Print a pyramid outcome model the store holds (`pyramid result --merge-model` merges
    /// into it), or write it to a file `pyramid start --model` reads.
    Model(ModelArgs),
    /// Print a calibration artifact the store holds (`calibrate loops --out store:NAME`,
    /// `promote loops --artifact store:NAME` write it), or write it to a file.
    Artifact(ModelArgs),
    /// List the stored artifacts (one line each: name, kind, state promoted, shadow or
    /// expired now, expiry, SHA-256).
    Artifacts(StoreArg),
    /// Check the whole store: SQLite's integrity check, then every run, receipt chain,
    /// artifact and model read back (exit 0 when it passes).
    Check(StoreArg),
}

#[derive(Args, Debug)]
pub struct StoreArg {
    /// The store: sqlite:PATH or postgresql://USER@HOST/DBNAME (default: the EARLYEXIT_STORE environment variable, else
    /// sqlite:.earlyexit/store.db).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
}

#[derive(Args, Debug)]
pub struct ModelArgs {
    #[command(flatten)]
    store: StoreArg,
    /// The model's (or artifact's) name in the store.
    #[arg(value_name = "NAME")]
    name: String,
    /// Write it to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
}

#[derive(Args, Debug)]
pub struct SelectArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Only runs recorded with this label.
    #[arg(long, value_name = "LABEL")]
    run_label: Option<String>,
    /// Only runs of this dataset.
    #[arg(long, value_name = "NAME")]
    dataset: Option<String>,
    /// Only runs recorded at or after this time (RFC 3339).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// At most this many runs (the oldest first).
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    select: SelectArgs,
    /// Write to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    store: StoreArg,
    /// JSONL files of loop runs (`-` = standard input).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
    /// The label every imported run is recorded with.
    #[arg(long, value_name = "LABEL")]
    run_label: Option<String>,
    /// The files hold recorded pyramid runs (the form `replay pyramids` and `calibrate
    /// pyramids` read), kept apart from loop runs: `calibrate pyramids --store` reads them.
    #[arg(long)]
    pyramid: bool,
}

pub fn run(command: RunsCommand, json: bool) -> Result<u8, Failure> {
    match command {
        RunsCommand::List(args) => list(&args, json),
        RunsCommand::Export(args) => export(&args),
        RunsCommand::Import(args) => import(&args, json),
        RunsCommand::Check(args) => check(&args, json),
        RunsCommand::Model(args) => model(&args),
        RunsCommand::Artifact(args) => artifact(&args),
        RunsCommand::Artifacts(args) => artifacts(&args, json),
    }
}

fn select(args: &SelectArgs) -> Result<(Store, RunFilter), Failure> {
    let store = open_existing(&args.store.store)?;
    let filter = filter(&args.run_label, &args.dataset, &args.since, args.limit)?;
    Ok((store, filter))
}

fn write_err(e: std::io::Error) -> CoreError {
    // Ends the stream quietly on a closed pipe (`| head`): reported as an internal error
    // only when it is anything else.
    store_rules::store_error(store_rules::StoreProblem::Io, "-", &e.to_string())
}

fn list(args: &SelectArgs, json: bool) -> Result<u8, Failure> {
    let (store, filter) = select(args)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = store.runs(&filter, |run| {
        let body = Value::parse_json(&run.body, ErrorCode::InvalidReplay, "run")?;
        let id = match body.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => core_api::js_number(*n),
            _ => String::new(),
        };
        let iterations = match body.get("iterations") {
            Some(Value::Array(items)) => items.len(),
            _ => 0,
        };
        let recorded = core_api::iso_from_millis(run.recorded_ms);
        let line = if json {
            Value::object(vec![
                ("runId", Value::string(run.run_id)),
                ("runLabel", run.run_label.map_or(Value::Null, Value::string)),
                ("recordedAt", Value::string(recorded)),
                ("id", Value::string(id)),
                ("dataset", body.get("dataset").cloned().unwrap_or(Value::Null)),
                ("iterations", Value::Number(iterations as f64)),
            ])
            .to_json()
        } else {
            format!("{}\t{}\t{recorded}\t{id}\t{iterations}", run.run_id, run.run_label.as_deref().unwrap_or("-"))
        };
        writeln!(out, "{line}").map_err(write_err)
    });
    finish_stream(result, out)
}

fn finish_stream(result: Result<(), CoreError>, mut out: impl Write) -> Result<u8, Failure> {
    let flushed = result.and_then(|()| out.flush().map_err(write_err));
    match flushed {
        Ok(()) => Ok(code::GO_ON),
        Err(e) if e.message().contains("Broken pipe") => Ok(code::GO_ON),
        Err(e) => Err(Failure::core(e)),
    }
}

fn export(args: &ExportArgs) -> Result<u8, Failure> {
    let (store, filter) = select(&args.select)?;
    let Some(path) = &args.out else {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let result = store.runs(&filter, |run| writeln!(out, "{}", run.body).map_err(write_err));
        return finish_stream(result, out);
    };
    let path = std::path::Path::new(path);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let internal = |e: std::io::Error| Failure::Internal(format!("writing {}: {e}", path.display()));
    let file = tempfile::NamedTempFile::new_in(&dir).map_err(internal)?;
    let mut out = std::io::BufWriter::new(file);
    store.runs(&filter, |run| writeln!(out, "{}", run.body).map_err(write_err))?;
    let file = out.into_inner().map_err(|e| internal(e.into_error()))?;
    file.as_file().sync_all().map_err(internal)?;
    file.persist(path).map_err(|e| internal(e.error))?;
    Ok(code::GO_ON)
}

fn import(args: &ImportArgs, json: bool) -> Result<u8, Failure> {
    let mut store = open(&args.store.store)?;
    if let Some(label) = &args.run_label {
        store_rules::check_store_name("runLabel", label).map_err(|e| crate::output::with_flag(e, "--run-label"))?;
    }
    let meta = RunMeta { run_label: args.run_label.clone(), ..RunMeta::default() };
    let mut read = 0u64;
    let added = store.in_one_transaction(|batch| -> Result<u64, Failure> {
        let bar = indicatif::ProgressBar::hidden();
        replay_cmd::for_each_run(
            &args.files,
            &bar,
            &|| false,
            |line, path| {
                let value = Value::parse_json(line, ErrorCode::InvalidReplay, path)?;
                if args.pyramid {
                    earlyexit::pyramid::replay::RecordedRun::from_value(&value, core_api::NAMING, path)?;
                } else {
                    ReplayRun::from_value(&value, core_api::NAMING, path)?;
                }
                Ok(value)
            },
            |value| {
                read += 1;
                if args.pyramid {
                    batch.add_pyramid_run(&value, &meta)?;
                } else {
                    batch.add_run(&value, &meta)?;
                }
                Ok(())
            },
        )?;
        Ok(batch.added())
    })?;
    let answer = Answer {
        json: Value::object(vec![("read", Value::Number(read as f64)), ("added", Value::Number(added as f64))])
            .to_json(),
        human: format!("{added} run(s) added ({} already in the store)", read - added),
        code: code::GO_ON,
    };
    crate::output::print(&answer, json)?;
    Ok(code::GO_ON)
}

fn check(args: &StoreArg, json: bool) -> Result<u8, Failure> {
    let store = open_existing(&args.store)?;
    let report = store.check()?;
    let answer = Answer {
        json: Value::object(vec![
            ("valid", Value::Bool(true)),
            ("schemaVersion", Value::Number(report.schema_version as f64)),
            ("runs", Value::Number(report.runs as f64)),
            ("receiptLogs", Value::Number(report.receipt_logs as f64)),
            ("receipts", Value::Number(report.receipts as f64)),
            ("artifacts", Value::Number(report.artifacts as f64)),
            ("models", Value::Number(report.models as f64)),
        ])
        .to_json(),
        human: format!(
            "valid: schema {}, {} run(s), {} receipt(s) in {} log(s), {} artifact(s), {} model(s)",
            report.schema_version, report.runs, report.receipts, report.receipt_logs, report.artifacts, report.models
        ),
        code: code::GO_ON,
    };
    crate::output::print(&answer, json)?;
    Ok(code::GO_ON)
}

fn model(args: &ModelArgs) -> Result<u8, Failure> {
    let store = open_existing(&args.store.store)?;
    let Some(model) = store.model(&args.name)? else {
        return Err(Failure::core(store_rules::not_in_store("model", &args.name)));
    };
    let text = model.to_json();
    match &args.out {
        Some(path) => write_atomically(std::path::Path::new(path), &text)?,
        None => return print_lines(std::iter::once(text)),
    }
    Ok(code::GO_ON)
}

fn write_atomically(path: &std::path::Path, text: &str) -> Result<(), Failure> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let internal = |e: std::io::Error| Failure::Internal(format!("writing {}: {e}", path.display()));
    let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(internal)?;
    writeln!(file, "{text}").map_err(internal)?;
    file.as_file().sync_all().map_err(internal)?;
    file.persist(path).map_err(|e| internal(e.error))?;
    Ok(())
}

fn artifact(args: &ModelArgs) -> Result<u8, Failure> {
    store_rules::check_store_name("name", &args.name).map_err(Failure::core)?;
    let store = open_existing(&args.store.store)?;
    let Some(stored) = store.artifact(&args.name)? else {
        return Err(Failure::core(store_rules::not_in_store("artifact", &args.name)));
    };
    let text = stored.artifact.to_json();
    match &args.out {
        Some(path) => write_atomically(std::path::Path::new(path), &text)?,
        None => return print_lines(std::iter::once(text)),
    }
    Ok(code::GO_ON)
}

fn artifacts(args: &StoreArg, json: bool) -> Result<u8, Failure> {
    let store = open_existing(&args.store)?;
    let now = earlyexit_calibrate::now_ms();
    let lines = store.artifacts()?.into_iter().map(|(name, stored)| {
        if json {
            crate::store_artifact::lifecycle(&name, &stored, now).to_json()
        } else {
            let state = crate::store_artifact::state(&stored, now);
            format!("{name}\t{}\t{state}\t{}\t{}", stored.kind, stored.expires_at, stored.sha256)
        }
    });
    print_lines(lines)
}

/// Prints `lines` on standard output, ending quietly on a closed pipe (`| head`).
fn print_lines(lines: impl Iterator<Item = String>) -> Result<u8, Failure> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut result = Ok(());
    for line in lines {
        result = writeln!(out, "{line}").map_err(write_err);
        if result.is_err() {
            break;
        }
    }
    finish_stream(result, out)
}
