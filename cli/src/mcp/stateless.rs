//! The tools that hold no session: JUnit reports to a layer result, the outcome-model policy's
//! decide and update, the receipt log's check, and the calibration artifact's drift and
//! promotion.

use super::arguments::{options_of, type_error, Args};
use super::call::Call;
use crate::core_api::{self, Value, NAMING};
use crate::junit;
use crate::output::Failure;
use crate::store_artifact;

/// A layer result from JUnit reports `paths` (resolved inside the roots here, after the
/// arguments are checked; coverage and coverage_xml not both, the tools' rules).
pub(super) fn junit_result(args: &Args, paths: &[String], call: &Call) -> Result<Value, Failure> {
    let coverage = match args.get("coverage") {
        None => None,
        Some(Value::Number(n)) => Some(*n),
        Some(other) => return Err(type_error("coverage", "a number", other)),
    };
    let coverage_xml = args.string("coverage_xml")?;
    let paths = call.roots.read_all("junit", paths)?;
    let coverage_xml = coverage_xml.map(|path| call.roots.read("coverage_xml", &path)).transpose()?;
    junit::layer_result(&paths, coverage_xml.as_deref(), coverage)
}

pub(super) fn junit_tool(args: &Args, call: &Call) -> Result<Value, Failure> {
    let paths = args.strings("junit")?;
    if paths.is_empty() {
        return Err(Failure::core(core_api::test_report::no_reports()));
    }
    junit_result(args, &paths, call)
}

/// `pyramidPolicyDecide`; an outcome may give `junit` report paths instead of `failed`
/// (failing = some test did not pass, the verdict's rule).
pub(super) fn policy_decide(args: &Args, call: &Call) -> Result<Value, Failure> {
    let model = args.get("model").cloned().unwrap_or(Value::Null);
    let layers = args.required("layers")?;
    let outcomes = match args.get("outcomes") {
        None => Value::Array(Vec::new()),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let junit = item.get("junit");
                match (junit, item) {
                    (Some(Value::Array(paths)), Value::Object(entries)) => {
                        let field = format!("outcomes[{i}].junit");
                        let paths = paths
                            .iter()
                            .enumerate()
                            .map(|(j, p)| match p {
                                Value::String(p) => call.roots.read(&format!("{field}[{j}]"), p),
                                other => Err(type_error(&format!("{field}[{j}]"), "a string", other)),
                            })
                            .collect::<Result<Vec<String>, Failure>>()?;
                        let result = junit::layer_result(&paths, None, None)?;
                        let failed = core_api::layer_result_failed(&result)?;
                        let mut entries: Vec<(String, Value)> =
                            entries.iter().filter(|(k, _)| k != "junit").cloned().collect();
                        entries.push(("failed".into(), Value::Bool(failed)));
                        out.push(Value::Object(entries));
                    }
                    (Some(other), _) => {
                        return Err(type_error(&format!("outcomes[{i}].junit"), "an array of paths", other));
                    }
                    (None, _) => out.push(item.clone()),
                }
            }
            Value::Array(out)
        }
        Some(other) => other.clone(),
    };
    let options = options_of(args, &["policy", "config"]);
    Ok(core_api::policy_decide(&model, layers, &outcomes, &options)?)
}

/// `verifyReceipts` of a receipt log given as `text`, by `path`, or as `log` of `store` (one
/// of them, the tool's rules).
pub(super) fn receipts_verify(args: &Args, call: &Call) -> Result<Value, Failure> {
    let text = match (args.string("text")?, args.string("path")?, args.string("log")?) {
        (Some(text), _, _) => text,
        (None, Some(path), _) => crate::state::read_input(&call.roots.read("path", &path)?)?,
        (None, None, log) => match (store_of(args, call)?, log) {
            (Some(store), Some(log)) => store.receipt_log(&log).map_err(Failure::core)?,
            _ => return Err(Failure::core(super::wording::argument_needs("log", "store"))),
        },
    };
    Ok(earlyexit::receipt_log::verify_receipts(&text, &earlyexit_digest::Sha256Hasher).to_value())
}

/// An artifact argument (`key`) that is `store:NAME`: the artifact NAME of the store argument's
/// store, with the store and the name (to write an answer back); `None` for a document. A
/// `store:NAME` without a store is refused naming `key`; the core's errors about the name
/// (empty, too long, not in the store) name `key` too.
pub(super) fn stored_artifact(
    args: &Args,
    call: &Call,
    key: &str,
) -> Result<Option<(Value, earlyexit_store::Store, String)>, Failure> {
    let Some(name) = args.get(key).and_then(Value::as_str).and_then(store_artifact::name_of) else {
        return Ok(None);
    };
    let name = name.to_string();
    let Some(store) = store_of(args, call)? else {
        return Err(Failure::core(super::wording::argument_needs(key, "store")));
    };
    let stored = store_artifact::get(&store, &name).map_err(|e| Failure::core(core_api::respelled(e, "name", key)))?;
    Ok(Some((stored.artifact, store, name)))
}

/// `store` given to a tool whose artifact arguments name none of its artifacts: refused
/// naming `store` (it would mean nothing).
pub(super) fn store_unused(args: &Args, keys: &[&str]) -> Result<(), Failure> {
    let names_store = |key: &&str| args.get(key).and_then(Value::as_str).and_then(store_artifact::name_of).is_some();
    if args.get("store").is_some() && !keys.iter().any(names_store) {
        let wanted = keys.iter().map(|k| format!("{k} store:NAME")).collect::<Vec<_>>().join(" or ");
        return Err(Failure::core(super::wording::argument_needs("store", &wanted)));
    }
    Ok(())
}

/// `checkPyramidDrift` / `promotePyramidPolicy` (`now`: the host clock when absent). With
/// `artifact` `store:NAME` (and `store`), the artifact is the store's and the answer's
/// artifact (promoted, or demoted) is written back to it in one transaction.
pub(super) fn artifact_tool(tool: &str, args: &Args, call: &Call) -> Result<Value, Failure> {
    store_unused(args, &["artifact"])?;
    let runs = args.required("runs")?;
    let now = args.get("now").cloned().unwrap_or_else(|| Value::string(core_api::now_iso()));
    let hasher = &earlyexit_digest::Sha256Hasher;
    let judge = |artifact: &Value| match tool {
        "pyramid_drift" => earlyexit::kit::pyramid::replay::drift_value(artifact, runs, hasher, &now, NAMING),
        "loop_drift" => earlyexit::kit::loops::replay::loop_drift_value(artifact, runs, hasher, &now, NAMING),
        "loop_promote" => earlyexit::kit::loops::replay::promote_loop_value(artifact, runs, hasher, &now, NAMING),
        _ => earlyexit::kit::pyramid::replay::promote_value(artifact, runs, hasher, &now, NAMING),
    };
    let artifact = args.required("artifact")?;
    let Some(name) = artifact.as_str().and_then(store_artifact::name_of) else {
        return Ok(judge(artifact)?);
    };
    // store:NAME: read, judged and written back in one transaction of the store.
    let Some(mut store) = store_of(args, call)? else {
        return Err(Failure::core(super::wording::argument_needs("artifact", "store")));
    };
    core_api::store_rules::check_store_name("artifact", name).map_err(Failure::core)?;
    let mut judged = false;
    store
        .update_artifact(name, |stored| {
            judged = true;
            let answer = judge(&stored.artifact)?;
            Ok((answer.get("artifact").cloned(), answer))
        })
        .map_err(|e| if judged { Failure::core(e) } else { Failure::core(core_api::respelled(e, "name", "artifact")) })
}

pub(super) fn policy_update(args: &Args) -> Result<Value, Failure> {
    let model = args.get("model").cloned().unwrap_or(Value::Null);
    let ran = args.required("ran")?;
    let options = options_of(args, &["policy", "config"]);
    Ok(core_api::policy_update(&model, ran, &options)?)
}

/// The store argument's store, opened: a `sqlite:` URL whose file exists inside the server's
/// roots (symbolic links followed), or a `postgresql://` URL of a store that exists (a
/// database, not a file: the roots do not apply); any other URL is the core's store error.
pub(super) fn store_of(args: &Args, call: &Call) -> Result<Option<earlyexit_store::Store>, Failure> {
    let Some(url) = args.string("store")? else { return Ok(None) };
    let path = match core_api::store_rules::parse_store_url(&url).map_err(Failure::core)? {
        core_api::store_rules::StoreUrl::Sqlite(path) => path,
        core_api::store_rules::StoreUrl::Postgres(_) => {
            return earlyexit_store::Store::open_existing(&url).map(Some).map_err(Failure::core)
        }
    };
    let resolved = match call.roots.read("store", &path) {
        Ok(resolved) => resolved,
        // Inside the roots but not there: the store's own error (never created here).
        Err(Failure::Input { message, .. }) => {
            return Err(Failure::core(core_api::store_rules::store_error(
                core_api::store_rules::StoreProblem::Missing,
                &url,
                &message,
            )))
        }
        Err(other) => return Err(other),
    };
    earlyexit_store::Store::open_existing(&format!("sqlite:{resolved}")).map(Some).map_err(Failure::core)
}

/// `calibrate_pyramids`'s pyramid runs from its store argument (those of `run_label` and
/// `since`), as JSONL text; `None` without a store (runs, paths or store: one of them, and
/// run_label and since with store, the tool's rules).
pub(super) fn store_pyramid_runs(args: &Args, call: &Call) -> Result<Option<Value>, Failure> {
    let (run_label, since) = (args.string("run_label")?, args.string("since")?);
    let Some(store) = store_of(args, call)? else { return Ok(None) };
    let filter = crate::store_open::filter(&run_label, &None, &since, None)?;
    Ok(Some(Value::string(crate::store_open::pyramid_runs_text(&store, &filter)?.as_str())))
}

/// `calibrate_loops`'s runs from its store argument (those of `run_label` and `since`), as
/// JSONL text; `None` without a store (runs, paths or store: one of them, and run_label and
/// since with store, the tool's rules).
pub(super) fn store_runs(args: &Args, call: &Call) -> Result<Option<Value>, Failure> {
    let (run_label, since) = (args.string("run_label")?, args.string("since")?);
    let Some(store) = store_of(args, call)? else { return Ok(None) };
    let filter = crate::store_open::filter(&run_label, &None, &since, None)?;
    Ok(Some(Value::string(crate::store_open::runs_text(&store, &filter)?.as_str())))
}
