//! The replay's entry points on host values (what the bindings call): the options readers,
//! the policy presets by name ([`PolicyName`]) and the report as a value.

use crate::pyramid::policy::{
    build_arg, history_argument, model_argument, ran_arg, read_model, Model, OutcomeModel, PlannedLayer, PolicyConfig,
};
use crate::pyramid::replay::calibrate::{calibrate, Calibration, DEFAULT_GRID};
use crate::pyramid::replay::lifecycle::{artifact_times, calibration_artifact, ArtifactRequest};
use crate::pyramid::replay::play::{
    replay, shadow, Learn, PyramidReplayStream, ReplayPolicy, ReplayReport, ReplaySummary, RunReplay,
};
use crate::pyramid::replay::runs::{parse_runs, RecordedRun};
use crate::pyramid::ExitConfig;
use crate::value::named_enum;
use crate::value::{self, field_name, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

// ---- Host values: what the bindings call (keys spelled by `naming`; the model document
// ---- is always in the JS spelling, like every snapshot, so it moves between languages).

const POLICY: FieldName = FieldName::same("policy");

const CONFIG: FieldName = FieldName::same("config");

const MODEL: FieldName = FieldName::same("model");

const LEARN: FieldName = FieldName::same("learn");

const RISK: FieldName = FieldName::same("risk");

const DELTA: FieldName = FieldName::same("delta");

const GRID: FieldName = FieldName::same("grid");

const WARMUP: FieldName = FieldName::same("warmup");
const CREATED_AT: FieldName = field_name!("createdAt", "created_at");
const EXPIRES_AT: FieldName = field_name!("expiresAt", "expires_at");

const BUILD: FieldName = FieldName::same("build");

named_enum! {
    /// The policy presets a pyramid replay accepts: the ADR's three, then the policy's two.
    pub enum PolicyName {
        /// The ADR's `default` preset (the default of `replay`).
        Default = "default",
        /// The ADR's `aggressive` preset.
        Aggressive = "aggressive",
        /// The ADR's `conservative` preset.
        Conservative = "conservative",
        /// The policy's `fail_fast` preset.
        FailFast = "fail_fast",
        /// The policy's `risk_bounded` preset (the default of shadow mode and calibration).
        RiskBounded = "risk_bounded",
    }
}

/// Preset names `replay` accepts ([`PolicyName::NAMES`]).
pub const POLICY_NAMES: [&str; 5] = PolicyName::NAMES;

fn options_reader<'a>(options: &'a Value, naming: Naming, known: &[FieldName]) -> Result<Option<ObjectReader<'a>>> {
    if matches!(options, Value::Null) {
        return Ok(None);
    }
    let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
    reader.reject_unknown(known)?;
    Ok(Some(reader))
}

/// The model argument: a document of either version (a version-2 one's statistics derived
/// with `config`), its JSON text, or absent (empty).
fn model_arg(model: Option<&Value>, config: &PolicyConfig) -> Result<OutcomeModel> {
    model_argument(model.unwrap_or(&Value::Null), config)
}

impl ReplayPolicyKind {
    /// The policy's config (the ADR reads none: `fail_fast`'s, to read a model it ignores).
    fn policy_config(&self) -> &PolicyConfig {
        match self {
            ReplayPolicyKind::Adr(..) => &PolicyConfig::FAIL_FAST,
            ReplayPolicyKind::Policy(_, config) => config,
        }
    }
}

/// Reads `{policy?, config?}`: the policy preset (default `default` when `adr_allowed`, else
/// `risk_bounded`) and a partial config merged over it.
fn policy_arg(reader: Option<&ObjectReader>, naming: Naming, adr_allowed: bool) -> Result<ReplayPolicyKind> {
    let policies = [PolicyName::FailFast.as_str(), PolicyName::RiskBounded.as_str()];
    let allowed: &[&str] = if adr_allowed { &PolicyName::NAMES } else { &policies };
    let name = match reader.and_then(|r| r.get(POLICY)) {
        None | Some(Value::Null) => {
            if adr_allowed {
                PolicyName::Default
            } else {
                PolicyName::RiskBounded
            }
        }
        // `choice` accepted one of the names, so `parse` reads it.
        Some(_) => reader
            .map_or(Ok(PolicyName::Default.as_str()), |r| r.choice(POLICY, allowed))
            .map(|name| PolicyName::parse(name).unwrap_or(PolicyName::Default))?,
    };
    let partial = reader.and_then(|r| r.get(CONFIG)).unwrap_or(&Value::Null);
    let preset = match name {
        PolicyName::Aggressive => Some(ExitConfig::AGGRESSIVE),
        PolicyName::Conservative => Some(ExitConfig::CONSERVATIVE),
        PolicyName::Default => Some(ExitConfig::DEFAULT),
        PolicyName::FailFast | PolicyName::RiskBounded => None,
    };
    match (preset, PolicyConfig::preset(name.as_str())) {
        (Some(adr), _) => {
            Ok(ReplayPolicyKind::Adr(name, adr.merged(partial, naming, "config", ErrorCode::InvalidConfig)?))
        }
        (None, Some(policy)) => Ok(ReplayPolicyKind::Policy(name, policy.merged(partial, naming, "config")?)),
        (None, None) => Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "unknown policy")),
    }
}

enum ReplayPolicyKind {
    Adr(PolicyName, ExitConfig),
    Policy(PolicyName, PolicyConfig),
}

/// `replayPyramids(runs, {policy?, config?, model?, learn?})`: `runs` is an array of run
/// objects or JSONL text; `policy` one of [`POLICY_NAMES`] (default `default`, the ADR's);
/// `config` a partial config over that preset; `model` a model document for the policy
/// presets; `learn` `ran` (default), `all` or `none`.
pub fn replay_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let (name, policy, learn) = replay_options(options, naming)?;
    let runs = parse_runs(runs, naming)?;
    let report = replay(&runs, &policy, learn)?;
    Ok(report_value(&report, name.as_str(), naming))
}

/// Reads `{policy?, config?, model?, learn?}` as [`replay_value`] does: the policy's name,
/// the policy and what its model learns.
fn replay_options(options: &Value, naming: Naming) -> Result<(PolicyName, ReplayPolicy, Learn)> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG, MODEL, LEARN])?;
    let kind = policy_arg(reader.as_ref(), naming, true)?;
    let learn = match reader.as_ref().and_then(|r| r.get(LEARN)) {
        None | Some(Value::Null) => Learn::Ran,
        // `choice` accepted one of the names, so `parse` reads it.
        Some(_) => reader
            .as_ref()
            .map(|r| r.choice(LEARN, &Learn::NAMES))
            .transpose()?
            .and_then(Learn::parse)
            .unwrap_or(Learn::Ran),
    };
    let model = model_arg(reader.as_ref().and_then(|r| r.get(MODEL)), kind.policy_config())?;
    let (name, policy) = match kind {
        ReplayPolicyKind::Adr(name, config) => (name, ReplayPolicy::Adr(config)),
        ReplayPolicyKind::Policy(name, config) => (name, ReplayPolicy::Policy { config, model }),
    };
    Ok((name, policy, learn))
}

impl PyramidReplayStream {
    /// A stream from the options of [`replay_value`] (`{policy?, config?, model?, learn?}`),
    /// checked as it checks them, with the policy's name for the report.
    pub fn from_options(options: &Value, naming: Naming) -> Result<(Self, &'static str)> {
        let (name, policy, learn) = replay_options(options, naming)?;
        Ok((PyramidReplayStream::new(policy, learn)?, name.as_str()))
    }
}

/// `shadowPyramids(runs, {policy?, config?, model?})`: shadow mode over fully recorded runs.
pub fn shadow_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG, MODEL])?;
    let kind = policy_arg(reader.as_ref(), naming, false)?;
    let model = model_arg(reader.as_ref().and_then(|r| r.get(MODEL)), kind.policy_config())?;
    let runs = parse_runs(runs, naming)?;
    let ReplayPolicyKind::Policy(name, config) = kind else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Range,
            "policy",
            "shadow mode needs a policy preset",
        ));
    };
    let report = shadow(&runs, &config, &model)?;
    Ok(report_value(&report, name.as_str(), naming))
}

/// `calibratePyramidPolicy(runs, {risk, delta, config?, model?, grid?, warmup?})`.
pub fn calibrate_value(runs: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let request = CalibrationRequest::from_options(options, naming)?;
    let runs = parse_runs(runs, naming)?;
    request.run(&runs)
}

/// `calibratePyramidPolicy(runs, {risk, delta, ..., createdAt?, expiresAt?})` with the
/// artifact: [`calibrate_value`]'s answer followed by the artifact's keys (`now` as
/// [`now_argument`](crate::time::now_argument) reads it: the creation time when
/// `createdAt` is not given).
pub fn calibrate_artifact_value(
    runs: &Value,
    options: &Value,
    naming: Naming,
    sha256: &dyn crate::artifact::Sha256,
    now: &Value,
) -> Result<Value> {
    let request = CalibrationRequest::from_options(options, naming)?;
    let now_ms = crate::pyramid::replay::lifecycle::now_argument(now)?;
    let runs = parse_runs(runs, naming)?;
    request.run_with_artifact(&runs, sha256, now_ms)
}

/// The options of [`calibrate_value`], read and checked before any run is (a host streaming
/// a large file reports a bad option first, as the binding entry does).
#[derive(Clone, Debug)]
pub struct CalibrationRequest {
    config: PolicyConfig,
    model: OutcomeModel,
    risk: f64,
    delta: f64,
    grid: Vec<f64>,
    warmup: f64,
    naming: Naming,
    policy: &'static str,
    created_at: Option<String>,
    expires_at: Option<String>,
}

impl CalibrationRequest {
    /// Reads `{risk, delta, policy?, config?, model?, grid?, warmup?}`.
    pub fn from_options(options: &Value, naming: Naming) -> Result<Self> {
        let reader = ObjectReader::new(options, "", "options", naming, ErrorCode::InvalidConfig)?;
        reader.reject_unknown(&[RISK, DELTA, CONFIG, MODEL, GRID, WARMUP, POLICY, CREATED_AT, EXPIRES_AT])?;
        let kind = policy_arg(Some(&reader), naming, false)?;
        let ReplayPolicyKind::Policy(name, config) = kind else {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                "policy",
                "calibration needs a policy preset",
            ));
        };
        let risk = reader.number(RISK, 0.0, 1.0)?;
        let delta = reader.number(DELTA, 0.0, 1.0)?;
        let warmup = reader.opt_number(WARMUP, 0.0, 1.0)?.unwrap_or(0.5);
        let grid = grid_arg(reader.get(GRID))?;
        let model = model_arg(reader.get(MODEL), &config)?;
        let created_at = reader.opt_string(CREATED_AT)?.map(str::to_string);
        let expires_at = reader.opt_string(EXPIRES_AT)?.map(str::to_string);
        let policy = name.as_str();
        Ok(CalibrationRequest { config, model, risk, delta, grid, warmup, naming, policy, created_at, expires_at })
    }

    /// Calibrates over `runs` and answers what [`calibrate_value`] answers.
    pub fn run(&self, runs: &[RecordedRun]) -> Result<Value> {
        let c = calibrate(runs, &self.config, &self.model, self.risk, self.delta, &self.grid, self.warmup)?;
        Ok(self.answer(&c))
    }

    /// [`run`](Self::run)'s answer followed by the calibration artifact's keys (the
    /// envelope of [`crate::artifact::Artifact`]): `createdAt` as given, else `now_ms`;
    /// `expiresAt` as given, else 30 days later; the corpus hashed with `sha256`.
    pub fn run_with_artifact(
        &self,
        runs: &[RecordedRun],
        sha256: &dyn crate::artifact::Sha256,
        now_ms: i64,
    ) -> Result<Value> {
        let (created_at, expires_at) = artifact_times(self.created_at.as_deref(), self.expires_at.as_deref(), now_ms)?;
        let c = calibrate(runs, &self.config, &self.model, self.risk, self.delta, &self.grid, self.warmup)?;
        let request = ArtifactRequest {
            policy: self.policy,
            risk: self.risk,
            delta: self.delta,
            warmup: self.warmup,
            created_at,
            expires_at,
        };
        let artifact = calibration_artifact(&c, runs, &request, sha256)?;
        let mut answer = self.answer(&c);
        if let (Value::Object(entries), Value::Object(more)) = (&mut answer, artifact.to_value()) {
            entries.extend(more);
        }
        Ok(answer)
    }

    fn answer(&self, c: &Calibration) -> Value {
        let naming = self.naming;
        let key = |js, snake| key(naming, js, snake);
        let steps = c
            .steps
            .iter()
            .map(|s| {
                Value::Object(vec![
                    (key("riskBudget", "risk_budget"), Value::Number(s.risk_budget)),
                    (key("failingRuns", "failing_runs"), Value::Number(s.failing_runs as f64)),
                    ("missed".into(), Value::Number(s.missed as f64)),
                    (key("pValue", "p_value"), Value::Number(s.p_value)),
                    ("certified".into(), Value::Bool(s.certified)),
                ])
            })
            .collect();
        Value::Object(vec![
            (key("riskBudget", "risk_budget"), Value::Number(c.risk_budget)),
            ("config".into(), c.config.to_value(naming)),
            ("steps".into(), Value::Array(steps)),
            ("model".into(), c.model.to_value(Naming::Js)),
        ])
    }
}

/// The calibration's `grid` option: absent or null for [`DEFAULT_GRID`], else an array of
/// numbers (checked by [`calibrate`]).
fn grid_arg(grid: Option<&Value>) -> Result<Vec<f64>> {
    match grid {
        None | Some(Value::Null) => Ok(DEFAULT_GRID.to_vec()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Number(n) => Ok(*n),
                other => {
                    let field = value::index_path("grid", i);
                    Err(Error::new(
                        ErrorCode::InvalidConfig,
                        ErrorKind::Type,
                        field.clone(),
                        value::concat(&[&field, " must be a number, got ", &other.describe()]),
                    ))
                }
            })
            .collect(),
        Some(other) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "grid",
            value::concat(&["grid must be an array of numbers, got ", &other.describe()]),
        )),
    }
}

fn planned_arg(layers: &Value, naming: Naming) -> Result<Vec<PlannedLayer>> {
    let Value::Array(items) = layers else {
        return Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "layers",
            value::concat(&["layers must be an array, got ", &layers.describe()]),
        ));
    };
    crate::limits::check_layer_count(items.len(), ErrorCode::InvalidConfig, "layers")?;
    let cost = field_name!("costMs", "cost_ms");
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = value::index_path("layers", i);
            let r = ObjectReader::new(item, &path, "layer", naming, ErrorCode::InvalidConfig)?;
            // A layer's near misses first (`costMs` in a snake_case layer is one, not an alias).
            if let Value::Object(entries) = item {
                for (key, _) in entries {
                    crate::pyramid::check_layer_key(key, naming, &path, false)?;
                }
            }
            r.reject_unknown(&[FieldName::same("name"), cost])?;
            Ok(PlannedLayer {
                name: r.string(FieldName::same("name"))?.to_string(),
                cost_ms: r.opt_number(cost, 0.0, f64::MAX)?,
            })
        })
        .collect()
}

/// `pyramidPolicyDecide(model, layers, outcomes, {policy?, config?})`: `layers` is
/// `[{name, costMs?}]`, `outcomes` `[{layer, failed}]` in run order; answers
/// `{action: "run", layer, risk}` or `{action: "stop", reason, risk}`.
pub fn decide_value(model: &Value, layers: &Value, outcomes: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG])?;
    let ReplayPolicyKind::Policy(_, config) = policy_arg(reader.as_ref(), naming, false)? else {
        return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "a policy preset is needed"));
    };
    let model = model_arg(Some(model), &config)?;
    let layers = planned_arg(layers, naming)?;
    let Value::Array(items) = outcomes else {
        return Err(Error::new(
            ErrorCode::InvalidStep,
            ErrorKind::Type,
            "outcomes",
            value::concat(&["outcomes must be an array, got ", &outcomes.describe()]),
        ));
    };
    let mut parsed = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = value::index_path("outcomes", i);
        let r = ObjectReader::new(item, &path, "outcome", naming, ErrorCode::InvalidStep)?;
        r.reject_unknown(&[FieldName::same("layer"), FieldName::same("failed")])?;
        let layer = r.integer(FieldName::same("layer"), 0, value::MAX_SAFE_INTEGER)?;
        parsed.push((usize::try_from(layer).unwrap_or(usize::MAX), r.boolean(FieldName::same("failed"))?));
    }
    Ok(model.decide(&config, &layers, &parsed)?.to_value())
}

/// `pyramidPolicyUpdate(model, ran, {policy?, config?, build?})`: learns one run (`ran` =
/// `[{name, failed, durationMs?}]` in run order) and returns the new model document. Without
/// `build` a version-1 model learns it (a version-2 one is refused: it learns builds by their
/// key); with `build: {id, seq}` the model learns it as that build, as a version-2 model (a
/// version-1 one, or none, converted first: see
/// [`BuildHistory`](crate::pyramid::policy::BuildHistory)).
pub fn update_value(model: &Value, ran: &Value, options: &Value, naming: Naming) -> Result<Value> {
    let reader = options_reader(options, naming, &[POLICY, CONFIG, BUILD])?;
    let ReplayPolicyKind::Policy(_, config) = policy_arg(reader.as_ref(), naming, false)? else {
        return Err(Error::new(ErrorCode::InvalidConfig, ErrorKind::Range, "policy", "a policy preset is needed"));
    };
    let build = match reader.as_ref().and_then(|r| r.get(BUILD)) {
        None | Some(Value::Null) => None,
        Some(given) => Some(build_arg(given, naming)?),
    };
    let observed = ran_arg(ran, naming)?;
    match (build, read_model(model)?) {
        (None, Model::Stats(mut stats)) => {
            stats.update(&config, &observed)?;
            Ok(stats.to_value(Naming::Js))
        }
        (None, Model::History(_)) => Err(Error::new(
            ErrorCode::InvalidConfig,
            ErrorKind::Type,
            "build",
            "build is required with a version 2 model: it learns each build under its key {id, seq}",
        )),
        (Some((id, seq)), _) => {
            let mut history = history_argument(model, None)?;
            history.learn(&id, seq, &observed)?;
            Ok(history.to_value())
        }
    }
}

/// The report object.
pub fn report_value(report: &ReplayReport, policy: &str, naming: Naming) -> Value {
    Value::Object(vec![
        ("policy".into(), Value::string(policy)),
        ("runs".into(), Value::Array(report.runs.iter().map(|r| run_value(r, naming)).collect())),
        ("summary".into(), summary_value(&report.summary, naming)),
        ("model".into(), report.model.as_ref().map_or(Value::Null, |m| m.to_value(Naming::Js))),
    ])
}

fn key(naming: Naming, js: &'static str, snake: &'static str) -> String {
    match naming {
        Naming::Js => js.to_string(),
        Naming::Snake => snake.to_string(),
    }
}

fn num(n: usize) -> Value {
    Value::Number(n as f64)
}

/// One run's row of the report (an entry of its `runs`).
pub fn run_value(r: &RunReplay, naming: Naming) -> Value {
    let key = |js, snake| key(naming, js, snake);
    Value::Object(vec![
        ("id".into(), r.id.as_deref().map_or(Value::Null, Value::string)),
        ("layers".into(), num(r.layers)),
        (key("layersRun", "layers_run"), num(r.executed.len())),
        ("executed".into(), Value::Array(r.executed.iter().map(|&i| num(i)).collect())),
        (key("exitLayer", "exit_layer"), num(r.exit_layer)),
        ("reason".into(), Value::string(r.reason)),
        (key("verifiedLayers", "verified_layers"), num(r.verified_layers)),
        ("failed".into(), Value::Bool(r.failed)),
        ("caught".into(), Value::Bool(r.caught)),
        ("missed".into(), Value::Bool(r.missed)),
        ("risk".into(), Value::opt_number(r.risk)),
        (key("costMs", "cost_ms"), Value::Number(r.cost_ms)),
        (key("savedNominalMs", "saved_nominal_ms"), Value::Number(r.saved_nominal_ms)),
        (key("savedActualMs", "saved_actual_ms"), Value::Number(r.saved_actual_ms)),
    ])
}

/// The report's `summary`.
pub fn summary_value(s: &ReplaySummary, naming: Naming) -> Value {
    let key = |js, snake| key(naming, js, snake);
    let ci = s.false_pass_ci.map_or(Value::Null, |(lo, hi)| Value::Array(vec![Value::Number(lo), Value::Number(hi)]));
    Value::Object(vec![
        ("runs".into(), num(s.runs)),
        (key("failingRuns", "failing_runs"), num(s.failing_runs)),
        ("caught".into(), num(s.caught)),
        ("missed".into(), num(s.missed)),
        ("recall".into(), Value::opt_number(s.recall)),
        (key("declaredGreen", "declared_green"), num(s.declared_green)),
        (key("falsePassRate", "false_pass_rate"), Value::opt_number(s.false_pass_rate)),
        (key("falsePassCi", "false_pass_ci"), ci),
        (key("totalMs", "total_ms"), Value::Number(s.total_ms)),
        (key("savedNominalMs", "saved_nominal_ms"), Value::Number(s.saved_nominal_ms)),
        (key("savedActualMs", "saved_actual_ms"), Value::Number(s.saved_actual_ms)),
        (key("savedNominal", "saved_nominal"), Value::opt_number(s.saved_nominal)),
        (key("savedActual", "saved_actual"), Value::opt_number(s.saved_actual)),
        (key("layersTotal", "layers_total"), num(s.layers_total)),
        (key("layersRun", "layers_run"), num(s.layers_run)),
        (key("verifiedLayers", "verified_layers"), num(s.verified_layers)),
        (key("riskBoundedStops", "risk_bounded_stops"), num(s.risk_bounded_stops)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyramid::EXIT_PRESETS;

    #[test]
    fn policy_names_are_the_exit_presets_then_the_policy_presets() {
        let (adr, policies) = POLICY_NAMES.split_at(EXIT_PRESETS.len());
        assert_eq!(adr, EXIT_PRESETS);
        for name in adr {
            assert_eq!(PolicyConfig::preset(name), None, "{name}");
        }
        for name in policies {
            assert!(PolicyConfig::preset(name).is_some(), "{name}");
            assert_eq!(ExitConfig::preset(name), None, "{name}");
        }
    }
}
