//! Unpickling: `_restore(engine name, snapshot, analytics)`, which every engine's
//! `__reduce__` names, and `_restore_result(class name, snake_case dict)`, which every
//! result's names. The core reads the snapshot or dict back (validated, field-naming
//! errors); the readers are picked from the module's one list of classes (`classes!` in
//! `lib.rs`).

use pyo3::prelude::*;

use crate::error::raise;
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
    match crate::restore_engine(py, &engine, snapshot, analytics)? {
        Some(restored) => Ok(restored),
        None => Err(raise(py, earlyexit::kit::host::unknown_engine(&engine))),
    }
}

/// Rebuilds a pickled result of class `class` from its snake_case dict (`None` is `null`).
#[pyfunction]
pub fn _restore_result<'py>(py: Python<'py>, class: &str, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let value = to_value(value, NoneIs::Null)?;
    match crate::read_result(py, class, &value)? {
        Some(result) => Ok(result),
        None => Err(raise(py, earlyexit::kit::host::unknown_result_class(class))),
    }
}
