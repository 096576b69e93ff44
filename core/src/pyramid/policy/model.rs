//! The history the policy decides from: an [`OutcomeModel`] of per-layer outcome counts
//! (plain JSON, versioned, validated on load), and the policy's decision over it
//! ([`OutcomeModel::decide`]).

use crate::num::stats::{beta_quantile, incomplete_beta};
use crate::pyramid::policy::config::{PolicyConfig, CODE};
use crate::value::{self, field_name, named_enum, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

/// Version of the persisted model document.
pub const MODEL_VERSION: u64 = 1;

/// What the model knows about one layer.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerStats {
    /// Layer name (the key).
    pub name: String,
    /// Forgetting-weighted count of runs in which the layer ran after every earlier layer passed.
    pub trials: f64,
    /// Forgetting-weighted count of those in which it failed (<= trials).
    pub failures: f64,
    /// Forgetting-weighted mean duration, ms (None until a duration was observed).
    pub cost_ms: Option<f64>,
    /// Forgetting-weighted count of durations behind `cost_ms`.
    pub cost_weight: f64,
}

/// Per-layer outcome history, persisted as JSON between CI runs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutcomeModel {
    /// One entry per layer name, in first-seen order.
    pub layers: Vec<LayerStats>,
}

/// One layer of a finished run, as the model learns it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservedLayer {
    /// Layer name.
    pub name: String,
    /// Whether it failed.
    pub failed: bool,
    /// What it cost, if known.
    pub duration_ms: Option<f64>,
}

impl ObservedLayer {
    /// `{name, failed, durationMs?}`: a layer as `pyramid_policy_update` learns it (keys
    /// spelled by `naming`).
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut o = crate::value::ObjectBuilder::new();
        o.string("name", &self.name).boolean("failed", self.failed);
        o.some_number(field_name!("durationMs", "duration_ms").spelled(naming), self.duration_ms).build()
    }
}

/// A layer the policy may run, known before running it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedLayer {
    /// Layer name.
    pub name: String,
    /// Expected cost; the model's learned mean wins when it has one.
    pub cost_ms: Option<f64>,
}

named_enum! {
    /// Why the policy stopped.
    pub enum StopReason {
        /// A layer failed: the verdict is known.
        LayerFailed = "layer_failed",
        /// The bound on missing a failure in the remaining layers is within the budget.
        RiskBounded = "risk_bounded",
        /// Every layer ran and passed.
        Completed = "completed",
    }
}

/// The policy's answer for one step.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyDecision {
    /// Run layer `layer` (an index into the planned layers) next. `risk` is the bound that
    /// was too high to skip (None when skipping was not considered).
    Run {
        /// Layer index.
        layer: usize,
        /// The bound on P(some remaining layer fails), if computed.
        risk: Option<f64>,
    },
    /// Stop.
    Stop {
        /// Why.
        reason: StopReason,
        /// The bound that allowed a `risk_bounded` stop.
        risk: Option<f64>,
    },
}

impl PolicyDecision {
    /// `{action: "run", layer, risk}` or `{action: "stop", reason, risk}`.
    pub fn to_value(&self) -> Value {
        match self {
            PolicyDecision::Run { layer, risk } => Value::object(vec![
                ("action", Value::string("run")),
                ("layer", Value::Number(*layer as f64)),
                ("risk", Value::opt_number(*risk)),
            ]),
            PolicyDecision::Stop { reason, risk } => Value::object(vec![
                ("action", Value::string("stop")),
                ("reason", Value::string(reason.as_str())),
                ("risk", Value::opt_number(*risk)),
            ]),
        }
    }
}

fn invalid(code: ErrorCode, kind: ErrorKind, field: &str, message: String) -> Error {
    Error::new(code, kind, field, message)
}

impl OutcomeModel {
    /// An empty model (every layer unknown, so nothing is ever skipped until history exists).
    pub fn new() -> Self {
        OutcomeModel::default()
    }

    /// The stats of layer `name`, if it has been observed.
    pub fn layer(&self, name: &str) -> Option<&LayerStats> {
        self.layers.iter().find(|l| l.name == name)
    }

    fn layer_mut(&mut self, name: &str) -> Option<&mut LayerStats> {
        if self.layer(name).is_none() {
            self.layers.push(LayerStats {
                name: name.to_string(),
                trials: 0.0,
                failures: 0.0,
                cost_ms: None,
                cost_weight: 0.0,
            });
        }
        self.layers.iter_mut().find(|l| l.name == name)
    }

    /// Learns one finished run: `ran` lists the layers that actually ran, in run order.
    /// A layer's failure count only learns from runs where every layer before it passed
    /// (that is the conditional the skip bound needs); its cost learns from every run.
    /// Names must be distinct and durations finite and >= 0; on error nothing changes.
    pub fn update(&mut self, config: &PolicyConfig, ran: &[ObservedLayer]) -> Result<()> {
        config.validate()?;
        check_observation(ran)?;
        self.learn_checked(config, ran)
    }

    /// `update` over a config and layers checked before (a build history folds its builds,
    /// each checked when it was read); only the model's size is checked here.
    pub(crate) fn learn_checked(&mut self, config: &PolicyConfig, ran: &[ObservedLayer]) -> Result<()> {
        // The model is a document like any other: at most MAX_LAYERS layers, however many
        // runs it learns from (a layer it has not seen adds one).
        let new_layers = ran.iter().filter(|l| self.layer(&l.name).is_none()).count();
        crate::limits::check_layer_count(self.layers.len() + new_layers, CODE, "model.layers")?;
        let keep = config.forgetting;
        self.check_cost_totals(keep, ran)?;
        let mut all_passed = true;
        for layer in ran {
            let Some(stats) = self.layer_mut(&layer.name) else { continue };
            if all_passed {
                stats.trials = stats.trials * keep + 1.0;
                stats.failures = stats.failures * keep + if layer.failed { 1.0 } else { 0.0 };
            }
            if let Some(d) = layer.duration_ms {
                let weight = stats.cost_weight * keep;
                let mean = stats.cost_ms.unwrap_or(0.0);
                stats.cost_weight = weight + 1.0;
                stats.cost_ms = Some((mean * weight + d) / stats.cost_weight);
            }
            all_passed &= !layer.failed;
        }
        Ok(())
    }

    /// A layer's cost is the mean of its durations, kept as a running (forgetting-weighted)
    /// total over its weight: a duration that would make that total overflow is refused,
    /// naming `ran[i].durationMs`, before anything changes (the rule of every running total).
    fn check_cost_totals(&self, keep: f64, ran: &[ObservedLayer]) -> Result<()> {
        for (i, layer) in ran.iter().enumerate() {
            let Some(d) = layer.duration_ms else { continue };
            let total = self.layer(&layer.name).map_or(0.0, |s| s.cost_ms.unwrap_or(0.0) * (s.cost_weight * keep));
            if !(total + d).is_finite() {
                let field = crate::value::concat(&[&crate::value::index_path("ran", i), ".durationMs"]);
                crate::value::add_to_total(total, d, &field, CODE)?;
            }
        }
        Ok(())
    }

    /// Posterior mean of P(layer fails | the layers before it passed).
    pub fn failure_mean(&self, config: &PolicyConfig, name: &str) -> f64 {
        let (f, t) = self.layer(name).map_or((0.0, 0.0), |l| (l.failures, l.trials));
        (config.prior_failures + f) / (config.prior_failures + config.prior_passes + t)
    }

    /// Upper `level` quantile of the layer's Beta posterior.
    pub fn failure_bound(&self, config: &PolicyConfig, name: &str, level: f64) -> f64 {
        let (f, t) = self.layer(name).map_or((0.0, 0.0), |l| (l.failures, l.trials));
        beta_quantile(config.prior_failures + f, config.prior_passes + (t - f).max(0.0), level)
    }

    /// Upper bound (at `config.confidence`, Bonferroni over the layers) on
    /// P(some of `names` fails | what ran passed) = 1 - prod(1 - bound_j).
    pub fn skip_risk(&self, config: &PolicyConfig, names: &[&str]) -> f64 {
        if names.is_empty() {
            return 0.0;
        }
        let level = 1.0 - (1.0 - config.confidence) / names.len() as f64;
        let none_fails: f64 = names.iter().map(|n| 1.0 - self.failure_bound(config, n, level)).product();
        (1.0 - none_fails).clamp(0.0, 1.0)
    }

    /// Whether some single layer's bound already exceeds the budget (then so does the joint
    /// bound, which is at least every single one): U_j > budget iff I_budget(a, b) < level.
    fn some_layer_over_budget(&self, config: &PolicyConfig, names: &[&str]) -> bool {
        let level = 1.0 - (1.0 - config.confidence) / names.len().max(1) as f64;
        names.iter().any(|name| {
            let (f, t) = self.layer(name).map_or((0.0, 0.0), |l| (l.failures, l.trials));
            let (a, b) = (config.prior_failures + f, config.prior_passes + (t - f).max(0.0));
            incomplete_beta(a, b, config.risk_budget) < level
        })
    }

    /// The next step for a run of `layers` given `outcomes` so far (`(layer index, failed)`,
    /// in run order). Validates everything; never panics.
    pub fn decide(
        &self,
        config: &PolicyConfig,
        layers: &[PlannedLayer],
        outcomes: &[(usize, bool)],
    ) -> Result<PolicyDecision> {
        config.validate()?;
        check_planned(layers)?;
        let mut done = vec![false; layers.len()];
        for (i, &(layer, _)) in outcomes.iter().enumerate() {
            match done.get_mut(layer) {
                Some(slot) if !*slot => *slot = true,
                Some(_) => {
                    let field = value::concat(&[&value::index_path("outcomes", i), ".layer"]);
                    return Err(invalid(
                        ErrorCode::InvalidStep,
                        ErrorKind::Range,
                        &field,
                        value::concat(&[&field, " repeats layer ", &crate::num::uint_string(layer as u64)]),
                    ));
                }
                None => {
                    let field = value::concat(&[&value::index_path("outcomes", i), ".layer"]);
                    return Err(invalid(
                        ErrorCode::InvalidStep,
                        ErrorKind::Range,
                        &field,
                        value::concat(&[
                            &field,
                            " must be a layer index below ",
                            &crate::num::uint_string(layers.len() as u64),
                            ", got ",
                            &crate::num::uint_string(layer as u64),
                        ]),
                    ));
                }
            }
        }
        Ok(self.decide_unchecked(config, layers, outcomes, &done, true))
    }

    /// The step a replay and a live run take (one rule for both, so a live run decides
    /// exactly as the replay of its recorded outcomes does): `decide` without validation
    /// (both validated their input up front) and without the bound of a `run` step (a cheap
    /// check settles most steps; [`OutcomeModel::skip_risk`] gives it to whoever reports it).
    pub(crate) fn step(
        &self,
        config: &PolicyConfig,
        layers: &[PlannedLayer],
        outcomes: &[(usize, bool)],
        done: &[bool],
    ) -> PolicyDecision {
        self.decide_unchecked(config, layers, outcomes, done, false)
    }

    /// `decide` without validation, for replays whose input was validated once up front.
    pub(crate) fn decide_unchecked(
        &self,
        config: &PolicyConfig,
        layers: &[PlannedLayer],
        outcomes: &[(usize, bool)],
        done: &[bool],
        report_risk: bool,
    ) -> PolicyDecision {
        if outcomes.iter().any(|&(_, failed)| failed) {
            return PolicyDecision::Stop { reason: StopReason::LayerFailed, risk: None };
        }
        let remaining: Vec<usize> = (0..layers.len()).filter(|&i| !done.get(i).copied().unwrap_or(true)).collect();
        if remaining.is_empty() {
            return PolicyDecision::Stop { reason: StopReason::Completed, risk: None };
        }
        let mut risk = None;
        if config.skip_on_success && !outcomes.is_empty() && config.risk_budget > 0.0 {
            let names: Vec<&str> = remaining.iter().filter_map(|&i| layers.get(i)).map(|l| l.name.as_str()).collect();
            // Replays only need the bound when it allows the stop; a cheap check that some
            // layer alone is over budget (one incomplete-beta call, no quantile) settles most
            // steps. Callers that report the bound of a `run` step compute it in full.
            if report_risk || !self.some_layer_over_budget(config, &names) {
                let bound = self.skip_risk(config, &names);
                if bound <= config.risk_budget {
                    return PolicyDecision::Stop { reason: StopReason::RiskBounded, risk: Some(bound) };
                }
                risk = report_risk.then_some(bound);
            }
        }
        let first = remaining.first().copied().unwrap_or(0);
        let next = if config.reorder {
            // Highest failure probability per expected cost first: p_i / c_i > p_j / c_j,
            // compared as p_i * c_j > p_j * c_i so a zero cost sorts first without dividing.
            let key = |i: usize| {
                let layer = layers.get(i);
                let name = layer.map_or("", |l| l.name.as_str());
                let cost = self.layer(name).and_then(|s| s.cost_ms).or(layer.and_then(|l| l.cost_ms)).unwrap_or(1.0);
                (self.failure_mean(config, name), cost)
            };
            let mut best = first;
            let (mut bp, mut bc) = key(first);
            for &i in remaining.iter().skip(1) {
                let (p, c) = key(i);
                if p * bc > bp * c {
                    best = i;
                    bp = p;
                    bc = c;
                }
            }
            best
        } else {
            first
        };
        PolicyDecision::Run { layer: next, risk }
    }

    /// The model document `{version, engine: "PyramidOutcomeModel", layers: [{name, trials,
    /// failures, costMs, costWeight}]}` (keys spelled by `naming`).
    pub fn to_value(&self, naming: Naming) -> Value {
        let layers = self
            .layers
            .iter()
            .map(|l| {
                Value::Object(vec![
                    ("name".into(), Value::string(l.name.as_str())),
                    ("trials".into(), Value::Number(l.trials)),
                    ("failures".into(), Value::Number(l.failures)),
                    (COST_MS.spelled(naming).into(), Value::opt_number(l.cost_ms)),
                    (COST_WEIGHT.spelled(naming).into(), Value::Number(l.cost_weight)),
                ])
            })
            .collect();
        Value::object(vec![
            ("version", Value::Number(MODEL_VERSION as f64)),
            ("engine", Value::string(MODEL_ENGINE)),
            ("layers", Value::Array(layers)),
        ])
    }

    /// Loads and validates a model document (code `invalid_snapshot`; `version` must be 1,
    /// counts finite and >= 0, failures <= trials, names distinct).
    pub fn from_value(doc: &Value, naming: Naming) -> Result<Self> {
        let code = ErrorCode::InvalidSnapshot;
        let reader = ObjectReader::new(doc, "", "model", naming, code)?;
        let known = [FieldName::same("version"), FieldName::same("engine"), FieldName::same("layers")];
        reader.reject_unknown(&known).map_err(|e| e.nested(code, ""))?;
        let version = reader.integer(FieldName::same("version"), 0, value::MAX_SAFE_INTEGER)?;
        if version != MODEL_VERSION {
            return Err(invalid(
                code,
                ErrorKind::Range,
                "version",
                value::concat(&[
                    "model version ",
                    &crate::num::uint_string(version),
                    " is not supported (this build reads versions 1 and 2)",
                ]),
            ));
        }
        let engine = reader.string(FieldName::same("engine"))?;
        if engine != MODEL_ENGINE {
            return Err(invalid(
                code,
                ErrorKind::Range,
                "engine",
                value::concat(&["model is of engine '", engine, "', expected '", MODEL_ENGINE, "'"]),
            ));
        }
        let items = match reader.get(FieldName::same("layers")) {
            Some(Value::Array(items)) => items,
            other => {
                return Err(invalid(
                    code,
                    ErrorKind::Type,
                    "layers",
                    value::concat(&[
                        "layers must be an array, got ",
                        &other.map_or_else(|| "nothing (missing)".into(), Value::describe),
                    ]),
                ))
            }
        };
        crate::limits::check_layer_count(items.len(), code, "layers")?;
        let mut model = OutcomeModel::new();
        for (i, item) in items.iter().enumerate() {
            let path = value::index_path("layers", i);
            let r = ObjectReader::new(item, &path, "layer", naming, code)?;
            let fields =
                [FieldName::same("name"), FieldName::same("trials"), FieldName::same("failures"), COST_MS, COST_WEIGHT];
            r.reject_unknown(&fields).map_err(|e| e.nested(code, ""))?;
            let name = r.string(FieldName::same("name"))?.to_string();
            if model.layer(&name).is_some() {
                let field = value::concat(&[&path, ".name"]);
                return Err(invalid(
                    code,
                    ErrorKind::Range,
                    &field,
                    value::concat(&[&field, " repeats layer '", &name, "'"]),
                ));
            }
            let trials = r.number(FieldName::same("trials"), 0.0, f64::MAX)?;
            let failures = r.number(FieldName::same("failures"), 0.0, trials)?;
            let cost_ms = match r.get(COST_MS) {
                None | Some(Value::Null) => None,
                Some(_) => Some(r.number(COST_MS, 0.0, f64::MAX)?),
            };
            let cost_weight = r.number(COST_WEIGHT, 0.0, f64::MAX)?;
            model.layers.push(LayerStats { name, trials, failures, cost_ms, cost_weight });
        }
        Ok(model)
    }

    /// Parses a model from JSON text.
    pub fn from_json(text: &str) -> Result<Self> {
        let doc = Value::parse_json(text, ErrorCode::InvalidSnapshot, "model")?;
        OutcomeModel::from_value(&doc, Naming::Js)
    }

    /// The model as JSON text (JS spelling, the same in every language).
    pub fn to_json(&self) -> String {
        self.to_value(Naming::Js).to_json()
    }
}

const MODEL_ENGINE: &str = "PyramidOutcomeModel";

const COST_MS: FieldName = field_name!("costMs", "cost_ms");

const COST_WEIGHT: FieldName = field_name!("costWeight", "cost_weight");

pub(super) fn check_observation(ran: &[ObservedLayer]) -> Result<()> {
    let layers: Vec<(&str, Option<f64>)> = ran.iter().map(|l| (l.name.as_str(), l.duration_ms)).collect();
    check_layer_list("ran", ".durationMs", &layers)
}

fn check_planned(layers: &[PlannedLayer]) -> Result<()> {
    let layers: Vec<(&str, Option<f64>)> = layers.iter().map(|l| (l.name.as_str(), l.cost_ms)).collect();
    check_layer_list("layers", ".costMs", &layers)
}

/// A list of `(name, amount)` layers: names unique, amounts (durations or costs) finite
/// and >= 0; errors name `list[i].name` or `list[i]<amount_key>`.
pub(super) fn check_layer_list(list: &str, amount_key: &str, layers: &[(&str, Option<f64>)]) -> Result<()> {
    for (i, (name, amount)) in layers.iter().enumerate() {
        let (field, message) = if layers.iter().take(i).any(|(earlier, _)| earlier == name) {
            let field = value::concat(&[&value::index_path(list, i), ".name"]);
            let message = value::concat(&[&field, " repeats layer '", name, "'"]);
            (field, message)
        } else if amount.is_some_and(|a| value::check_range(a, 0.0, f64::MAX).is_none()) {
            let field = value::concat(&[&value::index_path(list, i), amount_key]);
            let message = value::concat(&[&field, " must be a finite number >= 0"]);
            (field, message)
        } else {
            continue;
        };
        return Err(invalid(CODE, ErrorKind::Range, &field, message));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(items: &[(&str, bool, f64)]) -> Vec<ObservedLayer> {
        items.iter().map(|&(n, f, d)| ObservedLayer { name: n.into(), failed: f, duration_ms: Some(d) }).collect()
    }

    #[test]
    fn update_counts_failures_only_after_a_green_prefix() {
        let mut model = OutcomeModel::new();
        let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
        model.update(&config, &observed(&[("a", true, 1.0), ("b", true, 3.0)])).unwrap();
        model.update(&config, &observed(&[("a", false, 3.0), ("b", false, 5.0)])).unwrap();
        let a = model.layer("a").unwrap();
        assert_eq!((a.trials, a.failures, a.cost_ms), (2.0, 1.0, Some(2.0)));
        let b = model.layer("b").unwrap();
        assert_eq!((b.trials, b.failures, b.cost_ms), (1.0, 0.0, Some(4.0)));
        let text = model.to_json();
        assert_eq!(OutcomeModel::from_json(&text).unwrap(), model);
    }

    #[test]
    fn bad_input_changes_nothing() {
        let mut model = OutcomeModel::new();
        let config = PolicyConfig::RISK_BOUNDED;
        let err = model.update(&config, &observed(&[("a", false, 1.0), ("a", false, f64::NAN)])).unwrap_err();
        assert_eq!(err.field(), "ran[1].name");
        assert!(model.layers.is_empty());
        let err = OutcomeModel::from_json(r#"{"version":2,"engine":"PyramidOutcomeModel","layers":[]}"#).unwrap_err();
        assert_eq!((err.code(), err.field()), ("invalid_snapshot", "version"));
        let doc = r#"{"version":1,"engine":"PyramidOutcomeModel","layers":[{"name":"a","trials":1,"failures":2,"costMs":null,"costWeight":0}]}"#;
        assert_eq!(OutcomeModel::from_json(doc).unwrap_err().field(), "layers[0].failures");
        let planned = vec![PlannedLayer { name: "a".into(), cost_ms: None }];
        assert_eq!(model.decide(&config, &planned, &[(1, false)]).unwrap_err().field(), "outcomes[0].layer");
        let bad = PolicyConfig { confidence: 1.0, ..config };
        assert_eq!(model.decide(&bad, &planned, &[]).unwrap_err().field(), "confidence");
    }

    #[test]
    fn skips_only_when_history_bounds_the_risk() {
        let config = PolicyConfig { forgetting: 1.0, ..PolicyConfig::RISK_BOUNDED };
        let planned: Vec<PlannedLayer> =
            ["fast", "slow"].iter().map(|n| PlannedLayer { name: (*n).into(), cost_ms: None }).collect();
        let mut model = OutcomeModel::new();
        // Unknown layers: the bound is near 1, so run everything.
        assert_eq!(
            model.decide(&config, &planned, &[(0, false)]).unwrap().to_value().get("action"),
            Some(&Value::string("run"))
        );
        for _ in 0..600 {
            model.update(&config, &observed(&[("fast", false, 1.0), ("slow", false, 10.0)])).unwrap();
        }
        match model.decide(&config, &planned, &[(0, false)]).unwrap() {
            PolicyDecision::Stop { reason: StopReason::RiskBounded, risk: Some(r) } => assert!(r <= 0.01, "{r}"),
            other => panic!("{other:?}"),
        }
        // A failure is a verdict.
        let stop = model.decide(&config, &planned, &[(0, true)]).unwrap();
        assert_eq!(stop, PolicyDecision::Stop { reason: StopReason::LayerFailed, risk: None });
        // Fail-fast never skips on success.
        let ff = PolicyConfig::FAIL_FAST;
        assert_eq!(model.decide(&ff, &planned, &[(0, false)]).unwrap(), PolicyDecision::Run { layer: 1, risk: None });
    }

    #[test]
    fn reorders_by_failure_probability_per_cost() {
        let config = PolicyConfig { forgetting: 1.0, risk_budget: 0.0, ..PolicyConfig::RISK_BOUNDED };
        let mut model = OutcomeModel::new();
        for i in 0..40 {
            let slow_fails = i % 2 == 0;
            model.update(&config, &observed(&[("slow", slow_fails, 10.0), ("fast", false, 1.0)])).unwrap();
        }
        let planned: Vec<PlannedLayer> =
            ["fast", "slow"].iter().map(|n| PlannedLayer { name: (*n).into(), cost_ms: None }).collect();
        // slow: p ~ 0.5 per 10 ms beats fast: p ~ 0.01 per 1 ms.
        assert_eq!(model.decide(&config, &planned, &[]).unwrap(), PolicyDecision::Run { layer: 1, risk: None });
    }
}
