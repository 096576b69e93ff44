//! What a pyramid run is given and what it answers: the layers ([`LayerSpec`]), the host's
//! next step ([`Action`]), the build's [`Verdict`] and the result ([`TestPyramidResult`]),
//! each written and read back.

use crate::pyramid::exit::ExitReason;
use crate::pyramid::policy::PolicyReport;
use crate::pyramid::signal::LayerResult;
use crate::pyramid::speculation::Speculation;
use crate::value::snapshot;
use crate::value::{
    self, key, named_enum, spelled, FieldName, Key, Naming, ObjectBuilder, ObjectReader, Value, MAX_SAFE_INTEGER,
};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// The keys of the objects this file writes (each writer's `KEYS` lists them in order).
const NAME: Key = Key::same("name");
const COST_MS: Key = key!("costMs", "cost_ms");
const ACTION: Key = Key::same("action");
const LAYER: Key = Key::same("layer");
const LAYERS: Key = Key::same("layers");
const EXITED_EARLY: Key = key!("exitedEarly", "exited_early");
const EXIT_LAYER: Key = key!("exitLayer", "exit_layer");
const EXIT_REASON: Key = key!("exitReason", "exit_reason");
const CONFIDENCE: Key = Key::same("confidence");
const SPECULATIONS: Key = Key::same("speculations");
const SKIPPED_LAYERS: Key = key!("skippedLayers", "skipped_layers");
const LAYERS_EXECUTED: Key = key!("layersExecuted", "layers_executed");
const VERIFIED_LAYERS: Key = key!("verifiedLayers", "verified_layers");
const MISPREDICTIONS: Key = Key::same("mispredictions");
const COMPUTE_SAVED_MS: Key = key!("computeSavedMs", "compute_saved_ms");
const VERDICT: Key = Key::same("verdict");
const FAILING_LAYERS: Key = key!("failingLayers", "failing_layers");
const LAYERS_BEFORE_EXIT: Key = key!("layersBeforeExit", "layers_before_exit");
const LAYERS_VERIFIED: Key = key!("layersVerified", "layers_verified");
const LAYERS_NOT_RUN: Key = key!("layersNotRun", "layers_not_run");
const NOTE: Key = Key::same("note");
const POLICY: Key = Key::same("policy");
const SHADOW: Key = Key::same("shadow");

/// The code of every error the result readers raise themselves.
const CODE: ErrorCode = ErrorCode::InvalidSnapshot;

/// A layer as the controller knows it before running it.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSpec {
    /// Layer name.
    pub name: String,
    /// Expected cost in ms (what makes savings computable for layers that never run).
    pub cost_ms: Option<f64>,
}

/// The keys a layer object carries: `name`, `costMs` (`cost_ms`) and the host's runner, `run`.
pub const LAYER_KEYS: [FieldName; 3] = [NAME.field, COST_MS.field, FieldName::same("run")];

/// Checks one key of a layer object at `path` (`layers[2]`) that the caller found beside the
/// ones it reads. A near-miss of one of [`LAYER_KEYS`] (another binding's spelling, such as
/// `cost_ms` in JS, or a key within edit distance 2 of a spelling, letter case aside: `cost`,
/// `costMS`) is `unknown_option` naming `path.key`, with a did-you-mean: it would be ignored,
/// and the savings of a layer that never runs are then unknown. Any other key is refused
/// when `strict` (Python's mappings, the command: the layer is data) and kept otherwise (the
/// JS drop-in, whose layers are the caller's own objects, and a Python layer object's other
/// attributes). A layer's keys are read under `naming`'s spelling only, a snake_case mapping's
/// too: unlike the other inputs of the Python API, a layer mapping's `costMs` is the near miss
/// `cost_ms` of its own spelling (a layer is the caller's record of its suite, where a
/// misspelt cost silently loses the savings), not an alias.
pub fn check_layer_key(key: &str, naming: Naming, path: &str, strict: bool) -> Result<()> {
    if LAYER_KEYS.iter().any(|f| f.spelled(naming) == key) {
        return Ok(());
    }
    match value::near_miss(key, &LAYER_KEYS, naming, false) {
        Some(name) => Err(value::unknown_key(ErrorCode::UnknownOption, path, key, &LAYER_KEYS, naming, Some(name))),
        None if strict => Err(value::unknown_key(ErrorCode::UnknownOption, path, key, &LAYER_KEYS, naming, None)),
        None => Ok(()),
    }
}

impl LayerSpec {
    /// The keys of a layer's object, in the order a run's snapshot writes them
    /// (`costMs` only when known).
    pub const KEYS: [Key; 2] = [NAME, COST_MS];

    /// The keys of [`LayerSpec::KEYS`] a layer may leave out.
    pub const OPTIONAL_KEYS: [Key; 1] = [COST_MS];

    /// Parses `{name, costMs?}` (a `run` key is allowed and ignored: the host owns runners;
    /// any other key is refused, a near-miss with a did-you-mean: see [`check_layer_key`]).
    pub fn from_value(value: &Value, naming: Naming, path: &str) -> Result<Self> {
        let reader = ObjectReader::new(value, path, "layer", naming, ErrorCode::InvalidConfig)?;
        if let Value::Object(entries) = value {
            for (key, _) in entries {
                check_layer_key(key, naming, path, true)?;
            }
        }
        let name = reader.string(NAME.field)?.to_string();
        let cost_ms = reader.opt_number(COST_MS.field, 0.0, f64::MAX)?;
        Ok(LayerSpec { name, cost_ms })
    }

    /// Checks that `layers`' costs sum to a finite number: every saving a run reports is a sum
    /// of some of them, and the rule of every running total holds (a cost that would make
    /// the sum overflow is refused: `invalid_config`, naming `layers[i].costMs`).
    pub(crate) fn check_cost_total(layers: &[LayerSpec], naming: Naming) -> Result<()> {
        let mut total = 0.0;
        for (i, layer) in layers.iter().enumerate() {
            if let Some(cost) = layer.cost_ms {
                if !(total + cost).is_finite() {
                    let field =
                        crate::value::concat(&[&crate::value::index_path("layers", i), ".", spelled!(COST_MS, naming)]);
                    crate::value::add_to_total(total, cost, &field, ErrorCode::InvalidConfig)?;
                }
                total += cost;
            }
        }
        Ok(())
    }

    /// `{name, costMs?}` with `naming`'s keys.
    pub(crate) fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new().string(NAME.js, &self.name).some_number(spelled!(COST_MS, naming), self.cost_ms).build()
    }
}

/// What the host should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Run layer `i` and submit its result.
    Run(usize),
    /// Run skipped layer `i` to verify its prediction, and submit its result.
    Verify(usize),
    /// Nothing left; `result()` is ready.
    Done,
}

impl Action {
    /// The keys of an action's object, in the order [`Action::to_value`] writes them (`done`
    /// has no `layer`).
    pub const KEYS: [Key; 2] = [ACTION, LAYER];

    /// The names of the actions, as `action` spells them.
    pub const NAMES: [&'static str; 3] = ["run", "verify", "done"];

    /// `{action: 'run'|'verify', layer: i}` or `{action: 'done'}`.
    pub fn to_value(self) -> Value {
        let [run, verify, done] = Action::NAMES;
        let mut o = ObjectBuilder::new();
        match self {
            Action::Run(i) => o.string(ACTION.js, run).number(LAYER.js, i as f64),
            Action::Verify(i) => o.string(ACTION.js, verify).number(LAYER.js, i as f64),
            Action::Done => o.string(ACTION.js, done),
        }
        .build()
    }

    /// Reads `{action: 'run'|'verify', layer}` or `{action: 'done'}`.
    pub fn from_value(value: &Value) -> Result<Self> {
        let [run, _, done] = Action::NAMES;
        let r = ObjectReader::new(value, "", "action", Naming::Snake, CODE)?;
        match r.choice(ACTION.field, &Action::NAMES)? {
            kind if kind == done => {
                r.reject_unknown(&[ACTION.field])?;
                Ok(Action::Done)
            }
            kind => {
                r.reject_unknown(&Key::fields(Action::KEYS))?;
                let layer = snapshot::index(&r, LAYER.field)?;
                Ok(if kind == run { Action::Run(layer) } else { Action::Verify(layer) })
            }
        }
    }
}

/// Whether an observed layer result is failing: some of its tests did not pass
/// (`passRate < 1`). `passRate` is what the runner reports after its own retries of flaky
/// tests, so a test that passed on retry counts as passed (and shows in `flakyRatio`); a
/// failure that is still there after the retries is a failure, flaky or not. Stricter than
/// the ADR's 0.99 grading of predictions ([`classify_outcome`](crate::pyramid::classify_outcome)): every layer graded `fail`
/// or `flaky` is failing, and so is a layer graded `pass` with `0.99 <= passRate < 1`.
pub fn layer_failed(result: &LayerResult) -> bool {
    result.pass_rate < 1.0
}

named_enum! {
    /// A run's verdict: is the build red, green, or not known to be either?
    pub enum Verdict {
        /// A layer that ran or was verified is failing ([`layer_failed`]).
        Failed = "failed",
        /// Every layer ran or was verified, and none is failing (an empty pyramid too).
        Passed = "passed",
        /// No observed layer is failing, but some layers were skipped without being run.
        Unverified = "unverified",
    }
}

impl Verdict {
    /// The verdict of a run over `layer_count` layers that observed (ran or verified)
    /// `observed` distinct layers, `failing` of them failing. Only what was observed
    /// counts, so the rule is the same whichever policy chose the layers.
    pub fn of(layer_count: usize, observed: usize, failing: usize) -> Verdict {
        if failing > 0 {
            Verdict::Failed
        } else if observed >= layer_count {
            Verdict::Passed
        } else {
            Verdict::Unverified
        }
    }
}

/// A failing layer that ran or was verified: its index and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FailingLayer {
    /// The layer's index in the pyramid.
    pub layer: usize,
    /// The layer's name.
    pub name: String,
}

impl FailingLayer {
    /// The keys of a failing layer's object, in the order [`FailingLayer::to_value`] writes
    /// them (the same in every language).
    pub const KEYS: [Key; 2] = [LAYER, NAME];

    /// `{layer, name}`.
    pub fn to_value(&self) -> Value {
        ObjectBuilder::new().number(LAYER.js, self.layer as f64).string(NAME.js, &self.name).build()
    }

    /// Reads `{layer, name}` as [`FailingLayer::to_value`] writes it (`path` prefixes the
    /// field names, e.g. `failing_layers[0]`).
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        const FIELDS: [FieldName; 2] = Key::fields(FailingLayer::KEYS);
        let r = snapshot::result_object(value, path, "failing layer", Naming::Snake, &FIELDS)?;
        let [layer, layer_name] = FIELDS;
        Ok(FailingLayer { layer: snapshot::index(&r, layer)?, name: r.string(layer_name)?.to_string() })
    }
}

/// ADR-033's `TestPyramidResult` plus the honest-accounting fields.
#[derive(Clone, Debug, PartialEq)]
pub struct TestPyramidResult {
    /// The results of the layers run before the exit (copies, `previousLambda` stamped).
    pub layers: Vec<LayerResult>,
    /// Whether the run exited early.
    pub exited_early: bool,
    /// The exit layer (`layers.length - 1` when no exit, so -1 for an empty pyramid).
    pub exit_layer: i64,
    /// The exit decision's reason (`forced_continue` when no exit).
    pub exit_reason: ExitReason,
    /// The exit decision's confidence (1.0 when no exit).
    pub confidence: f64,
    /// One prediction per skipped layer when speculation ran.
    pub speculations: Vec<Speculation>,
    /// Layers after the exit, including those verification then ran.
    pub skipped_layers: usize,
    /// Indices actually run, in run order, verification included.
    pub layers_executed: Vec<usize>,
    /// How many predictions verification checked.
    pub verified_layers: usize,
    /// How many verified predictions were wrong.
    pub mispredictions: usize,
    /// Summed `costMs` of layers never run; `None` when one of them has no cost.
    pub compute_saved_ms: Option<f64>,
    /// Whether the build is red, green or not known to be either (see [`Verdict`]).
    pub verdict: Verdict,
    /// The failing layers that ran or were verified, in the order they ran.
    pub failing_layers: Vec<FailingLayer>,
    /// Indices run before the exit decision (every layer run when there was no exit), in
    /// run order: the first part of `layers_executed`.
    pub layers_before_exit: Vec<usize>,
    /// Indices of skipped layers that verification ran, in order: the rest of
    /// `layers_executed`.
    pub layers_verified: Vec<usize>,
    /// Indices of the layers never run, ascending (what `compute_saved_ms` sums).
    pub layers_not_run: Vec<usize>,
    /// Why an early exit saved nothing ([`NOTE_NOTHING_SAVED`]), absent otherwise.
    pub note: Option<&'static str>,
    /// Why a `fail_fast` / `risk_bounded` run did what it did (`None` for the ADR's runs,
    /// whose result has no `policy` key).
    pub policy: Option<PolicyReport>,
    /// A shadow-mode run's receipts and their counts by label (`None` in enforced mode,
    /// whose result has no `shadow` key; see `shadow_value`).
    pub shadow: Option<Value>,
}

impl TestPyramidResult {
    /// The keys of the result object, in the order [`TestPyramidResult::to_value`] writes
    /// them (the ADR's `TestPyramidResult`, then the honest-accounting fields).
    pub const KEYS: [Key; 17] = [
        LAYERS,
        EXITED_EARLY,
        EXIT_LAYER,
        EXIT_REASON,
        CONFIDENCE,
        SPECULATIONS,
        SKIPPED_LAYERS,
        LAYERS_EXECUTED,
        VERIFIED_LAYERS,
        MISPREDICTIONS,
        COMPUTE_SAVED_MS,
        VERDICT,
        FAILING_LAYERS,
        LAYERS_BEFORE_EXIT,
        LAYERS_VERIFIED,
        LAYERS_NOT_RUN,
        NOTE,
    ];

    /// The keys of [`TestPyramidResult::KEYS`] a result may leave out.
    pub const OPTIONAL_KEYS: [Key; 1] = [NOTE];

    /// The key a policy run's result adds after [`TestPyramidResult::KEYS`].
    pub const POLICY_KEY: Key = POLICY;

    /// The key a shadow-mode run's result adds after its `policy` report.
    pub const SHADOW_KEY: Key = SHADOW;

    /// The result object; `naming` spells the keys of the layer results (the ADR's
    /// top-level keys are camelCase in every language's JSON). A policy run's result ends
    /// with its `policy` report.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut value = ResultView {
            layers: &self.layers,
            exited_early: self.exited_early,
            exit_layer: self.exit_layer,
            exit_reason: self.exit_reason,
            confidence: self.confidence,
            speculations: &self.speculations,
            skipped_layers: self.skipped_layers,
            layers_executed: &self.layers_executed,
            verified_layers: self.verified_layers,
            mispredictions: self.mispredictions,
            compute_saved_ms: self.compute_saved_ms,
            verdict: self.verdict,
            failing_layers: self.failing_layers.clone(),
            layers_before_exit: &self.layers_before_exit,
            layers_verified: &self.layers_verified,
            layers_not_run: self.layers_not_run.clone(),
            note: self.note,
        }
        .to_value(naming);
        if let (Some(report), Value::Object(entries)) = (&self.policy, &mut value) {
            entries.push((POLICY.js.into(), report.to_value(naming)));
        }
        if let (Some(shadow), Value::Object(entries)) = (&self.shadow, &mut value) {
            entries.push((SHADOW.js.into(), shadow.clone()));
        }
        value
    }

    /// Reads a result as [`TestPyramidResult::to_value`] writes it with `naming`: layer
    /// results read as a runner's results do (keeping every key in its order), speculations
    /// as `verify` reads them, `compute_saved_ms` `null` when unknown.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        const FIELDS: [FieldName; 17] = Key::fields(TestPyramidResult::KEYS);
        // A policy run's result ends with its `policy` report.
        let mut known = FIELDS.to_vec();
        known.push(POLICY.field);
        known.push(SHADOW.field);
        let r = snapshot::result_object(value, "", "result", naming, &known)?;
        let policy = match r.get(POLICY.field) {
            None => None,
            Some(report) => Some(PolicyReport::from_value(report, naming, "policy")?),
        };
        let shadow = match r.get(SHADOW.field) {
            None => None,
            Some(v @ Value::Object(_)) => Some(v.clone()),
            Some(other) => {
                let message = value::concat(&["shadow must be an object, got ", &other.describe()]);
                return Err(Error::new(CODE, ErrorKind::Type, "shadow", message));
            }
        };
        let [layers, exited_early, exit_layer, exit_reason, confidence, speculations, skipped, executed, verified, mispredictions, saved, verdict, failing, before_exit, layers_verified, not_run, note] =
            FIELDS;
        let layers = snapshot::items(&r, layers, |item, path| LayerResult::read(item, naming, path, CODE))?;
        let speculations = snapshot::items(&r, speculations, |item, path| Speculation::from_value(item, naming, path))?;
        let index = |item: &Value, path: &str| {
            let n = value::integer_argument(item, path, CODE, 0, MAX_SAFE_INTEGER)?;
            usize::try_from(n).map_err(|_| Error::new(CODE, ErrorKind::Range, path, "layer index too large"))
        };
        let layers_executed = snapshot::items(&r, executed, index)?;
        let layers_before_exit = snapshot::items(&r, before_exit, index)?;
        let layers_verified = snapshot::items(&r, layers_verified, index)?;
        let layers_not_run = snapshot::items(&r, not_run, index)?;
        if layers_before_exit.len() + layers_verified.len() != layers_executed.len()
            || layers_before_exit.iter().chain(&layers_verified).ne(layers_executed.iter())
        {
            let why = "must be layersExecuted's first part (its rest is layersVerified)";
            return Err(snapshot::inconsistent(&r, before_exit, why));
        }
        let note = match r.get(note) {
            None => None,
            Some(Value::String(s)) if s == NOTE_NOTHING_SAVED => Some(NOTE_NOTHING_SAVED),
            Some(_) => {
                let message = value::concat(&["note must be the note a run writes: '", NOTE_NOTHING_SAVED, "'"]);
                return Err(Error::new(CODE, ErrorKind::Range, note.spelled(naming), message));
            }
        };
        let verdict = snapshot::pick(&r, verdict, &Verdict::NAMES, Verdict::parse)?;
        let failing_layers = snapshot::items(&r, failing, FailingLayer::from_value)?;
        if (verdict == Verdict::Failed) == failing_layers.is_empty() {
            let why = "must list a layer exactly when the verdict is 'failed'";
            return Err(snapshot::inconsistent(&r, failing, why));
        }
        Ok(TestPyramidResult {
            layers,
            exited_early: r.boolean(exited_early)?,
            exit_layer: snapshot::layer_number(&r, exit_layer)?,
            exit_reason: snapshot::pick(&r, exit_reason, &ExitReason::NAMES, ExitReason::parse)?,
            confidence: r.number(confidence, 0.0, 1.0)?,
            speculations,
            skipped_layers: snapshot::index(&r, skipped)?,
            layers_executed,
            verified_layers: snapshot::index(&r, verified)?,
            mispredictions: snapshot::index(&r, mispredictions)?,
            compute_saved_ms: snapshot::nullable_number(&r, saved, 0.0, f64::MAX)?,
            verdict,
            failing_layers,
            layers_before_exit,
            layers_verified,
            layers_not_run,
            note,
            policy,
            shadow,
        })
    }
}

/// A result's `note` when the run exited early but verification then ran every skipped
/// layer: the exit saved nothing on these layers (`computeSavedMs` is 0 beside
/// `exitedEarly: true`). Absent otherwise.
pub const NOTE_NOTHING_SAVED: &str = "nothing saved: the run exited early, but verification then ran every \
     skipped layer, so every layer ran; an exit saves compute only when more layers follow it than \
     verificationLayers";

fn indices(list: &[usize]) -> Value {
    value::array_of(list, |&i| Value::Number(i as f64))
}

/// A [`TestPyramidResult`] borrowing the run's lists: [`PyramidRun::result`] copies it out,
/// [`PyramidRun::result_value`] writes it as a value without copying the layer results
/// first (which kept a deep clone of every result in the WebAssembly module).
pub(super) struct ResultView<'a> {
    pub(super) layers: &'a [LayerResult],
    pub(super) exited_early: bool,
    pub(super) exit_layer: i64,
    pub(super) exit_reason: ExitReason,
    pub(super) confidence: f64,
    pub(super) speculations: &'a [Speculation],
    pub(super) skipped_layers: usize,
    pub(super) layers_executed: &'a [usize],
    pub(super) verified_layers: usize,
    pub(super) mispredictions: usize,
    pub(super) compute_saved_ms: Option<f64>,
    pub(super) verdict: Verdict,
    pub(super) failing_layers: Vec<FailingLayer>,
    pub(super) layers_before_exit: &'a [usize],
    pub(super) layers_verified: &'a [usize],
    pub(super) layers_not_run: Vec<usize>,
    pub(super) note: Option<&'static str>,
}

impl ResultView<'_> {
    pub(super) fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .value(LAYERS.js, value::array_of(self.layers, |l| l.to_value(naming)))
            .boolean(spelled!(EXITED_EARLY, naming), self.exited_early)
            .number(spelled!(EXIT_LAYER, naming), self.exit_layer as f64)
            .string(spelled!(EXIT_REASON, naming), self.exit_reason.as_str())
            .number(CONFIDENCE.js, self.confidence)
            .value(SPECULATIONS.js, value::array_of(self.speculations, Speculation::to_value))
            .number(spelled!(SKIPPED_LAYERS, naming), self.skipped_layers as f64)
            .value(
                spelled!(LAYERS_EXECUTED, naming),
                value::array_of(self.layers_executed, |&i| Value::Number(i as f64)),
            )
            .number(spelled!(VERIFIED_LAYERS, naming), self.verified_layers as f64)
            .number(MISPREDICTIONS.js, self.mispredictions as f64)
            .opt_number(spelled!(COMPUTE_SAVED_MS, naming), self.compute_saved_ms)
            .string(VERDICT.js, self.verdict.as_str())
            .value(spelled!(FAILING_LAYERS, naming), value::array_of(&self.failing_layers, FailingLayer::to_value))
            .value(spelled!(LAYERS_BEFORE_EXIT, naming), indices(self.layers_before_exit))
            .value(spelled!(LAYERS_VERIFIED, naming), indices(self.layers_verified))
            .value(spelled!(LAYERS_NOT_RUN, naming), indices(&self.layers_not_run))
            .some_string(NOTE.js, self.note)
            .build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_keys_near_a_known_one_are_refused_with_a_suggestion() {
        let cases = [
            ("cost_ms", Naming::Js, true, Some("costMs")),
            ("costMS", Naming::Js, true, Some("costMs")),
            ("cost", Naming::Js, true, Some("costMs")),
            ("Name", Naming::Js, false, Some("name")),
            ("runs", Naming::Js, false, Some("run")),
            ("timeout", Naming::Js, false, None),
            ("cost", Naming::Snake, true, Some("cost_ms")),
            ("costMs", Naming::Snake, false, Some("cost_ms")),
            // A snake_case mapping's layer keys too: `costMs` is a near miss, not an alias.
            ("costMs", Naming::Snake, true, Some("cost_ms")),
            ("costMS", Naming::Snake, true, Some("cost_ms")),
        ];
        for (key, naming, _mapping, suggestion) in cases {
            let error = check_layer_key(key, naming, "layers[1]", false).err();
            let got = error.as_ref().map(|e| (e.code().to_string(), e.field().to_string()));
            match suggestion {
                Some(name) => {
                    assert_eq!(got, Some(("unknown_option".to_string(), ["layers[1].", key].concat())), "{key}");
                    let message = error.map(|e| e.message().to_string()).unwrap_or_default();
                    assert!(message.contains(&["did you mean '", name, "'"].concat()), "{message}");
                }
                None => assert_eq!(got, None, "{key}"),
            }
        }
        // The known keys pass.
        for key in ["name", "cost_ms", "run"] {
            assert!(check_layer_key(key, Naming::Snake, "layers[0]", true).is_ok(), "{key}");
        }
        // A snake_case layer mapping refuses the JS spelling `costMs` (the one exception to
        // Python's either-spelling rule), as LayerSpec reads it.
        let spec = Value::object(vec![("name", Value::string("unit")), ("costMs", Value::Number(5.0))]);
        let error = LayerSpec::from_value(&spec, Naming::Snake, "layers[0]").err();
        assert_eq!(error.as_ref().map(|e| e.code().to_string()).as_deref(), Some("unknown_option"));
        assert_eq!(error.as_ref().map(|e| e.field().to_string()).as_deref(), Some("layers[0].costMs"));
        assert!(error.map(|e| e.message().to_string()).unwrap_or_default().contains("did you mean 'cost_ms'"));
        // Strict: any other key is refused too, without a suggestion.
        let error = check_layer_key("timeout", Naming::Js, "layers[0]", true).err();
        assert_eq!(error.as_ref().map(Error::field), Some("layers[0].timeout"));
        assert!(!error.map(|e| e.message().to_string()).unwrap_or_default().contains("did you mean"));
        // LayerSpec reads a layer strictly.
        let spec = Value::object(vec![("name", Value::string("unit")), ("cost_ms", Value::Number(5.0))]);
        let error = LayerSpec::from_value(&spec, Naming::Js, "layers[0]").err();
        assert_eq!(error.map(|e| e.field().to_string()).as_deref(), Some("layers[0].cost_ms"));
    }
    use crate::pyramid::{ExitConfig, PyramidRun};

    fn keys(value: &Value) -> Vec<String> {
        match value {
            Value::Object(entries) => entries.iter().map(|(k, _)| k.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn spelled(keys: &[Key], naming: Naming) -> Vec<String> {
        keys.iter().map(|k| k.spelled(naming).to_string()).collect()
    }

    /// A result, a failing layer, an action and a layer spec write their `KEYS` in order, in
    /// both namings, and the result reads back.
    #[test]
    fn writers_write_their_keys_in_order() {
        let layers = vec![
            LayerSpec { name: "unit".into(), cost_ms: Some(10.0) },
            LayerSpec { name: "e2e".into(), cost_ms: Some(99.0) },
        ];
        let mut run = PyramidRun::start(ExitConfig::DEFAULT, 2, layers.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(keys(&run.next().to_value()), spelled(&Action::KEYS, Naming::Js));
        run.submit(0, LayerResult::new(0.5, 1.0, 0.0)).unwrap_or_else(|e| panic!("{e}"));
        run.submit(1, LayerResult::new(1.0, 1.0, 0.0)).unwrap_or_else(|e| panic!("{e}"));
        let result = run.result().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(result.failing_layers.len(), 1);
        for naming in [Naming::Js, Naming::Snake] {
            let value = result.to_value(naming);
            // Every key but the note (this run exited after no layer).
            let written: Vec<String> = spelled(&TestPyramidResult::KEYS, naming)
                .into_iter()
                .filter(|k| !TestPyramidResult::OPTIONAL_KEYS.iter().any(|o| o.spelled(naming) == k))
                .collect();
            assert_eq!(keys(&value), written);
            assert_eq!(TestPyramidResult::from_value(&value, naming).as_ref(), Ok(&result));
            assert_eq!(keys(&layers[0].to_value(naming)), spelled(&LayerSpec::KEYS, naming));
        }
        assert_eq!(keys(&result.failing_layers[0].to_value()), spelled(&FailingLayer::KEYS, Naming::Js));
        assert_eq!(keys(&Action::Done.to_value()), ["action"]);
    }
}
