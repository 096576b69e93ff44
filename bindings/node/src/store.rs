//! The run store from Node (`Store` of the JS layer, `bindings/js/api/store.js`): the crate
//! `earlyexit-store` behind a mutex, every call a napi `AsyncTask` whose SQLite work runs on
//! the libuv thread pool, never on the event loop.
//!
//! Each method takes its arguments in the wire format of the JS layer
//! (`bindings/js/interface/src/wire.rs`) and resolves with an answer in that format: a value,
//! or `!{code, kind, field, message}` for the typed error the JS layer throws. A panic inside
//! a task becomes an error answer, never an unwinding across napi; a closed store answers
//! the core's store error.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use earlyexit::kit::host::store::{store_error, StoreProblem};
use earlyexit::{Error, ErrorCode, Value};
use earlyexit_js::wire;
use earlyexit_store::{host, Added, RunFilter, RunMeta, Store};
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

type Shared = Arc<Mutex<Option<Store>>>;

/// One call's work: runs on a pool thread, answers in the wire format.
pub struct StoreJob {
    job: Option<Box<dyn FnOnce() -> String + Send>>,
}

impl Task for StoreJob {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<String> {
        let Some(job) = self.job.take() else { return Ok(String::new()) };
        Ok(catch_unwind(AssertUnwindSafe(job)).unwrap_or_else(|_| {
            // Never expected: a bug, reported as the error it is rather than a crash.
            wire::encode_error(&store_error(StoreProblem::Io, "", "internal error in the store binding"))
        }))
    }

    fn resolve(&mut self, _env: Env, output: String) -> napi::Result<String> {
        Ok(output)
    }
}

fn task(job: impl FnOnce() -> String + Send + 'static) -> AsyncTask<StoreJob> {
    AsyncTask::new(StoreJob { job: Some(Box::new(job)) })
}

fn answer(result: Result<Value, Error>) -> String {
    match result {
        Ok(value) => wire::encode(&value),
        Err(e) => wire::encode_error(&e),
    }
}

fn lock(shared: &Shared) -> MutexGuard<'_, Option<Store>> {
    // A task that panicked holding the lock left the store as its transaction's rollback
    // left it: whole.
    shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `f` with the open store; a closed one is the core's store error.
fn with_store(shared: &Shared, url: &str, f: impl FnOnce(&mut Store) -> Result<Value, Error>) -> String {
    let mut guard = lock(shared);
    match guard.as_mut() {
        Some(store) => answer(f(store)),
        None => wire::encode_error(&host::closed_error(url)),
    }
}

fn args(text: &str) -> Result<Vec<Value>, Error> {
    match wire::decode(text, false)? {
        Value::Array(items) => Ok(items),
        other => Ok(vec![other]),
    }
}

fn arg(items: &[Value], i: usize) -> &Value {
    items.get(i).unwrap_or(&Value::Null)
}

/// Argument `i`, a string (a log, a name, a path): else the core's type error naming `field`.
fn text_arg(items: &[Value], i: usize, field: &str) -> Result<String, Error> {
    match arg(items, i) {
        Value::String(s) => Ok(s.clone()),
        other => Err(earlyexit::kit::host::type_error(ErrorCode::InvalidConfig, field, "a string", other)),
    }
}

fn num(n: impl Into<f64>) -> Value {
    Value::Number(n.into())
}

/// The native half of the JS layer's `Store`.
#[napi]
pub struct NativeStore {
    shared: Shared,
    url: String,
}

#[napi]
impl NativeStore {
    /// A store not open yet; `open(url)` opens it.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        NativeStore { shared: Arc::new(Mutex::new(None)), url: String::new() }
    }

    /// The receipt log a `Loop` given a store writes its shadow receipts to.
    #[napi(catch_unwind)]
    pub fn default_loop_receipt_log() -> String {
        host::DEFAULT_LOOP_RECEIPT_LOG.to_string()
    }

    /// `[name]`: checks a name of a store entry given before any store call (a `Loop`'s
    /// `receiptLog`) by the store's rule; null, or the error naming `field`.
    #[napi(catch_unwind)]
    pub fn check_store_name(field: String, given: String) -> String {
        let checked = args(&given).and_then(|items| {
            let name = text_arg(&items, 0, &field)?;
            earlyexit::kit::host::store::check_store_name(&field, &name)
        });
        answer(checked.map(|()| Value::Null))
    }

    /// `[url]`: opens (creating when missing) the store at `url`; `true`, or the store error.
    #[napi(catch_unwind)]
    pub fn open(&mut self, given: String) -> AsyncTask<StoreJob> {
        let url = match args(&given).and_then(|items| text_arg(&items, 0, "store")) {
            Ok(url) => url,
            Err(e) => return task(move || wire::encode_error(&e)),
        };
        self.url = url.clone();
        let shared = self.shared.clone();
        task(move || match host::check_binding_url(&url).and_then(|()| Store::open(&url)) {
            Ok(store) => {
                *lock(&shared) = Some(store);
                wire::encode(&Value::Bool(true))
            }
            Err(e) => wire::encode_error(&e),
        })
    }

    /// `[run, {runLabel, runId, recordedMs, dataset}]`: whether the run was new.
    #[napi(catch_unwind)]
    pub fn add_run(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let options = arg(&items, 1);
                let meta = meta_of(options, "addRun", &["runLabel", "runId", "recordedMs", "dataset"])?;
                let run = match text_option(options, "dataset")? {
                    Some(dataset) => host::with_dataset(arg(&items, 0).clone(), &dataset)?,
                    None => arg(&items, 0).clone(),
                };
                Ok(Value::Bool(store.add_run(&run, &meta)? == Added::Added))
            })
        })
    }

    /// `[{runLabel, dataset, sinceMs}, afterSeq, pageSize]`: one page of runs, oldest first,
    /// as `[{seq, runId, runLabel, recordedMs, run}]`.
    #[napi(catch_unwind)]
    pub fn runs_page(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            let mut guard = lock(&shared);
            let Some(store) = guard.as_mut() else {
                return wire::encode_error(&host::closed_error(&url));
            };
            let items = match args(&given) {
                Ok(items) => items,
                Err(e) => return wire::encode_error(&e),
            };
            let filter = match filter_of(arg(&items, 0), "runs") {
                Ok(filter) => filter,
                Err(e) => return wire::encode_error(&e),
            };
            let after = match arg(&items, 1) {
                Value::Number(n) if *n >= 0.0 => *n as i64,
                _ => 0,
            };
            let page = match arg(&items, 2) {
                Value::Number(n) if *n >= 1.0 => (*n as usize).min(host::RUNS_PAGE),
                _ => host::RUNS_PAGE,
            };
            let rows = match store.runs_page(&filter, after, page) {
                Ok(rows) => rows,
                Err(e) => return wire::encode_error(&e),
            };
            // The page as text: each run's stored JSON line goes out as it is.
            let mut out = String::from("[");
            for run in rows {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str("{\"seq\":");
                out.push_str(&run.seq.to_string());
                out.push_str(",\"runId\":");
                out.push_str(&Value::String(run.run_id).to_json());
                out.push_str(",\"runLabel\":");
                out.push_str(&run.run_label.map_or(Value::Null, Value::String).to_json());
                out.push_str(",\"recordedMs\":");
                out.push_str(&run.recorded_ms.to_string());
                out.push_str(",\"run\":");
                out.push_str(&run.body);
                out.push('}');
            }
            out.push(']');
            out
        })
    }

    /// `[log, receipts]`: how many lines were appended.
    #[napi(catch_unwind)]
    pub fn append_receipts(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let log = text_arg(&items, 0, "log")?;
                let receipts = match arg(&items, 1) {
                    Value::Array(list) => list.clone(),
                    other => {
                        return Err(earlyexit::kit::host::type_error(
                            ErrorCode::InvalidReceipt,
                            "receipts",
                            "an array of receipts",
                            other,
                        ))
                    }
                };
                Ok(num(store.append_receipts(&log, &receipts)? as f64))
            })
        })
    }

    /// `log`: the chain recomputed, as `verifyReceipts(text)` answers.
    #[napi(catch_unwind)]
    pub fn verify_receipts(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                Ok(store.verify_receipts(&text_arg(&args(&given)?, 0, "log")?)?.to_value())
            })
        })
    }

    /// `log`: the receipt log's JSONL text.
    #[napi(catch_unwind)]
    pub fn receipt_log(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                Ok(Value::String(store.receipt_log(&text_arg(&args(&given)?, 0, "log")?)?))
            })
        })
    }

    /// `[name, artifact, nowMs]`: the stored artifact's lifecycle.
    #[napi(catch_unwind)]
    pub fn put_artifact(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let name = text_arg(&items, 0, "name")?;
                let stored = store.put_artifact(&name, arg(&items, 1))?;
                Ok(artifact_value(&name, stored, now_of(arg(&items, 2)), false))
            })
        })
    }

    /// `[name, nowMs]`: the artifact with its lifecycle, or null.
    #[napi(catch_unwind)]
    pub fn artifact(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let name = text_arg(&items, 0, "name")?;
                Ok(match store.artifact(&name)? {
                    Some(stored) => artifact_value(&name, stored, now_of(arg(&items, 1)), true),
                    None => Value::Null,
                })
            })
        })
    }

    /// `[name, model]`: the merged model.
    #[napi(catch_unwind)]
    pub fn merge_model(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let name = text_arg(&items, 0, "name")?;
                store.merge_model(&name, arg(&items, 1))
            })
        })
    }

    /// `name`: the model, or null.
    #[napi(catch_unwind)]
    pub fn model(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                Ok(store.model(&text_arg(&args(&given)?, 0, "name")?)?.unwrap_or(Value::Null))
            })
        })
    }

    /// `[path, {runLabel, dataset, sinceMs, limit}]`: the selected runs written to `path` as
    /// JSONL (a file beside it renamed over it when complete); how many.
    #[napi(catch_unwind)]
    pub fn export_runs(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let path = text_arg(&items, 0, "path")?;
                Ok(num(store.export_file(&path, &filter_of(arg(&items, 1), "exportRuns")?)? as f64))
            })
        })
    }

    /// `[path, {runLabel}]`: the runs of a JSONL file added in one transaction (all or
    /// none): `{read, added}`.
    #[napi(catch_unwind)]
    pub fn import_runs(&self, given: String) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let items = args(&given)?;
                let path = text_arg(&items, 0, "path")?;
                let (read, added) = store.import_file(&path, &meta_of(arg(&items, 1), "importRuns", META_KEYS)?)?;
                Ok(Value::object(vec![("read", num(read as f64)), ("added", num(added as f64))]))
            })
        })
    }

    /// The whole store checked: `{valid, schemaVersion, runs, receiptLogs, receipts,
    /// artifacts, models}`.
    #[napi(catch_unwind)]
    pub fn check(&self) -> AsyncTask<StoreJob> {
        let (shared, url) = (self.shared.clone(), self.url.clone());
        task(move || {
            with_store(&shared, &url, |store| {
                let r = store.check()?;
                Ok(Value::object(vec![
                    ("valid", Value::Bool(true)),
                    ("schemaVersion", num(r.schema_version as f64)),
                    ("runs", num(r.runs as f64)),
                    ("receiptLogs", num(r.receipt_logs as f64)),
                    ("receipts", num(r.receipts as f64)),
                    ("artifacts", num(r.artifacts as f64)),
                    ("models", num(r.models as f64)),
                ]))
            })
        })
    }

    /// Closes the store (after the calls before it); later calls answer "closed".
    #[napi(catch_unwind)]
    pub fn close(&self) -> AsyncTask<StoreJob> {
        let shared = self.shared.clone();
        task(move || {
            lock(&shared).take();
            String::new()
        })
    }
}

/// The optional string `key` of an options object: absent or null is none, anything else
/// but a string is the core's type error naming it.
fn text_option(options: &Value, key: &str) -> Result<Option<String>, Error> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(earlyexit::kit::host::type_error(ErrorCode::InvalidConfig, key, "a string", other)),
    }
}

/// The optional whole number `key` (at least 0) of an options object.
fn count_option(options: &Value, key: &str) -> Result<Option<f64>, Error> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => earlyexit::kit::host::store::check_count(key, value).map(|n| Some(n as f64)),
    }
}

/// An options object (null: none) of `call`, with none but the `known` keys: another key is
/// `unknown_option` naming it (docs/api-conventions.md), never ignored.
fn options_object(options: &Value, call: &str, known: &[&str]) -> Result<(), Error> {
    match options {
        Value::Null => Ok(()),
        Value::Object(entries) => match entries.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((key, _)) => Err(earlyexit::kit::host::unknown_argument(call, key, known)),
            None => Ok(()),
        },
        other => Err(earlyexit::kit::host::type_error(ErrorCode::InvalidConfig, "options", "an object", other)),
    }
}

/// The keys of a run's meta (`importRuns`; `addRun` takes `dataset` too).
const META_KEYS: &[&str] = &["runLabel", "runId", "recordedMs"];

fn meta_of(meta: &Value, call: &str, known: &[&str]) -> Result<RunMeta, Error> {
    options_object(meta, call, known)?;
    Ok(RunMeta {
        run_id: text_option(meta, "runId")?,
        run_label: text_option(meta, "runLabel")?,
        recorded_ms: count_option(meta, "recordedMs")?.map(|n| n as i64),
    })
}

fn filter_of(filter: &Value, call: &str) -> Result<RunFilter, Error> {
    options_object(filter, call, &["runLabel", "dataset", "since", "limit"])?;
    let since_ms = match filter.get("since") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(earlyexit_store::since_ms(text)?),
        Some(Value::Number(n)) if n.is_finite() => Some(*n as i64),
        Some(other) => {
            return Err(earlyexit::kit::host::type_error(
                ErrorCode::InvalidConfig,
                "since",
                "an RFC 3339 timestamp, a Date or milliseconds",
                other,
            ))
        }
    };
    let run_label = text_option(filter, "runLabel")?;
    let dataset = text_option(filter, "dataset")?;
    // A label or dataset no run can have (empty, over 256 characters) is refused, not
    // answered with no runs.
    for (field, name) in [("runLabel", &run_label), ("dataset", &dataset)] {
        if let Some(name) = name {
            earlyexit::kit::host::store::check_store_name(field, name)?;
        }
    }
    Ok(RunFilter { run_label, dataset, since_ms, limit: count_option(filter, "limit")?.map(|n| n as u64) })
}

fn now_of(now: &Value) -> i64 {
    match now {
        Value::Number(n) => *n as i64,
        _ => 0,
    }
}

/// `{name, kind, expiresAt, promoted, sha256, state, artifact?}`; `state`: `expired` past
/// its expiry, else `promoted` or `shadow` (what a loop given it runs: enforced, or in shadow).
fn artifact_value(name: &str, stored: earlyexit_store::StoredArtifact, now_ms: i64, with_document: bool) -> Value {
    let expired = earlyexit::time::millis_from_rfc3339(&stored.expires_at).is_none_or(|at| now_ms >= at);
    let state = if expired {
        "expired"
    } else if stored.promoted {
        "promoted"
    } else {
        "shadow"
    };
    let mut entries = vec![
        ("name", Value::string(name)),
        ("kind", Value::String(stored.kind)),
        ("expiresAt", Value::String(stored.expires_at)),
        ("promoted", Value::Bool(stored.promoted)),
        ("sha256", Value::String(stored.sha256)),
        ("state", Value::string(state)),
    ];
    if with_document {
        entries.push(("artifact", stored.artifact));
    }
    Value::object(entries)
}
