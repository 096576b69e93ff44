//! The outcome model that merges (document version 2): a bounded window of per-build
//! outcomes keyed by the caller's build id and sequence number ([`BuildHistory`]), whose
//! statistics are derived from the window ([`BuildHistory::stats`]), so that merging two is a
//! set union: commutative, associative and idempotent by construction.
//!
//! Why: many CI runners learn at once, and version 1 (a dict of decayed counts, the
//! [`OutcomeModel`]) cannot merge exactly: float sums are not associative, and a build two
//! runners both saw would count twice. Here a build is a record under its key; the same key
//! twice is one build (a different record under a key already there is refused); the window
//! keeps the `window` builds of highest key, `(seq, id)`; and the statistics are the version-1
//! fold of the kept builds in key order, after the counts of a version-1 model it was converted
//! from (its `base`). Everything derived is a function of the set, so any order of learning and
//! merging gives the same document and the same statistics.

use crate::pyramid::policy::config::PolicyConfig;
use crate::pyramid::policy::model::{check_layer_list, ObservedLayer, OutcomeModel, MODEL_VERSION};
use crate::value::snapshot;
use crate::value::{self, field_name, FieldName, Naming, ObjectBuilder, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// Version of the mergeable model document.
pub const HISTORY_VERSION: u64 = 2;

/// The builds a new model keeps by default: twice the effective memory of the default
/// forgetting (0.998, ~500 observations), so the builds it drops weigh little.
pub const DEFAULT_WINDOW: usize = 1000;

/// The most builds a model may keep.
pub const MAX_WINDOW: usize = 100_000;

const CODE: ErrorCode = ErrorCode::InvalidSnapshot;
const ENGINE: &str = "PyramidOutcomeModel";
const VERSION: FieldName = FieldName::same("version");
const ENGINE_KEY: FieldName = FieldName::same("engine");
const WINDOW: FieldName = FieldName::same("window");
const BASE: FieldName = FieldName::same("base");
const NOTE: FieldName = FieldName::same("note");
const BUILDS: FieldName = FieldName::same("builds");
const ID: FieldName = FieldName::same("id");
const SEQ: FieldName = FieldName::same("seq");
const LAYERS: FieldName = FieldName::same("layers");
const NAME: FieldName = FieldName::same("name");
const FAILED: FieldName = FieldName::same("failed");
const DURATION_MS: FieldName = field_name!("durationMs", "duration_ms");

/// What a model converted from version 1 says about its base.
pub const CONVERTED_NOTE: &str = "converted from a version 1 model: its counts are the base of every statistic (the \
     builds behind them are not known), so it merges only with models of the same base or of none";

/// One build's outcome: the layers that ran, in run order.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildRecord {
    /// The caller's build id (unique within the caller's scheme, e.g. `pr#build`).
    pub id: String,
    /// The caller's sequence number: orders builds by recency (a CI run number, a start time).
    pub seq: u64,
    /// The layers that ran, in run order.
    pub layers: Vec<ObservedLayer>,
}

impl BuildRecord {
    fn key(&self) -> (u64, &str) {
        (self.seq, self.id.as_str())
    }
}

/// The mergeable outcome model (document version 2).
#[derive(Clone, Debug, PartialEq)]
pub struct BuildHistory {
    /// The most builds kept (those of highest key).
    pub window: usize,
    /// The counts of the version-1 model this one was converted from (empty otherwise;
    /// [`BuildHistory::note`] says why it is there).
    pub base: OutcomeModel,
    /// The builds kept, in key order `(seq, id)`, keys distinct.
    pub builds: Vec<BuildRecord>,
}

impl Default for BuildHistory {
    fn default() -> Self {
        BuildHistory { window: DEFAULT_WINDOW, base: OutcomeModel::new(), builds: Vec::new() }
    }
}

impl BuildHistory {
    /// An empty model keeping at most `window` builds (1..=[`MAX_WINDOW`]).
    pub fn new(window: usize) -> Result<Self> {
        check_window(window, "window")?;
        Ok(BuildHistory { window, ..BuildHistory::default() })
    }

    /// A version-1 model converted: its counts become the base ([`BuildHistory::note`] says so).
    pub fn converted(model: OutcomeModel, window: usize) -> Result<Self> {
        check_window(window, "window")?;
        Ok(BuildHistory { window, base: model, builds: Vec::new() })
    }

    /// Why the model has a base ([`CONVERTED_NOTE`]), when it has one: written into the
    /// document as `note`, derived from the base (so merging cannot disagree about it).
    pub fn note(&self) -> Option<&'static str> {
        (!self.base.layers.is_empty()).then_some(CONVERTED_NOTE)
    }

    /// The statistics the policy decides from: the base, then every kept build folded in
    /// key order, as version 1 learns them (`config.forgetting`).
    pub fn stats(&self, config: &PolicyConfig) -> Result<OutcomeModel> {
        config.validate()?;
        check_distinct_layers(&self.base, &self.builds, CODE, "layers", "the model holds")?;
        let mut model = self.base.clone();
        for build in &self.builds {
            model.learn_checked(config, &build.layers)?;
        }
        Ok(model)
    }

    /// Learns one build under its key (`ran`: the layers that ran, in run order). The same
    /// key with the same record changes nothing; with another record it is refused (one key,
    /// one build). Then only the `window` builds of highest key are kept. On error nothing changes.
    pub fn learn(&mut self, id: &str, seq: u64, ran: &[ObservedLayer]) -> Result<()> {
        check_seq(seq, "build.seq")?;
        check_record(ran, "ran")?;
        let record = BuildRecord { id: id.to_string(), seq, layers: ran.to_vec() };
        let merged = union(&self.builds, std::slice::from_ref(&record), self.window, "ran")?;
        // The statistics hold one entry per layer name: learning must not take the model past
        // the layer limit (every later use would refuse it).
        check_distinct_layers(
            &self.base,
            &merged,
            ErrorCode::InvalidConfig,
            "ran",
            "learning it would give the model",
        )?;
        self.builds = merged;
        Ok(())
    }

    /// The union of two models: every build of either (the same key must hold the same
    /// record, else an `invalid_snapshot` error naming the build), the smaller window, the
    /// base they share (one without a base takes the other's; two different bases are refused:
    /// their builds are not known, so they would count twice or not at all). Commutative,
    /// associative and idempotent.
    pub fn merge(&self, other: &BuildHistory) -> Result<BuildHistory> {
        fn base_of(h: &BuildHistory) -> Option<&BuildHistory> {
            (!h.base.layers.is_empty()).then_some(h)
        }
        let base = match (base_of(self), base_of(other)) {
            (Some(a), Some(b)) if a.base != b.base => {
                return Err(Error::new(
                    CODE,
                    ErrorKind::Range,
                    "base",
                    "base: the two models were converted from different version 1 models; their counts cannot \
                     merge (the builds behind them are not known)",
                ))
            }
            (Some(h), _) | (None, Some(h)) => h.base.clone(),
            (None, None) => OutcomeModel::new(),
        };
        let window = self.window.min(other.window);
        let builds = union(&self.builds, &other.builds, window, "builds")?;
        check_distinct_layers(&base, &builds, CODE, "other", "merging it would give the model")?;
        Ok(BuildHistory { window, base, builds })
    }

    /// The document `{version: 2, engine, window, base?, note?, builds: [{id, seq, layers:
    /// [{name, failed, durationMs?}]}]}` (JS spelling, as every model document).
    pub fn to_value(&self) -> Value {
        let mut o = ObjectBuilder::new();
        o.number(VERSION.js(), HISTORY_VERSION as f64)
            .string(ENGINE_KEY.js(), ENGINE)
            .number(WINDOW.js(), self.window as f64);
        if !self.base.layers.is_empty() {
            o.value(BASE.js(), self.base.to_value(Naming::Js));
        }
        if let Some(note) = self.note() {
            o.string(NOTE.js(), note);
        }
        let builds = value::array_of(&self.builds, |b| {
            ObjectBuilder::new()
                .string(ID.js(), &b.id)
                .number(SEQ.js(), b.seq as f64)
                .value(LAYERS.js(), value::array_of(&b.layers, |l| l.to_value(Naming::Js)))
                .build()
        });
        o.value(BUILDS.js(), builds).build()
    }

    /// Reads a version-2 document (code `invalid_snapshot`, fields named by their path): the
    /// window within 1..=100,000, builds in key order with distinct keys and no more than the
    /// window, each build's layer names distinct and durations >= 0.
    pub fn from_value(doc: &Value) -> Result<Self> {
        let r = ObjectReader::new(doc, "", "model", Naming::Js, CODE)?;
        r.reject_unknown(&[VERSION, ENGINE_KEY, WINDOW, BASE, NOTE, BUILDS])?;
        let version = r.integer(VERSION, 0, value::MAX_SAFE_INTEGER)?;
        if version != HISTORY_VERSION {
            return Err(unknown_version(version));
        }
        let engine = r.string(ENGINE_KEY)?;
        if engine != ENGINE {
            let message = value::concat(&["model is of engine '", engine, "', expected '", ENGINE, "'"]);
            return Err(Error::new(CODE, ErrorKind::Range, "engine", message));
        }
        let window = usize::try_from(r.integer(WINDOW, 0, value::MAX_SAFE_INTEGER)?).unwrap_or(usize::MAX);
        check_window(window, "window").map_err(|e| e.nested(CODE, ""))?;
        let base = match r.get(BASE) {
            None => OutcomeModel::new(),
            Some(doc) => OutcomeModel::from_value(doc, Naming::Js).map_err(|e| e.nested(CODE, "base"))?,
        };
        // The note is derived from the base (written for readers of the document); any text reads.
        r.opt_string(NOTE)?;
        let builds = snapshot::items(&r, BUILDS, read_build)?;
        for (i, pair) in builds.windows(2).enumerate() {
            if let [a, b] = pair {
                if a.key() >= b.key() {
                    let field = value::index_path("builds", i + 1);
                    let message = value::concat(&[
                        &field,
                        " must come after ",
                        &value::index_path("builds", i),
                        " (builds are in order of seq, then id, each key once)",
                    ]);
                    return Err(Error::new(CODE, ErrorKind::Range, field, message));
                }
            }
        }
        if builds.len() > window {
            let message = value::concat(&[
                "builds holds ",
                &crate::num::uint_string(builds.len() as u64),
                " builds, more than its window of ",
                &crate::num::uint_string(window as u64),
            ]);
            return Err(Error::new(CODE, ErrorKind::Range, "builds", message));
        }
        check_distinct_layers(&base, &builds, CODE, "builds", "the model holds")?;
        Ok(BuildHistory { window, base, builds })
    }
}

/// The builds of `a` and `b` (each in key order), in key order, the `window` of highest key.
fn union(a: &[BuildRecord], b: &[BuildRecord], window: usize, what: &str) -> Result<Vec<BuildRecord>> {
    let mut out: Vec<BuildRecord> = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    loop {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.key() == y.key() => {
                if x != y {
                    return Err(conflict(what, x));
                }
                i += 1;
                j += 1;
                x
            }
            (Some(x), Some(y)) if x.key() < y.key() => {
                i += 1;
                x
            }
            (_, Some(y)) => {
                j += 1;
                y
            }
            (Some(x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        out.push(next.clone());
    }
    let drop = out.len().saturating_sub(window);
    out.drain(..drop);
    Ok(out)
}

/// Refuses a model whose statistics (the base's layers and every kept build's, one entry per
/// distinct name) would hold more than the layer limit: `field` names the argument, `what`
/// says how (`learning it would give the model`).
fn check_distinct_layers(
    base: &OutcomeModel,
    builds: &[BuildRecord],
    code: ErrorCode,
    field: &str,
    what: &str,
) -> Result<()> {
    // A sorted, deduplicated list (no set type: each would add its generic code to the
    // WebAssembly module).
    let mut names: Vec<&str> = base.layers.iter().map(|l| l.name.as_str()).collect();
    for build in builds {
        names.extend(build.layers.iter().map(|l| l.name.as_str()));
    }
    names.sort_unstable();
    names.dedup();
    if names.len() > crate::limits::MAX_LAYERS {
        let most = crate::num::uint_string(crate::limits::MAX_LAYERS as u64);
        let message = value::concat(&[
            field,
            ": ",
            what,
            " more than ",
            &most,
            " distinct layers (the limit; the statistics hold one entry per layer)",
        ]);
        return Err(Error::new(code, ErrorKind::Range, field, message));
    }
    Ok(())
}

fn conflict(what: &str, build: &BuildRecord) -> Error {
    let message = value::concat(&[
        what,
        ": build '",
        &build.id,
        "' (seq ",
        &crate::num::uint_string(build.seq),
        ") is recorded with other outcomes in the other model: one key is one build (give a re-run its own seq)",
    ]);
    Error::new(CODE, ErrorKind::Range, what, message)
}

fn unknown_version(version: u64) -> Error {
    Error::new(
        CODE,
        ErrorKind::Range,
        "version",
        value::concat(&[
            "model version ",
            &crate::num::uint_string(version),
            " is not supported (this build reads versions 1 and 2)",
        ]),
    )
}

fn check_window(window: usize, field: &str) -> Result<()> {
    if (1..=MAX_WINDOW).contains(&window) {
        return Ok(());
    }
    let message =
        value::concat(&[field, " must be an integer from 1 to 100000, got ", &crate::num::uint_string(window as u64)]);
    Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message))
}

fn check_seq(seq: u64, field: &str) -> Result<()> {
    if seq <= value::MAX_SAFE_INTEGER {
        return Ok(());
    }
    let message = value::concat(&[field, " must be an integer from 0 to 2^53 - 1"]);
    Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, field, message))
}

/// A build's layers: names distinct, durations finite and >= 0, at most the layer limit.
fn check_record(layers: &[ObservedLayer], path: &str) -> Result<()> {
    crate::limits::check_layer_count(layers.len(), ErrorCode::InvalidConfig, path)?;
    let list: Vec<(&str, Option<f64>)> = layers.iter().map(|l| (l.name.as_str(), l.duration_ms)).collect();
    check_layer_list(path, ".durationMs", &list)
}

fn read_build(item: &Value, path: &str) -> Result<BuildRecord> {
    let r = ObjectReader::new(item, path, "build", Naming::Js, CODE)?;
    r.reject_unknown(&[ID, SEQ, LAYERS])?;
    let id = r.string(ID)?.to_string();
    let seq = r.integer(SEQ, 0, value::MAX_SAFE_INTEGER)?;
    let layers = snapshot::items(&r, LAYERS, |layer, at| {
        let l = ObjectReader::new(layer, at, "layer", Naming::Js, CODE)?;
        l.reject_unknown(&[NAME, FAILED, DURATION_MS])?;
        Ok(ObservedLayer {
            name: l.string(NAME)?.to_string(),
            failed: l.boolean(FAILED)?,
            duration_ms: l.opt_number(DURATION_MS, 0.0, f64::MAX)?,
        })
    })?;
    let layers_path = value::join_path(path, "layers");
    check_record(&layers, &layers_path).map_err(|e| e.nested(CODE, ""))?;
    Ok(BuildRecord { id, seq, layers })
}

/// A model argument wherever `model` is accepted: `null` (the empty model), JSON text, a
/// version-1 document (the statistics themselves) or a version-2 one (its statistics derived
/// with `config`); errors nested under `model`.
pub fn model_argument(model: &Value, config: &PolicyConfig) -> Result<OutcomeModel> {
    match read_model(model)? {
        Model::Stats(stats) => Ok(stats),
        Model::History(history) => history.stats(config).map_err(|e| {
            let code = e.error_code();
            e.nested(code, "model")
        }),
    }
}

/// A model document of either version, as read.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// Version 1: decayed counts (a single writer's model; not mergeable).
    Stats(OutcomeModel),
    /// Version 2: the window of builds (mergeable).
    History(BuildHistory),
}

/// Reads `null` (the empty version-1 model), JSON text or a document of either version;
/// an unknown version is refused with the versions this build reads (errors under `model`).
pub fn read_model(model: &Value) -> Result<Model> {
    match model {
        Value::Null => Ok(Model::Stats(OutcomeModel::new())),
        Value::String(text) => read_model(&Value::parse_json(text, CODE, "model")?),
        doc => {
            // A value that is not a document is named `model` (nesting would say `model.model`).
            let r = ObjectReader::new(doc, "", "model", Naming::Js, CODE)?;
            match r.get(VERSION) {
                Some(Value::Number(v)) if *v == HISTORY_VERSION as f64 => {
                    BuildHistory::from_value(doc).map(Model::History).map_err(|e| e.nested(CODE, "model"))
                }
                Some(Value::Number(v)) if *v != MODEL_VERSION as f64 && v.fract() == 0.0 && *v >= 0.0 => {
                    Err(unknown_version(*v as u64).nested(CODE, "model"))
                }
                _ => OutcomeModel::from_value(doc, Naming::Js).map(Model::Stats).map_err(|e| e.nested(CODE, "model")),
            }
        }
    }
}

/// A model as a version-2 document: a version-2 one as it is, a version-1 one (or `null`)
/// converted ([`BuildHistory::converted`], with `window` or the default).
pub fn history_argument(model: &Value, window: Option<usize>) -> Result<BuildHistory> {
    match read_model(model)? {
        Model::History(history) => {
            if window.is_some_and(|w| w != history.window) {
                let message = "window is set when a model is made or converted; this version 2 model has its own";
                return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "window", message));
            }
            Ok(history)
        }
        Model::Stats(stats) => BuildHistory::converted(stats, window.unwrap_or(DEFAULT_WINDOW)),
    }
}

// ---- Host values: what the bindings call (`OutcomeModel` in Python and JS) -----------------

/// `{id, seq}`: a build's key (the caller's id, a sequence number ordering builds by recency).
pub fn build_arg(build: &Value, naming: Naming) -> Result<(String, u64)> {
    let r = ObjectReader::new(build, "build", "build", naming, ErrorCode::InvalidConfig)?;
    r.reject_unknown(&[FieldName::same("id"), FieldName::same("seq")])?;
    let id = r.string(FieldName::same("id"))?.to_string();
    Ok((id, r.integer(FieldName::same("seq"), 0, value::MAX_SAFE_INTEGER)?))
}

/// `ran`: `[{name, failed, durationMs?}]`, the layers that ran, in run order.
pub fn ran_arg(ran: &Value, naming: Naming) -> Result<Vec<ObservedLayer>> {
    let Value::Array(items) = ran else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "ran",
            value::concat(&["ran must be an array, got ", &ran.describe()]),
        ));
    };
    crate::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "ran")?;
    let mut observed = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = value::index_path("ran", i);
        let r = ObjectReader::new(item, &path, "layer", naming, ErrorCode::InvalidConfig)?;
        r.reject_unknown(&[FieldName::same("name"), FieldName::same("failed"), DURATION_MS])?;
        observed.push(ObservedLayer {
            name: r.string(FieldName::same("name"))?.to_string(),
            failed: r.boolean(FieldName::same("failed"))?,
            duration_ms: r.opt_number(DURATION_MS, 0.0, f64::MAX)?,
        });
    }
    Ok(observed)
}

/// `OutcomeModel(model?, {window?})`: a version-2 model from any model argument (a
/// version-1 one converted, `null` a new empty one); `window` (an integer from 1 to 100,000)
/// only for a new or converted one.
pub fn history_value(model: &Value, options: &Value, naming: Naming) -> Result<BuildHistory> {
    let window = match options {
        Value::Null => None,
        given => {
            let r = ObjectReader::new(given, "", "options", naming, ErrorCode::InvalidConfig)?;
            r.reject_unknown(&[WINDOW])?;
            match r.get(WINDOW) {
                None | Some(Value::Null) => None,
                Some(_) => Some(usize::try_from(r.integer(WINDOW, 1, MAX_WINDOW as u64)?).unwrap_or(MAX_WINDOW)),
            }
        }
    };
    history_argument(model, window)
}

/// `a.merge(b)` on host values (either a model argument): the merged version-2 document.
pub fn merge_value(a: &Value, b: &Value) -> Result<Value> {
    let a = history_argument(a, None)?;
    let b = history_argument(b, None)?;
    Ok(a.merge(&b)?.to_value())
}

/// `model.learn(ran, {id, seq})` on host values: the version-2 document after learning the build.
pub fn learn_value(model: &Value, ran: &Value, build: &Value, naming: Naming) -> Result<Value> {
    let mut history = history_argument(model, None)?;
    let (id, seq) = build_arg(build, naming)?;
    history.learn(&id, seq, &ran_arg(ran, naming)?)?;
    Ok(history.to_value())
}

/// `model.statistics(config?)`: the version-1 document the policy decides from (`config` a
/// partial policy config over `risk_bounded`'s; only `forgetting` changes the counts).
pub fn stats_value(model: &Value, config: &Value, naming: Naming) -> Result<Value> {
    let config = PolicyConfig::RISK_BOUNDED.merged(config, naming, "config")?;
    Ok(model_argument(model, &config)?.to_value(Naming::Js))
}
