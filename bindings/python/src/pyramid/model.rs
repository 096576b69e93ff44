//! `OutcomeModel`: the outcome model that merges (the core's `BuildHistory`, document version
//! 2), immutable: `learn` and `merge` answer a new model. Accepted wherever `model=` is (it
//! converts to its document like the other value classes).

use earlyexit::kit;
use earlyexit::pyramid::policy::BuildHistory;
use earlyexit::{Naming, Value};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::error::OrRaise;
use crate::pyramid::policy::{model_value, opt, options};
use crate::shims::{repr_of, value_class, Json, Repr};
use crate::value::{to_py, to_value, NoneIs};

value_class! {
    /// The outcome model that merges: a window of per-build outcomes keyed by the caller's
    /// build id and sequence number (docs/test-exit.md, "Models that merge").
    "OutcomeModel" => PyOutcomeModel(BuildHistory) {
        value: fixed,
        pickle: class,
        repr: own,
    }
    getters {
        /// The most builds it keeps (those of highest key).
        window: usize = |m| m.window;
        /// Why it has a base (it was converted from a version 1 model), or `None`.
        note: Option<&'static str> = |m| m.note();
        /// The version 1 counts it was converted from (`None` when it has no base).
        base: Json = |m| Json((!m.base.layers.is_empty()).then(|| m.base.to_value(Naming::Js)));
    }
    methods {
        /// `OutcomeModel(model=None, *, window=None)`: a new empty model, or `model` read (a
        /// document of either version, its JSON text, or an `OutcomeModel`; a version 1 one is
        /// converted, its counts becoming the base). `window` only for a new or converted one.
        #[new]
        #[pyo3(signature = (model = None, *, window = None))]
        fn new(py: Python<'_>, model: Option<&Bound<'_, PyAny>>, window: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
            let model = model_value(py, model)?;
            let opts = options(vec![("window", opt(window)?)]);
            Ok(PyOutcomeModel { inner: kit::pyramid::policy::history_value(&model, &opts, Naming::Snake).or_raise(py)? })
        }

        /// The union of both models' builds: commutative, associative and idempotent (the same
        /// build in both counts once; a different record under one key is refused).
        fn merge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Self> {
            let other = kit::pyramid::policy::history_argument(&model_value(py, Some(other))?, None).or_raise(py)?;
            Ok(PyOutcomeModel { inner: self.inner.merge(&other).or_raise(py)? })
        }

        /// Learns one build: `ran` the layers that ran, in run order (`[{name, failed,
        /// duration_ms?}]`, what `result.policy["ran"]` holds), under its key.
        #[pyo3(signature = (ran, *, build_id, seq))]
        fn learn(&self, py: Python<'_>, ran: &Bound<'_, PyAny>, build_id: &Bound<'_, PyAny>, seq: &Bound<'_, PyAny>) -> PyResult<Self> {
            let ran = to_value(ran, NoneIs::Absent)?;
            let build = options(vec![("id", Some(to_value(build_id, NoneIs::Null)?)), ("seq", Some(to_value(seq, NoneIs::Null)?))]);
            let mut inner = self.inner.clone();
            let (id, seq) = kit::pyramid::policy::build_arg(&build, Naming::Snake).or_raise(py)?;
            inner.learn(&id, seq, &kit::pyramid::policy::ran_arg(&ran, Naming::Snake).or_raise(py)?).or_raise(py)?;
            Ok(PyOutcomeModel { inner })
        }

        /// The version 1 statistics the policy decides from (`config`: a partial policy config;
        /// only `forgetting` changes the counts).
        #[pyo3(signature = (config = None))]
        fn statistics<'py>(&self, py: Python<'py>, config: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
            let config = opt(config)?.unwrap_or(Value::Null);
            to_py(py, &kit::pyramid::policy::stats_value(&self.inner.to_value(), &config, Naming::Snake).or_raise(py)?)
        }

        /// The document as JSON text (the same in every language).
        fn to_json(&self) -> String {
            self.inner.to_value().to_json()
        }

        /// Reads `to_json()` text (or any model argument).
        #[staticmethod]
        fn from_json(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
            Self::new(py, Some(text), None)
        }

        /// How many builds it holds.
        fn __len__(&self) -> usize {
            self.inner.builds.len()
        }
    }
}

impl Repr for PyOutcomeModel {
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        repr_of(
            "OutcomeModel",
            &[
                ("builds", self.inner.builds.len().into_bound_py_any(py)?),
                ("window", self.inner.window.into_bound_py_any(py)?),
                ("base", (!self.inner.base.layers.is_empty()).into_bound_py_any(py)?),
            ],
        )
    }
}
