//! The run store a command or an MCP tool names: its URL (`--store`, `EARLYEXIT_STORE`, the
//! default file), opened for writing or only for reading, the run filter of the flags, and
//! the selected runs as the JSONL text calibration reads.

use crate::core_api::{self, store_rules, Value, NAMING};
use crate::output::Failure;
use earlyexit_store::{RunFilter, Store};

/// The store URL: `--store`, else `EARLYEXIT_STORE`, else the default file.
pub fn store_url(flag: &Option<String>) -> String {
    flag.clone()
        .or_else(|| std::env::var(earlyexit_store::STORE_ENV).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| format!("sqlite:{}", earlyexit_store::DEFAULT_STORE_PATH))
}

/// Opens the store a command names.
pub fn open(flag: &Option<String>) -> Result<Store, Failure> {
    Store::open(&store_url(flag)).map_err(|e| crate::output::with_flag(e, "--store"))
}

/// Opens the store a command only reads: it must exist (never created empty).
pub fn open_existing(flag: &Option<String>) -> Result<Store, Failure> {
    Store::open_existing(&store_url(flag)).map_err(|e| crate::output::with_flag(e, "--store"))
}

/// The filter of `--run-label`, `--dataset`, `--since`, `--limit`.
pub fn filter(
    run_label: &Option<String>,
    dataset: &Option<String>,
    since: &Option<String>,
    limit: Option<u64>,
) -> Result<RunFilter, Failure> {
    let since_ms = match since {
        Some(text) => Some(earlyexit_store::since_ms(text).map_err(|e| crate::output::with_flag(e, "--since"))?),
        None => None,
    };
    Ok(RunFilter { run_label: run_label.clone(), dataset: dataset.clone(), since_ms, limit })
}

/// The stored runs `filter` selects as JSONL text (what calibration reads).
pub fn runs_text(store: &Store, filter: &RunFilter) -> Result<String, Failure> {
    let mut text = String::new();
    store.runs(filter, |run| {
        text.push_str(&run.body);
        text.push('\n');
        Ok(())
    })?;
    Ok(text)
}

/// The stored pyramid runs `filter` selects as JSONL text (what `calibrate pyramids` reads).
pub fn pyramid_runs_text(store: &Store, filter: &RunFilter) -> Result<String, Failure> {
    let mut text = String::new();
    store.pyramid_runs(filter, |run| {
        text.push_str(&run.body);
        text.push('\n');
        Ok(())
    })?;
    Ok(text)
}

/// What `pyramid result` writes to a store: `--log` receipts, `--merge-model` the run.
pub struct ResultToStore<'a> {
    pub store: &'a Option<String>,
    pub log: Option<&'a str>,
    pub model: Option<&'a str>,
    pub build_id: Option<&'a str>,
    pub build_seq: Option<u64>,
}

/// What [`pyramid_result`] wrote: the receipts appended (count, where, why none), the builds
/// of the merged model.
#[derive(Default)]
pub struct Stored {
    pub receipts: Option<(usize, String, Option<String>)>,
    pub model_builds: Option<usize>,
}

/// `pyramid result --log NAME` / `--merge-model NAME`: the result's shadow receipts appended
/// to the store's log, and the run learned (build `{id, seq}`) and merged into the store's
/// model, each in its own transaction. Everything is checked before the first write.
pub fn pyramid_result(to: &ResultToStore<'_>, shadow: Option<&Value>, result: &Value) -> Result<Stored, Failure> {
    if to.log.is_none() && to.model.is_none() {
        if to.store.is_some() {
            return Err(Failure::Usage("--store needs --log or --merge-model (what to write to the store)".into()));
        }
        return Ok(Stored::default());
    }
    let learned = match (to.model, to.build_id, to.build_seq) {
        (Some(_), Some(id), Some(seq)) => {
            let ran = result
                .get("policy")
                .and_then(|p| p.get("ran"))
                .ok_or_else(|| crate::output::with_flag(store_rules::nothing_to_learn(), "--merge-model"))?;
            let build = Value::object(vec![("id", Value::string(id)), ("seq", Value::Number(seq as f64))]);
            Some(
                earlyexit::kit::pyramid::policy::learn_value(&Value::Null, ran, &build, NAMING)
                    .map_err(|e| crate::output::with_flag(e, "--build-id"))?,
            )
        }
        _ => None,
    };
    let mut store = open(to.store)?;
    let mut stored = Stored::default();
    if let Some(log) = to.log {
        let receipts = match shadow.and_then(|s| s.get("receipts")) {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let count = store.append_receipts(log, &receipts).map_err(Failure::core)?;
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let why = core_api::no_receipt_reason(shadow, receipts.len(), count);
        stored.receipts = Some((count, format!("{} (log {log})", store.url()), why.map(str::to_string)));
    }
    if let (Some(name), Some(learned)) = (to.model, learned) {
        let merged = store.merge_model(name, &learned).map_err(Failure::core)?;
        stored.model_builds = Some(match merged.get("builds") {
            Some(Value::Array(builds)) => builds.len(),
            _ => 0,
        });
    }
    Ok(stored)
}
