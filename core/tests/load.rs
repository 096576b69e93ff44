//! Load and long-run tests of the core: a 1,000,000-iteration loop whose memory grows by a
//! bounded amount per record, snapshots of a 100,000-record history that round-trip exactly,
//! and decisions whose cost does not grow with the history (they read a fixed window).
//!
//! Memory is measured with a counting global allocator (per thread, so tests running in
//! parallel do not see each other's allocations). No timing assertions: speed is measured
//! by the benchmark scripts, not here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use earlyexit::loops::ResourceUsage;
use earlyexit::{
    EarlyStopping, EarlyStoppingConfig, IterationAnalytics, IterationResult, Naming, Value, VerificationStatus,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards to the system allocator and counts, per thread, live bytes and allocations.
struct Counting;

thread_local! {
    static LIVE_BYTES: Cell<i64> = const { Cell::new(0) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: i64, allocations: u64) {
    let _ = LIVE_BYTES.try_with(|c| c.set(c.get() + bytes));
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + allocations));
}

// SAFETY: every call forwards unchanged to `System`; the counters are plain thread-locals
// that never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64, 1);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64), 0);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64, 1);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> i64 {
    LIVE_BYTES.with(Cell::get)
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

mod test_rng;
use test_rng::Rng;

/// A realistic iteration result: quality wandering around 60, never confident enough to stop
/// by default, with a timestamp, and usage on every fourth iteration.
fn result(rng: &mut Rng, i: u64) -> IterationResult {
    let quality = 40.0 + 30.0 * rng.unit();
    let status =
        [VerificationStatus::Passed, VerificationStatus::Failed, VerificationStatus::Skipped][(i % 3) as usize];
    let mut r = IterationResult::new(quality, 0.5 * rng.unit(), status, 20.0 * rng.unit() - 10.0);
    r.timestamp = Some(earlyexit::time::iso_from_millis(1_700_000_000_000 + i as i64 * 1_000));
    if i % 4 == 0 {
        r.usage = ResourceUsage {
            tokens_used: Some((rng.next() % 5_000) as f64),
            token_cost_usd: Some(rng.unit() / 10.0),
            execution_time_ms: Some(rng.unit() * 2_000.0),
        };
    }
    r
}

/// Options that keep every trigger armed but never firing on this data (plateau detection
/// needs flat deltas; the budgets and caps are far away), so each decision runs all checks.
fn long_run_config() -> EarlyStoppingConfig {
    EarlyStoppingConfig {
        plateau_consecutive_count: 5,
        plateau_improvement_threshold: 0.0001,
        max_iterations: Some(10_000_000),
        max_total_tokens: Some(1e15),
        max_total_cost_usd: Some(1e15),
        max_wall_clock_ms: Some(1e15),
        regression_tolerance: Some(100.0),
        ..EarlyStoppingConfig::default()
    }
}

const MILLION: u64 = 1_000_000;
/// Bytes a record may add, live, on average: a record is 64 bytes, its timestamp 24 and an
/// optional usage box 24; the history `Vec` may hold up to twice its length. 512 leaves a
/// wide margin and still catches any per-record leak or a history copied per decision.
const BYTES_PER_RECORD_BOUND: i64 = 512;

#[test]
fn a_million_iterations_grow_memory_by_a_bounded_amount_per_record() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let start = live_bytes();
    let mut engine = EarlyStopping::new(long_run_config()).unwrap();
    let mut stops = 0u64;
    let mut after_first_tenth = 0;
    for i in 1..=MILLION {
        engine.record(i, result(&mut rng, i), || unreachable!("every result has a timestamp")).unwrap();
        // Decide every iteration, as an agent loop does; the decision is dropped each time.
        if engine.should_stop().stop {
            stops += 1;
        }
        if i == MILLION / 10 {
            after_first_tenth = live_bytes() - start;
        }
    }
    let grown = live_bytes() - start;
    assert_eq!(engine.history().len() as u64, MILLION);
    assert_eq!(engine.history().last().unwrap().observation.iteration, MILLION);
    drop(engine);
    // Measured before printing: the test harness keeps captured output on this thread.
    let left_after_drop = live_bytes() - start;
    let per_record = grown / MILLION as i64;
    println!(
        "load: {MILLION} iterations recorded and decided ({stops} stop decisions), live memory +{} MB = {per_record} bytes per record (bound {BYTES_PER_RECORD_BOUND}); after 100k: {} bytes per record",
        grown / 1_000_000,
        after_first_tenth / (MILLION / 10) as i64
    );
    assert!(per_record <= BYTES_PER_RECORD_BOUND, "{per_record} bytes per record");
    // Growth is linear: over the million, a record costs at most twice what one of the first
    // 100,000 did (the history Vec's doubling), so nothing accumulates beyond the records.
    assert!(grown <= 10 * 2 * after_first_tenth + 4096, "memory grew faster than the history");
    assert!(left_after_drop <= 0, "dropping the engine left {left_after_drop} bytes");
}

#[test]
fn a_million_analytics_records_grow_memory_by_a_bounded_amount_per_record() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let start = live_bytes();
    let mut analytics = IterationAnalytics::new(Default::default()).unwrap();
    for i in 1..=MILLION {
        let r = result(&mut rng, i);
        let mut input = earlyexit::loops::analytics::AnalyticsInput::new(i, r.quality_score, r.verification_status);
        input.usage = r.usage;
        input.timestamp = Some("2026-01-01T00:00:00.000Z".to_string());
        analytics.record(input).unwrap();
        let _ = analytics.detect_diminishing_returns();
    }
    let per_record = (live_bytes() - start) / MILLION as i64;
    println!("load: {MILLION} analytics records, {per_record} bytes per record (bound {BYTES_PER_RECORD_BOUND})");
    assert_eq!(analytics.records().len() as u64, MILLION);
    assert!(per_record <= BYTES_PER_RECORD_BOUND, "{per_record} bytes per record");
}

fn engine_with(records: u64, seed: u64) -> EarlyStopping {
    let mut rng = Rng(seed);
    let mut engine = EarlyStopping::new(long_run_config()).unwrap();
    for i in 1..=records {
        engine.record(i, result(&mut rng, i), String::new).unwrap();
    }
    engine
}

#[test]
fn a_snapshot_of_100k_records_round_trips_exactly() {
    const RECORDS: u64 = 100_000;
    let mut engine = engine_with(RECORDS, 0xA076_1D64_78BD_642F);
    let decision = engine.should_stop();
    let snapshot = engine.to_snapshot();
    let text = snapshot.to_json();
    let parsed = earlyexit::snapshot::parse(&text).unwrap();
    assert_eq!(parsed, snapshot, "the JSON text reads back as the snapshot written");
    let mut restored = EarlyStopping::from_snapshot(&parsed).unwrap();
    assert!(restored == engine, "the restored engine differs");
    assert_eq!(restored.to_snapshot().to_json(), text, "the restored engine writes the same text");
    // Bit-exact numbers: every stored float comes back with the same bits.
    for (a, b) in engine.history().iter().zip(restored.history()) {
        assert_eq!(a.observation.quality_score.to_bits(), b.observation.quality_score.to_bits());
        assert_eq!(a.observation.quality_delta.to_bits(), b.observation.quality_delta.to_bits());
    }
    assert_eq!(restored.should_stop(), decision, "the restored engine decides the same");
    println!("load: snapshot of {RECORDS} records: {} KB of JSON, restored exactly", text.len() / 1024);
}

#[test]
fn an_analytics_snapshot_of_100k_records_round_trips_exactly() {
    const RECORDS: u64 = 100_000;
    let mut rng = Rng(0xE703_7ED1_A0B4_28DB);
    let mut analytics = IterationAnalytics::new(Default::default()).unwrap();
    for i in 1..=RECORDS {
        let record = Value::object(vec![
            ("iteration_number", Value::Number(i as f64)),
            ("quality_score", Value::Number(100.0 * rng.unit())),
            ("verification_status", Value::string(if i % 2 == 0 { "passed" } else { "failed" })),
            ("tokens_used", Value::Number((rng.next() % 1000) as f64)),
        ]);
        analytics.record_value(&record, Naming::Snake, "2026-01-01T00:00:00.000Z").unwrap();
    }
    let text = analytics.to_snapshot().to_json();
    let mut restored = IterationAnalytics::from_snapshot(&earlyexit::snapshot::parse(&text).unwrap()).unwrap();
    assert!(restored == analytics, "the restored analytics differs");
    assert_eq!(restored.to_snapshot().to_json(), text);
    let now = "2026-01-02T00:00:00.000Z";
    assert_eq!(restored.summary_value(now).unwrap(), analytics.summary_value(now).unwrap());
}

/// Bytes and allocations one `should_stop` (and one summary) costs at a given history length.
fn decision_cost(engine: &mut EarlyStopping) -> (i64, u64) {
    let (bytes0, allocs0) = (live_bytes(), allocations());
    let peak_probe = {
        let decision = engine.should_stop();
        let summary = engine.generate_summary();
        (live_bytes() - bytes0, decision, summary)
    };
    (peak_probe.0, allocations() - allocs0)
}

#[test]
fn decisions_cost_the_same_at_1k_and_100k_records() {
    // Plateau detection reads the last `plateau_consecutive_count` records; budgets and the
    // regression guard read running tallies: nothing may scan or copy the whole history.
    let mut small = engine_with(1_000, 0x1234_5678_9ABC_DEF1);
    let mut large = engine_with(100_000, 0x1234_5678_9ABC_DEF1);
    let (small_bytes, small_allocs) = decision_cost(&mut small);
    let (large_bytes, large_allocs) = decision_cost(&mut large);
    println!(
        "load: one decision + summary at 1k records: {small_allocs} allocations, {small_bytes} bytes live; at 100k: {large_allocs} allocations, {large_bytes} bytes live"
    );
    assert_eq!(small_allocs, large_allocs, "a decision allocates more on a longer history");
    assert_eq!(small_bytes, large_bytes, "a decision holds more memory on a longer history");
    assert!(large_bytes < 64 * 1024, "a decision holds {large_bytes} bytes");
}
