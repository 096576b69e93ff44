//! What only the bindings and the command call: host messages ([`host`]), numbers as
//! JavaScript writes them ([`num`]), the stateless `*_value` adapters over [`Value`](crate::Value)
//! and the engines' rule pieces the JS fast path inlines. Hidden from the docs: a Rust user
//! calls the engines, configs and results at the crate root and in [`loops`](crate::loops) /
//! [`pyramid`](crate::pyramid); nothing here is promised to stay.
//!
//! The tree mirrors the crate's: `kit::loops::replay::replay_value` is the adapter of
//! `loops::replay`.

/// Host messages: what a binding checks on its side, and the wording of its errors.
pub mod host {
    pub use crate::host::*;
}

/// What each key holds, for the generator's typed shapes.
pub mod shape {
    pub use crate::value::shape::*;
}

/// Numbers formatted and parsed as JavaScript does.
pub mod num {
    pub use crate::num::*;
}

/// The loop engine's adapters and rule pieces.
pub mod loops {
    pub use config::{from_slot_array, from_slots, to_slots, CONFIG_SCHEMA, CONFIG_SLOT_COUNT};
    /// The loop config's table, from [`loop_config_fields!`](crate::loop_config_fields):
    /// each key's name const, its type and doc line (`CONFIG_SCHEMA`), the JS fast path's
    /// slot encoding, and the conversions a binding's per-field code calls.
    pub mod config {
        pub use crate::loop_config_fields;
        pub use crate::loops::config::names::*;
        pub use crate::loops::config::{
            from_slot_array, from_slots, to_slots, OptionSlot, Plain, Slot, CONFIG_FIELDS, CONFIG_SCHEMA,
            CONFIG_SLOT_COUNT,
        };
    }
    pub use crate::loops::engine::{invalid_analytics_source, trigger_from_str};
    pub use crate::loops::records::{
        check_iteration_order, history_path, iteration_follows, record_from_value, record_of, validate_iteration,
    };
    pub use crate::loops::refine::loop_policy;
    pub use crate::loops::rules::{
        budget_details, check_budgets, check_high_confidence, check_max_iterations, check_no_improvement,
        check_plateau, check_regression, diminishing_returns_answer, diminishing_returns_decision,
        diminishing_returns_details, diminishing_returns_reason, high_confidence_answer, high_confidence_details,
        max_iterations_details, no_improvement_details, plateau_answer, plateau_details, regression_details,
        stop_confidence, stop_decision, stop_reason, stop_trigger, warm_up, warm_up_min, warm_up_reason,
    };
    pub use crate::loops::snapshot::strict_iterations_from;
    pub use crate::loops::state::{check_history, fold, record_is_valid, report_iteration_is_valid, window_capacity};
    pub use crate::loops::verdict::{
        bare_decision, decide_over, decision, verdict, verdict_confidence, verdict_from, verdict_reason,
    };
    /// The agent loop's stop hook (the command's `hook`).
    pub mod agent {
        pub use crate::loops::agent::*;
    }
    /// Replay and calibration adapters.
    pub mod replay {
        pub use crate::loops::replay::artifact::{calibrate_value, corpus_value, engine_from_artifact_value};
        pub use crate::loops::replay::calibrate::min_tasks;
        pub use crate::loops::replay::family::{family_path, family_policy};
        pub use crate::loops::replay::input::read_run_line;
        pub use crate::loops::replay::lifecycle::{loop_drift_value, promote_loop_value};
        pub use crate::loops::replay::plan::{
            calibration_plan_value, check_risk_delta, tasks_to_certify, uncertified_notice,
        };
        pub use crate::loops::replay::play::{replay_lines_value, replay_value};
        pub use crate::loops::replay::runs::{implied_quality_delta, task_keys, tasks_value};
    }
    /// Policy adapters.
    pub mod policy {
        pub use crate::loops::policy::host::{engine_policy_value, policy_step_value, restored_policy_value};
        pub use crate::loops::policy::stop::{tree_entries, tree_of};
    }
    /// Behavior detection adapters.
    pub mod behavior {
        pub use crate::loops::behavior::history::read_history;
        pub use crate::loops::behavior::intervention::{
            build_strategy_override, build_warning, check_timestamp, inject_warning,
        };
        pub use crate::loops::behavior::log::{
            export_state, import_keeping_log, log_start, pause_state, summarize_value,
        };
    }
    /// Analytics adapters.
    pub mod analytics {
        pub use crate::loops::analytics::engine::verified_only_argument;
        pub use crate::loops::analytics::files::{file_target, path_argument};
        pub use crate::loops::analytics::records::check_written_record;
    }
}

/// The pyramid engine's adapters and rule pieces.
pub mod pyramid {
    pub use crate::pyramid::result::{check_layer_key, layer_failed};
    pub use crate::pyramid::run::{invalid_runner, parse_layers};
    pub use crate::pyramid::speculation::{
        classify_outcome, decision_confidence, predict_layer_outcome, skipped_count, verification_count,
    };
    /// JUnit / Cobertura report reading (`earlyexit-junit`).
    pub mod test_report {
        pub use crate::pyramid::test_report::*;
    }
    /// Policy adapters.
    pub mod policy {
        pub use crate::pyramid::policy::history::{
            build_arg, history_argument, history_value, learn_value, merge_value, model_argument, ran_arg, read_model,
            stats_value,
        };
        pub use crate::pyramid::policy::label::read_label;
        pub use crate::pyramid::policy::live::check_layer_specs;
        pub use crate::pyramid::policy::shadow::{no_receipt_reason, shadow_value};
    }
    /// Replay and calibration adapters.
    pub mod replay {
        pub use crate::pyramid::replay::lifecycle::{
            clopper_pearson_upper, corpus_sha256, drift_value, now_argument, promote_value,
        };
        pub use crate::pyramid::replay::runs::read_run_line;
        pub use crate::pyramid::replay::values::{
            calibrate_artifact_value, calibrate_value, decide_value, replay_value, report_value, run_value,
            shadow_value, summary_value, update_value,
        };
    }
}

/// Text helpers of the ground floor.
pub mod value {
    pub use crate::value::json::utf8_text;
    pub use crate::value::names::same_field;
    pub use crate::value::text::concat;
}
