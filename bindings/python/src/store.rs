//! The run store (`earlyexit.Store`, docs/store.md): `earlyexit-store` behind a mutex, every
//! call made without the GIL (`py.detach`), so threads share one store and other Python
//! threads run while SQLite works. A closed store is a typed error, a poisoned mutex is
//! taken over (a store's writes are transactions: a failed one left nothing behind).

use std::sync::{Mutex, MutexGuard, PoisonError};

use earlyexit::kit::host::type_error;
use earlyexit::{Error, ErrorCode, Value};
use earlyexit_store::{host, Added, RunFilter, RunMeta, Store, StoredArtifact};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::error::OrRaise;
use crate::value::{to_py, to_value, NoneIs};

/// A run as a page hands it to Python: `(seq, run_id, run_label, recorded_ms, body)`.
type RunRow = (i64, String, Option<String>, i64, String);

/// One open store (`_native._Store`; the package's `Store` wraps it).
#[pyclass(name = "_Store", module = "earlyexit._native", frozen)]
pub struct PyStore {
    inner: Mutex<Option<Store>>,
    url: String,
}

/// A text argument (`field`): a `str`, else a typed error naming it.
fn text(py: Python<'_>, value: &Bound<'_, PyAny>, code: ErrorCode, field: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(crate::value::string_of(s)),
        Err(_) => {
            let got = to_value(value, NoneIs::Null)?;
            Err(type_error(code, field, "a string", &got)).or_raise(py)
        }
    }
}

fn opt_text(
    py: Python<'_>,
    value: Option<&Bound<'_, PyAny>>,
    code: ErrorCode,
    field: &str,
) -> PyResult<Option<String>> {
    match value {
        Some(v) if !v.is_none() => text(py, v, code, field).map(Some),
        _ => Ok(None),
    }
}

/// A whole number 0..=2^53-1 (`field`): the core's rule (`bool` is not a number).
fn count(py: Python<'_>, value: &Bound<'_, PyAny>, field: &str) -> PyResult<u64> {
    let got = to_value(value, NoneIs::Null)?;
    earlyexit::kit::host::store::check_count(field, &got).or_raise(py)
}

impl PyStore {
    fn lock(&self) -> MutexGuard<'_, Option<Store>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the open store without the GIL (the lock is taken there too, so a thread
    /// waiting for it never holds the GIL).
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Store) -> Result<T, Error> + Send) -> PyResult<T> {
        py.detach(|| match self.lock().as_mut() {
            Some(store) => f(store),
            None => Err(host::closed_error(&self.url)),
        })
        .or_raise(py)
    }
}

fn artifact_dict<'py>(py: Python<'py>, stored: &StoredArtifact) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item("artifact", to_py(py, &stored.artifact)?)?;
    d.set_item("sha256", &stored.sha256)?;
    d.set_item("kind", &stored.kind)?;
    d.set_item("expires_at", &stored.expires_at)?;
    d.set_item("promoted", stored.promoted)?;
    // Expired now (the host clock), by the core's reading of `expiresAt`.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let expired = earlyexit::artifact::Artifact::from_value(&stored.artifact).map_or(true, |a| a.is_expired(now));
    d.set_item("expired", expired)?;
    Ok(d.into_any())
}

#[pymethods]
impl PyStore {
    /// Opens (creating when missing) the store at `url` (`sqlite:PATH`).
    #[new]
    fn new(py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<Self> {
        let url = text(py, url, ErrorCode::InvalidConfig, "store")?;
        let store = py
            .detach(|| {
                host::check_binding_url(&url)?;
                Store::open(&url)
            })
            .or_raise(py)?;
        Ok(PyStore { inner: Mutex::new(Some(store)), url })
    }

    #[getter]
    fn url(&self) -> &str {
        &self.url
    }

    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.lock().is_none())
    }

    /// Closes the store (idempotent); every later call is a typed error.
    fn close(&self, py: Python<'_>) {
        let store = py.detach(|| self.lock().take());
        drop(store);
    }

    /// Adds a run; `True` when it was new, `False` when the same run was there already.
    #[pyo3(signature = (run, run_label = None, dataset = None, run_id = None))]
    fn add_run(
        &self,
        py: Python<'_>,
        run: &Bound<'_, PyAny>,
        run_label: Option<&Bound<'_, PyAny>>,
        dataset: Option<&Bound<'_, PyAny>>,
        run_id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let run_label = opt_text(py, run_label, ErrorCode::InvalidConfig, "run_label")?;
        let dataset = opt_text(py, dataset, ErrorCode::InvalidConfig, "dataset")?;
        let run_id = opt_text(py, run_id, ErrorCode::InvalidConfig, "run_id")?;
        let mut run = to_value(run, NoneIs::Null)?;
        if let Some(dataset) = &dataset {
            run = host::with_dataset(run, dataset).or_raise(py)?;
        }
        let meta = RunMeta { run_id, run_label, recorded_ms: None };
        let added = self.with(py, |store| store.add_run(&run, &meta))?;
        Ok(added == Added::Added)
    }

    /// One page of runs after sequence number `after_seq`: `(seq, run_id, run_label,
    /// recorded_ms, body)` tuples, the body the run's JSON text.
    #[pyo3(signature = (after_seq, page, run_label = None, dataset = None, since = None))]
    fn _runs_page(
        &self,
        py: Python<'_>,
        after_seq: i64,
        page: usize,
        run_label: Option<&Bound<'_, PyAny>>,
        dataset: Option<&Bound<'_, PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<RunRow>> {
        let filter = filter(py, run_label, dataset, since)?;
        let page = page.clamp(1, host::RUNS_PAGE);
        let rows = self.with(py, |store| store.runs_page(&filter, after_seq, page))?;
        Ok(rows.into_iter().map(|r| (r.seq, r.run_id, r.run_label, r.recorded_ms, r.body)).collect())
    }

    /// Checks the arguments of `runs()` before its first page: typed errors at the call.
    #[pyo3(signature = (run_label = None, dataset = None, since = None, limit = None))]
    fn _check_filter(
        &self,
        py: Python<'_>,
        run_label: Option<&Bound<'_, PyAny>>,
        dataset: Option<&Bound<'_, PyAny>>,
        since: Option<&Bound<'_, PyAny>>,
        limit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u64>> {
        filter(py, run_label, dataset, since)?;
        match limit {
            Some(v) if !v.is_none() => count(py, v, "limit").map(Some),
            _ => Ok(None),
        }
    }

    /// How many runs the store holds.
    fn run_count(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |store| store.run_count())
    }

    /// Appends receipts to log `log`'s chain; returns how many lines were appended.
    fn append_receipts(&self, py: Python<'_>, log: &Bound<'_, PyAny>, receipts: &Bound<'_, PyAny>) -> PyResult<u64> {
        let log = text(py, log, ErrorCode::InvalidConfig, "log")?;
        let receipts = match to_value(receipts, NoneIs::Null)? {
            Value::Array(items) => items,
            other => {
                return Err(type_error(ErrorCode::InvalidReceipt, "receipts", "a list of receipts", &other))
                    .or_raise(py)
            }
        };
        self.with(py, |store| store.append_receipts(&log, &receipts))
    }

    /// Log `log` as JSONL text (empty when there is none).
    fn receipts(&self, py: Python<'_>, log: &Bound<'_, PyAny>) -> PyResult<String> {
        let log = text(py, log, ErrorCode::InvalidConfig, "log")?;
        self.with(py, |store| store.receipt_log(&log))
    }

    /// The receipt logs and their line counts.
    fn receipt_logs(&self, py: Python<'_>) -> PyResult<Vec<(String, u64)>> {
        self.with(py, |store| store.receipt_logs())
    }

    /// Recomputes log `log`'s chain (what `verify_receipts(text)` answers).
    fn verify_receipts<'py>(&self, py: Python<'py>, log: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let log = text(py, log, ErrorCode::InvalidConfig, "log")?;
        let check = self.with(py, |store| store.verify_receipts(&log))?;
        to_py(py, &check.to_value())
    }

    /// Stores an artifact under `name`: `{artifact, sha256, kind, expires_at, promoted}`.
    fn put_artifact<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
        artifact: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = text(py, name, ErrorCode::InvalidConfig, "name")?;
        let artifact = match artifact.cast::<crate::loops::calibrate::PyLoopCalibration>() {
            Ok(calibration) => calibration.get().artifact.clone(),
            Err(_) => to_value(artifact, NoneIs::Null)?,
        };
        let stored = self.with(py, |store| store.put_artifact(&name, &artifact))?;
        artifact_dict(py, &stored)
    }

    /// The artifact stored under `name` (as `put_artifact` answers), or `None`.
    fn artifact<'py>(&self, py: Python<'py>, name: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let name = text(py, name, ErrorCode::InvalidConfig, "name")?;
        let stored = self.with(py, |store| store.artifact(&name))?;
        stored.map(|s| artifact_dict(py, &s)).transpose()
    }

    /// Merges a pyramid outcome model into the model `name`; returns the merged document.
    fn merge_model<'py>(
        &self,
        py: Python<'py>,
        name: &Bound<'py, PyAny>,
        model: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let name = text(py, name, ErrorCode::InvalidConfig, "name")?;
        let model = to_value(model, NoneIs::Null)?;
        let merged = self.with(py, |store| store.merge_model(&name, &model))?;
        to_py(py, &merged)
    }

    /// The model stored under `name` (its document), or `None`.
    fn model<'py>(&self, py: Python<'py>, name: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let name = text(py, name, ErrorCode::InvalidConfig, "name")?;
        let model = self.with(py, |store| store.model(&name))?;
        model.map(|m| to_py(py, &m)).transpose()
    }

    /// Adds the runs of a JSONL file (path) in one transaction: `(read, added)`.
    #[pyo3(signature = (path, run_label = None))]
    fn _import_path(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        run_label: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(u64, u64)> {
        let run_label = opt_text(py, run_label, ErrorCode::InvalidConfig, "run_label")?;
        let meta = RunMeta { run_label, ..RunMeta::default() };
        // OSError (FileNotFoundError, PermissionError) as Python raises it for any file.
        let file = py.detach(|| std::fs::File::open(&path))?;
        self.with(py, move |store| store.import_jsonl(std::io::BufReader::with_capacity(1 << 16, file), &meta))
    }

    /// Adds the runs of JSONL text (or bytes) in one transaction: `(read, added)`.
    #[pyo3(signature = (text, run_label = None))]
    fn _import_text(
        &self,
        py: Python<'_>,
        text: Vec<u8>,
        run_label: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(u64, u64)> {
        let run_label = opt_text(py, run_label, ErrorCode::InvalidConfig, "run_label")?;
        let meta = RunMeta { run_label, ..RunMeta::default() };
        self.with(py, move |store| store.import_jsonl(text.as_slice(), &meta))
    }

    /// The whole store checked: `{schema_version, runs, receipt_logs, receipts, artifacts, models}`.
    fn check<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = self.with(py, |store| store.check())?;
        let d = PyDict::new(py);
        d.set_item("schema_version", report.schema_version)?;
        d.set_item("runs", report.runs)?;
        d.set_item("receipt_logs", report.receipt_logs)?;
        d.set_item("receipts", report.receipts)?;
        d.set_item("artifacts", report.artifacts)?;
        d.set_item("models", report.models)?;
        Ok(d.into_any())
    }

    fn __repr__(&self) -> String {
        format!("Store({:?})", self.url)
    }
}

/// A name of a store entry (`field`: `log`, `name`, `run_label`) checked by the store's rule
/// (a string of 1 to 256 characters) before anything opens: `Loop(receipt_log=...)`.
#[pyfunction]
pub fn _check_store_name(py: Python<'_>, field: &str, name: &Bound<'_, PyAny>) -> PyResult<()> {
    let name = text(py, name, ErrorCode::InvalidConfig, field)?;
    earlyexit::kit::host::store::check_store_name(field, &name).or_raise(py)
}

fn filter(
    py: Python<'_>,
    run_label: Option<&Bound<'_, PyAny>>,
    dataset: Option<&Bound<'_, PyAny>>,
    since: Option<&Bound<'_, PyAny>>,
) -> PyResult<RunFilter> {
    let run_label = opt_text(py, run_label, ErrorCode::InvalidConfig, "run_label")?;
    let dataset = opt_text(py, dataset, ErrorCode::InvalidConfig, "dataset")?;
    // A label or dataset no run can have (empty, over 256 characters) is refused, not
    // answered with no runs.
    for (field, name) in [("run_label", &run_label), ("dataset", &dataset)] {
        if let Some(name) = name {
            earlyexit::kit::host::store::check_store_name(field, name).or_raise(py)?;
        }
    }
    let since_ms = match since {
        Some(v) if !v.is_none() => Some(since_ms(py, v)?),
        _ => None,
    };
    Ok(RunFilter { run_label, dataset, since_ms, limit: None })
}

/// `since`: RFC 3339 text or a `datetime` (its timestamp).
fn since_ms(py: Python<'_>, since: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(s) = since.cast::<PyString>() {
        return earlyexit_store::since_ms(&crate::value::string_of(s)).or_raise(py);
    }
    if since.hasattr("timestamp")? {
        let seconds: f64 = since.call_method0("timestamp")?.extract()?;
        return Ok((seconds * 1000.0).round() as i64);
    }
    let got = to_value(since, NoneIs::Null)?;
    Err(type_error(ErrorCode::InvalidConfig, "since", "RFC 3339 text or a datetime", &got)).or_raise(py)
}
