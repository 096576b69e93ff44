//! `IterationAnalytics` for Python: the built-in diminishing-returns source, a drop-in for
//! aiwg's `iteration-analytics.mjs` (its files written through `earlyexit._analytics_files`).

use std::sync::Mutex;

use earlyexit::{
    kit::loops::analytics::{path_argument, verified_only_argument},
    loops::analytics::{AnalyticsRecord, AnalyticsSummary, FileTarget, IterationSelection, SavedFile},
    IterationAnalytics, Naming, Value,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::loops::analytics::{
    PyAnalyticsConfig, PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationSelection,
};
use crate::loops::now_iso;
use crate::shims::{self, core_from_snapshot, lock, locked, repr_of, EngineClass};
use crate::value::{keyword_entries, options_value, to_value, AnyValue, NoneIs};

/// What the last save of the summary wrote, so the next one can append in place.
struct SummaryFile {
    path: String,
    head: String,
    /// Records in the file.
    count: usize,
    /// Byte offset just after the last record.
    end: usize,
    size: u64,
    mtime_ns: u64,
}

/// The built-in `IterationAnalytics`, safe to share between threads: a drop-in for aiwg's
/// `iteration-analytics.mjs`. Files are written by `earlyexit._analytics_files` (pathlib).
#[pyclass(frozen, module = "earlyexit._native", name = "IterationAnalytics")]
pub struct PyIterationAnalytics {
    pub(crate) inner: Mutex<IterationAnalytics>,
    file: Mutex<Option<SummaryFile>>,
}

/// The helper module that does this class's file I/O.
fn files(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("earlyexit._analytics_files")
}

/// `storage_path=` given as any `os.PathLike` (a `pathlib.Path`) is passed on as its text.
fn fspath_storage(options: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let Some(options) = options else { return Ok(()) };
    if let Some(path) = options.get_item("storage_path")? {
        if let Value::String(text) = path_value(Some(&path))? {
            options.set_item("storage_path", text)?;
        }
    }
    Ok(())
}

/// A path argument as text (`str` or any `os.PathLike`), or the value itself for the core
/// to judge (`None`, a wrong type).
fn path_value(path: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match path {
        None => Ok(Value::Null),
        Some(p) if p.is_none() => Ok(Value::Null),
        Some(p) => match p.py().import("os")?.call_method1("fspath", (p,)) {
            Ok(text) if text.is_instance_of::<pyo3::types::PyString>() => to_value(&text, NoneIs::Absent),
            _ => to_value(p, NoneIs::Absent),
        },
    }
}

impl PyIterationAnalytics {
    fn wrap(inner: IterationAnalytics) -> Self {
        PyIterationAnalytics { inner: Mutex::new(inner), file: Mutex::new(None) }
    }

    /// Records `record` (snake_case keys); returns the stored record, after saving the
    /// summary when this object persists (upstream's form).
    fn record_value(&self, py: Python<'_>, record: &Value) -> PyResult<PyAnalyticsRecord> {
        let now = now_iso();
        let (inner, persist) =
            locked(&self.inner, |a| a.record_value(record, Naming::Snake, &now).cloned().map(|r| (r, a.persists())))
                .or_raise(py)?;
        if persist {
            self.save_summary(py, &Value::Null)?;
        }
        Ok(PyAnalyticsRecord { inner })
    }

    /// Creates the storage folder when this object persists (what upstream's constructor does).
    fn adopt(self, py: Python<'_>) -> PyResult<Self> {
        let (persist, folder) = {
            let a = lock(&self.inner);
            (a.persists(), a.config().storage_path.clone())
        };
        if persist {
            files(py)?.call_method1("ensure_dir", (folder,))?;
        }
        Ok(self)
    }

    /// Where a save writes, as a path string.
    fn target(&self, py: Python<'_>, filename: &Value, file: SavedFile) -> PyResult<String> {
        let target = lock(&self.inner).file_target(filename, file, Naming::Snake).or_raise(py)?;
        Ok(match target {
            FileTarget::Given(path) => path,
            FileTarget::Default { dir, name } => {
                // upstream's default file: its folder exists once the constructor ran (upstream
                // creates it there; an object that does not save by itself creates it now).
                let helper = files(py)?;
                helper.call_method1("ensure_dir", (&dir,))?;
                helper.call_method1("join", (dir, name))?.extract()?
            }
        })
    }

    /// Writes the summary; appends the new records in place when this object wrote the same
    /// file last and it is as it was left (see `_analytics_files.append`). Returns the path.
    fn save_summary(&self, py: Python<'_>, filename: &Value) -> PyResult<String> {
        let path = self.target(py, filename, SavedFile::Summary)?;
        let helper = files(py)?;
        let now = now_iso();
        let mut file = lock(&self.file);
        let from = file.as_ref().filter(|f| f.path == path).map_or(0, |f| f.count);
        let pieces = locked(&self.inner, |a| a.summary_file(&now, from)).or_raise(py)?;
        if let Some(last) = file.as_ref().filter(|f| f.path == path && f.head == pieces.head && pieces.total >= f.count)
        {
            let text = pieces.append_text(last.count);
            let added: usize = pieces.records.iter().map(|r| r.len()).sum::<usize>() + pieces.records.len();
            let end = last.end + added - usize::from(last.count == 0) * usize::from(!pieces.records.is_empty());
            let answer = helper.call_method1("append", (&path, last.end, text, last.size, last.mtime_ns))?;
            if !answer.is_none() {
                let (size, mtime_ns): (u64, u64) = answer.extract()?;
                *file = Some(SummaryFile {
                    path: path.clone(),
                    head: pieces.head,
                    count: pieces.total,
                    end,
                    size,
                    mtime_ns,
                });
                return Ok(path);
            }
        }
        let pieces = if from == 0 { pieces } else { locked(&self.inner, |a| a.summary_file(&now, 0)).or_raise(py)? };
        let text = pieces.text();
        let end = text.len() - pieces.tail.len() - if pieces.total == 0 { 1 } else { 4 };
        let (size, mtime_ns): (u64, u64) = helper.call_method1("write", (&path, text))?.extract()?;
        *file = Some(SummaryFile { path: path.clone(), head: pieces.head, count: pieces.total, end, size, mtime_ns });
        Ok(path)
    }

    /// `IterationAnalytics.load` and `from_summary`.
    fn from_summary_value(
        py: Python<'_>,
        summary: &Value,
        options: Option<&Bound<'_, PyDict>>,
        folder: Option<&str>,
    ) -> PyResult<Self> {
        let options = options.map(|o| o.copy()).transpose()?;
        fspath_storage(options.as_ref())?;
        let config = options_value(None, options.as_ref())?;
        let inner = IterationAnalytics::from_summary(summary, &config, Naming::Snake, folder, true).or_raise(py)?;
        Self::wrap(inner).adopt(py)
    }
}

impl EngineClass for PyIterationAnalytics {
    type Core = IterationAnalytics;

    fn core(&self) -> &Mutex<IterationAnalytics> {
        &self.inner
    }

    /// A restored object never saves by itself (a pickle carries no analytics source).
    fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>, _analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Self::wrap(core_from_snapshot(py, snapshot)?))
    }
}

#[pymethods]
impl PyIterationAnalytics {
    /// `IterationAnalytics(**options)` or `IterationAnalytics(config, **options)` (the
    /// config-object form, which never writes by itself), or upstream's form
    /// `IterationAnalytics(loop_id, task_description, config=None, **options)`, which saves
    /// its summary after every record unless `persist=False`. `loop_id` and
    /// `task_description` may also be given as keywords.
    #[new]
    #[pyo3(signature = (*args, **options))]
    fn new(py: Python<'_>, args: &Bound<'_, PyTuple>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        if args.len() > 3 {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "IterationAnalytics() takes at most 3 positional arguments (loop_id, task_description, config)",
            ));
        }
        // loop_id and task_description as keywords: taken out of the options (a copy).
        let options = options.map(|o| o.copy()).transpose()?;
        let take = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            let Some(o) = options.as_ref() else { return Ok(None) };
            let item = o.get_item(name)?;
            if item.is_some() {
                o.del_item(name)?;
            }
            Ok(item)
        };
        let (keyword_loop_id, keyword_task) = (take("loop_id")?, take("task_description")?);
        fspath_storage(options.as_ref())?;
        let positional = |i: usize| args.get_item(i).ok();
        // upstream's form: a str first, two or more positional arguments, or the keywords.
        let upstream = keyword_loop_id.is_some()
            || keyword_task.is_some()
            || args.len() >= 2
            || positional(0).is_some_and(|f| f.is_instance_of::<pyo3::types::PyString>());
        let given = |keyword: Option<Bound<'_, PyAny>>, i: usize| -> PyResult<Value> {
            match keyword.or_else(|| positional(i)) {
                Some(v) => to_value(&v, NoneIs::Null),
                None => Ok(Value::Other("nothing (missing)".into())),
            }
        };
        let (loop_id, task, config) = if upstream {
            let loop_id = given(keyword_loop_id, 0)?;
            let task = given(keyword_task, 1)?;
            (Some(loop_id), task, options_value(positional(2).as_ref(), options.as_ref())?)
        } else {
            (None, Value::Null, options_value(positional(0).as_ref(), options.as_ref())?)
        };
        let inner = IterationAnalytics::construct(loop_id.as_ref(), &task, &config, &now_iso(), Naming::Snake, true)
            .or_raise(py)?;
        Self::wrap(inner).adopt(py)
    }

    /// Records one iteration; returns the stored record (and saves the summary when this
    /// object persists).
    #[pyo3(signature = (
        iteration_number, quality_score, verification_status,
        tokens_used = None, token_cost_usd = None, execution_time_ms = None,
        *, output_snapshot_path = None, reflections = None, timestamp = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        py: Python<'_>,
        iteration_number: &Bound<'_, PyAny>,
        quality_score: &Bound<'_, PyAny>,
        verification_status: &Bound<'_, PyAny>,
        tokens_used: Option<&Bound<'_, PyAny>>,
        token_cost_usd: Option<&Bound<'_, PyAny>>,
        execution_time_ms: Option<&Bound<'_, PyAny>>,
        output_snapshot_path: Option<&Bound<'_, PyAny>>,
        reflections: Option<&Bound<'_, PyAny>>,
        timestamp: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyAnalyticsRecord> {
        let record = keyword_entries([
            ("iteration_number", Some(iteration_number)),
            ("timestamp", timestamp),
            ("quality_score", Some(quality_score)),
            ("tokens_used", tokens_used),
            ("token_cost_usd", token_cost_usd),
            ("execution_time_ms", execution_time_ms),
            ("verification_status", Some(verification_status)),
            ("output_snapshot_path", output_snapshot_path),
            ("reflections", reflections),
        ])?;
        self.record_value(py, &Value::Object(record))
    }

    /// upstream's `recordIteration(metrics)` with the metrics as a mapping.
    fn record_iteration(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<PyAnalyticsRecord> {
        self.record_value(py, &to_value(record, NoneIs::Absent)?)
    }

    /// `{detected, iteration, reason}` (O(1): kept up to date as records arrive).
    fn detect_diminishing_returns(&self) -> PyDiminishingReturnsReport {
        PyDiminishingReturnsReport { inner: lock(&self.inner).detect_diminishing_returns() }
    }

    /// `'insufficient_data'`, `'improving'`, `'declining'`, `'stable'` or `'fluctuating'`.
    fn trajectory(&self) -> &'static str {
        lock(&self.inner).trajectory().as_str()
    }

    /// The best record (verified ones only, by default), or `None` with no records.
    #[pyo3(signature = (verified_only = AnyValue(Value::Bool(true))))]
    fn optimal_iteration(&self, py: Python<'_>, verified_only: AnyValue) -> PyResult<Option<PyAnalyticsRecord>> {
        let verified_only = verified_only_argument(&verified_only.0, Naming::Snake).or_raise(py)?;
        let analytics = lock(&self.inner);
        let record = analytics.optimal_iteration(verified_only).and_then(|i| analytics.records().get(i)).cloned();
        Ok(record.map(|inner| PyAnalyticsRecord { inner }))
    }

    /// `{selected, reason}` under the configured selection criteria.
    fn select_best_iteration(&self) -> PyIterationSelection {
        let analytics = lock(&self.inner);
        let selection = analytics.select_best_iteration();
        let selected = selection.selected.and_then(|i| analytics.records().get(i)).cloned();
        PyIterationSelection { inner: IterationSelection { selected, reason: selection.reason } }
    }

    /// upstream's `generateSummary()`; the first summary sets `end_time` (to now, unless given).
    fn summary(&self, py: Python<'_>) -> PyResult<PyAnalyticsSummary> {
        let value = locked(&self.inner, |a| a.summary_value(&now_iso())).or_raise(py)?;
        Ok(PyAnalyticsSummary { inner: AnalyticsSummary::from_value(&value).or_raise(py)? })
    }

    /// upstream's `generateQualityChart()`: the ASCII chart of the scores.
    fn quality_chart(&self) -> String {
        lock(&self.inner).quality_chart()
    }

    /// upstream's `generateReport()`: the markdown report; `generated_at` fixes its last
    /// line's time (default: now).
    #[pyo3(signature = (**options))]
    fn report(&self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
        let options = options_value(None, options)?;
        locked(&self.inner, |a| a.report_value(&options, Naming::Snake, &now_iso())).or_raise(py)
    }

    /// upstream's `saveAnalytics(filename)`: writes the summary (upstream's JSON, byte for
    /// byte) to `filename` or `<storage_path>/<loop_id>.json`; returns the path.
    #[pyo3(signature = (filename = None))]
    fn save_analytics<'py>(
        &self,
        py: Python<'py>,
        filename: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let path = self.save_summary(py, &path_value(filename)?)?;
        files(py)?.call_method1("as_path", (path,))
    }

    /// upstream's `saveReport(filename)`: writes the report to `filename` or
    /// `<storage_path>/<loop_id>-report.md`; returns the path.
    #[pyo3(signature = (filename = None))]
    fn save_report<'py>(&self, py: Python<'py>, filename: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let path = self.target(py, &path_value(filename)?, SavedFile::Report)?;
        let text = locked(&self.inner, |a| a.report_value(&Value::Null, Naming::Snake, &now_iso())).or_raise(py)?;
        let helper = files(py)?;
        helper.call_method1("write", (&path, text))?;
        helper.call_method1("as_path", (path,))
    }

    /// upstream's `export()`: both files, `{"json": path, "markdown": path}`.
    fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("json", self.save_analytics(py, None)?)?;
        out.set_item("markdown", self.save_report(py, None)?)?;
        Ok(out)
    }

    /// Creates the storage folder (what upstream's constructor does).
    fn ensure_storage_dir(&self, py: Python<'_>) -> PyResult<()> {
        let folder = lock(&self.inner).config().storage_path.clone();
        files(py)?.call_method1("ensure_dir", (folder,))?;
        Ok(())
    }

    /// upstream's `IterationAnalytics.load(filepath)`: an analytics object from a saved
    /// summary file; its folder is the storage path unless `storage_path` is given.
    #[staticmethod]
    #[pyo3(signature = (filepath, **config))]
    fn load(py: Python<'_>, filepath: &Bound<'_, PyAny>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let path = path_argument(&path_value(Some(filepath))?, "filepath").or_raise(py)?;
        let helper = files(py)?;
        let text: String = helper.call_method1("read", (&path,))?.extract()?;
        let folder: String = helper.call_method1("parent", (&path,))?.extract()?;
        Self::from_summary_value(py, &Value::String(text), config, Some(&folder))
    }

    /// An analytics object from a saved summary (its JSON text or the parsed mapping), as
    /// `load` reads it.
    #[staticmethod]
    #[pyo3(signature = (summary, **config))]
    fn from_summary(py: Python<'_>, summary: &Bound<'_, PyAny>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Self::from_summary_value(py, &to_value(summary, NoneIs::Null)?, config, None)
    }

    /// upstream's `formatDuration(ms)`: `1h 2m 3s`, `2m 3s` or `3s`.
    #[staticmethod]
    fn format_duration(py: Python<'_>, ms: &Bound<'_, PyAny>) -> PyResult<String> {
        IterationAnalytics::format_duration(&to_value(ms, NoneIs::Null)?).or_raise(py)
    }

    /// Every record, oldest first.
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let records: Vec<AnalyticsRecord> = lock(&self.inner).records().to_vec();
        PyTuple::new(py, records.into_iter().map(|inner| PyAnalyticsRecord { inner }))
    }

    /// upstream's name for `records`.
    #[getter]
    fn iterations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.records(py)
    }

    #[getter]
    fn config(&self) -> PyAnalyticsConfig {
        PyAnalyticsConfig { inner: lock(&self.inner).config().clone() }
    }

    /// upstream's `loopId` (`None`: the config-object form).
    #[getter]
    fn loop_id(&self) -> Option<String> {
        lock(&self.inner).loop_id().map(str::to_string)
    }

    #[getter]
    fn task_description(&self) -> Option<String> {
        lock(&self.inner).task_description().map(str::to_string)
    }

    #[getter]
    fn start_time(&self) -> Option<String> {
        lock(&self.inner).start_time().map(str::to_string)
    }

    /// Set by the first summary or report (or given), `None` before.
    #[getter]
    fn end_time(&self) -> Option<String> {
        lock(&self.inner).end_time().map(str::to_string)
    }

    /// Whether the summary is saved after every record.
    #[getter]
    fn persist(&self) -> bool {
        lock(&self.inner).persists()
    }

    fn __len__(&self) -> usize {
        lock(&self.inner).records().len()
    }

    /// Clears every record; keeps the config, the names and the times.
    fn reset(&self) {
        lock(&self.inner).reset();
    }

    /// The portable snapshot as JSON text.
    fn to_json(&self) -> String {
        shims::to_json(self)
    }

    /// Restores `to_json()` text (or its parsed dict); a restored object never saves by itself.
    #[staticmethod]
    fn from_json(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<Self> {
        <Self as EngineClass>::restore(py, snapshot, None)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        shims::reduce_engine(py, self)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (len, loop_id, config) = {
            let a = lock(&self.inner);
            (a.records().len(), a.loop_id().map(str::to_string), a.config().clone())
        };
        let config = PyAnalyticsConfig { inner: config }.into_bound_py_any(py)?;
        repr_of(
            "IterationAnalytics",
            &[("loop_id", loop_id.into_bound_py_any(py)?), ("records", len.into_bound_py_any(py)?), ("config", config)],
        )
    }
}
