//! What a loop replay replays: a [`LoopPolicy`] (an engine config, the output it returns,
//! the built-in analytics, if attached, and optionally a composed stop condition tree),
//! named by a preset or built from one. This is the one JSON form of a loop policy: the
//! engine (`EarlyStopping` with a policy), the replay and calibration all read it here.

use crate::loops::analytics::AnalyticsConfig;
use crate::loops::policy::{tree_entries, tree_of, StopCondition, StopPolicy};
use crate::loops::replay::runs::CODE;
use crate::loops::{EarlyStoppingConfig, LoopPreset, ReturnPolicy};
use crate::value::jsonl::as_replay_error;
use crate::value::{self, FieldName, Naming, ObjectReader, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const PRESET: FieldName = FieldName::same("preset");

const CONFIG: FieldName = FieldName::same("config");

const RETURNS: FieldName = FieldName::same("returns");

const ANALYTICS: FieldName = FieldName::same("analytics");

const POLICY_FIELDS: [FieldName; 10] = [
    PRESET,
    CONFIG,
    RETURNS,
    ANALYTICS,
    // The condition tree's keys (`TREE_KEYS`; a test checks the two lists agree).
    FieldName::same("any"),
    FieldName::same("all"),
    FieldName::same("k_of"),
    FieldName::same("of"),
    FieldName::same("not_before"),
    FieldName::same("then"),
];

/// A loop policy to replay: an engine config, which output it returns, and whether the
/// built-in `IterationAnalytics` is attached as the diminishing-returns source.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopPolicy {
    /// The engine config.
    pub config: EarlyStoppingConfig,
    /// Which output is returned.
    pub returns: ReturnPolicy,
    /// The attached analytics' config, if any.
    pub analytics: Option<AnalyticsConfig>,
    /// A composed stop condition tree (`None`: the config's checks decide, in their order).
    /// The config still sets the best iteration's quality bar.
    pub when: Option<StopCondition>,
}

impl LoopPolicy {
    /// A named preset as a policy ([`LoopPreset`]): `seed` = upstream's config with the
    /// built-in analytics attached (as upstream is meant to be used), returning the last
    /// output; `recommended` = [`EarlyStoppingConfig::recommended`], no analytics, returning
    /// the best output.
    pub fn preset(name: &str) -> Option<Self> {
        LoopPreset::parse(name).map(LoopPolicy::from)
    }

    /// The `seed` preset: upstream's config and analytics, returning the last output.
    pub fn seed() -> Self {
        LoopPolicy::from(LoopPreset::Seed)
    }

    /// The `recommended` preset: [`EarlyStoppingConfig::recommended`], returning the best.
    pub fn recommended() -> Self {
        LoopPolicy::from(LoopPreset::Recommended)
    }

    /// Checks every value of a policy built in Rust (`invalid_replay`, field `config.*` or
    /// `analytics.*`).
    pub fn validate(&self) -> Result<()> {
        self.config.validate().map_err(|e| e.nested(CODE, "config"))?;
        if let Some(analytics) = &self.analytics {
            analytics.validate().map_err(|e| e.nested(CODE, "analytics"))?;
        }
        Ok(())
    }

    /// The simple baseline: stop at the first verified pass, else give up after `k`
    /// iterations without a new best; return the best iteration.
    pub fn simple_rule(k: u64) -> Self {
        LoopPolicy {
            config: EarlyStoppingConfig {
                high_confidence_threshold: 0.0,
                min_quality_threshold: 0.0,
                require_verification: true,
                enable_plateau_detection: false,
                enable_diminishing_returns: false,
                no_improvement_patience: Some(k.max(1)),
                ..EarlyStoppingConfig::default()
            },
            returns: ReturnPolicy::Best,
            analytics: None,
            when: None,
        }
    }

    /// The stop policy this policy decides by: its tree, or the tree its config stands for.
    pub fn stop_policy(&self) -> StopPolicy {
        StopPolicy {
            when: self.when.clone().unwrap_or_else(|| StopCondition::from_config(&self.config)),
            returns: self.returns,
        }
    }

    /// Reads a policy given to the engine (`EarlyStopping` with a policy): as
    /// [`LoopPolicy::from_value`], errors under `invalid_config` with fields from `policy`
    /// (`policy.any[1].patience`). `analytics` is refused there: the engine asks the source
    /// it was given.
    pub fn engine_policy(value: &Value, naming: Naming) -> Result<StopPolicy> {
        Self::engine_policy_as(value, naming, ErrorCode::InvalidConfig)
    }

    /// A policy given to a `Loop`: as [`LoopPolicy::engine_policy`] reads it (errors under
    /// `invalid_config` naming `policy...`), the whole policy kept (its config sets the best
    /// iteration's bar and the budgets; an `analytics` key is refused, as by the engine).
    pub fn engine_loop_policy(value: &Value, naming: Naming) -> Result<Self> {
        Self::engine_policy(value, naming)?;
        let nest = |e: Error| nested_at(e, ErrorCode::InvalidConfig, "policy");
        Self::from_option(value, naming).map_err(nest)
    }

    /// [`LoopPolicy::engine_policy`] with errors under `code` (`invalid_snapshot` for the
    /// policy a snapshot holds).
    pub fn engine_policy_as(value: &Value, naming: Naming, code: ErrorCode) -> Result<StopPolicy> {
        let nest = |e: Error| nested_at(e, code, "policy");
        if value.get("analytics").is_some() {
            return Err(nest(Error::new(
                CODE,
                ErrorKind::Range,
                "analytics",
                "analytics applies to replays; the engine asks the diminishing-returns source it was given",
            )));
        }
        Ok(Self::from_option(value, naming).map_err(nest)?.stop_policy())
    }

    /// [`LoopPolicy::from_value`] for a policy given as an option (to the engine, or as a
    /// calibration candidate) rather than in a replay file: its errors keep their own codes,
    /// so an unknown key is `unknown_option` as in every options object, and the caller
    /// nests the rest under its code ([`nested_at`]).
    pub(crate) fn from_option(value: &Value, naming: Naming) -> Result<Self> {
        Self::read(value, naming)
    }

    /// Parses a policy: `null` = the `seed` preset; a string = a preset name; an object
    /// `{preset?, config?, returns?, analytics?}` where `config` is merged over the preset's
    /// config, `returns` is `'last'` or `'best'` (default: the preset's), and `analytics` is
    /// `false`/`true` or an analytics config object (default: the preset's). A condition
    /// tree under `any`, `all`, `k_of` (with `of`) or `not_before` (with `then`) makes the
    /// stop decisions instead of the config's checks (see [`crate::loops::policy`]).
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        Self::read(value, naming).map_err(as_replay_error)
    }

    fn read(value: &Value, naming: Naming) -> Result<Self> {
        let wrap = as_replay_error;
        match value {
            Value::Null => Ok(LoopPolicy::seed()),
            Value::String(_) => named_policy(value, "policy"),
            _ => {
                let reader = ObjectReader::new(value, "", "policy", naming, CODE)?;
                reader.reject_unknown(&POLICY_FIELDS)?;
                let mut policy = match reader.get(PRESET) {
                    None => LoopPolicy::seed(),
                    Some(name) => named_policy(name, "preset")?,
                };
                if let Some(config) = reader.get(CONFIG) {
                    policy.config = policy.config.merged_at(config, naming, "config", "config", CODE).map_err(wrap)?;
                }
                if reader.get(RETURNS).is_some() {
                    // `choice` accepted one of the names, so `parse` finds it.
                    let returns = reader.choice(RETURNS, &ReturnPolicy::NAMES)?;
                    policy.returns = ReturnPolicy::parse(returns).unwrap_or(policy.returns);
                }
                match reader.get(ANALYTICS) {
                    None => {}
                    Some(Value::Bool(false)) => policy.analytics = None,
                    Some(Value::Bool(true)) => policy.analytics = Some(AnalyticsConfig::default()),
                    Some(config @ Value::Object(_)) => {
                        policy.analytics = Some(
                            AnalyticsConfig::default().merged_rules(config, naming, "analytics", CODE).map_err(wrap)?,
                        )
                    }
                    Some(other) => {
                        return Err(Error::new(
                            CODE,
                            ErrorKind::Type,
                            "analytics",
                            value::concat(&[
                                "analytics must be a boolean or an analytics config object, got ",
                                &other.describe(),
                            ]),
                        ))
                    }
                }
                policy.when = tree_of(value, CODE)?;
                Ok(policy)
            }
        }
    }

    /// The policy as `{config, returns, analytics}` (config keys in `naming`), then its
    /// condition tree's keys when it has one; [`LoopPolicy::from_value`] reads it back equal.
    pub fn to_value(&self, naming: Naming) -> Value {
        let mut value = Value::object(vec![
            ("config", self.config.to_value(naming)),
            ("returns", Value::string(self.returns.as_str())),
            ("analytics", self.analytics.as_ref().map_or(Value::Bool(false), |a| a.rules_value(naming))),
        ]);
        if let (Some(when), Value::Object(entries)) = (&self.when, &mut value) {
            entries.extend(tree_entries(when));
        }
        value
    }
}

impl From<LoopPreset> for LoopPolicy {
    /// The preset as a policy: its config and returned output, and the built-in
    /// analytics (default config) when the preset attaches it.
    fn from(preset: LoopPreset) -> Self {
        LoopPolicy {
            config: preset.config(),
            returns: preset.returns(),
            analytics: preset.builtin_analytics().then(AnalyticsConfig::default),
            when: None,
        }
    }
}

/// A policy reader's error moved under `at` with `code`: an error on the whole value (field
/// `policy`, the reader's own name for it) is `at` itself, one inside it `at.<path>`.
pub(crate) fn nested_at(e: Error, code: ErrorCode, at: &str) -> Error {
    // An unknown key in a policy given as an option is `unknown_option`, as in a config;
    // in a snapshot or a replay file the document's own code says what was bad.
    let code = match (e.error_code(), code) {
        (ErrorCode::UnknownOption, ErrorCode::InvalidConfig) => ErrorCode::UnknownOption,
        _ => code,
    };
    if e.field() == "policy" {
        let message = if at == "policy" { e.message().to_string() } else { value::concat(&[at, ": ", e.message()]) };
        Error::new(code, e.kind(), at, message)
    } else {
        e.nested(code, at)
    }
}

/// The preset a host value names (`field` names it in errors).
fn named_policy(name: &Value, field: &str) -> Result<LoopPolicy> {
    // The engine's preset check words the error (type, range, the list of names).
    EarlyStoppingConfig::preset_value(name, field)?;
    name.as_str().and_then(LoopPolicy::preset).ok_or_else(|| {
        Error::new(
            CODE,
            ErrorKind::Range,
            field,
            value::concat(&[field, " must name a loop preset, got ", &name.describe()]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::policy::TREE_KEYS;

    #[test]
    fn the_policy_fields_list_the_tree_keys() {
        let tail: Vec<&str> = POLICY_FIELDS[4..].iter().map(|f| f.js()).collect();
        assert_eq!(tail, TREE_KEYS);
    }
}
