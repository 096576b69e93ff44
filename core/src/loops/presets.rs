//! The named loop presets, in one table: [`LoopPreset`] names each preset once, and its
//! methods give each preset's engine config, the output a loop using it returns and whether
//! the built-in analytics is its diminishing-returns source (a `match` per column, so a new
//! preset that leaves one out does not compile). [`EarlyStoppingConfig::preset`], the
//! replay's `LoopPolicy` and [`LOOP_PRESETS`] all read this table.
//!
//! Why methods and not a table of structs: two stored configs cost 768 bytes of the
//! size-budgeted WebAssembly module, and function pointers to build them ~170 bytes more than
//! these matches.

use crate::loops::config::{EarlyStoppingConfig, PlateauDeltaSource, PlateauMode};
use crate::value::{self, named_enum, Value};
use crate::value::{Error, ErrorCode, ErrorKind, Result};

named_enum! {
    /// Which output a loop hands back when it stops.
    pub enum ReturnPolicy {
        /// The last iteration run (what upstream's loop returns).
        Last = "last",
        /// The decision's `best_iteration`.
        Best = "best",
    }
}

named_enum! {
    /// The named loop presets.
    pub enum LoopPreset {
        /// `seed`: upstream's `DEFAULT_CONFIG` (the default everywhere), with the built-in
        /// analytics attached (as upstream is meant to be used), returning the last output.
        Seed = "seed",
        /// `recommended`: [`EarlyStoppingConfig::recommended`], no outside diminishing-returns
        /// source, returning the best iteration (the preset is tuned for that).
        Recommended = "recommended",
    }
}

impl LoopPreset {
    /// The preset's engine config.
    pub fn config(self) -> EarlyStoppingConfig {
        match self {
            LoopPreset::Seed => EarlyStoppingConfig::default(),
            LoopPreset::Recommended => EarlyStoppingConfig {
                plateau_consecutive_count: 5,
                plateau_improvement_threshold: 1.0,
                plateau_delta_source: Some(PlateauDeltaSource::Computed),
                plateau_mode: Some(PlateauMode::Absolute),
                plateau_min_quality: Some(70.0),
                no_improvement_patience: Some(5),
                enable_diminishing_returns: false,
                strict_iterations: Some(true),
                ..EarlyStoppingConfig::default()
            },
        }
    }

    /// Which output a loop using the preset returns (a replay's default `returns`).
    pub fn returns(self) -> ReturnPolicy {
        match self {
            LoopPreset::Seed => ReturnPolicy::Last,
            LoopPreset::Recommended => ReturnPolicy::Best,
        }
    }

    /// Whether the built-in `IterationAnalytics` (default config) is attached as the
    /// diminishing-returns source (a replay's default `analytics`).
    pub fn builtin_analytics(self) -> bool {
        match self {
            LoopPreset::Seed => true,
            LoopPreset::Recommended => false,
        }
    }
}

/// The names of the loop presets ([`LoopPreset::NAMES`]).
pub const LOOP_PRESETS: [&str; LoopPreset::ALL.len()] = LoopPreset::NAMES;

impl EarlyStoppingConfig {
    /// The `recommended` preset, measured by replay on real agent runs (`docs/replay.md`):
    /// stop on a verified pass that also shows high confidence and quality (verification is
    /// evidence next to the quality score, not proof on its own); count a plateau only when
    /// every record of the window reaches 70 points and the *computed* change stays under 1
    /// point, over 5 records (a run stuck at 0 is failing, not done); give up explicitly after
    /// 5 iterations without a new best; no outside diminishing-returns source (its relative rule cannot
    /// tell a run stuck at 0 from a finished one). Return `best_iteration`, not the last
    /// output: the preset is tuned for that. Iteration numbers must increase
    /// (`strictIterations`), so a loop resumed from a snapshot cannot count an iteration twice.
    pub fn recommended() -> Self {
        LoopPreset::Recommended.config()
    }

    /// A named preset ([`LOOP_PRESETS`]), or `None` for an unknown name.
    pub fn preset(name: &str) -> Option<Self> {
        LoopPreset::parse(name).map(LoopPreset::config)
    }

    /// A named preset from a host value (`field` names the argument in errors): a string
    /// that is one of [`LOOP_PRESETS`], else `invalid_config`.
    pub fn preset_value(name: &Value, field: &str) -> Result<Self> {
        let text = match name {
            Value::String(s) => s.as_str(),
            other => {
                return Err(Error::new(
                    ErrorCode::InvalidConfig,
                    ErrorKind::Type,
                    field,
                    value::concat(&[field, " must be a string, got ", &other.describe()]),
                ))
            }
        };
        EarlyStoppingConfig::preset(text).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidConfig,
                ErrorKind::Range,
                field,
                value::concat(&[
                    field,
                    " must be one of '",
                    &value::join(&LOOP_PRESETS, "', '"),
                    "', got ",
                    &name.describe(),
                ]),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_preset_once_and_every_config_is_valid() {
        assert_eq!(LOOP_PRESETS, ["seed", "recommended"]);
        for (preset, name) in LoopPreset::ALL.into_iter().zip(LOOP_PRESETS) {
            assert_eq!(LoopPreset::parse(name), Some(preset));
            assert_eq!(EarlyStoppingConfig::preset(name), Some(preset.config()));
            assert_eq!(preset.config().validate(), Ok(()));
        }
        assert_eq!(LoopPreset::parse("Seed"), None);
        assert_eq!(LoopPreset::Recommended.config(), EarlyStoppingConfig::recommended());
        assert_eq!(EarlyStoppingConfig::preset("seed"), Some(EarlyStoppingConfig::default()));
    }
}
