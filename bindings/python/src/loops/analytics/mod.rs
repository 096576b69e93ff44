//! The built-in diminishing-returns source's values: `AnalyticsConfig`, `AnalyticsRecord`,
//! `DiminishingReturnsReport`, `IterationSelection` and `AnalyticsSummary`; the engine,
//! `IterationAnalytics`, is in `engine`.

pub mod engine;

use earlyexit::{
    loops::analytics::{AnalyticsConfig, AnalyticsRecord, AnalyticsSummary, IterationSelection, SnapshotPath},
    loops::ReportedIteration,
    DiminishingReturnsReport, ErrorCode, Naming,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::shims::{repr_of, value_class, Repr, Tuple};
use crate::value::options_value;

value_class! {
    /// `IterationAnalytics` config, immutable.
    "AnalyticsConfig" => PyAnalyticsConfig(AnalyticsConfig) {
        value: named,
        pickle: class,
        repr: snake,
    }
    getters {
        storage_path: &str = |c| &c.storage_path;
        diminishing_returns_threshold: f64 = |c| c.diminishing_returns_threshold;
        consecutive_count_threshold: u64 = |c| c.consecutive_count_threshold;
        quality_threshold: f64 = |c| c.quality_threshold;
        selection_criteria: &'static str = |c| c.selection_criteria.as_str();
    }
    methods {
        #[new]
        #[pyo3(signature = (config = None, /, **options))]
        fn new(
            py: Python<'_>,
            config: Option<&Bound<'_, PyAny>>,
            options: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<Self> {
            let value = options_value(config, options)?;
            let inner =
                AnalyticsConfig::default().merged(&value, Naming::Snake, "", ErrorCode::InvalidConfig).or_raise(py)?;
            Ok(PyAnalyticsConfig { inner })
        }

        /// A copy with some options changed.
        #[pyo3(signature = (**changes))]
        fn replace(&self, py: Python<'_>, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
            let value = options_value(None, changes)?;
            let inner = self.inner.merged(&value, Naming::Snake, "", ErrorCode::InvalidConfig).or_raise(py)?;
            Ok(PyAnalyticsConfig { inner })
        }
    }
}

value_class! {
    /// One analytics record (`quality_delta` computed from the previous score).
    "AnalyticsRecord" => PyAnalyticsRecord(AnalyticsRecord) {
        value: fixed,
        pickle: result(|v| AnalyticsRecord::from_value(v, "")),
        repr: snake,
    }
    getters {
        iteration_number: u64 = |r| r.iteration_number;
        quality_score: f64 = |r| r.quality_score;
        verification_status: &'static str = |r| r.verification_status.as_str();
        quality_delta: f64 = |r| r.quality_delta;
        tokens_used: Option<f64> = |r| r.usage.tokens_used;
        token_cost_usd: Option<f64> = |r| r.usage.token_cost_usd;
        execution_time_ms: Option<f64> = |r| r.usage.execution_time_ms;
        timestamp: &str = |r| &r.timestamp;
        output_snapshot_path: Option<&str> = |r| match &r.output_snapshot_path {
            SnapshotPath::Path(p) => Some(p),
            SnapshotPath::Null | SnapshotPath::Absent => None,
        };
        reflections: Tuple<&str> = |r| Tuple::of(r.reflections.iter().map(String::as_str));
    }
}

value_class! {
    /// `{detected, iteration, reason}`: what `detect_diminishing_returns()` answers.
    "DiminishingReturnsReport" => PyDiminishingReturnsReport(DiminishingReturnsReport) {
        value: fixed,
        pickle: result(DiminishingReturnsReport::from_result_value),
        repr: snake,
    }
    getters {
        detected: bool = |r| r.detected;
        iteration: Option<u64> = |r| match r.iteration {
            ReportedIteration::At(n) => Some(n),
            ReportedIteration::Null | ReportedIteration::Absent => None,
        };
        reason: &str = |r| &r.reason;
    }
    methods {
        fn __bool__(&self) -> bool {
            self.inner.detected
        }
    }
}

value_class! {
    /// `{selected, reason}`: what `select_best_iteration()` answers.
    "IterationSelection" => PyIterationSelection(IterationSelection) {
        value: fixed,
        pickle: result(IterationSelection::from_value),
        repr: own,
    }
    getters {
        selected: Option<PyAnalyticsRecord> = |s| s.selected.clone().map(|inner| PyAnalyticsRecord { inner });
        reason: &str = |s| &s.reason;
    }
}

impl Repr for PyIterationSelection {
    /// The selected record as an `AnalyticsRecord(...)`.
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let selected = self.selected().into_bound_py_any(py)?;
        repr_of("IterationSelection", &[("selected", selected), ("reason", self.reason().into_bound_py_any(py)?)])
    }
}

value_class! {
    /// What `summary()` answers: upstream's `generateSummary()`.
    "AnalyticsSummary" => PyAnalyticsSummary(AnalyticsSummary) {
        value: fixed,
        pickle: result(AnalyticsSummary::from_value),
        repr: snake,
    }
    getters {
        loop_id: Option<&str> = |s| s.loop_id.as_deref();
        task_description: Option<&str> = |s| s.task_description.as_deref();
        start_time: Option<&str> = |s| s.start_time.as_deref();
        end_time: Option<&str> = |s| s.end_time.as_deref();
        iterations: Tuple<PyAnalyticsRecord> =
            |s| Tuple::of(s.iterations.iter().map(|r| PyAnalyticsRecord { inner: r.clone() }));
        total_iterations: u64 = |s| s.total_iterations;
        optimal_iteration: Option<u64> = |s| s.optimal_iteration;
        final_iteration: u64 = |s| s.final_iteration;
        selected_iteration: Option<u64> = |s| s.selected_iteration;
        selection_reason: &str = |s| &s.selection_reason;
        total_tokens: f64 = |s| s.total_tokens;
        total_cost_usd: f64 = |s| s.total_cost_usd;
        total_time_ms: f64 = |s| s.total_time_ms;
        diminishing_returns_detected: bool = |s| s.diminishing_returns_detected;
        diminishing_returns_iteration: Option<u64> = |s| s.diminishing_returns_iteration;
        quality_trajectory: &'static str = |s| s.quality_trajectory.as_str();
    }
}
