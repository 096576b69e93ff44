//! The fast path's side of the JS contract: every slot, stride, flag bit, mode and code the
//! JS layer and [`crate::fast`] exchange through the scratch buffer, each written once here.
//!
//! [`contract_table!`](crate::contract_table) declares the constants the Rust code uses and,
//! from the same lines, a [`Table`] of them. The generator room (`dev/`, `make generate`)
//! renders the tables into `bindings/js/api/contract.generated.mjs`, which the JS layer
//! imports, and its fingerprint covers them: a slot that moves changes the fingerprint the
//! native module answers on load, so a JS layer built against other slots refuses to run.
//! (The tables are consts: only the constants a build uses, and the fingerprint's value,
//! reach a binary.)

use earlyexit::loops::SeedCheck;

/// One contract constant: its JS name, value and documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The name in the generated JS module (the Rust name, with the table's prefix).
    pub js: &'static str,
    /// The value (every one is an integer; slots, bits and codes alike).
    pub value: f64,
    /// The doc comment's lines.
    pub doc: &'static str,
}

/// A named list of contract constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table {
    /// The table's name.
    pub name: &'static str,
    /// What the table is, for the generated module.
    pub doc: &'static str,
    /// Its constants, in declaration order.
    pub entries: &'static [Entry],
}

/// Declares contract constants of one type and a [`Table`] of them (named `$table`): each
/// line `/// doc` `NAME = value;` becomes `pub const NAME: $ty = value;` and a row
/// `{js: "<prefix>NAME", value, doc}`.
#[macro_export]
macro_rules! contract_table {
    (
        $(#[doc = $table_doc:literal])*
        $table:ident: $ty:ty, js $prefix:literal;
        $( $(#[doc = $doc:literal])* $name:ident = $value:expr; )*
    ) => {
        $( $(#[doc = $doc])* pub const $name: $ty = $value; )*
        $(#[doc = $table_doc])*
        pub const $table: $crate::slots::Table = $crate::slots::Table {
            name: stringify!($table),
            doc: concat!($($table_doc, "\n"),*),
            entries: &[$($crate::slots::Entry {
                js: concat!($prefix, stringify!($name)),
                value: $name as f64,
                doc: concat!($($doc, "\n"),*),
            }),*],
        };
    };
}

contract_table! {
    /// The loop's slots: inputs, outputs (below [`STATE`]), then the engine's own state.
    LOOP_SLOTS: usize, js "";
    // --- inputs
    /// The record's iteration (the argument of `recordIterationResult`).
    IN_ITERATION = 0;
    /// `quality_score`.
    IN_QUALITY = 1;
    /// `confidence`.
    IN_CONFIDENCE = 2;
    /// `verification_status` as its index in `STATUSES`.
    IN_STATUS = 3;
    /// `quality_delta`.
    IN_DELTA = 4;
    /// Which optional fields are given (`LOOP_FLAGS`).
    IN_FLAGS = 5;
    /// `tokens_used`.
    IN_TOKENS = 6;
    /// `token_cost_usd`.
    IN_COST = 7;
    /// `execution_time_ms`.
    IN_TIME = 8;
    /// `iteration_number`.
    IN_ITERATION_NUMBER = 9;
    /// The diminishing-returns source (`SOURCE_*`).
    IN_SOURCE = 10;
    /// The source's report: `detected` (0/1).
    IN_DETECTED = 11;
    /// Whether the report has an `iteration` (`REPORT_ITERATION_*`).
    IN_REPORT_ITERATION_KIND = 12;
    /// The report's `iteration` (with `REPORT_ITERATION_NUMBER`).
    IN_REPORT_ITERATION = 13;
    /// The given timestamp's length, its bytes from `IN_TIMESTAMP` on (8 to a slot, the
    /// slots' own bytes, which the JS layer writes through a `Uint8Array` view): a string
    /// crosses as bytes (a napi or wasm string costs more than the whole fold). A timestamp
    /// whose code units do not all fit a byte is not sent: the JS layer gives a length above
    /// `MAX_FAST_TIMESTAMP`, so the record takes the JSON path, where the core decides.
    IN_TIMESTAMP_LEN = 14;
    /// The seed's check methods the JS object overrides (`CHECK_*` mask) plus
    /// `DELEGATE_RESUME` x the position in the order to resume from: `decide` then answers
    /// `CODE_DELEGATE` at an overridden check (`DELEGATED_*` and the resume position in the
    /// detail slots), and the JS layer calls the override. Negative (`*_ANSWER`): `decide`
    /// answers one of the seed's check methods instead (a stop with its details, or
    /// `CODE_GO_ON` with its confidence; `reason` gives the text). 0 (the normal case, and
    /// whenever `fold` runs): nothing is delegated.
    IN_DELEGATE = 15;
    /// The timestamp's bytes (`MAX_FAST_TIMESTAMP / 8` slots).
    IN_TIMESTAMP = 48;
    /// Longer timestamps take the JSON path.
    MAX_FAST_TIMESTAMP = 64;
    // --- outputs
    /// The decision's code (`LOOP_CODES`), as `decide` answers it.
    OUT_CODE = 16;
    /// The decision's confidence.
    OUT_CONFIDENCE = 17;
    /// The stop's details, `DETAIL_SLOTS` slots in the order of the details' keys
    /// (`DETAILS` in the generated module).
    OUT_DETAIL = 18;
    /// Whether there is a best record yet (0/1).
    OUT_BEST_PRESENT = 24;
    /// The best record's iteration.
    OUT_BEST_ITERATION = OUT_BEST_PRESENT + 1;
    /// The best record's quality.
    OUT_BEST_QUALITY = OUT_BEST_PRESENT + 2;
    /// How many budget statuses follow.
    OUT_BUDGET_COUNT = 27;
    /// The budget statuses, `BUDGET_STATUS_SLOTS` each, in the order of their keys
    /// (`keys::BUDGET_STATUS`).
    OUT_BUDGETS = 28;
    /// Where the plateau's improvements start (`IMPROVEMENT_SLOTS` each, in the order of
    /// their keys, `keys::PLATEAU_STEP`), after the engine's state.
    OUT_IMPROVEMENTS_AT = 44;
    /// Detail slots.
    DETAIL_SLOTS = 6;
    /// `CODE_DELEGATE`: which check to call (`DELEGATED_*`).
    OUT_DELEGATE_CHECK = OUT_DETAIL;
    /// `CODE_DELEGATE`: the position to resume from (`IN_DELEGATE`).
    OUT_DELEGATE_RESUME = OUT_DETAIL + 1;
    /// Slots per budget status.
    BUDGET_STATUS_SLOTS = 5;
    /// Slots per plateau improvement.
    IMPROVEMENT_SLOTS = 3;
    // --- the engine's state
    /// The engine's own slots start here; the JS object keeps a copy of its state from
    /// `COUNTERS` on. (Slots 112..256 are the pyramid's, `PYRAMID_SLOTS`.)
    STATE = 256;
    /// The config's slots (the JS layer caches them per distinct config).
    CONFIG = STATE;
    // One per config key: the core's `loop_config_fields!`, encoded by `kit::loops::to_slots`.
    /// How many slots the config takes.
    CONFIG_SLOTS = earlyexit::kit::loops::CONFIG_SLOT_COUNT;
    /// The counters (`COUNTER_*` offsets from here).
    COUNTERS = STATE + CONFIG_SLOTS;
    /// Records folded.
    COUNTER_RECORDED = 0;
    /// Best verified record: present, iteration, quality.
    COUNTER_BEST_VERIFIED = 1;
    /// Best record overall: present, iteration, quality.
    COUNTER_BEST_OVERALL = 4;
    /// The usage sums (tokens, cost, time), in `BUDGETS` order.
    COUNTER_SUMS = 7;
    /// Records without each usage field.
    COUNTER_WITHOUT = 10;
    /// The regression guard's peak: present, iteration, quality.
    COUNTER_PEAK = 13;
    /// The regression streak.
    COUNTER_REGRESSION_STREAK = 16;
    /// Records since the peak.
    COUNTER_SINCE_PEAK = 17;
    /// Slots of the counters.
    COUNTER_SLOTS = 18;
    /// The usage sums' slots (what the JSON path sends as the engine's totals).
    USAGE_SUMS = COUNTERS + COUNTER_SUMS;
    /// How many observations the window holds.
    WINDOW_LEN = COUNTERS + COUNTER_SLOTS;
    /// The window, oldest first, `OBSERVATION_SLOTS` each.
    WINDOW = WINDOW_LEN + 1;
    /// Slots per observation (iteration, quality, confidence, delta, status).
    OBSERVATION_SLOTS = 5;
}

contract_table! {
    /// Bits of `IN_FLAGS`.
    LOOP_FLAGS: u32, js "";
    /// `tokens_used` given.
    FLAG_TOKENS = 1;
    /// `token_cost_usd` given.
    FLAG_COST = 2;
    /// `execution_time_ms` given.
    FLAG_TIME = 4;
    /// The usage fields.
    FLAG_USAGE = FLAG_TOKENS | FLAG_COST | FLAG_TIME;
    /// `iteration_number` given.
    FLAG_ITERATION_NUMBER = 8;
    /// A timestamp given (its bytes in `IN_TIMESTAMP`).
    FLAG_TIMESTAMP = 16;
    /// A record the core already accepted (folded again after `configure()` or a restore:
    /// the `strictIterations` order was judged when it was recorded).
    FLAG_ACCEPTED = 32;
}

contract_table! {
    /// Values of the input slots that are not numbers of a record.
    LOOP_MODES: f64, js "";
    /// `IN_SOURCE`: no source.
    SOURCE_NONE = 0.0;
    /// `IN_SOURCE`: a source is attached (`decide` answers `CODE_NEED_SOURCE` when it must
    /// be asked).
    SOURCE_ATTACHED = 1.0;
    /// `IN_SOURCE`: the source's report is in the input slots.
    SOURCE_REPORT = 2.0;
    /// `IN_REPORT_ITERATION_KIND`: the report has no `iteration`.
    REPORT_ITERATION_ABSENT = 0.0;
    /// `IN_REPORT_ITERATION_KIND`: `iteration: null`.
    REPORT_ITERATION_NULL = 1.0;
    /// `IN_REPORT_ITERATION_KIND`: a number.
    REPORT_ITERATION_NUMBER = 2.0;
    /// `IN_DELEGATE`: nothing delegated (the normal case, and whenever `fold` runs).
    DELEGATE_NONE = 0.0;
    /// `IN_DELEGATE`: `checkQualityPlateau()` over the state.
    PLATEAU_ANSWER = -1.0;
    /// `IN_DELEGATE`: `checkHighConfidence(record)`, the record's quality, confidence and
    /// status in the input slots.
    HIGH_CONFIDENCE_ANSWER = -2.0;
    /// `IN_DELEGATE`: `checkDiminishingReturns()`: the source's report in the input slots
    /// (`SOURCE_REPORT`), or no source (`SOURCE_NONE`).
    DIMINISHING_RETURNS_ANSWER = -3.0;
    /// `IN_DELEGATE` mask: `checkHighConfidence` is overridden.
    CHECK_HIGH_CONFIDENCE = SeedCheck::HighConfidence.bit() as f64;
    /// `IN_DELEGATE` mask: `checkQualityPlateau` is overridden.
    CHECK_QUALITY_PLATEAU = SeedCheck::QualityPlateau.bit() as f64;
    /// `IN_DELEGATE` mask: `checkDiminishingReturns` is overridden.
    CHECK_DIMINISHING_RETURNS = SeedCheck::DiminishingReturns.bit() as f64;
    /// `IN_DELEGATE`: the resume position's multiplier (above every mask bit).
    DELEGATE_RESUME = 8.0;
    /// `CODE_DELEGATE`'s first detail slot: call `checkHighConfidence(last record)`.
    DELEGATED_HIGH_CONFIDENCE = 0.0;
    /// `CODE_DELEGATE`'s first detail slot: call `checkQualityPlateau()`.
    DELEGATED_QUALITY_PLATEAU = 1.0;
    /// `CODE_DELEGATE`'s first detail slot: call `checkDiminishingReturns()`.
    DELEGATED_DIMINISHING_RETURNS = 2.0;
    /// A status slot without a status (a high-confidence stop that did not require one).
    STATUS_ABSENT = -1.0;
}

contract_table! {
    /// What `fold` and `decide` answer (also in `OUT_CODE`).
    LOOP_CODES: f64, js "";
    /// `fold`: the record was folded in.
    FOLD_OK = 0.0;
    /// `fold` / `decide`: the fast check refused the input; ask the JSON path for the error.
    FOLD_INVALID = 1.0;
    /// No record yet.
    CODE_NO_ITERATIONS = 0.0;
    /// Warm-up (`minIterations`): go on.
    CODE_WARM_UP = 1.0;
    /// Nothing stopped.
    CODE_CONTINUE = 2.0;
    /// Stop: high confidence.
    CODE_HIGH_CONFIDENCE = 3.0;
    /// Stop: quality plateau.
    CODE_PLATEAU = 4.0;
    /// Stop: diminishing returns (the source's report).
    CODE_DIMINISHING = 5.0;
    /// Stop: `maxIterations`.
    CODE_MAX_ITERATIONS = 6.0;
    /// Stop: a budget.
    CODE_BUDGET = 7.0;
    /// Stop: quality regression.
    CODE_REGRESSION = 8.0;
    /// Ask the source, put its report in the input slots and decide again.
    CODE_NEED_SOURCE = 9.0;
    /// The fast check refused the source's report: the JSON path words the error.
    CODE_INVALID_REPORT = 10.0;
    /// Stop: no improvement (`noImprovementPatience`).
    CODE_NO_IMPROVEMENT = 11.0;
    /// Call an overridden check method (`IN_DELEGATE`).
    CODE_DELEGATE = 12.0;
    /// A check method's answer that does not stop (its confidence in `OUT_CONFIDENCE`).
    CODE_GO_ON = 13.0;
    /// A stop this table does not know (the core's details are non-exhaustive): the JS layer
    /// throws rather than answer a made-up decision.
    CODE_UNKNOWN_STOP = -1.0;
}

// The regions do not overlap: inputs and outputs below the timestamp's bytes, the window
// after the counters (the pyramid's region, between the two, is checked in `earlyexit-js`).
const _: () =
    assert!(OUT_BUDGETS + 3 * BUDGET_STATUS_SLOTS <= OUT_IMPROVEMENTS_AT && OUT_IMPROVEMENTS_AT < IN_TIMESTAMP);
const _: () = assert!(OUT_DETAIL + DETAIL_SLOTS <= OUT_BEST_PRESENT && OUT_BEST_QUALITY < OUT_BUDGET_COUNT);
const _: () = assert!(COUNTERS + COUNTER_SLOTS == WINDOW_LEN && WINDOW_LEN < WINDOW);

/// Every table of this crate, for the generator and the fingerprint.
pub const TABLES: [Table; 4] = [LOOP_SLOTS, LOOP_FLAGS, LOOP_MODES, LOOP_CODES];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_values_whole() {
        let mut seen = std::collections::BTreeSet::new();
        for table in TABLES {
            for entry in table.entries {
                assert!(seen.insert(entry.js), "{} twice", entry.js);
                assert_eq!(entry.value.fract(), 0.0, "{}", entry.js);
            }
        }
    }

    #[test]
    fn the_config_takes_its_slots() {
        assert_eq!(CONFIG_SLOTS, crate::fast::config_slots(&Default::default()).len());
    }
}
