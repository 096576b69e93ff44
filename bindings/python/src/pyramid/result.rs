//! What a pyramid run gives back: `TestPyramidResult`, `FailingLayer`, and the next step,
//! `PyramidAction`.

use earlyexit::{
    pyramid::{Action, FailingLayer},
    Naming, TestPyramidResult,
};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::pyramid::signal::PyLayerResult;
use crate::pyramid::speculation::PySpeculation;
use crate::shims::{repr_of, value_class, Repr, Tuple};
use crate::value::to_py_or_none;

value_class! {
    /// ADR-033's `TestPyramidResult` plus the honest-accounting fields.
    "TestPyramidResult" => PyTestPyramidResult(TestPyramidResult) {
        value: named,
        pickle: result(|v| TestPyramidResult::from_value(v, Naming::Snake)),
        repr: own,
    }
    getters {
        layers: Tuple<PyLayerResult> = |r| Tuple::of(r.layers.iter().cloned().map(|inner| PyLayerResult { inner }));
        exited_early: bool = |r| r.exited_early;
        exit_layer: i64 = |r| r.exit_layer;
        exit_reason: &'static str = |r| r.exit_reason.as_str();
        confidence: f64 = |r| r.confidence;
        speculations: Tuple<PySpeculation> =
            |r| Tuple::of(r.speculations.iter().cloned().map(|inner| PySpeculation { inner }));
        skipped_layers: usize = |r| r.skipped_layers;
        layers_executed: Tuple<usize> = |r| Tuple::of(r.layers_executed.iter().copied());
        verified_layers: usize = |r| r.verified_layers;
        mispredictions: usize = |r| r.mispredictions;
        compute_saved_ms: Option<f64> = |r| r.compute_saved_ms;
        /// `'failed'`, `'passed'` or `'unverified'` (docs/pyramid-verdict.md).
        verdict: &'static str = |r| r.verdict.as_str();
        /// The failing layers that ran or were verified, in the order they ran.
        failing_layers: Tuple<PyFailingLayer> =
            |r| Tuple::of(r.failing_layers.iter().cloned().map(|inner| PyFailingLayer { inner }));
        /// Indices run before the exit decision (every layer run when there was no exit).
        layers_before_exit: Tuple<usize> = |r| Tuple::of(r.layers_before_exit.iter().copied());
        /// Indices of skipped layers that verification ran, in order.
        layers_verified: Tuple<usize> = |r| Tuple::of(r.layers_verified.iter().copied());
        /// Indices of the layers never run, ascending (what `compute_saved_ms` sums).
        layers_not_run: Tuple<usize> = |r| Tuple::of(r.layers_not_run.iter().copied());
        /// Why an early exit saved nothing (verification ran every skipped layer); `None` otherwise.
        note: Option<&'static str> = |r| r.note;
    }
    methods {
        /// Not a test class (pytest collects classes named `Test*`).
        #[classattr]
        fn __test__() -> bool {
            false
        }

        /// Why a `fail_fast` / `risk_bounded` run did what it did (a dict, snake_case keys;
        /// docs/test-exit.md); `None` for the ADR's runs.
        #[getter]
        fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            to_py_or_none(py, self.inner.policy.as_ref().map(|p| p.to_value(Naming::Snake)).as_ref())
        }

        /// A shadow-mode run's receipts and counts by label (a dict; receipts keep their
        /// camelCase keys, which their hashes are over); `None` in enforced mode.
        #[getter]
        fn shadow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
            to_py_or_none(py, self.inner.shadow.as_ref())
        }
    }
}

impl Repr for PyTestPyramidResult {
    /// The verdict first; the layers and speculations themselves are left out.
    fn repr(&self, py: Python<'_>) -> PyResult<String> {
        let r = &self.inner;
        repr_of(
            "TestPyramidResult",
            &[
                ("verdict", r.verdict.as_str().into_bound_py_any(py)?),
                ("failing_layers", self.failing_layers().into_bound_py_any(py)?),
                ("exited_early", r.exited_early.into_bound_py_any(py)?),
                ("exit_layer", r.exit_layer.into_bound_py_any(py)?),
                ("exit_reason", r.exit_reason.as_str().into_bound_py_any(py)?),
                ("confidence", r.confidence.into_bound_py_any(py)?),
                ("skipped_layers", r.skipped_layers.into_bound_py_any(py)?),
                ("layers_executed", self.layers_executed().into_bound_py_any(py)?),
                ("layers_not_run", self.layers_not_run().into_bound_py_any(py)?),
                ("verified_layers", r.verified_layers.into_bound_py_any(py)?),
                ("mispredictions", r.mispredictions.into_bound_py_any(py)?),
                ("compute_saved_ms", r.compute_saved_ms.into_bound_py_any(py)?),
            ],
        )
    }
}

value_class! {
    /// A failing layer of a pyramid run: its index and name.
    "FailingLayer" => PyFailingLayer(FailingLayer) {
        value: fixed,
        pickle: result(|v| FailingLayer::from_value(v, "")),
        repr: snake,
    }
    getters {
        /// The layer's index in the pyramid.
        layer: usize = |f| f.layer;
        /// The layer's name.
        name: &str = |f| &f.name;
    }
}

value_class! {
    /// What the pyramid wants next: run layer i, verify layer i, or done.
    "PyramidAction" => PyPyramidAction(Action) {
        value: fixed,
        pickle: result(Action::from_value),
        repr: snake,
    }
    getters {
        /// `'run'`, `'verify'` or `'done'`.
        action: &'static str = |a| match a {
            Action::Run(_) => "run",
            Action::Verify(_) => "verify",
            Action::Done => "done",
        };
        /// The layer index to run or verify; `None` when done.
        layer: Option<usize> = |a| match a {
            Action::Run(i) | Action::Verify(i) => Some(*i),
            Action::Done => None,
        };
    }
}
