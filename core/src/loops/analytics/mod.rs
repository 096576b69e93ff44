//! The built-in diminishing-returns source ([`IterationAnalytics`]), a drop-in for aiwg's
//! `iteration-analytics.mjs`: records quality per iteration, detects diminishing returns,
//! classifies the trajectory, picks the best iteration, sums usage, and writes upstream's
//! summary, quality chart and report. Everything is incremental: recording is O(1) and no
//! query rescans the history, so a 1,000,000-iteration loop stays cheap.
//!
//! The core has no clock and does no I/O: a binding passes "now" (its clock, as
//! `new Date().toISOString()` formats it; taken as given) where upstream reads the clock,
//! and writes the files itself. Times a caller gives (`startTime`, `endTime`, a record's
//! `timestamp`) are checked.
//!
//! The files, lowest first: `config` ([`AnalyticsConfig`]) < `records` ([`AnalyticsInput`],
//! [`AnalyticsRecord`]) < `engine` (the rules over the records) < `summary` (upstream's
//! `AnalyticsSummary`, written and read back) < `snapshot` < `files` (where the saves
//! write) < `report` (chart, report and summary file texts).

mod config;
pub(crate) mod engine;
pub(crate) mod files;
pub(crate) mod records;
mod report;
mod snapshot;
mod summary;

pub use config::{AnalyticsConfig, SelectionCriteria, ANALYTICS_CONFIG_FIELDS, DEFAULT_STORAGE_PATH};
pub use engine::{IterationAnalytics, Selection, Trajectory, REASON_NO_ITERATIONS};
pub use files::{FileTarget, SavedFile};
pub use records::{AnalyticsInput, AnalyticsRecord, SnapshotPath, RECORD_FIELDS};
pub use report::SummaryPieces;
pub use summary::{AnalyticsSummary, IterationSelection, SUMMARY_FIELDS};
