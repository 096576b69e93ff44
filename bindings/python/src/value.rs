//! Python objects to the core's [`Value`] and back. No rule lives here: the core validates
//! every value it is given, so this module only says what a Python object *is* (bool before
//! int, `None` as an absent key, anything unknown by its type name).

use std::borrow::Cow;

use earlyexit::{
    kit::value::{same_field, utf8_text},
    limits::{self, Excess},
    snapshot,
    value::jsonl,
    ErrorCode, Value,
};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple, PyType};

use crate::error::OrRaise;

/// What a `None` stands for inside a dict.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NoneIs {
    /// A key whose value is `None` is absent (keyword arguments, configs, results: the
    /// design pages' "a key that is not passed or is None is absent").
    Absent,
    /// `None` is JSON `null` (snapshots, and what an outside analytics source reports,
    /// where the seed copies `iteration: null` verbatim).
    Null,
}

/// Converts a Python object for the core. `bool` is checked before `int` (it is an `int`
/// subclass in Python); any `numbers.Real` (NumPy scalars, `fractions.Fraction`) is a
/// number; objects of the package's own result and config types convert to the objects
/// they stand for; anything else becomes `Value::Other(type name)`, which the core
/// rejects with a message naming that type.
///
/// Within the core's limits (`earlyexit::limits`): a value nested deeper than
/// `MAX_VALUE_DEPTH`, one that contains itself, one of more than `MAX_VALUES` values, an
/// object of more than `MAX_OBJECT_KEYS` keys, a string inside it of more than
/// `MAX_STRING_BYTES` bytes, or a mapping two of whose keys read the same once turned into
/// text (`1` and `"1"`) becomes, as a whole, `Value::Other` of the core's description of
/// what is wrong: the core then refuses the argument with its own code and field
/// (`from_json` a deep dict: `invalid_snapshot`, field `snapshot`). The conversion stops at
/// the first excess, so its cost is bounded by the limits, whatever the object graph.
pub fn to_value(obj: &Bound<'_, PyAny>, none_is: NoneIs) -> PyResult<Value> {
    let mut converter = Converter { none_is, values: 0, path: Vec::new() };
    match converter.convert(obj, 0) {
        Ok(value) => Ok(value),
        Err(Stop::Excess(excess)) => Ok(Value::Other(excess.describe())),
        Err(Stop::Python(error)) => Err(error),
    }
}

/// Replay input: a list (or tuple) of runs is converted run by run, each within the limits
/// on its own (a replay of any number of runs stays possible, as with JSONL text); text,
/// bytes (strict UTF-8, as `earlyexit::jsonl::text_of_bytes` reads them) are JSONL
/// streams, each line a document within the limits; anything else is one value.
pub fn runs_value(py: Python<'_>, runs: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(bytes) = runs.cast::<pyo3::types::PyBytes>() {
        let text = jsonl::text_of_bytes(bytes.as_bytes()).or_raise(py)?;
        return Ok(Value::String(text.to_string()));
    }
    if let Ok(text) = runs.cast::<PyString>() {
        return Ok(Value::String(string_of(text)));
    }
    let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = runs.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = runs.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return to_value(runs, NoneIs::Absent);
    };
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        out.push(to_value(item, NoneIs::Absent)?);
    }
    Ok(Value::Array(out))
}

/// How many values converting `obj` (as any argument is converted) visited: every value
/// once, a shared sub-object once per place it appears, and nothing past the first excess.
/// A test hook: the property tests show the conversion's cost is its output's size, so a
/// graph of shared objects costs at most `MAX_VALUES + 1` visits, never its exponential
/// number of paths.
#[pyfunction]
#[pyo3(signature = (obj, /))]
pub fn _conversion_visits(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    let mut converter = Converter { none_is: NoneIs::Absent, values: 0, path: Vec::new() };
    match converter.convert(obj, 0) {
        Ok(_) | Err(Stop::Excess(_)) => Ok(converter.values),
        Err(Stop::Python(error)) => Err(error),
    }
}

/// Why a conversion stopped.
enum Stop {
    /// The object is over a limit (see [`to_value`]).
    Excess(Excess),
    /// Python raised (a `__len__`, a mapping's `__getitem__`, ...): propagated unchanged.
    Python(PyErr),
}

impl From<PyErr> for Stop {
    fn from(error: PyErr) -> Self {
        Stop::Python(error)
    }
}

struct Converter {
    none_is: NoneIs,
    /// Values converted so far (every value counts one, as the JSON reader counts them).
    values: usize,
    /// The containers on the path from the root, to tell a cycle from a deep value.
    path: Vec<usize>,
}

impl Converter {
    fn convert(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, Stop> {
        self.values += 1;
        if self.values > limits::MAX_VALUES {
            return Err(Stop::Excess(Excess::Values));
        }
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Ok(Value::Number(f.value()));
        }
        if obj.is_instance_of::<PyInt>() {
            return Ok(Value::Number(int_to_f64(obj)));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            // Every string: the few arguments that are whole documents or streams of lines
            // (snapshot, model and replay text) are read as documents before this.
            let text = string_of(s);
            if text.len() > limits::MAX_STRING_BYTES {
                return Err(Stop::Excess(Excess::String));
            }
            return Ok(Value::String(text));
        }
        let builtin = obj.cast::<PyDict>().is_ok() || obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok();
        if !builtin {
            if let Some(value) = crate::known_object_value(obj) {
                return Ok(value);
            }
            if is_real_number(obj)? {
                let f: f64 = obj.extract().unwrap_or(f64::NAN);
                return Ok(Value::Number(f));
            }
            if obj.cast::<PyMapping>().is_err() {
                return Ok(Value::Other(type_name(obj)));
            }
        }
        let id = obj.as_ptr() as usize;
        if depth >= limits::MAX_VALUE_DEPTH {
            return Err(Stop::Excess(if self.path.contains(&id) { Excess::Cycle } else { Excess::Depth }));
        }
        self.path.push(id);
        let value = self.container(obj, depth);
        self.path.pop();
        value
    }

    fn container(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, Stop> {
        if let Ok(dict) = obj.cast::<PyDict>() {
            if dict.len() > limits::MAX_OBJECT_KEYS {
                return Err(Stop::Excess(Excess::Keys));
            }
            let mut entries = Vec::with_capacity(dict.len());
            let mut all_text_keys = true;
            for (key, item) in dict.iter() {
                if self.none_is == NoneIs::Absent && item.is_none() {
                    continue;
                }
                let (text, exact) = self.key(&key)?;
                all_text_keys &= exact;
                entries.push((text, self.convert(&item, depth + 1)?));
            }
            // A dict's `str` keys are distinct; other keys may read the same once text.
            if !all_text_keys {
                check_distinct(&entries)?;
            }
            return Ok(Value::Object(entries));
        }
        if let Ok(list) = obj.cast::<PyList>() {
            let mut items = Vec::with_capacity(list.len());
            for item in list.iter() {
                items.push(self.convert(&item, depth + 1)?);
            }
            return Ok(Value::Array(items));
        }
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            let mut items = Vec::with_capacity(tuple.len());
            for item in tuple.iter() {
                items.push(self.convert(&item, depth + 1)?);
            }
            return Ok(Value::Array(items));
        }
        // Any other mapping (`convert` checked it is one).
        let mapping = obj.cast::<PyMapping>().map_err(PyErr::from)?;
        let keys = mapping.keys()?;
        if keys.len() > limits::MAX_OBJECT_KEYS {
            return Err(Stop::Excess(Excess::Keys));
        }
        let mut entries = Vec::with_capacity(keys.len());
        for key in keys.iter() {
            let item = mapping.get_item(&key)?;
            if self.none_is == NoneIs::Absent && item.is_none() {
                continue;
            }
            entries.push((self.key(&key)?.0, self.convert(&item, depth + 1)?));
        }
        check_distinct(&entries)?;
        Ok(Value::Object(entries))
    }

    /// A key's text, and whether it is exactly the key (a plain `str` without lone
    /// surrogates: such keys of one dict cannot read the same).
    fn key(&mut self, key: &Bound<'_, PyAny>) -> Result<(String, bool), Stop> {
        let (text, exact) = match key.cast::<PyString>() {
            Ok(s) => match s.to_cow() {
                Ok(text) => (text.into_owned(), key.is_exact_instance_of::<PyString>()),
                Err(_) => (string_of(s), false),
            },
            Err(_) => (string_of(&key.str()?), false),
        };
        if text.len() > limits::MAX_STRING_BYTES {
            return Err(Stop::Excess(Excess::String));
        }
        Ok((text, exact))
    }
}

/// Two keys that read the same (`1` and `"1"`, or a `str` subclass with its own equality)
/// would be one key in JSON, and a snapshot holding both would not read back as written.
fn check_distinct(entries: &[(String, Value)]) -> Result<(), Stop> {
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    for (key, _) in entries {
        if !seen.insert(key.as_str()) {
            return Err(Stop::Excess(Excess::CollidingKeys(key.clone())));
        }
    }
    Ok(())
}

/// The JSON-number view of a Python int: exact up to 2^53 like any f64; a huge int becomes
/// an infinity of its sign (rejected by every range check) instead of raising OverflowError.
fn int_to_f64(obj: &Bound<'_, PyAny>) -> f64 {
    if let Ok(i) = obj.extract::<i64>() {
        return i as f64;
    }
    match obj.extract::<f64>() {
        Ok(f) => f,
        Err(_) => {
            let negative = obj.lt(0).unwrap_or(false);
            if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
    }
}

fn is_real_number(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    static REAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let real = REAL.import(obj.py(), "numbers", "Real")?;
    obj.is_instance(real)
}

fn key_of(key: &Bound<'_, PyAny>) -> PyResult<String> {
    match key.cast::<PyString>() {
        Ok(s) => Ok(string_of(s)),
        Err(_) => Ok(string_of(&key.str()?)),
    }
}

/// A Python string as Rust text (a lone surrogate becomes U+FFFD rather than an error).
pub fn string_of(s: &Bound<'_, PyString>) -> String {
    match s.to_cow() {
        Ok(Cow::Borrowed(b)) => b.to_string(),
        Ok(Cow::Owned(o)) => o,
        Err(_) => s.to_string_lossy().into_owned(),
    }
}

/// `type(obj).__name__`.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| string_of(&n)).unwrap_or_else(|_| "object".to_string())
}

/// Converts a core value to plain Python data: `null` -> `None`, objects -> `dict` (key
/// order kept), arrays -> `list`, whole numbers within 2^53 -> `int` (so `json.dumps`
/// prints them as JavaScript does), other numbers -> `float` (`-0.0` stays a float).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null | Value::Other(_) => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number(py, *n),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(entries) => {
            let dict = PyDict::new(py);
            for (key, item) in entries {
                if matches!(item, Value::Other(_)) {
                    continue; // as JSON.stringify drops a function-valued key
                }
                dict.set_item(key, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A JSON number as Python sees it (see [`to_py`]).
pub fn number(py: Python<'_>, n: f64) -> Bound<'_, PyAny> {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() <= MAX_EXACT && !(n == 0.0 && n.is_sign_negative()) {
        (n as i64).into_pyobject(py).map(Bound::into_any).unwrap_or_else(|e| match e {})
    } else {
        PyFloat::new(py, n).into_any()
    }
}

/// An object of keyword arguments (a `None` value is an absent key), after the entries of
/// an optional positional mapping; a keyword replaces the mapping's entry for its field in
/// either spelling (`EarlyStopping(config.to_dict(), plateau_consecutive_count=4)`).
pub fn options_value(positional: Option<&Bound<'_, PyAny>>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Value> {
    let base = match positional {
        None => Value::Object(Vec::new()),
        Some(p) if p.is_none() => Value::Object(Vec::new()),
        Some(p) => to_value(p, NoneIs::Absent)?,
    };
    let Some(kwargs) = kwargs else { return Ok(base) };
    if kwargs.is_empty() {
        return Ok(base);
    }
    let Value::Object(mut entries) = base else {
        // Not a mapping: let the core report the positional argument's type.
        return Ok(base);
    };
    for (key, item) in kwargs.iter() {
        if item.is_none() {
            continue;
        }
        let key = key_of(&key)?;
        entries.retain(|(given, _)| !same_field(given, &key));
        entries.push((key, to_value(&item, NoneIs::Absent)?));
    }
    Ok(Value::Object(entries))
}

/// The entries of an object made of named arguments, in order: an argument not passed or
/// passed as `None` is an absent key.
pub fn keyword_entries<'a, 'py: 'a>(
    arguments: impl IntoIterator<Item = (&'a str, Option<&'a Bound<'py, PyAny>>)>,
) -> PyResult<Vec<(String, Value)>> {
    let arguments = arguments.into_iter();
    let mut entries = Vec::with_capacity(arguments.size_hint().0);
    for (key, item) in arguments {
        if let Some(item) = item.filter(|item| !item.is_none()) {
            entries.push((key.to_string(), to_value(item, NoneIs::Absent)?));
        }
    }
    Ok(entries)
}

/// [`to_py`] of a value that may be missing (`None`).
pub fn to_py_or_none<'py>(py: Python<'py>, value: Option<&Value>) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Some(value) => to_py(py, value),
        None => Ok(py.None().into_bound(py)),
    }
}

/// An argument taken as whatever it is, for the core to validate (so a wrong type raises
/// the package's own error rather than pyo3's `TypeError`).
pub struct AnyValue(pub Value);

impl<'a, 'py> FromPyObject<'a, 'py> for AnyValue {
    type Error = PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        to_value(&obj, NoneIs::Absent).map(AnyValue)
    }
}

/// A snapshot argument: JSON text (parsed by the core) or an already parsed mapping (where
/// `None` is JSON `null`).
pub(crate) fn snapshot_value(snapshot: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = snapshot.py();
    if let Ok(text) = snapshot.cast::<PyString>() {
        return snapshot::parse(&string_of(text)).or_raise(py);
    }
    if let Ok(bytes) = snapshot.cast::<pyo3::types::PyBytes>() {
        let text = utf8_text(bytes.as_bytes(), ErrorCode::InvalidSnapshot, "snapshot");
        return text.and_then(snapshot::parse).or_raise(py);
    }
    to_value(snapshot, NoneIs::Null)
}
