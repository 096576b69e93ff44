//! The layers a caller gives the controller or the executor: each `(name, runner)`, a
//! mapping with `name` (and `run`, `cost_ms`), or an object with those attributes. Their
//! specs go to the core; their runners are called here, never by the core.

use earlyexit::kit::pyramid::{check_layer_key, invalid_runner};
use earlyexit::{limits::MAX_LAYERS, Error, ErrorCode, Naming, Value};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};

use crate::error::raise;
use crate::value::{to_value, type_name, NoneIs};

/// The spec the core reads (`{name, cost_ms?}`) of one layer given as `(name, runner)`, a
/// mapping, or an object with `name` (and optionally `cost_ms`).
pub(crate) fn layer_spec_value(layer: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(tuple) = layer.cast::<PyTuple>() {
        if let (2, Ok(name)) = (tuple.len(), tuple.get_item(0)) {
            return Ok(Value::Object(vec![("name".to_string(), to_value(&name, NoneIs::Absent)?)]));
        }
        return to_value(layer, NoneIs::Absent);
    }
    if layer.is_instance_of::<PyDict>() || layer.cast::<PyMapping>().is_ok() || layer.is_instance_of::<PyList>() {
        return to_value(layer, NoneIs::Absent);
    }
    if layer.is_instance_of::<PyString>() || layer.is_none() {
        return to_value(layer, NoneIs::Absent);
    }
    let Ok(name) = layer.getattr("name") else {
        return Ok(Value::Other(type_name(layer)));
    };
    let mut entries = vec![("name".to_string(), to_value(&name, NoneIs::Absent)?)];
    if let Ok(cost) = layer.getattr("cost_ms") {
        if !cost.is_none() {
            entries.push(("cost_ms".to_string(), to_value(&cost, NoneIs::Absent)?));
        }
    }
    Ok(Value::Object(entries))
}

/// The layer list as the core's `layers` array.
pub fn layer_specs_value(layers: &Bound<'_, PyAny>) -> PyResult<Value> {
    if layers.is_instance_of::<PyString>() || layers.is_instance_of::<PyDict>() {
        return to_value(layers, NoneIs::Absent);
    }
    let Ok(iter) = layers.try_iter() else {
        return to_value(layers, NoneIs::Absent);
    };
    let mut items = Vec::new();
    for layer in iter {
        // Past the limit the core refuses the list: stop reading (an iterator may not end).
        if items.len() > MAX_LAYERS {
            break;
        }
        let layer = layer?;
        let spec = layer_spec_value(&layer)?;
        if is_layer_object(&layer) {
            check_attributes(layer.py(), &layer, items.len())?;
        }
        items.push(spec);
    }
    Ok(Value::Array(items))
}

/// Whether `layer` is read as an object (by attribute), not as a tuple, mapping or list.
fn is_layer_object(layer: &Bound<'_, PyAny>) -> bool {
    !(layer.is_instance_of::<PyTuple>()
        || layer.is_instance_of::<PyDict>()
        || layer.cast::<PyMapping>().is_ok()
        || layer.is_instance_of::<PyList>()
        || layer.is_instance_of::<PyString>()
        || layer.is_none())
}

/// A layer object's own public attributes (its `__dict__`'s keys, those not starting with
/// `_`), each checked by the core as a key beside `name`, `cost_ms` and `run`: a near-miss of
/// one (`cost`, `costMs`, which would be ignored) is refused; any other is the object's own.
fn check_attributes(py: Python<'_>, layer: &Bound<'_, PyAny>, index: usize) -> PyResult<()> {
    let Ok(attributes) = layer.getattr("__dict__") else { return Ok(()) };
    let Ok(attributes) = attributes.cast_into::<PyDict>() else { return Ok(()) };
    let path = ["layers[", &earlyexit::kit::num::uint_string(index as u64), "]"].concat();
    for key in attributes.keys() {
        let Ok(key) = key.cast_into::<PyString>() else { continue };
        let key = key.to_cow()?;
        if key.starts_with('_') {
            continue;
        }
        check_layer_key(&key, Naming::Snake, &path, false).map_err(|e| raise(py, e))?;
    }
    Ok(())
}

/// The error for a list of layers (or speculations) an iterator kept giving past the limit.
pub(crate) fn layers_over_limit(field: &str) -> Error {
    earlyexit::limits::too_many_layers(ErrorCode::InvalidConfig, field)
}

/// The runner of layer `index`: the second item of a `(name, runner)` tuple, a mapping's
/// `run`, or an object's `run` method.
pub(crate) fn runner_of<'py>(py: Python<'py>, layer: &Bound<'py, PyAny>, index: usize) -> PyResult<Bound<'py, PyAny>> {
    let runner = if let Ok(tuple) = layer.cast::<PyTuple>() {
        tuple.get_item(1).ok()
    } else if let Ok(mapping) = layer.cast::<PyMapping>() {
        mapping.get_item("run").ok()
    } else {
        layer.getattr("run").ok()
    };
    match runner {
        Some(r) if r.is_callable() => Ok(r),
        other => {
            let got = match other {
                Some(r) => to_value(&r, NoneIs::Absent)?,
                None => Value::Other("nothing (missing)".to_string()),
            };
            Err(raise(py, invalid_runner(Naming::Snake, index, &got)))
        }
    }
}

/// The runners of `layers`, in order (used by `EarlyExitController.run` / `run_async`).
#[pyfunction]
pub fn _layer_runners<'py>(py: Python<'py>, layers: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (i, layer) in layers.try_iter()?.enumerate() {
        if i == MAX_LAYERS {
            return Err(raise(py, layers_over_limit("layers")));
        }
        list.append(runner_of(py, &layer?, i)?)?;
    }
    Ok(list)
}
