//! The runs a pyramid replay reads: [`RecordedRun`]s of [`RecordedLayer`]s, from an array of
//! run objects or from JSONL text (one run per line, the one JSONL reader both replays share).

use crate::pyramid::LayerResult;
use crate::value::{self, field_name, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const CODE: ErrorCode = ErrorCode::InvalidReplay;

const DURATION_MS: FieldName = field_name!("durationMs", "duration_ms");

const FLAKY_RATIO: FieldName = field_name!("flakyRatio", "flaky_ratio");

const LAYER_FIELDS: [FieldName; 7] = [
    FieldName::same("name"),
    DURATION_MS,
    FieldName::same("failed"),
    FieldName::same("total"),
    FieldName::same("passed"),
    FLAKY_RATIO,
    FieldName::same("coverage"),
];

const RUN_FIELDS: [FieldName; 4] =
    [FieldName::same("id"), FieldName::same("timestamp"), FieldName::same("layers"), FieldName::same("label")];

/// One layer of a recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedLayer {
    /// Layer name (`#i` for an unnamed layer at index i).
    pub name: String,
    /// What running it cost.
    pub duration_ms: f64,
    /// Whether it failed.
    pub failed: bool,
    /// Tests run, if recorded.
    pub total: Option<u64>,
    /// Tests passed, if recorded (<= total).
    pub passed: Option<u64>,
    /// Flaky share, 0..=1, if recorded.
    pub flaky_ratio: Option<f64>,
    /// Coverage, 0..=1, if recorded.
    pub coverage: Option<f64>,
}

impl RecordedLayer {
    /// The `LayerResult` the ADR's controller sees for this layer.
    pub fn layer_result(&self) -> LayerResult {
        let pass_rate = match (self.passed, self.total) {
            (Some(p), Some(t)) if t > 0 => p as f64 / t as f64,
            _ => {
                if self.failed {
                    0.0
                } else {
                    1.0
                }
            }
        };
        let mut result = LayerResult::new(pass_rate, self.coverage.unwrap_or(1.0), self.flaky_ratio.unwrap_or(0.0));
        result.name = Some(self.name.clone());
        result.duration_ms = Some(self.duration_ms);
        result
    }
}

/// One recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRun {
    /// Caller's id, if any.
    pub id: Option<String>,
    /// The caller's label (a branch, a runner pool: a slice of the runs), if any.
    pub label: Option<String>,
    /// Layers in the recorded (given) order; at least one.
    pub layers: Vec<RecordedLayer>,
}

impl RecordedRun {
    /// Whether any layer failed (the run's ground truth).
    pub fn failed(&self) -> bool {
        self.layers.iter().any(|l| l.failed)
    }

    /// The run as calibration keeps it: each layer's name, duration and outcome and the run's
    /// label, without the id, test counts, flaky ratio and coverage, which only the ADR's
    /// presets read (calibration replays the model-based policy only, so its answer is unchanged).
    pub fn for_calibration(self) -> RecordedRun {
        let layers = self
            .layers
            .into_iter()
            .map(|l| RecordedLayer { total: None, passed: None, flaky_ratio: None, coverage: None, ..l })
            .collect();
        RecordedRun { id: None, label: self.label, layers }
    }

    /// Parses one run; errors name the path under `path` (e.g. `runs[3].layers[1].durationMs`).
    pub fn from_value(run: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(run, path, "run", naming, CODE)?;
        reader.reject_unknown(&RUN_FIELDS).map_err(|e| e.nested(CODE, ""))?;
        let id = match reader.get(FieldName::same("id")) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.is_finite() => Some(crate::num::to_js_string(*n)),
            Some(_) => Some(reader.string(FieldName::same("id"))?.to_string()),
        };
        let label = match reader.get(FieldName::same("label")) {
            None | Some(Value::Null) => None,
            Some(v) => Some(crate::pyramid::policy::read_label(v, &reader.path_of(FieldName::same("label")), CODE)?),
        };
        if reader.get(FieldName::same("timestamp")).is_some() {
            reader.number(FieldName::same("timestamp"), f64::MIN, f64::MAX)?;
        }
        let layers_path = reader.path_of(FieldName::same("layers"));
        let items =
            value::nonempty_array(reader.get(FieldName::same("layers")), &layers_path, CODE, "an array", "layer")?;
        crate::limits::check_layer_count(items.len(), CODE, &layers_path)?;
        let mut layers: Vec<RecordedLayer> = Vec::with_capacity(items.len());
        for (j, item) in items.iter().enumerate() {
            let lpath = value::index_path(&layers_path, j);
            let layer = parse_layer(item, naming, &lpath, j)?;
            if layers.iter().any(|l| l.name == layer.name) {
                let field = value::concat(&[&lpath, ".name"]);
                return Err(Error::new(
                    CODE,
                    ErrorKind::Range,
                    field.clone(),
                    value::concat(&[&field, " repeats layer '", &layer.name, "' of the same run"]),
                ));
            }
            layers.push(layer);
        }
        // The run's cost and every saving are sums of its durations: the rule of every
        // running total (a duration that would make it overflow is refused).
        let mut total = 0.0;
        for (j, layer) in layers.iter().enumerate() {
            if !(total + layer.duration_ms).is_finite() {
                let field = value::concat(&[&value::index_path(&layers_path, j), ".", DURATION_MS.spelled(naming)]);
                value::add_to_total(total, layer.duration_ms, &field, CODE)?;
            }
            total += layer.duration_ms;
        }
        Ok(RecordedRun { id, label, layers })
    }
}

fn parse_layer(item: &Value, naming: Naming, path: &str, index: usize) -> Result<RecordedLayer> {
    let r = ObjectReader::new(item, path, "layer", naming, CODE)?;
    r.reject_unknown(&LAYER_FIELDS).map_err(|e| e.nested(CODE, ""))?;
    let name = match r.opt_string(FieldName::same("name"))? {
        Some(n) => n.to_string(),
        None => value::concat(&["#", &crate::num::uint_string(index as u64)]),
    };
    let duration_ms = r.number(DURATION_MS, 0.0, f64::MAX)?;
    let failed = r.boolean(FieldName::same("failed"))?;
    let total = r.opt_integer(FieldName::same("total"), 0, value::MAX_SAFE_INTEGER)?;
    let passed = r.opt_integer(FieldName::same("passed"), 0, total.unwrap_or(value::MAX_SAFE_INTEGER))?;
    if passed.is_some() != total.is_some() {
        let missing = if total.is_none() { "total" } else { "passed" };
        let field = value::join_path(path, missing);
        return Err(Error::new(
            CODE,
            ErrorKind::Type,
            field.clone(),
            value::concat(&[
                field.as_str(),
                " is required when ",
                if total.is_none() { "passed" } else { "total" },
                " is given",
            ]),
        ));
    }
    let flaky_ratio = r.opt_number(FLAKY_RATIO, 0.0, 1.0)?;
    let coverage = r.opt_number(FieldName::same("coverage"), 0.0, 1.0)?;
    Ok(RecordedLayer { name, duration_ms, failed, total, passed, flaky_ratio, coverage })
}

/// Parses an array of runs (paths `runs[i]...`), or JSONL text.
pub fn parse_runs(runs: &Value, naming: Naming) -> Result<Vec<RecordedRun>> {
    match runs {
        Value::Array(items) => {
            // A plain loop, as in loop replay (no iterator-specialized collect).
            let mut out = Vec::with_capacity(items.len());
            for (i, run) in items.iter().enumerate() {
                out.push(RecordedRun::from_value(run, naming, &value::index_path("runs", i))?);
            }
            Ok(out)
        }
        // The JSONL file format has one spelling (the documented camelCase) in every language.
        Value::String(text) => parse_runs_jsonl(text, Naming::Js),
        other => Err(crate::value::jsonl::runs_type_error(other)),
    }
}

/// Parses JSONL text: one run per non-blank line; `runs[i]` counts runs, not lines, and an
/// error's message names its line. The one JSONL reader of loop and pyramid replay
/// ([`crate::value::jsonl`]: a byte-order mark ignored, each line within the document limits,
/// a syntax error a range error).
pub fn parse_runs_jsonl(text: &str, naming: Naming) -> Result<Vec<RecordedRun>> {
    crate::value::jsonl::read_lines(text, true, |line, path| read_run_line(line, naming, path))
}

/// Reads one JSONL line as the run at `path` (`runs[3]`), as [`parse_runs_jsonl`] reads each
/// of its lines: for hosts that stream a file through [`JsonlLines`](crate::value::jsonl::JsonlLines).
pub fn read_run_line(line: &str, naming: Naming, path: &str) -> Result<RecordedRun> {
    let value = Value::parse_json(line, CODE, path)?;
    RecordedRun::from_value(&value, naming, path)
}
