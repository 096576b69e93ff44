//! `IterationRecord`: one entry of `EarlyStopping.history`.

use earlyexit::IterationRecord;
use pyo3::prelude::*;

use crate::shims::value_class;

value_class! {
    /// One entry of `EarlyStopping.history`.
    "IterationRecord" => PyIterationRecord(IterationRecord) {
        value: fixed,
        pickle: result(|v| IterationRecord::from_value(v, "")),
        repr: snake,
    }
    getters {
        iteration_number: u64 = |r| r.observation.iteration;
        quality_score: f64 = |r| r.observation.quality_score;
        confidence: f64 = |r| r.observation.confidence;
        verification_status: &'static str = |r| r.observation.verification_status.as_str();
        quality_delta: f64 = |r| r.observation.quality_delta;
        timestamp: &str = |r| &r.timestamp;
        tokens_used: Option<f64> = |r| r.usage.as_ref().and_then(|u| u.tokens_used);
        token_cost_usd: Option<f64> = |r| r.usage.as_ref().and_then(|u| u.token_cost_usd);
        execution_time_ms: Option<f64> = |r| r.usage.as_ref().and_then(|u| u.execution_time_ms);
    }
}
