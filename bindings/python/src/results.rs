//! Unpickling of the result objects: `_restore_result(class name, snake_case dict)`, the
//! callable every result's `__reduce__` names. The core reads the dict back (validated,
//! field-naming errors); this file only picks the reader and wraps what it returns.

use earlyexit::loops::analytics::AnalyticsRecord;
use earlyexit::loops::analytics::{AnalyticsSummary, IterationSelection};
use earlyexit::loops::StoppingSummary;
use earlyexit::pyramid::{Action, FailingLayer, TestPyramidResult};
use earlyexit::{
    DiminishingReturnsReport, Error, ErrorCode, ErrorKind, ExitDecision, IterationRecord, Naming, Speculation,
    StoppingDecision,
};
use pyo3::prelude::*;

use crate::analytics_engine::{
    PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationSelection,
};
use crate::convert::{to_value, NoneIs, OrRaise};
use crate::loop_engine::{PyIterationRecord, PyStoppingDecision, PyStoppingSummary};
use crate::test_exit::{PyExitDecision, PyFailingLayer, PyPyramidAction, PySpeculation, PyTestPyramidResult};

/// Rebuilds a pickled result of class `class` from its snake_case dict (`None` is `null`).
#[pyfunction]
pub fn _restore_result<'py>(py: Python<'py>, class: &str, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let v = to_value(value, NoneIs::Null)?;
    fn wrap<'py, T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(
        py: Python<'py>,
        made: T,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(Bound::new(py, made)?.into_any())
    }
    match class {
        "IterationRecord" => wrap(py, PyIterationRecord { inner: IterationRecord::from_value(&v, "").or_raise(py)? }),
        "StoppingDecision" => {
            wrap(py, PyStoppingDecision { inner: StoppingDecision::from_value(&v, "").or_raise(py)? })
        }
        "StoppingSummary" => wrap(py, PyStoppingSummary { inner: StoppingSummary::from_value(&v).or_raise(py)? }),
        "AnalyticsRecord" => wrap(py, PyAnalyticsRecord { inner: AnalyticsRecord::from_value(&v, "").or_raise(py)? }),
        "DiminishingReturnsReport" => wrap(
            py,
            PyDiminishingReturnsReport { inner: DiminishingReturnsReport::from_result_value(&v).or_raise(py)? },
        ),
        "IterationSelection" => {
            let IterationSelection { selected, reason } = IterationSelection::from_value(&v).or_raise(py)?;
            wrap(py, PyIterationSelection { selected, reason })
        }
        "AnalyticsSummary" => wrap(py, PyAnalyticsSummary { inner: AnalyticsSummary::from_value(&v).or_raise(py)? }),
        "ExitDecision" => wrap(py, PyExitDecision { inner: ExitDecision::from_value(&v, Naming::Snake).or_raise(py)? }),
        "Speculation" => {
            wrap(py, PySpeculation { inner: Speculation::from_value(&v, Naming::Snake, "").or_raise(py)? })
        }
        "TestPyramidResult" => {
            wrap(py, PyTestPyramidResult { inner: TestPyramidResult::from_value(&v, Naming::Snake).or_raise(py)? })
        }
        "PyramidAction" => wrap(py, PyPyramidAction { inner: Action::from_value(&v).or_raise(py)? }),
        "FailingLayer" => wrap(py, PyFailingLayer { inner: FailingLayer::from_value(&v, "").or_raise(py)? }),
        other => Err(crate::convert::raise(
            py,
            Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "class",
                ["class must name a result class, got '", other, "'"].concat(),
            ),
        )),
    }
}

/// Adds `_restore_result` to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_restore_result, m)?)
}
