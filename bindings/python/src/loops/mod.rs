//! Engine 1, loop stopping: `EarlyStopping` (`engine`), its config, history records,
//! decisions and summary, the built-in diminishing-returns source (`analytics`), the
//! behaviour detectors and interventions (`behavior`) and the batch replay (`replay`) and its calibration (`calibrate`).

pub mod analytics;
pub mod behavior;
pub mod calibrate;
pub mod config;
pub mod decision;
pub mod engine;
pub mod records;
pub mod refine;
pub mod replay;

use earlyexit::time::iso_from_millis;

/// The current time as `new Date().toISOString()` prints it (the core has no clock).
pub fn now_iso() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    iso_from_millis(ms)
}
