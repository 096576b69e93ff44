//! What the loop engine answers: `StoppingDecision` (`should_stop()`) and `StoppingSummary`
//! (`summary()`).

use earlyexit::{
    loops::{FinalRecord, StoppingSummary},
    EarlyStoppingConfig, StoppingDecision, Value,
};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::loops::config::PyEarlyStoppingConfig;
use crate::shims::{repr_of, value_class, Json, Repr};

value_class! {
    /// What `should_stop()` answers.
    "StoppingDecision" => PyStoppingDecision(StoppingDecision) {
        value: fixed,
        pickle: result(|v| StoppingDecision::from_value(v, "")),
        repr: own,
    }
    getters {
        stop: bool = |d| d.stop;
        reason: &str = |d| &d.reason;
        confidence: f64 = |d| d.confidence;
        trigger: &'static str = |d| d.trigger.as_str();
        /// The seed's `details` (a new dict on each access), or `None` when the loop goes on.
        details: Json = |d| Json(d.details.as_ref().map(|details| details.to_value()));
        best_iteration: Option<u64> = |d| d.best.map(|b| b.0);
        best_quality_score: Option<f64> = |d| d.best.map(|b| b.1);
        /// Where each configured budget stands (a new list of dicts; empty with no budget).
        budgets: Json = |d| Json(Some(d.to_value().get("budgets").cloned().unwrap_or(Value::Array(Vec::new()))));
        /// Under a stop policy, the conditions that fired (a new list of dicts); `None` without one.
        fired: Json = |d| Json(d.fired.as_ref().map(|f| Value::Array(f.iter().map(|c| c.to_value()).collect())));
        /// Under a stop policy with detector conditions, each detection with its intervention
        /// (a new list of dicts; empty when none was detected).
        interventions: Json = |d| Json(Some(Value::Array(d.interventions.iter().map(|c| c.to_value()).collect())));
        /// In shadow mode, where the candidate first fired (`iteration`, `trigger`, `reason`,
        /// `returned_iteration`, `returned_quality`); `None` until it has, and without a shadow.
        would_stop: Json = |d| Json(d.would_stop.as_ref().map(|w| w.to_value()));
    }
    methods {
        fn __bool__(&self) -> bool {
            self.inner.stop
        }
    }
}

impl Repr for PyStoppingDecision {
    /// The seed's fields first, `details` only when there are some.
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let d = &self.inner;
        let mut fields = vec![
            ("stop", d.stop.into_bound_py_any(py)?),
            ("trigger", d.trigger.as_str().into_bound_py_any(py)?),
            ("reason", d.reason.as_str().into_bound_py_any(py)?),
            ("confidence", d.confidence.into_bound_py_any(py)?),
        ];
        if d.details.is_some() {
            fields.push(("details", self.details().into_bound_py_any(py)?));
        }
        fields.push(("best_iteration", self.best_iteration().into_bound_py_any(py)?));
        fields.push(("best_quality_score", self.best_quality_score().into_bound_py_any(py)?));
        repr_of("StoppingDecision", &fields)
    }
}

/// The parts of a summary of a non-empty history.
fn full(summary: &StoppingSummary) -> Option<(usize, &StoppingDecision, &FinalRecord, &EarlyStoppingConfig)> {
    match summary {
        StoppingSummary::Empty => None,
        StoppingSummary::Full { total_iterations, decision, last, config } => {
            Some((*total_iterations, decision, last, config))
        }
    }
}

value_class! {
    /// What `summary()` answers (the seed's `generateSummary()`).
    "StoppingSummary" => PyStoppingSummary(StoppingSummary) {
        value: fixed,
        pickle: result(StoppingSummary::from_value),
        repr: own,
    }
    getters {
        total_iterations: usize = |s| full(s).map_or(0, |f| f.0);
        stopped_early: bool = |s| full(s).is_some_and(|f| f.1.stop);
        /// Only on an empty history: `'No iterations completed'`.
        reason: Option<&'static str> = |s| full(s).is_none().then_some("No iterations completed");
        stopping_trigger: Option<&'static str> = |s| full(s).map(|f| f.1.trigger.as_str());
        stopping_reason: Option<String> = |s| full(s).map(|f| f.1.reason.clone());
        stopping_confidence: Option<f64> = |s| full(s).map(|f| f.1.confidence);
        final_quality: Option<f64> = |s| full(s).map(|f| f.2.quality_score);
        final_confidence: Option<f64> = |s| full(s).map(|f| f.2.confidence);
        final_verification: Option<&'static str> = |s| full(s).map(|f| f.2.verification_status.as_str());
        config: Option<PyEarlyStoppingConfig> = |s| full(s).map(|f| PyEarlyStoppingConfig { inner: f.3.clone() });
        details: Json = |s| Json(full(s).and_then(|f| f.1.details.as_ref()).map(|d| d.to_value()));
    }
}

impl Repr for PyStoppingSummary {
    /// The counts, then the stop (or, for an empty history, the reason).
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let mut fields = vec![
            ("total_iterations", self.total_iterations().into_bound_py_any(py)?),
            ("stopped_early", self.stopped_early().into_bound_py_any(py)?),
        ];
        match full(&self.inner) {
            None => fields.push(("reason", self.reason().into_bound_py_any(py)?)),
            Some((_, decision, last, _)) => {
                fields.push(("stopping_trigger", decision.trigger.as_str().into_bound_py_any(py)?));
                fields.push(("stopping_reason", decision.reason.as_str().into_bound_py_any(py)?));
                fields.push(("final_quality", last.quality_score.into_bound_py_any(py)?));
            }
        }
        repr_of("StoppingSummary", &fields)
    }
}
