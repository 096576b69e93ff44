//! The run store from MCP (docs/store.md, "From MCP"): the `runs_*` tools, the command's
//! `earlyexit runs` subcommands over the `store` argument, and what `pyramid_result` writes to
//! a store (`pyramid result --log/--merge-model`). The store is always named: a tool never
//! falls back to `EARLYEXIT_STORE` or the default file. A `sqlite:` store's file lies inside
//! the server's roots (symbolic links followed); a tool that only reads never creates one,
//! `runs_import` and `pyramid_result` create it (its folder inside the roots, the file no
//! symbolic link). `postgresql://` stores are databases: the roots do not apply.

use super::arguments::{type_error, Args};
use super::call::Call;
use super::stateless::store_of;
use super::store_rows::{INLINE_EXPORT_BYTES, LIST_LIMIT};
use super::wording;
use crate::core_api::{self, store_rules, Value, MAX_SAFE_INTEGER};
use crate::output::Failure;
use crate::store_cmd::{self, RunSource};
use crate::store_open::{self, ResultToStore};
use earlyexit_store::Store;

/// The store argument's store, which must exist (a tool that only reads).
fn existing(args: &Args, call: &Call) -> Result<Store, Failure> {
    args.required("store")?;
    store_of(args, call)?.ok_or_else(|| Failure::core(wording::argument_needs("store", "a URL")))
}

/// The store argument's store for a tool that writes: an existing `sqlite:` file inside the
/// roots (links followed), else a new one whose folder is inside the roots and whose path is
/// no symbolic link; a `postgresql://` store (created by the store's own rules).
pub(super) fn for_writing(url: &str, call: &Call) -> Result<Store, Failure> {
    let path = match store_rules::parse_store_url(url).map_err(Failure::core)? {
        store_rules::StoreUrl::Sqlite(path) => path,
        store_rules::StoreUrl::Postgres(_) => return Store::open(url).map_err(Failure::core),
    };
    let resolved = match call.roots.read("store", &path) {
        Ok(resolved) => resolved,
        Err(Failure::Input { .. }) => {
            let target = call.roots.write("store", &path)?;
            target
                .path()
                .to_str()
                .map(str::to_string)
                .ok_or_else(|| Failure::Input { path: path.clone(), message: "the path is not UTF-8".into() })?
        }
        Err(other) => return Err(other),
    };
    Store::open(&format!("sqlite:{resolved}")).map_err(Failure::core)
}

/// Flags mean nothing to an MCP client: keep the core's field.
fn strip_flag(failure: Failure) -> Failure {
    match failure {
        Failure::Core { error, file, .. } => Failure::Core { error, flag: None, file },
        other => other,
    }
}

/// `limit` between 1 and `max` (an error naming it otherwise), else `default`.
fn limit(args: &Args, default: Option<u64>, max: u64) -> Result<Option<u64>, Failure> {
    match args.get("limit") {
        None => Ok(default),
        Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 1.0 && *n <= max as f64 => Ok(Some(*n as u64)),
        Some(Value::Number(n)) => Err(Failure::core(wording::argument_out_of_range(
            "limit",
            format!("limit must be an integer from 1 to {max}; got {}", core_api::js_number(*n)),
        ))),
        Some(other) => Err(type_error("limit", "an integer", other)),
    }
}

/// The run filter of `run_label`, `dataset`, `since` (errors name the argument).
fn run_filter(args: &Args, limit: Option<u64>) -> Result<earlyexit_store::RunFilter, Failure> {
    let (label, dataset, since) = (args.string("run_label")?, args.string("dataset")?, args.string("since")?);
    store_open::filter(&label, &dataset, &since, limit).map_err(strip_flag)
}

fn label(args: &Args) -> Result<Option<String>, Failure> {
    let label = args.string("run_label")?;
    if let Some(label) = &label {
        store_rules::check_store_name("run_label", label).map_err(Failure::core)?;
    }
    Ok(label)
}

/// `runs_list`: the runs the filter selects, at most `limit` (default 100, at most 1000),
/// oldest first; `more` says whether the store holds more of them.
pub(super) fn runs_list(args: &Args, call: &Call) -> Result<Value, Failure> {
    let (default, max) = LIST_LIMIT;
    let limit = limit(args, Some(default), max)?.unwrap_or(default);
    let filter = run_filter(args, Some(limit + 1))?;
    let store = existing(args, call)?;
    let mut rows = Vec::new();
    store.runs(&filter, |run| {
        rows.push(store_cmd::run_row(run)?);
        Ok(())
    })?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    Ok(Value::object(vec![
        ("count", Value::Number(rows.len() as f64)),
        ("more", Value::Bool(more)),
        ("runs", Value::Array(rows)),
    ]))
}

/// `runs_export`: the selected runs as JSONL, written to `out` (inside the roots, atomically)
/// or answered as `text` up to [`INLINE_EXPORT_BYTES`].
pub(super) fn runs_export(args: &Args, call: &Call) -> Result<Value, Failure> {
    let filter = run_filter(args, limit(args, None, MAX_SAFE_INTEGER)?)?;
    let target = args.string("out")?.map(|out| call.roots.write("out", &out)).transpose()?;
    let store = existing(args, call)?;
    let (mut text, mut count) = (String::new(), 0u64);
    let inline = target.is_none();
    store.runs(&filter, |run| {
        if inline && text.len() + run.body.len() + 1 > INLINE_EXPORT_BYTES {
            return Err(wording::argument_out_of_range(
                "out",
                format!(
                    "the runs exceed {} MiB answered inline: give out (a file inside the roots) or a smaller limit",
                    INLINE_EXPORT_BYTES >> 20
                ),
            ));
        }
        text.push_str(&run.body);
        text.push('\n');
        count += 1;
        Ok(())
    })?;
    let mut answer = vec![("count", Value::Number(count as f64))];
    match target {
        Some(target) => {
            if call.stopped() {
                return Err(Failure::Internal("cancelled".into()));
            }
            target.write(text.strip_suffix('\n').unwrap_or(&text))?;
            answer.push(("out", Value::string(target.path().display().to_string())));
        }
        None => answer.push(("text", Value::string(text))),
    }
    Ok(Value::object(answer))
}

/// `runs_import`: the runs of `paths` (inside the roots) or `text` (JSONL), in one
/// transaction: all or none; a run already in the store is left out.
pub(super) fn runs_import(args: &Args, call: &Call) -> Result<Value, Failure> {
    let url = args.string("store")?.unwrap_or_default();
    let label = label(args)?;
    let pyramid = match args.get("pyramid") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(type_error("pyramid", "a boolean", other)),
    };
    let paths = call.roots.read_all("paths", &args.strings("paths")?)?;
    let text = args.string("text")?;
    let mut store = for_writing(&url, call)?;
    let source = match &text {
        Some(text) => RunSource::Text(text),
        None => RunSource::Files(&paths),
    };
    let (read, added) = store_cmd::import_runs(&mut store, source, &label, pyramid, &|| call.stopped())?;
    Ok(Value::object(vec![("read", Value::Number(read as f64)), ("added", Value::Number(added as f64))]))
}

/// `runs_check`: the whole store checked (what `runs check --json` prints).
pub(super) fn runs_check(args: &Args, call: &Call) -> Result<Value, Failure> {
    let report = existing(args, call)?.check()?;
    Ok(store_cmd::check_value(&report))
}

/// `runs_model` / `runs_artifact`: the model or artifact `name`, answered and, with `out`,
/// written to that file (inside the roots, atomically).
pub(super) fn runs_named(tool: &str, args: &Args, call: &Call) -> Result<Value, Failure> {
    let name = args.string("name")?.unwrap_or_default();
    store_rules::check_store_name("name", &name).map_err(Failure::core)?;
    let target = args.string("out")?.map(|out| call.roots.write("out", &out)).transpose()?;
    let store = existing(args, call)?;
    let (key, document) = if tool == "runs_model" {
        let model = store.model(&name)?.ok_or_else(|| Failure::core(store_rules::not_in_store("model", &name)))?;
        ("model", model)
    } else {
        let stored =
            store.artifact(&name)?.ok_or_else(|| Failure::core(store_rules::not_in_store("artifact", &name)))?;
        ("artifact", stored.artifact)
    };
    let mut answer = vec![("name", Value::string(name))];
    if let Some(target) = &target {
        target.write(&document.to_json())?;
        answer.push(("out", Value::string(target.path().display().to_string())));
    }
    answer.push((key, document));
    Ok(Value::object(answer))
}

/// `runs_artifacts`: every stored artifact with its state now (what `runs artifacts --json`
/// prints, one object each).
pub(super) fn runs_artifacts(args: &Args, call: &Call) -> Result<Value, Failure> {
    let store = existing(args, call)?;
    let now = earlyexit_calibrate::now_ms();
    let listed: Vec<Value> = store
        .artifacts()?
        .into_iter()
        .map(|(name, stored)| crate::store_artifact::lifecycle(&name, &stored, now))
        .collect();
    Ok(Value::object(vec![("artifacts", Value::Array(listed))]))
}

/// What `pyramid_result` writes to its store: `log` (the shadow receipts) and `merge_model`
/// (the run learned as build `{build_id, build_seq}`), checked before the first write. `None`
/// without a store. The store is created when missing (inside the roots).
pub(super) fn result_to_store(
    args: &Args,
    call: &Call,
    shadow: Option<&Value>,
    result: &Value,
) -> Result<Option<Value>, Failure> {
    let Some(url) = args.string("store")? else { return Ok(None) };
    let (log, model, build_id) = (args.string("log")?, args.string("merge_model")?, args.string("build_id")?);
    if log.is_none() && model.is_none() {
        return Err(Failure::core(wording::argument_needs("store", "log or merge_model")));
    }
    let build_seq = match args.get("build_seq") {
        None => None,
        Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= MAX_SAFE_INTEGER as f64 => Some(*n as u64),
        Some(other) => return Err(type_error("build_seq", "an integer from 0", other)),
    };
    if let Some(log) = &log {
        store_rules::check_store_name("log", log).map_err(Failure::core)?;
    }
    if let Some(model) = &model {
        store_rules::check_store_name("merge_model", model).map_err(Failure::core)?;
    }
    let to = ResultToStore {
        store: &None,
        log: log.as_deref(),
        model: model.as_deref(),
        build_id: build_id.as_deref(),
        build_seq,
    };
    let respell = |failure: Failure| match strip_flag(failure) {
        Failure::Core { error, file, .. } => {
            let error = match error.field() {
                "model" => core_api::respelled(error, "model", "merge_model"),
                _ => error,
            };
            Failure::Core { error, flag: None, file }
        }
        other => other,
    };
    let learned = store_open::learned(&to, result).map_err(respell)?;
    let mut store = for_writing(&url, call)?;
    if call.stopped() {
        return Err(Failure::Internal("cancelled".into()));
    }
    let stored = store_open::write_result(&mut store, &to, shadow, learned)?;
    let mut answer = Vec::new();
    if let Some((count, _, why)) = stored.receipts {
        answer.push(("receipts", Value::Number(count as f64)));
        answer.push(("why_no_receipt", why.map_or(Value::Null, Value::string)));
    }
    if let Some(builds) = stored.model_builds {
        answer.push(("model_builds", Value::Number(builds as f64)));
    }
    Ok(Some(Value::object(answer)))
}
