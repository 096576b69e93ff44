//! Unpickling: `_restore(engine name, snapshot, analytics)`, which every engine's
//! `__reduce__` names, and `_restore_result(class name, snake_case dict)`, which every
//! result's names. The core reads the snapshot or dict back (validated, field-naming
//! errors); this file only picks the reader and wraps what it returns.

use earlyexit::{
    analytics::AnalyticsRecord,
    loop_stopping::StoppingSummary,
    pyramid::{Action, FailingLayer, TestPyramidResult},
    results::{AnalyticsSummary, IterationSelection},
    DiminishingReturnsReport, Error, ErrorCode, ErrorKind, ExitDecision, IterationRecord, Naming, Speculation,
    StoppingDecision,
};
use pyo3::prelude::*;

use crate::error::{raise, OrRaise};
use crate::loops::analytics::engine::PyIterationAnalytics;
use crate::loops::analytics::{
    PyAnalyticsRecord, PyAnalyticsSummary, PyDiminishingReturnsReport, PyIterationSelection,
};
use crate::loops::decision::{PyStoppingDecision, PyStoppingSummary};
use crate::loops::engine::PyEarlyStopping;
use crate::loops::records::PyIterationRecord;
use crate::pyramid::exit::PyExitDecision;
use crate::pyramid::result::{PyFailingLayer, PyPyramidAction, PyTestPyramidResult};
use crate::pyramid::run::PyPyramidRun;
use crate::pyramid::speculation::PySpeculation;
use crate::value::{to_value, NoneIs};

/// Restores a pickled engine from its portable snapshot.
#[pyfunction]
#[pyo3(signature = (engine, snapshot, analytics = None))]
pub fn _restore<'py>(
    py: Python<'py>,
    engine: String,
    snapshot: &Bound<'py, PyAny>,
    analytics: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match engine.as_str() {
        "EarlyStopping" => Ok(Bound::new(py, PyEarlyStopping::restore(py, snapshot, analytics)?)?.into_any()),
        "IterationAnalytics" => Ok(Bound::new(py, PyIterationAnalytics::restore(py, snapshot)?)?.into_any()),
        "PyramidRun" => Ok(Bound::new(py, PyPyramidRun::restore(py, snapshot)?)?.into_any()),
        other => Err(raise(
            py,
            Error::new(
                ErrorCode::InvalidSnapshot,
                ErrorKind::Range,
                "engine",
                ["snapshot is of unknown engine '", other, "'"].concat(),
            ),
        )),
    }
}

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
        other => Err(raise(
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
