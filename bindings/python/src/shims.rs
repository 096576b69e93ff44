//! What the `#[pyclass]` wrappers of core objects share, written once.
//!
//! * [`value_class!`] writes a frozen class that stands for one core value (a config, a
//!   record, a decision, a result): the struct, its getters, `to_dict()`, `__repr__` and
//!   `__reduce__`, with the class's own methods spliced into the same `#[pymethods]` block
//!   (pyo3 takes one block per class without its `multiple-pymethods` feature, which would
//!   add a dependency).
//! * [`classes!`] turns the module's one list of classes into `add_class`, the conversion of
//!   the module's own objects where a mapping is accepted, `_restore_result` (unpickling a
//!   result) and `_restore` (unpickling an engine).
//! * [`EngineClass`] is what the three engines with a portable snapshot share (`to_json`,
//!   `from_json`, pickling); their `#[pymethods]` keep one-line shims to it, since wrapping
//!   those long blocks in a macro would hide them from rustfmt for a few lines saved.

use std::sync::{Mutex, MutexGuard};

use earlyexit::{pyramid::policy::LiveRun, EarlyStopping, Error, IterationAnalytics, Naming, Value};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::types::{PyDict, PyTuple};
use pyo3::PyClass;

use crate::error::OrRaise;
use crate::value::{snapshot_value, string_of, to_py, to_py_or_none};

/// A wrapper of one core object: the JSON value that object stands for.
pub trait CoreValue {
    /// The value with `naming`'s keys: snake_case for `__repr__`, pickling and passing the
    /// object where a mapping is accepted; the JS API's for `to_dict()`. Core objects whose
    /// keys are the same in every language ignore `naming`.
    fn core_value(&self, naming: Naming) -> Value;
}

/// A frozen wrapper class (`#[pyclass(frozen)]`, so `Bound::get` borrows it without a lock).
pub trait FrozenClass: CoreValue + PyClass<Frozen = True> + Sync {}

impl<T: CoreValue + PyClass<Frozen = True> + Sync> FrozenClass for T {}

/// `__repr__` of a value class: by default `ClassName(key=value, ...)` over the snake_case
/// value; a class with `repr: own` implements it.
pub trait Repr: FrozenClass {
    /// The text `repr()` shows.
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        repr_of_dict(Self::NAME, &to_py(py, &self.core_value(Naming::Snake))?)
    }
}

/// `__reduce__` of a value class (`pickle: result(...)` or `pickle: class` write it; a
/// class with `pickle: own` implements it).
pub trait Pickle: FrozenClass {
    /// The callable and its arguments that rebuild an equal object.
    fn reduce<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>>;
}

/// A result class `_restore_result(class name, snake_case dict)` rebuilds (`pickle: result`).
pub trait ReadResult: Sized {
    /// The object a snake_case dict stands for, read (validated) by the core.
    fn read(value: &Value) -> Result<Self, Error>;
}

/// Writes a frozen class that stands for one core value:
///
/// ```ignore
/// value_class! {
///     /// One entry of `EarlyStopping.history`.
///     "IterationRecord" => PyIterationRecord(IterationRecord) {
///         value: fixed,   // `fixed`: the core's `to_value()`; `named`: `to_value(naming)`
///         pickle: result(|v| IterationRecord::from_value(v, "")), // or `class`, `own`
///         repr: snake,    // or `own` (the class implements `Repr`)
///     }
///     getters {
///         quality_score: f64 = |r| r.observation.quality_score;   // `r` is the core value
///     }
///     methods { /* the class's own #[pymethods], as written in a #[pymethods] block */ }
/// }
/// ```
///
/// `pickle: result(reader)` pickles as `_restore_result(class name, snake_case dict)` and
/// reads the dict back with `reader`; `class` as `Class(snake_case dict)`; `own`: the class
/// implements [`Pickle`]. A getter that builds Python objects returns [`Json`] or [`Tuple`].
macro_rules! value_class {
    (
        $(#[$doc:meta])*
        $name:literal => $class:ident($inner:ty) {
            value: $value:ident,
            pickle: $pickle:ident $(($reader:expr))?,
            repr: $repr:ident $(,)?
        }
        getters {
            $($(#[$getter_doc:meta])* $getter:ident: $type:ty = |$r:ident| $body:expr;)*
        }
        $(methods { $($methods:tt)* })?
    ) => {
        $(#[$doc])*
        #[pyclass(frozen, eq, module = "earlyexit._native", name = $name)]
        #[derive(Clone, PartialEq)]
        pub struct $class {
            pub(crate) inner: $inner,
        }

        $crate::shims::value_class!(@value $value $class);
        $crate::shims::value_class!(@pickle $pickle $class [$inner] $(($reader))?);
        $crate::shims::value_class!(@repr $repr $class);

        #[pymethods]
        impl $class {
            $(
                $(#[$getter_doc])*
                #[getter]
                fn $getter(&self) -> $type {
                    let $r = &self.inner;
                    $body
                }
            )*

            /// The value as the JS API returns it (a new dict; camelCase where the JS API has it).
            fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                $crate::shims::to_dict(py, self)
            }

            /// Pickles (and copies) as an equal object.
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                <Self as $crate::shims::Pickle>::reduce(slf)
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                <Self as $crate::shims::Repr>::repr(self, py)
            }

            $($($methods)*)?
        }
    };

    (@value named $class:ident) => {
        impl $crate::shims::CoreValue for $class {
            fn core_value(&self, naming: earlyexit::Naming) -> earlyexit::Value {
                self.inner.to_value(naming)
            }
        }
    };
    (@value fixed $class:ident) => {
        impl $crate::shims::CoreValue for $class {
            fn core_value(&self, _naming: earlyexit::Naming) -> earlyexit::Value {
                self.inner.to_value()
            }
        }
    };

    (@pickle result $class:ident [$inner:ty] ($reader:expr)) => {
        impl $crate::shims::Pickle for $class {
            fn reduce<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                $crate::shims::reduce_result(slf)
            }
        }
        impl $crate::shims::ReadResult for $class {
            fn read(value: &earlyexit::Value) -> Result<Self, earlyexit::Error> {
                let read: fn(&earlyexit::Value) -> Result<$inner, earlyexit::Error> = $reader;
                Ok($class { inner: read(value)? })
            }
        }
    };
    (@pickle class $class:ident [$inner:ty]) => {
        impl $crate::shims::Pickle for $class {
            fn reduce<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
                $crate::shims::reduce_by(slf, slf.get_type().into_any())
            }
        }
    };
    (@pickle own $class:ident [$inner:ty]) => {};

    (@repr snake $class:ident) => {
        impl $crate::shims::Repr for $class {}
    };
    (@repr own $class:ident) => {};
}
pub(crate) use value_class;

/// The module's classes from one list, `Class [flags]` per row:
///
/// * every row: `add_class` (`add_classes`);
/// * `mapping`: an object of the class converts to its snake_case value wherever a mapping
///   is accepted (`known_object_value`), so a config or a decision can be passed on;
/// * `result`: `_restore_result` rebuilds it ([`ReadResult`], `read_result`);
/// * `engine`: `_restore` rebuilds it from its snapshot ([`EngineClass`], `restore_engine`).
macro_rules! classes {
    ($($class:ident [$($flag:ident),*]),+ $(,)?) => {
        /// Adds every class to the module.
        fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<$class>()?;)+
            Ok(())
        }

        /// The core value an object of this module's own types stands for (snake_case
        /// keys), so that a `LayerResult`, a config or a decision can be passed wherever a
        /// mapping can.
        pub(crate) fn known_object_value(obj: &Bound<'_, PyAny>) -> Option<earlyexit::Value> {
            $($($crate::shims::classes!(@mapping $flag $class obj);)*)+
            None
        }

        /// The result of class `class` a snake_case dict stands for; `None` for a name that
        /// is not a result class.
        pub(crate) fn read_result<'py>(
            py: Python<'py>,
            class: &str,
            value: &earlyexit::Value,
        ) -> PyResult<Option<Bound<'py, PyAny>>> {
            $($($crate::shims::classes!(@result $flag $class py class value);)*)+
            Ok(None)
        }

        /// The engine named `engine` restored from its snapshot; `None` for a name that is
        /// not an engine's.
        pub(crate) fn restore_engine<'py>(
            py: Python<'py>,
            engine: &str,
            snapshot: &Bound<'py, PyAny>,
            analytics: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<Option<Bound<'py, PyAny>>> {
            $($($crate::shims::classes!(@engine $flag $class py engine snapshot analytics);)*)+
            Ok(None)
        }
    };

    (@mapping mapping $class:ident $obj:ident) => {
        if let Some(value) = $crate::shims::snake_value_if::<$class>($obj) {
            return Some(value);
        }
    };
    (@mapping $flag:ident $class:ident $obj:ident) => {};

    (@result result $class:ident $py:ident $name:ident $value:ident) => {
        if $name == <$class as pyo3::PyClass>::NAME {
            let read = <$class as $crate::shims::ReadResult>::read($value);
            return Ok(Some(Bound::new($py, $crate::error::OrRaise::or_raise(read, $py)?)?.into_any()));
        }
    };
    (@result $flag:ident $class:ident $py:ident $name:ident $value:ident) => {};

    (@engine engine $class:ident $py:ident $name:ident $snapshot:ident $analytics:ident) => {
        if $name == <$class as pyo3::PyClass>::NAME {
            let engine = <$class as $crate::shims::EngineClass>::restore($py, $snapshot, $analytics)?;
            return Ok(Some(Bound::new($py, engine)?.into_any()));
        }
    };
    (@engine $flag:ident $class:ident $py:ident $name:ident $snapshot:ident $analytics:ident) => {};
}
pub(crate) use classes;

/// A core value a getter returns as plain Python data (`None` when absent): a new dict or
/// list on each access.
pub struct Json(pub Option<Value>);

impl<'py> IntoPyObject<'py> for Json {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py_or_none(py, self.0.as_ref())
    }
}

/// Items a getter returns as a tuple (immutable, like the object that holds them).
pub struct Tuple<T>(pub Vec<T>);

impl<T> Tuple<T> {
    /// The tuple of `items`.
    pub fn of(items: impl IntoIterator<Item = T>) -> Self {
        Tuple(items.into_iter().collect())
    }
}

impl<'py, T: IntoPyObject<'py>> IntoPyObject<'py> for Tuple<T> {
    type Target = PyTuple;
    type Output = Bound<'py, PyTuple>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0)
    }
}

/// `to_dict()`: the value as the JS API returns it.
pub fn to_dict<'py>(py: Python<'py>, wrapper: &impl CoreValue) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &wrapper.core_value(Naming::Js))
}

/// The value of `obj` if it is a `T` (for `known_object_value`).
pub fn snake_value_if<T: FrozenClass>(obj: &Bound<'_, PyAny>) -> Option<Value> {
    obj.cast::<T>().ok().map(|typed| typed.get().core_value(Naming::Snake))
}

/// What `__reduce__` answers for an immutable wrapper: `restore(snake_case dict)`.
pub fn reduce_by<'py, T: FrozenClass>(slf: &Bound<'py, T>, restore: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let snake = to_py(slf.py(), &slf.get().core_value(Naming::Snake))?;
    Ok((restore, (snake,)).into_pyobject(slf.py())?.into_any())
}

/// `__reduce__` of an immutable result: `_restore_result(class name, snake_case dict)`,
/// which the core reads back (validated) into an equal object.
pub fn reduce_result<'py, T: FrozenClass>(slf: &Bound<'py, T>) -> PyResult<Bound<'py, PyAny>> {
    let snake = to_py(slf.py(), &slf.get().core_value(Naming::Snake))?;
    let restore = module_attr(slf.py(), "_restore_result")?;
    Ok((restore, (T::NAME, snake)).into_pyobject(slf.py())?.into_any())
}

/// A core engine with a portable snapshot (the same JSON in every language).
pub trait Snapshot: Sized {
    /// The snapshot as JSON text.
    fn snapshot_json(&self) -> String;
    /// The engine a snapshot value stands for (validated by the core).
    fn from_snapshot_value(snapshot: &Value) -> Result<Self, Error>;
}

macro_rules! snapshot_engine {
    ($($engine:ty),+ $(,)?) => {
        $(impl Snapshot for $engine {
            fn snapshot_json(&self) -> String {
                self.to_snapshot().to_json()
            }
            fn from_snapshot_value(snapshot: &Value) -> Result<Self, Error> {
                <$engine>::from_snapshot(snapshot)
            }
        })+
    };
}

snapshot_engine!(EarlyStopping, IterationAnalytics, LiveRun);

/// A class around a core engine with a portable snapshot. A pickle names the class
/// (`_restore(class name, snapshot text, analytics source)`).
pub trait EngineClass: PyClass + Sized {
    /// The core engine.
    type Core: Snapshot;
    /// The locked core engine.
    fn core(&self) -> &Mutex<Self::Core>;
    /// The engine a snapshot argument stands for (`from_json()`, unpickling); `analytics` is
    /// the source a pickle carries (only `EarlyStopping` takes one).
    fn restore(py: Python<'_>, snapshot: &Bound<'_, PyAny>, analytics: Option<&Bound<'_, PyAny>>) -> PyResult<Self>;
    /// What a pickle carries beside the snapshot: the analytics source, or `None`.
    fn analytics<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        py.None().into_bound(py)
    }
}

/// `to_json()`: the locked engine's snapshot as JSON text.
pub fn to_json<E: EngineClass>(engine: &E) -> String {
    lock(engine.core()).snapshot_json()
}

/// The core engine a snapshot argument (JSON text, bytes or a parsed mapping) stands for.
pub fn core_from_snapshot<T: Snapshot>(py: Python<'_>, snapshot: &Bound<'_, PyAny>) -> PyResult<T> {
    let value = snapshot_value(snapshot)?;
    T::from_snapshot_value(&value).or_raise(py)
}

/// `__reduce__` of an engine: `_restore(class name, snapshot text, analytics source)`.
pub fn reduce_engine<'py, E: EngineClass>(py: Python<'py>, engine: &E) -> PyResult<Bound<'py, PyAny>> {
    let restore = module_attr(py, "_restore")?;
    let args = (E::NAME, to_json(engine), engine.analytics(py));
    Ok((restore, args).into_pyobject(py)?.into_any())
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

/// `Name(key=value, ...)` with Python's `repr` of each field, for `__repr__`.
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
fn repr_of_dict(name: &str, fields: &Bound<'_, PyAny>) -> PyResult<String> {
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

/// An attribute of this module (for `__reduce__` callables).
pub fn module_attr<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("earlyexit._native")?.getattr(name)
}
