//! What the `#[pyclass]` wrappers of core objects share, written once: the value a wrapper
//! stands for, its `to_dict()` / `__repr__` / pickling, the engines' locks and the snapshot
//! plumbing of the three engines with a portable snapshot. The `#[pymethods]` blocks keep
//! one-line shims (pyo3 needs each method spelled out there); the bodies live here.

use std::sync::{Mutex, MutexGuard};

use earlyexit::{pyramid::PyramidRun, EarlyStopping, Error, IterationAnalytics, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::PyClass;

use crate::error::OrRaise;
use crate::value::{string_of, to_py};

/// A wrapper of one core object: the JSON value that object stands for.
pub trait CoreValue {
    /// The value with `naming`'s keys: snake_case for `__repr__`, pickling and passing the
    /// object where a mapping is accepted; the JS API's for `to_dict()`. Core objects whose
    /// keys are the same in every language ignore `naming`.
    fn core_value(&self, naming: Naming) -> Value;
}

/// Implements [`CoreValue`] for wrappers whose `inner` core object has
/// `to_value(naming)` (`named:`) or a naming-free `to_value()` (`fixed:`).
macro_rules! core_value {
    (named: $($wrapper:ty),+ $(,)?) => {
        $(impl $crate::shims::CoreValue for $wrapper {
            fn core_value(&self, naming: earlyexit::Naming) -> earlyexit::Value {
                self.inner.to_value(naming)
            }
        })+
    };
    (fixed: $($wrapper:ty),+ $(,)?) => {
        $(impl $crate::shims::CoreValue for $wrapper {
            fn core_value(&self, _naming: earlyexit::Naming) -> earlyexit::Value {
                self.inner.to_value()
            }
        })+
    };
}
pub(crate) use core_value;

/// `to_dict()`: the value as the JS API returns it.
pub fn to_dict<'py>(py: Python<'py>, wrapper: &impl CoreValue) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &wrapper.core_value(Naming::Js))
}

/// `__repr__`: `ClassName(key=value, ...)` over the snake_case value.
pub fn repr<T: CoreValue + PyClass>(py: Python<'_>, wrapper: &T) -> PyResult<String> {
    repr_of_dict(T::NAME, &to_py(py, &wrapper.core_value(Naming::Snake))?)
}

/// The value of `obj` if it is a `T` (for [`crate::known_object_value`]).
pub fn snake_value_if<T>(obj: &Bound<'_, PyAny>) -> Option<Value>
where
    T: CoreValue + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    obj.cast::<T>().ok().map(|typed| typed.get().core_value(Naming::Snake))
}

/// What `__reduce__` answers for an immutable wrapper: `restore(snake_case dict)`.
pub fn reduce_by<'py, T>(
    slf: &Bound<'py, T>,
    restore: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))>
where
    T: CoreValue + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    let snake = to_py(slf.py(), &slf.get().core_value(Naming::Snake))?;
    Ok((restore, (snake,)))
}

/// [`reduce_by`] the wrapper's own class (whose constructor takes the dict).
pub fn reduce_by_class<'py, T>(slf: &Bound<'py, T>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))>
where
    T: CoreValue + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    reduce_by(slf, slf.as_any().get_type().into_any())
}

/// A core engine with a portable snapshot (the same JSON in every language).
pub trait Snapshot: Sized {
    /// The engine name a pickle names for `_restore`.
    const ENGINE: &'static str;
    /// The snapshot as JSON text.
    fn snapshot_json(&self) -> String;
    /// The engine a snapshot value stands for (validated by the core).
    fn from_snapshot_value(snapshot: &Value) -> Result<Self, Error>;
}

macro_rules! snapshot_engine {
    ($($engine:ty => $name:literal),+ $(,)?) => {
        $(impl Snapshot for $engine {
            const ENGINE: &'static str = $name;
            fn snapshot_json(&self) -> String {
                self.to_snapshot().to_json()
            }
            fn from_snapshot_value(snapshot: &Value) -> Result<Self, Error> {
                <$engine>::from_snapshot(snapshot)
            }
        })+
    };
}

snapshot_engine! {
    EarlyStopping => "EarlyStopping",
    IterationAnalytics => "IterationAnalytics",
    PyramidRun => "PyramidRun",
}

/// `to_json()`: the locked engine's snapshot as JSON text.
pub fn snapshot_text<T: Snapshot>(engine: &Mutex<T>) -> String {
    lock(engine).snapshot_json()
}

/// `from_json()` / unpickling: the engine a snapshot argument (JSON text, bytes or a parsed
/// mapping) stands for.
pub fn restore<T: Snapshot>(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<T> {
    let value = crate::value::snapshot_value(snapshot)?;
    T::from_snapshot_value(&value).or_raise(py)
}

/// `__reduce__` of an engine: `_restore(engine name, snapshot text, analytics source)`.
pub fn reduce_engine<'py, T: Snapshot>(
    py: Python<'py>,
    engine: &Mutex<T>,
    analytics: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    reduce_with(py, T::ENGINE, snapshot_text(engine), analytics)
}

/// What a result's `__reduce__` answers: the restore callable and `(class name, dict)`.
pub type ResultReduce<'py> = (Bound<'py, PyAny>, (&'static str, Bound<'py, PyAny>));

/// `__reduce__` of an immutable result: `_restore_result(class name, snake_case dict)`,
/// which the core reads back (validated) into an equal object.
pub fn reduce_result<'py, T>(slf: &Bound<'py, T>) -> PyResult<ResultReduce<'py>>
where
    T: CoreValue + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    let snake = to_py(slf.py(), &slf.get().core_value(Naming::Snake))?;
    Ok((crate::shims::module_attr(slf.py(), "_restore_result")?, (T::NAME, snake)))
}

/// Locks an engine's state. Critical sections never call into Python (arguments are
/// converted before and results after), so with the GIL held the lock is never contended
/// for long; a poisoned lock cannot happen (the core does not panic) and is recovered.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `f` on the locked state and releases the lock before returning, so that whatever
/// the caller does next with the result (raising an exception runs Python code, which may
/// hand the GIL to another thread) never happens while the lock is held.
pub fn locked<T, R>(mutex: &Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
    let mut guard = lock(mutex);
    let result = f(&mut guard);
    drop(guard);
    result
}

/// `obj.to_dict()`-style conversion with Python's `repr` of each field, for `__repr__`.
pub fn repr_of(name: &str, fields: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut out = String::from(name);
    out.push('(');
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(key);
        out.push('=');
        out.push_str(&string_of(&value.repr()?));
    }
    out.push(')');
    Ok(out)
}

/// `Name(key=value, ...)` from a dict of snake_case fields.
pub(crate) fn repr_of_dict(name: &str, fields: &Bound<'_, PyAny>) -> PyResult<String> {
    let Ok(dict) = fields.cast::<PyDict>() else {
        return Ok([name, "()"].concat());
    };
    let mut pairs: Vec<(String, Bound<'_, PyAny>)> = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        pairs.push((string_of(&k.str()?), v));
    }
    let borrowed: Vec<(&str, Bound<'_, PyAny>)> = pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    repr_of(name, &borrowed)
}

/// `(earlyexit._native._restore, (engine, snapshot_text, analytics))` for `__reduce__`.
pub(crate) fn reduce_with<'py>(
    py: Python<'py>,
    engine: &str,
    text: String,
    analytics: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let restore = module_attr(py, "_restore")?;
    let args = (engine, text, analytics).into_pyobject(py)?;
    Ok((restore, args).into_pyobject(py)?.into_any())
}

/// An attribute of this module (for `__reduce__` callables).
pub(crate) fn module_attr<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("earlyexit._native")?.getattr(name)
}
