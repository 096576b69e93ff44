//! ADR-033's exit configuration, its three presets, and `CoherenceEarlyExit`: may the test
//! pyramid stop after this layer?

use crate::num;
use crate::pyramid::signal::QualitySignal;
use crate::value::snapshot;
use crate::value::{
    self, field_name, key, named_enum, spelled, FieldName, Key, Naming, ObjectBuilder, ObjectReader, Value,
    MAX_SAFE_INTEGER,
};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

const EXIT_LAYER: FieldName = field_name!("exitLayer", "exit_layer");
const MIN_LAMBDA_FOR_EXIT: FieldName = field_name!("minLambdaForExit", "min_lambda_for_exit");
const MIN_LAMBDA_STABILITY: FieldName = field_name!("minLambdaStability", "min_lambda_stability");
const MAX_BOUNDARY_CONCENTRATION: FieldName = field_name!("maxBoundaryConcentration", "max_boundary_concentration");
const SPECULATIVE_TESTS: FieldName = field_name!("speculativeTests", "speculative_tests");
const VERIFICATION_LAYERS: FieldName = field_name!("verificationLayers", "verification_layers");
const ADAPTIVE_EXIT_LAYER: FieldName = field_name!("adaptiveExitLayer", "adaptive_exit_layer");
const MIN_CONFIDENCE: FieldName = field_name!("minConfidence", "min_confidence");

/// Every exit config key, in the ADR's order.
pub const EXIT_CONFIG_FIELDS: [FieldName; 8] = [
    EXIT_LAYER,
    MIN_LAMBDA_FOR_EXIT,
    MIN_LAMBDA_STABILITY,
    MAX_BOUNDARY_CONCENTRATION,
    SPECULATIVE_TESTS,
    VERIFICATION_LAYERS,
    ADAPTIVE_EXIT_LAYER,
    MIN_CONFIDENCE,
];

/// ADR-033's `EarlyExitConfig`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitConfig {
    /// The earliest layer an exit is considered at (fixed, or the adaptive base); integer >= 0.
    pub exit_layer: u64,
    /// Lambda an exit needs; 0..=100.
    pub min_lambda_for_exit: f64,
    /// Stability an exit needs; 0..=1.
    pub min_lambda_stability: f64,
    /// Boundary concentration above which no exit happens; 0..=1.
    pub max_boundary_concentration: f64,
    /// Speculation is on when > 0; integer >= 0.
    pub speculative_tests: u64,
    /// How many skipped layers verification runs; integer >= 0.
    pub verification_layers: u64,
    /// Whether the exit layer adapts to the signal's stability.
    pub adaptive_exit_layer: bool,
    /// Confidence an exit needs; 0..=1.
    pub min_confidence: f64,
}

named_enum! {
    /// The ADR's named exit configs ([`ExitPreset::config`]).
    pub enum ExitPreset {
        /// `DEFAULT_EXIT_CONFIG` ([`ExitConfig::DEFAULT`]).
        Default = "default",
        /// `AGGRESSIVE_EXIT_CONFIG` ([`ExitConfig::AGGRESSIVE`]).
        Aggressive = "aggressive",
        /// `CONSERVATIVE_EXIT_CONFIG` ([`ExitConfig::CONSERVATIVE`]).
        Conservative = "conservative",
    }
}

impl ExitPreset {
    /// The preset's config.
    pub fn config(self) -> ExitConfig {
        match self {
            ExitPreset::Default => ExitConfig::DEFAULT,
            ExitPreset::Aggressive => ExitConfig::AGGRESSIVE,
            ExitPreset::Conservative => ExitConfig::CONSERVATIVE,
        }
    }
}

/// The names of the ADR's presets ([`ExitPreset::NAMES`]), as [`ExitConfig::preset`] reads them.
pub const EXIT_PRESETS: [&str; ExitPreset::ALL.len()] = ExitPreset::NAMES;

impl ExitConfig {
    /// `DEFAULT_EXIT_CONFIG`.
    pub const DEFAULT: ExitConfig = ExitConfig {
        exit_layer: 1,
        min_lambda_for_exit: 80.0,
        min_lambda_stability: 0.85,
        max_boundary_concentration: 0.5,
        speculative_tests: 4,
        verification_layers: 2,
        adaptive_exit_layer: true,
        min_confidence: 0.80,
    };
    /// `AGGRESSIVE_EXIT_CONFIG`.
    pub const AGGRESSIVE: ExitConfig = ExitConfig {
        exit_layer: 0,
        min_lambda_for_exit: 60.0,
        min_lambda_stability: 0.75,
        max_boundary_concentration: 0.6,
        speculative_tests: 8,
        verification_layers: 1,
        adaptive_exit_layer: true,
        min_confidence: 0.70,
    };
    /// `CONSERVATIVE_EXIT_CONFIG`.
    pub const CONSERVATIVE: ExitConfig = ExitConfig {
        exit_layer: 2,
        min_lambda_for_exit: 95.0,
        min_lambda_stability: 0.92,
        max_boundary_concentration: 0.35,
        speculative_tests: 2,
        verification_layers: 4,
        adaptive_exit_layer: false,
        min_confidence: 0.90,
    };

    /// The ADR preset named `name` (one of [`EXIT_PRESETS`]), or `None`.
    pub fn preset(name: &str) -> Option<Self> {
        ExitPreset::parse(name).map(ExitPreset::config)
    }

    /// The preset named `name` (`field` names the argument in errors: `invalid_config`,
    /// listing the names, for any other).
    pub fn preset_named(name: &str, field: &str) -> Result<Self> {
        ExitConfig::preset(name).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field,
                value::concat(&[
                    field,
                    " must be one of '",
                    &value::join(&EXIT_PRESETS, "', '"),
                    "', got '",
                    name,
                    "'",
                ]),
            )
        })
    }

    /// Merges a partial config object over `self` (`null` merges nothing).
    pub fn merged(&self, options: &Value, naming: Naming, path: &str, code: ErrorCode) -> Result<Self> {
        if matches!(options, Value::Null) {
            return Ok(self.clone());
        }
        let reader = ObjectReader::new(options, path, "config", naming, code)?;
        reader.reject_unknown(&EXIT_CONFIG_FIELDS)?;
        let mut c = self.clone();
        if reader.get(EXIT_LAYER).is_some() {
            c.exit_layer = reader.integer(EXIT_LAYER, 0, MAX_SAFE_INTEGER)?;
        }
        if reader.get(MIN_LAMBDA_FOR_EXIT).is_some() {
            c.min_lambda_for_exit = reader.number(MIN_LAMBDA_FOR_EXIT, 0.0, 100.0)?;
        }
        if reader.get(MIN_LAMBDA_STABILITY).is_some() {
            c.min_lambda_stability = reader.number(MIN_LAMBDA_STABILITY, 0.0, 1.0)?;
        }
        if reader.get(MAX_BOUNDARY_CONCENTRATION).is_some() {
            c.max_boundary_concentration = reader.number(MAX_BOUNDARY_CONCENTRATION, 0.0, 1.0)?;
        }
        if reader.get(SPECULATIVE_TESTS).is_some() {
            c.speculative_tests = reader.integer(SPECULATIVE_TESTS, 0, MAX_SAFE_INTEGER)?;
        }
        if reader.get(VERIFICATION_LAYERS).is_some() {
            c.verification_layers = reader.integer(VERIFICATION_LAYERS, 0, MAX_SAFE_INTEGER)?;
        }
        if reader.get(ADAPTIVE_EXIT_LAYER).is_some() {
            c.adaptive_exit_layer = reader.boolean(ADAPTIVE_EXIT_LAYER)?;
        }
        if reader.get(MIN_CONFIDENCE).is_some() {
            c.min_confidence = reader.number(MIN_CONFIDENCE, 0.0, 1.0)?;
        }
        Ok(c)
    }

    /// Parses a partial config merged over `DEFAULT_EXIT_CONFIG`.
    pub fn from_value(options: &Value, naming: Naming) -> Result<Self> {
        ExitConfig::DEFAULT.merged(options, naming, "", ErrorCode::InvalidConfig)
    }

    /// Checks a config built in Rust.
    pub fn validate(&self) -> Result<()> {
        ExitConfig::from_value(&self.to_value(Naming::Snake), Naming::Snake).map(|_| ())
    }

    /// The config object, keys in the ADR's order.
    pub fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .number(EXIT_LAYER.spelled(naming), self.exit_layer as f64)
            .number(MIN_LAMBDA_FOR_EXIT.spelled(naming), self.min_lambda_for_exit)
            .number(MIN_LAMBDA_STABILITY.spelled(naming), self.min_lambda_stability)
            .number(MAX_BOUNDARY_CONCENTRATION.spelled(naming), self.max_boundary_concentration)
            .number(SPECULATIVE_TESTS.spelled(naming), self.speculative_tests as f64)
            .number(VERIFICATION_LAYERS.spelled(naming), self.verification_layers as f64)
            .boolean(ADAPTIVE_EXIT_LAYER.spelled(naming), self.adaptive_exit_layer)
            .number(MIN_CONFIDENCE.spelled(naming), self.min_confidence)
            .build()
    }
}

impl Default for ExitConfig {
    fn default() -> Self {
        ExitConfig::DEFAULT
    }
}

named_enum! {
    /// Why `shouldExit` answered as it did.
    pub enum ExitReason {
        /// Before the (adaptive) exit layer, or no exit happened at all.
        ForcedContinue = "forced_continue",
        /// Lambda below `minLambdaForExit`.
        LambdaTooLow = "lambda_too_low",
        /// Stability below `minLambdaStability`.
        LambdaUnstable = "lambda_unstable",
        /// Boundary concentration above `maxBoundaryConcentration`.
        BoundariesConcentrated = "boundaries_concentrated",
        /// Combined confidence below `minConfidence`.
        InsufficientConfidence = "insufficient_confidence",
        /// Every condition met.
        ConfidentExit = "confident_exit",
        /// A policy run (`fail_fast`, `risk_bounded`) stopped at a failing layer: the verdict
        /// is known. Never a decision's reason.
        LayerFailed = "layer_failed",
        /// A `risk_bounded` run skipped the layers left: the bound on missing a failure in
        /// them is within the budget. Never a decision's reason.
        RiskBounded = "risk_bounded",
        /// A policy run ran every layer, and none failed. Never a decision's reason.
        Completed = "completed",
    }
}

impl ExitReason {
    /// The reasons `shouldExit` gives (the ADR's six); the rest end policy runs only.
    pub const DECISION_NAMES: [&'static str; 6] = [
        ExitReason::NAMES[0],
        ExitReason::NAMES[1],
        ExitReason::NAMES[2],
        ExitReason::NAMES[3],
        ExitReason::NAMES[4],
        ExitReason::NAMES[5],
    ];
}

/// [`CoherenceEarlyExit::should_exit`]'s decision without the explanation sentence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExitVerdict {
    /// Whether the remaining layers may be skipped.
    pub can_exit: bool,
    /// Confidence of the decision.
    pub confidence: f64,
    /// The target exit layer (forced continue) or this layer.
    pub exit_layer: i64,
    /// Why.
    pub reason: ExitReason,
    /// Whether skipped layers get predictions.
    pub enable_speculation: bool,
}

/// ADR-033's `EarlyExitDecision`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitDecision {
    /// Whether the remaining layers may be skipped.
    pub can_exit: bool,
    /// Confidence of the decision.
    pub confidence: f64,
    /// The target exit layer (forced continue) or this layer.
    pub exit_layer: i64,
    /// Why.
    pub reason: ExitReason,
    /// Whether skipped layers get predictions.
    pub enable_speculation: bool,
    /// A sentence, as the ADR words it.
    pub explanation: String,
}

// The keys of the decision object (`ExitDecision::KEYS`).
const CAN_EXIT: Key = key!("canExit", "can_exit");
const CONFIDENCE: Key = Key::same("confidence");
const DECISION_EXIT_LAYER: Key = key!("exitLayer", "exit_layer");
const REASON: Key = Key::same("reason");
const ENABLE_SPECULATION: Key = key!("enableSpeculation", "enable_speculation");
const EXPLANATION: Key = Key::same("explanation");

impl ExitDecision {
    /// The keys of the decision object, in the order [`ExitDecision::to_value`] writes them.
    pub const KEYS: [Key; 6] = [CAN_EXIT, CONFIDENCE, DECISION_EXIT_LAYER, REASON, ENABLE_SPECULATION, EXPLANATION];

    /// The decision object.
    pub fn to_value(&self, naming: Naming) -> Value {
        ObjectBuilder::new()
            .boolean(spelled!(CAN_EXIT, naming), self.can_exit)
            .number(CONFIDENCE.js, self.confidence)
            .number(spelled!(DECISION_EXIT_LAYER, naming), self.exit_layer as f64)
            .string(REASON.js, self.reason.as_str())
            .boolean(spelled!(ENABLE_SPECULATION, naming), self.enable_speculation)
            .string(EXPLANATION.js, &self.explanation)
            .build()
    }

    /// Reads a decision as [`ExitDecision::to_value`] writes it with `naming`.
    pub fn from_value(value: &Value, naming: Naming) -> Result<Self> {
        const FIELDS: [FieldName; 6] = Key::fields(ExitDecision::KEYS);
        let r = snapshot::result_object(value, "", "decision", naming, &FIELDS)?;
        let [can_exit, confidence, exit_layer, reason, enable_speculation, explanation] = FIELDS;
        Ok(ExitDecision {
            can_exit: r.boolean(can_exit)?,
            confidence: r.number(confidence, 0.0, 1.0)?,
            exit_layer: snapshot::layer_number(&r, exit_layer)?,
            reason: snapshot::pick(&r, reason, &ExitReason::DECISION_NAMES, ExitReason::parse)?,
            enable_speculation: r.boolean(enable_speculation)?,
            explanation: r.string(explanation)?.to_string(),
        })
    }
}

/// ADR-033's `CoherenceEarlyExit`.
#[derive(Clone, Debug, PartialEq)]
pub struct CoherenceEarlyExit {
    config: ExitConfig,
    total_layers: u64,
}

/// Validates a `totalLayers` argument (integer >= 1).
pub(crate) fn total_layers_argument(value: &Value, field: &str, code: ErrorCode) -> Result<u64> {
    let (min, max) = CoherenceEarlyExit::TOTAL_LAYERS_RANGE;
    value::integer_argument(value, field, code, min, max)
}

impl CoherenceEarlyExit {
    /// The range of `totalLayers`, `(min, max)`: the one the decider checks, which hosts also
    /// describe (the MCP server's schemas).
    pub const TOTAL_LAYERS_RANGE: (u64, u64) = (1, MAX_SAFE_INTEGER);

    /// An exit decider; `total_layers` >= 1 only bounds the adaptive exit layer.
    pub fn new(config: ExitConfig, total_layers: u64) -> Result<Self> {
        config.validate()?;
        if !(Self::TOTAL_LAYERS_RANGE.0..=Self::TOTAL_LAYERS_RANGE.1).contains(&total_layers) {
            return Err(Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                "total_layers",
                "total_layers must be an integer >= 1",
            ));
        }
        Ok(CoherenceEarlyExit { config, total_layers })
    }

    /// An exit decider over a config that was validated before (a binding that keeps a
    /// validated config as numbers rebuilds it per step); nothing is checked again.
    pub fn prevalidated(config: ExitConfig, total_layers: u64) -> Self {
        CoherenceEarlyExit { config, total_layers }
    }

    /// From host values: a partial config merged over the default, and `totalLayers`.
    pub fn from_values(config: &Value, total_layers: &Value, naming: Naming) -> Result<Self> {
        let config = ExitConfig::from_value(config, naming)?;
        let field = field_name!("totalLayers", "total_layers").spelled(naming);
        let total_layers = total_layers_argument(total_layers, field, ErrorCode::InvalidConfig)?;
        Ok(CoherenceEarlyExit { config, total_layers })
    }

    /// The config.
    pub fn config(&self) -> &ExitConfig {
        &self.config
    }

    /// `totalLayers`.
    pub fn total_layers(&self) -> u64 {
        self.total_layers
    }

    /// ADR-033's `shouldExit(signal, layer)`.
    pub fn should_exit(&self, signal: &QualitySignal, layer: u64) -> ExitDecision {
        let verdict = self.exit_verdict(signal, layer);
        let explanation = self.explanation(signal, i64::try_from(layer).unwrap_or(i64::MAX), &verdict);
        let ExitVerdict { can_exit, confidence, exit_layer, reason, enable_speculation } = verdict;
        ExitDecision { can_exit, confidence, exit_layer, reason, enable_speculation, explanation }
    }

    /// `shouldExit` without the explanation sentence: the numbers a run needs, with no
    /// string built (the test pyramid's step calls this once per layer).
    pub fn exit_verdict(&self, signal: &QualitySignal, layer: u64) -> ExitVerdict {
        let layer = i64::try_from(layer).unwrap_or(i64::MAX);
        let target = if self.config.adaptive_exit_layer {
            self.adaptive_exit_layer(signal)
        } else {
            i64::try_from(self.config.exit_layer).unwrap_or(i64::MAX)
        };
        if layer < target {
            return ExitVerdict {
                can_exit: false,
                confidence: 0.0,
                exit_layer: target,
                reason: ExitReason::ForcedContinue,
                enable_speculation: false,
            };
        }
        let c = &self.config;
        let verdict = |can_exit: bool, confidence: f64, reason: ExitReason| ExitVerdict {
            can_exit,
            confidence,
            exit_layer: layer,
            reason,
            enable_speculation: can_exit && c.speculative_tests > 0,
        };
        if signal.lambda < c.min_lambda_for_exit {
            return verdict(false, signal.lambda / 100.0, ExitReason::LambdaTooLow);
        }
        let stability = stability(signal);
        if stability < c.min_lambda_stability {
            return verdict(false, stability, ExitReason::LambdaUnstable);
        }
        if signal.boundary_concentration > c.max_boundary_concentration {
            return verdict(false, 1.0 - signal.boundary_concentration, ExitReason::BoundariesConcentrated);
        }
        let lambda_strength = signal.lambda / 100.0;
        let boundary_dispersion = 1.0 - signal.boundary_concentration;
        let confidence = lambda_strength * 0.4 + stability * 0.4 + boundary_dispersion * 0.2;
        if confidence < c.min_confidence {
            return verdict(false, confidence, ExitReason::InsufficientConfidence);
        }
        verdict(true, confidence, ExitReason::ConfidentExit)
    }

    /// The ADR's explanation sentence of a verdict.
    fn explanation(&self, signal: &QualitySignal, layer: i64, verdict: &ExitVerdict) -> String {
        let c = &self.config;
        match verdict.reason {
            ExitReason::ForcedContinue => {
                let mut explanation = String::from("Layer ");
                explanation.push_str(&crate::num::uint_string(layer as u64));
                explanation.push_str(" < target ");
                explanation.push_str(&crate::num::uint_string(verdict.exit_layer as u64));
                explanation.push_str(", continuing");
                explanation
            }
            ExitReason::LambdaTooLow => value::concat(&[
                "Lambda ",
                &num::to_js_string(signal.lambda),
                " < minimum ",
                &num::to_js_string(c.min_lambda_for_exit),
            ]),
            ExitReason::LambdaUnstable => value::concat(&[
                "Stability ",
                &percent(verdict.confidence),
                "% < minimum ",
                &percent(c.min_lambda_stability),
                "%",
            ]),
            ExitReason::BoundariesConcentrated => value::concat(&[
                "Boundary concentration ",
                &percent(signal.boundary_concentration),
                "% > max ",
                &percent(c.max_boundary_concentration),
                "%",
            ]),
            ExitReason::InsufficientConfidence => value::concat(&[
                "Confidence ",
                &percent(verdict.confidence),
                "% < minimum ",
                &percent(c.min_confidence),
                "%",
            ]),
            // The policy runs' reasons are never a verdict's: `exit_verdict` gives the ADR's six.
            ExitReason::ConfidentExit | ExitReason::LayerFailed | ExitReason::RiskBounded | ExitReason::Completed => {
                value::concat(&["All conditions met with ", &percent(verdict.confidence), "% confidence"])
            }
        }
    }

    /// `shouldExit` on host values (code `invalid_signal` for the signal and the layer).
    pub fn should_exit_value(&self, signal: &Value, layer: &Value, naming: Naming) -> Result<ExitDecision> {
        let signal = QualitySignal::from_value(signal, naming)?;
        let layer = value::integer_argument(layer, "layer", ErrorCode::InvalidSignal, 0, MAX_SAFE_INTEGER)?;
        Ok(self.should_exit(&signal, layer))
    }

    /// ADR-033's `calculateAdaptiveExitLayer`.
    pub fn adaptive_exit_layer(&self, signal: &QualitySignal) -> i64 {
        let stability = stability(signal);
        let exit_layer = i64::try_from(self.config.exit_layer).unwrap_or(i64::MAX);
        if stability >= 0.92 && signal.lambda >= self.config.min_lambda_for_exit {
            (exit_layer - 1).max(0)
        } else if stability >= 0.75 {
            exit_layer
        } else {
            let last = i64::try_from(self.total_layers).unwrap_or(i64::MAX) - 1;
            exit_layer.saturating_add(1).min(last)
        }
    }
}

/// `lambdaPrev > 0 ? 1 - |lambda - lambdaPrev| / lambdaPrev : 0`.
fn stability(signal: &QualitySignal) -> f64 {
    let delta = (signal.lambda - signal.lambda_prev).abs();
    if signal.lambda_prev > 0.0 {
        1.0 - delta / signal.lambda_prev
    } else {
        0.0
    }
}

/// `(x * 100).toFixed(1)`.
fn percent(x: f64) -> String {
    num::to_fixed(x * 100.0, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyramid::{calculate_quality_signal, LayerResult};

    #[test]
    fn a_decision_writes_its_keys_in_order_in_both_namings_and_reads_back() {
        let exit = CoherenceEarlyExit::new(ExitConfig::DEFAULT, 4).unwrap_or_else(|e| panic!("{e}"));
        let decision = exit.should_exit(&calculate_quality_signal(&LayerResult::new(1.0, 1.0, 0.0)), 0);
        for naming in [Naming::Js, Naming::Snake] {
            let value = decision.to_value(naming);
            let Value::Object(entries) = &value else { unreachable!() };
            let want: Vec<&str> = ExitDecision::KEYS.iter().map(|k| k.spelled(naming)).collect();
            assert_eq!(entries.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), want);
            assert_eq!(ExitDecision::from_value(&value, naming).as_ref(), Ok(&decision));
        }
    }

    #[test]
    fn presets_by_name() {
        assert_eq!(EXIT_PRESETS, ["default", "aggressive", "conservative"]);
        let configs = [ExitConfig::DEFAULT, ExitConfig::AGGRESSIVE, ExitConfig::CONSERVATIVE];
        for (name, config) in EXIT_PRESETS.into_iter().zip(configs) {
            assert_eq!(ExitConfig::preset(name), Some(config.clone()));
            assert_eq!(ExitConfig::preset_named(name, "preset"), Ok(config));
        }
        assert_eq!(ExitConfig::preset("Default"), None);
        let e = ExitConfig::preset_named("fast", "preset").unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_config", "preset"));
        assert_eq!(e.message(), "preset must be one of 'default', 'aggressive', 'conservative', got 'fast'");
    }
}
